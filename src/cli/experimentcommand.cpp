// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "experimentcommand.h"

#include "commandoptions.h"
#include "companion.h"
#include "interrupt.h"
#include "table.h"

#include "cachescope_cli_debug.h"
#include "experiments/engines.h"
#include "format.h"

#include <QFile>
#include <QJsonDocument>

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <mutex>
#include <unistd.h>

namespace Cachescope::Cli
{

using namespace Experiments;

namespace
{

// A function-local static: experimentprivileged.cpp sets it from a static
// initialiser, which may run before this file's.
PrivilegedSteps &privilegedSteps()
{
    static PrivilegedSteps steps;
    return steps;
}
bool privilegedStepsSet = false; // constant-initialised: safe at any time

const char *const experimentNames[] =
    {"cold-read", "pressure", "cold-start", "writeback", "faults", "replay", "folder-thrash", "drop-behind", "thrash-cliff", "shmem"};

// Which options each experiment takes (the common ones aside).
const std::vector<std::string> &optionsOf(const std::string &experiment)
{
    static const std::vector<std::string> none;
    static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
        {"cold-read", {"file", "folder", "size", "runs", "buffer", "drop-caches", "no-fadvise"}},
        {"pressure", {"file", "folder", "size", "runs", "limit", "step", "allow-oom", "without-swap", "no-with-swap", "whole-machine", "headroom"}},
        {"cold-start", {"runs", "timeout", "show-output", "drop-caches", "maps"}},
        {"writeback", {"folder", "size", "runs", "step", "wait", "timeout"}},
        {"faults", {"file", "folder", "size", "runs", "buffer", "cold-only", "warm-only"}},
        {"replay", {"trace", "runs", "timeout", "show-output", "no-check", "privileged"}},
        {"folder-thrash", {"folder", "files", "file-size", "limit", "runs"}},
        {"drop-behind", {"folder", "size", "limit", "runs", "reads-only", "writes-only"}},
        {"thrash-cliff", {"folder", "limit", "runs", "no-scan"}},
        {"shmem", {"folder", "size", "runs", "headroom", "no-pressure", "no-with-swap"}},
    };
    for (const auto &[name, options] : table) {
        if (name == experiment) {
            return options;
        }
    }
    return none;
}

std::string number(double value, int decimals = 3)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string formatValue(double value, const std::string &unit, bool raw)
{
    if (unit == "bytes") {
        return sizeText(uint64_t(std::max(0.0, value)), raw);
    }
    if (unit == "s") {
        return value < 0.1 && value > -0.1 ? number(value * 1000, 2) + " ms" : number(value, 3) + " s";
    }
    if (unit == "count" || unit == "pages") {
        return number(value, value == std::floor(value) ? 0 : 1);
    }
    if (unit == "percent") {
        return number(value, 1) + "%";
    }
    if (unit == "ratio") {
        return number(value, 2) + "x";
    }
    return number(value, 1) + ' ' + unit;
}

// The variants that need the helper run in cachescope-cli-privileged.
int runInCompanion(Context &context, const std::string &variantOption)
{
    return runInPrivilegedCompanion(context.arguments, "experiment: ", [&variantOption](const std::string &lookedFor) {
        return variantOption + " needs the privileged helper, through cachescope-cli-privileged (its client), which is not installed: " + lookedFor
            + ". Run without " + variantOption + ".";
    });
}

// A figure of the runs, in the unit of its measurement.
Column<Measurement> statisticColumn(const char *header, const char *help, double Statistics::*member, bool needsTwoRuns)
{
    return {.header = header,
            .width = 14,
            .help = help,
            .text =
                [member](const Measurement &m, bool raw) {
                    return formatValue(m.statistics.*member, m.unit, raw);
                },
            .inText = needsTwoRuns ? std::function<bool(const Measurement &)>([](const Measurement &m) {
                return m.statistics.count > 1;
            })
                                   : nullptr};
}

// The text table of a variant's measurements (the JSON is resultToJson's).
const Table<Measurement> &measurementTable()
{
    static const Table<Measurement> table = {
        .columns =
            {
                {.header = "MEASUREMENT",
                 .align = Align::Left,
                 .width = 26,
                 .format = Format::Text,
                 .help = "what was measured",
                 .value =
                     [](const Measurement &m) {
                         return textCell(m.name);
                     }},
                statisticColumn("MEAN", "mean of the runs", &Statistics::mean, false),
                statisticColumn("95% CI \u00b1", "half width of the 95% confidence interval of the mean", &Statistics::confidenceHalfWidth, true),
                statisticColumn("STDDEV", "sample standard deviation", &Statistics::standardDeviation, true),
                statisticColumn("MIN", "smallest value", &Statistics::minimum, false),
                statisticColumn("MAX", "largest value", &Statistics::maximum, false),
                {.header = "N",
                 .width = 4,
                 .help = "runs",
                 .value =
                     [](const Measurement &m) {
                         return countCell(uint64_t(m.statistics.count));
                     }},
            },
        .indent = "  ",
        .gap = "",
    };
    return table;
}

// The lesson's table: one line a file count and variant, like the seed's.
void appendFolderThrashText(const Context &context, std::string &out, const Result &result)
{
    const QJsonObject &details = result.details;
    const QJsonObject &parameters = result.parameters;
    out += "Folders: " + details.value(QStringLiteral("path")).toString().toStdString() + " (removed), files of "
        + sizeText(uint64_t(parameters.value(QStringLiteral("file_size")).toDouble()), context.rawBytes) + '\n';
    if (details.contains(QStringLiteral("cgroup"))) {
        const QJsonObject group = details.value(QStringLiteral("cgroup")).toObject();
        out += "Cgroup: " + group.value(QStringLiteral("path")).toString().toStdString() + " (v"
            + std::to_string(group.value(QStringLiteral("version")).toInt()) + ", limit "
            + sizeText(uint64_t(group.value(QStringLiteral("limit")).toDouble()), context.rawBytes) + ", made by "
            + group.value(QStringLiteral("how")).toString().toStdString() + ")\n";
    }
    bool any = false;
    for (const VariantResult &v : result.variants) {
        any = any || !v.skipped;
    }
    if (!any) {
        return;
    }
    const auto meanAndInterval = [](const VariantResult &v, const char *name, const std::function<std::string(double)> &text) -> std::string {
        const Measurement *m = v.find(name);
        if (!m) {
            return "unknown";
        }
        return m->statistics.count > 1 ? text(m->statistics.mean) + " \u00b1 " + text(m->statistics.confidenceHalfWidth) : text(m->statistics.mean);
    };
    const auto seconds = [](double value) {
        return number(value, 3) + " s";
    };
    const auto percent = [](double value) {
        return number(value, 1) + "%";
    };
    const auto count = [](double value) {
        return number(value, 0);
    };
    out += "\n  " + padLeft("FILES", 5) + "  " + padRight("VARIANT", 21) + padLeft("READ FOLDER 1", 20) + padLeft("CACHED BEFORE", 18)
        + padLeft("RECLAIMED PAGES", 20) + padLeft("REFAULTS", 16) + "  RUNS\n";
    for (const VariantResult &v : result.variants) {
        if (v.skipped) {
            continue;
        }
        const bool evict = v.details.value(QStringLiteral("evict_folder_2")).toBool();
        const Measurement *read = v.find("read_seconds");
        out += "  " + padLeft(std::to_string(v.details.value(QStringLiteral("files")).toInt()), 5) + "  "
            + padRight(evict ? folderThrashWithEviction : folderThrashWithoutEviction, 21) + padLeft(meanAndInterval(v, "read_seconds", seconds), 20)
            + padLeft(meanAndInterval(v, "folder1_cached", percent), 18) + padLeft(meanAndInterval(v, "folder1_reclaimed", count), 20)
            + padLeft(meanAndInterval(v, "cgroup_refaults", count), 16) + "  " + std::to_string(read ? read->statistics.count : 0) + '\n';
    }
    out +=
        "\n  READ FOLDER 1: mean \u00b1 95% confidence interval; CACHED BEFORE: folder 1's pages in the cache just before the read;\n"
        "  RECLAIMED PAGES: folder 1's pages the cgroup reclaimed (cachestat); REFAULTS: the cgroup's (cgroup v2 only)\n";
}

// The lesson's table: one line a way, each figure's mean (± the 95 %
// interval over several runs).
void appendDropBehindText(const Context &context, std::string &out, const Result &result)
{
    const QJsonObject &details = result.details;
    out += "Files: " + details.value(QStringLiteral("path")).toString().toStdString() + " (removed), the big one "
        + sizeText(uint64_t(result.parameters.value(QStringLiteral("size")).toDouble()), context.rawBytes) + ", the desktop's "
        + sizeText(uint64_t(result.parameters.value(QStringLiteral("desktop_size")).toDouble()), context.rawBytes) + '\n';
    if (details.contains(QStringLiteral("cgroup"))) {
        const QJsonObject group = details.value(QStringLiteral("cgroup")).toObject();
        out += "Cgroup: " + group.value(QStringLiteral("path")).toString().toStdString() + " (v"
            + std::to_string(group.value(QStringLiteral("version")).toInt()) + ", limit "
            + sizeText(uint64_t(group.value(QStringLiteral("limit")).toDouble()), context.rawBytes) + ")\n";
    }
    const auto mean = [](const VariantResult &v, const char *name, int decimals, const char *unit) -> std::string {
        const Measurement *m = v.find(name);
        if (!m) {
            return "unknown";
        }
        std::string text = number(m->statistics.mean, decimals);
        if (m->statistics.count > 1) {
            text += " \u00b1 " + number(m->statistics.confidenceHalfWidth, decimals);
        }
        return text + unit;
    };
    out += "\n  " + padRight("WAY", 20) + padLeft("SPEED", 20) + padLeft("FILE LEFT CACHED", 20) + padLeft("DESKTOP KEPT", 16) + "  RUNS\n";
    for (const VariantResult &v : result.variants) {
        if (v.skipped) {
            out += "  " + padRight(v.name, 20) + "  skipped: " + v.skipReason + '\n';
            continue;
        }
        const Measurement *seconds = v.find("seconds");
        out += "  " + padRight(v.name, 20) + padLeft(mean(v, "throughput", 0, " MiB/s"), 20) + padLeft(mean(v, "cache_left_percent", 1, " %"), 20)
            + padLeft(mean(v, "desktop_kept_percent", 1, " %"), 16) + "  " + std::to_string(seconds ? seconds->statistics.count : 0) + '\n';
    }
    out +=
        "\n  FILE LEFT CACHED: the big file's pages in the cache after the way ended; DESKTOP KEPT: the desktop's\n"
        "  pages still cached, of those cached before (all read just before, in the same cgroup)\n";
}

// Where the file went, and how each pressed cgroup ended; the variants'
// tables follow.
void appendShmemText(std::string &out, const Result &result)
{
    const QJsonObject &details = result.details;
    const QString how = details.value(QStringLiteral("tmpfs")).toString();
    out += "Tmpfs: " + details.value(QStringLiteral("folder")).toString().toStdString()
        + (how == QLatin1String("mounted")     ? " (mounted for the lesson, removed)"
               : how == QLatin1String("given") ? " (given)"
                                               : "")
        + '\n';
    if (details.contains(QStringLiteral("swap"))) {
        out += "Swap for the page-out: " + details.value(QStringLiteral("swap")).toString().toStdString() + '\n';
    }
    for (const VariantResult &v : result.variants) {
        if (v.details.contains(QStringLiteral("outcome"))) {
            out += v.name + ": " + v.details.value(QStringLiteral("outcome")).toString().toStdString() + '\n';
        }
    }
}

// The second part's table: one line a way A was read and B streamed.
void appendScanResistanceText(const Context &context, std::string &out, const Result &result)
{
    std::vector<const VariantResult *> scans;
    for (const VariantResult &v : result.variants) {
        if (v.details.contains(QStringLiteral("scan"))) {
            scans.push_back(&v);
        }
    }
    if (scans.empty()) {
        return;
    }
    const VariantResult &first = *scans.front();
    const auto bytes = [&context](const VariantResult &v, const char *name) -> std::string {
        const Measurement *m = v.find(name);
        return m ? sizeText(uint64_t(std::max(0.0, m->statistics.mean)), context.rawBytes) : "unknown";
    };
    out += "\nScan resistance: A (" + sizeText(uint64_t(first.details.value(QStringLiteral("first_bytes")).toDouble()), context.rawBytes) + ") read, then B ("
        + sizeText(uint64_t(first.details.value(QStringLiteral("stream_bytes")).toDouble()), context.rawBytes) + ") streamed once\n";
    out += "\n  " + padRight("WAY", 44) + padLeft("A KEPT", 10) + padLeft("ACTIVE(FILE) BEFORE", 21) + padLeft("AFTER", 12) + padLeft("INACTIVE AFTER", 16)
        + padLeft("ACTIVATED", 13) + '\n';
    for (const VariantResult *v : scans) {
        if (v->skipped) {
            out += "  " + padRight(v->name, 44) + "  skipped: " + v->skipReason + '\n';
            continue;
        }
        const Measurement *kept = v->find("first_kept_percent");
        const Measurement *activated = v->find("activations");
        out += "  " + padRight(v->name, 44) + padLeft(kept ? number(kept->statistics.mean, 0) + " %" : "unknown", 10)
            + padLeft(bytes(*v, "active_file_before"), 21) + padLeft(bytes(*v, "active_file_after"), 12) + padLeft(bytes(*v, "inactive_file_after"), 16)
            + padLeft(activated ? number(activated->statistics.mean, 0) : "not counted", 13) + '\n';
    }
    out +=
        "  A KEPT: A's pages still cached after B (mincore); ACTIVE(FILE), INACTIVE: the cgroup's memory.stat around\n"
        "  the stream; ACTIVATED: pages moved to the active list over the variant (pgactivate, cgroup v2 only)\n";
}

// The lesson's table: one line a working set, then the cliff.
void appendThrashCliffText(const Context &context, std::string &out, const Result &result)
{
    const QJsonObject &details = result.details;
    out += "Files: " + details.value(QStringLiteral("path")).toString().toStdString() + " (removed), files of 1 MiB\n";
    if (details.contains(QStringLiteral("cgroup"))) {
        const QJsonObject group = details.value(QStringLiteral("cgroup")).toObject();
        out += "Cgroup: " + group.value(QStringLiteral("path")).toString().toStdString() + " (v"
            + std::to_string(group.value(QStringLiteral("version")).toInt()) + ", limit "
            + sizeText(uint64_t(group.value(QStringLiteral("limit")).toDouble()), context.rawBytes) + ")\n";
    }
    const bool refaults = details.value(QStringLiteral("refaults_method")).toString().startsWith(QLatin1String("memory.stat"));
    const auto mean = [](const VariantResult &v, const char *name, const std::function<std::string(double)> &text) -> std::string {
        const Measurement *m = v.find(name);
        if (!m) {
            return "unknown";
        }
        return m->statistics.count > 1 ? text(m->statistics.mean) + " \u00b1 " + text(m->statistics.confidenceHalfWidth) : text(m->statistics.mean);
    };
    out += "\n  " + padRight("WORKING SET", 44) + padLeft("SIDE", 7) + padLeft("A PASS", 18)
        + padLeft(refaults ? "REFAULTS A PASS" : "READ FROM DISK A PASS", 24) + "  PASSES\n";
    for (const VariantResult &v : result.variants) {
        if (v.details.contains(QStringLiteral("scan"))) {
            continue; // in the second table
        }
        if (v.skipped) {
            out += "  " + padRight(v.name, 44) + "  skipped: " + v.skipReason + '\n';
            continue;
        }
        const Measurement *seconds = v.find("pass_seconds");
        out += "  " + padRight(v.name, 44) + padLeft(v.details.value(QStringLiteral("side")).toString().toStdString(), 7)
            + padLeft(mean(v,
                           "pass_seconds",
                           [](double value) {
                               return number(value * 1000, 1) + " ms";
                           }),
                      18)
            + padLeft(refaults ? mean(v,
                                      "refaults",
                                      [](double value) {
                                          return number(value, 0);
                                      })
                               : mean(v,
                                      "read_from_storage",
                                      [&context](double value) {
                                          return sizeText(uint64_t(std::max(0.0, value)), context.rawBytes);
                                      }),
                      24)
            + "  " + std::to_string(seconds ? seconds->statistics.count : 0) + '\n';
    }
    if (details.contains(QStringLiteral("cliff_ratio"))) {
        out += "\n  The cliff: a pass just over the limit took " + number(details.value(QStringLiteral("cliff_ratio")).toDouble(), 1)
            + "x as long as one just under it.\n";
    }
    out += refaults ? "  REFAULTS: the cgroup's workingset_refault_file over a pass\n"
                    : "  READ FROM DISK: the worker's /proc/PID/io read_bytes over a pass (cgroup v1 counts no refaults)\n";
    appendScanResistanceText(context, out, result);
}

void appendResultText(const Context &context, std::string &out, const Result &result)
{
    out += "Experiment " + result.experiment + " (" + number(result.seconds, 1) + " s)";
    if (result.cancelled) {
        out += ": cancelled, figures are partial";
    }
    out += "\n";
    const QJsonObject &details = result.details;
    if (result.experiment == "folder-thrash") {
        appendFolderThrashText(context, out, result);
    } else if (result.experiment == "drop-behind") {
        appendDropBehindText(context, out, result);
    } else if (result.experiment == "thrash-cliff") {
        appendThrashCliffText(context, out, result);
    } else if (result.experiment == "shmem") {
        appendShmemText(out, result);
    } else if (details.contains(QStringLiteral("path"))) {
        out += "File: " + details.value(QStringLiteral("path")).toString().toStdString() + " ("
            + sizeText(uint64_t(details.value(QStringLiteral("size")).toDouble()), context.rawBytes) + ")\n";
    }
    const bool anyRan = std::any_of(result.variants.begin(), result.variants.end(), [](const VariantResult &v) {
        return !v.skipped;
    });
    if (details.value(QStringLiteral("contained")).toBool() && anyRan) {
        out += "Contained: the child ran in a memory cgroup of the warm file's size plus "
            + sizeText(uint64_t(result.parameters.value(QStringLiteral("contain_headroom")).toDouble()), context.rawBytes)
            + "; cache_reclaimed is the cgroup's\n";
    }
    if (details.contains(QStringLiteral("vm_settings"))) {
        out += "vm settings:";
        const QJsonObject settings = details.value(QStringLiteral("vm_settings")).toObject();
        for (auto it = settings.begin(); it != settings.end(); ++it) {
            out += ' ' + it.key().toStdString() + '=' + number(it.value().toDouble(), 0);
        }
        out += '\n';
    }
    if (details.contains(QStringLiteral("recording_method"))) {
        out += "Files recorded with: " + details.value(QStringLiteral("recording_method")).toString().toStdString() + '\n';
    }
    for (const VariantResult &v : result.variants) {
        if (result.experiment == "drop-behind" || result.experiment == "thrash-cliff" || (result.experiment == "folder-thrash" && !v.skipped)) {
            continue; // in the lesson's table
        }
        out += '\n' + v.name + ":";
        if (v.skipped) {
            out += " skipped: " + v.skipReason + '\n';
            continue;
        }
        out += '\n';
        if (v.measurements.empty()) {
            out += "  no complete run\n";
            continue;
        }
        measurementTable().appendHeader(out);
        for (const Measurement &m : v.measurements) {
            measurementTable().appendText(out, m, context.rawBytes);
        }
    }
    if (result.programFiles) {
        const std::vector<ProgramFile> &files = *result.programFiles;
        uint64_t filesBytes = 0;
        for (const ProgramFile &file : files) {
            filesBytes += file.size;
        }
        out += "\nFiles the command opened (" + std::to_string(files.size()) + ", " + sizeText(filesBytes, context.rawBytes) + "):\n";
        out += "  " + padLeft("SIZE", 10) + padLeft("WARM", 10) + padLeft("EVICTED TO", 12) + "  PATH\n";
        const uint64_t page = Cachescope::pageSize();
        for (const ProgramFile &file : files) {
            // Never a number where the kernel gave none.
            const auto residentText = [&](const std::optional<uint64_t> &pages) {
                return pages && !file.residencyHidden ? sizeText(*pages * page, context.rawBytes) : std::string("hidden");
            };
            out += "  " + padLeft(sizeText(file.size, context.rawBytes), 10) + padLeft(residentText(file.residentWarm), 10)
                + padLeft(residentText(file.residentAfterEvict), 12) + "  " + QFile::decodeName(file.path.c_str()).toStdString();
            if (!file.remainReason.empty()) {
                out += " (stayed: " + file.remainReason + ")";
            }
            out += '\n';
        }
    }
    for (const std::string &note : result.notes) {
        out += "\nNote: " + note + '\n';
    }
}

// The trace file of `experiment replay --trace FILE`; nullopt with the
// reason, which names the path, when it cannot be read or is not a trace.
std::optional<Trace::Report> readTraceFile(const std::string &path, std::string &error)
{
    // Looked at before opening: a FIFO would block the open, a device read forever.
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
        error = "cannot read the trace file: " + errnoText(errno);
        return std::nullopt;
    }
    if (!S_ISREG(st.st_mode)) {
        error = "not a Cachescope trace: not a regular file";
        return std::nullopt;
    }
    QFile file(QFile::decodeName(path.c_str()));
    if (!file.open(QIODevice::ReadOnly)) {
        error = "cannot read the trace file: " + file.errorString().toStdString();
        return std::nullopt;
    }
    // "not JSON: ...", "not a Cachescope trace: ...": the reader's sentence.
    return Trace::reportFromJsonBytes(file.readAll(), &error);
}

