// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Who fills the page cache right now: the kernel's page-cache events of the
// whole system (pages added, removed and dirtied, and direct reclaim),
// decoded from tracefs's binary buffers (rawtrace.h) and added up per
// process and per file over an interval. Only aggregates leave this code,
// never events. Used by the helper (and root acting in-process) to measure,
// and by the CLI and the window to show.

#include "activity/rawtrace.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace Cachescope::Activity
{

// The events read, as "<system>/<event>": the first two are needed
// (without page additions and removals nothing is measured), dirtied pages
// come third, the reclaim pairs (direct reclaim of a process short of
// memory, and reclaim in a memory cgroup at its limit) tell reclaim from
// other removals, and task_rename gives a process its command at its exec,
// so that one that has ended before /proc could be read is still named.
[[nodiscard]] const std::vector<std::string> &eventNames();

// The formats of eventNames(), as the running kernel describes them; an
// event the kernel lacks has no format.
struct Formats {
    std::optional<RawTrace::EventFormat> added;
    std::optional<RawTrace::EventFormat> removed;
    std::optional<RawTrace::EventFormat> dirtied;
    std::optional<RawTrace::EventFormat> reclaimBegin;
    std::optional<RawTrace::EventFormat> reclaimEnd;
    std::optional<RawTrace::EventFormat> cgroupReclaimBegin;
    std::optional<RawTrace::EventFormat> cgroupReclaimEnd;
    std::optional<RawTrace::EventFormat> renamed;
    // In eventNames() order.
    [[nodiscard]] std::vector<std::optional<RawTrace::EventFormat> *> all()
    {
        return {&added, &removed, &dirtied, &reclaimBegin, &reclaimEnd, &cgroupReclaimBegin, &cgroupReclaimEnd, &renamed};
    }
};

enum class EventKind {
    Added,
    Removed,
    Dirtied,
    ReclaimBegin,
    ReclaimEnd,
    Renamed, // task_rename: an exec (or PR_SET_NAME) gave pid the command in deviceName
};

// One decoded event. device is the user-space dev_t (makedev) of the
// file's file system; for a dirtied page the kernel names the backing
// device's "MAJ:MIN" instead, which is the same for a file system on one
// block device and unknown (0, deviceName kept) for others (btrfs, NFS).
struct Event {
    EventKind kind = EventKind::Added;
    uint64_t timestamp = 0;
    int32_t pid = 0;
    uint64_t device = 0;
    uint64_t inode = 0;
    uint64_t index = 0; // the first page's index in the file
    uint64_t pages = 0;
    std::string deviceName;
};

// The event a record holds, or nothing (an event of another kind, or one
// that does not fit its format).
[[nodiscard]] std::optional<Event> decode(const RawTrace::Record &record, const Formats &formats);

struct FileKey {
    uint64_t device = 0;
    uint64_t inode = 0;
    auto operator<=>(const FileKey &) const = default;
};

// Pages removed from the cache are evicted: by reclaim (kswapd or kdamond, or a
// process in direct reclaim) or dropped otherwise (truncation,
// invalidation, drop_caches, fadvise).
struct Figures {
    uint64_t addedPages = 0; // brought into the cache
    uint64_t reclaimedPages = 0;
    uint64_t droppedPages = 0;
    uint64_t dirtiedPages = 0;
    [[nodiscard]] uint64_t evictedPages() const
    {
        return reclaimedPages + droppedPages;
    }
    [[nodiscard]] uint64_t total() const
    {
        return addedPages + evictedPages() + dirtiedPages;
    }
};

// A process's figures: pages added and dirtied in its context, and pages
// removed in its context (reclaimed when it was reclaiming: kswapd or kdamond, or a
// process in direct reclaim; dropped otherwise). pushedOut: the files whose
// pages it reclaimed, the most first.
struct ProcessActivity {
    int32_t pid = 0;
    std::string command;
    int64_t uid = -1; // -1: the process ended before it could be named
    std::string cgroup;
    std::string application; // desktop file id where the cgroup names one
    bool reclaimThread = false; // kswapd or kdamond: one of the kernel's reclaim threads
    Figures figures;
    std::vector<std::pair<FileKey, uint64_t>> pushedOut;
};

struct FileActivity {
    FileKey key;
    std::string deviceName; // when device is 0: the backing device's name
    std::string path; // empty where the helper could not name it
    Figures figures;
    int32_t topAdder = 0; // the process that brought most of its pages in
};

// One interval's (or a run's) activity: the most active processes and
// files, each list at most the limit given when it was made, sorted by
// total; the rest added up in others.
struct Interval {
    double seconds = 0; // how long it covers
    std::vector<ProcessActivity> processes;
    std::vector<FileActivity> files;
    Figures otherProcesses;
    Figures otherFiles;
    Figures all;
    uint64_t lostEvents = 0; // the kernel's ring buffer lost these: figures are low by them
    uint64_t undecoded = 0; // records of none of the events (never expected)
};

// Adds events up. Removals are evictions when the removing task is a reclaim
// thread or between its own direct-reclaim begin and end events. A dirtied
// folio counts the pages of the folio added at its index this interval, one
// page otherwise (the event does not give its size). Bounded:
// at most maxTracked processes and files each; past that, new ones are
// counted as others.
class Aggregator
{
public:
    static constexpr size_t maxTracked = 65536;
    // The entries below processes and files (files a process pushed out,
    // processes that brought a file in), all together, an interval.
    static constexpr size_t maxNested = 262144;
    // Commands from task_rename kept for processes not yet seen otherwise
    // (an exec comes before the reads): forgotten past this many.
    static constexpr size_t maxCommands = 65536;
    explicit Aggregator(std::set<int32_t> reclaimThreads = {});
    void take(const Event &event);
    void addLost(uint64_t lost)
    {
        m_lost += lost;
        if (lost > 0) {
            // A reclaim's end may be among them: no task is taken to be
            // reclaiming any more.
            m_inDirectReclaim.clear();
        }
    }
    void addUndecoded(uint64_t count)
    {
        m_undecoded += count;
    }
    // The figures so far, the top `limit` processes and files by total (and
    // also by each single figure, so that a top list sorted by any column
    // is right); the aggregator starts again when reset.
    [[nodiscard]] Interval interval(size_t limit, double seconds) const;
    void reset();
    // The processes and files first seen since the last call (a file with
    // the process that brought its first pages in), so that they are named
    // while they are there: a short-lived reader has ended by the
    // interval's end.
    struct NewEntries {
        std::vector<int32_t> pids;
        std::vector<std::pair<FileKey, int32_t>> files;
    };
    [[nodiscard]] NewEntries takeNewEntries();

private:
    struct ProcessEntry {
        Figures figures;
        std::map<FileKey, uint64_t> evicted;
    };
    struct FileEntry {
        Figures figures;
        std::string deviceName;
        std::map<int32_t, uint64_t> adders;
    };
    std::set<int32_t> m_reclaimThreads;
    std::set<int32_t> m_inDirectReclaim;
    // The size of large folios added this interval, by file and first
    // index: a dirtied folio's event names only its index, and most pages
    // are dirtied right after they are added (a write to a new file).
    std::map<std::pair<FileKey, uint64_t>, uint64_t> m_largeFolios;
    NewEntries m_new;
    size_t m_nested = 0;
    std::map<int32_t, std::string> m_commands; // task_rename's, by pid
    std::map<int32_t, ProcessEntry> m_processes;
    std::map<FileKey, FileEntry> m_files;
    Figures m_otherProcesses;
    Figures m_otherFiles;
    Figures m_all;
    uint64_t m_lost = 0;
    uint64_t m_undecoded = 0;
};

// Adds one interval into a run's totals (the same processes and files
// merged by pid and by key), keeping at most limit of each.
void addInto(Interval &totals, const Interval &interval, size_t limit);

// The pids of the kernel's reclaim threads, from a /proc: kswapdN (reclaim
// when memory runs low) and kdamond.N (DAMON's proactive reclaim, which
// pages idle pages out), kernel threads only (PF_KTHREAD).
[[nodiscard]] std::set<int32_t> reclaimThreadPids(const std::string &procRoot);

// Names processes from a /proc (command, uid, cgroup, application) and
// files where a process that added their pages holds them open or mapped
// (its maps, and its fdinfo's inode and mount matched by device and inode,
// the path from the fd link's text: nothing asks the file system), as soon
// as they are first seen, and gives the names to the intervals; what cannot
// be named stays unnamed, and so does a path of another mount namespace.
// Bounded: at most Aggregator::maxTracked of each, forgotten at forget(),
// and each round of naming by the budgets below.
class Namer
{
public:
    explicit Namer(std::string procRoot);
    void nameNew(const Aggregator::NewEntries &entries);
    // Names what the interval has and was not named yet, then gives names.
    void apply(Interval &interval);
    void forget();

private:
    struct ProcessNames {
        std::string command;
        int64_t uid = -1;
        std::string cgroup;
        std::string application;
    };
    // A round of naming looks at most at this many processes' files, reads
    // at most this many /proc files for them, and names at most this many
    // new processes: a few tens of milliseconds, whatever a user holds open.
    static constexpr size_t maxPidsPerRound = 64;
    static constexpr size_t maxReadsPerRound = 8192;
    static constexpr size_t maxPidsNamedPerRound = 2048;
    [[nodiscard]] ProcessNames namesOf(int32_t pid) const;
    // Names the wanted files of each process from its maps and fdinfo, in
    // this helper's mount namespace only.
    void nameFiles(std::map<int32_t, std::set<FileKey>> wanted);
    std::string m_procRoot;
    std::string m_ownMountNamespace; // "mnt:[4026531841]"
    std::map<int32_t, ProcessNames> m_processes;
    std::map<FileKey, std::string> m_files;
};

} // namespace Cachescope::Activity
