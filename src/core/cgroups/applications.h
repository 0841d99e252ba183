// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "cgroupfs.h"

#include <map>

// Which application's cache is this? On a systemd desktop (cgroup v2) every
// application runs in a cgroup of its own, named after its desktop file:
// app-<desktop-file-id>-<n>.scope or app-<desktop-file-id>@<n>.service under
// user@UID.service/app.slice; system services are under system.slice. These
// functions turn a memory hierarchy into rows of page cache, one per
// application, service or group, and say what the rows cannot name.

namespace Cachescope::Cgroups
{

enum class GroupKind : uint8_t {
    Application, // app-<id>... under app.slice: desktopFileId is known
    UserService, // another unit of a user's service manager
    SystemService, // a unit under system.slice
    Session, // a login session's scope (session-N.scope)
    Other, // what systemd's layout does not name: grouped by its top cgroup
    Cgroup, // a leaf memory cgroup with processes, on a hierarchy without that layout
};

[[nodiscard]] const char *groupKindName(GroupKind kind); // "application", "system-service", ...

// The desktop file id in a systemd unit name of the XDG layout:
// "app-org.kde.dolphin-1234.scope" -> "org.kde.dolphin",
// "app-gnome-org.gnome.Terminal-5678.scope" -> "org.gnome.Terminal" (the
// launcher's name dropped), "app-flatpak-org.x\\x2dy@12.service" -> "org.x-y".
// systemd's \xNN escapes are undone. nullopt for another name.
[[nodiscard]] std::optional<std::string> desktopFileIdFromUnit(std::string_view unit);

// systemd's unit-name escaping undone: "\x2d" -> "-".
[[nodiscard]] std::string unescapeUnitName(std::string_view name);

struct ApplicationCache {
    GroupKind kind = GroupKind::Cgroup;
    std::string name; // unit name, desktop file id or cgroup path: what it is known by
    std::string desktopFileId; // Application only
    std::string cgroupPath; // in the hierarchy, e.g. /user.slice/.../app.slice/app-org.kde.dolphin-1234.scope
    std::string folder; // on disk, for memory.reclaim
    int uid = -1; // the user whose service manager runs it; -1 for none
    MemoryStats stats; // of the cgroup and its descendants
    // From two samples (ApplicationsSampler); unknown from one, or where the
    // kernel has no refault counter.
    std::optional<double> refaultsPerSecond;
};

// Where the page cache that /proc/meminfo counts is, beyond the rows.
struct CacheAccounting {
    uint64_t rowsFile = 0; // the rows' page cache, added up
    // The hierarchy root's page cache with its descendants (v1 total_cache;
    // v2 "file" of the root's memory.stat, where the kernel has one).
    std::optional<uint64_t> hierarchyFile;
    // Pages charged to the root cgroup itself (v1: its own "cache"; v2: the
    // root's figure minus its children's).
    std::optional<uint64_t> rootOwnFile;
    // /proc/meminfo: Cached (page cache without swap cache, tmpfs and shared
    // memory included), Shmem (tmpfs and shared memory), Buffers (block
    // devices' cache, which cgroups count as file pages and Cached does not).
    std::optional<uint64_t> meminfoCached;
    std::optional<uint64_t> meminfoShmem;
    std::optional<uint64_t> meminfoBuffers;
    // v2 cgroup.stat nr_dying_descendants of the root: removed cgroups whose
    // pages are still charged to them. v1 does not count them.
    std::optional<uint64_t> dyingCgroups;

    // Cached minus the rows; nullopt without meminfo.
    [[nodiscard]] std::optional<int64_t> elsewhere() const;
};

struct ApplicationsReport {
    bool found = false; // a memory hierarchy was found and read
    Version version = Version::V2;
    std::string hierarchyFolder; // the folder of the hierarchy's (visible) root
    // Whether the rows are named after applications (a systemd layout).
    bool applicationsNamed = false;
    // When !found: why there is nothing; when found but !applicationsNamed:
    // why applications cannot be named. English, for the CLI and logs.
    std::string reason;
    std::vector<ApplicationCache> rows; // most page cache first
    CacheAccounting accounting;
    std::vector<std::string> problems; // cgroups that could not be read, each naming its path
};

// Reads the hierarchy whose root folder is `folder`. Rows: the systemd
// layout where it is there (on v1 too); otherwise the leaf cgroups that have
// processes. Without refault rates (see ApplicationsSampler). At most
// maxCgroups folders are visited, 32 levels deep.
[[nodiscard]] ApplicationsReport scanApplications(const std::string &folder, Version version, size_t maxCgroups = 20000);

// The first memory hierarchy of <procRoot>/self/mountinfo (v2 before v1),
// scanned, with /proc/meminfo's figures in accounting. Not found, with the
// reason, when there is none.
[[nodiscard]] ApplicationsReport readApplications(const std::string &procRoot = "/proc");

// The text the CLI prints under its total row: where Cached's pages are that
// no row has. English.
[[nodiscard]] std::string chargedElsewhereText(const CacheAccounting &accounting);

// Reads reports and adds refaults per second from the previous one.
class ApplicationsSampler
{
public:
    // An empty hierarchyFolder: the one <procRoot>/self/mountinfo names.
    explicit ApplicationsSampler(std::string procRoot = "/proc", std::string hierarchyFolder = {}, std::optional<Version> version = std::nullopt);

    // seconds: on a monotonic clock. Rates from the second call on.
    [[nodiscard]] ApplicationsReport sample(double seconds);
    // Forgets the previous sample (after a pause, rates would average over it).
    void reset();

private:
    std::string m_procRoot;
    std::string m_hierarchyFolder;
    std::optional<Version> m_version;
    std::map<std::string, uint64_t> m_previousRefaults; // cgroup path -> count
    double m_previousSeconds = 0;
    bool m_hasPrevious = false;
};

} // namespace Cachescope::Cgroups