// What the replay adds to the measurement tables: the files it could not
// replay, the reads of each order, and the seed's check.
void appendReplayText(const Context &context, std::string &out, const Result &result)
{
    const QJsonObject &details = result.details;
    const auto number0 = [&details](const char *key) {
        return uint64_t(details.value(QLatin1String(key)).toDouble());
    };
    int replayed = 0;
    std::string problems;
    const QJsonArray files = details.value(QStringLiteral("traced_files")).toArray();
    for (const auto &value : files) {
        const QJsonObject file = value.toObject();
        const QString state = file.value(QStringLiteral("state")).toString();
        replayed += state == QStringLiteral("replayed");
        if (state == QStringLiteral("refused") || state == QStringLiteral("skipped")) {
            problems += "  " + state.toStdString() + ": " + file.value(QStringLiteral("name")).toString().toStdString() + ": "
                + file.value(QStringLiteral("reason")).toString().toStdString() + '\n';
        }
    }
    out += "\nReplayed " + std::to_string(replayed) + " of the trace's " + std::to_string(files.size()) + " files, "
        + sizeText(number0("bytes"), context.rawBytes) + " a run\n" + problems;
    const QJsonObject reads = details.value(QStringLiteral("reads")).toObject();
    out += "Reads: ";
    for (const char *order : {"recorded order", "file order", "disk order"}) {
        out += std::to_string(reads.value(QString::fromLatin1(order).replace(QLatin1Char(' '), QLatin1Char('_'))).toArray().size()) + ' ' + order
            + (std::string_view(order) == "disk order" ? "\n" : ", ");
    }
    if (details.contains(QStringLiteral("disk_order_speedup"))) {
        out += "Disk order against recorded order: " + number(details.value(QStringLiteral("disk_order_speedup")).toDouble(), 2) + "x as fast\n";
    }
    const QJsonObject check = details.value(QStringLiteral("check")).toObject();
    if (!check.isEmpty()) {
        const auto seconds = [&check](const char *key) {
            return formatValue(check.value(QLatin1String(key)).toDouble(), "s", false);
        };
        out += "Check: replayed cold I/O " + seconds("replayed_seconds") + " + warm start " + seconds("warm_seconds") + " = "
            + seconds("replayed_plus_warm_seconds") + " against a measured cold start of " + seconds("cold_seconds") + ": difference "
            + seconds("difference_seconds") + " (" + number(check.value(QStringLiteral("difference_percent")).toDouble(), 1) + "%)\n";
    }
}

