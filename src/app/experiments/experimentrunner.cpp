// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "experimentrunner.h"

#include "privileged.h"

#include <QCoreApplication>
#include <QEventLoopLocker>
#include <QPointer>
#include <QThread>

namespace Cachescope::App
{

using namespace Experiments;

namespace
{

// The engine runs on a worker; KAuth wants the thread its objects live on,
// so the request runs on the GUI thread while the worker waits for it. The
// GUI thread never waits for a worker, so this cannot deadlock.
template<typename Call>
bool callOnGuiThread(Call call, std::string &error)
{
    bool ok = false;
    QString message;
    QMetaObject::invokeMethod(
        qApp,
        [&] {
            const auto result = call();
            ok = result.ok();
            message = result.message;
        },
        Qt::BlockingQueuedConnection);
    if (!ok) {
        error = message.isEmpty() ? std::string("the privileged helper failed") : message.toStdString();
    }
    return ok;
}

// A callback for the engine's threads that emits signal with its value on
// the GUI thread, if the runner is still there by then. The call is posted to
// the application, never to the runner: the runner may be deleted on the GUI
// thread while a worker posts, so only the GUI thread may look at it.
template<typename Value>
std::function<void(const Value &)> emitQueued(QPointer<ExperimentRunner> runner, void (ExperimentRunner::*signal)(const Value &))
{
    return [runner, signal](const Value &value) {
        QMetaObject::invokeMethod(
            qApp,
            [runner, signal, value] {
                if (runner) {
                    Q_EMIT(runner.data()->*signal)(value);
                }
            },
            Qt::QueuedConnection);
    };
}

} // namespace

ExperimentRunner::ExperimentRunner(QObject *parent)
    : QObject(parent)
{
}

ExperimentRunner::~ExperimentRunner()
{
    // The worker ends on its own (see the header); what it still sends is
    // dropped, as this runner is gone.
    if (m_cancel) {
        *m_cancel = true;
    }
}

void ExperimentRunner::start(std::unique_ptr<Experiment> experiment)
{
    if (m_running || !experiment) {
        return;
    }
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_running = true;

    // The callbacks come from the engine's threads: queued to this runner,
    // and dropped when it is gone.
    QPointer<ExperimentRunner> runner(this);
    Progress progress;
    progress.sample = emitQueued(runner, &ExperimentRunner::sampleArrived);
    progress.event = emitQueued(runner, &ExperimentRunner::eventArrived);

    const std::shared_ptr<Experiment> engine(std::move(experiment));
    // The application does not quit while an engine runs (closing the last
    // window, Quit): the engine must still remove its files, end its children
    // and put swap back, and its swap step needs the GUI thread's event loop.
    // Made and dropped on the GUI thread.
    auto keepRunning = std::make_shared<QEventLoopLocker>();
    QThread *worker = QThread::create([runner, engine, progress, cancel = m_cancel, keepRunning]() mutable {
        auto result = std::make_shared<Result>(engine->run(progress, *cancel));
        QMetaObject::invokeMethod(
            qApp,
            [runner, result, keepRunning = std::move(keepRunning)]() mutable {
                keepRunning.reset();
                if (runner) {
                    runner->m_running = false;
                    Q_EMIT runner->finished(*result);
                }
            },
            Qt::QueuedConnection);
    });
    worker->setObjectName(QStringLiteral("experiment ") + QString::fromStdString(engine->name()));
    connect(worker, &QThread::finished, worker, &QObject::deleteLater);
    worker->start();
}

void ExperimentRunner::cancel()
{
    if (m_running && m_cancel) {
        *m_cancel = true;
    }
}

bool ExperimentRunner::isRunning() const
{
    return m_running;
}

bool ExperimentRunner::isCancelling() const
{
    return m_running && m_cancel && m_cancel->load();
}

PrivilegedSteps ExperimentRunner::privilegedSteps(bool available)
{
    PrivilegedSteps steps;
    if (!available) {
        return steps;
    }
    steps.dropCaches = [](std::string &error) {
        return callOnGuiThread(
            [] {
                return Cachescope::Privileged::dropCaches(3);
            },
            error);
    };
    steps.swapOff = [](std::string &error) {
        return callOnGuiThread(
            [] {
                return Cachescope::Privileged::swapOffAll();
            },
            error);
    };
    steps.swapOn = [](std::string &error) {
        return callOnGuiThread(
            [] {
                return Cachescope::Privileged::swapOnAll();
            },
            error);
    };
    // tracingOn runs on the GUI thread too (the trace's event loop calls
    // it); it only lets the held process go on.
    steps.trace =
        [](int pid, int maxSeconds, const std::function<void()> &tracingOn, const std::atomic<bool> &cancel, Trace::Capture &capture, std::string &error) {
            return callOnGuiThread(
                [&] {
                    Cachescope::Privileged::TraceResult result = Cachescope::Privileged::trace(pid, maxSeconds, tracingOn, &cancel);
                    if (result.ok()) {
                        capture = std::move(result.capture);
                    }
                    return result;
                },
                error);
        };
    steps.contain = [](int pid, uint64_t limitBytes, ContainedGroup &group, std::string &error) {
        return callOnGuiThread(
            [&] {
                const Cachescope::Privileged::ContainResult result = Cachescope::Privileged::contain(pid, qint64(limitBytes));
                if (result.ok()) {
                    group = {result.cgroupPath.toStdString(), result.version, uint64_t(result.limitBytes), result.how.toStdString()};
                }
                return result;
            },
            error);
    };
    return steps;
}

} // namespace Cachescope::App
