// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QColor>

class QPainter;
class QPalette;
class QRectF;

namespace Cachescope::App
{

// The frame around the current item of a widget that draws its own items (a
// box of the cache map, a cell of the heatmap) while it has keyboard focus:
// a line in the colour scheme's focus colour, as Breeze frames a focused
// field, 2 pixels wide on the rectangle's edges, with a pixel of the view's
// background on either side. On a fill close to the focus colour (a box or
// cell drawn in the highlight colour), `under`, the line is a darker shade of
// it, so that it still stands out.
void paintFocusFrame(QPainter &painter, const QRectF &rect, const QPalette &palette, const QColor &under = {});

} // namespace Cachescope::App
