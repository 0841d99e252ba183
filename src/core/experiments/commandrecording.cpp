// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "commandrecording.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern char **environ;

namespace Cachescope::Experiments
{

std::string findProgram(const std::string &name)
{
    if (name.find('/') != std::string::npos) {
        struct stat st;
        return ::stat(name.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(name.c_str(), X_OK) == 0 ? name : std::string();
    }
    const char *pathVariable = ::getenv("PATH");
    std::stringstream folders(pathVariable ? pathVariable : "/usr/local/bin:/usr/bin:/bin");
    std::string folder;
    while (std::getline(folders, folder, ':')) {
        const std::string candidate = (folder.empty() ? std::string(".") : folder) + '/' + name;
        struct stat st;
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
    }
    return {};
}

std::string noSuchProgramText(const std::string &name)
{
    return name + ": no such program (not found or not executable" + (name.find('/') == std::string::npos ? " in PATH" : "") + ")";
}

pid_t spawnCommand(const std::string &program, const std::vector<std::string> &argv, bool showOutput, std::string &error)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (!showOutput) {
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    }
    std::vector<char *> arguments;
    arguments.reserve(argv.size() + 1);
    for (const std::string &argument : argv) {
        arguments.push_back(const_cast<char *>(argument.c_str()));
    }
    arguments.push_back(nullptr);
    // The command gets default signal handling and an empty mask, whatever
    // the caller blocked (the CLI blocks SIGINT and SIGTERM in every thread).
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attributes, &none);
    sigset_t all;
    sigfillset(&all);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    const int result = ::posix_spawn(&pid, program.c_str(), &actions, &attributes, arguments.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (result != 0) {
        error = program + ": cannot run it: " + errnoText(result);
        return -1;
    }
    return pid;
}

QJsonArray argvJson(const std::vector<std::string> &argv)
{
    QJsonArray array;
    for (const std::string &argument : argv) {
        array.append(QString::fromStdString(argument));
    }
    return array;
}

namespace
{
std::string timedOutText(const CommandSpec &command)
{
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", command.timeoutSeconds);
    return command.argv.front() + ": did not finish within " + seconds + " s (--timeout)";
}

std::optional<WaitOutcome> startAndWaitNamed(const std::string &program,
                                             const std::vector<std::string> &argv,
                                             const CommandSpec &command,
                                             int &status,
                                             Result &result,
                                             const std::atomic<bool> &cancel)
{
    std::string error;
    ChildGuard child;
    child.set(spawnCommand(program, argv, command.showOutput, error));
    if (child.pid() < 0) {
        result.error = error;
        return std::nullopt;
    }
    struct rusage usage;
    const WaitOutcome outcome = waitChild(child, command.timeoutSeconds, cancel, status, usage);
    if (outcome == WaitOutcome::TimedOut) {
        result.error = timedOutText(command);
    }
    return outcome;
}

// A folder of this user's own for the strace log (mode 0700: the log names
// every file the command opened), removed with what is in it.
class StraceLogFolder
{
public:
    StraceLogFolder() = default;
    ~StraceLogFolder()
    {
        if (!m_path.empty()) {
            ::unlink(logPath().c_str());
            ::rmdir(m_path.c_str());
        }
    }
    StraceLogFolder(const StraceLogFolder &) = delete;
    StraceLogFolder &operator=(const StraceLogFolder &) = delete;

