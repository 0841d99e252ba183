// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// End to end through a real system bus, a real polkitd and the installed
// helper, with the client library the CLI and the window use. Started by
// tests/helper/helper-fixture.sh, once as cachescope-other (role "refused") and once
// as cachescope-user (role "allowed"); each test runs in one role only.
// CACHESCOPE_FIXTURE_DIR holds what the fixture made: active.swap (on, priority
// 7), inactive.swap (signature, off, never turned off by the helper), rootfile (root, 0644),
// and a folder per user. The experiments' privileged variants are run through
// cachescope-cli, as a user would: it hands them to cachescope-cli-privileged,
// which reaches this helper. The trace action: refused for the refused
// user, the allowed user's own process traced, another user's refused.
// (Longer than 800 lines: one fixture, every action in both roles.)

#include "account.h"
#include "heldprocess.h"
#include "helperlogic.h"
#include "helperprotocol.h"
#include "pidnamespace.h"
#include "privileged.h"
#include "procfs.h"
#include "residency.h"
#include "testutil.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QTest>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string_view>

using namespace Cachescope;

namespace
{
QString role()
{
    return qEnvironmentVariable("CACHESCOPE_HELPER_ROLE");
}

std::string fixture(const char *name)
{
    return qEnvironmentVariable("CACHESCOPE_FIXTURE_DIR").toStdString() + '/' + name;
}

std::optional<SwapArea> activeArea(const std::string &path)
{
    const std::optional<std::vector<SwapArea>> swaps = readSwaps();
    if (swaps) {
        for (const SwapArea &area : *swaps) {
            if (area.filename == path) {
                return area;
            }
        }
    }
    return std::nullopt;
}

// The memory cgroup of pid, as /proc/<pid>/cgroup names it (v1's memory
// line, else the unified one).
std::string memoryCgroupOf(pid_t pid)
{
    const std::optional<std::string> text = readProcFile("/proc/" + std::to_string(pid) + "/cgroup");
    for (const std::string marker : {":memory:", "0::"}) {
        const size_t at = text ? text->find(marker) : std::string::npos;
        if (at != std::string::npos) {
            const size_t start = at + marker.size();
            return text->substr(start, text->find('\n', start) - start);
        }
    }
    return {};
}

// The swap areas on now, from /proc/swaps: what a refused request must leave
// alone. Each as "name type size priority", not how much of it is used,
// which the kernel changes under memory pressure at any time (a run once saw
// 0 KiB become 192 KiB between two reads of an area it kept).
std::string swapsNow()
{
    std::ifstream in("/proc/swaps");
    std::string header;
    std::getline(in, header);
    std::string areas;
    std::string name;
    std::string type;
    std::string size;
    std::string used;
    std::string priority;
    while (in >> name >> type >> size >> used >> priority) {
        areas += name + ' ' + type + ' ' + size + ' ' + priority + '\n';
    }
    return areas;
}

uint64_t residentPages(const std::string &path)
{
    const Residency residency = residencyOfPath(path);
    return residency.known() ? residency.resident : ~0ULL;
}

// `cachescope-cli experiment NAME --json ...`: the exit code, the document, stderr.
// --json goes right after NAME: after a "--" it would be the command's argument.
struct ExperimentRun {
    TestUtil::RunResult process;
    QJsonObject document;
};

ExperimentRun runExperiment(const QStringList &nameAndArguments, int timeoutMs = 120000)
{
    ExperimentRun run;
    QStringList arguments = nameAndArguments;
    arguments.insert(1, QStringLiteral("--json"));
    run.process = TestUtil::run(TestUtil::cliPath(), QStringList{QStringLiteral("experiment")} + arguments, timeoutMs);
    run.document = QJsonDocument::fromJson(run.process.out).object();
    return run;
}

QString describe(const ExperimentRun &run)
{
    return QStringLiteral("exit %1%2\nstderr: %3\nstdout: %4")
        .arg(run.process.exitCode)
        .arg(run.process.timedOut ? QStringLiteral(" (timed out)") : QString())
        .arg(QString::fromUtf8(run.process.err), QString::fromUtf8(run.process.out.left(4000)));
}

QJsonObject variantNamed(const QJsonObject &document, const QString &name)
{
    for (const QJsonValue &value : document.value(QStringLiteral("variants")).toArray()) {
        if (value.toObject().value(QStringLiteral("name")).toString() == name) {
            return value.toObject();
        }
    }
    return {};
}

double medianOf(const QJsonObject &variant, const QString &measurement)
{
    for (const QJsonValue &value : variant.value(QStringLiteral("measurements")).toArray()) {
        const QJsonObject object = value.toObject();
        if (object.value(QStringLiteral("name")).toString() == measurement) {
            return object.value(QStringLiteral("statistics")).toObject().value(QStringLiteral("median")).toDouble();
        }
    }
    return -1;
}

// When the event with exactly this text happened (seconds since the start), or -1.
double eventTime(const QJsonObject &document, const QString &text)
{
    for (const QJsonValue &value : document.value(QStringLiteral("events")).toArray()) {
        if (value.toObject().value(QStringLiteral("text")).toString() == text) {
            return value.toObject().value(QStringLiteral("t")).toDouble();
        }
    }
    return -1;
}

bool problemsMention(const QJsonObject &document, const QString &path, const QString &words)
{
    const QJsonArray problems = document.value(QStringLiteral("problems")).toArray();
    return std::any_of(problems.begin(), problems.end(), [&](const QJsonValue &value) {
        const QJsonObject problem = value.toObject();
        return problem.value(QStringLiteral("path")).toString() == path && problem.value(QStringLiteral("reason")).toString().contains(words);
    });
}

// Entries of a folder whose names start with prefix: the files an experiment made and must remove.
QStringList leftovers(const std::string &folder, const char *prefix)
{
    QStringList names;
    if (DIR *dir = opendir(folder.c_str())) {
        while (const dirent *entry = readdir(dir)) {
            if (std::string_view(entry->d_name).starts_with(prefix)) {
                names.append(QString::fromUtf8(entry->d_name));
            }
        }
        closedir(dir);
    }
    return names;
}

// The processes whose parent is `parent`, from /proc/PID/stat.
std::vector<pid_t> childrenOf(pid_t parent)
{
    std::vector<pid_t> children;
    DIR *dir = opendir("/proc");
    if (!dir) {
        return children;
    }
    while (const dirent *entry = readdir(dir)) {
        const pid_t pid = pid_t(std::strtol(entry->d_name, nullptr, 10));
        if (pid <= 0) {
            continue;
        }
        std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
        const std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        // "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so parse after the last ')'.
        const size_t close = stat.rfind(')');
        char state = 0;
        int ppid = 0;
        if (close != std::string::npos && std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == parent) {
            children.push_back(pid);
        }
    }
    closedir(dir);
    return children;
}

bool processExists(pid_t pid)
{
    return access(("/proc/" + std::to_string(pid)).c_str(), F_OK) == 0;
}

#define REQUIRE_ROLE(name)                                                                                                                                     \
    if (role() != QLatin1String(name)) {                                                                                                                       \
        QSKIP("runs as the " name " user");                                                                                                                    \
    }
} // namespace

class HelperBusTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (qEnvironmentVariableIsEmpty("CACHESCOPE_FIXTURE_DIR")) {
            QSKIP("run through tests/helper/helper-fixture.sh (ctest -R helper-bus)");
        }
        QString reason;
        QVERIFY2(Privileged::helperAvailable(&reason), qPrintable(reason));
    }

    // The refused user: a clear "not authorized", and nothing changes.
    void refusedUserDropCaches()
    {
        REQUIRE_ROLE("refused");
        const std::string path = fixture("other/cached");
        TestUtil::makeColdFile(path, 4 << 20);
        TestUtil::readRange(path, 0, 4 << 20);
        const uint64_t pages = (4 << 20) / pageSize();
        QCOMPARE(TestUtil::pagesNow(path).residentOrReclaimed(), pages);
        const Privileged::DropCachesResult result = Privileged::dropCaches(1);
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY2(result.message.contains(QLatin1String("not authorized")), qPrintable(result.message));
        // A drop_caches would have left neither pages nor the shadow entries
        // that count what the kernel reclaimed on its own meanwhile.
        QCOMPARE(TestUtil::pagesNow(path).residentOrReclaimed(), pages);
    }

    void refusedUserSwapOff()
    {
        REQUIRE_ROLE("refused");
        const std::string swap = fixture("active.swap");
        QVERIFY(activeArea(swap));
        const Privileged::SwapResult result = Privileged::swapOff(QString::fromStdString(swap));
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(result.message.contains(QLatin1String("not authorized")));
        QVERIFY(activeArea(swap));
        QCOMPARE(activeArea(swap)->priority, 7);
    }

    // Every action is refused on the real bus for the refused user, before
    // the helper does anything: swap on (one area and all), the experiment
    // swap file made and removed. /proc/swaps stays as it was, no state file.
    void refusedUserSwapOn()
    {
        REQUIRE_ROLE("refused");
        const std::string before = swapsNow();
        Privileged::SwapResult result = Privileged::swapOnAll();
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(result.message.contains(QLatin1String("not authorized")));
        result = Privileged::swapOn(QString::fromStdString(fixture("inactive.swap")));
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(result.areas.isEmpty());
        QCOMPARE(swapsNow(), before);
        QVERIFY(!activeArea(fixture("inactive.swap")));
        QVERIFY(access("/run/cachescope/swap-state", F_OK) != 0);
    }

    void refusedUserSwapFileCreate()
    {
        REQUIRE_ROLE("refused");
        const std::string before = swapsNow();
        const Privileged::Result result = Privileged::createExperimentSwapFile(32 << 20);
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(result.message.contains(QLatin1String("not authorized")));
        QCOMPARE(swapsNow(), before);
        QVERIFY(!activeArea("/var/lib/cachescope/experiment.swap"));
    }

    void refusedUserSwapFileRemove()
    {
        REQUIRE_ROLE("refused");
        const std::string before = swapsNow();
        const Privileged::Result result = Privileged::removeExperimentSwapFile();
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(result.message.contains(QLatin1String("not authorized")));
        QCOMPARE(swapsNow(), before);
    }

    void refusedUserSwapOffAll()
    {
        REQUIRE_ROLE("refused");
        const std::string before = swapsNow();
        const Privileged::SwapResult result = Privileged::swapOffAll();
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QCOMPARE(swapsNow(), before);
        QCOMPARE(activeArea(fixture("active.swap"))->priority, 7);
    }

    void refusedUserResidency()
    {
        REQUIRE_ROLE("refused");
        const Privileged::ResidencyResult result = Privileged::residencyOfPaths({QByteArray::fromStdString(fixture("rootfile"))}, 8);
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(result.files.empty());
    }

    // cachescope-cli's privileged commands go the same way, and say so.
    void refusedUserCli()
    {
        REQUIRE_ROLE("refused");
        const TestUtil::RunResult result = TestUtil::run(TestUtil::cliPath(), {QStringLiteral("drop-caches"), QStringLiteral("1")});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains("drop-caches: ") && result.err.contains("not authorized"), result.err.constData());
    }

    void cliThroughHelper()
    {
        REQUIRE_ROLE("allowed");
        const std::string path = fixture("rootfile");
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        QCOMPARE(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        close(fd);
        // Held mapped: the kernel here reclaims unmapped idle pages at any
        // moment, and two programs and a D-Bus round trip come before the check.
        TestUtil::HeldPages held(path, 2 << 20, 1 << 20);
        const QString file = QString::fromStdString(path);
        // Without --privileged the user is told it is hidden; with it, the truth.
        const TestUtil::RunResult plain = TestUtil::run(TestUtil::cliPath(), {QStringLiteral("status"), QStringLiteral("--json"), file});
        QCOMPARE(plain.exitCode, 0);
        QVERIFY(plain.out.contains("\"hidden\":true"));
        const TestUtil::RunResult privileged =
            TestUtil::run(TestUtil::cliPath(), {QStringLiteral("status"), QStringLiteral("--privileged"), QStringLiteral("--json"), file});
        QCOMPARE(privileged.exitCode, 0);
        const QJsonObject document = QJsonDocument::fromJson(privileged.out).object();
        QCOMPARE(document.value(QStringLiteral("privileged")).toBool(), true);
        const QJsonObject entry = document.value(QStringLiteral("files")).toArray().at(0).toObject();
        QCOMPARE(entry.value(QStringLiteral("hidden")).toBool(), false);
        QCOMPARE(entry.value(QStringLiteral("resident")).toInteger(), qint64((1 << 20) / pageSize()));

        // A file of sysfs beside it is not sent to the helper (which refuses
        // what keeps no page cache): counted as a file, in no size or pages,
        // and the helper's answer for the other file is the same.
        const QString sysfsFile = QStringLiteral("/sys/kernel/mm/transparent_hugepage/enabled");
        struct statfs fs;
        if (statfs(QFile::encodeName(sysfsFile).constData(), &fs) == 0 && fs.f_type == 0x62656572) {
            const TestUtil::RunResult both =
                TestUtil::run(TestUtil::cliPath(), {QStringLiteral("status"), QStringLiteral("--privileged"), QStringLiteral("--json"), file, sysfsFile});
            QVERIFY2(both.exitCode == 0, both.err.constData());
            QVERIFY2(both.err.contains("keeps no page cache"), both.err.constData());
            const QJsonArray rows = QJsonDocument::fromJson(both.out).object().value(QStringLiteral("files")).toArray();
            QCOMPARE(rows.size(), 2);
            QCOMPARE(rows.at(0).toObject().value(QStringLiteral("hidden")).toBool(), false);
            QCOMPARE(rows.at(0).toObject().value(QStringLiteral("resident")).toInteger(), qint64((1 << 20) / pageSize()));
            QCOMPARE(rows.at(1).toObject().value(QStringLiteral("path")).toString(), sysfsFile);
            QCOMPARE(rows.at(1).toObject().value(QStringLiteral("method")).toString(), QStringLiteral("no-page-cache"));
            QCOMPARE(rows.at(1).toObject().value(QStringLiteral("pages")).toInteger(-1), 0);
        } else {
            qInfo("%s is not on sysfs here: the helper is not asked about it", qPrintable(sysfsFile));
        }
        held.release(); // so that drop_caches can drop them

        const TestUtil::RunResult drop =
            TestUtil::run(TestUtil::cliPath(), {QStringLiteral("drop-caches"), QStringLiteral("pagecache"), QStringLiteral("--json")});
        QCOMPARE(drop.exitCode, 0);
        const QJsonObject dropped = QJsonDocument::fromJson(drop.out).object();
        QCOMPARE(dropped.value(QStringLiteral("level")).toInt(), 1);
        QVERIFY(dropped.value(QStringLiteral("before")).toObject().value(QStringLiteral("mem_total")).toInteger() > 0);
        QCOMPARE(residentPages(fixture("rootfile")), ~0ULL); // still hidden from us: no number
    }

    // The allowed user's drop_caches empties the page cache of a test file.
    void dropCachesEmptiesPageCache()
    {
        REQUIRE_ROLE("allowed");
        const std::string path = fixture("user/cached");
        TestUtil::makeColdFile(path, 8 << 20);
        TestUtil::HeldPages held(path, 0, 8 << 20); // while fincore starts
        const uint64_t pages = (8 << 20) / pageSize();
        QCOMPARE(residentPages(path), pages);
        if (const std::optional<uint64_t> fincore = TestUtil::fincoreResidentPages(path)) {
            QCOMPARE(*fincore, pages);
        }
        held.release(); // mapped pages are not dropped
        const Privileged::DropCachesResult result = Privileged::dropCaches(1);
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.level, 1);
        QVERIFY(result.before.memTotal > 0);
        QCOMPARE(result.after.memTotal, result.before.memTotal);
        QCOMPARE(residentPages(path), uint64_t(0));
        if (const std::optional<uint64_t> fincore = TestUtil::fincoreResidentPages(path)) {
            QCOMPARE(*fincore, uint64_t(0));
        }
    }

    // The refused user cannot trace even its own process: polkit says no,
    // and the process is never let go.
    void refusedUserTrace()
    {
        REQUIRE_ROLE("refused");
        TestUtil::HeldProcess held({QStringLiteral("/bin/true")});
        bool on = false;
        const Privileged::TraceResult result = Privileged::trace(
            held.pid(),
            5,
            [&on] {
                on = true;
            },
            nullptr);
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(result.message.contains(QLatin1String("not authorized")));
        QVERIFY(!on);
        QVERIFY(result.capture.events.empty());
    }

    // The allowed user traces its own process through the bus: the pages of
    // an evicted file it reads come back (in the job's signal, to this
    // caller alone).
    void traceOwnProcess()
    {
        REQUIRE_ROLE("allowed");
        // Kept after the test: the fixture checks that its inode never
        // reached the other user, who listens on the bus.
        const std::string path = fixture("user/traced.bin");
        TestUtil::makeColdFile(path, 1 << 20);
        struct stat st{};
        QVERIFY(stat(path.c_str(), &st) == 0);
        TestUtil::HeldProcess held(TestUtil::ddReading(path));
        int on = 0;
        const Privileged::TraceResult result = Privileged::trace(
            held.pid(),
            20,
            [&] {
                ++on;
                held.release();
            },
            nullptr);
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(on, 1);
        QCOMPARE(held.wait(), 0);
        QCOMPARE(QString::fromStdString(result.capture.endReason), QStringLiteral("exited"));
        const bool firstPageAdded = std::any_of(result.capture.events.begin(), result.capture.events.end(), [&st](const Trace::RawEvent &event) {
            return event.kind == Trace::EventKind::Added && event.inode == uint64_t(st.st_ino) && event.firstPage == 0;
        });
        QVERIFY2(firstPageAdded, qPrintable(QStringLiteral("%1 events, none adds page 0 of the file").arg(result.capture.events.size())));
    }

    // Cancel over the bus: the client stops waiting at once and the helper
    // stops tracing (the job's Cancel), so that the trace no longer counts
    // against this user's operations and the next request is served.
    void traceCancelledOverTheBus()
    {
        REQUIRE_ROLE("allowed");
        TestUtil::HeldProcess held({QStringLiteral("/bin/true")}); // never let go
        std::atomic<bool> cancel{false};
        const Privileged::TraceResult result = Privileged::trace(
            held.pid(),
            HelperProtocol::maxTraceSeconds,
            [&cancel] {
                cancel = true;
            },
            &cancel);
        QCOMPARE(result.failure, Privileged::Failure::Cancelled);
        QVERIFY(result.capture.events.empty());
        // The helper ends the cancelled trace within its 100 ms check: poll
        // until it answers the next request with anything but "busy".
        Privileged::TraceResult next;
        for (int attempt = 0; attempt < 100; ++attempt) {
            next = Privileged::trace(1, 1, {}, nullptr);
            if (next.failure != Privileged::Failure::Busy) {
                break;
            }
            QTest::qWait(100);
        }
        QCOMPARE(next.failure, Privileged::Failure::Refused);
    }

    // Root's process (this namespace's first one, the fixture) is not the
    // allowed user's: the helper refuses, and nothing is let go.
    void traceOtherUsersProcessRefused()
    {
        REQUIRE_ROLE("allowed");
        bool on = false;
        const Privileged::TraceResult result = Privileged::trace(
            1,
            5,
            [&on] {
                on = true;
            },
            nullptr);
        QCOMPARE(result.failure, Privileged::Failure::Refused);
        QVERIFY2(result.message.contains(QLatin1String("is not yours")), qPrintable(result.message));
        QVERIFY(!on);
    }

    // contain and reclaim (docs/helper-security.md rule 17): the refused
    // user is refused both by polkit, and nothing is made.
    void refusedUserContainAndReclaim()
    {
        REQUIRE_ROLE("refused");
        TestUtil::HeldProcess held({QStringLiteral("/bin/true")});
        const Privileged::ContainResult contained = Privileged::contain(held.pid(), 64LL << 20);
        QCOMPARE(contained.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(contained.cgroupPath.isEmpty());
        QCOMPARE(memoryCgroupOf(held.pid()), memoryCgroupOf(getpid()));
        const Privileged::ReclaimResult reclaimed = Privileged::reclaimCgroup(QString::fromStdString(memoryCgroupOf(getpid())));
        QCOMPARE(reclaimed.failure, Privileged::Failure::NotAuthorized);
        const TestUtil::RunResult run =
            TestUtil::run(TestUtil::cliPath(),
                          {QStringLiteral("run"), QStringLiteral("--cache-limit"), QStringLiteral("32M"), QStringLiteral("--"), QStringLiteral("true")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("not authorized"), run.err.constData());
    }

    // The allowed user's contained run through the helper: its exit status
    // comes through and the helper's watcher removes the cgroup.
    void containedRunThroughHelper()
    {
        REQUIRE_ROLE("allowed");
        const TestUtil::RunResult run = TestUtil::run(TestUtil::cliPath(),
                                                      {QStringLiteral("run"),
                                                       QStringLiteral("--json"),
                                                       QStringLiteral("--cache-limit"),
                                                       QStringLiteral("32M"),
                                                       QStringLiteral("--"),
                                                       QStringLiteral("sh"),
                                                       QStringLiteral("-c"),
                                                       QStringLiteral("exit 3")});
        QCOMPARE(run.exitCode, 3);
        const QJsonObject report = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(report.value(QStringLiteral("how")).toString(), QStringLiteral("helper"));
        QVERIFY2(report.value(QStringLiteral("cgroup")).toString().contains(QStringLiteral("/cachescope/run-%1-").arg(getuid())), run.out.constData());
        QVERIFY2(report.value(QStringLiteral("cgroup_removed")).toBool(), run.out.constData());
    }

    // Reclaim of the allowed user's own cgroup goes through (v1 without swap:
    // force_empty; v2: memory.reclaim swappiness=0). That it lowers the file
    // pages is containtest's, in process: here the kernel's own pageout of
    // idle pages (DAMON) may have taken them before the bus round trip.
    void reclaimOwnCgroup()
    {
        REQUIRE_ROLE("allowed");
        const std::string path = fixture("user/reclaimed.bin");
        TestUtil::HeldProcess held(
            {QStringLiteral("/bin/sh"),
             QStringLiteral("-c"),
             QStringLiteral("/usr/bin/dd if=/dev/zero of=%1 bs=1M count=16 conv=fsync status=none; exec /usr/bin/sleep 30").arg(QString::fromStdString(path))});
        const Privileged::ContainResult contained = Privileged::contain(held.pid(), 128LL << 20);
        QVERIFY2(contained.ok(), qPrintable(contained.message));
        QCOMPARE(contained.how, QStringLiteral("helper"));
        held.release();
        QString cgroup = QString::fromStdString(memoryCgroupOf(held.pid()));
        QString seen = cgroup;
        for (int i = 0; i < 100 && !contained.cgroupPath.endsWith(cgroup); ++i) {
            QTest::qWait(20);
            cgroup = QString::fromStdString(memoryCgroupOf(held.pid()));
            seen += QLatin1Char(' ') + cgroup;
        }
        QVERIFY2(contained.cgroupPath.endsWith(cgroup), qPrintable(seen.left(300)));
        const Privileged::ReclaimResult reclaimed = Privileged::reclaimCgroup(cgroup);
        if (reclaimed.failure == Privileged::Failure::Unsupported) {
            // v1 with swap, or a v2 kernel without swappiness=0: said, not done.
            QVERIFY2(reclaimed.message.contains(QLatin1String("swap")), qPrintable(reclaimed.message));
            return;
        }
        QVERIFY2(reclaimed.ok(), qPrintable(reclaimed.message));
        QVERIFY(reclaimed.fileBytesAfter <= reclaimed.fileBytesBefore);
        // Root's cgroup of this namespace's first process is not the user's.
        const Privileged::ReclaimResult others = Privileged::reclaimCgroup(QString::fromStdString(memoryCgroupOf(1)));
        QVERIFY2(others.failure == Privileged::Failure::Refused || others.failure == Privileged::Failure::InvalidRequest, qPrintable(others.message));
    }

    // The account as the refused user: not authorized, nothing made.
    void refusedUserAccount()
    {
        REQUIRE_ROLE("refused");
        const Privileged::AccountResult result = Privileged::accountOfSystem();
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(result.account.parts.empty());
    }

    // docs/helper-security.md rule 19: activity names every user's files:
    // refused unless polkit allows, nothing measured.
    void refusedUserActivity()
    {
        REQUIRE_ROLE("refused");
        int intervals = 0;
        const Privileged::ActivityResult result = Privileged::activity(
            2,
            500,
            [&intervals](const Activity::Interval &) {
                ++intervals;
            },
            nullptr);
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QCOMPARE(intervals, 0);
        QVERIFY(result.totals.processes.empty());
    }

    // Activity over the bus: a process of this user's reads an evicted file
    // while it runs; its intervals and totals (to this caller alone) list
    // the process by its command and the file by its path, with every page
    // brought in. Cancelled once the read is seen: the totals come all the
    // same. Then the CLI's way, with its JSON.
    void activityThroughHelper()
    {
        REQUIRE_ROLE("allowed");
        const std::string path = fixture("user/activity.bin");
        TestUtil::makeColdFile(path, 8 << 20);
        struct stat st{};
        QVERIFY(stat(path.c_str(), &st) == 0);
        TestUtil::HeldProcess held({QStringLiteral("/usr/bin/python3"),
                                    QStringLiteral("-c"),
                                    QStringLiteral("import sys, time\nf = open(sys.argv[1], 'rb')\nf.read()\ntime.sleep(30)"),
                                    QString::fromStdString(path)});
        const std::optional<int> hostPid = hostPidOf(held.pid()).pid;
        QVERIFY(hostPid);
        const uint64_t filePages = (8 << 20) / pageSize();
        std::atomic<bool> cancel{false};
        int intervals = 0;
        uint64_t seenPages = 0;
        const Privileged::ActivityResult result = Privileged::activity(
            20,
            250,
            [&](const Activity::Interval &interval) {
                if (intervals++ == 0) {
                    held.release();
                }
                for (const Activity::FileActivity &file : interval.files) {
                    if (file.key.inode == uint64_t(st.st_ino) && file.key.device == uint64_t(st.st_dev)) {
                        seenPages += file.figures.addedPages;
                    }
                }
                cancel = seenPages >= filePages;
            },
            &cancel);
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.endReason, QStringLiteral("cancelled"));
        QVERIFY(intervals >= 2);
        const auto process = std::find_if(result.totals.processes.begin(), result.totals.processes.end(), [&](const Activity::ProcessActivity &p) {
            return p.pid == *hostPid;
        });
        QVERIFY2(process != result.totals.processes.end(), "the reader is not listed");
        QCOMPARE(QString::fromStdString(process->command), QStringLiteral("python3"));
        QCOMPARE(process->uid, int64_t(getuid()));
        QVERIFY2(process->figures.addedPages >= filePages, qPrintable(QString::number(process->figures.addedPages)));
        const auto file = std::find_if(result.totals.files.begin(), result.totals.files.end(), [&](const Activity::FileActivity &f) {
            return f.key.inode == uint64_t(st.st_ino) && f.key.device == uint64_t(st.st_dev);
        });
        QVERIFY2(file != result.totals.files.end(), "the file is not listed");
        QCOMPARE(QString::fromStdString(file->path), QString::fromStdString(path));
        QCOMPARE(file->figures.addedPages, filePages);

        const TestUtil::RunResult cli = TestUtil::run(TestUtil::cliPath(),
                                                      {QStringLiteral("activity"),
                                                       QStringLiteral("--privileged"),
                                                       QStringLiteral("--duration"),
                                                       QStringLiteral("1"),
                                                       QStringLiteral("--interval"),
                                                       QStringLiteral("0.5"),
                                                       QStringLiteral("--json")},
                                                      60000);
        QVERIFY2(cli.exitCode == 0, cli.err.constData());
        const QJsonObject json = TestUtil::jsonObjectOf(cli);
        QCOMPARE(json.value(QStringLiteral("command")).toString(), QStringLiteral("activity"));
        QCOMPARE(json.value(QStringLiteral("end_reason")).toString(), QStringLiteral("deadline"));
        QVERIFY(json.value(QStringLiteral("processes")).isArray());
    }

    // The account: root's process and its deleted file are hidden from the
    // user's own, shown by the helper's with the file's size; the FUSE mount
    // whose daemon never answers is named, not walked (the helper answers).
    void accountThroughHelper()
    {
        REQUIRE_ROLE("allowed");
        const std::string deleted = fixture("root-deleted.bin");
        const auto isDeletedFile = [&deleted](const AccountPart &part) {
            return part.kind == AccountKind::DeletedFile && part.path == deleted;
        };
        AccountOptions options;
        options.root = fixture("user");
        options.buffers = false;
        const CacheAccount own = accountCache(options);
        QVERIFY(own.hidden.processes > 0);
        QVERIFY(std::none_of(own.parts.begin(), own.parts.end(), isDeletedFile));

        QElapsedTimer clock;
        clock.start();
        const Privileged::AccountResult result = Privileged::accountOfSystem();
        QVERIFY2(result.ok(), qPrintable(result.message));
        qInfo("the helper's account: %zu parts in %lld ms", result.account.parts.size(), clock.elapsed());
        const CacheAccount &account = result.account;
        QCOMPARE(account.hidden.processes, uint64_t(0));
        QCOMPARE(account.hidden.coveredMountPoints, uint64_t(0));
        QVERIFY(account.complete);
        const auto found = std::find_if(account.parts.begin(), account.parts.end(), isDeletedFile);
        QVERIFY2(found != account.parts.end(), "root's deleted file is not in the helper's account");
        QVERIFY2(!found->hidden, found->hiddenReason.c_str());
        const uint64_t size = 4 << 20;
        QVERIFY2(found->bytes + 2 * pageSize() >= size && found->bytes <= size, qPrintable(QString::number(found->bytes)));
        QVERIFY(!found->processes.empty() && found->processes.front().command == "python3");
        QCOMPARE(account.unexplained, int64_t(account.cached) - int64_t(account.partsBytes()));
        if (!qEnvironmentVariableIsEmpty("CACHESCOPE_FUSE_DIR")) {
            QVERIFY(account.mountsNotWalked >= 1);
        }
        // The CLI's way (cachescope-cli-privileged): the same file, in its JSON.
        const TestUtil::RunResult cli =
            TestUtil::run(TestUtil::cliPath(), {QStringLiteral("account"), QStringLiteral("--privileged"), QStringLiteral("--json")}, 400000);
        QVERIFY2(cli.exitCode == 0, cli.err.constData());
        bool listed = false;
        for (const QJsonValue &part : TestUtil::jsonObjectOf(cli).value(QStringLiteral("parts")).toArray()) {
            listed = listed || part.toObject().value(QStringLiteral("path")).toString() == QString::fromStdString(deleted);
        }
        QVERIFY2(listed, cli.out.left(2000).constData());
        const TestUtil::RunResult mixed =
            TestUtil::run(TestUtil::cliPath(), {QStringLiteral("account"), QStringLiteral("--privileged"), QStringLiteral("--depth"), QStringLiteral("2")});
        QCOMPARE(mixed.exitCode, 2);
        QVERIFY2(mixed.err.contains("--privileged takes no other option"), mixed.err.constData());
    }

    // Residency by path: the user cannot see it (the kernel would lie), the
    // helper can (it opens the path as this user, then reads as root), and it
    // matches what was set up.
    void residencyByPath()
    {
        REQUIRE_ROLE("allowed");
        const std::string path = fixture("rootfile");
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        // fadvise(DONTNEED) works on a read-only descriptor; then exactly 1 MiB and 512 KiB are read.
        QCOMPARE(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        close(fd);
        // Held mapped until the helper has answered (see HeldPages).
        const TestUtil::HeldPages first(path, 0, 1 << 20);
        const TestUtil::HeldPages later(path, 6 << 20, 512 << 10);
        QVERIFY(residencyOfPath(path).hidden);

        const Privileged::ResidencyResult result = Privileged::residencyOfPaths({QByteArray::fromStdString(path)}, 8);
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.files.size(), size_t(1));
        const Privileged::FileResidency &file = result.files.front();
        QVERIFY2(file.error.isEmpty(), qPrintable(file.error));
        const uint64_t pagesPerMiB = (1 << 20) / pageSize();
        QCOMPARE(file.sizeBytes, uint64_t(8 << 20));
        QCOMPARE(file.resident, pagesPerMiB + pagesPerMiB / 2);
        QCOMPARE(file.histogram.size(), size_t(8));
        QCOMPARE(file.histogram[0], pagesPerMiB);
        QCOMPARE(file.histogram[6], pagesPerMiB / 2);
        QCOMPARE(file.histogram[3], uint64_t(0));
        struct stat st;
        QVERIFY(stat(path.c_str(), &st) == 0);
        QCOMPARE(file.inode, uint64_t(st.st_ino));
    }

    // A file on a FUSE mount whose daemon never answers an open (made by the
    // fixture): the helper's reader for it is abandoned at the deadline, the
    // request ends with that error for that file only, and swap on and drop
    // caches still answer within their own deadlines.
    void hangingFuseDoesNotStopTheHelper()
    {
        REQUIRE_ROLE("allowed");
        const QString fuseDir = qEnvironmentVariable("CACHESCOPE_FUSE_DIR");
        if (fuseDir.isEmpty()) {
            QSKIP("no FUSE mount (the fixture says why; in CI it fails instead)");
        }
        QElapsedTimer timer;
        timer.start();
        const Privileged::ResidencyResult result =
            Privileged::residencyOfPaths({(fuseDir + QStringLiteral("/file")).toUtf8(), QByteArray::fromStdString(fixture("rootfile"))}, 8);
        const qint64 residencyMs = timer.elapsed();
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.files.size(), size_t(2));
        QVERIFY2(result.files[0].error.contains(QLatin1String("did not answer within 10 s")), qPrintable(result.files[0].error));
        QVERIFY2(result.files[1].error.isEmpty(), qPrintable(result.files[1].error));
        QCOMPARE(result.files[1].sizeBytes, uint64_t(8 << 20));
        QVERIFY2(residencyMs < 20000, qPrintable(QString::number(residencyMs)));

        const std::string swap = fixture("active.swap");
        timer.restart();
        const Privileged::SwapResult off = Privileged::swapOff(QString::fromStdString(swap));
        QVERIFY2(off.ok(), qPrintable(off.message));
        const Privileged::SwapResult on = Privileged::swapOn(QString::fromStdString(swap));
        QVERIFY2(on.ok(), qPrintable(on.message));
        QCOMPARE(activeArea(swap)->priority, 7);
        const Privileged::DropCachesResult dropped = Privileged::dropCaches(1);
        QVERIFY2(dropped.ok(), qPrintable(dropped.message));
        QVERIFY2(timer.elapsed() < 60000, qPrintable(QString::number(timer.elapsed())));
    }

    // More paths than one call takes, one of them twice, one relative: the
    // client sends them in chunks, each once, and every position gets its answer.
    void residencyInChunks()
    {
        REQUIRE_ROLE("allowed");
        QList<QByteArray> paths;
        for (int i = 0; i < 20; ++i) {
            const std::string path = fixture("user") + "/chunk-" + std::to_string(i);
            TestUtil::makeColdFile(path, (i + 1) * 4096);
            paths.append(QByteArray::fromStdString(path));
        }
        paths.append(paths.front());
        const Privileged::ResidencyResult result = Privileged::residencyOfPaths(paths, 4);
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.files.size(), size_t(21));
        for (int i = 0; i < 20; ++i) {
            QVERIFY2(result.files[size_t(i)].error.isEmpty(), qPrintable(result.files[size_t(i)].error));
            QCOMPARE(result.files[size_t(i)].sizeBytes, uint64_t((i + 1) * 4096));
        }
        QCOMPARE(result.files[20].inode, result.files[0].inode);
    }

    // What the helper refuses to read, each in its own answer; the call
    // itself succeeds. The caller's own rights decide: a file root could
    // read but this user cannot is refused (EACCES).
    void badPathsRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("message");
        QTest::newRow("FIFO") << QStringLiteral("fifo") << QStringLiteral("is a FIFO, not a regular file");
        QTest::newRow("directory") << QStringLiteral("dir") << QStringLiteral("is a directory, not a regular file");
        QTest::newRow("unreadable to the caller") << QStringLiteral("private") << QStringLiteral("Permission denied");
        QTest::newRow("procfs") << QStringLiteral("proc") << QStringLiteral("is on procfs");
        QTest::newRow("sysfs") << QStringLiteral("sys") << QStringLiteral("is on sysfs");
    }
    void badPathsRefused()
    {
        REQUIRE_ROLE("allowed");
        QFETCH(QString, kind);
        QFETCH(QString, message);
        std::string path;
        if (kind == QLatin1String("fifo")) {
            path = fixture("user/fifo");
            unlink(path.c_str());
            QVERIFY(mkfifo(path.c_str(), 0600) == 0);
        } else if (kind == QLatin1String("dir")) {
            path = fixture("user");
        } else if (kind == QLatin1String("private")) {
            path = fixture("private/secret");
        } else if (kind == QLatin1String("proc")) {
            path = "/proc/self/status";
        } else {
            path = "/sys/kernel/mm/transparent_hugepage/enabled";
        }
        const Privileged::ResidencyResult result = Privileged::residencyOfPaths({QByteArray::fromStdString(path)}, 8);
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.files.size(), size_t(1));
        QVERIFY2(result.files.front().error.contains(message), qPrintable(result.files.front().error));
        QCOMPARE(result.files.front().sizeBytes, uint64_t(0));
    }

    // swapoff / swapon round trip with the state file and the priority.
    void swapRoundTrip()
    {
        REQUIRE_ROLE("allowed");
        const std::string swap = fixture("active.swap");
        QVERIFY(activeArea(swap));
        QCOMPARE(activeArea(swap)->priority, 7);

        Privileged::SwapResult result = Privileged::swapOff(QString::fromStdString(swap));
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.areas, QStringList{QString::fromStdString(swap)});
        QCOMPARE(result.priorities, QList<int>{7});
        QVERIFY(!activeArea(swap));

        // The root-owned state file under /run records it with priority 7.
        struct stat st;
        QVERIFY(stat("/run/cachescope/swap-state", &st) == 0);
        QCOMPARE(st.st_uid, 0u);
        QVERIFY((st.st_mode & 022) == 0);
        std::ifstream in("/run/cachescope/swap-state");
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        QString error;
        const auto records = Helper::parseSwapState(text, &error);
        QVERIFY2(records, qPrintable(error));
        QCOMPARE(records->size(), size_t(1));
        QCOMPARE(records->front().path, swap);
        QCOMPARE(records->front().priority, 7);

        // Turning it off again: nothing is active there any more.
        result = Privileged::swapOff(QString::fromStdString(swap));
        QCOMPARE(result.failure, Privileged::Failure::Refused);
        QVERIFY2(result.message.contains(QLatin1String("not an active swap area")), qPrintable(result.message));

        result = Privileged::swapOn(QString::fromStdString(swap));
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.priorities, QList<int>{7});
        QCOMPARE(result.outcomes.size(), 1);
        QCOMPARE(result.outcomes.front().name, QString::fromStdString(swap));
        QCOMPARE(result.outcomes.front().outcome, QStringLiteral("on"));
        QVERIFY(activeArea(swap));
        QCOMPARE(activeArea(swap)->priority, 7);
        QVERIFY(access("/run/cachescope/swap-state", F_OK) != 0);
    }

    void swapOnOfUnknownAreaRefused()
    {
        REQUIRE_ROLE("allowed");
        const std::string swap = fixture("inactive.swap");
        const Privileged::SwapResult result = Privileged::swapOn(QString::fromStdString(swap));
        QCOMPARE(result.failure, Privileged::Failure::Refused);
        QVERIFY2(result.message.contains(QLatin1String("was not turned off by Cachescope")), qPrintable(result.message));
        QVERIFY(!activeArea(swap));
        // Nothing recorded: swap on for all has nothing to do.
        const Privileged::SwapResult all = Privileged::swapOnAll();
        QCOMPARE(all.failure, Privileged::Failure::NothingToDo);
        QVERIFY(!activeArea(swap));
    }

    // docs/helper-security.md rule 4: another name for an active area (a
    // symlink the user made) is not the kernel's name, and the refusal is the
    // same sentence as for a path that does not exist.
    void swapOffByAnotherNameRefused()
    {
        REQUIRE_ROLE("allowed");
        const std::string swap = fixture("active.swap");
        const std::string link = fixture("user/link.swap");
        unlink(link.c_str());
        QCOMPARE(symlink(swap.c_str(), link.c_str()), 0);
        const std::string before = swapsNow();
        const Privileged::SwapResult throughLink = Privileged::swapOff(QString::fromStdString(link));
        const Privileged::SwapResult missing = Privileged::swapOff(QString::fromStdString(fixture("user/no-such.swap")));
        unlink(link.c_str());
        QCOMPARE(throughLink.failure, Privileged::Failure::Refused);
        QCOMPARE(missing.failure, Privileged::Failure::Refused);
        QVERIFY2(throughLink.message.contains(QLatin1String("is not an active swap area the helper may turn off")), qPrintable(throughLink.message));
        QCOMPARE(QString(missing.message).replace(QLatin1String("no-such.swap"), QLatin1String("link.swap")), throughLink.message);
        QCOMPARE(swapsNow(), before);
        QCOMPARE(activeArea(swap)->priority, 7);
    }

    void experimentSwapFile()
    {
        REQUIRE_ROLE("allowed");
        const std::string path = "/var/lib/cachescope/experiment.swap";
        Privileged::Result result = Privileged::createExperimentSwapFile(32 << 20);
        QVERIFY2(result.ok(), qPrintable(result.message));
        const std::optional<SwapArea> area = activeArea(path);
        QVERIFY(area);
        QCOMPARE(area->sizeBytes, uint64_t(32 << 20) - pageSize());
        result = Privileged::createExperimentSwapFile(32 << 20);
        QCOMPARE(result.failure, Privileged::Failure::NothingToDo);
        QVERIFY(result.message.contains(QLatin1String("already exists")));
        result = Privileged::removeExperimentSwapFile();
        QVERIFY2(result.ok(), qPrintable(result.message));
        QVERIFY(result.data.value(QStringLiteral("wasActive")).toBool());
        QVERIFY(!activeArea(path));
        result = Privileged::removeExperimentSwapFile();
        QCOMPARE(result.failure, Privileged::Failure::NothingToDo);
    }

    // A refusal through the bus reads as well as in-process.
    void badLevelThroughBus()
    {
        REQUIRE_ROLE("allowed");
        const Privileged::DropCachesResult result = Privileged::dropCaches(4);
        QCOMPARE(result.failure, Privileged::Failure::InvalidRequest);
        QVERIFY2(result.message.contains(QLatin1String("out of range (1 to 3)")), qPrintable(result.message));
    }

    // ---- The experiments' privileged variants, through cachescope-cli ----

    // drop_caches before each cold read: the helper really empties the file's
    // cache, so every cold read starts from the disk.
    void experimentColdReadDropCaches()
    {
        REQUIRE_ROLE("allowed");
        const std::string folder = fixture("user");
        const qint64 size = 16 << 20;
        const ExperimentRun run = runExperiment({QStringLiteral("cold-read"),
                                                 QStringLiteral("--drop-caches"),
                                                 QStringLiteral("--no-fadvise"),
                                                 QStringLiteral("--size"),
                                                 QString::number(size),
                                                 QStringLiteral("--runs"),
                                                 QStringLiteral("3"),
                                                 QStringLiteral("--folder"),
                                                 QString::fromStdString(folder)});
        QVERIFY2(run.process.exitCode == 0, qPrintable(describe(run)));
        const QJsonObject variant = variantNamed(run.document, QStringLiteral("drop_caches"));
        QVERIFY2(!variant.isEmpty(), qPrintable(describe(run)));
        QVERIFY2(!variant.value(QStringLiteral("skipped")).toBool(), qPrintable(variant.value(QStringLiteral("skip_reason")).toString()));
        QVERIFY(variantNamed(run.document, QStringLiteral("fadvise")).isEmpty()); // --no-fadvise: only the helper evicted
        const double pages = run.document.value(QStringLiteral("details")).toObject().value(QStringLiteral("pages")).toDouble();
        QCOMPARE(pages, double(size / qint64(pageSize())));
        const QJsonArray runs = variant.value(QStringLiteral("runs")).toArray();
        QCOMPARE(runs.size(), 3);
        for (const QJsonValue &value : runs) {
            const QJsonObject object = value.toObject();
            // Nothing of the file survived drop_caches, not even the previous warm read ...
            QCOMPARE(object.value(QStringLiteral("resident_before_cold")).toDouble(), 0.0);
            // ... and the cold read left all of it for the warm one, but for
            // pages the kernel reclaimed on its own meanwhile, which it counts.
            QCOMPARE(object.value(QStringLiteral("resident_before_warm")).toDouble() + object.value(QStringLiteral("reclaimed_during_cold")).toDouble(), pages);
        }
        const double cold = medianOf(variant, QStringLiteral("cold_seconds"));
        const double warm = medianOf(variant, QStringLiteral("warm_seconds"));
        QVERIFY2(cold > warm && warm > 0, qPrintable(QStringLiteral("cold %1 s, warm %2 s").arg(cold).arg(warm)));
        QCOMPARE(leftovers(folder, "cachescope-cold-read"), QStringList());
    }

    void experimentColdStartDropCaches()
    {
        REQUIRE_ROLE("allowed");
        const ExperimentRun run = runExperiment({QStringLiteral("cold-start"),
                                                 QStringLiteral("--drop-caches"),
                                                 QStringLiteral("--runs"),
                                                 QStringLiteral("1"),
                                                 QStringLiteral("--"),
                                                 QStringLiteral("/usr/bin/true")});
        QVERIFY2(run.process.exitCode == 0, qPrintable(describe(run)));
        for (const QString &name : {QStringLiteral("own files (fadvise)"), QStringLiteral("drop_caches")}) {
            const QJsonObject variant = variantNamed(run.document, name);
            QVERIFY2(!variant.isEmpty(), qPrintable(name + QLatin1Char('\n') + describe(run)));
            QVERIFY2(!variant.value(QStringLiteral("skipped")).toBool(), qPrintable(variant.value(QStringLiteral("skip_reason")).toString()));
            const QJsonArray runs = variant.value(QStringLiteral("runs")).toArray();
            QCOMPARE(runs.size(), 1);
            const QJsonObject first = runs.at(0).toObject();
            QCOMPARE(first.value(QStringLiteral("cold_exit_status")).toInt(-1), 0);
            QCOMPARE(first.value(QStringLiteral("warm_exit_status")).toInt(-1), 0);
            QVERIFY(first.value(QStringLiteral("cold_seconds")).toDouble() > 0);
        }
        QVERIFY(eventTime(run.document, QStringLiteral("drop_caches: run 1: evicting")) >= 0);
    }

    // With swap, then without: while the helper has swap off the samples see
    // no swap at all, and after the run active.swap is back with its priority.
    void experimentPressureWithoutSwap()
    {
        REQUIRE_ROLE("allowed");
        const std::string swap = fixture("active.swap");
        QVERIFY(activeArea(swap));
        const qint64 limit = 96 << 20;
        const ExperimentRun run = runExperiment({QStringLiteral("pressure"),
                                                 QStringLiteral("--whole-machine"),
                                                 QStringLiteral("--without-swap"),
                                                 QStringLiteral("--size"),
                                                 QStringLiteral("8M"),
                                                 QStringLiteral("--limit"),
                                                 QString::number(limit),
                                                 QStringLiteral("--step"),
                                                 QStringLiteral("16M"),
                                                 QStringLiteral("--folder"),
                                                 QString::fromStdString(fixture("user"))});
        QVERIFY2(run.process.exitCode == 0, qPrintable(describe(run)));
        QCOMPARE(run.document.value(QStringLiteral("notes")).toArray(), QJsonArray()); // no "turning swap back on failed"
        for (const QString &name : {QStringLiteral("with swap"), QStringLiteral("without swap")}) {
            const QJsonObject variant = variantNamed(run.document, name);
            QVERIFY2(!variant.isEmpty(), qPrintable(name + QLatin1Char('\n') + describe(run)));
            QVERIFY2(!variant.value(QStringLiteral("skipped")).toBool(), qPrintable(variant.value(QStringLiteral("skip_reason")).toString()));
            const QJsonArray runs = variant.value(QStringLiteral("runs")).toArray();
            QCOMPARE(runs.size(), 1);
            QCOMPARE(runs.at(0).toObject().value(QStringLiteral("allocated")).toDouble(), double(limit));
            QCOMPARE(runs.at(0).toObject().value(QStringLiteral("child_stop")).toString(), QStringLiteral("reached its limit"));
        }
        // The events bracket the time swap was off; the samples say what /proc/meminfo said then.
        const double off = eventTime(run.document, QStringLiteral("Turning swap off"));
        const double on = eventTime(run.document, QStringLiteral("Swap turned back on"));
        QVERIFY2(off > 0 && on > off, qPrintable(describe(run)));
        int samplesWith = 0;
        int samplesWithout = 0;
        for (const QJsonValue &value : run.document.value(QStringLiteral("samples")).toArray()) {
            const QJsonObject sample = value.toObject();
            const double t = sample.value(QStringLiteral("t")).toDouble();
            QVERIFY(sample.contains(QStringLiteral("swap_total")));
            const qint64 swapTotal = sample.value(QStringLiteral("swap_total")).toInteger();
            if (t < off) {
                ++samplesWith;
                QVERIFY2(swapTotal > 0, qPrintable(QStringLiteral("no swap at %1 s, before it was turned off").arg(t)));
            } else if (t > off && t < on) {
                ++samplesWithout;
                QVERIFY2(swapTotal == 0,
                         qPrintable(QStringLiteral("swap_total %1 at %2 s (%3), while swap was off")
                                        .arg(swapTotal)
                                        .arg(t)
                                        .arg(sample.value(QStringLiteral("phase")).toString())));
            }
        }
        QVERIFY(samplesWith > 0);
        QVERIFY(samplesWithout > 0);
        // The helper put it back, with its priority, and forgot it.
        const std::optional<SwapArea> area = activeArea(swap);
        QVERIFY(area);
        QCOMPARE(area->priority, 7);
        QVERIFY(access("/run/cachescope/swap-state", F_OK) != 0);
        QCOMPARE(leftovers(fixture("user"), "cachescope-pressure"), QStringList());
    }

    // Ctrl+C while the child allocates with swap off: the companion (the same
    // process: cachescope-cli execs it) kills and reaps its child, turns swap
    // back on and exits 130.
    void experimentPressureWithoutSwapCancelled()
    {
        REQUIRE_ROLE("allowed");
        const std::string swap = fixture("active.swap");
        QVERIFY(activeArea(swap));
        QProcess cli;
        // Whatever fails below, swap is on again for the tests that follow.
        const auto restore = qScopeGuard([&] {
            if (cli.state() != QProcess::NotRunning) {
                ::kill(pid_t(cli.processId()), SIGINT);
                if (!cli.waitForFinished(30000)) {
                    cli.kill();
                    cli.waitForFinished(5000);
                }
            }
            if (!activeArea(swap)) {
                (void)Privileged::swapOnAll();
            }
        });
        cli.start(TestUtil::cliPath(),
                  {QStringLiteral("experiment"),
                   QStringLiteral("pressure"),
                   QStringLiteral("--whole-machine"),
                   QStringLiteral("--without-swap"),
                   QStringLiteral("--no-with-swap"),
                   QStringLiteral("--size"),
                   QStringLiteral("8M"),
                   QStringLiteral("--limit"),
                   QStringLiteral("1G"),
                   QStringLiteral("--step"),
                   QStringLiteral("8M"),
                   QStringLiteral("--folder"),
                   QString::fromStdString(fixture("user")),
                   QStringLiteral("--json")});
        QVERIFY2(cli.waitForStarted(10000), qPrintable(cli.errorString()));
        cli.closeWriteChannel();
        const pid_t pid = pid_t(cli.processId());
        // Swap off and the allocating child forked: the middle of the variant.
        std::vector<pid_t> children;
        QTRY_VERIFY_WITH_TIMEOUT(cli.state() == QProcess::NotRunning || (!activeArea(swap) && !(children = childrenOf(pid)).empty()), 30000);
        QVERIFY2(
            cli.state() == QProcess::Running,
            qPrintable(
                QStringLiteral("ended before it could be interrupted: exit %1, %2").arg(cli.exitCode()).arg(QString::fromUtf8(cli.readAllStandardError()))));
        QVERIFY(!activeArea(swap));
        QCOMPARE(::kill(pid, SIGINT), 0);
        QVERIFY2(cli.waitForFinished(30000), "did not end within 30 s of SIGINT");
        const QByteArray err = cli.readAllStandardError();
        QCOMPARE(cli.exitStatus(), QProcess::NormalExit);
        QVERIFY2(cli.exitCode() == 130, qPrintable(QStringLiteral("exit %1: %2").arg(cli.exitCode()).arg(QString::fromUtf8(err))));
        // Reaped before the companion exited: not even a zombie is left.
        for (const pid_t child : children) {
            QVERIFY2(!processExists(child), qPrintable(QStringLiteral("child %1 of %2 is still there").arg(child).arg(pid)));
        }
        const QJsonObject document = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
        QCOMPARE(document.value(QStringLiteral("cancelled")).toBool(), true);
        QCOMPARE(document.value(QStringLiteral("notes")).toArray(), QJsonArray());
        QVERIFY(eventTime(document, QStringLiteral("Swap turned back on")) > 0);
        QTRY_VERIFY_WITH_TIMEOUT(activeArea(swap).has_value(), 10000);
        QCOMPARE(activeArea(swap)->priority, 7);
        QVERIFY(access("/run/cachescope/swap-state", F_OK) != 0);
        QCOMPARE(leftovers(fixture("user"), "cachescope-pressure"), QStringList());
    }

    // The refused user: the privileged variant is skipped with polkit's
    // answer, the rest still runs, the exit status is 1, and nothing waits.
    void refusedUserExperimentDropCaches()
    {
        REQUIRE_ROLE("refused");
        const std::string folder = fixture("other");
        const ExperimentRun run = runExperiment({QStringLiteral("cold-read"),
                                                 QStringLiteral("--drop-caches"),
                                                 QStringLiteral("--size"),
                                                 QStringLiteral("4M"),
                                                 QStringLiteral("--runs"),
                                                 QStringLiteral("1"),
                                                 QStringLiteral("--folder"),
                                                 QString::fromStdString(folder)},
                                                30000);
        QVERIFY2(!run.process.timedOut && run.process.exitCode == 1, qPrintable(describe(run)));
        const QJsonObject dropCaches = variantNamed(run.document, QStringLiteral("drop_caches"));
        QVERIFY2(dropCaches.value(QStringLiteral("skipped")).toBool(), qPrintable(describe(run)));
        QVERIFY2(dropCaches.value(QStringLiteral("skip_reason")).toString().contains(QLatin1String("not authorized")), qPrintable(describe(run)));
        QCOMPARE(dropCaches.value(QStringLiteral("runs")).toArray().size(), 0);
        QVERIFY(problemsMention(run.document, QStringLiteral("drop_caches"), QStringLiteral("not authorized")));
        QVERIFY2(run.process.err.contains("drop_caches") && run.process.err.contains("not authorized"), run.process.err.constData());
        const QJsonObject fadvise = variantNamed(run.document, QStringLiteral("fadvise"));
        QVERIFY(!fadvise.isEmpty() && !fadvise.value(QStringLiteral("skipped")).toBool());
        QCOMPARE(fadvise.value(QStringLiteral("runs")).toArray().size(), 1);
        QCOMPARE(leftovers(folder, "cachescope-cold-read"), QStringList());
    }

    // ... and swap is never touched for them.
    void refusedUserExperimentWithoutSwap()
    {
        REQUIRE_ROLE("refused");
        const std::string swap = fixture("active.swap");
        const ExperimentRun run = runExperiment({QStringLiteral("pressure"),
                                                 QStringLiteral("--whole-machine"),
                                                 QStringLiteral("--without-swap"),
                                                 QStringLiteral("--no-with-swap"),
                                                 QStringLiteral("--size"),
                                                 QStringLiteral("4M"),
                                                 QStringLiteral("--limit"),
                                                 QStringLiteral("32M"),
                                                 QStringLiteral("--folder"),
                                                 QString::fromStdString(fixture("other"))},
                                                30000);
        QVERIFY2(!run.process.timedOut && run.process.exitCode == 1, qPrintable(describe(run)));
        const QJsonObject variant = variantNamed(run.document, QStringLiteral("without swap"));
        QVERIFY2(variant.value(QStringLiteral("skipped")).toBool(), qPrintable(describe(run)));
        QVERIFY2(variant.value(QStringLiteral("skip_reason")).toString().contains(QLatin1String("not authorized")), qPrintable(describe(run)));
        QVERIFY(problemsMention(run.document, QStringLiteral("without swap"), QStringLiteral("not authorized")));
        QVERIFY(activeArea(swap));
        QCOMPARE(activeArea(swap)->priority, 7);
    }
};

QTEST_GUILESS_MAIN(HelperBusTest)
#include "helperbustest.moc"
