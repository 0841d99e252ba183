// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "evict.h"

#include "format.h"

#include "load.h"
#include "residency.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <tuple>
#include <unordered_set>

namespace Cachescope
{

const char *remainReasonName(RemainReason reason)
{
    switch (reason) {
    case RemainReason::None:
        return "none";
    case RemainReason::Dirty:
        return "dirty";
    case RemainReason::Mapped:
        return "mapped";
    case RemainReason::Shmem:
        return "shmem";
    case RemainReason::Hidden:
        return "hidden";
    case RemainReason::Unknown:
        return "unknown";
    }
    return "unknown";
}

std::string remainReasonText(RemainReason reason)
{
    switch (reason) {
    case RemainReason::None:
        return "All pages were dropped.";
    case RemainReason::Dirty:
        return "Some pages are dirty: the kernel writes them to disk before it can drop them. Flush first, then evict again.";
    case RemainReason::Mapped:
        return "A running process maps this file: the kernel keeps the pages it maps.";
    case RemainReason::Shmem:
        return "The pages cannot be evicted: tmpfs and shared memory have no disk to drop pages to.";
    case RemainReason::Hidden:
        return "The kernel hides this file's page cache from you: eviction was asked for, but how many pages it freed is unknown.";
    case RemainReason::Unknown:
        return "Some pages stayed for no reason we can see, most likely because another program read them again at once.";
    }
    return {};
}

// A mapping is identified by the device numbers and inode /proc/PID/maps prints.
struct MappedFiles::Private {
    struct Key {
        uint32_t major = 0;
        uint32_t minor = 0;
        uint64_t inode = 0;
        friend bool operator==(const Key &, const Key &) = default;
    };
    struct Hash {
        size_t operator()(const Key &key) const
        {
            return std::hash<uint64_t>()(key.inode * 0x9e3779b97f4a7c15ULL ^ (uint64_t(key.major) << 32 | key.minor));
        }
    };
    std::unordered_set<Key, Hash> keys;

    void readMaps(UniqueFd mapsFd)
    {
        FILE *file = fdopen(mapsFd.get(), "r");
        if (!file) {
            return;
        }
        // fclose() below closes the descriptor.
        (void)mapsFd.release();
        char *line = nullptr;
        size_t capacity = 0;
        while (getline(&line, &capacity, file) > 0) {
            // "start-end perms offset MAJ:MIN inode   path"
            unsigned int major = 0;
            unsigned int minor = 0;
            unsigned long long inode = 0;
            if (sscanf(line, "%*s %*s %*s %x:%x %llu", &major, &minor, &inode) == 3 && inode != 0) {
                keys.insert({major, minor, inode});
            }
        }
        free(line);
        fclose(file);
    }
};

MappedFiles::MappedFiles()
    : d(std::make_unique<Private>())
{
}

MappedFiles::~MappedFiles() = default;

std::shared_ptr<const MappedFiles> MappedFiles::scan(const std::string &procRoot)
{
    std::shared_ptr<MappedFiles> result(new MappedFiles);
    DIR *dir = opendir(procRoot.c_str());
    if (!dir) {
        return result;
    }
    const int dirFd = dirfd(dir);
    while (const dirent *entry = readdir(dir)) {
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9') {
            continue;
        }
        const std::string maps = std::string(entry->d_name) + "/maps";
        // Other users' processes answer EACCES and short-lived ones ENOENT:
        // neither can map anything we could evict, so they are skipped.
        UniqueFd fd(openat(dirFd, maps.c_str(), O_RDONLY | O_CLOEXEC));
        if (fd) {
            result->d->readMaps(std::move(fd));
        }
    }
    closedir(dir);
    return result;
}

bool MappedFiles::contains(uint64_t device, uint64_t inode) const
{
    return d->keys.contains({uint32_t(major(dev_t(device))), uint32_t(minor(dev_t(device))), inode});
}

size_t MappedFiles::size() const
{
    return d->keys.size();
}

bool isMemoryBackedFilesystem(int fd)
{
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0) {
        return false;
    }
    switch (static_cast<unsigned long>(fs.f_type)) {
    case TMPFS_MAGIC: // tmpfs, /dev/shm, memfd, devtmpfs
    case RAMFS_MAGIC: // ramfs, rootfs
    case HUGETLBFS_MAGIC:
        return true;
    default:
        return false;
    }
}

EvictReport evictDescriptor(int fd, const struct stat &st, const EvictOptions &options, const MappedFiles *mapped)
{
    EvictReport report;
    if (!S_ISREG(st.st_mode)) {
        report.error = EINVAL;
        report.errorText = "not a regular file: never evicted";
        return report;
    }
    const uint64_t page = pageSize();
    const uint64_t size = uint64_t(std::max<off_t>(st.st_size, 0));
    const uint64_t start = std::min(options.offset, size);
    const bool toEnd = options.length == 0 || options.length >= size - start;
    const uint64_t end = toEnd ? size : start + options.length;
    // Whole pages: the kernel drops only pages wholly inside the range it is
    // given, so the range is widened to the pages it touches (a page is the
    // unit of the cache; dropping a clean page loses nothing).
    const uint64_t firstPage = start / page;
    const uint64_t pageCount = end > start ? (end + page - 1) / page - firstPage : 0;
    report.pages = pageCount;

    const RangeResidency before = residencyOfPageRange(fd, st, firstPage, pageCount);
    report.hidden = before.hidden;
    report.before = before.resident;

    if (options.flushDirtyFirst && fdatasync(fd) != 0) {
        // Go on: clean pages can still be dropped, and the report says why dirty ones stayed.
        report.error = errno;
        report.errorText = errnoText("fdatasync", report.error);
    }
    // Length 0 covers the end, also pages of data appended since fstat. An
    // empty range (past the end) must not become "from here to the end".
    const int adviceError = pageCount == 0 ? 0 : posix_fadvise(fd, off_t(firstPage * page), toEnd ? 0 : off_t(pageCount * page), POSIX_FADV_DONTNEED);
    if (adviceError != 0) {
        report.error = adviceError;
        report.errorText = errnoText("posix_fadvise(DONTNEED)", adviceError);
        report.after = report.before;
        return report;
    }

    const RangeResidency after = residencyOfPageRange(fd, st, firstPage, pageCount);
    report.hidden = report.hidden || after.hidden;
    if (report.hidden) {
        report.before = 0;
        report.after = 0;
        report.reason = RemainReason::Hidden;
        return report;
    }
    if (!after.ok()) {
        report.error = after.error;
        report.errorText = after.errorText;
        return report;
    }
    report.after = after.resident;
    report.dirtyAfter = after.dirty;
    if (report.after == 0) {
        return report;
    }
    // Pages that were dirty before went to writeback, not away: they may be
    // clean by now and still count.
    const bool wasDirty = before.detail && (before.dirty > 0 || before.writeback > 0) && !options.flushDirtyFirst;
    if (isMemoryBackedFilesystem(fd)) {
        report.reason = RemainReason::Shmem;
    } else if (after.dirty > 0 || after.writeback > 0 || wasDirty) {
        report.reason = RemainReason::Dirty;
    } else if (mapped && mapped->contains(uint64_t(st.st_dev), uint64_t(st.st_ino))) {
        report.reason = RemainReason::Mapped;
    } else {
        report.reason = RemainReason::Unknown;
    }
    return report;
}

} // namespace Cachescope
