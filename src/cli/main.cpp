// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli: the page cache from a shell. See docs/cli.md.

#include "commands.h"

#include "cachescope_version.h"

#include <unistd.h>

#include <string>
#include <vector>

using namespace Cli;

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

std::string snapshotHelp()
{
    std::string text =
        "Usage: cachescope-cli snapshot save FILE PATH...\n"
        "       cachescope-cli snapshot diff A B\n"
        "       cachescope-cli snapshot restore FILE\n"
        "\n";
    for (const Command &command : commands()) {
        const std::string name = command.spec.name;
        if (name.rfind("snapshot ", 0) == 0) {
            std::string left = "  " + name.substr(9);
            left.resize(12, ' ');
            text += left + command.spec.summary + '\n';
        }
    }
    text += "\nRun 'cachescope-cli snapshot save --help' (diff, restore) for details.\n";
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

} // namespace

int main(int argc, char **argv)
{
    // Before any thread starts, so that every thread inherits the blocked mask.
    installInterruptHandling();

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
        return usageError({}, "no command given (status, evict, load, top, meminfo, snapshot)");
    }
    std::string name = args[next++];
    if (name == "help") {
        if (next == args.size()) {
            print(mainHelp());
            return ExitSuccess;
        }
        std::string topic = args[next];
        if (topic == "snapshot" && next + 1 < args.size()) {
            topic += ' ' + args[next + 1];
        }
        if (topic == "snapshot") {
            print(snapshotHelp());
            return ExitSuccess;
        }
        const Command *command = findCommand(topic);
        if (!command) {
            return usageError({}, "no help for '" + topic + "': there is no such command");
        }
        print(helpText(command->spec));
        return ExitSuccess;
    }
    if (name == "snapshot") {
        if (next == args.size()) {
            return usageError("snapshot", "needs an action: save, diff or restore");
        }
        if (isHelp(args[next])) {
            print(snapshotHelp());
            return ExitSuccess;
        }
        const std::string action = args[next++];
        name += ' ' + action;
        if (!findCommand(name)) {
            return usageError("snapshot", "unknown action '" + action + "' (save, diff or restore)");
        }
    }
    const Command *command = findCommand(name);
    if (!command) {
        return usageError({}, "unknown command '" + name + "' (status, evict, load, top, meminfo, snapshot)");
    }

    std::vector<std::string> rest = globalOptions;
    rest.insert(rest.end(), args.begin() + ptrdiff_t(next), args.end());
    UsageError error;
    const ParsedArgs parsed = parseArguments(command->spec, rest, error);
    if (!error.message.empty()) {
        return usageError(name, error.message);
    }
    if (parsed.has("help")) {
        print(helpText(command->spec));
        return ExitSuccess;
    }

    Context context;
    context.json = parsed.has("json");
    context.rawBytes = parsed.has("bytes");
    const int exitCode = command->run(context, parsed);
    context.out.flush();
    return exitCode;
}
