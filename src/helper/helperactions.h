// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The helper's actions as plain functions: an argument map from an untrusted
// process and the caller's uid (which the service takes from the bus) in, an
// ActionReply out. The service (helperservice.h) only forwards to these, so
// that the tests call them in-process, thousands of times, without a bus.

#include "helperprotocol.h"

#include "actionreply.h"

#include <QString>
#include <QVariantMap>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace Cachescope::Helper
{

// docs/helper-security.md rule 14: the children killed at a deadline that
// had not ended yet (one in uninterruptible sleep ends only when the kernel
// lets it), shared by every operation of the process, at most
// maxAbandonedChildren (actionsupport.h). An operation holds a place for
// each child it may abandon before it starts it, so that operations side by
// side together never pass the cap; a place is given back when its child
// ends in time, or becomes the child's when it is abandoned.
class AbandonedChildren
{
public:
    // Forgets the ended children (without waiting), then holds `count`
    // places if the abandoned children and every place held stay within
    // the cap. False: nothing is held.
    [[nodiscard]] bool hold(size_t count);
    // Gives back `count` places held.
    void giveBack(size_t count);
    // One place held becomes this child's.
    void abandon(int pid);
    // The children abandoned and not yet ended (reaped first).
    [[nodiscard]] std::vector<int> pids();

private:
    std::mutex m_mutex;
    std::vector<int> m_pids;
    size_t m_held = 0;
};

// Places an operation holds (AbandonedChildren::hold), given back when it
// goes out of scope, but for those that became abandoned children.
class HeldPlaces
{
public:
    HeldPlaces() = default;
    HeldPlaces(const std::shared_ptr<AbandonedChildren> &children, size_t count);
    ~HeldPlaces();
    HeldPlaces(const HeldPlaces &) = delete;
    HeldPlaces &operator=(const HeldPlaces &) = delete;
    // Whether the places were there to be held.
    [[nodiscard]] bool held() const
    {
        return m_children != nullptr;
    }
    // One place becomes this child's.
    void abandon(int pid);

private:
    std::shared_ptr<AbandonedChildren> m_children;
    size_t m_count = 0;
};

// The calls that change the system. The helper uses SystemCalls; the
// validation tests use a recording stand-in, so that a random argument map
// that happens to be valid does not drop the caches of the test machine.
struct HelperContext;

class SystemCalls
{
public:
    virtual ~SystemCalls();
    // docs/helper-security.md rules 2 and 14: sync() in a child, waited
    // for at most context.syncDeadlineMs (a file system whose writeback
    // never ends holds that child, not the helper). False: it did not end
    // in time (the child is abandoned, the caches are dropped anyway).
    [[nodiscard]] virtual bool syncAll(HelperContext &context);
    // docs/helper-security.md rule 2: writes "<level>\n" to the constant
    // /proc/sys/vm/drop_caches; returns errno or 0.
    [[nodiscard]] virtual int dropCaches(int level);
    // docs/helper-security.md rule 3: the syscalls themselves, no tool.
    // Return errno or 0.
    [[nodiscard]] virtual int swapOff(const std::string &path);
    [[nodiscard]] virtual int swapOn(const std::string &path, int flags);
};

// The caller as the bus names it (docs/helper-security.md rule 6): the uid
// the bus recorded when the caller connected (GetConnectionUnixUser), or
// unknown when that could not be learnt (the caller left, the bus did not
// answer), which every action refuses.
struct Caller {
    std::optional<uint32_t> uid; // nullopt: unknown, refused
    // "4201", or "unknown": the audit line's and the developer log's spelling.
    [[nodiscard]] QString text() const;
};

struct HelperContext {
    // How long drop-caches waits for sync() (SystemCalls::syncAll).
    int syncDeadlineMs = 60 * 1000;
    SystemCalls *system = nullptr;
    // Where the helper reads and keeps things. The helper executable keeps
    // these defaults; only in-process tests point them elsewhere.
    std::string procRoot = "/proc";
    // The root-owned record of what the helper turned off (docs/helper-security.md rule 4).
    std::string stateDir = "/run/cachescope";
    std::string stateFile = "/run/cachescope/swap-state";
    std::string experimentDir = HelperProtocol::experimentSwapDir;
    long long maxExperimentBytes = HelperProtocol::maxExperimentSwapBytes;
    // docs/helper-security.md rule 10: progress while swapoff runs (SwapUsed
    // falling), and how often.
    // docs/helper-security.md rule 16: trace sends {tracing: true} once it records.
    std::function<void(const QVariantMap &)> progress;
    // A long action (swapoff, residency, trace, reclaim) has checked the
    // caller's arguments and process and begins its work: the service then
    // returns the job's path; a refusal before it is the method's error.
    // Called at most once; empty: nobody asks.
    std::function<void()> started;
    int progressIntervalMs = 250;
    // The caller cancelled the job (or left the bus); trace ends
    // early when it says so. Empty: never.
    std::function<bool()> stopped;
    // docs/helper-security.md rule 16: where tracefs is (mounted there when
    // it is not), and the host's /proc, through which a pid of a private
    // PID namespace becomes the initial namespace's (pidnamespace.h).
    std::string tracefsPath = "/sys/kernel/tracing";
    std::string hostProcRoot = "/run/host/proc";
    // Tests only: a lower cap on the events a trace keeps (never above
    // HelperProtocol::maxTraceEvents).
    size_t traceEventLimit = HelperProtocol::maxTraceEvents;
    // Tests only: a smaller ring buffer for the activity's instance (never
    // above HelperProtocol::activityBufferKiBPerCpu), so that events are lost.
    unsigned activityBufferKiB = HelperProtocol::activityBufferKiBPerCpu;
    // docs/helper-security.md rule 17: where the cgroup hierarchies are
    // (the memory controller is found under it, memorycgroup.h), and how
    // old an empty run cgroup must be before contain takes it for a killed
    // run's leftover (younger ones may be about to receive their process).
    std::string cgroupRoot = "/sys/fs/cgroup";
    int staleRunCgroupSeconds = 10;
    // docs/helper-security.md rule 11: the audit line of each operation.
    std::function<void(const QString &)> log;
    // docs/helper-security.md rule 9 and 14: residency reads each path in a
    // child with this deadline; a child that has not answered by then is
    // killed and abandoned (its pid kept here, reaped later without waiting).
    int residencyDeadlineMs = HelperProtocol::residencyDeadlineSeconds * 1000;
    // docs/helper-security.md rule 14: reclaim's write to memory.reclaim or
    // memory.force_empty is made in a child with this deadline.
    int reclaimDeadlineMs = HelperProtocol::reclaimDeadlineSeconds * 1000;
    // Children killed at a deadline that had not ended yet, shared by every
    // copy of the context (the service's operations side by side).
    std::shared_ptr<AbandonedChildren> abandonedChildren = std::make_shared<AbandonedChildren>();
    // Tests only: the mincore path as on kernels without cachestat(2), and
    // its page budget.
    bool forceMincore = false;
    unsigned long long mincorePageBudget = HelperProtocol::maxMincorePages;
    // docs/helper-security.md rule 18: the program account runs in its child
    // (the helper's own, started afresh with --account-child), and how long
    // it waits for it.
    std::string accountChildProgram = "/proc/self/exe";
    int accountDeadlineSeconds = HelperProtocol::accountDeadlineSeconds;
};

// The fixed-format audit line (docs/helper-security.md rule 11): numbers and helper-chosen words
// only, never a caller string.
// "cachescope-helper: action=<a> uid=<n|unknown> target=<t> result=<ok|refused|failed> code=<n>"
[[nodiscard]] QString auditLine(const QString &action, const Caller &caller, const QString &target, const ActionReply &reply);
// Writes it to syslog (authpriv) and stderr.
void writeAuditLine(const QString &line);

// docs/helper-security.md rules 16 and 17: at the service's start, what a
// helper killed in the middle of a trace or a contain left behind: tracefs
// instances of helpers that are gone, empty run cgroups. Returns what it
// removed, for the log.
[[nodiscard]] std::vector<std::string> removeLeftovers(const HelperContext &context);

// One function per polkit action (docs/helper-security.md rule 1):
// dropcaches in helperactions.cpp, residency in residencyaction.cpp, swapoff and swapon in
// swapactions.cpp, the experiment swap file in swapfileactions.cpp, trace in traceaction.cpp,
// contain and reclaim in containaction.cpp, account in accountaction.cpp, activity in
// activityaction.cpp.
[[nodiscard]] ActionReply dropCachesAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
[[nodiscard]] ActionReply swapOffAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
[[nodiscard]] ActionReply swapOnAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
[[nodiscard]] ActionReply swapFileCreateAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
[[nodiscard]] ActionReply swapFileRemoveAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
[[nodiscard]] ActionReply residencyAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
[[nodiscard]] ActionReply traceAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
[[nodiscard]] ActionReply containAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
[[nodiscard]] ActionReply reclaimAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
[[nodiscard]] ActionReply accountAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
[[nodiscard]] ActionReply activityAction(const QVariantMap &args, const Caller &caller, HelperContext &context);
// The account child's main (accountaction.cpp): the account of Cached as
// this process sees it, written to descriptor 3. Returns the exit status.
[[nodiscard]] int runAccountChild();

} // namespace Cachescope::Helper
