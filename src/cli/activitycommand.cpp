// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli activity: who fills the page cache right now, by process
// and by file, system-wide, from the kernel's page-cache events (the
// privileged helper's activity, or root's own in-process).

#include "commandoptions.h"
#include "commands.h"
#include "interrupt.h"
#include "table.h"

#include "activity/activity.h"
#include "activity/ownactivity.h"
#include "pathcodec.h"

#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace Cachescope::Cli
{

namespace
{

uint64_t bytesOf(uint64_t pages)
{
    return pages * pageSize();
}

// The columns both tables share: the figures, as bytes.
template<typename Row>
std::vector<Column<Row>> figureColumns()
{
    return {
        {.header = "IN",
         .key = "added_bytes",
         .width = 10,
         .format = Format::Bytes,
         .help = "brought into the page cache",
         .value =
             [](const Row &row) {
                 return countCell(bytesOf(row.figures.addedPages));
             }},
        {.header = "EVICTED",
         .key = "evicted_bytes",
         .width = 10,
         .format = Format::Bytes,
         .help = "removed from the page cache (reclaimed_bytes and dropped_bytes together)",
         .value =
             [](const Row &row) {
                 return countCell(bytesOf(row.figures.evictedPages()));
             }},
        {.header = "RECLAIMED",
         .key = "reclaimed_bytes",
         .width = 10,
         .format = Format::Bytes,
         .help = "removed by reclaim: kswapd or kdamond, or a process short of memory or at its cgroup's limit",
         .value =
             [](const Row &row) {
                 return countCell(bytesOf(row.figures.reclaimedPages));
             }},
        {.key = "dropped_bytes",
         .format = Format::Bytes,
         .help = "removed otherwise: truncated, invalidated, dropped (drop_caches, fadvise, evict)",
         .value =
             [](const Row &row) {
                 return countCell(bytesOf(row.figures.droppedPages));
             }},
        {.header = "DIRTIED",
         .key = "dirtied_bytes",
         .width = 10,
         .format = Format::Bytes,
         .help = "written to (made dirty) in the page cache",
         .value =
             [](const Row &row) {
                 return countCell(bytesOf(row.figures.dirtiedPages));
             }},
    };
}

const Table<Activity::ProcessActivity> &processTable()
{
    static const Table<Activity::ProcessActivity> table = [] {
        Table<Activity::ProcessActivity> t;
        t.columns = {
            {.header = "PID",
             .key = "pid",
             .width = 8,
             .format = Format::Count,
             .help = "as the initial PID namespace numbers it",
             .value =
                 [](const Activity::ProcessActivity &p) {
                     return countCell(uint64_t(p.pid));
                 }},
            {.header = "UID",
             .key = "uid",
             .width = 6,
             .format = Format::Count,
             .help = "its user (absent when it ended before it could be named)",
             .value =
                 [](const Activity::ProcessActivity &p) {
                     return countCell(uint64_t(std::max<int64_t>(p.uid, 0)));
                 },
             .inJson =
                 [](const Activity::ProcessActivity &p) {
                     return p.uid >= 0;
                 },
             .inText =
                 [](const Activity::ProcessActivity &p) {
                     return p.uid >= 0;
                 }},
        };
        for (Column<Activity::ProcessActivity> &column : figureColumns<Activity::ProcessActivity>()) {
            t.columns.push_back(std::move(column));
        }
        t.columns.push_back({.key = "command",
                             .format = Format::Text,
                             .help = "its command (comm), empty when it ended before it could be named",
                             .value = [](const Activity::ProcessActivity &p) {
                                 return textCell(p.command);
                             }});
        t.columns.push_back({.key = "cgroup",
                             .format = Format::Text,
                             .help = "its cgroup",
                             .value =
                                 [](const Activity::ProcessActivity &p) {
                                     return textCell(p.cgroup);
                                 },
                             .inJson =
                                 [](const Activity::ProcessActivity &p) {
                                     return !p.cgroup.empty();
                                 }});
        t.columns.push_back({.key = "application",
                             .format = Format::Text,
                             .help = "the desktop file id its cgroup names",
                             .value =
                                 [](const Activity::ProcessActivity &p) {
                                     return textCell(p.application);
                                 },
                             .inJson =
                                 [](const Activity::ProcessActivity &p) {
                                     return !p.application.empty();
                                 }});
        t.columns.push_back({.key = "reclaim_thread",
                             .format = Format::Bool,
                             .help = "one of the kernel's reclaim threads: kswapd, or kdamond (DAMON's proactive reclaim)",
                             .value = [](const Activity::ProcessActivity &p) {
                                 return boolCell(p.reclaimThread);
                             }});
        t.columns.push_back({.key = "pushed_out",
                             .format = Format::Json,
                             .help = "the files whose pages it reclaimed (device, inode, bytes), the most first",
                             .value = [](const Activity::ProcessActivity &p) {
                                 std::string list = "[";
                                 for (const auto &[key, pages] : p.pushedOut) {
                                     list += list.size() > 1 ? ",{" : "{";
                                     appendJsonNumber(list, "device", key.device);
                                     list += ',';
                                     appendJsonNumber(list, "inode", key.inode);
                                     list += ',';
                                     appendJsonNumber(list, "bytes", bytesOf(pages));
                                     list += '}';
                                 }
                                 return textCell(list + ']');
                             }});
        t.columns.push_back({.header = "COMMAND",
                             .align = Align::Left,
                             .format = Format::Text,
                             .help = "the command, its application where its cgroup names one",
                             .value = [](const Activity::ProcessActivity &p) {
                                 std::string text = p.command.empty() ? std::string("(ended)") : printableText(p.command);
                                 if (!p.application.empty()) {
                                     text += " (" + printableText(p.application) + ')';
                                 }
                                 return textCell(text);
                             }});
        return t;
    }();
    return table;
}

const Table<Activity::FileActivity> &fileTable()
{
    static const Table<Activity::FileActivity> table = [] {
        Table<Activity::FileActivity> t;
        t.columns = figureColumns<Activity::FileActivity>();
        t.columns.push_back({.key = "device",
                             .format = Format::Count,
                             .help = "the file system's device number (0: see device_name)",
                             .value = [](const Activity::FileActivity &f) {
                                 return countCell(f.key.device);
                             }});
        t.columns.push_back({.key = "device_name",
                             .format = Format::Text,
                             .help = "the backing device's name, where only that is known",
                             .value =
                                 [](const Activity::FileActivity &f) {
                                     return textCell(f.deviceName);
                                 },
                             .inJson =
                                 [](const Activity::FileActivity &f) {
                                     return !f.deviceName.empty();
                                 }});
        t.columns.push_back({.key = "inode", .format = Format::Count, .value = [](const Activity::FileActivity &f) {
                                 return countCell(f.key.inode);
                             }});
        t.columns.push_back({.key = "path",
                             .format = Format::Path,
                             .help = "where a process that brought its pages in holds it open or mapped; absent when it could not be named",
                             .value =
                                 [](const Activity::FileActivity &f) {
                                     return textCell(f.path);
                                 },
                             .inJson =
                                 [](const Activity::FileActivity &f) {
                                     return !f.path.empty();
                                 }});
        t.columns.push_back({.key = "top_reader",
                             .format = Format::Count,
                             .help = "the pid that brought most of its pages in",
                             .value =
                                 [](const Activity::FileActivity &f) {
                                     return countCell(uint64_t(f.topAdder));
                                 },
                             .inJson =
                                 [](const Activity::FileActivity &f) {
                                     return f.topAdder > 0;
                                 }});
        t.columns.push_back({.header = "FILE",
                             .align = Align::Left,
                             .format = Format::Text,
                             .help = "its path, or device and inode where it could not be named",
                             .value = [](const Activity::FileActivity &f) {
                                 if (!f.path.empty()) {
                                     const std::string text = printableText(f.path);
                                     return textCell(isValidUtf8(text) ? text : toDisplayUtf8(text));
                                 }
                                 const std::string device = f.key.device ? std::to_string(major(f.key.device)) + ':' + std::to_string(minor(f.key.device))
                                                                         : printableText(f.deviceName);
                                 return textCell("inode " + std::to_string(f.key.inode) + " on " + device);
                             }});
        return t;
    }();
    return table;
}

void appendFiguresJson(std::string &out, const char *key, const Activity::Figures &figures)
{
    out += '"';
    out += key;
    out += "\":{";
    appendJsonNumber(out, "added_bytes", bytesOf(figures.addedPages));
    out += ',';
    appendJsonNumber(out, "evicted_bytes", bytesOf(figures.evictedPages()));
    out += ',';
    appendJsonNumber(out, "reclaimed_bytes", bytesOf(figures.reclaimedPages));
    out += ',';
    appendJsonNumber(out, "dropped_bytes", bytesOf(figures.droppedPages));
    out += ',';
    appendJsonNumber(out, "dirtied_bytes", bytesOf(figures.dirtiedPages));
    out += '}';
}

void appendJson(std::string &out, const Activity::Interval &interval, size_t limit, const std::string &endReason)
{
    out += "{\"command\":\"activity\",\"method\":\"tracefs\",";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3f", interval.seconds);
    out += "\"seconds\":";
    out += seconds;
    out += ',';
    appendJsonNumber(out, "page_size", pageSize());
    out += ",\"processes\":[";
    for (size_t i = 0; i < std::min(limit, interval.processes.size()); ++i) {
        out += i ? "," : "";
        processTable().appendJson(out, interval.processes[i]);
    }
    out += "],\"files\":[";
    for (size_t i = 0; i < std::min(limit, interval.files.size()); ++i) {
        out += i ? "," : "";
        fileTable().appendJson(out, interval.files[i]);
    }
    out += "],";
    appendFiguresJson(out, "all", interval.all);
    out += ',';
    appendFiguresJson(out, "other_processes", interval.otherProcesses);
    out += ',';
    appendFiguresJson(out, "other_files", interval.otherFiles);
    out += ',';
    appendJsonNumber(out, "lost_events", interval.lostEvents);
    if (!endReason.empty()) {
        out += ',';
        appendJsonText(out, "end_reason", endReason);
    }
    out += "}\n";
}

void appendText(std::string &out, const Activity::Interval &interval, size_t limit, bool raw)
{
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", interval.seconds);
    out += "Over " + std::string(seconds) + " s: " + sizeText(bytesOf(interval.all.addedPages), raw) + " brought in, "
        + sizeText(bytesOf(interval.all.evictedPages()), raw) + " evicted (" + sizeText(bytesOf(interval.all.reclaimedPages), raw) + " by reclaim), "
        + sizeText(bytesOf(interval.all.dirtiedPages), raw) + " dirtied";
    if (interval.lostEvents > 0) {
        out += "; " + std::to_string(interval.lostEvents) + " events lost (the figures are low)";
    }
    out += "\n\n";
    processTable().appendHeader(out);
    for (size_t i = 0; i < std::min(limit, interval.processes.size()); ++i) {
        processTable().appendText(out, interval.processes[i], raw);
    }
    out += '\n';
    fileTable().appendHeader(out);
    for (size_t i = 0; i < std::min(limit, interval.files.size()); ++i) {
        fileTable().appendText(out, interval.files[i], raw);
    }
    out += '\n';
}

// --- Without administrator rights ---------------------------------------------

std::string signedSizeText(int64_t bytes, bool raw)
{
    return bytes < 0 ? "-" + sizeText(uint64_t(-bytes), raw) : "+" + sizeText(uint64_t(bytes), raw);
}

const Table<Activity::GroupActivity> &groupTable()
{
    static const Table<Activity::GroupActivity> table = {
        .columns =
            {
                {.header = "CHANGE",
                 .width = 11,
                 .format = Format::Text,
                 .help = "how much its page cache grew or shrank",
                 .value =
                     [](const Activity::GroupActivity &) {
                         return textCell({});
                     },
                 .text =
                     [](const Activity::GroupActivity &g, bool raw) {
                         return signedSizeText(g.fileChangeBytes, raw);
                     }},
                {.key = "file_change_bytes",
                 .format = Format::Json,
                 .help = "memory.stat file now minus before (negative: it shrank)",
                 .value =
                     [](const Activity::GroupActivity &g) {
                         return textCell(std::to_string(g.fileChangeBytes));
                     }},
                {.header = "CACHE",
                 .key = "file_bytes",
                 .width = 10,
                 .format = Format::Bytes,
                 .help = "its page cache now (memory.stat file)",
                 .value =
                     [](const Activity::GroupActivity &g) {
                         return countCell(g.fileBytes);
                     }},
                {.header = "REFAULTS",
                 .key = "refaults",
                 .width = 9,
                 .format = Format::Count,
                 .help = "pages read again after they were evicted (memory.stat workingset_refault_file)",
                 .value =
                     [](const Activity::GroupActivity &g) {
                         return countCell(g.refaults.value_or(0));
                     },
                 .inJson =
                     [](const Activity::GroupActivity &g) {
                         return g.refaults.has_value();
                     },
                 .inText =
                     [](const Activity::GroupActivity &g) {
                         return g.refaults.has_value();
                     }},
                {.header = "PRESSURE",
                 .key = "pressure_some_avg10",
                 .width = 9,
                 .format = Format::Json,
                 .help = "the share of the last 10 s some of its tasks waited for memory, in % (memory.pressure)",
                 .value =
                     [](const Activity::GroupActivity &g) {
                         char text[32];
                         std::snprintf(text, sizeof text, "%.2f", g.pressureSomeAvg10.value_or(0));
                         return textCell(text);
                     },
                 .text =
                     [](const Activity::GroupActivity &g, bool) {
                         char text[32];
                         std::snprintf(text, sizeof text, "%.2f%%", g.pressureSomeAvg10.value_or(0));
                         return std::string(text);
                     },
                 .inJson =
                     [](const Activity::GroupActivity &g) {
                         return g.pressureSomeAvg10.has_value();
                     },
                 .inText =
                     [](const Activity::GroupActivity &g) {
                         return g.pressureSomeAvg10.has_value();
                     }},
                {.key = "cgroup",
                 .format = Format::Text,
                 .value =
                     [](const Activity::GroupActivity &g) {
                         return textCell(g.cgroupPath);
                     }},
                {.key = "method",
                 .format = Format::Text,
                 .help = "the file the figures come from",
                 .value =
                     [](const Activity::GroupActivity &) {
                         return textCell(Activity::groupsMethod);
                     }},
                {.header = "GROUP",
                 .key = "name",
                 .align = Align::Left,
                 .format = Format::Text,
                 .help = "the application, service or cgroup",
                 .value =
                     [](const Activity::GroupActivity &g) {
                         return textCell(printableText(g.name));
                     }},
            },
    };
    return table;
}

const Table<Activity::ProcessIo> &ioTable()
{
    static const Table<Activity::ProcessIo> table = {
        .columns =
            {
                {.header = "PID",
                 .key = "pid",
                 .width = 8,
                 .format = Format::Count,
                 .value =
                     [](const Activity::ProcessIo &p) {
                         return countCell(uint64_t(p.pid));
                     }},
                {.header = "FROM DISK",
                 .key = "read_bytes",
                 .width = 10,
                 .format = Format::Bytes,
                 .help = "read from storage into the cache on its behalf (/proc/PID/io read_bytes)",
                 .value =
                     [](const Activity::ProcessIo &p) {
                         return countCell(p.readBytes);
                     }},
                {.header = "READ",
                 .key = "read_call_bytes",
                 .width = 10,
                 .format = Format::Bytes,
                 .help = "asked for by its read calls, from the cache or not (rchar)",
                 .value =
                     [](const Activity::ProcessIo &p) {
                         return countCell(p.readCalls);
                     }},
                {.header = "TO DISK",
                 .key = "write_bytes",
                 .width = 10,
                 .format = Format::Bytes,
                 .help = "caused to be written to storage (write_bytes)",
                 .value =
                     [](const Activity::ProcessIo &p) {
                         return countCell(p.writeBytes);
                     }},
                {.key = "method",
                 .format = Format::Text,
                 .value =
                     [](const Activity::ProcessIo &) {
                         return textCell(Activity::processesMethod);
                     }},
                {.header = "COMMAND",
                 .key = "command",
                 .align = Align::Left,
                 .format = Format::Text,
                 .value =
                     [](const Activity::ProcessIo &p) {
                         return textCell(printableText(p.command));
                     }},
            },
    };
    return table;
}

void appendOwnJson(std::string &out, const Activity::OwnInterval &interval, size_t limit)
{
    out += "{\"command\":\"activity\",\"method\":\"unprivileged\",";
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.3f", interval.seconds);
    out += "\"seconds\":";
    out += seconds;
    out += ',';
    appendJsonBool(out, "groups_found", interval.groupsFound);
    if (!interval.groupsFound) {
        out += ',';
        appendJsonText(out, "groups_reason", interval.groupsReason);
    }
    out += ",\"groups\":[";
    for (size_t i = 0; i < std::min(limit, interval.groups.size()); ++i) {
        out += i ? "," : "";
        groupTable().appendJson(out, interval.groups[i]);
    }
    out += "],\"processes\":[";
    for (size_t i = 0; i < std::min(limit, interval.processes.size()); ++i) {
        out += i ? "," : "";
        ioTable().appendJson(out, interval.processes[i]);
    }
    out += "],";
    appendJsonNumber(out, "processes_unreadable", interval.processesUnreadable);
    out += "}\n";
}

void appendOwnText(std::string &out, const Activity::OwnInterval &interval, size_t limit, bool raw)
{
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", interval.seconds);
    out += "Over " + std::string(seconds)
        + " s, from what you may read (memory.stat and memory.pressure of each group, /proc/PID/io of your processes; --privileged shows every "
          "process and file):\n\n";
    if (interval.groupsFound) {
        groupTable().appendHeader(out);
        for (size_t i = 0; i < std::min(limit, interval.groups.size()); ++i) {
            groupTable().appendText(out, interval.groups[i], raw);
        }
    } else {
        out += "No memory cgroups: " + interval.groupsReason + '\n';
    }
    out += '\n';
    ioTable().appendHeader(out);
    for (size_t i = 0; i < std::min(limit, interval.processes.size()); ++i) {
        ioTable().appendText(out, interval.processes[i], raw);
    }
    if (interval.processesUnreadable > 0) {
        out += std::to_string(interval.processesUnreadable) + " of your processes could not be read (set-user-ID programs, or ended)\n";
    }
    out += '\n';
}

double monotonicSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return double(now.tv_sec) + double(now.tv_nsec) / 1e9;
}

// Without --privileged, not root: what this user may read, from two
// samples each interval (or the run's two ends with --duration).
int runOwnActivity(Context &context, double interval, std::optional<double> duration, size_t limit)
{
    Activity::OwnActivitySampler sampler;
    (void)sampler.sample(monotonicSeconds());
    const CancelScope cancelScope;
    for (;;) {
        if (sleepUnlessInterrupted(duration.value_or(interval))) {
            return interruptExitCode();
        }
        const std::optional<Activity::OwnInterval> part = sampler.sample(monotonicSeconds());
        if (part) {
            if (context.json) {
                appendOwnJson(context.out.buffer, *part, limit);
            } else {
                appendOwnText(context.out.buffer, *part, limit, context.rawBytes);
            }
            context.out.flush();
        }
        if (duration) {
            return ExitSuccess;
        }
    }
}

std::optional<double> secondsOption(const ParsedArgs &args, const char *name, double minimum, double maximum, int &exitCode)
{
    const std::optional<std::string> text = args.value(name);
    if (!text) {
        return std::nullopt;
    }
    const std::optional<double> seconds = parseSeconds(*text);
    if (!seconds || *seconds < minimum || *seconds > maximum) {
        char range[64];
        std::snprintf(range, sizeof range, "%g to %g", minimum, maximum);
        exitCode = usageError(args.command, std::string("--") + name + ": '" + *text + "' is not a number of seconds from " + range);
    }
    return seconds;
}

int runActivity(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    uint64_t limit = 10;
    if (!countOption(args, "count", 1, 50, limit, exitCode)) {
        return exitCode;
    }
    const std::optional<double> interval = secondsOption(args, "interval", 0.2, 60, exitCode);
    if (exitCode != ExitSuccess) {
        return exitCode;
    }
    const std::optional<double> duration = secondsOption(args, "duration", 1, 24 * 3600, exitCode);
    if (exitCode != ExitSuccess) {
        return exitCode;
    }
    if (!args.has("privileged") && geteuid() != 0) {
        return runOwnActivity(context, interval.value_or(1.0), duration, size_t(limit));
    }
    // The helper runs for whole seconds (its Activity method's argument).
    if (duration && std::floor(*duration) != *duration) {
        return usageError(args.command,
                          "--duration: '" + *args.value("duration")
                              + "' is not whole seconds; watching all users (--privileged, or as root) runs for whole seconds");
    }
    const int intervalMs = int(interval.value_or(1.0) * 1000);
    std::atomic<bool> cancel{false};
    const CancelScope cancelScope([&cancel] {
        cancel = true;
    });
    // Each interval as it comes; with --duration only the run's totals.
    const auto onInterval = [&](const Activity::Interval &part) {
        if (duration) {
            return;
        }
        if (context.json) {
            appendJson(context.out.buffer, part, limit, {});
        } else {
            appendText(context.out.buffer, part, limit, context.rawBytes);
        }
        context.out.flush();
    };
    // The helper runs at most an hour at a time: longer runs are several.
    double left = duration.value_or(0);
    Activity::Interval totals;
    std::string endReason;
    do {
        const int seconds = duration ? int(std::min<double>(std::max(left, 1.0), 3600)) : 3600;
        Activity::Interval run;
        std::string error;
        if (!activityFromHelper(seconds, intervalMs, onInterval, cancel, run, endReason, error)) {
            printError("activity: " + error);
            return ExitFailures;
        }
        Activity::addInto(totals, run, 50);
        left -= seconds;
    } while (!cancel && (!duration || left >= 1));
    if (duration) {
        if (context.json) {
            appendJson(context.out.buffer, totals, limit, endReason);
        } else {
            appendText(context.out.buffer, totals, limit, context.rawBytes);
        }
    }
    if (cancel) {
        context.out.flush();
        if (duration) {
            printError("interrupted: the totals above are partial");
        }
        return interruptExitCode();
    }
    return ExitSuccess;
}

} // namespace

