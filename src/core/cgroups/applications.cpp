// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "applications.h"

#include "format.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>

namespace Cachescope::Cgroups
{

namespace
{

constexpr int maxDepth = 32;

std::string childFolder(const std::string &folder, const std::string &name)
{
    return folder.empty() || folder.back() != '/' ? folder + '/' + name : folder + name;
}

std::string childPath(const std::string &path, const std::string &name)
{
    return path == "/" ? '/' + name : path + '/' + name;
}

bool endsWith(std::string_view text, std::string_view suffix)
{
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

// The child cgroups of a folder (its subfolders), sorted; problems name the
// folder when it cannot be listed.
std::vector<std::string> childCgroups(const std::string &folder, std::vector<std::string> &problems)
{
    std::vector<std::string> names;
    DIR *directory = opendir(folder.c_str());
    if (!directory) {
        problems.push_back(folder + ": " + errnoText(errno));
        return names;
    }
    while (const dirent *entry = readdir(directory)) {
        const std::string_view name = entry->d_name;
        if (name == "." || name == "..") {
            continue;
        }
        bool isFolder = entry->d_type == DT_DIR;
        if (entry->d_type == DT_UNKNOWN) {
            struct stat info{};
            isFolder = lstat(childFolder(folder, std::string(name)).c_str(), &info) == 0 && S_ISDIR(info.st_mode);
        }
        if (isFolder) {
            names.emplace_back(name);
        }
    }
    closedir(directory);
    std::sort(names.begin(), names.end());
    return names;
}

bool hasProcesses(const std::string &folder)
{
    const std::optional<std::string> procs = readProcFile(childFolder(folder, "cgroup.procs"));
    return procs && procs->find_first_of("0123456789") != std::string::npos;
}

// "user-1000.slice" -> 1000
int uidOfSlice(std::string_view name)
{
    if (!startsWith(name, "user-") || !endsWith(name, ".slice")) {
        return -1;
    }
    const std::string_view digits = name.substr(5, name.size() - 5 - 6);
    int uid = -1;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), uid);
    return error == std::errc() && end == digits.data() + digits.size() && !digits.empty() ? uid : -1;
}

class Scanner
{
public:
    Scanner(ApplicationsReport &report, size_t maxCgroups)
        : m_report(report)
        , m_budget(maxCgroups)
    {
    }

    // One row for the cgroup at folder (its descendants included).
    void addRow(GroupKind kind, const std::string &folder, const std::string &path, const std::string &name, int uid = -1)
    {
        if (!spend()) {
            return;
        }
        std::string error;
        std::optional<MemoryStats> stats = readMemoryStats(folder, m_report.version, &error);
        if (!stats) {
            m_report.problems.push_back(error);
            return;
        }
        for (std::string &problem : stats->problems) {
            m_report.problems.push_back(std::move(problem));
        }
        stats->problems.clear();
        ApplicationCache row;
        row.kind = kind;
        row.cgroupPath = path;
        row.folder = folder;
        row.uid = uid;
        if (kind == GroupKind::Application) {
            row.desktopFileId = desktopFileIdFromUnit(name).value_or(std::string());
        }
        row.name = kind == GroupKind::Cgroup ? path : unescapeUnitName(name);
        row.stats = std::move(*stats);
        m_report.rows.push_back(std::move(row));
    }

    // systemd's layout: the units under system.slice, each user's
    // applications and services, login sessions, and the rest by top cgroup.
    void scanSystemdLayout(const std::string &root)
    {
        for (const std::string &top : childCgroups(root, m_report.problems)) {
            const std::string topFolder = childFolder(root, top);
            const std::string topPath = childPath("/", top);
            if (top == "system.slice") {
                for (const std::string &unit : childCgroups(topFolder, m_report.problems)) {
                    addRow(GroupKind::SystemService, childFolder(topFolder, unit), childPath(topPath, unit), unit);
                }
            } else if (top == "user.slice") {
                scanUsers(topFolder, topPath);
            } else {
                addRow(GroupKind::Other, topFolder, topPath, top);
            }
        }
    }

