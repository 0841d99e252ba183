// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Process ids as the initial PID namespace numbers them. The kernel's
// tracefs takes pids only that way (set_event_pid), while a process inside a
// container or sandbox (a private PID namespace: tools/dev's build root,
// Flatpak, Toolbox) numbers processes its own way. Where this process is in
// the initial namespace (a desktop's helper), a pid needs no translation;
// elsewhere the host's /proc, where it is visible (mounted at
// /run/host/proc, as Flatpak and tools/dev do), tells both numbers of each
// process (the NSpid line of its status).

#include <cstdint>
#include <optional>
#include <string>

namespace Cachescope
{

// The inode of the initial PID namespace (the kernel's PROC_PID_INIT_INO).
inline constexpr uint64_t initialPidNamespaceInode = 4026531836ULL;

struct HostPid {
    std::optional<int> pid; // as the initial PID namespace numbers it
    std::string error; // when pid is empty: a sentence saying why tracing cannot work here
};

// `pid` as this process's namespace numbers it (its /proc is procRoot),
// translated into the initial namespace's number. Outside the initial
// namespace, the process must be in this process's own namespace, and
// hostProcRoot must be procfs showing the initial namespace; the task is
// found there by its NSpid line (ending with `pid`), its namespace and its
// start time, so that a pid reused meanwhile is not taken for it.
[[nodiscard]] HostPid hostPidOf(int pid, const std::string &procRoot = "/proc", const std::string &hostProcRoot = "/run/host/proc");

// The inode of the PID namespace of <procRoot>/<process>/ns/pid ("self" for
// this process), or nothing when it cannot be read.
[[nodiscard]] std::optional<uint64_t> pidNamespaceInode(const std::string &procRoot, const std::string &process);

} // namespace Cachescope
