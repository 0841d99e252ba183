// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The account of the page cache on the real kernel: each part the kernel has
// (a deleted file held open, one only mapped, a tmpfs, a memfd, a System V
// segment, an anonymous shared mapping, a folder a mount covers, a mount of
// another mount namespace) made by the test and found with its size within
// two pages; hidden from another user; the parsers on lines from the kernel;
// cachescope-cli account's JSON adding up to Cached.

#include "account.h"
#include "residency.h"

#include "testutil.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <mutex>

using namespace Cachescope;

namespace
{

constexpr uint64_t MiB = 1024 * 1024;

// A child that sets something up (in the child, after fork: system calls
// only), says it is ready and waits to be killed at the end of its scope.
class Holder
{
public:
    explicit Holder(const std::function<bool()> &setUp)
    {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) {
            return;
        }
        m_pid = fork();
        if (m_pid == 0) {
            close(fds[0]);
            const char answer = setUp() ? 'r' : 'f';
            (void)!write(fds[1], &answer, 1);
            for (;;) {
                pause();
            }
        }
        close(fds[1]);
        pollfd ready = {fds[0], POLLIN, 0};
        char answer = 0;
        m_ready = poll(&ready, 1, 20000) == 1 && read(fds[0], &answer, 1) == 1 && answer == 'r';
        close(fds[0]);
    }
    ~Holder()
    {
        if (m_pid > 0) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
    }
    Holder(const Holder &) = delete;
    Holder &operator=(const Holder &) = delete;
    [[nodiscard]] bool ready() const
    {
        return m_ready;
    }
    [[nodiscard]] pid_t pid() const
    {
        return m_pid;
    }

private:
    pid_t m_pid = -1;
    bool m_ready = false;
};

// Maps the whole file shared and touches every page, so that its pages stay
// in the cache while mapped (these machines page out idle unmapped pages).
bool mapAndTouch(int fd, uint64_t size)
{
    void *memory = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (memory == MAP_FAILED) {
        return false;
    }
    volatile const char *bytes = static_cast<const char *>(memory);
    for (uint64_t offset = 0; offset < size; offset += pageSize()) {
        (void)bytes[offset];
    }
    return true;
}

bool writeBytes(int fd, uint64_t size)
{
    static char block[65536];
    memset(block, 'a', sizeof block);
    for (uint64_t done = 0; done < size;) {
        const ssize_t n = write(fd, block, std::min<uint64_t>(sizeof block, size - done));
        if (n <= 0) {
            return false;
        }
        done += uint64_t(n);
    }
    return true;
}

const AccountPart *partOf(const CacheAccount &account, AccountKind kind, const std::function<bool(const AccountPart &)> &match)
{
    for (const AccountPart &part : account.parts) {
        if (part.kind == kind && match(part)) {
            return &part;
        }
    }
    return nullptr;
}

bool heldBy(const AccountPart &part, pid_t pid)
{
    return std::any_of(part.processes.begin(), part.processes.end(), [pid](const AccountProcess &process) {
        return process.pid == pid;
    });
}

QString describe(const CacheAccount &account)
{
    QString text;
    for (const AccountPart &part : account.parts) {
        text += QStringLiteral("\n  %1 %2 %3 %4 bytes%5")
                    .arg(QString::fromLatin1(accountKindName(part.kind)), QString::fromStdString(part.path), QString::fromStdString(part.name))
                    .arg(part.bytes)
                    .arg(part.hidden ? QStringLiteral(" hidden: ") + QString::fromStdString(part.hiddenReason) : QString());
    }
    return text;
}

// Within two pages of what the test made resident.
bool nearly(uint64_t bytes, uint64_t expected)
{
    const uint64_t slack = 2 * pageSize();
    return bytes + slack >= expected && bytes <= expected + slack;
}

} // namespace

class AccountTest : public QObject
{
    Q_OBJECT

private:
    std::string m_scratch;

