// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "residency.h"

#include "cachescope_core_debug.h"
#include "format.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#ifndef __NR_cachestat
#define __NR_cachestat 451 // the same number on every architecture (Linux 6.5)
#endif

namespace Cachescope
{

namespace
{

// The kernel's structures (include/uapi/linux/mman.h), spelled out so that we
// build against older kernel headers too.
struct KernelCachestatRange {
    uint64_t offset;
    uint64_t length;
};

struct KernelCachestat {
    uint64_t nrCache;
    uint64_t nrDirty;
    uint64_t nrWriteback;
    uint64_t nrEvicted;
    uint64_t nrRecentlyEvicted;
};

// Page numbers times bucket numbers can pass 64 bits on huge files.
__extension__ typedef unsigned __int128 WideUnsigned;

// -1: not probed yet, 0: absent, 1: present.
std::atomic<int> cachestatState{-1};

// mincore is asked about at most this many pages at a time, so that the
// vector (one byte a page) stays at 256 KiB whatever the file's size.
constexpr uint64_t mincoreChunkPages = uint64_t(256) * 1024;

// Below this many pages a mixed range is read with one mincore call rather
// than split further with cachestat.
constexpr uint64_t splitLeafPages = uint64_t(64) * 1024;

const char *typeName(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return "regular file";
    case S_IFDIR:
        return "folder";
    case S_IFLNK:
        return "symbolic link";
    case S_IFIFO:
        return "FIFO";
    case S_IFSOCK:
        return "socket";
    case S_IFCHR:
        return "character device";
    case S_IFBLK:
        return "block device";
    }
    return "file of unknown type";
}

const char *const hiddenText = "the kernel shows page-cache residency only to the file's owner, to users who may write to it, and to root";

template<typename Status>
void setError(Status &status, int error, const char *what)
{
    status.error = error;
    status.errorText = errnoText(what, error);
}

template<typename Status>
void setHidden(Status &status)
{
    status.hidden = true;
    status.hiddenReason = hiddenText;
}

// Calls visit(firstPage, vector, count) for consecutive chunks of the window,
// where vector[i] & 1 tells whether page firstPage + i is resident. Returns 0
// or an errno. Pages past the end of the file read as not resident.
template<typename Visit>
int mincoreWindow(int fd, uint64_t firstPage, uint64_t pageCount, Visit &&visit)
{
    const uint64_t page = pageSize();
    std::vector<unsigned char> vector(size_t(std::min(pageCount, mincoreChunkPages)));
    uint64_t done = 0;
    while (done < pageCount) {
        const uint64_t count = std::min(pageCount - done, mincoreChunkPages);
        const uint64_t offset = (firstPage + done) * page;
        void *map = mmap(nullptr, count * page, PROT_READ, MAP_SHARED, fd, off_t(offset));
        if (map == MAP_FAILED) {
            return errno;
        }
        const int result = mincore(map, count * page, vector.data());
        const int error = errno;
        munmap(map, count * page);
        if (result != 0) {
            return error;
        }
        visit(firstPage + done, vector.data(), count);
        done += count;
    }
    return 0;
}

// Splits [first, first + count) with cachestat until each part is uniform in
// `field` (all pages or none), and calls mark(first, count) for the parts
// where every page has it. Mixed parts of at most splitLeafPages pages are
// handed to leaf(first, count) when one is given. Returns 0 or an errno.
template<typename Field, typename Mark, typename Leaf>
int splitByCachestat(int fd, uint64_t first, uint64_t count, Field field, Mark &&mark, Leaf &&leaf)
{
    if (count == 0) {
        return 0;
    }
    const uint64_t page = pageSize();
    CachestatCounts counts;
    if (const int error = cachestatRange(fd, first * page, count * page, counts); error != 0) {
        return error;
    }
    const uint64_t have = counts.*field;
    if (have == 0) {
        return 0;
    }
    if (have >= count) {
        mark(first, count);
        return 0;
    }
    if (count <= splitLeafPages && leaf(first, count)) {
        return 0;
    }
    const uint64_t half = count / 2;
    if (const int error = splitByCachestat(fd, first, half, field, mark, leaf); error != 0) {
        return error;
    }
    return splitByCachestat(fd, first + half, count - half, field, mark, leaf);
}

// Decides cachestat or mincore for one descriptor, and whether the answer is
// hidden. Returns true when the caller may go on with `method`.
template<typename Status>
bool chooseMethod(int fd, const struct stat &st, const ResidencyOptions &options, Status &status)
{
    if (!options.forceMincore && cachestatAvailable() && !cachestatBlindTo(fd, st)) {
        CachestatCounts probe;
        // An empty range costs nothing and tells whether the kernel lets us see.
        const int error = cachestatRange(fd, 0, 1, probe);
        if (error == 0) {
            status.method = ResidencyMethod::Cachestat;
            return true;
        }
        if (error == EPERM) {
            status.method = ResidencyMethod::Cachestat;
            setHidden(status);
            return false;
        }
        if (error != ENOSYS) {
            status.method = ResidencyMethod::Cachestat;
            setError(status, error, "cachestat");
            return false;
        }
    }
    status.method = ResidencyMethod::Mincore;
    // mincore does not refuse: it claims every page is resident. Ask first.
    if (const std::string reason = hiddenReasonFor(st, fd); !reason.empty()) {
        status.hidden = true;
        status.hiddenReason = reason;
        return false;
    }
    return true;
}

} // namespace

