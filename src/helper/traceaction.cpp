// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The trace action (docs/helper-security.md rule 16): the page-cache events
// of one process of the caller's, and of its children, from a private
// tracefs instance the helper names, configures and removes itself. The
// caller chooses only which of its own processes and for how long (at most
// maxTraceSeconds); never a path, an event, a filter or an instance. The
// events reach the caller alone (a signal addressed to it).

#include "actionsupport.h"
#include "cachescope_helper_debug.h"
#include "callerprocess.h"
#include "helperactions.h"
#include "helperlogic.h"
#include "helperprotocol.h"
#include "tracecapture.h"
#include "tracefs.h"

#include "format.h"
#include "pidnamespace.h"
#include "procfs.h"
#include "trace/traceparser.h"
#include "uniquefd.h"

#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <set>
#include <string_view>
#include <tuple>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

namespace
{

// The kernel's largest pid (PID_MAX_LIMIT on 64-bit).
constexpr long long maxPid = 4194304;
// How often the loop looks at the process, stopped() and the buffers' fill.
constexpr int stopCheckMs = 100;
// The exec watch's buffer: an exec line is about 100 bytes, and the watch
// is read at each one.
constexpr unsigned execWatchBufferKiBPerCpu = 64;

// Reads what trace_pipe has now (non-blocking) into the capture; events past
// the cap are only counted.
struct PipeReader {
    int fd = -1;
    Trace::Capture &capture;
    size_t cap = 0;
    uint64_t pastCap = 0;
    std::string partial;

    void drain()
    {
        char buffer[65536];
        for (;;) {
            const ssize_t n = read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                return; // EAGAIN: nothing more now; 0: nothing more at all
            }
            partial.append(buffer, size_t(n));
            size_t start = 0;
            for (size_t end = partial.find('\n'); end != std::string::npos; end = partial.find('\n', start)) {
                take(std::string_view(partial).substr(start, end - start));
                start = end + 1;
            }
            partial.erase(0, start);
        }
    }

    void take(std::string_view line)
    {
        std::optional<Trace::RawEvent> event = Trace::parseTraceLine(line);
        if (!event) {
            return;
        }
        if (capture.events.size() >= cap) {
            ++pastCap;
            return;
        }
        capture.events.push_back(std::move(*event));
    }
};

// Where a traced task stands, read from the initial namespace's /proc
// (tracefs's pids): wholly the caller's (real, effective and saved uid) and
// dumpable, not so (an exec of a set-user-ID program or of one with file
// capabilities), or gone (ended and reaped) so that nobody can tell.
enum class TaskStanding {
    Callers,
    NotCallers,
    Gone
};

TaskStanding standingOf(const std::string &initialProc, int64_t pid, uint32_t callerUid)
{
    const std::optional<ProcessCredentials> credentials = credentialsFromProc(pid, initialProc);
    if (!credentials) {
        return TaskStanding::Gone;
    }
    return ownedByCaller(*credentials, callerUid) && credentials->dumpable == true ? TaskStanding::Callers : TaskStanding::NotCallers;
}

// docs/helper-security.md rule 16: the first traced task that is no longer
// wholly the caller's; a task that has ended meanwhile is passed over (the
// exec watch below sees the ones that ended right after an exec).
std::optional<int64_t> taskNoLongerCallers(const TraceInstance &instance, const std::string &initialProc, uint32_t callerUid)
{
    for (const int64_t pid : instance.tracedPids()) {
        if (standingOf(initialProc, pid, callerUid) == TaskStanding::NotCallers) {
            return pid;
        }
    }
    return std::nullopt;
}

// docs/helper-security.md rule 16: every exec of a traced task, from an
// instance of its own that wakes its reader at each event, so that the
// helper looks at the task's credentials within moments of the exec, not
// at the next 100 ms check, which a program that ends at once would pass.
// A task that execed and is gone before the helper looked is unchecked:
// its events are withheld and counted as lost.
struct ExecWatch {
    std::unique_ptr<TraceInstance> instance;
    UniqueFd pipe;
    std::string partial;
    bool unreadable = false; // an exec line whose pid could not be read

