// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "callerprocess.h"

#include "procfs.h"

#include <linux/types.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace Cachescope::Helper
{

namespace
{

// PIDFD_GET_INFO (Linux 6.13), spelled here for headers that lack it: the
// credentials of the process a pidfd holds, without /proc and without a pid
// that could be reused meanwhile. Its first version is 64 bytes; the second
// (Linux 6.16) adds how the process would dump core, which tells whether it
// is dumpable. The ioctl is extensible: an older kernel fills what it has.
struct PidfdInfo {
    __u64 mask;
    __u64 cgroupid;
    __u32 pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
    __s32 exitCode;
    __u32 coredumpMask, spare1;
};
static_assert(sizeof(PidfdInfo) == 72);
constexpr unsigned long pidfdGetInfo = _IOWR(0xFF, 11, PidfdInfo);
constexpr __u64 pidfdInfoCreds = 1ULL << 1;
constexpr __u64 pidfdInfoCoredump = 1ULL << 4;
constexpr __u32 pidfdCoredumpSkip = 1U << 1; // not dumpable
constexpr __u32 pidfdCoredumpUser = 1U << 2; // dumped as its user
constexpr __u32 pidfdCoredumpRoot = 1U << 3; // dumped as root (suid_dumpable 2)

// Who owns <procRoot>/<pid>/stat: the process's euid when it is dumpable,
// root when not (the kernel's task_dump_owner; the folder itself is always
// the euid's, so it would tell nothing). nullopt when /proc does not show it.
std::optional<bool> dumpableFromProc(long long pid, const std::string &procRoot, uint32_t effectiveUid)
{
    struct stat st{};
    if (stat((procRoot + "/" + std::to_string(pid) + "/stat").c_str(), &st) != 0) {
        return std::nullopt;
    }
    if (effectiveUid == 0) {
        return std::nullopt; // root's either way: cannot tell
    }
    return st.st_uid == effectiveUid;
}

} // namespace

UniqueFd openPidfd(long long pid)
{
    // The system call itself: glibc's wrapper lacks C linkage in some releases.
    return UniqueFd(int(syscall(SYS_pidfd_open, pid_t(pid), 0U)));
}

bool processHasExited(int pidfd)
{
    pollfd polled{pidfd, POLLIN, 0};
    return poll(&polled, 1, 0) > 0;
}

std::optional<ProcessCredentials> credentialsOf(int pidfd, long long pid, const std::string &procRoot)
{
    PidfdInfo info{};
    info.mask = pidfdInfoCreds | pidfdInfoCoredump;
    if (ioctl(pidfd, pidfdGetInfo, &info) == 0 && (info.mask & pidfdInfoCreds) != 0) {
        ProcessCredentials credentials{info.ruid, info.euid, info.suid, std::nullopt};
        if ((info.mask & pidfdInfoCoredump) != 0 && (info.coredumpMask & (pidfdCoredumpSkip | pidfdCoredumpUser | pidfdCoredumpRoot)) != 0) {
            credentials.dumpable = (info.coredumpMask & pidfdCoredumpUser) != 0;
        } else {
            credentials.dumpable = dumpableFromProc(pid, procRoot, info.euid);
        }
        if (processHasExited(pidfd)) {
            return std::nullopt;
        }
        return credentials;
    }
    if (errno == ESRCH) {
        return std::nullopt;
    }
    // Older kernels: /proc; the pidfd still open and not exited afterwards
    // proves that the pid still named the same process while it was read.
    const std::optional<ProcessCredentials> credentials = credentialsFromProc(pid, procRoot);
    if (!credentials || processHasExited(pidfd)) {
        return std::nullopt;
    }
    return credentials;
}

std::optional<ProcessCredentials> credentialsFromProc(long long pid, const std::string &procRoot)
{
    // "Uid:\t<real>\t<effective>\t<saved>..." of its status.
    const std::optional<std::string> status = readProcFile(procRoot + "/" + std::to_string(pid) + "/status");
    if (!status) {
        return std::nullopt;
    }
    const size_t line = status->find("\nUid:");
    if (line == std::string::npos) {
        return std::nullopt;
    }
    char *next = nullptr;
    ProcessCredentials credentials;
    credentials.realUid = uint32_t(std::strtoul(status->c_str() + line + 5, &next, 10));
    credentials.effectiveUid = uint32_t(std::strtoul(next, &next, 10));
    credentials.savedUid = uint32_t(std::strtoul(next, &next, 10));
    credentials.dumpable = dumpableFromProc(pid, procRoot, credentials.effectiveUid);
    return credentials;
}

bool ownedByCaller(const ProcessCredentials &credentials, uint32_t uid)
{
    return credentials.realUid == uid && credentials.effectiveUid == uid && credentials.savedUid == uid;
}

} // namespace Cachescope::Helper
