// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "traceanalysis.h"

#include "mountaliases.h"
#include "procfs.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

namespace Cachescope::Trace
{

namespace
{
// A page-cache owner as the kernel prints it: the superblock's device and the inode.
struct Owner {
    uint32_t major = 0;
    uint32_t minor = 0;
    uint64_t inode = 0;
    bool operator<(const Owner &other) const
    {
        return std::tie(major, minor, inode) < std::tie(other.major, other.minor, other.inode);
    }
};

Owner ownerOf(const RawEvent &event)
{
    return {event.major, event.minor, event.inode};
}

struct Name {
    std::string path;
    uint64_t size = 0;
    int64_t modifiedNs = 0;
};

// The names the candidates give, by the owner their pages have. A file of an
// overlay (tools/dev run's /usr, a container's root) keeps its pages in the
// file of a layer below, which the tracepoints name, while stat names an
// anonymous device (the overlay's; with layers on several file systems, one
// of its own for each layer). The inode number is the layer file's (Linux
// 6.18, samefs or not, xino off or needing no high bits: tools/dev run's
// /usr on a tmpfs upper layer), so such a file is also named under that
// number on the device of each of its overlay's layers.
struct Names {
    std::map<Owner, Name> byOwner;
    // Inode numbers of overlay files, by the device of a layer of their overlay.
    std::map<Owner, Name> byLayerInode;
};

// The devices of an overlay's layers. A layer at the overlay's own path
// (lowerdir=/usr under /usr) is hidden by it: the folder that holds it is on
// the layer's file system, unless the layer was a mount point of its own.
std::vector<std::pair<uint32_t, uint32_t>> overlayLayerDevices(const MountInfoEntry &overlay)
{
    std::vector<std::pair<uint32_t, uint32_t>> devices;
    for (const std::string &layer : overlayLayers(overlay.superOptions)) {
        std::string reachable = layer;
        struct stat st;
        while (::stat(reachable.c_str(), &st) == 0 && uint64_t(st.st_dev) == overlay.device && reachable.size() > 1) {
            const size_t slash = reachable.rfind('/');
            reachable = slash == 0 || slash == std::string::npos ? std::string("/") : reachable.substr(0, slash);
        }
        if (::stat(reachable.c_str(), &st) == 0 && uint64_t(st.st_dev) != overlay.device) {
            devices.emplace_back(::major(st.st_dev), ::minor(st.st_dev));
        }
    }
    return devices;
}

Names namesOf(const std::vector<std::string> &candidates)
{
    Names names;
    std::optional<std::vector<MountInfoEntry>> mounts; // read at the first file on a pseudo device
    VisibleMounts visible; // into *mounts
    std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> layerDevices; // by overlay mount id
    for (const std::string &path : candidates) {
        struct stat st;
        if (::stat(path.c_str(), &st) != 0) {
            continue;
        }
        const Name name{path, uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec};
        // The first name of a hard-linked inode wins: the one the program opened first.
        names.byOwner.emplace(Owner{::major(st.st_dev), ::minor(st.st_dev), uint64_t(st.st_ino)}, name);
        // An overlay's files have anonymous devices: its own, or with layers
        // on several file systems one a layer. Which overlay, by the path.
        if (::major(st.st_dev) != 0) {
            continue;
        }
        char resolved[PATH_MAX];
        if (!::realpath(path.c_str(), resolved)) {
            continue;
        }
        if (!mounts) {
            mounts = readMountInfo().value_or(std::vector<MountInfoEntry>{});
            visible = visibleMounts(*mounts);
        }
        const MountInfoEntry *overlay = mountShowing(visible, resolved);
        if (!overlay || overlay->fsType != "overlay") {
            continue;
        }
        auto devices = layerDevices.find(overlay->id);
        if (devices == layerDevices.end()) {
            devices = layerDevices.emplace(overlay->id, overlayLayerDevices(*overlay)).first;
        }
        for (const auto &[major, minor] : devices->second) {
            names.byLayerInode.emplace(Owner{major, minor, uint64_t(st.st_ino)}, name);
        }
    }
    return names;
}

// The block device whose own inode this is, when it is one.
std::optional<std::string> metadataDevice(const Owner &owner, const std::string &sysDevBlock)
{
    // The block-device file system is a pseudo file system: an anonymous
    // device, major 0 (0:3 on Linux 6.18).
    if (owner.major != 0 || owner.inode == 0 || owner.inode > UINT32_MAX) {
        return std::nullopt;
    }
    const uint32_t major = kernelMajor(owner.inode);
    const uint32_t minor = kernelMinor(owner.inode);
    struct stat st;
    const std::string listed = sysDevBlock + "/" + std::to_string(major) + ":" + std::to_string(minor);
    if (major == 0 || ::stat(listed.c_str(), &st) != 0) {
        return std::nullopt;
    }
    return blockDeviceName(major, minor, sysDevBlock);
}

class Analysis
{
public:
    Analysis(const Capture &capture, const AnalysisOptions &options)
        : m_capture(capture)
        , m_options(options)
    {
    }

