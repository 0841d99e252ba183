// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "testutil.h"

#include "procfs.h"

#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTest>

#include <fcntl.h>
#include <grp.h>
#include <linux/magic.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace TestUtil
{

namespace
{
// Test set-up that cannot go on is fatal, with the path and the reason.
[[noreturn]] void fail(const std::string &what)
{
    qFatal("%s: %s", what.c_str(), strerror(errno));
}

uint64_t residentByMincore(int fd, uint64_t size)
{
    if (size == 0) {
        return 0;
    }
    const long page = sysconf(_SC_PAGESIZE);
    void *map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        fail("mmap");
    }
    std::vector<unsigned char> vec((size + page - 1) / page);
    if (mincore(map, size, vec.data()) != 0) {
        fail("mincore");
    }
    munmap(map, size);
    uint64_t resident = 0;
    for (unsigned char c : vec) {
        resident += c & 1;
    }
    return resident;
}

// cachestat(2), by number: glibc has no wrapper and older headers no struct.
struct CachestatRange {
    uint64_t offset;
    uint64_t length;
};
struct CachestatCounts {
    uint64_t cache;
    uint64_t dirty;
    uint64_t writeback;
    uint64_t evicted;
    uint64_t recentlyEvicted;
};
constexpr long cachestatSyscall = 451;
} // namespace

HeldPages::HeldPages(const std::string &path, uint64_t offset, uint64_t length)
{
    readRange(path, offset, length);
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fail("open " + path);
    }
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    const uint64_t size = uint64_t(lseek(fd, 0, SEEK_END));
    // The same pages readRange read: from the page holding `offset` to the
    // one holding the last byte, within the file.
    const uint64_t first = offset / page * page;
    const uint64_t end = std::min(offset + length, size);
    if (end > first) {
        m_length = size_t(end - first);
        m_map = mmap(nullptr, m_length, PROT_READ, MAP_SHARED, fd, off_t(first));
        if (m_map == MAP_FAILED) {
            fail("mmap " + path);
        }
        // No readahead around a fault, should a page have gone meanwhile:
        // exactly the pages read stay resident.
        madvise(m_map, m_length, MADV_RANDOM);
        volatile char sum = 0;
        for (size_t at = 0; at < m_length; at += page) {
            sum = char(sum + static_cast<const volatile char *>(m_map)[at]);
        }
    }
    close(fd);
}

HeldPages::~HeldPages()
{
    release();
}

void HeldPages::release()
{
    if (m_map) {
        munmap(m_map, m_length);
        m_map = nullptr;
    }
}

PagesNow pagesNow(const std::string &path, uint64_t offset, uint64_t length)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fail("open " + path);
    }
    CachestatRange range{offset, length}; // length 0: to the end of the file
    CachestatCounts counts{};
    PagesNow now;
    if (syscall(cachestatSyscall, fd, &range, &counts, 0) == 0) {
        now.resident = counts.cache;
        now.reclaimed = counts.evicted;
    } else if (errno == ENOSYS) {
        if (offset != 0 || length != 0) {
            qFatal("pagesNow of a range needs cachestat(2)");
        }
        now.resident = residentByMincore(fd, uint64_t(lseek(fd, 0, SEEK_END)));
    } else {
        fail("cachestat " + path);
    }
    close(fd);
    return now;
}

PagesNow pagesNow(const std::vector<std::string> &paths)
{
    PagesNow sum;
    for (const std::string &path : paths) {
        const PagesNow one = pagesNow(path);
        sum.resident += one.resident;
        sum.reclaimed += one.reclaimed;
    }
    return sum;
}

QString residencyFigureMismatch(const PagesNow &now, uint64_t reported, uint64_t expected)
{
    const QString state = QStringLiteral(" (reported %1 pages, set up %2; now %3 resident, %4 reclaimed by the kernel)")
                              .arg(reported)
                              .arg(expected)
                              .arg(now.resident)
                              .arg(now.reclaimed);
    if (reported > expected) {
        return QStringLiteral("more pages than the test made resident") + state;
    }
    if (reported < now.resident) {
        return QStringLiteral("fewer pages than are still resident") + state;
    }
    if (reported + now.reclaimed < expected) {
        return QStringLiteral("short by more than the kernel reclaimed") + state;
    }
    return {};
}

