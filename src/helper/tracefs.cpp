// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "tracefs.h"

#include "format.h"
#include "procfs.h"
#include "trace/traceparser.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>

namespace Cachescope::Helper
{

namespace
{

constexpr std::string_view instancePrefix = "cachescope-";

std::optional<uint64_t> plainDecimal(std::string_view text)
{
    uint64_t value = 0;
    if (text.empty() || (text.size() > 1 && text.front() == '0')) {
        return std::nullopt;
    }
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

bool writeFile(const std::string &path, std::string_view value)
{
    // O_TRUNC: writing "" clears set_event_pid; no O_CREAT: tracefs has
    // every file the helper writes, and nothing else is ever made.
    const UniqueFd fd(open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW));
    if (!fd.isValid()) {
        return false;
    }
    return ::write(fd.get(), value.data(), value.size()) == ssize_t(value.size());
}

// Turns everything off, then removes the instance. rmdir would refuse
// (EBUSY) while a descriptor of it is open; the callers close theirs first.
void disableAndRemove(const std::string &path, const std::vector<std::string> &events)
{
    writeFile(path + "/tracing_on", "0");
    for (const std::string &event : events) {
        writeFile(path + "/events/" + event + "/enable", "0");
    }
    writeFile(path + "/set_event_pid", "");
    rmdir(path.c_str());
}

} // namespace

const std::vector<std::string> &traceEventNames()
{
    static const std::vector<std::string> names{
        "filemap/mm_filemap_add_to_page_cache",
        "filemap/mm_filemap_delete_from_page_cache",
        "filemap/mm_filemap_get_pages",
        "filemap/mm_filemap_map_pages",
        "filemap/mm_filemap_fault",
        "block/block_rq_issue",
    };
    return names;
}

namespace
{
constexpr std::string_view execLineKey = "task_rename: pid=";
}

const std::string &execEventName()
{
    static const std::string name = "task/task_rename";
    return name;
}

bool isExecLine(std::string_view line)
{
    return line.find(execLineKey) != std::string_view::npos;
}

std::optional<int64_t> execedPid(std::string_view line)
{
    const size_t key = line.find(execLineKey);
    if (key == std::string_view::npos) {
        return std::nullopt;
    }
    std::string_view rest = line.substr(key + execLineKey.size());
    rest = rest.substr(0, rest.find(' '));
    const std::optional<uint64_t> value = plainDecimal(rest);
    if (!value || *value == 0 || *value > uint64_t(INT32_MAX)) {
        return std::nullopt;
    }
    return int64_t(*value);
}

std::optional<std::string> ensureTracefs(const std::string &mountPoint, bool *mounted)
{
    *mounted = false;
    struct statfs fs{};
    if (statfs(mountPoint.c_str(), &fs) == 0 && static_cast<unsigned long>(fs.f_type) == TRACEFS_MAGIC) {
        return std::nullopt;
    }
    if (mount("nodev", mountPoint.c_str(), "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
        return "tracefs is not mounted at " + mountPoint + " and mounting it failed: " + errnoText(errno);
    }
    *mounted = true;
    return std::nullopt;
}

TracefsMountGuard::~TracefsMountGuard()
{
    if (mounted) {
        umount2(path.c_str(), MNT_DETACH);
    }
}

std::string instanceName(int64_t helperPid, uint64_t serial)
{
    return std::string(instancePrefix) + std::to_string(helperPid) + "-" + std::to_string(serial);
}

std::optional<int64_t> instanceOwner(std::string_view name)
{
    if (name.substr(0, instancePrefix.size()) != instancePrefix) {
        return std::nullopt;
    }
    name.remove_prefix(instancePrefix.size());
    const size_t dash = name.find('-');
    if (dash == std::string_view::npos) {
        return std::nullopt;
    }
    const std::optional<uint64_t> pid = plainDecimal(name.substr(0, dash));
    const std::optional<uint64_t> serial = plainDecimal(name.substr(dash + 1));
    if (!pid || !serial || *pid == 0 || *pid > uint64_t(INT32_MAX)) {
        return std::nullopt;
    }
    return int64_t(*pid);
}

std::vector<std::string> removeStaleInstances(const std::string &tracefs, const std::string &initialProcRoot)
{
    std::vector<std::string> removed;
    const std::string instances = tracefs + "/instances";
    DIR *directory = opendir(instances.c_str());
    if (!directory) {
        return removed;
    }
    std::vector<std::string> stale;
    while (const dirent *entry = readdir(directory)) {
        const std::string name = entry->d_name;
        const std::optional<int64_t> owner = instanceOwner(name);
        struct stat st{};
        if (owner && stat((initialProcRoot + "/" + std::to_string(*owner)).c_str(), &st) != 0 && errno == ENOENT) {
            stale.push_back(name);
        }
    }
    closedir(directory);
    std::vector<std::string> events = traceEventNames();
    events.push_back(execEventName());
    for (const std::string &name : stale) {
        disableAndRemove(instances + "/" + name, events);
        struct stat st{};
        if (stat((instances + "/" + name).c_str(), &st) != 0) {
            removed.push_back(name);
        }
    }
    return removed;
}

TraceInstance::TraceInstance(std::string path, std::string name)
    : m_path(std::move(path))
    , m_name(std::move(name))
{
}

std::unique_ptr<TraceInstance> TraceInstance::create(const std::string &tracefs, int64_t helperPid, std::string *error)
{
    // Serials grow for the helper's lifetime, so that an instance a
    // failed rmdir left behind never blocks the next trace.
    static std::atomic<uint64_t> nextSerial{1};
    for (int attempt = 0; attempt < 16; ++attempt) {
        const std::string name = instanceName(helperPid, nextSerial++);
        const std::string path = tracefs + "/instances/" + name;
        if (mkdir(path.c_str(), 0700) == 0) {
            return std::unique_ptr<TraceInstance>(new TraceInstance(path, name));
        }
        if (errno != EEXIST) {
            *error = "cannot make a tracefs instance in " + tracefs + "/instances: " + errnoText(errno);
            return nullptr;
        }
    }
    *error = "cannot make a tracefs instance in " + tracefs + "/instances: every name tried exists";
    return nullptr;
}

TraceInstance::~TraceInstance()
{
    disableAndRemove(m_path, m_enabled);
}

bool TraceInstance::write(const std::string &file, std::string_view value) const
{
    return writeFile(m_path + "/" + file, value);
}

std::optional<std::string>
TraceInstance::configure(int hostPid, unsigned bufferKiBPerCpu, const std::vector<std::string> &events, bool wakeOnEveryEvent, std::vector<bool> *present)
{
    // A new instance records from the start: off first, on only when
    // everything is set.
    if (!write("tracing_on", "0")) {
        return "cannot turn the new tracefs instance off: " + errnoText(errno);
    }
    struct Setting {
        const char *file;
        std::string value;
    };
    const Setting settings[] = {
        {"trace_clock", "mono"},
        {"buffer_size_kb", std::to_string(bufferKiBPerCpu)},
        {"options/event-fork", "1"},
        {"set_event_pid", std::to_string(hostPid)},
    };
    for (const Setting &setting : settings) {
        if (hostPid <= 0 && (std::string_view(setting.file) == "options/event-fork" || std::string_view(setting.file) == "set_event_pid")) {
            continue;
        }
        if (!write(setting.file, setting.value)) {
            return std::string("cannot set ") + setting.file + " of the tracefs instance: " + errnoText(errno);
        }
    }
    if (wakeOnEveryEvent && !write("buffer_percent", "0")) {
        return "cannot set buffer_percent of the tracefs instance: " + errnoText(errno);
    }
    present->clear();
    for (const std::string &event : events) {
        struct stat st{};
        const bool exists = stat((m_path + "/events/" + event + "/enable").c_str(), &st) == 0;
        if (exists) {
            // Recorded before the write, so that the destructor disables
            // even an event whose enabling failed halfway.
            m_enabled.push_back(event);
            if (!write("events/" + event + "/enable", "1")) {
                return "cannot enable the event " + event + ": " + errnoText(errno);
            }
        }
        present->push_back(exists);
    }
    return std::nullopt;
}

UniqueFd TraceInstance::openPipe(std::string *error) const
{
    UniqueFd fd(open((m_path + "/trace_pipe").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW));
    if (!fd.isValid()) {
        *error = "cannot open the instance's trace_pipe: " + errnoText(errno);
    }
    return fd;
}

std::vector<UniqueFd> TraceInstance::openRawPipes(std::string *error) const
{
    std::vector<UniqueFd> pipes;
    const std::string perCpu = m_path + "/per_cpu";
    DIR *directory = opendir(perCpu.c_str());
    if (!directory) {
        *error = "cannot read " + perCpu + ": " + errnoText(errno);
        return pipes;
    }
    std::vector<std::string> cpus;
    while (const dirent *entry = readdir(directory)) {
        if (std::string_view(entry->d_name).rfind("cpu", 0) == 0) {
            cpus.emplace_back(entry->d_name);
        }
    }
    closedir(directory);
    for (const std::string &cpu : cpus) {
        UniqueFd fd(open((perCpu + "/" + cpu + "/trace_pipe_raw").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW));
        if (!fd.isValid()) {
            *error = "cannot open " + cpu + "'s trace_pipe_raw: " + errnoText(errno);
            return {};
        }
        pipes.push_back(std::move(fd));
    }
    return pipes;
}

std::optional<std::string> TraceInstance::readText(const std::string &file) const
{
    return readProcFile(m_path + "/" + file);
}

bool TraceInstance::setTracing(bool on) const
{
    return write("tracing_on", on ? "1" : "0");
}

void TraceInstance::forEachCpuStats(const std::function<void(const std::string &stats)> &take) const
{
    const std::string perCpu = m_path + "/per_cpu";
    DIR *directory = opendir(perCpu.c_str());
    if (!directory) {
        return;
    }
    while (const dirent *entry = readdir(directory)) {
        const std::string name = entry->d_name;
        if (name.rfind("cpu", 0) != 0) {
            continue;
        }
        if (const std::optional<std::string> stats = readProcFile(perCpu + "/" + name + "/stats")) {
            take(*stats);
        }
    }
    closedir(directory);
}

uint64_t TraceInstance::lostEvents() const
{
    uint64_t lost = 0;
    forEachCpuStats([&lost](const std::string &stats) {
        if (const std::optional<Trace::BufferLosses> losses = Trace::parseBufferStats(stats)) {
            lost += losses->lost();
        }
    });
    return lost;
}

uint64_t TraceInstance::fullestCpuBytes() const
{
    uint64_t fullest = 0;
    forEachCpuStats([&fullest](const std::string &stats) {
        // "bytes: N": what this CPU's buffer holds that no reader took yet.
        const size_t at = stats.find("\nbytes:");
        if (at != std::string::npos) {
            fullest = std::max<uint64_t>(fullest, std::strtoull(stats.c_str() + at + 7, nullptr, 10));
        }
    });
    return fullest;
}

std::vector<int64_t> TraceInstance::tracedPids() const
{
    std::vector<int64_t> pids;
    const std::optional<std::string> text = readProcFile(m_path + "/set_event_pid");
    if (!text) {
        return pids;
    }
    const char *cursor = text->c_str();
    while (*cursor) {
        char *end = nullptr;
        const long long pid = std::strtoll(cursor, &end, 10);
        if (end == cursor) {
            ++cursor;
            continue;
        }
        if (pid > 0) {
            pids.push_back(pid);
        }
        cursor = end;
    }
    return pids;
}

} // namespace Cachescope::Helper
