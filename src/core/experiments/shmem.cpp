// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 10. Memory that cannot be evicted. A file on tmpfs lives in the page
// cache: /proc/meminfo counts it in Cached and in Shmem (free's "shared"),
// so free's buff/cache grows with it. But it has no disk behind it: its
// pages are on the anonymous LRU lists (mm/shmem.c). posix_fadvise
// (DONTNEED) does nothing on a file system without a backing device
// (mm/fadvise.c), drop_caches drops only clean folios (mm/truncate.c
// mapping_evict_folio) and a tmpfs folio is never clean: no disk holds
// it. si_mem_available() counts free memory and the file LRU lists, so
// MemAvailable falls by the file; reclaim can only write it to swap. Four steps: fill a tmpfs, evict
// the file, drop the caches, then press a memory cgroup that holds the
// file: without swap its limit is hit and the file stays. Last, with swap
// on (the experiment swap file where there is none), the file's pages are
// reclaimed on request (madvise MADV_PAGEOUT on a mapping of it): they go
// to swap, the one place they can go. That part is not a cgroup's pressure:
// Cachescope's cgroups forbid swap (memory.swap.max 0; v1's
// memory.memsw.limit_in_bytes equal to the limit, so reclaim at the limit
// may not swap), so that no experiment fills this computer's swap.

#include "containedworker.h"
#include "engines.h"
#include "experimentsupport.h"

