// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// Readers for /proc/meminfo, /proc/vmstat and /proc/swaps. Every reader takes
// the proc root as a parameter, so that tests run on files captured from
// other kernels (tests/fixtures/proc/<kernel>/).

namespace Cachescope
{

// name -> value, in the file's order. MemInfo values are bytes ("kB" lines
// multiplied by 1024); lines without a unit (HugePages_Total, ...) are kept as counts.
struct FieldList {
    std::vector<std::pair<std::string, uint64_t>> fields;

    [[nodiscard]] bool has(std::string_view name) const;
    [[nodiscard]] uint64_t value(std::string_view name, uint64_t fallback = 0) const;
    [[nodiscard]] std::optional<uint64_t> find(std::string_view name) const;
};

struct MemInfo : FieldList {
};
struct VmStat : FieldList {
};

struct SwapArea {
    std::string filename; // octal escapes (\040) decoded
    std::string type; // "partition" or "file"
    uint64_t sizeBytes = 0;
    uint64_t usedBytes = 0;
    int priority = 0;
};

// A path as the kernel writes it in /proc/swaps and mountinfo
// (seq_file_path(..., " \t\n\\")): those four bytes become \ooo. Anything
// else after a backslash is kept as is.
[[nodiscard]] std::string decodeOctalEscapes(std::string_view text);
// Calls visit(line) for each line of text, without the newline.
template<typename Visit>
void forEachLine(std::string_view text, Visit visit)
{
    while (!text.empty()) {
        const size_t end = text.find('\n');
        visit(text.substr(0, end));
        if (end == std::string_view::npos) {
            break;
        }
        text.remove_prefix(end + 1);
    }
}

// Field `number` (as proc(5) numbers them, 3 or more: 9 flags, 22
// starttime) of a /proc/PID/stat text, as a number; counted after the last
// ')', since the command before it may hold spaces and ')'.
[[nodiscard]] std::optional<uint64_t> processStatField(std::string_view statText, size_t number);

// The pids of a /proc's process folders, in order; empty when it cannot be read.
[[nodiscard]] std::vector<int> processIds(const std::string &procRoot);

// text without the spaces, tabs and line ends at either end.
[[nodiscard]] std::string_view trimmedText(std::string_view text);

// The fields of a line of a /proc table, split at runs of spaces and tabs.
[[nodiscard]] std::vector<std::string_view> splitFields(std::string_view line);

// One line of /proc/PID/mountinfo (proc(5)): which part (root) of which
// file system (device, fsType) is mounted where (mountPoint), paths with
// their octal escapes decoded.
struct MountInfoEntry {
    uint32_t id = 0;
    uint32_t parentId = 0;
    uint64_t device = 0; // as st_dev: makedev(major, minor)
    std::string root; // the folder of the file system shown at mountPoint ("/": all of it)
    std::string mountPoint;
    std::string fsType; // "ext4", "overlay", "cgroup2", ...
    std::string source;
    std::string superOptions; // "rw,lowerdir=/a:/b,upperdir=/u,..." (still escaped)
};

[[nodiscard]] MemInfo parseMemInfo(std::string_view text);
[[nodiscard]] VmStat parseVmStat(std::string_view text);
[[nodiscard]] std::vector<SwapArea> parseSwaps(std::string_view text);
// The lines of a mountinfo in its order (the order the mounts were made);
// lines that do not have its form are left out.
[[nodiscard]] std::vector<MountInfoEntry> parseMountInfo(std::string_view text);

// A whole file of procfs (or sysfs, tracefs): read to its end, at most
// 16 MiB, never blocking on a FIFO put in its place. On failure: nullopt and
// *error names the path and reason.
[[nodiscard]] std::optional<std::string> readProcFile(const std::string &path, std::string *error = nullptr);

// Read <procRoot>/meminfo etc. On failure: nullopt and *error names the path and reason.
[[nodiscard]] std::optional<MemInfo> readMemInfo(const std::string &procRoot = "/proc", std::string *error = nullptr);
[[nodiscard]] std::optional<VmStat> readVmStat(const std::string &procRoot = "/proc", std::string *error = nullptr);
[[nodiscard]] std::optional<std::vector<SwapArea>> readSwaps(const std::string &procRoot = "/proc", std::string *error = nullptr);
// <procRoot>/self/mountinfo: the mounts as this process sees them.
[[nodiscard]] std::optional<std::vector<MountInfoEntry>> readMountInfo(const std::string &procRoot = "/proc", std::string *error = nullptr);

// Refaults / activations of file pages, under whichever name this kernel uses:
// workingset_refault_file (5.9+) or workingset_refault (3.15 - 5.8).
// nullopt when the kernel has neither (before 3.15).
[[nodiscard]] std::optional<uint64_t> fileRefaults(const VmStat &vmStat);
[[nodiscard]] std::optional<uint64_t> fileActivations(const VmStat &vmStat);

// The figures `free` prints, derived the way procps-ng does, in bytes.
struct FreeFigures {
    uint64_t total = 0;
    uint64_t used = 0;
    uint64_t free = 0;
    uint64_t shared = 0;
    uint64_t buffers = 0;
    uint64_t cache = 0; // Cached + SReclaimable, as procps counts it
    uint64_t buffCache = 0;
    uint64_t available = 0;
    uint64_t swapTotal = 0;
    uint64_t swapUsed = 0;
    uint64_t swapFree = 0;
};

[[nodiscard]] FreeFigures freeFigures(const MemInfo &memInfo);

} // namespace Cachescope
