// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The activity a user may see without administrator rights
// (activity/ownactivity.h), against the kernel's own files read directly
// here: a child of this test reads an evicted file in a disk-backed folder;
// its /proc/PID/io and, as root, its own memory cgroup's memory.stat say
// what the sampler must say.

#include "activity/ownactivity.h"
#include "cgroups/memorycgroup.h"
#include "procfs.h"
#include "testutil.h"

#include <QScopeGuard>
#include <QTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>

using namespace Cachescope;

namespace
{

constexpr uint64_t MiB = 1 << 20;

double now()
{
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

// A child that waits for "go", reads `path` to its end, says "done" and
// stays until it is killed.
class Reader
{
public:
    explicit Reader(const std::string &path)
    {
        int go[2];
        int done[2];
        if (pipe(go) != 0 || pipe(done) != 0) {
            return;
        }
        m_pid = fork();
        if (m_pid == 0) {
            close(go[1]);
            close(done[0]);
            char byte = 0;
            if (read(go[0], &byte, 1) != 1) {
                _exit(2);
            }
            const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
            char buffer[65536];
            while (fd >= 0 && read(fd, buffer, sizeof buffer) > 0) { }
            (void)!write(done[1], "d", 1);
            pause();
            _exit(0);
        }
        close(go[0]);
        close(done[1]);
        m_go = go[1];
        m_done = done[0];
    }
    ~Reader()
    {
        if (m_pid > 0) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
        close(m_go);
        close(m_done);
    }
    // Lets it read, and waits until it has.
    bool readNow()
    {
        char byte = 0;
        return write(m_go, "g", 1) == 1 && read(m_done, &byte, 1) == 1;
    }
    [[nodiscard]] pid_t pid() const
    {
        return m_pid;
    }

private:
    pid_t m_pid = -1;
    int m_go = -1;
    int m_done = -1;
};

std::optional<Activity::IoCounters> ioOf(pid_t pid)
{
    const std::optional<std::string> text = readProcFile("/proc/" + std::to_string(pid) + "/io");
    return text ? Activity::parseProcessIo(*text) : std::nullopt;
}

} // namespace

class OwnActivityTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        m_dir = TestUtil::scratchDir("ownactivitytest");
    }

    void parsesProcessIo_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qulonglong>("readBytes");
        QTest::addColumn<qulonglong>("writeBytes");
        QTest::addColumn<qulonglong>("readCalls");
        // As Linux 6.18 writes it.
        QTest::newRow("the kernel's") << QByteArray(
            "rchar: 5212\nwchar: 0\nsyscr: 9\nsyscw: 0\nread_bytes: 16777216\nwrite_bytes: 4096\ncancelled_write_bytes: 0\n")
                                      << true << 16777216ULL << 4096ULL << 5212ULL;
        QTest::newRow("no read_bytes") << QByteArray("rchar: 1\nwrite_bytes: 0\n") << false << 0ULL << 0ULL << 0ULL;
        QTest::newRow("a word for a number") << QByteArray("rchar: x\nread_bytes: 1\nwrite_bytes: 1\n") << false << 0ULL << 0ULL << 0ULL;
        QTest::newRow("a number past 2^64") << QByteArray("rchar: 1\nread_bytes: 18446744073709551616\nwrite_bytes: 1\n") << false << 0ULL << 0ULL << 0ULL;
        QTest::newRow("empty") << QByteArray() << false << 0ULL << 0ULL << 0ULL;
    }

    void parsesProcessIo()
    {
        QFETCH(QByteArray, text);
        QFETCH(bool, valid);
        const std::optional<Activity::IoCounters> io = Activity::parseProcessIo(std::string_view(text.constData(), size_t(text.size())));
        QCOMPARE(io.has_value(), valid);
        if (io) {
            QFETCH(qulonglong, readBytes);
            QFETCH(qulonglong, writeBytes);
            QFETCH(qulonglong, readCalls);
            QCOMPARE(qulonglong(io->readBytes), readBytes);
            QCOMPARE(qulonglong(io->writeBytes), writeBytes);
            QCOMPARE(qulonglong(io->readCalls), readCalls);
        }
    }

    // The reads of a process of this user's: the sampler's read_bytes over
    // the interval is exactly what /proc/PID/io says, read here before and
    // after, and at least the 16 MiB it read from storage.
    void processReadsMatchProcPidIo()
    {
        const std::string path = m_dir + "/cold-16.bin";
        TestUtil::makeColdFile(path, 16 * MiB);
        Reader reader(path);
        QVERIFY(reader.pid() > 0);
        TestUtil::evictRaw(path);
        Activity::OwnActivitySampler sampler;
        const std::optional<Activity::IoCounters> before = ioOf(reader.pid());
        QVERIFY(before);
        QVERIFY(!sampler.sample(now()));
        QVERIFY(reader.readNow());
        const std::optional<Activity::OwnInterval> interval = sampler.sample(now());
        const std::optional<Activity::IoCounters> after = ioOf(reader.pid());
        QVERIFY(interval && after);
        const auto found = std::find_if(interval->processes.begin(), interval->processes.end(), [&](const Activity::ProcessIo &io) {
            return io.pid == reader.pid();
        });
        QVERIFY2(found != interval->processes.end(), "the reader is not listed");
        QCOMPARE(found->readBytes, after->readBytes - before->readBytes);
        QCOMPARE(found->readCalls, after->readCalls - before->readCalls);
        QVERIFY2(found->readBytes >= 16 * MiB, qPrintable(QString::number(found->readBytes)));
        unlink(path.c_str());
    }

    // As root: the reader in a memory cgroup of its own; the group's
    // growth is what its memory.stat says, read here before and after, and
    // at least the 16 MiB it read.
    void groupGrowthMatchesMemoryStat()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("making a memory cgroup needs root (tools/dev runs the tests as root)");
        }
        std::string error;
        const std::optional<MemoryHierarchy> hierarchy = findMemoryHierarchy("/sys/fs/cgroup", &error);
        QVERIFY2(hierarchy, error.c_str());
        const std::string path = m_dir + "/cold-group.bin";
        TestUtil::makeColdFile(path, 16 * MiB);
        Reader reader(path);
        QVERIFY(reader.pid() > 0);
        const std::string name = "ownactivitytest-" + std::to_string(getpid());
        const std::optional<std::string> cgroup = makeLimitedCgroup(*hierarchy, name, 1ULL << 30, &error);
        QVERIFY2(cgroup, error.c_str());
        const auto removeGroup = qScopeGuard([&] {
            kill(reader.pid(), SIGKILL);
            waitpid(reader.pid(), nullptr, 0);
            std::string ignored;
            for (int attempt = 0; attempt < 100 && !removeCgroup(*cgroup, &ignored); ++attempt) {
                usleep(20000);
            }
            // The parent too, as the last run's end does (rmdir leaves it
            // when another cgroup is in it).
            rmdir(hierarchy->parent().c_str());
        });
        QVERIFY2(moveIntoCgroup(*cgroup, reader.pid(), &error), error.c_str());
        TestUtil::evictRaw(path);
        const auto fileBytes = [&]() -> uint64_t {
            const std::optional<std::string> stat = readProcFile(*cgroup + "/memory.stat");
            const VmStat fields = parseVmStat(stat.value_or(std::string())); // "name value" lines, as memory.stat
            return fields.value(hierarchy->version == 2 ? "file" : "cache");
        };
        Activity::OwnActivitySampler sampler;
        const uint64_t before = fileBytes();
        QVERIFY(!sampler.sample(now()));
        QVERIFY(reader.readNow());
        const std::optional<Activity::OwnInterval> interval = sampler.sample(now());
        const uint64_t after = fileBytes();
        QVERIFY(interval);
        QVERIFY2(interval->groupsFound, interval->groupsReason.c_str());
        const std::string relative = cgroup->substr(hierarchy->root.size());
        const auto found = std::find_if(interval->groups.begin(), interval->groups.end(), [&](const Activity::GroupActivity &group) {
            return group.cgroupPath == relative;
        });
        QVERIFY2(found != interval->groups.end(), qPrintable(QStringLiteral("no group %1").arg(QString::fromStdString(relative))));
        QCOMPARE(found->fileChangeBytes, int64_t(after) - int64_t(before));
        QCOMPARE(found->fileBytes, after);
        QVERIFY2(found->fileChangeBytes >= int64_t(16 * MiB), qPrintable(QString::number(found->fileChangeBytes)));
        unlink(path.c_str());
    }
};

QTEST_GUILESS_MAIN(OwnActivityTest)

#include "ownactivitytest.moc"
