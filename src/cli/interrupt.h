// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// SIGINT and SIGTERM go to one thread that cancels what runs (a walk, a
// load, a restore, a watch loop); where nothing can be cancelled, the
// process ends at once. A second signal always ends it.

#include <atomic>
#include <functional>

namespace Cachescope
{
class Walker;
}

namespace Cachescope::Cli
{

void installInterruptHandling();
[[nodiscard]] const std::atomic<bool> &interruptFlag();
[[nodiscard]] bool interrupted();
[[nodiscard]] int interruptExitCode(); // 128 + the signal
// Sleeps up to seconds; returns true at once when interrupted.
[[nodiscard]] bool sleepUnlessInterrupted(double seconds);

// While alive, an interrupt cancels this walker (or only sets the flag when
// walker is null) instead of ending the process.
class CancelScope
{
public:
    explicit CancelScope(Walker *walker = nullptr);
    // The same with a function of its own (called on the signal thread).
    explicit CancelScope(std::function<void()> cancel);
    ~CancelScope();
    CancelScope(const CancelScope &) = delete;
    CancelScope &operator=(const CancelScope &) = delete;
};

} // namespace Cachescope::Cli