std::string scratchDir(const char *name)
{
    const std::filesystem::path dir = std::filesystem::path(CACHESCOPE_TEST_SCRATCH) / name;
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    std::filesystem::create_directories(dir);
    return dir.string();
}

void makeColdFile(const std::string &path, uint64_t bytes)
{
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fail("open " + path);
    }
    std::vector<char> block(1 << 20);
    for (size_t i = 0; i < block.size(); ++i) {
        block[i] = char('a' + i % 26);
    }
    uint64_t done = 0;
    while (done < bytes) {
        const size_t chunk = size_t(std::min<uint64_t>(block.size(), bytes - done));
        const ssize_t n = pwrite(fd, block.data(), chunk, off_t(done));
        if (n <= 0) {
            fail("pwrite " + path);
        }
        done += uint64_t(n);
    }
    if (fdatasync(fd) != 0) {
        fail("fdatasync " + path);
    }
    close(fd);
    evictRaw(path);
}

void adviseDontNeed(const std::string &path)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fail("open " + path);
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
}

void evictRaw(const std::string &path)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fail("open " + path);
    }
    // Writeback, or reads readahead(2) queued, may still be under way, and
    // fadvise leaves those pages: ask again until none is in the cache.
    // cachestat counts a page whose read is under way, mincore does not.
    for (int attempt = 0; attempt < 200; ++attempt) {
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        if (pagesNow(path).resident == 0) {
            break;
        }
        fdatasync(fd);
        usleep(10000);
    }
    close(fd);
}

void readRange(const std::string &path, uint64_t offset, uint64_t length)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        fail("open " + path);
    }
    // Without this the kernel reads ahead and more pages than asked become
    // resident; with FADV_RANDOM it reads exactly the pages asked for.
    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    std::vector<char> buffer(1 << 20);
    uint64_t done = 0;
    while (done < length) {
        const size_t chunk = size_t(std::min<uint64_t>(buffer.size(), length - done));
        const ssize_t n = pread(fd, buffer.data(), chunk, off_t(offset + done));
        if (n < 0) {
            fail("pread " + path);
        }
        if (n == 0) {
            break;
        }
        done += uint64_t(n);
    }
    close(fd);
}

std::optional<uint64_t> fincoreResidentPages(const std::string &path)
{
    if (!haveProgram("fincore")) {
        return std::nullopt;
    }
    const RunResult r =
        run(QStringLiteral("fincore"),
            {QStringLiteral("--raw"), QStringLiteral("--noheadings"), QStringLiteral("--output"), QStringLiteral("PAGES"), QString::fromStdString(path)});
    if (r.exitCode != 0) {
        return std::nullopt;
    }
    bool ok = false;
    const uint64_t pages = r.out.trimmed().toULongLong(&ok);
    return ok ? std::optional<uint64_t>(pages) : std::nullopt;
}

std::optional<uint64_t> vmtouchResidentPages(const std::string &path)
{
    if (!haveProgram("vmtouch")) {
        return std::nullopt;
    }
    // "Resident Pages: 3/10  12K/40K  30%"
    const RunResult r = run(QStringLiteral("vmtouch"), {QString::fromStdString(path)});
    static const QRegularExpression re(QStringLiteral("Resident Pages:\\s*(\\d+)/(\\d+)"));
    const auto match = re.match(QString::fromUtf8(r.out));
    if (!match.hasMatch()) {
        return std::nullopt;
    }
    return match.captured(1).toULongLong();
}

bool isRoot()
{
    return geteuid() == 0;
}

int ownPrivateMountNamespace()
{
    if (unshare(CLONE_NEWNS) != 0) {
        return errno;
    }
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0) {
        return 0;
    }
    // A chroot's "/" is no mount point (EINVAL): each mount made private on its own.
    const std::optional<std::vector<Cachescope::MountInfoEntry>> mounts = Cachescope::readMountInfo();
    if (!mounts) {
        return EIO;
    }
    for (const Cachescope::MountInfoEntry &entry : *mounts) {
        if (mount(nullptr, entry.mountPoint.c_str(), nullptr, MS_PRIVATE, nullptr) != 0 && errno != EINVAL && errno != ENOENT) {
            return errno;
        }
    }
    return 0;
}

