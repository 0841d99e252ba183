// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The "While it runs" plot of an experiment page: one line a figure the page
// chose, filled from the engine's samples as they arrive, with a gap between
// phases (each run's cold read, ...) and markers at moments worth seeing
// (an fsync and how long it took).

#include "experiments/experiment.h"

#include <QColor>
#include <QList>
#include <QString>

#include <functional>
#include <optional>
#include <string>

class QCustomPlot;
class QCPItemText;

namespace Cachescope::App
{

// A line of the live plot: its value in a sample, nullopt when the sample has none.
struct LiveSeries {
    QString name;
    QColor color;
    bool rightAxis = false;
    std::function<std::optional<double>(const Experiments::Sample &)> value;
};

// A figure of the sample in bytes (cached, dirty, ...), drawn in MiB.
[[nodiscard]] LiveSeries bytesSeries(const QString &name, const QColor &color, bool rightAxis, std::optional<uint64_t> Experiments::Sample::*figure);
// The share of the experiment's file in the cache, in percent.
[[nodiscard]] LiveSeries fileInCacheSeries(const QString &name, bool rightAxis);

// What the horizontal axis counts.
enum class LiveKey {
    // The time since the start: the axis spans the run with a little margin,
    // in ms for a run under a second.
    Time,
    // Each sample that has a value is the next run (1, 2, ...); the left
    // axis then holds durations in seconds, shown in the unit that suits
    // them (leftAxisLabel gets it in brackets).
    Run,
};

class LivePlot
{
public:
    // An empty leftAxisLabel or rightAxisLabel leaves that axis out.
    LivePlot(QCustomPlot *plot,
             const QList<LiveSeries> &series,
             const QString &leftAxisLabel,
             const QString &rightAxisLabel,
             LiveKey key = LiveKey::Time,
             const QString &placeholder = QString());
    ~LivePlot();

    // Empties the plot for a new run.
    void clear();
    // Adds what the sample has of each line; false when it had nothing.
    bool addSample(const Experiments::Sample &sample);
    // A dashed line at the moment, with text.
    void addMarker(double seconds, const QString &text);
    // Samples that added something since clear().
    [[nodiscard]] int sampleCount() const;
    // The text shown on the empty plot until the first sample (null once there is one).
    [[nodiscard]] QCPItemText *placeholder() const;

private:
    void recolorMarkers();
    void showPlaceholder();
    void removePlaceholder();
    void fitAxes(double lastKey);

    QCustomPlot *m_plot;
    QList<LiveSeries> m_series;
    LiveKey m_key;
    QString m_leftAxisLabel;
    QString m_placeholderText;
    QCPItemText *m_placeholder = nullptr;
    int m_samples = 0;
    double m_maximum = 0;
    double m_rightMaximum = 0;
    std::string m_lastPhase;
};

} // namespace Cachescope::App
