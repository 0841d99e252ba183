// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli-privileged: the commands of cachescope-cli that go to the
// privileged helper (drop-caches, swap, status --privileged, trace
// --privileged, the experiments' privileged steps, run). cachescope-cli runs
// this program for them, so that only they pay for loading the helper's
// client (src/privileged: QtDBus, and the helper's actions for root).

#include "commands.h"
#include "experimentcommand.h"
#include "pathcodec.h"
#include "privileged.h"
#include "processlimits.h"
#include "runcommand.h"

#include <QCoreApplication>
#include <QFile>

#include <algorithm>
#include <string>

using namespace Cachescope::Cli;
namespace Privileged = Cachescope::Privileged;

namespace
{

bool helperReachable(std::string_view command)
{
    QString reason;
    if (Privileged::helperAvailable(&reason)) {
        return true;
    }
    printError(std::string(command) + ": the privileged helper is not available: " + reason.toStdString());
    return false;
}

int failed(std::string_view command, const Privileged::Result &result)
{
    printError(std::string(command) + ": " + result.message.toStdString());
    return ExitFailures;
}

// The memory figures drop-caches reports, declared once for its text table
// (a row each, before and after, in this order: what a drop changes first;
// those without a label are JSON only) and its JSON ("before" and "after").
struct MemoryFigure {
    const char *label;
    const char *jsonKey;
    uint64_t Privileged::MemoryFigures::*value;
};
constexpr MemoryFigure memoryFigures[] = {
    {"cached", "cached", &Privileged::MemoryFigures::cached},
    {"buffers", "buffers", &Privileged::MemoryFigures::buffers},
    {"free", "mem_free", &Privileged::MemoryFigures::memFree},
    {"available", "mem_available", &Privileged::MemoryFigures::memAvailable},
    {"dirty", "dirty", &Privileged::MemoryFigures::dirty},
    {nullptr, "mem_total", &Privileged::MemoryFigures::memTotal},
};

void appendMemoryJson(std::string &json, const char *key, const Privileged::MemoryFigures &m)
{
    json += '"';
    json += key;
    json += "\":{";
    bool first = true;
    for (const MemoryFigure &figure : memoryFigures) {
        if (!first) {
            json += ',';
        }
        first = false;
        appendJsonNumber(json, figure.jsonKey, m.*figure.value);
    }
    json += '}';
}

int runDropCaches(Context &context, const ParsedArgs &args)
{
    const std::string &text = args.positional.front();
    int level = 0;
    if (text == "1" || text == "pagecache") {
        level = 1;
    } else if (text == "2" || text == "slab") {
        level = 2;
    } else if (text == "3" || text == "all") {
        level = 3;
    } else {
        return usageError("drop-caches", "LEVEL is 1 (pagecache), 2 (slab) or 3 (all), not '" + text + "'");
    }
    if (!helperReachable("drop-caches")) {
        return ExitFailures;
    }
    const Privileged::DropCachesResult result = Privileged::dropCaches(level);
    if (!result.ok()) {
        return failed("drop-caches", result);
    }
    std::string &out = context.out.buffer;
    if (context.json) {
        out += "{\"command\":\"drop-caches\",";
        appendJsonNumber(out, "level", uint64_t(level));
        out += ',';
        appendMemoryJson(out, "before", result.before);
        out += ',';
        appendMemoryJson(out, "after", result.after);
        out += "}\n";
        return ExitSuccess;
    }
    static const char *const what[] = {"", "the page cache", "the dentry and inode caches", "the page cache and the dentry and inode caches"};
    out += std::string("Dropped ") + what[level] + " (level " + std::to_string(level) + ").\n\n";
    out += padRight("", 12) + padLeft("before", 12) + padLeft("after", 12) + '\n';
    for (const MemoryFigure &figure : memoryFigures) {
        if (figure.label) {
            out += padRight(figure.label, 12) + padLeft(sizeText(result.before.*figure.value, context.rawBytes), 12)
                + padLeft(sizeText(result.after.*figure.value, context.rawBytes), 12) + '\n';
        }
    }
    return ExitSuccess;
}

int reportSwap(Context &context, std::string_view command, const Privileged::SwapResult &result, const char *verb)
{
    if (!result.ok()) {
        return failed(command, result);
    }
    std::string &out = context.out.buffer;
    if (context.json) {
        out += "{\"command\":";
        Cachescope::appendJsonString(out, command);
        out += ",\"areas\":[";
        for (qsizetype i = 0; i < result.areas.size(); ++i) {
            out += i ? ",{" : "{";
            appendJsonText(out, "area", result.areas.at(i).toStdString());
            if (i < result.priorities.size()) {
                out += ",\"priority\":" + std::to_string(result.priorities.at(i));
            }
            out += '}';
        }
        out += "]}\n";
        return ExitSuccess;
    }
    for (qsizetype i = 0; i < result.areas.size(); ++i) {
        out += std::string(verb) + " swap on " + result.areas.at(i).toStdString();
        if (i < result.priorities.size()) {
            out += " (priority " + std::to_string(result.priorities.at(i)) + ")";
        }
        out += ".\n";
    }
    return ExitSuccess;
}

int runSwapOff(Context &context, const ParsedArgs &args)
{
    if (!helperReachable("swap off")) {
        return ExitFailures;
    }
    const auto result = args.positional.empty() ? Privileged::swapOffAll() : Privileged::swapOff(QFile::decodeName(args.positional.front().c_str()));
    return reportSwap(context, "swap off", result, "Turned off");
}

int runSwapOn(Context &context, const ParsedArgs &args)
{
    if (!helperReachable("swap on")) {
        return ExitFailures;
    }
    const auto result = args.positional.empty() ? Privileged::swapOnAll() : Privileged::swapOn(QFile::decodeName(args.positional.front().c_str()));
    return reportSwap(context, "swap on", result, "Turned on");
}

int reportDone(Context &context, std::string_view command, const Privileged::Result &result, const std::string &sentence)
{
    if (!result.ok()) {
        return failed(command, result);
    }
    if (context.json) {
        context.out.buffer += "{\"command\":";
        Cachescope::appendJsonString(context.out.buffer, command);
        context.out.buffer += ",\"done\":true}\n";
    } else {
        context.out.buffer += sentence + '\n';
    }
    return ExitSuccess;
}

int runSwapCreateFile(Context &context, const ParsedArgs &args)
{
    const auto bytes = parseBytes(args.positional.front());
    if (!bytes) {
        return usageError("swap create-file", "SIZE must be a size such as 512M or 2G, not '" + args.positional.front() + "'");
    }
    if (!helperReachable("swap create-file")) {
        return ExitFailures;
    }
    return reportDone(context,
                      "swap create-file",
                      Privileged::createExperimentSwapFile(qint64(*bytes)),
                      "Made the experiment swap file (" + sizeText(*bytes, context.rawBytes) + ") and turned it on.");
}

int runSwapRemoveFile(Context &context, const ParsedArgs &)
{
    if (!helperReachable("swap remove-file")) {
        return ExitFailures;
    }
    return reportDone(context, "swap remove-file", Privileged::removeExperimentSwapFile(), "Turned off and removed the experiment swap file.");
}

bool privilegedAccount(Cachescope::CacheAccount &account, std::string &error)
{
    QString reason;
    if (!Privileged::helperAvailable(&reason)) {
        error = "the privileged helper is not available: " + reason.toStdString();
        return false;
    }
    Privileged::AccountResult result = Privileged::accountOfSystem();
    if (!result.ok()) {
        error = result.message.toStdString();
        return false;
    }
    account = std::move(result.account);
    return true;
}

bool privilegedActivity(int seconds,
                        int intervalMs,
                        const std::function<void(const Cachescope::Activity::Interval &)> &onInterval,
                        const std::atomic<bool> &cancel,
                        Cachescope::Activity::Interval &run,
                        std::string &endReason,
                        std::string &error)
{
    QString reason;
    if (!Privileged::helperAvailable(&reason)) {
        error = "the privileged helper is not available: " + reason.toStdString();
        return false;
    }
    Privileged::ActivityResult result = Privileged::activity(seconds, intervalMs, onInterval, &cancel);
    if (!result.ok()) {
        error = result.message.toStdString();
        return false;
    }
    run = std::move(result.totals);
    endReason = result.endReason.toStdString();
    return true;
}

bool privilegedResidency(const std::vector<std::string> &paths,
                         int buckets,
                         std::vector<Cachescope::Residency> &residencies,
                         std::vector<Cachescope::Histogram> &histograms,
                         std::string &error)
{
    QString reason;
    if (!Privileged::helperAvailable(&reason)) {
        error = "the privileged helper is not available: " + reason.toStdString();
        return false;
    }
    QList<QByteArray> names;
    for (const std::string &path : paths) {
        names.append(QByteArray::fromStdString(path));
    }
    // The client sends them HelperProtocol::maxPathsPerCall at a time.
    const Privileged::ResidencyResult result = Privileged::residencyOfPaths(names, std::clamp(buckets, 1, 4096));
    if (!result.ok()) {
        error = result.message.toStdString();
        return false;
    }
    for (const Privileged::FileResidency &file : result.files) {
        Cachescope::Residency residency;
        Cachescope::Histogram histogram;
        if (!file.error.isEmpty()) {
            // Not an errno of ours: the helper's sentence for this file.
            residency.error = EIO;
            residency.errorText = "the privileged helper: " + file.error.toStdString();
            residencies.push_back(residency);
            histograms.push_back(std::move(histogram));
            continue;
        }
        residency.method = file.method == QLatin1String("cachestat") ? Cachescope::ResidencyMethod::Cachestat : Cachescope::ResidencyMethod::Mincore;
        residency.hidden = file.hidden;
        residency.sizeBytes = file.sizeBytes;
        residency.pages = file.pages;
        residency.resident = file.resident;
        residency.detail = file.detail;
        residency.dirty = file.dirty;
        residency.writeback = file.writeback;
        residencies.push_back(residency);
        if (buckets > 0) {
            histogram.method = residency.method;
            histogram.pages = file.pages;
            histogram.resident = file.histogram;
        }
        histograms.push_back(std::move(histogram));
    }
    return true;
}

// The experiment variants that go to the helper: drop_caches, swap off and on.
bool stepSucceeded(const Privileged::Result &result, std::string &error)
{
    if (result.ok()) {
        return true;
    }
    error = result.message.toStdString();
    return false;
}

bool stepReachable(std::string &error)
{
    QString reason;
    if (Privileged::helperAvailable(&reason)) {
        return true;
    }
    error = "the privileged helper is not available: " + reason.toStdString();
    return false;
}

Cachescope::Experiments::PrivilegedSteps experimentSteps()
{
    Cachescope::Experiments::PrivilegedSteps steps;
    steps.dropCaches = [](std::string &error) {
        return stepReachable(error) && stepSucceeded(Privileged::dropCaches(3), error);
    };
    steps.swapOff = [](std::string &error) {
        return stepReachable(error) && stepSucceeded(Privileged::swapOffAll(), error);
    };
    steps.swapOn = [](std::string &error) {
        return stepReachable(error) && stepSucceeded(Privileged::swapOnAll(), error);
    };
    steps.swapFileOn = [](uint64_t bytes, std::string &error) {
        return stepReachable(error) && stepSucceeded(Privileged::createExperimentSwapFile(qint64(bytes)), error);
    };
    steps.swapFileOff = [](std::string &error) {
        return stepReachable(error) && stepSucceeded(Privileged::removeExperimentSwapFile(), error);
    };
    steps.trace = [](int pid,
                     int maxSeconds,
                     const std::function<void()> &tracingOn,
                     const std::atomic<bool> &cancel,
                     Cachescope::Trace::Capture &capture,
                     std::string &error) {
        if (!stepReachable(error)) {
            return false;
        }
        Privileged::TraceResult result = Privileged::trace(pid, maxSeconds, tracingOn, &cancel);
        if (!stepSucceeded(result, error)) {
            return false;
        }
        capture = std::move(result.capture);
        return true;
    };
    steps.contain = [](int pid, uint64_t limitBytes, Cachescope::Experiments::ContainedGroup &group, std::string &error) {
        if (!Privileged::userManagerAvailable() && !stepReachable(error)) {
            return false;
        }
        const Privileged::ContainResult result = Privileged::contain(pid, qint64(limitBytes));
        if (!stepSucceeded(result, error)) {
            return false;
        }
        group = {result.cgroupPath.toStdString(), result.version, uint64_t(result.limitBytes), result.how.toStdString()};
        return true;
    };
    return steps;
}

} // namespace

int main(int argc, char **argv)
{
    // status --privileged and the experiments open files as cachescope-cli
    // does (the parallel walker keeps many folder descriptors open).
    Cachescope::raiseOpenFileLimit();
    // The client waits for the helper's answers in an event loop.
    QCoreApplication application(argc, argv);
    setRunner("drop-caches", runDropCaches);
    setRunner("swap off", runSwapOff);
    setRunner("swap on", runSwapOn);
    setRunner("swap create-file", runSwapCreateFile);
    setRunner("swap remove-file", runSwapRemoveFile);
    setPrivilegedResidency(privilegedResidency);
    setPrivilegedAccount(privilegedAccount);
    setPrivilegedActivity(privilegedActivity);
    const Cachescope::Experiments::PrivilegedSteps steps = experimentSteps();
    setExperimentPrivilegedSteps(steps);
    setRunner("run", runContainedCommand);
    setRunContainStep(steps.contain);
    return runCli(argc, argv);
}
