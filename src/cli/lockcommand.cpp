// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli lock: load files, lock them in memory, hold them until killed.

#include "commandoptions.h"
#include "interrupt.h"
#include "table.h"

#include "atomicfile.h"
#include "format.h"
#include "pin.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>

namespace Cachescope::Cli
{

namespace
{

const Table<PinnedRange> &lockTable()
{
    static const Table<PinnedRange> table = {
        .columns =
            {
                {.header = "LOCKED",
                 .key = "pages",
                 .width = 10,
                 .format = Format::Pages,
                 .help = "pages locked in memory",
                 .value =
                     [](const PinnedRange &r) {
                         return countCell(r.pages);
                     }},
                {.key = "offset",
                 .format = Format::Bytes,
                 .help = "where the locked range starts (page-aligned)",
                 .value =
                     [](const PinnedRange &r) {
                         return countCell(r.offset);
                     }},
                {.header = "LENGTH",
                 .key = "length",
                 .width = 10,
                 .format = Format::Bytes,
                 .help = "bytes of the file in the range",
                 .value =
                     [](const PinnedRange &r) {
                         return countCell(r.length);
                     }},
                pathColumn<PinnedRange>("the file",
                                        [](const PinnedRange &r) {
                                            return r.path;
                                        }),
            },
    };
    return table;
}

std::string report(Context &context, const Pins &pins, pid_t holder)
{
    std::string out;
    const Table<PinnedRange> &table = lockTable();
    if (context.json) {
        out += "{\"command\":\"lock\",";
        appendJsonNumber(out, "pid", uint64_t(holder));
        out += ',';
        appendJsonNumber(out, "page_size", pageSize());
        out += ',';
        appendJsonNumber(out, "locked_pages", pins.pages());
        out += ',';
        appendJsonNumber(out, "resident_pages", pins.residentPages());
        out += ",\"files\":[";
        bool first = true;
        for (const PinnedRange &range : pins.ranges()) {
            out += first ? "" : ",";
            first = false;
            table.appendJson(out, range);
        }
        out += "],";
        context.appendProblemsJson(out);
        out += "}\n";
        return out;
    }
    table.appendHeader(out);
    for (const PinnedRange &range : pins.ranges()) {
        table.appendText(out, range, context.rawBytes);
    }
    out += '\n' + std::to_string(pins.ranges().size()) + (pins.ranges().size() == 1 ? " file, " : " files, ")
        + sizeText(pins.pages() * pageSize(), context.rawBytes) + " locked in memory (" + std::to_string(pins.residentPages()) + " of "
        + std::to_string(pins.pages()) + " pages resident) by process " + std::to_string(holder) + "; held until it is interrupted or killed\n";
    return out;
}

std::string refusal(Context &context, const PinResult &result)
{
    if (!context.json) {
        return {};
    }
    std::string out = "{\"command\":\"lock\",\"locked\":false,";
    appendJsonText(out, "error", result.error);
    out += ',';
    appendJsonNumber(out, "needed_bytes", result.bytes);
    out += ',';
    appendJsonBool(out, "unlimited", result.limits.unlimited);
    out += ',';
    appendJsonNumber(out, "limit_bytes", result.limits.unlimited ? 0 : result.limits.limit);
    out += ',';
    appendJsonNumber(out, "available_bytes", result.limits.available);
    out += ',';
    context.appendProblemsJson(out);
    out += "}\n";
    return out;
}

// Whole or not at all, so that a script reading it never sees half a number.
bool writePidFile(const std::string &path, pid_t pid, std::string &error)
{
    std::string reason;
    if (!writeFileAtomically(path, std::to_string(pid) + '\n', 0644, &reason)) {
        error = path + ": cannot write the pid file: " + reason;
        return false;
    }
    return true;
}

void writeAll(int fd, const std::string &text)
{
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return;
        }
        done += size_t(n);
    }
}

// --daemon: the locks belong to the process that made them (fork does not
// pass them on), so the detached process locks, and tells the caller through
// a pipe whether it could: a refusal still ends the command with its message
// and exit status 1, and the pid file exists only once the files are locked.
int lockInDaemon(Context &context, const std::vector<PinRequest> &requests, const std::string &pidFile)
{
    int channel[2];
    if (pipe2(channel, O_CLOEXEC) != 0) {
        printError(std::string("cannot make a pipe for --daemon: ") + errnoText(errno));
        return ExitFailures;
    }
    context.out.flush();
    const pid_t middle = fork();
    if (middle < 0) {
        printError(std::string("cannot start the daemon: ") + errnoText(errno));
        return ExitFailures;
    }
    if (middle == 0) {
        close(channel[0]);
        setsid();
        const pid_t holder = fork();
        if (holder != 0) {
            _exit(holder < 0 ? 1 : 0);
        }
        // The holder: lock, say how it went, detach, wait for a signal.
        sigset_t signals;
        sigemptyset(&signals);
        sigaddset(&signals, SIGINT);
        sigaddset(&signals, SIGTERM);
        sigaddset(&signals, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &signals, nullptr);
        PinResult result = pinFiles(requests);
        std::string error;
        if (result.ok() && !pidFile.empty() && !writePidFile(pidFile, getpid(), error)) {
            result.error = error;
            result.pins.reset();
        }
        if (!result.ok()) {
            writeAll(channel[1], "E" + refusal(context, result) + '\0' + result.error);
            _exit(1);
        }
        writeAll(channel[1], "K" + report(context, *result.pins, getpid()));
        close(channel[1]);
        const int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, STDIN_FILENO);
            dup2(null, STDOUT_FILENO);
            dup2(null, STDERR_FILENO);
            close(null);
        }
        if (chdir("/") != 0) {
            // Staying in the folder only keeps it busy; the locks hold either way.
        }
        int signal = 0;
        while (sigwait(&signals, &signal) != 0) { }
        result.pins.reset();
        if (!pidFile.empty()) {
            unlink(pidFile.c_str());
        }
        _exit(0);
    }
    close(channel[1]);
    int status = 0;
    while (waitpid(middle, &status, 0) < 0 && errno == EINTR) { }
    std::string answer;
    char buffer[4096];
    for (;;) {
        const ssize_t n = read(channel[0], buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        answer.append(buffer, size_t(n));
    }
    close(channel[0]);
    if (answer.empty()) {
        printError("the daemon ended before it said whether it could lock: nothing is locked");
        return ExitFailures;
    }
    if (answer[0] == 'K') {
        context.out.buffer += answer.substr(1);
        return ExitSuccess;
    }
    const size_t split = answer.find('\0');
    context.out.buffer += answer.substr(1, split == std::string::npos ? std::string::npos : split - 1);
    printError("nothing locked: " + (split == std::string::npos ? std::string() : answer.substr(split + 1)));
    return ExitFailures;
}

