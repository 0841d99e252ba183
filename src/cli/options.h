// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Command-line parsing for cachescope-cli. Hand-rolled on purpose: paths are
// bytes, and QCoreApplication::arguments() would decode them (a name that is
// not UTF-8 would come back with U+FFFD in it and name another file). It also
// lets every usage error exit with 2 and a hint, and gives each subcommand its
// own --help.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace Cachescope::Cli
{

struct OptionSpec {
    char shortName = 0; // 0: long form only
    const char *longName = nullptr;
    const char *valueName = nullptr; // nullptr: a flag without value
    const char *help = nullptr;
};

struct CommandSpec {
    const char *name = nullptr; // "status", "snapshot save", ...
    const char *arguments = nullptr; // "PATH..." for the usage line
    const char *summary = nullptr; // one line, for the command list
    const char *description = nullptr; // paragraphs, for --help
    std::vector<OptionSpec> options;
    const char *examples = nullptr;
    size_t minPositional = 0;
    size_t maxPositional = SIZE_MAX;
    // The command reads --from itself, as the list comes (Context::pathList),
    // rather than the dispatcher reading it whole first: status, which
    // changes nothing and can answer the first paths while `find` still runs.
    bool streamsFrom = false;
};

class ParsedArgs
{
public:
    [[nodiscard]] bool has(std::string_view longName) const;
    // The last value given for the option, if any.
    [[nodiscard]] std::optional<std::string> value(std::string_view longName) const;
    // Every value given for a repeatable option, in order.
    [[nodiscard]] std::vector<std::string> values(std::string_view longName) const;

    std::string command; // "status", "snapshot save", ...: for messages
    std::vector<std::pair<std::string, std::string>> options; // long name -> value ("" for flags)
    std::vector<std::string> positional;
};

struct UsageError {
    std::string message; // empty: no error
};

// Parses args (after the subcommand). Fills error.message on a usage error.
[[nodiscard]] ParsedArgs parseArguments(const CommandSpec &spec, const std::vector<std::string> &args, UsageError &error);

[[nodiscard]] std::string helpText(const CommandSpec &spec);

// Numbers. Each returns nullopt when the text is not a valid value.
[[nodiscard]] std::optional<uint64_t> parseCount(std::string_view text); // decimal digits only
// Bytes with an optional IEC suffix: 4096, 64K, 1.5M, 2G, 1T (K = KiB = 1024), "KiB"/"k" also accepted.
[[nodiscard]] std::optional<uint64_t> parseBytes(std::string_view text);
[[nodiscard]] std::optional<double> parseSeconds(std::string_view text); // > 0, finite

} // namespace Cachescope::Cli
