// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "droppedurls.h"

#include "cachescope_app_debug.h"

#include <KUrlMimeData>

#include <QDropEvent>
#include <QMimeData>

namespace Cachescope::App
{

QList<QUrl> acceptDroppedUrls(QDropEvent *event)
{
    const QList<QUrl> urls = KUrlMimeData::urlsFromMimeData(event->mimeData(), KUrlMimeData::PreferLocalUrls);
    if (urls.isEmpty()) {
        qCDebug(CACHESCOPE_APP) << "drop refused, no URLs in" << event->mimeData()->formats();
        event->ignore();
        return {};
    }
    event->setDropAction(Qt::CopyAction);
    event->accept();
    return urls;
}

} // namespace Cachescope::App
