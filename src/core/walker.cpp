// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
//
// The parallel tree walker. Longer than our usual 800 lines on purpose: the
// worker's steps (open, check, list, act, report) share one private state and
// the hand-over of folders between threads (by descriptor, or by path where
// each thread has a descriptor table of its own); split over several files
// that state would have to become a public header that the rest of the core
// must not use.

#include "walker.h"

#include "cachescope_core_debug.h"
#include "format.h"
#include "uniquefd.h"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace Cachescope
{

const char *kindName(EntryKind kind)
{
    switch (kind) {
    case EntryKind::File:
        return "file";
    case EntryKind::Directory:
        return "folder";
    case EntryKind::Symlink:
        return "symlink";
    case EntryKind::Fifo:
        return "FIFO";
    case EntryKind::Socket:
        return "socket";
    case EntryKind::CharDevice:
        return "character device";
    case EntryKind::BlockDevice:
        return "block device";
    case EntryKind::Unknown:
        break;
    }
    return "unknown";
}

std::string WalkEntry::path() const
{
    std::string joined;
    joined.reserve(directory.size() + 1 + name.size());
    joined.append(directory);
    if (!directory.empty() && directory.back() != '/') {
        joined.push_back('/');
    }
    joined.append(name);
    return joined;
}

void FolderFiles::addFile(uint64_t size, const Residency &residency)
{
    ++files;
    if (residency.method == ResidencyMethod::NoPageCache) {
        return; // its size is no data (see WalkTotals::noPageCache)
    }
    bytes += size;
    if (residency.known()) {
        knownPages += residency.pages;
        resident += residency.resident;
        dirty += residency.dirty;
    } else if (residency.hidden) {
        ++hiddenFiles;
        hiddenBytes += size;
    }
}

void WalkTotals::add(const WalkTotals &other)
{
    files += other.files;
    directories += other.directories;
    bytes += other.bytes;
    pages += other.pages;
    resident += other.resident;
    dirty += other.dirty;
    writeback += other.writeback;
    evicted += other.evicted;
    recentlyEvicted += other.recentlyEvicted;
    residentAfter += other.residentAfter;
    hiddenFiles += other.hiddenFiles;
    hiddenPages += other.hiddenPages;
    hardLinks += other.hardLinks;
    skipped += other.skipped;
    errors += other.errors;
    remained += other.remained;
    filtered += other.filtered;
    noPageCache += other.noPageCache;
    foldersNotEntered += other.foldersNotEntered;
    mountsCountedElsewhere += other.mountsCountedElsewhere;
}

EntryKind kindOfMode(uint32_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return EntryKind::File;
    case S_IFDIR:
        return EntryKind::Directory;
    case S_IFLNK:
        return EntryKind::Symlink;
    case S_IFIFO:
        return EntryKind::Fifo;
    case S_IFSOCK:
        return EntryKind::Socket;
    case S_IFCHR:
        return EntryKind::CharDevice;
    case S_IFBLK:
        return EntryKind::BlockDevice;
    default:
        return EntryKind::Unknown;
    }
}

namespace
{

// Big enough that most folders are listed in one getdents64 call.
constexpr size_t direntBufferSize = size_t(256) * 1024;
// Progress counters are shared by all threads: add to them in batches.
constexpr uint64_t progressBatch = 256;

struct LinuxDirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[1];
};

EntryKind kindOfDirentType(unsigned char type)
{
    switch (type) {
    case DT_REG:
        return EntryKind::File;
    case DT_DIR:
        return EntryKind::Directory;
    case DT_LNK:
        return EntryKind::Symlink;
    case DT_FIFO:
        return EntryKind::Fifo;
    case DT_SOCK:
        return EntryKind::Socket;
    case DT_CHR:
        return EntryKind::CharDevice;
    case DT_BLK:
        return EntryKind::BlockDevice;
    default:
        return EntryKind::Unknown;
    }
}

void joinPath(std::string &out, std::string_view directory, std::string_view name)
{
    out.clear();
    out.reserve(directory.size() + 1 + name.size());
    out.append(directory);
    if (!directory.empty() && directory.back() != '/') {
        out.push_back('/');
    }
    out.append(name);
}

