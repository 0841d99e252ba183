// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The cache map (src/core/cachemap.*) and `cachescope-cli map`, on real
// files in a disk-backed scratch folder: folder totals against the pages the
// test made resident (held mapped, so that the kernel's idle pageout cannot
// change them mid-test), hidden files, mount points, problems, a walk cut
// short, and memory that grows with folders, not files.

#include "cachemap.h"
#include "mountaliases.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <mutex>
#include <thread>

using namespace Cachescope;

namespace
{
const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));

struct Planned {
    const char *name;
    uint64_t pages; // file size in pages
    uint64_t resident; // pages made resident (and held)
};

// Resident counts chosen so that no two folders tie.
const Planned planned[] = {
    {"top", 16, 4},
    {"big/a", 64, 40},
    {"big/b", 32, 2},
    {"big/deep/c", 20, 20},
    {"small/d", 50, 7},
    {"cold/e", 30, 0},
};
} // namespace

class CacheMapTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;
    std::vector<std::unique_ptr<TestUtil::HeldPages>> m_held;

    const CacheMapFolder &folder(const CacheMapTree &tree, const std::string &relative)
    {
        const CacheMapFolder *found = tree.find(relative.empty() ? m_dir : m_dir + '/' + relative);
        if (!found) {
            qFatal("no folder %s in the map", relative.c_str());
        }
        return *found;
    }

