// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "cachemapwidget.h"

#include "focusframe.h"
#include "format.h"
#include "residency.h"
#include "treemaplayout.h"

#include <KLocalizedString>

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QTimer>
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
    // Before anything asks QAccessible about the map (setAccessibleName does).
    AccessibleItems::installFactory();
    setMouseTracking(true);
    // Small enough that the tab never makes the memory panel taller than the plots do.
    setMinimumSize(160, 60);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setFocusPolicy(Qt::StrongFocus);
    setAccessibleName(i18nc("@info:whatsthis", "Cache map"));
    setAccessibleDescription(i18nc("@info:whatsthis",
                                   "The folders that hold the page cache, each a box as large as its share. Arrow keys move between the boxes, "
                                   "Enter opens a folder, Backspace goes back."));
}

void CacheMapWidget::setTree(std::shared_ptr<const CacheMapTree> tree, uint32_t folder)
{
    const std::string before = m_tree && m_folder < m_tree->folders.size() ? m_tree->folders[m_folder].path : std::string();
    m_tree = std::move(tree);
    m_folder = folder;
    const std::string now = m_tree && m_folder < m_tree->folders.size() ? m_tree->folders[m_folder].path : std::string();
    if (now != before) {
        // Another folder (not a snapshot of the same): after Up or Back the
        // box of the folder left is the current one, else the first.
        m_currentPath = before;
        m_currentFilesHere = false;
        m_current = -1;
        setAccessibleName(now.empty() ? i18nc("@info:whatsthis", "Cache map")
                                      : i18nc("@info:whatsthis %1 a folder", "Cache map of %1", QString::fromStdString(now)));
    }
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
    const int before = m_current;
    m_boxes.clear();
    m_current = -1;
    if (m_tree && m_folder < m_tree->folders.size()) {
        layOutChildren(m_folder, QRectF(rect()).adjusted(2, 2, -2, -2), 1);
    }
    for (size_t i = 0; i < m_boxes.size() && m_current < 0; ++i) {
        if ((m_boxes[i].folder == FilesHere) == m_currentFilesHere && pathOf(m_boxes[i]) == m_currentPath) {
            m_current = int(i);
        }
    }
    if (m_current < 0 && !m_boxes.empty()) {
        m_current = 0;
    }
    if (m_current >= 0) {
        m_currentPath = pathOf(m_boxes[size_t(m_current)]);
        m_currentFilesHere = m_boxes[size_t(m_current)].folder == FilesHere;
    }
    if (!accessibilityActive()) {
        m_boxKeys.clear();
        return;
    }
    // The same boxes in a new layout (a snapshot of the same folder, a
    // resize) keep their accessible items, with new figures; other boxes
    // are new items, and the current one gets the focus anew.
    std::vector<std::pair<std::string, bool>> keys;
    keys.reserve(m_boxes.size());
    for (const Box &box : m_boxes) {
        keys.emplace_back(pathOf(box), box.folder == FilesHere);
    }
    const bool sameBoxes = keys == m_boxKeys;
    m_boxKeys = std::move(keys);
    AccessibleItems::itemsChanged(this, !sameBoxes);
    if (!sameBoxes || m_current != before) {
        AccessibleItems::currentItemChanged(this);
    }
}

std::string CacheMapWidget::pathOf(const Box &box) const
{
    return m_tree->folders[box.folder == FilesHere ? box.parentFolder : box.folder].path;
}

int CacheMapWidget::currentBox() const
{
    return m_current;
}

void CacheMapWidget::setCurrentBox(int index)
{
    if (index < 0 || size_t(index) >= m_boxes.size()) {
        return;
    }
    if (index != m_current) {
        m_current = index;
        m_currentPath = pathOf(m_boxes[size_t(index)]);
        m_currentFilesHere = m_boxes[size_t(index)].folder == FilesHere;
        update();
    }
    AccessibleItems::currentItemChanged(this);
}

void CacheMapWidget::moveTo(int index)
{
    if (index < 0 || size_t(index) >= m_boxes.size()) {
        return;
    }
    setCurrentBox(index);
    // The figures a pointer gets on hovering, where a keyboard user looks.
    if (isVisible()) {
        const QRect r = m_boxes[size_t(index)].rect.toAlignedRect();
        QToolTip::showText(mapToGlobal(QPoint(r.left() + 8, r.top() + int(headerHeight) + 4)), toolTipFor(m_boxes[size_t(index)]), this, r);
    }
}

