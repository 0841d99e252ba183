// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// What the detail heatmap shows, apart from how it is drawn: the cells of one
// window of a file, computed from the core library, and the zoom and pan
// arithmetic on page windows. Kept free of widgets so that the computation can
// run on a worker thread and the arithmetic can be checked on its own.

#include "residency.h"

#include <algorithm>
#include <cstdint>
#include <vector>

struct stat;

namespace Cachescope::App::Heatmap
{

struct Cell {
    uint64_t firstPage = 0; // absolute page number in the file
    uint64_t pages = 0;
    uint64_t resident = 0;
    uint64_t dirty = 0;
    uint64_t writeback = 0;
    // Compared with a snapshot (compare()): of the cell's pages, those cached
    // then, and of those, the ones still cached now.
    uint64_t before = 0;
    uint64_t beforeStill = 0;

    // Cached now and not then; cached then and not now.
    [[nodiscard]] uint64_t newlyCached() const
    {
        return resident - std::min(resident, beforeStill);
    }
    [[nodiscard]] uint64_t evictedSince() const
    {
        return before - std::min(before, beforeStill);
    }
};

// One answer about one file: the whole-file totals for the header and the cells
// of the window on show. A hidden or failed answer has no cells and no totals.
struct HeatmapCells {
    Cachescope::ResidencyStatus status;
    uint64_t sizeBytes = 0;
    uint64_t filePages = 0;
    bool totalsKnown = false;
    uint64_t resident = 0;
    uint64_t dirty = 0;
    uint64_t writeback = 0;
    bool detail = false; // dirty and writeback are known (cachestat)
    uint64_t windowFirst = 0;
    uint64_t windowPages = 0;
    bool perPage = false; // every cell is exactly one page (page map)
    bool privileged = false; // obtained with administrator rights, not by us
    // Compared with a snapshot (compare()): the cells' before and
    // beforeStill are filled, and these totals are the whole file's.
    bool compared = false;
    uint64_t before = 0;
    uint64_t beforeStill = 0;
    std::vector<Cell> cells;
};

// A window of pages [first, first + pages).
struct Window {
    uint64_t first = 0;
    uint64_t pages = 0;
    friend bool operator==(const Window &, const Window &) = default;
};

// Reads the residency of the window (clipped to the file) in `cells` cells:
// one page a cell (exact flags, pageMapOfDescriptor) once the window has no
// more pages than cells, buckets (histogramOfWindow) above that. Safe on any
// thread; it only reads the kernel's answers about fd.
[[nodiscard]] HeatmapCells compute(int fd, const struct stat &st, Window window, int cells, const Cachescope::ResidencyOptions &options);

// Compares the answer with the pages cached when a snapshot was taken
// (before: sorted ranges in this computer's pages): which of them are cached
// still, a cell at a time and for the whole file. Safe on any thread.
void compare(HeatmapCells &cells, int fd, const struct stat &st, const std::vector<Cachescope::PageRange> &before);

// The same answer from a histogram obtained elsewhere (the privileged helper).
[[nodiscard]] HeatmapCells fromHistogram(const Cachescope::Histogram &histogram, uint64_t sizeBytes);

// Whether compute() may be slow enough to block painting: mincore walks every
// page of the file for the totals, and very many buckets mean very many calls.
[[nodiscard]] bool mayBeSlow(int cells, const Cachescope::ResidencyOptions &options);

// Zooms by 2^steps (positive: in) around `anchor`, which keeps its relative
// place in the window. Never narrower than minPages, never wider than the file.
[[nodiscard]] Window zoomed(Window window, uint64_t filePages, uint64_t anchor, int steps, uint64_t minPages);

// Moves by `delta` pages, staying inside the file.
[[nodiscard]] Window panned(Window window, uint64_t filePages, int64_t delta);

// The window clipped to a file of filePages pages (after it grew or shrank).
[[nodiscard]] Window clamped(Window window, uint64_t filePages, uint64_t minPages);

} // namespace Cachescope::App::Heatmap
