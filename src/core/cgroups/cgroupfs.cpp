// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "cgroupfs.h"

#include "format.h"
#include "uniquefd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <limits>

namespace Cachescope::Cgroups
{

namespace
{

// The next field of a line split at spaces; empty at its end.
std::string_view nextField(std::string_view &line)
{
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
        line.remove_prefix(1);
    }
    const size_t end = std::min(line.find_first_of(" \t"), line.size());
    const std::string_view field = line.substr(0, end);
    line.remove_prefix(end);
    return field;
}

template<typename Visit>
void forEachLine(std::string_view text, Visit visit)
{
    while (!text.empty()) {
        const size_t end = std::min(text.find('\n'), text.size());
        visit(text.substr(0, end));
        text.remove_prefix(std::min(end + 1, text.size()));
    }
}

bool hasListItem(std::string_view list, std::string_view item, char separator)
{
    while (!list.empty()) {
        const size_t end = std::min(list.find(separator), list.size());
        if (list.substr(0, end) == item) {
            return true;
        }
        list.remove_prefix(std::min(end + 1, list.size()));
    }
    return false;
}

std::optional<uint64_t> parseUnsignedText(std::string_view text)
{
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

std::string_view withoutLineEnd(std::string_view text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    return text;
}

std::string joined(const std::string &folder, const char *name)
{
    return folder.empty() || folder.back() != '/' ? folder + '/' + name : folder + name;
}

// v1 prints "no limit" as PAGE_COUNTER_MAX pages: LONG_MAX rounded down to a
// page. Anything within a MiB of 2^63 is that, whatever the page size.
constexpr uint64_t v1NoLimitFloor = uint64_t(std::numeric_limits<int64_t>::max()) - (uint64_t(1) << 20);

// name=value pairs of a PSI line, e.g. "avg10=0.12 avg60=0.05 avg300=0.01 total=1234".
bool parsePressureLine(std::string_view line, double &avg10, double &avg60, double &avg300, uint64_t &total)
{
    int seen = 0;
    for (std::string_view field = nextField(line); !field.empty(); field = nextField(line)) {
        const size_t equals = field.find('=');
        if (equals == std::string_view::npos) {
            continue;
        }
        const std::string_view name = field.substr(0, equals);
        const std::string_view value = field.substr(equals + 1);
        if (name == "total") {
            const std::optional<uint64_t> number = parseUnsignedText(value);
            if (!number) {
                return false;
            }
            total = *number;
            ++seen;
            continue;
        }
        double number = 0;
        const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
        if (error != std::errc() || end != value.data() + value.size() || !std::isfinite(number) || number < 0) {
            return false;
        }
        if (name == "avg10") {
            avg10 = number;
        } else if (name == "avg60") {
            avg60 = number;
        } else if (name == "avg300") {
            avg300 = number;
        } else {
            continue;
        }
        ++seen;
    }
    return seen == 4;
}

// A limit file: unknown when missing, a problem when unreadable or malformed.
MemoryLimit readLimit(const std::string &path, std::vector<std::string> &problems)
{
    struct stat info{};
    if (stat(path.c_str(), &info) != 0 && errno == ENOENT) {
        return {};
    }
    std::string error;
    const std::optional<std::string> text = readProcFile(path, &error);
    if (!text) {
        problems.push_back(error);
        return {};
    }
    const std::optional<MemoryLimit> limit = parseMemoryLimit(*text);
    if (!limit) {
        problems.push_back(path + ": not \"max\" or a number of bytes: '" + std::string(withoutLineEnd(*text).substr(0, 40)) + "'");
        return {};
    }
    return *limit;
}

std::optional<uint64_t> readCounter(const std::string &path, std::vector<std::string> &problems)
{
    struct stat info{};
    if (stat(path.c_str(), &info) != 0 && errno == ENOENT) {
        return std::nullopt;
    }
    std::string error;
    const std::optional<std::string> text = readProcFile(path, &error);
    if (!text) {
        problems.push_back(error);
        return std::nullopt;
    }
    const std::optional<uint64_t> value = parseUnsignedText(withoutLineEnd(*text));
    if (!value) {
        problems.push_back(path + ": not a number of bytes: '" + std::string(withoutLineEnd(*text).substr(0, 40)) + "'");
    }
    return value;
}

} // namespace

std::vector<Hierarchy> parseCgroupMounts(std::string_view mountInfo)
{
    std::vector<Hierarchy> hierarchies;
    for (MountInfoEntry &mount : parseMountInfo(mountInfo)) {
        Hierarchy hierarchy;
        if (mount.fsType == "cgroup2") {
            hierarchy.version = Version::V2;
        } else if (mount.fsType == "cgroup" && hasListItem(mount.superOptions, "memory", ',')) {
            hierarchy.version = Version::V1;
        } else {
            continue;
        }
        hierarchy.root = std::move(mount.root);
        hierarchy.mountPoint = std::move(mount.mountPoint);
        hierarchies.push_back(std::move(hierarchy));
    }
    return hierarchies;
}

std::vector<Hierarchy> memoryHierarchies(const std::string &procRoot, std::string *error)
{
    const std::string mountInfoPath = procRoot + "/self/mountinfo";
    const std::optional<std::string> mountInfo = readProcFile(mountInfoPath, error);
    if (!mountInfo) {
        return {};
    }
    std::vector<Hierarchy> withMemory;
    std::string v2WithoutMemory;
    for (Hierarchy &hierarchy : parseCgroupMounts(*mountInfo)) {
        if (hierarchy.version == Version::V2) {
            const std::optional<std::string> controllers = readProcFile(joined(hierarchy.mountPoint, "cgroup.controllers"));
            if (!controllers || !hasListItem(withoutLineEnd(*controllers), "memory", ' ')) {
                v2WithoutMemory = hierarchy.mountPoint;
                continue;
            }
        }
        withMemory.push_back(std::move(hierarchy));
    }
    if (withMemory.empty() && error) {
        *error = mountInfoPath + ": no cgroup hierarchy with the memory controller is mounted";
        if (!v2WithoutMemory.empty()) {
            *error += " (the cgroup v2 hierarchy at " + v2WithoutMemory + " does not list \"memory\" in its cgroup.controllers)";
        }
    }
    return withMemory;
}

std::optional<ProcessCgroup> parseProcessCgroup(std::string_view text)
{
    std::optional<ProcessCgroup> v2;
    std::optional<ProcessCgroup> v1;
    forEachLine(text, [&](std::string_view line) {
        // hierarchy-id:controller,list:path (the path may hold colons)
        const size_t first = line.find(':');
        const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
        if (second == std::string_view::npos) {
            return;
        }
        const std::string_view id = line.substr(0, first);
        const std::string_view controllers = line.substr(first + 1, second - first - 1);
        const std::string path(line.substr(second + 1));
        if (path.empty() || path.front() != '/') {
            return;
        }
        if (id == "0" && controllers.empty()) {
            v2 = ProcessCgroup{Version::V2, path};
        } else if (hasListItem(controllers, "memory", ',')) {
            v1 = ProcessCgroup{Version::V1, path};
        }
    });
    return v1 ? v1 : v2;
}

std::optional<ProcessCgroup> processCgroup(int pid, const std::string &procRoot, std::string *error)
{
    const std::string path = procRoot + '/' + (pid == 0 ? std::string("self") : std::to_string(pid)) + "/cgroup";
    const std::optional<std::string> text = readProcFile(path, error);
    if (!text) {
        return std::nullopt;
    }
    std::optional<ProcessCgroup> cgroup = parseProcessCgroup(*text);
    if (!cgroup && error) {
        *error = path + ": neither a v1 memory line nor a v2 \"0::\" line";
    }
    return cgroup;
}

std::optional<std::string> cgroupFolder(const std::vector<Hierarchy> &hierarchies, const ProcessCgroup &cgroup)
{
    for (const Hierarchy &hierarchy : hierarchies) {
        if (hierarchy.version != cgroup.version) {
            continue;
        }
        std::string root = hierarchy.root;
        while (root.size() > 1 && root.back() == '/') {
            root.pop_back();
        }
        if (root == "/") {
            return cgroup.path == "/" ? hierarchy.mountPoint : hierarchy.mountPoint + cgroup.path;
        }
        if (cgroup.path == root) {
            return hierarchy.mountPoint;
        }
        if (cgroup.path.size() > root.size() && cgroup.path.compare(0, root.size(), root) == 0 && cgroup.path[root.size()] == '/') {
            return hierarchy.mountPoint + cgroup.path.substr(root.size());
        }
    }
    return std::nullopt;
}

std::optional<MemoryLimit> parseMemoryLimit(std::string_view text)
{
    text = withoutLineEnd(text);
    if (text == "max") {
        return MemoryLimit{MemoryLimit::Kind::None, 0};
    }
    const std::optional<uint64_t> bytes = parseUnsignedText(text);
    if (!bytes) {
        return std::nullopt;
    }
    if (*bytes >= v1NoLimitFloor) {
        return MemoryLimit{MemoryLimit::Kind::None, 0};
    }
    return MemoryLimit{MemoryLimit::Kind::Bytes, *bytes};
}

std::optional<Pressure> parsePressure(std::string_view text)
{
    Pressure pressure;
    bool some = false;
    bool bad = false;
    forEachLine(text, [&](std::string_view line) {
        const std::string_view kind = nextField(line);
        if (kind == "some") {
            some = parsePressureLine(line, pressure.someAvg10, pressure.someAvg60, pressure.someAvg300, pressure.someTotalMicroseconds);
            bad = bad || !some;
        } else if (kind == "full") {
            bad = bad || !parsePressureLine(line, pressure.fullAvg10, pressure.fullAvg60, pressure.fullAvg300, pressure.fullTotalMicroseconds);
        }
    });
    if (!some || bad) {
        return std::nullopt;
    }
    return pressure;
}

MemoryLimit MemoryStats::limit() const
{
    if (high.isLimited() && (!max.isLimited() || high.bytes < max.bytes)) {
        return high;
    }
    if (max.isLimited()) {
        return max;
    }
    return high.kind == MemoryLimit::Kind::None || max.kind == MemoryLimit::Kind::None ? MemoryLimit{MemoryLimit::Kind::None, 0} : MemoryLimit{};
}

void parseMemoryStat(std::string_view text, MemoryStats &stats)
{
    stats.stat.fields.clear();
    forEachLine(text, [&](std::string_view line) {
        const std::string_view name = nextField(line);
        const std::optional<uint64_t> value = parseUnsignedText(nextField(line));
        if (!name.empty() && value && nextField(line).empty()) {
            stats.stat.fields.emplace_back(std::string(name), *value);
        }
    });
    const FieldList &stat = stats.stat;
    if (stats.version == Version::V2) {
        stats.file = stat.find("file");
        stats.fileMapped = stat.find("file_mapped");
        stats.fileDirty = stat.find("file_dirty");
        stats.fileWriteback = stat.find("file_writeback");
        stats.activeFile = stat.find("active_file");
        stats.inactiveFile = stat.find("inactive_file");
        stats.shmem = stat.find("shmem");
        stats.refaults = stat.find("workingset_refault_file");
        if (!stats.refaults) {
            stats.refaults = stat.find("workingset_refault"); // 5.0 - 5.8
        }
        stats.activations = stat.find("workingset_activate_file");
        if (!stats.activations) {
            stats.activations = stat.find("workingset_activate");
        }
        stats.ownFile.reset();
        return;
    }
    // v1: the hierarchy's totals, as v2 counts; the cgroup's own where a
    // kernel has no total_ line.
    const auto hierarchical = [&stat](const std::string &name) {
        const std::optional<uint64_t> total = stat.find("total_" + name);
        return total ? total : stat.find(name);
    };
    stats.file = hierarchical("cache");
    stats.fileMapped = hierarchical("mapped_file");
    stats.fileDirty = hierarchical("dirty");
    stats.fileWriteback = hierarchical("writeback");
    stats.activeFile = hierarchical("active_file");
    stats.inactiveFile = hierarchical("inactive_file");
    stats.shmem = hierarchical("shmem");
    stats.refaults = hierarchical("workingset_refault_file");
    stats.activations = hierarchical("workingset_activate_file");
    stats.ownFile = stat.find("cache");
}

std::optional<MemoryStats> readMemoryStats(const std::string &folder, Version version, std::string *error)
{
    MemoryStats stats;
    stats.version = version;
    stats.folder = folder;
    const std::string statPath = joined(folder, "memory.stat");
    const std::optional<std::string> text = readProcFile(statPath, error);
    if (!text) {
        return std::nullopt;
    }
    parseMemoryStat(*text, stats);
    if (!stats.file) {
        if (error) {
            *error = statPath + ": no " + (version == Version::V2 ? "\"file\"" : "\"cache\"") + " line: not the memory.stat of a cgroup v"
                + (version == Version::V2 ? "2" : "1");
        }
        return std::nullopt;
    }
    if (version == Version::V2) {
        stats.current = readCounter(joined(folder, "memory.current"), stats.problems);
        stats.high = readLimit(joined(folder, "memory.high"), stats.problems);
        stats.max = readLimit(joined(folder, "memory.max"), stats.problems);
        const std::string pressurePath = joined(folder, "memory.pressure");
        struct stat info{};
        if (stat(pressurePath.c_str(), &info) == 0 || errno != ENOENT) {
            std::string pressureError;
            if (const std::optional<std::string> pressureText = readProcFile(pressurePath, &pressureError)) {
                stats.pressure = parsePressure(*pressureText);
                if (!stats.pressure) {
                    stats.problems.push_back(pressurePath + ": no \"some avg10=... avg60=... avg300=... total=...\" line");
                }
            } else {
                // EOPNOTSUPP: the kernel was booted with psi=0.
                stats.problems.push_back(pressureError);
            }
        }
    } else {
        stats.current = readCounter(joined(folder, "memory.usage_in_bytes"), stats.problems);
        stats.max = readLimit(joined(folder, "memory.limit_in_bytes"), stats.problems);
    }
    return stats;
}

std::optional<Version> detectVersion(const std::string &folder)
{
    struct stat info{};
    if (stat(joined(folder, "cgroup.controllers").c_str(), &info) == 0) {
        return Version::V2;
    }
    if (stat(joined(folder, "memory.limit_in_bytes").c_str(), &info) == 0) {
        return Version::V1;
    }
    return std::nullopt;
}

ReclaimOutcome reclaim(const std::string &folder, uint64_t bytes, bool fileOnly, std::string *error)
{
    const std::string path = joined(folder, "memory.reclaim");
    const UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (!fd) {
        if (error) {
            *error = path + ": "
                + (errno == ENOENT ? std::string("no such file: cgroup v1, or a kernel before 5.19, cannot reclaim a cgroup's memory") : errnoText(errno));
        }
        return ReclaimOutcome::Failed;
    }
    struct stat info{};
    if (fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) {
        if (error) {
            *error = path + ": not a regular file";
        }
        return ReclaimOutcome::Failed;
    }
    const std::string request = std::to_string(bytes) + (fileOnly ? " swappiness=0" : "");
    // The write returns when the kernel has reclaimed what it could.
    ssize_t written = -1;
    do {
        written = write(fd.get(), request.data(), request.size());
    } while (written < 0 && errno == EINTR);
    if (written >= 0 || errno == EAGAIN) {
        return ReclaimOutcome::Reclaimed;
    }
    if (errno == EINVAL && fileOnly) {
        return ReclaimOutcome::NoSwappinessArgument;
    }
    if (error) {
        *error = path + ": " + errnoText(errno);
    }
    return ReclaimOutcome::Failed;
}

bool canReclaim(const std::string &folder)
{
    return access(joined(folder, "memory.reclaim").c_str(), W_OK) == 0;
}

} // namespace Cachescope::Cgroups
