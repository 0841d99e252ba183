// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Memory cgroups that Cachescope makes itself: a command's cache contained
// under a limit (cachescope-cli run --cache-limit, the experiments). They
// live under one fixed parent, `cachescope`, at the top of the memory
// hierarchy, named `run-<uid>-<n>` by whoever makes them (the helper, or
// root in process), never by a caller. Only root makes them; a cgroup here
// is the system's, not a copy: every path that makes one removes it, and
// what a killed run left behind (empty) is removed at the next start.
//
// cgroup v2 (the memory controller in the unified hierarchy) and v1 (its own
// hierarchy, /sys/fs/cgroup/memory) are both handled. The limits:
// - v2: memory.high = the limit. Above it the kernel reclaims the group's
//   own pages (its cache first) and throttles it; it never kills. A command
//   that needs more anonymous memory than the limit would then crawl
//   forever, so memory.max sits a margin above (hardLimitMargin()): the
//   kernel kills inside the group only when even that is not enough.
//   memory.swap.max = 0 (where there is swap accounting): the limit is about
//   the group's memory, not about pushing it into swap.
// - v1: memory.limit_in_bytes = the limit (v1 has no "high"; at the limit it
//   reclaims, and kills inside the group when nothing can be reclaimed);
//   memory.memsw.limit_in_bytes = the same where swap is accounted.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace Cachescope
{

inline constexpr const char *defaultCgroupRoot = "/sys/fs/cgroup";
inline constexpr const char *runCgroupParentName = "cachescope";

struct MemoryHierarchy {
    std::string root; // the memory controller's root: /sys/fs/cgroup (v2) or /sys/fs/cgroup/memory (v1)
    int version = 0; // 1 or 2
    [[nodiscard]] std::string parent() const; // <root>/cachescope
};

// Where the memory controller is under cgroupRoot (normally
// /sys/fs/cgroup): v2 when cgroupRoot (or its `unified` folder) is cgroup2
// with `memory` in cgroup.controllers, v1 when cgroupRoot/memory is a cgroup
// v1 hierarchy with the memory controller. Checked against the mounts this
// process sees (Cgroups::memoryHierarchies), so a plain folder never
// passes. Nothing: *error names the path and says why.
[[nodiscard]] std::optional<MemoryHierarchy> findMemoryHierarchy(const std::string &cgroupRoot, std::string *error);

// v2's memory.max above memory.high: an eighth of the limit, at least
// 16 MiB, at most 1 GiB.
[[nodiscard]] uint64_t hardLimitMargin(uint64_t limitBytes);

// "run-<uid>-<n>" with the lowest n >= 1 not in use under the parent.
[[nodiscard]] std::string nextRunCgroupName(const MemoryHierarchy &hierarchy, uint32_t uid);
// The run cgroups of uid that exist now (names only).
[[nodiscard]] std::vector<std::string> runCgroupsOf(const MemoryHierarchy &hierarchy, uint32_t uid);

// Makes <parent>/<name> (the parent too, mode 0755, when missing; whoever
// removes the last run cgroup removes the parent too) and sets
// its limits as described above. On any failure after the mkdir the cgroup
// is removed again. Returns its path, or nothing with *error.
[[nodiscard]] std::optional<std::string> makeLimitedCgroup(const MemoryHierarchy &hierarchy, const std::string &name, uint64_t limitBytes, std::string *error);

// Writes pid (as this process's PID namespace numbers it: the kernel takes
// the writer's) to <path>/cgroup.procs.
[[nodiscard]] bool moveIntoCgroup(const std::string &path, int pid, std::string *error);

// Whether any process is in the cgroup or below it: v2's cgroup.events
// "populated", v1's cgroup.procs (run cgroups have no children). Nothing
// when it cannot be read (it is gone).
[[nodiscard]] std::optional<bool> cgroupPopulated(const std::string &path, int version);

// rmdir; true when it is gone (also when it already was).
[[nodiscard]] bool removeCgroup(const std::string &path, std::string *error);

// Removes every empty run cgroup under the parent made at least
// minAgeSeconds ago (younger ones may be about to receive their process);
// returns the paths removed. Populated ones are left alone.
[[nodiscard]] std::vector<std::string> removeStaleRunCgroups(const MemoryHierarchy &hierarchy, int minAgeSeconds);

// The figures of a run cgroup shown while its command runs, read by
// Cgroups::readMemoryStats: v2's memory.stat file, file_dirty,
// file_writeback and memory.current; v1's cache, dirty, writeback and
// memory.usage_in_bytes (a run cgroup has no children: its totals are its own).
struct RunCgroupMemory {
    uint64_t pageCache = 0;
    uint64_t dirty = 0;
    uint64_t writeback = 0;
    uint64_t usage = 0;
};
[[nodiscard]] std::optional<RunCgroupMemory> readRunCgroupMemory(const std::string &path, int version, std::string *error = nullptr);

} // namespace Cachescope
