// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The trace action's hands on tracefs (docs/helper-security.md rule 16):
// tracefs mounted where the helper expects it, the helper's own instances
// (named "cachescope-<helper pid>-<n>", the helper pid as the initial PID
// namespace numbers it), removed at the end of every way out and, after a
// helper that was killed, at the next start. Other instances and the global
// buffer are never touched. Internal to the helper.

#include "uniquefd.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Cachescope::Helper
{

// The six events of Trace::EventKind, as "<system>/<event>", in that order.
[[nodiscard]] const std::vector<std::string> &traceEventNames();

// The event every exec makes, recorded by an instance of its own while a
// caller other than root is traced (rule 16): task/task_rename, which exec
// fires when it gives the task its new command name (and prctl's
// PR_SET_NAME, which only adds a check). Not sched_process_exec: its
// record holds the file name, which a caller can make longer than the ring
// buffer takes, and the kernel then drops the record without counting it;
// task_rename's is of a fixed size. execedPid: the pid of a line of its
// trace_pipe, after "task_rename: pid=" (17 bytes: no command name, at most
// 15, can hold them); nothing for a line without it.
[[nodiscard]] const std::string &execEventName();
[[nodiscard]] std::optional<int64_t> execedPid(std::string_view line);
// Whether a line of that pipe is one of the kernel's task_rename lines
// (whether or not its pid could be read).
[[nodiscard]] bool isExecLine(std::string_view line);

// Makes sure tracefs is mounted at mountPoint (statfs TRACEFS_MAGIC);
// mounts it (nodev, nosuid, noexec) when it is not. Returns an error
// sentence, or nothing; *mounted says whether this call mounted it.
[[nodiscard]] std::optional<std::string> ensureTracefs(const std::string &mountPoint, bool *mounted);

// Unmounts tracefs at the end when this action mounted it (declared before
// every instance, so that it goes after them).
struct TracefsMountGuard {
    std::string path;
    bool mounted = false;
    ~TracefsMountGuard();
};

// "cachescope-<pid>-<serial>", and back: the pid of a name of exactly that
// pattern (decimal numbers without leading zeros), nothing for any other name.
[[nodiscard]] std::string instanceName(int64_t helperPid, uint64_t serial);
[[nodiscard]] std::optional<int64_t> instanceOwner(std::string_view name);

// Removes (disables and rmdirs) every instance of the pattern whose helper
// is gone: no <initialProcRoot>/<pid> (the /proc that numbers pids as the
// initial namespace does). Returns the names removed.
std::vector<std::string> removeStaleInstances(const std::string &tracefs, const std::string &initialProcRoot);

// One private instance, configured by the helper alone: clock mono, a fixed
// buffer size, event-fork on, one pid, the events the kernel has of the six.
// The destructor turns tracing off, disables the events, clears the pid
// filter and removes the instance, whatever happened before.
class TraceInstance
{
public:
    // Makes instances/<instanceName(helperPid, n)> for the first free n.
    [[nodiscard]] static std::unique_ptr<TraceInstance> create(const std::string &tracefs, int64_t helperPid, std::string *error);
    ~TraceInstance();
    TraceInstance(const TraceInstance &) = delete;
    TraceInstance &operator=(const TraceInstance &) = delete;

    [[nodiscard]] const std::string &name() const
    {
        return m_name;
    }
    // Tracing stays off; returns an error sentence or nothing. *present
    // gets, for each of events, whether the kernel has it. hostPid 0: the
    // whole system (no pid filter, no event-fork). With
    // wakeOnEveryEvent a reader of trace_pipe is woken by each event
    // (buffer_percent 0), not when a CPU's buffer is half full.
    [[nodiscard]] std::optional<std::string>
    configure(int hostPid, unsigned bufferKiBPerCpu, const std::vector<std::string> &events, bool wakeOnEveryEvent, std::vector<bool> *present);
    // trace_pipe, opened non-blocking.
    [[nodiscard]] UniqueFd openPipe(std::string *error) const;
    // Every CPU's binary buffer, per_cpu/cpuN/trace_pipe_raw, opened
    // non-blocking; empty, and *error, when one cannot be opened.
    [[nodiscard]] std::vector<UniqueFd> openRawPipes(std::string *error) const;
    // A file of the instance ("events/header_page", "events/<e>/format").
    [[nodiscard]] std::optional<std::string> readText(const std::string &file) const;
    [[nodiscard]] bool setTracing(bool on) const;
    // Events the ring buffer lost so far, over all CPUs (per_cpu/cpuN/stats).
    [[nodiscard]] uint64_t lostEvents() const;
    // The most unread bytes any one CPU's buffer holds now (per_cpu/cpuN/stats "bytes:").
    [[nodiscard]] uint64_t fullestCpuBytes() const;
    // The tasks traced now (set_event_pid: the process and, through
    // event-fork, every task it started), as the initial namespace numbers them.
    [[nodiscard]] std::vector<int64_t> tracedPids() const;

private:
    explicit TraceInstance(std::string path, std::string name);
    [[nodiscard]] bool write(const std::string &file, std::string_view value) const;
    void forEachCpuStats(const std::function<void(const std::string &stats)> &take) const;
    std::string m_path;
    std::string m_name;
    std::vector<std::string> m_enabled;
};

} // namespace Cachescope::Helper