const char *methodName(ResidencyMethod method)
{
    switch (method) {
    case ResidencyMethod::Cachestat:
        return "cachestat";
    case ResidencyMethod::Mincore:
        return "mincore";
    case ResidencyMethod::NoPageCache:
        return "no-page-cache";
    case ResidencyMethod::None:
        break;
    }
    return "none";
}

bool fileSystemKeepsNoPageCache(int64_t type)
{
    // statfs f_type values (linux/magic.h; configfs's is in fs/configfs).
    // Each of these answers a read from its own code, never from cached pages.
    switch (type) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case SELINUX_MAGIC:
    case SMACK_MAGIC:
    case BPF_FS_MAGIC:
    case PSTOREFS_MAGIC:
    case EFIVARFS_MAGIC:
    case DEVPTS_SUPER_MAGIC:
    case BINFMTFS_MAGIC:
    case 0x65735543: // fusectl
    case RDTGROUP_SUPER_MAGIC:
    case 0x62656570: // configfs
    case 0x19800202: // mqueue
    case 0x67596969: // rpc_pipefs
    case 0x6e667364: // nfsd
    case 0xabba1974: // xenfs
    case NSFS_MAGIC:
        return true;
    default:
        return false;
    }
}

bool descriptorKeepsNoPageCache(int fd)
{
    struct statfs fs;
    // Through uint32_t: f_type is a signed int on 32-bit systems, and some magics have the top bit set.
    return fstatfs(fd, &fs) == 0 && fileSystemKeepsNoPageCache(int64_t(uint32_t(fs.f_type)));
}

Residency noPageCacheResidency(uint64_t sizeBytes)
{
    Residency residency;
    residency.method = ResidencyMethod::NoPageCache;
    residency.sizeBytes = sizeBytes;
    residency.pages = 0;
    return residency;
}

uint64_t pageSize()
{
    static const uint64_t size = uint64_t(sysconf(_SC_PAGESIZE));
    return size;
}

uint64_t pagesFor(uint64_t bytes)
{
    const uint64_t page = pageSize();
    return bytes / page + (bytes % page != 0 ? 1 : 0);
}

uint64_t Histogram::firstPage(int bucket) const
{
    const int count = buckets();
    if (count == 0 || bucket <= 0) {
        return 0;
    }
    if (bucket >= count) {
        return pages;
    }
    return uint64_t(WideUnsigned(pages) * unsigned(bucket) / unsigned(count));
}

int cachestatRange(int fd, uint64_t offset, uint64_t length, CachestatCounts &counts)
{
    KernelCachestatRange range{offset, length};
    KernelCachestat stat{};
    if (syscall(__NR_cachestat, fd, &range, &stat, 0) != 0) {
        const int error = errno;
        if (error == ENOSYS) {
            cachestatState.store(0, std::memory_order_relaxed);
        }
        return error;
    }
    counts = {stat.nrCache, stat.nrDirty, stat.nrWriteback, stat.nrEvicted, stat.nrRecentlyEvicted};
    return 0;
}

