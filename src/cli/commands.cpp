// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "commands.h"
#include "experimentcommand.h"

#include "evict.h"
#include "load.h"
#include "pathcodec.h"
#include "procfs.h"
#include "residency.h"
#include "snapshot.h"
#include "top.h"
#include "walker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <functional>
#include <mutex>
#include <thread>

using namespace Cachescope;

namespace Cli
{

namespace
{

// One file as the commands print it, from a path named on the command line
// (root == -1) or from a walk.
struct FileRecord {
    std::string path;
    int root = -1;
    uint64_t size = 0;
    bool firstLink = true;
    Residency residency;
    Histogram histogram;
    EvictReport evict;
    LoadReport load;
};

PrivilegedResidency privilegedResidencyFunction = nullptr;

bool privilegedResidency(const std::vector<int> &fds, int buckets, std::vector<Residency> &residencies, std::vector<Histogram> &histograms, std::string &error)
{
    if (!privilegedResidencyFunction) {
        error = "the privileged helper is not reachable from this program";
        return false;
    }
    return privilegedResidencyFunction(fds, buckets, residencies, histograms, error);
}

void sortRecords(std::vector<FileRecord> &records)
{
    std::sort(records.begin(), records.end(), [](const FileRecord &a, const FileRecord &b) {
        return a.root != b.root ? a.root < b.root : a.path < b.path;
    });
}

FileRecord recordOf(const WalkEntry &entry)
{
    FileRecord record;
    record.path = entry.path();
    record.root = entry.root;
    record.size = entry.size;
    record.firstLink = entry.firstLink;
    record.residency = entry.residency;
    record.histogram = entry.histogram;
    record.evict = entry.evict;
    record.load = entry.load;
    return record;
}

std::string_view commandName(const ParsedArgs &args)
{
    return args.command;
}

// Reads an optional whole-number option; false after a usage error.
bool countOption(const ParsedArgs &args, const char *name, uint64_t minimum, uint64_t maximum, uint64_t &value, int &exitCode)
{
    const std::optional<std::string> text = args.value(name);
    if (!text) {
        return true;
    }
    const std::optional<uint64_t> number = parseCount(*text);
    if (!number || *number < minimum || *number > maximum) {
        exitCode =
            usageError(commandName(args),
                       std::string("--") + name + ": '" + *text + "' is not a whole number from " + std::to_string(minimum) + " to " + std::to_string(maximum));
        return false;
    }
    value = *number;
    return true;
}

bool bytesOption(const ParsedArgs &args, const char *name, uint64_t &value, int &exitCode)
{
    const std::optional<std::string> text = args.value(name);
    if (!text) {
        return true;
    }
    const std::optional<uint64_t> number = parseBytes(*text);
    if (!number) {
        exitCode = usageError(commandName(args), std::string("--") + name + ": '" + *text + "' is not a byte count (examples: 4096, 64K, 1.5M, 2G)");
        return false;
    }
    value = *number;
    return true;
}

// -L, -x, -j, --mincore: shared by every command that walks.
bool walkOptionsFrom(const ParsedArgs &args, WalkOptions &options, int &exitCode)
{
    options.followSymlinks = args.has("follow");
    options.oneFileSystem = args.has("one-file-system");
    options.residencyOptions.forceMincore = args.has("mincore");
    uint64_t threads = 0;
    if (!countOption(args, "threads", 1, 256, threads, exitCode)) {
        return false;
    }
    options.threads = int(threads);
    return true;
}

enum class ArgumentKind : uint8_t {
    Missing, // reported already
    File,
    Folder,
    Special, // reported already, as skipped
};

// Looks at a path named on the command line (following a symlink: the user named it).
ArgumentKind classify(Context &context, const std::string &path)
{
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
        context.fail(path, std::strerror(errno));
        return ArgumentKind::Missing;
    }
    if (S_ISDIR(st.st_mode)) {
        return ArgumentKind::Folder;
    }
    if (S_ISREG(st.st_mode)) {
        return ArgumentKind::File;
    }
    context.skip(path, std::string(kindName(kindOfMode(st.st_mode))) + ": skipped, never opened");
    return ArgumentKind::Special;
}

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

std::string pagesSize(uint64_t pages, bool raw)
{
    return sizeText(pages * pageSize(), raw);
}

void appendRecordHeadJson(std::string &json, const FileRecord &record)
{
    Cachescope::appendJsonPath(json, record.path);
    json += ',';
    appendJsonNumber(json, "size", record.size);
    json += ',';
    appendJsonNumber(json, "pages", std::max(record.residency.pages, pagesFor(record.size)));
    if (!record.firstLink) {
        json += ",\"first_link\":false";
    }
}

void appendHiddenJson(std::string &json, bool hidden, const std::string &reason)
{
    json += ',';
    appendJsonBool(json, "hidden", hidden);
    if (hidden) {
        json += ',';
        appendJsonText(json, "hidden_reason", reason.empty() ? std::string("the kernel hides this file's residency") : reason);
    }
}

std::string hiddenText(const std::string &reason)
{
    return "hidden (" + (reason.empty() ? std::string("the kernel hides this file's residency") : reason) + ")";
}

// ---------------------------------------------------------------- status

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

void appendStatusHeader(std::string &out)
{
    out += padLeft("SIZE", 10) + ' ' + padLeft("RESIDENT", 10) + ' ' + padLeft("PAGES", 21) + ' ' + padLeft("CACHED", 7) + ' ' + padLeft("DIRTY", 10) + ' '
        + padLeft("WRITEBACK", 10) + ' ' + padLeft("EVICTED", 10) + "  " + padRight("METHOD", 9) + "  PATH\n";
}

void appendStatusRow(const Context &context, std::string &out, const FileRecord &record, bool heatmap, bool ascii)
{
    const Residency &r = record.residency;
    out += padLeft(sizeText(record.size, context.rawBytes), 10);
    out += ' ';
    if (r.hidden) {
        out += hiddenText(r.hiddenReason);
    } else {
        out += padLeft(pagesSize(r.resident, context.rawBytes), 10) + ' ';
        out += padLeft(std::to_string(r.resident) + '/' + std::to_string(r.pages), 21) + ' ';
        out += padLeft(percentText(r.resident, r.pages), 7) + ' ';
        if (r.detail) {
            out += padLeft(pagesSize(r.dirty, context.rawBytes), 10) + ' ';
            out += padLeft(pagesSize(r.writeback, context.rawBytes), 10) + ' ';
            out += padLeft(pagesSize(r.evicted, context.rawBytes), 10);
        } else {
            out += padLeft("-", 10) + ' ' + padLeft("-", 10) + ' ' + padLeft("-", 10);
        }
        out += "  ";
        out += padRight(methodName(r.method), 9);
    }
    out += "  ";
    out += record.path;
    out += '\n';
    if (heatmap) {
        out += "  ";
        if (r.hidden || record.histogram.hidden) {
            out += "hidden";
        } else {
            out += '|' + heatmapCells(record.histogram, ascii) + '|';
        }
        out += '\n';
    }
}

void appendStatusFileJson(std::string &json, const FileRecord &record, bool withHistogram)
{
    const Residency &r = record.residency;
    json += '{';
    appendRecordHeadJson(json, record);
    appendHiddenJson(json, r.hidden, r.hiddenReason);
    if (!r.hidden) {
        json += ',';
        appendJsonNumber(json, "resident", r.resident);
        json += ',';
        appendJsonNumber(json, "resident_bytes", r.resident * pageSize());
        json += ",\"cached_percent\":";
        appendJsonPercent(json, r.resident, r.pages);
        json += ",\"method\":\"";
        json += methodName(r.method);
        json += '"';
        if (r.detail) {
            json += ',';
            appendJsonNumber(json, "dirty", r.dirty);
            json += ',';
            appendJsonNumber(json, "writeback", r.writeback);
            json += ',';
            appendJsonNumber(json, "evicted", r.evicted);
            json += ',';
            appendJsonNumber(json, "recently_evicted", r.recentlyEvicted);
        }
        if (withHistogram && !record.histogram.hidden) {
            const Histogram &h = record.histogram;
            json += ",\"histogram\":{\"pages\":[";
            for (int bucket = 0; bucket < h.buckets(); ++bucket) {
                json += bucket ? "," : "";
                json += std::to_string(h.pagesIn(bucket));
            }
            json += "],\"resident\":[";
            for (int bucket = 0; bucket < h.buckets(); ++bucket) {
                json += bucket ? "," : "";
                json += std::to_string(h.resident[size_t(bucket)]);
            }
            json += ']';
            if (h.detail) {
                json += ",\"dirty\":[";
                for (size_t bucket = 0; bucket < h.dirty.size(); ++bucket) {
                    json += bucket ? "," : "";
                    json += std::to_string(h.dirty[bucket]);
                }
                json += "],\"writeback\":[";
                for (size_t bucket = 0; bucket < h.writeback.size(); ++bucket) {
                    json += bucket ? "," : "";
                    json += std::to_string(h.writeback[bucket]);
                }
                json += ']';
            }
            json += '}';
        }
    }
    json += '}';
}

struct RootRow {
    std::string path;
    WalkTotals totals;
};

void appendStatusRootsTable(const Context &context, std::string &out, const std::vector<RootRow> &rows, ResidencyMethod method)
{
    out += padLeft("FILES", 9) + ' ' + padLeft("FOLDERS", 8) + ' ' + padLeft("SIZE", 10) + ' ' + padLeft("RESIDENT", 10) + ' ' + padLeft("CACHED", 7) + ' '
        + padLeft("DIRTY", 10) + ' ' + padLeft("WRITEBACK", 10) + ' ' + padLeft("HIDDEN", 7) + ' ' + padLeft("SKIPPED", 7) + ' ' + padLeft("ERRORS", 7)
        + "  PATH\n";
    const bool detail = method == ResidencyMethod::Cachestat;
    for (const RootRow &row : rows) {
        const WalkTotals &t = row.totals;
        out += padLeft(std::to_string(t.files), 9) + ' ' + padLeft(std::to_string(t.directories), 8) + ' ' + padLeft(sizeText(t.bytes, context.rawBytes), 10)
            + ' ' + padLeft(pagesSize(t.resident, context.rawBytes), 10) + ' ' + padLeft(percentText(t.resident, t.pages - std::min(t.pages, t.hiddenPages)), 7)
            + ' ' + padLeft(detail ? pagesSize(t.dirty, context.rawBytes) : std::string("-"), 10) + ' '
            + padLeft(detail ? pagesSize(t.writeback, context.rawBytes) : std::string("-"), 10) + ' ' + padLeft(std::to_string(t.hiddenFiles), 7) + ' '
            + padLeft(std::to_string(t.skipped), 7) + ' ' + padLeft(std::to_string(t.errors), 7) + "  " + row.path + '\n';
    }
}

void appendRootsJson(std::string &json, const std::vector<RootRow> &rows, TotalsFields fields, ResidencyMethod method)
{
    json += "\"roots\":[";
    for (size_t i = 0; i < rows.size(); ++i) {
        json += i ? ",{" : "{";
        Cachescope::appendJsonPath(json, rows[i].path);
        json += ',';
        if (fields == TotalsFields::Status) {
            json += "\"method\":\"";
            json += methodName(method);
            json += "\",";
        }
        appendTotalsJson(json, rows[i].totals, fields);
        json += '}';
    }
    json += ']';
}

// Opens a file named on the command line; -1 after reporting why not.
int openNamedFile(Context &context, const std::string &path, struct stat &st)
{
    int error = 0;
    std::string errorText;
    const int fd = openRegularFile(AT_FDCWD, path.c_str(), false, st, error, errorText).release();
    if (fd < 0) {
        context.fail(path, errorText.empty() ? std::string(std::strerror(error ? error : EIO)) : errorText);
    }
    return fd;
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
    const bool ascii = args.has("ascii");
    const bool privileged = args.has("privileged");
    if (privileged && recursive) {
        return usageError("status", "--privileged takes files, not folders (-r)");
    }
    options.action = FileAction::Residency;
    options.histogramBuckets = verbose ? int(cells) : 0;
    // --privileged: the descriptors we open are handed to the helper, which
    // reads residency as root; we never pass it a path (helper-security.md).
    std::vector<int> privilegedFds;

    std::vector<FileRecord> named;
    std::vector<std::string> roots;
    for (const std::string &path : args.positional) {
        switch (classify(context, path)) {
        case ArgumentKind::Folder:
            if (recursive) {
                roots.push_back(path);
            } else {
                context.fail(path, "is a folder: use -r");
            }
            break;
        case ArgumentKind::File: {
            struct stat st;
            const int fd = openNamedFile(context, path, st);
            if (fd < 0) {
                break;
            }
            FileRecord record;
            record.path = path;
            record.size = uint64_t(st.st_size);
            if (privileged) {
                privilegedFds.push_back(fd);
                named.push_back(std::move(record));
                break;
            }
            record.residency = residencyOfDescriptor(fd, st, options.residencyOptions);
            if (cells > 0 && record.residency.ok()) {
                record.histogram = histogramOfDescriptor(fd, st, int(cells), options.residencyOptions);
            }
            ::close(fd);
            if (!record.residency.ok()) {
                context.fail(path, record.residency.errorText);
                break;
            }
            named.push_back(std::move(record));
            break;
        }
        case ArgumentKind::Missing:
        case ArgumentKind::Special:
            break;
        }
    }

    if (!privilegedFds.empty()) {
        std::vector<Residency> residencies;
        std::vector<Histogram> histograms;
        std::string error;
        const bool ok = privilegedResidency(privilegedFds, int(cells), residencies, histograms, error);
        for (const int fd : privilegedFds) {
            ::close(fd);
        }
        if (!ok) {
            for (const FileRecord &record : named) {
                context.fail(record.path, error);
            }
            named.clear();
        } else {
            for (size_t i = 0; i < named.size() && i < residencies.size(); ++i) {
                named[i].residency = std::move(residencies[i]);
                if (i < histograms.size()) {
                    named[i].histogram = std::move(histograms[i]);
                }
            }
        }
    }

    WalkResult result;
    std::vector<FileRecord> walked;
    if (!roots.empty()) {
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
    }

    std::vector<RootRow> rootRows;
    WalkTotals total = result.total;
    for (const FileRecord &record : named) {
        addFileToTotals(total, record.size, record.residency);
    }
    for (size_t i = 0; i < roots.size(); ++i) {
        rootRows.push_back(RootRow{roots[i], i < result.perRoot.size() ? result.perRoot[i] : WalkTotals{}});
    }
    const bool cancelled = result.cancelled || interrupted();

    std::string &out = context.out.buffer;
    if (context.json) {
        out += "{\"command\":\"status\",";
        if (privileged) {
            out += "\"privileged\":true,";
        }
        appendJsonNumber(out, "page_size", pageSize());
        out += ',';
        appendJsonBool(out, "cancelled", cancelled);
        out += ",\"files\":[";
        bool first = true;
        for (const std::vector<FileRecord> *list : {&named, &walked}) {
            for (const FileRecord &record : *list) {
                out += first ? "" : ",";
                first = false;
                appendStatusFileJson(out, record, cells > 0);
                context.out.flushIfLarge();
            }
        }
        out += "],";
        appendRootsJson(out, rootRows, TotalsFields::Status, result.method);
        out += ",\"total\":{";
        appendTotalsJson(out, total, TotalsFields::Status);
        out += "},";
        context.appendProblemsJson(out);
        out += "}\n";
    } else {
        if (!named.empty() || !walked.empty()) {
            appendStatusHeader(out);
            for (const std::vector<FileRecord> *list : {&named, &walked}) {
                for (const FileRecord &record : *list) {
                    appendStatusRow(context, out, record, cells > 0, ascii);
                    context.out.flushIfLarge();
                }
            }
        }
        if (!rootRows.empty()) {
            if (!named.empty() || !walked.empty()) {
                out += '\n';
            }
            if (rootRows.size() > 1 || !named.empty()) {
                rootRows.push_back(RootRow{"total", total});
            }
            appendStatusRootsTable(context, out, rootRows, result.method);
        }
    }
    if (cancelled) {
        context.out.flush(); // the partial figures first, then the word that they are partial
        printError("interrupted: the totals above are partial");
        return interruptExitCode();
    }
    return context.anyFailed() ? ExitFailures : ExitSuccess;
}

// ---------------------------------------------------------------- evict and load

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

void appendActionHeader(std::string &out, FileAction action)
{
    out += padLeft("BEFORE", 10) + ' ' + padLeft("AFTER", 10) + ' ' + padLeft(action == FileAction::Evict ? "FREED" : "LOADED", 10) + "  PATH\n";
}

void appendActionRow(const Context &context, std::string &out, const FileRecord &record, FileAction action)
{
    const bool evict = action == FileAction::Evict;
    const bool hidden = evict ? record.evict.hidden : record.load.hidden;
    const uint64_t before = evict ? record.evict.before : record.load.before;
    const uint64_t after = evict ? record.evict.after : record.load.after;
    if (hidden) {
        out += hiddenText(record.residency.hiddenReason) + (evict ? ": evicted, counts unknown" : ": loaded, counts unknown");
    } else {
        const uint64_t change = evict ? (before > after ? before - after : 0) : (after > before ? after - before : 0);
        out += padLeft(pagesSize(before, context.rawBytes), 10) + ' ' + padLeft(pagesSize(after, context.rawBytes), 10) + ' '
            + padLeft(pagesSize(change, context.rawBytes), 10);
    }
    out += "  ";
    out += record.path;
    out += '\n';
    if (evict && !hidden && after > 0) {
        out += "            " + std::to_string(after) + " pages stayed: " + remainReasonText(record.evict.reason) + '\n';
    }
    if (!evict && record.load.truncated) {
        out += "            the file shrank while it was read\n";
    }
}

void appendActionFileJson(std::string &json, const FileRecord &record, FileAction action)
{
    const bool evict = action == FileAction::Evict;
    const bool hidden = evict ? record.evict.hidden : record.load.hidden;
    json += '{';
    appendRecordHeadJson(json, record);
    appendHiddenJson(json, hidden, record.residency.hiddenReason);
    if (evict) {
        if (!hidden) {
            json += ',';
            appendJsonNumber(json, "before", record.evict.before);
            json += ',';
            appendJsonNumber(json, "after", record.evict.after);
            json += ',';
            appendJsonNumber(json, "freed", record.evict.freedPages());
            json += ',';
            appendJsonNumber(json, "dirty_after", record.evict.dirtyAfter);
        }
        json += ",\"remain_reason\":\"";
        json += remainReasonName(record.evict.reason);
        json += '"';
        if (record.evict.reason != RemainReason::None) {
            json += ',';
            appendJsonText(json, "remain_text", remainReasonText(record.evict.reason));
        }
    } else {
        if (!hidden) {
            json += ',';
            appendJsonNumber(json, "before", record.load.before);
            json += ',';
            appendJsonNumber(json, "after", record.load.after);
        }
        json += ',';
        appendJsonNumber(json, "bytes_requested", record.load.bytesRequested);
        json += ',';
        appendJsonNumber(json, "bytes_done", record.load.bytesDone);
        json += ',';
        appendJsonBool(json, "truncated", record.load.truncated);
        json += ',';
        appendJsonBool(json, "cancelled", record.load.cancelled);
    }
    json += '}';
}

void appendActionRootsTable(const Context &context, std::string &out, const std::vector<RootRow> &rows, FileAction action)
{
    const bool evict = action == FileAction::Evict;
    out += padLeft("FILES", 9) + ' ' + padLeft("BEFORE", 10) + ' ' + padLeft("AFTER", 10) + ' ' + padLeft(evict ? "FREED" : "LOADED", 10) + ' '
        + (evict ? padLeft("REMAINED", 8) + ' ' : std::string()) + padLeft("HIDDEN", 7) + ' ' + padLeft("SKIPPED", 7) + ' ' + padLeft("ERRORS", 7) + "  PATH\n";
    for (const RootRow &row : rows) {
        const WalkTotals &t = row.totals;
        const uint64_t change =
            evict ? (t.resident > t.residentAfter ? t.resident - t.residentAfter : 0) : (t.residentAfter > t.resident ? t.residentAfter - t.resident : 0);
        out += padLeft(std::to_string(t.files), 9) + ' ' + padLeft(pagesSize(t.resident, context.rawBytes), 10) + ' '
            + padLeft(pagesSize(t.residentAfter, context.rawBytes), 10) + ' ' + padLeft(pagesSize(change, context.rawBytes), 10) + ' '
            + (evict ? padLeft(std::to_string(t.remained), 8) + ' ' : std::string()) + padLeft(std::to_string(t.hiddenFiles), 7) + ' '
            + padLeft(std::to_string(t.skipped), 7) + ' ' + padLeft(std::to_string(t.errors), 7) + "  " + row.path + '\n';
    }
}

int runAction(Context &context, const ParsedArgs &args, FileAction action)
{
    int exitCode = ExitSuccess;
    WalkOptions options;
    uint64_t offset = 0;
    uint64_t length = 0;
    if (!walkOptionsFrom(args, options, exitCode) || !bytesOption(args, "offset", offset, exitCode) || !bytesOption(args, "length", length, exitCode)) {
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
    if (const std::optional<std::string> method = args.value("method")) {
        if (*method == "readahead") {
            options.loadOptions.method = LoadMethod::Readahead;
        } else if (*method == "read") {
            options.loadOptions.method = LoadMethod::Read;
        } else {
            return usageError(commandName(args), "--method: '" + *method + "' is neither 'readahead' nor 'read'");
        }
    }

    std::vector<std::string> files;
    std::vector<std::string> roots;
    for (const std::string &path : args.positional) {
        switch (classify(context, path)) {
        case ArgumentKind::Folder:
            roots.push_back(path);
            break;
        case ArgumentKind::File:
            files.push_back(path);
            break;
        case ArgumentKind::Missing:
        case ArgumentKind::Special:
            break;
        }
    }

    std::atomic<uint64_t> filesDone{0};
    std::atomic<uint64_t> bytesDone{0};
    std::atomic<Walker *> runningWalker{nullptr};
    ProgressLine progress([&]() {
        uint64_t files = filesDone.load();
        uint64_t bytes = bytesDone.load();
        if (Walker *walker = runningWalker.load()) {
            files += walker->entriesSeen();
            bytes += walker->bytesSeen();
        }
        return std::string(evict ? "evicting: " : "loading: ") + std::to_string(files) + " entries, " + sizeText(bytes, false);
    });

    std::vector<FileRecord> named;
    WalkTotals total;
    {
        const CancelScope scope;
        std::shared_ptr<const MappedFiles> mapped;
        for (const std::string &path : files) {
            if (interrupted()) {
                break;
            }
            struct stat st;
            const int fd = openNamedFile(context, path, st);
            if (fd < 0) {
                continue;
            }
            FileRecord record;
            record.path = path;
            record.size = uint64_t(st.st_size);
            record.residency.hiddenReason = hiddenReasonFor(st, fd);
            record.residency.hidden = !record.residency.hiddenReason.empty();
            record.residency.pages = pagesFor(record.size);
            if (evict) {
                if (!mapped) {
                    mapped = MappedFiles::scan();
                }
                record.evict = evictDescriptor(fd, st, options.evictOptions, mapped.get());
            } else {
                LoadOptions loadOptions = options.loadOptions;
                loadOptions.cancel = &interruptFlag();
                const uint64_t base = bytesDone.load();
                loadOptions.progress = [&bytesDone, base](uint64_t done) {
                    bytesDone = base + done;
                };
                record.load = loadDescriptor(fd, st, loadOptions);
            }
            ::close(fd);
            ++filesDone;
            const int error = evict ? record.evict.error : record.load.error;
            if (error != 0) {
                const std::string &text = evict ? record.evict.errorText : record.load.errorText;
                context.fail(path, text.empty() ? std::string(std::strerror(error)) : text);
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
    }

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
        runningWalker = &walker;
        {
            const CancelScope scope(&walker);
            result = walker.walk(roots);
        }
        runningWalker = nullptr;
        sortRecords(walked);
        total.add(result.total);
    }
    progress.stop();

    std::vector<RootRow> rootRows;
    for (size_t i = 0; i < roots.size(); ++i) {
        rootRows.push_back(RootRow{roots[i], i < result.perRoot.size() ? result.perRoot[i] : WalkTotals{}});
    }
    const bool cancelled = result.cancelled || interrupted();
    const TotalsFields fields = evict ? TotalsFields::Evict : TotalsFields::Load;

    std::string &out = context.out.buffer;
    if (context.json) {
        out += evict ? "{\"command\":\"evict\"," : "{\"command\":\"load\",";
        appendJsonNumber(out, "page_size", pageSize());
        out += ',';
        appendJsonBool(out, "cancelled", cancelled);
        out += ",\"files\":[";
        bool first = true;
        for (const std::vector<FileRecord> *list : {&named, &walked}) {
            for (const FileRecord &record : *list) {
                out += first ? "" : ",";
                first = false;
                appendActionFileJson(out, record, action);
                context.out.flushIfLarge();
            }
        }
        out += "],";
        appendRootsJson(out, rootRows, fields, result.method);
        out += ",\"total\":{";
        appendTotalsJson(out, total, fields);
        out += "},";
        context.appendProblemsJson(out);
        out += "}\n";
    } else {
        if (!named.empty() || !walked.empty()) {
            appendActionHeader(out, action);
            for (const std::vector<FileRecord> *list : {&named, &walked}) {
                for (const FileRecord &record : *list) {
                    appendActionRow(context, out, record, action);
                    context.out.flushIfLarge();
                }
            }
        }
        if (!rootRows.empty()) {
            if (!named.empty() || !walked.empty()) {
                out += '\n';
            }
            if (rootRows.size() > 1 || !named.empty()) {
                rootRows.push_back(RootRow{"total", total});
            }
            appendActionRootsTable(context, out, rootRows, action);
        }
    }
    if (cancelled) {
        context.out.flush(); // the partial figures first, then the word that they are partial
        printError("interrupted: the totals above are partial");
        return interruptExitCode();
    }
    return context.anyFailed() ? ExitFailures : ExitSuccess;
}

int runEvict(Context &context, const ParsedArgs &args)
{
    return runAction(context, args, FileAction::Evict);
}

int runLoad(Context &context, const ParsedArgs &args)
{
    return runAction(context, args, FileAction::Load);
}

// ---------------------------------------------------------------- top

int runTop(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    WalkOptions options;
    uint64_t count = 20;
    if (!walkOptionsFrom(args, options, exitCode) || !countOption(args, "count", 1, 1000000, count, exitCode)) {
        return exitCode;
    }
    std::vector<std::string> roots;
    for (const std::string &path : args.positional) {
        const ArgumentKind kind = classify(context, path);
        if (kind == ArgumentKind::Folder || kind == ArgumentKind::File) {
            roots.push_back(path);
        }
    }
    TopResult result;
    if (!roots.empty()) {
        result = topCached(roots, size_t(count), options, [&context](const WalkProblem &problem) {
            context.addWalkProblem(problem);
        });
    }
    const WalkTotals &total = result.walk.total;
    std::string &out = context.out.buffer;
    if (context.json) {
        out += "{\"command\":\"top\",";
        appendJsonNumber(out, "page_size", pageSize());
        out += ",\"entries\":[";
        for (size_t i = 0; i < result.entries.size(); ++i) {
            const TopEntry &entry = result.entries[i];
            out += i ? ",{" : "{";
            appendJsonNumber(out, "rank", i + 1);
            out += ',';
            Cachescope::appendJsonPath(out, entry.path);
            out += ',';
            appendJsonNumber(out, "size", entry.size);
            out += ',';
            appendJsonNumber(out, "pages", entry.pages);
            out += ',';
            appendJsonNumber(out, "resident", entry.resident);
            out += ',';
            appendJsonNumber(out, "resident_bytes", entry.resident * pageSize());
            out += ",\"cached_percent\":";
            appendJsonPercent(out, entry.resident, entry.pages);
            out += ',';
            appendJsonNumber(out, "dirty", entry.dirty);
            out += '}';
        }
        out += "],\"total\":{";
        appendTotalsJson(out, total, TotalsFields::Status);
        out += "},";
        context.appendProblemsJson(out);
        out += "}\n";
    } else {
        out += padLeft("RANK", 5) + ' ' + padLeft("RESIDENT", 10) + ' ' + padLeft("CACHED", 7) + ' ' + padLeft("SIZE", 10) + ' ' + padLeft("DIRTY", 10)
            + "  PATH\n";
        for (size_t i = 0; i < result.entries.size(); ++i) {
            const TopEntry &entry = result.entries[i];
            out += padLeft(std::to_string(i + 1), 5) + ' ' + padLeft(pagesSize(entry.resident, context.rawBytes), 10) + ' '
                + padLeft(percentText(entry.resident, entry.pages), 7) + ' ' + padLeft(sizeText(entry.size, context.rawBytes), 10) + ' '
                + padLeft(pagesSize(entry.dirty, context.rawBytes), 10) + "  " + entry.path + '\n';
        }
        out += '\n' + std::to_string(total.files) + " files, " + pagesSize(total.resident, context.rawBytes) + " resident";
        if (total.hiddenFiles > 0) {
            out += "; " + std::to_string(total.hiddenFiles) + " files hidden by the kernel, not ranked (run as their owner or as root)";
        }
        out += '\n';
    }
    return context.anyFailed() ? ExitFailures : ExitSuccess;
}

// ---------------------------------------------------------------- meminfo

std::string utcNow()
{
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char text[40];
    const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
    std::snprintf(text + n, sizeof text - n, ".%03dZ", int(millis));
    return text;
}

bool appendMemInfo(Context &context, const std::string &procRoot)
{
    std::string error;
    const std::optional<MemInfo> info = readMemInfo(procRoot, &error);
    if (!info) {
        context.fail(procRoot + "/meminfo", error.empty() ? std::string("cannot read") : error);
        return false;
    }
    const FreeFigures f = freeFigures(*info);
    const uint64_t dirty = info->value("Dirty");
    const uint64_t writeback = info->value("Writeback");
    std::string &out = context.out.buffer;
    if (context.json) {
        out += "{\"command\":\"meminfo\",";
        appendJsonText(out, "time", utcNow());
        const std::pair<const char *, uint64_t> fields[] = {
            {"total", f.total},
            {"used", f.used},
            {"free", f.free},
            {"shared", f.shared},
            {"buffers", f.buffers},
            {"cache", f.cache},
            {"buff_cache", f.buffCache},
            {"available", f.available},
            {"swap_total", f.swapTotal},
            {"swap_used", f.swapUsed},
            {"swap_free", f.swapFree},
            {"dirty", dirty},
            {"writeback", writeback},
        };
        for (const auto &[name, value] : fields) {
            out += ',';
            appendJsonNumber(out, name, value);
        }
        out += "}\n";
        return true;
    }
    const bool raw = context.rawBytes;
    const size_t width = 12;
    out += padRight("", 7) + padLeft("total", width) + padLeft("used", width) + padLeft("free", width) + padLeft("shared", width) + padLeft("buff/cache", width)
        + padLeft("available", width) + '\n';
    out += padRight("Mem:", 7) + padLeft(sizeText(f.total, raw), width) + padLeft(sizeText(f.used, raw), width) + padLeft(sizeText(f.free, raw), width)
        + padLeft(sizeText(f.shared, raw), width) + padLeft(sizeText(f.buffCache, raw), width) + padLeft(sizeText(f.available, raw), width) + '\n';
    out += padRight("Swap:", 7) + padLeft(sizeText(f.swapTotal, raw), width) + padLeft(sizeText(f.swapUsed, raw), width)
        + padLeft(sizeText(f.swapFree, raw), width) + '\n';
    out += padRight("Dirty:", 7) + padLeft(sizeText(dirty, raw), width) + "   Writeback: " + sizeText(writeback, raw) + '\n';
    return true;
}

int runMemInfo(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    uint64_t count = 0;
    if (!countOption(args, "count", 1, UINT64_MAX / 2, count, exitCode)) {
        return exitCode;
    }
    double interval = 0;
    if (const std::optional<std::string> text = args.value("watch")) {
        const std::optional<double> seconds = parseSeconds(*text);
        if (!seconds) {
            return usageError(commandName(args), "--watch: '" + *text + "' is not a number of seconds greater than 0");
        }
        interval = *seconds;
    } else if (count > 0) {
        return usageError(commandName(args), "--count needs --watch SECONDS");
    }
    const std::string procRoot = args.value("proc").value_or("/proc");
    if (interval == 0) {
        return appendMemInfo(context, procRoot) ? ExitSuccess : ExitFailures;
    }
    const CancelScope scope;
    for (uint64_t round = 0; count == 0 || round < count; ++round) {
        if (round > 0 && !context.json) {
            context.out.buffer += '\n';
        }
        if (!appendMemInfo(context, procRoot)) {
            return ExitFailures;
        }
        context.out.flush(); // each sample as it is taken: someone is watching
        if ((count != 0 && round + 1 == count) || sleepUnlessInterrupted(interval)) {
            break;
        }
    }
    return interrupted() ? interruptExitCode() : ExitSuccess;
}

// ---------------------------------------------------------------- snapshot

std::optional<QByteArray> readWholeFile(Context &context, const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        context.fail(path, std::strerror(errno));
        return std::nullopt;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        context.fail(path, "not a regular file");
        ::close(fd);
        return std::nullopt;
    }
    QByteArray data;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            context.fail(path, std::strerror(errno));
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0) {
            break;
        }
        data.append(buffer, n);
    }
    ::close(fd);
    return data;
}