    [[nodiscard]] CacheAccount accountOf(const std::string &root)
    {
        AccountOptions options;
        options.root = root;
        options.threads = 2;
        options.buffers = false;
        return accountCache(options);
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_scratch = TestUtil::scratchDir("accounttest");
    }

    void parsesSysvShm()
    {
        // /proc/sysvipc/shm of Linux 6.x (the key is printed signed).
        const std::string text =
            "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   "
            "rss "
            "                 swap\n"
            "         0         32  1600                524288  2177  2345      2  1000  1000  1000  1000 1732700000 1732700001 1732690000               "
            "  245760                    0\n"
            " -16777216          5   600               4194304   901   901      1     0     0     0     0          0          0 1732690000               "
            " 4194304                 8192\n";
        const std::vector<SysvShmSegment> segments = parseSysvShm(text);
        QCOMPARE(segments.size(), size_t(2));
        QCOMPARE(segments[0].id, uint64_t(32));
        QCOMPARE(segments[0].size, uint64_t(524288));
        QCOMPARE(segments[0].rss, uint64_t(245760));
        QCOMPARE(segments[0].creatorPid, 2177);
        QCOMPARE(segments[0].attached, uint64_t(2));
        QCOMPARE(segments[1].key, uint64_t(0xff000000));
        QCOMPARE(segments[1].swap, uint64_t(8192));
        QVERIFY(parseSysvShm("garbage\n1 2 3\n").empty());
    }

    void parsesMapsAndNames()
    {
        const std::string text =
            "7f1c00000000-7f1c00800000 rw-s 00000000 00:01 3075                       /memfd:wayland-shm (deleted)\n"
            "7f1c00800000-7f1c00900000 r--s 00000000 fd:01 1234567                    /home/me/a file with spaces.db (deleted)\n"
            "7f1c00900000-7f1c00a00000 rw-p 00000000 00:00 0 \n"
            "7f1c00a00000-7f1c00b00000 rw-s 00000000 00:01 7                          /SYSV0000002a (deleted)\n"
            "7f1c00b00000-7f1c00c00000 rw-s 00000000 00:01 8                          /dev/zero (deleted)\n"
            "not a line\n";
        const std::vector<MapsEntry> entries = parseMapsFiles(text);
        QCOMPARE(entries.size(), size_t(4));
        QCOMPARE(entries[0].start, uint64_t(0x7f1c00000000));
        QCOMPARE(entries[0].end, uint64_t(0x7f1c00800000));
        QVERIFY(entries[0].shared);
        QCOMPARE(entries[1].device, uint64_t(makedev(0xfd, 0x01)));
        QCOMPARE(entries[1].inode, uint64_t(1234567));
        QCOMPARE(entries[1].path, std::string("/home/me/a file with spaces.db (deleted)"));

        QCOMPARE(int(unreachableName(entries[0].path)->kind), int(UnreachableName::Kind::Memfd));
        QCOMPARE(unreachableName(entries[0].path)->name, std::string("wayland-shm"));
        QCOMPARE(int(unreachableName(entries[1].path)->kind), int(UnreachableName::Kind::Deleted));
        QCOMPARE(unreachableName(entries[1].path)->name, std::string("/home/me/a file with spaces.db"));
        QCOMPARE(int(unreachableName(entries[2].path)->kind), int(UnreachableName::Kind::SysvShm));
        QCOMPARE(int(unreachableName(entries[3].path)->kind), int(UnreachableName::Kind::SharedAnonymous));
        QVERIFY(!unreachableName("/usr/lib/libc.so.6"));
        QVERIFY(!unreachableName("anon_inode:[eventfd]"));
        QVERIFY(!unreachableName("socket:[1234] (deleted)"));
    }

