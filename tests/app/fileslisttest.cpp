// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The files list as a KDE user reads it, on the offscreen platform against the
// real kernel: names in Dolphin's order, top-level rows told apart by their
// folders, and the messages of an eviction or a load: a dirty file dropped on
// the evict zone (a warning with Flush and Evict in it), a file whose page
// cache the kernel hides (no number), a load that says what is resident now.

#include "files/evictdropzone.h"
#include "files/filesmodel.h"
#include "files/filespanel.h"
#include "files/topcacheddialog.h"
#include "filesdrop.h"
#include "format.h"
#include "residency.h"
#include "testutil.h"
#include "uniquefd.h"

#include <KActionCollection>
#include <KMessageWidget>
#include <KUrlMimeData>

#include <QAction>
#include <QBrush>
#include <QGuiApplication>
#include <QIcon>
#include <QMimeData>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTreeView>
#include <QTreeWidget>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <thread>

using namespace Cachescope;
using namespace Cachescope::App;

namespace
{

constexpr int longWaitMs = 60000;

using FilesDrop::dropUrls;
using FilesDrop::urlOf;

// A size or a byte count, in any unit: what a message about hidden residency never holds.
const QRegularExpression amountOfMemory(QStringLiteral("\\d\\s*(B|KiB|MiB|GiB|TiB)\\b|\\d+\\s*pages?\\b"));

struct PanelUnderTest {
    FilesPanel panel;
    KActionCollection collection{&panel, QStringLiteral("cachescope")};
    QTreeView *view = nullptr;
    EvictDropZone *zone = nullptr;
    KMessageWidget *message = nullptr;

    PanelUnderTest()
    {
        panel.setUpActions(&collection);
        panel.setPaused(true);
        panel.resize(1000, 700);
        panel.show();
        view = panel.findChild<QTreeView *>(QStringLiteral("filesView"));
        zone = panel.findChild<EvictDropZone *>(QStringLiteral("evictDropZone"));
        message = panel.findChild<KMessageWidget *>(QStringLiteral("filesMessage"));
    }

    // The names of the rows under parent, top to bottom, as the view sorts them.
    QStringList names(const QModelIndex &parent = {}) const
    {
        QStringList shown;
        const QAbstractItemModel *model = view->model();
        for (int row = 0; row < model->rowCount(parent); ++row) {
            shown << model->index(row, FilesModel::NameColumn, parent).data().toString();
        }
        return shown;
    }

    QModelIndex rowNamed(const QString &name) const
    {
        const QAbstractItemModel *model = view->model();
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->index(row, 0).data().toString() == name) {
                return model->index(row, 0);
            }
        }
        return {};
    }
};

void makeFile(const std::string &path)
{
    Cachescope::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    QVERIFY2(fd.isValid(), path.c_str());
}

} // namespace

class FilesListTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
    }

    // Names sort as in Dolphin: folders first, then natural and case-insensitive
    // ("d2" before "d10", "apt" before "X11"), with letters in the locale's
    // alphabet ("Äpfel" beside "apt", not after "Zeta"). Not by bytes.
    void namesSortNaturally()
    {
        const std::string dir = TestUtil::scratchDir("fileslist-sort");
        const std::vector<std::string> files{"X11", "apt", "d10", "d2", "Zeta.txt", "beta", "\xc3\x84pfel"};
        for (const std::string &name : files) {
            makeFile(dir + "/" + name);
        }
        std::filesystem::create_directories(dir + "/lib");
        std::filesystem::create_directories(dir + "/Apps/sub10");
        std::filesystem::create_directories(dir + "/Apps/sub9");
        makeFile(dir + "/Apps/File2");
        makeFile(dir + "/Apps/file10");
        makeFile(dir + "/Apps/file1");

        PanelUnderTest t;
        QList<QUrl> urls;
        for (const std::string &name : files) {
            urls << urlOf(dir + "/" + name);
        }
        urls << urlOf(dir + "/lib") << urlOf(dir + "/Apps");
        t.panel.inspectUrls(urls);
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        t.view->sortByColumn(FilesModel::NameColumn, Qt::AscendingOrder);
        const QStringList ascending{QStringLiteral("Apps"),
                                    QStringLiteral("lib"),
                                    QStringLiteral("Äpfel"),
                                    QStringLiteral("apt"),
                                    QStringLiteral("beta"),
                                    QStringLiteral("d2"),
                                    QStringLiteral("d10"),
                                    QStringLiteral("X11"),
                                    QStringLiteral("Zeta.txt")};
        QCOMPARE(t.names(), ascending);

        // Descending: still folders first, as in Dolphin.
        t.view->sortByColumn(FilesModel::NameColumn, Qt::DescendingOrder);
        const QStringList descending{QStringLiteral("lib"),
                                     QStringLiteral("Apps"),
                                     QStringLiteral("Zeta.txt"),
                                     QStringLiteral("X11"),
                                     QStringLiteral("d10"),
                                     QStringLiteral("d2"),
                                     QStringLiteral("beta"),
                                     QStringLiteral("apt"),
                                     QStringLiteral("Äpfel")};
        QCOMPARE(t.names(), descending);

        // Inside an expanded folder the same order.
        t.view->sortByColumn(FilesModel::NameColumn, Qt::AscendingOrder);
        const QModelIndex apps = t.rowNamed(QStringLiteral("Apps"));
        QVERIFY(apps.isValid());
        t.view->expand(apps);
        QTRY_COMPARE_WITH_TIMEOUT(t.view->model()->rowCount(apps), 5, longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        const QStringList inApps{QStringLiteral("sub9"), QStringLiteral("sub10"), QStringLiteral("file1"), QStringLiteral("File2"), QStringLiteral("file10")};
        QCOMPARE(t.names(apps), inApps);
    }

    // A FIFO in a listed folder is listed, as Dolphin lists it: greyed, with
    // why, its own icon, never opened (a FIFO's open would wait for a
    // writer). A file whose type its name does not tell gets the plain
    // document icon, not Breeze's question mark.
    void specialFilesAndUntypedNames()
    {
        const std::string dir = TestUtil::scratchDir("fileslist-special");
        QCOMPARE(mkfifo((dir + "/pipe").c_str(), 0644), 0);
        makeFile(dir + "/data.bin");
        makeFile(dir + "/notes.txt");

        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(dir)});
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy() && t.rowNamed(QStringLiteral("fileslist-special")).isValid(), longWaitMs);
        const QModelIndex folder = t.rowNamed(QStringLiteral("fileslist-special"));
        t.view->expand(folder);
        QTRY_COMPARE_WITH_TIMEOUT(t.view->model()->rowCount(folder), 3, longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        QModelIndex pipe, data, notes;
        for (int row = 0; row < 3; ++row) {
            const QModelIndex index = t.view->model()->index(row, FilesModel::NameColumn, folder);
            (index.data().toString() == QStringLiteral("pipe") ? pipe : index.data().toString() == QStringLiteral("data.bin") ? data : notes) = index;
        }
        QVERIFY(pipe.isValid() && data.isValid() && notes.isValid());
        const QString tip = pipe.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("not a regular file (FIFO)")), qPrintable(tip));
        QCOMPARE(pipe.siblingAtColumn(FilesModel::CachedColumn).data().toString(), QStringLiteral("—"));
        QVERIFY(pipe.data(Qt::ForegroundRole).value<QBrush>() == QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text));
        // inode/fifo's icon, where the theme has one (Breeze has not: then the plain document, as in Dolphin).
        QCOMPARE(pipe.data(Qt::DecorationRole).value<QIcon>().name(),
                 QIcon::hasThemeIcon(QStringLiteral("inode-fifo")) ? QStringLiteral("inode-fifo") : QStringLiteral("unknown"));
        QCOMPARE(data.data(Qt::DecorationRole).value<QIcon>().name(), QStringLiteral("unknown"));
        QCOMPARE(notes.data(Qt::DecorationRole).value<QIcon>().name(), QStringLiteral("text-plain"));
        // The live refresh reads what shows: the FIFO stays as it is (no open, no error of its own).
        t.panel.setPaused(false);
        QTest::qWait(300);
        QVERIFY(pipe.data(Qt::ToolTipRole).toString().contains(QStringLiteral("never opened")));
    }

    // A file whose pages reclaim took (a read under a 16 MiB cache limit):
    // its tooltip says how many came and went, as cachestat counts them
    // (read directly here); a file only evicted by fadvise leaves no trace.
    void cameAndWentFromCachestat()
    {
        if (!cachestatAvailable()) {
            QSKIP("cachestat(2) needs Linux 6.5 or later");
        }
        if (!TestUtil::isRoot()) {
            QSKIP("a run under a cache limit needs a memory cgroup of its own (root in tools/dev's root)");
        }
        const std::string dir = TestUtil::scratchDir("fileslist-came-and-went");
        const std::string path = dir + "/reclaimed.bin";
        constexpr uint64_t bytes = 96ULL << 20;
        TestUtil::makeColdFile(path, bytes);
        TestUtil::evictRaw(path);
        const TestUtil::RunResult run = TestUtil::run(TestUtil::cliPath(),
                                                      {QStringLiteral("run"),
                                                       QStringLiteral("--cache-limit"),
                                                       QStringLiteral("16M"),
                                                       QStringLiteral("--"),
                                                       QStringLiteral("/usr/bin/dd"),
                                                       QStringLiteral("if=") + QString::fromStdString(path),
                                                       QStringLiteral("of=/dev/null"),
                                                       QStringLiteral("bs=1M")});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        CachestatCounts counts;
        {
            const UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
            QVERIFY(fd.get() >= 0);
            QCOMPARE(cachestatRange(fd.get(), 0, 0, counts), 0);
        }
        QVERIFY2(counts.evicted >= 1024, qPrintable(QString::number(counts.evicted))); // most of 24,576 pages went

        const std::string plain = dir + "/fadvised.bin";
        TestUtil::makeColdFile(plain, 1 << 20);
        TestUtil::readRange(plain, 0, 1 << 20);
        TestUtil::adviseDontNeed(plain);

        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(path), urlOf(plain)});
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy() && t.rowNamed(QStringLiteral("reclaimed.bin")).isValid(), longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(t.rowNamed(QStringLiteral("fadvised.bin")).isValid(), longWaitMs);
        const QString tip = t.rowNamed(QStringLiteral("reclaimed.bin")).data(Qt::ToolTipRole).toString();
        const QRegularExpressionMatch match = QRegularExpression(QStringLiteral("Came and went: ([0-9,]+) pages")).match(tip);
        QVERIFY2(match.hasMatch(), qPrintable(tip));
        const uint64_t shown = match.captured(1).remove(QLatin1Char(',')).toULongLong();
        // Read again by the list a moment later: about as many (the kernel's
        // shadow shrinker may forget some meanwhile), never more than the file has.
        QVERIFY2(shown >= counts.evicted / 2 && shown <= bytes / 4096, qPrintable(tip + QStringLiteral(" against ") + QString::number(counts.evicted)));
        QVERIFY2(!t.rowNamed(QStringLiteral("fadvised.bin")).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Came and went")),
                 qPrintable(t.rowNamed(QStringLiteral("fadvised.bin")).data(Qt::ToolTipRole).toString()));
    }

    // Top Cached Files sorted by name: the same natural order.
    void topCachedSortsNaturally()
    {
        std::vector<TopEntry> entries;
        for (const char *path : {"/t/X11", "/t/apt", "/t/d10", "/t/d2"}) {
            entries.push_back(TopEntry{path, 4096, 1, 1, 0});
        }
        WalkTotals totals;
        totals.files = 4;
        totals.bytes = 4 * 4096;
        totals.pages = 4;
        totals.resident = 4;
        TopCachedDialog dialog({"/t"}, entries, totals);
        auto *list = dialog.findChild<QTreeWidget *>(QStringLiteral("topCachedList"));
        QVERIFY(list);
        list->sortByColumn(0, Qt::AscendingOrder);
        QStringList order;
        for (int i = 0; i < list->topLevelItemCount(); ++i) {
            order << list->topLevelItem(i)->text(0);
        }
        QCOMPARE(order, (QStringList{QStringLiteral("/t/apt"), QStringLiteral("/t/d2"), QStringLiteral("/t/d10"), QStringLiteral("/t/X11")}));
    }

    // Top-level rows with the same name get as many of their folders as tell
    // them apart (as Kate's documents and Dolphin's tabs do); the tooltip has
    // the whole path.
    void sameNamesToldApart_data()
    {
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<QStringList>("names");
        QTest::newRow("no collision") << QStringList{QStringLiteral("/etc/hosts"), QStringLiteral("/usr/lib")}
                                      << QStringList{QStringLiteral("hosts"), QStringLiteral("lib")};
        QTest::newRow("two lib folders") << QStringList{QStringLiteral("/usr/lib"), QStringLiteral("/usr/local/lib")}
                                         << QStringList{QStringLiteral("usr/lib"), QStringLiteral("local/lib")};
        QTest::newRow("one at the root") << QStringList{QStringLiteral("/lib"), QStringLiteral("/usr/lib")}
                                         << QStringList{QStringLiteral("/lib"), QStringLiteral("usr/lib")};
        QTest::newRow("two levels for two of three") << QStringList{QStringLiteral("/a/x/lib"), QStringLiteral("/b/x/lib"), QStringLiteral("/c/y/lib")}
                                                     << QStringList{QStringLiteral("a/x/lib"), QStringLiteral("b/x/lib"), QStringLiteral("y/lib")};
        QTest::newRow("two groups and a loner") << QStringList{QStringLiteral("/home/me/src/app/CMakeLists.txt"),
                                                               QStringLiteral("/home/me/src/lib/CMakeLists.txt"),
                                                               QStringLiteral("/home/me/CMakeLists.txt"),
                                                               QStringLiteral("/srv/a/data"),
                                                               QStringLiteral("/srv/b/data"),
                                                               QStringLiteral("/etc/fstab")}
                                                << QStringList{QStringLiteral("app/CMakeLists.txt"),
                                                               QStringLiteral("lib/CMakeLists.txt"),
                                                               QStringLiteral("me/CMakeLists.txt"),
                                                               QStringLiteral("a/data"),
                                                               QStringLiteral("b/data"),
                                                               QStringLiteral("fstab")};
        QTest::newRow("nested same names") << QStringList{QStringLiteral("/x/lib/lib"), QStringLiteral("/y/lib")}
                                           << QStringList{QStringLiteral("lib/lib"), QStringLiteral("y/lib")};
        QTest::newRow("case differs") << QStringList{QStringLiteral("/a/Lib"), QStringLiteral("/b/lib")}
                                      << QStringList{QStringLiteral("Lib"), QStringLiteral("lib")};
        QTest::newRow("the root folder") << QStringList{QStringLiteral("/"), QStringLiteral("/usr")} << QStringList{QStringLiteral("/"), QStringLiteral("usr")};
    }

    void sameNamesToldApart()
    {
        QFETCH(QStringList, paths);
        QFETCH(QStringList, names);
        FilesModel model;
        std::vector<QPersistentModelIndex> rows;
        for (const QString &path : paths) {
            rows.emplace_back(model.addItem(QFile::encodeName(path).toStdString(), true));
        }
        for (qsizetype i = 0; i < paths.size(); ++i) {
            const QModelIndex row = rows[size_t(i)];
            QCOMPARE(row.data().toString(), names[i]);
            QCOMPARE(row.data(Qt::ToolTipRole).toString().section(QLatin1Char('\n'), 0, 0), paths[i]);
        }
        // Alone, the first row needs no folder any more.
        QModelIndexList others;
        for (size_t i = 1; i < rows.size(); ++i) {
            others << QModelIndex(rows[i]);
        }
        model.removeTopLevel(others);
        QCOMPARE(model.topLevelCount(), 1);
        const QString alone = paths.first() == QStringLiteral("/") ? paths.first() : paths.first().section(QLatin1Char('/'), -1);
        QCOMPARE(model.index(0, FilesModel::NameColumn).data().toString(), alone);
    }

    // A file whose pages are all dirty, dropped on the evict zone: nothing is
    // freed, which is a warning (not a green success with "0 B freed"), and the
    // message offers Flush and Evict for that file, which is not in the list.
    void dirtyFileDroppedOnZoneOffersFlushAndEvict()
    {
        if (!cachestatAvailable()) {
            QSKIP("dirty pages are told apart with cachestat (Linux 6.5)");
        }
        const std::string dir = TestUtil::scratchDir("fileslist-dirty");
        const std::string path = dir + "/all-dirty.bin";
        const uint64_t page = pageSize();
        {
            Cachescope::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
            QVERIFY(fd.isValid());
            const std::string data(64 * page, 'x');
            QCOMPARE(pwrite(fd.get(), data.data(), data.size(), 0), ssize_t(data.size()));
        }
        PanelUnderTest t;
        QVERIFY(t.zone && t.message);
        QSignalSpy messages(&t.panel, &FilesPanel::message);
        const Residency before = residencyOfPath(path);
        if (before.dirty < 64) {
            QSKIP("the kernel wrote the pages back already");
        }
        QVERIFY(dropUrls(t.zone, {urlOf(path)}));
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, longWaitMs);
        if (residencyOfPath(path).resident == 0) {
            QSKIP("the kernel wrote the pages back and dropped them during the eviction");
        }
        const QString text = t.message->text();
        QVERIFY(t.message->isVisibleTo(&t.panel));
        QCOMPARE(t.message->messageType(), KMessageWidget::Warning);
        QVERIFY2(!text.contains(QStringLiteral("0 B")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("dirty")), qPrintable(text));
        QCOMPARE(t.view->model()->rowCount(), 0);

        // Flush and Evict, right in the message, for that file.
        const QList<QAction *> actions = t.message->actions();
        QCOMPARE(actions.size(), 1);
        QCOMPARE(actions.first()->text().remove(QLatin1Char('&')), QStringLiteral("Flush and Evict"));
        actions.first()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 2, longWaitMs);
        QCOMPARE(residencyOfPath(path).resident, uint64_t(0));
        QCOMPARE(t.message->messageType(), KMessageWidget::Positive);
        QVERIFY2(t.message->text().contains(QStringLiteral("Evicted 1 file")) && t.message->text().contains(QStringLiteral("freed")),
                 qPrintable(t.message->text()));
        QVERIFY(t.message->actions().isEmpty());
    }

    // Loading tells what is resident now, measured after the load: with another
    // program evicting the file meanwhile, not every page is, and the message
    // says how many are, not the size that was asked for.
    void loadSaysWhatIsResidentNow()
    {
        const std::string dir = TestUtil::scratchDir("fileslist-load");
        const std::string path = dir + "/contended.bin";
        const uint64_t page = pageSize();
        constexpr uint64_t pages = 16384;
        TestUtil::makeColdFile(path, pages * page);
        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(path)});
        t.view->setCurrentIndex(t.view->model()->index(0, 0));
        QSignalSpy messages(&t.panel, &FilesPanel::message);

        // Another program evicts the file over and over while it is loaded.
        std::atomic<bool> stop{false};
        std::atomic<int> rounds{0};
        std::thread evictor([&] {
            const Cachescope::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
            while (!stop.load()) {
                posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
                ++rounds;
                usleep(100);
            }
        });
        QTRY_VERIFY(rounds.load() > 1);
        t.collection.action(QStringLiteral("file_load"))->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, longWaitMs);
        stop = true;
        evictor.join();
        const QString text = t.message->text();
        const QRegularExpressionMatch counts = QRegularExpression(QStringLiteral("([\\d,.]+) of its ([\\d,.]+) pages")).match(text);
        if (!counts.hasMatch() && text.contains(QStringLiteral("all of its"))) {
            QSKIP("every page stayed: the evictor never got a turn");
        }
        QVERIFY2(counts.hasMatch(), qPrintable(text));
        QCOMPARE(counts.captured(2), QLocale().toString(qulonglong(pages)));
        QVERIFY2(QLocale().toULongLong(counts.captured(1)) < pages, qPrintable(text));
        QVERIFY2(!text.contains(formatBytes(pages * page, ByteStyle::OneDecimal, QLocale())), qPrintable(text));
    }

    // Evicting a file whose page cache the kernel hides from this user: it is
    // evicted, and the message says the amount is hidden, never a number.
    // Runs the panel as cachescope-user in a child of its own.
    void hiddenEvictionIsNeverANumber()
    {
        if (qEnvironmentVariableIsSet("CACHESCOPE_FILESLIST_CHILD")) {
            QSKIP("the child run does this");
        }
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the cachescope-user of the dev root");
        }
        const std::string dir = TestUtil::scratchDir("fileslist-hidden");
        const std::string path = dir + "/roots-file.bin";
        TestUtil::makeColdFile(path, 64 * pageSize());
        QCOMPARE(chmod(dir.c_str(), 0755), 0);
        QCOMPARE(chmod(path.c_str(), 0644), 0);
        // The user must reach the file through every folder above it.
        if (const std::string closed = TestUtil::whyOthersCannotReach(dir); !closed.empty()) {
            QSKIP(closed.c_str());
        }
        TestUtil::readRange(path, 0, 64 * pageSize());
        const TestUtil::RunResult r = TestUtil::run(QStringLiteral("runuser"),
                                                    {QStringLiteral("-u"),
                                                     QLatin1String(TestUtil::testUserName),
                                                     QStringLiteral("--"),
                                                     QStringLiteral("env"),
                                                     QStringLiteral("QT_QPA_PLATFORM=offscreen"),
                                                     QStringLiteral("CACHESCOPE_FILESLIST_CHILD=") + QString::fromStdString(path),
                                                     QCoreApplication::applicationFilePath(),
                                                     QStringLiteral("childEvictsHidden")});
        QVERIFY2(!r.timedOut && r.exitCode == 0, r.out.constData());
        QVERIFY2(r.out.contains("PASS   : FilesListTest::childEvictsHidden"), r.out.constData());
        // It was evicted for real.
        QCOMPARE(residencyOfPath(path).resident, uint64_t(0));
    }

    // Runs in the child of hiddenEvictionIsNeverANumber, as cachescope-user.
    void childEvictsHidden()
    {
        const QByteArray path = qgetenv("CACHESCOPE_FILESLIST_CHILD");
        if (path.isEmpty()) {
            QSKIP("run by hiddenEvictionIsNeverANumber");
        }
        QVERIFY(getuid() != 0);
        PanelUnderTest t;
        QSignalSpy messages(&t.panel, &FilesPanel::message);
        QVERIFY(dropUrls(t.zone, {QUrl::fromLocalFile(QString::fromLocal8Bit(path))}));
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, longWaitMs);
        const QString text = t.message->text();
        QVERIFY2(text.contains(QStringLiteral("Evicted 1 file")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("hidden")), qPrintable(text));
        QVERIFY2(!amountOfMemory.match(text).hasMatch(), qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("unknown")), qPrintable(text));
        QVERIFY(t.message->messageType() != KMessageWidget::Error);
        QCOMPARE(messages.at(0).at(0).toString(), text);
    }
};

QTEST_MAIN(FilesListTest)

#include "fileslisttest.moc"
