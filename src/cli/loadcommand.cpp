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

bool spansShown(const FileRecord &r)
{
    return r.load.spansKnown && !r.load.hidden;
}

Cell loadedRangesJson(const FileRecord &r)
{
    std::string json = "[";
    for (const ByteSpan &span : r.load.loadedSpans) {
        json += json.size() > 1 ? ",{" : "{";
        appendJsonNumber(json, "offset", span.offset);
        json += ',';
        appendJsonNumber(json, "length", span.length);
        json += '}';
    }
    json += ']';
    return textCell(json);
}

// Under a file's row, where some of its range was resident already: which
// parts were loaded ("nothing was missing" where none).
void appendLoadedRangesText(std::string &out, const FileRecord &r)
{
    const LoadReport &load = r.load;
    if (!spansShown(r) || load.bytesRequested == 0 || load.cancelled) {
        return;
    }
    const bool whole = load.loadedSpans.size() == 1 && load.spansOmitted == 0 && load.loadedSpans.front().length == load.bytesRequested;
    if (whole) {
        return;
    }
    if (load.loadedSpans.empty()) {
        out += "            nothing was missing: nothing read\n";
        return;
    }
    constexpr size_t shown = 4;
    const uint64_t count = load.loadedSpans.size() + load.spansOmitted;
    out += "            loaded only what was missing, " + std::to_string(count) + (count == 1 ? " range: " : " ranges: ");
    for (size_t i = 0; i < load.loadedSpans.size() && i < shown; ++i) {
        const ByteSpan &span = load.loadedSpans[i];
        out += i ? ", " : "";
        out += "at " + std::to_string(span.offset) + " +" + std::to_string(span.length);
    }
    if (count > shown) {
        out += ", ... (--json lists them)";
    }
    out += '\n';
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
                                                               {.key = "loaded_ranges",
                                                                .format = Format::Json,
                                                                .help = "the byte ranges that were missing and were loaded: offset and length of each",
                                                                .value = loadedRangesJson,
                                                                .inJson = spansShown},
                                                               {.key = "loaded_ranges_omitted",
                                                                .help = "loaded ranges beyond the 4,096 listed",
                                                                .value =
                                                                    [](const FileRecord &r) {
                                                                        return countCell(r.load.spansOmitted);
                                                                    },
                                                                .inJson = spansShown},
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
                                                               appendLoadedRangesText(out, r);
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
             "Only the pages that are not resident are read: each file's range is\n"
             "looked at first (a page map), then each missing run is loaded; where some\n"
             "was resident already, the ranges loaded are listed under the file's row\n"
             "(in bytes; all of them in JSON, loaded_ranges). Where the kernel hides a\n"
             "file's residency from you, the whole range is loaded and no range listed.\n"
             "Progress is shown on stderr when it is a terminal.",
             withCommonOptions(withSelectionOptions({{0, "offset", "BYTES", "start of the range in each file (default 0; suffixes K, M, G, T)"},
                                                     {0, "length", "BYTES", "length of the range (default: to the end of the file)"},
                                                     {0, "method", "METHOD", "readahead (default: no copy to user space) or read (pread, as a program would)"},
                                                     verboseOption,
                                                     followOption,
                                                     oneFileSystemOption,
                                                     threadsOption})),
             "  cachescope-cli load db.sqlite\n"
             "  cachescope-cli load --offset 1G --length 64M big.iso\n"
             "  cachescope-cli load --json db.sqlite   # loaded_ranges: what was missing\n",
             1},
            runLoad};
}

} // namespace Cachescope::Cli
