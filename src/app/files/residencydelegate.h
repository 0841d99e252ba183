// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QColor>
#include <QStyledItemDelegate>

namespace Cachescope::App
{

// Draws the residency strip of a row: for a file, a small heatmap of its
// cells (resident fraction, dirty pages in their own colour); for a folder, a
// bar of its cached share. Hidden residency is hatched with the word "hidden",
// never drawn as a number or a fill.
class ResidencyDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    explicit ResidencyDelegate(QObject *parent = nullptr);

    void setColors(const QColor &resident, const QColor &dirty, const QColor &empty);

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    // The hatched "hidden" look, shared with the rest of the panel.
    static void paintHidden(QPainter *painter, const QRect &rect, const QPalette &palette, const QFont &font);

private:
    QColor m_resident;
    QColor m_dirty;
    QColor m_empty; // invalid: derived from the palette
};

} // namespace Cachescope::App