    Report run()
    {
        // The per-CPU buffers are merged by time already, but not
        // necessarily across CPUs with equal stamps: order once, stably.
        std::vector<size_t> order(m_capture.events.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
            return m_capture.events[a].timeNs < m_capture.events[b].timeNs;
        });
        m_startNs = m_options.startNs;
        if (m_startNs == 0 && !order.empty()) {
            m_startNs = m_capture.events[order.front()].timeNs;
        }

        collectAsked();
        for (const size_t index : order) {
            const RawEvent &event = m_capture.events[index];
            switch (event.kind) {
            case EventKind::Added:
                added(event);
                break;
            case EventKind::Deleted:
                if (const auto found = m_fileIndex.find(ownerOf(event)); found != m_fileIndex.end()) {
                    m_report.files[found->second].pagesDeleted += event.pageCount;
                }
                break;
            case EventKind::BlockIssue:
                m_report.requests.push_back({seconds(event.timeNs), event.major, event.minor, event.sector, event.bytes, event.rwbs});
                break;
            case EventKind::GetPages:
            case EventKind::MapPages:
            case EventKind::Fault:
                break;
            }
        }
        countAsked();
        nameFiles();
        addNotes();
        m_report.method = Method::Tracefs;
        m_report.usageKnown = m_capture.usageEvents;
        m_report.lostEvents = m_capture.lostEvents;
        m_report.endReason = m_capture.endReason;
        return std::move(m_report);
    }

private:
    double seconds(uint64_t timeNs) const
    {
        return timeNs > m_startNs ? double(timeNs - m_startNs) / 1e9 : 0.0;
    }

    void collectAsked()
    {
        for (const RawEvent &event : m_capture.events) {
            if (event.kind == EventKind::GetPages || event.kind == EventKind::Fault) {
                m_asked[ownerOf(event)].add(event.firstPage, std::max<uint64_t>(event.pageCount, 1));
            }
        }
    }

    void added(const RawEvent &event)
    {
        const Owner owner = ownerOf(event);
        auto [found, isNew] = m_fileIndex.emplace(owner, m_report.files.size());
        if (isNew) {
            File file;
            file.major = owner.major;
            file.minor = owner.minor;
            file.inode = owner.inode;
            m_report.files.push_back(file);
            m_openExtent.push_back(-1);
        }
        const size_t fileIndex = found->second;
        const uint64_t pages = std::max<uint64_t>(event.pageCount, 1); // a folio: 2^order pages
        m_report.files[fileIndex].pagesAdded += pages;
        const double at = seconds(event.timeNs);
        const long open = m_openExtent[fileIndex];
        if (open >= 0) {
            Extent &extent = m_report.extents[size_t(open)];
            if (extent.firstPage + extent.pageCount == event.firstPage) {
                extent.pageCount += pages;
                extent.endSeconds = at;
                return;
            }
        }
        m_openExtent[fileIndex] = long(m_report.extents.size());
        m_report.extents.push_back({int(fileIndex), event.firstPage, pages, at, at, 0});
    }

    void countAsked()
    {
        for (Extent &extent : m_report.extents) {
            File &file = m_report.files[size_t(extent.file)];
            const auto ranges = m_asked.find(Owner{file.major, file.minor, file.inode});
            extent.askedPages = ranges == m_asked.end() ? 0 : ranges->second.covered(extent.firstPage, extent.pageCount);
            file.pagesAsked += extent.askedPages;
        }
    }

    void nameFiles()
    {
        const Names names = namesOf(m_options.candidates);
        for (File &file : m_report.files) {
            const Owner owner{file.major, file.minor, file.inode};
            const auto lookUp = [&owner](const std::map<Owner, Name> &in) -> const Name * {
                const auto found = in.find(owner);
                return found == in.end() ? nullptr : &found->second;
            };
            const Name *name = lookUp(names.byOwner);
            if (!name) {
                name = lookUp(names.byLayerInode);
            }
            if (name) {
                file.path = name->path;
                file.sizeBytes = name->size;
                file.modifiedNs = name->modifiedNs;
            } else if (const std::optional<std::string> device = metadataDevice(owner, m_options.sysDevBlock)) {
                file.metadata = true;
                file.path = *device;
            } else {
                ++m_unnamed;
            }
        }
    }

    void addNotes()
    {
        if (!m_capture.usageEvents) {
            m_report.notes.push_back(
                "This kernel has no mm_filemap_get_pages, mm_filemap_map_pages and mm_filemap_fault tracepoints (Linux 6.6 added them): "
                "the pages the program asked for cannot be told from those only readahead brought in.");
        }
        if (m_capture.lostEvents > 0) {
            m_report.notes.push_back(std::to_string(m_capture.lostEvents)
                                     + " events were lost (the trace buffer overran, or the event limit was reached): the extents miss their pages.");
        }
        if (m_unnamed > 0) {
            m_report.notes.push_back(std::to_string(m_unnamed) + (m_unnamed == 1 ? " file" : " files")
                                     + " could not be named (not among the files the command opened, or gone since): shown as device:inode.");
        }
    }

