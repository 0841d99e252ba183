// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The Experiments window on the offscreen platform, with the real engines on
// the real kernel (small sizes): a cold-read run from the Start button to the
// table, the bars, the live plot, the history and the exports; cancel in the
// middle of a run; bad input.

#include "experimentswindow.h"
#include "experimentpage.h"
#include "testutil.h"

#include <KMessageWidget>
#include <KPageWidget>
#include <KPageWidgetModel>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>

#include <qcustomplot.h>

namespace
{

QStringList filesIn(const QString &folder)
{
    return QDir(folder).entryList(QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden);
}

} // namespace

class ExperimentsWindowTest : public QObject
{
    Q_OBJECT

private:
    QString m_folder;

    // A cold-read page set up for a small file in the scratch folder.
    ExperimentPage *coldReadPage(ExperimentsWindow *window, int sizeMiB, int runs)
    {
        ExperimentPage *page = window->page(QStringLiteral("cold-read"));
        if (!page) {
            return nullptr;
        }
        page->findChild<QLineEdit *>(QStringLiteral("folderEdit"))->setText(m_folder);
        page->findChild<QSpinBox *>(QStringLiteral("sizeSpin"))->setValue(sizeMiB);
        page->findChild<QSpinBox *>(QStringLiteral("runsSpin"))->setValue(runs);
        window->showPage(page);
        return page;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QDir(ExperimentPage::historyFolder()).removeRecursively();
        m_folder = QString::fromStdString(TestUtil::scratchDir("experimentswindow"));
    }

    void init()
    {
        QVERIFY(filesIn(m_folder).isEmpty());
    }

    void cleanup()
    {
        // Every run removes the file it made, also when cancelled.
        QCOMPARE(filesIn(m_folder), QStringList());
    }

    void constructsFivePages()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        QCOMPARE(window->pages().size(), 5);
        QCOMPARE(window->pageWidget()->model()->rowCount(), 5);
        QStringList names;
        for (ExperimentPage *page : window->pages()) {
            names << page->experimentName();
            QVERIFY(!page->title().isEmpty());
            QVERIFY(!page->findChild<QLabel *>(QStringLiteral("explanationLabel"))->text().isEmpty());
            QVERIFY(page->startButton()->isEnabled());
            QVERIFY(!page->cancelButton()->isEnabled());
        }
        QCOMPARE(names,
                 QStringList({QStringLiteral("cold-read"),
                              QStringLiteral("pressure"),
                              QStringLiteral("cold-start"),
                              QStringLiteral("writeback"),
                              QStringLiteral("faults")}));

