// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "companion.h"

#include "commands.h"

#include "cachescope_cli_debug.h"
#include "format.h"

#include <climits>
#include <unistd.h>

#include <vector>

namespace Cachescope::Cli
{

int runInPrivilegedCompanion(char **arguments, std::string_view messagePrefix, const std::function<std::string(const std::string &lookedFor)> &notInstalled)
{
    std::vector<std::string> candidates;
    char self[PATH_MAX];
    const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (length > 0) {
        const std::string exe(self, size_t(length));
        candidates.push_back(exe.substr(0, exe.rfind('/') + 1) + "cachescope-cli-privileged");
    }
    candidates.push_back(CACHESCOPE_PRIVILEGED_CLI_PATH);
    for (const std::string &candidate : candidates) {
        if (::access(candidate.c_str(), X_OK) != 0) {
            qCDebug(CACHESCOPE_CLI) << "no companion at" << candidate.c_str();
            continue;
        }
        qCDebug(CACHESCOPE_CLI) << "running the companion" << candidate.c_str();
        ::execv(candidate.c_str(), arguments);
        printError(std::string(messagePrefix) + candidate + ": cannot run it: " + errnoText(errno));
        return ExitFailures;
    }
    printError(std::string(messagePrefix) + notInstalled("looked for " + candidates.front() + " and " + candidates.back()));
    return ExitFailures;
}

} // namespace Cachescope::Cli