int64_t mtimeNsOf(const struct stat &st)
{
    return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

struct InodeKey {
    uint64_t device;
    uint64_t inode;
    friend bool operator==(const InodeKey &, const InodeKey &) = default;
};

struct InodeKeyHash {
    size_t operator()(const InodeKey &key) const
    {
        return std::hash<uint64_t>()(key.inode * 0x9E3779B97F4A7C15ull ^ key.device);
    }
};

// Sharded so that two threads rarely wait for each other.
class InodeSet
{
public:
    // True when the key was not there yet.
    bool insert(uint64_t device, uint64_t inode)
    {
        const InodeKey key{device, inode};
        Shard &shard = m_shards[InodeKeyHash()(key) % shardCount];
        std::lock_guard lock(shard.mutex);
        return shard.keys.insert(key).second;
    }

private:
    static constexpr size_t shardCount = 64;
    struct Shard {
        std::mutex mutex;
        std::unordered_set<InodeKey, InodeKeyHash> keys;
    };
    Shard m_shards[shardCount];
};

// A folder being listed. In the process's shared descriptor table its
// descriptor stays open while subfolders found in it still wait to be opened
// relative to it, and no longer: with depth-first order that bounds open
// descriptors by the depth, not by the width. With a table a thread, it is
// closed once listed (subfolders are opened by path below the root).
struct DirNode {
    std::string path;
    // Only when following symlinks: the chain up to the root, to tell a loop
    // (an ancestor reached again) from a folder reached twice.
    std::shared_ptr<DirNode> parent;
    UniqueFd fd;
    std::atomic<int> holders{1}; // the lister, plus each subfolder not opened yet
    std::atomic<bool> noatime{true}; // O_NOATIME gives EPERM for files we do not own
    uint64_t device = 0;
    uint64_t inode = 0;
    uint64_t rootDevice = 0;
    bool noPageCache = false; // on a file system that keeps no page cache
    int depth = 0;
    int root = 0;
    uint32_t id = WalkFolder::None; // with WalkOptions::folderTotals
    uint32_t parentId = WalkFolder::None;

    void release()
    {
        if (holders.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            fd.reset();
        }
    }
};

// A folder to open: a root (no parent) or a name in a listed folder.
struct Task {
    std::shared_ptr<DirNode> parent;
    std::string name;
    int root = 0;
    bool throughSymlink = false;

    Task() = default;
    Task(std::shared_ptr<DirNode> p, std::string n, int r, bool link)
        : parent(std::move(p))
        , name(std::move(n))
        , root(r)
        , throughSymlink(link)
    {
    }
    Task(Task &&other) noexcept = default;
    Task &operator=(Task &&other) noexcept
    {
        dropParent();
        parent = std::move(other.parent);
        name = std::move(other.name);
        root = other.root;
        throughSymlink = other.throughSymlink;
        return *this;
    }
    Task(const Task &) = delete;
    Task &operator=(const Task &) = delete;
    ~Task()
    {
        dropParent();
    }
    // Gives up this task's hold on the parent's descriptor.
    void dropParent()
    {
        if (parent) {
            parent->release();
            parent.reset();
        }
    }
};

// Where a file is: the parent descriptor and how to name it for people.
struct Place {
    int root = 0;
    int dirFd = AT_FDCWD;
    std::string_view directory;
    int depth = 0;
    std::atomic<bool> *noatime = nullptr;
    uint64_t device = 0; // the folder's (0: not known, as for a root)
    bool noPageCache = false; // the folder is on a file system that keeps no page cache
};

// What the threads share with the Walker object for the walk's length.
struct WalkerState {
    WalkOptions options;
    Walker::EntryCallback entryCallback;
    Walker::ProblemCallback problemCallback;
    Walker::FolderCallback folderCallback;
    std::atomic<bool> cancelled{false};
    std::atomic<uint64_t> entries{0};
    std::atomic<uint64_t> bytes{0};
};

// One walk's shared state. Folders are the unit of work: a worker takes one
// from the shared stack, lists it and handles its files itself, and puts the
// subfolders back on the stack. Taking from the top keeps the walk depth-first.
// Totals are per worker (no lock per file) and merged at the end.
struct Walk {
    WalkerState *d = nullptr;
    const std::vector<std::string> *roots = nullptr;
    std::mutex mutex;
    std::condition_variable wake;
    std::vector<Task> stack;
    int busy = 0;
    bool finished = false;
    InodeSet links;
    InodeSet visited; // folders, when following symlinks
    // Each thread with a descriptor table of its own: a folder is opened by
    // the thread that lists it, by its path below the root (see run()).
    bool ownTables = false;
    std::vector<std::pair<uint64_t, uint64_t>> rootIds; // device, inode of each root folder, once opened
    std::atomic<uint32_t> nextFolderId{0}; // WalkFolder::id
    // WalkOptions::countMountsOnce: the mount points not entered, by the walk's path.
    std::vector<MountAlias> aliases;
    std::unordered_map<std::string_view, const MountAlias *> aliasAt;
    // The same for a folder below a root that is that root (by its device and
    // inode, rootIds): a chroot's own folder seen from inside it, where no
    // mount shows it (the chroot's "/" is no mount point).
    std::vector<MountAlias> rootsAgain;
    std::once_flag mappedOnce;
    std::shared_ptr<const MappedFiles> mapped;
    LoadOptions loadOptions;

    const MappedFiles *mappedFiles()
    {
        std::call_once(mappedOnce, [this] {
            mapped = MappedFiles::scan();
        });
        return mapped.get();
    }

    void wakeAll()
    {
        std::lock_guard lock(mutex);
        wake.notify_all();
    }
};

// openat2 came with Linux 5.6; a sandbox may also refuse it.
bool openat2Works()
{
    static const bool works = [] {
        struct open_how how = {};
        how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
        how.resolve = RESOLVE_NO_SYMLINKS;
        // "/" can always be opened: a failure means no openat2 here.
        const UniqueFd fd(int(syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how)));
        return bool(fd);
    }();
    return works;
}

// name in dirFd, never through a mount placed on it (WalkOptions::
// filesOnTheirFoldersMount): openat2 with RESOLVE_NO_XDEV; EXDEV without openat2.
UniqueFd openOnFoldersMount(int dirFd, const char *name, int flags)
{
    if (!openat2Works()) {
        errno = EXDEV;
        return UniqueFd();
    }
    struct open_how how = {};
    how.flags = uint64_t(flags);
    how.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return UniqueFd(int(syscall(SYS_openat2, dirFd, name, &how, sizeof how)));
}

// The descriptors of files already read, closed a batch at a time: each run
// of consecutive numbers with one close_range(2). A system call's entry and
// exit cost about 0.2 us on this kind of machine (speculation mitigations),
// a twentieth of a warm file's time, and close was one of five a file.
// Only numbers this batch holds are closed; a descriptor someone else opened
// in between breaks a run, it is never inside one.
class CloseBatch
{
public:
    CloseBatch() = default;
    CloseBatch(const CloseBatch &) = delete;
    CloseBatch &operator=(const CloseBatch &) = delete;
    ~CloseBatch()
    {
        flush();
    }

    void add(int fd)
    {
        m_fds[m_count++] = fd;
        if (m_count == m_fds.size()) {
            flush();
        }
    }

    [[nodiscard]] bool empty() const
    {
        return m_count == 0;
    }