    // The pids of the exec lines that arrived since the last call.
    std::vector<int64_t> execed()
    {
        std::vector<int64_t> pids;
        char buffer[16384];
        for (;;) {
            const ssize_t n = read(pipe.get(), buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                break;
            }
            partial.append(buffer, size_t(n));
            size_t start = 0;
            for (size_t end = partial.find('\n'); end != std::string::npos; end = partial.find('\n', start)) {
                // A command name with a line break in it splits a line; the
                // kernel's "task_rename: pid=N" is still on one.
                const std::string_view line = std::string_view(partial).substr(start, end - start);
                if (const std::optional<int64_t> pid = execedPid(line)) {
                    pids.push_back(*pid);
                } else if (isExecLine(line)) {
                    unreadable = true;
                }
                start = end + 1;
            }
            partial.erase(0, start);
            if (partial.size() > 65536) {
                partial.erase(0, partial.size() - 65536); // a file name cannot be longer (PATH_MAX)
            }
        }
        return pids;
    }
};

// What the checks found: tasks no longer the caller's (the trace ends) and
// tasks gone unchecked after an exec.
struct TaskChecks {
    std::set<int64_t> foreign;
    std::set<int64_t> unchecked;
    bool execsLost = false;

    // Returns false when the trace must end.
    bool check(const std::string &initialProc, int64_t pid, uint32_t callerUid)
    {
        switch (standingOf(initialProc, pid, callerUid)) {
        case TaskStanding::Callers:
            return true;
        case TaskStanding::Gone:
            unchecked.insert(pid);
            return true;
        case TaskStanding::NotCallers:
            foreign.insert(pid);
            return false;
        }
        return true;
    }

    // Looks at every task that execed since the last call.
    bool checkExecs(ExecWatch &watch, const std::string &initialProc, uint32_t callerUid)
    {
        bool keepOn = true;
        for (const int64_t pid : watch.execed()) {
            keepOn = check(initialProc, pid, callerUid) && keepOn;
        }
        if (watch.instance->lostEvents() > 0 || watch.unreadable) {
            execsLost = true; // which task execed is not known: nothing can be returned
            keepOn = false;
        }
        return keepOn;
    }
};

