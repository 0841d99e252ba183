// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The live refresh of the file list on a real X display (Xvfb), against the
// real kernel: folders are read again from the files their walk kept (no new
// walk while nothing changes), a change in a folder makes it walked again,
// nothing is read while the window is hidden or minimized, and the tooltip
// says how old a folder's totals are. The refresh keeps within its CPU budget
// as it counts itself (asserted here); what the window costs in all is
// measured by tools/bench/window, not here.

#include "files/liverefresh.h"
#include "files/filesmodel.h"
#include "files/filespanel.h"
#include "files/kepttree.h"
#include "format.h"
#include "residency.h"
#include "testutil.h"

#include <KActionCollection>

#include <QHeaderView>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>
#include <QTreeView>

#include <cmath>
#include <filesystem>
#include <memory>
#include <set>

#include <sys/statfs.h>

using namespace Cachescope;
using namespace Cachescope::App;

namespace
{

constexpr int longWaitMs = 60000;
constexpr int intervalMs = 100;

QString shownBytes(uint64_t bytes)
{
    return formatBytes(bytes, ByteStyle::OneDecimal, QLocale());
}

// A folder of three subfolders with four files each (or as many as asked), all cold.
struct Tree {
    std::string root;
    std::vector<std::string> files;

    explicit Tree(const char *name, int filesPerFolder = 4, uint64_t pagesPerFile = 16)
    {
        root = TestUtil::scratchDir(name) + "/tree";
        for (int d = 0; d < 3; ++d) {
            const std::string sub = root + "/sub" + std::to_string(d);
            std::filesystem::create_directories(sub);
            for (int f = 0; f < filesPerFolder; ++f) {
                files.push_back(sub + "/file" + std::to_string(f) + ".bin");
                TestUtil::makeColdFile(files.back(), pagesPerFile * pageSize());
            }
        }
    }
};

struct Window {
    FilesPanel panel;
    KActionCollection collection{&panel, QStringLiteral("cachescope")};
    QTreeView *view = nullptr;
    QAbstractItemModel *model = nullptr;
    LiveRefresh *live = nullptr;

    Window()
    {
        panel.setUpActions(&collection);
        panel.setRefreshInterval(intervalMs);
        panel.resize(1000, 700);
        panel.show();
        view = panel.findChild<QTreeView *>(QStringLiteral("filesView"));
        model = view->model();
        live = panel.findChild<LiveRefresh *>();
        live->setSweepPeriod(1000);
    }

    QModelIndex topRow() const
    {
        return model->index(0, 0);
    }
    double cachedPages(const QModelIndex &row) const
    {
        return row.siblingAtColumn(FilesModel::CachedColumn).data(FilesModel::SortRole).toDouble();
    }
    // Listed, walked, expanded and walked again: what the refresh then keeps.
    void inspect(const std::string &folder, size_t files = 12)
    {
        panel.inspectUrls({QUrl::fromLocalFile(QString::fromStdString(folder))});
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy() && topRow().isValid(), longWaitMs);
        view->expand(topRow());
        QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(topRow()), 3, longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(live->keptFileCount() == files, longWaitMs);
    }
    // The row of a top-level folder.
    QModelIndex topRowOf(const std::string &folder) const
    {
        for (int row = 0; row < model->rowCount(); ++row) {
            const QModelIndex index = model->index(row, 0);
            if (index.data(FilesModel::PathRole).toByteArray().toStdString() == folder) {
                return index;
            }
        }
        return {};
    }
};

} // namespace

class LiveRefreshTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        // The totals bound the tooltip promises follows from the sweep.
        static_assert(LiveRefresh::sweepPeriodMs + 2 * 1000 <= LiveRefresh::maxTotalsAgeMs);
    }

    // Pages that come into the cache show in the folder's total and in its
    // child's, read again from the kept files: no new walk.
    void foldersFollowWithoutWalking()
    {
        const Tree tree("liverefresh-follow");
        Window w;
        w.inspect(tree.root);
        QCOMPARE(w.cachedPages(w.topRow()), 0.0);
        const quint64 walks = w.live->counters().walksStarted;
        const quint64 read = w.live->counters().keptFilesRead;

        const TestUtil::HeldPages held(tree.files[5], 0, 8 * pageSize()); // sub1/file1.bin
        QTRY_COMPARE_WITH_TIMEOUT(w.cachedPages(w.topRow()), 8.0, longWaitMs);
        QModelIndex sub1;
        for (int row = 0; row < 3; ++row) {
            if (w.model->index(row, 0, w.topRow()).data().toString() == QStringLiteral("sub1")) {
                sub1 = w.model->index(row, 0, w.topRow());
            }
        }
        QVERIFY(sub1.isValid());
        QTRY_COMPARE_WITH_TIMEOUT(sub1.siblingAtColumn(FilesModel::CachedColumn).data().toString(), shownBytes(8 * pageSize()), longWaitMs);
        QVERIFY(w.live->counters().keptFilesRead > read);
        QCOMPARE(w.live->counters().walksStarted, walks);
    }

    // A folder's total and its files' rows agree at every refresh, and a
    // row's figure is its strip's: pages read from elsewhere (a shell) show
    // in the files and in their folder at the same tick, not a sweep later.
    void folderAndItsFilesAgreeAtEachTick()
    {
        const Tree tree("liverefresh-agree");
        Window w;
        w.live->setSweepPeriod(LiveRefresh::sweepPeriodMs); // the sweep alone lags by a file a tick
        w.inspect(tree.root);
        QPersistentModelIndex sub1;
        for (int row = 0; row < 3; ++row) {
            if (w.model->index(row, 0, w.topRow()).data().toString() == QStringLiteral("sub1")) {
                sub1 = w.model->index(row, 0, w.topRow());
            }
        }
        QVERIFY(sub1.isValid());
        w.view->expand(sub1);
        QTRY_COMPARE_WITH_TIMEOUT(w.model->rowCount(sub1), 4, longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!w.panel.isBusy() && w.live->keptFileCount() == 16, longWaitMs);

        QString disagreement;
        int ticks = 0;
        connect(w.live, &LiveRefresh::refreshed, this, [&] {
            ++ticks;
            double files = 0;
            for (int row = 0; row < 4; ++row) {
                const QModelIndex file = w.model->index(row, 0, sub1);
                const double cached = w.cachedPages(file);
                files += cached;
                const QList<float> strip = file.data(FilesModel::StripRole).value<QList<float>>();
                double stripPages = 0;
                for (float cell : strip) {
                    stripPages += double(cell) * 16.0 / double(strip.size());
                }
                if (disagreement.isEmpty() && std::abs(stripPages - cached) > 0.01) {
                    disagreement = QStringLiteral("tick %1: %2 says %3 pages, its strip %4").arg(ticks).arg(file.data().toString()).arg(cached).arg(stripPages);
                }
            }
            if (disagreement.isEmpty() && files != w.cachedPages(sub1)) {
                disagreement = QStringLiteral("tick %1: sub1 says %2 pages, its files %3").arg(ticks).arg(w.cachedPages(sub1)).arg(files);
            }
        });
        std::vector<std::unique_ptr<TestUtil::HeldPages>> held;
        for (size_t file = 4; file < 8; ++file) { // sub1's
            held.push_back(std::make_unique<TestUtil::HeldPages>(tree.files[file], 0, 16 * pageSize()));
        }
        QTRY_COMPARE_WITH_TIMEOUT(w.cachedPages(sub1), 64.0, longWaitMs);
        const int seen = ticks;
        QTRY_VERIFY_WITH_TIMEOUT(ticks >= seen + 3, longWaitMs);
        QVERIFY2(disagreement.isEmpty(), qPrintable(disagreement));
    }

    // Every kept file is read again within one sweep: ticks enough for a
    // sweep read at least every file once more.
    void everyFileWithinASweep()
    {
        const Tree tree("liverefresh-sweep");
        Window w;
        w.inspect(tree.root);
        const quint64 ticks = w.live->counters().ticks;
        const quint64 read = w.live->counters().keptFilesRead;
        const quint64 ticksPerSweep = 1000 / intervalMs;
        QTRY_VERIFY_WITH_TIMEOUT(w.live->counters().ticks >= ticks + ticksPerSweep, longWaitMs);
        // The top folder's walk and its expanded children's walk share the same 12 files.
        QVERIFY2(w.live->counters().keptFilesRead - read >= 12,
                 qPrintable(QStringLiteral("%1 files read in a sweep").arg(w.live->counters().keptFilesRead - read)));
        QVERIFY(w.live->oldestTotalsAgeMs() >= 0);
    }

    // A file made in a folder changes the folder's modification time: the
    // folder is walked again and the new file counts.
    void changedFolderIsWalkedAgain()
    {
        const Tree tree("liverefresh-changed");
        Window w;
        w.inspect(tree.root);
        const quint64 walks = w.live->counters().walksStarted;
        const std::string added = tree.root + "/sub2/added.bin";
        TestUtil::makeColdFile(added, 4 * pageSize());
        QTRY_VERIFY_WITH_TIMEOUT(w.live->counters().walksStarted > walks, longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(w.topRow().data(Qt::ToolTipRole).toString().contains(QStringLiteral("13 files")), longWaitMs);
        QTRY_COMPARE_WITH_TIMEOUT(w.live->keptFileCount(), size_t(13), longWaitMs);
    }

    // Hidden or minimized: no refresh at all. Shown again: one at once.
    void nothingWhileNobodyLooks_data()
    {
        QTest::addColumn<bool>("minimize");
        QTest::newRow("hidden") << false;
        QTest::newRow("minimized") << true;
    }
    void nothingWhileNobodyLooks()
    {
        QFETCH(bool, minimize);
        const Tree tree(minimize ? "liverefresh-minimized" : "liverefresh-hidden");
        Window w;
        w.inspect(tree.root);
        QTRY_VERIFY_WITH_TIMEOUT(w.live->counters().ticks > 0, longWaitMs);
        if (minimize) {
            w.panel.showMinimized();
        } else {
            w.panel.hide();
        }
        QTRY_VERIFY_WITH_TIMEOUT(!w.live->isWatching(), longWaitMs);
        QCoreApplication::processEvents();
        const LiveRefresh::Counters before = w.live->counters();
        // Ten intervals: time enough for ten refreshes, were any to run.
        QTest::qWait(10 * intervalMs);
        const LiveRefresh::Counters after = w.live->counters();
        QCOMPARE(after.ticks, before.ticks);
        QCOMPARE(after.keptFilesRead, before.keptFilesRead);
        QCOMPARE(after.filesShownRead, before.filesShownRead);
        QCOMPARE(after.walksStarted, before.walksStarted);

        w.panel.showNormal();
        QTRY_VERIFY_WITH_TIMEOUT(w.live->isWatching(), longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(w.live->counters().keptFilesRead > after.keptFilesRead, longWaitMs);
    }

    // A folder of sysfs: its files keep no page cache. The refresh keeps
    // none of them, never opens them again (opening some has effects), and
    // their rows keep saying "no page cache".
    void filesWithoutPageCacheAreNotReopened()
    {
        const std::string folder = "/sys/kernel/mm/transparent_hugepage";
        struct statfs fs;
        if (statfs(folder.c_str(), &fs) != 0 || fs.f_type != 0x62656572) {
            QSKIP("no sysfs with transparent_hugepage here");
        }
        Window w;
        w.panel.inspectUrls({QUrl::fromLocalFile(QString::fromStdString(folder))});
        QTRY_VERIFY_WITH_TIMEOUT(!w.panel.isBusy() && w.topRow().isValid(), longWaitMs);
        w.view->expand(w.topRow());
        QTRY_VERIFY_WITH_TIMEOUT(w.model->rowCount(w.topRow()) > 0, longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!w.panel.isBusy(), longWaitMs);
        QCOMPARE(w.live->keptFileCount(), size_t(0));
        QModelIndex enabled;
        for (int row = 0; row < w.model->rowCount(w.topRow()); ++row) {
            const QModelIndex index = w.model->index(row, 0, w.topRow());
            if (index.data().toString() == QLatin1String("enabled")) {
                enabled = index;
            }
        }
        QVERIFY(enabled.isValid());
        TestUtil::OpenWatch watch;
        QVERIFY(watch.watch(folder));
        // Several refreshes that read the file rows on show.
        const LiveRefresh::Counters before = w.live->counters();
        QTRY_VERIFY_WITH_TIMEOUT(w.live->counters().ticks > before.ticks + 3 && w.live->counters().filesShownRead > before.filesShownRead + 3, longWaitMs);
        std::set<std::string> opened = watch.opened();
        QVERIFY(!watch.overflowed());
        opened.erase(folder); // a walk of the folder lists it, and opens none of its files
        QVERIFY2(opened.empty(), opened.empty() ? "" : opened.begin()->c_str());
        QCOMPARE(enabled.siblingAtColumn(FilesModel::CachedPercentColumn).data().toString(), QStringLiteral("no page cache"));
    }

    // The tooltip says how old a folder's totals are, and that is never more
    // than the bound while the refresh runs.
    void tooltipSaysHowOld()
    {
        const Tree tree("liverefresh-age");
        Window w;
        w.inspect(tree.root);
        const QRegularExpression age(QStringLiteral("Totals from (\\d+) seconds? ago"));
        for (const QModelIndex &row : {w.topRow(), w.model->index(0, 0, w.topRow())}) {
            const QString tip = row.data(Qt::ToolTipRole).toString();
            const QRegularExpressionMatch match = age.match(tip);
            QVERIFY2(match.hasMatch(), qPrintable(tip));
            QVERIFY2(match.captured(1).toLongLong() * 1000 <= LiveRefresh::maxTotalsAgeMs, qPrintable(tip));
        }
        // The words for older totals.
        QCOMPARE(totalsAgeText(monotonicNowMs() - 12500), QStringLiteral("Totals from 12 seconds ago"));
        QCOMPARE(totalsAgeText(monotonicNowMs() - 1000), QStringLiteral("Totals from 1 second ago"));
        QCOMPARE(totalsAgeText(monotonicNowMs() - 185000), QStringLiteral("Totals from 3 minutes ago"));
    }

    // The refresh keeps within its CPU budget: what it is charged over a few
    // seconds is at most the budget of that time and the burst it may save,
    // the sweep goes on (slower), and the totals grow older than a sweep.
    void refreshKeepsWithinItsBudget()
    {
#if defined(__SANITIZE_ADDRESS__)
        // ASan makes each tick's own cost (the rows in sight) several times
        // larger than these budgets: what they prove is the release build's.
        QSKIP("CPU budgets of a few tens of microseconds a tick mean nothing under AddressSanitizer");
#endif
        const Tree tree("liverefresh-budget", 400, 1);
        Window w;
        w.inspect(tree.root, 1200);
        QTRY_VERIFY_WITH_TIMEOUT(w.live->counters().ticks > 2, longWaitMs);
        // 0.3 % of a core, 300 µs a tick of 100 ms, against a sweep asked to
        // read all 1,200 files each tick: more than a tick's own cost (the
        // rows in sight), even under the sanitizers, and far less than the sweep.
        constexpr double share = 0.003;
        w.live->setSweepPeriod(100);
        w.live->setCpuBudget(share);
        // Spend what was saved before the measure.
        QTRY_VERIFY_WITH_TIMEOUT(w.live->counters().slicesCut > 0, longWaitMs);
        const LiveRefresh::Counters before = w.live->counters();
        const qint64 startedMs = monotonicNowMs();
        QTRY_VERIFY_WITH_TIMEOUT(monotonicNowMs() - startedMs >= 4000 && w.live->counters().ticks >= before.ticks + 20, longWaitMs);
        const LiveRefresh::Counters after = w.live->counters();
        const double elapsedNs = double(monotonicNowMs() - startedMs) * 1e6;
        const double allowedNs = share * (elapsedNs + double(LiveRefresh::budgetWindowMs) * 1e6);
        QVERIFY2(double(after.cpuNs - before.cpuNs) <= allowedNs,
                 qPrintable(QStringLiteral("charged %1 µs, allowed %2 µs").arg((after.cpuNs - before.cpuNs) / 1000).arg(allowedNs / 1000)));
        QVERIFY(after.slicesCut > before.slicesCut);
        // Slower, the sweep goes on.
        QTRY_VERIFY2_WITH_TIMEOUT(w.live->counters().keptFilesRead > before.keptFilesRead,
                                  qPrintable(QStringLiteral("no file read in %1 ticks, %2 walks")
                                                 .arg(w.live->counters().ticks - before.ticks)
                                                 .arg(w.live->counters().walksStarted - before.walksStarted)),
                                  longWaitMs);
        // The same sweep at full speed would be a tick or two old.
        QTRY_VERIFY_WITH_TIMEOUT(w.live->oldestTotalsAgeMs() > 600, longWaitMs);
        // Given room, it catches up: the sweep of a second again.
        w.live->setSweepPeriod(1000);
        w.live->setCpuBudget(0.05);
        QTRY_VERIFY_WITH_TIMEOUT(w.live->oldestTotalsAgeMs() < 1500, longWaitMs);
    }

    // Under a budget too small for all, the tree whose files changed (pages
    // came in, as the sweep reads them) takes it first: it follows while the
    // other waits.
    void changedTreeGoesFirst()
    {
#if defined(__SANITIZE_ADDRESS__)
        // ASan makes each tick's own cost (the rows in sight) several times
        // larger than these budgets: what they prove is the release build's.
        QSKIP("CPU budgets of a few tens of microseconds a tick mean nothing under AddressSanitizer");
#endif
        const Tree quiet("liverefresh-first-quiet", 100, 1);
        const Tree changed("liverefresh-first-changed", 100, 1);
        Window w;
        // Ticks of a second, as the window's own: each tick's fixed cost (the
        // rows in sight, some tens of µs, more on a busy machine) is then a
        // small part of the 300 µs it earns, and the sweep goes on. That is
        // a few dozen files a tick, less than the changed tree wants alone.
        w.panel.setRefreshInterval(1000);
        w.live->setCpuBudget(0.0003);
        w.panel.inspectUrls({QUrl::fromLocalFile(QString::fromStdString(quiet.root)), QUrl::fromLocalFile(QString::fromStdString(changed.root))});
        QTRY_VERIFY_WITH_TIMEOUT(!w.panel.isBusy() && w.live->keptFileCount() == 600, longWaitMs);
        const QModelIndex changedRow = w.topRowOf(changed.root);
        QVERIFY(changedRow.isValid());
        QCOMPARE(w.cachedPages(changedRow), 0.0);
        QTRY_VERIFY_WITH_TIMEOUT(w.live->counters().slicesCut > 0, longWaitMs);
        // A round over both trees first: from then on, shared alike, their
        // totals would stay about as old as a round takes.
        const quint64 readBefore = w.live->counters().keptFilesRead;
        QTRY_VERIFY_WITH_TIMEOUT(w.live->counters().keptFilesRead >= readBefore + 700, longWaitMs);
        std::vector<std::unique_ptr<TestUtil::HeldPages>> held;
        for (const std::string &file : changed.files) {
            held.push_back(std::make_unique<TestUtil::HeldPages>(file, 0, pageSize()));
        }
        const qint64 startedMs = monotonicNowMs();
        const qint64 quietAgeBefore = w.live->totalsAgeMs(quiet.root);
        QTRY_COMPARE_WITH_TIMEOUT(w.cachedPages(changedRow), 300.0, longWaitMs);
        // While the changed tree took the budget, the quiet one was not read:
        // its totals aged all along (shared, they would have stayed as old).
        const qint64 phaseMs = monotonicNowMs() - startedMs;
        const qint64 quietAged = w.live->totalsAgeMs(quiet.root) - quietAgeBefore;
        QVERIFY2(phaseMs >= 1000 && quietAged * 10 >= phaseMs * 7,
                 qPrintable(QStringLiteral("in %1 ms the quiet tree's totals aged %2 ms").arg(phaseMs).arg(quietAged)));
    }

    // Totals older than the bound say their age in the list, not only in the
    // tooltip, and View > Refresh reads them at once.
    void oldTotalsSayTheirAgeInTheList()
    {
        const Tree tree("liverefresh-stale");
        Window w;
        w.inspect(tree.root);
        auto *files = w.panel.findChild<FilesModel *>();
        QVERIFY(files);
        const QModelIndex cached = w.topRow().siblingAtColumn(FilesModel::CachedColumn);
        QVERIFY(!cached.data().toString().contains(QStringLiteral("ago")));
        // Nothing left to spend: the totals stay as old as they are set here.
        w.live->setCpuBudget(0);
        QTest::qWait(3 * intervalMs);
        FolderScan old;
        old.root = tree.root;
        old.readAtMs = monotonicNowMs() - 95000;
        files->setTotalsReadAt(old);
        QTRY_VERIFY_WITH_TIMEOUT(cached.data().toString().endsWith(QStringLiteral(" · 1 min ago")), longWaitMs);
        // The Cached column widens to show the words whole, not "21.1 MiB · 1 …".
        const auto fits = [&] {
            return w.view->header()->sectionSize(FilesModel::CachedColumn) >= w.view->fontMetrics().horizontalAdvance(cached.data().toString()) + 8;
        };
        QTRY_VERIFY_WITH_TIMEOUT(fits(), longWaitMs);
        QVERIFY2(w.topRow().data(Qt::ToolTipRole).toString().contains(QStringLiteral("Totals from 1 minute ago")),
                 qPrintable(w.topRow().data(Qt::ToolTipRole).toString()));
        QVERIFY(w.topRow().data(Qt::ToolTipRole).toString().contains(QStringLiteral("View > Refresh reads them now")));
        // A child folder's figures come from the same walk: as old.
        QVERIFY(w.model->index(0, FilesModel::CachedColumn, w.topRow()).data().toString().contains(QStringLiteral("ago")));
        QCOMPARE(shortTotalsAgeText(monotonicNowMs() - 12500), QStringLiteral("10 s ago"));
        QCOMPARE(shortTotalsAgeText(monotonicNowMs() - 7500000), QStringLiteral("2 h ago"));

        QAction *refresh = w.collection.action(QStringLiteral("view_refresh"));
        QVERIFY(refresh);
        refresh->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!cached.data().toString().contains(QStringLiteral("ago")), longWaitMs);
    }
};

QTEST_MAIN(LiveRefreshTest)

#include "liverefreshtest.moc"
