// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "account.h"

#include "cachemap.h"
#include "mountaliases.h"
#include "residency.h"
#include "uniquefd.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <map>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif

namespace Cachescope
{

const char *accountKindName(AccountKind kind)
{
    switch (kind) {
    case AccountKind::Files:
        return "files";
    case AccountKind::Tmpfs:
        return "tmpfs";
    case AccountKind::SysvShm:
        return "sysv-shm";
    case AccountKind::Memfd:
        return "memfd";
    case AccountKind::SharedAnonymous:
        return "shared-anonymous";
    case AccountKind::DeletedFile:
        return "deleted";
    case AccountKind::OtherNamespace:
        return "namespace";
    case AccountKind::CoveredFolder:
        return "covered";
    }
    return "?";
}

bool accountKindEvictable(AccountKind kind)
{
    switch (kind) {
    case AccountKind::Tmpfs:
    case AccountKind::SysvShm:
    case AccountKind::Memfd:
    case AccountKind::SharedAnonymous:
        return false;
    default:
        return true;
    }
}

bool AccountPart::evictable() const
{
    return accountKindEvictable(kind) && fileSystem != "tmpfs" && fileSystem != "ramfs";
}

uint64_t CacheAccount::partsBytes() const
{
    uint64_t sum = 0;
    for (const AccountPart &part : parts) {
        sum += part.hidden ? 0 : part.bytes;
    }
    return sum;
}

uint64_t CacheAccount::bytesOf(AccountKind kind) const
{
    uint64_t sum = 0;
    for (const AccountPart &part : parts) {
        sum += part.kind == kind && !part.hidden ? part.bytes : 0;
    }
    return sum;
}

AccountGroup accountGroupOf(AccountKind kind)
{
    switch (kind) {
    case AccountKind::Files:
        return AccountGroup::FilesByPath;
    case AccountKind::Tmpfs:
    case AccountKind::SysvShm:
    case AccountKind::Memfd:
    case AccountKind::SharedAnonymous:
        return AccountGroup::SharedMemory;
    case AccountKind::DeletedFile:
        return AccountGroup::DeletedFiles;
    case AccountKind::OtherNamespace:
        return AccountGroup::OtherNamespaces;
    case AccountKind::CoveredFolder:
        return AccountGroup::CoveredFolders;
    }
    return AccountGroup::FilesByPath;
}

std::vector<AccountGroupTotal> accountGroups(const CacheAccount &account)
{
    std::vector<AccountGroupTotal> groups;
    for (const AccountGroup group :
         {AccountGroup::FilesByPath, AccountGroup::SharedMemory, AccountGroup::DeletedFiles, AccountGroup::OtherNamespaces, AccountGroup::CoveredFolders}) {
        AccountGroupTotal total{group, 0, 0};
        for (const AccountPart &part : account.parts) {
            if (!part.hidden && part.bytes > 0 && accountGroupOf(part.kind) == group) {
                total.bytes += part.bytes;
                ++total.parts;
            }
        }
        if (total.parts > 0) {
            groups.push_back(total);
        }
    }
    return groups;
}

namespace
{

template<typename Number>
bool numberOf(std::string_view text, Number &value, int base = 10)
{
    if (text.empty()) {
        return false;
    }
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    return error == std::errc() && end == text.data() + text.size();
}

constexpr std::string_view deletedSuffix = " (deleted)";

} // namespace

std::vector<SysvShmSegment> parseSysvShm(std::string_view text)
{
    // The header names the columns; their order has changed over the years
    // (rss and swap came in 2.6.x), so they are found by name.
    std::vector<SysvShmSegment> segments;
    std::map<std::string_view, size_t> column;
    bool header = true;
    forEachLine(text, [&](std::string_view line) {
        const std::vector<std::string_view> fields = splitFields(line);
        if (fields.empty()) {
            return;
        }
        if (header) {
            for (size_t i = 0; i < fields.size(); ++i) {
                column[fields[i]] = i;
            }
            header = false;
            return;
        }
        const auto field = [&](std::string_view name) -> std::string_view {
            const auto it = column.find(name);
            return it != column.end() && it->second < fields.size() ? fields[it->second] : std::string_view();
        };
        SysvShmSegment segment;
        int64_t key = 0; // printed as a signed int
        if (!numberOf(field("key"), key) || !numberOf(field("shmid"), segment.id) || !numberOf(field("size"), segment.size)) {
            return;
        }
        segment.key = uint32_t(key);
        (void)numberOf(field("rss"), segment.rss);
        (void)numberOf(field("swap"), segment.swap);
        (void)numberOf(field("cpid"), segment.creatorPid);
        (void)numberOf(field("lpid"), segment.lastPid);
        (void)numberOf(field("nattch"), segment.attached);
        (void)numberOf(field("uid"), segment.uid);
        segments.push_back(segment);
    });
    return segments;
}

std::vector<MapsEntry> parseMapsFiles(std::string_view text)
{
    std::vector<MapsEntry> entries;
    forEachLine(text, [&](std::string_view line) {
        // start-end perms offset major:minor inode [path]; the path is the
        // rest of the line after the inode's padding (it may hold spaces).
        size_t position = 0;
        std::string_view fields[5];
        for (std::string_view &field : fields) {
            while (position < line.size() && line[position] == ' ') {
                ++position;
            }
            const size_t start = position;
            while (position < line.size() && line[position] != ' ') {
                ++position;
            }
            field = line.substr(start, position - start);
        }
        while (position < line.size() && line[position] == ' ') {
            ++position;
        }
        MapsEntry entry;
        const size_t dash = fields[0].find('-');
        const size_t colon = fields[3].find(':');
        uint32_t major = 0;
        uint32_t minor = 0;
        if (dash == std::string_view::npos || colon == std::string_view::npos || !numberOf(fields[0].substr(0, dash), entry.start, 16)
            || !numberOf(fields[0].substr(dash + 1), entry.end, 16) || !numberOf(fields[3].substr(0, colon), major, 16)
            || !numberOf(fields[3].substr(colon + 1), minor, 16) || !numberOf(fields[4], entry.inode) || entry.inode == 0 || position >= line.size()) {
            return;
        }
        entry.shared = fields[1].size() >= 4 && fields[1][3] == 's';
        entry.device = makedev(major, minor);
        entry.path = std::string(line.substr(position));
        entries.push_back(std::move(entry));
    });
    return entries;
}

std::string flatpakApplication(std::string_view flatpakInfo)
{
    bool inApplication = false;
    std::string name;
    forEachLine(flatpakInfo, [&](std::string_view line) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) {
            line.remove_suffix(1);
        }
        if (line.starts_with('[')) {
            inApplication = line == "[Application]";
        } else if (inApplication && name.empty() && line.starts_with("name=")) {
            name = std::string(line.substr(5));
        }
    });
    return name;
}

