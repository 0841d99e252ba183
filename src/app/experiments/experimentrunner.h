// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Runs one experiment engine at a time on a worker thread of its own and
// brings what it reports (samples, events, the result) back to the GUI
// thread as signals. The engine's privileged steps (drop_caches, swap,
// trace, contain) wait for the helper on that worker.
//
// Nothing waits for the worker: a runner destroyed while its engine runs
// cancels it and lets it end on its own (the engine still removes its files,
// kills its children and puts swap back); the thread then deletes itself.
// Whoever must know that the engine is done (the window, before it goes
// away) waits for finished().

#include "experiments/experiment.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace Cachescope::App
{

class ExperimentRunner : public QObject
{
    Q_OBJECT

public:
    explicit ExperimentRunner(QObject *parent = nullptr);
    ~ExperimentRunner() override;

    // Starts the engine; does nothing while another one runs.
    void start(std::unique_ptr<Experiments::Experiment> experiment);
    // Asks the engine to stop; finished() follows.
    void cancel();
    [[nodiscard]] bool isRunning() const;
    [[nodiscard]] bool isCancelling() const;

    // The helper's steps for an engine on this runner's worker, when the
    // helper can be reached (available); empty steps otherwise.
    [[nodiscard]] static Experiments::PrivilegedSteps privilegedSteps(bool available);

Q_SIGNALS:
    void sampleArrived(const Cachescope::Experiments::Sample &sample);
    void eventArrived(const Cachescope::Experiments::Event &event);
    // After every run, finished, failed or cancelled; isRunning() is false by then.
    void finished(const Cachescope::Experiments::Result &result);

private:
    // Shared with the worker, which may outlive the runner.
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_running = false;
};

} // namespace Cachescope::App
