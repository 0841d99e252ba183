// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "evict.h"
#include "load.h"
#include "mountaliases.h"
#include "pathfilter.h"
#include "residency.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace Cachescope
{

enum class EntryKind : uint8_t {
    File,
    Directory,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Unknown,
};

[[nodiscard]] const char *kindName(EntryKind kind); // "file", "FIFO", "socket", ...
[[nodiscard]] EntryKind kindOfMode(uint32_t mode); // from st_mode

// What the walk does with each regular file it opens.
enum class FileAction : uint8_t {
    Residency, // read residency (and a histogram when asked)
    Evict, // posix_fadvise(DONTNEED)
    Load, // bring into the page cache
    StatOnly, // open nothing: type and size only
};

struct WalkOptions {
    bool followSymlinks = false; // follow links to files and folders, with loop detection
    bool oneFileSystem = false; // stay on each root's filesystem
    int threads = 0; // 0: one a core, at least 2
    FileAction action = FileAction::Residency;
    int histogramBuckets = 0; // > 0: fill WalkEntry::histogram
    bool reportDirectories = false; // also call the entry callback for folders
    // The files in the folders listed: instead of one entry callback a file,
    // two folder callbacks a folder, one when it is opened and one with its
    // files' totals once it is listed (files named as roots are still
    // reported one by one). A caller that adds files up by folder (the cache
    // map) then costs the walk nothing a file, and needs no look-up by path.
    bool folderTotals = false;
    // Below the roots, a folder on a file system that keeps no page cache
    // (proc, sysfs, cgroup, devpts, ...) entered from one that keeps it, as
    // /proc and /sys below /, is opened and named but not listed: nothing in
    // it or mounted below it is walked (WalkFolder::noPageCache,
    // WalkTotals::foldersNotEntered). For the cache map, to which such a
    // tree adds no page (and walking /proc and /sys is costly). A root on
    // one is walked, as the user named it, with such folders below it until
    // a file system that keeps page cache leads into one again. Not with
    // FileAction::StatOnly, which tells no file system from another.
    bool skipNoPageCache = false;
    // Below the roots, a mount point whose files the walk reaches at another
    // path below them too (a bind mount of a folder walked elsewhere, an
    // overlay whose layers are all walked) is opened and named but not
    // listed (WalkFolder::countedAt, WalkTotals::mountsCountedElsewhere), so
    // that every page counts once (mountaliases.h). Read from
    // /proc/self/mountinfo when the walk starts. Not with followSymlinks,
    // where a folder met twice is walked once anyway.
    bool countMountsOnce = false;
    // Files and folders are opened only on their folder's mount, never
    // through a mount placed on their name (a device node bind-mounted over
    // a regular file, which the listing still calls a file; a FUSE folder
    // mounted over a folder): openat2 with RESOLVE_NO_XDEV, the entry then a
    // problem (EXDEV). For walks of trees others control (the account's
    // walks of other mount namespaces, as root). Without openat2, nothing
    // below the roots is opened.
    bool filesOnTheirFoldersMount = false;
    ResidencyOptions residencyOptions;
    EvictOptions evictOptions;
    LoadOptions loadOptions; // cancel and progress are set by the walker
    // Files (and folders) left out: never opened (a size check opens the
    // file for fstat only), never acted on, counted in WalkTotals::filtered.
    PathFilter filter;
};

struct WalkEntry {
    int root = 0; // index into the roots given to walk()
    std::string_view directory; // the folder it is in, as a path ("" for a root itself)
    std::string_view name; // the name in that folder (a root: the path as given)
    EntryKind kind = EntryKind::Unknown;
    uint64_t device = 0;
    uint64_t inode = 0;
    uint64_t size = 0;
    int64_t mtimeNs = 0;
    uint32_t mode = 0;
    uint32_t uid = 0;
    uint64_t links = 1;
    int depth = 0; // 0 for a root
    // False for the second and later names of a hard-linked inode: not in totals.
    bool firstLink = true;
    Residency residency; // File: residency (before the action, for Evict and Load)
    Histogram histogram; // File, when WalkOptions::histogramBuckets > 0
    EvictReport evict; // FileAction::Evict
    LoadReport load; // FileAction::Load

    [[nodiscard]] std::string path() const;
};

// The regular files directly in one folder, added up (each inode once).
struct FolderFiles {
    uint64_t files = 0;
    uint64_t bytes = 0; // not those of files without page cache (WalkTotals::noPageCache)
    uint64_t knownPages = 0; // pages of the files whose residency is known
    uint64_t resident = 0; // resident pages of those files
    uint64_t dirty = 0;
    // Residency hidden from this user: counted here, never in knownPages or resident.
    uint64_t hiddenFiles = 0;
    uint64_t hiddenBytes = 0;

    void addFile(uint64_t size, const Residency &residency);
};

// A folder of the walk (WalkOptions::folderTotals): once when it has been
// opened (listed false, no files yet), once when its listing is done; a
// folder not entered (noPageCache) only once, opened.
struct WalkFolder {
    static constexpr uint32_t None = UINT32_MAX;

    int root = 0;
    std::string_view path; // as WalkEntry::path() names it
    int depth = 0; // 0 for a root
    uint64_t device = 0;
    FolderFiles files; // the files directly in it, not in its subfolders
    // The walk numbers its folders 0, 1, 2, ... as it opens them, so that a
    // folder's number is always above its parent's; None for a root's parent.
    uint32_t id = None;
    uint32_t parent = None;
    bool listed = false;
    // A file system that keeps no page cache, not entered
    // (WalkOptions::skipNoPageCache): it comes once, opened, and is never listed.
    bool noPageCache = false;
    // A mount of files counted at these paths of the walk, not entered
    // (WalkOptions::countMountsOnce): it comes once, opened, and is never
    // listed. Valid during the callback.
    const MountAlias *countedAt = nullptr;
};

struct WalkProblem {
    int root = 0;
    std::string path;
    EntryKind kind = EntryKind::Unknown;
    // Skipped: not a regular file or folder (FIFO, socket, device): never opened.
    // Error: something failed (permission, vanished, loop, name too long, ...).
    bool skipped = false;
    // A root itself (named to the walk), not an entry met while walking.
    bool named = false;
    int error = 0;
    std::string reason; // for people: "FIFO: skipped, never opened", "Permission denied"
    // With WalkOptions::folderTotals: the WalkFolder::id of the folder it
    // counts in, the one being listed (a folder that could not be opened
    // counts in its parent); WalkFolder::None for a root.
    uint32_t folder = WalkFolder::None;
};

struct WalkTotals {
    uint64_t files = 0;
    uint64_t directories = 0;
    uint64_t bytes = 0;
    uint64_t pages = 0;
    uint64_t resident = 0; // of the files whose residency is known
    uint64_t dirty = 0;
    uint64_t writeback = 0;
    uint64_t evicted = 0;
    uint64_t recentlyEvicted = 0;
    uint64_t residentAfter = 0; // Evict / Load: resident pages after the action
    uint64_t hiddenFiles = 0; // residency hidden by the kernel: not in resident
    uint64_t hiddenPages = 0;
    uint64_t hardLinks = 0; // extra names of inodes already counted
    uint64_t skipped = 0; // FIFOs, sockets, devices, ...
    uint64_t errors = 0;
    uint64_t remained = 0; // Evict: files with pages left
    uint64_t filtered = 0; // files left out by WalkOptions::filter (folders left out are not entered, their files not counted)
    // Files on file systems that keep no page cache (proc, sysfs, cgroup, ...):
    // counted from a stat and never opened; neither evicted nor read by Evict
    // and Load. In files, not in bytes or pages: their sizes are the kernel's
    // own figures (4 KiB a sysfs attribute; /proc/kcore's, where there is
    // one, the address space), and counted as pages they would shrink the
    // cached share of every folder above them.
    uint64_t noPageCache = 0;
    // Folders of file systems that keep no page cache, not entered (WalkOptions::skipNoPageCache).
    uint64_t foldersNotEntered = 0;
    // Mount points whose files are counted at another path, not entered (WalkOptions::countMountsOnce).
    uint64_t mountsCountedElsewhere = 0;

    void add(const WalkTotals &other);
};

struct WalkResult {
    std::vector<WalkTotals> perRoot;
    WalkTotals total;
    bool cancelled = false;
    ResidencyMethod method = ResidencyMethod::None;
};

// Walks trees on several threads, relative to directory descriptors, and
// streams what it finds. Symlinks are not followed unless asked; a type is
// checked before anything is opened and again by fstat after; FIFOs, sockets
// and devices are reported and never opened; every error is reported per
// entry and the walk goes on.
//
// Open descriptors are bounded by the depth of the trees times the threads,
// not by their width. It leaves the process's limits alone: a program that
// walks very deep trees calls raiseOpenFileLimit() (processlimits.h) in its
// main(), as cachescope-cli and the window do; where the limit is reached
// anyway the walker opens folders by path instead of relative to their parent.
//
// With two threads or more (and symlinks not followed) each thread of the
// walk has a descriptor table of its own (unshare(CLONE_FILES)) and opens a
// subfolder by its path below the root, with openat2 refusing any symlink on
// the way; a root replaced during the walk is reported, not walked. The
// caller's thread waits and keeps the process's table. Callbacks run on
// those threads: a descriptor a callback opens there is that thread's and is
// closed when the walk ends.
class Walker
{
public:
    using EntryCallback = std::function<void(const WalkEntry &)>;
    using ProblemCallback = std::function<void(const WalkProblem &)>;
    using FolderCallback = std::function<void(const WalkFolder &)>;

    explicit Walker(WalkOptions options = {});
    ~Walker();
    Walker(const Walker &) = delete;
    Walker &operator=(const Walker &) = delete;

    // Called from the worker threads, concurrently: callbacks must be thread-safe.
    void setEntryCallback(EntryCallback callback);
    void setProblemCallback(ProblemCallback callback);
    // With WalkOptions::folderTotals.
    void setFolderCallback(FolderCallback callback);

    // Blocks until done or cancelled. Roots may be files or folders.
    [[nodiscard]] WalkResult walk(const std::vector<std::string> &roots);

    // Any thread, any time.
    void cancel();
    [[nodiscard]] bool isCancelled() const;
    [[nodiscard]] uint64_t entriesSeen() const;
    [[nodiscard]] uint64_t bytesSeen() const;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace Cachescope
