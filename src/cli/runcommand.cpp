// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli run: a command whose page cache is contained. The command
// is forked and held before exec, moved into a memory cgroup (the contain
// step: systemd's user manager or the privileged helper), then let go; its
// cgroup's cache is shown while it runs, its exit status passed through, and
// the cgroup's removal (by systemd or the helper's watcher) awaited.

#include "runcommand.h"

#include "commandoptions.h"
#include "interrupt.h"

#include "cgroups/memorycgroup.h"
#include "format.h"
#include "procfs.h"
#include "uniquefd.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>

namespace Cachescope::Cli
{

namespace
{

decltype(Experiments::PrivilegedSteps::contain) &containStep()
{
    static decltype(Experiments::PrivilegedSteps::contain) step;
    return step;
}

// COMMAND as execv() takes it: a path with a slash as given, else the
// first executable of that name in PATH. Empty when there is none.
std::string resolveCommand(const std::string &command)
{
    if (command.find('/') != std::string::npos) {
        return access(command.c_str(), X_OK) == 0 ? command : std::string();
    }
    const char *path = getenv("PATH");
    std::string folders = path ? path : "/usr/local/bin:/usr/bin:/bin";
    size_t start = 0;
    while (start <= folders.size()) {
        const size_t end = std::min(folders.find(':', start), folders.size());
        const std::string folder = end > start ? folders.substr(start, end - start) : ".";
        const std::string candidate = folder + "/" + command;
        struct stat st{};
        if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
        start = end + 1;
    }
    return {};
}

// A child that waits for one byte on its gate before it becomes COMMAND, so
// that it is in its cgroup before it reads anything. What exec() said comes
// back on a close-on-exec pipe: nothing when it worked.
struct HeldCommand {
    pid_t pid = -1;
    UniqueFd gate; // write one byte: go on; close: give up
    UniqueFd execStatus; // errno of a failed exec, or end of file
};

bool startHeld(const std::string &program, const std::vector<std::string> &arguments, HeldCommand &held, std::string &error)
{
    int gate[2];
    int status[2];
    if (pipe2(gate, O_CLOEXEC) != 0) {
        error = "pipe: " + errnoText(errno);
        return false;
    }
    if (pipe2(status, O_CLOEXEC) != 0) {
        error = "pipe: " + errnoText(errno);
        close(gate[0]);
        close(gate[1]);
        return false;
    }
    std::vector<char *> argv;
    argv.reserve(arguments.size() + 1);
    for (const std::string &argument : arguments) {
        argv.push_back(const_cast<char *>(argument.c_str()));
    }
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        // Only system calls from here: the privileged companion has threads.
        close(gate[1]);
        close(status[0]);
        // The interrupt thread's signals are blocked in this process; the
        // command gets them as any command does.
        sigset_t none;
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &none, nullptr);
        char go = 0;
        ssize_t n;
        while ((n = read(gate[0], &go, 1)) < 0 && errno == EINTR) { }
        if (n != 1) {
            _exit(127);
        }
        execv(program.c_str(), argv.data());
        const int code = errno;
        (void)!write(status[1], &code, sizeof code);
        _exit(127);
    }
    const int forkError = errno;
    close(gate[0]);
    close(status[1]);
    held.gate.reset(gate[1]);
    held.execStatus.reset(status[0]);
    if (pid < 0) {
        error = "fork: " + errnoText(forkError);
        return false;
    }
    held.pid = pid;
    return true;
}

void killHeld(HeldCommand &held)
{
    held.gate.reset();
    kill(held.pid, SIGKILL);
    while (waitpid(held.pid, nullptr, 0) < 0 && errno == EINTR) { }
}

// v2's memory.events oom_kill, v1's memory.oom_control oom_kill: how many
// processes the kernel killed inside the cgroup.
std::optional<uint64_t> oomKills(const Experiments::ContainedGroup &group)
{
    const std::optional<std::string> text = readProcFile(group.path + (group.version == 2 ? "/memory.events" : "/memory.oom_control"));
    if (!text) {
        return std::nullopt;
    }
    const size_t at = text->find("oom_kill ");
    if (at == std::string::npos) {
        return std::nullopt;
    }
    return std::strtoull(text->c_str() + at + 9, nullptr, 10);
}

