// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli load: bring files and folders into the page cache.

#include "actioncommand.h"
#include "commandoptions.h"

namespace Cachescope::Cli
{

namespace
{

bool loadHidden(const FileRecord &record)
{
    return record.load.hidden;
}

bool loadShown(const FileRecord &record)
{
    return !record.load.hidden;
}

const Table<FileRecord> &fileTable()
{
    static const Table<FileRecord> table = [] {
        Table<FileRecord> table;
        table.columns = fileHeadColumns(nullptr, loadHidden);
        const std::vector<Column<FileRecord>> figures = {
            {.header = "BEFORE",
             .key = "before",
             .width = 10,
             .format = Format::Pages,
             .help = "resident pages before (of the range)",
             .value =
                 [](const FileRecord &r) {
                     return countCell(r.load.before);
                 },
             .inJson = loadShown,
             .spanned = true},
            {.header = "AFTER",
             .key = "after",
             .width = 10,
             .format = Format::Pages,
             .help = "resident pages after",
             .value =
                 [](const FileRecord &r) {
                     return countCell(r.load.after);
                 },
             .inJson = loadShown,
             .spanned = true},
            {.header = "LOADED",
             .width = 10,
             .format = Format::Pages,
             .help = "memory loaded: after - before",
             .value =
                 [](const FileRecord &r) {
                     return countCell(r.load.after > r.load.before ? r.load.after - r.load.before : 0);
                 },
             .spanned = true},
            {.key = "bytes_requested",
             .format = Format::Bytes,
             .help = "the range asked for, clipped to the file",
             .value =
                 [](const FileRecord &r) {
                     return countCell(r.load.bytesRequested);
                 }},
            {.key = "bytes_done",
             .format = Format::Bytes,
             .help = "what was read ahead or read",
             .value =
                 [](const FileRecord &r) {
                     return countCell(r.load.bytesDone);
                 }},
            {.key = "truncated",
             .format = Format::Bool,
             .help = "the file shrank while it was read",
             .value =
                 [](const FileRecord &r) {
                     return boolCell(r.load.truncated);
                 }},
            {.key = "cancelled",
             .format = Format::Bool,
             .help = "interrupted during this file",
             .value =
                 [](const FileRecord &r) {
                     return boolCell(r.load.cancelled);
                 }},
        };
        table.columns.insert(table.columns.end(), figures.begin(), figures.end());
        table.span = [](const FileRecord &r) {
            return hiddenActionText(r, r.load.hidden, ": loaded, counts unknown");
        };
        table.linesBelow = [](std::string &out, const FileRecord &r) {
            if (r.load.truncated) {
                out += "            the file shrank while it was read\n";
            }
        };
        return table;
    }();
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
             "file named, then one line of totals a folder (every file with -v).\n"
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
