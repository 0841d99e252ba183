// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli trace: which pages of which files a command made the kernel
// read, in which order, grouped into extents (the trace engine of
// src/core/experiments/trace.cpp).

#include "commandoptions.h"
#include "companion.h"
#include "experimentcommand.h"
#include "interrupt.h"
#include "table.h"

#include "atomicfile.h"
#include "cachescope_cli_debug.h"
#include "experiments/engines.h"
#include "format.h"
#include "residency.h"

#include <QJsonDocument>

#include <cstdio>
#include <memory>
#include <optional>
#include <unistd.h>

namespace Cachescope::Cli
{

using namespace Experiments;

namespace
{

std::string secondsText(double seconds)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.4f s", seconds);
    return text;
}

// A row of the files table: one file of the report.
struct FileRow {
    const Trace::Report &report;
    const Trace::File &file;
};

const Table<FileRow> &fileTable()
{
    static const Table<FileRow> table = {
        .columns =
            {
                {.header = "READ",
                 .width = 10,
                 .format = Format::Pages,
                 .help = "pages the command made the kernel read into the cache",
                 .value =
                     [](const FileRow &r) {
                         return countCell(r.file.pagesAdded);
                     }},
                {.header = "ASKED",
                 .width = 10,
                 .format = Format::Pages,
                 .help = "of those, pages the program used (read, faulted); - where the kernel does not tell",
                 .value =
                     [](const FileRow &r) {
                         return countCell(r.file.pagesAsked);
                     },
                 .inText =
                     [](const FileRow &r) {
                         return r.report.usageKnown && !r.file.metadata;
                     }},
                {.header = "READAHEAD",
                 .width = 10,
                 .format = Format::Pages,
                 .help = "pages only readahead brought in",
                 .value =
                     [](const FileRow &r) {
                         return countCell(r.file.pagesAdded - std::min(r.file.pagesAsked, r.file.pagesAdded));
                     },
                 .inText =
                     [](const FileRow &r) {
                         return r.report.usageKnown && !r.file.metadata;
                     }},
                {.header = "EVICTED",
                 .width = 10,
                 .format = Format::Pages,
                 .help = "pages of it evicted (tracefs) or reclaimed (residency-diff) while the command ran",
                 .value =
                     [](const FileRow &r) {
                         return countCell(r.file.pagesDeleted);
                     }},
                {.header = "FILE",
                 .align = Align::Left,
                 .format = Format::Text,
                 .help = "the path; metadata of DISK for the file system's own pages; DEV:INODE when it could not be named",
                 .value =
                     [](const FileRow &r) {
                         return textCell(r.file.displayName());
                     },
                 .text =
                     [](const FileRow &r, bool) {
                         return r.file.displayName();
                     }},
            },
        .indent = "  ",
    };
    return table;
}

// A row of the extents table: the seed's "offset, length", in bytes.
struct ExtentRow {
    const Trace::Report &report;
    const Trace::Extent &extent;
};

const Table<ExtentRow> &extentTable()
{
    static const Table<ExtentRow> table = {
        .columns =
            {
                {.header = "START",
                 .width = 10,
                 .format = Format::Text,
                 .help = "seconds since the command started",
                 .value =
                     [](const ExtentRow &r) {
                         return textCell(secondsText(r.extent.startSeconds));
                     },
                 .inText =
                     [](const ExtentRow &r) {
                         return r.report.method == Trace::Method::Tracefs;
                     }},
                {.header = "OFFSET",
                 .width = 14,
                 .help = "bytes into the file (for metadata: into the disk)",
                 .value =
                     [](const ExtentRow &r) {
                         return countCell(r.extent.firstPage * pageSize());
                     }},
                {.header = "LENGTH",
                 .width = 11,
                 .help = "bytes",
                 .value =
                     [](const ExtentRow &r) {
                         return countCell(r.extent.pageCount * pageSize());
                     }},
                {.header = "READAHEAD",
                 .width = 11,
                 .help = "bytes of it only readahead brought in",
                 .value =
                     [](const ExtentRow &r) {
                         return countCell((r.extent.pageCount - std::min(r.extent.askedPages, r.extent.pageCount)) * pageSize());
                     },
                 .inText =
                     [](const ExtentRow &r) {
                         return r.report.usageKnown && !r.report.files.at(size_t(r.extent.file)).metadata;
                     }},
                {.header = "FILE",
                 .align = Align::Left,
                 .format = Format::Text,
                 .help = "as in the files table",
                 .value =
                     [](const ExtentRow &r) {
                         return textCell(r.report.files.at(size_t(r.extent.file)).displayName());
                     },
                 .text =
                     [](const ExtentRow &r, bool) {
                         return r.report.files.at(size_t(r.extent.file)).displayName();
                     }},
            },
        .indent = "  ",
    };
    return table;
}

void appendTraceText(const Context &context, std::string &out, const Result &result)
{
    if (!result.trace) {
        return; // the caller asks only with a trace
    }
    const Trace::Report &report = *result.trace;
    std::string command;
    for (const std::string &argument : report.command) {
        command += (command.empty() ? "" : " ") + argument;
    }
    out += "Trace of " + command + "\n";
    out += "Method: " + std::string(Trace::methodName(report.method)) + ", files recorded with "
        + result.details.value(QStringLiteral("recording_method")).toString().toStdString() + "\n";
    out += "Ran " + secondsText(report.durationSeconds) + ", ";
    out += report.exitStatus >= 0 ? "exit status " + std::to_string(report.exitStatus) : std::string("killed");
    out += " (" + report.endReason + ")\n";

    out += "\nFiles (" + std::to_string(report.files.size()) + "), in the order their first page came in:\n";
    fileTable().appendHeader(out);
    for (const Trace::File &file : report.files) {
        fileTable().appendText(out, {report, file}, context.rawBytes);
    }
    out += "\nExtents (" + std::to_string(report.extents.size()) + "), "
        + (report.method == Trace::Method::Tracefs ? "in the order they were read:\n" : "in file order (the fallback knows no time):\n");
    extentTable().appendHeader(out);
    for (const Trace::Extent &extent : report.extents) {
        extentTable().appendText(out, {report, extent}, context.rawBytes);
    }

    uint64_t metadataPages = 0;
    for (const Trace::File &file : report.files) {
        metadataPages += file.metadata ? file.pagesAdded : 0;
    }
    const uint64_t pages = report.pagesRead();
    out += "\nTotals: " + std::to_string(report.files.size()) + " files, " + std::to_string(pages) + " pages, " + sizeText(pages * pageSize(), context.rawBytes)
        + " read";
    if (metadataPages > 0) {
        out += " (" + std::to_string(metadataPages) + " pages of file-system metadata)";
    }
    out += ", ";
    out += report.usageKnown ? percentText(report.pagesReadaheadOnly(), pages - metadataPages) + " only readahead brought in"
                             : std::string("readahead share unknown");
    out += ", " + std::to_string(report.lostEvents) + " events lost, " + std::to_string(report.requests.size()) + " block requests, method "
        + Trace::methodName(report.method) + "\n";
    // With --runs, what each run read (the tables are the first run's).
    const VariantResult *runs = result.variants.empty() ? nullptr : &result.variants.front();
    const Measurement *pagesOfRuns = runs ? runs->find("pages_read") : nullptr;
    const Measurement *extentsOfRuns = runs ? runs->find("extents") : nullptr;
    if (pagesOfRuns && extentsOfRuns && pagesOfRuns->values.size() > 1) {
        out += "Runs:";
        for (size_t i = 0; i < pagesOfRuns->values.size() && i < extentsOfRuns->values.size(); ++i) {
            out += (i ? ", " : " ") + std::to_string(uint64_t(pagesOfRuns->values[i])) + " pages in " + std::to_string(uint64_t(extentsOfRuns->values[i]))
                + " extents";
        }
        out += '\n';
    }
    for (const std::string &note : report.notes) {
        out += "\nNote: " + note + '\n';
    }
    for (const std::string &note : result.notes) {
        out += "\nNote: " + note + '\n';
    }
}

// What ended the privileged trace before the command ended, its time ran
// out, the helper's event cap was reached or this user pressed Ctrl+C: the
// helper's end reason ("cancelled", "credentials", "failed"; "failed" also
// where the step itself failed) and a sentence for people.
struct EarlyEnd {
    std::string endReason;
    std::string sentence;
};

std::string earlyEndSentence(const std::string &endReason)
{
    if (endReason == "cancelled") {
        return "the helper's trace was cancelled, and not by this program";
    }
    if (endReason == "credentials") {
        return "a traced process changed its credentials (a set-user-ID program, say), so the helper stopped tracing";
    }
    if (endReason == "failed") {
        return "the helper's trace failed";
    }
    return {};
}

// steps with a trace step that notes, in *earlyEnd, the first run whose
// privileged trace ended early (issue 25: the fallback must say what
// ended the better method).
PrivilegedSteps watchingEarlyEnds(const PrivilegedSteps &steps, const std::shared_ptr<std::optional<EarlyEnd>> &earlyEnd)
{
    PrivilegedSteps watched = steps;
    watched.trace = [trace = steps.trace, earlyEnd](int pid,
                                                    int maxSeconds,
                                                    const std::function<void()> &tracingOn,
                                                    const std::atomic<bool> &cancel,
                                                    Trace::Capture &capture,
                                                    std::string &error) {
        const bool traced = trace(pid, maxSeconds, tracingOn, cancel, capture, error);
        if (cancel.load() || earlyEnd->has_value()) {
            return traced; // this user's Ctrl+C, or not the first
        }
        if (!traced) {
            std::string sentence = error.empty() ? earlyEndSentence("failed") : error;
            while (!sentence.empty() && sentence.back() == '.') {
                sentence.pop_back();
            }
            *earlyEnd = EarlyEnd{"failed", sentence};
        } else if (const std::string sentence = earlyEndSentence(capture.endReason); !sentence.empty()) {
            *earlyEnd = EarlyEnd{capture.endReason, sentence};
        }
        return traced;
    };
    return watched;
}

// Whole or not at all: a trace file a run killed in the middle of writing
// leaves the one before it as it was.
bool writeTraceFile(Context &context, const std::string &path, const Trace::Report &report)
{
    const QByteArray bytes = QJsonDocument(Trace::reportToJson(report)).toJson(QJsonDocument::Indented);
    std::string error;
    if (!writeFileAtomically(path, std::string_view(bytes.constData(), size_t(bytes.size())), 0644, &error)) {
        context.fail(path, "cannot write the trace file: " + error);
        return false;
    }
    return true;
}

int runTrace(Context &context, const ParsedArgs &args)
{
    const bool lesson = args.has("lesson");
    if (lesson && !args.positional.empty()) {
        return usageError(args.command, "--lesson runs its own command: give no COMMAND");
    }
    if (!lesson && args.positional.empty()) {
        return usageError(args.command, "the command to trace is missing, after '--' (example: trace -- /usr/bin/cat /etc/hostname), or --lesson");
    }
    if (args.has("privileged") && args.has("fallback")) {
        return usageError(args.command, "--privileged and --fallback exclude each other");
    }
    int exitCode = ExitSuccess;
    uint64_t runs = 1;
    if (!countOption(args, "runs", 1, 100, runs, exitCode)) {
        return exitCode;
    }
    double timeout = TraceParameters().timeoutSeconds;
    if (const std::optional<std::string> text = args.value("timeout")) {
        const std::optional<double> parsed = parseSeconds(*text);
        if (!parsed) {
            return usageError(args.command, "--timeout: '" + *text + "' is not a number of seconds");
        }
        timeout = *parsed;
    }

    const PrivilegedSteps *steps = experimentPrivilegedSteps();
    if (args.has("privileged") && !steps) {
        qCDebug(CACHESCOPE_CLI) << "trace --privileged needs cachescope-cli-privileged";
        return runInPrivilegedCompanion(context.arguments, "trace: ", [](const std::string &lookedFor) {
            return "--privileged needs the privileged helper, through cachescope-cli-privileged (its client), which is not installed: " + lookedFor
                + ". Run without --privileged for the fallback (the residency difference).";
        });
    }
    if (args.has("privileged") && !steps->trace) {
        printError("trace: --privileged: this build's helper client cannot trace. Run without --privileged for the fallback.");
        return ExitFailures;
    }

    TraceParameters p;
    p.command = args.positional;
    p.runs = int(runs);
    p.timeoutSeconds = timeout;
    p.showOutput = args.has("show-output");
    p.forceFallback = args.has("fallback");
    p.forceMapsRecording = args.has("maps");
    p.traceFolder = args.value("folder").value_or(std::string("."));
    if (lesson) {
        std::string lookedFor;
        p.lessonReader = findTraceLessonReader(&lookedFor);
        if (p.lessonReader.empty()) {
            printError("trace: --lesson: its program, cachescope-lesson-reader, is not installed: " + lookedFor);
            return ExitFailures;
        }
    }
    const bool privileged = steps && args.has("privileged");
    const auto earlyEnd = std::make_shared<std::optional<EarlyEnd>>();
    Result result = runEngine(*makeTraceExperiment(p, privileged ? watchingEarlyEnds(*steps, earlyEnd) : PrivilegedSteps()));
    // The privileged trace ended before the command did, and not by this
    // user's hand: fall back to the residency difference, saying why on
    // stderr, in the trace's notes and in details (fallback_reason,
    // privileged_end_reason), and exit 1, since what was asked for failed.
    const std::optional<EarlyEnd> &ended = *earlyEnd;
    const bool fellBack = ended.has_value() && !result.cancelled && !interrupted();
    if (fellBack && ended) {
        const EarlyEnd &end = *ended;
        const std::string why = "the privileged trace ended early (" + end.endReason + ": " + end.sentence + ")";
        qCDebug(CACHESCOPE_CLI) << "trace:" << why.c_str() << "; falling back";
        printError("trace: --privileged: " + why + "; falling back to the residency difference (exact pages, but no order, no time, no metadata)");
        p.fallbackReason = "The privileged trace ended early (" + end.endReason + ": " + end.sentence + ")";
        result = runEngine(*makeTraceExperiment(p, PrivilegedSteps()));
        result.details.insert(QStringLiteral("privileged_end_reason"), QString::fromStdString(end.endReason));
    }
    if (!result.error.empty()) {
        printError("trace: " + result.error);
    }
    const std::optional<std::string> output = args.value("output");
    if (result.trace && output && !result.cancelled) {
        (void)writeTraceFile(context, *output, *result.trace);
    }
    if (context.json) {
        appendResultJson(context, result, "trace");
    } else if (result.trace) {
        appendTraceText(context, context.out.buffer, result);
    }
    if (result.cancelled && interrupted()) {
        return interruptExitCode();
    }
    return !result.error.empty() || fellBack || context.anyFailed() ? ExitFailures : ExitSuccess;
}

} // namespace

