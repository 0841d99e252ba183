// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "memorymarkers.h"

#include <QPalette>

#include <qcustomplot.h>

#include <cmath>

namespace Cachescope::App
{

MemoryMarkers::MemoryMarkers(QCustomPlot *plot)
    : m_plot(plot)
{
}

void MemoryMarkers::add(double time, const QString &label, const QString &details, const QPalette &palette)
{
    Marker marker;
    marker.time = time;
    marker.label = label;
    marker.details = details;
    marker.line = new QCPItemStraightLine(m_plot);
    marker.line->setPen(QPen(palette.color(QPalette::Text), 1, Qt::DashLine));
    marker.text = new QCPItemText(m_plot);
    marker.text->setText(label);
    marker.text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    marker.text->setColor(palette.color(QPalette::Text));
    marker.text->setBrush(palette.color(QPalette::Base));
    marker.text->setPadding(QMargins(3, 1, 3, 1));
    m_markers.push_back(marker);
}

void MemoryMarkers::place(double now, double historySeconds)
{
    // Markers that scrolled out of the history go; the rest move with the time axis.
    std::erase_if(m_markers, [&](const Marker &marker) {
        if (marker.time - now >= -historySeconds) {
            return false;
        }
        m_plot->removeItem(marker.line);
        m_plot->removeItem(marker.text);
        return true;
    });
    for (const Marker &marker : m_markers) {
        const double key = marker.time - now;
        marker.line->point1->setCoords(key, 0);
        marker.line->point2->setCoords(key, 1);
        marker.text->position->setTypeX(QCPItemPosition::ptPlotCoords);
        marker.text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        marker.text->position->setCoords(key, 0.02);
    }
}

QString MemoryMarkers::detailsNear(double time, double tolerance) const
{
    QString html;
    for (const Marker &marker : m_markers) {
        if (std::abs(marker.time - time) <= tolerance) {
            html += QStringLiteral("<br><b>%1</b><br>%2")
                        .arg(marker.label.toHtmlEscaped(), marker.details.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
        }
    }
    return html;
}

int MemoryMarkers::count() const
{
    return int(m_markers.size());
}

} // namespace Cachescope::App
