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
    // Whether its memory may be dumped (and read) as its user: false for a
    // set-user-ID program and whatever else prctl(PR_SET_DUMPABLE, 0) made
    // secret; nullopt where the kernel would not tell (then refused).
    std::optional<bool> dumpable;
};

// Real, effective and saved uid all the caller's (docs/helper-security.md
// rules 16 and 17).
[[nodiscard]] bool ownedByCaller(const ProcessCredentials &credentials, uint32_t uid);

// pidfd_open(2) of pid as this process's PID namespace numbers it; invalid
// with errno set when it fails (ESRCH: no such process).
[[nodiscard]] UniqueFd openPidfd(long long pid);

// Whether the process pidfd holds has exited.
[[nodiscard]] bool processHasExited(int pidfd);

// The uids of the process pidfd holds: from the pidfd itself
// (PIDFD_GET_INFO, Linux 6.13; /proc may hide other users' processes from a
// sandboxed helper), else from <procRoot>/<pid>/status, the pidfd proving
// afterwards that the pid still named the same process. Its dumpability
// from the pidfd too (PIDFD_INFO_COREDUMP, Linux 6.16), else from who owns
// <procRoot>/<pid>/stat (the kernel makes a process that is not dumpable
// root's there). Nothing when it has ended or cannot be read.
[[nodiscard]] std::optional<ProcessCredentials> credentialsOf(int pidfd, long long pid, const std::string &procRoot);
// The same from <procRoot>/<pid> alone, for a process named by pid (no
// pidfd: a traced task the helper learns of from tracefs). Nothing when it
// has ended. Root's dumpability (effective uid 0) is not known there.
[[nodiscard]] std::optional<ProcessCredentials> credentialsFromProc(long long pid, const std::string &procRoot);

} // namespace Cachescope::Helper
