// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "heatmapmodel.h"

#include "load.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>

namespace Cachescope::App::Heatmap
{

namespace
{

// Above this many buckets one cachestat call a bucket stops being "about a
// millisecond" and the work moves off the UI thread.
constexpr int slowBucketCount = 4096;

void copyStatus(const Cachescope::ResidencyStatus &from, HeatmapCells &to)
{
    to.status = from;
}

} // namespace

HeatmapCells compute(int fd, const struct stat &st, Window window, int cells, const Cachescope::ResidencyOptions &options)
{
    HeatmapCells result;
    result.sizeBytes = uint64_t(std::max<off_t>(st.st_size, 0));
    result.filePages = Cachescope::pagesFor(result.sizeBytes);
    window = clamped(window, result.filePages, 1);
    result.windowFirst = window.first;
    result.windowPages = window.pages;
    cells = std::max(cells, 1);

    const bool wholeFile = window.first == 0 && window.pages == result.filePages;
    if (window.pages <= uint64_t(cells)) {
        const Cachescope::PageMap map = Cachescope::pageMapOfDescriptor(fd, st, window.first, window.pages, options);
        copyStatus(map, result);
        if (!map.known()) {
            return result;
        }
        result.perPage = true;
        result.detail = map.detail;
        result.cells.resize(map.flags.size());
        for (size_t i = 0; i < map.flags.size(); ++i) {
            const uint8_t flags = map.flags[i];
            result.cells[i] = Cell{map.firstPage + i,
                                   1,
                                   uint64_t((flags & Cachescope::PageResident) != 0),
                                   uint64_t((flags & Cachescope::PageDirty) != 0),
                                   uint64_t((flags & Cachescope::PageWriteback) != 0)};
        }
    } else {
        const Cachescope::Histogram histogram = Cachescope::histogramOfWindow(fd, st, window.first, window.pages, cells, options);
        copyStatus(histogram, result);
        if (!histogram.known()) {
            return result;
        }
        result.detail = histogram.detail;
        result.cells.resize(size_t(histogram.buckets()));
        for (int b = 0; b < histogram.buckets(); ++b) {
            Cell &cell = result.cells[size_t(b)];
            cell.firstPage = histogram.windowFirst + histogram.firstPage(b);
            cell.pages = histogram.pagesIn(b);
            cell.resident = histogram.resident[size_t(b)];
            if (histogram.detail) {
                cell.dirty = histogram.dirty[size_t(b)];
                cell.writeback = histogram.writeback[size_t(b)];
            }
        }
    }

    if (wholeFile) {
        // The cells already cover every page: their sums are the totals.
        for (const Cell &cell : result.cells) {
            result.resident += cell.resident;
            result.dirty += cell.dirty;
            result.writeback += cell.writeback;
        }
        result.totalsKnown = true;
        return result;
    }
    const Cachescope::Residency totals = Cachescope::residencyOfDescriptor(fd, st, options);
    if (totals.known()) {
        result.totalsKnown = true;
        result.resident = totals.resident;
        result.dirty = totals.dirty;
        result.writeback = totals.writeback;
    }
    return result;
}

void compare(HeatmapCells &result, int fd, const struct stat &st, const std::vector<Cachescope::PageRange> &before)
{
    if (!result.status.known()) {
        return;
    }
    result.compared = true;
    const auto stillCached = [fd, &st](uint64_t first, uint64_t count) -> uint64_t {
        const Cachescope::RangeResidency now = Cachescope::residencyOfPageRange(fd, st, first, count);
        return now.known() ? now.resident : 0;
    };
    // Both in page order: one pass. A page map's cells already say whether
    // their page is cached; a bucket asks the kernel about its part of each range.
    size_t next = 0;
    for (Cell &cell : result.cells) {
        const uint64_t end = cell.firstPage + cell.pages;
        while (next < before.size() && before[next].first + before[next].count <= cell.firstPage) {
            ++next;
        }
        for (size_t k = next; k < before.size() && before[k].first < end; ++k) {
            const uint64_t from = std::max(before[k].first, cell.firstPage);
            const uint64_t to = std::min(before[k].first + before[k].count, end);
            cell.before += to - from;
            cell.beforeStill += result.perPage ? cell.resident : stillCached(from, to - from);
        }
        // Read a moment after the cell's own count: never more than it.
        cell.beforeStill = std::min({cell.beforeStill, cell.before, cell.resident});
    }
    const bool wholeFile = result.windowFirst == 0 && result.windowPages == result.filePages;
    for (const Cachescope::PageRange &range : before) {
        const uint64_t end = std::min(range.first + range.count, result.filePages);
        if (range.first >= end) {
            continue;
        }
        result.before += end - range.first;
        if (!wholeFile) {
            result.beforeStill += stillCached(range.first, end - range.first);
        }
    }
    if (wholeFile) {
        for (const Cell &cell : result.cells) {
            result.beforeStill += cell.beforeStill;
        }
    }
    result.beforeStill = std::min(result.beforeStill, result.before);
    if (result.totalsKnown) {
        result.beforeStill = std::min(result.beforeStill, result.resident);
    }
}

HeatmapCells fromHistogram(const Cachescope::Histogram &histogram, uint64_t sizeBytes)
{
    HeatmapCells result;
    copyStatus(histogram, result);
    result.sizeBytes = sizeBytes;
    result.filePages = std::max(Cachescope::pagesFor(sizeBytes), histogram.windowFirst + histogram.pages);
    result.windowFirst = histogram.windowFirst;
    result.windowPages = histogram.pages;
    result.privileged = true;
    if (!histogram.known()) {
        return result;
    }
    result.detail = histogram.detail;
    result.cells.resize(size_t(histogram.buckets()));
    bool onePageEach = true;
    for (int b = 0; b < histogram.buckets(); ++b) {
        Cell &cell = result.cells[size_t(b)];
        cell.firstPage = histogram.windowFirst + histogram.firstPage(b);
        cell.pages = histogram.pagesIn(b);
        cell.resident = histogram.resident[size_t(b)];
        if (histogram.detail && size_t(b) < histogram.dirty.size() && size_t(b) < histogram.writeback.size()) {
            cell.dirty = histogram.dirty[size_t(b)];
            cell.writeback = histogram.writeback[size_t(b)];
        }
        onePageEach = onePageEach && cell.pages == 1;
        result.resident += cell.resident;
        result.dirty += cell.dirty;
        result.writeback += cell.writeback;
    }
    result.perPage = onePageEach && !result.cells.empty();
    result.totalsKnown = histogram.windowFirst == 0 && histogram.pages == result.filePages;
    if (!result.totalsKnown) {
        result.resident = result.dirty = result.writeback = 0;
    }
    return result;
}

bool mayBeSlow(int cells, const Cachescope::ResidencyOptions &options)
{
    return options.forceMincore || !Cachescope::cachestatAvailable() || cells > slowBucketCount;
}

Window zoomed(Window window, uint64_t filePages, uint64_t anchor, int steps, uint64_t minPages)
{
    minPages = std::clamp<uint64_t>(minPages, std::min<uint64_t>(1, filePages), filePages);
    if (filePages == 0) {
        return {};
    }
    window = clamped(window, filePages, minPages);
    anchor = std::clamp(anchor, window.first, window.first + window.pages - 1);
    // long double: a 1 TiB file has 2^28 pages; the ratio needs no more.
    const long double factor = std::pow(2.0L, -steps);
    const long double wanted = std::round((long double)window.pages * factor);
    uint64_t pages = wanted >= (long double)filePages ? filePages : uint64_t(std::max<long double>(wanted, 1.0L));
    pages = std::clamp(pages, minPages, filePages);
    const long double place = (long double)(anchor - window.first) / (long double)window.pages;
    const long double before = place * (long double)pages;
    const uint64_t offset = uint64_t(std::max<long double>(0.0L, std::floor(before)));
    uint64_t first = anchor >= offset ? anchor - offset : 0;
    first = std::min(first, filePages - pages);
    return {first, pages};
}

Window panned(Window window, uint64_t filePages, int64_t delta)
{
    if (window.pages >= filePages) {
        return {0, filePages};
    }
    const uint64_t last = filePages - window.pages;
    if (delta < 0) {
        const uint64_t back = uint64_t(-(delta + 1)) + 1;
        window.first = window.first > back ? window.first - back : 0;
    } else {
        window.first = std::min(last, window.first + std::min(uint64_t(delta), last));
    }
    window.first = std::min(window.first, last);
    return window;
}

Window clamped(Window window, uint64_t filePages, uint64_t minPages)
{
    if (filePages == 0) {
        return {};
    }
    minPages = std::clamp<uint64_t>(minPages, 1, filePages);
    window.pages = std::clamp(window.pages, minPages, filePages);
    window.first = std::min(window.first, filePages - window.pages);
    return window;
}

} // namespace Cachescope::App::Heatmap