    const Capture &m_capture;
    const AnalysisOptions &m_options;
    Report m_report;
    uint64_t m_startNs = 0;
    std::map<Owner, size_t> m_fileIndex;
    std::vector<long> m_openExtent; // per file: the extent its next page may continue, or -1
    std::map<Owner, PageRangeSet> m_asked;
    size_t m_unnamed = 0;
};
} // namespace

void PageRangeSet::add(uint64_t first, uint64_t count)
{
    if (count == 0) {
        return;
    }
    uint64_t begin = first;
    uint64_t end = first + count;
    // Swallow every range that overlaps or touches [begin, end).
    auto it = m_ranges.upper_bound(begin);
    if (it != m_ranges.begin() && std::prev(it)->second >= begin) {
        --it;
    }
    while (it != m_ranges.end() && it->first <= end) {
        begin = std::min(begin, it->first);
        end = std::max(end, it->second);
        it = m_ranges.erase(it);
    }
    m_ranges.emplace(begin, end);
}

uint64_t PageRangeSet::pages() const
{
    uint64_t pages = 0;
    for (const auto &[begin, end] : m_ranges) {
        pages += end - begin;
    }
    return pages;
}

uint64_t PageRangeSet::covered(uint64_t first, uint64_t count) const
{
    const uint64_t end = first + count;
    uint64_t pages = 0;
    auto it = m_ranges.upper_bound(first);
    if (it != m_ranges.begin()) {
        --it;
    }
    for (; it != m_ranges.end() && it->first < end; ++it) {
        const uint64_t from = std::max(first, it->first);
        const uint64_t to = std::min(end, it->second);
        if (from < to) {
            pages += to - from;
        }
    }
    return pages;
}

uint64_t PageRangeSet::pagesNotIn(const PageRangeSet &other) const
{
    uint64_t pages = 0;
    for (const auto &[begin, end] : m_ranges) {
        pages += (end - begin) - other.covered(begin, end - begin);
    }
    return pages;
}

Report residencyDiffReport(const std::vector<ResidencyChange> &files)
{
    Report report;
    report.method = Method::ResidencyDiff;
    report.usageKnown = false;
    for (const ResidencyChange &change : files) {
        PageRangeSet before;
        for (const PageRange &range : change.before) {
            before.add(range.first, range.count);
        }
        const int fileIndex = int(report.files.size());
        File file;
        file.path = change.path;
        file.major = change.major;
        file.minor = change.minor;
        file.inode = change.inode;
        file.sizeBytes = change.sizeBytes;
        file.modifiedNs = change.modifiedNs;
        file.pagesDeleted = change.reclaimed;
        std::vector<Extent> extents;
        const auto addPage = [&](uint64_t page) {
            if (!extents.empty() && extents.back().firstPage + extents.back().pageCount == page) {
                ++extents.back().pageCount;
            } else {
                extents.push_back({fileIndex, page, 1, 0, 0, 0});
            }
        };
        for (const PageRange &range : change.after) {
            // Page by page only where before has pages inside the range.
            if (before.covered(range.first, range.count) == 0) {
                if (!extents.empty() && extents.back().firstPage + extents.back().pageCount == range.first) {
                    extents.back().pageCount += range.count;
                } else {
                    extents.push_back({fileIndex, range.first, range.count, 0, 0, 0});
                }
                continue;
            }
            for (uint64_t page = range.first; page < range.first + range.count; ++page) {
                if (before.covered(page, 1) == 0) {
                    addPage(page);
                }
            }
        }
        if (extents.empty()) {
            continue;
        }
        for (const Extent &extent : extents) {
            file.pagesAdded += extent.pageCount;
        }
        report.files.push_back(std::move(file));
        report.extents.insert(report.extents.end(), extents.begin(), extents.end());
    }
    return report;
}

std::map<std::string, PageRangeSet> pagesByPath(const Report &report)
{
    std::map<std::string, PageRangeSet> pages;
    for (const Extent &extent : report.extents) {
        const File &file = report.files.at(size_t(extent.file));
        if (!file.metadata && !file.path.empty()) {
            pages[file.path].add(extent.firstPage, extent.pageCount);
        }
    }
    return pages;
}

uint64_t kernelDeviceNumber(uint32_t major, uint32_t minor)
{
    return (uint64_t(major) << 20) | (minor & 0xfffff);
}

uint32_t kernelMajor(uint64_t deviceNumber)
{
    return uint32_t(deviceNumber >> 20);
}

uint32_t kernelMinor(uint64_t deviceNumber)
{
    return uint32_t(deviceNumber & 0xfffff);
}

std::string blockDeviceName(uint32_t major, uint32_t minor, const std::string &sysDevBlock)
{
    std::ifstream uevent(sysDevBlock + "/" + std::to_string(major) + ":" + std::to_string(minor) + "/uevent");
    std::string line;
    while (std::getline(uevent, line)) {
        if (line.rfind("DEVNAME=", 0) == 0 && line.size() > 8) {
            return "/dev/" + line.substr(8);
        }
    }
    return {};
}

Report analyzeCapture(const Capture &capture, const AnalysisOptions &options)
{
    return Analysis(capture, options).run();
}

} // namespace Cachescope::Trace
