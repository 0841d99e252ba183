// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli snapshot save, diff and restore: the page cache recorded in
// a file, compared and brought back. The files are read, written and
// restored by the core (snapshot.h), as the window's snapshots are.

#include "commandoptions.h"
#include "interrupt.h"
#include "table.h"

#include "format.h"
#include "pathcodec.h"
#include "snapshot.h"

namespace Cachescope::Cli
{

namespace
{

std::optional<Snapshot> readSnapshot(Context &context, const std::string &path)
{
    std::string error;
    std::optional<Snapshot> snapshot = readSnapshotFile(path, &error);
    if (!snapshot) {
        context.fail(path, error);
    }
    return snapshot;
}

std::string rangesJson(const std::vector<PageRange> &ranges)
{
    std::string json = "[";
    for (size_t i = 0; i < ranges.size(); ++i) {
        json += i ? ",[" : "[";
        json += std::to_string(ranges[i].first) + ',' + std::to_string(ranges[i].count) + ']';
    }
    json += ']';
    return json;
}

int runSnapshotSave(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    WalkOptions options;
    if (!walkOptionsFrom(args, options, exitCode)) {
        return exitCode;
    }
    const std::string &file = args.positional.front();
    const std::vector<std::string> roots = filesAndFolders(context, args.positional.begin() + 1, args.positional.end());
    if (roots.empty()) {
        printError("snapshot save: nothing to record; " + file + " not written");
        return ExitFailures;
    }
    const Snapshot snapshot = takeSnapshot(roots, options, [&context](const WalkProblem &problem) {
        context.addWalkProblem(problem);
    });
    std::string error;
    if (!writeSnapshotFile(file, snapshot, &error)) {
        context.fail(file, error);
        return ExitFailures;
    }
    const uint64_t pages = snapshot.residentPages();
    std::string &out = context.out.buffer;
    if (context.json) {
        out += "{\"command\":\"snapshot save\",";
        appendJsonPath(out, file, "file");
        out += ',';
        appendJsonNumber(out, "page_size", snapshot.pageSize);
        out += ',';
        appendJsonNumber(out, "files", snapshot.files.size());
        out += ',';
        appendJsonNumber(out, "resident_pages", pages);
        out += ',';
        appendJsonNumber(out, "resident_bytes", pages * snapshot.pageSize);
        out += ',';
        context.appendProblemsJson(out);
        out += "}\n";
    } else {
        out += "Saved " + std::to_string(snapshot.files.size()) + " files, " + sizeText(pages * snapshot.pageSize, context.rawBytes) + " resident ("
            + std::to_string(pages) + " pages), to " + file + '\n';
    }
    return context.anyFailed() ? ExitFailures : ExitSuccess;
}

// One file of a diff, with the page size of the snapshots.
struct DiffRow {
    const SnapshotFileDiff *file = nullptr;
    uint64_t pageSize = 0;
};

const Table<DiffRow> &diffTable()
{
    static const Table<DiffRow> table = {
        .columns =
            {
                pathColumn<DiffRow>("the file",
                                    [](const DiffRow &row) {
                                        return row.file->path;
                                    }),
                {.header = "LOADED",
                 .key = "loaded_pages",
                 .width = 11,
                 .help = "pages resident in B, not in A (text: their memory)",
                 .value =
                     [](const DiffRow &row) {
                         return countCell(row.file->loadedPages());
                     },
                 .text =
                     [](const DiffRow &row, bool raw) {
                         return '+' + sizeText(row.file->loadedPages() * row.pageSize, raw);
                     }},
                {.header = "EVICTED",
                 .key = "evicted_pages",
                 .width = 11,
                 .help = "pages resident in A, not in B (text: their memory)",
                 .value =
                     [](const DiffRow &row) {
                         return countCell(row.file->evictedPages());
                     },
                 .text =
                     [](const DiffRow &row, bool raw) {
                         return '-' + sizeText(row.file->evictedPages() * row.pageSize, raw);
                     }},
                {.key = "only_in_first",
                 .format = Format::Bool,
                 .help = "the file is in snapshot A only",
                 .value =
                     [](const DiffRow &row) {
                         return boolCell(row.file->onlyInFirst);
                     }},
                {.key = "only_in_second",
                 .format = Format::Bool,
                 .help = "the file is in snapshot B only",
                 .value =
                     [](const DiffRow &row) {
                         return boolCell(row.file->onlyInSecond);
                     }},
                {.key = "loaded",
                 .format = Format::Json,
                 .help = "the loaded page ranges, [first, count], sorted",
                 .value =
                     [](const DiffRow &row) {
                         return textCell(rangesJson(row.file->loaded));
                     }},
                {.key = "evicted",
                 .format = Format::Json,
                 .help = "the evicted page ranges, [first, count], sorted",
                 .value =
                     [](const DiffRow &row) {
                         return textCell(rangesJson(row.file->evicted));
                     }},
            },
        .lineEnd =
            [](const DiffRow &row) {
                return row.file->onlyInFirst ? std::string("  (only in the first snapshot)")
                    : row.file->onlyInSecond ? std::string("  (only in the second snapshot)")
                                             : std::string();
            },
    };
    return table;
}

int runSnapshotDiff(Context &context, const ParsedArgs &args)
{
    const std::optional<Snapshot> first = readSnapshot(context, args.positional[0]);
    const std::optional<Snapshot> second = readSnapshot(context, args.positional[1]);
    if (!first || !second) {
        return ExitFailures;
    }
    const SnapshotDiff diff = diffSnapshots(*first, *second);
    const uint64_t page = second->pageSize ? second->pageSize : pageSize();
    const Table<DiffRow> &table = diffTable();
    std::string &out = context.out.buffer;
    if (context.json) {
        out += "{\"command\":\"snapshot diff\",";
        appendJsonNumber(out, "page_size", page);
        out += ',';
        appendJsonNumber(out, "loaded_pages", diff.loadedPages);
        out += ',';
        appendJsonNumber(out, "evicted_pages", diff.evictedPages);
        out += ",\"files\":[";
        for (size_t i = 0; i < diff.files.size(); ++i) {
            out += i ? "," : "";
            table.appendJson(out, DiffRow{&diff.files[i], page});
            context.out.flushIfLarge();
        }
        out += "]}\n";
    } else {
        table.appendHeader(out);
        for (const SnapshotFileDiff &file : diff.files) {
            table.appendText(out, DiffRow{&file, page}, context.rawBytes);
            context.out.flushIfLarge();
        }
        out += '\n' + std::to_string(diff.files.size()) + " files differ: " + sizeText(diff.loadedPages * page, context.rawBytes) + " loaded ("
            + std::to_string(diff.loadedPages) + " pages), " + sizeText(diff.evictedPages * page, context.rawBytes) + " evicted ("
            + std::to_string(diff.evictedPages) + " pages)\n";
    }
    return ExitSuccess;
}

int runSnapshotRestore(Context &context, const ParsedArgs &args)
{
    const std::string &file = args.positional.front();
    const std::optional<Snapshot> snapshot = readSnapshot(context, file);
    if (!snapshot) {
        return ExitFailures;
    }
    RestoreReport report;
    {
        const CancelScope scope;
        report = restoreSnapshot(*snapshot, &interruptFlag());
    }
    for (const RestoreProblem &problem : report.skipped) {
        context.fail(problem.path, problem.reason);
    }
    const bool cancelled = report.cancelled || interrupted();
    std::string &out = context.out.buffer;
    if (context.json) {
        out += "{\"command\":\"snapshot restore\",";
        appendJsonPath(out, file, "file");
        out += ',';
        appendJsonNumber(out, "page_size", snapshot->pageSize);
        out += ',';
        appendJsonNumber(out, "files_restored", report.filesRestored);
        out += ',';
        appendJsonNumber(out, "pages_requested", report.pagesRequested);
        out += ',';
        appendJsonNumber(out, "pages_resident_after", report.pagesResidentAfter);
        out += ',';
        appendJsonBool(out, "cancelled", cancelled);
        out += ',';
        context.appendProblemsJson(out);
        out += "}\n";
    } else {
        out += "Restored " + std::to_string(report.filesRestored) + " files: " + std::to_string(report.pagesResidentAfter) + " of "
            + std::to_string(report.pagesRequested) + " recorded pages resident (" + sizeText(report.pagesResidentAfter * snapshot->pageSize, context.rawBytes)
            + ")";
        if (!report.skipped.empty()) {
            out += "; " + std::to_string(report.skipped.size()) + " files skipped (named on stderr)";
        }
        out += '\n';
    }
    if (cancelled) {
        context.out.flush();
        printError("interrupted: the restore is partial");
        return interruptExitCode();
    }
    return context.anyFailed() ? ExitFailures : ExitSuccess;
}

} // namespace

std::vector<Command> snapshotCommands()
{
    return {
        {{"snapshot save",
          "FILE PATH...",
          "record which pages of which files are cached",
          "Walks the PATHs and writes to FILE (JSON) the resident page ranges of\n"
          "every regular file, with its size and modification time. Files whose\n"
          "residency is hidden from you are reported and left out.",
          withCommonOptions({followOption, oneFileSystemOption, threadsOption, mincoreOption}),
          "  cachescope-cli snapshot save before.json /srv/db\n",
          2},
         runSnapshotSave},
        {{"snapshot diff",
          "A B",
          "what changed in the page cache between two snapshots",
          "Compares two snapshot files and lists the files whose resident pages\n"
          "differ: memory loaded (resident in B, not in A) and evicted (resident in\n"
          "A, not in B).",
          withCommonOptions({}),
          "  cachescope-cli snapshot diff before.json after.json\n",
          2,
          2},
         runSnapshotDiff},
        {{"snapshot restore",
          "FILE",
          "load the recorded pages back into the page cache",
          "Loads exactly the page ranges recorded in FILE back into the page cache.\n"
          "Files that changed since the snapshot (size or modification time) or\n"
          "cannot be opened are skipped and named on stderr (exit status 1).",
          withCommonOptions({}),
          "  cachescope-cli snapshot restore before.json\n",
          1,
          1},
         runSnapshotRestore},
    };
}

} // namespace Cachescope::Cli
