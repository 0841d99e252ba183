// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The trace engine on the real kernel: the fallback on the lesson with a
// really evicted file, bad commands, the traced path's own mechanics, and
// (as root, with the privileged client acting in process) the trace itself:
// the lesson's extents, two runs alike, two methods agreeing, a child traced
// and another process not, an early exit, a cancel.

#include "experiments/engines.h"
#include "residency.h"
#include "testutil.h"
#include "trace/traceanalysis.h"
#include "trace/tracereport.h"

#include <QJsonArray>
#include <QTest>

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#ifdef CACHESCOPE_TRACE_PRIVILEGED
#include "privileged.h"
#endif

using namespace Cachescope;
using namespace Cachescope::Trace;
namespace Experiments = Cachescope::Experiments;

namespace
{
// The pages of one file a report's extents cover.
PageRangeSet pagesOf(const Report &report, const std::string &path)
{
    const std::map<std::string, PageRangeSet> pages = pagesByPath(report);
    const auto found = pages.find(path);
    return found == pages.end() ? PageRangeSet() : found->second;
}

// Waits until process pid has ended (not reaped: the engine reaps it).
bool waitForExit(int pid, int timeoutMs)
{
    const int pidFd = int(::syscall(SYS_pidfd_open, pid, 0));
    if (pidFd < 0) {
        return false;
    }
    struct pollfd poller = {pidFd, POLLIN, 0};
    const bool ended = ::poll(&poller, 1, timeoutMs) == 1;
    ::close(pidFd);
    return ended;
}

// A trace step that records nothing: the engine's own part (the command
// held before exec, let go, reaped; a deadline; a failure) on its own.
Cachescope::Experiments::PrivilegedSteps stepsThat(const std::string &endReason, bool fails = false)
{
    Cachescope::Experiments::PrivilegedSteps steps;
    steps.trace = [endReason, fails](int pid, int, const std::function<void()> &tracingOn, const std::atomic<bool> &, Capture &capture, std::string &error) {
        // The command is held: alive, and not yet the program it will be.
        if (::kill(pid, 0) != 0) {
            error = "the command is not there";
            return false;
        }
        char held[4096] = {};
        char self[4096] = {};
        if (::readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), held, sizeof held - 1) <= 0
            || ::readlink("/proc/self/exe", self, sizeof self - 1) <= 0 || std::string(held) != self) {
            error = std::string("the command ran before tracing was on: ") + held;
            return false;
        }
        if (fails) {
            error = "refused on purpose";
            return false;
        }
        tracingOn();
        capture.usageEvents = true;
        capture.endReason = endReason;
        if (endReason == "exited" && !waitForExit(pid, 30000)) {
            error = "the command did not end";
            return false;
        }
        return true;
    };
    return steps;
}

#ifdef CACHESCOPE_TRACE_PRIVILEGED
// The real trace step, as cachescope-cli-privileged fills it: as root the
// helper's own action runs in this process (tracefs, pid translation).
// afterTracingOn runs in this process once the command was let go.
Cachescope::Experiments::PrivilegedSteps realSteps(const std::function<void()> &afterTracingOn = {})
{
    Cachescope::Experiments::PrivilegedSteps steps;
    steps.trace = [afterTracingOn](int pid,
                                   int maxSeconds,
                                   const std::function<void()> &tracingOn,
                                   const std::atomic<bool> &cancel,
                                   Capture &capture,
                                   std::string &error) {
        const auto on = [&] {
            tracingOn();
            if (afterTracingOn) {
                afterTracingOn();
            }
        };
        Cachescope::Privileged::TraceResult result = Cachescope::Privileged::trace(pid, maxSeconds, on, &cancel);
        if (!result.ok()) {
            error = result.message.toStdString();
            return false;
        }
        capture = std::move(result.capture);
        return true;
    };
    return steps;
}
#endif

const File *fileNamed(const Report &report, const std::string &path)
{
    for (const File &file : report.files) {
        if (file.path == path) {
            return &file;
        }
    }
    return nullptr;
}
} // namespace

class TraceEngineTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The fallback on the lesson: its file really evicted, the command run,
    // the residency compared. Both reads are in, and readahead shows as
    // pages beyond them.
    void fallbackOnTheLesson()
    {
        std::string lookedFor;
        const std::string reader = Experiments::findTraceLessonReader(&lookedFor);
        QVERIFY2(!reader.empty(), lookedFor.c_str());
        Experiments::TraceParameters p;
        p.lessonReader = reader;
        p.traceFolder = TestUtil::scratchDir("trace-fallback-lesson");
        p.forceFallback = true;
        const std::atomic<bool> cancel{false};
        const Experiments::Result result = Experiments::makeTraceExperiment(p)->run({}, cancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.details.value(QStringLiteral("method")).toString(), QStringLiteral("residency-diff"));
        QVERIFY(result.trace);
        const Report &report = *result.trace;
        QCOMPARE(report.method, Method::ResidencyDiff);
        QCOMPARE(report.exitStatus, 0);
        QVERIFY(!report.usageKnown);
        const std::string lessonPath = result.details.value(QStringLiteral("lesson_file")).toString().toStdString();
        QVERIFY(!lessonPath.empty());
        QCOMPARE(::access(lessonPath.c_str(), F_OK), -1); // removed at the end
        QCOMPARE(report.command.front(), reader);
        const File *lesson = fileNamed(report, lessonPath);
        QVERIFY2(lesson, "the lesson's file is not in the trace");
        QCOMPARE(lesson->sizeBytes, Experiments::traceLessonFileBytes);
        const PageRangeSet pages = pagesOf(report, lessonPath);
        const uint64_t page = pageSize();
        PageRangeSet reads;
        reads.add(0, Experiments::traceLessonReadBytes / page);
        reads.add(Experiments::traceLessonSecondReadOffset / page, Experiments::traceLessonReadBytes / page);
        // Only pages the kernel reclaimed since may be missing.
        QVERIFY2(reads.pagesNotIn(pages) <= lesson->pagesDeleted,
                 qPrintable(QStringLiteral("%1 pages of the two reads missing, %2 reclaimed").arg(reads.pagesNotIn(pages)).arg(lesson->pagesDeleted)));
        QVERIFY2(pages.pagesNotIn(reads) > 0, "no page beyond the two reads: no readahead seen");
        for (const Extent &extent : report.extents) {
            QCOMPARE(extent.startSeconds, 0.0); // the fallback knows no time
        }
        QVERIFY(!result.notes.empty());
        QVERIFY(result.notes.front().find("exact pages, no order") != std::string::npos);
        const Experiments::Measurement *pagesRead = result.variant("residency-diff") ? result.variant("residency-diff")->find("pages_read") : nullptr;
        QVERIFY(pagesRead);
        QCOMPARE(pagesRead->values.front(), double(report.pagesRead()));
    }

    void badCommands_data()
    {
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<double>("timeout");
        QTest::addColumn<QString>("expected");
        QTest::newRow("no such path") << QStringList{QStringLiteral("/nonexistent/cachescope-no-such-program")} << 60.0
                                      << QStringLiteral("/nonexistent/cachescope-no-such-program: no such program (not found or not executable)");
        QTest::newRow("not in PATH") << QStringList{QStringLiteral("cachescope-no-such-program")} << 60.0
                                     << QStringLiteral("cachescope-no-such-program: no such program (not found or not executable in PATH)");
        QTest::newRow("a folder") << QStringList{QStringLiteral("/usr/")} << 60.0 << QStringLiteral("/usr/: no such program");
        QTest::newRow("never ends") << QStringList{QStringLiteral("sleep"), QStringLiteral("600")} << 1.0 << QStringLiteral("sleep: did not finish within");
    }

    // Refused with a sentence naming the command; nothing hangs.
    void badCommands()
    {
        QFETCH(QStringList, command);
        QFETCH(double, timeout);
        QFETCH(QString, expected);
        for (const bool fallback : {true, false}) {
            Experiments::TraceParameters p;
            for (const QString &argument : command) {
                p.command.push_back(argument.toStdString());
            }
            p.traceFolder = TestUtil::scratchDir("trace-bad-command");
            p.timeoutSeconds = timeout;
            p.forceFallback = fallback;
            const std::atomic<bool> cancel{false};
            Experiments::PrivilegedSteps steps;
            // A trace step that must never be reached: these fail before tracing.
            steps.trace = [](int, int, const std::function<void()> &, const std::atomic<bool> &, Capture &, std::string &error) {
                error = "not expected";
                return false;
            };
            const Experiments::Result result = Experiments::makeTraceExperiment(p, steps)->run({}, cancel);
            QVERIFY(!result.ok());
            QVERIFY2(QString::fromStdString(result.error).contains(expected), result.error.c_str());
            QVERIFY(!result.trace);
        }
    }

    void programThatCannotRun()
    {
        const std::string folder = TestUtil::scratchDir("trace-cannot-run");
        const std::string path = folder + "/not-a-program";
        {
            std::ofstream(path) << "\x01\x02 neither ELF nor a script\n";
        }
        QCOMPARE(::chmod(path.c_str(), 0755), 0);
        Experiments::TraceParameters p;
        p.command = {path};
        p.traceFolder = folder;
        p.forceFallback = true;
        const std::atomic<bool> cancel{false};
        const Experiments::Result result = Experiments::makeTraceExperiment(p)->run({}, cancel);
        QVERIFY(!result.ok());
        QVERIFY2(QString::fromStdString(result.error).contains(QString::fromStdString(path + ": cannot run it: ")), result.error.c_str());
    }

    // A command that exits at once, and with a failure: a trace all the
    // same, its exit status said.
    void commandThatExitsAtOnce()
    {
        Experiments::TraceParameters p;
        p.command = {"false"};
        p.traceFolder = TestUtil::scratchDir("trace-exits-at-once");
        p.forceFallback = true;
        p.runs = 2;
        const std::atomic<bool> cancel{false};
        const Experiments::Result result = Experiments::makeTraceExperiment(p)->run({}, cancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QVERIFY(result.trace);
        QCOMPARE(result.trace->exitStatus, 1);
        QCOMPARE(result.variants.size(), size_t(1));
        QCOMPARE(result.variants[0].runs.size(), 2);
        QCOMPARE(result.variants[0].runs[1].toObject().value(QStringLiteral("exit_status")).toInt(), 1);
    }

    // The traced path's own mechanics, with a step that records nothing:
    // the command is held until tracing is on, its exit status comes
    // through, a deadline kills it, a failing step leaves no child behind.
    void tracedCommandIsHeldThenReleased()
    {
        Experiments::TraceParameters p;
        p.command = {"false"};
        p.traceFolder = TestUtil::scratchDir("trace-held");
        const std::atomic<bool> cancel{false};
        const Experiments::Result result = Experiments::makeTraceExperiment(p, stepsThat("exited"))->run({}, cancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.details.value(QStringLiteral("method")).toString(), QStringLiteral("tracefs"));
        QVERIFY(result.trace);
        QCOMPARE(result.trace->method, Method::Tracefs);
        QCOMPARE(result.trace->exitStatus, 1);
        QCOMPARE(result.trace->endReason, std::string("exited"));
        QVERIFY(result.details.value(QStringLiteral("residency_diff")).isObject());
        QVERIFY(result.variant("tracefs"));
        QVERIFY(result.variant("tracefs")->runs.at(0).toObject().value(QStringLiteral("agreement")).isObject());
    }

    void tracedCommandPastItsDeadline()
    {
        Experiments::TraceParameters p;
        p.command = {"sleep", "0.3"}; // ends by itself when recorded, outlives the fake deadline
        p.traceFolder = TestUtil::scratchDir("trace-deadline");
        const std::atomic<bool> cancel{false};
        const Experiments::Result result = Experiments::makeTraceExperiment(p, stepsThat("deadline"))->run({}, cancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QVERIFY(result.trace);
        QCOMPARE(result.trace->exitStatus, -1); // killed
        QCOMPARE(result.trace->endReason, std::string("deadline"));
        bool noted = false;
        for (const std::string &note : result.trace->notes) {
            noted = noted || note.find("it was killed") != std::string::npos;
        }
        QVERIFY(noted);
    }

    void tracingThatFails()
    {
        Experiments::TraceParameters p;
        p.command = {"true"};
        p.traceFolder = TestUtil::scratchDir("trace-fails");
        const std::atomic<bool> cancel{false};
        const Experiments::Result result = Experiments::makeTraceExperiment(p, stepsThat("exited", true))->run({}, cancel);
        QVERIFY(!result.ok());
        QCOMPARE(result.error, std::string("tracing failed: refused on purpose"));
        QVERIFY(!result.trace);
    }

#ifdef CACHESCOPE_TRACE_PRIVILEGED
    // The lesson traced for real on an evicted file: the extents cover both
    // reads, readahead shows as pages beyond them (asked for: exactly the
    // two reads); a second trace has the same extents; and the residency
    // diff of the same run has the same pages, but for those the kernel
    // reclaimed meanwhile.
    void tracedLesson()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("tracing needs root here (the helper's action runs in this process as root)");
        }
        std::string lookedFor;
        const std::string reader = Experiments::findTraceLessonReader(&lookedFor);
        QVERIFY2(!reader.empty(), lookedFor.c_str());
        const uint64_t page = pageSize();
        PageRangeSet reads;
        reads.add(0, Experiments::traceLessonReadBytes / page);
        reads.add(Experiments::traceLessonSecondReadOffset / page, Experiments::traceLessonReadBytes / page);

        std::vector<std::vector<std::pair<uint64_t, uint64_t>>> extentsOfRuns;
        for (int run = 0; run < 2; ++run) {
            Experiments::TraceParameters p;
            p.lessonReader = reader;
            p.traceFolder = TestUtil::scratchDir("trace-real-lesson");
            const std::atomic<bool> cancel{false};
            const Experiments::Result result = Experiments::makeTraceExperiment(p, realSteps())->run({}, cancel);
            QVERIFY2(result.ok(), result.error.c_str());
            QVERIFY(result.trace);
            const Report &report = *result.trace;
            QCOMPARE(report.method, Method::Tracefs);
            QCOMPARE(report.exitStatus, 0);
            QCOMPARE(report.endReason, std::string("exited"));
            QCOMPARE(report.lostEvents, uint64_t(0));
            QVERIFY2(report.usageKnown, "this kernel (6.18) has the usage tracepoints");
            const std::string lessonPath = result.details.value(QStringLiteral("lesson_file")).toString().toStdString();
            const File *lesson = fileNamed(report, lessonPath);
            QVERIFY2(lesson, "the lesson's file is not in the trace");
            const PageRangeSet pages = pagesOf(report, lessonPath);
            QCOMPARE(reads.pagesNotIn(pages), uint64_t(0));
            QVERIFY2(pages.pagesNotIn(reads) > 0, "no page beyond the two reads: no readahead seen");
            QCOMPARE(lesson->pagesAsked, reads.pages());
            QVERIFY(report.pagesReadaheadOnly() >= pages.pagesNotIn(reads));
            std::vector<std::pair<uint64_t, uint64_t>> extents;
            double lastStart = 0;
            for (const Extent &extent : report.extents) {
                QVERIFY(extent.startSeconds >= lastStart); // in the order they happened
                lastStart = extent.startSeconds;
                if (report.files.at(size_t(extent.file)).path == lessonPath) {
                    extents.emplace_back(extent.firstPage, extent.pageCount);
                }
            }
            extentsOfRuns.push_back(extents);

            // The same run, the fallback's way.
            std::string error;
            const std::optional<Report> diff = reportFromJson(result.details.value(QStringLiteral("residency_diff")).toObject(), &error);
            QVERIFY2(diff, error.c_str());
            QCOMPARE(diff->method, Method::ResidencyDiff);
            const File *diffLesson = fileNamed(*diff, lessonPath);
            QVERIFY(diffLesson);
            const PageRangeSet diffPages = pagesOf(*diff, lessonPath);
            QCOMPARE(diffPages.pagesNotIn(pages), uint64_t(0));
            QVERIFY2(
                pages.pagesNotIn(diffPages) <= diffLesson->pagesDeleted,
                qPrintable(QStringLiteral("%1 traced pages not resident after, %2 reclaimed").arg(pages.pagesNotIn(diffPages)).arg(diffLesson->pagesDeleted)));
            const QJsonObject agreement = result.variant("tracefs")->runs.at(0).toObject().value(QStringLiteral("agreement")).toObject();
            QVERIFY(agreement.value(QStringLiteral("traced_pages")).toDouble() >= double(pages.pages()));
        }
        QCOMPARE(extentsOfRuns[1], extentsOfRuns[0]);
    }

    // event-fork: a child of the command is traced; the test process,
    // reading another file while the command runs, is not.
    void tracedChildNotOthers()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("tracing needs root here (the helper's action runs in this process as root)");
        }
        const std::string reader = Experiments::findTraceLessonReader();
        QVERIFY(!reader.empty());
        const std::string folder = TestUtil::scratchDir("trace-real-child");
        const std::string childsFile = folder + "/read-by-a-child";
        const std::string othersFile = folder + "/read-by-another-process";
        TestUtil::makeColdFile(childsFile, 1 << 20);
        TestUtil::makeColdFile(othersFile, 1 << 20);
        struct stat othersSt = {};
        QCOMPARE(::stat(othersFile.c_str(), &othersSt), 0);
        Experiments::TraceParameters p;
        // The shell forks for the reader (a command before "exit" is not exec'd in place).
        p.command = {"/bin/sh", "-c", "\"$0\" \"$1\"; exit 0", reader, childsFile};
        p.traceFolder = folder;
        bool otherRead = false;
        const std::atomic<bool> cancel{false};
        const Experiments::Result result = Experiments::makeTraceExperiment(p, realSteps([&] {
                                                                                TestUtil::evictRaw(othersFile);
                                                                                TestUtil::readRange(othersFile, 0, 256 << 10);
                                                                                otherRead = true;
                                                                            }))
                                               ->run({}, cancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QVERIFY(otherRead);
        QVERIFY(result.trace);
        const Report &report = *result.trace;
        QVERIFY2(fileNamed(report, childsFile), "the child's reads are not in the trace");
        QVERIFY(pagesOf(report, childsFile).pages() >= (64 << 10) / pageSize());
        for (const File &file : report.files) {
            QVERIFY2(file.inode != uint64_t(othersSt.st_ino) || file.major != ::major(othersSt.st_dev), "another process's reads are in the trace");
        }
    }

    // A command that exits at once, traced: its exit status, and a trace.
    void tracedCommandThatExitsAtOnce()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("tracing needs root here (the helper's action runs in this process as root)");
        }
        Experiments::TraceParameters p;
        p.command = {"false"};
        p.traceFolder = TestUtil::scratchDir("trace-real-false");
        const std::atomic<bool> cancel{false};
        const Experiments::Result result = Experiments::makeTraceExperiment(p, realSteps())->run({}, cancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QVERIFY(result.trace);
        QCOMPARE(result.trace->method, Method::Tracefs);
        QCOMPARE(result.trace->exitStatus, 1);
        QCOMPARE(result.trace->endReason, std::string("exited"));
    }

    // Cancel while a traced command runs: the run ends, cancelled, and
    // leaves no child behind.
    void tracedRunCancelled()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("tracing needs root here (the helper's action runs in this process as root)");
        }
        Experiments::TraceParameters p;
        p.command = {"sleep", "1"}; // short for the recording run; the traced run is cancelled
        p.traceFolder = TestUtil::scratchDir("trace-real-cancel");
        std::atomic<bool> cancel{false};
        std::thread canceller;
        const Experiments::Result result = Experiments::makeTraceExperiment(p, realSteps([&] {
                                                                                canceller = std::thread([&cancel] {
                                                                                    std::this_thread::sleep_for(std::chrono::milliseconds(200));
                                                                                    cancel = true;
                                                                                });
                                                                            }))
                                               ->run({}, cancel);
        canceller.join();
        QVERIFY(result.cancelled);
        QVERIFY(!result.trace);
        errno = 0;
        QCOMPARE(::waitpid(-1, nullptr, WNOHANG), -1); // no child of ours, running or not reaped
        QCOMPARE(errno, ECHILD);
    }
#endif
};

QTEST_GUILESS_MAIN(TraceEngineTest)
#include "traceenginetest.moc"