struct Watched {
    RunCgroupMemory last;
    uint64_t peakCache = 0;
    uint64_t peakDirty = 0;
    bool any = false;
    uint64_t oomKills = 0;
};

void sample(const Experiments::ContainedGroup &group, Watched &watched)
{
    if (const std::optional<RunCgroupMemory> memory = readRunCgroupMemory(group.path, group.version)) {
        watched.last = *memory;
        watched.peakCache = std::max(watched.peakCache, memory->pageCache);
        watched.peakDirty = std::max(watched.peakDirty, memory->dirty);
        watched.any = true;
    }
    if (const std::optional<uint64_t> kills = oomKills(group)) {
        watched.oomKills = std::max(watched.oomKills, *kills);
    }
}

std::string liveLine(const Experiments::ContainedGroup &group, const Watched &watched)
{
    return "page cache " + formatBytes(watched.last.pageCache).toStdString() + ", dirty " + formatBytes(watched.last.dirty).toStdString() + ", limit "
        + formatBytes(group.limitBytes).toStdString();
}

void writeStderr(const std::string &text)
{
    (void)!::write(STDERR_FILENO, text.data(), text.size());
}

// Waits for the command; samples its cgroup every interval; an interrupt
// of ours goes on to the command (a terminal's Ctrl+C reaches it anyway).
enum class Live {
    Off,
    Terminal,
    Lines
};

int waitForCommand(pid_t pid, const Experiments::ContainedGroup &group, double interval, Live live, Watched &watched)
{
    using Clock = std::chrono::steady_clock;
    const UniqueFd pidfd(int(syscall(SYS_pidfd_open, pid, 0U)));
    bool forwarded = false;
    Clock::time_point nextSample = Clock::now();
    for (;;) {
        if (Clock::now() >= nextSample) {
            sample(group, watched);
            if (live == Live::Terminal && watched.any) {
                writeStderr("\r\033[K" + liveLine(group, watched));
            } else if (live == Live::Lines && watched.any) {
                writeStderr("cachescope-cli run: " + liveLine(group, watched) + '\n');
            }
            nextSample = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval));
        }
        if (interrupted() && !forwarded) {
            forwarded = true;
            kill(pid, SIGINT);
        }
        // The process's end is seen at once (pidfd); interrupts every 100 ms.
        if (pidfd.isValid()) {
            pollfd polled{pidfd.get(), POLLIN, 0};
            (void)poll(&polled, 1, 100);
        } else {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            // The last figures and the kernel's kill count, read before the
            // watcher removes the cgroup.
            sample(group, watched);
            if (live == Live::Terminal) {
                writeStderr("\r\033[K");
            }
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
    }
}

// Whether pid is in group now, as its /proc/<pid>/cgroup says (v1's
// memory line, v2's unified one).
bool inGroup(pid_t pid, const Experiments::ContainedGroup &group)
{
    const std::optional<std::string> text = readProcFile("/proc/" + std::to_string(pid) + "/cgroup");
    const std::string marker = group.version == 2 ? "0::" : ":memory:";
    if (!text) {
        return false;
    }
    const size_t at = text->find(marker);
    if (at == std::string::npos) {
        return false;
    }
    const size_t start = at + marker.size();
    const std::string cgroup = text->substr(start, text->find('\n', start) - start);
    return cgroup.size() > 1 && group.path.size() >= cgroup.size() && group.path.compare(group.path.size() - cgroup.size(), cgroup.size(), cgroup) == 0;
}

