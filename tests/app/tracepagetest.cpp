// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The Experiments window's trace page ("Where a Start's Pages Come From") on
// the offscreen platform: its timeline, extents, totals and heatmap from a
// trace made in the test; its exports; the replay of a real file; the
// lesson run for real with the fallback an ordinary build without the helper
// runs; cancel; bad input.

#include "experiments/tracepage.h"
#include "experiments/experimentpage.h"
#include "experiments/experimentswindow.h"
#include "experiments/traceextentsmodel.h"
#include "experiments/tracetimeline.h"
#include "heatmap/heatmapwidget.h"
#include "testutil.h"
#include "trace/tracereport.h"

#include <KMessageWidget>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QHelpEvent>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <QToolTip>

#include <qcustomplot.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

using namespace Cachescope::App;

namespace
{

// The text a cell of a table shows.
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

class TracePageTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QDir(ExperimentPage::historyFolder()).removeRecursively();
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
        // Its file is not there: nothing to replay, and the tooltip says why.
        QVERIFY(!page->replayButton()->isEnabled());
        QVERIFY2(page->replayButton()->toolTip().contains(QStringLiteral("The lesson removes its file after the trace: there is nothing to replay")),
                 qPrintable(page->replayButton()->toolTip()));
        // A program's trace whose files could not be named (device:inode) says that instead.
        Trace::Report unnamed = lessonTrace(path);
        for (Trace::File &file : unnamed.files) {
            file.path.clear();
            file.metadata = false;
        }
        page->showReport(unnamed);
        QVERIFY(!page->replayButton()->isEnabled());
        QVERIFY2(page->replayButton()->toolTip().contains(QStringLiteral("could be named")), qPrintable(page->replayButton()->toolTip()));
        page->showReport(lessonTrace(path));

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

    // The lesson traced with the kernel's events (the helper, or as root in
    // process): a mark per extent, blue where the program asked, and the
    // kernel reading more than the two 64 KiB reads asked for.
    void traceLessonTraced()
    {
        auto *window = new ExperimentsWindow;
        window->resize(1280, 800);
        window->show();
        TracePage *page = tracePage(window);
        auto *tracefs = page->findChild<QCheckBox *>(QStringLiteral("tracefsCheck"));
        QTRY_VERIFY(!tracefs->toolTip().startsWith(QLatin1String("Checking")));
        if (!tracefs->isEnabled()) {
            delete window;
            QSKIP("the privileged helper cannot be reached (tools/dev runs the tests as root, where it acts in process)");
        }
        tracefs->setChecked(true);
        page->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!page->isRunning(), 120000);
        auto *message = page->findChild<KMessageWidget *>(QStringLiteral("messageWidget"));
        QVERIFY2(page->currentResult() && page->currentResult()->ok(), qPrintable(message->text()));
        const std::optional<Trace::Report> &report = page->shownReport();
        QVERIFY(report);
        QCOMPARE(report->method, Trace::Method::Tracefs);
        QVERIFY(!report->extents.empty());
        QCOMPARE(page->timeline()->markCount(), int(report->extents.size()));
        QVERIFY(page->timeline()->message().isEmpty());
        QCOMPARE(page->extentsTable()->model()->rowCount(), int(report->extents.size()));
        if (report->usageKnown) {
            QVERIFY(page->timeline()->markCount(ExtentKind::Asked) > 0);
            QVERIFY(report->pagesReadaheadOnly() > 0); // readahead: more than was asked for
        }
        const QString totals = page->totals().join(QLatin1Char('\n'));
        QVERIFY2(totals.contains(QStringLiteral("tracefs")) && totals.contains(QStringLiteral("Lost events:")), qPrintable(totals));
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

QTEST_MAIN(TracePageTest)

#include "tracepagetest.moc"
