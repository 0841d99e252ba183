// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "options.h"
#include "output.h"

#include <atomic>

namespace Cachescope
{
class Walker;
}

namespace Cli
{

enum ExitCode : int {
    ExitSuccess = 0,
    ExitFailures = 1,
    ExitUsage = 2,
};

// SIGINT and SIGTERM go to one thread that cancels what runs (a walk, a
// load, a restore, a watch loop); where nothing can be cancelled, the
// process ends at once. A second signal always ends it.
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
    explicit CancelScope(Cachescope::Walker *walker = nullptr);
    ~CancelScope();
    CancelScope(const CancelScope &) = delete;
    CancelScope &operator=(const CancelScope &) = delete;
};

// A usage error: message and hint on stderr; returns ExitUsage.
[[nodiscard]] int usageError(std::string_view command, std::string_view message);

struct Command {
    CommandSpec spec;
    int (*run)(Context &context, const ParsedArgs &args);
};

// Every subcommand, in the order --help lists them.
// run is null for the commands that need the privileged helper: those run in
// cachescope-cli-privileged, which links KAuth (and so QtGui, whose loading
// would slow every other command's start) and fills them in with setRunner().
[[nodiscard]] const std::vector<Command> &commands();
void setRunner(std::string_view name, int (*run)(Context &context, const ParsedArgs &args));

// status --privileged: residency of open descriptors computed by the helper.
// Fills one Residency (and, with buckets > 0, one Histogram) per descriptor,
// or returns false with a sentence in error. Set only in cachescope-cli-privileged.
using PrivilegedResidency = bool (*)(const std::vector<int> &fds,
                                     int buckets,
                                     std::vector<Cachescope::Residency> &residencies,
                                     std::vector<Cachescope::Histogram> &histograms,
                                     std::string &error);
void setPrivilegedResidency(PrivilegedResidency function);
[[nodiscard]] bool privilegedResidencyAvailable();

// Whether this command line must run in cachescope-cli-privileged.
[[nodiscard]] bool needsPrivilegedCompanion(const Command &command, const ParsedArgs &args);

// main() of both programs: parses argv (as bytes) and runs the command.
[[nodiscard]] int runCli(int argc, char **argv);

} // namespace Cli