    // False with error set (the folder and the reason) when it cannot be made.
    bool create(std::string &error)
    {
        // $TMPDIR when it is set and usable, else /tmp.
        const char *tmp = ::getenv("TMPDIR");
        std::vector<std::string> bases;
        if (tmp && *tmp == '/') {
            bases.emplace_back(tmp);
        }
        bases.emplace_back("/tmp");
        for (const std::string &base : bases) {
            std::string pattern = base + "/cachescope-strace-XXXXXX";
            if (::mkdtemp(pattern.data())) {
                m_path = pattern;
                return true;
            }
            error = base + ": cannot create a folder for the strace log there: " + errnoText(errno);
        }
        return false;
    }
    [[nodiscard]] std::string logPath() const
    {
        return m_path + "/strace.log";
    }

private:
    std::string m_path;
};

bool recordWithStrace(const std::string &strace,
                      const CommandSpec &command,
                      std::vector<std::string> &files,
                      Recorder &recorder,
                      Result &result,
                      const std::atomic<bool> &cancel)
{
    StraceLogFolder logFolder;
    if (!logFolder.create(result.error)) {
        return false;
    }
    const std::string pattern = logFolder.logPath();
    // --kill-on-exit: a cancel or a deadline kills strace, and a killed
    // strace would otherwise let the command (and its children) run on.
    std::vector<std::string> argv =
        {strace, "-f", "--kill-on-exit", "-qq", "-s", "4096", "-e", "trace=openat,open,execve", "-o", pattern, "--", command.program};
    argv.insert(argv.end(), command.argv.begin() + 1, command.argv.end());
    int status = 0;
    const std::optional<WaitOutcome> outcome = startAndWaitNamed(strace, argv, command, status, result, cancel);
    if (!outcome || *outcome == WaitOutcome::Cancelled || *outcome == WaitOutcome::TimedOut) {
        return false;
    }
    char cwd[4096];
    const std::string workingDirectory = ::getcwd(cwd, sizeof cwd) ? cwd : "/";
    std::ifstream stream(pattern);
    std::stringstream text;
    text << stream.rdbuf();
    files = filesFromStraceLog(text.str(), workingDirectory);
    recorder.event("strace saw " + std::to_string(files.size()) + " files");
    return true;
}

bool recordWithMaps(const CommandSpec &command, std::vector<std::string> &files, Result &result, const std::atomic<bool> &cancel)
{
    std::set<std::string> seen;
    const auto add = [&](const std::string &path) {
        struct stat st;
        if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && seen.insert(path).second) {
            files.push_back(path);
        }
    };
    char resolved[4096];
    add(::realpath(command.program.c_str(), resolved) ? resolved : command.program);
    std::string error;
    ChildGuard child;
    child.set(spawnCommand(command.program, command.argv, command.showOutput, error));
    if (child.pid() < 0) {
        result.error = error;
        return false;
    }
    const std::string maps = "/proc/" + std::to_string(child.pid()) + "/maps";
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        std::ifstream stream(maps);
        std::string line;
        while (std::getline(stream, line)) {
            const size_t slash = line.find('/');
            if (slash != std::string::npos && line.find(" (deleted)") == std::string::npos) {
                add(line.substr(slash));
            }
        }
        int status = 0;
        struct rusage usage;
        const pid_t done = ::wait4(child.pid(), &status, WNOHANG, &usage);
        if (done == child.pid()) {
            child.release();
            return true;
        }
        if (cancel.load()) {
            return false; // the guard kills it
        }
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > command.timeoutSeconds) {
            result.error = timedOutText(command);
            return false;
        }
        ::usleep(2000);
    }
}
} // namespace

std::optional<WaitOutcome> startAndWait(const CommandSpec &command, int &status, Result &result, const std::atomic<bool> &cancel)
{
    return startAndWaitNamed(command.program, command.argv, command, status, result, cancel);
}

bool recordCommandFiles(const CommandSpec &command, bool forceMaps, CommandFiles &recorded, Recorder &recorder, Result &result, const std::atomic<bool> &cancel)
{
    const std::string strace = forceMaps ? std::string() : findProgram("strace");
    if (!strace.empty()) {
        recorder.event("Recording the files the command opens, with strace");
        if (!recordWithStrace(strace, command, recorded.files, recorder, result, cancel)) {
            return false;
        }
        recorded.method = "strace";
    }
    if (recorded.files.empty() && !cancel.load()) {
        recorder.event("Recording the files the command maps, from /proc/PID/maps");
        if (!recordWithMaps(command, recorded.files, result, cancel)) {
            return false;
        }
        recorded.method = "maps";
        result.notes.push_back(std::string(strace.empty() ? "strace is not installed" : "strace recorded nothing")
                               + ": the file list comes from sampling /proc/PID/maps every 2 ms. It has the executable and the libraries it "
                                 "maps, but misses files read with read() (configuration, data, locale files) and processes too short-lived "
                                 "to be sampled, so the cold run is warmer than a real one.");
    }
    return !cancel.load();
}

} // namespace Cachescope::Experiments
