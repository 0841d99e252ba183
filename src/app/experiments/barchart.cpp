// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "barchart.h"

#include "figuretext.h"
#include "plotdescription.h"
#include "plotstyle.h"

#include <KLocalizedString>

#include <QComboBox>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace Cachescope::App
{

using namespace Experiments;

namespace
{
QPen whiskerPen(const QCustomPlot *plot)
{
    return QPen(plot->palette().color(QPalette::WindowText), 1.5);
}

// text's lines broken between words so that none is wider than width
// (a single word wider than it stays whole).
QString wrappedToWidth(const QString &text, const QFontMetrics &metrics, int width)
{
    QStringList wrapped;
    const auto lines = text.split(QLatin1Char('\n'));
    for (const QString &line : lines) {
        QString current;
        const auto words = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        for (const QString &word : words) {
            const QString longer = current.isEmpty() ? word : current + QLatin1Char(' ') + word;
            if (!current.isEmpty() && metrics.horizontalAdvance(longer) > width) {
                wrapped << current;
                current = word;
            } else {
                current = longer;
            }
        }
        wrapped << current;
    }
    return wrapped.join(QLatin1Char('\n'));
}

// Margins of the axis rectangle that keep every tick label of the bottom
// axis inside the plot: QCustomPlot leaves out a label that would reach past
// its edge (QCPAxisPainterPrivate::placeTickLabel), and a slanted label
// reaches far left of its bar, so the first bar's went missing. A label's
// anchor is rect.left + fraction * rect.width; solved for the margin.
QMargins marginsForTickLabels(const QCustomPlot *plot)
{
    const QCPAxisRect *rect = plot->axisRect();
    const QCPAxis *axis = plot->xAxis;
    const auto ticker = qSharedPointerCast<QCPAxisTickerText>(axis->ticker());
    if (!ticker || axis->range().size() <= 0) {
        return {};
    }
    const double radians = qDegreesToRadians(std::abs(axis->tickLabelRotation()));
    const bool slanted = axis->tickLabelRotation() < 0;
    const QFontMetrics metrics(axis->tickLabelFont());
    const QRect outer = rect->outerRect();
    const QRect viewport = plot->viewport();
    const QMargins margins = rect->margins();
    int left = 0;
    int right = 0;
    for (auto tick = ticker->ticks().cbegin(); tick != ticker->ticks().cend(); ++tick) {
        const double fraction = (tick.key() - axis->range().lower) / axis->range().size();
        if (fraction <= 0 || fraction >= 1) {
            continue;
        }
        const QRect text = metrics.boundingRect(0, 0, 0, 0, Qt::TextDontClip, tick.value());
        // A slanted label ends at its tick and goes down to the left (its
        // height's corner juts out a little on the right); a level one is centred.
        const double reachLeft = slanted ? std::cos(radians) * text.width() + std::sin(radians) * text.height() / 2.0 : text.width() / 2.0;
        const double reachRight = slanted ? std::sin(radians) * text.height() / 2.0 : text.width() / 2.0;
        // outer.left + L + fraction * (outer.width - L - R) - reachLeft >= viewport.left, and so on.
        const double roomLeft = reachLeft + viewport.left() - outer.left() - fraction * (outer.width() - margins.right());
        const double roomRight = reachRight + outer.right() - viewport.right() - (1 - fraction) * (outer.width() - margins.left());
        left = std::max(left, int(std::ceil(roomLeft / (1 - fraction))) + 2);
        right = std::max(right, int(std::ceil(roomRight / fraction)) + 2);
    }
    return QMargins(left, 0, right, 0);
}
} // namespace

BarChart::BarChart(QCustomPlot *plot, QComboBox *measurementCombo, const QList<BarPreset> &presets)
    : m_plot(plot)
    , m_combo(measurementCombo)
    , m_presets(presets)
{
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot, i18nc("@title plot", "Variants compared")));
    plot->setAccessibleName(i18nc("@title plot", "Variants compared"));
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    plot->xAxis->grid()->setVisible(false);
    plot->xAxis->setTickLength(0, 3);
    plot->yAxis->setRange(0, 1);
    plot->legend->setVisible(false);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plot->setWhatsThis(i18nc("@info:whatsthis", "The mean over the runs of each variant; the whiskers show the 95% confidence interval of the mean."));
    // Once the plot is laid out (the label font, the size and the ticks
    // known), room for the first and the last tick label, and lay it out again.
    QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] {
        for (int pass = 0; pass < 2; ++pass) {
            const QMargins wanted = marginsForTickLabels(plot);
            if (wanted == plot->axisRect()->minimumMargins()) {
                return;
            }
            plot->axisRect()->setMinimumMargins(wanted);
            for (const auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout}) {
                plot->plotLayout()->update(phase);
            }
        }
    });
    // The whiskers are drawn in the palette's text colour.
    PlotStyle::follow(plot, [plot] {
        for (int i = 0; i < plot->plottableCount(); ++i) {
            if (auto *errors = qobject_cast<QCPErrorBars *>(plot->plottable(i))) {
                errors->setPen(whiskerPen(plot));
            }
        }
    });
    fillChoices();
}

