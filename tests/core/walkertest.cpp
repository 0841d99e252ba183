// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
//
// The walker against one hostile tree. Longer than our usual 800 lines on
// purpose: the tree (a 1,000-level nest deeper than PATH_MAX, 100,000 entries
// in one folder, special files) takes seconds to build, so every case shares
// the one test class that builds it once, and QtTest runs one class per
// executable.

#include "walker.h"
#include "testutil.h"

#include <QScopeGuard>
#include <QTest>

#include <climits>
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

using namespace Cachescope;
using namespace std::chrono_literals;

namespace
{

constexpr int bigFolderFiles = 100000;
constexpr int nestingLevels = 1000;
// Long enough that the deepest path (over 9,000 bytes) is far beyond PATH_MAX.
constexpr const char *nestName = "nest-dir";
constexpr uint64_t oneTiB = uint64_t(1) << 40;

struct SeenEntry {
    std::string path;
    EntryKind kind = EntryKind::Unknown;
    uint64_t size = 0;
    int depth = 0;
    bool firstLink = true;
    Residency residency;
    Histogram histogram;
    EvictReport evict;
    LoadReport load;
};

// Everything the callbacks stream, gathered under a lock (they come from many threads).
struct Collector {
    std::mutex mutex;
    std::vector<SeenEntry> entries;
    std::vector<WalkProblem> problems;
    bool keepEntries = true;
    std::function<void(const WalkEntry &)> onEntry;

    void attach(Walker &walker)
    {
        walker.setEntryCallback([this](const WalkEntry &entry) {
            if (onEntry) {
                onEntry(entry);
            }
            if (!keepEntries) {
                return;
            }
            SeenEntry seen{entry.path(), entry.kind, entry.size, entry.depth, entry.firstLink, entry.residency, entry.histogram, entry.evict, entry.load};
            std::lock_guard lock(mutex);
            entries.push_back(std::move(seen));
        });
        walker.setProblemCallback([this](const WalkProblem &problem) {
            std::lock_guard lock(mutex);
            problems.push_back(problem);
        });
    }

    const SeenEntry *entry(const std::string &path) const
    {
        for (const SeenEntry &e : entries) {
            if (e.path == path) {
                return &e;
            }
        }
        return nullptr;
    }

    // Whether an entry or a problem under this prefix came.
    bool sawBelow(const std::string &prefix) const
    {
        const auto below = [&prefix](const std::string &path) {
            return path.rfind(prefix, 0) == 0;
        };
        return std::any_of(entries.begin(),
                           entries.end(),
                           [&below](const SeenEntry &e) {
                               return below(e.path);
                           })
            || std::any_of(problems.begin(), problems.end(), [&below](const WalkProblem &p) {
                   return below(p.path);
               });
    }

    const WalkProblem *problem(const std::string &path) const
    {
        for (const WalkProblem &p : problems) {
            if (p.path == path) {
                return &p;
            }
        }
        return nullptr;
    }

    QByteArray problemList() const
    {
        QByteArray text;
        for (const WalkProblem &p : problems) {
            text += QByteArray::fromStdString(p.path) + ": " + QByteArray::fromStdString(p.reason) + "\n";
        }
        return text;
    }
};

// Runs a walk on its own thread so that a hang fails the test instead of
// stalling it: nullopt after 60 s.
std::optional<WalkResult> walkWithin60s(Walker &walker, const std::vector<std::string> &roots)
{
    auto future = std::async(std::launch::async, [&walker, roots] {
        return walker.walk(roots);
    });
    if (future.wait_for(60s) != std::future_status::ready) {
        walker.cancel();
        if (future.wait_for(10s) != std::future_status::ready) {
            qFatal("the walk hangs even after cancel()");
        }
        (void)future.get();
        return std::nullopt;
    }
    return future.get();
}

void writeFile(const std::string &path, uint64_t bytes, mode_t mode = 0644)
{
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0) {
        qFatal("create %s: %s", path.c_str(), strerror(errno));
    }
    std::string data(size_t(bytes), 'x');
    if (bytes && write(fd, data.data(), data.size()) != ssize_t(bytes)) {
        qFatal("write %s: %s", path.c_str(), strerror(errno));
    }
    close(fd);
}

void check(bool ok, const std::string &what)
{
    if (!ok) {
        qFatal("%s: %s", what.c_str(), strerror(errno));
    }
}

// Removes a tree relative to descriptors, so that paths beyond PATH_MAX and
// folders left at mode 000 go too.
void removeTreeAt(int parentFd, const char *name)
{
    // Best effort: a folder that stays unreadable fails the openat below.
    [[maybe_unused]] const int chmodResult = fchmodat(parentFd, name, 0700, 0);
    const int fd = openat(parentFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        unlinkat(parentFd, name, 0);
        return;
    }
    DIR *dir = fdopendir(fd);
    std::vector<std::string> names;
    while (dirent *e = readdir(dir)) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            names.emplace_back(e->d_name);
        }
    }
    for (const std::string &child : names) {
        if (unlinkat(fd, child.c_str(), 0) != 0) {
            removeTreeAt(fd, child.c_str());
        }
    }
    closedir(dir);
    unlinkat(parentFd, name, AT_REMOVEDIR);
}

// What a walk in a forked child saw, sent back through a pipe.
struct ChildWalk {
    bool ok = false;
    QByteArray failure;
    WalkTotals total;
    std::vector<std::pair<std::string, std::string>> problems; // path, reason
    std::vector<int> errors;
};

// Walks root in a forked child after setup() (drop privileges, lower limits),
// so that nothing of that sticks to the test process.
ChildWalk walkInChild(const std::string &root, const std::function<bool()> &setup)
{
    ChildWalk result;
    const TestUtil::ChildResult child = TestUtil::runInChild([&]() -> QByteArray {
        if (!setup()) {
            return QByteArray("E setup failed: ") + strerror(errno) + "\n";
        }
        Walker walker;
        std::mutex mutex;
        std::string problems;
        walker.setProblemCallback([&](const WalkProblem &p) {
            std::lock_guard lock(mutex);
            problems += "P\t" + p.path + "\t" + std::to_string(p.error) + "\t" + p.reason + "\n";
        });
        const WalkResult r = walker.walk({root});
        const WalkTotals &t = r.total;
        return QByteArray::fromStdString(problems + "T\t" + std::to_string(t.files) + "\t" + std::to_string(t.directories) + "\t" + std::to_string(t.errors)
                                         + "\t" + std::to_string(t.hiddenFiles) + "\t" + std::to_string(t.bytes) + "\n");
    });
    const QByteArray &out = child.output;
    if (!child.ok) {
        result.failure = child.failure.toUtf8() + ": " + out;
        return result;
    }
    for (const QByteArray &line : out.split('\n')) {
        const QList<QByteArray> fields = line.split('\t');
        if (fields.value(0) == "P" && fields.size() >= 4) {
            result.problems.emplace_back(fields[1].toStdString(), fields[3].toStdString());
            result.errors.push_back(fields[2].toInt());
        } else if (fields.value(0) == "T" && fields.size() >= 6) {
            result.total.files = fields[1].toULongLong();
            result.total.directories = fields[2].toULongLong();
            result.total.errors = fields[3].toULongLong();
            result.total.hiddenFiles = fields[4].toULongLong();
            result.total.bytes = fields[5].toULongLong();
            result.ok = true;
        }
    }
    if (!result.ok) {
        result.failure = "no totals from the child: " + out;
    }
    return result;
}

} // namespace

