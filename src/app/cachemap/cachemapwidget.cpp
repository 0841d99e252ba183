// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "cachemapwidget.h"

#include "format.h"
#include "residency.h"
#include "treemaplayout.h"

#include <KLocalizedString>

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace Cachescope::App
{

namespace
{
// Boxes smaller than this show no name; folders smaller than the nested
// minimum show no subfolders (they would be unreadable specks).
constexpr double minimumNamed = 28;
constexpr double nestedMinimumWidth = 90;
constexpr double nestedMinimumHeight = 60;
constexpr double headerHeight = 18;

QString bytesText(uint64_t bytes)
{
    return formatBytes(bytes, ByteStyle::OneDecimal, QLocale());
}
} // namespace

CacheMapWidget::CacheMapWidget(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    // Small enough that the tab never makes the memory panel taller than the plots do.
    setMinimumSize(160, 60);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void CacheMapWidget::setTree(std::shared_ptr<const CacheMapTree> tree, uint32_t folder)
{
    m_tree = std::move(tree);
    m_folder = folder;
    layOut();
    update();
}

void CacheMapWidget::setColors(const QColor &empty, const QColor &full)
{
    m_empty = empty;
    m_full = full;
    update();
}

const FolderTotals &CacheMapWidget::totalsOf(const Box &box) const
{
    if (box.folder == FilesHere) {
        return m_tree->folders[box.parentFolder].own;
    }
    return m_tree->folders[box.folder].tree;
}

QString CacheMapWidget::nameOf(const Box &box) const
{
    if (box.folder == FilesHere && box.parentFolder == m_folder) {
        return i18nc("@label the files directly in the folder shown, not in its subfolders", "Files directly here");
    }
    if (box.folder == FilesHere) {
        return i18nc("@label the files directly in a folder, not in its subfolders",
                     "Files in %1",
                     QString::fromStdString(std::string(m_tree->folders[box.parentFolder].name())));
    }
    return QString::fromStdString(std::string(m_tree->folders[box.folder].name()));
}

QColor CacheMapWidget::fillFor(const FolderTotals &totals) const
{
    const double cached = totals.pages > 0 ? double(totals.resident) / double(totals.pages) : 0.0;
    // Even a folder with a sliver cached gets a visible part of the scale.
    const double t = totals.resident > 0 ? 0.25 + 0.75 * cached : 0.0;
    const QColor empty = m_empty.isValid() ? m_empty : palette().color(QPalette::Base);
    const QColor full = m_full.isValid() ? m_full : palette().color(QPalette::Highlight);
    return QColor::fromRgbF(float(empty.redF() + (full.redF() - empty.redF()) * t),
                            float(empty.greenF() + (full.greenF() - empty.greenF()) * t),
                            float(empty.blueF() + (full.blueF() - empty.blueF()) * t));
}

void CacheMapWidget::layOut()
{
    m_boxes.clear();
    if (!m_tree || m_folder >= m_tree->folders.size()) {
        return;
    }
    layOutChildren(m_folder, QRectF(rect()).adjusted(2, 2, -2, -2), 1);
}

void CacheMapWidget::layOutChildren(uint32_t folder, const QRectF &bounds, int level)
{
    const CacheMapFolder &parent = m_tree->folders[folder];
    // Children come most resident first; the files of the folder itself are one more box.
    std::vector<std::pair<double, uint32_t>> items;
    for (uint32_t child : parent.children) {
        if (m_tree->folders[child].tree.resident > 0) {
            items.emplace_back(double(m_tree->folders[child].tree.resident), child);
        }
    }
    if (parent.own.resident > 0) {
        items.emplace_back(double(parent.own.resident), FilesHere);
    }
    std::stable_sort(items.begin(), items.end(), [](const auto &a, const auto &b) {
        return a.first > b.first;
    });
    std::vector<double> weights;
    weights.reserve(items.size());
    for (const auto &item : items) {
        weights.push_back(item.first);
    }
    const std::vector<QRectF> rects = squarify(weights, bounds);
    for (size_t i = 0; i < items.size(); ++i) {
        Box box{rects[i], items[i].second, folder, level};
        m_boxes.push_back(box);
        const QRectF inner = rects[i].adjusted(3, headerHeight, -3, -3);
        if (level == 1 && box.folder != FilesHere && inner.width() >= nestedMinimumWidth && inner.height() >= nestedMinimumHeight) {
            layOutChildren(box.folder, inner, level + 1);
        }
    }
}

const CacheMapWidget::Box *CacheMapWidget::boxAt(const QPointF &pos) const
{
    const Box *found = nullptr;
    for (const Box &box : m_boxes) {
        if (box.rect.contains(pos) && (!found || box.level > found->level)) {
            found = &box;
        }
    }
    return found;
}

QString CacheMapWidget::toolTipFor(const Box &box) const
{
    const FolderTotals &totals = totalsOf(box);
    const uint64_t page = pageSize();
    const uint64_t whole = m_tree->folders[m_folder].tree.resident;
    QString text = QStringLiteral("<b>%1</b>").arg(nameOf(box).toHtmlEscaped());
    if (box.folder != FilesHere) {
        text += QStringLiteral("<br>") + QString::fromStdString(m_tree->folders[box.folder].path).toHtmlEscaped();
    }
    text += QStringLiteral("<br>")
        + i18nc("@info:tooltip",
                "In the page cache: %1 (%2 of what this map shows)",
                bytesText(totals.resident * page),
                QLocale().toString(percentShown(totals.resident, whole, 1), 'f', 1) + QLatin1Char('%'));
    text += QStringLiteral("<br>")
        + i18nc("@info:tooltip",
                "Cached: %1 of its %2 of files",
                QLocale().toString(percentShown(totals.resident, totals.pages, 1), 'f', 1) + QLatin1Char('%'),
                bytesText(totals.pages * page));
    text += QStringLiteral("<br>") + i18ncp("@info:tooltip", "%1 file", "%1 files", qulonglong(totals.files));
    if (totals.hiddenFiles > 0) {
        text += QStringLiteral("<br>")
            + i18ncp("@info:tooltip",
                     "%1 file hidden by the kernel: its residency is not counted",
                     "%1 files hidden by the kernel: their residency is not counted",
                     qulonglong(totals.hiddenFiles));
    }
    if (box.folder != FilesHere && m_tree->folders[box.folder].mountPoint) {
        text += QStringLiteral("<br>") + i18nc("@info:tooltip", "A mount point: another file system");
    }
    return text;
}

void CacheMapWidget::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.fillRect(rect(), palette().color(QPalette::Window));
    if (m_boxes.empty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(),
                         Qt::AlignCenter | Qt::TextWordWrap,
                         m_tree ? i18nc("@info", "Nothing in this folder is in the page cache.") : i18nc("@info", "No map yet."));
        return;
    }
    const QColor frame = palette().color(QPalette::Window).darker(160);
    for (const Box &box : m_boxes) {
        const QColor fill = fillFor(totalsOf(box));
        painter.fillRect(box.rect, fill);
        QPen pen(frame, box.level == 1 ? 1.5 : 1.0);
        if (box.folder != FilesHere && m_tree->folders[box.folder].mountPoint) {
            pen.setStyle(Qt::DashLine);
            pen.setWidthF(2.0);
        }
        if (box.folder == FilesHere) {
            painter.setBrush(QBrush(frame, Qt::BDiagPattern));
            painter.setPen(Qt::NoPen);
            painter.drawRect(box.rect);
            painter.setBrush(Qt::NoBrush);
        }
        painter.setPen(pen);
        painter.drawRect(box.rect.adjusted(0.5, 0.5, -0.5, -0.5));
        if (box.rect.width() < minimumNamed || box.rect.height() < 14) {
            continue;
        }
        // Dark text on light boxes, light text on dark ones.
        painter.setPen(fill.lightnessF() > 0.55 ? QColor(Qt::black) : QColor(Qt::white));
        const QRectF textRect = box.rect.adjusted(4, 1, -4, 0);
        const QString label = nameOf(box) + QStringLiteral("  ") + bytesText(totalsOf(box).resident * pageSize());
        QFont font = painter.font();
        font.setBold(box.level == 1);
        painter.setFont(font);
        painter.drawText(QRectF(textRect.left(), textRect.top(), textRect.width(), headerHeight - 2),
                         Qt::AlignLeft | Qt::AlignVCenter,
                         painter.fontMetrics().elidedText(label, Qt::ElideMiddle, int(textRect.width())));
    }
}

void CacheMapWidget::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    layOut();
}

bool CacheMapWidget::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        if (const Box *box = boxAt(help->pos())) {
            QToolTip::showText(help->globalPos(), toolTipFor(*box), this, box->rect.toAlignedRect());
        } else {
            QToolTip::hideText();
            event->ignore();
        }
        return true;
    }
    return QWidget::event(event);
}

void CacheMapWidget::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        return;
    }
    const Box *box = boxAt(event->position());
    if (box && box->folder != FilesHere) {
        Q_EMIT folderActivated(box->folder);
    }
}

void CacheMapWidget::contextMenuEvent(QContextMenuEvent *event)
{
    if (const Box *box = boxAt(event->pos())) {
        Q_EMIT contextMenuRequested(box->folder == FilesHere ? box->parentFolder : box->folder, event->globalPos());
    }
}

} // namespace Cachescope::App