// A file opened through an overlay mount: cachestat reads the mapping of the
// file it is given (mm/filemap.c), and an overlay file's own mapping stays
// empty, because its reads fill the cache of the layer's file
// (fs/overlayfs/file.c reads through the real file). mincore sees those
// pages: an overlay file is mapped as the real file (backing_file_mmap(),
// fs/backing-file.c). Measured on Linux 6.18: a 16 MiB file read through an
// overlay, cachestat 0 pages, mincore 4096. Asked once a device and thread.
bool cachestatBlindTo(int fd, const struct stat &st)
{
    thread_local bool known = false;
    thread_local dev_t device = 0;
    thread_local bool blind = false;
    if (!known || device != st.st_dev) {
        struct statfs fs;
        blind = fstatfs(fd, &fs) == 0 && uint32_t(fs.f_type) == uint32_t(OVERLAYFS_SUPER_MAGIC);
        device = st.st_dev;
        known = true;
    }
    return blind;
}

bool cachestatAvailable()
{
    int state = cachestatState.load(std::memory_order_relaxed);
    if (state < 0) {
        // On a bad descriptor a kernel with cachestat answers EBADF, one
        // without it ENOSYS.
        KernelCachestatRange range{0, 0};
        KernelCachestat stat{};
        const long result = syscall(__NR_cachestat, -1, &range, &stat, 0);
        state = (result != 0 && errno == ENOSYS) ? 0 : 1;
        cachestatState.store(state, std::memory_order_relaxed);
        qCDebug(CACHESCOPE_CORE) << (state == 1 ? "cachestat(2) is available: residency with dirty, writeback and evicted pages"
                                                : "no cachestat(2) (before Linux 6.5): residency from mincore(2)");
    }
    return state == 1;
}

std::string hiddenReasonFor(const struct stat &st, int fd)
{
    // The rule of mm/mincore.c (can_do_mincore) and mm/filemap.c
    // (can_do_cachestat): the owner, or anyone with CAP_FOWNER, or anyone
    // who may open the file for writing sees the truth.
    const uid_t euid = geteuid();
    if (euid == 0 || st.st_uid == euid) {
        return {};
    }
    if (faccessat(fd, "", W_OK, AT_EACCESS | AT_EMPTY_PATH) == 0) {
        return {};
    }
    return hiddenText;
}

Residency residencyOfDescriptor(int fd, const struct stat &st, const ResidencyOptions &options)
{
    Residency result;
    result.sizeBytes = uint64_t(std::max<off_t>(st.st_size, 0));
    result.pages = pagesFor(result.sizeBytes);
    if (!options.forceMincore && cachestatAvailable() && !cachestatBlindTo(fd, st)) {
        // One call answers everything, and EPERM tells us it is hidden.
        CachestatCounts counts;
        const int error = cachestatRange(fd, 0, 0, counts);
        if (error == 0) {
            takeCachestatCounts(result, counts);
            result.evicted = counts.evicted;
            result.recentlyEvicted = counts.recentlyEvicted;
            // The file may have grown since fstat: never claim more than 100 %.
            result.pages = std::max(result.pages, result.resident);
            return result;
        }
        if (error == EPERM) {
            result.method = ResidencyMethod::Cachestat;
            setHidden(result);
            return result;
        }
        if (error != ENOSYS) {
            result.method = ResidencyMethod::Cachestat;
            setError(result, error, "cachestat");
            return result;
        }
    }
    if (!chooseMethod(fd, st, ResidencyOptions{.forceMincore = true}, result)) {
        return result;
    }
    uint64_t resident = 0;
    const int error = mincoreWindow(fd, 0, result.pages, [&](uint64_t, const unsigned char *vector, uint64_t count) {
        for (uint64_t i = 0; i < count; ++i) {
            resident += vector[i] & 1;
        }
    });
    if (error != 0) {
        setError(result, error, "mincore");
        return result;
    }
    result.resident = resident;
    return result;
}

Histogram histogramOfDescriptor(int fd, const struct stat &st, int buckets, const ResidencyOptions &options)
{
    return histogramOfWindow(fd, st, 0, ~uint64_t(0), buckets, options);
}

