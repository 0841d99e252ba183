// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "walker.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace Cachescope::Cli
{

// stdout through one growing buffer and few large write(2) calls: printing
// a line per file for a tree of 100,000 files must not cost a syscall each.
class Writer
{
public:
    std::string buffer;
    void flushIfLarge()
    {
        if (buffer.size() >= (1 << 20)) {
            flush();
        }
    }
    void flush();
};

struct Problem {
    std::string path;
    std::string reason;
    bool skipped = false;
};

class PathListReader;

// What every subcommand shares: output settings, stdout, and the problems
// (on stderr as they happen, and kept for the JSON document).
class Context
{
public:
    bool json = false;
    bool rawBytes = false; // --bytes
    char **arguments = nullptr; // as main() got them: for running cachescope-cli-privileged
    Writer out;
    // Files named (or listed by --from) that --include, --exclude or --max-size left out.
    std::atomic<uint64_t> leftOut{0};
    // --from, opened and not yet read, for a command with CommandSpec::streamsFrom.
    std::shared_ptr<PathListReader> pathList;

    // Thread-safe: walker callbacks call these from worker threads.
    void fail(std::string_view path, std::string_view reason); // counts as a failure (exit 1)
    void skip(std::string_view path, std::string_view reason); // reported only
    // Special files met while walking are kept for JSON, not printed (the
    // summary counts them: specialFilesNote()); a root that is one is.
    void addWalkProblem(const WalkProblem &problem);

    [[nodiscard]] bool anyFailed() const
    {
        return failures.load() > 0;
    }
    // `"problems":[...]` for the JSON document.
    void appendProblemsJson(std::string &json);

private:
    void report(std::string_view path, std::string_view reason, bool skipped);
    std::mutex mutex;
    std::vector<Problem> problems;
    std::atomic<int> failures{0};
};

// Prints "cachescope-cli: MESSAGE" on stderr at once.
void printError(std::string_view message);

// 1536 -> "1.5 KiB" (Cachescope::formatBytes); raw: "1536".
[[nodiscard]] std::string sizeText(uint64_t bytes, bool raw);
// "50.0%"; "-" when whole is 0.
[[nodiscard]] std::string percentText(uint64_t part, uint64_t whole);
// 50.00 for JSON (two decimals); 0 when whole is 0.
void appendJsonPercent(std::string &json, uint64_t part, uint64_t whole);
void appendJsonNumber(std::string &json, std::string_view key, uint64_t value); // "key":value
void appendJsonBool(std::string &json, std::string_view key, bool value);
void appendJsonText(std::string &json, std::string_view key, std::string_view text); // any bytes, shown as UTF-8

// Right-aligns text in width columns (UTF-8 aware enough for our cells: counts code points).
// Text that comes from other people (commands, memfd names, paths) as a
// terminal may show it: C0 and C1 control characters (U+0080 to U+009F as
// UTF-8) become '?', so that none is sent as such.
[[nodiscard]] std::string printableText(std::string text);
[[nodiscard]] std::string padLeft(std::string_view text, size_t width);
[[nodiscard]] std::string padRight(std::string_view text, size_t width);

} // namespace Cachescope::Cli
