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

// A step's result as the engine takes it: true, or false with a sentence.
template<typename Result>
bool succeeded(const Result &result, std::string &error)
{
    if (result.ok()) {
        return true;
    }
    error = result.message.isEmpty() ? std::string("the privileged helper failed") : result.message.toStdString();
    return false;
}

// A callback for the engine's threads that emits signal with its value on
// the GUI thread, if the runner is still there by then. The call is posted to
// the application, never to the runner: the runner may be deleted on the GUI
// thread while a worker posts, so only the GUI thread may look at it.
template<typename Value>
std::function<void(const Value &)> emitQueued(const QPointer<ExperimentRunner> &runner, void (ExperimentRunner::*signal)(const Value &))
{
    return [runner, signal](const Value &value) {
        QMetaObject::invokeMethod(
            qApp,
            [runner, signal, value] {
                if (ExperimentRunner *target = runner.data()) {
                    // The signal, called through its member pointer: that is its emission.
                    (target->*signal)(value);
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
    // and put swap back. Made and dropped on the GUI thread.
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
    // Each step waits for the helper on the engine's worker thread, in an
    // event loop of that thread (QtDBus serves any thread), so that the
    // window stays responsive, polkit's dialog included; as root the
    // helper's action runs right there (docs/helper-security.md rule 15).
    steps.dropCaches = [](std::string &error) {
        return succeeded(Cachescope::Privileged::dropCaches(3), error);
    };
    steps.swapOff = [](std::string &error) {
        return succeeded(Cachescope::Privileged::swapOffAll(), error);
    };
    steps.swapOn = [](std::string &error) {
        return succeeded(Cachescope::Privileged::swapOnAll(), error);
    };
    steps.swapFileOn = [](uint64_t bytes, std::string &error) {
        return succeeded(Cachescope::Privileged::createExperimentSwapFile(qint64(bytes)), error);
    };
    steps.swapFileOff = [](std::string &error) {
        return succeeded(Cachescope::Privileged::removeExperimentSwapFile(), error);
    };
    // tracingOn runs on the worker too; it only lets the held process go on.
    steps.trace =
        [](int pid, int maxSeconds, const std::function<void()> &tracingOn, const std::atomic<bool> &cancel, Trace::Capture &capture, std::string &error) {
            Cachescope::Privileged::TraceResult result = Cachescope::Privileged::trace(pid, maxSeconds, tracingOn, &cancel);
            if (!result.ok()) {
                error = result.message.isEmpty() ? std::string("the trace failed") : result.message.toStdString();
                return false;
            }
            capture = std::move(result.capture);
            return true;
        };
    steps.contain = [](int pid, uint64_t limitBytes, ContainedGroup &group, std::string &error) {
        const Cachescope::Privileged::ContainResult result = Cachescope::Privileged::contain(pid, qint64(limitBytes));
        if (!succeeded(result, error)) {
            return false;
        }
        group = {result.cgroupPath.toStdString(), result.version, uint64_t(result.limitBytes), result.how.toStdString()};
        return true;
    };
    return steps;
}

} // namespace Cachescope::App
