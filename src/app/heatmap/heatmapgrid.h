// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QPoint>
#include <QRect>
#include <QSize>

namespace Cachescope::App
{

// Where the detail heatmap's cells go: the largest square cells for which all
// of them fit the panel, in device pixels, so that cell edges fall on pixels
// at any scale.
struct HeatmapGrid {
    qreal dpr = 1;
    QRect panel; // logical: the framed area the cells live in
    QRect legend; // logical
    int cells = 0;
    int cellSize = 0; // device pixels
    int stride = 0; // device pixels, cell plus gap
    int columns = 1;
    QPoint origin; // device pixels
    QSize widgetSize;
    int fontHeight = 0;

    // Fits `cells` cells into the panel (set panel, dpr and cells first).
    void placeCells();

    [[nodiscard]] QRect deviceRect(int cell) const;
    [[nodiscard]] QRect logicalRect(int cell) const;
    // The cell under a point in logical coordinates; -1 for none.
    [[nodiscard]] int cellAt(QPointF logical) const;
};

} // namespace Cachescope::App