std::optional<UnreachableName> unreachableName(std::string_view path)
{
    if (!path.ends_with(deletedSuffix)) {
        // A memfd's name ends in " (deleted)" on every kernel that has memfds.
        return std::nullopt;
    }
    const std::string_view name = path.substr(0, path.size() - deletedSuffix.size());
    if (name.starts_with("/memfd:")) {
        return UnreachableName{UnreachableName::Kind::Memfd, std::string(name.substr(7))};
    }
    if (name == "/dev/zero") {
        return UnreachableName{UnreachableName::Kind::SharedAnonymous, std::string(name)};
    }
    if (name.starts_with("/SYSV") && name.size() == 13) {
        return UnreachableName{UnreachableName::Kind::SysvShm, std::string(name)};
    }
    if (!name.starts_with('/')) {
        return std::nullopt;
    }
    return UnreachableName{UnreachableName::Kind::Deleted, std::string(name)};
}

namespace
{

// File systems whose files hold no page cache, by mountinfo's type name:
// nothing of another namespace's mounts of them is walked.
bool fileSystemTypeKeepsNoPageCache(std::string_view type)
{
    static constexpr std::string_view types[] = {"proc",    "sysfs",      "cgroup", "cgroup2",    "devpts",    "mqueue",   "debugfs",
                                                 "tracefs", "securityfs", "pstore", "bpf",        "configfs",  "fusectl",  "binfmt_misc",
                                                 "autofs",  "efivarfs",   "nsfs",   "rpc_pipefs", "selinuxfs", "hugetlbfs"};
    return std::find(std::begin(types), std::end(types), type) != std::end(types);
}

// A name for a file system type where mountinfo does not list the mount (the
// root of a chroot).
std::string fileSystemName(int64_t type)
{
    switch (type) {
    case EXT4_SUPER_MAGIC:
        return "ext4";
    case BTRFS_SUPER_MAGIC:
        return "btrfs";
    case XFS_SUPER_MAGIC:
        return "xfs";
    case OVERLAYFS_SUPER_MAGIC:
        return "overlay";
    case TMPFS_MAGIC:
        return "tmpfs";
    case RAMFS_MAGIC:
        return "ramfs";
    case F2FS_SUPER_MAGIC:
        return "f2fs";
    case NFS_SUPER_MAGIC:
        return "nfs";
    case 0x65735546:
        return "fuse";
    case 0x2fc12fc1:
        return "zfs";
    case MSDOS_SUPER_MAGIC:
        return "vfat";
    }
    return {};
}

// A FUSE file system ("fuse", "fuse.sshfs", "fuseblk"): its daemon answers
// every open, stat and read of its files, and one that never answers would
// stall whoever asks. The account asks it nothing.
bool isFuseType(std::string_view type)
{
    return type == "fuse" || type == "fuseblk" || type.starts_with("fuse.");
}

// File systems whose files the kernel serves itself, from a disk or from
// memory: asking them never waits for a process. Anything else found in a
// tree someone else controls (overlay and other stacking file systems,
// which may sit on a FUSE daemon; network file systems) is not asked.
bool fileSystemSafeToAsk(std::string_view type)
{
    static constexpr std::string_view types[] = {"tmpfs", "ramfs",    "devtmpfs", "ext2",    "ext3", "ext4", "xfs",    "btrfs",    "f2fs",    "vfat", "exfat",
                                                 "ntfs3", "squashfs", "erofs",    "iso9660", "udf",  "jfs",  "nilfs2", "bcachefs", "hfsplus", "zfs"};
    return std::find(std::begin(types), std::end(types), type) != std::end(types);
}

bool isSharedMemoryFileSystem(int64_t type)
{
    return type == TMPFS_MAGIC || type == RAMFS_MAGIC;
}

// parent is a prefix of path, component-wise ("/" of everything).
bool pathWithin(std::string_view path, std::string_view parent)
{
    if (parent == "/" || parent.empty()) {
        return true;
    }
    return path.starts_with(parent) && (path.size() == parent.size() || path[parent.size()] == '/');
}

std::optional<std::string> readLink(const std::string &path, int *error = nullptr)
{
    char buffer[4096];
    const ssize_t n = readlink(path.c_str(), buffer, sizeof buffer);
    if (n < 0) {
        if (error) {
            *error = errno;
        }
        return std::nullopt;
    }
    return std::string(buffer, size_t(n));
}

std::string commandOf(const std::string &procRoot, int pid)
{
    std::optional<std::string> comm = readProcFile(procRoot + '/' + std::to_string(pid) + "/comm");
    if (!comm) {
        return {};
    }
    while (!comm->empty() && comm->back() == '\n') {
        comm->pop_back();
    }
    return *comm;
}

// path below the folder `at` (O_PATH): openat2 with `resolve` and no
// symbolic or magic link on the way. Invalid where it cannot (or no openat2).
UniqueFd openBeneath(int at, const std::string &path, uint64_t resolve)
{
    std::string relative = path;
    while (!relative.empty() && relative.front() == '/') {
        relative.erase(0, 1);
    }
    if (relative.empty()) {
        relative = ".";
    }
    struct open_how how = {};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = resolve | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return UniqueFd(int(syscall(SYS_openat2, at, relative.c_str(), &how, sizeof how)));
}

// The mount id of what a descriptor is on (statx STATX_MNT_ID), 0 if unknown.
uint32_t mountIdOfDescriptor(int fd)
{
    struct statx st = {};
    if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &st) != 0 || !(st.stx_mask & STATX_MNT_ID)) {
        return 0;
    }
    return uint32_t(st.stx_mnt_id);
}

