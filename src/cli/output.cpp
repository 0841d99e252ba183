// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "output.h"

#include "pathcodec.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace Cli
{

namespace
{
void writeAll(int fd, std::string_view data)
{
    while (!data.empty()) {
        const ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return; // stdout closed (EPIPE with SIGPIPE ignored): nothing to tell anyone
        }
        data.remove_prefix(size_t(n));
    }
}

size_t displayWidth(std::string_view text)
{
    size_t width = 0;
    for (unsigned char c : text) {
        width += (c & 0xC0) != 0x80 ? 1 : 0;
    }
    return width;
}
} // namespace

void Writer::flush()
{
    writeAll(STDOUT_FILENO, buffer);
    buffer.clear();
}

void printError(std::string_view message)
{
    std::string line = "cachescope-cli: ";
    line += message;
    line += '\n';
    writeAll(STDERR_FILENO, line);
}

void Context::report(std::string_view path, std::string_view reason, bool skipped)
{
    std::string line = "cachescope-cli: ";
    line += path; // raw bytes, as the file system has them
    line += ": ";
    line += reason;
    line += '\n';
    const std::lock_guard lock(mutex);
    writeAll(STDERR_FILENO, line);
    problems.push_back(Problem{std::string(path), std::string(reason), skipped});
    if (!skipped) {
        ++failures;
    }
}

void Context::fail(std::string_view path, std::string_view reason)
{
    report(path, reason, false);
}

void Context::skip(std::string_view path, std::string_view reason)
{
    report(path, reason, true);
}

void Context::addWalkProblem(const Cachescope::WalkProblem &problem)
{
    report(problem.path, problem.reason, problem.skipped);
}

std::vector<Problem> Context::takeProblems()
{
    const std::lock_guard lock(mutex);
    return std::move(problems);
}

void Context::appendProblemsJson(std::string &json)
{
    const std::lock_guard lock(mutex);
    json += "\"problems\":[";
    bool first = true;
    for (const Problem &problem : problems) {
        if (!first) {
            json += ',';
        }
        first = false;
        json += '{';
        Cachescope::appendJsonPath(json, problem.path);
        json += ',';
        appendJsonText(json, "reason", problem.reason);
        json += ',';
        appendJsonBool(json, "skipped", problem.skipped);
        json += '}';
    }
    json += ']';
}

std::string sizeText(uint64_t bytes, bool raw)
{
    if (raw || bytes < 1024) {
        return raw ? std::to_string(bytes) : std::to_string(bytes) + " B";
    }
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = double(bytes) / 1024.0;
    int unit = 0;
    while (value >= 1023.95 && unit < 5) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

std::string percentText(uint64_t part, uint64_t whole)
{
    if (whole == 0) {
        return "-";
    }
    char text[16];
    std::snprintf(text, sizeof text, "%.1f%%", 100.0 * double(part) / double(whole));
    return text;
}

void appendJsonPercent(std::string &json, uint64_t part, uint64_t whole)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.2f", whole == 0 ? 0.0 : 100.0 * double(part) / double(whole));
    json += text;
}

void appendJsonNumber(std::string &json, std::string_view key, uint64_t value)
{
    json += '"';
    json += key;
    json += "\":";
    json += std::to_string(value);
}

void appendJsonBool(std::string &json, std::string_view key, bool value)
{
    json += '"';
    json += key;
    json += "\":";
    json += value ? "true" : "false";
}

void appendJsonText(std::string &json, std::string_view key, std::string_view text)
{
    json += '"';
    json += key;
    json += "\":";
    Cachescope::appendJsonString(json, Cachescope::isValidUtf8(text) ? std::string(text) : Cachescope::toDisplayUtf8(text));
}

std::string padLeft(std::string_view text, size_t width)
{
    const size_t have = displayWidth(text);
    std::string padded;
    if (have < width) {
        padded.assign(width - have, ' ');
    }
    padded += text;
    return padded;
}

std::string padRight(std::string_view text, size_t width)
{
    std::string padded(text);
    const size_t have = displayWidth(text);
    if (have < width) {
        padded.append(width - have, ' ');
    }
    return padded;
}

void appendTotalsJson(std::string &json, const Cachescope::WalkTotals &totals, TotalsFields fields)
{
    appendJsonNumber(json, "files", totals.files);
    json += ',';
    appendJsonNumber(json, "directories", totals.directories);
    json += ',';
    appendJsonNumber(json, "bytes", totals.bytes);
    json += ',';
    appendJsonNumber(json, "pages", totals.pages);
    json += ',';
    appendJsonNumber(json, "resident", totals.resident);
    json += ",\"cached_percent\":";
    appendJsonPercent(json, totals.resident, totals.pages - std::min(totals.pages, totals.hiddenPages));
    json += ',';
    if (fields == TotalsFields::Status) {
        appendJsonNumber(json, "dirty", totals.dirty);
        json += ',';
        appendJsonNumber(json, "writeback", totals.writeback);
        json += ',';
        appendJsonNumber(json, "evicted", totals.evicted);
        json += ',';
        appendJsonNumber(json, "recently_evicted", totals.recentlyEvicted);
        json += ',';
    } else {
        appendJsonNumber(json, "resident_after", totals.residentAfter);
        json += ',';
    }
    if (fields == TotalsFields::Evict) {
        appendJsonNumber(json, "remained", totals.remained);
        json += ',';
    }
    appendJsonNumber(json, "hidden_files", totals.hiddenFiles);
    json += ',';
    appendJsonNumber(json, "hidden_pages", totals.hiddenPages);
    json += ',';
    appendJsonNumber(json, "hard_links", totals.hardLinks);
    json += ',';
    appendJsonNumber(json, "skipped", totals.skipped);
    json += ',';
    appendJsonNumber(json, "errors", totals.errors);
}

void addFileToTotals(Cachescope::WalkTotals &totals, uint64_t size, const Cachescope::Residency &residency)
{
    totals.files += 1;
    totals.bytes += size;
    totals.pages += residency.pages;
    if (residency.hidden) {
        totals.hiddenFiles += 1;
        totals.hiddenPages += residency.pages;
    } else if (residency.ok()) {
        totals.resident += residency.resident;
        totals.dirty += residency.dirty;
        totals.writeback += residency.writeback;
        totals.evicted += residency.evicted;
        totals.recentlyEvicted += residency.recentlyEvicted;
    }
}

} // namespace Cli