// --files 24,28 --files 32: every count, in the order given.
bool fileCountsOption(const ParsedArgs &args, std::vector<int> &counts, int &exitCode)
{
    for (const auto &[option, value] : args.options) {
        if (option != "files") {
            continue;
        }
        size_t start = 0;
        for (;;) {
            const size_t comma = value.find(',', start);
            const std::string piece = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            const std::optional<uint64_t> count = parseCount(piece);
            if (!count || *count < 1 || *count > 100000) {
                exitCode = usageError(args.command, "--files: '" + piece + "' is not a whole number from 1 to 100000");
                return false;
            }
            counts.push_back(int(*count));
            if (comma == std::string::npos) {
                break;
            }
            start = comma + 1;
        }
    }
    return true;
}

bool secondsValue(const ParsedArgs &args, const char *name, bool zeroAllowed, double &value, int &exitCode)
{
    const std::optional<std::string> text = args.value(name);
    if (!text) {
        return true;
    }
    if (zeroAllowed && (*text == "0" || *text == "0.0")) {
        value = 0;
        return true;
    }
    const std::optional<double> parsed = parseSeconds(*text);
    if (!parsed) {
        exitCode = usageError(args.command, std::string("--") + name + ": '" + *text + "' is not a number of seconds");
        return false;
    }
    value = *parsed;
    return true;
}

} // namespace

