// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "heatmapgrid.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace Cachescope::App
{

namespace
{

// Cells never grow beyond this (logical pixels): a three-page file is three
// cells, not three tiles filling the panel.
constexpr int largestCell = 24;
constexpr int padding = 6;

} // namespace

void HeatmapGrid::placeCells()
{
    const QRect inner = panel.adjusted(padding, padding, -padding, -padding);
    const int width = int(std::floor(inner.width() * dpr));
    const int height = int(std::floor(inner.height() * dpr));
    const int gapPixels = std::max(1, int(std::floor(dpr)));
    cellSize = 1;
    stride = 1;
    columns = std::max(1, width);
    if (cells > 0 && width > 0 && height > 0) {
        // The largest cell for which all cells fit; a gap only where a
        // cell is big enough to spare one.
        for (int size = int(largestCell * dpr); size >= 1; --size) {
            const int cellGap = size >= int(4 * dpr) ? gapPixels : 0;
            const int sizeStride = size + cellGap;
            const int sizeColumns = std::max(1, (width + cellGap) / sizeStride);
            const int rows = (cells + sizeColumns - 1) / sizeColumns;
            cellSize = size;
            stride = sizeStride;
            columns = sizeColumns;
            if (int64_t(rows) * sizeStride - cellGap <= height) {
                break;
            }
        }
    }
    // Centred across: the space left over by whole cells goes to both sides.
    const int usedWidth = cells > 0 ? std::min(cells, columns) * stride - (stride - cellSize) : 0;
    const int spare = std::max(0, width - usedWidth) / 2;
    origin = QPoint(int(std::ceil(inner.left() * dpr)) + spare, int(std::ceil(inner.top() * dpr)));
}

QRect HeatmapGrid::deviceRect(int cell) const
{
    return {origin.x() + (cell % columns) * stride, origin.y() + (cell / columns) * stride, cellSize, cellSize};
}

QRect HeatmapGrid::logicalRect(int cell) const
{
    const QRect r = deviceRect(cell);
    const int left = int(std::floor(r.left() / dpr));
    const int top = int(std::floor(r.top() / dpr));
    return QRect(QPoint(left, top), QPoint(int(std::ceil((r.right() + 1) / dpr)) - 1, int(std::ceil((r.bottom() + 1) / dpr)) - 1));
}

int HeatmapGrid::cellAt(QPointF logical) const
{
    if (cells <= 0 || stride <= 0) {
        return -1;
    }
    const QPointF device = logical * dpr - QPointF(origin);
    if (device.x() < 0 || device.y() < 0) {
        return -1;
    }
    const int column = int(device.x()) / stride;
    const int row = int(device.y()) / stride;
    if (column >= columns || int(device.x()) % stride >= cellSize || int(device.y()) % stride >= cellSize) {
        return -1;
    }
    const int cell = row * columns + column;
    return cell < cells ? cell : -1;
}

} // namespace Cachescope::App