    // Leaf cgroups with processes: what a hierarchy without systemd's names has.
    void scanLeaves(const std::string &folder, const std::string &path, int depth)
    {
        if (depth > maxDepth) {
            return;
        }
        const std::vector<std::string> children = childCgroups(folder, m_report.problems);
        if (children.empty()) {
            if (depth > 0 && hasProcesses(folder)) {
                addRow(GroupKind::Cgroup, folder, path, path);
            }
            return;
        }
        if (!spend()) {
            return;
        }
        for (const std::string &child : children) {
            scanLeaves(childFolder(folder, child), childPath(path, child), depth + 1);
        }
    }

private:
    bool spend()
    {
        if (m_budget == 0) {
            if (!m_budgetSpent) {
                m_budgetSpent = true;
                m_report.problems.push_back(m_report.hierarchyFolder + ": more cgroups than Cachescope reads at once; the rest is left out");
            }
            return false;
        }
        --m_budget;
        return true;
    }

    void scanUsers(const std::string &folder, const std::string &path)
    {
        for (const std::string &userSlice : childCgroups(folder, m_report.problems)) {
            const std::string userFolder = childFolder(folder, userSlice);
            const std::string userPath = childPath(path, userSlice);
            const int uid = uidOfSlice(userSlice);
            if (uid < 0) {
                addRow(GroupKind::Other, userFolder, userPath, userSlice);
                continue;
            }
            const std::string manager = "user@" + std::to_string(uid) + ".service";
            for (const std::string &unit : childCgroups(userFolder, m_report.problems)) {
                if (unit == manager) {
                    scanUserManager(childFolder(userFolder, unit), childPath(userPath, unit), uid);
                } else {
                    const bool session = startsWith(unit, "session-") && endsWith(unit, ".scope");
                    addRow(session ? GroupKind::Session : GroupKind::Other, childFolder(userFolder, unit), childPath(userPath, unit), unit, uid);
                }
            }
        }
    }

    // user@UID.service: app.slice (applications), session.slice,
    // background.slice (the desktop's own services), init.scope (the manager).
    void scanUserManager(const std::string &folder, const std::string &path, int uid)
    {
        for (const std::string &slice : childCgroups(folder, m_report.problems)) {
            const std::string sliceFolder = childFolder(folder, slice);
            const std::string slicePath = childPath(path, slice);
            if (!endsWith(slice, ".slice")) {
                // init.scope: the service manager itself, known by its unit.
                addRow(GroupKind::UserService, sliceFolder, slicePath, slice == "init.scope" ? "user@" + std::to_string(uid) + ".service" : slice, uid);
                continue;
            }
            for (const std::string &unit : childCgroups(sliceFolder, m_report.problems)) {
                const bool application = slice == "app.slice" && desktopFileIdFromUnit(unit).has_value();
                addRow(application ? GroupKind::Application : GroupKind::UserService, childFolder(sliceFolder, unit), childPath(slicePath, unit), unit, uid);
            }
        }
    }

    ApplicationsReport &m_report;
    size_t m_budget;
    bool m_budgetSpent = false;
};

bool hasSystemdLayout(const std::string &root)
{
    struct stat info{};
    for (const char *name : {"system.slice", "user.slice", "init.scope"}) {
        if (stat(childFolder(root, name).c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
            return true;
        }
    }
    return false;
}

void accountRoot(ApplicationsReport &report)
{
    CacheAccounting &accounting = report.accounting;
    accounting.rowsFile = 0;
    for (const ApplicationCache &row : report.rows) {
        accounting.rowsFile += row.stats.file.value_or(0);
    }
    std::string ignored;
    const std::optional<MemoryStats> root = readMemoryStats(report.hierarchyFolder, report.version, &ignored);
    if (!root) {
        return; // v2 roots had no memory.stat before Linux 6.? : unknown, not 0
    }
    accounting.hierarchyFile = root->file;
    if (report.version == Version::V1) {
        accounting.rootOwnFile = root->ownFile;
    } else {
        uint64_t children = 0;
        std::vector<std::string> problems;
        for (const std::string &child : childCgroups(report.hierarchyFolder, problems)) {
            if (const auto stats = readMemoryStats(childFolder(report.hierarchyFolder, child), report.version)) {
                children += stats->file.value_or(0);
            }
        }
        if (root->file && *root->file >= children) {
            accounting.rootOwnFile = *root->file - children;
        }
        if (const std::optional<std::string> cgroupStat = readProcFile(childFolder(report.hierarchyFolder, "cgroup.stat"))) {
            MemoryStats parsed;
            parseMemoryStat(*cgroupStat, parsed);
            accounting.dyingCgroups = parsed.stat.find("nr_dying_descendants");
        }
    }
}

void addMemInfo(ApplicationsReport &report, const std::string &procRoot)
{
    std::string error;
    const std::optional<MemInfo> memInfo = readMemInfo(procRoot, &error);
    if (!memInfo) {
        report.problems.push_back(error);
        return;
    }
    report.accounting.meminfoCached = memInfo->find("Cached");
    report.accounting.meminfoShmem = memInfo->find("Shmem");
    report.accounting.meminfoBuffers = memInfo->find("Buffers");
}

} // namespace

const char *groupKindName(GroupKind kind)
{
    switch (kind) {
    case GroupKind::Application:
        return "application";
    case GroupKind::UserService:
        return "user-service";
    case GroupKind::SystemService:
        return "system-service";
    case GroupKind::Session:
        return "session";
    case GroupKind::Other:
        return "other";
    case GroupKind::Cgroup:
        return "cgroup";
    }
    return "cgroup";
}

std::string unescapeUnitName(std::string_view name)
{
    std::string text;
    text.reserve(name.size());
    const auto hexValue = [](char c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    };
    for (size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '\\' && i + 3 < name.size() && name[i + 1] == 'x' && hexValue(name[i + 2]) >= 0 && hexValue(name[i + 3]) >= 0) {
            text.push_back(char(hexValue(name[i + 2]) * 16 + hexValue(name[i + 3])));
            i += 3;
        } else {
            text.push_back(name[i]);
        }
    }
    return text;
}

