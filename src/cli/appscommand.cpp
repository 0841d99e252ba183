// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli apps: the page cache of each application, from the memory
// cgroups systemd puts them in (Cgroups::ApplicationsSampler).

#include "commandoptions.h"
#include "interrupt.h"
#include "table.h"

#include "cgroups/applications.h"
#include "experiments/experimentsupport.h"
#include "format.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <chrono>
#include <cmath>

namespace Cachescope::Cli
{

namespace
{

using Cgroups::ApplicationCache;
using Cgroups::GroupKind;
using Cgroups::MemoryLimit;

// Without --watch the refault rate needs a second reading; this far apart.
constexpr double oneShotSeconds = 0.5;

double monotonicSeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A JSON number with `decimals` decimals, or null.
std::string jsonNumber(const std::optional<double> &value, int decimals)
{
    if (!value || !std::isfinite(*value)) {
        return "null";
    }
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, *value);
    return text;
}

std::optional<double> pressureOf(const ApplicationCache &row)
{
    return row.stats.pressure ? std::optional<double>(row.stats.pressure->someAvg10) : std::nullopt;
}

// What the text's NAME column shows: the desktop file id of an application,
// the unit of a service, the cgroup where nothing names it.
std::string displayName(const ApplicationCache &row)
{
    return row.desktopFileId.empty() ? row.name : row.desktopFileId;
}

Column<ApplicationCache> bytesColumn(const char *header, const char *key, size_t width, const char *help, std::optional<uint64_t> Cgroups::MemoryStats::*figure)
{
    return {.header = header,
            .key = key,
            .width = width,
            .format = Format::Bytes,
            .help = help,
            .value =
                [figure](const ApplicationCache &row) {
                    return countCell((row.stats.*figure).value_or(0));
                },
            .inJson =
                [figure](const ApplicationCache &row) {
                    return (row.stats.*figure).has_value();
                },
            .inText =
                [figure](const ApplicationCache &row) {
                    return (row.stats.*figure).has_value();
                }};
}

const Table<ApplicationCache> &applicationsTable()
{
    using Stats = Cgroups::MemoryStats;
    static const Table<ApplicationCache> table = {
        .columns =
            {
                bytesColumn("PAGE CACHE", "page_cache", 10, "page cache charged to the cgroup and its descendants (tmpfs and shmem included)", &Stats::file),
                bytesColumn("DIRTY", "dirty", 9, "of it, dirty: waiting to be written", &Stats::fileDirty),
                bytesColumn("WRITEBACK", "writeback", 9, "of it, being written", &Stats::fileWriteback),
                bytesColumn("MAPPED", "mapped", 9, "of it, mapped by processes", &Stats::fileMapped),
                {.header = "REFAULTS/S",
                 .key = "refaults_per_second",
                 .width = 10,
                 .format = Format::Json,
                 .help = "file pages read again after being evicted, a second (null: one reading, or no counter)",
                 .value =
                     [](const ApplicationCache &row) {
                         return textCell(jsonNumber(row.refaultsPerSecond, 1));
                     },
                 .text =
                     [](const ApplicationCache &row, bool) {
                         return jsonNumber(row.refaultsPerSecond, 1);
                     },
                 .inText =
                     [](const ApplicationCache &row) {
                         return row.refaultsPerSecond.has_value();
                     }},
                {.header = "PRESSURE",
                 .key = "pressure_some_avg10",
                 .width = 8,
                 .format = Format::Json,
                 .help = "share of the last 10 s some of its tasks waited for memory, in percent (null: v1, no PSI)",
                 .value =
                     [](const ApplicationCache &row) {
                         return textCell(jsonNumber(pressureOf(row), 2));
                     },
                 .text =
                     [](const ApplicationCache &row, bool) {
                         return jsonNumber(pressureOf(row), 2) + '%';
                     },
                 .inText =
                     [](const ApplicationCache &row) {
                         return row.stats.pressure.has_value();
                     }},
                {.header = "LIMIT",
                 .key = "limit",
                 .width = 9,
                 .format = Format::Json,
                 .help = "the tighter of memory.high and memory.max (v1: memory.limit_in_bytes); null: none or unknown",
                 .value =
                     [](const ApplicationCache &row) {
                         const MemoryLimit limit = row.stats.limit();
                         return textCell(limit.isLimited() ? std::to_string(limit.bytes) : "null");
                     },
                 .text =
                     [](const ApplicationCache &row, bool raw) {
                         const MemoryLimit limit = row.stats.limit();
                         return limit.isLimited() ? sizeText(limit.bytes, raw) : limit.kind == MemoryLimit::Kind::None ? "none" : "-";
                     }},
                {.header = "KIND",
                 .key = "kind",
                 .align = Align::Left,
                 .width = 14,
                 .format = Format::Text,
                 .help = "application, user-service, system-service, session, other or cgroup",
                 .value =
                     [](const ApplicationCache &row) {
                         return textCell(Cgroups::groupKindName(row.kind));
                     }},
                {.header = "NAME",
                 .key = "name",
                 .align = Align::Left,
                 .format = Format::Text,
                 .help = "the desktop file id of an application, else the unit or the cgroup; JSON: the unit name (systemd's escapes undone) or the cgroup",
                 .value =
                     [](const ApplicationCache &row) {
                         return textCell(row.name);
                     },
                 .text =
                     [](const ApplicationCache &row, bool) {
                         return displayName(row);
                     }},
                {.key = "desktop_file_id",
                 .format = Format::Text,
                 .help = "the application's desktop file id (applications only)",
                 .value =
                     [](const ApplicationCache &row) {
                         return textCell(row.desktopFileId);
                     },
                 .inJson =
                     [](const ApplicationCache &row) {
                         return !row.desktopFileId.empty();
                     }},
                {.key = "cgroup",
                 .format = Format::Path,
                 .help = "the cgroup, in its hierarchy",
                 .value =
                     [](const ApplicationCache &row) {
                         return textCell(row.cgroupPath);
                     }},
            },
        .indent = "  ",
    };
    return table;
}

// A problem of the core ("path: reason") as the CLI reports them.
std::pair<std::string, std::string> splitProblem(const std::string &problem)
{
    const size_t lastSlash = problem.rfind('/', problem.find(": "));
    const size_t colon = problem.find(": ", lastSlash == std::string::npos ? 0 : lastSlash);
    if (colon == std::string::npos) {
        return {std::string(), problem};
    }
    return {problem.substr(0, colon), problem.substr(colon + 2)};
}

void reportProblems(Context &context, const std::vector<std::string> &problems)
{
    for (const std::string &problem : problems) {
        const auto [path, reason] = splitProblem(problem);
        context.skip(path, reason);
    }
}

void appendJson(Context &context, const Cgroups::ApplicationsReport &report, double interval)
{
    std::string &out = context.out.buffer;
    const Table<ApplicationCache> &table = applicationsTable();
    out += "{\"command\":\"apps\",";
    appendJsonText(out, "time", Experiments::utcNowIso());
    out += ',';
    appendJsonBool(out, "found", report.found);
    out += ",\"version\":";
    out += report.found ? std::to_string(int(report.version)) : "null";
    out += ',';
    appendJsonText(out, "hierarchy", report.hierarchyFolder);
    out += ',';
    appendJsonBool(out, "applications_named", report.applicationsNamed);
    out += ',';
    appendJsonText(out, "reason", report.reason);
    out += ",\"interval_seconds\":" + jsonNumber(interval, 3);
    out += ",\"applications\":[";
    for (size_t i = 0; i < report.rows.size(); ++i) {
        out += i ? "," : "";
        table.appendJson(out, report.rows[i]);
    }
    const Cgroups::CacheAccounting &a = report.accounting;
    const auto optionalNumber = [&out](const char *key, const auto &value) {
        out += ",\"";
        out += key;
        out += "\":";
        out += value ? std::to_string(*value) : "null";
    };
    out += "],\"total\":{";
    appendJsonNumber(out, "page_cache", a.rowsFile);
    optionalNumber("hierarchy_page_cache", a.hierarchyFile);
    optionalNumber("root_own_page_cache", a.rootOwnFile);
    optionalNumber("meminfo_cached", a.meminfoCached);
    optionalNumber("meminfo_shmem", a.meminfoShmem);
    optionalNumber("meminfo_buffers", a.meminfoBuffers);
    optionalNumber("elsewhere", a.elsewhere());
    optionalNumber("dying_cgroups", a.dyingCgroups);
    out += ',';
    appendJsonText(out, "charged_elsewhere", Cgroups::chargedElsewhereText(a));
    out += "},";
    context.appendProblemsJson(out);
    out += "}\n";
}

// Wraps a sentence at about 78 columns, each line indented.
void appendWrapped(std::string &out, const std::string &text, const char *indent)
{
    size_t lineStart = out.size();
    out += indent;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find(' ', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        if (out.size() - lineStart + (end - start) > 78 && out.size() - lineStart > std::string_view(indent).size()) {
            out.back() = '\n';
            lineStart = out.size();
            out += indent;
        }
        out.append(text, start, end - start);
        out += ' ';
        start = end + 1;
    }
    out.back() = '\n';
}

void appendText(std::string &out, const Cgroups::ApplicationsReport &report, bool raw)
{
    const Table<ApplicationCache> &table = applicationsTable();
    table.appendHeader(out);
    uint64_t dirty = 0;
    uint64_t writeback = 0;
    uint64_t mapped = 0;
    for (const ApplicationCache &row : report.rows) {
        table.appendText(out, row, raw);
        dirty += row.stats.fileDirty.value_or(0);
        writeback += row.stats.fileWriteback.value_or(0);
        mapped += row.stats.fileMapped.value_or(0);
    }
    out += "  " + padLeft(sizeText(report.accounting.rowsFile, raw), 10) + ' ' + padLeft(sizeText(dirty, raw), 9) + ' ' + padLeft(sizeText(writeback, raw), 9)
        + ' ' + padLeft(sizeText(mapped, raw), 9) + "  total of " + std::to_string(report.rows.size()) + (report.rows.size() == 1 ? " row (" : " rows (")
        + report.hierarchyFolder + ", cgroup v" + std::to_string(int(report.version)) + ")\n\n";
    appendWrapped(out, Cgroups::chargedElsewhereText(report.accounting), "");
    if (!report.applicationsNamed && !report.reason.empty()) {
        out += '\n';
        appendWrapped(out, report.reason, "");
    }
}

int runApps(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    uint64_t count = 0;
    double interval = 0;
    if (!watchOptionsFrom(args, interval, count, exitCode)) {
        return exitCode;
    }
    const std::string procRoot = args.value("proc").value_or("/proc");
    std::optional<Cgroups::Version> version;
    const std::string cgroupRoot = args.value("cgroup-root").value_or(std::string());
    if (!cgroupRoot.empty()) {
        version = Cgroups::detectVersion(cgroupRoot);
        struct stat info{};
        if (stat(cgroupRoot.c_str(), &info) != 0) {
            context.fail(cgroupRoot, errnoText(errno));
            return ExitFailures;
        }
        if (!version) {
            context.fail(cgroupRoot, "not the root of a memory cgroup hierarchy (neither cgroup.controllers nor memory.limit_in_bytes)");
            return ExitFailures;
        }
    }
    Cgroups::ApplicationsSampler sampler(procRoot, cgroupRoot, version);
    // On a terminal --watch redraws in place, as top does; piped, each
    // round follows the previous one.
    const bool redraw = interval > 0 && !context.json && isatty(STDOUT_FILENO);
    return repeatEvery(context, interval, count, [&](uint64_t round) {
        Cgroups::ApplicationsReport report = sampler.sample(monotonicSeconds());
        if (round == 0 && report.found) {
            // Rates need two readings: the first round waits for its second.
            if (sleepUnlessInterrupted(interval > 0 ? std::min(interval, oneShotSeconds) : oneShotSeconds)) {
                return true;
            }
            report = sampler.sample(monotonicSeconds());
        }
        if (!report.found) {
            const auto [path, reason] = splitProblem(report.reason);
            context.fail(path, reason);
            return false;
        }
        reportProblems(context, report.problems);
        std::string &out = context.out.buffer;
        if (context.json) {
            appendJson(context, report, interval);
        } else {
            if (redraw) {
                out += "\033[H\033[2J";
            } else if (round > 0) {
                out += '\n';
            }
            appendText(out, report, context.rawBytes);
        }
        return true;
    });
}

} // namespace