Histogram histogramOfWindow(int fd, const struct stat &st, uint64_t firstPage, uint64_t pageCount, int buckets, const ResidencyOptions &options)
{
    Histogram result;
    const uint64_t filePages = pagesFor(uint64_t(std::max<off_t>(st.st_size, 0)));
    result.windowFirst = std::min(firstPage, filePages);
    result.pages = std::min(pageCount, filePages - result.windowFirst);
    if (!chooseMethod(fd, st, options, result)) {
        return result;
    }
    // A bucket holds at least one page: a three-page file has three cells.
    const int count = int(std::min<uint64_t>(uint64_t(std::max(buckets, 0)), result.pages));
    result.resident.assign(size_t(count), 0);
    if (result.method == ResidencyMethod::Cachestat) {
        result.detail = true;
        result.dirty.assign(size_t(count), 0);
        result.writeback.assign(size_t(count), 0);
        const uint64_t page = pageSize();
        // One call a bucket: a 1 TiB file in 1,000 cells is 1,000 calls.
        for (int bucket = 0; bucket < count; ++bucket) {
            CachestatCounts counts;
            const int error = cachestatRange(fd, (result.windowFirst + result.firstPage(bucket)) * page, result.pagesIn(bucket) * page, counts);
            if (error != 0) {
                setError(result, error, "cachestat");
                return result;
            }
            result.resident[size_t(bucket)] = counts.cache;
            result.dirty[size_t(bucket)] = counts.dirty;
            result.writeback[size_t(bucket)] = counts.writeback;
        }
        return result;
    }
    if (count == 0) {
        return result;
    }
    int bucket = 0;
    uint64_t bucketEnd = result.firstPage(1);
    const int error = mincoreWindow(fd, result.windowFirst, result.pages, [&](uint64_t first, const unsigned char *vector, uint64_t n) {
        first -= result.windowFirst;
        for (uint64_t i = 0; i < n; ++i) {
            while (first + i >= bucketEnd && bucket + 1 < count) {
                ++bucket;
                bucketEnd = result.firstPage(bucket + 1);
            }
            result.resident[size_t(bucket)] += vector[i] & 1;
        }
    });
    if (error != 0) {
        setError(result, error, "mincore");
    }
    return result;
}

PageMap pageMapOfDescriptor(int fd, const struct stat &st, uint64_t firstPage, uint64_t pageCount, const ResidencyOptions &options)
{
    PageMap result;
    const uint64_t pages = pagesFor(uint64_t(std::max<off_t>(st.st_size, 0)));
    result.firstPage = std::min(firstPage, pages);
    const uint64_t count = std::min(pageCount, pages - result.firstPage);
    if (!chooseMethod(fd, st, options, result)) {
        return result;
    }
    result.flags.assign(size_t(count), 0);
    // Residency by mincore: we only get here when it tells the truth.
    int error = mincoreWindow(fd, result.firstPage, count, [&](uint64_t first, const unsigned char *vector, uint64_t n) {
        uint8_t *flags = result.flags.data() + (first - result.firstPage);
        for (uint64_t i = 0; i < n; ++i) {
            flags[i] = vector[i] & 1 ? PageResident : 0;
        }
    });
    if (error != 0) {
        setError(result, error, "mincore");
        return result;
    }
    if (result.method != ResidencyMethod::Cachestat) {
        return result;
    }
    result.detail = true;
    // Dirty and writeback pages, found by splitting down to single pages
    // only where there are some: a clean window costs one call.
    const auto markWith = [&](uint8_t flag) {
        return [&result, flag](uint64_t first, uint64_t n) {
            std::for_each_n(result.flags.begin() + ptrdiff_t(first - result.firstPage), n, [flag](uint8_t &f) {
                f |= flag;
            });
        };
    };
    const auto noLeaf = [](uint64_t, uint64_t) {
        return false;
    };
    error = splitByCachestat(fd, result.firstPage, count, &CachestatCounts::dirty, markWith(PageDirty), noLeaf);
    if (error == 0) {
        error = splitByCachestat(fd, result.firstPage, count, &CachestatCounts::writeback, markWith(PageWriteback), noLeaf);
    }
    if (error != 0) {
        setError(result, error, "cachestat");
    }
    return result;
}

