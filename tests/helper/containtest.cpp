// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Contained runs and reclaim on the real kernel and the real cgroup
// hierarchy, as root (tools/dev binds the host's /sys/fs/cgroup into the
// root): the helper's contain and reclaim actions in process (for the test
// users' processes and root's), and `cachescope-cli run` end to end: a
// command reading a file four times its limit leaves at most about the
// limit cached (fincore agrees), its exit status passes through, its cgroup
// is gone afterwards, also after SIGINT; bad limits, a command that needs
// more than its limit, a missing command. Every cgroup a test makes is
// removed on every way out (the Cleanup guard below, and the helper's
// watcher for those it makes).

#include "cgroups/memorycgroup.h"
#include "heldprocess.h"
#include "helperactions.h"
#include "helperprotocol.h"
#include "procfs.h"
#include "testutil.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTest>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

using namespace Cachescope;
using namespace Cachescope::Helper;
using namespace Cachescope::HelperProtocol;
using TestUtil::HeldProcess;

namespace
{

constexpr uint64_t MiB = 1ULL << 20;
constexpr uint32_t otherUid = 4202;

// Polls a condition for up to seconds; true once it holds.
bool eventually(const std::function<bool()> &condition, int seconds = 10, int pollMs = 20)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (!condition()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(pollMs));
    }
    return true;
}

bool exists(const std::string &path)
{
    return access(path.c_str(), F_OK) == 0;
}

// The run cgroups now, as paths.
std::vector<std::string> runCgroups(const MemoryHierarchy &hierarchy)
{
    std::vector<std::string> paths;
    DIR *dir = opendir(hierarchy.parent().c_str());
    if (!dir) {
        return paths;
    }
    while (const dirent *entry = readdir(dir)) {
        if (std::string_view(entry->d_name).starts_with("run-")) {
            paths.push_back(hierarchy.parent() + "/" + entry->d_name);
        }
    }
    closedir(dir);
    return paths;
}

// Removes the run cgroups a test made, whatever happened: their processes
// are killed by their HeldProcess guards first (declared after this one).
struct Cleanup {
    std::optional<MemoryHierarchy> hierarchy;
    std::vector<std::string> before;
    ~Cleanup()
    {
        if (!hierarchy) {
            return;
        }
        for (const std::string &path : runCgroups(*hierarchy)) {
            if (std::find(before.begin(), before.end(), path) == before.end()) {
                (void)eventually(
                    [&path] {
                        return rmdir(path.c_str()) == 0 || errno == ENOENT;
                    },
                    5);
            }
        }
        // The parent, when no run is left in it (the helper's watcher
        // removes it with the last run; EBUSY when others run).
        (void)rmdir(hierarchy->parent().c_str());
    }
};

// The real uid of pid (a HeldProcess child becomes its user right after fork).
std::optional<uint32_t> realUidOf(pid_t pid)
{
    const std::optional<std::string> status = readProcFile("/proc/" + std::to_string(pid) + "/status");
    const size_t at = status ? status->find("\nUid:") : std::string::npos;
    return at == std::string::npos ? std::nullopt : std::optional<uint32_t>(uint32_t(std::strtoul(status->c_str() + at + 5, nullptr, 10)));
}

// A HeldProcess child becomes its user right after fork: wait for that.
bool becameUser(pid_t pid, uint32_t uid)
{
    return eventually([pid, uid] {
        return realUidOf(pid) == uid;
    });
}

ActionReply contain(HelperContext &context, uint32_t caller, pid_t pid, qint64 limit)
{
    return containAction({{QString(keyPid), int(pid)}, {QString(keyLimitBytes), limit}}, Caller{caller}, context);
}