// A sandbox's /.flatpak-info, read through /proc/PID/root: a symlink there
// would be followed in this process's root, not the sandbox's, so none is.
std::string flatpakInfoOf(const std::string &path)
{
    // Its type first, without opening it: a device put there is never opened.
    const UniqueFd file(open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat st = {};
    if (!file.isValid() || fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return {};
    }
    const UniqueFd fd(open(("/proc/self/fd/" + std::to_string(file.get())).c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (!fd.isValid()) {
        return {};
    }
    std::string text(65536, '\0');
    const ssize_t n = read(fd.get(), text.data(), text.size());
    text.resize(n > 0 ? size_t(n) : 0);
    return text;
}

void addProcess(AccountPart &part, const AccountProcess &process)
{
    if (std::find_if(part.processes.begin(),
                     part.processes.end(),
                     [&](const AccountProcess &known) {
                         return known.pid == process.pid;
                     })
        != part.processes.end()) {
        return;
    }
    ++part.processCount;
    if (part.processes.size() < AccountPart::maxProcessesNamed) {
        part.processes.push_back(process);
    }
}

struct FileKey {
    uint64_t device = 0;
    uint64_t inode = 0;
    auto operator<=>(const FileKey &) const = default;
};

// The open and mapped files of processes that no path reaches.
class UnreachableFiles
{
public:
    UnreachableFiles(const AccountOptions &options, std::vector<AccountPart> &parts)
        : m_options(options)
        , m_parts(parts)
    {
        // Where memfds and anonymous shared mappings live: the kernel's own
        // shmem mount, in no mountinfo. Its mount id and device, from one of ours.
        const UniqueFd probe(int(syscall(SYS_memfd_create, "cachescope-account-probe", MFD_CLOEXEC)));
        struct stat st = {};
        if (probe.isValid() && fstat(probe.get(), &st) == 0) {
            m_shmDevice = uint64_t(st.st_dev);
            m_shmMountId = mountIdOf(readProcFile("/proc/self/fdinfo/" + std::to_string(probe.get())).value_or(std::string()));
        }
    }

    static uint32_t mountIdOf(const std::string &fdinfo)
    {
        const size_t at = fdinfo.find("mnt_id:");
        return at == std::string::npos ? 0 : uint32_t(std::strtoul(fdinfo.c_str() + at + 7, nullptr, 10));
    }

    // One process: its descriptors, then its maps. False when the kernel
    // hides them from this user.
    bool scan(int pid, const std::string &command)
    {
        const std::string base = m_options.procRoot + '/' + std::to_string(pid);
        const AccountProcess process{pid, command};
        DIR *dir = opendir((base + "/fd").c_str());
        if (!dir) {
            return errno != EACCES && errno != EPERM;
        }
        std::vector<std::string> descriptors;
        while (const dirent *entry = readdir(dir)) {
            if (entry->d_name[0] != '.') {
                descriptors.emplace_back(entry->d_name);
            }
        }
        closedir(dir);
        // The process's mounts, read once it holds a file worth a look: a file
        // is asked about only on a mount of a file system the kernel serves
        // itself (fileSystemSafeToAsk), or on the kernel's shmem mount; never
        // on FUSE, on what may stack on it, or on a mount no mountinfo lists.
        std::optional<std::vector<MountInfoEntry>> mounts;
        const auto unsafe = [&](auto matches, bool onShmem) {
            if (onShmem) {
                return false;
            }
            if (!mounts) {
                mounts = parseMountInfo(readProcFile(base + "/mountinfo").value_or(std::string()));
            }
            bool found = false;
            for (const MountInfoEntry &mount : *mounts) {
                if (matches(mount)) {
                    found = true;
                    if (!fileSystemSafeToAsk(mount.fsType)) {
                        return true;
                    }
                }
            }
            return !found;
        };
        for (const std::string &descriptor : descriptors) {
            const std::string link = base + "/fd/" + descriptor;
            const std::optional<std::string> target = readLink(link);
            if (!target) {
                continue;
            }
            const std::optional<UnreachableName> name = unreachableName(*target);
            if (!name || name->kind == UnreachableName::Kind::SysvShm) {
                continue;
            }
            // fdinfo names the descriptor's mount without asking its file system.
            const uint32_t mountId = mountIdOf(readProcFile(base + "/fdinfo/" + descriptor).value_or(std::string()));
            // 0: a mount of the kernel's own (shmem's: memfds), in no mountinfo.
            if (unsafe(
                    [mountId](const MountInfoEntry &mount) {
                        return mount.id == mountId;
                    },
                    mountId == m_shmMountId || mountId == 0)) {
                addNotAsked(*name, process);
                continue;
            }
            // The file itself, not opened (O_PATH): its type before anything else.
            const UniqueFd file(open(link.c_str(), O_PATH | O_CLOEXEC));
            struct stat st = {};
            if (!file.isValid() || fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode) || (name->kind == UnreachableName::Kind::Deleted && st.st_nlink > 0)) {
                continue;
            }
            add(*name, FileKey{uint64_t(st.st_dev), uint64_t(st.st_ino)}, link, process);
        }
        const std::optional<std::string> maps = readProcFile(base + "/maps");
        if (!maps) {
            return true;
        }
        for (const MapsEntry &entry : parseMapsFiles(*maps)) {
            const std::optional<UnreachableName> name = unreachableName(entry.path);
            if (!name || name->kind == UnreachableName::Kind::SysvShm) {
                continue;
            }
            if (unsafe(
                    [&entry](const MountInfoEntry &mount) {
                        return mount.device == entry.device;
                    },
                    m_shmDevice != 0 && entry.device == m_shmDevice)) {
                addNotAsked(*name, process);
                continue;
            }
            char range[64];
            std::snprintf(range, sizeof range, "%llx-%llx", static_cast<unsigned long long>(entry.start), static_cast<unsigned long long>(entry.end));
            add(*name, FileKey{entry.device, entry.inode}, base + "/map_files/" + range, process);
        }
        return true;
    }

private:
    // A file on a mount the account does not ask (FUSE, what may stack on
    // it, one no mountinfo lists): named, hidden, never looked at.
    void addNotAsked(const UnreachableName &name, const AccountProcess &process)
    {
        const std::string key = name.kind == UnreachableName::Kind::Memfd ? "memfd:" + name.name : name.name;
        if (const auto it = m_notAsked.find(key); it != m_notAsked.end()) {
            addProcess(m_parts[it->second], process);
            return;
        }
        AccountPart part;
        part.kind = name.kind == UnreachableName::Kind::Memfd ? AccountKind::Memfd : AccountKind::DeletedFile;
        (part.kind == AccountKind::Memfd ? part.name : part.path) = name.name;
        part.hidden = true;
        part.hiddenReason = "on a FUSE or stacked mount: not looked at, so that a daemon that does not answer cannot stall the account";
        addProcess(part, process);
        m_notAsked.emplace(key, m_parts.size());
        m_parts.push_back(std::move(part));
    }

    void add(const UnreachableName &name, const FileKey &key, const std::string &opener, const AccountProcess &process)
    {
        if (const auto it = m_known.find(key); it != m_known.end()) {
            addProcess(m_parts[it->second], process);
            if (!m_parts[it->second].hidden) {
                return;
            }
            // Hidden when found mapped: a descriptor of another process may open it.
            if (opener.find("/fd/") == std::string::npos) {
                return;
            }
            AccountPart found = measure(name, key, opener);
            if (found.hidden) {
                return;
            }
            found.processes = std::move(m_parts[it->second].processes);
            found.processCount = m_parts[it->second].processCount;
            m_parts[it->second] = std::move(found);
            return;
        }
        AccountPart part = measure(name, key, opener);
        if (part.kind == AccountKind::Files) {
            return; // huge pages (not in Cached), or a file a path reaches
        }
        addProcess(part, process);
        m_known.emplace(key, m_parts.size());
        m_parts.push_back(std::move(part));
    }

    AccountPart measure(const UnreachableName &name, const FileKey &key, const std::string &opener)
    {
        AccountPart part;
        part.device = key.device;
        part.inode = key.inode;
        switch (name.kind) {
        case UnreachableName::Kind::Memfd:
            part.kind = AccountKind::Memfd;
            part.name = name.name;
            part.fileSystem = "tmpfs";
            break;
        case UnreachableName::Kind::SharedAnonymous:
            part.kind = AccountKind::SharedAnonymous;
            part.name = "anonymous shared memory";
            part.fileSystem = "tmpfs";
            break;
        case UnreachableName::Kind::Deleted:
        case UnreachableName::Kind::SysvShm:
            part.kind = AccountKind::DeletedFile;
            part.path = name.name;
            break;
        }
        // The file itself, first without opening it (O_PATH): a device put in
        // its place is never opened. Then read only, through that very file.
        const UniqueFd path(open(opener.c_str(), O_PATH | O_CLOEXEC));
        struct stat st = {};
        if (path.isValid() && (fstat(path.get(), &st) != 0 || !S_ISREG(st.st_mode) || uint64_t(st.st_dev) != key.device || uint64_t(st.st_ino) != key.inode)) {
            part.hidden = true;
            part.hiddenReason = "the file changed while it was looked at";
            return part;
        }
        // A name that says memfd or shared memory, on another device than the
        // kernel's shmem mount, is some file's that only looks so.
        if (path.isValid() && name.kind != UnreachableName::Kind::Deleted && m_shmDevice != 0 && uint64_t(st.st_dev) != m_shmDevice) {
            part.kind = AccountKind::DeletedFile;
            part.path = name.name;
            part.name.clear();
            part.fileSystem.clear();
        }
        const UniqueFd fd(path.isValid() ? open(("/proc/self/fd/" + std::to_string(path.get())).c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) : -1);
        if (!fd.isValid()) {
            const int error = errno;
            part.hidden = true;
            if (opener.find("/map_files/") != std::string::npos && (error == EPERM || error == EACCES)) {
                part.hiddenReason = "mapped only: the kernel lets only root open a mapping's file (/proc/PID/map_files)";
            } else {
                part.hiddenReason = opener + ": " + std::strerror(error);
            }
            return part;
        }
        struct statfs sfs = {};
        if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || uint64_t(st.st_dev) != key.device || uint64_t(st.st_ino) != key.inode) {
            part.hidden = true;
            part.hiddenReason = "the file changed while it was looked at";
            return part;
        }
        if (part.kind == AccountKind::DeletedFile && st.st_nlink > 0) {
            part.kind = AccountKind::Files; // another name still reaches it (maps said deleted): left out by the caller
            return part;
        }
        if (fstatfs(fd.get(), &sfs) == 0) {
            if (sfs.f_type == HUGETLBFS_MAGIC) {
                part.kind = AccountKind::Files; // huge pages, not in Cached: left out by the caller
                return part;
            }
            const std::string name = fileSystemName(int64_t(sfs.f_type));
            if (!name.empty()) {
                part.fileSystem = name;
            }
        }
        part.sizeBytes = uint64_t(st.st_size);
        const Residency residency = residencyOfDescriptor(fd.get(), st, m_options.residencyOptions);
        if (!residency.known()) {
            part.hidden = true;
            part.hiddenReason = residency.hidden ? residency.hiddenReason : residency.errorText;
            return part;
        }
        part.bytes = residency.resident * pageSize();
        return part;
    }

    const AccountOptions &m_options;
    std::vector<AccountPart> &m_parts;
    std::map<FileKey, size_t> m_known;
    std::map<std::string, size_t> m_notAsked;
    uint64_t m_shmDevice = 0;
    uint32_t m_shmMountId = 0;
};

// At most this many mounts of other namespaces are walked (each is compared
// with the others): a user can make a hundred thousand.
constexpr size_t maxNamespaceMounts = 4096;

struct NamespaceMount {
    int pid = 0;
    MountInfoEntry mount;
};

// The mounts of other mount namespaces that this one does not show: those
// of a device that no mount here shows the folder of (a container's own
// tmpfs, an overlay whose layers are out of reach). Each file system folder
// once, the outermost.
std::vector<NamespaceMount>
mountsOnlyElsewhere(const std::vector<MountInfoEntry> &ours, const std::map<std::string, int> &namespaces, const std::string &procRoot, uint64_t *notWalked)
{
    std::vector<NamespaceMount> found;
    const auto reachableHere = [&](const MountInfoEntry &theirs) {
        for (const MountInfoEntry &mine : ours) {
            if (mine.device == theirs.device && pathWithin(theirs.root, mine.root)) {
                return true;
            }
        }
        return false;
    };
    const std::string ownUsers = readLink("/proc/self/ns/user").value_or(std::string());
    for (const auto &[id, pid] : namespaces) {
        const std::optional<std::string> text = readProcFile(procRoot + '/' + std::to_string(pid) + "/mountinfo");
        if (!text) {
            continue;
        }
        const std::vector<MountInfoEntry> entries = parseMountInfo(*text);
        std::map<uint32_t, const MountInfoEntry *> byId;
        for (const MountInfoEntry &entry : entries) {
            byId[entry.id] = &entry;
        }
        // An overlay made by root (a rootful container) stacks on folders
        // root chose; one made in a user namespace of its own may stack on
        // its maker's FUSE daemon.
        const bool madeByRoot = !ownUsers.empty() && readLink(procRoot + '/' + std::to_string(pid) + "/ns/user").value_or(std::string()) == ownUsers;
        const auto safe = [&](const MountInfoEntry &mount) {
            return fileSystemSafeToAsk(mount.fsType) || fileSystemTypeKeepsNoPageCache(mount.fsType) || (madeByRoot && mount.fsType == "overlay");
        };
        // Reaching a mount point looks up every folder above it: each mount
        // on the way must be safe to ask too.
        const auto wayIsSafe = [&](const MountInfoEntry &mount) {
            const MountInfoEntry *up = &mount;
            for (size_t steps = 0; steps < entries.size(); ++steps) {
                const auto parent = byId.find(up->parentId);
                if (parent == byId.end() || parent->second == up) {
                    return true;
                }
                up = parent->second;
                if (!safe(*up)) {
                    return false;
                }
            }
            return false;
        };
        for (const MountInfoEntry &mount : entries) {
            // An overlay keeps no page cache of its own: its pages are its layers' files'.
            if (fileSystemTypeKeepsNoPageCache(mount.fsType) || mount.fsType == "overlay" || reachableHere(mount)) {
                continue;
            }
            if (!fileSystemSafeToAsk(mount.fsType) || !wayIsSafe(mount) || found.size() >= maxNamespaceMounts) {
                ++*notWalked;
                continue;
            }
            found.push_back({pid, mount});
        }
    }
    // The outermost folder of each file system, once over every namespace.
    std::vector<NamespaceMount> kept;
    for (size_t i = 0; i < found.size(); ++i) {
        bool inner = false;
        for (size_t j = 0; j < found.size() && !inner; ++j) {
            if (i == j || found[j].mount.device != found[i].mount.device || !pathWithin(found[i].mount.root, found[j].mount.root)) {
                continue;
            }
            // The same folder twice: the first one stays.
            inner = found[i].mount.root != found[j].mount.root || j < i;
        }
        if (!inner) {
            kept.push_back(std::move(found[i]));
        }
    }
    return kept;
}

} // namespace

