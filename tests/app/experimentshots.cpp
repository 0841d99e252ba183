// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Screenshots of each experiment's page after a run, on a real X display
// (tests/support/run-under-xvfb.sh), with small sizes. They go to
// $CACHESCOPE_SCREENSHOT_DIR, else to <build>/screenshots, as experiment-NAME.png.

#include "experiments/experimentpage.h"
#include "experiments/experimentswindow.h"
#include "experiments/figuretext.h"
#include "experiments/folderthrashpage.h"
#include "experiments/tracepage.h"
#include "experiments/writebackpage.h"
#include "heatmap/heatmapwidget.h"
#include "testutil.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QGuiApplication>
#include <QIcon>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTest>

#include <functional>

#include <qcustomplot.h>

using namespace Cachescope::App;

class ExperimentShots : public QObject
{
    Q_OBJECT

private:
    QString m_folder;
    QString m_screenshots;
    ExperimentsWindow *m_window = nullptr;

    void setText(ExperimentPage *page, const char *name, const QString &text)
    {
        if (auto *edit = page->findChild<QLineEdit *>(QLatin1String(name))) {
            edit->setText(text);
        }
    }
    void setValue(ExperimentPage *page, const char *name, double value)
    {
        if (auto *spin = page->findChild<QSpinBox *>(QLatin1String(name))) {
            spin->setValue(int(value));
        } else if (auto *doubleSpin = page->findChild<QDoubleSpinBox *>(QLatin1String(name))) {
            doubleSpin->setValue(value);
        }
    }