    void flush()
    {
        std::sort(m_fds.begin(), m_fds.begin() + m_count);
        for (size_t first = 0; first < m_count;) {
            size_t last = first;
            while (last + 1 < m_count && m_fds[last + 1] == m_fds[last] + 1) {
                ++last;
            }
            if (last == first || syscall(SYS_close_range, unsigned(m_fds[first]), unsigned(m_fds[last]), 0U) != 0) {
                // One alone, or a kernel before 5.9.
                for (size_t i = first; i <= last; ++i) {
                    close(m_fds[i]);
                }
            }
            first = last + 1;
        }
        m_count = 0;
    }

private:
    // Few enough that a process near its descriptor limit still has room;
    // an open that fails with EMFILE flushes and tries again.
    std::array<int, 64> m_fds{};
    size_t m_count = 0;
};

struct Worker {
    Walk &walk;
    WalkerState &d;
    const WalkOptions &options;
    std::vector<WalkTotals> totals; // one a root, merged at the end
    std::unique_ptr<char[]> buffer;
    std::vector<Task> found; // subfolders of the folder being listed
    WalkEntry entry;
    // The folder being listed, where WalkOptions::folderTotals asks for its files' totals.
    FolderFiles *folderFiles = nullptr;
    // The WalkFolder::id a problem counts in (WalkProblem::folder).
    uint32_t problemFolder = WalkFolder::None;
    std::string scratchPath;
    std::string filterPath; // the path a glob with a slash is matched against
    uint64_t unreportedEntries = 0;
    uint64_t unreportedBytes = 0;
    ResidencyMethod method = ResidencyMethod::None;
    std::vector<UniqueFd> rootFds; // this thread's descriptor of each root folder (ownTables)
    // Files read in the task being run; flushed after each task, in this
    // thread (its own descriptor table with ownTables).
    CloseBatch closeBatch;
    std::vector<std::pair<uint64_t, bool>> deviceKinds; // keepsNoPageCache()'s answers

    Worker(Walk &w, size_t rootCount)
        : walk(w)
        , d(*w.d)
        , options(w.d->options)
        , totals(rootCount)
        , buffer(new char[direntBufferSize])
    {
    }

    bool cancelled() const
    {
        return d.cancelled.load(std::memory_order_relaxed);
    }

    // Whether the file system of this device keeps no page cache: asked of
    // the kernel once a device and thread (a walk meets a handful of them).
    bool keepsNoPageCache(int fd, uint64_t device)
    {
        for (const auto &[known, none] : deviceKinds) {
            if (known == device) {
                return none;
            }
        }
        const bool none = descriptorKeepsNoPageCache(fd);
        deviceKinds.emplace_back(device, none);
        return none;
    }

    void seen(uint64_t size)
    {
        ++unreportedEntries;
        unreportedBytes += size;
        if (unreportedEntries >= progressBatch) {
            flushProgress();
        }
    }

    void flushProgress()
    {
        if (unreportedEntries) {
            d.entries.fetch_add(unreportedEntries, std::memory_order_relaxed);
            unreportedEntries = 0;
        }
        if (unreportedBytes) {
            d.bytes.fetch_add(unreportedBytes, std::memory_order_relaxed);
            unreportedBytes = 0;
        }
    }

    void problem(int root, std::string_view directory, std::string_view name, EntryKind kind, bool skipped, int error, std::string reason, bool named = false)
    {
        if (skipped) {
            ++totals[root].skipped;
        } else {
            ++totals[root].errors;
        }
        if (!d.problemCallback) {
            return;
        }
        WalkProblem report;
        report.root = root;
        joinPath(report.path, directory, name);
        report.kind = kind;
        report.skipped = skipped;
        report.named = named;
        report.error = error;
        report.reason = std::move(reason);
        report.folder = problemFolder;
        d.problemCallback(report);
    }

    void skippedSpecial(const Place &place, std::string_view name, EntryKind kind, const char *how = "", bool named = false)
    {
        problem(place.root, place.directory, name, kind, true, 0, std::string(kindName(kind)) + how + ": skipped, never opened", named);
    }

    void fillEntry(const Place &place, std::string_view name, EntryKind kind, const struct stat &st)
    {
        entry.root = place.root;
        entry.directory = place.directory;
        entry.name = name;
        entry.kind = kind;
        entry.device = st.st_dev;
        entry.inode = st.st_ino;
        entry.size = uint64_t(st.st_size);
        entry.mtimeNs = mtimeNsOf(st);
        entry.mode = st.st_mode;
        entry.uid = st.st_uid;
        entry.links = st.st_nlink;
        entry.depth = place.depth;
        entry.firstLink = true;
    }

