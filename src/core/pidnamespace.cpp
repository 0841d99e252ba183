// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "pidnamespace.h"

#include "format.h"
#include "procfs.h"
#include "uniquefd.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <string_view>
#include <vector>

namespace Cachescope
{

namespace
{

std::optional<uint64_t> decimal(std::string_view text)
{
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

// Field `field` (numbered as in proc(5): 22 is the start time) of
// <procRoot>/<process>/stat. The name (field 2) may hold spaces and
// parentheses, so the fields are counted after its last ')'.
std::optional<uint64_t> statFieldOf(const std::string &procRoot, const std::string &process, int field)
{
    const std::optional<std::string> stat = readProcFile(procRoot + "/" + process + "/stat");
    if (!stat) {
        return std::nullopt;
    }
    const size_t nameEnd = stat->rfind(')');
    if (nameEnd == std::string::npos) {
        return std::nullopt;
    }
    std::string_view rest = std::string_view(*stat).substr(nameEnd + 1);
    for (int at = 3; at <= field; ++at) {
        while (!rest.empty() && rest.front() == ' ') {
            rest.remove_prefix(1);
        }
        const size_t end = std::min(rest.find(' '), rest.size());
        if (at == field) {
            return decimal(rest.substr(0, end));
        }
        rest.remove_prefix(end);
    }
    return std::nullopt;
}

// The start time in clock ticks after boot: the same in every PID namespace.
std::optional<uint64_t> startTimeOf(const std::string &procRoot, const std::string &process)
{
    return statFieldOf(procRoot, process, 22);
}

// The numbers of the "NSpid:" line of <procRoot>/<process>/status: the pid
// in the procfs's own namespace first, in the process's own namespace last.
std::vector<uint64_t> nsPidsOf(const std::string &procRoot, const std::string &process)
{
    std::vector<uint64_t> pids;
    const std::optional<std::string> status = readProcFile(procRoot + "/" + process + "/status");
    if (!status) {
        return pids;
    }
    const size_t line = status->find("\nNSpid:");
    if (line == std::string::npos) {
        return pids;
    }
    const size_t end = std::min(status->find('\n', line + 1), status->size());
    std::string_view numbers = std::string_view(*status).substr(line + 7, end - line - 7);
    while (!numbers.empty()) {
        while (!numbers.empty() && (numbers.front() == ' ' || numbers.front() == '\t')) {
            numbers.remove_prefix(1);
        }
        const size_t gap = std::min(numbers.find_first_of(" \t"), numbers.size());
        if (gap == 0) {
            break;
        }
        const std::optional<uint64_t> pid = decimal(numbers.substr(0, gap));
        if (!pid) {
            return {};
        }
        pids.push_back(*pid);
        numbers.remove_prefix(gap);
    }
    return pids;
}

// Kernel threads (kthreadd is pid 2) live in the initial PID namespace only:
// a procfs that shows one as pid 2 numbers processes as that namespace does.
// (Its ns/pid link, like process 1's, may be closed to us; its stat is not.)
bool showsKernelThreads(const std::string &procRoot)
{
    constexpr uint64_t kernelThreadFlag = 0x00200000; // PF_KTHREAD
    const std::optional<uint64_t> flags = statFieldOf(procRoot, "2", 9);
    return flags && (*flags & kernelThreadFlag) != 0;
}

bool isProcfs(const std::string &path)
{
    struct statfs fs{};
    return statfs(path.c_str(), &fs) == 0 && static_cast<unsigned long>(fs.f_type) == PROC_SUPER_MAGIC;
}

HostPid failure(std::string sentence)
{
    return {std::nullopt, std::move(sentence)};
}

} // namespace

std::optional<uint64_t> pidNamespaceInode(const std::string &procRoot, const std::string &process)
{
    struct stat st{};
    if (stat((procRoot + "/" + process + "/ns/pid").c_str(), &st) != 0) {
        return std::nullopt;
    }
    return uint64_t(st.st_ino);
}

HostPid hostPidOf(int pid, const std::string &procRoot, const std::string &hostProcRoot)
{
    if (pid <= 0) {
        return failure("process id " + std::to_string(pid) + " is not a process");
    }
    const std::string process = std::to_string(pid);
    const std::optional<uint64_t> ours = pidNamespaceInode(procRoot, "self");
    if (!ours) {
        return failure("cannot read " + procRoot + "/self/ns/pid: " + errnoText(errno) + "; without it the process cannot be traced");
    }
    if (*ours == initialPidNamespaceInode) {
        return {pid, {}};
    }
    const std::optional<uint64_t> started = startTimeOf(procRoot, process);
    if (!started) {
        return failure("process " + process + " does not exist (no " + procRoot + "/" + process + "/stat)");
    }
    if (pidNamespaceInode(procRoot, process) != ours) {
        return failure("process " + process + " is in another PID namespace than the tracer; only processes of the tracer's own namespace can be traced");
    }
    const std::string why = "the tracer runs in a private PID namespace (a container or sandbox), where tracefs cannot follow a process by its pid, ";
    if (!isProcfs(hostProcRoot)) {
        return failure(why + "and the host's /proc is not visible at " + hostProcRoot + " to translate it");
    }
    // The host's /proc lists this process at two levels at least (the
    // initial namespace's and ours), and shows the kernel's threads.
    if (nsPidsOf(hostProcRoot, "self").size() < 2 || !showsKernelThreads(hostProcRoot)) {
        return failure(why + "and " + hostProcRoot + " is not the host's /proc (it does not number processes as the initial PID namespace does)");
    }
    DIR *directory = opendir(hostProcRoot.c_str());
    if (!directory) {
        return failure(why + "and " + hostProcRoot + " cannot be read: " + errnoText(errno));
    }
    std::optional<int> found;
    while (const dirent *entry = readdir(directory)) {
        const std::string name = entry->d_name;
        const std::optional<uint64_t> hostPid = decimal(name);
        if (!hostPid || *hostPid > uint64_t(INT32_MAX)) {
            continue;
        }
        const std::vector<uint64_t> pids = nsPidsOf(hostProcRoot, name);
        if (pids.empty() || pids.back() != uint64_t(pid) || pidNamespaceInode(hostProcRoot, name) != ours || startTimeOf(hostProcRoot, name) != started) {
            continue;
        }
        found = int(*hostPid);
        break;
    }
    closedir(directory);
    if (!found) {
        return failure(why + "and process " + process + " is not among the host's processes in " + hostProcRoot);
    }
    return {found, {}};
}

} // namespace Cachescope
