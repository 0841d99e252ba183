// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "interrupt.h"

#include "walker.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

// A signal handler may call almost nothing, and Walker::cancel() is not
// promised to be async-signal-safe. So the signals are blocked in every
// thread (the mask is inherited by the walker's workers, which start later)
// and one thread takes them with sigwait(), where any call is allowed.

namespace Cachescope::Cli
{

namespace
{
std::atomic<bool> interruptedFlag{false};
std::atomic<int> interruptSignal{0};
std::mutex scopeMutex;
std::condition_variable interruptCondition;
int activeScopes = 0;
Walker *activeWalker = nullptr;
std::function<void()> activeCancel;
} // namespace

namespace
{
bool signalThreadStarted = false;

void *takeSignals(void *argument)
{
    const sigset_t set = *static_cast<const sigset_t *>(argument);
    delete static_cast<sigset_t *>(argument);
    {
        std::lock_guard lock(scopeMutex);
        signalThreadStarted = true;
    }
    interruptCondition.notify_all();
    for (;;) {
        int signal = 0;
        if (sigwait(&set, &signal) != 0) {
            continue;
        }
        std::unique_lock lock(scopeMutex);
        if (interruptedFlag.load() || activeScopes == 0) {
            // Nothing to cancel, or asked twice: end now, as the default action would.
            _exit(128 + signal);
        }
        interruptSignal = signal;
        interruptedFlag = true;
        if (activeWalker) {
            activeWalker->cancel();
        }
        if (activeCancel) {
            activeCancel();
        }
        lock.unlock();
        interruptCondition.notify_all();
    }
    return nullptr;
}
} // namespace

void installInterruptHandling()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    // pthread_create rather than std::thread: when no thread can be made
    // (a pids limit), std::thread throws and the program would abort. Here the
    // signals are unblocked again, so Ctrl+C still ends the program, only
    // without the tidy summary.
    pthread_t thread;
    auto *argument = new sigset_t(set);
    if (pthread_create(&thread, nullptr, takeSignals, argument) != 0) {
        delete argument;
        pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
        return;
    }
    pthread_detach(thread);
    // Wait until the thread runs: a program that ends at once (a usage error)
    // would otherwise exit while the thread is still being set up, which
    // AddressSanitizer reports as a leak of the thread's own start-up.
    std::unique_lock lock(scopeMutex);
    interruptCondition.wait(lock, [] {
        return signalThreadStarted;
    });
}

const std::atomic<bool> &interruptFlag()
{
    return interruptedFlag;
}

bool interrupted()
{
    return interruptedFlag.load();
}

int interruptExitCode()
{
    const int signal = interruptSignal.load();
    return 128 + (signal ? signal : SIGINT);
}

bool sleepUnlessInterrupted(double seconds)
{
    std::unique_lock lock(scopeMutex);
    interruptCondition.wait_for(lock, std::chrono::duration<double>(seconds), [] {
        return interruptedFlag.load();
    });
    return interruptedFlag.load();
}

CancelScope::CancelScope(Walker *walker)
{
    const std::lock_guard lock(scopeMutex);
    ++activeScopes;
    activeWalker = walker;
    if (walker && interruptedFlag.load()) {
        walker->cancel();
    }
}

CancelScope::CancelScope(std::function<void()> cancel)
{
    const std::lock_guard lock(scopeMutex);
    ++activeScopes;
    activeCancel = std::move(cancel);
    if (activeCancel && interruptedFlag.load()) {
        activeCancel();
    }
}

CancelScope::~CancelScope()
{
    const std::lock_guard lock(scopeMutex);
    --activeScopes;
    activeWalker = nullptr;
    activeCancel = nullptr;
}

} // namespace Cachescope::Cli