    // whileRunning, if given, is called once the run has started (to press
    // the page's own buttons as a person would).
    void runAndShoot(const QString &name, const std::function<void(ExperimentPage *)> &whileRunning = {})
    {
        ExperimentPage *page = m_window->page(name);
        QVERIFY(page);
        m_window->showPage(page);
        page->startButton()->click();
        QVERIFY(page->isRunning());
        if (whileRunning) {
            whileRunning(page);
        }
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 240000);
        QVERIFY2(page->currentResult() && page->currentResult()->ok(), page->currentResult() ? page->currentResult()->error.c_str() : "no result");
        shoot(QStringLiteral("experiment-%1.png").arg(name));
    }

    void shoot(const QString &fileName)
    {
        QTest::qWait(300); // queued replots
        const QString path = QDir(m_screenshots).filePath(fileName);
        const QImage image = m_window->grab().toImage();
        QVERIFY2(image.save(path), qPrintable(QStringLiteral("cannot save ") + path));
        qInfo() << "saved" << path << image.size();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        if (QGuiApplication::platformName() != QLatin1String("xcb")) {
            QSKIP("screenshots are taken on a real X display: run through tests/support/run-under-xvfb.sh");
        }
        if (QIcon::themeName().isEmpty() || QIcon::themeName() == QLatin1String("hicolor")) {
            QIcon::setThemeName(QStringLiteral("breeze"));
        }
        m_screenshots = qEnvironmentVariable("CACHESCOPE_SCREENSHOT_DIR");
        if (m_screenshots.isEmpty()) {
            m_screenshots = QDir(QStringLiteral(CACHESCOPE_TEST_SCRATCH "/..")).absoluteFilePath(QStringLiteral("screenshots"));
        }
        QVERIFY(QDir().mkpath(m_screenshots));
        QDir(ExperimentPage::historyFolder()).removeRecursively();
        m_folder = QString::fromStdString(TestUtil::scratchDir("experiment-shots"));

        m_window = new ExperimentsWindow;
        m_window->resize(1280, 800);
        m_window->move(0, 0);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
        for (ExperimentPage *page : m_window->pages()) {
            setText(page, "folderEdit", m_folder);
        }
    }

    void cleanupTestCase()
    {
        delete m_window;
    }

    void coldRead()
    {
        ExperimentPage *page = m_window->page(QStringLiteral("cold-read"));
        setValue(page, "sizeSpin", 128);
        setValue(page, "runsSpin", 3);
        runAndShoot(QStringLiteral("cold-read"));
    }

    void pressure()
    {
        ExperimentPage *page = m_window->page(QStringLiteral("pressure"));
        setValue(page, "sizeSpin", 64);
        setValue(page, "limitSpin", 0); // in its cgroup: the file's size
        setValue(page, "stepSpin", 16);
        runAndShoot(QStringLiteral("pressure"));
    }

    void coldStart()
    {
        ExperimentPage *page = m_window->page(QStringLiteral("cold-start"));
        setText(page, "commandEdit", QStringLiteral("ls -l /usr/bin"));
        setValue(page, "runsSpin", 3);
        runAndShoot(QStringLiteral("cold-start"));
        // The program's files, in the tab beside the results.
        auto *tabs = page->findChild<QTabWidget *>(QStringLiteral("resultsTabs"));
        QVERIFY(tabs && tabs->count() == 2);
        tabs->setCurrentIndex(1);
        shoot(QStringLiteral("experiment-cold-start-files.png"));
        tabs->setCurrentIndex(0);
    }

    void writeback()
    {
        ExperimentPage *page = m_window->page(QStringLiteral("writeback"));
        setValue(page, "sizeSpin", 64);
        setValue(page, "waitSpin", 30);
        // Let the dirty pages sit for a moment, then fsync and sync: the
        // markers show what each did and how long it took.
        runAndShoot(QStringLiteral("writeback"), [](ExperimentPage *running) {
            auto *writeback = qobject_cast<WritebackPage *>(running);
            QTRY_VERIFY_WITH_TIMEOUT(running->liveSampleCount() > 20, 30000);
            // Both at once: either leaves the file clean, which ends the wait.
            writeback->fsyncButton()->click();
            writeback->syncButton()->click();
        });
    }

    // The lesson traced with the kernel's events where the helper can be
    // reached (as root: the helper's own action, in process), its file's
    // heatmap, a command and its replay; then the lesson with the fallback an
    // ordinary build without the helper runs.
    void trace()
    {
        auto *page = qobject_cast<TracePage *>(m_window->page(QStringLiteral("trace")));
        QVERIFY(page);
        auto *tracefs = page->findChild<QCheckBox *>(QStringLiteral("tracefsCheck"));
        auto *tabs = page->findChild<QTabWidget *>(QStringLiteral("resultsTabs"));
        QTRY_VERIFY(!tracefs->toolTip().startsWith(QLatin1String("Checking")));
        const bool traced = tracefs->isEnabled();
        if (!traced) {
            qInfo() << "no privileged helper: the trace shots show the fallback";
        }
        tracefs->setChecked(traced);
        runAndShoot(QStringLiteral("trace"));
        tabs->setCurrentIndex(tabs->indexOf(page->fileHeatmap()->parentWidget()));
        shoot(QStringLiteral("experiment-trace-heatmap.png"));

        // A real program: many files; then its replay and the check.
        page->findChild<QComboBox *>(QStringLiteral("programCombo"))->setCurrentIndex(1);
        setText(page, "commandEdit", QStringLiteral("python3 -c pass"));
        page->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 240000);
        QVERIFY(page->currentResult() && page->currentResult()->ok());
        tabs->setCurrentIndex(tabs->indexOf(page->extentsTable()));
        shoot(QStringLiteral("experiment-trace-command.png"));
        tabs->setCurrentIndex(tabs->indexOf(page->replayPlot()->parentWidget()));
        QVERIFY(page->replayButton()->isEnabled());
        page->replayButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isReplaying(), 240000);
        QVERIFY(page->replayResult());
        shoot(QStringLiteral("experiment-trace-replay.png"));

        page->findChild<QComboBox *>(QStringLiteral("programCombo"))->setCurrentIndex(0);
        tracefs->setChecked(false);
        page->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 240000);
        QVERIFY(page->currentResult() && page->currentResult()->ok());
        tabs->setCurrentIndex(tabs->indexOf(page->extentsTable()));
        shoot(QStringLiteral("experiment-trace-fallback.png"));
    }

    void faults()
    {
        ExperimentPage *page = m_window->page(QStringLiteral("faults"));
        setValue(page, "sizeSpin", 16);
        runAndShoot(QStringLiteral("faults"));
    }

    // In a memory cgroup: as root (tools/dev) the window makes it in process.
    void folderThrash()
    {
        ExperimentPage *page = m_window->page(QStringLiteral("folder-thrash"));
        setText(page, "filesEdit", QStringLiteral("12, 16, 20, 24"));
        setValue(page, "fileSizeSpin", 2048);
        setValue(page, "runsSpin", 3);
        runAndShoot(QStringLiteral("folder-thrash"));
        // The read's time and folder 1's cached share against the file count.
        auto *lesson = qobject_cast<FolderThrashPage *>(page);
        QVERIFY(lesson);
        lesson->showPlots();
        shoot(QStringLiteral("experiment-folder-thrash-plots.png"));
    }

    // In a memory cgroup too: the four ways of reading and of writing.
    void dropBehind()
    {
        ExperimentPage *page = m_window->page(QStringLiteral("drop-behind"));
        setValue(page, "sizeSpin", 128);
        runAndShoot(QStringLiteral("drop-behind"));
    }

    // In a memory cgroup too: the working sets around its limit.
    void thrashCliff()
    {
        ExperimentPage *page = m_window->page(QStringLiteral("thrash-cliff"));
        setValue(page, "limitSpin", 32);
        runAndShoot(QStringLiteral("thrash-cliff"));
        // The second part's bars: how much of A the stream left.
        QComboBox *measurement = page->barMeasurementCombo();
        const int kept = measurement->findText(measurementLabel("first_kept_percent"));
        QVERIFY(kept >= 0);
        measurement->setCurrentIndex(kept);
        shoot(QStringLiteral("experiment-thrash-cliff-scan.png"));
    }

    void shmem()
    {
        ExperimentPage *page = m_window->page(QStringLiteral("shmem"));
        setValue(page, "sizeSpin", 32);
        runAndShoot(QStringLiteral("shmem"));
    }
};

QTEST_MAIN(ExperimentShots)

#include "experimentshots.moc"
