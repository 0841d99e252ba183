// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// What the helper's action files share (helperactions.cpp, swapactions.cpp,
// swapfileactions.cpp): refusing and finishing an action with its audit
// line, the active swap areas, an area held open by descriptor, and swapoff
// with progress. Internal to the helper.

#include "helperactions.h"
#include "helperlogic.h"
#include "trace/tracereport.h"
#include "tracefs.h"
#include "uniquefd.h"

#include "procfs.h"

#include "actionreply.h"

#include <QString>

#include <sys/stat.h>
#include <sys/types.h>

#include <chrono>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace Cachescope::Helper
{

// The /proc that numbers pids as the initial namespace does (tracefs's
// pids): context.procRoot, or context.hostProcRoot inside a PID namespace.
[[nodiscard]] std::string initialProcRoot(const HelperContext &context);

// docs/helper-security.md rule 4: the swap actions (off, on, the
// experiment file) run one at a time, so that two callers side by side
// never both load the state file and one save lose the other's record: in
// the process (a mutex), and across the processes of the service (an
// exclusive flock on the state's folder, context.stateDir: an instance
// that released its name may finish an operation while the next starts).
class SwapStateLock
{
public:
    explicit SwapStateLock(const HelperContext &context);
    ~SwapStateLock();
    SwapStateLock(const SwapStateLock &) = delete;
    SwapStateLock &operator=(const SwapStateLock &) = delete;

private:
    std::unique_lock<std::mutex> m_inProcess;
    int m_folder = -1;
};

// Calls context.started, if set (helperactions.h).
void announceStart(HelperContext &context);

// The swap state file (docs/helper-security.md rule 4): read only from a
// root-owned folder and file, never through a symbolic link; written aside,
// synced and renamed, so that a helper killed while writing leaves the old
// file whole. No records: the file is removed.
[[nodiscard]] std::optional<std::vector<SwapRecord>> loadSwapState(const HelperContext &context, QString *error);
[[nodiscard]] bool saveSwapState(const HelperContext &context, const std::vector<SwapRecord> &records, QString *error);

// docs/helper-security.md rules 16 and 19: what every tracing action does
// first: tracefs mounted where it is not (mount then unmounts it at the
// end), the instances of killed helpers removed, a new instance of this
// helper's made. Nothing, and *refusal, when one of them fails.
[[nodiscard]] std::unique_ptr<TraceInstance> newTraceInstance(HelperContext &context, TracefsMountGuard &mount, const char *action, ActionReply *refusal);

// docs/helper-security.md rule 16: removes from a trace's capture the
// evictions of inodes the traced tasks never read, mapped or faulted (the
// reclaim that runs in their context drops pages of other people's files),
// and every event of foreignTasks (tasks that stopped being the caller's).
// Returns how many it removed.
size_t dropEventsNotTheCallers(Trace::Capture &capture, const std::set<int64_t> &foreignTasks);

// A HelperError reply with a sentence for people.
[[nodiscard]] ActionReply refuse(int code, const QString &message);

// Every action ends here: the developer log, one audit line, then the reply
// (docs/helper-security.md rule 11).
[[nodiscard]] ActionReply finish(HelperContext &context, const char *action, const Caller &caller, const QString &target, const ActionReply &reply);
// The audit line of one area of an "all" request, before the action's own.
void logArea(HelperContext &context, const char *action, const Caller &caller, const QString &target, const ActionReply &reply);

// docs/helper-security.md rule 6: the uid comes from D-Bus
// (the service asks the bus), never from the arguments. Unknown means refused:
// fail closed.
[[nodiscard]] std::optional<ActionReply> refuseUnknownCaller(const Caller &caller);
// Its refusal, for an action that checks caller.uid itself (then uses it).
[[nodiscard]] ActionReply unknownCallerRefusal();

// "blockdev=8:3" or "dev=8:1,ino=12": an area named by numbers the helper
// found, never by a caller string (docs/helper-security.md rule 11).
[[nodiscard]] QString deviceText(const AreaIdentity &identity);

// SwapTotal - SwapFree now, in bytes; 0 when /proc/meminfo cannot be read.
[[nodiscard]] uint64_t swapUsedNow(const std::string &procRoot);

struct ActiveArea {
    SwapArea area;
    std::optional<AreaIdentity> identity;
};

// docs/helper-security.md rule 4: the areas the kernel lists, each
// identified by lstat() of the kernel's own name: device number for a
// partition, device and inode for a file. A file deleted while it is swap
// is listed as "<name> (deleted)": that name no longer leads to the area
// and may be any other file, so such an area has no identity and the helper
// leaves it alone.
[[nodiscard]] std::optional<std::vector<ActiveArea>> activeAreas(const HelperContext &context, QString *error);
[[nodiscard]] std::vector<std::optional<AreaIdentity>> identitiesOf(const std::vector<ActiveArea> &areas);
// docs/helper-security.md rule 4: the index of the area whose kernel name is
// exactly `name`, compared as bytes before anything is looked up.
[[nodiscard]] std::optional<size_t> areaNamed(const std::vector<ActiveArea> &areas, const std::string &name);

// A path opened with O_PATH | O_NOFOLLOW: the helper then works on exactly
// this inode through /proc/self/fd/N, so that renaming or replacing the name
// after the check changes nothing (docs/helper-security.md rule 4: do not
// follow symlinks, no races).
struct OpenedArea {
    [[nodiscard]] std::string procPath() const;
    UniqueFd fd;
    struct stat st{};
    AreaIdentity identity;
};

// Opens path as an OpenedArea of a regular file or block device. Returns 0,
// or errno: ELOOP for a symbolic link, ENODEV for anything that cannot be
// a swap area. Callers pass only names the kernel or the state file gave
// them, never a caller's string (docs/helper-security.md rule 4), and
// their refusals do not tell one errno from another.
[[nodiscard]] int openArea(const std::string &path, OpenedArea &opened);

// docs/helper-security.md rule 10: swapoff can run for minutes. The syscall
// runs on a thread while this one reports SwapUsed falling, which also keeps
// the D-Bus call alive for the client (its timeout is set long, in the
// client). Returns errno or 0.
[[nodiscard]] int runSwapOffWithProgress(HelperContext &context, const std::string &path, const QString &shownName);

// The refusal for a swapoff that failed with errno `error`.
[[nodiscard]] ActionReply swapOffFailure(int error, const QString &shownName);

// docs/helper-security.md rule 14: children the helper killed at a deadline
// and did not wait for (one in uninterruptible sleep ends only when the
// kernel lets it) are kept in HelperContext::abandonedChildren, at most
// this many together with the places operations hold for children they may
// abandon; past that, the actions that start such children refuse until
// some have ended.
inline constexpr size_t maxAbandonedChildren = 64;
// Kills `pid` unless it has ended, waits for it at most `grace` (a killed
// child usually ends within milliseconds; one stuck in uninterruptible
// sleep does not), and abandons it, in one of `places`, if it still has not.
void endOrAbandon(HeldPlaces &places, pid_t pid, std::chrono::milliseconds grace);

// In a forked child: the signals the helper reads from a descriptor
// (SIGTERM, SIGINT) as any process has them. keepOnlyDescriptors does it.
void unblockTerminationSignals();

// In a forked child, first: keeps only `fds`, placed at 3, 4, ... in that
// order, with /dev/null as the standard streams (the helper's may be a pipe
// someone reads to its end). Nothing else of the helper's stays open, above
// all not its D-Bus connection, which a child stuck for good would
// otherwise keep alive, and with it the helper's bus name. Only system
// calls, as a child of the threaded helper may make. False: it could not.
[[nodiscard]] bool keepOnlyDescriptors(std::initializer_list<int> fds);

// docs/helper-security.md rule 14: one write to a kernel file whose handler
// may run as long as the kernel likes (memory.force_empty, memory.reclaim),
// made in a forked child that holds nothing of the helper's but `fd`. The
// helper waits at most `deadlineMs` and for the client's cancel
// (HelperContext::stopped), then kills the child: the kernel's reclaim loops
// end on a pending signal, and a child that still does not end is
// abandoned, so the write never holds the helper past its deadline.
struct BoundedWrite {
    enum class Outcome {
        Written, // the whole write returned
        Failed, // it returned an error: `error`
        DeadlinePassed, // still running at the deadline: killed
        Cancelled, // the client cancelled: killed
        NotStarted, // no pipe or no fork: `error`
    };
    Outcome outcome = Outcome::NotStarted;
    int error = 0;
};
[[nodiscard]] BoundedWrite writeInChild(HelperContext &context, int fd, const std::string &bytes, int deadlineMs);

} // namespace Cachescope::Helper
