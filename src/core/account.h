// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The account of the page cache: where every page of /proc/meminfo's
// "Cached" is. The files reachable by path (the cache map of /, per mount),
// tmpfs and shared memory (System V segments, memfds, anonymous shared
// mappings), deleted files still open or mapped, the files of other mount
// namespaces and the files under folders another mount covers; what is left
// is said to be unexplained, never spread over the parts. The parts do not
// overlap: a file is counted in one part, once, by device and inode.
// Buffers (the block devices' own cache, beside Cached) per device.
//
// Where the kernel hides a part from this user (another user's processes,
// the folders under mount points, a file mapped only), it is counted as
// hidden, never given a number.

#include "procfs.h"
#include "walker.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Cachescope
{

struct CacheMapTree;

enum class AccountKind : uint8_t {
    Files, // files on disk under a mount of this namespace, by path
    Tmpfs, // files on a tmpfs (or ramfs) mount of this namespace, by path
    SysvShm, // a System V shared memory segment (/proc/sysvipc/shm)
    Memfd, // a memfd_create(2) file, open or mapped
    SharedAnonymous, // an anonymous shared mapping (mmap MAP_SHARED|MAP_ANONYMOUS: "/dev/zero (deleted)")
    DeletedFile, // a file deleted while a process still holds it open or mapped
    OtherNamespace, // a mount of another mount namespace, not reachable from this one
    CoveredFolder, // files in a folder that another mount covers
};

// "files", "tmpfs", "sysv-shm", "memfd", "shared-anonymous", "deleted",
// "namespace", "covered": the JSON names.
[[nodiscard]] const char *accountKindName(AccountKind kind);
// Pages of shared memory (tmpfs, System V, memfd, anonymous shared) can only
// be swapped out, never evicted.
[[nodiscard]] bool accountKindEvictable(AccountKind kind);

struct AccountProcess {
    int pid = 0;
    std::string command; // /proc/PID/comm
    friend bool operator==(const AccountProcess &, const AccountProcess &) = default;
};

struct AccountPart {
    AccountKind kind = AccountKind::Files;
    // Files, Tmpfs, OtherNamespace, CoveredFolder: the folder (a mount point,
    // or with AccountOptions::depth a folder below one); DeletedFile: the
    // path the file had; OtherNamespace: as the namespace names it.
    std::string path;
    // Memfd: its name; SysvShm: "key 0x..., id N"; OtherNamespace: the
    // namespace's first process ("pid 4321 (bash)"), or the Flatpak app it
    // runs ("Flatpak app org.kde.kate, pid 4321 (kate)").
    std::string name;
    uint64_t bytes = 0; // in the page cache (0 when hidden)
    uint64_t sizeBytes = 0; // the file's (segment's, the tree's) size
    uint64_t files = 0; // walked parts: regular files counted
    uint64_t device = 0; // st_dev (walked parts: of the folder)
    uint64_t inode = 0; // single files
    std::string fileSystem; // "ext4", "tmpfs", ...
    // The processes that hold it (DeletedFile, Memfd, SharedAnonymous), that
    // attach it (SysvShm: the creator and last user), or that live in the
    // namespace (OtherNamespace); at most maxProcessesNamed, processCount all.
    std::vector<AccountProcess> processes;
    uint64_t processCount = 0;
    // The kernel hides it from this user: no number, hiddenReason says why.
    bool hidden = false;
    std::string hiddenReason;
    static constexpr size_t maxProcessesNamed = 16;

    // Whether eviction can free its pages: not for a kind of shared memory,
    // nor for a file on tmpfs or ramfs (a deleted one, a namespace's).
    [[nodiscard]] bool evictable() const;
};

// What the kernel hid from this user (AccountOptions: not root).
struct AccountHidden {
    uint64_t processes = 0; // whose open files, maps and namespace cannot be read
    uint64_t files = 0; // below the mounts: residency hidden (their sizes in fileBytes)
    uint64_t fileBytes = 0;
    uint64_t coveredMountPoints = 0; // mount points whose covered folder could not be looked under
};

struct BlockDeviceBuffers {
    std::string name; // "sda1"
    uint64_t device = 0; // st_rdev
    uint64_t bytes = 0;
    bool hidden = false;
    std::string hiddenReason;
};

struct CacheAccount {
    MemInfo memInfoBefore; // read when the account started
    uint64_t cached = 0; // /proc/meminfo Cached when the parts were all found
    uint64_t buffers = 0;
    uint64_t shmem = 0;
    std::vector<AccountPart> parts; // the biggest first, hidden ones last
    // cached less the parts: what no part explains. Negative when the parts
    // add up to more than Cached (pages read while the account ran).
    int64_t unexplained = 0;
    AccountHidden hidden;
    std::vector<BlockDeviceBuffers> buffersByDevice;
    WalkResult walk; // the walk of /
    // The root walked is not the root of its file system's mount (mountinfo
    // lists no mount at /): a chroot, whose file systems' files outside it
    // no path reaches; their pages are in unexplained.
    bool inChroot = false;
    // Mounts not walked: FUSE mounts (below the root, in other namespaces,
    // under a covered folder), whose daemon answers each open, and one that
    // never answers would stall the account; in other namespaces also the
    // mounts of file systems that may stack on such a daemon (overlay, ...)
    // or that sit below one. Their pages are in unexplained.
    uint64_t mountsNotWalked = 0;
    // This process has an IPC namespace of its own (a sandboxed service):
    // the system's System V segments are not seen; their pages are in
    // unexplained. Known where /proc/1/ns/ipc can be read.
    bool ownIpcNamespace = false;
    bool complete = false; // not cancelled
    double seconds = 0;

    [[nodiscard]] uint64_t partsBytes() const;
    [[nodiscard]] uint64_t bytesOf(AccountKind kind) const;
};

struct AccountOptions {
    std::string procRoot = "/proc";
    std::string root = "/"; // the tree walked for the files reachable by path
    int threads = 0;
    ResidencyOptions residencyOptions;
    // 0: one part a mount; N: the folders down to N levels below each mount.
    int depth = 0;
    bool buffers = true; // look at the block devices (Buffers)
};

// The account in a few words (the CLI's total line, the window's line
// under the Cache Map): the parts in groups, in this order, those with bytes.
enum class AccountGroup : uint8_t {
    FilesByPath, // Files
    SharedMemory, // Tmpfs, SysvShm, Memfd, SharedAnonymous
    DeletedFiles, // DeletedFile
    OtherNamespaces, // OtherNamespace
    CoveredFolders, // CoveredFolder
};
[[nodiscard]] AccountGroup accountGroupOf(AccountKind kind);
struct AccountGroupTotal {
    AccountGroup group = AccountGroup::FilesByPath;
    uint64_t bytes = 0;
    uint64_t parts = 0; // with bytes, not hidden
};
[[nodiscard]] std::vector<AccountGroupTotal> accountGroups(const CacheAccount &account);

// The readers of the account's /proc files, on text (tests use fixtures).
struct SysvShmSegment {
    uint64_t key = 0;
    uint64_t id = 0;
    uint64_t size = 0;
    uint64_t rss = 0; // bytes in memory (the page cache), not swapped
    uint64_t swap = 0;
    int creatorPid = 0;
    int lastPid = 0;
    uint64_t attached = 0;
    uint32_t uid = 0;
};
[[nodiscard]] std::vector<SysvShmSegment> parseSysvShm(std::string_view text);

struct MapsEntry {
    uint64_t start = 0;
    uint64_t end = 0;
    bool shared = false; // 's' in the permissions
    uint64_t device = 0; // makedev(major, minor)
    uint64_t inode = 0;
    std::string path; // as maps writes it, " (deleted)" kept
};
// The lines of /proc/PID/maps that name a file (inode not 0).
[[nodiscard]] std::vector<MapsEntry> parseMapsFiles(std::string_view text);

// The application a Flatpak sandbox runs, from its /.flatpak-info (the
// name= of its [Application] group); empty when the text names none.
[[nodiscard]] std::string flatpakApplication(std::string_view flatpakInfo);

// How a path from /proc/PID/fd or maps names a file no path reaches:
// "/memfd:NAME (deleted)", "/dev/zero (deleted)", "/SYSV0000002a (deleted)",
// "/old/path (deleted)". nullopt for a path that does not say it.
struct UnreachableName {
    enum class Kind : uint8_t {
        Memfd,
        SharedAnonymous,
        SysvShm,
        Deleted
    };
    Kind kind = Kind::Deleted;
    std::string name; // the memfd's name, the deleted file's old path
};
[[nodiscard]] std::optional<UnreachableName> unreachableName(std::string_view path);

// Runs an account; cancel() from any thread ends it early (complete false).
class CacheAccountant
{
public:
    explicit CacheAccountant(AccountOptions options = {});
    // Which step runs now, for a progress line ("walking /", "open files of processes", ...).
    using StepCallback = std::function<void(const std::string &step)>;
    void setStepCallback(StepCallback callback);

    [[nodiscard]] CacheAccount run(const Walker::ProblemCallback &problems = {});
    // The same from a cache map of AccountOptions::root made already (the
    // window's Cache Map): every part but the walk of the root, whose
    // folders the map holds (CacheAccount::walk stays empty).
    [[nodiscard]] CacheAccount runFromMap(const CacheMapTree &tree, const Walker::ProblemCallback &problems = {});
    void cancel();
    [[nodiscard]] uint64_t entriesSeen() const;

private:
    // Every part but the walk of the root, with this process's mounts (/proc/self/mountinfo).
    void accountFor(CacheAccount &account, const CacheMapTree &tree, const std::vector<MountInfoEntry> &mounts, const Walker::ProblemCallback &problems);
    [[nodiscard]] WalkResult walkRoots(const std::vector<std::string> &roots, const WalkOptions &options, Walker::ProblemCallback problems, CacheMapTree *tree);
    AccountOptions m_options;
    StepCallback m_step;
    std::atomic<bool> m_cancelled = false;
    std::atomic<uint64_t> m_entriesBefore = 0;
    mutable std::mutex m_mutex;
    Walker *m_walker = nullptr;
};

[[nodiscard]] CacheAccount accountCache(const AccountOptions &options = {}, const Walker::ProblemCallback &problems = {});

} // namespace Cachescope
