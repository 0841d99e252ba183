// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "plotdescription.h"

#include "accessibleitems.h"

#include <KLocalizedString>

#include <QLocale>
#include <QRegularExpression>

#include <qcustomplot.h>

#include <cmath>

namespace Cachescope::App
{

namespace
{

// The unit an axis label names in brackets: "Page cache (MiB)" → "MiB".
QString unitOf(const QCPAxis *axis)
{
    const QString label = axis ? axis->label() : QString();
    const qsizetype open = label.lastIndexOf(QLatin1Char('('));
    const qsizetype close = label.lastIndexOf(QLatin1Char(')'));
    return open >= 0 && close > open ? label.mid(open + 1, close - open - 1) : QString();
}

// A legend's name without its note for the eye: "Page cache (right scale)" → "Page cache".
QString withoutNote(QString name)
{
    static const QRegularExpression note(QStringLiteral("\\s*\\([^)]*\\)$"));
    return name.remove(note).replace(QLatin1Char('\n'), QLatin1Char(' '));
}

QString number(double value)
{
    const double size = std::abs(value);
    return QLocale().toString(value, 'f', size >= 100 || size == 0 ? 0 : (size >= 10 ? 1 : 2));
}

// A key as its axis labels it: a tick's text, else the number.
QString keyText(const QCPAxis *axis, double key)
{
    const auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker());
    return ticker && ticker->ticks().contains(key) ? ticker->ticks().value(key) : QLocale().toString(key);
}

QString figure(const QString &name, double value, const QString &unit)
{
    return unit.isEmpty() ? i18nc("@info accessible description of a plot: a line's name and its value", "%1 %2", name, number(value))
                          : i18nc("@info accessible description of a plot: a line's name, its value and its unit", "%1 %2 %3", name, number(value), unit);
}

} // namespace

QString plotDescription(QCustomPlot *plot, PlotValues values)
{
    QStringList parts;
    int barPlottables = 0;
    for (int i = 0; i < plot->plottableCount(); ++i) {
        barPlottables += qobject_cast<QCPBars *>(plot->plottable(i)) ? 1 : 0;
    }
    for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable *plottable = plot->plottable(i);
        if (!plottable->visible() || plottable->name().isEmpty()) {
            continue;
        }
        if (auto *graph = qobject_cast<QCPGraph *>(plottable)) {
            // Graphs out of the legend are parts of another (a band's edges).
            if (!plot->legend->hasItemWithPlottable(graph)) {
                continue;
            }
            const QString unit = unitOf(graph->valueAxis());
            if (values == PlotValues::Every) {
                QStringList points;
                for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
                    if (!std::isnan(it->value)) {
                        points << figure(keyText(graph->keyAxis(), it->key), it->value, unit);
                    }
                }
                parts << i18nc("@info accessible description of a plot: a line's name, its points",
                               "%1: %2",
                               withoutNote(graph->name()),
                               points.join(i18nc("@info list separator", ", ")));
                continue;
            }
            for (auto it = graph->data()->constEnd(); it != graph->data()->constBegin();) {
                --it;
                if (!std::isnan(it->value)) {
                    parts << figure(withoutNote(graph->name()), it->value, unit);
                    break;
                }
            }
        } else if (auto *bars = qobject_cast<QCPBars *>(plottable)) {
            for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
                QString label = keyText(bars->keyAxis(), it->key);
                if (barPlottables > 1) {
                    label = i18nc("@info accessible description of a bar chart: %1 whose bars, %2 the bar's label", "%1, %2", bars->name(), label);
                }
                parts << figure(withoutNote(label), it->value, unitOf(bars->valueAxis()));
            }
        }
    }
    return parts.join(i18nc("@info list separator", ", "));
}

void describePlot(QCustomPlot *plot)
{
    if (accessibilityActive()) {
        plot->setAccessibleDescription(plotDescription(plot));
    }
}

} // namespace Cachescope::App
