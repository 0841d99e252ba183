// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The helper's trace action in-process, on the real kernel, as root (the
// in-process root client's way: caller 0) and for other users' processes
// (becomeUser children): real tracefs, real reads of an evicted file in a
// disk-backed folder, and after every way out (exit, cancel, deadline,
// refusal) no cachescope-* instance and no event left enabled. The test
// looks at tracefs through a mount of its own (tracefs has one tree
// however often it is mounted), removed at the end.

#include "actionsupport.h"
#include "heldprocess.h"
#include "helperactions.h"
#include "helperprotocol.h"
#include "helpertestsupport.h"
#include "pidnamespace.h"
#include "privileged.h"
#include "testutil.h"
#include "tracecapture.h"
#include "tracefs.h"

#include <QDir>
#include <QRandomGenerator>
#include <QTest>

#include <fcntl.h>
#include <grp.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

using namespace Cachescope;
using namespace Cachescope::Helper;
using namespace Cachescope::HelperProtocol;

namespace
{

constexpr uint64_t MiB = 1 << 20;

// The capture a successful trace reply holds.
std::optional<Trace::Capture> captureOf(const ActionReply &reply)
{
    return parseCapture(reply.data().value(QString(replyCapture)).toByteArray());
}

// The pages [first, first + count) of inode that Added events cover.
bool addedCovers(const Trace::Capture &capture, uint64_t inode, uint64_t page)
{
    for (const Trace::RawEvent &event : capture.events) {
        if (event.kind == Trace::EventKind::Added && event.inode == inode && page >= event.firstPage && page < event.firstPage + event.pageCount) {
            return true;
        }
    }
    return false;
}

} // namespace

using TestUtil::HeldProcess;

class TraceHelperTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;
    std::string m_view; // the test's own tracefs mount
    std::string m_file;
    struct stat m_fileStat{};
    QStringList m_log;
    HelperContext m_context;
    QString m_dd;
    QString m_sh;

    // Caller 0 is root itself, as the in-process root client calls it.
    ActionReply trace(const QVariantMap &args, int callerUid = 0)
    {
        return traceAction(args, Caller{uint32_t(callerUid)}, m_context);
    }

    QVariantMap arguments(int pid, int seconds)
    {
        return {{QString(keyPid), pid}, {QString(keySeconds), seconds}};
    }

    QStringList cachescopeInstances()
    {
        return QDir(QString::fromStdString(m_view + "/instances")).entryList({QStringLiteral("cachescope-*")}, QDir::Dirs | QDir::NoDotAndDotDot);
    }

    QByteArray globalFile(const char *name)
    {
        QFile file(QString::fromStdString(m_view + "/" + name));
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("unreadable");
    }

    // Nothing of a trace is left: no instance of the pattern, and the
    // global buffer's events, pid filter and switch as the test found them.
    void verifyNothingLeft()
    {
        QVERIFY2(cachescopeInstances().isEmpty(), qPrintable(cachescopeInstances().join(QLatin1Char(' '))));
        QCOMPARE(globalFile("set_event"), m_globalSetEvent);
        QCOMPARE(globalFile("set_event_pid"), m_globalSetEventPid);
        QCOMPARE(globalFile("tracing_on"), m_globalTracingOn);
        // The helper unmounted what it mounted: /sys/kernel/tracing is as before.
        struct statfs fs{};
        QVERIFY(statfs("/sys/kernel/tracing", &fs) == 0);
        QCOMPARE(static_cast<unsigned long>(fs.f_type) == TRACEFS_MAGIC, m_tracefsMountedBefore);
    }
    bool m_tracefsMountedBefore = false;
    QByteArray m_globalSetEvent;
    QByteArray m_globalSetEventPid;
    QByteArray m_globalTracingOn;

