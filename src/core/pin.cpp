// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "pin.h"

#include "format.h"
#include "procfs.h"
#include "residency.h"
#include "uniquefd.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace Cachescope
{

namespace
{
// CAP_IPC_LOCK (bit 14) in the effective set: mlock is then not limited.
bool hasIpcLock()
{
    const std::optional<std::string> status = readProcFile("/proc/self/status");
    if (!status) {
        return geteuid() == 0;
    }
    std::istringstream lines(*status);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("CapEff:", 0) == 0) {
            const uint64_t caps = std::strtoull(line.c_str() + 7, nullptr, 16);
            return (caps >> 14) & 1;
        }
    }
    return false;
}

uint64_t lockedNow()
{
    const std::optional<std::string> status = readProcFile("/proc/self/status");
    if (!status) {
        return 0;
    }
    std::istringstream lines(*status);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("VmLck:", 0) == 0) {
            return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
        }
    }
    return 0;
}

std::string bytesText(uint64_t bytes)
{
    return formatBytes(bytes).toStdString();
}
} // namespace

LockLimits currentLockLimits()
{
    LockLimits limits;
    struct rlimit rl{};
    getrlimit(RLIMIT_MEMLOCK, &rl);
    limits.unlimited = hasIpcLock() || rl.rlim_cur == RLIM_INFINITY;
    limits.limit = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : uint64_t(rl.rlim_cur);
    limits.alreadyLocked = lockedNow();
    if (const std::optional<MemInfo> memInfo = readMemInfo()) {
        limits.available = memInfo->value("MemAvailable");
    }
    return limits;
}

namespace
{
// The system calls themselves, not the libc wrappers: AddressSanitizer
// replaces mlock() and munlock() with functions that do nothing (so that its
// shadow memory is never locked), and the sanitizer build of the tests must
// lock for real what the release build locks.
int lockPages(void *address, size_t length)
{
    return int(syscall(SYS_mlock, address, length));
}

int unlockPages(void *address, size_t length)
{
    return int(syscall(SYS_munlock, address, length));
}
} // namespace

Pins::~Pins()
{
    for (const Mapping &mapping : m_mappings) {
        unlockPages(mapping.address, mapping.length);
        munmap(mapping.address, mapping.length);
    }
}

uint64_t Pins::bytes() const
{
    uint64_t total = 0;
    for (const PinnedRange &range : m_ranges) {
        total += range.length;
    }
    return total;
}

uint64_t Pins::pages() const
{
    uint64_t total = 0;
    for (const PinnedRange &range : m_ranges) {
        total += range.pages;
    }
    return total;
}

uint64_t Pins::residentPages() const
{
    uint64_t resident = 0;
    std::vector<unsigned char> vector;
    for (const Mapping &mapping : m_mappings) {
        vector.assign((mapping.length + pageSize() - 1) / pageSize(), 0);
        if (mincore(mapping.address, mapping.length, vector.data()) == 0) {
            for (unsigned char page : vector) {
                resident += page & 1;
            }
        }
    }
    return resident;
}

PinResult pinFiles(const std::vector<PinRequest> &requests)
{
    PinResult result;
    result.limits = currentLockLimits();
    const uint64_t page = pageSize();
    struct Planned {
        UniqueFd fd;
        PinnedRange range;
    };
    std::vector<Planned> planned;
    // 1. Every path and range, before anything is locked.
    for (const PinRequest &request : requests) {
        UniqueFd fd(open(request.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
        if (!fd) {
            result.error = request.path + ": " + errnoText(errno);
            return result;
        }
        struct stat st{};
        if (fstat(fd.get(), &st) != 0) {
            result.error = request.path + ": fstat: " + errnoText(errno);
            return result;
        }
        if (S_ISDIR(st.st_mode)) {
            result.error = request.path + ": a folder: lock pins files (name the files in it)";
            return result;
        }
        if (!S_ISREG(st.st_mode)) {
            result.error = request.path + ": not a regular file: nothing to lock";
            return result;
        }
        const uint64_t size = uint64_t(st.st_size);
        if (size == 0) {
            result.error = request.path + ": empty: nothing to lock";
            return result;
        }
        const uint64_t start = request.offset / page * page;
        if (start >= size) {
            result.error = request.path + ": offset " + std::to_string(request.offset) + " is beyond its end (size " + std::to_string(size) + ")";
            return result;
        }
        const uint64_t end = request.length == 0 || request.offset + request.length > size ? size : request.offset + request.length;
        Planned plan;
        plan.fd = std::move(fd);
        plan.range.path = request.path;
        plan.range.offset = start;
        plan.range.length = end - start;
        plan.range.pages = (end - start + page - 1) / page;
        result.bytes += plan.range.pages * page;
        planned.push_back(std::move(plan));
    }
    // 2. The whole size against the limits: refused with the numbers, nothing locked.
    const LockLimits &limits = result.limits;
    if (!limits.unlimited && result.bytes + limits.alreadyLocked > limits.limit) {
        result.error = "locking needs " + bytesText(result.bytes) + ", but RLIMIT_MEMLOCK allows " + bytesText(limits.limit)
            + (limits.alreadyLocked ? " (" + bytesText(limits.alreadyLocked) + " already locked)" : std::string())
            + ": raise it (ulimit -l, or memlock in /etc/security/limits.conf) or run as root";
        return result;
    }
    if (limits.available > 0 && result.bytes > limits.available) {
        result.error = "locking needs " + bytesText(result.bytes) + ", but only " + bytesText(limits.available)
            + " of memory is available: the rest of the system would have none";
        return result;
    }
    // 3. Map and lock; any failure unlocks everything (the Pins destructor).
    std::unique_ptr<Pins> pins(new Pins);
    for (Planned &plan : planned) {
        const size_t length = size_t(plan.range.pages * page);
        void *address = mmap(nullptr, length, PROT_READ, MAP_SHARED, plan.fd.get(), off_t(plan.range.offset));
        if (address == MAP_FAILED) {
            result.error = plan.range.path + ": mmap: " + errnoText(errno);
            return result;
        }
        // Faults without readahead: the range asked for is what is read in,
        // not a window around it.
        madvise(address, length, MADV_RANDOM);
        if (lockPages(address, length) != 0) {
            const int error = errno;
            munmap(address, length);
            result.error = plan.range.path + ": mlock: " + errnoText(error)
                + (error == ENOMEM || error == EAGAIN ? " (the memory or the lock limit ran out part way: nothing stays locked)" : "");
            return result;
        }
        pins->m_mappings.push_back({address, length});
        pins->m_ranges.push_back(plan.range);
    }
    result.pins = std::move(pins);
    return result;
}

} // namespace Cachescope