Command appsCommand()
{
    return {{"apps",
             "",
             "the page cache of each application, from its memory cgroup",
             "Lists the page cache charged to each application's memory cgroup, with\n"
             "its dirty, writeback and mapped pages, refaults a second (from two\n"
             "readings half a second apart, or --watch's interval), memory pressure\n"
             "(some avg10) and limit, most cache first, then the total and where the\n"
             "rest of /proc/meminfo's Cached is. On a systemd desktop (cgroup v2)\n"
             "applications are named by their desktop file id (app-ID-N.scope under\n"
             "user@UID.service/app.slice), system services by their unit. Elsewhere\n"
             "(cgroup v1, no systemd) the leaf cgroups with processes are listed and\n"
             "the output says why applications cannot be named.",
             withCommonOptions({{0, "watch", "SECONDS", "redraw every SECONDS (fractions allowed) until interrupted"},
                                {0, "count", "N", "with --watch: stop after N rounds"},
                                {0, "cgroup-root", "DIR", "read the memory cgroup hierarchy whose root is DIR instead of the one mounted"},
                                {0, "proc", "DIR", "read DIR/self/mountinfo and DIR/meminfo instead of /proc's"}}),
             "  cachescope-cli apps\n"
             "  cachescope-cli apps --watch 2\n"
             "  cachescope-cli apps --json | jq '.applications[0]'\n",
             0,
             0},
            runApps};
}

} // namespace Cachescope::Cli