QRectF CacheMapWidget::ownRect(int index) const
{
    const Box &box = m_boxes[size_t(index)];
    // The subfolders shown inside come right after their box.
    const bool nested = size_t(index) + 1 < m_boxes.size() && m_boxes[size_t(index) + 1].level > box.level;
    if (!nested) {
        return box.rect;
    }
    return {box.rect.left(), box.rect.top(), box.rect.width(), std::min(headerHeight, box.rect.height())};
}

int CacheMapWidget::boxToward(int from, int key) const
{
    if (from < 0 || size_t(from) >= m_boxes.size()) {
        return m_boxes.empty() ? -1 : 0;
    }
    const QRectF r = ownRect(from);
    const bool horizontal = key == Qt::Key_Left || key == Qt::Key_Right;
    // Nearest that way, then the least off to the side, then the one that
    // starts in line (reading order: the first child below a header).
    int best = -1;
    double bestDistance = 0;
    double bestStart = 0;
    for (int i = 0; size_t(i) < m_boxes.size(); ++i) {
        if (i == from) {
            continue;
        }
        const QRectF s = ownRect(i);
        double along = 0;
        switch (key) {
        case Qt::Key_Right:
            along = s.left() - r.right();
            break;
        case Qt::Key_Left:
            along = r.left() - s.right();
            break;
        case Qt::Key_Down:
            along = s.top() - r.bottom();
            break;
        default:
            along = r.top() - s.bottom();
            break;
        }
        if (along < -0.5) {
            continue;
        }
        const double aside =
            horizontal ? std::max({0.0, s.top() - r.bottom(), r.top() - s.bottom()}) : std::max({0.0, s.left() - r.right(), r.left() - s.right()});
        const double distance = std::max(0.0, along) + 4 * aside;
        const double start = horizontal ? std::abs(s.top() - r.top()) : std::abs(s.left() - r.left());
        if (best < 0 || distance < bestDistance - 0.5 || (std::abs(distance - bestDistance) <= 0.5 && start < bestStart)) {
            best = i;
            bestDistance = distance;
            bestStart = start;
        }
    }
    return best;
}

void CacheMapWidget::openActivated(int index)
{
    if (index >= 0 && size_t(index) < m_boxes.size() && m_boxes[size_t(index)].folder != FilesHere) {
        Q_EMIT folderActivated(m_boxes[size_t(index)].folder);
    }
}

