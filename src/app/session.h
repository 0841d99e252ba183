// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "commandline.h"

#include <QObject>
#include <QPointer>
#include <QStringList>

namespace Cachescope::App
{

class MainWindow;
class ServiceMenuEviction;

// What one Cachescope process shows, from its own command line and from every
// later start that KDBusService hands over: the main window, or, for
// `cachescope --evict FILE...` (Dolphin's service menu) while no window is
// open, only a notification of what was freed. A later start that wants the
// window gets it; with the window open, evictions report in it as before.
class Session : public QObject
{
    Q_OBJECT

public:
    explicit Session(QObject *parent = nullptr);
    ~Session() override;

    // The first start's request (main()).
    void start(const CommandLineRequest &request);
    // KDBusService::activateRequested: a later start's arguments.
    void activate(const QStringList &arguments, const QString &workingDirectory);

    // The window, once there is one.
    [[nodiscard]] MainWindow *window() const;
    // Evictions without a window whose notification is still there.
    [[nodiscard]] int runningEvictions() const;

Q_SIGNALS:
    // No window was ever needed and the last eviction's notification is
    // gone: the process can end (with a window, closing it ends it).
    void done();

private:
    // Starts the eviction without a window when it can be (see
    // ServiceMenuEviction::canRunWithoutWindow); false when the window must do it.
    bool evictWithoutWindow(const CommandLineRequest &request);
    MainWindow *ensureWindow();
    void startEviction(const QList<QUrl> &urls);

    QPointer<MainWindow> m_window;
    QList<ServiceMenuEviction *> m_evictions;
};

} // namespace Cachescope::App