private Q_SLOTS:
    void init()
    {
        m_held.clear();
        m_dir = TestUtil::scratchDir("cachemap");
        for (const char *sub : {"/big", "/big/deep", "/small", "/cold", "/empty"}) {
            QCOMPARE(mkdir((m_dir + sub).c_str(), 0755), 0);
        }
        for (const Planned &file : planned) {
            const std::string path = m_dir + '/' + file.name;
            TestUtil::makeColdFile(path, file.pages * page);
            if (file.resident > 0) {
                m_held.push_back(std::make_unique<TestUtil::HeldPages>(path, 0, file.resident * page));
            }
        }
    }

    void cleanup()
    {
        m_held.clear();
    }

    void foldersAddUpTheirTrees()
    {
        // A second name of big/a: its pages count once (in the same folder:
        // which name the walk meets first is not fixed).
        QCOMPARE(link((m_dir + "/big/a").c_str(), (m_dir + "/big/a-again").c_str()), 0);
        const CacheMapResult result = mapCache({m_dir});
        const CacheMapTree &tree = result.tree;
        QVERIFY(tree.complete);
        QCOMPARE(tree.roots.size(), size_t(1));

        const CacheMapFolder &root = folder(tree, "");
        QCOMPARE(root.parent, CacheMapFolder::NoParent);
        QCOMPARE(root.own.files, uint64_t(1));
        QCOMPARE(root.own.resident, uint64_t(4));
        QCOMPARE(root.own.folders, uint64_t(4));
        QCOMPARE(root.tree.files, uint64_t(std::size(planned)));
        QCOMPARE(root.tree.folders, uint64_t(5));
        QCOMPARE(root.tree.resident, uint64_t(4 + 40 + 2 + 20 + 7));
        QCOMPARE(root.tree.pages, uint64_t(16 + 64 + 32 + 20 + 50 + 30));
        QCOMPARE(root.tree.bytes, root.tree.pages * page);
        QCOMPARE(tree.total, root.tree);

        const CacheMapFolder &big = folder(tree, "big");
        QCOMPARE(big.own.resident, uint64_t(42));
        QCOMPARE(big.tree.resident, uint64_t(62));
        QCOMPARE(big.tree.files, uint64_t(3));
        QCOMPARE(folder(tree, "big/deep").tree.resident, uint64_t(20));
        QCOMPARE(folder(tree, "small").tree.resident, uint64_t(7));
        QCOMPARE(folder(tree, "small").tree.files, uint64_t(1));
        QCOMPARE(folder(tree, "cold").tree.resident, uint64_t(0));
        QCOMPARE(folder(tree, "empty").tree, FolderTotals());
        QCOMPARE(std::string(folder(tree, "big/deep").name()), std::string("deep"));

        // Children: the most resident first, ties by path.
        QStringList order;
        for (uint32_t child : root.children) {
            order << QString::fromStdString(std::string(tree.folders[child].name()));
        }
        QCOMPARE(order, QStringList({QStringLiteral("big"), QStringLiteral("small"), QStringLiteral("cold"), QStringLiteral("empty")}));
        // The same figures as the walk's own totals.
        QCOMPARE(root.tree.resident, result.walk.total.resident);
        QCOMPARE(root.tree.files, result.walk.total.files);
    }

    void hiddenFilesAreCountedNeverNumbered()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev");
        }
        const std::string unreachable = TestUtil::whyOthersCannotReach(m_dir);
        if (!unreachable.empty()) {
            QSKIP(qPrintable(QString::fromStdString(unreachable)));
        }
        // Root's files, readable by all: the kernel hides their residency from the test user.
        for (const Planned &file : planned) {
            QCOMPARE(chmod((m_dir + '/' + file.name).c_str(), 0644), 0);
        }
        struct Answer {
            uint64_t files, hiddenFiles, hiddenBytes, resident, pages, bigHidden;
        };
        QString failure;
        const std::optional<Answer> answer = TestUtil::valueFromChild<Answer>(
            [this] {
                const CacheMapTree tree = mapCache({m_dir}).tree;
                const CacheMapFolder &root = folder(tree, "");
                return Answer{root.tree.files,
                              root.tree.hiddenFiles,
                              root.tree.hiddenBytes,
                              root.tree.resident,
                              root.tree.pages,
                              folder(tree, "big").tree.hiddenFiles};
            },
            *uid,
            &failure,
            30000);
        QVERIFY2(answer, qPrintable(failure));
        QCOMPARE(answer->files, uint64_t(std::size(planned)));
        QCOMPARE(answer->hiddenFiles, uint64_t(std::size(planned)));
        QCOMPARE(answer->bigHidden, uint64_t(3));
        QCOMPARE(answer->hiddenBytes, uint64_t(16 + 64 + 32 + 20 + 50 + 30) * page);
        QCOMPARE(answer->resident, uint64_t(0));
        QCOMPARE(answer->pages, uint64_t(0));
    }

    void mountPointsAreMarked()
    {
        // /dev holds other file systems (devpts, shm, mqueue) wherever this runs.
        struct stat devStat{};
        QCOMPARE(stat("/dev", &devStat), 0);
        std::string mounted;
        for (const char *candidate : {"/dev/pts", "/dev/shm", "/dev/mqueue"}) {
            struct stat st{};
            if (stat(candidate, &st) == 0 && S_ISDIR(st.st_mode) && st.st_dev != devStat.st_dev) {
                mounted = candidate;
                break;
            }
        }
        if (mounted.empty()) {
            QSKIP("no file system mounted under /dev here");
        }
        const CacheMapTree tree = mapCache({"/dev"}).tree;
        const CacheMapFolder *marked = tree.find(mounted);
        QVERIFY2(marked, mounted.c_str());
        QVERIFY(marked->mountPoint);
        QVERIFY(!tree.folders[tree.roots.front()].mountPoint);

        WalkOptions oneFileSystem;
        oneFileSystem.oneFileSystem = true;
        QVERIFY(!mapCache({"/dev"}, oneFileSystem).tree.find(mounted));
    }

    // devpts below /dev keeps no page cache: with skipNoPageCache (the tab's
    // and map's way) it is in the map, marked, with nothing counted in it.
    // Which mount points show files counted at another path (mountaliases.h),
    // from mountinfo lines as the kernel writes them.
    void mountAliasesFromMountInfo()
    {
        const std::string d = m_dir; // an existing root: the walk's roots are resolved
        const std::vector<std::string> lines = {
            "20 1 8:1 / / rw - ext4 /dev/sda1 rw",
            // A folder of sda1 bound below the root: counted at d/big.
            "30 20 8:1 " + d + "/big " + d + "/bound rw - ext4 /dev/sda1 rw",
            // sda2 twice: the mount made first is walked.
            "31 20 8:2 / " + d + "/disk rw - ext4 /dev/sda2 rw",
            "32 20 8:2 / " + d + "/disk\\040again rw - ext4 /dev/sda2 rw",
            // A folder of sda1 whose own path another mount covers: walked where it is bound.
            "33 20 0:50 / " + d + "/small rw - tmpfs tmpfs rw",
            "34 20 8:1 " + d + "/small/x " + d + "/bound-covered rw - ext4 /dev/sda1 rw",
            // An overlay of layers below the root, and one with a layer outside.
            "35 20 0:60 / " + d + "/merged rw - overlay overlay rw,lowerdir=" + d + "/l1:" + d + "/l2,upperdir=" + d + "/up,workdir=" + d + "/w",
            "36 20 0:61 / " + d + "/merged2 rw - overlay overlay rw,lowerdir=/elsewhere,upperdir=" + d + "/up2,workdir=" + d + "/w2",
            // An overlay on its own lower folder: that folder is out of reach, so it is walked.
            "37 20 0:62 / " + d + "/usr rw - overlay overlay rw,lowerdir=" + d + "/usr,upperdir=" + d + "/up3,workdir=" + d + "/w3",
            "a line that is no mount",
        };
        std::string text;
        for (const std::string &line : lines) {
            text += line + '\n';
        }
        const std::vector<MountInfoEntry> mounts = parseMountInfo(text);
        QCOMPARE(mounts.size(), size_t(9));
        QCOMPARE(mounts[3].mountPoint, d + "/disk again");
        QCOMPARE(mounts[0].device, uint64_t(makedev(8, 1)));

        std::map<std::string, std::pair<std::vector<std::string>, bool>> found;
        for (const MountAlias &alias : findMountAliases(mounts, {d})) {
            found[alias.mountPoint] = {alias.countedAt, alias.kind == MountAlias::Kind::Overlay};
        }
        // merged2 has a layer outside the walk, usr one under itself: each is
        // walked, and its layers in reach are not.
        QCOMPARE(found[d + "/up2"].first, std::vector<std::string>{d + "/merged2"});
        QCOMPARE(found[d + "/up3"].first, std::vector<std::string>{d + "/usr"});
        QCOMPARE(found.size(), size_t(5));
        QCOMPARE(found[d + "/bound"].first, std::vector<std::string>{d + "/big"});
        QVERIFY(!found[d + "/bound"].second);
        QCOMPARE(found[d + "/disk again"].first, std::vector<std::string>{d + "/disk"});
        QCOMPARE(found[d + "/merged"].first, (std::vector<std::string>{d + "/l1", d + "/l2", d + "/up"}));
        QVERIFY(found[d + "/merged"].second);
        // Walked from the bound folder alone, its source is not in the walk: it is walked.
        QVERIFY(findMountAliases(mounts, {d + "/bound"}).empty());

        // In a chroot mountinfo lists no "/": a layer under no mount listed
        // lies on the chroot's own file system, in reach.
        const std::vector<MountInfoEntry> chroot =
            parseMountInfo("35 20 0:60 / " + d + "/merged rw - overlay overlay rw,lowerdir=" + d + "/l1,upperdir=" + d + "/up,workdir=" + d + "/w\n");
        const std::vector<MountAlias> inChroot = findMountAliases(chroot, {d});
        QCOMPARE(inChroot.size(), size_t(1));
        QCOMPARE(inChroot.front().mountPoint, d + "/merged");
        QCOMPARE(inChroot.front().countedAt, (std::vector<std::string>{d + "/l1", d + "/up"}));
    }

    // A bind mount and an overlay below the folder mapped: their files are
    // counted once, where they are, and the map's total is what the test
    // holds resident (before, the bound folder's pages counted twice).
    void bindMountsAndOverlaysCountOnce()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("only root may mount");
        }
        for (const char *sub : {"/bound", "/upper", "/work", "/merged", "/big/up"}) {
            QCOMPARE(mkdir((m_dir + sub).c_str(), 0755), 0);
        }
        struct Answer {
            int error;
            uint64_t resident, mountsCountedElsewhere, boundResident, boundAlone, mergedAlone, bigWithItsParentBound;
            bool boundMarked, mergedMarked, rootAgainMarked;
        };
        QString failure;
        const std::optional<Answer> answer = TestUtil::valueFromChild<Answer>(
            [this] {
                Answer a{};
                a.error = TestUtil::ownPrivateMountNamespace();
                const std::string overlay = "lowerdir=" + m_dir + "/small,upperdir=" + m_dir + "/upper,workdir=" + m_dir + "/work";
                if (a.error == 0
                    && (mount((m_dir + "/big").c_str(), (m_dir + "/bound").c_str(), nullptr, MS_BIND, nullptr) != 0
                        || mount("overlay", (m_dir + "/merged").c_str(), "overlay", 0, overlay.c_str()) != 0)) {
                    a.error = errno;
                }
                if (a.error != 0) {
                    return a;
                }
                const CacheMapResult result = mapCache({m_dir});
                const CacheMapTree &tree = result.tree;
                a.resident = folder(tree, "").tree.resident;
                a.mountsCountedElsewhere = result.walk.total.mountsCountedElsewhere;
                const CacheMapFolder &bound = folder(tree, "bound");
                const CacheMapFolder &merged = folder(tree, "merged");
                a.boundResident = bound.tree.resident;
                a.boundMarked =
                    bound.mountPoint && bound.countedAt == std::vector<std::string>{m_dir + "/big"} && bound.countedAtKind == MountAlias::Kind::BindMount;
                a.mergedMarked = merged.mountPoint && merged.countedAtKind == MountAlias::Kind::Overlay
                    && merged.countedAt == std::vector<std::string>{m_dir + "/small", m_dir + "/upper"};
                // Named as the root, each is walked: its files are counted there.
                a.boundAlone = mapCache({m_dir + "/bound"}).tree.total.resident;
                a.mergedAlone = mapCache({m_dir + "/merged"}).tree.total.resident;
                // The folder above big bound inside big: in it, big again (no
                // mount shows it there, as a chroot's own folder seen from inside).
                if (mount(m_dir.c_str(), (m_dir + "/big/up").c_str(), nullptr, MS_BIND, nullptr) != 0) {
                    a.error = errno;
                    return a;
                }
                const CacheMapTree big = mapCache({m_dir + "/big"}).tree;
                a.bigWithItsParentBound = big.total.resident;
                const CacheMapFolder *again = big.find(m_dir + "/big/up/big");
                a.rootAgainMarked =
                    again && again->countedAtKind == MountAlias::Kind::RootAgain && again->countedAt == std::vector<std::string>{m_dir + "/big"};
                return a;
            },
            std::nullopt,
            &failure,
            30000);
        QVERIFY2(answer, qPrintable(failure));
        QVERIFY2(answer->error == 0, strerror(answer->error));
        QCOMPARE(answer->resident, uint64_t(4 + 40 + 2 + 20 + 7));
        QCOMPARE(answer->mountsCountedElsewhere, uint64_t(2));
        QCOMPARE(answer->boundResident, uint64_t(0));
        QVERIFY(answer->boundMarked);
        QVERIFY(answer->mergedMarked);
        QCOMPARE(answer->boundAlone, uint64_t(40 + 2 + 20));
        QCOMPARE(answer->mergedAlone, uint64_t(7)); // through the overlay, with mincore
        QCOMPARE(answer->bigWithItsParentBound, uint64_t(40 + 2 + 20 + 4 + 7)); // big once, top and small/d through up
        QVERIFY(answer->rootAgainMarked);
    }

    void fileSystemWithoutPageCacheIsMarkedNotWalked()
    {
        if (!TestUtil::devptsWithPtmx()) {
            QSKIP("/dev/pts is not a devpts with its ptmx here");
        }
        for (const bool skip : {true, false}) {
            WalkOptions options;
            options.skipNoPageCache = skip;
            const CacheMapResult result = mapCache({"/dev"}, options);
            const CacheMapFolder *pts = result.tree.find("/dev/pts");
            QVERIFY(pts);
            QVERIFY(pts->mountPoint);
            QCOMPARE(pts->noPageCache, skip);
            QCOMPARE(pts->own.foldersNotEntered, uint64_t(0));
            QCOMPARE(pts->tree.foldersNotEntered, uint64_t(skip ? 1 : 0));
            QCOMPARE(result.tree.total.foldersNotEntered, result.walk.total.foldersNotEntered);
            QCOMPARE(result.tree.total.foldersNotEntered >= 1, skip);
            // Skipped, nothing in it is seen: not even ptmx, a device skipped when listed.
            QCOMPARE(pts->tree.problems == 0, skip);
            QCOMPARE(pts->tree.resident, uint64_t(0));
        }
    }

    void problemsStayInTheirFolder()
    {
        // Met while their folders are listed, before the map has their
        // files (those come once a folder is listed): counted there all the same.
        QCOMPARE(mkfifo((m_dir + "/small/fifo").c_str(), 0644), 0);
        QCOMPARE(mkfifo((m_dir + "/big/deep/fifo").c_str(), 0644), 0);
        std::vector<WalkProblem> problems;
        std::mutex mutex;
        const CacheMapTree tree = mapCache({m_dir}, {}, [&](const WalkProblem &problem) {
                                      std::lock_guard lock(mutex);
                                      problems.push_back(problem);
                                  }).tree;
        QCOMPARE(problems.size(), size_t(2)); // the caller still hears of them
        QCOMPARE(folder(tree, "small").own.problems, uint64_t(1));
        QCOMPARE(folder(tree, "big/deep").own.problems, uint64_t(1));
        QCOMPARE(folder(tree, "big").own.problems, uint64_t(0));
        QCOMPARE(folder(tree, "big").tree.problems, uint64_t(1));
        QCOMPARE(folder(tree, "").tree.problems, uint64_t(2));
        QCOMPARE(unlink((m_dir + "/big/deep/fifo").c_str()), 0);
    }

    void aFolderThatCannotBeOpenedCountsInItsParent()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev");
        }
        const std::string unreachable = TestUtil::whyOthersCannotReach(m_dir);
        if (!unreachable.empty()) {
            QSKIP(qPrintable(QString::fromStdString(unreachable)));
        }
        // Root's folder, closed to others: the test user's walk cannot open it.
        const std::string locked = m_dir + "/big/locked";
        QCOMPARE(mkdir(locked.c_str(), 0700), 0);
        TestUtil::makeColdFile(locked + "/inside", page);
        struct Answer {
            uint64_t bigOwnProblems, bigDeepProblems, rootTreeProblems;
            bool lockedMapped;
        };
        QString failure;
        const std::optional<Answer> answer = TestUtil::valueFromChild<Answer>(
            [this] {
                const CacheMapTree tree = mapCache({m_dir}).tree;
                return Answer{folder(tree, "big").own.problems,
                              folder(tree, "big/deep").own.problems,
                              folder(tree, "").tree.problems,
                              tree.find(m_dir + "/big/locked") != nullptr};
            },
            *uid,
            &failure,
            30000);
        QVERIFY2(answer, qPrintable(failure));
        QCOMPARE(answer->bigOwnProblems, uint64_t(1));
        QCOMPARE(answer->bigDeepProblems, uint64_t(0));
        QCOMPARE(answer->rootTreeProblems, uint64_t(1));
        QVERIFY(!answer->lockedMapped);
        QCOMPARE(unlink((locked + "/inside").c_str()), 0);
        QCOMPARE(rmdir(locked.c_str()), 0);
    }

    void snapshotsDuringTheWalk()
    {
        // Many folders, so that the walk is still going when the first snapshot comes.
        const std::string wide = m_dir + "/wide";
        QCOMPARE(mkdir(wide.c_str(), 0755), 0);
        for (int i = 0; i < 400; ++i) {
            const std::string sub = wide + "/f" + std::to_string(i);
            QCOMPARE(mkdir(sub.c_str(), 0755), 0);
            QCOMPARE(close(open((sub + "/x").c_str(), O_CREAT | O_WRONLY, 0644)), 0);
        }
        CacheMapBuilder builder;
        Walker walker(CacheMapBuilder::walkOptions({}));
        builder.attach(walker);
        WalkResult result;
        std::thread walking([&] {
            result = walker.walk({m_dir});
        });
        // Every snapshot is a consistent tree: each folder's tree holds its own.
        size_t snapshots = 0;
        while (snapshots < 1000) {
            const CacheMapTree partial = builder.snapshot();
            QVERIFY(!partial.complete);
            for (const CacheMapFolder &f : partial.folders) {
                QVERIFY(f.tree.files >= f.own.files);
                QVERIFY(f.parent == CacheMapFolder::NoParent || f.parent < uint32_t(&f - partial.folders.data()));
            }
            ++snapshots;
            if (builder.folderCount() >= 406) {
                break;
            }
        }
        walking.join();
        QVERIFY(!result.cancelled);
        const CacheMapTree full = builder.snapshot(true);
        QCOMPARE(full.folders.size(), size_t(1 + 5 + 1 + 400));
        QCOMPARE(folder(full, "wide").tree.files, uint64_t(400));
        QCOMPARE(folder(full, "").tree.files, uint64_t(std::size(planned) + 400));
    }

    void takingTheMapMovesItOut()
    {
        // The window and the CLI take the map once the walk ends instead of
        // copying it: the same map as a snapshot, and an empty builder.
        CacheMapBuilder builder;
        Walker walker(CacheMapBuilder::walkOptions({}));
        builder.attach(walker);
        QVERIFY(!walker.walk({m_dir}).cancelled);
        const CacheMapTree copied = builder.snapshot(true);
        const CacheMapTree taken = builder.take(true);
        QVERIFY(taken.complete);
        QCOMPARE(taken.folders.size(), copied.folders.size());
        for (size_t i = 0; i < copied.folders.size(); ++i) {
            QCOMPARE(taken.folders[i].path, copied.folders[i].path);
            QCOMPARE(taken.folders[i].parent, copied.folders[i].parent);
            QVERIFY(taken.folders[i].tree == copied.folders[i].tree);
            QCOMPARE(taken.folders[i].children, copied.folders[i].children);
        }
        QCOMPARE(taken.roots, copied.roots);
        QVERIFY(taken.total == copied.total);
        QCOMPARE(folder(taken, "big/deep").tree.resident, uint64_t(20));
        QCOMPARE(builder.folderCount(), size_t(0));
        QVERIFY(builder.snapshot().folders.empty());
    }

    void foldersComeOutOfOrder()
    {
        // Two threads number folders as they open them, so a later number's
        // folder can come first. Fed by hand, in an order a walk can make.
        Residency cached;
        cached.method = ResidencyMethod::Cachestat;
        cached.pages = 1;
        cached.resident = 1;
        FolderFiles one;
        one.addFile(4096, cached);
        const auto opened = [](uint32_t id, uint32_t parent, const char *path, int depth) {
            return WalkFolder{0, path, depth, 1, {}, id, parent, false};
        };
        const auto listed = [&one](uint32_t id, uint32_t parent, const char *path, int depth) {
            return WalkFolder{0, path, depth, 1, one, id, parent, true};
        };
        CacheMapBuilder builder;
        builder.addFolder(opened(0, WalkFolder::None, "/r", 0));
        builder.addFolder(opened(2, 0, "/r/b", 1)); // number 1 is still being opened
        builder.addFolder(listed(2, 0, "/r/b", 1));
        QCOMPARE(builder.folderCount(), size_t(2));
        {
            // The snapshot leaves the gap out; every parent still comes before its folders.
            const CacheMapTree partial = builder.snapshot();
            QCOMPARE(partial.folders.size(), size_t(2));
            QCOMPARE(partial.folders[1].path, std::string("/r/b"));
            QCOMPARE(partial.folders[1].parent, uint32_t(0));
            QCOMPARE(partial.roots, std::vector<uint32_t>{0});
            QCOMPARE(partial.find("/r")->tree.resident, uint64_t(1));
            QCOMPARE(partial.find("/r")->own.folders, uint64_t(1));
        }
        builder.addFolder(opened(1, 0, "/r/a", 1));
        WalkProblem vanished; // a subfolder of /r/a that could not be opened
        vanished.path = "/r/a/gone";
        vanished.kind = EntryKind::Directory;
        vanished.folder = 1;
        builder.addProblem(vanished);
        WalkProblem ofRoot; // the root's own problem belongs to no folder
        ofRoot.path = "/r";
        builder.addProblem(ofRoot);
        builder.addFolder(listed(1, 0, "/r/a", 1));
        builder.addFolder(listed(0, WalkFolder::None, "/r", 0));
        const CacheMapTree whole = builder.take(true);
        QCOMPARE(whole.folders.size(), size_t(3));
        QCOMPARE(whole.folders[1].path, std::string("/r/a"));
        QCOMPARE(whole.find("/r/a")->own.problems, uint64_t(1));
        QCOMPARE(whole.find("/r")->own.folders, uint64_t(2));
        QCOMPARE(whole.find("/r")->tree.resident, uint64_t(3));
        QCOMPARE(whole.find("/r")->tree.problems, uint64_t(1));
        QCOMPARE(whole.total.files, uint64_t(3));
        // Most resident first, equal ones by path.
        QCOMPARE(whole.find("/r")->children, (std::vector<uint32_t>{1, 2}));
    }

    void aCancelledMapIsIncomplete()
    {
        CacheMapBuilder builder;
        Walker walker(CacheMapBuilder::walkOptions({}));
        builder.attach(walker);
        // Cancelled at the first folder it has opened.
        walker.setFolderCallback([&](const WalkFolder &folder) {
            builder.addFolder(folder);
            walker.cancel();
        });
        const WalkResult result = walker.walk({m_dir});
        QVERIFY(result.cancelled);
        QVERIFY(!builder.snapshot(!result.cancelled).complete);
    }

    void memoryGrowsWithFoldersNotFiles()
    {
        const auto bytesFor = [this](const char *name, int files) {
            const std::string dir = m_dir + '/' + name;
            mkdir(dir.c_str(), 0755);
            for (int i = 0; i < files; ++i) {
                close(open((dir + "/file-with-a-long-name-" + std::to_string(i)).c_str(), O_CREAT | O_WRONLY, 0644));
            }
            CacheMapBuilder builder;
            Walker walker(CacheMapBuilder::walkOptions({}));
            builder.attach(walker);
            (void)walker.walk({dir});
            return builder.memoryBytes();
        };
        const size_t few = bytesFor("aaaa", 3);
        const size_t many = bytesFor("bbbb", 3000);
        QCOMPARE(many, few);
        QVERIFY(few < 1024);
    }

    void cliPrintsTheTreeAsTextAndJson()
    {
        const auto text =
            TestUtil::run(TestUtil::cliPath(), {QStringLiteral("map"), QString::fromStdString(m_dir), QStringLiteral("--depth"), QStringLiteral("1")});
        QCOMPARE(text.exitCode, 0);
        const QStringList lines = QString::fromUtf8(text.out).split(QLatin1Char('\n'));
        QVERIFY2(lines.value(0).contains(QLatin1String("RESIDENT")) && lines.value(0).contains(QLatin1String("FOLDER")), text.out.constData());
        QVERIFY(lines.value(1).endsWith(QString::fromStdString(m_dir)));
        // Indented under the root, the most resident first; deep is below --depth.
        QVERIFY2(lines.value(2).endsWith(QLatin1String("  big")), text.out.constData());
        QVERIFY2(lines.value(3).endsWith(QLatin1String("  small")), text.out.constData());
        QVERIFY(!text.out.contains("deep"));

        const auto json =
            TestUtil::run(TestUtil::cliPath(),
                          {QStringLiteral("--json"), QStringLiteral("map"), QString::fromStdString(m_dir), QStringLiteral("-d"), QStringLiteral("2")});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject document = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(document.value(QLatin1String("command")).toString(), QStringLiteral("map"));
        QVERIFY(document.value(QLatin1String("complete")).toBool());
        const QJsonArray folders = document.value(QLatin1String("folders")).toArray();
        QCOMPARE(folders.size(), 6); // the root, its 4 folders, big/deep
        const QJsonObject root = folders.at(0).toObject();
        QCOMPARE(root.value(QLatin1String("path")).toString(), QString::fromStdString(m_dir));
        QCOMPARE(root.value(QLatin1String("resident")).toInteger(), qint64(73));
        QCOMPARE(root.value(QLatin1String("share_percent")).toDouble(), 100.0);
        QCOMPARE(root.value(QLatin1String("files")).toInteger(), qint64(std::size(planned)));
        const QJsonObject big = folders.at(1).toObject();
        QCOMPARE(big.value(QLatin1String("path")).toString(), QString::fromStdString(m_dir + "/big"));
        QCOMPARE(big.value(QLatin1String("depth")).toInteger(), qint64(1));
        QCOMPARE(big.value(QLatin1String("resident")).toInteger(), qint64(62));
        QCOMPARE(folders.at(2).toObject().value(QLatin1String("path")).toString(), QString::fromStdString(m_dir + "/big/deep"));
        QCOMPARE(document.value(QLatin1String("total")).toObject().value(QLatin1String("resident")).toInteger(), qint64(73));
    }

    // map names /dev/pts (devpts) and does not walk it; --kernel-file-systems walks it.
    void cliLeavesFileSystemsWithoutPageCache()
    {
        if (!TestUtil::devptsWithPtmx()) {
            QSKIP("/dev/pts is not a devpts with its ptmx here");
        }
        for (const bool walkThem : {false, true}) {
            QStringList arguments{QStringLiteral("--json"), QStringLiteral("map"), QStringLiteral("/dev"), QStringLiteral("-d"), QStringLiteral("1")};
            if (walkThem) {
                arguments << QStringLiteral("--kernel-file-systems");
            }
            const auto json = TestUtil::run(TestUtil::cliPath(), arguments);
            QVERIFY2(json.exitCode <= 1, json.err.constData()); // 1: some device could not be read
            const QJsonObject document = QJsonDocument::fromJson(json.out).object();
            QCOMPARE(document.value(QLatin1String("folders_not_walked")).toInteger(-1) >= 1, !walkThem);
            bool found = false;
            for (const QJsonValue &value : document.value(QLatin1String("folders")).toArray()) {
                const QJsonObject folder = value.toObject();
                if (folder.value(QLatin1String("path")).toString() == QLatin1String("/dev/pts")) {
                    found = true;
                    QCOMPARE(folder.value(QLatin1String("no_page_cache")).toBool(), !walkThem);
                    QCOMPARE(folder.value(QLatin1String("mount_point")).toBool(), true);
                    QCOMPARE(folder.value(QLatin1String("problems")).toInteger() == 0, !walkThem); // ptmx, skipped, when listed
                }
            }
            QVERIFY2(found, json.out.constData());
            // Problems named only where it was walked.
            QCOMPARE(json.out.contains("/dev/pts/ptmx"), walkThem);

            arguments.removeFirst(); // as text
            const auto text = TestUtil::run(TestUtil::cliPath(), arguments);
            QCOMPARE(text.out.contains("pts  (mount point, keeps no page cache: not walked)"), !walkThem);
            QCOMPARE(text.out.contains("no page cache not walked (--kernel-file-systems walks them)"), !walkThem);
        }
    }

    void cliBadInput_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("a file") << QStringList{QStringLiteral("map"), QStringLiteral("@/top")} << 1 << QStringLiteral("@/top: a file, not a folder");
        QTest::newRow("missing") << QStringList{QStringLiteral("map"), QStringLiteral("@/nothing-here")} << 1 << QStringLiteral("@/nothing-here");
        QTest::newRow("bad depth") << QStringList{QStringLiteral("map"), QStringLiteral("@"), QStringLiteral("--depth"), QStringLiteral("two")} << 2
                                   << QStringLiteral("--depth");
        QTest::newRow("no folder") << QStringList{QStringLiteral("map")} << 2 << QStringLiteral("map");
    }

    void cliBadInput()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const QString dir = QString::fromStdString(m_dir);
        for (QString &argument : arguments) {
            argument.replace(QLatin1Char('@'), dir);
        }
        const auto result = TestUtil::run(TestUtil::cliPath(), arguments, 30000);
        QVERIFY(!result.timedOut);
        QCOMPARE(result.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(result.err).contains(message.replace(QLatin1Char('@'), dir)), result.err.constData());
    }
};

QTEST_GUILESS_MAIN(CacheMapTest)
#include "cachemaptest.moc"