std::optional<std::string> desktopFileIdFromUnit(std::string_view unit)
{
    // app[-<launcher>]-<ApplicationID>[@<RANDOM>].service
    // app[-<launcher>]-<ApplicationID>-<RANDOM>.scope
    // (systemd.special(7) and the XDG desktop/systemd integration.) The id is
    // escaped, so an unescaped '-' only separates the launcher and the
    // random part.
    if (!startsWith(unit, "app-")) {
        return std::nullopt;
    }
    std::string_view rest = unit.substr(4);
    if (endsWith(rest, ".scope")) {
        rest.remove_suffix(6);
        const size_t dash = rest.rfind('-');
        if (dash == std::string_view::npos || dash == 0) {
            return std::nullopt;
        }
        rest = rest.substr(0, dash);
    } else if (endsWith(rest, ".service")) {
        rest.remove_suffix(8);
        const size_t at = rest.find('@');
        if (at != std::string_view::npos) {
            rest = rest.substr(0, at);
        }
    } else {
        return std::nullopt;
    }
    const size_t launcher = rest.rfind('-');
    if (launcher != std::string_view::npos) {
        rest = rest.substr(launcher + 1);
    }
    if (rest.empty()) {
        return std::nullopt;
    }
    return unescapeUnitName(rest);
}

std::optional<int64_t> CacheAccounting::elsewhere() const
{
    if (!meminfoCached) {
        return std::nullopt;
    }
    return int64_t(*meminfoCached) - int64_t(rowsFile);
}

ApplicationsReport scanApplications(const std::string &folder, Version version, size_t maxCgroups)
{
    ApplicationsReport report;
    report.version = version;
    report.hierarchyFolder = folder;
    struct stat info{};
    if (stat(folder.c_str(), &info) != 0) {
        report.reason = folder + ": " + errnoText(errno);
        return report;
    }
    if (!S_ISDIR(info.st_mode)) {
        report.reason = folder + ": not a folder";
        return report;
    }
    report.found = true;
    Scanner scanner(report, maxCgroups);
    if (hasSystemdLayout(folder)) {
        report.applicationsNamed = true;
        scanner.scanSystemdLayout(folder);
    } else {
        scanner.scanLeaves(folder, "/", 0);
        report.reason = version == Version::V1
            ? "The memory controller is cgroup v1 here (" + folder
                + "), where systemd does not put each application into a memory cgroup of its own: applications cannot be named, so the leaf "
                  "cgroups that have processes are listed instead."
            : "This cgroup v2 hierarchy (" + folder
                + ") has no systemd layout (no system.slice, user.slice or init.scope): applications cannot be named, so the leaf cgroups "
                  "that have processes are listed instead.";
    }
    std::stable_sort(report.rows.begin(), report.rows.end(), [](const ApplicationCache &a, const ApplicationCache &b) {
        return a.stats.file.value_or(0) > b.stats.file.value_or(0);
    });
    accountRoot(report);
    return report;
}