// The command is let go only once the kernel shows it in its cgroup, so
// that none of its reads is charged outside. Ends early on an interrupt.
bool awaitArrival(pid_t pid, const Experiments::ContainedGroup &group)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!inGroup(pid, group)) {
        if (interrupted() || std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

// The cgroup's removal: systemd or the helper's watcher removes it once it
// is empty. True when it went within a few seconds.
bool awaitRemoval(const std::string &path)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (access(path.c_str(), F_OK) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
}

} // namespace

void setRunContainStep(decltype(Experiments::PrivilegedSteps::contain) contain)
{
    containStep() = std::move(contain);
}

Command runCommand()
{
    return {{"run",
             "--cache-limit SIZE -- COMMAND [ARG...]",
             "run a command with its page cache limited (needs administrator rights)",
             "Runs COMMAND in a memory cgroup of its own limited to SIZE, so that the\n"
             "files it reads (a backup, a scan) cannot push the rest of the desktop's\n"
             "cache out: its cache is reclaimed at the limit instead. The cgroup is a\n"
             "transient scope of systemd's user manager where one answers, else one\n"
             "the privileged helper makes (polkit asks first). The cgroup's page cache\n"
             "and dirty pages are shown on stderr while it runs (when stderr is a\n"
             "terminal, or with --progress) and at the end; the cgroup is removed\n"
             "afterwards, also after Ctrl+C (the command gets the signal). The exit\n"
             "status is the command's (128 + the signal when it was killed; 127 when it\n"
             "cannot be run). A command needing more memory than SIZE (plus a margin\n"
             "on cgroup v2) is killed inside its cgroup; nothing outside it is pressed.",
             withCommonOptions({{0, "cache-limit", "SIZE", "the cgroup's memory limit (16M to the machine's memory)"},
                                {0, "interval", "SECONDS", "how often the cache is shown (default 1)"},
                                {0, "progress", nullptr, "show the cache on stderr, a line each interval, also when stderr is no terminal"}}),
             "  cachescope-cli run --cache-limit 256M -- tar -cf /backup/home.tar /home\n"
             "  cachescope-cli run --cache-limit 1G --json -- rsync -a src/ dst/\n",
             1,
             SIZE_MAX},
            nullptr};
}

int runContainedCommand(Context &context, const ParsedArgs &args)
{
    const std::optional<std::string> limitText = args.value("cache-limit");
    if (!limitText) {
        return usageError(args.command, "--cache-limit SIZE is required (examples: 64M, 1G)");
    }
    const std::optional<uint64_t> limit = parseBytes(*limitText);
    if (!limit) {
        return usageError(args.command, "--cache-limit: '" + *limitText + "' is not a size (examples: 64M, 1G)");
    }
    constexpr uint64_t minimum = 16ULL << 20;
    if (*limit < minimum) {
        return usageError(args.command,
                          "--cache-limit: " + formatBytes(*limit).toStdString() + " is below the lowest limit, " + formatBytes(minimum).toStdString()
                              + ": a command needs room to start");
    }
    const std::optional<MemInfo> memInfo = readMemInfo();
    const std::optional<uint64_t> total = memInfo ? memInfo->find("MemTotal") : std::nullopt;
    if (total && *limit > *total) {
        return usageError(args.command,
                          "--cache-limit: " + formatBytes(*limit).toStdString() + " is more than this machine's memory (MemTotal "
                              + formatBytes(*total).toStdString() + ")");
    }
    double interval = 1;
    if (const std::optional<std::string> text = args.value("interval")) {
        const std::optional<double> seconds = parseSeconds(*text);
        if (!seconds) {
            return usageError(args.command, "--interval: '" + *text + "' is not a number of seconds above 0");
        }
        interval = *seconds;
    }
    const std::string program = resolveCommand(args.positional.front());
    if (program.empty()) {
        printError("run: " + args.positional.front() + ": command not found (or not executable)");
        return 127;
    }
    if (!containStep()) {
        printError("run: this program cannot make a memory cgroup (cachescope-cli-privileged does)");
        return ExitFailures;
    }

    HeldCommand held;
    std::string error;
    if (!startHeld(program, args.positional, held, error)) {
        printError("run: " + error);
        return ExitFailures;
    }
    // From the cgroup's making on, an interrupt only sets the flag: ending
    // at once could leave the cgroup behind. Root makes it in this very
    // process, and an end between the command's move into it and the start
    // of the watcher that removes it would leave it. Anyone else asks
    // systemd or the helper, which remove it whatever becomes of this
    // process; there the interrupt still ends the wait for a password
    // dialog at once.
    std::optional<CancelScope> scope;
    if (geteuid() == 0) {
        scope.emplace();
    }
    Experiments::ContainedGroup group;
    const bool contained = containStep()(int(held.pid), *limit, group, error);
    if (!scope) {
        scope.emplace();
    }
    if (!contained) {
        killHeld(held);
        if (interrupted()) {
            printError("run: interrupted before " + args.positional.front() + " started; it did not run");
            return interruptExitCode();
        }
        printError("run: cannot contain the command: " + error);
        return ExitFailures;
    }
    const bool arrived = awaitArrival(held.pid, group);
    if (interrupted()) {
        killHeld(held);
        const bool removed = awaitRemoval(group.path);
        printError("run: interrupted before " + args.positional.front() + " started; it did not run, and its cgroup " + group.path
                   + (removed ? " was removed" : " is still there (removed once empty)"));
        return interruptExitCode();
    }
    if (!arrived) {
        killHeld(held);
        printError("run: the command did not arrive in its cgroup " + group.path + " within 5 s");
        (void)awaitRemoval(group.path);
        return ExitFailures;
    }
    // While it runs, an interrupt is passed on to the command.
    const char go = 1;
    (void)!write(held.gate.get(), &go, 1);
    held.gate.reset();
    int execError = 0;
    ssize_t n;
    while ((n = read(held.execStatus.get(), &execError, sizeof execError)) < 0 && errno == EINTR) { }
    if (n == ssize_t(sizeof execError)) {
        while (waitpid(held.pid, nullptr, 0) < 0 && errno == EINTR) { }
        printError("run: " + args.positional.front() + ": " + errnoText(execError));
        (void)awaitRemoval(group.path);
        return 127;
    }

    const Live live = args.has("progress") ? Live::Lines : !context.json && isatty(STDERR_FILENO) ? Live::Terminal : Live::Off;
    Watched watched;
    const int status = waitForCommand(held.pid, group, interval, live, watched);
    const bool removed = awaitRemoval(group.path);

    const bool killedInside = status == 128 + SIGKILL && watched.oomKills > 0;
    if (context.json) {
        std::string &out = context.out.buffer;
        out += "{\"command\":\"run\",";
        appendJsonText(out, "cgroup", group.path);
        out += ",\"cgroup_version\":" + std::to_string(group.version) + ',';
        appendJsonText(out, "how", group.how);
        out += ',';
        appendJsonNumber(out, "limit_bytes", group.limitBytes);
        out += ',';
        appendJsonNumber(out, "page_cache_peak_bytes", watched.peakCache);
        out += ',';
        appendJsonNumber(out, "page_cache_last_bytes", watched.last.pageCache);
        out += ',';
        appendJsonNumber(out, "dirty_peak_bytes", watched.peakDirty);
        out += ',';
        appendJsonNumber(out, "oom_kills", watched.oomKills);
        out += ",\"exit_status\":" + std::to_string(status) + ",\"cgroup_removed\":" + (removed ? "true" : "false") + "}\n";
    } else {
        std::string text = "cachescope-cli run: " + group.path + " (cgroup v" + std::to_string(group.version) + ", " + group.how + "): limit "
            + formatBytes(group.limitBytes).toStdString() + ", page cache at most " + formatBytes(watched.peakCache).toStdString() + " (at the end "
            + formatBytes(watched.last.pageCache).toStdString() + "), dirty at most " + formatBytes(watched.peakDirty).toStdString() + "; exit status "
            + std::to_string(status) + (removed ? "; the cgroup was removed.\n" : "; the cgroup is still there (removed once empty).\n");
        if (killedInside) {
            text +=
                "cachescope-cli run: the command needed more memory than its limit and was killed inside its cgroup; nothing outside it was "
                "touched. Give it a higher --cache-limit.\n";
        }
        writeStderr(text);
    }
    return status;
}

} // namespace Cachescope::Cli
