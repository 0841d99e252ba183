// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// How every plot of the window looks: the Breeze colours the figures are
// drawn in, and axes, grid, titles and legend in the colours and font of the
// widget's palette, again whenever the colour scheme (the palette), the font
// or the style changes. The memory panel and every experiment plot use it.

#include <QColor>

#include <functional>

class QCPAxisRect;
class QCustomPlot;

namespace Cachescope::App
{

// Breeze colours, by their Breeze names. A plot says which figure gets which;
// the same figure (the cache, dirty pages) has the same colour in every plot.
namespace PlotColors
{
inline const QColor plasmaBlue{0x3d, 0xae, 0xe9};
inline const QColor abyssBlue{0x29, 0x80, 0xb9};
inline const QColor nobleGreen{0x27, 0xae, 0x60};
inline const QColor teal{0x1a, 0xbc, 0x9c};
inline const QColor purple{0x9b, 0x59, 0xb6};
inline const QColor deepPurple{0x8e, 0x44, 0xad};
inline const QColor bewareOrange{0xf6, 0x74, 0x00};
inline const QColor iconRed{0xda, 0x44, 0x53};
inline const QColor cloudyGrey{0xbd, 0xc3, 0xc7};
inline const QColor grey{0x7f, 0x8c, 0x8d};

// The figures that more than one plot draws.
inline const QColor &cache = nobleGreen;
inline const QColor &dirty = bewareOrange;
inline const QColor &writeback = iconRed;
} // namespace PlotColors

namespace PlotStyle
{

// Styles the plot from its palette and font: the background (Window), the
// axis rectangles (Base), axes, tick labels and the dotted grid (WindowText),
// titles (a plot's own title bold, the titles of its panes not), and the
// legend (under the plot: on Window without a frame; inside the axis
// rectangle: on translucent Base with a frame). Does not replot.
void apply(QCustomPlot *plot);

// apply() now and again whenever the plot's palette, font or style changes,
// then restyled (for what the plot's owner drew in palette colours itself:
// markers, error bars), then a replot.
void follow(QCustomPlot *plot, const std::function<void()> &restyled = {});

// Moves the legend out of rect's inset into the plot's layout row `row`
// under the plots, filled a row at a time, wrapped into more rows when the
// plot is too narrow for one, and kept as low as it can be, so that it hides
// no data and no entry is cut off.
void placeLegendBelow(QCustomPlot *plot, QCPAxisRect *rect, int row);

} // namespace PlotStyle

} // namespace Cachescope::App
