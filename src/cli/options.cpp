// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "options.h"

#include <cmath>
#include <cstdlib>

namespace Cachescope::Cli
{

namespace
{
const OptionSpec *findLong(const CommandSpec &spec, std::string_view name)
{
    for (const OptionSpec &option : spec.options) {
        if (name == option.longName) {
            return &option;
        }
    }
    return nullptr;
}

const OptionSpec *findShort(const CommandSpec &spec, char name)
{
    for (const OptionSpec &option : spec.options) {
        if (option.shortName != 0 && option.shortName == name) {
            return &option;
        }
    }
    return nullptr;
}

std::string optionLabel(const OptionSpec &option)
{
    return std::string("--") + option.longName;
}
} // namespace

bool ParsedArgs::has(std::string_view longName) const
{
    for (const auto &[name, value] : options) {
        if (name == longName) {
            return true;
        }
    }
    return false;
}

std::optional<std::string> ParsedArgs::value(std::string_view longName) const
{
    std::optional<std::string> found;
    for (const auto &[name, value] : options) {
        if (name == longName) {
            found = value;
        }
    }
    return found;
}

std::vector<std::string> ParsedArgs::values(std::string_view longName) const
{
    std::vector<std::string> found;
    for (const auto &[name, value] : options) {
        if (name == longName) {
            found.push_back(value);
        }
    }
    return found;
}

ParsedArgs parseArguments(const CommandSpec &spec, const std::vector<std::string> &args, UsageError &error)
{
    ParsedArgs parsed;
    parsed.command = spec.name;
    bool optionsEnded = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string &arg = args[i];
        if (optionsEnded || arg.size() < 2 || arg[0] != '-') {
            parsed.positional.push_back(arg);
            continue;
        }
        if (arg == "--") {
            optionsEnded = true;
            continue;
        }
        if (arg[1] == '-') {
            const size_t equals = arg.find('=');
            const std::string name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
            const OptionSpec *option = findLong(spec, name);
            if (!option) {
                error.message = "unknown option '--" + name + "'";
                return parsed;
            }
            if (!option->valueName) {
                if (equals != std::string::npos) {
                    error.message = "option '--" + name + "' takes no value";
                    return parsed;
                }
                parsed.options.emplace_back(option->longName, std::string());
                continue;
            }
            if (equals != std::string::npos) {
                parsed.options.emplace_back(option->longName, arg.substr(equals + 1));
            } else if (i + 1 < args.size()) {
                parsed.options.emplace_back(option->longName, args[++i]);
            } else {
                error.message = "option '--" + name + "' needs a value (" + option->valueName + ")";
                return parsed;
            }
            continue;
        }
        // Short options, compacted: -rv, -j4, -j 4, -n5.
        for (size_t k = 1; k < arg.size(); ++k) {
            const OptionSpec *option = findShort(spec, arg[k]);
            if (!option) {
                error.message = std::string("unknown option '-") + arg[k] + "'";
                return parsed;
            }
            if (!option->valueName) {
                parsed.options.emplace_back(option->longName, std::string());
                continue;
            }
            if (k + 1 < arg.size()) {
                parsed.options.emplace_back(option->longName, arg.substr(k + 1));
            } else if (i + 1 < args.size()) {
                parsed.options.emplace_back(option->longName, args[++i]);
            } else {
                error.message = std::string("option '-") + arg[k] + "' needs a value (" + option->valueName + ")";
                return parsed;
            }
            break;
        }
    }
    if (parsed.has("help")) {
        return parsed; // --help wins over missing arguments
    }
    // --from FILE names the paths instead (read once the command runs).
    if (parsed.positional.size() < spec.minPositional && !parsed.has("from")) {
        error.message = std::string("missing argument: ") + spec.arguments;
    } else if (parsed.positional.size() > spec.maxPositional) {
        error.message = "unexpected argument '" + parsed.positional[spec.maxPositional] + "'";
    }
    return parsed;
}

std::string helpText(const CommandSpec &spec)
{
    std::string text = std::string("Usage: cachescope-cli ") + spec.name;
    if (!spec.options.empty()) {
        text += " [OPTIONS]";
    }
    if (spec.arguments && *spec.arguments) {
        text += std::string(" ") + spec.arguments;
    }
    text += "\n\n";
    text += spec.description;
    text += "\n";
    if (!spec.options.empty()) {
        text += "\nOptions:\n";
        for (const OptionSpec &option : spec.options) {
            std::string left = "  ";
            left += option.shortName ? std::string("-") + option.shortName + ", " : std::string("    ");
            left += optionLabel(option);
            if (option.valueName) {
                left += std::string(" ") + option.valueName;
            }
            if (left.size() < 28) {
                left.resize(28, ' ');
            } else {
                left += "\n" + std::string(28, ' ');
            }
            text += left + option.help + "\n";
        }
    }
    if (spec.examples && *spec.examples) {
        text += "\nExamples:\n";
        text += spec.examples;
    }
    text +=
        "\nExit status: 0 success, 1 some entries failed (named on stderr), 2 usage error, 130 interrupted.\n"
        "Reference: docs/cli.md (JSON schemas of every --json output).\n";
    return text;
}

std::optional<uint64_t> parseCount(std::string_view text)
{
    if (text.empty() || text.size() > 19) {
        return std::nullopt;
    }
    uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        value = value * 10 + uint64_t(c - '0');
    }
    return value;
}

std::optional<uint64_t> parseBytes(std::string_view text)
{
    size_t numberEnd = 0;
    bool sawDigit = false;
    bool sawPoint = false;
    while (numberEnd < text.size()) {
        const char c = text[numberEnd];
        if (c >= '0' && c <= '9') {
            sawDigit = true;
        } else if (c == '.' && !sawPoint) {
            sawPoint = true;
        } else {
            break;
        }
        ++numberEnd;
    }
    if (!sawDigit) {
        return std::nullopt;
    }
    std::string_view suffix = text.substr(numberEnd);
    uint64_t unit = 1;
    if (!suffix.empty()) {
        switch (suffix[0]) {
        case 'k':
        case 'K':
            unit = uint64_t(1) << 10;
            break;
        case 'm':
        case 'M':
            unit = uint64_t(1) << 20;
            break;
        case 'g':
        case 'G':
            unit = uint64_t(1) << 30;
            break;
        case 't':
        case 'T':
            unit = uint64_t(1) << 40;
            break;
        case 'b':
        case 'B':
            unit = 1;
            break;
        default:
            return std::nullopt;
        }
        const std::string_view rest = suffix.substr(1);
        if (!(rest.empty() || ((rest == "iB" || rest == "B") && unit > 1))) {
            return std::nullopt;
        }
    }
    const std::string number(text.substr(0, numberEnd));
    if (!sawPoint) {
        const std::optional<uint64_t> whole = parseCount(number);
        if (!whole || (*whole != 0 && unit > UINT64_MAX / *whole)) {
            return std::nullopt;
        }
        return *whole * unit;
    }
    const double value = std::strtod(number.c_str(), nullptr) * double(unit);
    if (!std::isfinite(value) || value >= 1.8e19) {
        return std::nullopt;
    }
    return uint64_t(value);
}

std::optional<double> parseSeconds(std::string_view text)
{
    const std::string copy(text);
    if (copy.empty()) {
        return std::nullopt;
    }
    char *end = nullptr;
    const double value = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || !std::isfinite(value) || value <= 0 || value > 1e7) {
        return std::nullopt;
    }
    return value;
}

} // namespace Cachescope::Cli