    // A regular file (as far as the listing or a stat said). follow: the name
    // may be a symlink we were asked to follow (or a root the user named).
    void file(const Place &place, const char *name, size_t nameLength, bool follow, const struct stat *known)
    {
        const std::string_view nameView(name, nameLength);
        WalkTotals &t = totals[place.root];
        struct stat st;
        UniqueFd fd;
        const bool statOnly = options.action == FileAction::StatOnly;
        // A file on a file system that keeps no page cache: found in such a
        // folder, it is not opened (a stat tells all there is to know, and
        // opening some of them has effects); named or reached through a
        // symlink, it is opened and then left alone.
        bool noPageCache = false;

        if (statOnly || (place.noPageCache && !follow)) {
            if (known) {
                st = *known;
            } else if (fstatat(place.dirFd, name, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0) {
                const int error = errno;
                openFailed(place, nameView, error, follow);
                return;
            }
            if (!S_ISREG(st.st_mode)) {
                changedType(place, nameView, st);
                return;
            }
            // Not on the folder's device: a file mounted over this name, opened below.
            noPageCache = !statOnly && uint64_t(st.st_dev) == place.device;
        }
        if (!statOnly && !noPageCache) {
            int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
            const bool tryNoatime = place.noatime && place.noatime->load(std::memory_order_relaxed);
            if (tryNoatime) {
                flags |= O_NOATIME;
            }
            const auto openFile = [&](int openFlags) {
                return options.filesOnTheirFoldersMount ? openOnFoldersMount(place.dirFd, name, openFlags) : UniqueFd(openat(place.dirFd, name, openFlags));
            };
            fd = openFile(flags);
            if (!fd && errno == EPERM && tryNoatime) {
                // Not our file: the rest of this folder likely is not either.
                place.noatime->store(false, std::memory_order_relaxed);
                flags &= ~O_NOATIME;
                fd = openFile(flags);
            }
            if (!fd && (errno == EMFILE || errno == ENFILE) && !closeBatch.empty()) {
                closeBatch.flush();
                fd = openFile(flags);
            }
            if (!fd) {
                const int error = errno;
                openFailed(place, nameView, error, follow);
                return;
            }
            if (fstat(fd.get(), &st) != 0) {
                const int error = errno;
                problem(place.root, place.directory, nameView, EntryKind::File, false, error, "fstat: " + errnoText(error));
                return;
            }
            if (!S_ISREG(st.st_mode)) {
                changedType(place, nameView, st);
                return;
            }
            noPageCache = uint64_t(st.st_dev) == place.device ? place.noPageCache : keepsNoPageCache(fd.get(), uint64_t(st.st_dev));
        }

        if (!options.filter.admitsSize(uint64_t(st.st_size))) {
            seen(0);
            ++t.filtered;
            return;
        }
        seen(noPageCache ? 0 : uint64_t(st.st_size)); // a size the kernel makes up is no data (WalkTotals::noPageCache)
        fillEntry(place, nameView, EntryKind::File, st);
        if ((options.followSymlinks || st.st_nlink > 1) && !walk.links.insert(st.st_dev, st.st_ino)) {
            entry.firstLink = false;
        }

        if (noPageCache) {
            withoutPageCache(st);
        } else if (fd) {
            act(fd.get(), st, place, nameView);
        } else {
            entry.residency = Residency();
        }
        if (fd) {
            closeBatch.add(fd.release());
        }

        if (!entry.firstLink) {
            ++t.hardLinks;
        } else {
            ++t.files;
            if (noPageCache) {
                ++t.noPageCache;
            } else {
                t.bytes += uint64_t(st.st_size);
                t.pages += pagesFor(uint64_t(st.st_size));
            }
            const Residency &r = entry.residency;
            if (r.ok() && options.action != FileAction::StatOnly) {
                if (r.hidden) {
                    ++t.hiddenFiles;
                    t.hiddenPages += r.pages;
                } else {
                    t.resident += r.resident;
                    t.dirty += r.dirty;
                    t.writeback += r.writeback;
                    t.evicted += r.evicted;
                    t.recentlyEvicted += r.recentlyEvicted;
                }
            }
            if (options.action == FileAction::Evict && entry.evict.error == 0) {
                t.residentAfter += entry.evict.after;
                if (entry.evict.after > 0) {
                    ++t.remained;
                }
            } else if (options.action == FileAction::Load && entry.load.error == 0) {
                t.residentAfter += entry.load.after;
            }
        }
        if (folderFiles) {
            if (entry.firstLink) {
                folderFiles->addFile(uint64_t(st.st_size), entry.residency);
            }
        } else if (d.entryCallback) {
            d.entryCallback(entry);
        }
    }

    // What act() would find on a file system that keeps no page cache,
    // without asking: every page known, none resident, nothing to evict or read.
    void withoutPageCache(const struct stat &st)
    {
        const uint64_t size = uint64_t(std::max<off_t>(st.st_size, 0));
        entry.residency = noPageCacheResidency(size);
        if (options.histogramBuckets > 0) {
            Histogram histogram;
            histogram.method = ResidencyMethod::NoPageCache;
            histogram.pages = entry.residency.pages;
            histogram.resident.assign(size_t(std::min<uint64_t>(uint64_t(options.histogramBuckets), histogram.pages)), 0);
            entry.histogram = std::move(histogram);
        }
        entry.evict = EvictReport();
        entry.load = LoadReport();
        entry.evict.pages = entry.residency.pages;
        entry.load.pages = entry.residency.pages;
        if (method == ResidencyMethod::None) {
            method = ResidencyMethod::NoPageCache;
        }
    }

    void act(int fd, const struct stat &st, const Place &place, std::string_view name)
    {
        entry.residency = residencyOfDescriptor(fd, st, options.residencyOptions);
        if (entry.residency.ok()) {
            method = entry.residency.method;
        } else {
            problem(place.root, place.directory, name, EntryKind::File, false, entry.residency.error, entry.residency.errorText);
        }
        if (options.histogramBuckets > 0) {
            entry.histogram = histogramOfDescriptor(fd, st, options.histogramBuckets, options.residencyOptions);
        }
        // A later name of an inode already handled: acting again would count twice.
        if (!entry.firstLink) {
            entry.evict = EvictReport();
            entry.load = LoadReport();
            return;
        }
        if (options.action == FileAction::Evict) {
            entry.evict = evictDescriptor(fd, st, options.evictOptions, nullptr);
            if (entry.evict.error != 0) {
                problem(place.root, place.directory, name, EntryKind::File, false, entry.evict.error, entry.evict.errorText);
            } else if (entry.evict.after > 0 && entry.evict.reason == RemainReason::Unknown) {
                // Only now is it worth reading every process's maps, and only
                // once; with the batch's descriptors closed first, so that
                // the scan has them (it is kept for the whole walk).
                closeBatch.flush();
                const MappedFiles *mapped = walk.mappedFiles();
                if (mapped && mapped->contains(st.st_dev, st.st_ino)) {
                    entry.evict.reason = RemainReason::Mapped;
                }
            }
        } else if (options.action == FileAction::Load) {
            entry.load = loadDescriptor(fd, st, walk.loadOptions);
            if (entry.load.error != 0 && !entry.load.cancelled) {
                problem(place.root, place.directory, name, EntryKind::File, false, entry.load.error, entry.load.errorText);
            }
        }
    }

    void openFailed(const Place &place, std::string_view name, int error, bool follow)
    {
        std::string reason;
        EntryKind kind = EntryKind::File;
        if (error == ENOENT) {
            reason = follow ? "dangling symlink or vanished: " + errnoText(error) : "vanished while walking: " + errnoText(error);
        } else if (error == ELOOP && !follow) {
            // It was listed as a file and is a symlink now: we do not follow those.
            reason = "became a symlink while walking: not followed";
            kind = EntryKind::Symlink;
        } else if (error == ELOOP) {
            reason = "symlink loop: " + errnoText(error);
            kind = EntryKind::Symlink;
        } else {
            reason = errnoText(error);
        }
        problem(place.root, place.directory, name, kind, false, error, std::move(reason));
    }

    void changedType(const Place &place, std::string_view name, const struct stat &st)
    {
        const EntryKind kind = kindOfMode(st.st_mode);
        problem(place.root, place.directory, name, kind, true, 0, std::string("changed type while walking (now a ") + kindName(kind) + "): not read");
    }

    // Whether the filter lets a file (or a folder) in; a file left out is counted.
    bool admitted(const Place &place, const char *name, std::string_view nameView, bool folder)
    {
        if (options.filter.include.empty() && options.filter.exclude.empty()) {
            return true;
        }
        filterPath.clear();
        if (options.filter.needsPath()) {
            joinPath(filterPath, place.directory, nameView);
        }
        if (folder ? options.filter.admitsFolder(name, filterPath) : options.filter.admitsFile(name, filterPath)) {
            return true;
        }
        if (!folder) {
            seen(0);
            ++totals[place.root].filtered;
        }
        return false;
    }

    // One name in a listed folder.
    void dirent(const std::shared_ptr<DirNode> &node, const Place &place, const char *name, unsigned char type)
    {
        const size_t nameLength = strlen(name);
        const std::string_view nameView(name, nameLength);
        EntryKind kind = kindOfDirentType(type);
        struct stat st;
        const struct stat *known = nullptr;
        if (kind == EntryKind::Unknown) {
            // Some filesystems do not fill d_type: ask, without following.
            if (fstatat(place.dirFd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                const int error = errno;
                seen(0);
                openFailed(place, nameView, error, false);
                return;
            }
            kind = kindOfMode(st.st_mode);
            known = &st;
        }
        switch (kind) {
        case EntryKind::File:
            if (!admitted(place, name, nameView, false)) {
                return;
            }
            file(place, name, nameLength, false, known);
            return;
        case EntryKind::Directory:
            seen(0);
            if (!admitted(place, name, nameView, true)) {
                return;
            }
            node->holders.fetch_add(1, std::memory_order_relaxed);
            found.emplace_back(node, std::string(nameView), place.root, false);
            return;
        case EntryKind::Symlink:
            seen(0);
            if (options.followSymlinks) {
                symlink(node, place, name, nameLength);
            }
            return;
        default:
            seen(0);
            skippedSpecial(place, nameView, kind);
            return;
        }
    }

    void symlink(const std::shared_ptr<DirNode> &node, const Place &place, const char *name, size_t nameLength)
    {
        const std::string_view nameView(name, nameLength);
        struct stat st;
        if (fstatat(place.dirFd, name, &st, 0) != 0) {
            const int error = errno;
            std::string reason = error == ELOOP ? "symlink loop: " + errnoText(error)
                : error == ENOENT               ? "dangling symlink: " + errnoText(error)
                                                : errnoText(error);
            problem(place.root, place.directory, nameView, EntryKind::Symlink, false, error, std::move(reason));
            return;
        }
        const EntryKind target = kindOfMode(st.st_mode);
        if ((target == EntryKind::File || target == EntryKind::Directory) && !admitted(place, name, nameView, target == EntryKind::Directory)) {
            return;
        }
        if (target == EntryKind::File) {
            file(place, name, nameLength, true, nullptr);
        } else if (target == EntryKind::Directory) {
            node->holders.fetch_add(1, std::memory_order_relaxed);
            found.emplace_back(node, std::string(nameView), place.root, true);
        } else {
            skippedSpecial(place, nameView, target, " (through a symlink)");
        }
    }

    // Opens a folder by its full path, one component at a time below the
    // root, so that neither PATH_MAX nor a long chain of descriptors matters.
    UniqueFd openByPath(const std::string &path, int root, bool follow)
    {
        const std::string &rootPath = (*walk.roots)[root];
        const int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
        UniqueFd fd;
        if (walk.ownTables) {
            // One component at a time from this thread's root, which is
            // checked to be the walk's: a replaced root is not walked here either.
            const int base = rootFd(root);
            fd.reset(base < 0 ? -1 : openat(base, ".", flags));
        } else {
            fd.reset(open(path.c_str(), flags | (follow ? 0 : O_NOFOLLOW)));
            if (fd || errno != ENAMETOOLONG || path.compare(0, rootPath.size(), rootPath) != 0) {
                return fd;
            }
            fd.reset(open(rootPath.c_str(), flags));
        }
        size_t at = rootPath.size();
        std::string component;
        while (fd && at < path.size()) {
            while (at < path.size() && path[at] == '/') {
                ++at;
            }
            const size_t end = std::min(path.find('/', at), path.size());
            if (end == at) {
                break;
            }
            component.assign(path, at, end - at);
            at = end;
            UniqueFd next(openat(fd.get(), component.c_str(), flags | (follow ? 0 : O_NOFOLLOW)));
            // The caller reads errno: closing the parent must not change it.
            const int error = errno;
            fd = std::move(next);
            errno = error;
        }
        return fd;
    }

    // This thread's descriptor of a root folder, opened again by its path and
    // checked to be the folder the walk started from.
    int rootFd(int root)
    {
        if (rootFds.empty()) {
            rootFds.resize(walk.roots->size());
        }
        if (!rootFds[root]) {
            UniqueFd fd(open((*walk.roots)[root].c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
            struct stat st;
            if (!fd) {
                return -1;
            }
            if (fstat(fd.get(), &st) != 0 || uint64_t(st.st_dev) != walk.rootIds[root].first || uint64_t(st.st_ino) != walk.rootIds[root].second) {
                fd.reset();
                errno = ESTALE; // the root was replaced while walking
                return -1;
            }
            rootFds[root] = std::move(fd);
        }
        return rootFds[root].get();
    }

    // A folder by its path below its root, in this thread's own descriptor
    // table: no symlink anywhere on the way (one that replaced a folder
    // while walking gives ELOOP), nothing above the root.
    UniqueFd openBelowRoot(int root, const std::string &path, int flags)
    {
        const int base = rootFd(root);
        if (base < 0) {
            return UniqueFd();
        }
        const std::string &rootPath = (*walk.roots)[root];
        size_t at = rootPath.size();
        while (at < path.size() && path[at] == '/') {
            ++at;
        }
        struct open_how how = {};
        how.flags = uint64_t(flags);
        how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH | (options.filesOnTheirFoldersMount ? RESOLVE_NO_XDEV : 0);
        return UniqueFd(int(syscall(SYS_openat2, base, path.c_str() + at, &how, sizeof how)));
    }

    // Opens a task's folder, checks it, and lists it.
    void run(Task &task)
    {
        const bool isRoot = !task.parent;
        const std::string &rootPath = (*walk.roots)[task.root];
        const std::string_view parentPath = isRoot ? std::string_view() : std::string_view(task.parent->path);
        const std::string_view name = isRoot ? std::string_view(rootPath) : std::string_view(task.name);
        const int depth = isRoot ? 0 : task.parent->depth + 1;
        const uint32_t parentId = isRoot ? WalkFolder::None : task.parent->id;
        // Until it has been opened, a folder's problems count in its parent.
        problemFolder = parentId;
        std::atomic<bool> rootNoatime{true};
        // With tables of their own the parent's descriptor is not this thread's (and its lister closes it).
        Place place{task.root, isRoot || walk.ownTables ? AT_FDCWD : task.parent->fd.get(), parentPath, depth, isRoot ? &rootNoatime : &task.parent->noatime};
        struct stat st;

        if (isRoot) {
            // The user named it: a symlink given as a root is followed.
            if (stat(rootPath.c_str(), &st) != 0) {
                const int error = errno;
                problem(task.root, {}, name, EntryKind::Unknown, false, error, errnoText(error));
                return;
            }
            const EntryKind kind = kindOfMode(st.st_mode);
            if (kind == EntryKind::File) {
                // A file named as a root: filtered as the commands filter the files they are given.
                if (!options.filter.admitsNamedFile(rootPath, uint64_t(st.st_size))) {
                    seen(0);
                    ++totals[task.root].filtered;
                    return;
                }
                file(place, rootPath.c_str(), rootPath.size(), true, nullptr);
                return;
            }
            if (kind != EntryKind::Directory) {
                seen(0);
                skippedSpecial(place, name, kind, "", true);
                return;
            }
        }

        const bool follow = isRoot || task.throughSymlink;
        int flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
        const bool tryNoatime = !isRoot && task.parent->noatime.load(std::memory_order_relaxed);
        const char *openName = isRoot ? rootPath.c_str() : task.name.c_str();
        std::string path;
        joinPath(path, parentPath, name);
        const auto openFolder = [&](int extra) {
            if (walk.ownTables && !isRoot) {
                return openBelowRoot(task.root, path, flags | extra);
            }
            if (options.filesOnTheirFoldersMount && !isRoot) {
                return openOnFoldersMount(place.dirFd, openName, flags | extra);
            }
            return UniqueFd(openat(place.dirFd, openName, flags | extra));
        };
        UniqueFd fd = openFolder(tryNoatime ? O_NOATIME : 0);
        if (!fd && errno == EPERM && tryNoatime) {
            task.parent->noatime.store(false, std::memory_order_relaxed);
            fd = openFolder(0);
        }
        if (!fd && (errno == EMFILE || errno == ENFILE || (walk.ownTables && errno == ENAMETOOLONG))) {
            fd = openByPath(path, task.root, options.followSymlinks);
        }
        if (!fd) {
            const int error = errno;
            const EntryKind kind = task.throughSymlink ? EntryKind::Symlink : EntryKind::Directory;
            std::string reason = error == ENOENT    ? "vanished while walking: " + errnoText(error)
                : error == ENOTDIR                  ? std::string("no longer a folder: not walked")
                : error == ELOOP                    ? std::string("became a symlink while walking: not followed")
                : error == ESTALE && walk.ownTables ? std::string("the walk's root was replaced while walking: not walked")
                                                    : errnoText(error);
            problem(task.root, parentPath, name, kind, false, error, std::move(reason));
            return;
        }
        if (fstat(fd.get(), &st) != 0) {
            const int error = errno;
            problem(task.root, parentPath, name, EntryKind::Directory, false, error, "fstat: " + errnoText(error));
            return;
        }
        if (isRoot) {
            // Before any of its subfolders is shared: the threads read it after taking one.
            walk.rootIds[task.root] = {uint64_t(st.st_dev), uint64_t(st.st_ino)};
        }
        const uint64_t rootDevice = isRoot ? st.st_dev : task.parent->rootDevice;
        if (options.oneFileSystem && st.st_dev != rootDevice) {
            // A mount point: not ours to descend, and not an error.
            return;
        }
        const bool noPageCache = options.action != FileAction::StatOnly && keepsNoPageCache(fd.get(), uint64_t(st.st_dev));
        // Named, never listed (WalkOptions::skipNoPageCache): not marked as
        // visited either, so that another way to it (-L) is named the same.
        const bool noPageCacheNotEntered = options.skipNoPageCache && !isRoot && noPageCache && !task.parent->noPageCache;
        const MountAlias *alias = nullptr;
        if (!isRoot && !walk.aliasAt.empty()) {
            if (const auto found = walk.aliasAt.find(path); found != walk.aliasAt.end()) {
                alias = found->second;
            }
        }
        // Its own root only: another root's identity may be written by another thread right now.
        if (!isRoot && !alias && !walk.rootsAgain.empty() && walk.rootIds[task.root] == std::pair<uint64_t, uint64_t>(st.st_dev, st.st_ino)) {
            alias = &walk.rootsAgain[size_t(task.root)];
        }
        const bool notEntered = noPageCacheNotEntered || alias;
        if (notEntered) {
            fd.reset(); // of no more use
        }
        if (options.followSymlinks && !notEntered && !walk.visited.insert(st.st_dev, st.st_ino)) {
            fd.reset();
            bool loop = false;
            for (const DirNode *up = task.parent.get(); up; up = up->parent.get()) {
                if (up->device == st.st_dev && up->inode == st.st_ino) {
                    loop = true;
                    break;
                }
            }
            const EntryKind kind = task.throughSymlink ? EntryKind::Symlink : EntryKind::Directory;
            if (loop) {
                problem(task.root, parentPath, name, kind, false, ELOOP, "symlink loop: already visited");
            } else {
                problem(task.root, parentPath, name, kind, true, 0, "already visited through another path: not walked twice");
            }
            return;
        }

        auto node = std::make_shared<DirNode>();
        node->path = std::move(path);
        node->fd = std::move(fd);
        node->device = st.st_dev;
        node->inode = st.st_ino;
        node->rootDevice = rootDevice;
        node->noPageCache = noPageCache;
        node->depth = depth;
        node->root = task.root;
        if (options.followSymlinks) {
            node->parent = task.parent;
        }
        if (!isRoot) {
            node->noatime.store(task.parent->noatime.load(std::memory_order_relaxed), std::memory_order_relaxed);
        }
        if (options.folderTotals && d.folderCallback) {
            // Numbered as it is opened, after its parent was: its number is above its parent's.
            node->id = walk.nextFolderId.fetch_add(1, std::memory_order_relaxed);
            node->parentId = parentId;
            d.folderCallback(WalkFolder{node->root, node->path, node->depth, node->device, {}, node->id, parentId, false, noPageCacheNotEntered, alias});
        }

        ++totals[task.root].directories;
        if (options.reportDirectories && d.entryCallback) {
            fillEntry(place, name, EntryKind::Directory, st);
            entry.residency = Residency();
            entry.histogram = Histogram();
            entry.evict = EvictReport();
            entry.load = LoadReport();
            d.entryCallback(entry);
        }
        if (alias) {
            ++totals[task.root].mountsCountedElsewhere;
            return;
        }
        if (notEntered) {
            ++totals[task.root].foldersNotEntered;
            return;
        }
        // The parent's descriptor is no longer needed by this task.
        task.dropParent();
        list(node);
        if (walk.ownTables) {
            // Its subfolders are opened by path, in the threads that list them.
            node->fd.reset();
        }
        node->release();
    }

    void list(const std::shared_ptr<DirNode> &node)
    {
        FolderFiles own;
        const bool perFolder = options.folderTotals && d.folderCallback;
        folderFiles = perFolder ? &own : nullptr;
        problemFolder = node->id;
        listEntries(node);
        folderFiles = nullptr;
        if (perFolder) {
            // Cancelled too: what was counted is counted.
            d.folderCallback(WalkFolder{node->root, node->path, node->depth, node->device, own, node->id, node->parentId, true});
        }
    }

    void listEntries(const std::shared_ptr<DirNode> &node)
    {
        Place place{node->root, node->fd.get(), node->path, node->depth + 1, &node->noatime, node->device, node->noPageCache};
        for (;;) {
            const long n = syscall(SYS_getdents64, node->fd.get(), buffer.get(), direntBufferSize);
            if (n < 0) {
                const int error = errno;
                problem(node->root, {}, node->path, EntryKind::Directory, false, error, "reading the folder: " + errnoText(error));
                break;
            }
            if (n == 0) {
                break;
            }
            for (long offset = 0; offset < n;) {
                const auto *dent = reinterpret_cast<const LinuxDirent64 *>(buffer.get() + offset);
                offset += dent->d_reclen;
                const char *name = dent->d_name;
                if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) {
                    continue;
                }
                if (cancelled()) {
                    found.clear();
                    return;
                }
                dirent(node, place, name, dent->d_type);
            }
            share();
        }
        share();
    }

    // Puts the subfolders found so far where every thread can take them.
    void share()
    {
        if (found.empty()) {
            return;
        }
        {
            std::lock_guard lock(walk.mutex);
            // Reversed so that the first listed is taken first.
            for (auto it = found.rbegin(); it != found.rend(); ++it) {
                walk.stack.push_back(std::move(*it));
            }
        }
        const size_t count = found.size();
        found.clear();
        if (count > 1) {
            walk.wake.notify_all();
        } else {
            walk.wake.notify_one();
        }
    }

    void loop()
    {
        if (walk.ownTables && unshare(CLONE_FILES) != 0) {
            // Still correct in the shared table: every descriptor this
            // thread uses, it opened itself.
            qCDebug(CACHESCOPE_CORE) << "unshare(CLONE_FILES):" << errnoText(errno).c_str();
        }
        std::unique_lock lock(walk.mutex);
        for (;;) {
            walk.wake.wait(lock, [this] {
                return walk.finished || !walk.stack.empty() || cancelled();
            });
            if (walk.finished || cancelled()) {
                break;
            }
            Task task = std::move(walk.stack.back());
            walk.stack.pop_back();
            ++walk.busy;
            lock.unlock();
            run(task);
            closeBatch.flush();
            task.dropParent();
            flushProgress();
            lock.lock();
            --walk.busy;
            if (walk.busy == 0 && walk.stack.empty()) {
                walk.finished = true;
                walk.wake.notify_all();
            }
        }
        flushProgress();
        // In this thread's own table: closed here, not by whoever destroys the Worker.
        rootFds.clear();
    }
};

} // namespace

struct Walker::Private : WalkerState {
    std::mutex cancelMutex; // cancel() may come while walk() sets up or tears down
    Walk *walk = nullptr;
};

Walker::Walker(WalkOptions options)
    : d(std::make_unique<Private>())
{
    d->options = std::move(options);
}

Walker::~Walker() = default;

void Walker::setEntryCallback(EntryCallback callback)
{
    d->entryCallback = std::move(callback);
}

void Walker::setFolderCallback(FolderCallback callback)
{
    d->folderCallback = std::move(callback);
}

void Walker::setProblemCallback(ProblemCallback callback)
{
    d->problemCallback = std::move(callback);
}

WalkResult Walker::walk(const std::vector<std::string> &roots)
{
    // A Walker may walk again after a cancelled walk.
    d->cancelled.store(false);
    d->entries.store(0);
    d->bytes.store(0);

    Walk walk;
    walk.d = d.get();
    walk.roots = &roots;
    walk.loadOptions = d->options.loadOptions;
    walk.loadOptions.cancel = &d->cancelled;
    walk.loadOptions.progress = nullptr;
    for (int i = int(roots.size()) - 1; i >= 0; --i) {
        walk.stack.emplace_back(nullptr, std::string(), i, false);
    }
    walk.finished = walk.stack.empty();
    {
        std::lock_guard lock(d->cancelMutex);
        d->walk = &walk;
    }

    int threadCount = d->options.threads > 0 ? d->options.threads : std::max(2, int(std::thread::hardware_concurrency()));
    // With two threads or more, each gets a descriptor table of its own, so
    // that the open and the close of each file do not share the table's lock
    // and its cache lines with the other threads (measured: a few percent of
    // a warm walk). That needs folders opened by path (openat2 with no
    // symlinks), so not when following symlinks; and threads of the walk's
    // own, since the caller's thread must keep the process's table.
    walk.rootIds.resize(roots.size());
    if (d->options.countMountsOnce && !d->options.followSymlinks) {
        std::string error;
        if (const std::optional<std::vector<MountInfoEntry>> mounts = readMountInfo("/proc", &error)) {
            walk.aliases = findMountAliases(*mounts, roots);
        } else {
            qCWarning(CACHESCOPE_CORE) << "bind mounts and overlays may be counted twice:" << error.c_str();
        }
        for (const MountAlias &alias : walk.aliases) {
            walk.aliasAt.emplace(alias.mountPoint, &alias);
        }
        for (const std::string &root : roots) {
            walk.rootsAgain.push_back(MountAlias{root, {root}, MountAlias::Kind::RootAgain});
        }
    }
    walk.ownTables = threadCount > 1 && !d->options.followSymlinks && openat2Works();
    std::vector<std::unique_ptr<Worker>> workers;
    workers.reserve(size_t(threadCount));
    for (int i = 0; i < threadCount; ++i) {
        workers.push_back(std::make_unique<Worker>(walk, roots.size()));
    }
    std::vector<std::thread> threads;
    for (int i = walk.ownTables ? 0 : 1; i < threadCount; ++i) {
        threads.emplace_back([&worker = *workers[i]] {
            worker.loop();
        });
    }
    if (!walk.ownTables) {
        workers[0]->loop();
    }
    for (std::thread &thread : threads) {
        thread.join();
    }
    {
        std::lock_guard lock(d->cancelMutex);
        d->walk = nullptr;
    }
    // Tasks left by a cancel hold folder descriptors: close them now.
    walk.stack.clear();

    WalkResult result;
    result.perRoot.resize(roots.size());
    for (const auto &worker : workers) {
        for (size_t i = 0; i < roots.size(); ++i) {
            result.perRoot[i].add(worker->totals[i]);
        }
        // A method that read residency rather than "no page cache" where both were met.
        if (result.method == ResidencyMethod::None || (result.method == ResidencyMethod::NoPageCache && worker->method != ResidencyMethod::None)) {
            result.method = worker->method;
        }
    }
    for (const WalkTotals &totals : result.perRoot) {
        result.total.add(totals);
    }
    result.cancelled = d->cancelled.load();
    qCDebug(CACHESCOPE_CORE) << "walked" << roots.size() << "roots on" << workers.size() << "threads:" << result.total.files << "files,"
                             << result.total.directories << "folders," << result.total.errors << "problems" << (result.cancelled ? "(cancelled)" : "");
    return result;
}

void Walker::cancel()
{
    d->cancelled.store(true);
    std::lock_guard lock(d->cancelMutex);
    if (d->walk) {
        d->walk->wakeAll();
    }
}

bool Walker::isCancelled() const
{
    return d->cancelled.load();
}

uint64_t Walker::entriesSeen() const
{
    return d->entries.load(std::memory_order_relaxed);
}

uint64_t Walker::bytesSeen() const
{
    return d->bytes.load(std::memory_order_relaxed);
}

} // namespace Cachescope
