// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli status: how much of each file is in the page cache.

#include "commandoptions.h"
#include "interrupt.h"
#include "walkrows.h"

#include "cachescope_cli_debug.h"

#include <unistd.h>

#include <algorithm>
#include <mutex>

namespace Cachescope::Cli
{

namespace
{

std::string heatmapCells(const Histogram &histogram, bool ascii)
{
    static const char *const unicodeCells[] = {" ", "\u2591", "\u2592", "\u2593", "\u2588"};
    static const char *const asciiCells[] = {" ", ".", "o", "O", "#"};
    const char *const *cells = ascii ? asciiCells : unicodeCells;
    std::string line;
    for (int bucket = 0; bucket < histogram.buckets(); ++bucket) {
        const uint64_t pages = histogram.pagesIn(bucket);
        const uint64_t resident = histogram.resident[size_t(bucket)];
        int level = 0;
        if (resident > 0) {
            level = resident >= pages ? 4 : 1 + int(std::min<uint64_t>(2, 3 * resident / std::max<uint64_t>(pages, 1)));
        }
        line += cells[level];
    }
    return line;
}

void appendNumbers(std::string &json, const char *key, const std::vector<uint64_t> &numbers)
{
    json += '"';
    json += key;
    json += "\":[";
    for (size_t i = 0; i < numbers.size(); ++i) {
        json += i ? "," : "";
        json += std::to_string(numbers[i]);
    }
    json += ']';
}

std::string histogramJson(const Histogram &h)
{
    std::vector<uint64_t> pages;
    pages.reserve(size_t(std::max(0, h.buckets())));
    for (int bucket = 0; bucket < h.buckets(); ++bucket) {
        pages.push_back(h.pagesIn(bucket));
    }
    std::string json = "{";
    appendNumbers(json, "pages", pages);
    json += ',';
    appendNumbers(json, "resident", h.resident);
    if (h.detail) {
        json += ',';
        appendNumbers(json, "dirty", h.dirty);
        json += ',';
        appendNumbers(json, "writeback", h.writeback);
    }
    json += '}';
    return json;
}

bool residencyHidden(const FileRecord &record)
{
    return record.residency.hidden;
}

bool residencyShown(const FileRecord &record)
{
    return !record.residency.hidden;
}

bool detailShown(const FileRecord &record)
{
    return !record.residency.hidden && record.residency.detail;
}

// The detail figures of cachestat: "-" in text and absent in JSON without it.
Column<FileRecord> detailColumn(const char *header, const char *key, uint64_t Residency::*member, const char *help)
{
    return {.header = header,
            .key = key,
            .width = 10,
            .format = Format::Pages,
            .help = help,
            .value =
                [member](const FileRecord &r) {
                    return countCell(r.residency.*member);
                },
            .inJson = detailShown,
            .inText =
                [](const FileRecord &r) {
                    return r.residency.detail;
                },
            .spanned = true};
}

// withHistogram: --pages N, a heatmap under each row (ascii: in ASCII cells).
Table<FileRecord> fileTable(bool withHistogram, bool ascii)
{
    Table<FileRecord> table;
    table.columns = fileHeadColumns("SIZE", residencyHidden);
    const std::vector<Column<FileRecord>> figures = {
        {.header = "RESIDENT",
         .key = "resident",
         .width = 10,
         .format = Format::Pages,
         .help = "resident pages (text: the memory they take)",
         .value =
             [](const FileRecord &r) {
                 return countCell(r.residency.resident);
             },
         .inJson = residencyShown,
         .spanned = true},
        {.key = "resident_bytes",
         .format = Format::Bytes,
         .help = "the memory the resident pages take",
         .value =
             [](const FileRecord &r) {
                 return countCell(r.residency.resident * pageSize());
             },
         .inJson = residencyShown},
        {.header = "PAGES",
         .width = 21,
         .format = Format::Text,
         .help = "resident/total pages",
         .value =
             [](const FileRecord &r) {
                 return textCell(std::to_string(r.residency.resident) + '/' + std::to_string(r.residency.pages));
             },
         .spanned = true},
        {.header = "CACHED",
         .key = "cached_percent",
         .width = 7,
         .format = Format::Percent,
         .help = "resident share",
         .value =
             [](const FileRecord &r) {
                 return percentCell(r.residency.resident, r.residency.pages);
             },
         .inJson = residencyShown,
         .spanned = true},
        detailColumn("DIRTY", "dirty", &Residency::dirty, "dirty pages"),
        detailColumn("WRITEBACK", "writeback", &Residency::writeback, "pages being written back"),
        detailColumn("EVICTED", "evicted", &Residency::evicted, "pages evicted since the file was opened first"),
        {.key = "recently_evicted",
         .help = "evicted pages that would count as working set (refault distance)",
         .value =
             [](const FileRecord &r) {
                 return countCell(r.residency.recentlyEvicted);
             },
         .inJson = detailShown},
        {.header = "METHOD",
         .key = "method",
         .align = Align::Left,
         .width = 9,
         .format = Format::Text,
         .help = "cachestat or mincore",
         .value =
             [](const FileRecord &r) {
                 return textCell(methodName(r.residency.method));
             },
         .inJson = residencyShown,
         .spanned = true},
        {.key = "histogram",
         .format = Format::Json,
         .help = "with --pages N: pages, resident (and with cachestat dirty, writeback) pages of each cell",
         .value =
             [](const FileRecord &r) {
                 return textCell(histogramJson(r.histogram));
             },
         .inJson =
             [withHistogram](const FileRecord &r) {
                 return withHistogram && !r.residency.hidden && !r.histogram.hidden;
             }},
    };
    table.columns.insert(table.columns.end(), figures.begin(), figures.end());
    table.span = [](const FileRecord &r) -> std::optional<std::string> {
        if (!r.residency.hidden) {
            return std::nullopt;
        }
        return hiddenText(r.residency.hiddenReason);
    };
    if (withHistogram) {
        table.linesBelow = [ascii](std::string &out, const FileRecord &r) {
            out += "  ";
            if (r.residency.hidden || r.histogram.hidden) {
                out += "hidden";
            } else {
                out += '|' + heatmapCells(r.histogram, ascii) + '|';
            }
            out += '\n';
        };
    }
    return table;
}

// status --privileged: the helper gets the paths we could open and opens
// each as this user (never as root), then reads its residency as root.
// failure: empty, or why the helper gave nothing before; then it is not
// asked again (a refused authentication is not asked for once a batch).
void askHelper(Context &context, std::vector<FileRecord> &named, int cells, std::string &failure)
{
    // Files of proc, sysfs and the like are answered already (no page cache):
    // the helper is asked of the others only, and the order given is kept.
    std::vector<size_t> asked;
    std::vector<std::string> paths;
    for (size_t i = 0; i < named.size(); ++i) {
        if (named[i].residency.method != ResidencyMethod::NoPageCache) {
            asked.push_back(i);
            paths.push_back(named[i].path);
        }
    }
    if (paths.empty()) {
        return;
    }
    std::vector<Residency> residencies;
    std::vector<Histogram> histograms;
    const bool ok = failure.empty() && residencyFromHelper(paths, cells, residencies, histograms, failure);
    if (!ok && failure.empty()) {
        failure = "the privileged helper gave no residency";
    }
    if (!ok) {
        qCDebug(CACHESCOPE_CLI) << "status --privileged: the helper gave no residency:" << failure.c_str();
    }
    std::vector<char> keep(named.size(), 1);
    for (size_t k = 0; k < asked.size(); ++k) {
        FileRecord &record = named[asked[k]];
        const bool answered = ok && k < residencies.size();
        if (!answered || !residencies[k].ok()) {
            context.fail(record.path, answered ? residencies[k].errorText : ok ? std::string("the privileged helper gave no answer") : failure);
            keep[asked[k]] = 0;
            continue;
        }
        record.residency = std::move(residencies[k]);
        if (k < histograms.size()) {
            record.histogram = std::move(histograms[k]);
        }
    }
    std::vector<FileRecord> answered;
    for (size_t i = 0; i < named.size(); ++i) {
        if (keep[i]) {
            answered.push_back(std::move(named[i]));
        }
    }
    named = std::move(answered);
}

int runStatus(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    WalkOptions options;
    uint64_t cells = 0;
    if (!walkOptionsFrom(args, options, exitCode) || !countOption(args, "pages", 1, 100000, cells, exitCode)) {
        return exitCode;
    }
    const bool recursive = args.has("recursive");
    const bool verbose = args.has("verbose");
    const bool privileged = args.has("privileged");
    if (privileged && recursive) {
        return usageError("status", "--privileged takes files, not folders (-r)");
    }
    options.action = FileAction::Residency;
    options.histogramBuckets = verbose ? int(cells) : 0;

    const Table<FileRecord> table = fileTable(cells > 0, args.has("ascii"));
    WalkReportPrinter printer(context, table, "status", privileged);

    // Each path named (or listed by --from) on its own, on several threads
    // where there are many, a batch at a time: the batch's rows are printed,
    // in the order the paths were given, and dropped before the next batch,
    // so that a list of a million paths holds a batch of rows, not a million.
    // --from is read as it comes (CommandSpec::streamsFrom): a batch is
    // answered while `find` is still writing the next, and the list is never
    // held whole.
    constexpr size_t batchSize = 4096;
    std::vector<std::string> roots; // the folders to walk
    WalkTotals namedTotals;
    bool anyNamed = false;
    std::string helperFailure;
    size_t nextNamed = 0; // in args.positional, which come before the list
    std::vector<std::string> batch;
    const auto nextBatch = [&]() {
        batch.clear();
        const size_t fromArguments = std::min(batchSize, args.positional.size() - nextNamed);
        batch.assign(args.positional.begin() + ptrdiff_t(nextNamed), args.positional.begin() + ptrdiff_t(nextNamed + fromArguments));
        nextNamed += fromArguments;
        if (batch.empty() && context.pathList && !context.pathList->ended()) {
            std::string reason;
            if (!context.pathList->next(batch, batchSize, reason)) {
                // What was answered stands; the rest of the list is not, and that is said.
                context.fail(context.pathList->name(), reason + ": the rest of the list was not read");
                context.pathList.reset();
            }
        }
        return !batch.empty() || (context.pathList && !context.pathList->ended());
    };
    while (!interrupted() && nextBatch()) {
        const size_t count = batch.size();
        std::vector<ArgumentKind> kinds(count, ArgumentKind::Missing);
        std::vector<FileRecord> named(count);
        std::vector<char> answered(count, 0);
        forEachIndex(count, options.threads, [&](size_t i) {
            const std::string &path = batch[i];
            struct stat before;
            kinds[i] = classify(context, path, options.filter, &before);
            if (kinds[i] == ArgumentKind::Folder && !recursive) {
                context.fail(path, "is a folder: use -r");
            }
            if (kinds[i] != ArgumentKind::File) {
                return;
            }
            struct stat st;
            UniqueFd fd = openNamedFile(context, path, st, &before);
            if (!fd) {
                return;
            }
            FileRecord &record = named[i];
            record.path = path;
            record.size = uint64_t(st.st_size);
            if (namedFileKeepsNoPageCache(fd.get(), st)) {
                // Nothing to ask, of the kernel or of the helper.
                record.residency = noPageCacheResidency(record.size);
            } else if (!privileged) {
                record.residency = residencyOfDescriptor(fd.get(), st, options.residencyOptions);
                if (cells > 0 && record.residency.ok()) {
                    record.histogram = histogramOfDescriptor(fd.get(), st, int(cells), options.residencyOptions);
                }
                if (!record.residency.ok()) {
                    context.fail(path, record.residency.errorText);
                    return;
                }
            }
            // With --privileged, opened here only to report what we cannot open ourselves.
            answered[i] = 1;
        });
        // The answered files, in place and in the order given.
        size_t kept = 0;
        for (size_t i = 0; i < count; ++i) {
            if (kinds[i] == ArgumentKind::Folder && recursive) {
                roots.push_back(batch[i]);
            } else if (answered[i]) {
                if (kept != i) {
                    named[kept] = std::move(named[i]);
                }
                ++kept;
            }
        }
        named.resize(kept);
        if (privileged && !named.empty()) {
            askHelper(context, named, int(cells), helperFailure);
        }
        for (const FileRecord &record : named) {
            addFileToTotals(namedTotals, record.size, record.residency);
        }
        anyNamed = anyNamed || !named.empty();
        printer.rows(named);
        if (context.pathList) {
            // Out before the next read of the list, which may wait for its writer.
            context.out.flush();
        }
    }

    WalkResult result;
    if (!roots.empty() && !interrupted()) {
        std::vector<FileRecord> walked;
        Walker walker(options);
        std::mutex walkedMutex;
        walker.setProblemCallback([&context](const WalkProblem &problem) {
            context.addWalkProblem(problem);
        });
        if (verbose) {
            // Only here does the CLI touch each file: printing totals costs nothing beyond the walk.
            walker.setEntryCallback([&walked, &walkedMutex](const WalkEntry &entry) {
                if (entry.kind != EntryKind::File || !entry.residency.ok()) {
                    return;
                }
                FileRecord record = recordOf(entry);
                const std::lock_guard lock(walkedMutex);
                walked.push_back(std::move(record));
            });
        }
        const CancelScope scope(&walker);
        result = walker.walk(roots);
        sortRecords(walked);
        printer.rows(walked);
    }

    WalkTotals total = result.total;
    total.filtered += context.leftOut.load();
    total.add(namedTotals);
    const TotalsRows totals(roots, result, total);
    return printer.finish(statusTotalsTable(), totals, anyNamed, result.cancelled || interrupted());
}

} // namespace

Command statusCommand()
{
    Command command{{"status",
                     "PATH...",
                     "how much of each file is in the page cache",
                     "Shows how much of each file is in the page cache: size, pages, resident\n"
                     "pages, the cached share, and, where cachestat(2) exists (Linux 6.5+),\n"
                     "dirty, writeback and evicted pages. A folder needs -r; then one line of\n"
                     "totals a folder is printed (every file with -v).\n"
                     "\n"
                     "Columns: SIZE, RESIDENT (memory the resident pages take), PAGES\n"
                     "(resident/total), CACHED (resident share), DIRTY, WRITEBACK, EVICTED\n"
                     "(memory amounts, '-' without cachestat), METHOD (cachestat or mincore).\n"
                     "\n"
                     "Honesty: for a file you neither own nor may write, the kernel hides the\n"
                     "truth (mincore claims every page is resident, cachestat refuses). Such a\n"
                     "file shows 'hidden (<reason>)' instead of a number, and folder totals\n"
                     "leave it out (column HIDDEN). Run as its owner or as root to see it.\n"
                     "\n"
                     "FIFOs, sockets and devices are reported on stderr and never opened; they\n"
                     "do not change the exit status. Errors (permission denied, vanished,\n"
                     "...) are named on stderr and make the exit status 1.",
                     withCommonOptions(
                         withSelectionOptions({{'r', "recursive", nullptr, "descend into folders"},
                                               verboseOption,
                                               {0, "pages", "N", "draw a heatmap of N cells under each file (' ' none, \u2591 \u2592 \u2593 some, \u2588 all)"},
                                               {0, "ascii", nullptr, "heatmap with ASCII cells (' ' . o O #)"},
                                               followOption,
                                               oneFileSystemOption,
                                               threadsOption,
                                               mincoreOption,
                                               {0, "privileged", nullptr, "ask the privileged helper (polkit) for files whose residency is hidden from you"}})),
                     "  cachescope-cli status /var/log/syslog\n"
                     "  cachescope-cli status --pages 60 big.iso\n"
                     "  cachescope-cli status -r /usr            # one line of totals\n"
                     "  cachescope-cli status -rv --json ~/src   # every file, as JSON\n"
                     "  cachescope-cli status --privileged /usr/bin/bash   # hidden from you: ask root\n"
                     "  cachescope-cli status -r --include '*.so*' --max-size 64M /usr/lib\n"
                     "  find ~/src -name '*.o' -print0 | cachescope-cli status --from - -0\n",
                     1},
                    runStatus};
    command.spec.streamsFrom = true;
    return command;
}

} // namespace Cachescope::Cli
