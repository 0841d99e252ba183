// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "droppedurls.h"

#include "cachescope_app_debug.h"

#include <KUrlMimeData>

#include <QCoreApplication>
#include <QDropEvent>
#include <QMimeData>

namespace Cachescope::App
{

namespace
{
// Which process's list the rows come from.
QString ownRowsFormat()
{
    return QStringLiteral("application/x-cachescope-files-rows");
}
} // namespace

QList<QUrl> acceptDroppedUrls(QDropEvent *event)
{
    QList<QUrl> urls = KUrlMimeData::urlsFromMimeData(event->mimeData(), KUrlMimeData::PreferLocalUrls);
    if (urls.isEmpty()) {
        qCDebug(CACHESCOPE_APP) << "drop refused, no URLs in" << event->mimeData()->formats();
        event->ignore();
        return {};
    }
    event->setDropAction(Qt::CopyAction);
    event->accept();
    return urls;
}

QUrl urlOfLocalPath(const std::string &path)
{
    const QByteArray bytes = QByteArray::fromRawData(path.data(), qsizetype(path.size()));
    return QUrl::fromEncoded(QByteArray("file://").append(bytes.toPercentEncoding("/")), QUrl::StrictMode);
}

std::string localPathOfUrl(const QUrl &url)
{
    return QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1()).toStdString();
}

void setDraggedRows(const QList<QUrl> &urls, QMimeData *mimeData)
{
    // All local already: the same list for KDE's own format and text/uri-list.
    KUrlMimeData::setUrls(urls, urls, mimeData);
    mimeData->setData(ownRowsFormat(), QByteArray::number(QCoreApplication::applicationPid()));
}

bool isOwnDraggedRows(const QMimeData *mimeData)
{
    return mimeData->hasFormat(ownRowsFormat()) && mimeData->data(ownRowsFormat()) == QByteArray::number(QCoreApplication::applicationPid());
}

QStringList draggedRowsFormats()
{
    return KUrlMimeData::mimeDataTypes() << ownRowsFormat();
}

} // namespace Cachescope::App
