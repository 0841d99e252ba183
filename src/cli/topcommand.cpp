// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli top: the files with the most pages in the page cache.

#include "commandoptions.h"
#include "walkrows.h"

#include "top.h"

namespace Cachescope::Cli
{

namespace
{

struct RankedFile {
    uint64_t rank = 0; // 1: most resident
    const TopEntry *entry = nullptr;
};

const Table<RankedFile> &rankTable()
{
    static const Table<RankedFile> table = {
        .columns =
            {
                {.header = "RANK",
                 .key = "rank",
                 .width = 5,
                 .help = "1 = most resident",
                 .value =
                     [](const RankedFile &f) {
                         return countCell(f.rank);
                     }},
                pathColumn<RankedFile>("the file",
                                       [](const RankedFile &f) {
                                           return f.entry->path;
                                       }),
                {.header = "RESIDENT",
                 .key = "resident",
                 .width = 10,
                 .format = Format::Pages,
                 .help = "resident pages (text: the memory they take)",
                 .value =
                     [](const RankedFile &f) {
                         return countCell(f.entry->resident);
                     }},
                {.key = "resident_bytes",
                 .format = Format::Bytes,
                 .help = "the memory the resident pages take",
                 .value =
                     [](const RankedFile &f) {
                         return countCell(f.entry->resident * pageSize());
                     }},
                {.header = "CACHED",
                 .key = "cached_percent",
                 .width = 7,
                 .format = Format::Percent,
                 .help = "resident share",
                 .value =
                     [](const RankedFile &f) {
                         return percentCell(f.entry->resident, f.entry->pages);
                     }},
                {.header = "SIZE",
                 .key = "size",
                 .width = 10,
                 .format = Format::Bytes,
                 .help = "file size",
                 .value =
                     [](const RankedFile &f) {
                         return countCell(f.entry->size);
                     }},
                {.key = "pages",
                 .help = "file pages",
                 .value =
                     [](const RankedFile &f) {
                         return countCell(f.entry->pages);
                     }},
                {.header = "DIRTY",
                 .key = "dirty",
                 .width = 10,
                 .format = Format::Pages,
                 .help = "dirty pages (0 without cachestat)",
                 .value =
                     [](const RankedFile &f) {
                         return countCell(f.entry->dirty);
                     }},
            },
    };
    return table;
}

int runTop(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    WalkOptions options;
    uint64_t count = 20;
    if (!walkOptionsFrom(args, options, exitCode) || !countOption(args, "count", 1, 1000000, count, exitCode)) {
        return exitCode;
    }
    // /proc, /sys and the like hold no page cache: a walk of / names them and walks on.
    options.skipNoPageCache = !args.has("kernel-file-systems");
    const std::vector<std::string> roots = filesAndFolders(context, args.positional.begin(), args.positional.end(), options.filter);
    TopResult result;
    if (!roots.empty()) {
        result = topCached(roots, size_t(count), options, [&context](const WalkProblem &problem) {
            context.addWalkProblem(problem);
        });
    }
    WalkTotals total = result.walk.total;
    total.filtered += context.leftOut.load();
    const Table<RankedFile> &table = rankTable();
    std::string &out = context.out.buffer;
    if (context.json) {
        out += "{\"command\":\"top\",";
        appendJsonNumber(out, "page_size", pageSize());
        out += ",\"entries\":[";
        for (size_t i = 0; i < result.entries.size(); ++i) {
            out += i ? "," : "";
            table.appendJson(out, RankedFile{i + 1, &result.entries[i]});
        }
        out += "],\"total\":";
        statusTotalsTable().appendJson(out, TotalsRow{"total", false, total, result.walk.method});
        out += ',';
        context.appendProblemsJson(out);
        out += "}\n";
    } else {
        table.appendHeader(out);
        for (size_t i = 0; i < result.entries.size(); ++i) {
            table.appendText(out, RankedFile{i + 1, &result.entries[i]}, context.rawBytes);
        }
        out += '\n' + std::to_string(total.files) + " files, " + sizeText(total.resident * pageSize(), context.rawBytes) + " resident";
        if (total.hiddenFiles > 0) {
            out += "; " + std::to_string(total.hiddenFiles) + " files hidden by the kernel, not ranked (run as their owner or as root)";
        }
        out += foldersNotWalkedNote(total);
        out += specialFilesNote(total);
        out += '\n';
    }
    noteLeftOut("top", total.filtered);
    return context.anyFailed() ? ExitFailures : ExitSuccess;
}

} // namespace

Command topCommand()
{
    return {{"top",
             "DIR...",
             "the files with the most pages in the page cache",
             "Walks the folders and lists the files with the most resident pages,\n"
             "most first. Files whose residency the kernel hides from you are counted\n"
             "in the summary, never ranked. Mount points of file systems that keep no\n"
             "page cache (proc, sysfs, cgroup, ...) below a folder named are not walked.",
             withCommonOptions(withSelectionOptions({{'n', "count", "N", "how many files to list (default 20)"},
                                                     followOption,
                                                     oneFileSystemOption,
                                                     kernelFileSystemsOption,
                                                     threadsOption,
                                                     mincoreOption})),
             "  cachescope-cli top / -x -n 30\n",
             1},
            runTop};
}

} // namespace Cachescope::Cli
