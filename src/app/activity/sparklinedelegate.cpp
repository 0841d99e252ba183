// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "sparklinedelegate.h"

#include "whomodel.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace Cachescope::App
{

SparklineDelegate::SparklineDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
{
}

void SparklineDelegate::setColors(const std::array<QColor, 3> &colors)
{
    m_colors = colors;
}

void SparklineDelegate::setSlots(int count)
{
    m_slots = std::max(2, count);
}

void SparklineDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    // The cell's background and selection as any other cell's.
    QStyleOptionViewItem background = option;
    initStyleOption(&background, index);
    background.text.clear();
    const QStyle *style = background.widget ? background.widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &background, painter, background.widget);

    const QList<double> series = index.data(WhoModel::HistoryRole).value<QList<double>>();
    const double peak = series.isEmpty() ? 0 : *std::max_element(series.begin(), series.end());
    if (series.size() < 2 || peak <= 0) {
        return;
    }
    const QRectF area = QRectF(option.rect).adjusted(3, 3, -3, -3);
    if (area.width() < 4 || area.height() < 4) {
        return;
    }
    const int measure = std::clamp(index.data(WhoModel::MeasureRole).toInt(), 0, 2);
    QColor line = m_colors[size_t(measure)].isValid() ? m_colors[size_t(measure)] : option.palette.color(QPalette::Highlight);
    if (option.state & QStyle::State_Selected) {
        line = option.palette.color(QPalette::HighlightedText);
    }
    // A minute's width whatever the count so far: the newest at the right.
    const int count = std::max<int>(int(series.size()), m_slots);
    const double step = area.width() / double(count - 1);
    QPainterPath path;
    const double x0 = area.right() - step * double(series.size() - 1);
    path.moveTo(x0, area.bottom());
    for (qsizetype i = 0; i < series.size(); ++i) {
        const double x = x0 + step * double(i);
        const double y = area.bottom() - area.height() * std::max(0.0, series[i]) / peak;
        path.lineTo(x, y);
    }
    path.lineTo(area.right(), area.bottom());
    path.closeSubpath();

    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    QColor fill = line;
    fill.setAlpha(90);
    painter->setPen(QPen(line, 1.2));
    painter->setBrush(fill);
    painter->drawPath(path);
    painter->restore();
}

QSize SparklineDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setWidth(std::max(size.width(), option.fontMetrics.horizontalAdvance(QLatin1Char('0')) * 12));
    return size;
}

} // namespace Cachescope::App