private Q_SLOTS:
    void initTestCase()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("tracing needs root (tools/dev runs the tests as root in its build root)");
        }
        m_dir = TestUtil::scratchDir("tracehelpertest");
        m_view = m_dir + "/tracefs-view";
        QVERIFY(std::filesystem::create_directories(m_view));
        QVERIFY2(mount("nodev", m_view.c_str(), "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0, strerror(errno));
        struct statfs fs{};
        m_tracefsMountedBefore = statfs("/sys/kernel/tracing", &fs) == 0 && static_cast<unsigned long>(fs.f_type) == TRACEFS_MAGIC;
        m_globalSetEvent = globalFile("set_event");
        m_globalSetEventPid = globalFile("set_event_pid");
        m_globalTracingOn = globalFile("tracing_on");
        QVERIFY(cachescopeInstances().isEmpty());
        m_file = m_dir + "/traced.bin";
        TestUtil::makeColdFile(m_file, 4 * MiB);
        QVERIFY(stat(m_file.c_str(), &m_fileStat) == 0);
        m_dd = QStringLiteral("/usr/bin/dd");
        m_sh = QStringLiteral("/bin/sh");
        QVERIFY(QFile::exists(m_dd) && QFile::exists(m_sh));
        m_context.log = [this](const QString &line) {
            m_log << line;
        };
        verifyNothingLeft();
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

    // A process held before exec reads 64 KiB of an evicted file: the trace
    // has the file's pages coming in, more than were asked for (readahead).
    void tracesAReadOfAnEvictedFile()
    {
        TestUtil::evictRaw(m_file);
        HeldProcess held(TestUtil::ddReading(m_file));
        QVERIFY(held.pid() > 0);
        int tracingOn = 0;
        m_context.progress = [&](const QVariantMap &data) {
            if (data.value(QString(progressTracing)).toBool()) {
                ++tracingOn;
                held.release();
            }
        };
        const ActionReply reply = trace(arguments(held.pid(), 20));
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(tracingOn, 1);
        QCOMPARE(held.wait(), 0);
        const std::optional<Trace::Capture> capture = captureOf(reply);
        QVERIFY(capture);
        QCOMPARE(QString::fromStdString(capture->endReason), QStringLiteral("exited"));
        QVERIFY(capture->usageEvents); // this kernel (6.18) has all of them
        uint64_t added = 0;
        for (const Trace::RawEvent &event : capture->events) {
            if (event.kind == Trace::EventKind::Added && event.inode == uint64_t(m_fileStat.st_ino)) {
                QCOMPARE(event.major, uint32_t(major(m_fileStat.st_dev)));
                QCOMPARE(event.minor, uint32_t(minor(m_fileStat.st_dev)));
                added += event.pageCount;
            }
        }
        QVERIFY(addedCovers(*capture, m_fileStat.st_ino, 0));
        QVERIFY(addedCovers(*capture, m_fileStat.st_ino, 15)); // the whole 64 KiB came in
        QVERIFY2(added >= 16, qPrintable(QString::number(added)));
        // The capture alone: nothing else of the helper's rides along.
        QCOMPARE(reply.data().keys(), (QStringList{QString(replyCapture)}));
        QCOMPARE(m_log.size(), 1);
        QVERIFY2(HelperTest::auditFormat.match(m_log.front()).hasMatch(), qPrintable(m_log.front()));
        QVERIFY2(m_log.front().contains(QLatin1String("end=exited")) && m_log.front().contains(QLatin1String("uid=0")), qPrintable(m_log.front()));
        verifyNothingLeft();
    }

    // event-fork: the held shell's child (dd) is traced; another process
    // reading the same file meanwhile is not.
    void tracesChildrenButNotOthers()
    {
        TestUtil::evictRaw(m_file);
        HeldProcess held({m_sh,
                          QStringLiteral("-c"),
                          QStringLiteral("%1 if=\"$0\" of=/dev/null bs=64k count=1 status=none; true").arg(m_dd),
                          QString::fromStdString(m_file)});
        const std::optional<int> heldHostPid = hostPidOf(held.pid()).pid;
        QVERIFY(heldHostPid);
        std::optional<int> otherHostPid;
        m_context.progress = [&](const QVariantMap &data) {
            if (!data.value(QString(progressTracing)).toBool()) {
                return;
            }
            // Another process reads 64 KiB at 2 MiB while the trace records,
            // and has ended before the traced one starts.
            HeldProcess other(TestUtil::ddReading(m_file, 32));
            otherHostPid = hostPidOf(other.pid()).pid;
            other.release();
            (void)other.wait();
            held.release();
        };
        const ActionReply reply = trace(arguments(held.pid(), 20));
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(held.wait(), 0);
        QVERIFY(otherHostPid);
        const std::optional<Trace::Capture> capture = captureOf(reply);
        QVERIFY(capture);
        QCOMPARE(QString::fromStdString(capture->endReason), QStringLiteral("exited"));
        bool childAdded = false;
        for (const Trace::RawEvent &event : capture->events) {
            QVERIFY2(event.pid != *otherHostPid, "an event of the other process was traced");
            if (event.kind == Trace::EventKind::Added && event.inode == uint64_t(m_fileStat.st_ino) && event.pid != *heldHostPid) {
                childAdded = true;
            }
        }
        QVERIFY2(childAdded, "the held shell's child dd read the file, but no page of it was traced for it");
        QVERIFY(addedCovers(*capture, m_fileStat.st_ino, 0));
        QVERIFY(!addedCovers(*capture, m_fileStat.st_ino, 2 * MiB / 4096)); // the other's read
        verifyNothingLeft();
    }

    // docs/helper-security.md rule 16: evictions a traced task causes of a
    // file it never read (here dd's fadvise of another file; in life the
    // reclaim that runs in its context) are withheld: they tell which files
    // others have cached.
    void evictionsOfFilesItNeverReadAreWithheld()
    {
        TestUtil::evictRaw(m_file);
        const std::string other = m_dir + "/other-cached.bin";
        TestUtil::makeColdFile(other, 256 * 1024);
        {
            std::ifstream in(other, std::ios::binary);
            std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        }
        QVERIFY(TestUtil::pagesNow(other).resident > 0);
        struct stat otherStat{};
        QCOMPARE(stat(other.c_str(), &otherStat), 0);
        HeldProcess held({m_sh,
                          QStringLiteral("-c"),
                          QStringLiteral("%1 if=\"$0\" of=/dev/null bs=64k count=1 status=none; %1 if=\"$1\" iflag=nocache count=0 status=none").arg(m_dd),
                          QString::fromStdString(m_file),
                          QString::fromStdString(other)});
        m_context.progress = [&](const QVariantMap &) {
            held.release();
        };
        const ActionReply reply = trace(arguments(held.pid(), 20));
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QCOMPARE(held.wait(), 0);
        // The traced process did evict it: there was something to withhold.
        QCOMPARE(TestUtil::pagesNow(other).resident, uint64_t(0));
        const std::optional<Trace::Capture> capture = captureOf(reply);
        QVERIFY(capture);
        for (const Trace::RawEvent &event : capture->events) {
            QVERIFY2(event.inode != uint64_t(otherStat.st_ino) || event.kind == Trace::EventKind::BlockIssue, "an event of a file the task never read");
        }
        QVERIFY(addedCovers(*capture, m_fileStat.st_ino, 0));
        unlink(other.c_str());
        verifyNothingLeft();
    }

    // The same rule on a capture made up here (this kernel records no
    // eviction an fadvise causes, so the real one above may have none to
    // withhold): evictions of an inode only evicted go, those of an inode
    // read stay, and a foreign task's events all go.
    void withheldEventsOfACapture()
    {
        const auto event = [](Trace::EventKind kind, int pid, uint64_t inode) {
            Trace::RawEvent e;
            e.kind = kind;
            e.pid = pid;
            e.major = 8;
            e.minor = 1;
            e.inode = inode;
            e.pageCount = 1;
            return e;
        };
        Trace::Capture capture;
        capture.events = {event(Trace::EventKind::Added, 10, 1),
                          event(Trace::EventKind::Deleted, 10, 1),
                          event(Trace::EventKind::Deleted, 10, 2),
                          event(Trace::EventKind::Deleted, 11, 3),
                          event(Trace::EventKind::Added, 12, 4),
                          event(Trace::EventKind::GetPages, 12, 4),
                          event(Trace::EventKind::Deleted, 10, 4)};
        QCOMPARE(dropEventsNotTheCallers(capture, {12}), size_t(5));
        QCOMPARE(capture.events.size(), size_t(2));
        for (const Trace::RawEvent &kept : capture.events) {
            QCOMPARE(kept.inode, uint64_t(1));
            QCOMPARE(kept.pid, 10);
        }
    }

    // docs/helper-security.md rule 16: a traced task that execs a
    // set-user-ID program stops being the caller's: the trace ends
    // ("credentials") and none of that task's events are returned.
    void aTaskThatBecomesRootsEndsTheTrace()
    {
        const std::optional<uint32_t> user = TestUtil::testUserUid();
        if (!user || access("/usr/bin/passwd", X_OK) != 0) {
            QSKIP("needs cachescope-user and /usr/bin/passwd (tools/dev's root has both)");
        }
        int go[2];
        int prompt[2];
        int became[2];
        QVERIFY(pipe(go) == 0 && pipe(prompt) == 0 && pipe(became) == 0);
        const uid_t uid = *user;
        const pid_t child = fork();
        if (child == 0) {
            close(go[1]);
            close(prompt[1]);
            close(became[0]);
            if (!TestUtil::becomeUser(uid)) {
                _exit(126);
            }
            (void)!write(became[1], "u", 1);
            close(became[1]);
            char byte = 0;
            if (read(go[0], &byte, 1) != 1) {
                _exit(125);
            }
            dup2(prompt[0], 0); // held at its password prompt
            const int quiet = open("/dev/null", O_WRONLY);
            dup2(quiet, 1);
            dup2(quiet, 2);
            execl("/usr/bin/passwd", "passwd", static_cast<char *>(nullptr));
            _exit(127);
        }
        close(go[0]);
        close(prompt[0]);
        close(became[1]);
        // The trace is asked for once the child is the user's.
        char byte = 0;
        QCOMPARE(read(became[0], &byte, 1), ssize_t(1));
        close(became[0]);
        const std::optional<int> hostPid = hostPidOf(child).pid;
        m_context.progress = [&](const QVariantMap &) {
            (void)!write(go[1], "g", 1);
        };
        const ActionReply reply = trace(arguments(child, 20), int(uid));
        close(go[1]);
        close(prompt[1]);
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const std::optional<Trace::Capture> capture = captureOf(reply);
        QVERIFY(capture);
        QCOMPARE(QString::fromStdString(capture->endReason), QStringLiteral("credentials"));
        QVERIFY(hostPid);
        for (const Trace::RawEvent &event : capture->events) {
            QVERIFY2(event.pid != *hostPid, "an event of the task that became root's was returned");
        }
        verifyNothingLeft();
    }

    // docs/helper-security.md rule 16: a traced task's child that execs a
    // set-user-ID program which ends at once (passwd --help), before any
    // 100 ms check could see it. The exec watch looks at it within moments:
    // either it is still there (the trace ends, "credentials") or it is gone
    // unchecked (its events are withheld and counted); never are its events
    // returned. Its binary is evicted first so that it has events.
    void aSetUidProgramThatEndsAtOnceIsNotReturned()
    {
        const std::optional<uint32_t> user = TestUtil::testUserUid();
        if (!user || access("/usr/bin/passwd", X_OK) != 0) {
            QSKIP("needs cachescope-user and /usr/bin/passwd (tools/dev's root has both)");
        }
        int go[2];
        int became[2];
        int reported[2];
        int release[2];
        QVERIFY(pipe(go) == 0 && pipe(became) == 0 && pipe(reported) == 0 && pipe(release) == 0);
        const uid_t uid = *user;
        const pid_t child = fork();
        if (child == 0) {
            close(go[1]);
            close(became[0]);
            close(reported[0]);
            close(release[1]);
            if (!TestUtil::becomeUser(uid)) {
                _exit(126);
            }
            (void)!write(became[1], "u", 1);
            close(became[1]);
            char byte = 0;
            if (read(go[0], &byte, 1) != 1) {
                _exit(125);
            }
            const pid_t grandchild = fork();
            if (grandchild == 0) {
                const pid_t self = getpid();
                (void)!write(reported[1], &self, sizeof self);
                if (read(release[0], &byte, 1) != 1) {
                    _exit(125);
                }
                const int quiet = open("/dev/null", O_WRONLY);
                dup2(quiet, 1);
                dup2(quiet, 2);
                execl("/usr/bin/passwd", "passwd", "--help", static_cast<char *>(nullptr));
                _exit(127);
            }
            int status = 0;
            waitpid(grandchild, &status, 0);
            _exit(WIFEXITED(status) && WEXITSTATUS(status) < 125 ? 0 : 1);
        }
        close(go[0]);
        close(became[1]);
        close(reported[1]);
        close(release[0]);
        char byte = 0;
        QCOMPARE(read(became[0], &byte, 1), ssize_t(1));
        close(became[0]);
        TestUtil::evictRaw("/usr/bin/passwd");
        // The grandchild's pid as tracefs numbers it, taken while it waits
        // before its exec; then it is let go.
        std::optional<int> grandchildHostPid;
        std::thread watcher([&] {
            pid_t grandchild = 0;
            if (read(reported[0], &grandchild, sizeof grandchild) == ssize_t(sizeof grandchild)) {
                grandchildHostPid = hostPidOf(grandchild).pid;
            }
            (void)!write(release[1], "r", 1);
        });
        m_context.progress = [&](const QVariantMap &) {
            (void)!write(go[1], "g", 1);
        };
        const ActionReply reply = trace(arguments(child, 20), int(uid));
        close(go[1]);
        int status = 0;
        waitpid(child, &status, 0);
        watcher.join();
        close(reported[0]);
        close(release[1]);
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the grandchild did not run passwd");
        QVERIFY(grandchildHostPid);
        const std::optional<Trace::Capture> capture = captureOf(reply);
        QVERIFY(capture);
        for (const Trace::RawEvent &event : capture->events) {
            QVERIFY2(event.pid != *grandchildHostPid, "an event of the set-user-ID program was returned");
        }
        const QString line = m_log.front();
        QVERIFY2(capture->endReason == "credentials" || !line.contains(QLatin1String("unchecked-tasks=0")), qPrintable(line));
        verifyNothingLeft();
    }

    // docs/helper-security.md rule 16: a traced task that makes itself
    // undumpable (PR_SET_DUMPABLE 0, as a program with file capabilities is
    // made at its exec) stops being the caller's to trace: the trace ends
    // ("credentials"). The check looked at the owner of /proc/PID, which the
    // kernel keeps the euid's whatever the dumpability, and never saw it.
    void aTaskThatBecomesUndumpableEndsTheTrace()
    {
        const std::optional<uint32_t> user = TestUtil::testUserUid();
        if (!user) {
            QSKIP("needs cachescope-user (tools/dev's root has it)");
        }
        int go[2];
        int became[2];
        QVERIFY(pipe(go) == 0 && pipe(became) == 0);
        const pid_t child = fork();
        if (child == 0) {
            close(go[1]);
            close(became[0]);
            if (!TestUtil::becomeUser(*user)) {
                _exit(126);
            }
            (void)!write(became[1], "u", 1);
            char byte = 0;
            if (read(go[0], &byte, 1) != 1) {
                _exit(125);
            }
            prctl(PR_SET_DUMPABLE, 0);
            sleep(5);
            _exit(0);
        }
        close(go[0]);
        close(became[1]);
        char byte = 0;
        QCOMPARE(read(became[0], &byte, 1), ssize_t(1));
        close(became[0]);
        m_context.progress = [&](const QVariantMap &) {
            (void)!write(go[1], "g", 1);
        };
        const ActionReply reply = trace(arguments(child, 20), int(*user));
        close(go[1]);
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const std::optional<Trace::Capture> capture = captureOf(reply);
        QVERIFY(capture);
        QCOMPARE(QString::fromStdString(capture->endReason), QStringLiteral("credentials"));
        verifyNothingLeft();
    }

    // The event cap ends the trace: exactly that many events are kept, the
    // rest of the buffer counts as lost, and the instance goes.
    void eventLimitEndsTheTrace()
    {
        TestUtil::evictRaw(m_file);
        HeldProcess held(TestUtil::ddReading(m_file));
        m_context.progress = [&held](const QVariantMap &) {
            held.release();
        };
        m_context.traceEventLimit = 3;
        const ActionReply reply = trace(arguments(held.pid(), 20));
        m_context.traceEventLimit = maxTraceEvents;
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const std::optional<Trace::Capture> capture = captureOf(reply);
        QVERIFY(capture);
        QCOMPARE(QString::fromStdString(capture->endReason), QStringLiteral("event limit"));
        QCOMPARE(capture->events.size(), size_t(3));
        QVERIFY2(m_log.front().contains(QLatin1String("end=event-limit")), qPrintable(m_log.front()));
        verifyNothingLeft();
    }

    // Each way out removes the instance: cancel, the deadline, an early exit.
    void everyWayOutCleansUp_data()
    {
        QTest::addColumn<QString>("way");
        QTest::newRow("cancelled") << QStringLiteral("cancelled");
        QTest::newRow("deadline") << QStringLiteral("deadline");
        QTest::newRow("exited") << QStringLiteral("exited");
    }

    void everyWayOutCleansUp()
    {
        QFETCH(QString, way);
        // Never released for cancel and deadline: it waits on its pipe.
        HeldProcess held({QStringLiteral("/bin/true")});
        bool on = false;
        m_context.progress = [&](const QVariantMap &data) {
            on = data.value(QString(progressTracing)).toBool();
            if (way == QLatin1String("exited")) {
                held.release();
            }
        };
        if (way == QLatin1String("cancelled")) {
            m_context.stopped = [&on] {
                return on;
            };
        }
        const ActionReply reply = trace(arguments(held.pid(), way == QLatin1String("exited") ? 20 : 1));
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QVERIFY(on);
        const std::optional<Trace::Capture> capture = captureOf(reply);
        QVERIFY(capture);
        QCOMPARE(QString::fromStdString(capture->endReason), way);
        verifyNothingLeft();
    }

    // An instance of the pattern whose helper is gone is removed at the next
    // trace; one of a live process and one of another name are not touched.
    // The exec watch's lines: the pid after the kernel's "task_rename:
    // pid=", whatever the command names around it hold (15 bytes at most,
    // any byte but NUL: spaces, dashes, a line break); a line of the event
    // whose pid cannot be read is still known as one (a lost exec).
    void execWatchLines_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<bool>("isExec");
        QTest::addColumn<qlonglong>("pid");
        QTest::newRow("the kernel's") << QByteArray(
            "           bash-4242    [001] .....   123.456789: task_rename: pid=4242 oldcomm=bash newcomm=passwd oom_score_adj=0")
                                      << true << 4242LL;
        QTest::newRow("a command with spaces and a false pid")
            << QByteArray("  a pid=1 b-777 [000] ..... 1.0: task_rename: pid=777 oldcomm=a pid=1 b newcomm=x pid=2 oom_score_adj=0") << true << 777LL;
        QTest::newRow("the part after a line break in a command") << QByteArray("x task_rename: pid=31 oldcomm=y newcomm=z oom_score_adj=0") << true << 31LL;
        QTest::newRow("the part before it") << QByteArray("      evil") << false << 0LL;
        QTest::newRow("a pid that is no number") << QByteArray("a-1 [0] 1.0: task_rename: pid=12x oldcomm=a newcomm=b") << true << 0LL;
        QTest::newRow("pid 0") << QByteArray("a-1 [0] 1.0: task_rename: pid=0 oldcomm=a newcomm=b") << true << 0LL;
        QTest::newRow("a pid past 2^31") << QByteArray("a-1 [0] 1.0: task_rename: pid=4294967296 oldcomm=a") << true << 0LL;
        QTest::newRow("another event") << QByteArray("a-1 [0] 1.0: sched_process_exec: filename=/x pid=5 old_pid=5") << false << 0LL;
    }

    void execWatchLines()
    {
        QFETCH(QByteArray, line);
        QFETCH(bool, isExec);
        QFETCH(qlonglong, pid);
        const std::string_view text(line.constData(), size_t(line.size()));
        QCOMPARE(isExecLine(text), isExec);
        const std::optional<int64_t> read = execedPid(text);
        QCOMPARE(read.has_value(), pid != 0);
        if (read) {
            QCOMPARE(qlonglong(*read), pid);
        }
    }

    void removesStaleInstances()
    {
        std::optional<int> deadHostPid;
        {
            HeldProcess gone({QStringLiteral("/bin/true")});
            deadHostPid = hostPidOf(gone.pid()).pid;
        }
        QVERIFY(deadHostPid);
        const std::optional<int> liveHostPid = hostPidOf(getpid()).pid;
        QVERIFY(liveHostPid);
        const std::string instances = m_view + "/instances/";
        const std::string stale = instances + "cachescope-" + std::to_string(*deadHostPid) + "-1";
        const std::string live = instances + "cachescope-" + std::to_string(*liveHostPid) + "-999";
        const std::string foreign = instances + "cachescope-test-other";
        for (const std::string &path : {stale, live, foreign}) {
            QVERIFY2(mkdir(path.c_str(), 0700) == 0, path.c_str());
        }
        // Someone's events in the stale one: the cleanup disables them too.
        HelperTest::writeFile(stale + "/events/filemap/mm_filemap_fault/enable", "1");
        HeldProcess held({QStringLiteral("/bin/true")});
        m_context.progress = [&](const QVariantMap &) {
            held.release();
        };
        const ActionReply reply = trace(arguments(held.pid(), 20));
        struct stat st{};
        const bool staleLeft = stat(stale.c_str(), &st) == 0;
        const bool liveLeft = stat(live.c_str(), &st) == 0;
        const bool foreignLeft = stat(foreign.c_str(), &st) == 0;
        rmdir(live.c_str());
        rmdir(foreign.c_str());
        rmdir(stale.c_str());
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        QVERIFY(!staleLeft);
        QVERIFY(liveLeft);
        QVERIFY(foreignLeft);
        verifyNothingLeft();
    }

    // The client as root (docs/helper-security.md rule 15): the same action
    // in this process; tracingOn once, the capture opened, cancel honoured.
    void clientAsRootInProcess()
    {
        TestUtil::evictRaw(m_file);
        HeldProcess held(TestUtil::ddReading(m_file));
        int on = 0;
        const Privileged::TraceResult traced = Privileged::trace(
            held.pid(),
            20,
            [&] {
                ++on;
                held.release();
            },
            nullptr);
        QVERIFY2(traced.ok(), qPrintable(traced.message));
        QCOMPARE(on, 1);
        QCOMPARE(held.wait(), 0);
        QCOMPARE(QString::fromStdString(traced.capture.endReason), QStringLiteral("exited"));
        QVERIFY(addedCovers(traced.capture, m_fileStat.st_ino, 0));
        verifyNothingLeft();

        HeldProcess waiting({QStringLiteral("/bin/true")});
        std::atomic<bool> cancel{false};
        const Privileged::TraceResult cancelled = Privileged::trace(
            waiting.pid(),
            20,
            [&cancel] {
                cancel = true;
            },
            &cancel);
        QCOMPARE(cancelled.failure, Privileged::Failure::Cancelled);
        QVERIFY(cancelled.capture.events.empty());
        verifyNothingLeft();

        const Privileged::TraceResult refused = Privileged::trace(waiting.pid(), maxTraceSeconds + 1, {}, nullptr);
        QCOMPARE(refused.failure, Privileged::Failure::InvalidRequest);
        QVERIFY2(refused.message.contains(QLatin1String("out of range")), qPrintable(refused.message));
    }

    // A set-user-ID program (real uid the caller's, effective and saved
    // root's) and a process of the caller's that made itself not dumpable
    // are refused, before tracefs is touched.
    void refusesSetUidAndUndumpableProcesses()
    {
        const std::optional<uint32_t> user = TestUtil::testUserUid();
        if (!user) {
            QSKIP("no cachescope-user (tools/dev's root has it)");
        }
        const auto forked = [](const std::function<void()> &become) {
            int ready[2];
            if (pipe(ready) != 0) {
                return pid_t(-1);
            }
            const pid_t child = fork();
            if (child == 0) {
                close(ready[0]);
                become();
                (void)!write(ready[1], "r", 1);
                pause();
                _exit(0);
            }
            close(ready[1]);
            char byte = 0;
            (void)!read(ready[0], &byte, 1);
            close(ready[0]);
            return child;
        };
        const uid_t uid = *user;
        // As the kernel leaves a set-user-ID-root program run by the user.
        const pid_t setUid = forked([uid] {
            (void)!setresuid(uid, 0, 0);
        });
        const pid_t secret = forked([uid] {
            (void)!(setgroups(0, nullptr) == 0 && setresgid(uid, uid, uid) == 0 && setresuid(uid, uid, uid) == 0);
            prctl(PR_SET_DUMPABLE, 0);
        });
        QVERIFY(setUid > 0 && secret > 0);
        const ActionReply setUidReply = trace(arguments(setUid, 1), int(*user));
        const ActionReply secretReply = trace(arguments(secret, 1), int(*user));
        kill(setUid, SIGKILL);
        kill(secret, SIGKILL);
        waitpid(setUid, nullptr, 0);
        waitpid(secret, nullptr, 0);
        QCOMPARE(setUidReply.error(), int(NotPermitted));
        QVERIFY2(setUidReply.errorDescription().contains(QLatin1String("real, effective and saved")), qPrintable(setUidReply.errorDescription()));
        QCOMPARE(secretReply.error(), int(NotPermitted));
        QVERIFY2(secretReply.errorDescription().contains(QLatin1String("not dumpable")), qPrintable(secretReply.errorDescription()));
        QVERIFY(cachescopeInstances().isEmpty());
    }

    // Only processes whose real, effective and saved uid are the caller's.
    void refusesOtherUsersProcesses()
    {
        const std::optional<uint32_t> user = TestUtil::testUserUid();
        if (!user) {
            QSKIP("no cachescope-user (tools/dev's root has it)");
        }
        HeldProcess users({QStringLiteral("/bin/true")}, *user);
        HeldProcess roots({QStringLiteral("/bin/true")});
        // The child becomes the user after fork: wait until it has.
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(QStringLiteral("/proc/%1").arg(users.pid())).ownerId() == *user, 10000);
        bool started = false;
        m_context.progress = [&](const QVariantMap &) {
            started = true;
        };
        const ActionReply asRoot = trace(arguments(users.pid(), 1));
        QVERIFY(asRoot.failed());
        QCOMPARE(asRoot.error(), int(NotPermitted));
        QVERIFY2(asRoot.errorDescription().contains(QLatin1String("is not yours")), qPrintable(asRoot.errorDescription()));
        const ActionReply asUser = trace(arguments(roots.pid(), 1), int(*user));
        QVERIFY(asUser.failed());
        QCOMPARE(asUser.error(), int(NotPermitted));
        QVERIFY2(asUser.errorDescription().contains(QLatin1String("is not yours")), qPrintable(asUser.errorDescription()));
        // The user's own process passes the uid check (and is traced).
        m_context.progress = [&](const QVariantMap &) {
            started = true;
            users.release();
        };
        const ActionReply own = trace(arguments(users.pid(), 20), int(*user));
        QVERIFY2(own.succeeded(), qPrintable(own.errorDescription()));
        QVERIFY(started);
        verifyNothingLeft();
        for (const QString &line : std::as_const(m_log)) {
            QVERIFY2(HelperTest::auditFormat.match(line).hasMatch(), qPrintable(line));
        }
    }

    // Bad arguments are refused before anything happens: no instance made,
    // tracefs not even mounted, no progress.
    void refusesBadArguments_data()
    {
        QTest::addColumn<QVariantMap>("args");
        QTest::addColumn<int>("code");
        const int self = int(getpid());
        QTest::newRow("empty") << QVariantMap{} << int(InvalidArgument);
        QTest::newRow("no pid") << QVariantMap{{QString(keySeconds), 1}} << int(InvalidArgument);
        QTest::newRow("no seconds") << QVariantMap{{QString(keyPid), self}} << int(InvalidArgument);
        QTest::newRow("extra key: a tracefs path") << QVariantMap{{QString(keyPid), self},
                                                                  {QString(keySeconds), 1},
                                                                  {QStringLiteral("tracefs"), QStringLiteral("/tmp")}}
                                                   << int(InvalidArgument);
        QTest::newRow("extra key: an event") << QVariantMap{{QString(keyPid), self},
                                                            {QString(keySeconds), 1},
                                                            {QStringLiteral("event"), QStringLiteral("sched/sched_switch")}}
                                             << int(InvalidArgument);
        QVariantMap pidText = arguments(0, 1);
        pidText.insert(QString(keyPid), QString::number(self));
        QTest::newRow("pid as a string") << pidText << int(InvalidArgument);
        QVariantMap pidDouble = arguments(0, 1);
        pidDouble.insert(QString(keyPid), double(self));
        QTest::newRow("pid as a double") << pidDouble << int(InvalidArgument);
        QTest::newRow("pid 0") << arguments(0, 1) << int(InvalidArgument);
        QTest::newRow("pid -1") << arguments(-1, 1) << int(InvalidArgument);
        QTest::newRow("pid above the kernel's limit") << arguments(4194305, 1) << int(InvalidArgument);
        QTest::newRow("seconds 0") << arguments(self, 0) << int(InvalidArgument);
        QTest::newRow("seconds above the limit") << arguments(self, maxTraceSeconds + 1) << int(InvalidArgument);
        QVariantMap secondsText = arguments(self, 1);
        secondsText.insert(QString(keySeconds), QStringLiteral("5"));
        QTest::newRow("seconds as a string") << secondsText << int(InvalidArgument);
        QTest::newRow("a key from the old helper's days")
            << QVariantMap{{QString(keyPid), self}, {QString(keySeconds), 1}, {QStringLiteral("key"), QByteArray(32, 'k')}} << int(InvalidArgument);
        QTest::newRow("no such process") << arguments(4194304, 1) << int(NotPermitted);
    }

    void refusesBadArguments()
    {
        QFETCH(QVariantMap, args);
        QFETCH(int, code);
        bool progressed = false;
        m_context.progress = [&](const QVariantMap &) {
            progressed = true;
        };
        const ActionReply reply = trace(args);
        QVERIFY(reply.failed());
        QCOMPARE(reply.error(), code);
        QVERIFY(!reply.errorDescription().isEmpty());
        QVERIFY(!progressed);
        QCOMPARE(m_log.size(), 1);
        QVERIFY2(m_log.front().contains(QLatin1String("result=refused")), qPrintable(m_log.front()));
        verifyNothingLeft();
    }
};

QTEST_GUILESS_MAIN(TraceHelperTest)

#include "tracehelpertest.moc"