ResidentRanges residentRangesOfDescriptor(int fd, const struct stat &st, const ResidencyOptions &options)
{
    ResidentRanges result;
    result.pages = pagesFor(uint64_t(std::max<off_t>(st.st_size, 0)));
    if (!chooseMethod(fd, st, options, result)) {
        return result;
    }
    const auto add = [&result](uint64_t first, uint64_t count) {
        if (!result.ranges.empty() && result.ranges.back().first + result.ranges.back().count == first) {
            result.ranges.back().count += count;
        } else {
            result.ranges.push_back({first, count});
        }
    };
    int mincoreError = 0;
    // Reads a window with mincore and adds its resident runs.
    const auto scan = [&](uint64_t first, uint64_t count) {
        mincoreError = mincoreWindow(fd, first, count, [&](uint64_t chunkFirst, const unsigned char *vector, uint64_t n) {
            uint64_t i = 0;
            while (i < n) {
                if (!(vector[i] & 1)) {
                    ++i;
                    continue;
                }
                const uint64_t start = i;
                while (i < n && (vector[i] & 1)) {
                    ++i;
                }
                add(chunkFirst + start, i - start);
            }
        });
        return true;
    };
    if (result.method == ResidencyMethod::Cachestat) {
        // Large empty or full stretches cost one call each; a 1 TiB sparse
        // file with nothing cached is answered at once.
        const int error = splitByCachestat(fd, 0, result.pages, &CachestatCounts::cache, add, scan);
        if (error != 0) {
            setError(result, error, "cachestat");
            return result;
        }
    } else {
        scan(0, result.pages);
    }
    if (mincoreError != 0) {
        setError(result, mincoreError, "mincore");
    }
    return result;
}

UniqueFd openRegularFile(int dirFd, const char *name, bool nofollow, struct stat &st, int &error, std::string &errorText, const struct stat *looked)
{
    // Look before opening: opening a FIFO blocks, opening a device can have
    // effects. The type is checked again on the descriptor below, because the
    // name may be replaced in between.
    struct stat before;
    if (looked) {
        before = *looked;
    } else if (fstatat(dirFd, name, &before, nofollow ? AT_SYMLINK_NOFOLLOW : 0) != 0) {
        error = errno;
        errorText = errnoText(error);
        return UniqueFd();
    }
    const auto refuse = [&](mode_t mode) {
        error = S_ISDIR(mode) ? EISDIR : EINVAL;
        errorText = S_ISDIR(mode) ? std::string("is a folder") : std::string("is a ") + typeName(mode) + ", not a regular file: never opened";
        return UniqueFd();
    };
    if (!S_ISREG(before.st_mode)) {
        return refuse(before.st_mode);
    }
    const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0);
    UniqueFd fd;
    // O_NOATIME keeps us from touching access times, but only the owner (or
    // root) may ask for it.
    if (geteuid() == 0 || before.st_uid == geteuid()) {
        fd.reset(openat(dirFd, name, flags | O_NOATIME));
    }
    if (!fd) {
        fd.reset(openat(dirFd, name, flags));
    }
    if (!fd) {
        error = errno;
        errorText = error == ELOOP && nofollow ? std::string("is a symbolic link (not followed)") : errnoText(error);
        return UniqueFd();
    }
    if (fstat(fd.get(), &st) != 0) {
        error = errno;
        errorText = errnoText("fstat", error);
        return UniqueFd();
    }
    if (!S_ISREG(st.st_mode)) {
        return refuse(st.st_mode);
    }
    error = 0;
    errorText.clear();
    return fd;
}

namespace
{
// Opens the path and runs compute(fd, st), or returns a result with the error.
template<typename Result, typename Compute>
Result withOpenPath(const std::string &path, Compute &&compute)
{
    struct stat st;
    Result result;
    const UniqueFd fd = openRegularFile(AT_FDCWD, path.c_str(), false, st, result.error, result.errorText);
    if (!fd) {
        return result;
    }
    return compute(fd.get(), st);
}
} // namespace

Residency residencyOfPath(const std::string &path, const ResidencyOptions &options)
{
    return withOpenPath<Residency>(path, [&](int fd, const struct stat &st) {
        return residencyOfDescriptor(fd, st, options);
    });
}

Histogram histogramOfPath(const std::string &path, int buckets, const ResidencyOptions &options)
{
    return withOpenPath<Histogram>(path, [&](int fd, const struct stat &st) {
        return histogramOfDescriptor(fd, st, buckets, options);
    });
}

PageMap pageMapOfPath(const std::string &path, uint64_t firstPage, uint64_t pageCount, const ResidencyOptions &options)
{
    return withOpenPath<PageMap>(path, [&](int fd, const struct stat &st) {
        return pageMapOfDescriptor(fd, st, firstPage, pageCount, options);
    });
}

} // namespace Cachescope
