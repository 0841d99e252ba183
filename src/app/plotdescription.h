// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QString>

class QCustomPlot;

namespace Cachescope::App
{

// Which values of a line a description reads.
enum class PlotValues {
    Latest, // a plot over time: where each line is now
    Every, // a line over categories (file counts): each point, at its tick's label
};

// What a plot shows, in words, for a screen reader: each line of its legend
// with its latest value (or each of its points), each bar with its label and
// value, in the unit its axis names in brackets ("File in the cache 45 %,
// Page cache 120 MiB"). Empty when the plot has nothing to say yet.
[[nodiscard]] QString plotDescription(QCustomPlot *plot, PlotValues values = PlotValues::Latest);

// While assistive technology listens, makes plotDescription() the plot's
// accessible description; else does nothing (it walks the plot's data).
// Live plots call it at each sample.
void describePlot(QCustomPlot *plot);

} // namespace Cachescope::App
