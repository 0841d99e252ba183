// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli meminfo: memory totals as free(1) shows them, plus dirty and writeback.

#include "commandoptions.h"

#include "procfs.h"

#include <chrono>
#include <ctime>

namespace Cachescope::Cli
{

namespace
{

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

// free(1)'s layout: rows Mem, Swap and Dirty, a column a figure.
void appendMemInfoText(std::string &out, const FreeFigures &f, uint64_t dirty, uint64_t writeback, bool raw)
{
    const size_t width = 12;
    const auto cells = [&](std::initializer_list<uint64_t> values) {
        std::string line;
        for (const uint64_t value : values) {
            line += padLeft(sizeText(value, raw), width);
        }
        return line;
    };
    out += padRight("", 7) + padLeft("total", width) + padLeft("used", width) + padLeft("free", width) + padLeft("shared", width) + padLeft("buff/cache", width)
        + padLeft("available", width) + '\n';
    out += padRight("Mem:", 7) + cells({f.total, f.used, f.free, f.shared, f.buffCache, f.available}) + '\n';
    out += padRight("Swap:", 7) + cells({f.swapTotal, f.swapUsed, f.swapFree}) + '\n';
    out += padRight("Dirty:", 7) + cells({dirty}) + "   Writeback: " + sizeText(writeback, raw) + '\n';
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
    if (!context.json) {
        appendMemInfoText(out, f, dirty, writeback, context.rawBytes);
        return true;
    }
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

int runMemInfo(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    uint64_t count = 0;
    double interval = 0;
    if (!watchOptionsFrom(args, interval, count, exitCode)) {
        return exitCode;
    }
    const std::string procRoot = args.value("proc").value_or("/proc");
    return repeatEvery(context, interval, count, [&](uint64_t round) {
        if (round > 0 && !context.json) {
            context.out.buffer += '\n';
        }
        return appendMemInfo(context, procRoot);
    });
}

} // namespace

Command meminfoCommand()
{
    return {{"meminfo",
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
            runMemInfo};
}

} // namespace Cachescope::Cli
