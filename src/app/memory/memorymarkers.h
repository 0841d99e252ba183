// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QString>

#include <vector>

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;
class QPalette;

namespace Cachescope::App
{

// Moments marked on the memory plot (the caches were dropped, swap went
// off): a dashed vertical line with a label each, moving left with the time
// axis until it leaves the history. Hovering near one shows its details.
class MemoryMarkers
{
public:
    explicit MemoryMarkers(QCustomPlot *plot);

    // A marker at `time` (monotonicSeconds()).
    void add(double time, const QString &label, const QString &details, const QPalette &palette);
    // Places them relative to `now` (the newest sample) and drops those
    // older than historySeconds.
    void place(double now, double historySeconds);
    // The labels and details of the markers within `tolerance` seconds of
    // `time`, as HTML lines for a tooltip; empty if none.
    [[nodiscard]] QString detailsNear(double time, double tolerance) const;
    [[nodiscard]] int count() const;

private:
    struct Marker {
        double time = 0; // monotonicSeconds()
        QString label;
        QString details;
        QCPItemStraightLine *line = nullptr;
        QCPItemText *text = nullptr;
    };
    QCustomPlot *const m_plot;
    std::vector<Marker> m_markers;
};

} // namespace Cachescope::App