std::optional<Snapshot> readSnapshot(Context &context, const std::string &path)
{
    const std::optional<QByteArray> data = readWholeFile(context, path);
    if (!data) {
        return std::nullopt;
    }
    QString error;
    std::optional<Snapshot> snapshot = snapshotFromJson(*data, &error);
    if (!snapshot) {
        context.fail(path, "not a Cachescope snapshot: " + error.toStdString());
    }
    return snapshot;
}

// Writes next to the target and renames, so that an interrupted save never leaves half a snapshot.
bool writeWholeFile(Context &context, const std::string &path, const QByteArray &data)
{
    const std::string temporary = path + ".tmp-" + std::to_string(getpid());
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        context.fail(path, std::string("cannot write: ") + std::strerror(errno));
        return false;
    }
    const char *bytes = data.constData();
    size_t left = size_t(data.size());
    while (left > 0) {
        const ssize_t n = ::write(fd, bytes, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            context.fail(path, std::string("cannot write: ") + std::strerror(errno));
            ::close(fd);
            ::unlink(temporary.c_str());
            return false;
        }
        bytes += n;
        left -= size_t(n);
    }
    if (::close(fd) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) {
        context.fail(path, std::string("cannot write: ") + std::strerror(errno));
        ::unlink(temporary.c_str());
        return false;
    }
    return true;
}

