// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "session.h"

#include "mainwindow.h"
#include "servicemenueviction.h"

namespace Cachescope::App
{

Session::Session(QObject *parent)
    : QObject(parent)
{
}

Session::~Session()
{
    // A window still open when the event loop ended (a quit on SIGTERM):
    // its work ends in order, such as a watch of every user's activity,
    // whose tracefs instance goes with it.
    delete m_window.data();
}

void Session::start(const CommandLineRequest &request)
{
    if (!evictWithoutWindow(request)) {
        ensureWindow()->openUrls(request.urls, request.evict);
    }
}

void Session::activate(const QStringList &arguments, const QString &workingDirectory)
{
    if (!evictWithoutWindow(requestFromActivation(arguments, workingDirectory))) {
        // Opens (or evicts) the files and raises the window.
        ensureWindow()->activate(arguments, workingDirectory);
    }
}

MainWindow *Session::window() const
{
    return m_window;
}

int Session::runningEvictions() const
{
    return int(m_evictions.size());
}

bool Session::evictWithoutWindow(const CommandLineRequest &request)
{
    if (m_window || !request.evict || !ServiceMenuEviction::canRunWithoutWindow(request.urls)) {
        return false;
    }
    startEviction(request.urls);
    return true;
}

MainWindow *Session::ensureWindow()
{
    if (!m_window) {
        m_window = new MainWindow;
        m_window->setAttribute(Qt::WA_DeleteOnClose);
        m_window->show();
    }
    return m_window;
}

void Session::startEviction(const QList<QUrl> &urls)
{
    auto *eviction = new ServiceMenuEviction(urls, this);
    m_evictions << eviction;
    connect(eviction, &ServiceMenuEviction::windowRequested, this, [this](const QList<QUrl> &inspect) {
        MainWindow *window = ensureWindow();
        window->openUrls(inspect, false);
        window->raise();
        window->activateWindow();
    });
    connect(eviction, &ServiceMenuEviction::finished, this, [this, eviction] {
        m_evictions.removeAll(eviction);
        eviction->deleteLater();
        if (m_evictions.isEmpty() && !m_window) {
            Q_EMIT done();
        }
    });
    eviction->start();
}

} // namespace Cachescope::App