#include "format.h"
#include "procfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace Cachescope::Experiments
{

namespace
{

constexpr size_t chunkBytes = 1 << 20;
constexpr uint64_t allocationStep = 4ULL << 20;
constexpr size_t longestFolder = 3900;
constexpr double stallSeconds = 3; // no progress this long: held at the cgroup's limit

enum Operation : int32_t {
    WriteFile = 1,
    Allocate = 2,
};

struct Command {
    int32_t operation = 0;
    int32_t padding = 0;
    uint64_t bytes = 0;
};
struct Report {
    int32_t error = 0;
    int32_t done = 0; // 0: progress of an allocation
    uint64_t bytes = 0; // written, or allocated so far
};

void sendReport(int reportFd, const Report &report)
{
    (void)!::write(reportFd, &report, sizeof report);
}

// The worker: writes the tmpfs file in its cgroup (so that its pages are
// charged there), then allocates and touches anonymous memory, a report
// every 4 MiB, and holds it until the next command.
[[noreturn]] void workerMain(int commandFd, int reportFd, const char *path)
{
    void *mapped = ::mmap(nullptr, chunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
        sendReport(reportFd, Report{errno, 1, 0});
        ::_exit(1);
    }
    auto *buffer = static_cast<char *>(mapped);
    fillIncompressible(buffer, chunkBytes);
    for (;;) {
        Command command;
        if (!readWorkerCommand(commandFd, &command, sizeof command)) {
            ::_exit(0);
        }
        Report report{0, 1, 0};
        if (command.operation == WriteFile) {
            const int fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
            if (fd < 0) {
                report.error = errno;
            }
            while (fd >= 0 && report.bytes < command.bytes) {
                const size_t want = size_t(std::min<uint64_t>(chunkBytes, command.bytes - report.bytes));
                const ssize_t wrote = ::write(fd, buffer, want);
                if (wrote < 0 && errno == EINTR) {
                    continue;
                }
                if (wrote <= 0) {
                    report.error = wrote < 0 ? errno : ENOSPC;
                    break;
                }
                report.bytes += uint64_t(wrote);
            }
            if (fd >= 0) {
                ::close(fd);
            }
            sendReport(reportFd, report);
        } else if (command.operation == Allocate) {
            void *memory = ::mmap(nullptr, command.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (memory == MAP_FAILED) {
                report.error = errno;
                sendReport(reportFd, report);
                continue;
            }
            auto *bytes = static_cast<volatile char *>(memory);
            for (uint64_t offset = 0; offset < command.bytes; offset += 4096) {
                bytes[offset] = char((offset >> 12) | 1);
                if ((offset + 4096) % allocationStep == 0) {
                    sendReport(reportFd, Report{0, 0, offset + 4096});
                }
            }
            sendReport(reportFd, Report{0, 1, command.bytes});
            // Held: the memory stays until the worker is stopped.
        }
    }
}

constexpr const char *mountPrefix = "cachescope-shmem-";

// The process a name "cachescope-shmem-<pid>..." in folder was made by,
// when it is gone (a second Ctrl+C ends the program at once, SIGKILL too);
// 0 for any other name or a process still running.
pid_t goneOwner(const char *name)
{
    if (std::strncmp(name, mountPrefix, std::strlen(mountPrefix)) != 0) {
        return 0;
    }
    char *end = nullptr;
    const long owner = std::strtol(name + std::strlen(mountPrefix), &end, 10);
    if (owner <= 0 || end == name + std::strlen(mountPrefix) || (*end != '\0' && *end != '-') || owner == ::getpid()) {
        return 0;
    }
    return ::kill(pid_t(owner), 0) != 0 && errno == ESRCH ? pid_t(owner) : 0;
}

// What a run killed outright left in folder: its files (a tmpfs keeps
// them in memory until someone removes them) and, with folders, its mount
// points under the mount root (unmounted, removed). Returns how many.
int removeLeftovers(const std::string &folder, bool folders)
{
    DIR *directory = ::opendir(folder.c_str());
    if (!directory) {
        return 0;
    }
    int removed = 0;
    while (const dirent *entry = ::readdir(directory)) {
        if (goneOwner(entry->d_name) == 0) {
            continue;
        }
        const std::string path = folder + "/" + entry->d_name;
        struct stat st;
        if (::lstat(path.c_str(), &st) != 0) {
            continue;
        }
        if (S_ISREG(st.st_mode) && ::unlink(path.c_str()) == 0) {
            ++removed;
        } else if (folders && S_ISDIR(st.st_mode)) {
            (void)::umount2(path.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW); // not mounted when killed between mkdtemp and mount
            if (::rmdir(path.c_str()) == 0) {
                ++removed;
            }
        }
    }
    ::closedir(directory);
    return removed;
}

// A tmpfs the experiment mounted: unmounted (lazily, so that nothing can
// keep it) and its folder removed when it goes out of scope.
class TmpfsMount
{
public:
    TmpfsMount() = default;
    ~TmpfsMount()
    {
        release();
    }
    TmpfsMount(const TmpfsMount &) = delete;
    TmpfsMount &operator=(const TmpfsMount &) = delete;

    // Mounts a tmpfs of sizeBytes on a new folder under root, named with
    // this process's ID; false with the reason when it may not (not root,
    // no such folder, ...).
    bool mount(const std::string &root, uint64_t sizeBytes, std::string &error)
    {
        std::string pattern = root + "/" + mountPrefix + std::to_string(::getpid()) + "-XXXXXX";
        if (!::mkdtemp(pattern.data())) {
            error = root + ": cannot make a folder to mount a tmpfs on: " + errnoText(errno);
            return false;
        }
        const std::string options = "size=" + std::to_string(sizeBytes) + ",mode=0700";
        if (::mount("cachescope-shmem", pattern.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options.c_str()) != 0) {
            error = pattern + ": cannot mount a tmpfs: " + errnoText(errno);
            ::rmdir(pattern.c_str());
            return false;
        }
        m_path = pattern;
        return true;
    }
    void release()
    {
        if (m_path.empty()) {
            return;
        }
        ::umount2(m_path.c_str(), MNT_DETACH);
        ::rmdir(m_path.c_str());
        m_path.clear();
    }
    [[nodiscard]] const std::string &path() const
    {
        return m_path;
    }

private:
    std::string m_path;
};

bool isTmpfs(const std::string &folder)
{
    struct statfs fs;
    return ::statfs(folder.c_str(), &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

// The figures of /proc/meminfo the lesson reads, in bytes.
struct MemoryFigures {
    uint64_t shmem = 0;
    uint64_t cached = 0;
    uint64_t buffCache = 0; // free's buff/cache: Buffers + Cached + SReclaimable
    uint64_t swapUsed = 0;
    uint64_t swapTotal = 0;
    uint64_t available = 0;
    uint64_t swapCached = 0; // written to swap, or read back, and still in memory
};

std::optional<MemoryFigures> memoryFigures()
{
    const std::optional<MemInfo> info = readMemInfo();
    if (!info || !info->find("Shmem") || !info->find("Cached")) {
        return std::nullopt;
    }
    MemoryFigures figures;
    figures.shmem = info->find("Shmem").value_or(0);
    figures.cached = info->find("Cached").value_or(0);
    figures.buffCache = info->find("Buffers").value_or(0) + figures.cached + info->find("SReclaimable").value_or(0);
    figures.swapTotal = info->find("SwapTotal").value_or(0);
    figures.swapUsed = figures.swapTotal - std::min(figures.swapTotal, info->find("SwapFree").value_or(0));
    figures.available = info->find("MemAvailable").value_or(0);
    figures.swapCached = info->find("SwapCached").value_or(0);
    return figures;
}

double grew(uint64_t before, uint64_t after)
{
    return double(after) - double(before);
}

// The percentage of a file's pages in its cache (cachestat, else mincore).
// A tmpfs page written to swap is out of the file's cache for cachestat
// (evicted) even while it waits in the swap cache; mincore counts a page
// in the swap cache as resident.
std::optional<double> residentPercent(const std::string &path)
{
    const FilesPages pages = pagesOf({path});
    if (pages.pages == 0) {
        return std::nullopt;
    }
    return 100.0 * double(pages.resident) / double(pages.pages);
}

// The most the cgroup used: v1's memory.max_usage_in_bytes, v2's
// memory.peak (Linux 5.19).
std::optional<uint64_t> peakUsage(const ContainedGroup &group)
{
    const std::optional<std::string> text = readProcFile(group.path + (group.version == 1 ? "/memory.max_usage_in_bytes" : "/memory.peak"));
    return text ? std::optional<uint64_t>(std::strtoull(text->c_str(), nullptr, 10)) : std::nullopt;
}

// The OOM kills inside the cgroup: v1's memory.oom_control oom_kill, v2's
// memory.events oom_kill.
std::optional<uint64_t> oomKills(const ContainedGroup &group)
{
    const std::optional<std::string> text = readProcFile(group.path + (group.version == 1 ? "/memory.oom_control" : "/memory.events"));
    return text ? parseVmStat(*text).find("oom_kill") : std::nullopt;
}

std::optional<uint64_t> groupShmem(const ContainedGroup &group)
{
    const std::optional<std::string> text = readProcFile(group.path + "/memory.stat");
    return text ? parseVmStat(*text).find("shmem") : std::nullopt;
}

class ShmemExperiment : public Engine
{
public:
    ShmemExperiment(const ShmemParameters &parameters, const PrivilegedSteps &privileged)
        : Engine("shmem")
        , m_parameters(parameters)
        , m_privileged(privileged)
    {
    }

private:
    QJsonObject parametersJson() const override
    {
        const ShmemParameters &p = m_parameters;
        return QJsonObject{
            {QStringLiteral("folder"), QString::fromStdString(p.folder)},
            {QStringLiteral("size"), double(p.size)},
            {QStringLiteral("headroom"), double(headroom())},
            {QStringLiteral("drop_caches"), p.dropCachesVariant},
            {QStringLiteral("pressure"), p.pressure},
            {QStringLiteral("with_swap"), p.withSwapVariant},
            {QStringLiteral("runs"), p.runs},
        };
    }

    // The cgroup's limit above the file: the given one, or 32 MiB and at
    // most half the file (so that allocating the file's size again must
    // hit the limit).
    uint64_t headroom() const
    {
        return m_parameters.headroom != 0 ? m_parameters.headroom : std::min<uint64_t>(32ULL << 20, m_parameters.size / 2);
    }

    std::string checkParameters(const MemoryFigures &memory) const
    {
        const ShmemParameters &p = m_parameters;
        if (p.size < (16ULL << 20) || p.size > (4ULL << 30)) {
            return "the file must be from 16 MiB to 4 GiB (got " + formatBytes(p.size).toStdString() + ")";
        }
        if (p.headroom != 0 && (p.headroom < (4ULL << 20) || p.headroom >= p.size)) {
            return "the cgroup's headroom must be from 4 MiB to less than the file's size (got " + formatBytes(p.headroom).toStdString() + ")";
        }
        if (p.runs < 1) {
            return "at least one run";
        }
        if (p.folder.size() > longestFolder) {
            return p.folder + ": the path is too long";
        }
        // Nothing can take these pages back but swap: never a large share of memory.
        if (p.size > memory.available / 4) {
            return "a file of " + formatBytes(p.size).toStdString() + " is more than a quarter of the memory available ("
                + formatBytes(memory.available).toStdString() + "): it could not be evicted to make room";
        }
        return {};
    }

    // Where the file goes: the folder given (a tmpfs), a tmpfs mounted
    // for the lesson, or /dev/shm.
    std::string chooseFolder(Result &result, TmpfsMount &mount)
    {
        const ShmemParameters &p = m_parameters;
        if (!p.folder.empty()) {
            struct stat st;
            if (::stat(p.folder.c_str(), &st) != 0) {
                result.error = p.folder + ": " + errnoText(errno);
                return {};
            }
            if (!S_ISDIR(st.st_mode)) {
                result.error = p.folder + ": not a folder";
                return {};
            }
            if (!isTmpfs(p.folder)) {
                result.error = p.folder + ": not a tmpfs; the lesson is about a tmpfs's pages (try /dev/shm)";
                return {};
            }
            result.details.insert(QStringLiteral("tmpfs"), QStringLiteral("given"));
            return p.folder;
        }
        std::string why = "only root may mount a tmpfs";
        if (::geteuid() == 0) {
            if (const int stale = removeLeftovers(p.mountRoot, true); stale > 0) {
                result.notes.push_back("Removed " + std::to_string(stale) + " tmpfs left mounted by an earlier run that was killed.");
            }
        }
        // Twice the file: the cgroup's file and the first part's may meet.
        if (::geteuid() == 0 && mount.mount(p.mountRoot, 2 * p.size + (16ULL << 20), why)) {
            result.details.insert(QStringLiteral("tmpfs"), QStringLiteral("mounted"));
            return mount.path();
        }
        if (isTmpfs("/dev/shm")) {
            result.notes.push_back("The file is in /dev/shm: " + why + ".");
            result.details.insert(QStringLiteral("tmpfs"), QStringLiteral("/dev/shm"));
            return "/dev/shm";
        }
        result.error = why + "; and /dev/shm is not a tmpfs";
        return {};
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const ShmemParameters &p = m_parameters;
        const std::optional<MemoryFigures> start = memoryFigures();
        if (!start) {
            result.error = "/proc/meminfo: cannot read Shmem and Cached";
            return;
        }
        result.error = checkParameters(*start);
        if (!result.error.empty()) {
            return;
        }
        TmpfsMount mount;
        const std::string folder = chooseFolder(result, mount);
        if (folder.empty()) {
            return;
        }
        struct statvfs fs;
        if (::statvfs(folder.c_str(), &fs) == 0 && uint64_t(fs.f_bavail) * fs.f_frsize < p.size) {
            result.error =
                folder + ": " + formatBytes(uint64_t(fs.f_bavail) * fs.f_frsize).toStdString() + " free, the file needs " + formatBytes(p.size).toStdString();
            return;
        }
        result.details.insert(QStringLiteral("folder"), QString::fromStdString(folder));
        if (const int stale = removeLeftovers(folder, false); stale > 0) {
            result.notes.push_back("Removed " + std::to_string(stale) + " file(s) left in " + folder + " by an earlier run that was killed.");
        }
        recorder.event("The file goes to the tmpfs " + folder);

        std::string phase;
        std::string watched; // the file whose pages the samples follow
        std::optional<ContainedGroup> group;
        std::mutex mutex;
        PeriodicThread sampler(std::chrono::milliseconds(std::max(20, p.sampleIntervalMs)), [&] {
            Sample sample;
            addMemInfo(sample);
            std::lock_guard lock(mutex);
            sample.phase = phase;
            if (!watched.empty()) {
                const FilesPages pages = pagesOf({watched});
                if (pages.pages > 0) {
                    sample.fileResident = pages.resident;
                    sample.filePages = pages.pages;
                }
            }
            if (group) {
                sample.groupUsage = cgroupUsage(*group);
                sample.allocated = m_allocated.load();
            }
            recorder.sample(sample);
        });
        const auto setPhase = [&](const std::string &name, const std::string &file, const std::optional<ContainedGroup> &inGroup) {
            std::lock_guard lock(mutex);
            phase = name;
            watched = file;
            group = inGroup;
        };

        VariantResult fill;
        VariantResult evict;
        VariantResult drop;
        VariantResult withoutSwap;
        VariantResult withSwap;
        fill.name = shmemFill;
        evict.name = shmemEvict;
        drop.name = shmemDropCaches;
        withoutSwap.name = shmemWithoutSwap;
        withSwap.name = shmemWithSwap;
        const std::string path = folder + "/" + mountPrefix + std::to_string(::getpid());
        for (int run = 0; run < p.runs && !cancel.load() && result.error.empty(); ++run) {
            setPhase("fill", path, std::nullopt);
            if (!fillEvictDrop(path, fill, evict, drop, recorder, result, cancel)) {
                break;
            }
            ::unlink(path.c_str());
            setPhase({}, {}, std::nullopt);
            if (p.pressure && start->swapTotal > 0) {
                skip(withoutSwap,
                     "swap is on (" + formatBytes(start->swapTotal).toStdString()
                         + "): the file's pages could go there; this part needs a computer without swap");
            } else if (p.pressure && !pressCgroup(path, withoutSwap, setPhase, recorder, result, cancel)) {
                break;
            }
            if (p.withSwapVariant && !pageOut(path, withSwap, setPhase, recorder, result, cancel)) {
                break;
            }
        }
        setPhase({}, {}, std::nullopt);
        sampler.stop();
        ::unlink(path.c_str());
        for (VariantResult *v : {&fill, &evict, &drop, &withoutSwap, &withSwap}) {
            if (!v->measurements.empty()) {
                v->computeStatistics();
                result.variants.push_back(std::move(*v));
            } else if (v->skipped) {
                result.variants.push_back(std::move(*v));
            }
        }
        mount.release();
        recorder.event(cancel.load() ? "Cancelled: the worker was killed, the file, the cgroup and the tmpfs removed"
                                     : "The file, the cgroup and the tmpfs were removed");
    }

    static void skip(VariantResult &v, const std::string &reason)
    {
        if (v.measurements.empty()) {
            v.skipped = true;
            v.skipReason = reason;
        }
    }

    // Writes the lesson's file (made is set to remove it); false with
    // result.error set, or when cancelled.
    bool writeFile(const std::string &path, TemporaryFile &made, Result &result, const std::atomic<bool> &cancel) const
    {
        const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
        if (!fd.isValid()) {
            result.error = path + ": " + errnoText(errno);
            return false;
        }
        made.set(path);
        std::vector<char> buffer(chunkBytes);
        fillIncompressible(buffer.data(), buffer.size());
        for (uint64_t written = 0; written < m_parameters.size;) {
            if (cancel.load()) {
                return false;
            }
            const ssize_t wrote = ::write(fd.get(), buffer.data(), size_t(std::min<uint64_t>(chunkBytes, m_parameters.size - written)));
            if (wrote < 0 && errno == EINTR) {
                continue;
            }
            if (wrote <= 0) {
                result.error = path + ": write: " + errnoText(wrote < 0 ? errno : ENOSPC);
                return false;
            }
            written += uint64_t(wrote);
        }
        return true;
    }

    // The first three parts, by this process: the file written, evicted,
    // then drop_caches.
    bool fillEvictDrop(const std::string &path,
                       VariantResult &fill,
                       VariantResult &evict,
                       VariantResult &drop,
                       Recorder &recorder,
                       Result &result,
                       const std::atomic<bool> &cancel)
    {
        const MemoryFigures before = memoryFigures().value_or(MemoryFigures());
        TemporaryFile made;
        if (!writeFile(path, made, result, cancel)) {
            return false;
        }
        const MemoryFigures filled = memoryFigures().value_or(MemoryFigures());
        fill.add("shmem_added", "bytes", grew(before.shmem, filled.shmem));
        fill.add("cached_added", "bytes", grew(before.cached, filled.cached));
        fill.add("buff_cache_added", "bytes", grew(before.buffCache, filled.buffCache));
        fill.add("available_fell", "bytes", grew(filled.available, before.available));
        fill.add("file_resident_percent", "percent", residentPercent(path).value_or(0));
        recorder.event("Wrote " + formatBytes(m_parameters.size).toStdString() + " to " + path + ": Shmem grew by "
                       + formatBytes(uint64_t(std::max(0.0, grew(before.shmem, filled.shmem)))).toStdString());

        // Evict as Cachescope's Evict does: posix_fadvise(DONTNEED).
        {
            struct stat st;
            std::string error;
            const UniqueFd fd = openForReading(path, st, error);
            if (!fd.isValid()) {
                result.error = error;
                return false;
            }
            (void)::fdatasync(fd.get());
            if (const int error = ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED); error != 0) {
                result.error = path + ": posix_fadvise(DONTNEED): " + errnoText(error);
                return false;
            }
        }
        const MemoryFigures evicted = memoryFigures().value_or(MemoryFigures());
        evict.add("file_resident_percent", "percent", residentPercent(path).value_or(0));
        evict.add("shmem_freed", "bytes", grew(evicted.shmem, filled.shmem));
        evict.add("cached_freed", "bytes", grew(evicted.cached, filled.cached));
        recorder.event("Evicted with posix_fadvise(DONTNEED): " + std::to_string(int(residentPercent(path).value_or(0))) + " % of the file still in memory");

        if (!m_parameters.dropCachesVariant) {
            return !cancel.load();
        }
        if (!m_privileged.dropCaches) {
            skip(drop, "drop_caches needs the privileged helper");
            return !cancel.load();
        }
        std::string error;
        if (!m_privileged.dropCaches(error)) {
            skip(drop, "drop_caches failed: " + error);
            return !cancel.load();
        }
        const MemoryFigures dropped = memoryFigures().value_or(MemoryFigures());
        drop.add("file_resident_percent", "percent", residentPercent(path).value_or(0));
        drop.add("shmem_freed", "bytes", grew(dropped.shmem, evicted.shmem));
        drop.add("cached_freed", "bytes", grew(dropped.cached, evicted.cached));
        recorder.event("drop_caches 3: " + std::to_string(int(residentPercent(path).value_or(0))) + " % of the file still in memory");
        return !cancel.load();
    }

    // Last: with swap on (the experiment swap file when there is none),
    // the file mapped, every page touched, then reclaimed on request
    // (MADV_PAGEOUT, Linux 5.4): the one place its pages can go is swap.
    template<typename SetPhase>
    bool pageOut(const std::string &path, VariantResult &v, const SetPhase &setPhase, Recorder &recorder, Result &result, const std::atomic<bool> &cancel)
    {
        const ShmemParameters &p = m_parameters;
        bool swapFileMade = false;
        if (memoryFigures().value_or(MemoryFigures()).swapTotal == 0) {
            if (!m_privileged.swapFileOn) {
                skip(v, "there is no swap, and the experiment swap file needs the privileged helper");
                return true;
            }
            std::string error;
            // The file's pages and room to spare, in whole MiB, at most the
            // helper's largest (4 GiB).
            const uint64_t swapBytes = std::min<uint64_t>(((p.size + (16ULL << 20) + (1ULL << 20) - 1) >> 20) << 20, 4ULL << 30);
            recorder.event("Turning on the experiment swap file (" + formatBytes(swapBytes).toStdString() + ")");
            if (!m_privileged.swapFileOn(swapBytes, error)) {
                skip(v, "the experiment swap file: " + error);
                return true;
            }
            swapFileMade = true;
            result.details.insert(QStringLiteral("swap"), QStringLiteral("the experiment swap file"));
        } else {
            result.details.insert(QStringLiteral("swap"), QStringLiteral("this computer's"));
        }
        bool ok = true;
        {
            TemporaryFile made;
            setPhase(shmemWithSwap, path, std::nullopt);
            ok = writeFile(path, made, result, cancel) && pageOutFile(path, v, recorder, result, cancel);
            setPhase({}, {}, std::nullopt);
        } // the file removed first: its swap is freed, and swapoff has nothing to read back
        if (swapFileMade) {
            std::string error;
            if (!m_privileged.swapFileOff || !m_privileged.swapFileOff(error)) {
                result.notes.push_back("The experiment swap file could not be removed: " + error + ". Remove it with cachescope-cli swap remove-file.");
            } else {
                recorder.event("The experiment swap file was turned off and removed");
            }
        }
        return ok;
    }

    bool pageOutFile(const std::string &path, VariantResult &v, Recorder &recorder, Result &result, const std::atomic<bool> &cancel)
    {
        const uint64_t size = m_parameters.size;
        const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
        if (!fd.isValid()) {
            result.error = path + ": " + errnoText(errno);
            return false;
        }
        void *mapped = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), 0);
        if (mapped == MAP_FAILED) {
            result.error = path + ": mmap: " + errnoText(errno);
            return false;
        }
        // Only pages this mapping maps are paged out: touch them all.
        const auto *bytes = static_cast<const volatile char *>(mapped);
        char sum = 0;
        for (uint64_t offset = 0; offset < size; offset += pageSize()) {
            sum = char(sum ^ bytes[offset]);
        }
        (void)sum;
        const MemoryFigures before = memoryFigures().value_or(MemoryFigures());
        const int advised = ::madvise(mapped, size, MADV_PAGEOUT) == 0 ? 0 : errno;
        ::munmap(mapped, size);
        if (advised != 0) {
            skip(v, "madvise(MADV_PAGEOUT): " + errnoText(advised));
            return !cancel.load();
        }
        // Shmem and swap used change within madvise; the pages written wait in
        // the swap cache (SwapCached, still in memory) until reclaim frees them.
        const MemoryFigures after = memoryFigures().value_or(MemoryFigures());
        const double kept = residentPercent(path).value_or(0);
        v.add("shmem_kept_percent", "percent", kept);
        v.add("shmem_freed", "bytes", grew(after.shmem, before.shmem));
        v.add("swap_used", "bytes", grew(before.swapUsed, after.swapUsed));
        v.add("swap_cached", "bytes", double(after.swapCached));
        recorder.event(v.name + ": " + std::to_string(int(kept)) + " % of the file still in its cache, Shmem fell by "
                       + formatBytes(uint64_t(std::max(0.0, grew(after.shmem, before.shmem)))).toStdString() + ", swap used grew by "
                       + formatBytes(uint64_t(std::max(0.0, grew(before.swapUsed, after.swapUsed)))).toStdString());
        return !cancel.load();
    }

    // The cgroup's part: the worker writes the file inside a cgroup of the
    // file's size plus the headroom, then allocates the file's size again.
    template<typename SetPhase>
    bool pressCgroup(const std::string &path, VariantResult &v, const SetPhase &setPhase, Recorder &recorder, Result &result, const std::atomic<bool> &cancel)
    {
        const ShmemParameters &p = m_parameters;
        if (!m_privileged.contain) {
            skip(v, containUnavailableReason());
            return true;
        }
        const uint64_t limit = p.size + headroom();
        ContainedWorker worker;
        std::string error;
        if (!worker.startContained(
                m_privileged,
                limit,
                [&path](int commandFd, int reportFd) {
                    workerMain(commandFd, reportFd, path.c_str());
                },
                error)) {
            skip(v, error);
            return true;
        }
        TemporaryFile made;
        made.set(path);
        const ContainedGroup group = worker.containedGroup();
        result.details.insert(QStringLiteral("cgroup"), containedGroupToJson(group));
        const std::string phase = shmemWithoutSwap;
        m_allocated = 0;
        setPhase(phase, path, group);
        recorder.event(v.name + ": the worker writes the file in " + group.path + " (limit " + formatBytes(limit).toStdString() + ")");
        const MemoryFigures before = memoryFigures().value_or(MemoryFigures());

        Report report;
        const Command write{WriteFile, 0, p.size};
        if (!worker.exchange(&write, sizeof write, &report, sizeof report, cancel, v.name + ": writing the file", {}, result.error)) {
            return false;
        }
        if (report.error != 0) {
            result.error = path + ": write: " + errnoText(report.error);
            return false;
        }
        const std::optional<uint64_t> shmemWritten = groupShmem(group);
        const std::optional<uint64_t> killsBefore = oomKills(group);

        // Then the same again as anonymous memory: the cgroup holds only
        // the headroom more.
        const Command allocate{Allocate, 0, p.size};
        if (!worker.send(&allocate, sizeof allocate)) {
            result.error = v.name + ": the worker is gone";
            return false;
        }
        using Clock = std::chrono::steady_clock;
        const Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(p.pressureTimeoutSeconds));
        std::atomic<int64_t> lastProgress{Clock::now().time_since_epoch().count()};
        std::atomic<bool> giveUp{false};
        PeriodicThread watcher(std::chrono::milliseconds(100), [&] {
            const Clock::time_point now = Clock::now();
            const Clock::time_point last{Clock::duration(lastProgress.load())};
            if (cancel.load() || now > deadline || now - last > std::chrono::duration<double>(stallSeconds)) {
                giveUp = true;
            }
        });
        std::string outcome;
        std::optional<uint64_t> shmemPressed;
        std::optional<uint64_t> peak;
        for (;;) {
            const ContainedWorker::Receive received = worker.receive(&report, sizeof report, giveUp);
            if (received == ContainedWorker::Receive::Received) {
                lastProgress = Clock::now().time_since_epoch().count();
                if (report.error != 0) {
                    outcome = "the allocation failed: " + errnoText(report.error);
                    break;
                }
                m_allocated = report.bytes;
                // The cgroup's figures while it still exists.
                shmemPressed = groupShmem(group);
                peak = peakUsage(group);
                if (report.done != 0) {
                    outcome = "allocated all of it";
                    break;
                }
                continue;
            }
            if (received == ContainedWorker::Receive::Ended) {
                outcome = "the worker ended (killed inside its cgroup, most likely by the OOM killer)";
            } else if (cancel.load()) {
                return false;
            } else {
                outcome =
                    Clock::now() > deadline ? "stopped after " + formatSeconds(p.pressureTimeoutSeconds) : "held at the cgroup's limit, no progress for 3 s";
            }
            break;
        }
        watcher.stop();
        // The cgroup lives until the worker is reaped: its last counts.
        if (const std::optional<uint64_t> last = peakUsage(group)) {
            peak = last;
        }
        const std::optional<uint64_t> killsAfter = oomKills(group);
        if (killsBefore && killsAfter && *killsAfter > *killsBefore) {
            outcome = "the worker was killed by the OOM killer inside its cgroup: nothing in it could be reclaimed";
        }
        const MemoryFigures after = memoryFigures().value_or(MemoryFigures());
        const double kept = residentPercent(path).value_or(0);
        v.add("shmem_kept_percent", "percent", kept);
        v.add("allocated", "bytes", double(m_allocated.load()));
        v.add("swap_used", "bytes", grew(before.swapUsed, after.swapUsed));
        // At the limit: the OOM killer acted, or the cgroup's peak came
        // within a page or two of it (the kernel charges in batches).
        const bool killed = killsBefore && killsAfter && *killsAfter > *killsBefore;
        const bool limitHit = killed || (peak && *peak + (64ULL << 10) >= group.limitBytes);
        v.add("limit_hit", "count", limitHit ? 1 : 0);
        QJsonObject run{{QStringLiteral("outcome"), QString::fromStdString(outcome)},
                        {QStringLiteral("limit_hit"), limitHit},
                        {QStringLiteral("limit"), double(limit)}};
        if (shmemWritten) {
            run.insert(QStringLiteral("cgroup_shmem_written"), double(*shmemWritten));
        }
        if (shmemPressed) {
            run.insert(QStringLiteral("cgroup_shmem_pressed"), double(*shmemPressed));
        }
        if (peak) {
            run.insert(QStringLiteral("cgroup_peak"), double(*peak));
        }
        run.insert(QStringLiteral("oom_killed"), killed);
        v.runs.append(run);
        v.details.insert(QStringLiteral("outcome"), QString::fromStdString(outcome));
        recorder.event(v.name + ": " + outcome + "; " + std::to_string(int(kept)) + " % of the file still in memory, "
                       + formatBytes(uint64_t(std::max(0.0, grew(before.swapUsed, after.swapUsed)))).toStdString() + " more swap used");
        setPhase({}, {}, std::nullopt);
        const bool cgroupGone = worker.stop();
        if (!cgroupGone) {
            result.notes.push_back(group.path + ": the cgroup was still there 3 s after its worker ended");
        }
        return !cancel.load();
    }

    static std::string formatSeconds(double seconds)
    {
        return std::to_string(int(seconds)) + " s";
    }

    ShmemParameters m_parameters;
    PrivilegedSteps m_privileged;
    std::atomic<uint64_t> m_allocated{0};
};

} // namespace

std::unique_ptr<Experiment> makeShmemExperiment(const ShmemParameters &parameters, const PrivilegedSteps &privileged)
{
    return std::make_unique<ShmemExperiment>(parameters, privileged);
}

} // namespace Cachescope::Experiments
