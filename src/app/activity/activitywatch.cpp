// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "activitywatch.h"

#include "privileged.h"

#include <KLocalizedString>

#include <QCoreApplication>
#include <QEventLoopLocker>
#include <QPointer>
#include <QThread>

namespace Cachescope::App
{

namespace
{

bool runThroughHelper(int seconds,
                      int intervalMs,
                      const std::function<void(const Activity::Interval &)> &onInterval,
                      const std::atomic<bool> &cancel,
                      QString &error,
                      QString &endReason)
{
    Privileged::ActivityResult result = Privileged::activity(seconds, intervalMs, onInterval, &cancel);
    if (!result.ok()) {
        error = result.message.isEmpty() ? i18nc("@info", "The helper could not watch the page cache.") : result.message;
        return false;
    }
    endReason = result.endReason;
    return true;
}

} // namespace

ActivityWatch::ActivityWatch(QObject *parent)
    : QObject(parent)
    , m_runner(runThroughHelper)
{
}

ActivityWatch::~ActivityWatch()
{
    // The worker ends once it sees the cancel: the helper's job (or, as
    // root, the action here) stops at its next look and removes its tracefs
    // instance. Waited for, so that a window that goes (a quit on SIGTERM)
    // leaves nothing behind; nothing of it reaches this object then.
    stop();
    if (m_worker) {
        m_worker->wait(std::chrono::seconds(30));
    }
}

void ActivityWatch::setRunner(Runner runner)
{
    m_runner = std::move(runner);
}

void ActivityWatch::start(int seconds, int intervalMs)
{
    if (m_running) {
        return;
    }
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_running = true;
    QPointer<ActivityWatch> watch(this);
    // The application waits for the helper's job to end before it quits, so
    // that the helper's instance goes at once rather than at the deadline.
    auto keepRunning = std::make_shared<QEventLoopLocker>();
    QThread *worker = QThread::create([watch, runner = m_runner, cancel = m_cancel, seconds, intervalMs, keepRunning]() mutable {
        const auto onInterval = [watch, cancel](const Activity::Interval &interval) {
            auto shared = std::make_shared<const Activity::Interval>(interval);
            QMetaObject::invokeMethod(
                qApp,
                [watch, cancel, shared] {
                    // After stop() nothing more is shown: the list stands still at once.
                    if (watch && !cancel->load()) {
                        Q_EMIT watch->intervalArrived(shared);
                    }
                },
                Qt::QueuedConnection);
        };
        QString error;
        QString endReason;
        if (!runner(seconds, intervalMs, onInterval, *cancel, error, endReason) && error.isEmpty()) {
            error = i18nc("@info", "The page cache could not be watched.");
        }
        QMetaObject::invokeMethod(
            qApp,
            [watch, cancel, error, endReason, keepRunning = std::move(keepRunning)]() mutable {
                keepRunning.reset();
                if (watch && watch->m_cancel == cancel) {
                    watch->m_running = false;
                    watch->m_cancel.reset();
                    Q_EMIT watch->finished(error, endReason);
                }
            },
            Qt::QueuedConnection);
    });
    worker->setObjectName(QStringLiteral("activity watch"));
    m_worker = worker;
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
}

void ActivityWatch::stop()
{
    if (m_running && m_cancel) {
        *m_cancel = true;
    }
}

bool ActivityWatch::isRunning() const
{
    return m_running;
}

bool ActivityWatch::isStopping() const
{
    return m_running && m_cancel && m_cancel->load();
}

} // namespace Cachescope::App
