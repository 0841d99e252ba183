// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "activity/ownactivity.h"

#include "procfs.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace Cachescope::Activity
{

namespace
{

} // namespace

std::optional<IoCounters> parseProcessIo(std::string_view text)
{
    std::optional<uint64_t> read;
    std::optional<uint64_t> written;
    std::optional<uint64_t> calls;
    forEachLine(text, [&](std::string_view line) {
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            return;
        }
        const std::string_view name = line.substr(0, colon);
        const std::string_view number = trimmedText(line.substr(colon + 1));
        uint64_t value = 0;
        const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
        if (error != std::errc() || end != number.data() + number.size()) {
            return;
        }
        if (name == "read_bytes") {
            read = value;
        } else if (name == "write_bytes") {
            written = value;
        } else if (name == "rchar") {
            calls = value;
        }
    });
    if (!read || !written || !calls) {
        return std::nullopt;
    }
    return IoCounters{*read, *written, *calls};
}

OwnActivitySampler::OwnActivitySampler(std::string procRoot, int64_t uid, std::string hierarchyFolder)
    : m_procRoot(std::move(procRoot))
    , m_uid(uid >= 0 ? uid : int64_t(getuid()))
    , m_hierarchyFolder(std::move(hierarchyFolder))
{
}

std::map<int32_t, OwnActivitySampler::ProcessSample> OwnActivitySampler::readProcesses(uint64_t *unreadable) const
{
    std::map<int32_t, ProcessSample> processes;
    for (const int pid : processIds(m_procRoot)) {
        const std::string folder = m_procRoot + "/" + std::to_string(pid);
        const std::optional<std::string> status = readProcFile(folder + "/status");
        if (!status) {
            continue; // ended
        }
        const size_t uidLine = status->find("\nUid:");
        if (uidLine == std::string::npos || std::strtoll(status->c_str() + uidLine + 5, nullptr, 10) != m_uid) {
            continue; // ended, or another user's
        }
        const std::optional<std::string> io = readProcFile(folder + "/io");
        const std::optional<IoCounters> counters = io ? parseProcessIo(*io) : std::nullopt;
        const std::optional<std::string> stat = readProcFile(folder + "/stat");
        const std::optional<uint64_t> start = stat ? processStatField(*stat, 22) : std::nullopt; // starttime
        if (!counters || !start) {
            ++*unreadable; // a set-user-ID program of this user's real uid, or ended meanwhile
            continue;
        }
        ProcessSample sample;
        sample.startTime = *start;
        sample.io = *counters;
        if (std::optional<std::string> command = readProcFile(folder + "/comm")) {
            command->erase(std::find(command->begin(), command->end(), '\n'), command->end());
            sample.command = std::move(*command);
        }
        processes.emplace(pid, std::move(sample));
    }
    return processes;
}

std::optional<OwnInterval> OwnActivitySampler::sample(double seconds)
{
    const Cgroups::ApplicationsReport report =
        m_hierarchyFolder.empty() ? Cgroups::readApplications(m_procRoot) : Cgroups::scanApplications(m_hierarchyFolder, Cgroups::Version::V2);
    uint64_t unreadable = 0;
    std::map<int32_t, ProcessSample> processes = readProcesses(&unreadable);
    std::map<std::string, GroupSample> groups;
    for (const Cgroups::ApplicationCache &row : report.rows) {
        groups[row.cgroupPath] = GroupSample{row.stats.file.value_or(0), row.stats.refaults};
    }

    std::optional<OwnInterval> interval;
    if (m_sampled) {
        interval.emplace();
        interval->seconds = seconds - m_seconds;
        interval->groupsFound = report.found;
        interval->groupsReason = report.reason;
        interval->processesUnreadable = unreadable;
        for (const Cgroups::ApplicationCache &row : report.rows) {
            const auto before = m_groups.find(row.cgroupPath);
            if (before == m_groups.end()) {
                continue; // new since the last sample: no change to tell
            }
            GroupActivity group;
            group.name = row.name;
            group.cgroupPath = row.cgroupPath;
            group.desktopFileId = row.desktopFileId;
            group.fileBytes = row.stats.file.value_or(0);
            group.fileChangeBytes = int64_t(group.fileBytes) - int64_t(before->second.file);
            const std::optional<uint64_t> refaultsNow = row.stats.refaults;
            const std::optional<uint64_t> refaultsBefore = before->second.refaults;
            if (refaultsNow && refaultsBefore && *refaultsNow >= *refaultsBefore) {
                group.refaults = *refaultsNow - *refaultsBefore;
            }
            if (row.stats.pressure) {
                group.pressureSomeAvg10 = row.stats.pressure->someAvg10;
            }
            if (group.fileChangeBytes != 0 || group.refaults.value_or(0) > 0) {
                interval->groups.push_back(std::move(group));
            }
        }
        std::stable_sort(interval->groups.begin(), interval->groups.end(), [](const GroupActivity &a, const GroupActivity &b) {
            return std::llabs(a.fileChangeBytes) > std::llabs(b.fileChangeBytes);
        });
        for (const auto &[pid, now] : processes) {
            const auto before = m_processes.find(pid);
            if (before == m_processes.end() || before->second.startTime != now.startTime) {
                continue; // new since the last sample
            }
            ProcessIo io;
            io.pid = pid;
            io.command = now.command;
            const auto delta = [](uint64_t after, uint64_t was) {
                return after >= was ? after - was : 0;
            };
            io.readBytes = delta(now.io.readBytes, before->second.io.readBytes);
            io.writeBytes = delta(now.io.writeBytes, before->second.io.writeBytes);
            io.readCalls = delta(now.io.readCalls, before->second.io.readCalls);
            if (io.readBytes > 0 || io.writeBytes > 0 || io.readCalls > 0) {
                interval->processes.push_back(std::move(io));
            }
        }
        std::stable_sort(interval->processes.begin(), interval->processes.end(), [](const ProcessIo &a, const ProcessIo &b) {
            return a.readBytes + a.writeBytes > b.readBytes + b.writeBytes;
        });
    }
    m_processes = std::move(processes);
    m_groups = std::move(groups);
    m_seconds = seconds;
    m_sampled = true;
    return interval;
}

} // namespace Cachescope::Activity
