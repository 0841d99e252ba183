// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The subcommands of cachescope-cli: what each one is (its spec and its
// runner, from a file of its own) and which program runs it.

#include "account.h"
#include "activity/activity.h"
#include "options.h"
#include "output.h"

#include <atomic>
#include <functional>
#include <string>

namespace Cachescope::Cli
{

enum ExitCode : int {
    ExitSuccess = 0,
    ExitFailures = 1,
    ExitUsage = 2,
};

// A usage error: message and hint on stderr; returns ExitUsage.
[[nodiscard]] int usageError(std::string_view command, std::string_view message);

struct Command {
    CommandSpec spec;
    int (*run)(Context &context, const ParsedArgs &args);
};

// Each subcommand, from its own file.
[[nodiscard]] Command statusCommand();
[[nodiscard]] Command evictCommand();
[[nodiscard]] Command loadCommand();
[[nodiscard]] Command topCommand();
[[nodiscard]] Command mapCommand();
[[nodiscard]] Command accountCommand();
[[nodiscard]] Command activityCommand();
[[nodiscard]] Command lockCommand();
[[nodiscard]] Command meminfoCommand();
[[nodiscard]] Command appsCommand();
[[nodiscard]] std::vector<Command> snapshotCommands(); // save, diff, restore
[[nodiscard]] Command traceCommand();

// Every subcommand, in the order --help lists them.
// run is null for the commands that need the privileged helper: those run in
// cachescope-cli-privileged, which links the helper's client (QtDBus, KI18n
// and the helper's actions for root, whose loading would slow every other
// command's start) and fills them in with setRunner().
[[nodiscard]] const std::vector<Command> &commands();
void setRunner(std::string_view name, int (*run)(Context &context, const ParsedArgs &args));

// status --privileged: residency of files computed by the helper, which
// opens each path as the user. Fills one Residency (and, with buckets > 0,
// one Histogram) per path (a Residency with an error where the helper could
// not read that file), or returns false with a sentence in error. Set only in
// cachescope-cli-privileged.
using PrivilegedResidency =
    bool (*)(const std::vector<std::string> &paths, int buckets, std::vector<Residency> &residencies, std::vector<Histogram> &histograms, std::string &error);
void setPrivilegedResidency(PrivilegedResidency function);
[[nodiscard]] bool privilegedResidencyAvailable();
// Calls the function set; without one, fails with a sentence in error.
[[nodiscard]] bool residencyFromHelper(const std::vector<std::string> &paths,
                                       int buckets,
                                       std::vector<Residency> &residencies,
                                       std::vector<Histogram> &histograms,
                                       std::string &error);

// account --privileged: the account of Cached made by the helper as root.
// Fills account, or returns false with a sentence in error. Set only in
// cachescope-cli-privileged.
using PrivilegedAccount = bool (*)(CacheAccount &account, std::string &error);
void setPrivilegedAccount(PrivilegedAccount function);
[[nodiscard]] bool accountFromHelper(CacheAccount &account, std::string &error);

// activity: who fills the page cache, from the helper's activity action
// (root's in-process): onInterval each interval; run gets the totals,
// endReason what ended it. Returns false with a sentence in error. Set
// only in cachescope-cli-privileged.
using PrivilegedActivity = bool (*)(int seconds,
                                    int intervalMs,
                                    const std::function<void(const Activity::Interval &)> &onInterval,
                                    const std::atomic<bool> &cancel,
                                    Activity::Interval &run,
                                    std::string &endReason,
                                    std::string &error);
void setPrivilegedActivity(PrivilegedActivity function);
[[nodiscard]] bool activityFromHelper(int seconds,
                                      int intervalMs,
                                      const std::function<void(const Activity::Interval &)> &onInterval,
                                      const std::atomic<bool> &cancel,
                                      Activity::Interval &run,
                                      std::string &endReason,
                                      std::string &error);

// Whether this command line must run in cachescope-cli-privileged.
[[nodiscard]] bool needsPrivilegedCompanion(const Command &command, const ParsedArgs &args);

// main() of both programs: parses argv (as bytes) and runs the command.
[[nodiscard]] int runCli(int argc, char **argv);

} // namespace Cachescope::Cli
