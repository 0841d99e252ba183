// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "uniquefd.h"

#include <cstdint>
#include <string>
#include <vector>

struct stat;

namespace Cachescope
{

// How the numbers were obtained. cachestat(2) (Linux 6.5+) also knows dirty,
// writeback and evicted pages; mincore(2) knows residency only.
enum class ResidencyMethod : uint8_t {
    None,
    Cachestat,
    Mincore,
    // The file is on a file system that keeps no page cache (proc, sysfs,
    // cgroup, ...): nothing of it can be resident, and it was not opened.
    NoPageCache,
};

[[nodiscard]] const char *methodName(ResidencyMethod method); // "cachestat", "mincore", "no-page-cache" or "none"

struct ResidencyOptions {
    // Use mincore even where cachestat exists (tests and benchmarks compare both).
    bool forceMincore = false;
};

// What every residency answer carries besides its numbers. A hidden answer has
// no numbers at all: the kernel would have lied (mincore claims every page is
// resident) or refused (cachestat says EPERM), so we say why instead.
struct ResidencyStatus {
    ResidencyMethod method = ResidencyMethod::None;
    bool hidden = false;
    std::string hiddenReason;
    int error = 0; // errno of the step that failed, 0 when fine
    std::string errorText; // the reason, for people ("mincore: ..."); callers name the path
    [[nodiscard]] bool ok() const
    {
        return error == 0;
    }
    [[nodiscard]] bool known() const
    {
        return error == 0 && !hidden;
    }
};

struct Residency : ResidencyStatus {
    uint64_t sizeBytes = 0;
    uint64_t pages = 0; // ceil(size / page size)
    uint64_t resident = 0;
    // Known only with cachestat (detail == true).
    bool detail = false;
    uint64_t dirty = 0;
    uint64_t writeback = 0;
    uint64_t evicted = 0;
    uint64_t recentlyEvicted = 0;
};

// Whether files of the file system of this statfs f_type never hold page
// cache: proc, sysfs, cgroup, debugfs, tracefs and the other file systems
// whose files the kernel makes up as they are read. tmpfs, ramfs and
// hugetlbfs keep their files in the page cache: false for them.
[[nodiscard]] bool fileSystemKeepsNoPageCache(int64_t type);
// The same for the file system of an open descriptor (false when fstatfs fails).
[[nodiscard]] bool descriptorKeepsNoPageCache(int fd);
// A Residency of such a file: known, and no pages at all. Its size is the
// kernel's own figure (/proc/kcore's is the size of the address space), not
// data that could be cached, so it counts in no figure of pages.
[[nodiscard]] Residency noPageCacheResidency(uint64_t sizeBytes);

// Buckets over the whole file, or over a window of it, for heatmaps. Bucket b
// covers the pages windowFirst + [firstPage(b), firstPage(b + 1)); memory is
// O(buckets), never O(pages).
struct Histogram : ResidencyStatus {
    uint64_t windowFirst = 0; // first page of the window (0: the whole file)
    uint64_t pages = 0; // pages in the window
    bool detail = false; // dirty and writeback are filled (cachestat)
    std::vector<uint64_t> resident;
    std::vector<uint64_t> dirty;
    std::vector<uint64_t> writeback;