    void namesFlatpakApps()
    {
        // /.flatpak-info as flatpak 1.16 writes it into a sandbox.
        const std::string info =
            "[Application]\nname=org.kde.kate\nruntime=runtime/org.kde.Platform/x86_64/6.8\n\n[Instance]\ninstance-id=1234\nname=not-this\n";
        QCOMPARE(flatpakApplication(info), std::string("org.kde.kate"));
        QCOMPARE(flatpakApplication("[Instance]\nname=not-this\n"), std::string());
        QCOMPARE(flatpakApplication(""), std::string());
    }

    void deletedFileHeldOpen_data()
    {
        QTest::addColumn<bool>("keepDescriptor");
        QTest::newRow("open") << true;
        QTest::newRow("mapped only") << false;
    }

    void deletedFileHeldOpen()
    {
        QFETCH(bool, keepDescriptor);
        const uint64_t size = 8 * MiB + 3 * pageSize();
        const std::string path = m_scratch + (keepDescriptor ? "/deleted-open.bin" : "/deleted-mapped.bin");
        TestUtil::makeColdFile(path, size);
        struct stat st = {};
        QCOMPARE(stat(path.c_str(), &st), 0);
        Holder holder([&] {
            const int fd = open(path.c_str(), O_RDONLY);
            if (fd < 0 || !mapAndTouch(fd, size)) {
                return false;
            }
            if (!keepDescriptor) {
                close(fd);
            }
            return true;
        });
        QVERIFY(holder.ready());
        QCOMPARE(unlink(path.c_str()), 0);
        const CacheAccount account = accountOf(m_scratch);
        const AccountPart *part = partOf(account, AccountKind::DeletedFile, [&](const AccountPart &p) {
            return p.inode == uint64_t(st.st_ino) && p.device == uint64_t(st.st_dev);
        });
        QVERIFY2(part, qPrintable(describe(account)));
        QCOMPARE(part->path, path);
        QVERIFY(heldBy(*part, holder.pid()));
        if (!TestUtil::isRoot() && !keepDescriptor) {
            QVERIFY(part->hidden); // map_files is root's
            return;
        }
        QVERIFY2(!part->hidden, part->hiddenReason.c_str());
        QVERIFY2(nearly(part->bytes, size), qPrintable(QString::number(part->bytes)));
        QCOMPARE(part->sizeBytes, size);
        QVERIFY(part->evictable());
    }

