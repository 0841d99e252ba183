// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "memorycgroup.h"

#include "cgroupfs.h"
#include "format.h"
#include "procfs.h"
#include "uniquefd.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <set>
#include <sstream>

namespace Cachescope
{

namespace
{

bool hasWord(const std::string &text, const std::string &word)
{
    std::istringstream words(text);
    std::string each;
    while (words >> each) {
        if (each == word) {
            return true;
        }
    }
    return false;
}

bool writeText(const std::string &path, const std::string &text, std::string *error)
{
    const UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
    const ssize_t written = fd.isValid() ? write(fd.get(), text.data(), text.size()) : -1;
    if (written == ssize_t(text.size())) {
        return true;
    }
    if (error) {
        *error = "cannot write " + path + ": " + errnoText(written < 0 ? errno : EIO);
    }
    return false;
}

bool ensureDirectory(const std::string &path, std::string *error)
{
    if (mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) {
        struct stat st{};
        if (lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
            return true;
        }
        if (error) {
            *error = path + " exists and is not a folder";
        }
        return false;
    }
    if (error) {
        *error = "cannot make " + path + ": " + errnoText(errno);
    }
    return false;
}

// v2: children get memory files only where the parent delegates the
// controller (cgroup.subtree_control).
bool delegateMemory(const std::string &cgroup, std::string *error)
{
    const std::optional<std::string> current = readProcFile(cgroup + "/cgroup.subtree_control");
    if (current && hasWord(*current, "memory")) {
        return true;
    }
    return writeText(cgroup + "/cgroup.subtree_control", "+memory", error);
}

std::string runPrefix(uint32_t uid)
{
    return "run-" + std::to_string(uid) + "-";
}

std::vector<std::string> runCgroupNames(const MemoryHierarchy &hierarchy, const std::string &prefix)
{
    std::vector<std::string> names;
    DIR *dir = opendir(hierarchy.parent().c_str());
    if (!dir) {
        return names;
    }
    while (const dirent *entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (entry->d_type == DT_DIR && name.compare(0, prefix.size(), prefix) == 0) {
            names.push_back(name);
        }
    }
    closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
}

// A "name value" line of cgroup.events.
std::optional<uint64_t> statField(const std::string &stat, const std::string &key)
{
    std::istringstream lines(stat);
    std::string name;
    uint64_t value = 0;
    while (lines >> name >> value) {
        if (name == key) {
            return value;
        }
    }
    return std::nullopt;
}

} // namespace

std::string MemoryHierarchy::parent() const
{
    return root + "/" + runCgroupParentName;
}

std::optional<MemoryHierarchy> findMemoryHierarchy(const std::string &cgroupRoot, std::string *error)
{
    struct stat st{};
    if (stat(cgroupRoot.c_str(), &st) != 0) {
        if (error) {
            *error = "no cgroup support: " + cgroupRoot + ": " + errnoText(errno);
        }
        return std::nullopt;
    }
    // The mounts this process sees: a plain folder at one of these places is
    // no hierarchy.
    std::string mountError;
    const std::vector<Cgroups::Hierarchy> mounted = Cgroups::memoryHierarchies("/proc", &mountError);
    const auto mountedAt = [&mounted](const std::string &path, Cgroups::Version version) {
        return std::any_of(mounted.begin(), mounted.end(), [&](const Cgroups::Hierarchy &hierarchy) {
            return hierarchy.version == version && hierarchy.mountPoint == path;
        });
    };
    const std::string v1 = cgroupRoot + "/memory";
    const std::string unified = cgroupRoot + "/unified";
    if (mountedAt(cgroupRoot, Cgroups::Version::V2)) {
        return MemoryHierarchy{cgroupRoot, 2};
    }
    if (mountedAt(v1, Cgroups::Version::V1)) {
        return MemoryHierarchy{v1, 1};
    }
    if (mountedAt(unified, Cgroups::Version::V2)) {
        return MemoryHierarchy{unified, 2};
    }
    if (error) {
        *error = "no memory cgroup controller under " + cgroupRoot
            + ": it is neither a cgroup v2 hierarchy with memory in cgroup.controllers nor holds a cgroup v1 memory hierarchy at " + v1;
        if (mounted.empty() && !mountError.empty()) {
            *error += " (" + mountError + ")";
        }
    }
    return std::nullopt;
}

uint64_t hardLimitMargin(uint64_t limitBytes)
{
    return std::clamp<uint64_t>(limitBytes / 8, 16ULL << 20, 1ULL << 30);
}

std::vector<std::string> runCgroupsOf(const MemoryHierarchy &hierarchy, uint32_t uid)
{
    return runCgroupNames(hierarchy, runPrefix(uid));
}

std::string nextRunCgroupName(const MemoryHierarchy &hierarchy, uint32_t uid)
{
    const std::vector<std::string> taken = runCgroupsOf(hierarchy, uid);
    const std::set<std::string> names(taken.begin(), taken.end());
    for (unsigned n = 1;; ++n) {
        std::string name = runPrefix(uid) + std::to_string(n);
        if (!names.count(name)) {
            return name;
        }
    }
}

std::optional<std::string> makeLimitedCgroup(const MemoryHierarchy &hierarchy, const std::string &name, uint64_t limitBytes, std::string *error)
{
    const std::string parent = hierarchy.parent();
    if (hierarchy.version == 2 && !delegateMemory(hierarchy.root, error)) {
        return std::nullopt;
    }
    std::string path = parent + "/" + name;
    // A watcher removes the parent with its last run, maybe just now: then
    // it is made again.
    int made = ENOENT;
    for (int attempt = 0; made == ENOENT && attempt < 3; ++attempt) {
        if (!ensureDirectory(parent, error) || (hierarchy.version == 2 && !delegateMemory(parent, error))) {
            return std::nullopt;
        }
        made = mkdir(path.c_str(), 0755) == 0 ? 0 : errno;
    }
    if (made != 0) {
        if (error) {
            *error = "cannot make the cgroup " + path + ": " + errnoText(made);
        }
        return std::nullopt;
    }
    // Its own modification time, kept by the kernel (kernfs keeps times only
    // once they were set): removeStaleRunCgroups() tells its age by it.
    (void)utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
    const std::string limit = std::to_string(limitBytes);
    bool ok = false;
    if (hierarchy.version == 2) {
        ok = writeText(path + "/memory.max", std::to_string(limitBytes + hardLimitMargin(limitBytes)), error) && writeText(path + "/memory.high", limit, error);
        if (ok && access((path + "/memory.swap.max").c_str(), F_OK) == 0) {
            ok = writeText(path + "/memory.swap.max", "0", error);
        }
    } else {
        ok = writeText(path + "/memory.limit_in_bytes", limit, error);
        if (ok && access((path + "/memory.memsw.limit_in_bytes").c_str(), F_OK) == 0) {
            ok = writeText(path + "/memory.memsw.limit_in_bytes", limit, error);
        }
    }
    if (!ok) {
        (void)rmdir(path.c_str());
        return std::nullopt;
    }
    return path;
}

bool moveIntoCgroup(const std::string &path, int pid, std::string *error)
{
    return writeText(path + "/cgroup.procs", std::to_string(pid), error);
}

std::optional<bool> cgroupPopulated(const std::string &path, int version)
{
    if (version == 2) {
        const std::optional<std::string> events = readProcFile(path + "/cgroup.events");
        if (!events) {
            return std::nullopt;
        }
        const std::optional<uint64_t> populated = statField(*events, "populated");
        return populated.value_or(1) != 0;
    }
    const std::optional<std::string> procs = readProcFile(path + "/cgroup.procs");
    if (!procs) {
        return std::nullopt;
    }
    return procs->find_first_not_of(" \n") != std::string::npos;
}

bool removeCgroup(const std::string &path, std::string *error)
{
    if (rmdir(path.c_str()) == 0 || errno == ENOENT) {
        return true;
    }
    if (error) {
        *error = "cannot remove the cgroup " + path + ": " + errnoText(errno);
    }
    return false;
}

std::vector<std::string> removeStaleRunCgroups(const MemoryHierarchy &hierarchy, int minAgeSeconds)
{
    std::vector<std::string> removed;
    const time_t now = time(nullptr);
    for (const std::string &name : runCgroupNames(hierarchy, "run-")) {
        const std::string path = hierarchy.parent() + "/" + name;
        struct stat st{};
        if (stat(path.c_str(), &st) != 0 || now - st.st_mtime < minAgeSeconds) {
            continue;
        }
        // rmdir itself refuses a populated cgroup (EBUSY): the check before
        // only keeps the attempt from being made.
        if (cgroupPopulated(path, hierarchy.version) == false && rmdir(path.c_str()) == 0) {
            removed.push_back(path);
        }
    }
    // The parent too when nothing is left in it (else EBUSY: left alone).
    if (!removed.empty()) {
        (void)rmdir(hierarchy.parent().c_str());
    }
    return removed;
}

std::optional<RunCgroupMemory> readRunCgroupMemory(const std::string &path, int version, std::string *error)
{
    const std::optional<Cgroups::MemoryStats> stats = Cgroups::readMemoryStats(path, version == 2 ? Cgroups::Version::V2 : Cgroups::Version::V1, error);
    if (!stats) {
        return std::nullopt;
    }
    // The usage is what these figures are about: without it, none.
    if (!stats->current) {
        if (error) {
            *error = stats->problems.empty() ? path + (version == 2 ? "/memory.current" : "/memory.usage_in_bytes") + ": missing" : stats->problems.front();
        }
        return std::nullopt;
    }
    RunCgroupMemory memory;
    memory.pageCache = stats->file.value_or(0);
    memory.dirty = stats->fileDirty.value_or(0);
    memory.writeback = stats->fileWriteback.value_or(0);
    memory.usage = *stats->current;
    return memory;
}

} // namespace Cachescope
