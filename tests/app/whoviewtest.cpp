// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The Activity tab's "Who" part in the window, on a real X display (Xvfb):
// - without rights: this process's own reads from storage (/proc/self/io,
//   read directly) listed as the sampler reads them, nothing read while the
//   tab is hidden or paused;
// - every user's, as root (the helper's action in this process, the real
//   kernel's events): a reader of a cold file listed with the file by path,
//   the file opening in the files list, the run ended and its tracefs
//   instance gone once the tab is hidden;
// - with a stand-in for the helper: what a process pushed out (itself and
//   a reclaim thread while it read), Pause, the figures a second, a refusal said;
// and screenshots to look at: <build>/screenshots/activity-who*.png.

#include "activity/whoview.h"
#include "activity/activitywatch.h"
#include "activity/sparklinedelegate.h"
#include "activity/whomodel.h"
#include "files/filespanel.h"
#include "mainwindow.h"
#include "memory/memorypanel.h"
#include "pidnamespace.h"
#include "testutil.h"

#include <KMessageWidget>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include <csignal>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <thread>

using namespace Cachescope;
using namespace Cachescope::App;

namespace
{

constexpr uint64_t MiB = 1024 * 1024;

QString screenshotDir()
{
    const QString fromEnvironment = qEnvironmentVariable("CACHESCOPE_SCREENSHOT_DIR");
    return !fromEnvironment.isEmpty() ? fromEnvironment : QDir(QStringLiteral(CACHESCOPE_TEST_SCRATCH "/..")).absoluteFilePath(QStringLiteral("screenshots"));
}

void saveScreenshot(QWidget *window, const QString &name)
{
    if (QGuiApplication::platformName() != QLatin1String("xcb")) {
        return;
    }
    QDir().mkpath(screenshotDir());
    const QString path = screenshotDir() + QLatin1Char('/') + name;
    QVERIFY2(window->grab().toImage().save(path), qPrintable(path));
    qInfo() << "saved" << path;
}

std::optional<uint64_t> ownReadBytes()
{
    QFile io(QStringLiteral("/proc/self/io"));
    if (!io.open(QIODevice::ReadOnly)) {
        return std::nullopt;
    }
    const std::optional<Activity::IoCounters> counters = Activity::parseProcessIo(io.readAll().toStdString());
    return counters ? std::optional<uint64_t>(counters->readBytes) : std::nullopt;
}

int rowWithKey(const WhoModel *model, const QString &key)
{
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->rowAt(row)->key == key) {
            return row;
        }
    }
    return -1;
}

int rowWithPath(const WhoModel *model, const QString &path)
{
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->rowAt(row)->path == path) {
            return row;
        }
    }
    return -1;
}

int tracefsMounts()
{
    QFile mountinfo(QStringLiteral("/proc/self/mountinfo"));
    if (!mountinfo.open(QIODevice::ReadOnly)) {
        return -1;
    }
    return int(mountinfo.readAll().count(" - tracefs "));
}

QStringList cachescopeInstances()
{
    return QDir(QStringLiteral("/sys/kernel/tracing/instances")).entryList({QStringLiteral("cachescope-*")}, QDir::Dirs | QDir::NoDotAndDotDot);
}

// A made-up interval: a reader (pid 4242) bringing a file in while kswapd
// (pid 77) and the reader itself push two others out.
Activity::Interval madeUpInterval(uint64_t addedPages)
{
    Activity::Interval interval;
    interval.seconds = 1.0;
    Activity::ProcessActivity reader;
    reader.pid = 4242;
    reader.command = "indexer";
    reader.uid = 0;
    reader.figures.addedPages = addedPages;
    reader.figures.reclaimedPages = 256;
    reader.pushedOut = {{Activity::FileKey{8, 101}, 256}};
    Activity::ProcessActivity kswapd;
    kswapd.pid = 77;
    kswapd.command = "kswapd0";
    kswapd.reclaimThread = true;
    kswapd.figures.reclaimedPages = 1024;
    kswapd.pushedOut = {{Activity::FileKey{8, 102}, 1024}};
    interval.processes = {reader, kswapd};
    Activity::FileActivity read;
    read.key = {8, 100};
    read.path = "/home/user/big.iso";
    read.figures.addedPages = addedPages;
    Activity::FileActivity pushed;
    pushed.key = {8, 102};
    pushed.path = "/usr/lib/libdesktop.so";
    pushed.figures.reclaimedPages = 1024;
    interval.files = {read, pushed};
    return interval;
}

} // namespace

class WhoViewTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_dir = TestUtil::scratchDir("whoviewtest");
    }

    // Rows stay while they did something in the last minute (the history's
    // length), keep their place, and the list keeps the most recent 500.
    void modelKeepsRecentRows()
    {
        WhoModel model;
        model.setHistoryLength(3);
        const auto row = [](int pid, double perSecond) {
            WhoModel::Row r;
            r.key = QStringLiteral("p:%1").arg(pid);
            r.name = QStringLiteral("process %1").arg(pid);
            r.perSecond = {perSecond, 0, 0};
            return r;
        };
        model.addInterval({row(1, 100), row(2, 50)});
        QCOMPARE(model.rowCount(), 2);
        model.addInterval({row(2, 10)});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.history(QStringLiteral("p:1"), 0), (QList<double>{100, 0}));
        QCOMPARE(model.index(0, WhoModel::FirstMeasureColumn).data().toString(), QStringLiteral("–"));
        model.addInterval({});
        model.addInterval({});
        // Three quiet intervals: process 1's minute holds zeros only.
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.rowAt(0)->key, QStringLiteral("p:2"));
        model.addInterval({});
        QCOMPARE(model.rowCount(), 0);

        // Over the bound: the rows quiet the longest go first.
        model.setHistoryLength(60);
        std::vector<WhoModel::Row> first;
        for (int pid = 1; pid <= WhoModel::maxRows; ++pid) {
            first.push_back(row(pid, 1));
        }
        model.addInterval(std::move(first));
        QCOMPARE(model.rowCount(), WhoModel::maxRows);
        model.addInterval({row(1, 5)});
        std::vector<WhoModel::Row> second;
        for (int pid = 1001; pid <= 1010; ++pid) {
            second.push_back(row(pid, 2));
        }
        model.addInterval(std::move(second));
        // Exactly room for the ten: the ten quietest and none else went
        // (process 1 was active an interval ago, the new ones now).
        QCOMPARE(model.rowCount(), WhoModel::maxRows);
        QVERIFY(model.rowOf(QStringLiteral("p:1")));
        QVERIFY(model.rowOf(QStringLiteral("p:1010")));
    }

    // This process reads a cold file: the sampler lists it with what
    // /proc/self/io says it read; nothing is read while hidden or paused.
    void ownView()
    {
        MainWindow window;
        window.resize(1280, 860);
        WhoView *who = window.whoView();
        who->setIntervalMs(300);
        QTabWidget *tabs = window.memoryPanel()->tabs();
        tabs->setCurrentIndex(0);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!who->isShown());
        QVERIFY(!who->isSampling());
        QCOMPARE(who->source(), WhoView::Source::Own);
        tabs->setCurrentWidget(window.memoryPanel()->activityTab());
        QTRY_VERIFY(who->isSampling());
        QCOMPARE(who->secondModel()->headerData(WhoModel::FirstMeasureColumn, Qt::Horizontal).toString(), QStringLiteral("Cache Grew"));
        QVERIFY(who->processesModel()
                    ->headerData(WhoModel::FirstMeasureColumn, Qt::Horizontal, Qt::ToolTipRole)
                    .toString()
                    .contains(QLatin1String("/proc/PID/io")));

        const std::string cold = m_dir + "/own-cold";
        TestUtil::makeColdFile(cold, 48 * MiB);
        TestUtil::evictRaw(cold);
        QTest::qWait(400); // a sample before the read
        const std::optional<uint64_t> before = ownReadBytes();
        QVERIFY(before);
        TestUtil::readRange(cold, 0, 48 * MiB);
        const std::optional<uint64_t> after = ownReadBytes();
        QVERIFY(after);
        const double read = double(*after - *before);
        QVERIFY2(read >= 40.0 * MiB, qPrintable(QString::number(read)));
        const QString self = QStringLiteral("p:%1").arg(getpid());
        QTRY_VERIFY_WITH_TIMEOUT(rowWithKey(who->processesModel(), self) >= 0, 5000);
        // Each interval's figure a second, times its own length: what
        // /proc/self/io says (read directly), within what this process read
        // besides the file meanwhile.
        QTRY_VERIFY_WITH_TIMEOUT(who->processesModel()->historyTotal(self, 0) >= read * 0.9, 5000);
        QVERIFY2(who->processesModel()->historyTotal(self, 0) <= read * 1.1 + 4 * MiB,
                 qPrintable(QString::number(who->processesModel()->historyTotal(self, 0))));
        who->processesView()->sortByColumn(WhoModel::FirstMeasureColumn, Qt::DescendingOrder);
        saveScreenshot(&window, QStringLiteral("activity-who-own.png"));

        // Paused: nothing is read; going on reads again.
        who->pauseButton()->click();
        QVERIFY(who->isPaused());
        QVERIFY(!who->isSampling());
        who->pauseButton()->click();
        QVERIFY(who->isSampling());
        // Another tab: nothing read.
        tabs->setCurrentIndex(0);
        QTRY_VERIFY(!who->isSampling());
        QVERIFY(!who->isShown());
    }

    // The made-up helper: figures a second, the sparkline follows the
    // sort, what the reader pushed out, Pause holds the lists, a hidden tab
    // ends the run.
    void allUsersWithAStandIn()
    {
        // Before the window: its watch's runner counts here until the
        // window (and the watch, waiting for it) is gone.
        std::atomic<int> intervalsSent{0};
        MainWindow window;
        window.resize(1280, 860);
        WhoView *who = window.whoView();
        who->watch()->setRunner([&intervalsSent](int,
                                                 int,
                                                 const std::function<void(const Activity::Interval &)> &onInterval,
                                                 const std::atomic<bool> &cancel,
                                                 QString &,
                                                 QString &endReason) {
            while (!cancel.load()) {
                onInterval(madeUpInterval(16384)); // 64 MiB a second
                ++intervalsSent;
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
            endReason = QStringLiteral("cancelled");
            return true;
        });
        window.memoryPanel()->tabs()->setCurrentWidget(window.memoryPanel()->activityTab());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(who->isShown());
        QVERIFY(who->watchAllButton()->isEnabled()); // as root the helper's action runs here
        who->watchAllButton()->click();
        QCOMPARE(who->source(), WhoView::Source::AllUsers);
        QVERIFY(!who->isSampling());
        WhoModel *processes = who->processesModel();
        WhoModel *files = who->secondModel();
        QTRY_VERIFY(rowWithKey(processes, QStringLiteral("p:4242")) >= 0);
        QCOMPARE(processes->headerData(WhoModel::FirstMeasureColumn, Qt::Horizontal).toString(), QStringLiteral("Brought In"));
        const int reader = rowWithKey(processes, QStringLiteral("p:4242"));
        QCOMPARE(processes->index(reader, WhoModel::FirstMeasureColumn).data().toString(), QStringLiteral("64.0 MiB/s"));
        QCOMPARE(processes->index(reader, WhoModel::SecondMeasureColumn).data().toString(), QStringLiteral("1.0 MiB/s"));
        QCOMPARE(processes->index(reader, WhoModel::ThirdMeasureColumn).data().toString(), QStringLiteral("–"));
        QVERIFY(processes->index(reader, WhoModel::NameColumn).data(Qt::ToolTipRole).toString().contains(QLatin1String("User: root")));
        const int kswapd = rowWithKey(processes, QStringLiteral("p:77"));
        QVERIFY(processes->index(kswapd, WhoModel::NameColumn).data(Qt::ToolTipRole).toString().contains(QLatin1String("reclaim threads")));
        QTRY_VERIFY(rowWithPath(files, QStringLiteral("/home/user/big.iso")) >= 0);
        QCOMPARE(files->rowAt(rowWithPath(files, QStringLiteral("/home/user/big.iso")))->name, QStringLiteral("big.iso"));
        // The sparkline draws the sorted measure.
        QTRY_VERIFY(processes->history(QStringLiteral("p:4242"), 0).size() >= 3);
        QCOMPARE(processes->index(reader, WhoModel::HistoryColumn).data(WhoModel::MeasureRole).toInt(), 0);
        who->processesView()->sortByColumn(WhoModel::SecondMeasureColumn, Qt::DescendingOrder);
        QCOMPARE(processes->sparklineMeasure(), 1);
        QCOMPARE(who->processesView()->model()->index(0, WhoModel::NameColumn).data().toString(), QStringLiteral("kswapd0"));
        who->processesView()->sortByColumn(WhoModel::FirstMeasureColumn, Qt::DescendingOrder);
        QCOMPARE(who->processesView()->model()->index(0, WhoModel::NameColumn).data().toString(), QStringLiteral("indexer"));

        // What the reader pushed out: its own reclaim and kswapd's while it read.
        QVERIFY(who->pushedOutView()->isVisible());
        who->processesView()->setCurrentIndex(who->processesView()->model()->index(0, 0));
        QTRY_VERIFY(who->pushedOutModel()->rowCount() >= 2);
        QStringList pushed;
        for (int row = 0; row < who->pushedOutModel()->rowCount(); ++row) {
            pushed << who->pushedOutModel()->index(row, 0).data().toString() + QLatin1Char('|') + who->pushedOutModel()->index(row, 2).data().toString();
        }
        QVERIFY2(pushed.contains(QStringLiteral("/usr/lib/libdesktop.so|A reclaim thread while it read")), qPrintable(pushed.join(QLatin1Char(','))));
        QVERIFY2(pushed.contains(QStringLiteral("inode 101 on 0:8|It (direct reclaim)")), qPrintable(pushed.join(QLatin1Char(','))));
        QVERIFY(who->pushedOutLabel()->text().contains(QLatin1String("indexer")));
        saveScreenshot(&window, QStringLiteral("activity-who-pushed-out.png"));

        // Paused: the lists hold still while intervals keep coming.
        who->setPaused(true);
        const QList<double> held = processes->history(QStringLiteral("p:4242"), 0);
        const int sentAtPause = intervalsSent.load();
        QTRY_VERIFY(intervalsSent.load() >= sentAtPause + 5);
        QCoreApplication::processEvents();
        QCOMPARE(processes->history(QStringLiteral("p:4242"), 0), held);
        who->setPaused(false);
        QTRY_VERIFY(processes->history(QStringLiteral("p:4242"), 0) != held);

        // A file row asks the files list to show it.
        QSignalSpy inspect(who, &WhoView::inspectRequested);
        const int fileRow = rowWithPath(files, QStringLiteral("/home/user/big.iso"));
        const QModelIndex fileIndex = qobject_cast<QAbstractProxyModel *>(who->secondView()->model())->mapFromSource(files->index(fileRow, 0));
        who->secondView()->setCurrentIndex(fileIndex);
        who->inspectSelectedFiles();
        QCOMPARE(inspect.count(), 1);
        QCOMPARE(inspect.at(0).at(0).value<QList<QUrl>>(), QList<QUrl>{QUrl::fromLocalFile(QStringLiteral("/home/user/big.iso"))});

        // Hidden: the run ends and the view is this user's again, with why.
        QSignalSpy finished(who->watch(), &ActivityWatch::finished);
        window.memoryPanel()->tabs()->setCurrentIndex(0);
        QTRY_VERIFY(!who->watch()->isRunning());
        QCOMPARE(who->source(), WhoView::Source::Own);
        QVERIFY(who->messageWidget()->text().contains(QLatin1String("hidden")));
        QVERIFY(!who->isSampling());
    }

    // A refusal (polkit said no) is said, and the view is this user's again.
    void refusalIsSaid()
    {
        WhoView who;
        who.watch()->setRunner([](int, int, const std::function<void(const Activity::Interval &)> &, const std::atomic<bool> &, QString &error, QString &) {
            error = QStringLiteral("Not authorized: the administrator's password was not given.");
            return false;
        });
        who.resize(900, 300);
        who.show();
        QVERIFY(QTest::qWaitForWindowExposed(&who));
        who.watchAllUsers();
        QTRY_COMPARE(who.source(), WhoView::Source::Own);
        QTRY_VERIFY(who.messageWidget()->isVisible());
        QVERIFY(who.messageWidget()->text().contains(QLatin1String("Not authorized")));
    }

    // Stopped while the helper still asked polkit: the call ends
    // "cancelled", which is no failure to report; the button works again.
    void stopWhileAskingIsNoFailure()
    {
        WhoView who;
        who.watch()->setRunner(
            [](int, int, const std::function<void(const Activity::Interval &)> &, const std::atomic<bool> &cancel, QString &error, QString &) {
                while (!cancel.load()) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                }
                error = QStringLiteral("The request was cancelled.");
                return false;
            });
        who.resize(900, 300);
        who.show();
        QVERIFY(QTest::qWaitForWindowExposed(&who));
        who.watchAllUsers();
        QVERIFY(who.watch()->isRunning());
        who.stopWatchingAllUsers();
        QCOMPARE(who.source(), WhoView::Source::Own);
        QTRY_VERIFY(!who.watch()->isRunning());
        QTest::qWait(100);
        QVERIFY2(!who.messageWidget()->isVisible() || !who.messageWidget()->text().contains(QLatin1String("cancelled")),
                 qPrintable(who.messageWidget()->text()));
        QTRY_VERIFY(who.watchAllButton()->isEnabled());
    }

    // Every user's, as root: the helper's action in this process and the
    // real kernel. A reader of a cold file (tail, which keeps the file
    // open) is listed with the file by its path; the file opens in the files
    // list; hiding the tab ends the run and removes its instance.
    void allUsersOnTheRealKernel()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("watching every user needs root here (tools/dev runs the tests as root in its build root)");
        }
        const int mountsBefore = tracefsMounts();
        const std::string cold = m_dir + "/all-users-cold";
        TestUtil::makeColdFile(cold, 64 * MiB);
        TestUtil::evictRaw(cold);

        MainWindow window;
        window.resize(1280, 860);
        WhoView *who = window.whoView();
        who->setIntervalMs(500);
        window.memoryPanel()->tabs()->setCurrentWidget(window.memoryPanel()->activityTab());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(who->isShown());
        who->watchAllButton()->click();
        QCOMPARE(who->source(), WhoView::Source::AllUsers);
        QTRY_VERIFY_WITH_TIMEOUT(who->sourceLabel()->text().contains(QLatin1String("Every user's")), 15000);
        QVERIFY(who->watch()->isRunning());
        // Recording: the first interval has come.
        QTRY_VERIFY_WITH_TIMEOUT(!cachescopeInstances().isEmpty() || who->processesModel()->rowCount() > 0, 15000);

        QProcess reader;
        reader.start(QStringLiteral("tail"), {QStringLiteral("-c"), QStringLiteral("+1"), QStringLiteral("-f"), QString::fromStdString(cold)});
        QVERIFY(reader.waitForStarted());
        const auto stopReader = qScopeGuard([&reader] {
            reader.kill();
            reader.waitForFinished();
        });
        // The kernel's events number processes as the initial PID namespace
        // does (tools/dev's root has its own).
        const std::optional<int> readerPid = hostPidOf(int(reader.processId())).pid;
        QVERIFY(readerPid);
        const QString readerKey = QStringLiteral("p:%1").arg(*readerPid);
        const QString path = QString::fromStdString(cold);
        (void)QTest::qWaitFor(
            [&] {
                return rowWithKey(who->processesModel(), readerKey) >= 0 || !who->watch()->isRunning();
            },
            15000);
        if (rowWithKey(who->processesModel(), readerKey) < 0) {
            QStringList rows;
            for (int row = 0; row < who->processesModel()->rowCount(); ++row) {
                rows << who->processesModel()->rowAt(row)->key + QLatin1Char('=') + who->processesModel()->rowAt(row)->name;
            }
            QFAIL(qPrintable(QStringLiteral("no row of the reader %1 (running: %2, %3, %4): %5")
                                 .arg(readerKey)
                                 .arg(who->watch()->isRunning())
                                 .arg(who->sourceLabel()->text())
                                 .arg(who->messageWidget()->text(), rows.join(QLatin1Char(',')))));
        }
        QCOMPARE(who->processesModel()->rowAt(rowWithKey(who->processesModel(), readerKey))->name, QStringLiteral("tail"));
        QTRY_VERIFY_WITH_TIMEOUT(rowWithPath(who->secondModel(), path) >= 0, 15000);
        // All of it brought in, within readahead's pages, over the intervals.
        struct stat coldStat{};
        QVERIFY(::stat(cold.c_str(), &coldStat) == 0);
        const QString fileKey = QStringLiteral("f:%1:%2").arg(quint64(coldStat.st_dev)).arg(quint64(coldStat.st_ino));
        QTRY_VERIFY_WITH_TIMEOUT(who->secondModel()->historyTotal(fileKey, 0) >= 60.0 * MiB, 15000);
        QVERIFY2(who->secondModel()->historyTotal(fileKey, 0) <= 65.0 * MiB, qPrintable(QString::number(who->secondModel()->historyTotal(fileKey, 0))));
        who->secondView()->sortByColumn(WhoModel::FirstMeasureColumn, Qt::DescendingOrder);
        saveScreenshot(&window, QStringLiteral("activity-who.png"));

        // The file opens in the files list.
        const int fileRow = rowWithPath(who->secondModel(), path);
        who->secondView()->setCurrentIndex(
            qobject_cast<QAbstractProxyModel *>(who->secondView()->model())->mapFromSource(who->secondModel()->index(fileRow, 0)));
        who->inspectSelectedFiles();
        auto *list = qobject_cast<QTreeView *>(window.filesSplitter()->widget(0));
        QVERIFY(list);
        QTRY_COMPARE(list->model()->rowCount(), 1);
        QCOMPARE(list->model()->index(0, 0).data().toString(), QStringLiteral("all-users-cold"));

        // Hidden: the run ends, its instance goes, tracefs as it was.
        window.memoryPanel()->tabs()->setCurrentIndex(0);
        QTRY_VERIFY_WITH_TIMEOUT(!who->watch()->isRunning(), 15000);
        QCOMPARE(who->source(), WhoView::Source::Own);
        QVERIFY2(cachescopeInstances().isEmpty(), qPrintable(cachescopeInstances().join(QLatin1Char(','))));
        QCOMPARE(tracefsMounts(), mountsBefore);
    }

    // The window watching every user (as root, the action in its process)
    // is sent SIGTERM, as a session's end does: it ends in order, and its
    // tracefs instance and mount go with it.
    void sigtermEndsTheWatchInOrder()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("watching every user needs root here");
        }
        if (!TestUtil::haveProgram("dbus-run-session")) {
            QSKIP("no dbus-run-session for the window's session bus");
        }
        const int mountsBefore = tracefsMounts();
        const QString app = QFileInfo(TestUtil::cliPath()).absolutePath() + QStringLiteral("/cachescope");
        const QString home = QString::fromStdString(m_dir) + QStringLiteral("/sigterm-home");
        QDir(home).removeRecursively();
        QVERIFY(QDir().mkpath(home + QStringLiteral("/.local/state")));
        QFile state(home + QStringLiteral("/.local/state/cachescopestaterc"));
        QVERIFY(state.open(QIODevice::WriteOnly));
        state.write("[MainWindowLayout]\nMemoryTab=1\n");
        state.close();
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("HOME"), home);
        environment.insert(QStringLiteral("XDG_STATE_HOME"), home + QStringLiteral("/.local/state"));
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/.config"));
        environment.insert(QStringLiteral("CACHESCOPE_WATCH_ALL_USERS"), QStringLiteral("1"));
        QProcess window;
        window.setProcessEnvironment(environment);
        window.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        // The window itself, not dbus-run-session, gets the signal: a bus
        // of its own first, then the window execs in its place.
        window.start(QStringLiteral("dbus-run-session"),
                     {QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo $$; exec \"$0\""), app});
        QVERIFY(window.waitForStarted());
        const auto stopWindow = qScopeGuard([&window] {
            window.kill();
            window.waitForFinished();
        });
        QTRY_VERIFY_WITH_TIMEOUT(window.canReadLine(), 10000);
        const pid_t pid = pid_t(window.readLine().trimmed().toInt());
        QVERIFY(pid > 0);
        QTRY_VERIFY_WITH_TIMEOUT(!cachescopeInstances().isEmpty(), 20000);
        QVERIFY(::kill(pid, SIGTERM) == 0);
        QTRY_VERIFY_WITH_TIMEOUT(::kill(pid, 0) != 0, 20000);
        QVERIFY2(cachescopeInstances().isEmpty(), qPrintable(cachescopeInstances().join(QLatin1Char(','))));
        QCOMPARE(tracefsMounts(), mountsBefore);
    }
};

QTEST_MAIN(WhoViewTest)
#include "whoviewtest.moc"
