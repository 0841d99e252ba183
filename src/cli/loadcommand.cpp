// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli load: bring files and folders into the page cache.

#include "actioncommand.h"
#include "commandoptions.h"

namespace Cachescope::Cli
{

namespace
{

Column<FileRecord> loadColumn(const char *key, Format format, const char *help, std::function<Cell(const FileRecord &)> value)
{
    return {.key = key, .format = format, .help = help, .value = std::move(value)};
}

const Table<FileRecord> &fileTable()
{
    static const Table<FileRecord> table = actionFileTable({.hidden =
                                                                [](const FileRecord &r) {
                                                                    return r.load.hidden;
                                                                },
                                                            .before =
                                                                [](const FileRecord &r) {
                                                                    return r.load.before;
                                                                },
                                                            .after =
                                                                [](const FileRecord &r) {
                                                                    return r.load.after;
                                                                },
                                                            .pages =
                                                                [](const FileRecord &r) {
                                                                    return r.load.pages;
                                                                },
                                                            .changeHeader = "LOADED",
                                                            .changeHelp = "memory loaded: after - before",
                                                            .change =
                                                                [](const FileRecord &r) {
                                                                    return r.load.after > r.load.before ? r.load.after - r.load.before : 0;
                                                                },
                                                            .doneText = ": loaded, what is resident now is hidden"},
                                                           {
                                                               loadColumn("bytes_requested",
                                                                          Format::Bytes,
                                                                          "the range asked for, clipped to the file",
                                                                          [](const FileRecord &r) {
                                                                              return countCell(r.load.bytesRequested);
                                                                          }),
                                                               loadColumn("bytes_done",
                                                                          Format::Bytes,
                                                                          "what was read ahead or read",
                                                                          [](const FileRecord &r) {
                                                                              return countCell(r.load.bytesDone);
                                                                          }),
                                                               loadColumn("truncated",
                                                                          Format::Bool,
                                                                          "the file shrank while it was read",
                                                                          [](const FileRecord &r) {
                                                                              return boolCell(r.load.truncated);
                                                                          }),
                                                               loadColumn("cancelled",
                                                                          Format::Bool,
                                                                          "interrupted during this file",
                                                                          [](const FileRecord &r) {
                                                                              return boolCell(r.load.cancelled);
                                                                          }),
                                                           },
                                                           [](std::string &out, const FileRecord &r) {
                                                               if (r.load.truncated) {
                                                                   out += "            the file shrank while it was read\n";
                                                               }
                                                           });
    return table;
}

int runLoad(Context &context, const ParsedArgs &args)
{
    return runFileAction(context, args, FileAction::Load, fileTable());
}

} // namespace

Command loadCommand()
{
    return {{"load",
             "PATH...",
             "bring files and folders into the page cache",
             "Reads files into the page cache (folders recursively), so that later\n"
             "reads come from memory. Prints resident memory before and after for each\n"
             "file named, measured after the load, and the resident pages of the range\n"
             "(PAGES: what is resident now, to the page), then one line of totals a\n"
             "folder (every file with -v).\n"
             "Progress is shown on stderr when it is a terminal.",
             withCommonOptions({{0, "offset", "BYTES", "start of the range in each file (default 0; suffixes K, M, G, T)"},
                                {0, "length", "BYTES", "length of the range (default: to the end of the file)"},
                                {0, "method", "METHOD", "readahead (default: no copy to user space) or read (pread, as a program would)"},
                                verboseOption,
                                followOption,
                                oneFileSystemOption,
                                threadsOption}),
             "  cachescope-cli load db.sqlite\n"
             "  cachescope-cli load --offset 1G --length 64M big.iso\n",
             1},
            runLoad};
}

} // namespace Cachescope::Cli