// Records until the process exits, the deadline passes, the client stops,
// the cap is reached or a traced task stops being the caller's; then turns
// tracing off and reads the rest. checkedUid and watch are set together.
void record(HelperContext &context,
            const TraceInstance &instance,
            int pipe,
            int pidfd,
            int seconds,
            Trace::Capture &capture,
            const std::optional<uint32_t> &checkedUid,
            ExecWatch *watch,
            TaskChecks &checks)
{
    using Clock = std::chrono::steady_clock;
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(seconds);
    const size_t cap = std::min<size_t>(context.traceEventLimit, size_t(maxTraceEvents));
    PipeReader reader{pipe, capture, cap, 0, {}};
    const std::string initialProc = initialProcRoot(context);
    const uint32_t uid = checkedUid.value_or(0);
    const auto credentialsEnd = [&capture, &checks] {
        capture.endReason = checks.execsLost ? "failed" : "credentials";
    };
    // The events wait in the ring buffer while the process runs, and are read
    // only when some CPU's buffer is half full and at the end: reading
    // trace_pipe formats every event as text, and on a machine with few
    // cores that work would compete with the traced program and slow the
    // very start being measured.
    const uint64_t drainAtBytes = uint64_t(traceBufferKiBPerCpu) * 1024 / 2;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        pollfd polled[2] = {{pidfd, POLLIN, 0}, {watch ? watch->pipe.get() : -1, POLLIN, 0}};
        if (left > 0 && poll(polled, 2, int(std::min<long long>(left, stopCheckMs))) < 0 && errno != EINTR) {
            capture.endReason = "failed";
            break;
        }
        if (watch && !checks.checkExecs(*watch, initialProc, uid)) {
            credentialsEnd();
            break;
        }
        if (instance.fullestCpuBytes() >= drainAtBytes) {
            reader.drain();
        }
        if (capture.events.size() >= cap) {
            capture.endReason = "event limit";
            break;
        }
        if (processHasExited(pidfd)) {
            capture.endReason = "exited";
            break;
        }
        if (context.stopped && context.stopped()) {
            capture.endReason = "cancelled";
            break;
        }
        if (checkedUid) {
            if (const std::optional<int64_t> task = taskNoLongerCallers(instance, initialProc, uid)) {
                checks.foreign.insert(*task);
                credentialsEnd();
                break;
            }
        }
        if (Clock::now() >= deadline) {
            capture.endReason = "deadline";
            break;
        }
    }
    (void)instance.setTracing(false);
    if (watch) {
        // The execs up to the moment tracing stopped, looked at too.
        (void)watch->instance->setTracing(false);
        if (!checks.checkExecs(*watch, initialProc, uid) && capture.endReason != "credentials") {
            credentialsEnd();
        }
    }
    reader.drain();
    if (reader.pastCap > 0) {
        // The cap was reached in the last read: the capture is cut short
        // whatever ended the wait.
        capture.endReason = "event limit";
    }
    capture.lostEvents = instance.lostEvents() + reader.pastCap;
}

// docs/helper-security.md rule 16: makes the exec watch for the traced
// process (tracing on); an error sentence, or nothing.
std::optional<std::string> startExecWatch(ExecWatch &watch, const std::string &tracefs, int64_t helperPid, int hostPid)
{
    std::string error;
    watch.instance = TraceInstance::create(tracefs, helperPid, &error);
    if (!watch.instance) {
        return error;
    }
    std::vector<bool> present;
    if (auto problem = watch.instance->configure(hostPid, execWatchBufferKiBPerCpu, {execEventName()}, true, &present)) {
        return problem;
    }
    if (present.empty() || !present.front()) {
        return "this kernel has no " + execEventName() + " tracepoint, so the traced tasks' execs cannot be watched";
    }
    watch.pipe = watch.instance->openPipe(&error);
    if (!watch.pipe.isValid()) {
        return error;
    }
    if (!watch.instance->setTracing(true)) {
        return "cannot turn the exec watch on: " + errnoText(errno);
    }
    return std::nullopt;
}

} // namespace

// docs/helper-security.md rule 16: the reclaim that runs in a traced task's
// context drops pages of other people's files; those evictions, of inodes
// the traced tasks never read, mapped or faulted, are not the caller's to
// see, and are dropped. So are all events of a task that stopped being the
// caller's. Returns how many were dropped.
size_t dropEventsNotTheCallers(Trace::Capture &capture, const std::set<int64_t> &foreignTasks)
{
    std::set<std::tuple<uint32_t, uint32_t, uint64_t>> used;
    for (const Trace::RawEvent &event : capture.events) {
        if (event.kind != Trace::EventKind::Deleted && event.kind != Trace::EventKind::BlockIssue && !foreignTasks.contains(event.pid)) {
            used.insert({event.major, event.minor, event.inode});
        }
    }
    const size_t before = capture.events.size();
    std::erase_if(capture.events, [&](const Trace::RawEvent &event) {
        return foreignTasks.contains(event.pid) || (event.kind == Trace::EventKind::Deleted && !used.contains({event.major, event.minor, event.inode}));
    });
    return before - capture.events.size();
}

std::string initialProcRoot(const HelperContext &context)
{
    return pidNamespaceInode(context.procRoot, "self") == initialPidNamespaceInode ? context.procRoot : context.hostProcRoot;
}

