// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "servicemenueviction.h"

#include "cachescope_app_debug.h"
#include "cachescopesettings.h"
#include "files/filesjob.h"
#include "files/filesjobreport.h"

#include <KLocalizedString>
#include <KNotification>

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusReply>
#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include <algorithm>

namespace Cachescope::App
{

namespace
{

const QString notificationService = QStringLiteral("org.freedesktop.Notifications");
const QString componentName = QStringLiteral("cachescope");

bool notificationsCanBeShown()
{
    if (QStandardPaths::locate(QStandardPaths::GenericDataLocation, QStringLiteral("knotifications6/%1.notifyrc").arg(componentName)).isEmpty()) {
        qCDebug(CACHESCOPE_APP) << "no cachescope.notifyrc installed: evicting in the window";
        return false;
    }
    QDBusConnectionInterface *bus = QDBusConnection::sessionBus().interface();
    if (!bus) {
        qCDebug(CACHESCOPE_APP) << "no session bus: evicting in the window";
        return false;
    }
    if (bus->isServiceRegistered(notificationService)) {
        return true;
    }
    const QDBusReply<QStringList> activatable = bus->activatableServiceNames();
    const bool canStart = activatable.isValid() && activatable.value().contains(notificationService);
    if (!canStart) {
        qCDebug(CACHESCOPE_APP) << "no notification service: evicting in the window";
    }
    return canStart;
}

} // namespace

bool ServiceMenuEviction::canRunWithoutWindow(const QList<QUrl> &urls)
{
    const bool allLocal = !urls.isEmpty() && std::all_of(urls.begin(), urls.end(), [](const QUrl &url) {
        return url.isLocalFile();
    });
    return allLocal && notificationsCanBeShown();
}

ServiceMenuEviction::ServiceMenuEviction(const QList<QUrl> &urls, QObject *parent)
    : QObject(parent)
    , m_urls(urls)
{
}

ServiceMenuEviction::~ServiceMenuEviction() = default;

void ServiceMenuEviction::start(bool flushFirst)
{
    std::vector<std::string> paths;
    paths.reserve(m_urls.size());
    for (const QUrl &url : std::as_const(m_urls)) {
        // Bytes as Qt opens files; cleanPath drops a trailing "/" of a folder.
        paths.push_back(QFile::encodeName(QDir::cleanPath(url.toLocalFile())).toStdString());
    }
    // The same walk the window's Evict runs, with the same settings.
    WalkOptions options;
    options.followSymlinks = CachescopeSettings::followSymlinks();
    options.oneFileSystem = CachescopeSettings::oneFileSystem();
    options.evictOptions.flushDirtyFirst = flushFirst;
    m_job = new FilesJob(FilesJob::Kind::Evict, paths, options, this);
    connect(m_job, &FilesJob::finished, this, &ServiceMenuEviction::evictionFinished);
    m_job->start();
}

void ServiceMenuEviction::evictionFinished(FilesJob *job)
{
    const EvictSummary &summary = job->evict;
    const bool failed = summary.errors > 0 && summary.total.files == 0;
    const QString title =
        failed ? i18nc("@title notification", "Could Not Evict from the Page Cache") : i18nc("@title notification", "Evicted from the Page Cache");
    const FilesMessage message = FilesJobReport::evicted(*job);
    const QString &text = message.text;
    qCDebug(CACHESCOPE_APP) << "service menu eviction:" << text;
    job->deleteLater();
    m_job = nullptr;

    auto *notification = new KNotification(failed ? QStringLiteral("evictionFailed") : QStringLiteral("evicted"), KNotification::CloseOnTimeout);
    notification->setComponentName(componentName);
    notification->setTitle(title);
    // Notification bodies are markup (Plasma's are): a path with & or < in
    // it must come out as written.
    notification->setText(text.toHtmlEscaped());
    const bool pagesStayed = message.type == KMessageWidget::Warning;
    notification->setIconName(failed ? QStringLiteral("dialog-error") : pagesStayed ? QStringLiteral("dialog-warning") : QStringLiteral("edit-clear-all"));
    if (message.offersFlushAndEvict) {
        // Dirty pages stayed: the window's message offers Flush and Evict, so
        // the notification does too, on the same files.
        KNotificationAction *flushAndEvict = notification->addAction(i18nc("@action:button in a notification", "Flush and Evict"));
        connect(flushAndEvict, &KNotificationAction::activated, this, [this, notification] {
            // The next eviction's notification keeps this process alive.
            disconnect(notification, &KNotification::closed, this, &ServiceMenuEviction::finished);
            start(true);
        });
    }
    KNotificationAction *inspect = notification->addAction(i18nc("@action:button in a notification", "Inspect in Cachescope"));
    connect(inspect, &KNotificationAction::activated, this, [this] {
        Q_EMIT windowRequested(m_urls);
    });
    // KNotification deletes itself once closed; then this process has nothing left to do.
    connect(notification, &KNotification::closed, this, &ServiceMenuEviction::finished);
    notification->sendEvent();
    Q_EMIT notified(title, text);
}

} // namespace Cachescope::App
