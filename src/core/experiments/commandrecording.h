// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Running a user's command the way the experiments do (never through a
// shell, stdin from /dev/null, output hidden unless asked), and recording
// which files it opens: the cold-start experiment's "selectively cold cache"
// and the trace's names for the inodes it sees.

#include "experimentsupport.h"

#include <optional>
#include <string>
#include <vector>

namespace Cachescope::Experiments
{

// The program's path as execvp would find it; empty when it is not found.
[[nodiscard]] std::string findProgram(const std::string &name);

// "NAME: no such program (not found or not executable in PATH)".
[[nodiscard]] std::string noSuchProgramText(const std::string &name);

// Starts argv (never through a shell) with stdin from /dev/null and, unless
// shown, stdout and stderr to /dev/null, default signal handling and an
// empty signal mask. Returns the pid, or -1 and error.
[[nodiscard]] pid_t spawnCommand(const std::string &program, const std::vector<std::string> &argv, bool showOutput, std::string &error);

// argv as a result's parameters record it.
[[nodiscard]] QJsonArray argvJson(const std::vector<std::string> &argv);

struct CommandSpec {
    std::string program; // as findProgram found it
    std::vector<std::string> argv; // argv[0] as the user gave it
    double timeoutSeconds = 60;
    bool showOutput = false;
};

// Starts the command and waits for it to end, within its timeout: how it
// ended, or nullopt when it could not start. result.error says why it could
// not start or that it timed out.
[[nodiscard]] std::optional<WaitOutcome> startAndWait(const CommandSpec &command, int &status, Result &result, const std::atomic<bool> &cancel);

struct CommandFiles {
    std::vector<std::string> files; // regular files with data, in the order they were opened
    std::string method; // "strace" or "maps"
};

// Runs the command once (a warm run) and records the files it opened: with
// strace (-f: children too) when installed and not forceMaps, else by
// sampling /proc/PID/maps (a note in result says what that misses). The
// strace log goes to a folder of its own in $TMPDIR (else /tmp), removed
// afterwards: the command may run from a folder nobody may write. False
// when it could not (result.error) or was cancelled.
[[nodiscard]] bool
recordCommandFiles(const CommandSpec &command, bool forceMaps, CommandFiles &recorded, Recorder &recorder, Result &result, const std::atomic<bool> &cancel);

} // namespace Cachescope::Experiments
