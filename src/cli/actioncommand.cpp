// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "actioncommand.h"

#include "commandoptions.h"
#include "interrupt.h"

#include "cachescope_cli_debug.h"
#include "format.h"

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace Cachescope::Cli
{

namespace
{

// A progress line on stderr, only when stderr is a terminal.
class ProgressLine
{
public:
    explicit ProgressLine(std::function<std::string()> text)
    {
        if (!isatty(STDERR_FILENO)) {
            return;
        }
        m_thread = std::thread([this, text = std::move(text)] {
            std::unique_lock lock(m_mutex);
            while (!m_stop) {
                if (!m_condition.wait_for(lock, std::chrono::milliseconds(250), [this] {
                        return m_stop;
                    })) {
                    const std::string line = "\r\033[Kcachescope-cli: " + text();
                    (void)!::write(STDERR_FILENO, line.data(), line.size());
                    m_shown = true;
                }
            }
        });
    }
    ~ProgressLine()
    {
        stop();
    }
    ProgressLine(const ProgressLine &) = delete;
    ProgressLine &operator=(const ProgressLine &) = delete;
    void stop()
    {
        if (!m_thread.joinable()) {
            return;
        }
        {
            const std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_condition.notify_all();
        m_thread.join();
        if (m_shown) {
            static const char clear[] = "\r\033[K";
            (void)!::write(STDERR_FILENO, clear, sizeof clear - 1);
        }
    }

private:
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_condition;
    bool m_stop = false;
    bool m_shown = false;
};

bool wantsRow(const FileRecord &record, FileAction action, bool verbose)
{
    // The walker reports failed files as problems (stderr): no row of zeros for them.
    if (record.evict.error != 0 || record.load.error != 0 || !record.residency.ok()) {
        return false;
    }
    if (verbose) {
        return true;
    }
    // Without -v, a walked tree shows only the files that need a word.
    if (action == FileAction::Evict) {
        return !record.evict.hidden && record.evict.after > 0;
    }
    return record.load.truncated;
}

// --method of load; false after a usage error.
bool loadMethodOption(const ParsedArgs &args, LoadOptions &options, int &exitCode)
{
    const std::optional<std::string> method = args.value("method");
    if (!method) {
        return true;
    }
    if (*method == "readahead") {
        options.method = LoadMethod::Readahead;
    } else if (*method == "read") {
        options.method = LoadMethod::Read;
    } else {
        exitCode = usageError(args.command, "--method: '" + *method + "' is neither 'readahead' nor 'read'");
        return false;
    }
    return true;
}

struct ActionProgress {
    std::atomic<uint64_t> filesDone{0};
    std::atomic<uint64_t> bytesDone{0};
    std::atomic<Walker *> runningWalker{nullptr};
};

// The files named on the command line, one after the other, adding to total.
std::vector<FileRecord>
actOnNamedFiles(Context &context, const std::vector<std::string> &files, const WalkOptions &options, ActionProgress &progress, WalkTotals &total)
{
    const bool evict = options.action == FileAction::Evict;
    std::vector<FileRecord> named;
    const CancelScope scope;
    std::shared_ptr<const MappedFiles> mapped;
    for (const std::string &path : files) {
        if (interrupted()) {
            break;
        }
        struct stat st;
        const UniqueFd fd = openNamedFile(context, path, st);
        if (!fd) {
            continue;
        }
        FileRecord record;
        record.path = path;
        record.size = uint64_t(st.st_size);
        record.residency.hiddenReason = hiddenReasonFor(st, fd.get());
        record.residency.hidden = !record.residency.hiddenReason.empty();
        record.residency.pages = pagesFor(record.size);
        if (namedFileKeepsNoPageCache(fd.get(), st)) {
            // Nothing to evict or read (reading a sysfs file can reach a device).
            record.residency = noPageCacheResidency(record.size);
            record.evict.pages = record.residency.pages;
            record.load.pages = record.residency.pages;
            ++progress.filesDone;
            addFileToTotals(total, record.size, record.residency);
            named.push_back(std::move(record));
            continue;
        }
        if (evict) {
            if (!mapped) {
                mapped = MappedFiles::scan();
            }
            record.evict = evictDescriptor(fd.get(), st, options.evictOptions, mapped.get());
        } else {
            LoadOptions loadOptions = options.loadOptions;
            loadOptions.cancel = &interruptFlag();
            const uint64_t base = progress.bytesDone.load();
            loadOptions.progress = [&progress, base](uint64_t done) {
                progress.bytesDone = base + done;
            };
            record.load = loadDescriptor(fd.get(), st, loadOptions);
        }
        ++progress.filesDone;
        const int error = evict ? record.evict.error : record.load.error;
        if (error != 0) {
            const std::string &text = evict ? record.evict.errorText : record.load.errorText;
            context.fail(path, text.empty() ? errnoText(error) : text);
            continue;
        }
        const bool hidden = evict ? record.evict.hidden : record.load.hidden;
        total.files += 1;
        total.bytes += record.size;
        total.pages += record.residency.pages;
        if (hidden) {
            total.hiddenFiles += 1;
            total.hiddenPages += record.residency.pages;
        } else {
            total.resident += evict ? record.evict.before : record.load.before;
            total.residentAfter += evict ? record.evict.after : record.load.after;
            total.remained += evict && record.evict.after > 0 ? 1 : 0;
        }
        named.push_back(std::move(record));
    }
    return named;
}

} // namespace

Table<FileRecord>
actionFileTable(const ActionFigures &figures, const std::vector<Column<FileRecord>> &more, std::function<void(std::string &out, const FileRecord &)> linesBelow)
{
    const auto shown = [hidden = figures.hidden](const FileRecord &r) {
        return !hidden(r);
    };
    const auto pagesColumn = [&](const char *header, const char *key, const char *help, uint64_t (*pages)(const FileRecord &)) {
        return Column<FileRecord>{.header = header,
                                  .key = key,
                                  .width = 10,
                                  .format = Format::Pages,
                                  .help = help,
                                  .value =
                                      [pages](const FileRecord &r) {
                                          return countCell(pages(r));
                                      },
                                  .inJson = shown,
                                  .spanned = true};
    };
    Table<FileRecord> table;
    table.columns = fileHeadColumns(nullptr, figures.hidden);
    table.columns.push_back(pagesColumn("BEFORE", "before", "resident pages before (of the range)", figures.before));
    table.columns.push_back(pagesColumn("AFTER", "after", "resident pages after", figures.after));
    table.columns.push_back({.header = "PAGES",
                             .width = 21,
                             .format = Format::Text,
                             .help = "resident pages after, of the pages of the range",
                             .value =
                                 [figures](const FileRecord &r) {
                                     return textCell(std::to_string(figures.after(r)) + '/' + std::to_string(figures.pages(r)));
                                 },
                             .spanned = true});
    table.columns.push_back(pagesColumn(figures.changeHeader, figures.changeKey, figures.changeHelp, figures.change));
    table.columns.insert(table.columns.end(), more.begin(), more.end());
    table.span = [figures](const FileRecord &r) -> std::optional<std::string> {
        if (!figures.hidden(r)) {
            return std::nullopt;
        }
        return hiddenText(r.residency.hiddenReason) + figures.doneText;
    };
    table.linesBelow = std::move(linesBelow);
    return table;
}

int runFileAction(Context &context, const ParsedArgs &args, FileAction action, const Table<FileRecord> &files)
{
    int exitCode = ExitSuccess;
    WalkOptions options;
    uint64_t offset = 0;
    uint64_t length = 0;
    if (!walkOptionsFrom(args, options, exitCode) || !bytesOption(args, "offset", offset, exitCode) || !bytesOption(args, "length", length, exitCode)
        || !loadMethodOption(args, options.loadOptions, exitCode)) {
        return exitCode;
    }
    const bool evict = action == FileAction::Evict;
    const bool verbose = args.has("verbose");
    options.action = action;
    options.evictOptions.flushDirtyFirst = args.has("flush");
    options.evictOptions.offset = offset;
    options.evictOptions.length = length;
    options.loadOptions.offset = offset;
    options.loadOptions.length = length;

    std::vector<std::string> namedFiles;
    std::vector<std::string> roots;
    for (const std::string &path : args.positional) {
        switch (classify(context, path, options.filter)) {
        case ArgumentKind::Folder:
            roots.push_back(path);
            break;
        case ArgumentKind::File:
            namedFiles.push_back(path);
            break;
        case ArgumentKind::Missing:
        case ArgumentKind::Special:
        case ArgumentKind::LeftOut:
            break;
        }
    }

    ActionProgress progress;
    ProgressLine progressLine([&]() {
        uint64_t entries = progress.filesDone.load();
        uint64_t bytes = progress.bytesDone.load();
        if (Walker *walker = progress.runningWalker.load()) {
            entries += walker->entriesSeen();
            bytes += walker->bytesSeen();
        }
        return std::string(evict ? "evicting: " : "loading: ") + std::to_string(entries) + " entries, " + sizeText(bytes, false);
    });

    WalkTotals total;
    total.filtered = context.leftOut.load();
    const std::vector<FileRecord> named = actOnNamedFiles(context, namedFiles, options, progress, total);

    WalkResult result;
    std::vector<FileRecord> walked;
    if (!roots.empty() && !interrupted()) {
        Walker walker(options);
        std::mutex walkedMutex;
        walker.setProblemCallback([&context](const WalkProblem &problem) {
            context.addWalkProblem(problem);
        });
        walker.setEntryCallback([&](const WalkEntry &entry) {
            if (entry.kind != EntryKind::File) {
                return;
            }
            FileRecord record = recordOf(entry);
            if (!wantsRow(record, action, verbose)) {
                return;
            }
            const std::lock_guard lock(walkedMutex);
            walked.push_back(std::move(record));
        });
        progress.runningWalker = &walker;
        {
            const CancelScope scope(&walker);
            result = walker.walk(roots);
        }
        progress.runningWalker = nullptr;
        sortRecords(walked);
        total.add(result.total);
    }
    progressLine.stop();

    const TotalsRows totals(roots, result, total);
    const WalkReport report{evict ? "evict" : "load", false, result.cancelled || interrupted(), &named, &walked, &totals};
    if (report.cancelled) {
        qCDebug(CACHESCOPE_CLI) << report.command << "interrupted";
    }
    return printWalkReport(context, files, actionTotalsTable(action), report);
}

} // namespace Cachescope::Cli