    void tmpfsMount()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("mounting a tmpfs needs root (tools/dev's root)");
        }
        const std::string mountPoint = m_scratch + "/tmpfs";
        mkdir(mountPoint.c_str(), 0755);
        QCOMPARE(mount("tmpfs", mountPoint.c_str(), "tmpfs", 0, "size=64m"), 0);
        const auto unmount = qScopeGuard([&] {
            umount2(mountPoint.c_str(), MNT_DETACH);
        });
        const uint64_t size = 4 * MiB + pageSize();
        {
            const int fd = open((mountPoint + "/file").c_str(), O_CREAT | O_WRONLY, 0644);
            QVERIFY(fd >= 0);
            QVERIFY(writeBytes(fd, size));
            close(fd);
        }
        const CacheAccount account = accountOf(m_scratch);
        const AccountPart *part = partOf(account, AccountKind::Tmpfs, [&](const AccountPart &p) {
            return p.path == mountPoint;
        });
        QVERIFY2(part, qPrintable(describe(account)));
        QVERIFY2(nearly(part->bytes, size), qPrintable(QString::number(part->bytes)));
        QCOMPARE(part->fileSystem, std::string("tmpfs"));
        QVERIFY(!part->evictable());
        QCOMPARE(part->files, uint64_t(1));
    }

    void memfdHeldOpen()
    {
        const uint64_t size = 3 * MiB;
        Holder holder([&] {
            const int fd = memfd_create("cachescope-test", 0);
            return fd >= 0 && writeBytes(fd, size);
        });
        QVERIFY(holder.ready());
        const CacheAccount account = accountOf(m_scratch);
        const AccountPart *part = partOf(account, AccountKind::Memfd, [&](const AccountPart &p) {
            return p.name == "cachescope-test" && heldBy(p, holder.pid());
        });
        QVERIFY2(part, qPrintable(describe(account)));
        QVERIFY2(!part->hidden, part->hiddenReason.c_str());
        QVERIFY2(nearly(part->bytes, size), qPrintable(QString::number(part->bytes)));
        QVERIFY(!accountKindEvictable(part->kind));
    }

    void sharedAnonymousMapping()
    {
        const uint64_t size = 5 * MiB;
        Holder holder([&] {
            void *memory = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
            if (memory == MAP_FAILED) {
                return false;
            }
            memset(memory, 'x', size);
            return true;
        });
        QVERIFY(holder.ready());
        const CacheAccount account = accountOf(m_scratch);
        const AccountPart *part = partOf(account, AccountKind::SharedAnonymous, [&](const AccountPart &p) {
            return heldBy(p, holder.pid());
        });
        QVERIFY2(part, qPrintable(describe(account)));
        if (!TestUtil::isRoot()) {
            QVERIFY(part->hidden); // only mapped
            return;
        }
        QVERIFY2(!part->hidden, part->hiddenReason.c_str());
        QVERIFY2(nearly(part->bytes, size), qPrintable(QString::number(part->bytes)));
    }

    void systemVSegment()
    {
        const uint64_t size = 2 * MiB;
        const int id = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
        QVERIFY(id >= 0);
        void *memory = shmat(id, nullptr, 0);
        const auto remove = qScopeGuard([&] {
            if (memory != reinterpret_cast<void *>(-1)) {
                shmdt(memory);
            }
            shmctl(id, IPC_RMID, nullptr);
        });
        QVERIFY(memory != reinterpret_cast<void *>(-1));
        memset(memory, 'y', size);
        const CacheAccount account = accountOf(m_scratch);
        const AccountPart *part = partOf(account, AccountKind::SysvShm, [&](const AccountPart &p) {
            return p.inode == uint64_t(id);
        });
        QVERIFY2(part, qPrintable(describe(account)));
        QVERIFY2(nearly(part->bytes, size), qPrintable(QString::number(part->bytes)));
        QCOMPARE(part->sizeBytes, size);
        QVERIFY(heldBy(*part, getpid()));
        // Counted once: not again as the process's "/SYSV..." mapping.
        QVERIFY(!partOf(account, AccountKind::DeletedFile, [&](const AccountPart &p) {
            return p.path.starts_with("/SYSV");
        }));
    }

    void folderCoveredByAMount()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("mounting over a folder needs root (tools/dev's root)");
        }
        const std::string folder = m_scratch + "/covered";
        mkdir(folder.c_str(), 0755);
        const uint64_t size = 6 * MiB;
        const std::string path = folder + "/under.bin";
        TestUtil::makeColdFile(path, size);
        // Mapped before the mount covers it: its pages stay while the test looks.
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0 && mapAndTouch(fd, size));
        close(fd);
        QCOMPARE(mount("tmpfs", folder.c_str(), "tmpfs", 0, "size=1m"), 0);
        const auto unmount = qScopeGuard([&] {
            umount2(folder.c_str(), MNT_DETACH);
        });
        const CacheAccount account = accountOf(m_scratch);
        const AccountPart *part = partOf(account, AccountKind::CoveredFolder, [&](const AccountPart &p) {
            return p.path == folder;
        });
        QVERIFY2(part, qPrintable(describe(account)));
        QVERIFY2(nearly(part->bytes, size), qPrintable(QString::number(part->bytes)));
        QCOMPARE(part->files, uint64_t(1));
        QCOMPARE(account.hidden.coveredMountPoints, uint64_t(0));
    }

    void mountOfAnotherNamespace()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("a mount namespace of its own needs root (tools/dev's root)");
        }
        const std::string mountPoint = m_scratch + "/elsewhere";
        mkdir(mountPoint.c_str(), 0755);
        const uint64_t size = 7 * MiB;
        Holder holder([&] {
            if (TestUtil::ownPrivateMountNamespace() != 0 || mount("tmpfs", mountPoint.c_str(), "tmpfs", 0, "size=16m") != 0) {
                return false;
            }
            const int fd = open((mountPoint + "/inside.bin").c_str(), O_CREAT | O_WRONLY, 0644);
            return fd >= 0 && writeBytes(fd, size);
        });
        QVERIFY(holder.ready());
        const CacheAccount account = accountOf(m_scratch);
        const AccountPart *part = partOf(account, AccountKind::OtherNamespace, [&](const AccountPart &p) {
            return p.path == mountPoint;
        });
        QVERIFY2(part, qPrintable(describe(account)));
        QVERIFY2(nearly(part->bytes, size), qPrintable(QString::number(part->bytes)));
        QVERIFY(heldBy(*part, holder.pid()));
        // The namespace's other mounts are this one's: not counted again.
        for (const AccountPart &other : account.parts) {
            QVERIFY2(other.kind != AccountKind::OtherNamespace || other.path == mountPoint || !heldBy(other, holder.pid()), qPrintable(describe(account)));
        }
    }

    // Buffers: the page cache of a block device, read through its node (a
    // loop device over a file of the test; the disk itself may be closed to
    // even root, as on this project's machines).
    void blockDeviceBuffers()
    {
        if (!TestUtil::isRoot() || !TestUtil::haveProgram("losetup")) {
            QSKIP("needs root and losetup");
        }
        const std::string backing = m_scratch + "/loop-backing.bin";
        const uint64_t size = 8 * MiB;
        TestUtil::makeColdFile(backing, size);
        const TestUtil::RunResult attached =
            TestUtil::run(QStringLiteral("losetup"), {QStringLiteral("--find"), QStringLiteral("--show"), QString::fromStdString(backing)});
        if (attached.exitCode != 0) {
            QSKIP(qPrintable(QStringLiteral("no loop device here: ") + QString::fromUtf8(attached.err.trimmed())));
        }
        const QString device = QString::fromUtf8(attached.out.trimmed());
        const auto detach = qScopeGuard([&device] {
            (void)TestUtil::run(QStringLiteral("losetup"), {QStringLiteral("--detach"), device});
        });
        // Reading the device fills its own page cache (Buffers), not the file's.
        const int fd = open(device.toLocal8Bit().constData(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        std::vector<char> block(1 << 20);
        for (uint64_t done = 0; done < size; done += block.size()) {
            QCOMPARE(pread(fd, block.data(), block.size(), off_t(done)), ssize_t(block.size()));
        }
        AccountOptions options;
        options.root = m_scratch;
        const CacheAccount account = accountCache(options);
        close(fd);
        const std::string name = device.section(QLatin1Char('/'), -1).toStdString();
        const auto found = std::find_if(account.buffersByDevice.begin(), account.buffersByDevice.end(), [&name](const BlockDeviceBuffers &buffers) {
            return buffers.name == name;
        });
        QVERIFY2(found != account.buffersByDevice.end(), name.c_str());
        QVERIFY2(!found->hidden, found->hiddenReason.c_str());
        QVERIFY2(nearly(found->bytes, size), qPrintable(QString::number(found->bytes)));
    }

    // In a tree someone else controls, a device bind-mounted over a regular
    // file (which the listing still calls a file) is never opened: the walk
    // of another namespace's mount refuses to cross into it (EXDEV).
    void deviceMountedOverAFileIsNotOpened()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("a mount namespace of its own needs root (tools/dev's root)");
        }
        const std::string mountPoint = m_scratch + "/trap";
        mkdir(mountPoint.c_str(), 0755);
        const uint64_t size = 2 * MiB;
        Holder holder([&] {
            if (TestUtil::ownPrivateMountNamespace() != 0 || mount("tmpfs", mountPoint.c_str(), "tmpfs", 0, "size=16m") != 0) {
                return false;
            }
            const int fd = open((mountPoint + "/data.bin").c_str(), O_CREAT | O_WRONLY, 0644);
            const int trap = open((mountPoint + "/looks-like-a-file").c_str(), O_CREAT | O_WRONLY, 0644);
            return fd >= 0 && trap >= 0 && writeBytes(fd, size)
                && mount("/dev/null", (mountPoint + "/looks-like-a-file").c_str(), nullptr, MS_BIND, nullptr) == 0;
        });
        QVERIFY(holder.ready());
        std::vector<WalkProblem> problems;
        std::mutex mutex;
        AccountOptions options;
        options.root = m_scratch;
        options.buffers = false;
        const CacheAccount account = accountCache(options, [&](const WalkProblem &problem) {
            const std::lock_guard lock(mutex);
            problems.push_back(problem);
        });
        const AccountPart *part = partOf(account, AccountKind::OtherNamespace, [&](const AccountPart &p) {
            return p.path == mountPoint;
        });
        QVERIFY2(part, qPrintable(describe(account)));
        QVERIFY2(nearly(part->bytes, size), qPrintable(QString::number(part->bytes)));
        QCOMPARE(part->files, uint64_t(1));
        QVERIFY2(std::any_of(problems.begin(),
                             problems.end(),
                             [](const WalkProblem &problem) {
                                 return problem.path.ends_with("/looks-like-a-file") && problem.error == EXDEV;
                             }),
                 "the device's name was not refused with EXDEV");
    }

    void hiddenFromAnotherUser()
    {
        const std::optional<uint32_t> uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and tools/dev's cachescope-user");
        }
        const uint64_t size = 2 * MiB;
        const std::string path = m_scratch + "/roots-deleted.bin";
        TestUtil::makeColdFile(path, size);
        Holder holder([&] {
            const int fd = open(path.c_str(), O_RDONLY);
            return fd >= 0 && mapAndTouch(fd, size);
        });
        QVERIFY(holder.ready());
        QCOMPARE(unlink(path.c_str()), 0);
        // As the user: root's process is hidden, its file not counted, no number guessed.
        const TestUtil::ChildResult asUser = TestUtil::runInChild(
            [&] {
                AccountOptions options;
                options.root = "/var/empty-cachescope-account";
                options.buffers = false;
                const CacheAccount account = accountCache(options);
                QByteArray out = QByteArray::number(qulonglong(account.hidden.processes));
                for (const AccountPart &part : account.parts) {
                    if (part.kind == AccountKind::DeletedFile && part.path == path) {
                        out += " counted";
                    }
                }
                return out;
            },
            *uid);
        QVERIFY2(asUser.ok, qPrintable(asUser.failure));
        QVERIFY2(asUser.output.toULongLong() > 0 && !asUser.output.contains("counted"), asUser.output.constData());
        // As root: shown, with its size.
        const CacheAccount account = accountOf(m_scratch);
        const AccountPart *part = partOf(account, AccountKind::DeletedFile, [&](const AccountPart &p) {
            return p.path == path;
        });
        QVERIFY2(part && !part->hidden, qPrintable(describe(account)));
        QVERIFY2(nearly(part->bytes, size), qPrintable(QString::number(part->bytes)));
        QCOMPARE(account.hidden.processes, uint64_t(0));
    }

    // A FUSE mount whose daemon never answers an open (the helper's hang
    // test's): the account names it and walks on, rather than waiting for good.
    void fuseMountIsNotAsked()
    {
        const QString daemon = QCoreApplication::applicationDirPath() + QStringLiteral("/fuse-never-answers");
        if (!TestUtil::isRoot() || !QFile::exists(daemon) || access("/dev/fuse", R_OK | W_OK) != 0) {
            QSKIP("needs root, /dev/fuse and tests/helper/fuse-never-answers (libfuse3)");
        }
        const std::string mountPoint = m_scratch + "/fuse";
        mkdir(mountPoint.c_str(), 0755);
        QProcess fuse;
        fuse.start(daemon, {QString::fromStdString(mountPoint)});
        QVERIFY(fuse.waitForStarted());
        const auto unmount = qScopeGuard([&] {
            fuse.kill();
            fuse.waitForFinished();
            umount2(mountPoint.c_str(), MNT_DETACH);
        });
        QTRY_VERIFY_WITH_TIMEOUT(
            TestUtil::run(
                QStringLiteral("grep"),
                {QStringLiteral("-q"), QStringLiteral(" ") + QString::fromStdString(mountPoint) + QStringLiteral(" "), QStringLiteral("/proc/self/mountinfo")})
                    .exitCode
                == 0,
            10000);
        const TestUtil::RunResult result = TestUtil::run(TestUtil::cliPath(), {QStringLiteral("account"), QStringLiteral("--json")}, 120000);
        QVERIFY2(!result.timedOut, "the account waited for the FUSE daemon");
        QVERIFY2(result.exitCode == 0 || result.exitCode == 1, result.err.constData());
        const QJsonObject json = TestUtil::jsonObjectOf(result);
        QVERIFY(json.value(QStringLiteral("mounts_not_walked")).toInt() >= 1);
        QVERIFY(json.value(QStringLiteral("complete")).toBool());
        const TestUtil::RunResult text = TestUtil::run(TestUtil::cliPath(), {QStringLiteral("account")}, 120000);
        QVERIFY2(text.out.contains("FUSE or stacked mounts not walked"), text.out.constData());
    }

    void cliAddsUpToCached()
    {
        const TestUtil::RunResult result = TestUtil::run(TestUtil::cliPath(), {QStringLiteral("account"), QStringLiteral("--json")});
        QCOMPARE(result.exitCode, 0);
        const QJsonObject json = TestUtil::jsonObjectOf(result);
        QCOMPARE(json.value(QStringLiteral("command")).toString(), QStringLiteral("account"));
        const double cached = json.value(QStringLiteral("meminfo_cached")).toDouble();
        QVERIFY(cached > 0);
        double sum = 0;
        for (const QJsonValue &value : json.value(QStringLiteral("parts")).toArray()) {
            const QJsonObject part = value.toObject();
            QVERIFY(part.contains(QStringLiteral("kind")) && part.contains(QStringLiteral("bytes")));
            QVERIFY(part.contains(QStringLiteral("path")) || part.contains(QStringLiteral("name")));
            sum += part.value(QStringLiteral("bytes")).toDouble();
        }
        QCOMPARE(qint64(sum) + json.value(QStringLiteral("unexplained")).toInteger(), qint64(cached));
        QVERIFY(json.value(QStringLiteral("complete")).toBool());

        // A memfd whose name would retitle a terminal: printed without its control characters.
        Holder holder([] {
            const int fd = memfd_create("evil\x1b]0;owned\x07name", 0);
            return fd >= 0 && writeBytes(fd, 1 * MiB);
        });
        QVERIFY(holder.ready());
        const TestUtil::RunResult text = TestUtil::run(TestUtil::cliPath(), {QStringLiteral("account")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("memfd:evil?]0;owned?name") && !text.out.contains('\x1b'), text.out.constData());
        QVERIFY2(text.out.contains(" unexplained\n") && text.out.contains("Cached ") && text.out.contains("Buffers "), text.out.constData());

        const TestUtil::RunResult bad = TestUtil::run(TestUtil::cliPath(), {QStringLiteral("account"), QStringLiteral("--depth"), QStringLiteral("lots")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--depth"), bad.err.constData());
    }
};

QTEST_GUILESS_MAIN(AccountTest)

#include "accounttest.moc"