CacheAccountant::CacheAccountant(AccountOptions options)
    : m_options(std::move(options))
{
}

void CacheAccountant::setStepCallback(StepCallback callback)
{
    m_step = std::move(callback);
}

void CacheAccountant::cancel()
{
    m_cancelled = true;
    std::lock_guard lock(m_mutex);
    if (m_walker) {
        m_walker->cancel();
    }
}

uint64_t CacheAccountant::entriesSeen() const
{
    std::lock_guard lock(m_mutex);
    return m_entriesBefore + (m_walker ? m_walker->entriesSeen() : 0);
}

WalkResult CacheAccountant::walkRoots(const std::vector<std::string> &roots, const WalkOptions &options, Walker::ProblemCallback problems, CacheMapTree *tree)
{
    WalkResult result;
    if (roots.empty() || m_cancelled) {
        result.cancelled = m_cancelled;
        return result;
    }
    CacheMapBuilder builder;
    Walker walker(tree ? CacheMapBuilder::walkOptions(options) : options);
    if (tree) {
        builder.attach(walker, std::move(problems));
    } else if (problems) {
        walker.setProblemCallback(std::move(problems));
    }
    {
        std::lock_guard lock(m_mutex);
        m_walker = &walker;
    }
    if (m_cancelled) {
        walker.cancel();
    }
    result = walker.walk(roots);
    {
        std::lock_guard lock(m_mutex);
        m_entriesBefore += walker.entriesSeen();
        m_walker = nullptr;
    }
    if (tree) {
        *tree = builder.take(!result.cancelled);
    }
    return result;
}

