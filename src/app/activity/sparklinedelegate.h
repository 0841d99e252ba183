// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QColor>
#include <QStyledItemDelegate>

#include <array>

namespace Cachescope::App
{

// Draws WhoModel's HistoryRole as a small filled line, each row scaled to
// its own highest value (the figures beside it say how high), in the colour
// of the measure it draws.
class SparklineDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    explicit SparklineDelegate(QObject *parent = nullptr);

    void setColors(const std::array<QColor, 3> &colors);
    // How many values a minute holds: a row seen for ten seconds fills a sixth.
    void setSlots(int count);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    [[nodiscard]] QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    std::array<QColor, 3> m_colors;
    int m_slots = 60;
};

} // namespace Cachescope::App
