// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "atomicfile.h"

#include "format.h"
#include "uniquefd.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace Cachescope
{

namespace
{
// PATH.tmp-PID files of writers that are gone (killed in the middle).
void removeStaleTemporaries(const std::string &path)
{
    const size_t slash = path.rfind('/');
    const std::string folder = slash == std::string::npos ? std::string(".") : slash == 0 ? std::string("/") : path.substr(0, slash);
    const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp-";
    DIR *directory = ::opendir(folder.c_str());
    if (!directory) {
        return;
    }
    while (const dirent *entry = ::readdir(directory)) {
        if (std::strncmp(entry->d_name, prefix.c_str(), prefix.size()) != 0) {
            continue;
        }
        char *end = nullptr;
        const long writer = std::strtol(entry->d_name + prefix.size(), &end, 10);
        if (writer > 0 && *end == '\0' && writer != ::getpid() && ::kill(pid_t(writer), 0) != 0 && errno == ESRCH) {
            (void)::unlinkat(::dirfd(directory), entry->d_name, 0);
        }
    }
    ::closedir(directory);
}
} // namespace

bool writeFileAtomically(const std::string &path, std::string_view contents, mode_t mode, std::string *error)
{
    const auto fail = [error](int errorNumber) {
        if (error) {
            *error = "cannot write: " + errnoText(errorNumber);
        }
        return false;
    };
    removeStaleTemporaries(path);
    const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
    (void)::unlink(temporary.c_str()); // our own, from a write that failed before it could remove it
    UniqueFd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (!fd) {
        return fail(errno);
    }
    const char *bytes = contents.data();
    size_t left = contents.size();
    while (left > 0) {
        const ssize_t n = ::write(fd.get(), bytes, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            const int writeError = n < 0 ? errno : ENOSPC;
            fd.reset();
            ::unlink(temporary.c_str());
            return fail(writeError);
        }
        bytes += n;
        left -= size_t(n);
    }
    // The close() of a written file can report a late write error: checked.
    if (::close(fd.release()) != 0 || ::rename(temporary.c_str(), path.c_str()) != 0) {
        const int closeError = errno;
        ::unlink(temporary.c_str());
        return fail(closeError);
    }
    return true;
}

} // namespace Cachescope
