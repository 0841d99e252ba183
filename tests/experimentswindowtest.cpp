// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The Experiments window on the offscreen platform, with the real engines on
// the real kernel (small sizes): a cold-read run from the Start button to the
// table, the bars, the live plot, the history and the exports; cancel in the
// middle of a run; bad input.

#include "experimentswindow.h"
#include "experimentpage.h"
#include "experiments/coldreadpage.h"
#include "experiments/coldstartpage.h"
#include "experiments/resultsmodel.h"
#include "experiments/traceextentsmodel.h"
#include "experiments/tracepage.h"
#include "experiments/tracetimeline.h"
#include "experiments/writebackpage.h"
#include "heatmapwidget.h"
#include "testutil.h"
#include "trace/tracereport.h"

#include <KMessageWidget>
#include <KPageWidget>
#include <KPageWidgetModel>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHelpEvent>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QToolTip>

#include <qcustomplot.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace Cachescope::App;

namespace
{

QStringList filesIn(const QString &folder)
{
    return QDir(folder).entryList(QDir::Files | QDir::NoDotAndDotDot | QDir::Hidden);
}

// The text a cell of the results table shows.
QString cellText(const QTableView *table, int row, int column)
{
    return table->model()->index(row, column).data().toString();
}

namespace Trace = Cachescope::Trace;

// A trace shaped like the engine's report of the lesson (64 KiB read at 0 and
// at 512 KiB of a 1 MiB file), with a metadata extent and one that only
// readahead brought in: a fixture for the page's widgets, made here, not in
// src/. The file is real when path names one (the replay reads it).
Trace::Report lessonTrace(const std::string &path)
{
    Trace::Report report;
    report.method = Trace::Method::Tracefs;
    report.command = {};
    report.durationSeconds = 0.020;
    report.exitStatus = 0;
    report.usageKnown = true;
    report.endReason = "exited";
    Trace::File file;
    file.path = path;
    file.major = 254;
    file.inode = 0x3c529;
    file.sizeBytes = 1 << 20;
    struct stat st = {};
    if (::stat(path.c_str(), &st) == 0) {
        file.major = major(st.st_dev);
        file.minor = minor(st.st_dev);
        file.inode = st.st_ino;
        file.sizeBytes = uint64_t(st.st_size);
        file.modifiedNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    }
    file.pagesAdded = 4 + 60 + 16 + 48;
    file.pagesAsked = 4 + 12 + 16;
    Trace::File metadata;
    metadata.metadata = true;
    metadata.inode = (254u << 20) | 0;
    metadata.pagesAdded = 2;
    report.files = {file, metadata};
    report.extents = {
        {1, 1000, 2, 0.0004, 0.0005, 0},
        {0, 0, 4, 0.0010, 0.0011, 4},
        {0, 4, 60, 0.0015, 0.0040, 12},
        {0, 128, 16, 0.0100, 0.0102, 16},
        {0, 144, 48, 0.0105, 0.0130, 0},
    };
    report.requests = {{0.0009, 254, 0, 12580504, 16384, "RA"}};
    report.notes = {"a fixture"};
    return report;
}

TracePage *tracePage(ExperimentsWindow *window)
{
    auto *page = qobject_cast<TracePage *>(window->page(QStringLiteral("trace")));
    if (page) {
        window->showPage(page);
    }
    return page;
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

    void constructsSixPages()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        QCOMPARE(window->pages().size(), 6);
        QCOMPARE(window->pageWidget()->model()->rowCount(), 6);
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
                              QStringLiteral("faults"),
                              QStringLiteral("trace")}));

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

    // A colour-scheme change (a new application palette) restyles every
    // experiment plot, as it does the memory panel.
    void plotsFollowColorScheme()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        const QPalette original = QApplication::palette();
        QPalette changed = original;
        const QColor background(0x20, 0x22, 0x26);
        const QColor text(0xfc, 0xfc, 0xfc);
        const QColor base(0x14, 0x16, 0x18);
        for (const auto group : {QPalette::Active, QPalette::Inactive, QPalette::Disabled}) {
            changed.setColor(group, QPalette::Window, background);
            changed.setColor(group, QPalette::WindowText, text);
            changed.setColor(group, QPalette::Base, base);
        }
        for (ExperimentPage *page : window->pages()) {
            for (QCustomPlot *plot : {page->livePlot(), page->barChart()}) {
                QVERIFY(plot->axisRect()->backgroundBrush().color() != base);
                QVERIFY(plot->xAxis->basePen().color() != text);
            }
        }
        QApplication::setPalette(changed);
        for (ExperimentPage *page : window->pages()) {
            for (QCustomPlot *plot : {page->livePlot(), page->barChart()}) {
                QTRY_COMPARE(plot->axisRect()->backgroundBrush().color(), base);
                QCOMPARE(plot->xAxis->basePen().color(), text);
                QCOMPARE(plot->yAxis->tickLabelColor(), text);
                QCOMPARE(plot->legend->textColor(), text);
            }
            // The live plot's legend sits under it, on the window's colour.
            QCOMPARE(page->livePlot()->legend->brush().color(), background);
        }
        QApplication::setPalette(original);
        QTRY_COMPARE(window->pages().constFirst()->livePlot()->axisRect()->backgroundBrush().color(), original.color(QPalette::Base));
        delete window;
    }

    void coldReadRun()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        ExperimentPage *page = coldReadPage(window, 16, 2);
        QVERIFY(page);
        QSignalSpy finished(page, &ExperimentPage::finished);

        // The file's heatmap: hidden until a run, then filled in as the cold
        // read goes. Record the resident pages at every update.
        auto *coldRead = qobject_cast<ColdReadPage *>(page);
        QVERIFY(coldRead);
        HeatmapWidget *heatmap = coldRead->fileHeatmap();
        QVERIFY(!heatmap->isVisibleTo(page));
        QList<uint64_t> residentSeen;
        connect(heatmap, &HeatmapWidget::updated, this, [heatmap, &residentSeen] {
            uint64_t resident = 0;
            for (int cell = 0; cell < heatmap->cellCount(); ++cell) {
                resident += heatmap->cellResidentPages(cell);
            }
            residentSeen << resident;
        });

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
        QTableView *table = page->resultsTable();
        QVERIFY(table->model()->rowCount() >= 5);
        bool sawColdTime = false;
        for (int row = 0; row < table->model()->rowCount(); ++row) {
            QCOMPARE(cellText(table, row, ExperimentResultsModel::VariantColumn), QStringLiteral("fadvise"));
            QCOMPARE(cellText(table, row, ExperimentResultsModel::RunsColumn), QStringLiteral("2"));
            bool ok = false;
            const double mean = QLocale().toDouble(cellText(table, row, ExperimentResultsModel::MeanColumn), &ok);
            QVERIFY2(ok, qPrintable(cellText(table, row, ExperimentResultsModel::MeanColumn)));
            QVERIFY(mean >= 0);
            QVERIFY(!cellText(table, row, ExperimentResultsModel::ConfidenceColumn).isEmpty()); // two runs: an interval
            sawColdTime |= cellText(table, row, ExperimentResultsModel::FigureColumn) == QStringLiteral("Cold time");
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

        // The heatmap started empty (the evicted file) and ended full, drawn
        // from the engine's samples, not from a file of its own.
        const uint64_t filePages = (16ULL << 20) / uint64_t(sysconf(_SC_PAGESIZE));
        QVERIFY(heatmap->isVisibleTo(page));
        QVERIFY(heatmap->showsRecorded());
        QVERIFY2(residentSeen.size() >= 2, qPrintable(QString::number(residentSeen.size())));
        QCOMPARE(residentSeen.first(), uint64_t(0));
        QCOMPARE(residentSeen.last(), filePages);
        QCOMPARE(heatmap->filePageCount(), filePages);
        QVERIFY(heatmap->visibleTexts().join(QLatin1Char(' ')).contains(QLatin1String("New file")));

        // Kept in the history, and listed there.
        QVERIFY(QFile::exists(page->storedPath()));
        QVERIFY(page->storedPath().startsWith(ExperimentPage::historyFolder()));
        QComboBox *history = page->historyCombo();
        QVERIFY(history->findData(page->storedPath()) > 0);

        // Comparing with it: its rows in the table and its bars beside.
        const int rowsAlone = table->model()->rowCount();
        history->setCurrentIndex(history->findData(page->storedPath()));
        QCOMPARE(table->model()->rowCount(), 2 * rowsAlone);
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

    // The cold-start page lists the program's files with size and residency.
    void coldStartFileList()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        auto *page = qobject_cast<ColdStartPage *>(window->page(QStringLiteral("cold-start")));
        QVERIFY(page);
        window->showPage(page);
        const QString program = QStringLiteral("/usr/bin/true");
        page->findChild<QLineEdit *>(QStringLiteral("commandEdit"))->setText(program);
        page->findChild<QSpinBox *>(QStringLiteral("runsSpin"))->setValue(1);
        page->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 120000);
        QVERIFY(page->currentResult());
        QVERIFY2(page->currentResult()->ok(), page->currentResult()->error.c_str());

        QTableWidget *files = page->filesTable();
        QVERIFY(files->rowCount() >= 2); // the program and at least libc
        // The tab beside the results shows now that there are two.
        auto *tabs = page->findChild<QTabWidget *>(QStringLiteral("resultsTabs"));
        QVERIFY(tabs);
        QCOMPARE(tabs->count(), 2);
        QVERIFY(tabs->indexOf(files) >= 0);
        bool sawProgram = false;
        bool sawLibc = false;
        for (int row = 0; row < files->rowCount(); ++row) {
            const QString path = files->item(row, ColdStartPage::FileColumn)->text();
            sawProgram |= QFileInfo(path).canonicalFilePath() == QFileInfo(program).canonicalFilePath();
            sawLibc |= QFileInfo(path).fileName().startsWith(QLatin1String("libc.so"));
            QVERIFY(files->item(row, ColdStartPage::SizeColumn)->data(Qt::UserRole).toDouble() > 0);
            // "N of M (P%)": residency in words, with the numbers sorted by the fraction.
            QVERIFY2(files->item(row, ColdStartPage::WarmColumn)->text().contains(QLatin1String(" of ")),
                     qPrintable(files->item(row, ColdStartPage::WarmColumn)->text()));
        }
        QVERIFY(sawProgram);
        QVERIFY(sawLibc);
        // Largest first.
        QVERIFY(files->item(0, ColdStartPage::SizeColumn)->data(Qt::UserRole).toDouble()
                >= files->item(files->rowCount() - 1, ColdStartPage::SizeColumn)->data(Qt::UserRole).toDouble());
        delete window;
    }

    // fsync Now and sync Now while the writeback experiment waits: both are
    // done at once, their times are shown beside the buttons and marked on
    // the live plot.
    void writebackButtons()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        auto *page = qobject_cast<WritebackPage *>(window->page(QStringLiteral("writeback")));
        QVERIFY(page);
        window->showPage(page);
        page->findChild<QLineEdit *>(QStringLiteral("folderEdit"))->setText(m_folder);
        page->findChild<QSpinBox *>(QStringLiteral("sizeSpin"))->setValue(16);
        page->findChild<QSpinBox *>(QStringLiteral("stepSpin"))->setValue(4);
        page->findChild<QDoubleSpinBox *>(QStringLiteral("waitSpin"))->setValue(30);
        QVERIFY(!page->fsyncButton()->isEnabled());
        QVERIFY(!page->syncButton()->isEnabled());

        QElapsedTimer timer;
        timer.start();
        page->startButton()->click();
        QVERIFY(page->fsyncButton()->isEnabled());
        QVERIFY(page->syncButton()->isEnabled());
        // Past the writing (four steps and the "written" sample): it waits with dirty pages.
        QTRY_VERIFY_WITH_TIMEOUT(page->liveSampleCount() > 5, 20000);
        page->fsyncButton()->click();
        page->syncButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 60000);
        // The wait of 30 s ended when the fsync left the file clean.
        QVERIFY2(timer.elapsed() < 25000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY(page->currentResult() && page->currentResult()->ok());
        QVERIFY2(page->fsyncTimeLabel()->text().startsWith(QLatin1String("Took ")), qPrintable(page->fsyncTimeLabel()->text()));
        QVERIFY2(page->syncTimeLabel()->text().startsWith(QLatin1String("Took ")), qPrintable(page->syncTimeLabel()->text()));
        const QJsonArray asked = page->currentResult()->variants.front().runs.at(0).toObject().value(QStringLiteral("asked")).toArray();
        QCOMPARE(asked.size(), 2);
        // Markers: the asked-for fsync and sync, then the ones at the end (two items each).
        QCOMPARE(page->livePlot()->itemCount(), 8);
        QVERIFY(!page->fsyncButton()->isEnabled());
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

    // The trace page's widgets from a trace made here: a mark per extent,
    // the table, the totals, the heatmap with asked-for pages apart.
    void traceShowsExtentsAndTotals()
    {
        auto *window = new ExperimentsWindow;
        window->resize(1280, 800);
        window->show();
        TracePage *page = tracePage(window);
        QVERIFY(page);
        // Before a run: a sentence instead of an empty plot, nothing to replay.
        QCOMPARE(page->timeline()->markCount(), 0);
        QVERIFY(!page->timeline()->message().isEmpty());
        QVERIFY(!page->replayButton()->isEnabled());

        const std::string path = "/nonexistent/cachescope/lesson.bin";
        page->showReport(lessonTrace(path));
        QCOMPARE(page->timeline()->markCount(), 5);
        QCOMPARE(page->timeline()->markCount(ExtentKind::Asked), 3);
        QCOMPARE(page->timeline()->markCount(ExtentKind::Readahead), 1);
        QCOMPARE(page->timeline()->markCount(ExtentKind::Metadata), 1);
        QVERIFY(page->timeline()->message().isEmpty());
        QVERIFY(page->timelinePlot()->legend->visible());
        // Its file is not there: nothing to replay, and the tooltip says so.
        QVERIFY(!page->replayButton()->isEnabled());
        QVERIFY(page->replayButton()->toolTip().contains(QStringLiteral("nothing to replay")));

        // Each mark is where its extent is, and hovering it tells which.
        QTRY_VERIFY(page->timelinePlot()->axisRect()->width() > 200);
        page->timelinePlot()->replot();
        for (int extent = 0; extent < 5; ++extent) {
            const QPoint centre = page->timeline()->markCentre(extent);
            QVERIFY2(page->timelinePlot()->axisRect()->rect().contains(centre), qPrintable(QString::number(extent)));
            QCOMPARE(page->timeline()->extentAt(centre), extent);
        }
        // Hovering shows it, clicking chooses its row in the table.
        const QPoint centre = page->timeline()->markCentre(4);
        QHelpEvent help(QEvent::ToolTip, centre, page->timelinePlot()->mapToGlobal(centre));
        QApplication::sendEvent(page->timelinePlot(), &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), page->timeline()->toolTipFor(4));
        QToolTip::hideText();
        QTest::mouseClick(page->timelinePlot(), Qt::LeftButton, {}, page->timeline()->markCentre(3));
        QCOMPARE(page->extentsTable()->currentIndex().row(), 3);
        const QString tip = page->timeline()->toolTipFor(4);
        QVERIFY2(tip.contains(QString::fromStdString(path)) && tip.contains(QStringLiteral("576 KiB")) && tip.contains(QStringLiteral("192 KiB"))
                     && tip.contains(QStringLiteral("10.500")) && tip.contains(QStringLiteral("0 of 48")),
                 qPrintable(tip));

        // The table: a row per extent, in the order they came.
        QTableView *table = page->extentsTable();
        QCOMPARE(table->model()->rowCount(), 5);
        QVERIFY(cellText(table, 0, TraceExtentsModel::FileColumn).contains(QStringLiteral("metadata")));
        QCOMPARE(cellText(table, 4, TraceExtentsModel::FileColumn), QString::fromStdString(path));
        QCOMPARE(cellText(table, 4, TraceExtentsModel::OffsetColumn), QStringLiteral("576 KiB"));
        QCOMPARE(cellText(table, 4, TraceExtentsModel::LengthColumn), QStringLiteral("192 KiB"));
        QCOMPARE(cellText(table, 4, TraceExtentsModel::KindColumn), QStringLiteral("Only readahead"));
        QCOMPARE(cellText(table, 2, TraceExtentsModel::AskedColumn), QStringLiteral("12 of 60"));

        // Totals: one file, 130 pages (2 of them metadata), 96 of the
        // file's 128 only brought in by readahead.
        const QString totals = page->totals().join(QLatin1Char('\n'));
        for (const QString &expected : {QStringLiteral("Files: 1"),
                                        QStringLiteral("Pages read: 130"),
                                        QStringLiteral("Only readahead: 75.0%"),
                                        QStringLiteral("File system metadata: 8.0 KiB"),
                                        QStringLiteral("Lost events: none"),
                                        QStringLiteral("tracefs")}) {
            QVERIFY2(totals.contains(expected), qPrintable(expected + QStringLiteral(" in:\n") + totals));
        }

        // The heatmap of the file: 128 pages read, 32 asked for, none of
        // the readahead-only extent's.
        HeatmapWidget *heatmap = page->fileHeatmap();
        QCOMPARE(page->heatmapFileCombo()->count(), 1);
        QVERIFY(heatmap->showsRecorded());
        QCOMPARE(heatmap->filePageCount(), uint64_t(256));
        uint64_t read = 0;
        uint64_t asked = 0;
        for (int cell = 0; cell < heatmap->cellCount(); ++cell) {
            read += heatmap->cellResidentPages(cell);
            asked += heatmap->cellDirtyPages(cell);
            if (heatmap->cellFirstPage(cell) >= 144 && heatmap->cellFirstPage(cell) < 192) {
                QCOMPARE(heatmap->cellResidentPages(cell), heatmap->cellPageCount(cell));
                QCOMPARE(heatmap->cellDirtyPages(cell), uint64_t(0));
            }
        }
        QCOMPARE(read, uint64_t(128));
        QCOMPARE(asked, uint64_t(32));
        const QStringList texts = heatmap->visibleTexts();
        QVERIFY2(texts.contains(QStringLiteral("Asked for by the program")) && !texts.contains(QStringLiteral("Dirty")),
                 qPrintable(texts.join(QLatin1Char('|'))));
        delete window;
    }

    // The residency difference has pages but no time: no made-up timeline.
    void traceWithoutTimeSaysSo()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        TracePage *page = tracePage(window);
        Trace::Report report = lessonTrace("/nonexistent/cachescope/lesson.bin");
        report.method = Trace::Method::ResidencyDiff;
        report.usageKnown = false;
        report.files.pop_back(); // no metadata without a trace
        report.extents.erase(report.extents.begin());
        for (Trace::Extent &extent : report.extents) {
            extent.startSeconds = extent.endSeconds = 0;
            extent.askedPages = 0;
        }
        page->showReport(report);
        QCOMPARE(page->timeline()->markCount(), 0);
        QVERIFY2(page->timeline()->message().contains(QStringLiteral("No timeline")), qPrintable(page->timeline()->message()));
        QVERIFY(!page->timelinePlot()->xAxis->visible());
        // The sentence has the plot's width, not an empty legend's.
        page->timelinePlot()->replot();
        QVERIFY(page->timelinePlot()->axisRect()->width() > page->timelinePlot()->width() * 3 / 4);
        QCOMPARE(page->extentsTable()->model()->rowCount(), 4);
        QCOMPARE(cellText(page->extentsTable(), 0, TraceExtentsModel::StartColumn), QStringLiteral("–"));
        QCOMPARE(cellText(page->extentsTable(), 0, TraceExtentsModel::AskedColumn), QStringLiteral("unknown"));
        const QString totals = page->totals().join(QLatin1Char('\n'));
        QVERIFY2(totals.contains(QStringLiteral("no order, no time")) && totals.contains(QStringLiteral("unknown without tracing")), qPrintable(totals));
        QVERIFY(page->fileHeatmap()->visibleTexts().join(QLatin1Char('|')).contains(QStringLiteral("unknown")));
        delete window;
    }

    // The trace file, the extents and the timeline, as a person would export them.
    void traceExports()
    {
        const QString folder = QString::fromStdString(TestUtil::scratchDir("experimentswindow-trace-exports"));
        auto *window = new ExperimentsWindow;
        window->resize(1280, 800);
        window->show();
        TracePage *page = tracePage(window);
        QString error;
        QVERIFY(!page->exportJson(QDir(folder).filePath(QStringLiteral("none.json")), &error));
        QVERIFY(error.contains(QStringLiteral("no trace")));
        const std::string path = "/nonexistent/cachescope/lesson, with a comma.bin";
        page->showReport(lessonTrace(path));

        const QString json = QDir(folder).filePath(QStringLiteral("trace.json"));
        QVERIFY2(page->exportJson(json, &error), qPrintable(error));
        QFile jsonFile(json);
        QVERIFY(jsonFile.open(QIODevice::ReadOnly));
        std::string readError;
        const std::optional<Trace::Report> back = Trace::reportFromJsonBytes(jsonFile.readAll(), &readError);
        QVERIFY2(back, readError.c_str());
        QCOMPARE(back->extents.size(), size_t(5));
        QCOMPARE(back->files.at(0).path, path);
        QCOMPARE(back->extents.at(4).firstPage, uint64_t(144));

        const QString csv = QDir(folder).filePath(QStringLiteral("extents.csv"));
        QVERIFY2(page->exportCsv(csv, &error), qPrintable(error));
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly | QIODevice::Text));
        const QStringList lines = QString::fromUtf8(csvFile.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 6);
        QCOMPARE(lines[0], QStringLiteral("file,offset_bytes,length_bytes,start_seconds,end_seconds,pages,asked_pages,kind"));
        QCOMPARE(lines[5], QStringLiteral("\"/nonexistent/cachescope/lesson, with a comma.bin\",589824,196608,0.0105,0.013,48,0,readahead"));
        QVERIFY(lines[1].endsWith(QStringLiteral(",metadata")));

        const QString png = QDir(folder).filePath(QStringLiteral("timeline.png"));
        QVERIFY2(page->exportPng(png, &error), qPrintable(error));
        const QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 400 && image.height() >= 250);

        // A path that cannot be written is named with the reason.
        const QString bad = QStringLiteral("/nonexistent/cachescope/trace.json");
        QVERIFY(!page->exportJson(bad, &error));
        QVERIFY2(error.contains(bad), qPrintable(error));
        delete window;
        QDir(folder).removeRecursively();
    }

    // Replay reads the traced extents of a real file again, in three orders,
    // and checks them against the command's measured cold start.
    void traceReplay()
    {
        const QString folder = QString::fromStdString(TestUtil::scratchDir("experimentswindow-trace-replay"));
        const std::string path = QDir(folder).filePath(QStringLiteral("lesson.bin")).toStdString();
        TestUtil::makeColdFile(path, 1 << 20);
        auto *window = new ExperimentsWindow;
        window->show();
        TracePage *page = tracePage(window);
        Trace::Report report = lessonTrace(path);
        report.command = {"/bin/cat", path};
        page->showReport(report);
        page->findChild<QSpinBox *>(QStringLiteral("replayRunsSpin"))->setValue(2);
        QSignalSpy done(page, &TracePage::replayFinished);
        page->replayButton()->click();
        QVERIFY(page->isReplaying());
        QVERIFY(!page->replayButton()->isEnabled());
        QVERIFY(!page->startButton()->isEnabled()); // one at a time: both evict and read
        QVERIFY(page->cancelReplayButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!done.isEmpty(), 180000);
        auto *message = page->findChild<KMessageWidget *>(QStringLiteral("messageWidget"));
        QVERIFY2(page->replayResult(), qPrintable(message->text()));
        for (const char *order : {"recorded order", "file order", "disk order"}) {
            const auto *variant = page->replayResult()->variant(order);
            QVERIFY2(variant && !variant->skipped, order);
            QVERIFY(variant->find("throughput"));
        }
        QVERIFY(page->replayPlot()->plottableCount() > 0);
        QVERIFY2(page->replayCheckLabel()->text().contains(QStringLiteral("%")), qPrintable(page->replayCheckLabel()->text()));
        QVERIFY(page->startButton()->isEnabled());
        delete window;
        QDir(folder).removeRecursively();
    }

    // The lesson on the real kernel, as an ordinary build runs it: without
    // the helper the residency difference, which has pages but no time.
    void traceLessonFallback()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        TracePage *page = tracePage(window);
        auto *tracefs = page->findChild<QCheckBox *>(QStringLiteral("tracefsCheck"));
        QTRY_VERIFY(!tracefs->toolTip().startsWith(QLatin1String("Checking")));
        tracefs->setChecked(false); // the helper may be reachable here; an ordinary desktop build may have none
        QCOMPARE(page->findChild<QComboBox *>(QStringLiteral("programCombo"))->currentIndex(), 0); // the lesson
        QVERIFY(!page->findChild<QLineEdit *>(QStringLiteral("commandEdit"))->isEnabled());
        page->startButton()->click();
        QVERIFY(page->isRunning());
        QVERIFY(!page->startButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 120000);
        auto *message = page->findChild<KMessageWidget *>(QStringLiteral("messageWidget"));
        QVERIFY2(page->currentResult() && page->currentResult()->ok(), qPrintable(message->text()));
        QVERIFY(page->currentResult()->trace);
        QVERIFY(!page->storedPath().isEmpty());

        const std::optional<Trace::Report> &report = page->shownReport();
        QVERIFY(report);
        QCOMPARE(report->method, Trace::Method::ResidencyDiff);
        // The lesson's file: 1 MiB, both 64 KiB reads inside its extents.
        int lessonFile = -1;
        for (size_t file = 0; file < report->files.size(); ++file) {
            if (report->files[file].sizeBytes == (1 << 20)
                && QString::fromStdString(report->files[file].path).startsWith(QStandardPaths::writableLocation(QStandardPaths::CacheLocation))) {
                lessonFile = int(file);
            }
        }
        QVERIFY2(lessonFile >= 0, "the lesson's file is not among the traced files");
        for (const uint64_t first : {uint64_t(0), uint64_t(128)}) {
            uint64_t covered = 0;
            for (const Trace::Extent &extent : report->extents) {
                if (extent.file == lessonFile) {
                    const uint64_t from = std::max(first, extent.firstPage);
                    const uint64_t to = std::min(first + 16, extent.firstPage + extent.pageCount);
                    covered += to > from ? to - from : 0;
                }
            }
            QCOMPARE(covered, uint64_t(16));
        }

        // Shown: a row per extent, a sentence instead of a timeline, totals that say how.
        QCOMPARE(page->extentsTable()->model()->rowCount(), int(report->extents.size()));
        QCOMPARE(page->timeline()->markCount(), 0);
        QVERIFY(page->timeline()->message().contains(QStringLiteral("No timeline")));
        const QString totals = page->totals().join(QLatin1Char('\n'));
        QVERIFY2(totals.contains(QStringLiteral("Residency before and after")), qPrintable(totals));
        QVERIFY(page->heatmapFileCombo()->count() >= 1);
        // The lesson removes its file; the reader's own files can be replayed.
        QVERIFY(page->replayButton()->isEnabled());
        QVERIFY(page->exportCsvButton()->isEnabled() && page->exportPngButton()->isEnabled());
        delete window;
    }

    // Cancel while the command runs: it ends at once, and nothing is left running.
    void traceCancel()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        TracePage *page = tracePage(window);
        page->findChild<QCheckBox *>(QStringLiteral("tracefsCheck"))->setChecked(false);
        page->findChild<QComboBox *>(QStringLiteral("programCombo"))->setCurrentIndex(1);
        page->findChild<QLineEdit *>(QStringLiteral("commandEdit"))->setText(QStringLiteral("sleep 3599.25"));
        auto *status = page->findChild<QLabel *>(QStringLiteral("statusLabel"));
        page->startButton()->click();
        QVERIFY(page->isRunning());
        // Once the engine reports, the command is running.
        QTRY_VERIFY_WITH_TIMEOUT(status->text() != QStringLiteral("Starting…"), 30000);
        page->cancelButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 20000);
        QVERIFY(!page->currentResult());
        QVERIFY(page->startButton()->isEnabled());
        // No sleep of ours is left.
        const auto ourSleeps = [] {
            QStringList found;
            for (const QString &pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
                QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
                if (cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains("3599.25")) {
                    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
                    (void)status.open(QIODevice::ReadOnly);
                    found << pid + QLatin1Char(' ') + QString::fromUtf8(status.readAll()).section(QLatin1Char('\n'), 0, 7);
                }
            }
            return found;
        };
        QTRY_VERIFY2_WITH_TIMEOUT(ourSleeps().isEmpty(), qPrintable(ourSleeps().join(QLatin1Char('\n'))), 10000);
        delete window;
    }

    void traceBadCommand()
    {
        auto *window = new ExperimentsWindow;
        window->show();
        TracePage *page = tracePage(window);
        page->findChild<QComboBox *>(QStringLiteral("programCombo"))->setCurrentIndex(1);
        QVERIFY(page->findChild<QLineEdit *>(QStringLiteral("commandEdit"))->isEnabled());
        page->findChild<QLineEdit *>(QStringLiteral("commandEdit"))->setText(QStringLiteral("ls 'unbalanced"));
        page->startButton()->click();
        QVERIFY(!page->isRunning());
        auto *message = page->findChild<KMessageWidget *>(QStringLiteral("messageWidget"));
        QVERIFY2(message->text().contains(QStringLiteral("unbalanced quotes")), qPrintable(message->text()));
        delete window;
    }
};

QTEST_MAIN(ExperimentsWindowTest)

#include "experimentswindowtest.moc"
