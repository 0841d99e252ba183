// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "heatmapmodel.h"
#include "heatmaptexts.h"

#include <QFontMetrics>
#include <QRect>
#include <QString>

#include <vector>

class QPainter;
class QWidget;

namespace Cachescope::App
{

class HeatmapColors;
struct HeatmapGrid;

// Draws the detail heatmap onto a painter: the header, the framed panel, the
// cells (or the hatched "hidden" panel, or a message) and the legend. It
// holds no state of its own; the widget says what to draw and where.
class HeatmapPainter
{
public:
    HeatmapPainter(QPainter &painter, const QWidget &widget, const HeatmapColors &colors, const HeatmapGrid &grid);

    // The name in bold, then the numbers; below them the zoom window.
    void paintHeader(const HeatmapTexts &texts, int lineGap);
    // The panel the cells live in, framed like a view.
    void paintPanel();
    // hovered: the cell under the pointer, outlined; -1 for none. compared:
    // the cells are compared with a snapshot, and show what changed instead
    // of dirty pages and writeback.
    void paintCells(const std::vector<Heatmap::Cell> &cells, int hovered, bool compared = false);
    // Hatching, with the title and the reason over it in textRect.
    void paintHidden(const HeatmapTexts &texts, const QRect &textRect);
    // Why there are no cells, in the middle of the panel.
    void paintMessage(const QString &text);
    // zoomHint: how to zoom, shown where there is room; empty for none.
    // meaning: which labels, and only the swatches it has.
    void paintLegend(const QString &zoomHint, HeatmapMeaning meaning = HeatmapMeaning::Residency);
    // How wide the legend is on one line.
    [[nodiscard]] static int legendWidth(const QFontMetrics &metrics, HeatmapMeaning meaning);

private:
    // A cell compared with a snapshot: from the bottom, as much of it as was
    // evicted since, is newly cached, and is cached then and now.
    void paintComparedCell(const QRect &rect, const Heatmap::Cell &cell, int marker);

    QPainter &m_painter;
    const QWidget &m_widget;
    const HeatmapColors &m_colors;
    const HeatmapGrid &m_grid;
};

} // namespace Cachescope::App
