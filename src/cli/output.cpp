// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "output.h"

#include "cachescope_cli_debug.h"
#include "format.h"
#include "pathcodec.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

namespace Cachescope::Cli
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

void Context::addWalkProblem(const WalkProblem &problem)
{
    if (problem.skipped && !problem.named) {
        // A device, FIFO or socket met while walking (a walk of / meets
        // hundreds in /dev): in the JSON document's problems and counted in
        // the summary (specialFilesNote), not a line each on stderr.
        const std::lock_guard lock(mutex);
        problems.push_back(Problem{problem.path, problem.reason, true});
        return;
    }
    report(problem.path, problem.reason, problem.skipped);
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
        appendJsonPath(json, problem.path);
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
    return raw ? std::to_string(bytes) : formatBytes(bytes).toStdString();
}

std::string percentText(uint64_t part, uint64_t whole)
{
    if (whole == 0) {
        return "-";
    }
    char text[16];
    std::snprintf(text, sizeof text, "%.1f%%", percentShown(part, whole, 1));
    return text;
}

void appendJsonPercent(std::string &json, uint64_t part, uint64_t whole)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.2f", percentShown(part, whole, 2));
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
    appendJsonString(json, isValidUtf8(text) ? std::string(text) : toDisplayUtf8(text));
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

std::string printableText(std::string text)
{
    for (size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 || c == 0x7f) {
            text[i] = '?';
        } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 && static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
            text.replace(i, 2, "?"); // a C1 control (U+0080 to U+009F)
        }
    }
    return text;
}

} // namespace Cachescope::Cli
