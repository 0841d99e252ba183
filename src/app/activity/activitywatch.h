// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "activity/activity.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>

class QThread;

namespace Cachescope::App
{

// The helper's activity action (every user's processes and files, as
// root), run on a worker thread: Privileged::activity waits for the helper
// there, polkit's dialog included, and the window goes on. Each interval
// arrives on the GUI thread; stop() ends the run (the helper's job is
// cancelled and its tracefs instance removed) and finished() follows.
class ActivityWatch : public QObject
{
    Q_OBJECT

public:
    // What runs the watch: Privileged::activity, or a test's stand-in for
    // the parts that are not the kernel (a refusal, an answer that fails).
    using Runner = std::function<bool(int seconds,
                                      int intervalMs,
                                      const std::function<void(const Activity::Interval &)> &onInterval,
                                      const std::atomic<bool> &cancel,
                                      QString &error,
                                      QString &endReason)>;

    explicit ActivityWatch(QObject *parent = nullptr);
    ~ActivityWatch() override;

    void setRunner(Runner runner);

    void start(int seconds, int intervalMs);
    void stop();
    [[nodiscard]] bool isRunning() const;
    [[nodiscard]] bool isStopping() const;

Q_SIGNALS:
    void intervalArrived(std::shared_ptr<const Cachescope::Activity::Interval> interval);
    // error empty: it ran; endReason "deadline" or "cancelled".
    void finished(const QString &error, const QString &endReason);

private:
    Runner m_runner;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_running = false;
    QPointer<QThread> m_worker; // waited for when the watch goes
};

} // namespace Cachescope::App
