// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filesview.h"

#include "droppedurls.h"

#include <KLocalizedString>

#include <QDragEnterEvent>
#include <QHeaderView>
#include <QMimeData>
#include <QPainter>

#include <algorithm>

namespace Cachescope::App
{

FilesView::FilesView(QWidget *parent)
    : QTreeView(parent)
{
    setObjectName(QStringLiteral("filesView"));
    setDragDropMode(QAbstractItemView::DragDrop);
    setDefaultDropAction(Qt::CopyAction);
    setDropIndicatorShown(false);
    // The Name column takes what the other columns leave, but never less
    // than nameColumnMinimum(): in a narrow window the others scroll.
    header()->setStretchLastSection(false);
    connect(header(), &QHeaderView::sectionResized, this, [this](int section) {
        if (section != 0) {
            fitNameColumn();
        }
    });
    connect(header(), &QHeaderView::sectionCountChanged, this, &FilesView::fitNameColumn, Qt::QueuedConnection);
}

int FilesView::nameColumnMinimum() const
{
    return fontMetrics().averageCharWidth() * 24;
}

void FilesView::fitNameColumn()
{
    QHeaderView *columns = header();
    if (columns->count() == 0) {
        return;
    }
    // Sized here, not by the person (the others are theirs to size).
    columns->setSectionResizeMode(0, QHeaderView::Fixed);
    int others = 0;
    for (int section = 1; section < columns->count(); ++section) {
        if (!columns->isSectionHidden(section)) {
            others += columns->sectionSize(section);
        }
    }
    const int width = std::max(nameColumnMinimum(), viewport()->width() - others);
    if (columns->sectionSize(0) != width) {
        columns->resizeSection(0, width);
    }
}

bool FilesView::viewportEvent(QEvent *event)
{
    const bool handled = QTreeView::viewportEvent(event);
    // The window resized, or a scroll bar came or went.
    if (event->type() == QEvent::Resize) {
        fitNameColumn();
    }
    return handled;
}

QModelIndexList FilesView::visibleRows(int limit) const
{
    QModelIndexList rows;
    QModelIndex index = indexAt(QPoint(1, 1));
    const int bottom = viewport()->height();
    while (index.isValid() && rows.size() < limit) {
        const QRect rect = visualRect(index);
        if (rect.top() > bottom) {
            break;
        }
        rows.append(index.siblingAtColumn(0));
        index = indexBelow(index);
    }
    return rows;
}

namespace
{
// Files from elsewhere, not the list's own rows coming back.
bool takes(const QMimeData *mimeData)
{
    return mimeData->hasUrls() && !isOwnDraggedRows(mimeData);
}
} // namespace

void FilesView::dragEnterEvent(QDragEnterEvent *event)
{
    if (takes(event->mimeData())) {
        event->setDropAction(Qt::CopyAction);
        event->accept();
        m_dragOver = true;
        viewport()->update();
    } else {
        event->ignore();
    }
}

void FilesView::dragMoveEvent(QDragMoveEvent *event)
{
    if (takes(event->mimeData())) {
        event->setDropAction(Qt::CopyAction);
        event->accept();
    } else {
        event->ignore();
    }
}

void FilesView::dragLeaveEvent(QDragLeaveEvent *)
{
    m_dragOver = false;
    viewport()->update();
}

void FilesView::dropEvent(QDropEvent *event)
{
    m_dragOver = false;
    viewport()->update();
    if (!takes(event->mimeData())) {
        event->ignore();
        return;
    }
    const QList<QUrl> urls = acceptDroppedUrls(event);
    if (!urls.isEmpty()) {
        Q_EMIT urlsDropped(urls);
    }
}

void FilesView::paintEvent(QPaintEvent *event)
{
    QTreeView::paintEvent(event);
    QPainter painter(viewport());
    if (m_dragOver) {
        QColor highlight = palette().color(QPalette::Highlight);
        painter.setPen(QPen(highlight, 2));
        painter.drawRect(viewport()->rect().adjusted(1, 1, -1, -1));
    }
    if (model() && model()->rowCount() == 0) {
        QColor color = palette().color(QPalette::Text);
        color.setAlphaF(0.6f);
        painter.setPen(color);
        QFont font = painter.font();
        font.setPointSizeF(font.pointSizeF() * 1.2);
        painter.setFont(font);
        // Centred where it fits; from the top in a short list, so that its
        // start is read, not cut.
        const QRect area = viewport()->rect().adjusted(20, 20, -20, -20);
        const QString text =
            i18nc("@info placeholder of the empty list",
                  "Drop files or folders here from Dolphin, or use Add Files… and Add Folder…, to see how much of them is in the page cache.\n\n"
                  "To see which of your files fill the cache, use Top Cached Files…: with nothing selected it looks in your home folder.");
        const bool fits = painter.fontMetrics().boundingRect(area, Qt::AlignCenter | Qt::TextWordWrap, text).height() <= area.height();
        painter.drawText(viewport()->rect().adjusted(20, fits ? 20 : 4, -20, -4),
                         int((fits ? Qt::AlignCenter : Qt::AlignHCenter | Qt::AlignTop) | Qt::TextWordWrap),
                         text);
    }
}

} // namespace Cachescope::App