namespace
{

// A path as a glob that matches only it (PathFilter: fnmatch(3)).
std::string globOfPath(std::string_view path)
{
    std::string glob;
    for (const char c : path) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
            glob += '\\';
        }
        glob += c;
    }
    return glob;
}

// How the account walks: as the cache map does (each page once, no
// file system that keeps no page cache).
WalkOptions accountWalkOptions(const AccountOptions &options)
{
    WalkOptions walkOptions;
    walkOptions.threads = options.threads;
    walkOptions.residencyOptions = options.residencyOptions;
    walkOptions.skipNoPageCache = true;
    walkOptions.countMountsOnce = true;
    return walkOptions;
}

} // namespace

CacheAccount CacheAccountant::run(const Walker::ProblemCallback &problems)
{
    const auto started = std::chrono::steady_clock::now();
    CacheAccount account;
    account.memInfoBefore = readMemInfo(m_options.procRoot).value_or(MemInfo());
    // 1. The files reachable by path, as the cache map of the root counts them.
    if (m_step) {
        m_step("walking " + m_options.root);
    }
    // FUSE mounts below the root are named and left out (CacheAccount::mountsNotWalked).
    const std::vector<MountInfoEntry> mounts = readMountInfo("/proc").value_or(std::vector<MountInfoEntry>());
    WalkOptions options = accountWalkOptions(m_options);
    for (const MountInfoEntry &mount : mounts) {
        if (isFuseType(mount.fsType) && pathWithin(mount.mountPoint, m_options.root) && mount.mountPoint != m_options.root) {
            options.filter.exclude.push_back(globOfPath(mount.mountPoint));
            ++account.mountsNotWalked;
        }
    }
    CacheMapTree tree;
    account.walk = walkRoots({m_options.root}, options, problems, &tree);
    accountFor(account, tree, mounts, problems);
    account.complete = !m_cancelled && !account.walk.cancelled && tree.complete;
    account.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return account;
}

