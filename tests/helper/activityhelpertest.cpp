// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The helper's activity action in-process, as root, on the real kernel:
// real tracefs, real reads, evictions and writes of files in a disk-backed
// folder by processes of known names, and after every way out no
// cachescope-* instance left. The test looks at tracefs through a mount of
// its own, removed at the end.

#include "activityanswer.h"
#include "helperactions.h"
#include "helperprotocol.h"
#include "pidnamespace.h"
#include "testutil.h"

#include <QDir>
#include <QTest>

#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

using namespace Cachescope;
using namespace Cachescope::Helper;
using namespace Cachescope::HelperProtocol;

namespace
{

constexpr uint64_t MiB = 1 << 20;
const uint64_t pageBytes = uint64_t(sysconf(_SC_PAGESIZE));

// A child of a known name that waits for "go", does its work, says "done"
// and stays until it is ended (so that it can be named at any time).
class Worker
{
public:
    Worker(const char *name, const std::function<void()> &work)
    {
        int go[2];
        int done[2];
        if (pipe(go) != 0 || pipe2(done, O_CLOEXEC | O_NONBLOCK) != 0) {
            return;
        }
        m_pid = fork();
        if (m_pid == 0) {
            close(go[1]);
            close(done[0]);
            prctl(PR_SET_NAME, name);
            char byte = 0;
            if (read(go[0], &byte, 1) != 1) {
                _exit(2);
            }
            work();
            (void)!write(done[1], "d", 1);
            pause();
            _exit(0);
        }
        close(go[0]);
        close(done[1]);
        m_go = go[1];
        m_done = done[0];
    }
    ~Worker()
    {
        if (m_pid > 0) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
        close(m_go);
        close(m_done);
    }
    void start()
    {
        if (!m_started) {
            m_started = true;
            (void)!write(m_go, "g", 1);
        }
    }
    [[nodiscard]] bool started() const
    {
        return m_started;
    }
    [[nodiscard]] bool done()
    {
        char byte = 0;
        m_finished = m_finished || read(m_done, &byte, 1) == 1;
        return m_finished;
    }
    [[nodiscard]] pid_t pid() const
    {
        return m_pid;
    }

private:
    pid_t m_pid = -1;
    int m_go = -1;
    int m_done = -1;
    bool m_started = false;
    bool m_finished = false;
};

void readWhole(const std::string &path)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    std::vector<char> buffer(MiB);
    while (fd >= 0 && read(fd, buffer.data(), buffer.size()) > 0) { }
    close(fd);
}

void writeNew(const std::string &path, uint64_t bytes)
{
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const std::vector<char> buffer(MiB, 'w');
    for (uint64_t written = 0; fd >= 0 && written < bytes; written += buffer.size()) {
        if (write(fd, buffer.data(), buffer.size()) != ssize_t(buffer.size())) {
            break;
        }
    }
    close(fd);
}

const Activity::ProcessActivity *processOf(const Activity::Interval &interval, int pid)
{
    for (const Activity::ProcessActivity &process : interval.processes) {
        if (process.pid == pid) {
            return &process;
        }
    }
    return nullptr;
}

const Activity::FileActivity *fileOf(const Activity::Interval &interval, const struct stat &st)
{
    for (const Activity::FileActivity &file : interval.files) {
        if (file.key.device == uint64_t(st.st_dev) && file.key.inode == uint64_t(st.st_ino)) {
            return &file;
        }
    }
    return nullptr;
}

} // namespace

class ActivityHelperTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;
    std::string m_view;
    HelperContext m_context;
    QStringList m_log;
    std::vector<Activity::Interval> m_intervals;
    int m_runStatus = -1;

    QStringList cachescopeInstances()
    {
        return QDir(QString::fromStdString(m_view + "/instances")).entryList({QStringLiteral("cachescope-*")}, QDir::Dirs | QDir::NoDotAndDotDot);
    }

    ActionReply activity(int seconds, int intervalMs, const std::function<void()> &onInterval = {})
    {
        m_intervals.clear();
        m_context.progress = [this, onInterval](const QVariantMap &data) {
            if (std::optional<Activity::Interval> interval = parseActivity(data.value(QString(progressActivity)).toByteArray())) {
                m_intervals.push_back(std::move(*interval));
            }
            if (onInterval) {
                onInterval();
            }
        };
        return activityAction({{QString(keySeconds), seconds}, {QString(keyIntervalMs), intervalMs}}, Caller{0}, m_context);
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("tracing needs root (tools/dev runs the tests as root in its build root)");
        }
        m_dir = TestUtil::scratchDir("activityhelpertest");
        m_view = m_dir + "/tracefs-view";
        QVERIFY(std::filesystem::create_directories(m_view));
        QVERIFY2(mount("nodev", m_view.c_str(), "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0, strerror(errno));
        QVERIFY(cachescopeInstances().isEmpty());
        m_context.log = [this](const QString &line) {
            m_log << line;
        };
    }

    void cleanupTestCase()
    {
        if (!m_view.empty()) {
            umount2(m_view.c_str(), MNT_DETACH);
        }
    }

    void init()
    {
        m_log.clear();
        m_context.progress = {};
        m_context.stopped = {};
    }

    // A process of a known name reads a 256 MiB evicted file: it is listed
    // with the file, 256 MiB brought in; the file is then evicted (by this
    // process: dropped, not reclaimed) and listed with 256 MiB evicted; a
    // process that writes a new 64 MiB file is listed with 64 MiB dirtied.
    // Both named while they still run, the file by its path.
    void readEvictAndWriteAreCountedByProcessAndFile()
    {
        const std::string cold = m_dir + "/cold-256.bin";
        TestUtil::makeColdFile(cold, 256 * MiB);
        struct stat coldStat{};
        QVERIFY(stat(cold.c_str(), &coldStat) == 0);
        const std::string written = m_dir + "/written-64.bin";
        unlink(written.c_str());
        Worker reader("cs-reader", [&cold] {
            readWhole(cold);
        });
        Worker writer("cs-writer", [&written] {
            writeNew(written, 64 * MiB);
        });
        QVERIFY(reader.pid() > 0 && writer.pid() > 0);
        const std::optional<int> readerPid = hostPidOf(reader.pid()).pid;
        const std::optional<int> writerPid = hostPidOf(writer.pid()).pid;
        const std::optional<int> selfPid = hostPidOf(int(getpid())).pid;
        QVERIFY(readerPid && writerPid && selfPid);
        TestUtil::evictRaw(cold);
        bool evicted = false;
        // The script, one step an interval: read; once read, evict and write.
        const ActionReply reply = activity(30, 250, [&] {
            if (!reader.started()) {
                reader.start();
            } else if (reader.done() && !evicted) {
                TestUtil::evictRaw(cold);
                evicted = true;
                writer.start();
            } else if (evicted && writer.done()) {
                m_context.stopped = [] {
                    return true;
                };
            }
        });
        m_context.stopped = {};
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QVERIFY2(evicted && writer.done(), "the script did not run to its end within 30 s");
        QCOMPARE(reply.data().value(QString(replyEndReason)).toString(), QStringLiteral("cancelled"));
        const std::optional<Activity::Interval> totals = parseActivity(reply.data().value(QString(replyActivity)).toByteArray());
        QVERIFY(totals);
        QVERIFY(m_intervals.size() >= 2);
        const uint64_t coldPages = 256 * MiB / pageBytes;

        const Activity::ProcessActivity *readerEntry = processOf(*totals, *readerPid);
        QVERIFY2(readerEntry, "the reader is not listed");
        QCOMPARE(QString::fromStdString(readerEntry->command), QStringLiteral("cs-reader"));
        QCOMPARE(readerEntry->uid, int64_t(0));
        // Every page of the file, and nothing past its end.
        QVERIFY2(readerEntry->figures.addedPages >= coldPages && readerEntry->figures.addedPages <= coldPages + 64,
                 qPrintable(QString::number(readerEntry->figures.addedPages)));

        const Activity::FileActivity *fileEntry = fileOf(*totals, coldStat);
        QVERIFY2(fileEntry, "the file is not listed");
        QCOMPARE(QString::fromStdString(fileEntry->path), QString::fromStdString(cold));
        QCOMPARE(fileEntry->figures.addedPages, coldPages);
        QCOMPARE(fileEntry->topAdder, *readerPid);
        // The eviction: every page the read brought in went again, dropped
        // by this process (fadvise); a few may have gone before it to the
        // machine's DAMON (kdamond: reclaimed, as kswapd's would be).
        QVERIFY2(fileEntry->figures.evictedPages() >= coldPages - 64, qPrintable(QString::number(fileEntry->figures.evictedPages())));
        const Activity::ProcessActivity *evictor = processOf(*totals, *selfPid);
        QVERIFY2(evictor, "this process is not listed with the eviction");
        QVERIFY2(evictor->figures.droppedPages + fileEntry->figures.reclaimedPages >= coldPages - 64,
                 qPrintable(QString::number(evictor->figures.droppedPages)));
        QVERIFY2(fileEntry->figures.reclaimedPages < coldPages / 8, qPrintable(QString::number(fileEntry->figures.reclaimedPages)));

        const Activity::ProcessActivity *writerEntry = processOf(*totals, *writerPid);
        QVERIFY2(writerEntry, "the writer is not listed");
        QCOMPARE(QString::fromStdString(writerEntry->command), QStringLiteral("cs-writer"));
        const uint64_t writtenPages = 64 * MiB / pageBytes;
        // The file's own pages; the process's a few more (the file
        // system's metadata it dirtied in passing).
        struct stat writtenStat{};
        QVERIFY(stat(written.c_str(), &writtenStat) == 0);
        const Activity::FileActivity *writtenEntry = fileOf(*totals, writtenStat);
        QVERIFY2(writtenEntry, "the written file is not listed");
        QVERIFY2(writtenEntry->figures.dirtiedPages >= writtenPages * 95 / 100 && writtenEntry->figures.dirtiedPages <= writtenPages,
                 qPrintable(QString::number(writtenEntry->figures.dirtiedPages)));
        QVERIFY2(writerEntry->figures.dirtiedPages >= writtenEntry->figures.dirtiedPages && writerEntry->figures.dirtiedPages <= writtenPages + 64,
                 qPrintable(QString::number(writerEntry->figures.dirtiedPages)));
        QCOMPARE(totals->lostEvents, uint64_t(0));
        QVERIFY2(cachescopeInstances().isEmpty(), qPrintable(cachescopeInstances().join(QLatin1Char(' '))));
        QCOMPARE(m_log.size(), 1);
        QVERIFY2(m_log.front().contains(QLatin1String("action=activity uid=0")), qPrintable(m_log.front()));
        unlink(written.c_str());
        unlink(cold.c_str());
    }

    // A reader in a memory cgroup limited to 32 MiB (cachescope-cli run
    // --cache-limit) reads 128 MiB: the cgroup's reclaim runs in the
    // reader's context, so the reader is named the reclaimer, with the file
    // among what it pushed out, and the file's pages count as reclaimed,
    // not dropped.
    void reclaimInALimitedCgroupNamesTheReclaimer()
    {
        const std::string cold = m_dir + "/cold-128.bin";
        TestUtil::makeColdFile(cold, 128 * MiB);
        struct stat coldStat{};
        QVERIFY(stat(cold.c_str(), &coldStat) == 0);
        TestUtil::evictRaw(cold);
        const QByteArray cli = TestUtil::cliPath().toLocal8Bit();
        pid_t run = -1;
        const ActionReply reply = activity(60, 250, [&] {
            if (run < 0) {
                run = fork();
                if (run == 0) {
                    const int quiet = open("/dev/null", O_WRONLY);
                    dup2(quiet, 1);
                    dup2(quiet, 2);
                    const std::string input = "if=" + cold;
                    execl(cli.constData(),
                          "cachescope-cli",
                          "run",
                          "--cache-limit",
                          "32M",
                          "--",
                          "/usr/bin/dd",
                          input.c_str(),
                          "of=/dev/null",
                          "bs=1M",
                          static_cast<char *>(nullptr));
                    _exit(127);
                }
            } else if (run > 0 && waitpid(run, &m_runStatus, WNOHANG) == run) {
                run = 0;
                m_context.stopped = [] {
                    return true;
                };
            }
        });
        m_context.stopped = {};
        if (run > 0) {
            kill(run, SIGKILL);
            waitpid(run, &m_runStatus, 0);
        }
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QVERIFY2(WIFEXITED(m_runStatus) && WEXITSTATUS(m_runStatus) == 0, "cachescope-cli run did not read the file");
        const std::optional<Activity::Interval> totals = parseActivity(reply.data().value(QString(replyActivity)).toByteArray());
        QVERIFY(totals);
        const Activity::FileActivity *file = fileOf(*totals, coldStat);
        QVERIFY2(file, "the file is not listed");
        QCOMPARE(file->figures.addedPages, 128 * MiB / pageBytes);
        // At least what did not fit under the limit went again.
        QVERIFY2(file->figures.reclaimedPages >= (128 - 32) * MiB / pageBytes / 2, qPrintable(QString::number(file->figures.reclaimedPages)));
        const auto reclaimer = std::find_if(totals->processes.begin(), totals->processes.end(), [&](const Activity::ProcessActivity &process) {
            return process.command == "dd" && process.figures.reclaimedPages > 0;
        });
        if (reclaimer == totals->processes.end()) {
            for (const Activity::ProcessActivity &process : totals->processes) {
                qWarning("pid %d %s added %llu reclaimed %llu dropped %llu",
                         process.pid,
                         process.command.c_str(),
                         (unsigned long long)process.figures.addedPages,
                         (unsigned long long)process.figures.reclaimedPages,
                         (unsigned long long)process.figures.droppedPages);
            }
        }
        QVERIFY2(reclaimer != totals->processes.end(), "the reader is not named as a reclaimer");
        QVERIFY(!reclaimer->reclaimThread);
        const bool pushedOut = std::any_of(reclaimer->pushedOut.begin(), reclaimer->pushedOut.end(), [&](const auto &entry) {
            return entry.first.device == uint64_t(coldStat.st_dev) && entry.first.inode == uint64_t(coldStat.st_ino);
        });
        QVERIFY2(pushedOut, "the file is not among what the reader pushed out");
        QVERIFY(cachescopeInstances().isEmpty());
        unlink(cold.c_str());
    }

    // Events the kernel's buffer could not keep are counted, never dropped
    // silently: with a buffer of 8 KiB a CPU, 4,000 small files read at
    // once overflow it between two reads.
    void lostEventsAreCounted()
    {
        const std::string folder = m_dir + "/many";
        std::filesystem::remove_all(folder);
        QVERIFY(std::filesystem::create_directories(folder));
        for (int i = 0; i < 4000; ++i) {
            const std::string path = folder + "/" + std::to_string(i);
            const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            QVERIFY(fd >= 0 && write(fd, "x", 1) == 1);
            close(fd);
        }
        sync();
        for (int i = 0; i < 4000; ++i) {
            TestUtil::evictRaw(folder + "/" + std::to_string(i));
        }
        m_context.activityBufferKiB = 8;
        bool read = false;
        const ActionReply reply = activity(3, 1000, [&] {
            if (!read) {
                read = true;
                for (int i = 0; i < 4000; ++i) {
                    readWhole(folder + "/" + std::to_string(i));
                }
            }
        });
        m_context.activityBufferKiB = activityBufferKiBPerCpu;
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const std::optional<Activity::Interval> totals = parseActivity(reply.data().value(QString(replyActivity)).toByteArray());
        QVERIFY(totals);
        QVERIFY2(totals->lostEvents > 0, "4,000 reads into 8 KiB a CPU lost nothing: the test proves nothing");
        QVERIFY2(m_log.front().contains(QLatin1String(",lost=")) && !m_log.front().contains(QLatin1String(",lost=0,")), qPrintable(m_log.front()));
        QVERIFY(cachescopeInstances().isEmpty());
        std::filesystem::remove_all(folder);
    }

    // The deadline ends a run with its totals; the instance is gone.
    void theDeadlineEndsTheRun()
    {
        const ActionReply reply = activity(1, 200);
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(reply.data().value(QString(replyEndReason)).toString(), QStringLiteral("deadline"));
        QVERIFY(m_intervals.size() >= 3);
        QVERIFY(cachescopeInstances().isEmpty());
    }

    void refusesBadArguments_data()
    {
        QTest::addColumn<QVariantMap>("arguments");
        QTest::newRow("no interval") << QVariantMap{{QString(keySeconds), 5}};
        QTest::newRow("no seconds") << QVariantMap{{QString(keyIntervalMs), 1000}};
        QTest::newRow("zero seconds") << QVariantMap{{QString(keySeconds), 0}, {QString(keyIntervalMs), 1000}};
        QTest::newRow("over an hour") << QVariantMap{{QString(keySeconds), maxActivitySeconds + 1}, {QString(keyIntervalMs), 1000}};
        QTest::newRow("interval too short") << QVariantMap{{QString(keySeconds), 5}, {QString(keyIntervalMs), minActivityIntervalMs - 1}};
        QTest::newRow("interval too long") << QVariantMap{{QString(keySeconds), 5}, {QString(keyIntervalMs), maxActivityIntervalMs + 1}};
        QTest::newRow("a text") << QVariantMap{{QString(keySeconds), QStringLiteral("5")}, {QString(keyIntervalMs), 1000}};
        QTest::newRow("an extra key") << QVariantMap{{QString(keySeconds), 5}, {QString(keyIntervalMs), 1000}, {QString(keyPid), 1}};
    }

    // docs/helper-security.md rule 19: refused with nothing started.
    void refusesBadArguments()
    {
        QFETCH(QVariantMap, arguments);
        bool progressed = false;
        m_context.progress = [&progressed](const QVariantMap &) {
            progressed = true;
        };
        const ActionReply reply = activityAction(arguments, Caller{4201}, m_context);
        QVERIFY(reply.failed());
        QCOMPARE(reply.error(), int(InvalidArgument));
        QVERIFY(!progressed);
        QVERIFY(cachescopeInstances().isEmpty());
    }
};

QTEST_GUILESS_MAIN(ActivityHelperTest)

#include "activityhelpertest.moc"