void setExperimentPrivilegedSteps(const PrivilegedSteps &steps)
{
    privilegedSteps() = steps;
    privilegedStepsSet = true;
}

Result runEngine(Experiment &experiment)
{
    // Events on stderr when a person watches; an interrupt cancels the run
    // (the engine then kills its children and removes its files).
    Progress progress;
    std::mutex eventMutex;
    if (::isatty(STDERR_FILENO)) {
        progress.event = [&eventMutex](const Event &event) {
            const std::lock_guard lock(eventMutex);
            const std::string line = "cachescope-cli: [" + number(event.seconds, 1) + " s] " + event.text + '\n';
            (void)!::write(STDERR_FILENO, line.data(), line.size());
        };
    }
    const CancelScope scope;
    return experiment.run(progress, interruptFlag());
}

void appendResultJson(Context &context, const Result &result, const char *command)
{
    QJsonObject object = resultToJson(result);
    object.insert(QStringLiteral("command"), QLatin1String(command));
    std::string json = QJsonDocument(object).toJson(QJsonDocument::Compact).toStdString();
    json.pop_back(); // the closing brace: the problems go in too
    json += ',';
    context.appendProblemsJson(json);
    json += "}\n";
    context.out.buffer += json;
}

const PrivilegedSteps *experimentPrivilegedSteps()
{
    return privilegedStepsSet ? &privilegedSteps() : nullptr;
}

