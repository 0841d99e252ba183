// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "atomicfile.h"

#include "format.h"
#include "uniquefd.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace Cachescope
{

namespace
{

// Temporaries older than this, or whose writer is gone, and that nobody
// holds locked: left by a killed writer.
constexpr time_t staleSeconds = 60;

std::string folderOf(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string nameOf(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// NAME.tmp-PID-XXXXXX files beside path that their writer left: nobody
// holds them locked, and the writer is gone or they are a minute old (a
// writer in another PID namespace looks gone from here).
void removeStaleTemporaries(const std::string &path)
{
    const std::string prefix = nameOf(path) + ".tmp-";
    DIR *directory = ::opendir(folderOf(path).c_str());
    if (!directory) {
        return;
    }
    while (const dirent *entry = ::readdir(directory)) {
        if (std::strncmp(entry->d_name, prefix.c_str(), prefix.size()) != 0) {
            continue;
        }
        char *end = nullptr;
        errno = 0;
        const long writer = std::strtol(entry->d_name + prefix.size(), &end, 10);
        if (errno != 0 || writer <= 0 || writer > INT_MAX || *end != '-' || std::strlen(end + 1) != 6) {
            continue; // not a name this code makes
        }
        const UniqueFd fd(::openat(::dirfd(directory), entry->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
        struct stat st;
        if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || ::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
            continue; // being written
        }
        const bool writerGone = ::kill(pid_t(writer), 0) != 0 && errno == ESRCH;
        if (writerGone || std::time(nullptr) - st.st_mtime > staleSeconds) {
            (void)::unlinkat(::dirfd(directory), entry->d_name, 0);
        }
    }
    ::closedir(directory);
}

// What is not a regular file is written as it is.
bool writeThrough(const std::string &path, std::string_view contents, std::string *error)
{
    const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
    const auto fail = [error](int errorNumber) {
        if (error) {
            *error = "cannot write: " + errnoText(errorNumber);
        }
        return false;
    };
    if (!fd) {
        return fail(errno);
    }
    for (size_t written = 0; written < contents.size();) {
        const ssize_t n = ::write(fd.get(), contents.data() + written, contents.size() - written);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return fail(n < 0 ? errno : ENOSPC);
        }
        written += size_t(n);
    }
    return true;
}

} // namespace

bool writeFileAtomically(const std::string &givenPath, std::string_view contents, mode_t mode, std::string *error)
{
    const auto fail = [error](const char *step, int errorNumber) {
        if (error) {
            *error = std::string(step) + ": " + errnoText(errorNumber);
        }
        return false;
    };
    std::string path = givenPath;
    struct stat existing;
    bool exists = ::lstat(path.c_str(), &existing) == 0;
    if (exists && S_ISLNK(existing.st_mode)) {
        // The file the link names is the one replaced; the link stays.
        char *target = ::realpath(path.c_str(), nullptr);
        if (!target) {
            return fail("cannot follow the link", errno);
        }
        path = target;
        std::free(target);
        exists = ::lstat(path.c_str(), &existing) == 0;
    }
    if (exists && !S_ISREG(existing.st_mode)) {
        return writeThrough(path, contents, error);
    }
    removeStaleTemporaries(path);
    std::string temporary = path + ".tmp-" + std::to_string(::getpid()) + "-XXXXXX";
    UniqueFd fd(::mkostemp(temporary.data(), O_CLOEXEC));
    if (!fd) {
        return fail("cannot make its temporary file", errno);
    }
    // Held until the rename: nobody takes it for a killed writer's.
    (void)::flock(fd.get(), LOCK_EX);
    const auto abandon = [&](const char *step, int errorNumber) {
        fd.reset();
        ::unlink(temporary.c_str());
        return fail(step, errorNumber);
    };
    // mkostemp makes it 0600: the old file's mode and owner, or mode less the umask.
    mode_t keep = mode;
    if (exists) {
        keep = existing.st_mode & 07777;
        if (::geteuid() == 0 && ::fchown(fd.get(), existing.st_uid, existing.st_gid) != 0) {
            return abandon("cannot give it the old file's owner", errno);
        }
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        keep = mode & ~mask;
    }
    if (::fchmod(fd.get(), keep) != 0) {
        return abandon("cannot set its mode", errno);
    }
    for (size_t written = 0; written < contents.size();) {
        const ssize_t n = ::write(fd.get(), contents.data() + written, contents.size() - written);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return abandon("cannot write", n < 0 ? errno : ENOSPC);
        }
        written += size_t(n);
    }
    // On disk before it replaces the old file, so that a crash too leaves
    // one or the other; close() can report a late write error: checked.
    if (::fdatasync(fd.get()) != 0) {
        return abandon("cannot write", errno);
    }
    if (::close(fd.release()) != 0) {
        const int closeError = errno;
        ::unlink(temporary.c_str());
        return fail("cannot write", closeError);
    }
    if (::rename(temporary.c_str(), path.c_str()) != 0) {
        const int renameError = errno;
        ::unlink(temporary.c_str());
        return fail("cannot replace it", renameError);
    }
    return true;
}

} // namespace Cachescope
