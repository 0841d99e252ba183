// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// From the kernel's page-cache events to what people read: which files, which
// pages, in which extents, which of them the program asked for and which only
// readahead brought in, and the file system's own metadata.

#include "residency.h"
#include "trace/tracereport.h"

#include <map>
#include <string>
#include <vector>

namespace Cachescope::Trace
{

// Page numbers as sorted, disjoint [first, first + count) ranges.
class PageRangeSet
{
public:
    void add(uint64_t first, uint64_t count);
    [[nodiscard]] uint64_t pages() const;
    // Pages of [first, first + count) in the set.
    [[nodiscard]] uint64_t covered(uint64_t first, uint64_t count) const;
    // Pages of this set that other does not have.
    [[nodiscard]] uint64_t pagesNotIn(const PageRangeSet &other) const;
    [[nodiscard]] const std::map<uint64_t, uint64_t> &ranges() const
    {
        return m_ranges;
    }

private:
    std::map<uint64_t, uint64_t> m_ranges; // first -> end (exclusive)
};

struct AnalysisOptions {
    // Paths that may name the traced inodes: the files the command opened
    // (the cold-start recording) and any others worth a stat. Each is
    // stat'ed once; an inode none of them names stays as dev:inode.
    std::vector<std::string> candidates;
    // Time 0 of the report on the trace clock (CLOCK_MONOTONIC, ns): the
    // moment the command was let go. 0: the first event.
    uint64_t startNs = 0;
    // Where the block devices are listed (their names for the metadata).
    std::string sysDevBlock = "/sys/dev/block";
};

// The Report of one Capture (method Tracefs). The caller fills in what the
// events do not know: command, durationSeconds, exitStatus.
//
// - Folios are expanded: a folio of order n is 2^n pages.
// - Extents: consecutive pages of one file, each added right after the
//   previous one of that file (another file's pages may come in between,
//   as they do when two processes or the file system's metadata interleave).
// - Asked for: the pages of mm_filemap_get_pages (the range a read() wanted)
//   and of mm_filemap_fault (the page a fault wanted). mm_filemap_map_pages
//   is fault-around: the kernel maps the cached pages around a fault on its
//   own initiative, so its range does not count as asked for (a page the
//   program then touches through that mapping raises no event: it counts as
//   readahead, a limit of what the kernel reports).
// - Metadata: pages whose owner is a block device's own inode (a device of
//   major 0, the block-device file system, with the inode number being the
//   disk's device number major << 20 | minor) are the file system's
//   metadata, named after the disk ("metadata of /dev/vda"); their page
//   numbers are positions on the disk.
[[nodiscard]] Report analyzeCapture(const Capture &capture, const AnalysisOptions &options);

// One file's resident pages before and after a run: the unprivileged
// fallback's raw material.
struct ResidencyChange {
    std::string path;
    uint32_t major = 0; // of the file's st_dev
    uint32_t minor = 0;
    uint64_t inode = 0;
    uint64_t sizeBytes = 0;
    int64_t modifiedNs = 0;
    std::vector<PageRange> before; // sorted, disjoint (residentRangesOfDescriptor)
    std::vector<PageRange> after;
    uint64_t reclaimed = 0; // pages the kernel reclaimed during the run (cachestat's evicted count since the eviction)
};

// The Report of the fallback (method ResidencyDiff): per file, the pages
// resident after the run that were not before, as extents in page order
// (no order in time, no time, nothing known of asked-for pages). Files that
// gained no page are left out. pagesDeleted is what the kernel reclaimed.
[[nodiscard]] Report residencyDiffReport(const std::vector<ResidencyChange> &files);

// The pages of each file an extent list covers, by file path (metadata left
// out): the page sets two methods are compared on.
[[nodiscard]] std::map<std::string, PageRangeSet> pagesByPath(const Report &report);

// The kernel's device number (MKDEV: major << 20 | minor) of a block device's
// own inode, and back.
[[nodiscard]] uint64_t kernelDeviceNumber(uint32_t major, uint32_t minor);
[[nodiscard]] uint32_t kernelMajor(uint64_t deviceNumber);
[[nodiscard]] uint32_t kernelMinor(uint64_t deviceNumber);

// "/dev/vda" for 254:0, from sysDevBlock/254:0/uevent's DEVNAME; empty
// when the device is not listed.
[[nodiscard]] std::string blockDeviceName(uint32_t major, uint32_t minor, const std::string &sysDevBlock = "/sys/dev/block");

} // namespace Cachescope::Trace
