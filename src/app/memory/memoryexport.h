// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "memorysampler.h"

#include <QString>

#include <deque>

class QCustomPlot;
class QWidget;

namespace Cachescope::App
{

// The memory panel's exports: a plot as PNG or PDF, the samples as CSV, and
// the file dialogs that ask where. Writes go through QSaveFile, so that a
// failed export never leaves half a file behind.
class MemoryExport
{
public:
    // The plot at its size on screen (a fixed size if it was never laid
    // out), as PNG or PDF by the name's suffix; title names the PDF. On
    // failure: false and *error names the path and the reason.
    static bool writePlot(QCustomPlot *plot, const QString &title, const QString &path, QString *error);
    // Every sample as a CSV row, in plain units (bytes, per second).
    static bool writeSamples(const std::deque<MemorySample> &samples, const QString &path, QString *error);

    // Where to save, asked with a file dialog; empty when the person cancelled.
    [[nodiscard]] static QString askPlotPath(QWidget *parent);
    [[nodiscard]] static QString askSamplesPath(QWidget *parent);
};

} // namespace Cachescope::App