        // The privileged variants are usable only with the helper; when they
        // are not, the tooltip says why.
        ExperimentPage *page = window->page(QStringLiteral("cold-read"));
        auto *dropCaches = page->findChild<QCheckBox *>(QStringLiteral("dropCachesCheck"));
        QTRY_VERIFY(!dropCaches->toolTip().startsWith(QLatin1String("Checking")));
        if (!dropCaches->isEnabled()) {
            QVERIFY(!dropCaches->toolTip().isEmpty());
        }
        delete window;
    }

    void coldReadRun()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 16, 2);
        QVERIFY(page);
        QSignalSpy finished(page, &ExperimentPage::finished);

        page->startButton()->click();
        QVERIFY(page->isRunning());
        QVERIFY(!page->startButton()->isEnabled());
        QVERIFY(page->cancelButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 120000);
        QCOMPARE(finished.count(), 1);

        QVERIFY(page->currentResult());
        const auto &result = *page->currentResult();
        QVERIFY2(result.ok(), result.error.c_str());
        QVERIFY(page->startButton()->isEnabled());

        // The table: one row a figure of the variant, with numbers.
        QTableWidget *table = page->resultsTable();
        QVERIFY(table->rowCount() >= 5);
        bool sawColdTime = false;
        for (int row = 0; row < table->rowCount(); ++row) {
            QCOMPARE(table->item(row, ExperimentPage::VariantColumn)->text(), QStringLiteral("fadvise"));
            QCOMPARE(table->item(row, ExperimentPage::RunsColumn)->text(), QStringLiteral("2"));
            bool ok = false;
            const double mean = QLocale().toDouble(table->item(row, ExperimentPage::MeanColumn)->text(), &ok);
            QVERIFY2(ok, qPrintable(table->item(row, ExperimentPage::MeanColumn)->text()));
            QVERIFY(mean >= 0);
            QVERIFY(!table->item(row, ExperimentPage::ConfidenceColumn)->text().isEmpty()); // two runs: an interval
            sawColdTime |= table->item(row, ExperimentPage::FigureColumn)->text() == QStringLiteral("Cold time");
        }
        QVERIFY(sawColdTime);

        // The bars: cold and warm time of the variant, with error bars.
        QCustomPlot *bars = page->barChart();
        QCOMPARE(bars->plottableCount(), 2); // the bars and their error bars
        auto *barData = qobject_cast<QCPBars *>(bars->plottable(0));
        QVERIFY(barData);
        QCOMPARE(barData->data()->size(), 2);
        QVERIFY(barData->data()->at(0)->value > barData->data()->at(1)->value); // cold slower than warm
        QVERIFY(qobject_cast<QCPErrorBars *>(bars->plottable(1)));

        // The live plot got the file's residency while it was read.
        QVERIFY(page->liveSampleCount() > 0);
        QVERIFY(page->livePlot()->graph(0)->dataCount() > 0);

        // Kept in the history, and listed there.
        QVERIFY(QFile::exists(page->storedPath()));
        QVERIFY(page->storedPath().startsWith(ExperimentPage::historyFolder()));
        QComboBox *history = page->historyCombo();
        QVERIFY(history->findData(page->storedPath()) > 0);

        // Comparing with it: its rows in the table and its bars beside.
        const int rowsAlone = table->rowCount();
        history->setCurrentIndex(history->findData(page->storedPath()));
        QCOMPARE(table->rowCount(), 2 * rowsAlone);
        QCOMPARE(bars->plottableCount(), 4);

        // Export: the table as CSV and the plots as PNG.
        const QString csvPath = QDir(m_folder).filePath(QStringLiteral("../experimentswindow-results.csv"));
        QString error;
        QVERIFY2(page->exportCsv(csvPath, &error), qPrintable(error));
        QFile csv(csvPath);
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.value(0), QStringLiteral("result,started,variant,figure,unit,runs,mean,ci95_half_width,minimum,maximum,values,note"));
        QCOMPARE(lines.size(), 1 + 2 * rowsAlone);
        QVERIFY(std::any_of(lines.begin(), lines.end(), [](const QString &line) {
            return line.startsWith(QLatin1String("current,")) && line.contains(QLatin1String(",fadvise,cold_seconds,s,2,"));
        }));
        csv.remove();

        const QString pngPath = QDir(m_folder).filePath(QStringLiteral("../experimentswindow-plots.png"));
        QVERIFY2(page->exportPng(pngPath, &error), qPrintable(error));
        const QImage image(pngPath);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() > image.height());
        QFile::remove(pngPath);

        // A path that cannot be written: false, and the path in the message.
        const QString badPath = QStringLiteral("/proc/no-such-folder/results.csv");
        QVERIFY(!page->exportCsv(badPath, &error));
        QVERIFY2(error.contains(badPath), qPrintable(error));
        delete window;
    }

    void cancelMidRun()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 512, 20);
        QVERIFY(page);
        page->startButton()->click();
        // Wait until the engine is reading, so that there is something to stop.
        QTRY_VERIFY_WITH_TIMEOUT(page->liveSampleCount() > 0, 60000);
        QVERIFY(page->isRunning());
        QElapsedTimer timer;
        timer.start();
        page->cancelButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 20000);
        qInfo() << "stopped" << timer.elapsed() << "ms after Cancel";
        QVERIFY(!page->currentResult()); // a cancelled run is not shown as a result
        QVERIFY(page->storedPath().isEmpty());
        QVERIFY(page->startButton()->isEnabled());
        delete window; // cleanup() checks that no file is left
    }

    void closingWhileRunning()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 256, 20);
        page->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(page->liveSampleCount() > 0, 60000);
        QPointer<ExperimentsWindow> guard(window);
        window->close(); // deletes itself after stopping the engine
        QTRY_VERIFY_WITH_TIMEOUT(guard.isNull(), 20000);
    }

    void badInput_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<QString>("expected");
        QTest::newRow("missing folder") << QStringLiteral("/nonexistent/cachescope") << QStringLiteral("/nonexistent/cachescope: no such folder");
        QTest::newRow("empty folder") << QString() << QStringLiteral("Choose a folder");
    }

    void badInput()
    {
        QFETCH(QString, folder);
        QFETCH(QString, expected);
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 16, 1);
        page->findChild<QLineEdit *>(QStringLiteral("folderEdit"))->setText(folder);
        page->startButton()->click();
        QVERIFY(!page->isRunning());
        auto *message = page->findChild<KMessageWidget *>(QStringLiteral("messageWidget"));
        QVERIFY2(message->text().contains(expected), qPrintable(message->text()));
        QCOMPARE(message->messageType(), KMessageWidget::Error);
        delete window;
    }

    void engineErrorIsShown()
    {
        // A file that does not exist: the engine refuses, the page says why.
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 16, 1);
        const QString missing = QDir(m_folder).filePath(QStringLiteral("no-such-file"));
        page->findChild<QLineEdit *>(QStringLiteral("fileEdit"))->setText(missing);
        page->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 30000);
        auto *message = page->findChild<KMessageWidget *>(QStringLiteral("messageWidget"));
        QVERIFY2(message->text().contains(missing), qPrintable(message->text()));
        QVERIFY(!page->currentResult());
        delete window;
    }
};

QTEST_MAIN(ExperimentsWindowTest)

#include "experimentswindowtest.moc"
