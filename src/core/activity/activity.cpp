// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "activity/activity.h"

#include "account.h"
#include "cgroups/applications.h"
#include "procfs.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <climits>

namespace Cachescope::Activity
{

namespace
{

// The kernel's own dev_t in trace events: major in the bits above 20.
constexpr unsigned kernelMinorBits = 20;
// Files a process is remembered to have pushed out, at most.
constexpr size_t maxPushedOutPerProcess = 1024;
// Named in an interval's process entry.
constexpr size_t pushedOutShown = 8;

uint64_t userDevice(uint64_t kernelDevice)
{
    return makedev(unsigned(kernelDevice >> kernelMinorBits), unsigned(kernelDevice & ((1U << kernelMinorBits) - 1)));
}

// "8:1" -> makedev(8, 1); nothing for another name ("btrfs-1", "0:53" is
// fine: an anonymous device is still a device number).
std::optional<uint64_t> deviceFromName(std::string_view name)
{
    const size_t colon = name.find(':');
    if (colon == std::string_view::npos) {
        return std::nullopt;
    }
    unsigned major = 0;
    unsigned minor = 0;
    // [begin, end): from_chars reads within it, no terminating zero needed.
    const char *const begin = name.data();
    const char *const end = begin + name.size();
    const auto [majorEnd, majorError] = std::from_chars(begin, begin + colon, major);
    const auto [minorEnd, minorError] = std::from_chars(begin + colon + 1, end, minor);
    if (majorError != std::errc() || minorError != std::errc() || majorEnd != begin + colon || minorEnd != end) {
        return std::nullopt;
    }
    return makedev(major, minor);
}

void add(Figures &into, const Figures &figures)
{
    into.addedPages += figures.addedPages;
    into.reclaimedPages += figures.reclaimedPages;
    into.droppedPages += figures.droppedPages;
    into.dirtiedPages += figures.dirtiedPages;
}

Figures minus(const Figures &a, const Figures &b)
{
    const auto sub = [](uint64_t x, uint64_t y) {
        return x > y ? x - y : 0;
    };
    return {sub(a.addedPages, b.addedPages), sub(a.reclaimedPages, b.reclaimedPages), sub(a.droppedPages, b.droppedPages), sub(a.dirtiedPages, b.dirtiedPages)};
}

// The keys of the top `limit` entries by total and by each single figure.
template<typename Key, typename Entry>
std::set<Key> topKeys(const std::map<Key, Entry> &entries, size_t limit)
{
    std::set<Key> chosen;
    using Measure = uint64_t (*)(const Figures &);
    const Measure measures[] = {
        [](const Figures &f) {
            return f.total();
        },
        [](const Figures &f) {
            return f.addedPages;
        },
        [](const Figures &f) {
            return f.evictedPages();
        },
        [](const Figures &f) {
            return f.dirtiedPages;
        },
    };
    std::vector<std::pair<uint64_t, Key>> ranked;
    ranked.reserve(entries.size());
    for (const Measure measure : measures) {
        ranked.clear();
        for (const auto &[key, entry] : entries) {
            if (const uint64_t value = measure(entry.figures); value > 0) {
                ranked.emplace_back(value, key);
            }
        }
        const size_t count = std::min(limit, ranked.size());
        std::partial_sort(ranked.begin(), ranked.begin() + count, ranked.end(), [](const auto &a, const auto &b) {
            return a.first > b.first;
        });
        for (size_t i = 0; i < count; ++i) {
            chosen.insert(ranked[i].second);
        }
    }
    return chosen;
}

template<typename T>
void sortByTotal(std::vector<T> &list)
{
    std::stable_sort(list.begin(), list.end(), [](const T &a, const T &b) {
        return a.figures.total() > b.figures.total();
    });
}

std::optional<std::string> firstLine(const std::string &path)
{
    std::optional<std::string> text = readProcFile(path);
    if (text) {
        text->erase(std::find(text->begin(), text->end(), '\n'), text->end());
    }
    return text;
}

} // namespace

const std::vector<std::string> &eventNames()
{
    static const std::vector<std::string> names{
        "filemap/mm_filemap_add_to_page_cache",
        "filemap/mm_filemap_delete_from_page_cache",
        "writeback/writeback_dirty_folio",
        "vmscan/mm_vmscan_direct_reclaim_begin",
        "vmscan/mm_vmscan_direct_reclaim_end",
        "vmscan/mm_vmscan_memcg_reclaim_begin",
        "vmscan/mm_vmscan_memcg_reclaim_end",
        "task/task_rename",
    };
    return names;
}

std::optional<Event> decode(const RawTrace::Record &record, const Formats &formats)
{
    if (record.data.size() < 2) {
        return std::nullopt;
    }
    const uint32_t type = uint32_t(record.data[0]) | uint32_t(record.data[1]) << 8;
    const auto pidOf = [&record](const RawTrace::EventFormat &format) -> std::optional<int32_t> {
        const RawTrace::Field *pid = format.field("common_pid");
        const std::optional<int64_t> value = pid ? RawTrace::readSigned(record.data, *pid) : std::nullopt;
        if (!value) {
            return std::nullopt;
        }
        return int32_t(*value);
    };
    Event event;
    event.timestamp = record.timestamp;
    const auto page = [&](const RawTrace::EventFormat &format, EventKind kind) -> std::optional<Event> {
        const RawTrace::Field *inode = format.field("i_ino");
        const RawTrace::Field *device = format.field("s_dev");
        const RawTrace::Field *order = format.field("order");
        const RawTrace::Field *index = format.field("index");
        const std::optional<int32_t> pid = pidOf(format);
        const std::optional<uint64_t> inodeValue = inode ? RawTrace::readUnsigned(record.data, *inode) : std::nullopt;
        const std::optional<uint64_t> deviceValue = device ? RawTrace::readUnsigned(record.data, *device) : std::nullopt;
        if (!pid || !inodeValue || !deviceValue) {
            return std::nullopt;
        }
        const std::optional<uint64_t> orderValue = order ? RawTrace::readUnsigned(record.data, *order) : std::optional<uint64_t>(0);
        if (!orderValue || *orderValue > 20) {
            return std::nullopt;
        }
        event.kind = kind;
        event.pid = *pid;
        event.inode = *inodeValue;
        event.device = userDevice(*deviceValue);
        event.index = index ? RawTrace::readUnsigned(record.data, *index).value_or(0) : 0;
        event.pages = uint64_t(1) << *orderValue;
        return event;
    };
    if (formats.added && type == formats.added->id) {
        return page(*formats.added, EventKind::Added);
    }
    if (formats.removed && type == formats.removed->id) {
        return page(*formats.removed, EventKind::Removed);
    }
    if (formats.dirtied && type == formats.dirtied->id) {
        const RawTrace::Field *name = formats.dirtied->field("name");
        const RawTrace::Field *inode = formats.dirtied->field("ino");
        const RawTrace::Field *index = formats.dirtied->field("index");
        const std::optional<int32_t> pid = pidOf(*formats.dirtied);
        const std::optional<uint64_t> inodeValue = inode ? RawTrace::readUnsigned(record.data, *inode) : std::nullopt;
        std::optional<std::string> deviceName = name ? RawTrace::readString(record.data, *name) : std::nullopt;
        if (!pid || !inodeValue || !deviceName) {
            return std::nullopt;
        }
        event.kind = EventKind::Dirtied;
        event.pid = *pid;
        event.inode = *inodeValue;
        event.index = index ? RawTrace::readUnsigned(record.data, *index).value_or(0) : 0;
        event.pages = 1; // one folio: its size is not in the event (Aggregator::take)
        event.device = deviceFromName(*deviceName).value_or(0);
        if (event.device == 0) {
            event.deviceName = std::move(*deviceName);
        }
        return event;
    }
    if (formats.renamed && type == formats.renamed->id) {
        // The task renamed is the one the event names (pid), which is the
        // current task at an exec.
        const RawTrace::Field *pid = formats.renamed->field("pid");
        const RawTrace::Field *command = formats.renamed->field("newcomm");
        const std::optional<int64_t> pidValue = pid ? RawTrace::readSigned(record.data, *pid) : std::nullopt;
        std::optional<std::string> commandValue = command ? RawTrace::readString(record.data, *command) : std::nullopt;
        if (!pidValue || !commandValue || *pidValue <= 0 || *pidValue > INT32_MAX) {
            return std::nullopt;
        }
        event.kind = EventKind::Renamed;
        event.pid = int32_t(*pidValue);
        event.deviceName = std::move(*commandValue);
        return event;
    }
    for (const auto &[format, kind] : {std::pair{&formats.reclaimBegin, EventKind::ReclaimBegin},
                                       std::pair{&formats.reclaimEnd, EventKind::ReclaimEnd},
                                       std::pair{&formats.cgroupReclaimBegin, EventKind::ReclaimBegin},
                                       std::pair{&formats.cgroupReclaimEnd, EventKind::ReclaimEnd}}) {
        if (*format && type == (*format)->id) {
            const std::optional<int32_t> pid = pidOf(**format);
            if (!pid) {
                return std::nullopt;
            }
            event.kind = kind;
            event.pid = *pid;
            return event;
        }
    }
    return std::nullopt;
}

Aggregator::Aggregator(std::set<int32_t> reclaimThreads)
    : m_reclaimThreads(std::move(reclaimThreads))
{
}

void Aggregator::take(const Event &event)
{
    switch (event.kind) {
    case EventKind::ReclaimBegin:
        if (m_inDirectReclaim.size() < maxTracked) {
            m_inDirectReclaim.insert(event.pid);
        }
        return;
    case EventKind::ReclaimEnd:
        m_inDirectReclaim.erase(event.pid);
        return;
    case EventKind::Renamed:
        if (m_commands.size() >= maxCommands && !m_commands.contains(event.pid)) {
            m_commands.clear();
        }
        m_commands[event.pid] = event.deviceName;
        return;
    default:
        break;
    }
    Figures figures;
    const bool reclaiming = m_reclaimThreads.contains(event.pid) || m_inDirectReclaim.contains(event.pid);
    switch (event.kind) {
    case EventKind::Added:
        figures.addedPages = event.pages;
        if (event.pages > 1 && m_largeFolios.size() < maxTracked) {
            m_largeFolios[{FileKey{event.device, event.inode}, event.index}] = event.pages;
        }
        break;
    case EventKind::Removed:
        (reclaiming ? figures.reclaimedPages : figures.droppedPages) = event.pages;
        break;
    case EventKind::Dirtied:
        figures.dirtiedPages = event.pages;
        if (const auto found = m_largeFolios.find({FileKey{event.device, event.inode}, event.index}); found != m_largeFolios.end()) {
            figures.dirtiedPages = found->second;
        }
        break;
    default:
        return;
    }
    add(m_all, figures);
    const FileKey key{event.device, event.inode};

    auto process = m_processes.find(event.pid);
    if (process == m_processes.end() && m_processes.size() < maxTracked) {
        process = m_processes.emplace(event.pid, ProcessEntry{}).first;
        m_new.pids.push_back(event.pid);
    }
    if (process == m_processes.end()) {
        add(m_otherProcesses, figures);
    } else {
        add(process->second.figures, figures);
        if (figures.reclaimedPages > 0) {
            auto &evicted = process->second.evicted;
            if (auto found = evicted.find(key); found != evicted.end()) {
                found->second += figures.reclaimedPages;
            } else if (evicted.size() < maxPushedOutPerProcess && m_nested < maxNested) {
                evicted.emplace(key, figures.reclaimedPages);
                ++m_nested;
            }
        }
    }

    auto file = m_files.find(key);
    if (file == m_files.end() && m_files.size() < maxTracked) {
        file = m_files.emplace(key, FileEntry{}).first;
        file->second.deviceName = event.deviceName;
        // Named through the process that brings its pages in (one that only
        // removes or dirties them may not hold it).
        m_new.files.emplace_back(key, event.kind == EventKind::Added ? event.pid : 0);
    }
    if (file == m_files.end()) {
        add(m_otherFiles, figures);
    } else {
        add(file->second.figures, figures);
        auto &adders = file->second.adders;
        if (figures.addedPages > 0) {
            if (auto found = adders.find(event.pid); found != adders.end()) {
                found->second += figures.addedPages;
            } else if (adders.size() < 64 && m_nested < maxNested) {
                adders.emplace(event.pid, figures.addedPages);
                ++m_nested;
            }
        }
    }
}

Interval Aggregator::interval(size_t limit, double seconds) const
{
    Interval interval;
    interval.seconds = seconds;
    interval.all = m_all;
    interval.lostEvents = m_lost;
    interval.undecoded = m_undecoded;
    Figures shownProcesses;
    for (const int32_t pid : topKeys(m_processes, limit)) {
        const ProcessEntry &entry = m_processes.at(pid);
        ProcessActivity process;
        process.pid = pid;
        process.reclaimThread = m_reclaimThreads.contains(pid);
        // The command its exec gave it, until /proc names it (Namer).
        if (const auto command = m_commands.find(pid); command != m_commands.end()) {
            process.command = command->second;
        }
        process.figures = entry.figures;
        std::vector<std::pair<FileKey, uint64_t>> pushed(entry.evicted.begin(), entry.evicted.end());
        std::sort(pushed.begin(), pushed.end(), [](const auto &a, const auto &b) {
            return a.second > b.second;
        });
        pushed.resize(std::min(pushed.size(), pushedOutShown));
        process.pushedOut = std::move(pushed);
        add(shownProcesses, entry.figures);
        interval.processes.push_back(std::move(process));
    }
    interval.otherProcesses = minus(m_all, shownProcesses);
    Figures shownFiles;
    for (const FileKey &key : topKeys(m_files, limit)) {
        const FileEntry &entry = m_files.at(key);
        FileActivity file;
        file.key = key;
        file.deviceName = entry.deviceName;
        file.figures = entry.figures;
        uint64_t most = 0;
        for (const auto &[pid, pages] : entry.adders) {
            if (pages > most) {
                most = pages;
                file.topAdder = pid;
            }
        }
        add(shownFiles, entry.figures);
        interval.files.push_back(std::move(file));
    }
    interval.otherFiles = minus(m_all, shownFiles);
    sortByTotal(interval.processes);
    sortByTotal(interval.files);
    return interval;
}

void Aggregator::reset()
{
    // Direct reclaim that is under way stays so across intervals.
    m_processes.clear();
    m_files.clear();
    m_largeFolios.clear();
    m_nested = 0;
    m_otherProcesses = {};
    m_otherFiles = {};
    m_all = {};
    m_lost = 0;
    m_undecoded = 0;
}

void addInto(Interval &totals, const Interval &interval, size_t limit)
{
    totals.seconds += interval.seconds;
    add(totals.all, interval.all);
    totals.lostEvents += interval.lostEvents;
    totals.undecoded += interval.undecoded;
    for (const ProcessActivity &process : interval.processes) {
        const auto found = std::find_if(totals.processes.begin(), totals.processes.end(), [&](const ProcessActivity &p) {
            return p.pid == process.pid;
        });
        if (found == totals.processes.end()) {
            totals.processes.push_back(process);
            continue;
        }
        add(found->figures, process.figures);
        // The latest names: the process may have execed meanwhile.
        if (!process.command.empty()) {
            found->command = process.command;
            found->uid = process.uid;
            found->cgroup = process.cgroup;
            found->application = process.application;
        }
        for (const auto &[key, pages] : process.pushedOut) {
            const auto same = std::find_if(found->pushedOut.begin(), found->pushedOut.end(), [&](const auto &entry) {
                return entry.first == key;
            });
            if (same != found->pushedOut.end()) {
                same->second += pages;
            } else {
                found->pushedOut.emplace_back(key, pages);
            }
        }
        std::sort(found->pushedOut.begin(), found->pushedOut.end(), [](const auto &a, const auto &b) {
            return a.second > b.second;
        });
        found->pushedOut.resize(std::min(found->pushedOut.size(), pushedOutShown));
    }
    for (const FileActivity &file : interval.files) {
        const auto found = std::find_if(totals.files.begin(), totals.files.end(), [&](const FileActivity &f) {
            return f.key == file.key;
        });
        if (found == totals.files.end()) {
            totals.files.push_back(file);
            continue;
        }
        add(found->figures, file.figures);
        if (found->path.empty()) {
            found->path = file.path;
        }
    }
    sortByTotal(totals.processes);
    sortByTotal(totals.files);
    // What falls off the lists is others'.
    Figures shown;
    if (totals.processes.size() > limit) {
        totals.processes.resize(limit);
    }
    for (const ProcessActivity &process : totals.processes) {
        add(shown, process.figures);
    }
    totals.otherProcesses = minus(totals.all, shown);
    shown = {};
    if (totals.files.size() > limit) {
        totals.files.resize(limit);
    }
    for (const FileActivity &file : totals.files) {
        add(shown, file.figures);
    }
    totals.otherFiles = minus(totals.all, shown);
}

std::set<int32_t> reclaimThreadPids(const std::string &procRoot)
{
    std::set<int32_t> pids;
    for (const int pid : processIds(procRoot)) {
        std::string folder = procRoot;
        folder.append("/").append(std::to_string(pid));
        const std::optional<std::string> command = firstLine(folder + "/comm");
        if (!command || (command->rfind("kswapd", 0) != 0 && command->rfind("kdamond.", 0) != 0)) {
            continue;
        }
        // Any process may call itself kswapd0 (PR_SET_NAME): only the
        // kernel's threads count (PF_KTHREAD in stat's flags, field 9).
        const std::optional<std::string> stat = readProcFile(folder + "/stat");
        constexpr uint64_t kernelThread = 0x00200000; // PF_KTHREAD
        if (const std::optional<uint64_t> flags = stat ? processStatField(*stat, 9) : std::nullopt; flags && (*flags & kernelThread)) {
            pids.insert(pid);
        }
    }
    return pids;
}

Aggregator::NewEntries Aggregator::takeNewEntries()
{
    NewEntries entries = std::move(m_new);
    m_new = {};
    return entries;
}

Namer::Namer(std::string procRoot)
    : m_procRoot(std::move(procRoot))
{
    char mountNamespace[64] = {};
    const ssize_t length = readlink((m_procRoot + "/self/ns/mnt").c_str(), mountNamespace, sizeof mountNamespace - 1);
    if (length > 0) {
        m_ownMountNamespace.assign(mountNamespace, size_t(length));
    }
}

Namer::ProcessNames Namer::namesOf(int32_t pid) const
{
    ProcessNames names;
    const std::string folder = m_procRoot + "/" + std::to_string(pid);
    if (std::optional<std::string> command = firstLine(folder + "/comm")) {
        names.command = std::move(*command);
    }
    if (const std::optional<std::string> status = readProcFile(folder + "/status")) {
        const size_t line = status->find("\nUid:");
        if (line != std::string::npos) {
            names.uid = std::strtoll(status->c_str() + line + 5, nullptr, 10);
        }
    }
    if (const std::optional<std::string> cgroups = readProcFile(folder + "/cgroup")) {
        forEachLine(*cgroups, [&names](std::string_view line) {
            if (line.substr(0, 3) == "0::") {
                names.cgroup = std::string(line.substr(3));
            }
        });
        const size_t slash = names.cgroup.rfind('/');
        const std::string_view unit = slash == std::string::npos ? std::string_view(names.cgroup) : std::string_view(names.cgroup).substr(slash + 1);
        if (std::optional<std::string> application = Cgroups::desktopFileIdFromUnit(unit)) {
            names.application = std::move(*application);
        }
    }
    return names;
}

void Namer::nameFiles(std::map<int32_t, std::set<FileKey>> wanted)
{
    // A round's budget: a user can hold 65,536 descriptors in each of
    // thousands of processes; what is past it stays unnamed.
    size_t pidsLeft = maxPidsPerRound;
    size_t readsLeft = maxReadsPerRound;
    for (auto &[pid, keys] : wanted) {
        if (pid <= 0 || keys.empty() || pidsLeft == 0 || readsLeft == 0) {
            continue;
        }
        --pidsLeft;
        const std::string folder = m_procRoot + "/" + std::to_string(pid);
        // A path from another mount namespace means something else there (a
        // bind mount of one's own file at /etc/shadow): not given.
        char mountNamespace[64] = {};
        const ssize_t length = readlink((folder + "/ns/mnt").c_str(), mountNamespace, sizeof mountNamespace - 1);
        if (length <= 0 || std::string_view(mountNamespace, size_t(length)) != m_ownMountNamespace) {
            continue;
        }
        const auto take = [&](const FileKey &key, std::string path) {
            if (keys.erase(key) > 0 && m_files.size() < Aggregator::maxTracked) {
                m_files.emplace(key, std::move(path));
            }
        };
        // Mapped files: maps names device, inode and path; nothing asks
        // the file system.
        --readsLeft;
        if (const std::optional<std::string> maps = readProcFile(folder + "/maps")) {
            for (MapsEntry &entry : parseMapsFiles(*maps)) {
                if (!entry.path.empty() && entry.path.front() == '/') {
                    take(FileKey{entry.device, entry.inode}, std::move(entry.path));
                }
            }
        }
        if (keys.empty()) {
            continue;
        }
        // Open files: fdinfo's inode and mount id, the mount's device from
        // the process's mountinfo, the path from the link's text (readlink
        // of a /proc link asks no file system; stat would, and a FUSE
        // daemon could hold the helper there).
        --readsLeft;
        std::map<uint32_t, uint64_t> deviceOfMount;
        if (const std::optional<std::string> mounts = readProcFile(folder + "/mountinfo")) {
            for (const MountInfoEntry &mount : parseMountInfo(*mounts)) {
                deviceOfMount.emplace(mount.id, mount.device);
            }
        }
        DIR *directory = opendir((folder + "/fd").c_str());
        if (!directory) {
            continue;
        }
        while (const dirent *entry = readdir(directory)) {
            if (keys.empty() || readsLeft == 0) {
                break;
            }
            if (entry->d_name[0] == '.') {
                continue;
            }
            --readsLeft;
            const std::optional<std::string> info = readProcFile(folder + "/fdinfo/" + entry->d_name);
            if (!info) {
                continue;
            }
            std::optional<uint64_t> inode;
            std::optional<uint64_t> mountId;
            forEachLine(*info, [&](std::string_view line) {
                const auto number = [&line](std::string_view name) -> std::optional<uint64_t> {
                    if (line.substr(0, name.size()) != name) {
                        return std::nullopt;
                    }
                    const std::string_view text = trimmedText(line.substr(name.size()));
                    uint64_t value = 0;
                    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
                    return error == std::errc() && end == text.data() + text.size() ? std::optional<uint64_t>(value) : std::nullopt;
                };
                if (const std::optional<uint64_t> value = number("ino:")) {
                    inode = value;
                } else if (const std::optional<uint64_t> value = number("mnt_id:")) {
                    mountId = value;
                }
            });
            const auto device = mountId ? deviceOfMount.find(uint32_t(*mountId)) : deviceOfMount.end();
            if (!inode || device == deviceOfMount.end() || !keys.contains(FileKey{device->second, *inode})) {
                continue;
            }
            char target[PATH_MAX];
            const ssize_t size = readlink((folder + "/fd/" + entry->d_name).c_str(), target, sizeof target - 1);
            if (size > 0 && target[0] == '/') {
                take(FileKey{device->second, *inode}, std::string(target, size_t(size)));
            }
        }
        closedir(directory);
    }
}

void Namer::nameNew(const Aggregator::NewEntries &entries)
{
    size_t namesLeft = maxPidsNamedPerRound;
    for (const int32_t pid : entries.pids) {
        if (m_processes.size() < Aggregator::maxTracked && namesLeft > 0) {
            --namesLeft;
            if (ProcessNames names = namesOf(pid); !names.command.empty()) {
                m_processes[pid] = std::move(names);
            }
        }
    }
    std::map<int32_t, std::set<FileKey>> wanted;
    for (const auto &[key, pid] : entries.files) {
        if (pid > 0 && key.device != 0 && !m_files.contains(key)) {
            wanted[pid].insert(key);
        }
    }
    nameFiles(std::move(wanted));
}

void Namer::apply(Interval &interval)
{
    for (ProcessActivity &process : interval.processes) {
        // Named again where it still runs: it may have execed since it was
        // first seen (a forked child's events before its exec came under
        // its parent's command). Ended ones keep the names they had.
        auto found = m_processes.find(process.pid);
        if (ProcessNames now = namesOf(process.pid); !now.command.empty()) {
            found = m_processes.insert_or_assign(process.pid, std::move(now)).first;
        }
        if (found == m_processes.end()) {
            continue; // ended before /proc could name it: task_rename's command, if any
        }
        process.command = found->second.command;
        process.uid = found->second.uid;
        process.cgroup = found->second.cgroup;
        process.application = found->second.application;
    }
    std::map<int32_t, std::set<FileKey>> wanted;
    for (const FileActivity &file : interval.files) {
        if (file.topAdder > 0 && file.key.device != 0 && !m_files.contains(file.key)) {
            wanted[file.topAdder].insert(file.key);
        }
    }
    nameFiles(std::move(wanted));
    for (FileActivity &file : interval.files) {
        if (const auto found = m_files.find(file.key); found != m_files.end()) {
            file.path = found->second;
        }
    }
}

void Namer::forget()
{
    m_processes.clear();
    m_files.clear();
}

} // namespace Cachescope::Activity
