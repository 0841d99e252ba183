// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// A worker process that does an experiment's I/O and allocations inside a
// memory cgroup, so that the pressure it makes stays there: it is forked
// held (it waits on a pipe before doing anything), moved into a new cgroup
// by PrivilegedSteps::contain, and only then released. Every page it reads,
// writes or allocates is charged to that cgroup, never to the desktop's.
// The parent talks to it through two pipes (commands in, reports out).

#include "experiment.h"
#include "experimentsupport.h"

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <optional>
#include <string>

namespace Cachescope::Experiments
{

class ContainedWorker
{
public:
    ContainedWorker() = default;
    ~ContainedWorker();
    ContainedWorker(const ContainedWorker &) = delete;
    ContainedWorker &operator=(const ContainedWorker &) = delete;

    // workerMain(commandFd, reportFd) runs in the child and must not return
    // (it ends with _exit). It is the child of a process that may have
    // threads: it may make system calls only (no malloc, no locks).
    using WorkerMain = std::function<void(int commandFd, int reportFd)>;

    // Forks the worker held, contains it in a new cgroup limited to
    // limitBytes, then releases it. False with error (the worker killed)
    // when privileged.contain is missing or fails, or fork fails.
    [[nodiscard]] bool startContained(const PrivilegedSteps &privileged, uint64_t limitBytes, const WorkerMain &workerMain, std::string &error);
    // The same worker, not contained (the whole-machine variants), at once.
    [[nodiscard]] bool startUncontained(const WorkerMain &workerMain, std::string &error);

    [[nodiscard]] pid_t pid() const
    {
        return m_child.pid();
    }
    [[nodiscard]] ChildGuard &child()
    {
        return m_child;
    }
    [[nodiscard]] int reportFd() const
    {
        return m_reports.get();
    }
    // The cgroup, when contained.
    [[nodiscard]] const std::optional<ContainedGroup> &group() const
    {
        return m_group;
    }
    // The cgroup after startContained() succeeded (an empty one otherwise).
    [[nodiscard]] const ContainedGroup &containedGroup() const
    {
        static const ContainedGroup none;
        return m_group ? *m_group : none;
    }

    // Writes a command of size bytes; false when the worker is gone.
    [[nodiscard]] bool send(const void *command, size_t size);
    // Waits for a report of exactly size bytes. Outcome: Received, Ended (the
    // worker closed its end: it is gone), Cancelled (cancel was set; the
    // worker is left to the caller).
    enum class Receive {
        Received,
        Ended,
        Cancelled
    };
    [[nodiscard]] Receive receive(void *report, size_t size, const std::atomic<bool> &cancel);
    // send, then receive: true when the report came. Else error says why,
    // starting with what ("<what>: the worker is gone", "<what>: the worker
    // ended (killed inside its cgroup, most likely by the OOM killer<hint>)"),
    // or is left as it was when cancel was set.
    [[nodiscard]] bool exchange(const void *command,
                                size_t commandSize,
                                void *report,
                                size_t reportSize,
                                const std::atomic<bool> &cancel,
                                const std::string &what,
                                const std::string &hint,
                                std::string &error);

    // Kills the worker and reaps it. When it was contained, waits up to
    // waitSeconds for its cgroup to be removed (whoever made it removes it
    // once empty); true when it is gone or there was none.
    bool stop(double waitSeconds = 3);

private:
    [[nodiscard]] bool fork(const WorkerMain &workerMain, bool held, std::string &error);

    ChildGuard m_child;
    UniqueFd m_commands;
    UniqueFd m_reports;
    std::optional<ContainedGroup> m_group;
};

// For a worker's main (system calls only, no allocation): fills buffer
// with incompressible-ish data, so that a compressing file system cannot
// fake the I/O; and reads one command of size bytes from the parent, false
// once the parent closed its end (the worker then ends).
void fillIncompressible(char *buffer, size_t size);
[[nodiscard]] bool readWorkerCommand(int commandFd, void *command, size_t size);

// Why a contained experiment cannot run here: privileged.contain is empty.
[[nodiscard]] std::string containUnavailableReason();

// The cgroup's figures (readRunCgroupMemory of memorycgroup.h).
// The cgroup's page cache: v2's "file", v1's "cache".
[[nodiscard]] std::optional<uint64_t> cgroupPageCache(const ContainedGroup &group);
// All the cgroup's memory: v2's memory.current, v1's memory.usage_in_bytes.
[[nodiscard]] std::optional<uint64_t> cgroupUsage(const ContainedGroup &group);
// Refaults of file pages (v2's workingset_refault_file); nothing on v1,
// which does not count them.
[[nodiscard]] std::optional<uint64_t> cgroupFileRefaults(const ContainedGroup &group);
// The result's record of the cgroup (details "cgroup").
[[nodiscard]] QJsonObject containedGroupToJson(const ContainedGroup &group);

// True when path does not exist, polling up to waitSeconds.
[[nodiscard]] bool waitUntilGone(const std::string &path, double waitSeconds);

} // namespace Cachescope::Experiments
