// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The command line of cachescope-cli and cachescope-cli-privileged: options,
// help, and which command runs where. See docs/cli.md.

#include "commandoptions.h"
#include "commands.h"
#include "companion.h"
#include "interrupt.h"

#include "cachescope_cli_debug.h"
#include "cachescope_version.h"

#include <algorithm>
#include <string>
#include <vector>

namespace Cachescope::Cli
{

namespace
{

void print(const std::string &text)
{
    Writer writer;
    writer.buffer = text;
    writer.flush();
}

std::string mainHelp()
{
    std::string text =
        "Usage: cachescope-cli [--json] [--bytes] COMMAND [OPTIONS] [ARGUMENTS]\n"
        "\n"
        "Shows and steers the Linux page cache: which files are in memory, how much\n"
        "of them, and why pages stay; evicts and loads files and folders; records\n"
        "the cache in a snapshot and brings it back.\n"
        "\n"
        "Commands:\n";
    for (const Command &command : commands()) {
        std::string left = std::string("  ") + command.spec.name + ' ' + command.spec.arguments;
        if (left.size() < 30) {
            left.resize(30, ' ');
        } else {
            left += "\n" + std::string(30, ' ');
        }
        text += left + command.spec.summary + '\n';
    }
    text +=
        "  help [COMMAND]              this text, or the help of COMMAND\n"
        "\n"
        "Options every command takes (before or after COMMAND):\n"
        "      --json                  one JSON document on stdout (meminfo --watch:\n"
        "                              one JSON object a line); schemas in docs/cli.md\n"
        "      --bytes                 raw byte counts instead of KiB/MiB/GiB\n"
        "  -h, --help                  help (cachescope-cli status --help, ...)\n"
        "      --version               the version\n"
        "\n"
        "Files whose residency the kernel hides from you (you neither own nor may\n"
        "write them) show 'hidden (<reason>)', never a made-up number.\n"
        "\n"
        "Exit status: 0 success; 1 some entries failed, each named on stderr with\n"
        "its reason (skipped FIFOs, sockets and devices are reported but are not\n"
        "failures); 2 usage error; 130 interrupted (Ctrl+C; totals are partial).\n";
    return text;
}

const Command *findCommand(const std::string &name)
{
    for (const Command &command : commands()) {
        if (name == command.spec.name) {
            return &command;
        }
    }
    return nullptr;
}

bool isHelp(const std::string &arg)
{
    return arg == "--help" || arg == "-h";
}

// Names of two-word commands' groups: "snapshot save", "swap off", ...
bool isCommandGroup(const std::string &name)
{
    for (const Command &command : commands()) {
        const std::string_view full = command.spec.name;
        if (full.size() > name.size() && full.substr(0, name.size()) == name && full[name.size()] == ' ') {
            return true;
        }
    }
    return false;
}

std::string groupHelp(const std::string &group)
{
    std::string text = "Usage:";
    std::string actions;
    for (const Command &command : commands()) {
        const std::string name = command.spec.name;
        if (name.rfind(group + ' ', 0) == 0) {
            text += (actions.empty() ? " " : "\n      ") + std::string("cachescope-cli ") + name + ' ' + command.spec.arguments;
            std::string left = "  " + name.substr(group.size() + 1);
            left.resize(20, ' ');
            actions += left + command.spec.summary + '\n';
        }
    }
    return text + "\n\n" + actions + "\nRun 'cachescope-cli " + group + " ACTION --help' for details.\n";
}

// Every command's first word, once each, in the order they are declared
// ("status, evict, ..., snapshot, swap, ..."): the unknown-command message.
std::string commandNames()
{
    std::string names;
    std::vector<std::string> seen;
    for (const Command &command : commands()) {
        const std::string_view full = command.spec.name;
        std::string first(full.substr(0, full.find(' ')));
        if (std::find(seen.begin(), seen.end(), first) == seen.end()) {
            names += (names.empty() ? "" : ", ") + first;
            seen.push_back(std::move(first));
        }
    }
    return names + ", help";
}

std::string groupActions(const std::string &group)
{
    std::string names;
    for (const Command &command : commands()) {
        const std::string name = command.spec.name;
        if (name.rfind(group + ' ', 0) == 0) {
            names += (names.empty() ? "" : ", ") + name.substr(group.size() + 1);
        }
    }
    return names;
}

} // namespace

int runCli(int argc, char **argv)
{
    // Arguments stay bytes: a path that is not UTF-8 must name the same file.
    const std::vector<std::string> args(argv + 1, argv + argc);
    std::vector<std::string> globalOptions;
    size_t next = 0;
    for (; next < args.size() && args[next].size() > 1 && args[next][0] == '-'; ++next) {
        const std::string &arg = args[next];
        if (isHelp(arg)) {
            print(mainHelp());
            return ExitSuccess;
        }
        if (arg == "--version") {
            print(std::string("cachescope-cli ") + CACHESCOPE_VERSION_STRING + '\n');
            return ExitSuccess;
        }
        if (arg == "--json" || arg == "--bytes") {
            globalOptions.push_back(arg);
            continue;
        }
        return usageError({}, "unknown option '" + arg + "'");
    }
    if (next == args.size()) {
        return usageError({}, "no command given (status, evict, load, top, map, account, lock, meminfo, snapshot, drop-caches, swap)");
    }
    std::string name = args[next++];
    if (name == "help") {
        if (next == args.size()) {
            print(mainHelp());
            return ExitSuccess;
        }
        std::string topic = args[next];
        if (isCommandGroup(topic) && next + 1 < args.size()) {
            topic += ' ' + args[next + 1];
        }
        if (isCommandGroup(topic)) {
            print(groupHelp(topic));
            return ExitSuccess;
        }
        const Command *command = findCommand(topic);
        if (!command) {
            return usageError({}, "no help for '" + topic + "': there is no such command");
        }
        print(helpText(command->spec));
        return ExitSuccess;
    }
    if (isCommandGroup(name)) {
        const std::string group = name;
        if (next == args.size()) {
            return usageError(group, "needs an action: " + groupActions(group));
        }
        if (isHelp(args[next])) {
            print(groupHelp(group));
            return ExitSuccess;
        }
        const std::string &action = args[next++];
        name += ' ' + action;
        if (!findCommand(name)) {
            return usageError(group, "unknown action '" + action + "' (" + groupActions(group) + ")");
        }
    }
    const Command *command = findCommand(name);
    if (!command) {
        return usageError({}, "unknown command '" + name + "' (" + commandNames() + ")");
    }

    std::vector<std::string> rest = globalOptions;
    rest.insert(rest.end(), args.begin() + ptrdiff_t(next), args.end());
    UsageError error;
    ParsedArgs parsed = parseArguments(command->spec, rest, error);
    if (!error.message.empty()) {
        return usageError(name, error.message);
    }
    if (parsed.has("help")) {
        print(helpText(command->spec));
        return ExitSuccess;
    }

    if (needsPrivilegedCompanion(*command, parsed)) {
        if (privilegedResidencyAvailable()) {
            // We are the companion and still have no runner: a programming error.
            printError(name + ": not available in this program");
            return ExitFailures;
        }
        qCDebug(CACHESCOPE_CLI) << name.c_str() << "runs in cachescope-cli-privileged";
        return runInPrivilegedCompanion(argv, "", [](const std::string &lookedFor) {
            return "this command needs cachescope-cli-privileged (the client of the privileged helper), which is not installed: " + lookedFor;
        });
    }

    if (parsed.has("null") && !parsed.has("from")) {
        return usageError(name, "-0 (--null) goes with --from FILE");
    }
    std::shared_ptr<PathListReader> pathList;
    if (const std::optional<std::string> from = parsed.value("from")) {
        // Opened (or read whole) before anything runs: a list that cannot be read does nothing.
        std::string listError;
        bool ok = false;
        if (command->spec.streamsFrom) {
            pathList = std::make_shared<PathListReader>();
            ok = pathList->open(*from, parsed.has("null"), listError);
        } else {
            ok = readPathList(*from, parsed.has("null"), parsed.positional, listError);
        }
        if (!ok) {
            printError(name + ": " + listError);
            return ExitFailures;
        }
    }

    // Only now that a command runs, and before any of its threads starts, so
    // that every thread inherits the blocked mask. Usage errors and help start no thread.
    installInterruptHandling();

    Context context;
    context.json = parsed.has("json");
    context.rawBytes = parsed.has("bytes");
    context.arguments = argv;
    context.pathList = std::move(pathList);
    qCDebug(CACHESCOPE_CLI) << "running" << name.c_str() << (context.json ? "(JSON)" : "(text)");
    const int exitCode = command->run(context, parsed);
    context.out.flush();
    qCDebug(CACHESCOPE_CLI) << name.c_str() << "ended with exit status" << exitCode;
    return exitCode;
}

} // namespace Cachescope::Cli