OverlayFolders makeOverlayFolders(const std::string &folder)
{
    OverlayFolders folders{folder + "/lower", folder + "/upper", folder + "/work", folder + "/merged"};
    for (const std::string *dir : {&folders.lower, &folders.upper, &folders.work, &folders.merged}) {
        ::mkdir(dir->c_str(), 0755);
    }
    return folders;
}

int mountOverlayInOwnNamespace(const OverlayFolders &folders, const std::string &target)
{
    if (const int error = ownPrivateMountNamespace(); error != 0) {
        return error;
    }
    const std::string options = "lowerdir=" + folders.lower + ",upperdir=" + folders.upper + ",workdir=" + folders.work;
    return ::mount("overlay", (target.empty() ? folders.merged : target).c_str(), "overlay", 0, options.c_str()) == 0 ? 0 : errno;
}

bool devptsWithPtmx()
{
    struct statfs fs;
    return statfs("/dev/pts", &fs) == 0 && fs.f_type == DEVPTS_SUPER_MAGIC && access("/dev/pts/ptmx", F_OK) == 0;
}

bool haveProgram(const char *name)
{
    return !QStandardPaths::findExecutable(QString::fromLatin1(name)).isEmpty();
}

QJsonObject jsonObjectOf(const RunResult &result)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(result.out, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) {
        qWarning("not one JSON object (%s): %s\nstderr: %s", qPrintable(error.errorString()), result.out.constData(), result.err.constData());
        return {};
    }
    return document.object();
}

RunResult run(const QString &program, const QStringList &arguments, int timeoutMs)
{
    RunResult result;
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForStarted(10000)) {
        result.err = "[" + program.toUtf8() + " did not start: " + process.errorString().toUtf8() + ']';
        return result;
    }
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        result.timedOut = true;
        process.kill();
        process.waitForFinished(5000);
    }
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    if (process.exitStatus() != QProcess::NormalExit) {
        result.err += "\n[" + program.toUtf8() + " ended abnormally: " + process.errorString().toUtf8() + ']';
    }
    return result;
}

QString cliPath()
{
    return QStringLiteral(CACHESCOPE_CLI_PATH);
}

std::optional<uint32_t> testUserUid()
{
    if (!isRoot()) {
        return std::nullopt;
    }
    const passwd *pw = getpwnam(testUserName);
    if (!pw) {
        return std::nullopt;
    }
    return pw->pw_uid;
}

std::string whyOthersCannotReach(const std::string &folder)
{
    for (std::filesystem::path p = std::filesystem::path(folder).parent_path(); p != p.root_path(); p = p.parent_path()) {
        struct stat st;
        if (stat(p.c_str(), &st) == 0 && (st.st_mode & S_IXOTH) == 0) {
            return "a folder above the scratch folder is closed to other users: " + p.string();
        }
    }
    return {};
}

bool becomeUser(uid_t uid)
{
    // Dumpable again afterwards, as the processes of a user who logged in
    // are (the kernel clears it on the change of uid; exec would set it).
    return setgroups(0, nullptr) == 0 && setresgid(uid, uid, uid) == 0 && setresuid(uid, uid, uid) == 0 && prctl(PR_SET_DUMPABLE, 1) == 0;
}