Command activityCommand()
{
    return {{"activity",
             "",
             "who fills the page cache right now: pages brought in, evicted and dirtied, by process and by file",
             "Watches the kernel's page-cache events of the whole system (every\n"
             "user's) and prints, each interval, the processes and the files that\n"
             "brought pages into the cache, evicted them (by reclaim: kswapd, kdamond or a\n"
             "process short of memory; or dropped otherwise: truncation, fadvise,\n"
             "drop_caches) and dirtied them, the most active first. The events are\n"
             "counted by the privileged helper (polkit asks for the administrator's\n"
             "password each time) or, as root, in this process; only their sums\n"
             "leave it. Events the kernel's buffer lost are counted and said. With\n"
             "--duration, one table of the run's totals at its end.\n"
             "Without --privileged and not root: what you may read, each figure\n"
             "with its file: per memory cgroup (an application, a service) how its\n"
             "page cache grew or shrank, its refaults and its memory pressure\n"
             "(memory.stat, memory.pressure), and per process of yours its reads\n"
             "from storage and its writes (/proc/PID/io).",
             withCommonOptions({{0, "privileged", nullptr, "every process and file, from the kernel's events: asks the privileged helper"},
                                {0, "interval", "S", "seconds between reports (0.2 to 60; default 1)"},
                                {0, "duration", "S", "run this long, then print the totals (default: until Ctrl+C, each interval)"},
                                {'n', "count", "N", "the N most active processes and files (1 to 50; default 10)"}}),
             "  cachescope-cli activity\n"
             "  cachescope-cli activity --privileged\n"
             "  sudo cachescope-cli activity --duration 10 --json | jq '.processes[0]'\n",
             0,
             0},
            runActivity};
}

} // namespace Cachescope::Cli