int runExperiment(Context &context, const ParsedArgs &args)
{
    const std::string &name = args.positional.front();
    bool known = false;
    for (const char *candidate : experimentNames) {
        known = known || name == candidate;
    }
    if (!known) {
        return usageError(args.command,
                          "unknown experiment '" + name
                              + "' (cold-read, pressure, cold-start, writeback, faults, replay, folder-thrash, drop-behind, thrash-cliff, shmem)");
    }
    const std::vector<std::string> &allowed = optionsOf(name);
    for (const auto &[option, value] : args.options) {
        if (option == "json" || option == "bytes" || option == "help") {
            continue;
        }
        if (std::find(allowed.begin(), allowed.end(), option) == allowed.end()) {
            std::string message = "--";
            message.append(option).append(" does not apply to the ").append(name).append(" experiment");
            return usageError(args.command, message);
        }
    }
    std::vector<std::string> command(args.positional.begin() + 1, args.positional.end());
    if (name == "cold-start" && command.empty()) {
        return usageError(args.command, "cold-start needs the command to run, after '--' (example: experiment cold-start -- /usr/bin/ls /)");
    }
    if (name != "cold-start" && !command.empty()) {
        return usageError(args.command, "unexpected argument '" + command.front() + "'");
    }

    int exitCode = ExitSuccess;
    ScratchFile file;
    file.path = args.value("file").value_or(std::string());
    file.folder = args.value("folder").value_or(std::string("."));
    uint64_t runs = 0;
    uint64_t size = 0;
    uint64_t buffer = 0;
    uint64_t limit = 0;
    uint64_t step = 0;
    uint64_t fileSize = 0;
    uint64_t headroom = 0;
    std::vector<int> fileCounts;
    double timeout = 0;
    double wait = -1;
    if (!countOption(args, "runs", 1, 1000, runs, exitCode) || !bytesOption(args, "size", size, exitCode, 4096)
        || !bytesOption(args, "buffer", buffer, exitCode, 1) || !bytesOption(args, "limit", limit, exitCode, 1 << 20)
        || !bytesOption(args, "step", step, exitCode, 4096) || !secondsValue(args, "timeout", false, timeout, exitCode)
        || !secondsValue(args, "wait", true, wait, exitCode) || !bytesOption(args, "file-size", fileSize, exitCode, 4096)
        || !bytesOption(args, "headroom", headroom, exitCode, 0) || !fileCountsOption(args, fileCounts, exitCode)) {
        return exitCode;
    }
    if (args.has("cold-only") && args.has("warm-only")) {
        return usageError(args.command, "--cold-only and --warm-only exclude each other");
    }
    if (args.has("no-fadvise") && !args.has("drop-caches")) {
        return usageError(args.command, "--no-fadvise leaves nothing to run without --drop-caches");
    }
    if (args.has("reads-only") && args.has("writes-only")) {
        return usageError(args.command, "--reads-only and --writes-only exclude each other");
    }
    if (name == "pressure" && args.has("no-with-swap") && !args.has("without-swap")) {
        return usageError(args.command, "--no-with-swap leaves nothing to run without --without-swap");
    }
    if (!file.path.empty() && ::access(file.path.c_str(), R_OK) != 0) {
        context.fail(file.path, errnoText(errno));
        return ExitFailures;
    }
    if (size) {
        file.size = size;
    }

    std::optional<Trace::Report> trace;
    if (name == "replay") {
        const std::optional<std::string> tracePath = args.value("trace");
        if (!tracePath) {
            return usageError(args.command, "replay needs --trace FILE (a trace file: cachescope-cli trace --output FILE -- COMMAND)");
        }
        std::string error;
        trace = readTraceFile(*tracePath, error);
        if (!trace) {
            context.fail(*tracePath, error);
            return ExitFailures;
        }
    }

    const std::string privilegedOption = args.has("drop-caches") ? "--drop-caches"
        : args.has("without-swap")                               ? "--without-swap"
        : args.has("privileged")                                 ? "--privileged"
                                                                 : std::string();
    // Contained runs need a memory cgroup: the helper's (or systemd's), through the companion.
    const bool needsCgroup = name == "folder-thrash" || name == "drop-behind" || name == "thrash-cliff" || (name == "pressure" && !args.has("whole-machine"))
        || (name == "shmem" && !args.has("no-pressure"));
    if (needsCgroup && privilegedOption.empty() && !privilegedStepsSet) {
        qCDebug(CACHESCOPE_CLI) << "experiment" << name.c_str() << "needs cachescope-cli-privileged for its memory cgroup";
        return runInPrivilegedCompanion(context.arguments, "experiment: ", [&name](const std::string &lookedFor) {
            return name + " runs in a memory cgroup, which needs cachescope-cli-privileged (the privileged helper's client), which is not installed: "
                + lookedFor + (name == "pressure" ? ". Run with --whole-machine for no cgroup." : ". The lesson never runs without one.");
        });
    }
    if (!privilegedOption.empty() && !privilegedStepsSet) {
        qCDebug(CACHESCOPE_CLI) << "experiment" << name.c_str() << privilegedOption.c_str() << "needs cachescope-cli-privileged";
        return runInCompanion(context, privilegedOption);
    }

    std::unique_ptr<Experiment> experiment;
    if (name == "cold-read") {
        ColdReadParameters p;
        p.file = file;
        p.runs = runs ? int(runs) : p.runs;
        p.bufferSize = buffer ? buffer : p.bufferSize;
        p.dropCachesVariant = args.has("drop-caches");
        p.fadviseVariant = !args.has("no-fadvise");
        experiment = makeColdReadExperiment(p, privilegedSteps());
    } else if (name == "pressure") {
        PressureParameters p;
        p.file = file;
        p.runs = runs ? int(runs) : p.runs;
        p.limit = limit;
        p.step = step ? step : p.step;
        p.allowOomKiller = args.has("allow-oom");
        p.withoutSwapVariant = args.has("without-swap");
        p.withSwapVariant = !args.has("no-with-swap");
        p.contained = !args.has("whole-machine");
        p.containHeadroom = args.has("headroom") ? headroom : p.containHeadroom;
        experiment = makePressureExperiment(p, privilegedSteps());
    } else if (name == "folder-thrash") {
        FolderThrashParameters p;
        p.folder = file.folder;
        p.fileCounts = fileCounts.empty() ? p.fileCounts : fileCounts;
        p.fileSize = fileSize ? fileSize : p.fileSize;
        p.limit = limit;
        p.runs = runs ? int(runs) : p.runs;
        experiment = makeFolderThrashExperiment(p, privilegedSteps());
    } else if (name == "drop-behind") {
        DropBehindParameters p;
        p.folder = file.folder;
        p.size = size ? size : p.size;
        p.limit = limit;
        p.runs = runs ? int(runs) : p.runs;
        p.reads = !args.has("writes-only");
        p.writes = !args.has("reads-only");
        experiment = makeDropBehindExperiment(p, privilegedSteps());
    } else if (name == "thrash-cliff") {
        ThrashCliffParameters p;
        p.folder = file.folder;
        p.limit = limit ? limit : p.limit;
        p.runs = runs ? int(runs) : p.runs;
        p.scanResistance = !args.has("no-scan");
        experiment = makeThrashCliffExperiment(p, privilegedSteps());
    } else if (name == "shmem") {
        ShmemParameters p;
        p.folder = args.value("folder").value_or(std::string());
        p.size = size ? size : p.size;
        p.headroom = args.has("headroom") ? headroom : p.headroom;
        p.runs = runs ? int(runs) : p.runs;
        p.pressure = !args.has("no-pressure");
        p.withSwapVariant = !args.has("no-with-swap");
        experiment = makeShmemExperiment(p, privilegedSteps());
    } else if (name == "cold-start") {
        ColdStartParameters p;
        p.command = command;
        p.runs = runs ? int(runs) : p.runs;
        p.timeoutSeconds = timeout > 0 ? timeout : p.timeoutSeconds;
        p.showOutput = args.has("show-output");
        p.dropCachesVariant = args.has("drop-caches");
        p.forceMapsFallback = args.has("maps");
        experiment = makeColdStartExperiment(p, privilegedSteps());
    } else if (name == "writeback") {
        WritebackParameters p;
        p.file = file;
        p.runs = runs ? int(runs) : p.runs;
        p.step = step ? step : p.step;
        p.waitSeconds = wait >= 0 ? wait : p.waitSeconds;
        p.drainTimeoutSeconds = timeout > 0 ? timeout : p.drainTimeoutSeconds;
        experiment = makeWritebackExperiment(p);
    } else if (name == "replay" && trace) { // read above, or the command ended there
        ReplayParameters p;
        p.report = std::move(*trace);
        p.runs = runs ? int(runs) : p.runs;
        p.timeoutSeconds = timeout > 0 ? timeout : p.timeoutSeconds;
        p.showOutput = args.has("show-output");
        p.checkColdStart = !args.has("no-check");
        p.dropCaches = args.has("privileged");
        experiment = makeReplayExperiment(p, privilegedSteps());
    } else {
        FaultsParameters p;
        p.file = file;
        p.runs = runs ? int(runs) : p.runs;
        p.smallBuffer = buffer ? buffer : p.smallBuffer;
        p.cold = !args.has("warm-only");
        p.warm = !args.has("cold-only");
        experiment = makeFaultsExperiment(p);
    }

    const Result result = runEngine(*experiment);
    if (!result.error.empty()) {
        qCDebug(CACHESCOPE_CLI) << "experiment" << name.c_str() << "could not run:" << result.error.c_str();
        printError("experiment " + name + ": " + result.error);
    }
    for (const VariantResult &v : result.variants) {
        if (v.skipped) {
            // O_DIRECT or RWF_DONTCACHE refused by the file system is a
            // finding, not a failure.
            if (name == "faults" || (name == "drop-behind" && v.skipReason.rfind("not supported by this kernel or file system", 0) == 0)) {
                context.skip(v.name, v.skipReason);
            } else {
                context.fail(v.name, v.skipReason);
            }
        }
    }
    // The replay names each file it would not read: a changed one is a
    // failure (its trace no longer describes it), a vanished one is skipped.
    const QJsonArray tracedFiles = result.details.value(QStringLiteral("traced_files")).toArray();
    for (const auto &value : tracedFiles) {
        const QJsonObject file = value.toObject();
        const QString state = file.value(QStringLiteral("state")).toString();
        const std::string path = file.value(QStringLiteral("name")).toString().toStdString();
        const std::string reason = file.value(QStringLiteral("reason")).toString().toStdString();
        if (state == QStringLiteral("refused")) {
            context.fail(path, reason);
        } else if (state == QStringLiteral("skipped")) {
            context.skip(path, reason);
        }
    }
    if (context.json) {
        appendResultJson(context, result, "experiment");
    } else if (result.error.empty()) {
        appendResultText(context, context.out.buffer, result);
        if (name == "replay") {
            appendReplayText(context, context.out.buffer, result);
        }
    }
    if (result.cancelled && interrupted()) {
        return interruptExitCode();
    }
    if (!result.error.empty() || context.anyFailed()) {
        return ExitFailures;
    }
    return ExitSuccess;
}