ActionReply traceAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    static const char *action = "trace";
    if (!caller.uid) {
        return finish(context, action, caller, {}, unknownCallerRefusal());
    }
    // docs/helper-security.md rule 9 and 16: the process and the seconds;
    // nothing else.
    if (auto problem = checkKeys(args, {keyPid, keySeconds}, {keyPid, keySeconds})) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    const IntegerArgument pid = integerArgument(args, keyPid, 1, maxPid);
    if (!pid.value) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, pid.error));
    }
    const IntegerArgument seconds = integerArgument(args, keySeconds, 1, maxTraceSeconds);
    if (!seconds.value) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, seconds.error));
    }
    QString target = QStringLiteral("pid=%1,seconds=%2").arg(*pid.value).arg(*seconds.value);

    // docs/helper-security.md rule 16: the process is pinned first, so that
    // every check below is about this very process, not a later one with
    // the same pid; its real, effective and saved uid must be the caller's,
    // and it must be dumpable (no set-user-ID program, nothing that made
    // itself secret).
    const UniqueFd pidfd = openPidfd(*pid.value);
    if (!pidfd.isValid()) {
        const int error = errno;
        return finish(context,
                      action,
                      caller,
                      target,
                      error == ESRCH ? refuse(NotPermitted, QStringLiteral("Process %1 does not exist.").arg(*pid.value))
                                     : refuse(SystemFailure, QStringLiteral("Cannot hold process %1: %2").arg(*pid.value).arg(errnoQText(error))));
    }
    const std::optional<ProcessCredentials> credentials = credentialsOf(pidfd.get(), *pid.value, context.procRoot);
    if (!credentials) {
        return finish(context, action, caller, target, refuse(NotPermitted, QStringLiteral("Process %1 has already ended.").arg(*pid.value)));
    }
    if (!ownedByCaller(*credentials, *caller.uid)) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(NotPermitted,
                             QStringLiteral("Process %1 is not yours: the helper traces only processes whose real, effective and saved user are the caller "
                                            "(a set-user-ID program is not).")
                                 .arg(*pid.value)));
    }
    // Root may read any process's memory anyway: for it dumpability keeps nothing secret.
    if (*caller.uid != 0 && credentials->dumpable != true) {
        return finish(
            context,
            action,
            caller,
            target,
            refuse(NotPermitted,
                   credentials->dumpable.has_value()
                       ? QStringLiteral("Process %1 is not dumpable (it keeps its memory secret even from you): the helper does not trace it.").arg(*pid.value)
                       : QStringLiteral("Cannot tell whether process %1 is dumpable here: the helper does not trace it.").arg(*pid.value)));
    }
    const HostPid hostPid = hostPidOf(int(*pid.value), context.procRoot, context.hostProcRoot);
    if (!hostPid.pid) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(Unsupported, QStringLiteral("Cannot trace here: %1.").arg(QString::fromStdString(hostPid.error))));
    }
    if (processHasExited(pidfd.get())) {
        return finish(context, action, caller, target, refuse(NotPermitted, QStringLiteral("Process %1 has already ended.").arg(*pid.value)));
    }
    target += QStringLiteral(",hostpid=%1").arg(*hostPid.pid);

    // Declared in this order so that they end in the reverse one: the pipe
    // is closed, then the instance disabled and removed, then tracefs
    // unmounted if this trace mounted it.
    announceStart(context);
    TracefsMountGuard mount{context.tracefsPath};
    ActionReply refusal;
    const std::unique_ptr<TraceInstance> instance = newTraceInstance(context, mount, action, &refusal);
    if (!instance) {
        return finish(context, action, caller, target, refusal);
    }
    const std::string initialProc = initialProcRoot(context);
    const HostPid helperPid = hostPidOf(int(getpid()), context.procRoot, context.hostProcRoot);
    std::string error;
    // Root may see everything: its tasks are not checked. Anyone else's
    // execs are watched from before the main instance follows a fork, so
    // that every task it traces is one the watch follows too.
    const std::optional<uint32_t> checkedUid = *caller.uid != 0 ? caller.uid : std::nullopt;
    ExecWatch watch;
    if (checkedUid) {
        if (auto problem = startExecWatch(watch, context.tracefsPath, helperPid.pid.value_or(int(getpid())), *hostPid.pid)) {
            return finish(context, action, caller, target, refuse(SystemFailure, QString::fromStdString(*problem)));
        }
    }
    std::vector<bool> present;
    if (auto problem = instance->configure(*hostPid.pid, traceBufferKiBPerCpu, traceEventNames(), false, &present)) {
        return finish(context, action, caller, target, refuse(SystemFailure, QString::fromStdString(*problem)));
    }
    if (present.empty() || !present.front()) {
        return finish(
            context,
            action,
            caller,
            target,
            refuse(Unsupported, QStringLiteral("This kernel has no filemap:mm_filemap_add_to_page_cache tracepoint, so page-cache reads cannot be traced.")));
    }
    const UniqueFd pipe = instance->openPipe(&error);
    if (!pipe.isValid() || !instance->setTracing(true)) {
        return finish(
            context,
            action,
            caller,
            target,
            refuse(SystemFailure, error.empty() ? QStringLiteral("Cannot turn tracing on: %1").arg(errnoQText(errno)) : QString::fromStdString(error)));
    }
    if (context.progress) {
        context.progress({{QString(progressTracing), true}});
    }

    Trace::Capture capture;
    // Which of the six the kernel has (traceEventNames() order): the usage
    // events tell asked-for pages from readahead.
    capture.usageEvents = present.size() == 6 && present[2] && present[3] && present[4];
    capture.blockEvents = present.size() == 6 && present[5];
    TaskChecks checks;
    // The process itself, once more now that its execs are watched: it may
    // have execed one between the first look and the watch.
    if (checkedUid && !checks.check(initialProc, *hostPid.pid, *checkedUid)) {
        capture.endReason = "credentials";
        (void)instance->setTracing(false);
    } else {
        record(context, *instance, pipe.get(), pidfd.get(), int(*seconds.value), capture, checkedUid, checkedUid ? &watch : nullptr, checks);
    }
    // Withheld: the tasks no longer the caller's, and those that execed and
    // were gone before the helper looked (their events count as lost), or
    // every event when the watch lost an exec.
    std::set<int64_t> withheldTasks = checks.foreign;
    withheldTasks.insert(checks.unchecked.begin(), checks.unchecked.end());
    const size_t uncheckedEvents =
        checks.execsLost ? capture.events.size() : size_t(std::count_if(capture.events.begin(), capture.events.end(), [&](const Trace::RawEvent &event) {
            return checks.unchecked.contains(event.pid) && !checks.foreign.contains(event.pid);
        }));
    if (checks.execsLost) {
        capture.events.clear();
    }
    const size_t dropped = dropEventsNotTheCallers(capture, withheldTasks);
    capture.lostEvents += uncheckedEvents;
    target += QStringLiteral(",events=%1,lost=%2,withheld=%3,unchecked-tasks=%4,end=%5")
                  .arg(QString::number(capture.events.size()),
                       QString::number(capture.lostEvents),
                       QString::number(dropped + (checks.execsLost ? uncheckedEvents : 0)),
                       checks.execsLost ? QStringLiteral("unknown") : QString::number(checks.unchecked.size()),
                       QString::fromStdString(capture.endReason).replace(QLatin1Char(' '), QLatin1Char('-')));
    qCDebug(CACHESCOPE_HELPER) << action << "uid" << caller.text() << "instance" << QString::fromStdString(instance->name()) << target;
    ActionReply reply = ActionReply::SuccessReply();
    reply.addData(replyCapture, serializeCapture(capture));
    return finish(context, action, caller, target, reply);
}

} // namespace Cachescope::Helper
