// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "heatmapmodel.h"

#include <QString>
#include <QStringList>

#include <cstdint>

namespace Cachescope::App
{

// What a heatmap's cells count. Residency: the pages in the page cache, dirty
// and under writeback (the files panel, the cold read). TracedReads: the pages
// a trace saw come in from the disk, and among them, in the place of dirty
// pages, those the program asked for (the trace experiment): the rest only
// readahead brought in. Where that is not known, the cells have no detail.
enum class HeatmapMeaning {
    Residency,
    TracedReads,
    // Residency compared with a snapshot: cached then and now, newly cached,
    // evicted since (HeatmapWidget::setComparison).
    SnapshotComparison,
};

// Every sentence the detail heatmap shows: the header above the cells (name,
// numbers, zoom window), the text over the panel when there are no cells
// (hidden residency, an error, no file), a cell's tooltip and the legend.
// Apart from the widget so that what it says can be read without painting.
class HeatmapTexts
{
public:
    QString name;
    QString details;
    QString window;
    QString overlayTitle;
    QString overlayText;

    // The header and overlay for cells on show. hidden: the kernel hides the
    // residency from us (and no privileged answer stands in for it);
    // updating: a worker is reading newer cells.
    [[nodiscard]] static HeatmapTexts
    forCells(const QString &name, const Heatmap::HeatmapCells &cells, bool hidden, bool updating, HeatmapMeaning meaning = HeatmapMeaning::Residency);
    // Cells compared with a snapshot: what changed, in the numbers; which
    // snapshot, on the zoom line. inSnapshot: it records the file.
    void addComparison(const Heatmap::HeatmapCells &cells, bool inSnapshot, const QString &snapshotName);

    // "1 cell = 4 pages (16 KiB)" and the like.
    [[nodiscard]] static QString pagesPerCell(const Heatmap::HeatmapCells &cells);
    // The page and byte range of one cell with its counts.
    [[nodiscard]] static QString toolTip(const Heatmap::HeatmapCells &cells, const Heatmap::Cell &cell, HeatmapMeaning meaning = HeatmapMeaning::Residency);
    // Residency: not cached, cached, dirty, writeback, hidden. TracedReads: not read, read, asked for.
    // SnapshotComparison: not cached, cached then and now, newly cached, evicted since.
    [[nodiscard]] static QStringList legendLabels(HeatmapMeaning meaning = HeatmapMeaning::Residency);
    [[nodiscard]] static QString zoomHint(bool wholeFileView);
    // A size as the heatmap writes it: "320 KiB", not "320.0 KiB", where the unit divides it.
    [[nodiscard]] static QString size(uint64_t bytes);
};

} // namespace Cachescope::App