// The memory cgroup of pid as its /proc/<pid>/cgroup line names it.
std::string memoryCgroupOf(pid_t pid, int version)
{
    const std::optional<std::string> text = readProcFile("/proc/" + std::to_string(pid) + "/cgroup");
    if (!text) {
        return {};
    }
    const std::string marker = version == 2 ? "0::" : ":memory:";
    const size_t at = text->find(marker);
    if (at == std::string::npos) {
        return {};
    }
    const size_t start = at + marker.size();
    return text->substr(start, text->find('\n', start) - start);
}

} // namespace

class ContainTest : public QObject
{
    Q_OBJECT

private:
    std::optional<MemoryHierarchy> m_hierarchy;
    std::optional<uint32_t> m_user;
    HelperContext m_context;
    SystemCalls m_system;

private Q_SLOTS:
    void initTestCase()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("contained runs need root (the helper's actions in process) and the host's cgroup hierarchy (tools/dev binds it)");
        }
        std::string error;
        m_hierarchy = findMemoryHierarchy(defaultCgroupRoot, &error);
        QVERIFY2(m_hierarchy, error.c_str());
        m_user = TestUtil::testUserUid();
        QVERIFY2(m_user, "the test user cachescope-user is missing (tools/dev's root has it)");
        m_context.system = &m_system;
        m_context.staleRunCgroupSeconds = 0;
        m_context.log = [](const QString &) { };
    }

    void noCgroupSupportIsSaid()
    {
        const std::string empty = TestUtil::scratchDir("contain-no-cgroups");
        std::string error;
        QVERIFY(!findMemoryHierarchy(empty, &error));
        QVERIFY2(error.find(empty) != std::string::npos && error.find("no memory cgroup controller") != std::string::npos, error.c_str());
        HeldProcess held({QStringLiteral("/usr/bin/true")}, *m_user);
        QVERIFY(becameUser(held.pid(), *m_user));
        HelperContext context = m_context;
        context.cgroupRoot = empty;
        const ActionReply reply = contain(context, *m_user, held.pid(), 64 * MiB);
        QCOMPARE(reply.error(), int(Unsupported));
        QVERIFY2(reply.errorDescription().contains(QString::fromStdString(empty)), qPrintable(reply.errorDescription()));
    }

    void containsTheCallersProcessAndTheWatcherRemovesIt()
    {
        Cleanup cleanup{m_hierarchy, runCgroups(*m_hierarchy)};
        auto held = std::make_unique<HeldProcess>(QStringList{QStringLiteral("/usr/bin/sleep"), QStringLiteral("30")}, *m_user);
        QVERIFY(becameUser(held->pid(), *m_user));
        const ActionReply reply = contain(m_context, *m_user, held->pid(), 64 * MiB);
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const std::string path = reply.data().value(QString(replyCgroupPath)).toString().toStdString();
        QCOMPARE(reply.data().value(QString(replyCgroupVersion)).toInt(), m_hierarchy->version);
        QVERIFY2(path.starts_with(m_hierarchy->parent() + "/run-" + std::to_string(*m_user) + "-"), path.c_str());
        QVERIFY(exists(path));
        // The process is in it, under the limit asked for.
        QCOMPARE(m_hierarchy->root + memoryCgroupOf(held->pid(), m_hierarchy->version), path);
        const std::optional<std::string> limit = readProcFile(path + (m_hierarchy->version == 2 ? "/memory.high" : "/memory.limit_in_bytes"));
        QVERIFY(limit);
        QCOMPARE(std::stoull(*limit), 64 * MiB);
        // The cgroup is root's: the process cannot raise its own limit.
        struct stat st{};
        QVERIFY(stat(path.c_str(), &st) == 0);
        QCOMPARE(st.st_uid, 0U);
        held->release();
        held.reset(); // killed and reaped
        QVERIFY2(eventually([&path] {
                     return !exists(path);
                 }),
                 "the watcher did not remove the empty cgroup");
    }

    void anotherUsersProcessIsRefused()
    {
        const std::vector<std::string> before = runCgroups(*m_hierarchy);
        HeldProcess held({QStringLiteral("/usr/bin/true")}, otherUid);
        QVERIFY(becameUser(held.pid(), otherUid));
        const ActionReply reply = contain(m_context, *m_user, held.pid(), 64 * MiB);
        QCOMPARE(reply.error(), int(NotPermitted));
        QVERIFY2(reply.errorDescription().contains(QLatin1String("not yours")), qPrintable(reply.errorDescription()));
        QCOMPARE(runCgroups(*m_hierarchy), before);
        // Root's own process, for a caller that is not root: refused too.
        HeldProcess rootProcess({QStringLiteral("/usr/bin/true")});
        QCOMPARE(contain(m_context, *m_user, rootProcess.pid(), 64 * MiB).error(), int(NotPermitted));
        QCOMPARE(runCgroups(*m_hierarchy), before);
    }

    void badLimitsAreRefusedWithNothingMade()
    {
        const std::vector<std::string> before = runCgroups(*m_hierarchy);
        HeldProcess held({QStringLiteral("/usr/bin/true")}, *m_user);
        QVERIFY(becameUser(held.pid(), *m_user));
        const std::optional<MemInfo> memInfo = readMemInfo();
        QVERIFY(memInfo && memInfo->find("MemTotal"));
        const qint64 aboveMemory = qint64(*memInfo->find("MemTotal")) + qint64(MiB);
        for (const qint64 limit : {qint64(0), qint64(-1), qint64(-64 * qint64(MiB)), qint64(1 * MiB), qint64(16 * MiB) - 1, aboveMemory, qint64(1) << 62}) {
            const ActionReply reply = contain(m_context, *m_user, held.pid(), limit);
            QVERIFY2(reply.error() == int(InvalidArgument), qPrintable(QString::number(limit) + QLatin1String(": ") + reply.errorDescription()));
        }
        // A limit as text, a double, a pid of 0, an unknown key.
        QCOMPARE(containAction({{QString(keyPid), int(held.pid())}, {QString(keyLimitBytes), QStringLiteral("64M")}}, Caller{*m_user}, m_context).error(),
                 int(InvalidArgument));
        QCOMPARE(containAction({{QString(keyPid), int(held.pid())}, {QString(keyLimitBytes), 64.0 * MiB}}, Caller{*m_user}, m_context).error(),
                 int(InvalidArgument));
        QCOMPARE(contain(m_context, *m_user, 0, 64 * MiB).error(), int(InvalidArgument));
        QCOMPARE(
            containAction({{QString(keyPid), int(held.pid())}, {QString(keyLimitBytes), qint64(64 * MiB)}, {QStringLiteral("cgroup"), QStringLiteral("/x")}},
                          Caller{*m_user},
                          m_context)
                .error(),
            int(InvalidArgument));
        QCOMPARE(runCgroups(*m_hierarchy), before);
    }

    void aFewRunsACallerAndStaleOnesGo()
    {
        Cleanup cleanup{m_hierarchy, runCgroups(*m_hierarchy)};
        // A killed run's leftover: empty, made by "someone" long ago.
        QVERIFY(mkdir(m_hierarchy->parent().c_str(), 0755) == 0 || errno == EEXIST);
        const std::string stale = m_hierarchy->parent() + "/run-" + std::to_string(*m_user) + "-77";
        QVERIFY2(mkdir(stale.c_str(), 0755) == 0, strerror(errno));
        std::vector<std::unique_ptr<HeldProcess>> held;
        for (int i = 0; i < maxRunCgroupsPerCaller; ++i) {
            held.push_back(std::make_unique<HeldProcess>(QStringList{QStringLiteral("/usr/bin/sleep"), QStringLiteral("30")}, *m_user));
            QVERIFY(becameUser(held.back()->pid(), *m_user));
            const ActionReply reply = contain(m_context, *m_user, held.back()->pid(), 32 * MiB);
            QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
            if (i == 0) {
                QVERIFY2(!exists(stale), "the stale empty run cgroup was not removed");
            }
        }
        HeldProcess oneTooMany({QStringLiteral("/usr/bin/true")}, *m_user);
        QVERIFY(becameUser(oneTooMany.pid(), *m_user));
        const ActionReply refused = contain(m_context, *m_user, oneTooMany.pid(), 32 * MiB);
        QCOMPARE(refused.error(), int(NotPermitted));
        QVERIFY2(refused.errorDescription().contains(QLatin1String("contained runs already")), qPrintable(refused.errorDescription()));
        held.clear();
        QVERIFY(eventually([this] {
            return runCgroupsOf(*m_hierarchy, *m_user).empty();
        }));
    }

    void reclaimLowersTheFilePages()
    {
        Cleanup cleanup{m_hierarchy, runCgroups(*m_hierarchy)};
        const std::string folder = TestUtil::scratchDir("contain-reclaim");
        const std::string file = folder + "/data";
        TestUtil::makeColdFile(file, 32 * MiB);
        QVERIFY(chmod(file.c_str(), 0644) == 0);
        // A process of the user's that reads the file in its cgroup, then waits.
        const QString script = QStringLiteral("cat %1 >/dev/null; exec sleep 30").arg(QString::fromStdString(file));
        HeldProcess held({QStringLiteral("/bin/sh"), QStringLiteral("-c"), script}, *m_user);
        QVERIFY(becameUser(held.pid(), *m_user));
        const ActionReply made = contain(m_context, *m_user, held.pid(), 256 * MiB);
        QVERIFY2(made.succeeded(), qPrintable(made.errorDescription()));
        const std::string path = made.data().value(QString(replyCgroupPath)).toString().toStdString();
        held.release();
        QVERIFY2(eventually([&] {
                     const auto memory = readRunCgroupMemory(path, m_hierarchy->version);
                     // cat has read it all once the shell has become sleep.
                     return memory && memory->pageCache >= 16 * MiB && readProcFile("/proc/" + std::to_string(held.pid()) + "/comm") == "sleep\n";
                 }),
                 readProcFile(path + "/memory.stat").value_or("unreadable").substr(0, 80).c_str());
        const QString cgroup = QString::fromStdString(path.substr(m_hierarchy->root.size()));
        // Another user: refused, nothing reclaimed.
        const ActionReply refused = reclaimAction({{QString(keyCgroup), cgroup}}, Caller{otherUid}, m_context);
        QCOMPARE(refused.error(), int(NotPermitted));
        const bool swapOn = readMemInfo()->find("SwapTotal").value_or(0) > 0;
        const ActionReply reply = reclaimAction({{QString(keyCgroup), cgroup}}, Caller{*m_user}, m_context);
        if (m_hierarchy->version == 1 && swapOn) {
            QCOMPARE(reply.error(), int(Unsupported));
            QVERIFY(reply.errorDescription().contains(QLatin1String("cgroup v1 has no reclaim of file pages alone")));
            return;
        }
        QVERIFY2(reply.succeeded(), qPrintable(reply.errorDescription()));
        const uint64_t before = reply.data().value(QString(replyFileBytesBefore)).toULongLong();
        const uint64_t after = reply.data().value(QString(replyFileBytesAfter)).toULongLong();
        QVERIFY2(before >= 16 * MiB && after < before / 2, qPrintable(QStringLiteral("before %1, after %2").arg(before).arg(after)));
        const std::optional<uint64_t> pages = TestUtil::fincoreResidentPages(file);
        QVERIFY(pages);
        QVERIFY2(*pages * 4096 < 16 * MiB,
                 qPrintable(QStringLiteral("fincore: %1 pages; the cgroup's file bytes before %2, after %3").arg(*pages).arg(before).arg(after)));
        QVERIFY(!reply.data().value(QString(replyStoppedAtDeadline)).toBool());

        // rule 14: the kernel's reclaim runs in a child the helper stops at
        // its deadline. With a deadline of 0 the reclaim is stopped unless
        // its answer is already there at the first look (a child that fast
        // is rare): the answer says which, the audit line says the same, and
        // the child is gone. That a write still running is stopped is
        // helperactionstest's (a write into a full pipe).
        QStringList audit;
        m_context.log = [&audit](const QString &line) {
            audit << line;
        };
        m_context.reclaimDeadlineMs = 0;
        const auto restore = qScopeGuard([this] {
            m_context.log = [](const QString &) { };
            m_context.reclaimDeadlineMs = reclaimDeadlineSeconds * 1000;
        });
        const ActionReply stopped = reclaimAction({{QString(keyCgroup), cgroup}}, Caller{*m_user}, m_context);
        QVERIFY2(stopped.succeeded(), qPrintable(stopped.errorDescription()));
        QCOMPARE(audit.size(), 1);
        QVERIFY2(audit[0].contains(QLatin1String("result=ok")), qPrintable(audit[0]));
        QCOMPARE(audit[0].contains(QLatin1String(",stopped=deadline")), stopped.data().value(QString(replyStoppedAtDeadline)).toBool());
        QVERIFY(m_context.abandonedChildren->pids().empty());
    }

    void reclaimRefusesBadCgroups()
    {
        for (const QString &bad : {QString(),
                                   QStringLiteral("/"),
                                   QStringLiteral("relative/path"),
                                   QStringLiteral("/a/../b"),
                                   QStringLiteral("/a//b"),
                                   QStringLiteral("/./a"),
                                   QStringLiteral("/a b"),
                                   QString(QLatin1Char('/') + QString(5000, QLatin1Char('a')))}) {
            const ActionReply reply = reclaimAction({{QString(keyCgroup), bad}}, Caller{*m_user}, m_context);
            QVERIFY2(reply.error() == int(InvalidArgument), qPrintable(bad.left(40) + QLatin1String(": ") + reply.errorDescription()));
        }
        QCOMPARE(reclaimAction({{QString(keyCgroup), QByteArray("/x")}}, Caller{*m_user}, m_context).error(), int(InvalidArgument));
        // One sentence for what is not there and what is not a cgroup.
        const ActionReply missing = reclaimAction({{QString(keyCgroup), QStringLiteral("/no-such-cgroup-here")}}, Caller{*m_user}, m_context);
        QCOMPARE(missing.error(), int(NotPermitted));
        QVERIFY(missing.errorDescription().startsWith(QLatin1String("There is no memory cgroup")));
        const ActionReply file = reclaimAction({{QString(keyCgroup), QStringLiteral("/memory.stat")}}, Caller{*m_user}, m_context);
        QCOMPARE(file.errorDescription(), missing.errorDescription().replace(QLatin1String("no-such-cgroup-here"), QLatin1String("memory.stat")));
    }

    // --- cachescope-cli run, as root: the helper's action in process (rule 15) ---

    void runLeavesAboutTheLimitCached()
    {
        Cleanup cleanup{m_hierarchy, runCgroups(*m_hierarchy)};
        const std::string folder = TestUtil::scratchDir("contain-run");
        const std::string file = folder + "/big";
        constexpr uint64_t limit = 32 * MiB;
        TestUtil::makeColdFile(file, 4 * limit);
        const TestUtil::RunResult run = TestUtil::run(TestUtil::cliPath(),
                                                      {QStringLiteral("run"),
                                                       QStringLiteral("--json"),
                                                       QStringLiteral("--cache-limit"),
                                                       QStringLiteral("32M"),
                                                       QStringLiteral("--"),
                                                       QStringLiteral("dd"),
                                                       QStringLiteral("if=") + QString::fromStdString(file),
                                                       QStringLiteral("of=/dev/null"),
                                                       QStringLiteral("bs=1M"),
                                                       QStringLiteral("status=none")});
        // Right after the run, before the kernel pages idle pages out on its own.
        const std::optional<uint64_t> fincorePages = TestUtil::fincoreResidentPages(file);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject report = QJsonDocument::fromJson(run.out).object();
        QVERIFY2(!report.isEmpty(), run.out.constData());
        QVERIFY(report.value(QLatin1String("cgroup_removed")).toBool());
        QVERIFY(!exists(report.value(QLatin1String("cgroup")).toString().toStdString()));
        QCOMPARE(report.value(QLatin1String("how")).toString(), QStringLiteral("root"));
        // At most about the limit (v2: memory.max is a margin above it).
        const uint64_t allowed = limit + (m_hierarchy->version == 2 ? hardLimitMargin(limit) : 0) + 4 * MiB;
        QVERIFY2(uint64_t(report.value(QLatin1String("page_cache_peak_bytes")).toDouble()) <= allowed, run.out.constData());
        QVERIFY(fincorePages);
        QVERIFY2(*fincorePages * 4096 <= allowed, qPrintable(QStringLiteral("fincore: %1 pages of %2 MiB resident").arg(*fincorePages).arg(4 * limit / MiB)));
    }

    void runPassesTheExitStatusThrough()
    {
        const auto runShell = [](const QString &script) {
            return TestUtil::run(TestUtil::cliPath(),
                                 {QStringLiteral("run"),
                                  QStringLiteral("--cache-limit"),
                                  QStringLiteral("32M"),
                                  QStringLiteral("--"),
                                  QStringLiteral("sh"),
                                  QStringLiteral("-c"),
                                  script});
        };
        const TestUtil::RunResult run = runShell(QStringLiteral("exit 7"));
        QCOMPARE(run.exitCode, 7);
        QVERIFY2(run.err.contains("the cgroup was removed"), run.err.constData());
        QCOMPARE(runShell(QStringLiteral("kill -TERM $$")).exitCode, 128 + SIGTERM);
    }

    // Ctrl+C at two moments: as soon as the command is in its cgroup (root
    // makes the cgroup and starts its watcher in the CLI's own process: an
    // end in between would leave the cgroup; several rounds, as the moment
    // lands anywhere in the setup) and once the command runs.
    void runAfterSigintRemovesTheCgroup_data()
    {
        QTest::addColumn<bool>("commandRunning");
        for (int round = 1; round <= 6; ++round) {
            QTest::addRow("while it is set up, round %d", round) << false;
        }
        QTest::newRow("while the command runs") << true;
    }

    void runAfterSigintRemovesTheCgroup()
    {
        QFETCH(bool, commandRunning);
        Cleanup cleanup{m_hierarchy, runCgroups(*m_hierarchy)};
        const std::vector<std::string> before = runCgroups(*m_hierarchy);
        QProcess cli;
        cli.start(TestUtil::cliPath(),
                  {QStringLiteral("run"),
                   QStringLiteral("--cache-limit"),
                   QStringLiteral("32M"),
                   QStringLiteral("--"),
                   QStringLiteral("sleep"),
                   QStringLiteral("60")});
        QVERIFY(cli.waitForStarted());
        const QScopeGuard endCli([&cli] {
            cli.kill();
            cli.waitForFinished();
        });
        // The command's process, once it is in a new run cgroup (and, for
        // the second moment, once it has become sleep).
        std::string made;
        QVERIFY2(eventually(
                     [&] {
                         for (const std::string &path : runCgroups(*m_hierarchy)) {
                             if (std::find(before.begin(), before.end(), path) != before.end()) {
                                 continue;
                             }
                             const std::optional<std::string> procs = readProcFile(path + "/cgroup.procs");
                             const long pid = procs ? std::strtol(procs->c_str(), nullptr, 10) : 0;
                             if (pid <= 0) {
                                 continue;
                             }
                             made = path;
                             return !commandRunning || readProcFile("/proc/" + std::to_string(pid) + "/comm") == std::optional<std::string>("sleep\n");
                         }
                         return false;
                     },
                     10,
                     1),
                 "no populated run cgroup appeared");
        // The CLI is cachescope-cli, which runs cachescope-cli-privileged in
        // its place (exec): the pid is the same.
        QVERIFY(kill(pid_t(cli.processId()), SIGINT) == 0);
        QVERIFY(cli.waitForFinished(20000));
        const QByteArray err = cli.readAllStandardError();
        QVERIFY2(cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 128 + SIGINT, err.constData());
        QVERIFY2(eventually([&made] {
                     return !exists(made);
                 }),
                 qPrintable(QString::fromStdString(made) + QLatin1String(" is still there; the CLI said: ") + QString::fromUtf8(err)));
        // The CLI waited for the removal, and says so.
        QVERIFY2(err.contains("was removed"), err.constData());
        if (commandRunning) {
            QVERIFY2(err.contains("exit status 130"), err.constData());
        }
    }

    void runRefusesBadInput()
    {
        const std::vector<std::string> before = runCgroups(*m_hierarchy);
        const auto runWith = [](const QStringList &arguments) {
            return TestUtil::run(TestUtil::cliPath(), QStringList{QStringLiteral("run")} + arguments);
        };
        const QStringList command{QStringLiteral("--"), QStringLiteral("true")};
        for (const QString &limit : {QStringLiteral("0"), QStringLiteral("-5M"), QStringLiteral("1M"), QStringLiteral("100T"), QStringLiteral("lots")}) {
            const TestUtil::RunResult run = runWith(QStringList{QStringLiteral("--cache-limit"), limit} + command);
            QVERIFY2(run.exitCode == 2 && run.err.contains("--cache-limit"), qPrintable(limit + QLatin1String(": ") + QString::fromUtf8(run.err)));
        }
        QVERIFY(runWith(QStringList{QStringLiteral("--cache-limit"), QStringLiteral("100T")} + command).err.contains("more than this machine's memory"));
        QCOMPARE(runWith(command).exitCode, 2); // no --cache-limit
        const TestUtil::RunResult missing =
            runWith({QStringLiteral("--cache-limit"), QStringLiteral("32M"), QStringLiteral("--"), QStringLiteral("no-such-command-cachescope")});
        QCOMPARE(missing.exitCode, 127);
        QVERIFY2(missing.err.contains("no-such-command-cachescope: command not found"), missing.err.constData());
        QCOMPARE(runCgroups(*m_hierarchy), before);
    }

    void aCommandNeedingMoreIsKilledInsideItsCgroup()
    {
        Cleanup cleanup{m_hierarchy, runCgroups(*m_hierarchy)};
        // dd's 256 MiB buffer, filled from /dev/zero, is anonymous memory
        // far above a 16 MiB limit (and its margin): the kernel kills dd
        // inside its cgroup; this test process, outside, goes on.
        const TestUtil::RunResult run = TestUtil::run(TestUtil::cliPath(),
                                                      {QStringLiteral("run"),
                                                       QStringLiteral("--cache-limit"),
                                                       QStringLiteral("16M"),
                                                       QStringLiteral("--"),
                                                       QStringLiteral("dd"),
                                                       QStringLiteral("if=/dev/zero"),
                                                       QStringLiteral("of=/dev/null"),
                                                       QStringLiteral("bs=256M"),
                                                       QStringLiteral("count=1"),
                                                       QStringLiteral("status=none")});
        QCOMPARE(run.exitCode, 128 + SIGKILL);
        QVERIFY2(run.err.contains("killed inside its cgroup"), run.err.constData());
        QVERIFY2(run.err.contains("the cgroup was removed"), run.err.constData());
    }
};

QTEST_GUILESS_MAIN(ContainTest)

#include "containtest.moc"
