// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "evictdropzone.h"

#include "droppedurls.h"

#include <KLocalizedString>

#include <QDragEnterEvent>
#include <QIcon>
#include <QMimeData>
#include <QPainter>
#include <QPainterPath>

namespace Cachescope::App
{

namespace
{
QString title()
{
    return i18nc("@label drop target", "Evict from Page Cache");
}
QString body()
{
    return i18nc("@info drop target", "Drop files or folders here to drop their pages from memory. The files stay on disk.");
}
} // namespace

EvictDropZone::EvictDropZone(QWidget *parent)
    : QFrame(parent)
{
    setAcceptDrops(true);
    setObjectName(QStringLiteral("evictDropZone"));
    setToolTip(i18nc("@info:tooltip",
                     "Drop here to evict from the page cache: clean pages are freed at once; dirty pages, pages mapped by running programs and "
                     "tmpfs stay, and you are told why."));
    setAccessibleName(title());
    setAccessibleDescription(body());
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
}

void EvictDropZone::setHighlighted(bool highlighted)
{
    if (m_highlighted != highlighted) {
        m_highlighted = highlighted;
        update();
    }
}

QSize EvictDropZone::sizeHint() const
{
    return {fontMetrics().averageCharWidth() * 26, fontMetrics().height() * 9};
}

QSize EvictDropZone::minimumSizeHint() const
{
    return {fontMetrics().averageCharWidth() * 18, fontMetrics().height() * 5};
}

void EvictDropZone::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QRectF area = QRectF(rect()).adjusted(4.5, 4.5, -4.5, -4.5);
    QPainterPath path;
    path.addRoundedRect(area, 6, 6);

    const QColor highlight = palette().color(QPalette::Highlight);
    QColor border = palette().color(QPalette::WindowText);
    border.setAlphaF(0.35f);
    if (m_highlighted) {
        QColor fill = highlight;
        fill.setAlphaF(0.2f);
        painter.fillPath(path, fill);
        border = highlight;
    }
    QPen pen(border, m_highlighted ? 2.0 : 1.5, m_highlighted ? Qt::SolidLine : Qt::DashLine);
    painter.setPen(pen);
    painter.drawPath(path);

    const int iconSize = std::min(48, height() / 3);
    const int spacing = fontMetrics().height() / 2;
    QFont titleFont = font();
    titleFont.setBold(true);
    const QFontMetrics titleMetrics(titleFont);
    const QRect textArea = rect().adjusted(14, 0, -14, 0);
    const QRect bodyBounds = fontMetrics().boundingRect(textArea, Qt::AlignHCenter | Qt::TextWordWrap, body());
    const QRect titleBounds = titleMetrics.boundingRect(textArea, Qt::AlignHCenter | Qt::TextWordWrap, title());
    // Too short for the explanation (a small window): the icon and the
    // title, the explanation in the tooltip; never text cut in half.
    const int withoutBody = iconSize + spacing + titleBounds.height();
    const bool showsBody = withoutBody + spacing / 2 + bodyBounds.height() <= height() - 16;
    const int total = showsBody ? withoutBody + spacing / 2 + bodyBounds.height() : withoutBody;
    int y = std::max(8, (height() - total) / 2);

    const QIcon icon = QIcon::fromTheme(QStringLiteral("edit-clear-all"));
    icon.paint(&painter, QRect((width() - iconSize) / 2, y, iconSize, iconSize), Qt::AlignCenter, m_highlighted ? QIcon::Active : QIcon::Normal);
    y += iconSize + spacing;

    painter.setPen(m_highlighted ? highlight : palette().color(QPalette::WindowText));
    painter.setFont(titleFont);
    painter.drawText(QRect(textArea.left(), y, textArea.width(), titleBounds.height()), Qt::AlignHCenter | Qt::TextWordWrap, title());
    y += titleBounds.height() + spacing / 2;

    if (!showsBody) {
        return;
    }
    QColor bodyColor = palette().color(QPalette::WindowText);
    bodyColor.setAlphaF(0.7f);
    painter.setPen(bodyColor);
    painter.setFont(font());
    painter.drawText(QRect(textArea.left(), y, textArea.width(), bodyBounds.height()), Qt::AlignHCenter | Qt::TextWordWrap, body());
}

void EvictDropZone::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls()) {
        event->acceptProposedAction();
        setHighlighted(true);
    } else {
        event->ignore();
    }
}

void EvictDropZone::dragMoveEvent(QDragMoveEvent *event)
{
    if (event->mimeData()->hasUrls()) {
        event->acceptProposedAction();
    } else {
        event->ignore();
    }
}

void EvictDropZone::dragLeaveEvent(QDragLeaveEvent *)
{
    setHighlighted(false);
}

void EvictDropZone::dropEvent(QDropEvent *event)
{
    setHighlighted(false);
    const QList<QUrl> urls = acceptDroppedUrls(event);
    if (!urls.isEmpty()) {
        Q_EMIT urlsDropped(urls);
    }
}

} // namespace Cachescope::App
