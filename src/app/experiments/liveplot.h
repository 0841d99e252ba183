// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The "While it runs" plot of an experiment page: one line a figure the page
// chose, filled from the engine's samples as they arrive, with a gap between
// phases (each run's cold read, ...) and markers at moments worth seeing
// (an fsync and how long it took); or, for runs of several variants, one
// line a variant over the time since each run began.

#include "experiments/experiment.h"

#include <QColor>
#include <QList>
#include <QPointF>
#include <QString>

#include <functional>
#include <optional>
#include <string>

class QCustomPlot;
class QCPGraph;
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
// Swap used (SwapTotal - SwapFree), in MiB, on the left axis.
[[nodiscard]] LiveSeries swapUsedSeries(const QString &name);

// What the horizontal axis counts.
enum class LiveKey {
    // The time since the start: the axis spans the run with a little margin,
    // in ms for a run under a second.
    Time,
    // Each sample that has a value is the next run (1, 2, ...); the left
    // axis then holds durations in seconds, shown in the unit that suits
    // them (leftAxisLabel gets it in brackets).
    Run,
    // The time since a run began: each phase that LiveRuns names a variant
    // is one run of it. One line a variant, the mean of its runs' samples
    // (the first, second, ... of each), over a lighter band from the lowest
    // to the highest; a legend names the variants. Only the first series is
    // drawn, on the left axis.
    RunTime,
};

// For LiveKey::RunTime: the variant a sample's phase is a run of (empty: no
// run, not drawn), and the colour of its line.
struct LiveRuns {
    std::function<QString(const std::string &phase)> variantOf;
    std::function<QColor(const QString &variant)> colorOf;
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
             const QString &placeholder = QString(),
             const LiveRuns &runs = {});
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
    // A variant's runs (LiveKey::RunTime) and the graphs that draw them.
    struct VariantRuns {
        QString variant;
        QCPGraph *mean = nullptr;
        QCPGraph *lowest = nullptr;
        QCPGraph *highest = nullptr; // filled down to lowest
        QList<QList<QPointF>> runs; // (seconds since the run's first sample, value)
    };

    bool addRunSample(const Experiments::Sample &sample);
    VariantRuns &variantRuns(const QString &variant);
    static void drawVariant(const VariantRuns &variant);
    void recolorMarkers();
    void showPlaceholder();
    void removePlaceholder();
    void fitAxes(double lastKey);
    [[nodiscard]] QString timeAxisName() const;

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
    LiveRuns m_runs;
    QList<VariantRuns> m_variants;
    bool m_runBegins = false;
    double m_runStart = 0;
    double m_lastKey = 0;
};

} // namespace Cachescope::App