void CacheMapWidget::requestMenu(int index, std::optional<QPoint> position)
{
    if (index < 0 || size_t(index) >= m_boxes.size()) {
        return;
    }
    const Box &box = m_boxes[size_t(index)];
    // From the keyboard: at the box's header, where its name is, as a list's menu opens at its row.
    const QPoint at = position.value_or(
        QPointF(box.rect.left() + std::min(box.rect.width() / 2, 24.0), box.rect.top() + std::min(box.rect.height() / 2, headerHeight)).toPoint());
    Q_EMIT contextMenuRequested(box.folder == FilesHere ? box.parentFolder : box.folder, mapToGlobal(at));
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

QStringList CacheMapWidget::figuresOf(const Box &box) const
{
    const FolderTotals &totals = totalsOf(box);
    const uint64_t page = pageSize();
    const uint64_t whole = m_tree->folders[m_folder].tree.resident;
    QStringList lines;
    if (box.folder != FilesHere) {
        lines << QString::fromStdString(m_tree->folders[box.folder].path);
    }
    lines << i18nc("@info:tooltip",
                   "In the page cache: %1 (%2 of what this map shows)",
                   bytesText(totals.resident * page),
                   QLocale().toString(percentShown(totals.resident, whole, 1), 'f', 1) + QLatin1Char('%'));
    lines << i18nc("@info:tooltip",
                   "Cached: %1 of its %2 of files",
                   QLocale().toString(percentShown(totals.resident, totals.pages, 1), 'f', 1) + QLatin1Char('%'),
                   bytesText(totals.pages * page));
    lines << i18ncp("@info:tooltip", "%1 file", "%1 files", qulonglong(totals.files));
    if (totals.hiddenFiles > 0) {
        lines << i18ncp("@info:tooltip",
                        "%1 file hidden by the kernel: its residency is not counted",
                        "%1 files hidden by the kernel: their residency is not counted",
                        qulonglong(totals.hiddenFiles));
    }
    if (box.folder != FilesHere && m_tree->folders[box.folder].mountPoint) {
        lines << i18nc("@info:tooltip", "A mount point: another file system");
    }
    return lines;
}

QString CacheMapWidget::toolTipFor(const Box &box) const
{
    QString text = QStringLiteral("<b>%1</b>").arg(nameOf(box).toHtmlEscaped());
    const auto figureLines = figuresOf(box);
    for (const QString &line : figureLines) {
        text += QStringLiteral("<br>") + line.toHtmlEscaped();
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
    if (hasFocus() && m_current >= 0) {
        const Box &current = m_boxes[size_t(m_current)];
        paintFocusFrame(painter, current.rect.adjusted(3, 3, -3, -3), palette(), fillFor(totalsOf(current)));
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
    if (const Box *box = boxAt(event->position())) {
        const int index = int(box - m_boxes.data());
        setCurrentBox(index);
        openActivated(index);
    }
}

void CacheMapWidget::contextMenuEvent(QContextMenuEvent *event)
{
    if (event->reason() == QContextMenuEvent::Keyboard) {
        requestMenu(m_current);
    } else if (const Box *box = boxAt(event->pos())) {
        const int index = int(box - m_boxes.data());
        setCurrentBox(index);
        requestMenu(index, event->pos());
    }
}

void CacheMapWidget::keyPressEvent(QKeyEvent *event)
{
    const bool alt = event->modifiers() & Qt::AltModifier;
    switch (event->key()) {
    case Qt::Key_Left:
        if (alt) {
            Q_EMIT backRequested();
            break;
        }
        [[fallthrough]];
    case Qt::Key_Right:
    case Qt::Key_Down:
        moveTo(boxToward(m_current, event->key()));
        break;
    case Qt::Key_Up:
        if (alt) {
            Q_EMIT upRequested();
        } else {
            moveTo(boxToward(m_current, event->key()));
        }
        break;
    case Qt::Key_Home:
        moveTo(0);
        break;
    case Qt::Key_End:
        moveTo(int(m_boxes.size()) - 1);
        break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        openActivated(m_current);
        break;
    case Qt::Key_Backspace:
        Q_EMIT backRequested();
        break;
    case Qt::Key_Menu:
        requestMenu(m_current);
        break;
    case Qt::Key_F10:
        if (event->modifiers() & Qt::ShiftModifier) {
            requestMenu(m_current);
            break;
        }
        [[fallthrough]];
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void CacheMapWidget::focusInEvent(QFocusEvent *event)
{
    QWidget::focusInEvent(event);
    AccessibleItems::focusChanged(this);
}

void CacheMapWidget::focusOutEvent(QFocusEvent *event)
{
    QWidget::focusOutEvent(event);
    AccessibleItems::focusChanged(this);
}

int CacheMapWidget::accessibleItemCount() const
{
    return int(m_boxes.size());
}

CacheMapWidget::Item CacheMapWidget::accessibleItem(int item) const
{
    const Box &box = m_boxes[size_t(item)];
    const uint64_t resident = totalsOf(box).resident;
    return {
        nameOf(box),
        figuresOf(box).join(QLatin1Char('\n')),
        i18nc("@info accessible value of a cache map box: %1 bytes, %2 percent",
              "%1, %2",
              bytesText(resident * pageSize()),
              QLocale().toString(percentShown(resident, m_tree->folders[m_folder].tree.resident, 1), 'f', 1) + QLatin1Char('%')),
        box.rect.toAlignedRect(),
        box.folder != FilesHere, // a click opens nothing else either
        true,
    };
}

int CacheMapWidget::accessibleItemAt(const QPoint &position) const
{
    const Box *box = boxAt(position);
    return box ? int(box - m_boxes.data()) : -1;
}

int CacheMapWidget::accessibleCurrentItem() const
{
    return m_current;
}

void CacheMapWidget::setAccessibleCurrentItem(int item)
{
    activateWindow();
    setFocus(Qt::OtherFocusReason);
    setCurrentBox(item);
}

void CacheMapWidget::pressAccessibleItem(int item)
{
    // Later: opening a folder makes new boxes, and the one pressed goes.
    QTimer::singleShot(0, this, [this, item] {
        openActivated(item);
    });
}

void CacheMapWidget::showAccessibleItemMenu(int item)
{
    // Later: the menu runs an event loop of its own, not inside the call that asked for it.
    QTimer::singleShot(0, this, [this, item] {
        requestMenu(item);
    });
}

} // namespace Cachescope::App
