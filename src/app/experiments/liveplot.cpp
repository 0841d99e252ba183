// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "liveplot.h"

#include "figuretext.h"
#include "plotdescription.h"
#include "plotstyle.h"

#include <KLocalizedString>

#include <qcustomplot.h>

#include <algorithm>
#include <limits>

namespace Cachescope::App
{

LiveSeries bytesSeries(const QString &name, const QColor &color, bool rightAxis, std::optional<uint64_t> Experiments::Sample::*figure)
{
    return {name, color, rightAxis, [figure](const Experiments::Sample &sample) {
                return mebibytes(sample.*figure);
            }};
}

LiveSeries fileInCacheSeries(const QString &name, bool rightAxis)
{
    return {name, PlotColors::plasmaBlue, rightAxis, filePercent};
}

LiveSeries swapUsedSeries(const QString &name)
{
    return {name, PlotColors::deepPurple, false, [](const Experiments::Sample &sample) -> std::optional<double> {
                if (!sample.swapTotal || !sample.swapFree) {
                    return std::nullopt;
                }
                return mebibytes(*sample.swapTotal - std::min(*sample.swapTotal, *sample.swapFree));
            }};
}

namespace
{
// Tick labels of an axis whose data are seconds, written in a unit that is a
// power of ten of them (ms, µs): the ticks stay at round numbers.
class ScaledTicker : public QCPAxisTicker
{
public:
    double factor = 1;

protected:
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override
    {
        return QCPAxisTicker::getTickLabel(tick * factor, locale, formatChar, precision);
    }
};

// The unit for an axis of seconds reaching up to `seconds`: never minutes,
// whose factor would put the ticks at odd numbers.
DisplayScale axisTimeScale(double seconds)
{
    DisplayScale scale = displayScale("s", seconds);
    if (scale.factor < 1) {
        scale = displayScale("s", 1);
    }
    return scale;
}

void setTimeScale(QCPAxis *axis, const QString &name, double seconds)
{
    const DisplayScale scale = axisTimeScale(seconds);
    if (auto ticker = axis->ticker().dynamicCast<ScaledTicker>()) {
        ticker->factor = scale.factor;
    }
    axis->setLabel(i18nc("@label:axis %1 what, %2 its unit", "%1 (%2)", name, scale.unit));
}
} // namespace

LivePlot::LivePlot(QCustomPlot *plot,
                   const QList<LiveSeries> &series,
                   const QString &leftAxisLabel,
                   const QString &rightAxisLabel,
                   LiveKey key,
                   const QString &placeholder,
                   const LiveRuns &runs)
    : m_plot(plot)
    , m_series(series)
    , m_key(key)
    , m_leftAxisLabel(leftAxisLabel)
    , m_placeholderText(placeholder.isEmpty() ? i18nc("@info:placeholder", "Fills in while the experiment runs") : placeholder)
    , m_runs(runs)
{
    // Runs of variants get their lines as the variants come (variantRuns()).
    const auto shownSeries = m_key == LiveKey::RunTime ? QList<LiveSeries>() : m_series;
    for (const LiveSeries &line : shownSeries) {
        QCPGraph *graph = plot->addGraph(plot->xAxis, line.rightAxis ? plot->yAxis2 : plot->yAxis);
        graph->setName(line.name);
        graph->setPen(QPen(line.color, 2.0));
        graph->setAntialiased(true);
        // Dots mark the samples: a phase with a single sample (the faults
        // experiment's) is still seen, between the gaps that separate phases.
        graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    }
    if (m_key == LiveKey::Time || m_key == LiveKey::RunTime) {
        plot->xAxis->setTicker(QSharedPointer<ScaledTicker>::create());
        setTimeScale(plot->xAxis, timeAxisName(), 1);
        plot->yAxis->setLabel(leftAxisLabel);
    } else {
        // Runs are whole numbers: a tick each, none between.
        auto runTicker = QSharedPointer<QCPAxisTickerFixed>::create();
        runTicker->setTickStep(1);
        runTicker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        plot->xAxis->setTicker(runTicker);
        plot->xAxis->setLabel(i18nc("@label:axis", "Run"));
        plot->yAxis->setTicker(QSharedPointer<ScaledTicker>::create());
        setTimeScale(plot->yAxis, leftAxisLabel, 1);
    }
    plot->xAxis->setRange(0, 1);
    plot->yAxis->setRange(0, 1);
    if (!rightAxisLabel.isEmpty()) {
        plot->yAxis2->setVisible(true);
        plot->yAxis2->setLabel(rightAxisLabel);
        plot->yAxis2->setRange(0, 1);
        plot->yAxis2->grid()->setVisible(false);
    }
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, i18nc("@title plot", "While it runs")));
    plot->setAccessibleName(i18nc("@title plot", "While it runs"));
    // The legend goes under the plot, so that it hides no data.
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->plotLayout()->addElement(2, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(2, 0.001);
    // Two a row when there are four lines or a line a variant (long names):
    // three do not fit beside the bar chart. setFillOrder() rearranges the items already there; setWrap() does not.
    plot->legend->setWrap(m_series.size() > 3 || m_key == LiveKey::RunTime ? 2 : 3);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    plot->legend->setMargins(QMargins(0, 4, 0, 0));
    plot->legend->setColumnSpacing(12);
    plot->setWhatsThis(i18nc("@info:whatsthis", "What the experiment measures while it runs, sampled a few times a second."));
    PlotStyle::follow(plot, [this] {
        recolorMarkers();
    });
    showPlaceholder();
}