Command experimentCommand()
{
    return {{"experiment",
             "NAME [-- COMMAND [ARG...]]",
             "run a classic page-cache experiment: cold-read, pressure, cold-start, writeback, faults, folder-thrash, drop-behind, thrash-cliff, shmem; or "
             "replay a trace",
             "Runs one of the classic page-cache experiments, several times, and reports\n"
             "each figure's mean, standard deviation and 95% confidence interval\n"
             "(Student's t). --json adds the live samples (memory and the file's\n"
             "resident pages over time) and events, to keep and compare results.\n"
             "\n"
             "  cold-read   evict a file (made here, or --file), time a sequential read\n"
             "              cold, then warm: throughput and the cold/warm ratio.\n"
             "  pressure    warm a file, then a child process allocates memory in steps\n"
             "              (never past MemAvailable minus max(256 MiB, 5%) unless\n"
             "              --allow-oom; oom_score_adj 1000): cache reclaimed for memory\n"
             "              allocated, and how much of the warm file survived. By default\n"
             "              the child reads the file and allocates its size in a memory\n"
             "              cgroup of the file's size plus --headroom, so that the cache\n"
             "              gives way on any machine; --whole-machine: no cgroup.\n"
             "  cold-start  record the files a command opens (strace, else /proc/PID/maps),\n"
             "              evict only those, time the cold start, then the warm one.\n"
             "              The command is run directly, never through a shell.\n"
             "  writeback   write a file without syncing; watch Dirty and Writeback (and\n"
             "              the file's own, with cachestat) drain; time fsync and sync.\n"
             "  faults      read a file with read() in small pieces, stdio, setvbuf, mmap\n"
             "              and O_DIRECT, cold and warm, each in a child: minor and major\n"
             "              page faults, time, memory added to the page cache.\n"
             "  replay      the trace file of `cachescope-cli trace --output FILE`: check\n"
             "              its files are the ones traced (a changed file is refused, a\n"
             "              vanished one skipped), evict them, read exactly the traced\n"
             "              pages (readahead off) as recorded, in file order and in disk\n"
             "              order (FIEMAP): time and MB/s; then the traced command's cold\n"
             "              start against replayed cold I/O + its warm start.\n"
             "  folder-thrash  the folder-eviction lesson: in a memory cgroup that holds\n"
             "              about three of four folders, copy folder 1 to 2, sync, copy 3\n"
             "              to 4, sync, then read every file of folder 1; again with folder\n"
             "              2 evicted before copying 3. For each --files count: the read's\n"
             "              time and folder 1's cached pages before it.\n"
             "  drop-behind read a big file (--size, default 256M), then write one, four\n"
             "              ways each, after a set of desktop files was read, in a memory\n"
             "              cgroup a little larger than the file: plain; with\n"
             "              posix_fadvise(DONTNEED) as it goes; RWF_DONTCACHE (Linux 6.14+,\n"
             "              where the file system has it); O_DIRECT. Speed, the file's\n"
             "              pages left cached, and how much of the desktop's stayed.\n"
             "  thrash-cliff in a memory cgroup of --limit (default 64M), read a working\n"
             "              set of 1 MiB files pass after pass, for sets from half the\n"
             "              limit to one and a half times it: seconds and refaults a pass\n"
             "              (cgroup v1: reads from storage), and the cliff between the\n"
             "              largest set under the limit and the smallest over it. Then\n"
             "              scan resistance: files A (a quarter of the limit) read once\n"
             "              or twice, then files B (1.25 times it) streamed once, plainly\n"
             "              or with POSIX_FADV_NOREUSE: how much of A stayed cached.\n"
             "  shmem       memory that cannot be evicted: fill a tmpfs (mounted for the\n"
             "              lesson as root, else /dev/shm, or the tmpfs --folder) with a\n"
             "              file of --size (default 64M): Shmem and Cached grow; Evict\n"
             "              and drop_caches leave it; in a memory cgroup of the file plus\n"
             "              --headroom (default 32M) the file's size allocated again hits\n"
             "              the limit without swap; paged out (MADV_PAGEOUT) with swap on\n"
             "              (the experiment swap file where there is none), it goes there.\n"
             "\n"
             "Files are made in --folder (default: the current folder), which must be on\n"
             "a disk (tmpfs is refused: its pages cannot be evicted), and are removed at\n"
             "the end and on Ctrl+C. --drop-caches, --without-swap and the memory\n"
             "cgroups of folder-thrash, drop-behind, thrash-cliff, shmem and pressure need the privileged helper, or\n"
             "systemd's user manager for the cgroups (they run through\n"
             "cachescope-cli-privileged); swap is always turned back on, the cgroups\n"
             "are removed.",
             {{0, "file", "PATH", "cold-read, pressure, faults: use this file instead of making one"},
              {0, "folder", "DIR", "where to make the file (default: the current folder); shmem: a tmpfs (default: one mounted for the lesson, or /dev/shm)"},
              {0, "size", "BYTES", "size of the file to make (default 64M, drop-behind 256M; suffixes K, M, G)"},
              {0, "runs", "N", "repeat N times (default: 3 for cold-read, cold-start and folder-thrash, else 1)"},
              {0, "buffer", "BYTES", "cold-read: read size (default 1M); faults: read() size (default 256)"},
              {0, "drop-caches", nullptr, "cold-read, cold-start: also the variant with drop_caches (privileged)"},
              {0, "no-fadvise", nullptr, "cold-read: only the drop_caches variant"},
              {0,
               "limit",
               "BYTES",
               "pressure: the most the child allocates (default and cap: the warm file's size, or MemAvailable minus the margin with --whole-machine); "
               "folder-thrash: the cgroup's limit (default: three folders of the largest count plus 8M); "
               "drop-behind: the cgroup's limit (default: the big file's size plus 16M); thrash-cliff: the cgroup's limit (default 64M)"},
              {0, "reads-only", nullptr, "drop-behind: only the reads"},
              {0, "writes-only", nullptr, "drop-behind: only the writes"},
              {0, "no-scan", nullptr, "thrash-cliff: leave out the second part, scan resistance"},
              {0, "no-pressure", nullptr, "shmem: leave out the memory cgroup's part (no privileged helper needed)"},
              {0, "whole-machine", nullptr, "pressure: no memory cgroup: the cache gives way only when the machine's memory is short"},
              {0,
               "headroom",
               "BYTES",
               "pressure: the cgroup's limit above the warm file's size (default 16M); shmem: above the file's (default 32M, at most half the file)"},
              {0, "files", "N[,N...]", "folder-thrash: files in each folder, one run set per count (default 30,33,36,39; repeatable)"},
              {0, "file-size", "BYTES", "folder-thrash: size of each file (default 1M)"},
              {0, "step", "BYTES", "pressure: allocation step (default 16M); writeback: write step (default 4M)"},
              {0, "allow-oom", nullptr, "pressure: let the child go past the safety margin (the OOM killer may end it)"},
              {0, "without-swap", nullptr, "pressure: also the variant with swap turned off (privileged; turned back on after)"},
              {0, "no-with-swap", nullptr, "pressure: only the variant without swap; shmem: leave out the page-out to swap"},
              {0, "timeout", "SECONDS", "cold-start, replay: kill a run of the command after SECONDS (default 60); writeback: drain timeout"},
              {0, "show-output", nullptr, "cold-start, replay: let the command write to the terminal (default: /dev/null)"},
              {0, "maps", nullptr, "cold-start: record files from /proc/PID/maps even when strace is installed"},
              {0, "wait", "SECONDS", "writeback: watch the kernel write back by itself this long before fsync (default 40)"},
              {0, "trace", "FILE", "replay: the trace file to replay"},
              {0, "no-check", nullptr, "replay: leave out the check against the command's measured cold start"},
              {0, "privileged", nullptr, "replay: also drop_caches before every cold run, through the privileged helper"},
              {0, "cold-only", nullptr, "faults: only the cold reads"},
              {0, "warm-only", nullptr, "faults: only the warm reads"},
              {0, "json", nullptr, "print one JSON document (schema: docs/cli.md)"},
              {0, "bytes", nullptr, "print sizes as raw byte counts instead of KiB/MiB/GiB"},
              {'h', "help", nullptr, "show this help"}},
             "  cachescope-cli experiment cold-read --size 256M --runs 5\n"
             "  cachescope-cli experiment cold-read --file big.iso --drop-caches\n"
             "  cachescope-cli experiment pressure --limit 1G --json\n"
             "  cachescope-cli experiment cold-start --runs 5 -- /usr/bin/python3 -c pass\n"
             "  cachescope-cli experiment writeback --size 256M --wait 35\n"
             "  cachescope-cli experiment faults --size 128M\n"
             "  cachescope-cli experiment replay --trace python.json --runs 5\n"
             "  cachescope-cli experiment folder-thrash --files 24,32 --file-size 1M --runs 5\n"
             "  cachescope-cli experiment drop-behind --size 1G --runs 3\n"
             "  cachescope-cli experiment thrash-cliff --limit 128M --runs 3\n"
             "  cachescope-cli experiment shmem --size 128M\n",
             1},
            runExperiment};
}

} // namespace Cachescope::Cli
