// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// A process the caller names by pid, pinned by a pidfd so that every check
// is about that very process and not a later one that reuses its pid
// (docs/helper-security.md rules 16 and 17). Internal to the helper.

#include "uniquefd.h"

#include <cstdint>
#include <optional>
#include <string>

namespace Cachescope::Helper
{

struct ProcessCredentials {
    uint32_t realUid = 0;
    uint32_t effectiveUid = 0;
    uint32_t savedUid = 0;
};

// pidfd_open(2) of pid as this process's PID namespace numbers it; invalid
// with errno set when it fails (ESRCH: no such process).
[[nodiscard]] UniqueFd openPidfd(long long pid);

// Whether the process pidfd holds has exited.
[[nodiscard]] bool processHasExited(int pidfd);

// The uids of the process pidfd holds: from the pidfd itself
// (PIDFD_GET_INFO, Linux 6.13; /proc may hide other users' processes from a
// sandboxed helper), else from <procRoot>/<pid>/status, the pidfd proving
// afterwards that the pid still named the same process. Nothing when it has
// ended or cannot be read.
[[nodiscard]] std::optional<ProcessCredentials> credentialsOf(int pidfd, long long pid, const std::string &procRoot);

} // namespace Cachescope::Helper