ApplicationsReport readApplications(const std::string &procRoot)
{
    std::string error;
    std::vector<Hierarchy> hierarchies = memoryHierarchies(procRoot, &error);
    if (hierarchies.empty()) {
        ApplicationsReport report;
        report.reason = error;
        addMemInfo(report, procRoot);
        return report;
    }
    std::stable_partition(hierarchies.begin(), hierarchies.end(), [](const Hierarchy &hierarchy) {
        return hierarchy.version == Version::V2;
    });
    ApplicationsReport report = scanApplications(hierarchies.front().mountPoint, hierarchies.front().version);
    addMemInfo(report, procRoot);
    return report;
}

std::string chargedElsewhereText(const CacheAccounting &a)
{
    if (!a.meminfoCached) {
        return "/proc/meminfo could not be read: nothing to compare the rows with.";
    }
    const auto size = [](uint64_t bytes) {
        return formatBytes(bytes).toStdString();
    };
    std::string text = "/proc/meminfo counts " + size(*a.meminfoCached) + " Cached; the rows hold " + size(a.rowsFile) + ". ";
    const int64_t elsewhere = a.elsewhere().value_or(0); // known once meminfoCached is (checked above)
    if (elsewhere >= 0) {
        text += size(uint64_t(elsewhere)) + " are charged elsewhere: ";
    } else {
        text += "The rows hold " + size(uint64_t(-elsewhere)) + " more: ";
    }
    std::vector<std::string> parts;
    if (a.rootOwnFile) {
        parts.push_back(size(*a.rootOwnFile) + " to the root cgroup itself (kernel threads, processes in no cgroup below it)");
    } else {
        parts.push_back("pages charged to the root cgroup itself (unknown here)");
    }
    if (a.hierarchyFile && a.rootOwnFile && *a.hierarchyFile >= a.rowsFile + *a.rootOwnFile + 1) {
        parts.push_back(size(*a.hierarchyFile - a.rowsFile - *a.rootOwnFile) + " to cgroups that are no rows (parents' own pages, cgroups that are gone)");
    }
    if (a.dyingCgroups) {
        parts.push_back(std::to_string(*a.dyingCgroups) + " removed cgroups still hold pages charged to them");
    } else {
        parts.push_back("pages of removed cgroups (not counted by this kernel's interface)");
    }
    if (a.meminfoShmem) {
        parts.push_back("Cached includes " + size(*a.meminfoShmem) + " of shmem and tmpfs, charged to whoever first touched them");
    }
    if (a.meminfoBuffers) {
        parts.push_back("the cgroups count block devices' cache (Buffers: " + size(*a.meminfoBuffers) + "), which Cached does not");
    }
    for (size_t i = 0; i < parts.size(); ++i) {
        text += (i ? "; " : "") + parts[i];
    }
    return text + '.';
}

ApplicationsSampler::ApplicationsSampler(std::string procRoot, std::string hierarchyFolder, std::optional<Version> version)
    : m_procRoot(std::move(procRoot))
    , m_hierarchyFolder(std::move(hierarchyFolder))
    , m_version(version)
{
}

ApplicationsReport ApplicationsSampler::sample(double seconds)
{
    ApplicationsReport report;
    if (m_hierarchyFolder.empty()) {
        report = readApplications(m_procRoot);
    } else {
        report = scanApplications(m_hierarchyFolder, m_version.value_or(detectVersion(m_hierarchyFolder).value_or(Version::V2)));
        addMemInfo(report, m_procRoot);
    }
    const double elapsed = seconds - m_previousSeconds;
    std::map<std::string, uint64_t> refaults;
    for (ApplicationCache &row : report.rows) {
        if (!row.stats.refaults) {
            continue;
        }
        refaults[row.cgroupPath] = *row.stats.refaults;
        const auto previous = m_previousRefaults.find(row.cgroupPath);
        if (m_hasPrevious && elapsed > 0 && previous != m_previousRefaults.end()) {
            // A counter that went back is a new cgroup under an old name.
            row.refaultsPerSecond = *row.stats.refaults >= previous->second ? double(*row.stats.refaults - previous->second) / elapsed : 0.0;
        }
    }
    m_previousRefaults = std::move(refaults);
    m_previousSeconds = seconds;
    m_hasPrevious = true;
    return report;
}

void ApplicationsSampler::reset()
{
    m_previousRefaults.clear();
    m_hasPrevious = false;
}

} // namespace Cachescope::Cgroups