uint64_t rangePages(const std::vector<PageRange> &ranges)
{
    uint64_t pages = 0;
    for (const PageRange &range : ranges) {
        pages += range.count;
    }
    return pages;
}

void appendRangesJson(std::string &json, const char *key, const std::vector<PageRange> &ranges)
{
    json += '"';
    json += key;
    json += "\":[";
    for (size_t i = 0; i < ranges.size(); ++i) {
        json += i ? ",[" : "[";
        json += std::to_string(ranges[i].first) + ',' + std::to_string(ranges[i].count) + ']';
    }
    json += ']';
}

int runSnapshotSave(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    WalkOptions options;
    if (!walkOptionsFrom(args, options, exitCode)) {
        return exitCode;
    }
    const std::string &file = args.positional.front();
    std::vector<std::string> roots;
    for (size_t i = 1; i < args.positional.size(); ++i) {
        const ArgumentKind kind = classify(context, args.positional[i]);
        if (kind == ArgumentKind::Folder || kind == ArgumentKind::File) {
            roots.push_back(args.positional[i]);
        }
    }
    if (roots.empty()) {
        printError("snapshot save: nothing to record; " + file + " not written");
        return ExitFailures;
    }
    const Snapshot snapshot = takeSnapshot(roots, options, [&context](const WalkProblem &problem) {
        context.addWalkProblem(problem);
    });
    if (!writeWholeFile(context, file, snapshotToJson(snapshot))) {
        return ExitFailures;
    }
    uint64_t pages = 0;
    for (const SnapshotFile &entry : snapshot.files) {
        pages += rangePages(entry.ranges);
    }
    std::string &out = context.out.buffer;
    if (context.json) {
        out += "{\"command\":\"snapshot save\",";
        Cachescope::appendJsonPath(out, file, "file");
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

int runSnapshotDiff(Context &context, const ParsedArgs &args)
{
    const std::optional<Snapshot> first = readSnapshot(context, args.positional[0]);
    const std::optional<Snapshot> second = readSnapshot(context, args.positional[1]);
    if (!first || !second) {
        return ExitFailures;
    }
    const SnapshotDiff diff = diffSnapshots(*first, *second);
    const uint64_t page = second->pageSize ? second->pageSize : pageSize();
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
            const SnapshotFileDiff &file = diff.files[i];
            out += i ? ",{" : "{";
            Cachescope::appendJsonPath(out, file.path);
            out += ',';
            appendJsonNumber(out, "loaded_pages", file.loadedPages());
            out += ',';
            appendJsonNumber(out, "evicted_pages", file.evictedPages());
            out += ',';
            appendJsonBool(out, "only_in_first", file.onlyInFirst);
            out += ',';
            appendJsonBool(out, "only_in_second", file.onlyInSecond);
            out += ',';
            appendRangesJson(out, "loaded", file.loaded);
            out += ',';
            appendRangesJson(out, "evicted", file.evicted);
            out += '}';
            context.out.flushIfLarge();
        }
        out += "]}\n";
    } else {
        out += padLeft("LOADED", 11) + ' ' + padLeft("EVICTED", 11) + "  PATH\n";
        for (const SnapshotFileDiff &file : diff.files) {
            out += padLeft('+' + sizeText(file.loadedPages() * page, context.rawBytes), 11) + ' '
                + padLeft('-' + sizeText(file.evictedPages() * page, context.rawBytes), 11) + "  " + file.path;
            if (file.onlyInFirst) {
                out += "  (only in the first snapshot)";
            } else if (file.onlyInSecond) {
                out += "  (only in the second snapshot)";
            }
            out += '\n';
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
        Cachescope::appendJsonPath(out, file, "file");
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

// ---------------------------------------------------------------- the table

const OptionSpec followOption{'L', "follow", nullptr, "follow symlinks (to files and folders) inside folders; loops are detected"};
const OptionSpec oneFileSystemOption{'x', "one-file-system", nullptr, "stay on the file system of each PATH"};
const OptionSpec threadsOption{'j', "threads", "N", "walk with N threads (default: one a core, at least 2)"};
const OptionSpec mincoreOption{0, "mincore", nullptr, "use mincore(2) even where cachestat(2) exists (no dirty/writeback figures)"};
const OptionSpec verboseOption{'v', "verbose", nullptr, "list every file found under a folder, not only the totals"};

std::vector<OptionSpec> withCommonOptions(std::vector<OptionSpec> options)
{
    options.push_back({0, "json", nullptr, "print one JSON document (schema: docs/cli.md)"});
    options.push_back({0, "bytes", nullptr, "print sizes as raw byte counts instead of KiB/MiB/GiB"});
    options.push_back({'h', "help", nullptr, "show this help"});
    return options;
}

} // namespace

int usageError(std::string_view command, std::string_view message)
{
    std::string text = "cachescope-cli: ";
    if (!command.empty()) {
        text += command;
        text += ": ";
    }
    text += message;
    text += "\nTry 'cachescope-cli ";
    if (!command.empty()) {
        text += command;
        text += ' ';
    }
    text += "--help'.\n";
    (void)!::write(STDERR_FILENO, text.data(), text.size());
    return ExitUsage;
}

namespace
{
std::vector<Command> &commandTable();
} // namespace

void setPrivilegedResidency(PrivilegedResidency function)
{
    privilegedResidencyFunction = function;
}

bool privilegedResidencyAvailable()
{
    return privilegedResidencyFunction != nullptr;
}

bool needsPrivilegedCompanion(const Command &command, const ParsedArgs &args)
{
    return !command.run || (std::string_view(command.spec.name) == "status" && args.has("privileged") && !privilegedResidencyFunction);
}

const std::vector<Command> &commands()
{
    return commandTable();
}

void setRunner(std::string_view name, int (*run)(Context &context, const ParsedArgs &args))
{
    for (Command &command : commandTable()) {
        if (name == command.spec.name) {
            command.run = run;
        }
    }
}

namespace
{
std::vector<Command> &commandTable()
{
    static std::vector<Command> table = {
        {{"status",
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
          withCommonOptions({{'r', "recursive", nullptr, "descend into folders"},
                             verboseOption,
                             {0, "pages", "N", "draw a heatmap of N cells under each file (' ' none, \u2591 \u2592 \u2593 some, \u2588 all)"},
                             {0, "ascii", nullptr, "heatmap with ASCII cells (' ' . o O #)"},
                             followOption,
                             oneFileSystemOption,
                             threadsOption,
                             mincoreOption,
                             {0, "privileged", nullptr, "ask the privileged helper (polkit) for files whose residency is hidden from you"}}),
          "  cachescope-cli status /var/log/syslog\n"
          "  cachescope-cli status --pages 60 big.iso\n"
          "  cachescope-cli status -r /usr            # one line of totals\n"
          "  cachescope-cli status -rv --json ~/src   # every file, as JSON\n"
          "  cachescope-cli status --privileged /usr/bin/bash   # hidden from you: ask root\n",
          1},
         runStatus},
        {{"evict",
          "PATH...",
          "drop files and folders (recursively) from the page cache",
          "Asks the kernel to drop the cached pages of each file (posix_fadvise\n"
          "DONTNEED); folders are walked recursively. Prints resident memory before\n"
          "and after for each file named, and for files under a folder only those\n"
          "where pages stayed (all with -v), with the reason they stayed: dirty\n"
          "(use --flush), mapped by a running process, or in memory-only storage\n"
          "(tmpfs). Then one line of totals a folder.\n"
          "\n"
          "Eviction also works on files whose residency is hidden from you; their\n"
          "counts show as hidden.",
          withCommonOptions({{0, "flush", nullptr, "fdatasync each file first, so that dirty pages can be dropped"},
                             {0, "offset", "BYTES", "start of the range in each file (default 0; suffixes K, M, G, T)"},
                             {0, "length", "BYTES", "length of the range (default: to the end of the file)"},
                             verboseOption,
                             followOption,
                             oneFileSystemOption,
                             threadsOption}),
          "  cachescope-cli evict big.iso\n"
          "  cachescope-cli evict --flush ~/build\n",
          1},
         runEvict},
        {{"load",
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
         runLoad},
        {{"top",
          "DIR...",
          "the files with the most pages in the page cache",
          "Walks the folders and lists the files with the most resident pages,\n"
          "most first. Files whose residency the kernel hides from you are counted\n"
          "in the summary, never ranked.",
          withCommonOptions({{'n', "count", "N", "how many files to list (default 20)"}, followOption, oneFileSystemOption, threadsOption, mincoreOption}),
          "  cachescope-cli top / -x -n 30\n",
          1},
         runTop},
        {{"meminfo",
          "",
          "memory totals as free(1) shows them, plus dirty and writeback",
          "Prints total, used, free, shared, buff/cache and available memory and\n"
          "swap, computed from /proc/meminfo the way procps free(1) does, plus the\n"
          "dirty data waiting to be written and the data being written back.",
          withCommonOptions({{0, "watch", "SECONDS", "repeat every SECONDS (fractions allowed) until interrupted"},
                             {0, "count", "N", "with --watch: stop after N samples"},
                             {0, "proc", "DIR", "read DIR/meminfo instead of /proc/meminfo"}}),
          "  cachescope-cli meminfo\n"
          "  cachescope-cli meminfo --watch 1 --json   # one JSON object a line\n",
          0,
          0},
         runMemInfo},
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
        // These need root: they go to the privileged helper through polkit,
        // from cachescope-cli-privileged (see setRunner).
        {{"drop-caches",
          "LEVEL",
          "drop clean caches (needs administrator rights)",
          "Writes LEVEL to /proc/sys/vm/drop_caches through Cachescope's privileged\n"
          "helper, after sync(): 1 (or pagecache) drops the page cache, 2 (or slab)\n"
          "the dentry and inode caches, 3 (or all) both. Dirty pages are not\n"
          "dropped. polkit asks for an administrator password first. Prints memory\n"
          "before and after. Meant for experiments: the cache makes a computer fast.",
          withCommonOptions({}),
          "  cachescope-cli drop-caches 1\n"
          "  cachescope-cli drop-caches all --json\n",
          1,
          1},
         nullptr},
        {{"swap off",
          "[AREA]",
          "turn swap off: one area or all (needs administrator rights)",
          "Turns off the swap area AREA (a device or file listed in /proc/swaps), or\n"
          "all of them without AREA, through the privileged helper. Refused up front\n"
          "when the swapped-out pages would not fit in memory. The helper records\n"
          "what it turned off, with its priority, so that 'swap on' restores it.",
          withCommonOptions({}),
          "  cachescope-cli swap off\n"
          "  cachescope-cli swap off /dev/vda3\n",
          0,
          1},
         nullptr},
        {{"swap on",
          "[AREA]",
          "turn swap back on (needs administrator rights)",
          "Turns on again the swap areas Cachescope turned off (all without AREA), with\n"
          "their old priorities, or an area /etc/fstab declares. Never any other file.",
          withCommonOptions({}),
          "  cachescope-cli swap on\n",
          0,
          1},
         nullptr},
        {{"swap create-file",
          "SIZE",
          "make and turn on an experiment swap file (needs administrator rights)",
          "Creates the experiment swap file /var/lib/cachescope/experiment.swap (16M\n"
          "to 4G, root only, mode 0600) and turns it on, for machines without swap.",
          withCommonOptions({}),
          "  cachescope-cli swap create-file 1G\n",
          1,
          1},
         nullptr},
        {{"swap remove-file",
          "",
          "turn off and delete the experiment swap file (needs administrator rights)",
          "Turns off and deletes the experiment swap file made by 'swap create-file'.",
          withCommonOptions({}),
          "  cachescope-cli swap remove-file\n",
          0,
          0},
         nullptr},
        // Runs here, or in cachescope-cli-privileged for its privileged variants.
        experimentCommand(),
    };
    return table;
}
} // namespace

} // namespace Cli
