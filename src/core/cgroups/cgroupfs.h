// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "procfs.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Readers of the memory controller's cgroups, v1 and v2: where its
// hierarchies are mounted (from a mountinfo, procRoot a parameter like the
// /proc readers), which cgroup a process is in, and what a cgroup's folder
// says about its page cache. Figures the kernel does not give (v1 has no
// memory.pressure; old kernels no refault counters) stay unknown, never 0.

namespace Cachescope::Cgroups
{

enum class Version : uint8_t {
    V1 = 1, // the v1 "memory" controller, a hierarchy of its own
    V2 = 2, // the unified hierarchy, with "memory" in cgroup.controllers
};

// A mount of a hierarchy the memory controller is on.
struct Hierarchy {
    Version version = Version::V2;
    std::string mountPoint; // e.g. /sys/fs/cgroup/memory (octal escapes decoded)
    // The cgroup the mount shows at mountPoint: "/" usually, a deeper
    // path for a bind mount of a part of the hierarchy.
    std::string root = "/";
};

// Every v1 "memory" mount and every v2 mount of a mountinfo, in its order.
// Whether a v2 mount has the memory controller is not in the mountinfo:
// memoryHierarchies() reads its cgroup.controllers.
[[nodiscard]] std::vector<Hierarchy> parseCgroupMounts(std::string_view mountInfo);

// The hierarchies of <procRoot>/self/mountinfo that have the memory
// controller: v1 "memory" mounts, and v2 mounts whose cgroup.controllers
// lists "memory". Empty (and *error says why, naming the path) when none.
[[nodiscard]] std::vector<Hierarchy> memoryHierarchies(const std::string &procRoot = "/proc", std::string *error = nullptr);

// The memory cgroup of a process, as /proc/PID/cgroup names it.
struct ProcessCgroup {
    Version version = Version::V2;
    std::string path; // in its hierarchy, "/" for the root
};

// The v1 "memory" line of a /proc/PID/cgroup text, or its v2 "0::" line
// when there is no v1 memory line. nullopt when it has neither.
[[nodiscard]] std::optional<ProcessCgroup> parseProcessCgroup(std::string_view text);
// pid 0: the calling process ("self").
[[nodiscard]] std::optional<ProcessCgroup> processCgroup(int pid = 0, const std::string &procRoot = "/proc", std::string *error = nullptr);

// The folder of cgroup `path` (in its hierarchy) under one of `hierarchies`
// of the same version whose root contains it; nullopt when none does.
[[nodiscard]] std::optional<std::string> cgroupFolder(const std::vector<Hierarchy> &hierarchies, const ProcessCgroup &cgroup);

// A limit in memory.max, memory.high or memory.limit_in_bytes.
struct MemoryLimit {
    enum class Kind : uint8_t {
        Unknown, // no such file (the root cgroup has none), or it could not be read
        None, // "max" (v2) or v1's huge "no limit" number
        Bytes,
    };
    Kind kind = Kind::Unknown;
    uint64_t bytes = 0;

    [[nodiscard]] bool isLimited() const
    {
        return kind == Kind::Bytes;
    }
};

// "max" or a number of bytes; v1 writes "no limit" as the largest page
// multiple below 2^63. nullopt for anything else.
[[nodiscard]] std::optional<MemoryLimit> parseMemoryLimit(std::string_view text);

// memory.pressure (PSI): the share of time some (or all, "full") tasks of the
// cgroup waited for memory, in percent, over 10, 60 and 300 seconds.
struct Pressure {
    double someAvg10 = 0;
    double someAvg60 = 0;
    double someAvg300 = 0;
    uint64_t someTotalMicroseconds = 0;
    double fullAvg10 = 0;
    double fullAvg60 = 0;
    double fullAvg300 = 0;
    uint64_t fullTotalMicroseconds = 0;
};

// nullopt when the text has no "some" line.
[[nodiscard]] std::optional<Pressure> parsePressure(std::string_view text);

// What a memory cgroup's folder says, in bytes (counts where named so).
// v2's memory.stat counts the cgroup and its descendants; from v1's the
// total_* figures are taken, which count the same, falling back to the
// cgroup's own when a kernel has no total_* line.
struct MemoryStats {
    Version version = Version::V2;
    std::string folder;
    FieldList stat; // memory.stat as it is

    // v2 file, v1 cache: page cache (tmpfs and shared memory included).
    std::optional<uint64_t> file;
    std::optional<uint64_t> fileMapped; // v2 file_mapped, v1 mapped_file
    std::optional<uint64_t> fileDirty; // v2 file_dirty, v1 dirty
    std::optional<uint64_t> fileWriteback; // v2 file_writeback, v1 writeback
    std::optional<uint64_t> activeFile;
    std::optional<uint64_t> inactiveFile;
    std::optional<uint64_t> shmem;
    // Counts of file pages read again after they were evicted, and of those
    // whose refault distance (mm/workingset.c) sent them straight to the
    // active list. v1 has them only on newer kernels.
    std::optional<uint64_t> refaults;
    std::optional<uint64_t> activations;
    // v1: the cgroup's own page cache, without its descendants' (the root's
    // own pages are the ones charged to no cgroup below it). v2: unknown.
    std::optional<uint64_t> ownFile;

    std::optional<uint64_t> current; // memory.current, v1 memory.usage_in_bytes
    MemoryLimit high; // v2 only
    MemoryLimit max; // memory.max, v1 memory.limit_in_bytes
    std::optional<Pressure> pressure; // v2 only (and only with PSI)

    // What could not be read besides memory.stat, each naming the path and
    // the reason; the figure it would have given stays unknown.
    std::vector<std::string> problems;

    // The tighter of high and max.
    [[nodiscard]] MemoryLimit limit() const;
};

// memory.stat's figures into stats (the version decides the names).
void parseMemoryStat(std::string_view text, MemoryStats &stats);

// Reads the cgroup folder. nullopt, with *error naming the path and the
// reason, when memory.stat cannot be read or holds none of the figures.
[[nodiscard]] std::optional<MemoryStats> readMemoryStats(const std::string &folder, Version version, std::string *error = nullptr);

// Whether the folder looks like a cgroup of this version (v2:
// cgroup.controllers; v1: memory.stat with memory.limit_in_bytes). For a
// folder named on a command line.
[[nodiscard]] std::optional<Version> detectVersion(const std::string &folder);

// memory.reclaim (cgroup v2, Linux 5.19+): asks the kernel to reclaim
// `bytes` from the cgroup. fileOnly adds "swappiness=0" (Linux 6.13+), so
// that only file pages go and no anonymous memory is swapped.
enum class ReclaimOutcome : uint8_t {
    Reclaimed, // all of it, or as much as the kernel could (it says EAGAIN for less)
    NoSwappinessArgument, // fileOnly, and this kernel refuses "swappiness=": ask before trying without
    Failed, // *error names the path and the reason
};
[[nodiscard]] ReclaimOutcome reclaim(const std::string &folder, uint64_t bytes, bool fileOnly, std::string *error = nullptr);

// Whether this process may write the folder's memory.reclaim (a delegated
// user session's cgroups; root's). False on v1, which has none.
[[nodiscard]] bool canReclaim(const std::string &folder);

} // namespace Cachescope::Cgroups