int runLock(Context &context, const ParsedArgs &args)
{
    int exitCode = ExitSuccess;
    uint64_t offset = 0;
    uint64_t length = 0;
    WalkOptions options;
    if (!bytesOption(args, "offset", offset, exitCode) || !bytesOption(args, "length", length, exitCode, 1) || !walkOptionsFrom(args, options, exitCode)) {
        return exitCode;
    }
    options.action = FileAction::StatOnly;
    uint64_t leftOut = 0;
    std::string pidFile = args.value("pid-file").value_or(std::string());
    if (!pidFile.empty() && pidFile.front() != '/') {
        // The daemon leaves the folder it started in: keep the path valid for its unlink().
        char *here = getcwd(nullptr, 0);
        if (here) {
            pidFile = std::string(here) + '/' + pidFile;
            free(here);
        }
    }
    // Files as named, and the files in named folders (each inode once).
    std::vector<PinRequest> requests;
    std::mutex mutex;
    for (const std::string &path : args.positional) {
        const ArgumentKind kind = classify(context, path, options.filter);
        if (kind == ArgumentKind::File) {
            requests.push_back({path, offset, length});
        } else if (kind == ArgumentKind::Folder) {
            if (args.has("offset") || args.has("length")) {
                return usageError(args.command, "--offset and --length are for files; " + path + " is a folder");
            }
            Walker walker(options);
            walker.setEntryCallback([&](const WalkEntry &entry) {
                if (entry.kind == EntryKind::File && entry.firstLink && entry.size > 0) {
                    std::lock_guard lock(mutex);
                    requests.push_back({entry.path(), 0, 0});
                }
            });
            walker.setProblemCallback([&context](const WalkProblem &problem) {
                context.addWalkProblem(problem);
            });
            leftOut += walker.walk({path}).total.filtered;
        }
    }
    noteLeftOut("lock", leftOut + context.leftOut.load());
    // All or nothing: a path that could not be named or walked locks nothing.
    if (context.anyFailed() || requests.empty()) {
        PinResult refused;
        refused.error = requests.empty() && !context.anyFailed() ? "no file with data in the paths given" : "every path must be lockable (see above)";
        refused.limits = currentLockLimits();
        context.out.buffer += refusal(context, refused);
        context.out.flush();
        printError("nothing locked: " + refused.error);
        return ExitFailures;
    }
    if (args.has("daemon")) {
        return lockInDaemon(context, requests, pidFile);
    }
    const PinResult result = pinFiles(requests);
    if (!result.ok()) {
        context.out.buffer += refusal(context, result);
        context.out.flush();
        printError("nothing locked: " + result.error);
        return ExitFailures;
    }
    std::string error;
    if (!pidFile.empty() && !writePidFile(pidFile, getpid(), error)) {
        printError("nothing locked: " + error);
        return ExitFailures;
    }
    context.out.buffer += report(context, *result.pins, getpid());
    context.out.flush();
    // Held until SIGINT or SIGTERM; then the pins unlock as they go.
    const CancelScope scope;
    while (!sleepUnlessInterrupted(3600)) { }
    if (!pidFile.empty()) {
        unlink(pidFile.c_str());
    }
    return ExitSuccess;
}

} // namespace

Command lockCommand()
{
    return {{"lock",
             "PATH...",
             "load files and lock them in memory until killed",
             "Loads the files (the files in named folders too) and locks them in\n"
             "memory with mlock(2), then holds them until interrupted or killed\n"
             "(SIGINT, SIGTERM): eviction and memory pressure leave their pages alone.\n"
             "Everything is checked first, the size against RLIMIT_MEMLOCK (root is not\n"
             "limited) and against the memory available: a refusal names the numbers\n"
             "and locks nothing; a failure part way unlocks what was locked.\n"
             "--daemon detaches once the files are locked and writes --pid-file then.",
             withCommonOptions(withSelectionOptions({{0, "daemon", nullptr, "detach once locked (kill the pid to release)"},
                                                     {0, "pid-file", "FILE", "write the holding process's pid to FILE once locked"},
                                                     {0, "offset", "BYTES", "lock from this offset of each file (rounded down to a page)"},
                                                     {0, "length", "BYTES", "lock this many bytes of each file (rounded up to a page)"}})),
             "  cachescope-cli lock /usr/lib/x86_64-linux-gnu/libLLVM.so.19.1\n"
             "  cachescope-cli lock --daemon --pid-file /run/user/1000/db.pid /srv/db/index\n"
             "  kill $(cat /run/user/1000/db.pid)\n",
             1},
            runLock};
}

} // namespace Cachescope::Cli