Q_DECLARE_METATYPE(Cachescope::FileAction)

class WalkerTest : public QObject
{
    Q_OBJECT

private:
    std::string m_base;
    std::string m_hostile;
    std::string m_big;
    std::string m_deep;
    std::string m_deepest; // the file at the bottom of m_deep
    bool m_haveDevice = false;

private Q_SLOTS:
    void initTestCase()
    {
        struct rlimit limit;
        getrlimit(RLIMIT_NOFILE, &limit);
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);

        // A previous run's nest is deeper than PATH_MAX: remove it by descriptors first.
        const std::string previous = TestUtil::scratchDir("walker-placeholder");
        const int scratchFd = open((previous + "/..").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        removeTreeAt(scratchFd, "walker");
        removeTreeAt(scratchFd, "walker-placeholder");
        close(scratchFd);
        m_base = TestUtil::scratchDir("walker");

        // The hostile tree: everything a walk must survive, next to plain files.
        m_hostile = m_base + "/hostile";
        check(mkdir(m_hostile.c_str(), 0755) == 0, "mkdir " + m_hostile);
        writeFile(m_hostile + "/regular.txt", 5000);
        writeFile(m_hostile + "/empty-1", 0);
        writeFile(m_hostile + "/empty-2", 0);
        writeFile(m_hostile + "/caf\xe9", 3);
        writeFile(m_hostile + "/\xff\xfe", 5);
        writeFile(m_hostile + "/hard-a", 1000);
        check(link((m_hostile + "/hard-a").c_str(), (m_hostile + "/hard-b").c_str()) == 0, "link");
        {
            const int fd = open((m_hostile + "/sparse").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            check(fd >= 0 && ftruncate(fd, off_t(oneTiB)) == 0, "sparse file");
            close(fd);
        }
        check(mkfifo((m_hostile + "/fifo").c_str(), 0644) == 0, "mkfifo");
        {
            const std::string socketPath = m_hostile + "/sock";
            sockaddr_un address{};
            address.sun_family = AF_UNIX;
            QVERIFY2(socketPath.size() < sizeof address.sun_path, "the scratch path is too long for a UNIX socket");
            strcpy(address.sun_path, socketPath.c_str());
            const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            check(fd >= 0 && bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0, "bind " + socketPath);
            close(fd);
        }
        m_haveDevice = mknod((m_hostile + "/null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
        if (!m_haveDevice) {
            qInfo("no device node in the tree (mknod: %s): needs root", strerror(errno));
        }
        check(symlink("loop-b", (m_hostile + "/loop-a").c_str()) == 0, "symlink");
        check(symlink("loop-a", (m_hostile + "/loop-b").c_str()) == 0, "symlink");
        check(symlink("does-not-exist", (m_hostile + "/dangling").c_str()) == 0, "symlink");
        check(symlink("regular.txt", (m_hostile + "/link-to-file").c_str()) == 0, "symlink");
        check(symlink("sub", (m_hostile + "/link-to-sub").c_str()) == 0, "symlink");
        check(mkdir((m_hostile + "/sub").c_str(), 0755) == 0, "mkdir sub");
        writeFile(m_hostile + "/sub/file", 10);
        check(symlink("..", (m_hostile + "/sub/loop").c_str()) == 0, "symlink");

        // 100,000 names in one folder.
        m_big = m_base + "/big";
        check(mkdir(m_big.c_str(), 0755) == 0, "mkdir " + m_big);
        const int bigFd = open(m_big.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        for (int i = 0; i < bigFolderFiles; ++i) {
            char name[32];
            snprintf(name, sizeof name, "f%06d", i);
            const int fd = openat(bigFd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            check(fd >= 0, std::string("create ") + name);
            close(fd);
        }
        close(bigFd);

        // 1,000 levels of folders, one file at the bottom.
        m_deep = m_base + "/deep";
        check(mkdir(m_deep.c_str(), 0755) == 0, "mkdir " + m_deep);
        int fd = open(m_deep.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        m_deepest = m_deep;
        for (int level = 0; level < nestingLevels; ++level) {
            check(mkdirat(fd, nestName, 0755) == 0, "mkdirat");
            const int next = openat(fd, nestName, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            check(next >= 0, "openat nest");
            close(fd);
            fd = next;
            m_deepest += std::string("/") + nestName;
        }
        const int bottom = openat(fd, "bottom", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        check(bottom >= 0 && write(bottom, "bottom\n", 7) == 7, "bottom file");
        close(bottom);
        close(fd);
        m_deepest += "/bottom";
    }

    void cleanupTestCase()
    {
        const int fd = open(m_base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            removeTreeAt(fd, "deep");
            removeTreeAt(fd, "big");
            close(fd);
        }
    }

    void kindNames()
    {
        QCOMPARE(kindName(EntryKind::File), "file");
        QCOMPARE(kindName(EntryKind::Fifo), "FIFO");
        QCOMPARE(kindName(EntryKind::Socket), "socket");
        QCOMPARE(kindName(EntryKind::CharDevice), "character device");
        WalkEntry entry;
        entry.directory = "/a/";
        entry.name = "b";
        QCOMPARE(entry.path(), std::string("/a/b"));
        entry.directory = "";
        entry.name = "root";
        QCOMPARE(entry.path(), std::string("root"));
    }

    void hostileTree_data()
    {
        QTest::addColumn<bool>("follow");
        QTest::addColumn<int>("action");
        QTest::newRow("residency") << false << int(FileAction::Residency);
        QTest::newRow("stat only") << false << int(FileAction::StatOnly);
        QTest::newRow("follow symlinks") << true << int(FileAction::Residency);
        QTest::newRow("one thread") << false << -1;
    }

    void hostileTree()
    {
        QFETCH(bool, follow);
        QFETCH(int, action);
        WalkOptions options;
        options.followSymlinks = follow;
        options.action = action < 0 ? FileAction::Residency : FileAction(action);
        options.threads = action < 0 ? 1 : 0;
        options.reportDirectories = true;

        // A FIFO with no writer blocks a plain open: a hang would show it was opened.
        TestUtil::OpenWatch watch;
        const std::string &h = m_hostile;
        QVERIFY(watch.watch(h + "/fifo"));
        QVERIFY(watch.watch(h + "/sock"));
        QVERIFY(watch.watch(h + "/regular.txt"));
        if (m_haveDevice) {
            QVERIFY(watch.watch(h + "/null"));
        }

        Walker walker(options);
        Collector seen;
        seen.attach(walker);
        const auto result = walkWithin60s(walker, {h});
        QVERIFY2(result, "the walk took more than 60 s");
        const WalkTotals &t = result->total;
        const QByteArray problems = seen.problemList();

        // Specials: reported as skipped, never opened.
        const std::set<std::string> opened = watch.opened();
        QVERIFY(!opened.count(h + "/fifo"));
        QVERIFY(!opened.count(h + "/sock"));
        QVERIFY(!opened.count(h + "/null"));
        // The watch works: the regular file was opened, unless the walk opens nothing.
        QCOMPARE(bool(opened.count(h + "/regular.txt")), options.action != FileAction::StatOnly);

        const WalkProblem *fifo = seen.problem(h + "/fifo");
        QVERIFY2(fifo, problems.constData());
        QVERIFY(fifo->skipped);
        QCOMPARE(fifo->kind, EntryKind::Fifo);
        QCOMPARE(fifo->reason, std::string("FIFO: skipped, never opened"));
        const WalkProblem *sock = seen.problem(h + "/sock");
        QVERIFY2(sock, problems.constData());
        QVERIFY(sock->skipped);
        QCOMPARE(sock->reason, std::string("socket: skipped, never opened"));
        if (m_haveDevice) {
            const WalkProblem *device = seen.problem(h + "/null");
            QVERIFY2(device, problems.constData());
            QCOMPARE(device->kind, EntryKind::CharDevice);
            QCOMPARE(device->reason, std::string("character device: skipped, never opened"));
        }

        // The rest, exactly.
        const uint64_t specials = m_haveDevice ? 3 : 2;
        QCOMPARE(t.files, uint64_t(8));
        QCOMPARE(t.bytes, 5000 + 3 + 5 + 1000 + 10 + oneTiB);
        QCOMPARE(t.directories, uint64_t(2));
        QCOMPARE(t.pages, pagesFor(5000) + 1 + 1 + pagesFor(1000) + 1 + pagesFor(oneTiB));
        QCOMPARE(result->perRoot.size(), size_t(1));
        QCOMPARE(result->perRoot[0].files, t.files);
        QVERIFY(!result->cancelled);

        // Names that are not UTF-8 come back byte for byte.
        QVERIFY(seen.entry(h + "/caf\xe9"));
        QVERIFY(seen.entry(h + "/\xff\xfe"));
        QCOMPARE(seen.entry(h + "/\xff\xfe")->size, uint64_t(5));

        // Hard links: both names seen, one counted.
        const SeenEntry *a = seen.entry(h + "/hard-a");
        const SeenEntry *b = seen.entry(h + "/hard-b");
        QVERIFY(a && b);
        QCOMPARE(int(a->firstLink) + int(b->firstLink), 1);

        const SeenEntry *sparse = seen.entry(h + "/sparse");
        QVERIFY(sparse);
        QCOMPARE(sparse->size, oneTiB);
        if (options.action != FileAction::StatOnly) {
            QVERIFY2(sparse->residency.ok(), sparse->residency.errorText.c_str());
            QCOMPARE(sparse->residency.resident, uint64_t(0));
            QCOMPARE(sparse->residency.pages, pagesFor(oneTiB));
            uint64_t resident = 0;
            for (const SeenEntry &e : seen.entries) {
                if (e.kind == EntryKind::File && e.firstLink) {
                    QVERIFY2(e.residency.known(), e.path.c_str());
                    resident += e.residency.resident;
                }
            }
            QCOMPARE(t.resident, resident);
        }
        QVERIFY(seen.entry(h + "/empty-1"));
        QCOMPARE(seen.entry(h + "/empty-1")->size, uint64_t(0));
        // Following, sub may have been walked as link-to-sub.
        const SeenEntry *sub = seen.entry(h + "/sub");
        const SeenEntry *subFile = seen.entry(h + "/sub/file");
        if (follow && !sub) {
            sub = seen.entry(h + "/link-to-sub");
            subFile = seen.entry(h + "/link-to-sub/file");
        }
        QVERIFY(sub && subFile);
        QCOMPARE(sub->kind, EntryKind::Directory);
        QCOMPARE(subFile->depth, 2);
        QCOMPARE(subFile->size, uint64_t(10));

        if (!follow) {
            // Symlinks are simply not followed: nothing counted, nothing wrong.
            QCOMPARE(t.hardLinks, uint64_t(1));
            QCOMPARE(t.skipped, specials);
            QCOMPARE(t.errors, uint64_t(0));
            QCOMPARE(seen.problems.size(), size_t(specials));
            QVERIFY(!seen.entry(h + "/link-to-file"));
            QVERIFY(!seen.entry(h + "/sub/loop"));
            return;
        }

        // Following: loops and dangling links are errors, each named.
        for (const char *name : {"/loop-a", "/loop-b"}) {
            const WalkProblem *p = seen.problem(h + name);
            QVERIFY2(p, problems.constData());
            QCOMPARE(p->error, ELOOP);
            QVERIFY2(p->reason.find("symlink loop") != std::string::npos, p->reason.c_str());
        }
        const WalkProblem *dangling = seen.problem(h + "/dangling");
        QVERIFY2(dangling, problems.constData());
        QCOMPARE(dangling->error, ENOENT);
        QVERIFY2(dangling->reason.find("dangling") != std::string::npos, dangling->reason.c_str());
        // sub/loop -> .. is found through whichever of sub and link-to-sub was walked.
        const WalkProblem *loop = seen.problem(h + "/sub/loop");
        if (!loop) {
            loop = seen.problem(h + "/link-to-sub/loop");
        }
        QVERIFY2(loop, problems.constData());
        QCOMPARE(loop->error, ELOOP);
        QCOMPARE(loop->reason, std::string("symlink loop: already visited"));
        // The other name of sub is not walked twice.
        QVERIFY2(bool(seen.problem(h + "/sub")) != bool(seen.problem(h + "/link-to-sub")), problems.constData());
        QCOMPARE(t.errors, uint64_t(4));
        QCOMPARE(t.skipped, specials + 1);
        // link-to-file names regular.txt again: counted once, like a hard link.
        QCOMPARE(t.hardLinks, uint64_t(2));
        QVERIFY(seen.entry(h + "/link-to-file"));
    }

    void rootsThatAreNotFolders()
    {
        Walker walker;
        Collector seen;
        seen.attach(walker);
        const std::string missing = m_base + "/does-not-exist";
        const auto result = walkWithin60s(walker, {m_hostile + "/regular.txt", m_hostile + "/fifo", missing, m_hostile + "/sub"});
        QVERIFY(result);
        QCOMPARE(result->perRoot.size(), size_t(4));
        QCOMPARE(result->perRoot[0].files, uint64_t(1));
        QCOMPARE(result->perRoot[0].bytes, uint64_t(5000));
        QCOMPARE(result->perRoot[1].skipped, uint64_t(1));
        QCOMPARE(result->perRoot[1].files, uint64_t(0));
        QCOMPARE(result->perRoot[2].errors, uint64_t(1));
        QCOMPARE(result->perRoot[3].files, uint64_t(1));
        QCOMPARE(result->perRoot[3].directories, uint64_t(1));
        QCOMPARE(result->total.files, uint64_t(2));
        QCOMPARE(result->total.bytes, uint64_t(5010));

        const SeenEntry *file = seen.entry(m_hostile + "/regular.txt");
        QVERIFY(file);
        QCOMPARE(file->depth, 0);
        const WalkProblem *fifo = seen.problem(m_hostile + "/fifo");
        QVERIFY(fifo);
        QVERIFY(fifo->skipped);
        QCOMPARE(fifo->root, 1);
        const WalkProblem *gone = seen.problem(missing);
        QVERIFY2(gone, seen.problemList().constData());
        QCOMPARE(gone->error, ENOENT);
        QCOMPARE(gone->root, 2);
        QCOMPARE(gone->reason, std::string("No such file or directory"));
    }

    void bigFolder()
    {
        Walker walker;
        Collector seen;
        seen.keepEntries = false;
        std::atomic<uint64_t> streamed{0};
        seen.onEntry = [&](const WalkEntry &) {
            streamed.fetch_add(1);
        };
        seen.attach(walker);
        const auto result = walkWithin60s(walker, {m_big});
        QVERIFY(result);
        QCOMPARE(result->total.files, uint64_t(bigFolderFiles));
        QCOMPARE(result->total.directories, uint64_t(1));
        QCOMPARE(result->total.errors, uint64_t(0));
        QCOMPARE(streamed.load(), uint64_t(bigFolderFiles));
        QCOMPARE(walker.entriesSeen(), uint64_t(bigFolderFiles));
        QVERIFY(!result->cancelled);
    }

    void rootReplacedWhileWalking_data()
    {
        QTest::addColumn<int>("threads");
        QTest::newRow("a descriptor table a thread") << 2;
        QTest::newRow("one thread, the process's table") << 1;
    }

    void rootReplacedWhileWalking()
    {
        // With two threads each has a descriptor table of its own, and a
        // subfolder is opened by its path below the root: a root replaced
        // after it was listed is reported for each subfolder, and nothing of
        // the new folder is walked in its place. One thread opens
        // subfolders through the listed root's descriptor: the old tree.
        QFETCH(int, threads);
        const std::string root = m_base + "/replaced";
        const std::string moved = root + ".old";
        // A row that failed may have left them.
        removeTreeAt(AT_FDCWD, moved.c_str());
        removeTreeAt(AT_FDCWD, root.c_str());
        for (const std::string &dir : {root, root + "/a", root + "/b"}) {
            check(mkdir(dir.c_str(), 0755) == 0, "mkdir " + dir);
        }
        writeFile(root + "/a/inside", 4096);
        writeFile(root + "/file", 4096);
        WalkOptions options;
        options.threads = threads;
        Walker walker(options);
        Collector seen;
        std::atomic<bool> swapped{false};
        seen.onEntry = [&](const WalkEntry &entry) {
            // Files come while the root is listed; its subfolders are handed
            // out after the listing, so none is open yet.
            if (entry.name == "file" && !swapped.exchange(true)) {
                check(rename(root.c_str(), moved.c_str()) == 0, "rename " + root);
                check(mkdir(root.c_str(), 0755) == 0 && mkdir((root + "/a").c_str(), 0755) == 0, "mkdir " + root);
                writeFile(root + "/a/impostor", 4096);
            }
        };
        seen.attach(walker);
        const auto result = walkWithin60s(walker, {root});
        QVERIFY(result);
        QVERIFY(swapped);
        QVERIFY(!seen.entry(root + "/a/impostor"));
        if (threads > 1) {
            QVERIFY2(!seen.entry(root + "/a/inside"), seen.problemList().constData());
            for (const char *sub : {"/a", "/b"}) {
                const WalkProblem *problem = seen.problem(root + sub);
                QVERIFY2(problem, seen.problemList().constData());
                QCOMPARE(problem->reason, std::string("the walk's root was replaced while walking: not walked"));
            }
            QCOMPARE(result->total.errors, uint64_t(2));
        } else {
            QVERIFY2(seen.entry(root + "/a/inside"), seen.problemList().constData());
            QCOMPARE(result->total.errors, uint64_t(0));
        }
        removeTreeAt(AT_FDCWD, moved.c_str());
        removeTreeAt(AT_FDCWD, root.c_str());
    }

    void cancelFromCallback()
    {
        Walker walker;
        Collector seen;
        seen.keepEntries = false;
        std::atomic<int> count{0};
        seen.onEntry = [&](const WalkEntry &) {
            if (count.fetch_add(1) == 1000) {
                walker.cancel();
            }
        };
        seen.attach(walker);
        const auto result = walkWithin60s(walker, {m_big});
        QVERIFY(result);
        QVERIFY(result->cancelled);
        QVERIFY(walker.isCancelled());
        QVERIFY2(result->total.files < uint64_t(bigFolderFiles / 2), QByteArray::number(qulonglong(result->total.files)).constData());
        QVERIFY(result->total.files >= 1000);
    }

    void cancelFromAnotherThread()
    {
        // Slow down each entry a little so that the walk surely outlives the cancel.
        Walker walker;
        walker.setEntryCallback([](const WalkEntry &) {
            std::this_thread::sleep_for(10us);
        });
        auto future = std::async(std::launch::async, [&walker, this] {
            return walker.walk({m_big, m_deep});
        });
        QTRY_VERIFY_WITH_TIMEOUT(walker.entriesSeen() >= 1000 || future.wait_for(0s) == std::future_status::ready, 30000);
        walker.cancel();
        QVERIFY2(future.wait_for(10s) == std::future_status::ready, "the walk did not stop after cancel()");
        const WalkResult result = future.get();
        QVERIFY(result.cancelled);
        QVERIFY(result.total.files < uint64_t(bigFolderFiles));
        // A new walk on the same Walker starts afresh.
        const auto again = walkWithin60s(walker, {m_hostile + "/sub"});
        QVERIFY(again);
        QVERIFY(!again->cancelled);
        QCOMPARE(again->total.files, uint64_t(1));
    }

    void deepNesting()
    {
        WalkOptions options;
        options.action = FileAction::Residency;
        Walker walker(options);
        Collector seen;
        seen.attach(walker);
        const auto result = walkWithin60s(walker, {m_deep});
        QVERIFY(result);
        QVERIFY2(seen.problems.empty(), seen.problemList().left(2000).constData());
        QCOMPARE(result->total.directories, uint64_t(nestingLevels + 1));
        QCOMPARE(result->total.files, uint64_t(1));
        QCOMPARE(result->total.bytes, uint64_t(7));
        QCOMPARE(seen.entries.size(), size_t(1));
        QVERIFY(m_deepest.size() > PATH_MAX);
        QCOMPARE(seen.entries[0].path, m_deepest);
        QCOMPARE(seen.entries[0].depth, nestingLevels + 1);
    }

    void walkLeavesTheProcessLimitsAlone()
    {
        // A library call must not change process-wide limits: the programs'
        // main() decide them. Lower the soft limit, walk, and look again.
        struct rlimit saved;
        QVERIFY(getrlimit(RLIMIT_NOFILE, &saved) == 0);
        struct rlimit lowered = saved;
        lowered.rlim_cur = std::min<rlim_t>(saved.rlim_max, 256);
        QVERIFY(setrlimit(RLIMIT_NOFILE, &lowered) == 0);
        Walker walker;
        const std::optional<WalkResult> result = walkWithin60s(walker, {m_deep});
        struct rlimit after;
        QVERIFY(getrlimit(RLIMIT_NOFILE, &after) == 0);
        QVERIFY(setrlimit(RLIMIT_NOFILE, &saved) == 0);
        QVERIFY(result.has_value());
        QCOMPARE(result->total.directories, uint64_t(nestingLevels + 1));
        QCOMPARE(after.rlim_cur, lowered.rlim_cur);
        QCOMPARE(after.rlim_max, lowered.rlim_max);
    }

    void deepNestingWithFewDescriptors()
    {
        // 1,000 levels with a hard limit of 64 descriptors: open folders must
        // stay bounded, whatever the depth.
        const ChildWalk child = walkInChild(m_deep, [] {
            struct rlimit limit{64, 64};
            return setrlimit(RLIMIT_NOFILE, &limit) == 0;
        });
        QVERIFY2(child.ok, child.failure.constData());
        QVERIFY2(child.problems.empty(), child.problems.empty() ? "" : child.problems.front().second.c_str());
        QCOMPARE(child.total.directories, uint64_t(nestingLevels + 1));
        QCOMPARE(child.total.files, uint64_t(1));
    }

    // Files' descriptors are closed a batch at a time (a run of consecutive
    // numbers with one close_range): 100,000 files with a limit of 32
    // descriptors, so the batch meets the limit again and again.
    void bigFolderWithFewDescriptors()
    {
        const ChildWalk child = walkInChild(m_big, [] {
            struct rlimit limit{32, 32};
            return setrlimit(RLIMIT_NOFILE, &limit) == 0;
        });
        QVERIFY2(child.ok, child.failure.constData());
        QVERIFY2(child.problems.empty(), child.problems.empty() ? "" : child.problems.front().second.c_str());
        QCOMPARE(child.total.files, uint64_t(bigFolderFiles));
        QCOMPARE(child.total.errors, uint64_t(0));
    }

    // The batch closes only its own descriptors: a callback's, opened
    // between the files' on the walk's thread (one thread: the process's
    // table) after every seventh file, so that runs of the walk's own
    // numbers end next to them, stay open, and the walk leaves no
    // descriptor of its own.
    void theWalkClosesOnlyItsOwnDescriptors()
    {
        const std::string folder = m_base + "/descriptors";
        QVERIFY(mkdir(folder.c_str(), 0755) == 0 || errno == EEXIST);
        for (int i = 0; i < 150; ++i) {
            writeFile(folder + "/f" + std::to_string(i), 10);
        }
        const auto openCount = [] {
            return std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator());
        };
        struct stat null{};
        QVERIFY(stat("/dev/null", &null) == 0);
        const auto before = openCount();
        WalkOptions options;
        options.threads = 1;
        Walker walker(options);
        std::vector<int> kept;
        int files = 0;
        walker.setEntryCallback([&kept, &files](const WalkEntry &) {
            if (++files % 7 == 0) {
                kept.push_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
            }
        });
        const std::optional<WalkResult> result = walkWithin60s(walker, {folder});
        QVERIFY(result);
        QCOMPARE(result->total.files, uint64_t(150));
        QCOMPARE(kept.size(), size_t(150 / 7));
        for (const int fd : kept) {
            struct stat st{};
            QVERIFY2(fstat(fd, &st) == 0 && st.st_rdev == null.st_rdev, qPrintable(QStringLiteral("descriptor %1 of the callback").arg(fd)));
            close(fd);
        }
        QCOMPARE(openCount(), before);
    }

    void filesVanishAndShrinkDuringTheWalk()
    {
        const std::string race = m_base + "/race";
        removeTreeAt(AT_FDCWD, race.c_str());
        QVERIFY(mkdir(race.c_str(), 0755) == 0);
        constexpr int victims = 10;
        for (int i = 0; i < victims; ++i) {
            writeFile(race + "/victim-" + std::to_string(i), 100);
        }
        writeFile(race + "/shrink", 4096);

        // The folder is listed in one go; the first entry's callback then
        // deletes and truncates the others before they are opened.
        Walker walker;
        Collector seen;
        std::atomic<bool> first{true};
        std::string firstName;
        bool truncated = false;
        seen.onEntry = [&](const WalkEntry &entry) {
            if (entry.kind != EntryKind::File || !first.exchange(false)) {
                return;
            }
            firstName = std::string(entry.name);
            for (int i = 0; i < victims; ++i) {
                const std::string name = "victim-" + std::to_string(i);
                if (name != firstName) {
                    unlink((race + "/" + name).c_str());
                }
            }
            if (firstName != "shrink") {
                truncated = truncate((race + "/shrink").c_str(), 0) == 0;
            }
        };
        seen.attach(walker);
        const auto result = walkWithin60s(walker, {race});
        QVERIFY(result);
        const int vanished = firstName == "shrink" ? victims : victims - 1;
        QCOMPARE(int(seen.problems.size()), vanished);
        for (const WalkProblem &p : seen.problems) {
            QCOMPARE(p.error, ENOENT);
            QVERIFY2(p.reason.find("vanished") != std::string::npos, p.reason.c_str());
            QVERIFY2(p.path.rfind(race + "/victim-", 0) == 0, p.path.c_str());
        }
        QCOMPARE(result->total.errors, uint64_t(vanished));
        QCOMPARE(result->total.files, uint64_t(victims + 1 - vanished));
        if (firstName != "shrink") {
            QVERIFY(truncated);
            const SeenEntry *shrunk = seen.entry(race + "/shrink");
            QVERIFY(shrunk);
            QCOMPARE(shrunk->size, uint64_t(0));
        }
    }

    void unreadableEntries()
    {
        const std::string perm = m_base + "/perm";
        removeTreeAt(AT_FDCWD, perm.c_str());
        QVERIFY(mkdir(perm.c_str(), 0755) == 0);
        writeFile(perm + "/readable", 100, 0644);
        writeFile(perm + "/secret-file", 100, 0644);
        QVERIFY(mkdir((perm + "/secret-dir").c_str(), 0755) == 0);
        writeFile(perm + "/secret-dir/inside", 100);
        QVERIFY(chmod((perm + "/secret-file").c_str(), 0) == 0);
        QVERIFY(chmod((perm + "/secret-dir").c_str(), 0) == 0);

        // Root reads everything: do it as the unprivileged test user.
        std::function<bool()> dropPrivileges = [] {
            return true;
        };
        if (TestUtil::isRoot()) {
            const auto uid = TestUtil::testUserUid();
            if (!uid) {
                QSKIP("running as root without the unprivileged test user");
            }
            const uid_t user = *uid;
            dropPrivileges = [user] {
                return TestUtil::becomeUser(user);
            };
        }
        const ChildWalk child = walkInChild(perm, dropPrivileges);
        QVERIFY2(child.ok, child.failure.constData());
        QCOMPARE(child.problems.size(), size_t(2));
        std::map<std::string, std::pair<int, std::string>> byPath;
        for (size_t i = 0; i < child.problems.size(); ++i) {
            byPath[child.problems[i].first] = {child.errors[i], child.problems[i].second};
        }
        QVERIFY(byPath.count(perm + "/secret-file"));
        QVERIFY(byPath.count(perm + "/secret-dir"));
        QCOMPARE(byPath[perm + "/secret-file"].first, EACCES);
        QCOMPARE(byPath[perm + "/secret-file"].second, std::string("Permission denied"));
        QCOMPARE(byPath[perm + "/secret-dir"].first, EACCES);
        QCOMPARE(child.total.errors, uint64_t(2));
        QCOMPARE(child.total.files, uint64_t(1));
        QCOMPARE(child.total.bytes, uint64_t(100));
        QCOMPARE(child.total.directories, uint64_t(1));
        if (TestUtil::isRoot()) {
            // Not the user's file and not writable by them: the kernel would lie, so hidden.
            QCOMPARE(child.total.hiddenFiles, uint64_t(1));
        }
    }

    void oneFileSystem()
    {
        // /dev has other filesystems mounted in it (devpts, tmpfs on /dev/shm).
        struct stat dev;
        struct stat pts;
        if (stat("/dev", &dev) != 0 || stat("/dev/pts", &pts) != 0 || dev.st_dev == pts.st_dev) {
            QSKIP("/dev/pts is not a mount point here");
        }
        for (const bool oneFs : {true, false}) {
            WalkOptions options;
            options.oneFileSystem = oneFs;
            options.action = FileAction::StatOnly;
            options.reportDirectories = true;
            Walker walker(options);
            Collector seen;
            seen.attach(walker);
            const auto result = walkWithin60s(walker, {"/dev"});
            QVERIFY(result);
            QCOMPARE(seen.sawBelow("/dev/pts/"), !oneFs);
            // Real devices: skipped and reported.
            const WalkProblem *null = seen.problem("/dev/null");
            QVERIFY(null);
            QVERIFY(null->skipped);
            QCOMPARE(null->kind, EntryKind::CharDevice);
        }
    }

    void foldersWithoutPageCacheAreNotEntered_data()
    {
        QTest::addColumn<QString>("root"); // "@": a scratch folder with a symlink pts to /dev/pts
        QTest::addColumn<bool>("follow"); // WalkOptions::followSymlinks
        QTest::addColumn<bool>("skip"); // WalkOptions::skipNoPageCache
        QTest::addColumn<bool>("entered"); // whether anything in /dev/pts was seen
        QTest::newRow("skipped below the root") << QStringLiteral("/dev") << false << true << false;
        QTest::newRow("walked when not skipped") << QStringLiteral("/dev") << false << false << true;
        QTest::newRow("a root on one is walked") << QStringLiteral("/dev/pts") << false << true << true;
        QTest::newRow("skipped through a symlink") << QStringLiteral("@") << true << true << false;
        QTest::newRow("walked through a symlink") << QStringLiteral("@") << true << false << true;
    }

    // devpts keeps no page cache: below /dev (or through a symlink followed)
    // it is named as a folder, once, and counted as not entered, and nothing
    // in it is listed.
    void foldersWithoutPageCacheAreNotEntered()
    {
        QFETCH(QString, root);
        QFETCH(bool, follow);
        QFETCH(bool, skip);
        QFETCH(bool, entered);
        if (!TestUtil::devptsWithPtmx()) {
            QSKIP("/dev/pts is not a devpts with its ptmx here");
        }
        std::string rootPath = root.toStdString();
        std::string pts = "/dev/pts";
        if (root == QLatin1String("@")) {
            rootPath = m_base + "/to-pts";
            pts = rootPath + "/pts";
            std::filesystem::remove_all(rootPath);
            QCOMPARE(mkdir(rootPath.c_str(), 0755), 0);
            QCOMPARE(symlink("/dev/pts", pts.c_str()), 0);
        }
        WalkOptions options;
        options.followSymlinks = follow;
        options.skipNoPageCache = skip;
        options.reportDirectories = true;
        options.folderTotals = true;
        Walker walker(options);
        Collector seen;
        seen.attach(walker);
        std::mutex mutex;
        int opened = 0;
        int listed = 0;
        bool markedNotWalked = false;
        walker.setFolderCallback([&](const WalkFolder &folder) {
            if (folder.path == pts) {
                std::lock_guard lock(mutex);
                ++(folder.listed ? listed : opened);
                markedNotWalked = markedNotWalked || folder.noPageCache;
            }
        });
        const auto result = walkWithin60s(walker, {rootPath});
        QVERIFY(result);
        QCOMPARE(seen.sawBelow(pts + "/"), entered);
        const bool notEntered = rootPath != "/dev/pts" && skip;
        // /dev may hold more such mounts (mqueue); the scratch folder only this one.
        QCOMPARE(result->total.foldersNotEntered >= 1, notEntered);
        QVERIFY(root != QLatin1String("@") || result->total.foldersNotEntered <= 1);
        // Named either way, and counted as a folder; listed only when entered.
        QVERIFY(seen.entry(pts));
        QCOMPARE(opened, 1);
        QCOMPARE(listed, notEntered ? 0 : 1);
        QCOMPARE(markedNotWalked, notEntered);
    }

    void filesWithoutPageCacheAreNeverOpened_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<qlonglong>("fileSystem"); // statfs's f_type
        QTest::addColumn<FileAction>("action");
        QTest::newRow("procfs, residency") << QStringLiteral("/proc/sys/user") << qlonglong(0x9fa0) << FileAction::Residency;
        QTest::newRow("procfs, load") << QStringLiteral("/proc/sys/user") << qlonglong(0x9fa0) << FileAction::Load;
        QTest::newRow("sysfs, residency") << QStringLiteral("/sys/kernel/mm/transparent_hugepage") << qlonglong(0x62656572) << FileAction::Residency;
        QTest::newRow("sysfs, load") << QStringLiteral("/sys/kernel/mm/transparent_hugepage") << qlonglong(0x62656572) << FileAction::Load;
        QTest::newRow("sysfs, evict") << QStringLiteral("/sys/kernel/mm/transparent_hugepage") << qlonglong(0x62656572) << FileAction::Evict;
        QTest::newRow("cgroup v1, residency") << QStringLiteral("/sys/fs/cgroup/pids") << qlonglong(0x27e0eb) << FileAction::Residency;
        QTest::newRow("cgroup v2, residency") << QStringLiteral("/sys/fs/cgroup") << qlonglong(0x63677270) << FileAction::Residency;
    }

    // Files of proc, sysfs, cgroup and the like never hold page cache: the
    // walk counts them from a stat and opens none (opening some of them has
    // effects, and on a desktop they are a good part of /).
    void filesWithoutPageCacheAreNeverOpened()
    {
        QFETCH(QString, folder);
        QFETCH(qlonglong, fileSystem);
        QFETCH(FileAction, action);
        const std::string path = folder.toStdString();
        struct statfs fs;
        if (statfs(path.c_str(), &fs) != 0 || qlonglong(fs.f_type) != fileSystem) {
            QSKIP(qPrintable(folder + QStringLiteral(" is not that file system here")));
        }
        TestUtil::OpenWatch watch;
        QVERIFY(watch.watch(path));
        WalkOptions options;
        options.action = action;
        Walker walker(options);
        Collector seen;
        seen.attach(walker);
        const auto result = walkWithin60s(walker, {path});
        QVERIFY(result);
        QVERIFY(result->total.files > 0);
        QCOMPARE(result->total.noPageCache, result->total.files);
        QCOMPARE(result->total.resident, uint64_t(0));
        // Their sizes are the kernel's figures, not data: in no size or pages.
        QCOMPARE(result->total.bytes, uint64_t(0));
        QCOMPARE(result->total.pages, uint64_t(0));
        QCOMPARE(result->method, ResidencyMethod::NoPageCache);
        for (const SeenEntry &e : seen.entries) {
            if (e.kind == EntryKind::File) {
                QCOMPARE(e.residency.method, ResidencyMethod::NoPageCache);
                QCOMPARE(e.residency.pages, uint64_t(0));
                QCOMPARE(e.residency.sizeBytes, e.size);
                QVERIFY(e.residency.known());
                // Nothing evicted, nothing read, no failure.
                QCOMPARE(e.load.bytesDone, uint64_t(0));
                QCOMPARE(e.load.after, uint64_t(0));
                QCOMPARE(e.load.error, 0);
                QCOMPARE(e.evict.after, uint64_t(0));
                QCOMPARE(e.evict.error, 0);
            }
        }
        QCOMPARE(result->total.errors, uint64_t(0));
        QCOMPARE(result->total.residentAfter, uint64_t(0));
        std::set<std::string> openedFiles;
        const std::set<std::string> opened = watch.opened();
        // The watch works: it saw the folder opened to be listed, and lost nothing.
        QVERIFY(!watch.overflowed());
        QVERIFY(opened.count(path) == 1);
        for (const std::string &name : opened) {
            if (name != path) {
                openedFiles.insert(name);
            }
        }
        const std::string openedText =
            openedFiles.empty() ? std::string() : std::to_string(openedFiles.size()) + " files opened, the first " + *openedFiles.begin();
        QVERIFY2(openedFiles.empty(), openedText.c_str());
    }

    // A file named on its own (or reached through a symlink) is opened, as
    // the user asked for it, and then left alone all the same.
    void namedFileWithoutPageCacheIsLeftAlone()
    {
        const std::string path = "/proc/sys/vm/swappiness";
        struct statfs fs;
        if (statfs(path.c_str(), &fs) != 0 || fs.f_type != 0x9fa0) {
            QSKIP("no procfs at /proc here");
        }
        WalkOptions options;
        options.action = FileAction::Load;
        Walker walker(options);
        Collector seen;
        seen.attach(walker);
        const auto result = walkWithin60s(walker, {path});
        QVERIFY(result);
        QVERIFY2(seen.problems.empty(), seen.problemList().constData());
        QCOMPARE(result->total.files, uint64_t(1));
        QCOMPARE(result->total.noPageCache, uint64_t(1));
        const SeenEntry *entry = seen.entry(path);
        QVERIFY(entry);
        QCOMPARE(entry->residency.method, ResidencyMethod::NoPageCache);
        QCOMPARE(entry->load.bytesDone, uint64_t(0));
    }

    // tmpfs keeps its files in the page cache: they are still read (a
    // wrong entry in the list of file systems without one would show here).
    void memoryFileSystemIsStillRead()
    {
        const std::string shm = "/dev/shm";
        struct statfs fs;
        if (statfs(shm.c_str(), &fs) != 0 || fs.f_type != 0x01021994) {
            QSKIP("no tmpfs at /dev/shm here");
        }
        const std::string dir = shm + "/cachescope-walkertest-" + std::to_string(getpid());
        removeTreeAt(AT_FDCWD, dir.c_str());
        QVERIFY(mkdir(dir.c_str(), 0700) == 0);
        const auto cleanup = qScopeGuard([&dir] {
            removeTreeAt(AT_FDCWD, dir.c_str());
        });
        const uint64_t page = pageSize();
        {
            const UniqueFd fd(open((dir + "/in-memory").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
            QVERIFY(fd);
            const std::string data(size_t(32 * page), 'x');
            QCOMPARE(write(fd.get(), data.data(), data.size()), ssize_t(data.size()));
        }
        TestUtil::OpenWatch watch;
        QVERIFY(watch.watch(dir));
        Walker walker;
        const auto result = walkWithin60s(walker, {dir});
        QVERIFY(result);
        QCOMPARE(result->total.files, uint64_t(1));
        QCOMPARE(result->total.noPageCache, uint64_t(0));
        // Resident right after the write (with swap on, pressure could move some out).
        QVERIFY(result->total.resident > 0);
        QVERIFY(result->method == ResidencyMethod::Cachestat || result->method == ResidencyMethod::Mincore);
        QVERIFY(watch.opened().count(dir + "/in-memory") == 1);
    }

    void residencyOfEachFile()
    {
        const std::string dir = m_base + "/residency";
        removeTreeAt(AT_FDCWD, dir.c_str());
        QVERIFY(mkdir(dir.c_str(), 0755) == 0);
        const std::string warm = dir + "/warm";
        const uint64_t page = pageSize();
        TestUtil::makeColdFile(warm, 256 * page);
        TestUtil::makeColdFile(dir + "/cold", 64 * page);
        // Held mapped: an idle unmapped page may be paged out at any moment.
        const TestUtil::HeldPages held(warm, 0, 16 * page);

        WalkOptions options;
        options.histogramBuckets = 4;
        Walker walker(options);
        Collector seen;
        seen.attach(walker);
        const auto result = walkWithin60s(walker, {dir, warm});
        QVERIFY(result);
        QVERIFY2(seen.problems.empty(), seen.problemList().constData());
        const SeenEntry *entry = seen.entry(warm);
        QVERIFY(entry);
        QVERIFY2(entry->residency.known(), entry->residency.errorText.c_str());
        QCOMPARE(entry->residency.resident, uint64_t(16));
        QCOMPARE(entry->residency.pages, uint64_t(256));
        QCOMPARE(entry->histogram.buckets(), 4);
        QCOMPARE(entry->histogram.resident[0], uint64_t(16));
        QCOMPARE(entry->histogram.resident[1] + entry->histogram.resident[2] + entry->histogram.resident[3], uint64_t(0));
        QCOMPARE(seen.entry(dir + "/cold")->residency.resident, uint64_t(0));
        QCOMPARE(result->perRoot[0].resident, uint64_t(16));
        QCOMPARE(result->perRoot[0].pages, uint64_t(256 + 64));
        QCOMPARE(result->perRoot[1].resident, uint64_t(16));
        QCOMPARE(result->perRoot[1].files, uint64_t(1));
        QCOMPARE(result->total.resident, uint64_t(32));
        QVERIFY(result->method != ResidencyMethod::None);
    }

    void evictAndLoad()
    {
        const std::string dir = m_base + "/evictload";
        removeTreeAt(AT_FDCWD, dir.c_str());
        QVERIFY(mkdir(dir.c_str(), 0755) == 0);
        const uint64_t page = pageSize();
        TestUtil::makeColdFile(dir + "/a", 64 * page);
        TestUtil::makeColdFile(dir + "/b", 32 * page);
        TestUtil::readRange(dir + "/a", 0, 8 * page);

        {
            WalkOptions options;
            options.action = FileAction::Evict;
            Walker walker(options);
            Collector seen;
            seen.attach(walker);
            const auto result = walkWithin60s(walker, {dir});
            QVERIFY(result);
            QVERIFY2(seen.problems.empty(), seen.problemList().constData());
            QCOMPARE(result->total.resident, uint64_t(8));
            QCOMPARE(result->total.residentAfter, uint64_t(0));
            QCOMPARE(result->total.remained, uint64_t(0));
            QCOMPARE(seen.entry(dir + "/a")->evict.before, uint64_t(8));
        }
        {
            WalkOptions options;
            options.action = FileAction::Load;
            Walker walker(options);
            Collector seen;
            seen.attach(walker);
            const auto result = walkWithin60s(walker, {dir});
            QVERIFY(result);
            QVERIFY2(seen.problems.empty(), seen.problemList().constData());
            QCOMPARE(result->total.resident, uint64_t(0));
            QCOMPARE(result->total.residentAfter, uint64_t(96));
            QCOMPARE(seen.entry(dir + "/b")->load.after, uint64_t(32));
        }
        {
            // Pages a process maps stay: the walk says so, and why.
            const int fd = open((dir + "/a").c_str(), O_RDONLY | O_CLOEXEC);
            QVERIFY(fd >= 0);
            void *map = mmap(nullptr, 64 * page, PROT_READ, MAP_SHARED, fd, 0);
            close(fd);
            QVERIFY(map != MAP_FAILED);
            volatile char sum = 0;
            for (uint64_t i = 0; i < 4; ++i) {
                sum = sum + static_cast<const char *>(map)[i * page];
            }
            WalkOptions options;
            options.action = FileAction::Evict;
            Walker walker(options);
            Collector seen;
            seen.attach(walker);
            const auto result = walkWithin60s(walker, {dir});
            munmap(map, 64 * page);
            QVERIFY(result);
            QCOMPARE(result->total.remained, uint64_t(1));
            QVERIFY(result->total.residentAfter >= 4);
            const SeenEntry *mapped = seen.entry(dir + "/a");
            QVERIFY(mapped);
            QVERIFY(mapped->evict.after >= 4);
            QCOMPARE(int(mapped->evict.reason), int(RemainReason::Mapped));
            QCOMPARE(seen.entry(dir + "/b")->evict.after, uint64_t(0));
        }
        TestUtil::evictRaw(dir + "/a");
        TestUtil::evictRaw(dir + "/b");
    }
};

QTEST_GUILESS_MAIN(WalkerTest)
#include "walkertest.moc"