Command traceCommand()
{
    return {{"trace",
             "[--lesson | -- COMMAND [ARG...]]",
             "which pages of which files a command makes the kernel read, in extents",
             "Records the files COMMAND opens (strace, else /proc/PID/maps), evicts\n"
             "them, and runs COMMAND again (directly, never through a shell; output to\n"
             "/dev/null unless --show-output). Shows which pages of which files came\n"
             "into the page cache, grouped into extents (same file, consecutive pages,\n"
             "one after another): offset and length in bytes, as the kernel read them.\n"
             "\n"
             "With --privileged, the privileged helper records the kernel's page-cache\n"
             "tracepoints for COMMAND and its children (method tracefs): the order and\n"
             "time of each extent, which pages the program asked for and which only\n"
             "readahead brought in, the file system's metadata (as 'metadata of\n"
             "/dev/DISK', at its disk offsets) and the block requests. Without it, the\n"
             "fallback (method residency-diff) compares the files' residency before and\n"
             "after the run: the same pages, without order, time or metadata; files\n"
             "whose residency the kernel hides from you are named as hidden. When the\n"
             "privileged trace ends early (cancelled by another program, a traced\n"
             "process changing its credentials, a failure), trace says why on stderr\n"
             "and falls back, and exits with 1.\n"
             "\n"
             "--lesson traces the built-in lesson: a program that reads 64 KiB at offset\n"
             "0 and 64 KiB at offset 512 KiB of a 1 MiB file it makes in --folder.\n"
             "--output FILE writes the trace file (docs/cli.md: Trace file), which\n"
             "'experiment replay --trace FILE' reads.",
             withCommonOptions({{0, "output", "FILE", "write the trace file (JSON) to FILE"},
                                {0, "runs", "N", "trace N times, each from a cold start (default 1); the first run is shown"},
                                {0, "privileged", nullptr, "trace with the kernel's tracepoints, through the privileged helper"},
                                {0, "fallback", nullptr, "the residency difference (the default without --privileged)"},
                                {0, "lesson", nullptr, "trace the built-in lesson instead of a command"},
                                {0, "timeout", "SECONDS", "kill the command after SECONDS (default 30, the most --privileged allows)"},
                                {0, "show-output", nullptr, "let the command write to the terminal (default: /dev/null)"},
                                {0, "maps", nullptr, "record files from /proc/PID/maps even when strace is installed"},
                                {0, "folder", "DIR", "where the lesson's file goes (default: the current folder)"}}),
             "  cachescope-cli trace -- /usr/bin/python3 -c pass\n"
             "  cachescope-cli trace --privileged --output python.json -- /usr/bin/python3 -c pass\n"
             "  cachescope-cli trace --lesson --privileged\n",
             0},
            runTrace};
}

} // namespace Cachescope::Cli