void BarChart::showResults(const std::optional<Result> &current, const std::optional<Result> &compared, const QString &comparedLabel)
{
    m_current = current;
    m_compared = compared;
    m_comparedLabel = comparedLabel;
    fillChoices();
    draw();
}

void BarChart::fillChoices()
{
    const QString selected = m_combo->currentText();
    const QSignalBlocker blocker(m_combo);
    m_combo->clear();
    QStringList offered;
    for (const BarPreset &preset : std::as_const(m_presets)) {
        m_combo->addItem(preset.label, preset.measurements);
        if (preset.measurements.size() == 1) {
            offered << preset.measurements.first();
        }
    }
    // Then every other figure the results have, one at a time.
    for (const auto *result : {&m_current, &m_compared}) {
        if (!*result) {
            continue;
        }
        for (const VariantResult &variant : (*result)->variants) {
            for (const Measurement &measurement : variant.measurements) {
                const QString name = QString::fromStdString(measurement.name);
                if (!offered.contains(name)) {
                    offered << name;
                    m_combo->addItem(measurementLabel(measurement.name), QStringList{name});
                }
            }
        }
    }
    m_combo->setCurrentIndex(std::max(0, m_combo->findText(selected)));
}

void BarChart::draw()
{
    QCustomPlot *plot = m_plot;
    delete m_barsGroup;
    m_barsGroup = nullptr;
    plot->clearPlottables();
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(plot->xAxis->ticker());
    ticker->clear();

    const QStringList measurements = m_combo->currentData().toStringList();
    QList<const Result *> results;
    QStringList names;
    if (m_current) {
        results << &*m_current;
        names << i18nc("@item plot legend", "This run");
    }
    if (m_compared) {
        results << &*m_compared;
        names << m_comparedLabel;
    }

    // One category a variant (and measurement, when the choice has several),
    // in the order the results have them.
    QStringList categories;
    for (const Result *result : std::as_const(results)) {
        for (const VariantResult &variant : result->variants) {
            if (variant.skipped) {
                continue;
            }
            for (const QString &measurement : measurements) {
                if (!variant.find(measurement.toStdString())) {
                    continue;
                }
                const QString category = engineText(variant.name) + QLatin1Char('\n') + measurement;
                if (!categories.contains(category)) {
                    categories << category;
                }
            }
        }
    }
    QStringList variantsShown;
    for (const QString &category : std::as_const(categories)) {
        const QString variant = category.section(QLatin1Char('\n'), 0, 0);
        if (!variantsShown.contains(variant)) {
            variantsShown << variant;
        }
    }
    // A choice of several measurements where each variant has one of them
    // (the same figure named per variant): the variant names the bar alone.
    const bool measurementPerBar = measurements.size() > 1 && categories.size() != variantsShown.size();
    // Many bars get slanted one-line labels; a few get labels wrapped under them.
    const bool slanted = categories.size() > 5;
    plot->xAxis->setTickLabelRotation(slanted ? -40 : 0);
    for (int i = 0; i < categories.size(); ++i) {
        const QStringList parts = categories[i].split(QLatin1Char('\n'));
        QStringList lines;
        if (variantsShown.size() > 1) {
            lines << parts[0];
        }
        if (measurementPerBar || lines.isEmpty()) {
            lines << measurementLabel(parts[1].toStdString());
        }
        QString label = lines.join(slanted ? QStringLiteral(", ") : QStringLiteral("\n"));
        if (!slanted) {
            // Long names under a few bars: wrapped to what a bar's width holds.
            const QFontMetrics metrics(plot->xAxis->tickLabelFont());
            const int room = std::max(metrics.horizontalAdvance(QStringLiteral("00000000")), int(plot->width() * 0.8 / double(categories.size())));
            label = wrappedToWidth(label, metrics, room);
        }
        ticker->addTick(i + 1, label);
    }

    if (results.size() > 1) {
        m_barsGroup = new QCPBarsGroup(plot);
        m_barsGroup->setSpacing(2);
    }
    // One unit for the whole axis, picked for its tallest bar: 27 ms, not 0.027 s.
    std::string engineUnit;
    double rawMaximum = 0;
    const auto measurementOf = [&categories](const Result *result, int category) -> const Measurement * {
        const QStringList parts = categories[category].split(QLatin1Char('\n'));
        const VariantResult *variant = result->variant(parts[0].toStdString());
        return variant && !variant->skipped ? variant->find(parts[1].toStdString()) : nullptr;
    };
    for (const Result *result : std::as_const(results)) {
        for (int i = 0; i < categories.size(); ++i) {
            if (const Measurement *measurement = measurementOf(result, i)) {
                engineUnit = measurement->unit;
                rawMaximum = std::max(rawMaximum, std::abs(measurement->statistics.mean) + measurement->statistics.confidenceHalfWidth);
            }
        }
    }
    const DisplayScale scale = displayScale(engineUnit, rawMaximum);
    for (int r = 0; r < results.size(); ++r) {
        auto *bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setName(names[r]);
        const QColor color = r == 0 ? PlotColors::plasmaBlue : PlotColors::cloudyGrey;
        bars->setPen(QPen(color.darker(130), 1));
        bars->setBrush(color);
        bars->setWidth(results.size() > 1 ? 0.35 : 0.6);
        if (m_barsGroup) {
            bars->setBarsGroup(m_barsGroup);
        }
        auto *errors = new QCPErrorBars(plot->xAxis, plot->yAxis);
        errors->setDataPlottable(bars);
        errors->setPen(whiskerPen(plot));
        errors->setWhiskerWidth(8);
        QVector<double> keys, values, errorValues;
        for (int i = 0; i < categories.size(); ++i) {
            const Measurement *measurement = measurementOf(results[r], i);
            if (!measurement) {
                continue;
            }
            keys << i + 1;
            values << measurement->statistics.mean * scale.factor;
            errorValues << measurement->statistics.confidenceHalfWidth * scale.factor;
        }
        bars->setData(keys, values, true);
        errors->setData(errorValues);
    }
    const double maximum = rawMaximum * scale.factor;
    const QString unit = scale.unit;
    plot->legend->setVisible(results.size() > 1);
    plot->xAxis->setRange(0.4, double(categories.size()) + 0.6);
    plot->yAxis->setRange(0, maximum > 0 ? maximum * 1.15 : 1);
    plot->yAxis->setLabel(measurements.isEmpty() ? QString() : m_combo->currentText() + (unit.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(unit)));
    // Once a run (or a choice): written whether or not a screen reader listens now.
    plot->setAccessibleDescription(plotDescription(plot));
    plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace Cachescope::App