ChildResult runInChild(const std::function<QByteArray()> &work, std::optional<uid_t> asUser, int timeoutMs)
{
    ChildResult result;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        result.failure = QStringLiteral("pipe2: %1").arg(QString::fromLocal8Bit(strerror(errno)));
        return result;
    }
    const pid_t child = fork();
    if (child < 0) {
        result.failure = QStringLiteral("fork: %1").arg(QString::fromLocal8Bit(strerror(errno)));
        close(fds[0]);
        close(fds[1]);
        return result;
    }
    if (child == 0) {
        close(fds[0]);
        if (asUser && !becomeUser(*asUser)) {
            _exit(2);
        }
        const QByteArray output = work();
        qsizetype done = 0;
        while (done < output.size()) {
            const ssize_t n = write(fds[1], output.constData() + done, size_t(output.size() - done));
            if (n <= 0) {
                _exit(3);
            }
            done += n;
        }
        _exit(0);
    }
    close(fds[1]);
    QElapsedTimer clock;
    clock.start();
    bool timedOut = false;
    for (;;) {
        const qint64 left = timeoutMs - clock.elapsed();
        pollfd readable{fds[0], POLLIN, 0};
        const int ready = left <= 0 ? 0 : poll(&readable, 1, int(left));
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            timedOut = true;
            kill(child, SIGKILL);
            break;
        }
        char buffer[65536];
        const ssize_t n = read(fds[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        result.output.append(buffer, n);
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) { }
    if (timedOut) {
        result.failure = QStringLiteral("the child did not finish within %1 ms").arg(timeoutMs);
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == 2 && asUser) {
        result.failure = QStringLiteral("the child could not become uid %1").arg(*asUser);
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        result.failure = WIFSIGNALED(status) ? QStringLiteral("the child died of signal %1").arg(WTERMSIG(status))
                                             : QStringLiteral("the child exited with status %1").arg(WEXITSTATUS(status));
    } else {
        result.ok = true;
    }
    return result;
}

OpenWatch::OpenWatch()
    : m_fd(inotify_init1(IN_NONBLOCK | IN_CLOEXEC))
{
}

OpenWatch::~OpenWatch()
{
    close(m_fd);
}

bool OpenWatch::watch(const std::string &path)
{
    const int wd = inotify_add_watch(m_fd, path.c_str(), IN_OPEN | IN_DONT_FOLLOW);
    if (wd < 0) {
        return false;
    }
    m_paths[wd] = path;
    return true;
}

std::set<std::string> OpenWatch::opened()
{
    std::set<std::string> paths;
    alignas(inotify_event) char buffer[8192];
    for (;;) {
        const ssize_t n = read(m_fd, buffer, sizeof buffer);
        if (n <= 0) {
            break;
        }
        for (ssize_t at = 0; at < n;) {
            const auto *event = reinterpret_cast<const inotify_event *>(buffer + at);
            m_overflowed = m_overflowed || (event->mask & IN_Q_OVERFLOW);
            // A watched folder names the file in it that was opened (no name:
            // itself); its subfolders' openings are left out.
            if ((event->mask & IN_OPEN) && !(event->len > 0 && (event->mask & IN_ISDIR))) {
                const std::string name = event->len > 0 ? std::string(event->name) : std::string();
                paths.insert(name.empty() ? m_paths[event->wd] : m_paths[event->wd] + "/" + name);
            }
            at += ssize_t(sizeof(inotify_event) + event->len);
        }
    }
    return paths;
}

bool OpenWatch::overflowed() const
{
    return m_overflowed;
}

QString killWhileWriting(qulonglong bytes, const std::function<void()> &write)
{
    const pid_t writer = ::fork();
    if (writer == 0) {
        ::signal(SIGXFSZ, SIG_DFL);
        const struct rlimit noCore = {0, 0};
        ::setrlimit(RLIMIT_CORE, &noCore);
        const struct rlimit limit = {rlim_t(bytes), rlim_t(bytes)};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        write();
        ::_exit(0);
    }
    if (writer < 0) {
        return QStringLiteral("fork failed: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
    }
    int status = 0;
    QElapsedTimer waited;
    waited.start();
    bool reaped = false;
    while (!(reaped = ::waitpid(writer, &status, WNOHANG) == writer) && waited.elapsed() < 30000) {
        QTest::qWait(20);
    }
    if (!reaped) {
        ::kill(writer, SIGKILL);
        ::waitpid(writer, &status, 0);
        return QStringLiteral("the writer hung after the fork");
    }
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGXFSZ) {
        return QStringLiteral("the writer was not killed by SIGXFSZ (wait status %1)").arg(status);
    }
    return {};
}

} // namespace TestUtil
