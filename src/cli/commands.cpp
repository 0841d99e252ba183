// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The list of subcommands, and the hooks through which
// cachescope-cli-privileged fills in the ones that need the privileged helper.

#include "commands.h"
#include "commandoptions.h"
#include "experimentcommand.h"
#include "runcommand.h"

#include <unistd.h>

namespace Cachescope::Cli
{

namespace
{

PrivilegedResidency privilegedResidencyFunction = nullptr;
PrivilegedAccount privilegedAccountFunction = nullptr;
PrivilegedActivity privilegedActivityFunction = nullptr;

// Their specs only: the runners are in cachescope-cli-privileged (see setRunner).
std::vector<Command> privilegedCommands()
{
    return {
        {{"drop-caches",
          "LEVEL",
          "drop clean caches (needs administrator rights)",
          "Writes LEVEL to /proc/sys/vm/drop_caches through Cachescope's privileged\n"
          "helper, after sync(): 1 (or pagecache) drops the page cache, 2 (or slab)\n"
          "the dentry and inode caches, 3 (or all) both. Dirty pages are not\n"
          "dropped. polkit asks for an administrator password first. Prints memory\n"
          "before and after. Meant for experiments: the cache makes a computer fast.",
          withCommonOptions({}),
          "  cachescope-cli drop-caches 1\n"
          "  cachescope-cli drop-caches all --json\n",
          1,
          1},
         nullptr},
        {{"swap off",
          "[AREA]",
          "turn swap off: one area or all (needs administrator rights)",
          "Turns off the swap area AREA, named exactly as /proc/swaps lists it (not\n"
          "through a link), or all of them without AREA, through the privileged\n"
          "helper. Refused up front when the swapped-out pages would not fit in\n"
          "memory. The helper records what it turned off, with its priority, so that\n"
          "'swap on' restores it.",
          withCommonOptions({}),
          "  cachescope-cli swap off\n"
          "  cachescope-cli swap off /dev/vda3\n",
          0,
          1},
         nullptr},
        {{"swap on",
          "[AREA]",
          "turn swap back on (needs administrator rights)",
          "Turns on again the swap areas Cachescope turned off (all without AREA), with\n"
          "their old priorities, area by area. AREA is named exactly as Cachescope\n"
          "recorded it. Never any other area: an administrator has 'swapon -a'.",
          withCommonOptions({}),
          "  cachescope-cli swap on\n",
          0,
          1},
         nullptr},
        {{"swap create-file",
          "SIZE",
          "make and turn on an experiment swap file (needs administrator rights)",
          "Creates the experiment swap file /var/lib/cachescope/experiment.swap (16M\n"
          "to 4G, root only, mode 0600) and turns it on, for machines without swap.",
          withCommonOptions({}),
          "  cachescope-cli swap create-file 1G\n",
          1,
          1},
         nullptr},
        {{"swap remove-file",
          "",
          "turn off and delete the experiment swap file (needs administrator rights)",
          "Turns off and deletes the experiment swap file made by 'swap create-file'.",
          withCommonOptions({}),
          "  cachescope-cli swap remove-file\n",
          0,
          0},
         nullptr},
    };
}

std::vector<Command> &commandTable()
{
    static std::vector<Command> table = [] {
        std::vector<Command> all = {statusCommand(),
                                    evictCommand(),
                                    loadCommand(),
                                    topCommand(),
                                    mapCommand(),
                                    accountCommand(),
                                    activityCommand(),
                                    lockCommand(),
                                    meminfoCommand(),
                                    appsCommand()};
        for (std::vector<Command> group : {snapshotCommands(), privilegedCommands()}) {
            all.insert(all.end(), group.begin(), group.end());
        }
        // Runs here, or in cachescope-cli-privileged for its privileged variants.
        all.push_back(experimentCommand());
        all.push_back(traceCommand()); // the same, for trace --privileged
        all.push_back(runCommand()); // runner in cachescope-cli-privileged
        return all;
    }();
    return table;
}

} // namespace

int usageError(std::string_view command, std::string_view message)
{
    std::string text = "cachescope-cli: ";
    if (!command.empty()) {
        text += command;
        text += ": ";
    }
    text += message;
    text += "\nTry 'cachescope-cli ";
    if (!command.empty()) {
        text += command;
        text += ' ';
    }
    text += "--help'.\n";
    (void)!::write(STDERR_FILENO, text.data(), text.size());
    return ExitUsage;
}

void setPrivilegedResidency(PrivilegedResidency function)
{
    privilegedResidencyFunction = function;
}

bool privilegedResidencyAvailable()
{
    return privilegedResidencyFunction != nullptr;
}

bool residencyFromHelper(const std::vector<std::string> &paths,
                         int buckets,
                         std::vector<Residency> &residencies,
                         std::vector<Histogram> &histograms,
                         std::string &error)
{
    if (!privilegedResidencyFunction) {
        error = "the privileged helper is not reachable from this program";
        return false;
    }
    return privilegedResidencyFunction(paths, buckets, residencies, histograms, error);
}

void setPrivilegedAccount(PrivilegedAccount function)
{
    privilegedAccountFunction = function;
}

bool accountFromHelper(CacheAccount &account, std::string &error)
{
    if (!privilegedAccountFunction) {
        error = "the privileged helper is not reachable from this program";
        return false;
    }
    return privilegedAccountFunction(account, error);
}

void setPrivilegedActivity(PrivilegedActivity function)
{
    privilegedActivityFunction = function;
}

bool activityFromHelper(int seconds,
                        int intervalMs,
                        const std::function<void(const Activity::Interval &)> &onInterval,
                        const std::atomic<bool> &cancel,
                        Activity::Interval &run,
                        std::string &endReason,
                        std::string &error)
{
    if (!privilegedActivityFunction) {
        error = "the privileged helper is not reachable from this program";
        return false;
    }
    return privilegedActivityFunction(seconds, intervalMs, onInterval, cancel, run, endReason, error);
}

bool needsPrivilegedCompanion(const Command &command, const ParsedArgs &args)
{
    const std::string_view name = command.spec.name;
    return !command.run || (name == "status" && args.has("privileged") && !privilegedResidencyFunction)
        || (name == "account" && args.has("privileged") && !privilegedAccountFunction)
        || (name == "activity" && (args.has("privileged") || geteuid() == 0) && !privilegedActivityFunction);
}

const std::vector<Command> &commands()
{
    return commandTable();
}

void setRunner(std::string_view name, int (*run)(Context &context, const ParsedArgs &args))
{
    for (Command &command : commandTable()) {
        if (name == command.spec.name) {
            command.run = run;
        }
    }
}

} // namespace Cachescope::Cli
