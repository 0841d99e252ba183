// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "residencydelegate.h"
#include "filesmodel.h"

#include <KLocalizedString>

#include <QApplication>
#include <QPainter>

namespace Cachescope::App
{

namespace
{
QColor mix(const QColor &a, const QColor &b, double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}
} // namespace

ResidencyDelegate::ResidencyDelegate(QObject *parent)
    : QStyledItemDelegate(parent)
    , m_resident(0x3d, 0xae, 0xe9) // Breeze highlight blue
    , m_dirty(0xf6, 0x74, 0x00) // Breeze warning orange
{
}

void ResidencyDelegate::setColors(const QColor &resident, const QColor &dirty, const QColor &empty)
{
    m_resident = resident;
    m_dirty = dirty;
    m_empty = empty;
}

QSize ResidencyDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    size.setWidth(std::max(size.width(), FilesModel::stripCells * 2 + 8));
    return size;
}

void ResidencyDelegate::paintHidden(QPainter *painter, const QRect &rect, const QPalette &palette, const QFont &font)
{
    painter->save();
    painter->fillRect(rect, palette.color(QPalette::Window));
    QColor hatch = palette.color(QPalette::WindowText);
    hatch.setAlphaF(0.3f);
    painter->fillRect(rect, QBrush(hatch, Qt::BDiagPattern));
    painter->setPen(hatch);
    painter->drawRect(rect.adjusted(0, 0, -1, -1));
    QFont small = font;
    small.setItalic(true);
    painter->setFont(small);
    const QString text = i18nc("@info the kernel hides this residency", "hidden");
    const QRect textRect = painter->fontMetrics().boundingRect(text).adjusted(-4, 0, 4, 0);
    QRect box(QPoint(0, 0), textRect.size().boundedTo(rect.size()));
    box.moveCenter(rect.center());
    painter->fillRect(box, palette.color(QPalette::Window));
    painter->setPen(palette.color(QPalette::WindowText));
    painter->drawText(rect, Qt::AlignCenter, text);
    painter->restore();
}

void ResidencyDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    // Background and selection as for any other cell.
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const int height = std::max(6, option.rect.height() * 3 / 5);
    QRect bar = option.rect.adjusted(4, 0, -4, 0);
    bar.setTop(option.rect.top() + (option.rect.height() - height) / 2);
    bar.setHeight(height);
    if (bar.width() < 8) {
        return;
    }

    if (index.data(FilesModel::HiddenRole).toBool()) {
        paintHidden(painter, bar, option.palette, option.font);
        return;
    }

    const QColor empty = m_empty.isValid() ? m_empty : mix(option.palette.color(QPalette::Base), option.palette.color(QPalette::Text), 0.08);
    QColor frame = option.palette.color(QPalette::Text);
    frame.setAlphaF(0.25f);

    painter->save();
    if (index.data(FilesModel::IsDirectoryRole).toBool()) {
        const QList<float> fractions = index.data(FilesModel::FolderFractionsRole).value<QList<float>>();
        painter->fillRect(bar, empty);
        if (fractions.size() == 2) {
            const int residentWidth = int(std::lround(bar.width() * double(fractions[0])));
            const int hiddenWidth = int(std::lround(bar.width() * double(fractions[1])));
            painter->fillRect(QRect(bar.left(), bar.top(), residentWidth, bar.height()), m_resident);
            if (hiddenWidth > 0) {
                const QRect hiddenRect(bar.right() + 1 - hiddenWidth, bar.top(), hiddenWidth, bar.height());
                QColor hatch = option.palette.color(QPalette::Text);
                hatch.setAlphaF(0.35f);
                painter->fillRect(hiddenRect, QBrush(hatch, Qt::BDiagPattern));
            }
        }
    } else {
        const QList<float> strip = index.data(FilesModel::StripRole).value<QList<float>>();
        const QList<float> dirty = index.data(FilesModel::StripDirtyRole).value<QList<float>>();
        if (strip.isEmpty()) {
            painter->fillRect(bar, empty);
        } else {
            const double cellWidth = double(bar.width()) / double(strip.size());
            for (int i = 0; i < strip.size(); ++i) {
                const int x0 = bar.left() + int(std::lround(i * cellWidth));
                const int x1 = bar.left() + int(std::lround((i + 1) * cellWidth));
                QColor color = mix(empty, m_resident, double(strip[i]));
                if (i < dirty.size() && dirty[i] > 0.0f) {
                    // Any dirty page shows: a cell with one dirty page in a GiB still matters.
                    color = mix(color, m_dirty, 0.4 + 0.6 * double(dirty[i]));
                }
                painter->fillRect(QRect(x0, bar.top(), std::max(1, x1 - x0), bar.height()), color);
            }
        }
    }
    painter->setPen(frame);
    painter->drawRect(bar.adjusted(0, 0, -1, -1));
    painter->restore();
}

} // namespace Cachescope::App
