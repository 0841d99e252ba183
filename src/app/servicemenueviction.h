// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QList>
#include <QObject>
#include <QUrl>

class KNotification;

namespace Cachescope::App
{

class FilesJob;

// Dolphin's "Evict from Page Cache" with no Cachescope window open
// (`cachescope --evict FILE...`): the files leave the page cache and a
// notification says what that freed, as KDE applications report a job done
// in the background; no window opens. The notification's text is the one
// the window shows for the same eviction, hidden residency included.
class ServiceMenuEviction : public QObject
{
    Q_OBJECT

public:
    // Whether these can be evicted without the window: every URL a local
    // file and a notification that can be shown (Cachescope's notifyrc is
    // installed and a notification service is there or can be started).
    // Otherwise the window does it, which can resolve trash:/ and desktop:/
    // URLs and always has a place to say what happened.
    [[nodiscard]] static bool canRunWithoutWindow(const QList<QUrl> &urls);

    explicit ServiceMenuEviction(const QList<QUrl> &urls, QObject *parent = nullptr);
    ~ServiceMenuEviction() override;

    // Starts the eviction off the UI thread; with flushFirst, dirty pages
    // are written back first (the notification's Flush and Evict).
    void start(bool flushFirst = false);

Q_SIGNALS:
    // The notification was sent (for tests: its title and text).
    void notified(const QString &title, const QString &text);
    // "Inspect in Cachescope" in the notification: the files, in the window.
    void windowRequested(const QList<QUrl> &urls);
    // The notification is gone (closed, expired or never shown): nothing is left to do.
    void finished();

private:
    void evictionFinished(FilesJob *job);

    QList<QUrl> m_urls;
    FilesJob *m_job = nullptr;
};

} // namespace Cachescope::App
