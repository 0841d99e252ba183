// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Who fills the page cache, from what a user may read without
// administrator rights: per memory cgroup (an application, a service) the
// growth and shrinkage of its page cache, its refaults and its memory
// pressure (memory.stat, memory.pressure), and per process of this user's
// its reads from storage and its writes (/proc/PID/io), each interval from
// two samples. Every figure says which file made it; nothing here is a
// guess of the kernel's events (activity.h has those, as root).

#include "cgroups/applications.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace Cachescope::Activity
{

struct GroupActivity {
    std::string name; // as `apps` names it: the application, the unit, the cgroup
    std::string cgroupPath;
    std::string desktopFileId; // where the cgroup names an application
    int64_t fileChangeBytes = 0; // memory.stat "file": grown (> 0) or shrunk
    std::optional<uint64_t> refaults; // memory.stat workingset_refault_file over the interval
    std::optional<double> pressureSomeAvg10; // memory.pressure "some avg10" (a percentage), v2 with PSI
    uint64_t fileBytes = 0; // memory.stat "file" now
};

struct ProcessIo {
    int32_t pid = 0;
    std::string command;
    uint64_t readBytes = 0; // /proc/PID/io read_bytes over the interval: brought from storage
    uint64_t writeBytes = 0; // write_bytes: caused to be written to storage
    uint64_t readCalls = 0; // rchar: asked for by read calls, from the cache or not
};

struct OwnInterval {
    double seconds = 0;
    bool groupsFound = false;
    std::string groupsReason; // why there are no groups, when !groupsFound
    std::vector<GroupActivity> groups; // most change first
    std::vector<ProcessIo> processes; // most read first; this user's only
    uint64_t processesUnreadable = 0; // this user's processes whose io could not be read
};

// The file each figure comes from, for people and for JSON's "method".
inline constexpr const char *groupsMethod = "memory.stat";
inline constexpr const char *pressureMethod = "memory.pressure";
inline constexpr const char *processesMethod = "/proc/PID/io";

// /proc/PID/io's text: read_bytes, write_bytes and rchar; nothing when one
// is missing.
struct IoCounters {
    uint64_t readBytes = 0;
    uint64_t writeBytes = 0;
    uint64_t readCalls = 0;
};
[[nodiscard]] std::optional<IoCounters> parseProcessIo(std::string_view text);

class OwnActivitySampler
{
public:
    // procRoot: where /proc is; uid: whose processes (-1: this process's
    // real uid); hierarchyFolder: the memory hierarchy (empty: the one
    // procRoot/self/mountinfo names).
    explicit OwnActivitySampler(std::string procRoot = "/proc", int64_t uid = -1, std::string hierarchyFolder = {});
    // seconds on a monotonic clock. The first call only takes a sample.
    [[nodiscard]] std::optional<OwnInterval> sample(double seconds);

private:
    struct ProcessSample {
        uint64_t startTime = 0; // /proc/PID/stat field 22: the same process, not a reused pid
        IoCounters io;
        std::string command;
    };
    struct GroupSample {
        uint64_t file = 0;
        std::optional<uint64_t> refaults;
    };
    std::map<int32_t, ProcessSample> readProcesses(uint64_t *unreadable) const;

    std::string m_procRoot;
    int64_t m_uid;
    std::string m_hierarchyFolder;
    std::map<int32_t, ProcessSample> m_processes;
    std::map<std::string, GroupSample> m_groups;
    double m_seconds = 0;
    bool m_sampled = false;
};

} // namespace Cachescope::Activity