CacheAccount CacheAccountant::runFromMap(const CacheMapTree &tree, const Walker::ProblemCallback &problems)
{
    const auto started = std::chrono::steady_clock::now();
    CacheAccount account;
    account.memInfoBefore = readMemInfo(m_options.procRoot).value_or(MemInfo());
    accountFor(account, tree, readMountInfo("/proc").value_or(std::vector<MountInfoEntry>()), problems);
    account.complete = !m_cancelled && tree.complete;
    account.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return account;
}

void CacheAccountant::accountFor(CacheAccount &account,
                                 const CacheMapTree &tree,
                                 const std::vector<MountInfoEntry> &mounts,
                                 const Walker::ProblemCallback &problems)
{
    const auto step = [this](const std::string &text) {
        if (m_step) {
            m_step(text);
        }
    };
    const std::string &procRoot = m_options.procRoot;
    const VisibleMounts visible = visibleMounts(mounts);
    const WalkOptions walkOptions = accountWalkOptions(m_options);
    account.hidden.files = tree.total.hiddenFiles;
    account.hidden.fileBytes = tree.total.hiddenBytes;
    account.inChroot = m_options.root == "/" && !mounts.empty() && !mountShowing(visible, "/");
    {
        // Each folder's tree on its own file system, cut at mount points.
        const size_t count = tree.folders.size();
        std::vector<FolderTotals> sameDevice(count);
        std::vector<int> depthInMount(count, 0);
        const auto mountRoot = [&](size_t i) {
            const CacheMapFolder &folder = tree.folders[i];
            return folder.parent == CacheMapFolder::NoParent || folder.mountPoint;
        };
        for (size_t i = 0; i < count; ++i) {
            depthInMount[i] = mountRoot(i) ? 0 : depthInMount[tree.folders[i].parent] + 1;
        }
        for (size_t i = count; i-- > 0;) {
            sameDevice[i].add(tree.folders[i].own);
            if (!mountRoot(i)) {
                sameDevice[tree.folders[i].parent].add(sameDevice[i]);
            }
        }
        // Which file system each mount's folder is on.
        std::vector<std::pair<AccountKind, std::string>> kindOfMount(count);
        for (size_t i = 0; i < count; ++i) {
            const CacheMapFolder &folder = tree.folders[i];
            if (!mountRoot(i)) {
                kindOfMount[i] = kindOfMount[folder.parent];
                continue;
            }
            std::string type;
            if (const MountInfoEntry *mount = mountShowing(visible, folder.path)) {
                type = mount->fsType;
            }
            struct statfs sfs = {};
            const bool shared = (statfs(folder.path.c_str(), &sfs) == 0 && isSharedMemoryFileSystem(int64_t(sfs.f_type))) || type == "tmpfs" || type == "ramfs";
            if (type.empty()) {
                type = fileSystemName(int64_t(sfs.f_type));
            }
            kindOfMount[i] = {shared ? AccountKind::Tmpfs : AccountKind::Files, type};
        }
        const auto addPart = [&](size_t i, const FolderTotals &totals, bool ownOnly) {
            if (totals.resident == 0) {
                return;
            }
            AccountPart part;
            part.kind = kindOfMount[i].first;
            part.fileSystem = kindOfMount[i].second;
            part.path = tree.folders[i].path;
            if (ownOnly) {
                part.name = "the files directly in the folder";
            }
            part.bytes = totals.resident * pageSize();
            part.sizeBytes = totals.bytes;
            part.files = totals.files;
            part.device = tree.folders[i].device;
            account.parts.push_back(std::move(part));
        };
        for (size_t i = 0; i < count; ++i) {
            if (depthInMount[i] < m_options.depth) {
                addPart(i, tree.folders[i].own, true);
            } else if (depthInMount[i] == m_options.depth) {
                addPart(i, sameDevice[i], false);
            }
        }
    }

    // 2. System V shared memory: every segment of this IPC namespace.
    std::map<int, std::string> commands;
    const auto commandOfPid = [&](int pid) -> const std::string & {
        auto it = commands.find(pid);
        if (it == commands.end()) {
            it = commands.emplace(pid, commandOf(procRoot, pid)).first;
        }
        return it->second;
    };
    if (!m_cancelled) {
        step("System V shared memory");
        const std::optional<std::string> systemIpc = readLink(procRoot + "/1/ns/ipc");
        account.ownIpcNamespace = systemIpc && *systemIpc != readLink("/proc/self/ns/ipc").value_or(*systemIpc);
        if (const std::optional<std::string> text = readProcFile(procRoot + "/sysvipc/shm")) {
            for (const SysvShmSegment &segment : parseSysvShm(*text)) {
                AccountPart part;
                part.kind = AccountKind::SysvShm;
                char name[64];
                std::snprintf(name,
                              sizeof name,
                              "key 0x%08llx, id %llu",
                              static_cast<unsigned long long>(segment.key),
                              static_cast<unsigned long long>(segment.id));
                part.name = name;
                part.bytes = segment.rss;
                part.sizeBytes = segment.size;
                part.fileSystem = "tmpfs";
                part.inode = segment.id;
                for (const int pid : {segment.creatorPid, segment.lastPid}) {
                    if (pid > 0 && !commandOfPid(pid).empty()) {
                        addProcess(part, {pid, commandOfPid(pid)});
                    }
                }
                part.processCount = std::max(part.processCount, segment.attached);
                account.parts.push_back(std::move(part));
            }
        }
    }

    // 3. Open and mapped files no path reaches; each process's mount namespace.
    std::map<std::string, int> otherNamespaces; // "mnt:[4026531841]" -> its first process
    std::map<std::string, std::vector<AccountProcess>> namespaceProcesses;
    std::map<std::string, uint64_t> namespaceProcessCount;
    const std::string ownNamespace = readLink("/proc/self/ns/mnt").value_or(std::string());
    if (!m_cancelled) {
        step("open files of processes");
        UnreachableFiles unreachable(m_options, account.parts);
        for (const int pid : processIds(procRoot)) {
            if (m_cancelled) {
                break;
            }
            int error = 0;
            const std::optional<std::string> space = readLink(procRoot + '/' + std::to_string(pid) + "/ns/mnt", &error);
            if (!space) {
                // A kernel thread's namespace is hidden from users too: it
                // has no command line, and no files of its own.
                if ((error == EACCES || error == EPERM) && !readProcFile(procRoot + '/' + std::to_string(pid) + "/cmdline").value_or(std::string()).empty()) {
                    ++account.hidden.processes;
                }
                continue; // gone, or a kernel thread
            }
            const std::string &command = commandOfPid(pid);
            if (!unreachable.scan(pid, command)) {
                ++account.hidden.processes;
            }
            if (*space != ownNamespace && !ownNamespace.empty()) {
                otherNamespaces.emplace(*space, pid);
                std::vector<AccountProcess> &list = namespaceProcesses[*space];
                if (list.size() < AccountPart::maxProcessesNamed) {
                    list.push_back({pid, command});
                }
                ++namespaceProcessCount[*space];
            }
        }
    }

    // Walks the roots on their own file systems; a part for each root whose
    // files hold pages (filled in by describe), the hidden ones counted.
    const auto walkedParts = [&](const std::vector<std::string> &roots, AccountKind kind, const std::function<void(size_t, AccountPart &)> &describe) {
        WalkOptions options = walkOptions;
        options.oneFileSystem = true;
        options.countMountsOnce = false;
        // Trees others control: nothing opened through a mount placed in them.
        options.filesOnTheirFoldersMount = true;
        const WalkResult walked = walkRoots(roots, options, problems, nullptr);
        for (size_t i = 0; i < roots.size() && i < walked.perRoot.size(); ++i) {
            const WalkTotals &totals = walked.perRoot[i];
            account.hidden.files += totals.hiddenFiles;
            account.hidden.fileBytes += totals.hiddenPages * pageSize();
            if (totals.resident == 0) {
                continue;
            }
            AccountPart part;
            part.kind = kind;
            part.bytes = totals.resident * pageSize();
            part.sizeBytes = totals.bytes;
            part.files = totals.files;
            describe(i, part);
            account.parts.push_back(std::move(part));
        }
    };

    // 4. Mounts of other namespaces that this one does not show.
    if (!m_cancelled && !otherNamespaces.empty()) {
        step("other mount namespaces");
        const std::vector<NamespaceMount> found = mountsOnlyElsewhere(mounts, otherNamespaces, procRoot, &account.mountsNotWalked);
        // Each mount point looked up inside its namespace's root, following
        // no symbolic link (one planted on the way would lead out of it), and
        // walked only if it is that very mount; held open while walked.
        std::vector<NamespaceMount> elsewhere;
        std::vector<UniqueFd> held;
        std::vector<std::string> roots;
        for (const NamespaceMount &mount : found) {
            const UniqueFd root(open((procRoot + '/' + std::to_string(mount.pid) + "/root").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
            UniqueFd at = root.isValid() ? openBeneath(root.get(), mount.mount.mountPoint, RESOLVE_IN_ROOT) : UniqueFd();
            if (!at.isValid() || mountIdOfDescriptor(at.get()) != mount.mount.id) {
                ++account.mountsNotWalked;
                continue;
            }
            roots.push_back("/proc/self/fd/" + std::to_string(at.get()));
            held.push_back(std::move(at));
            elsewhere.push_back(mount);
        }
        walkedParts(roots, AccountKind::OtherNamespace, [&](size_t i, AccountPart &part) {
            const NamespaceMount &mount = elsewhere[i];
            part.path = mount.mount.mountPoint;
            part.name = "pid " + std::to_string(mount.pid) + " (" + commandOfPid(mount.pid) + ")";
            // Its /.flatpak-info, where the namespace's own root is safe to ask.
            const std::string base = procRoot + '/' + std::to_string(mount.pid);
            const std::vector<MountInfoEntry> theirs = parseMountInfo(readProcFile(base + "/mountinfo").value_or(std::string()));
            const MountInfoEntry *rootMount = nullptr;
            for (const MountInfoEntry &entry : theirs) {
                rootMount = entry.mountPoint == "/" ? &entry : rootMount;
            }
            const std::string app =
                rootMount && fileSystemSafeToAsk(rootMount->fsType) ? flatpakApplication(flatpakInfoOf(base + "/root/.flatpak-info")) : std::string();
            if (!app.empty()) {
                part.name = "Flatpak app " + app + ", " + part.name;
            }
            part.fileSystem = mount.mount.fsType;
            part.device = mount.mount.device;
            for (const auto &[space, pid] : otherNamespaces) {
                if (pid == mount.pid) {
                    part.processes = namespaceProcesses[space];
                    part.processCount = namespaceProcessCount[space];
                }
            }
        });
    }

    // 5. Folders that a mount covers: the file system below, cloned without
    // its mounts (open_tree), where root may.
    if (!m_cancelled) {
        step("folders under mount points");
        struct Covered {
            std::string mountPoint;
            std::string below; // the parent's mount point, whose clone shows the folder
            bool coverIsFuse = false; // not safe to ask (fileSystemSafeToAsk): never stat()ed
        };
        std::vector<Covered> covered;
        std::map<uint32_t, const MountInfoEntry *> byId;
        for (const MountInfoEntry &mount : mounts) {
            byId[mount.id] = &mount;
        }
        for (const MountInfoEntry &mount : mounts) {
            if (!pathWithin(mount.mountPoint, m_options.root) || mount.mountPoint == "/") {
                continue;
            }
            const auto parent = byId.find(mount.parentId);
            std::string below = "/";
            if (parent != byId.end()) {
                const MountInfoEntry *shown = visible.count(parent->second->mountPoint) ? visible.at(parent->second->mountPoint) : nullptr;
                if (!fileSystemSafeToAsk(parent->second->fsType) && !fileSystemTypeKeepsNoPageCache(parent->second->fsType)) {
                    ++account.mountsNotWalked;
                    continue;
                }
                if (parent->second->mountPoint == mount.mountPoint || shown != parent->second || fileSystemTypeKeepsNoPageCache(parent->second->fsType)) {
                    continue; // stacked on another mount, itself covered, or nothing to cache
                }
                below = parent->second->mountPoint;
            }
            covered.push_back({mount.mountPoint, below, !fileSystemSafeToAsk(mount.fsType) && !fileSystemTypeKeepsNoPageCache(mount.fsType)});
        }
        std::map<std::string, UniqueFd> clones;
        std::vector<UniqueFd> held;
        std::vector<std::string> roots;
        std::vector<const Covered *> rootOf;
        for (const Covered &folder : covered) {
            auto it = clones.find(folder.below);
            if (it == clones.end()) {
                it = clones.emplace(folder.below, UniqueFd(int(syscall(SYS_open_tree, AT_FDCWD, folder.below.c_str(), OPEN_TREE_CLONE | O_CLOEXEC)))).first;
            }
            if (!it->second.isValid()) {
                ++account.hidden.coveredMountPoints;
                continue;
            }
            const std::string rest = folder.mountPoint.substr(folder.below == "/" ? 0 : folder.below.size());
            // Beneath the clone, on its one mount, following no symbolic link.
            UniqueFd at = openBeneath(it->second.get(), rest, RESOLVE_BENEATH | RESOLVE_NO_XDEV);
            if (!at.isValid()) {
                continue;
            }
            const std::string path = "/proc/self/fd/" + std::to_string(at.get());
            // A folder mounted on itself shows what it covers: counted already.
            struct stat under = {};
            struct stat over = {};
            if (fstat(at.get(), &under) != 0
                || (!folder.coverIsFuse && stat(folder.mountPoint.c_str(), &over) == 0 && over.st_dev == under.st_dev && over.st_ino == under.st_ino)) {
                continue;
            }
            if (S_ISDIR(under.st_mode) && under.st_nlink <= 2) {
                // An empty folder has two links on most file systems; look anyway where it has more.
                DIR *dir = opendir(path.c_str());
                bool empty = true;
                while (dir && empty) {
                    const dirent *entry = readdir(dir);
                    if (!entry) {
                        break;
                    }
                    empty = std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0;
                }
                if (dir) {
                    closedir(dir);
                }
                if (empty) {
                    continue;
                }
            }
            if (!S_ISDIR(under.st_mode) && !S_ISREG(under.st_mode)) {
                continue;
            }
            roots.push_back(path);
            rootOf.push_back(&folder);
            held.push_back(std::move(at));
        }
        walkedParts(roots, AccountKind::CoveredFolder, [&](size_t i, AccountPart &part) {
            part.path = rootOf[i]->mountPoint;
            part.name = "under the mount at " + rootOf[i]->mountPoint;
            if (const MountInfoEntry *mount = mountShowing(visible, rootOf[i]->below)) {
                part.fileSystem = mount->fsType;
            }
        });
    }

    // 6. Buffers: each block device's own cache.
    if (!m_cancelled && m_options.buffers) {
        step("block devices");
        const std::string sysBlock = "/sys/class/block";
        if (DIR *dir = opendir(sysBlock.c_str())) {
            std::vector<std::string> names;
            while (const dirent *entry = readdir(dir)) {
                if (entry->d_name[0] != '.') {
                    names.emplace_back(entry->d_name);
                }
            }
            closedir(dir);
            std::sort(names.begin(), names.end());
            for (const std::string &name : names) {
                const std::optional<std::string> size = readProcFile(sysBlock + '/' + name + "/size");
                const std::optional<std::string> numbers = readProcFile(sysBlock + '/' + name + "/dev");
                uint64_t sectors = 0;
                if (!size || !numbers || !numberOf(std::string_view(*size).substr(0, size->find('\n')), sectors) || sectors == 0) {
                    continue;
                }
                BlockDeviceBuffers buffers;
                buffers.name = name;
                unsigned major = 0;
                unsigned minor = 0;
                if (std::sscanf(numbers->c_str(), "%u:%u", &major, &minor) == 2) {
                    buffers.device = makedev(major, minor);
                }
                const std::string node = "/dev/" + name;
                struct stat st = {};
                if (stat(node.c_str(), &st) != 0 || !S_ISBLK(st.st_mode) || uint64_t(st.st_rdev) != buffers.device) {
                    buffers.hidden = true;
                    buffers.hiddenReason = node + ": not this device's node";
                    account.buffersByDevice.push_back(std::move(buffers));
                    continue;
                }
                // Read only, without waiting for a medium; nothing is read.
                const UniqueFd fd(open(node.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
                CachestatCounts counts;
                int error = fd.isValid() ? cachestatRange(fd.get(), 0, 0, counts) : errno;
                if (error != 0) {
                    buffers.hidden = true;
                    buffers.hiddenReason = node + ": " + std::strerror(error);
                } else {
                    buffers.bytes = counts.cache * pageSize();
                }
                account.buffersByDevice.push_back(std::move(buffers));
            }
        }
    }

    const std::optional<MemInfo> after = readMemInfo(procRoot);
    const MemInfo &info = after ? *after : account.memInfoBefore;
    account.cached = info.value("Cached");
    account.buffers = info.value("Buffers");
    account.shmem = info.value("Shmem");
    std::stable_sort(account.parts.begin(), account.parts.end(), [](const AccountPart &a, const AccountPart &b) {
        if (a.hidden != b.hidden) {
            return !a.hidden;
        }
        return a.bytes > b.bytes;
    });
    account.unexplained = int64_t(account.cached) - int64_t(account.partsBytes());
}

CacheAccount accountCache(const AccountOptions &options, const Walker::ProblemCallback &problems)
{
    CacheAccountant accountant(options);
    return accountant.run(problems);
}

} // namespace Cachescope