LivePlot::~LivePlot() = default;

void LivePlot::clear()
{
    m_samples = 0;
    m_maximum = 0;
    m_rightMaximum = 0;
    m_lastPhase.clear();
    for (const VariantRuns &variant : std::as_const(m_variants)) {
        for (QCPGraph *graph : {variant.mean, variant.lowest, variant.highest}) {
            m_plot->removeGraph(graph);
        }
    }
    m_variants.clear();
    m_lastKey = 0;
    for (int i = 0; i < m_plot->graphCount(); ++i) {
        m_plot->graph(i)->data()->clear();
    }
    m_plot->clearItems(); // the last run's markers
    m_placeholder = nullptr;
    showPlaceholder();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int LivePlot::sampleCount() const
{
    return m_samples;
}

QCPItemText *LivePlot::placeholder() const
{
    return m_placeholder;
}

void LivePlot::showPlaceholder()
{
    // Empty axes say nothing: until there is data, they say what will come.
    m_placeholder = new QCPItemText(m_plot);
    m_placeholder->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_placeholder->position->setCoords(0.5, 0.5);
    m_placeholder->setPositionAlignment(Qt::AlignCenter);
    m_placeholder->setText(m_placeholderText);
    m_placeholder->setSelectable(false);
    m_plot->setAccessibleDescription(m_placeholderText);
    recolorMarkers();
}

void LivePlot::removePlaceholder()
{
    if (m_placeholder) {
        m_plot->removeItem(m_placeholder);
        m_placeholder = nullptr;
    }
}

QString LivePlot::timeAxisName() const
{
    return m_key == LiveKey::RunTime ? i18nc("@label:axis", "Time since the run began") : i18nc("@label:axis", "Time");
}

void LivePlot::fitAxes(double lastKey)
{
    if (m_key == LiveKey::Time || m_key == LiveKey::RunTime) {
        // The run so far and a little margin: a 0.13 s run spans 0-140 ms, not 0-1 s.
        const double upper = lastKey > 0 ? lastKey * 1.05 : 1;
        m_plot->xAxis->setRange(0, upper);
        setTimeScale(m_plot->xAxis, timeAxisName(), upper);
        m_plot->yAxis->setRange(0, m_maximum > 0 ? m_maximum * 1.1 : 1);
    } else {
        m_plot->xAxis->setRange(0.5, lastKey + 0.5);
        const double upper = m_maximum > 0 ? m_maximum * 1.15 : 1;
        m_plot->yAxis->setRange(0, upper);
        setTimeScale(m_plot->yAxis, m_leftAxisLabel, upper);
    }
    m_plot->yAxis2->setRange(0, m_rightMaximum > 0 ? m_rightMaximum * 1.1 : 1);
}

bool LivePlot::addSample(const Experiments::Sample &sample)
{
    if (m_key == LiveKey::RunTime) {
        return addRunSample(sample);
    }
    const bool newPhase = sample.phase != m_lastPhase && m_samples > 0;
    m_lastPhase = sample.phase;
    const double key = m_key == LiveKey::Time ? sample.seconds : double(m_samples + 1);
    bool added = false;
    for (int i = 0; i < m_series.size() && i < m_plot->graphCount(); ++i) {
        const std::optional<double> value = m_series[i].value(sample);
        if (!value) {
            continue;
        }
        if (newPhase) {
            // A new phase (the next run's read, ...): a gap, not a line joining unrelated moments.
            m_plot->graph(i)->addData(key - (m_key == LiveKey::Run ? 0.5 : 0), std::numeric_limits<double>::quiet_NaN());
        }
        m_plot->graph(i)->addData(key, *value);
        double &maximum = m_series[i].rightAxis ? m_rightMaximum : m_maximum;
        maximum = std::max(maximum, *value);
        added = true;
    }
    if (!added) {
        return false;
    }
    ++m_samples;
    removePlaceholder();
    fitAxes(key);
    // Marker texts sit right of their line, or left of it near the right
    // edge, where they would be cut off; the edge moves as time goes on.
    for (int i = 0; i < m_plot->itemCount(); ++i) {
        if (auto *text = qobject_cast<QCPItemText *>(m_plot->item(i))) {
            const bool nearRightEdge = text->position->coords().x() > 0.6 * m_plot->xAxis->range().upper;
            text->setPositionAlignment((nearRightEdge ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
        }
    }
    describePlot(m_plot);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    return true;
}

bool LivePlot::addRunSample(const Experiments::Sample &sample)
{
    if (sample.phase != m_lastPhase) {
        m_lastPhase = sample.phase;
        m_runBegins = true;
    }
    const QString variant = m_runs.variantOf ? m_runs.variantOf(sample.phase) : QString();
    const std::optional<double> value = m_series.isEmpty() ? std::nullopt : m_series.first().value(sample);
    if (variant.isEmpty() || !value) {
        return false;
    }
    VariantRuns &runs = variantRuns(variant);
    if (m_runBegins) {
        m_runBegins = false;
        m_runStart = sample.seconds;
        runs.runs.append(QList<QPointF>());
    }
    const double key = sample.seconds - m_runStart;
    runs.runs.last().append(QPointF(key, *value));
    drawVariant(runs);
    m_maximum = std::max(m_maximum, *value);
    m_lastKey = std::max(m_lastKey, key);
    ++m_samples;
    removePlaceholder();
    fitAxes(m_lastKey);
    describePlot(m_plot);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    return true;
}

LivePlot::VariantRuns &LivePlot::variantRuns(const QString &variant)
{
    for (VariantRuns &each : m_variants) {
        if (each.variant == variant) {
            return each;
        }
    }
    const QColor color = m_runs.colorOf ? m_runs.colorOf(variant) : PlotColors::plasmaBlue;
    VariantRuns made;
    made.variant = variant;
    // The band first and under the grid, so that no band hides a line.
    made.lowest = m_plot->addGraph();
    made.highest = m_plot->addGraph();
    QColor band = color;
    band.setAlphaF(0.12);
    for (QCPGraph *edge : {made.lowest, made.highest}) {
        edge->setLayer(QStringLiteral("background"));
        edge->setPen(Qt::NoPen);
        edge->removeFromLegend();
    }
    made.highest->setBrush(band);
    made.highest->setChannelFillGraph(made.lowest);
    made.mean = m_plot->addGraph();
    made.mean->setName(variant);
    made.mean->setPen(QPen(color, 2.0));
    made.mean->setAntialiased(true);
    m_variants.append(made);
    return m_variants.last();
}

void LivePlot::drawVariant(const VariantRuns &variant)
{
    // The k-th sample of every run that has one: their mean time and value,
    // their lowest and highest value.
    qsizetype longest = 0;
    for (const QList<QPointF> &run : variant.runs) {
        longest = std::max(longest, run.size());
    }
    QList<double> keys, means, lowest, highest;
    for (qsizetype k = 0; k < longest; ++k) {
        double keySum = 0;
        double valueSum = 0;
        double low = std::numeric_limits<double>::max();
        double high = std::numeric_limits<double>::lowest();
        int count = 0;
        for (const QList<QPointF> &run : variant.runs) {
            if (k < run.size()) {
                keySum += run[k].x();
                valueSum += run[k].y();
                low = std::min(low, run[k].y());
                high = std::max(high, run[k].y());
                ++count;
            }
        }
        keys << keySum / count;
        means << valueSum / count;
        lowest << low;
        highest << high;
    }
    variant.mean->setData(keys, means);
    variant.lowest->setData(keys, lowest);
    variant.highest->setData(keys, highest);
}

void LivePlot::addMarker(double seconds, const QString &text)
{
    // A dashed line at the moment, and its text at the top, staggered so
    // that two markers close together (fsync, then sync) stay readable.
    removePlaceholder();
    auto *line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(seconds, 0);
    line->point2->setCoords(seconds, 1);
    line->setSelectable(false);
    auto *label = new QCPItemText(m_plot);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(seconds, 0.02 + 0.07 * double((m_plot->itemCount() / 2 - 1) % 4));
    label->setPositionAlignment((seconds > 0.6 * m_plot->xAxis->range().upper ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    label->setPadding(QMargins(3, 0, 3, 0));
    label->setText(text);
    label->setSelectable(false);
    recolorMarkers();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LivePlot::recolorMarkers()
{
    const QPalette palette = m_plot->palette();
    const QColor color = palette.color(QPalette::WindowText);
    for (int i = 0; i < m_plot->itemCount(); ++i) {
        if (m_plot->item(i) == m_placeholder) {
            m_placeholder->setColor(palette.color(QPalette::PlaceholderText));
        } else if (auto *line = qobject_cast<QCPItemStraightLine *>(m_plot->item(i))) {
            line->setPen(QPen(color, 1, Qt::DashLine));
        } else if (auto *label = qobject_cast<QCPItemText *>(m_plot->item(i))) {
            label->setColor(color);
            label->setBrush(QBrush(palette.color(QPalette::Base)));
        }
    }
}

} // namespace Cachescope::App
