// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// What several subcommands share: the options of the commands that walk,
// checked numbers, and a first look at the paths named on the command line.

#include "commands.h"

#include "uniquefd.h"
#include "walker.h"

#include <sys/stat.h>

#include <functional>

namespace Cachescope::Cli
{

extern const OptionSpec followOption;
extern const OptionSpec oneFileSystemOption;
// map and top leave the file systems that keep no page cache alone unless asked.
extern const OptionSpec kernelFileSystemsOption;
extern const OptionSpec threadsOption;
extern const OptionSpec mincoreOption;
extern const OptionSpec verboseOption;

// --include GLOB, --exclude GLOB (both repeatable), --max-size SIZE, --from
// FILE and -0: the commands that take files and folders (status, evict,
// load, top, lock). The dispatcher reads --from (readPathList); the filter
// goes into WalkOptions::filter (walkOptionsFrom), and classify() applies it
// to the files named.
[[nodiscard]] std::vector<OptionSpec> withSelectionOptions(std::vector<OptionSpec> options);

// The paths of --from FILE ('-': standard input), read as they come: one a
// line, or with nulSeparated (-0) one per NUL-terminated record; empty ones
// are skipped.
class PathListReader
{
public:
    // False with a sentence naming the list and the reason when it cannot be
    // read at all (missing, unreadable, a folder).
    [[nodiscard]] bool open(const std::string &source, bool nulSeparated, std::string &error);
    // Appends up to `most` more paths: fewer when the list has ended, or when
    // what its writer has written so far is used up (a `find` still running),
    // so that they can be answered meanwhile. False with the reason when
    // reading failed; ended() once the list is done.
    [[nodiscard]] bool next(std::vector<std::string> &paths, size_t most, std::string &reason);
    [[nodiscard]] bool ended() const
    {
        return m_ended;
    }
    // "--from 'FILE'" or "--from -: standard input", for messages.
    [[nodiscard]] const std::string &name() const
    {
        return m_where;
    }

private:
    UniqueFd m_owned;
    int m_fd = -1;
    char m_separator = '\n';
    std::string m_where; // "--from 'FILE'" or "--from -: standard input"
    std::string m_pending; // the start of a path whose end has not been read yet
    std::vector<char> m_buffer;
    size_t m_at = 0; // what is left of the last read: [m_at, m_end)
    size_t m_end = 0;
    bool m_ended = false;
};

// The whole list at once (PathListReader): for the commands that act on
// files (evict, load, top, lock), which read it before they do anything.
[[nodiscard]] bool readPathList(const std::string &source, bool nulSeparated, std::vector<std::string> &paths, std::string &error);

// "3 files left out by --include, --exclude or --max-size" on stderr, when
// any was (the files named, Context::leftOut, and the files walked).
void noteLeftOut(std::string_view command, uint64_t files);
// On stderr, for evict and load: files they had nothing to do with, as
// their file system keeps no page cache (status counts them silently).
void noteWithoutPageCache(std::string_view command, uint64_t files);

// options plus --json, --bytes and --help, which every command takes.
[[nodiscard]] std::vector<OptionSpec> withCommonOptions(std::vector<OptionSpec> options);

// Reads an optional whole-number option into value (left as it is when the
// option is absent); false after a usage error, with its exit code.
[[nodiscard]] bool countOption(const ParsedArgs &args, const char *name, uint64_t minimum, uint64_t maximum, uint64_t &value, int &exitCode);
// The same for a byte count (4096, 64K, 1.5M, ...) of at least minimum.
[[nodiscard]] bool bytesOption(const ParsedArgs &args, const char *name, uint64_t &value, int &exitCode, uint64_t minimum = 0);

// --watch SECONDS and --count N (only with --watch): interval 0 without
// --watch, count 0 for no end. False after a usage error, with its exit code.
[[nodiscard]] bool watchOptionsFrom(const ParsedArgs &args, double &interval, uint64_t &count, int &exitCode);

// Calls appendRound(round) every interval seconds (once when interval is
// 0), count times (0: until interrupted), flushing stdout after each;
// appendRound writes what separates its rounds. A round returning false ends
// it with ExitFailures; Ctrl+C with 130.
[[nodiscard]] int repeatEvery(Context &context, double interval, uint64_t count, const std::function<bool(uint64_t round)> &appendRound);

// -L, -x, -j, --mincore: shared by every command that walks.
[[nodiscard]] bool walkOptionsFrom(const ParsedArgs &args, WalkOptions &options, int &exitCode);

enum class ArgumentKind : uint8_t {
    Missing, // reported already
    File,
    Folder,
    Special, // reported already, as skipped
    LeftOut, // a file the filter leaves out: counted in Context::leftOut
};

// Looks at a path named on the command line (following a symlink: the user named it).
// A file the filter leaves out is LeftOut (folders named are always walked).
// looked (optional) receives what stat said.
[[nodiscard]] ArgumentKind classify(Context &context, const std::string &path, const PathFilter &filter = {}, struct stat *looked = nullptr);

// The paths that name a file or a folder (the others are reported), files the filter leaves out left out.
[[nodiscard]] std::vector<std::string>
filesAndFolders(Context &context, std::vector<std::string>::const_iterator first, std::vector<std::string>::const_iterator last, const PathFilter &filter = {});

// Opens a regular file named on the command line; invalid after reporting why
// not. looked: classify()'s stat of it, so that it is not looked at twice.
[[nodiscard]] UniqueFd openNamedFile(Context &context, const std::string &path, struct stat &st, const struct stat *looked = nullptr);

// Whether an open file named on the command line is on a file system that
// keeps no page cache (proc, sysfs, ...): inside a batch of forEachIndex
// asked once a device, elsewhere once a file.
[[nodiscard]] bool namedFileKeepsNoPageCache(int fd, const struct stat &st);

// Calls work(i) for every i below count, on up to threads threads (0: one a
// core, at least 2) when count is large enough to gain from them, else on
// this one; stops handing out work once interrupted. work must be thread-safe.
void forEachIndex(size_t count, int threads, const std::function<void(size_t)> &work);

} // namespace Cachescope::Cli