    [[nodiscard]] int buckets() const
    {
        return int(resident.size());
    }
    [[nodiscard]] uint64_t firstPage(int bucket) const;
    [[nodiscard]] uint64_t pagesIn(int bucket) const
    {
        return firstPage(bucket + 1) - firstPage(bucket);
    }
};

enum PageFlag : uint8_t {
    PageResident = 1,
    PageDirty = 2,
    PageWriteback = 4,
};

// Exact flags of every page in a window of the file (zoom). Memory is O(window).
struct PageMap : ResidencyStatus {
    uint64_t firstPage = 0;
    bool detail = false; // PageDirty and PageWriteback are filled (cachestat)
    std::vector<uint8_t> flags; // PageFlag bits, one byte a page
};

struct PageRange {
    uint64_t first = 0;
    uint64_t count = 0;
    friend bool operator==(const PageRange &, const PageRange &) = default;
};

struct ResidentRanges : ResidencyStatus {
    uint64_t pages = 0;
    std::vector<PageRange> ranges; // sorted, disjoint, not adjacent
};

// Raw cachestat(2) counts for a byte range (len 0: to the end of the file).
struct CachestatCounts {
    uint64_t cache = 0;
    uint64_t dirty = 0;
    uint64_t writeback = 0;
    uint64_t evicted = 0;
    uint64_t recentlyEvicted = 0;
};

// What every residency result takes from a cachestat answer.
template<typename Result>
void takeCachestatCounts(Result &result, const CachestatCounts &counts)
{
    result.method = ResidencyMethod::Cachestat;
    result.detail = true;
    result.resident = counts.cache;
    result.dirty = counts.dirty;
    result.writeback = counts.writeback;
}

[[nodiscard]] uint64_t pageSize();
[[nodiscard]] uint64_t pagesFor(uint64_t bytes);

// True when the running kernel has cachestat(2). Probed once.
[[nodiscard]] bool cachestatAvailable();

// True for a file opened through an overlay mount, whose pages cachestat
// never sees (they are the layer's file's): use mincore. Asked once a
// device and thread.
[[nodiscard]] bool cachestatBlindTo(int fd, const struct stat &st);

// Returns 0 and fills counts, or an errno (ENOSYS, EPERM, EBADF, ...).
[[nodiscard]] int cachestatRange(int fd, uint64_t offset, uint64_t length, CachestatCounts &counts);

// Whether the kernel tells this user the truth about this file's residency:
// root, the owner, or someone who may write it (the rule mincore and
// cachestat apply). Returns an empty string when it does, else the reason.
[[nodiscard]] std::string hiddenReasonFor(const struct stat &st, int fd);

// All descriptor functions take an fd open for reading on a regular file and
// its fstat. They never read file data and never change the page cache.
[[nodiscard]] Residency residencyOfDescriptor(int fd, const struct stat &st, const ResidencyOptions &options = {});
[[nodiscard]] Histogram histogramOfDescriptor(int fd, const struct stat &st, int buckets, const ResidencyOptions &options = {});
// The same over pages [firstPage, firstPage + pageCount), clipped to the file (zoom).
[[nodiscard]] Histogram
histogramOfWindow(int fd, const struct stat &st, uint64_t firstPage, uint64_t pageCount, int buckets, const ResidencyOptions &options = {});
[[nodiscard]] PageMap pageMapOfDescriptor(int fd, const struct stat &st, uint64_t firstPage, uint64_t pageCount, const ResidencyOptions &options = {});
[[nodiscard]] ResidentRanges residentRangesOfDescriptor(int fd, const struct stat &st, const ResidencyOptions &options = {});

// Opens path safely (O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_NOATIME where allowed),
// refuses anything but a regular file with a clear error, and answers. The
// path itself may be a symlink: the user named it.
[[nodiscard]] Residency residencyOfPath(const std::string &path, const ResidencyOptions &options = {});
[[nodiscard]] Histogram histogramOfPath(const std::string &path, int buckets, const ResidencyOptions &options = {});
[[nodiscard]] PageMap pageMapOfPath(const std::string &path, uint64_t firstPage, uint64_t pageCount, const ResidencyOptions &options = {});

// Opens a regular file for reading the safe way. Returns the descriptor and
// fills st, or an invalid one with error/errorText set ("is a FIFO, not a
// regular file: never opened", ...).
// nofollow: refuse a symlink as the last component (walks), else follow it.
// looked: what the caller's own stat of the name said just before (its type
// checked before opening), which spares the look this function takes itself.
[[nodiscard]] UniqueFd
openRegularFile(int dirFd, const char *name, bool nofollow, struct stat &st, int &error, std::string &errorText, const struct stat *looked = nullptr);

} // namespace Cachescope
