// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 8. Drop-behind: reading (and writing) a big file without flushing the
// desktop's cache. A worker in a memory cgroup a little larger than the big
// file reads a set of "desktop" files, then reads the big file (or writes
// a new one) one of four ways:
// - plain read()/write(): every page stays cached, and what does not fit
//   pushes out the oldest pages first, the desktop's;
// - read()/write() with posix_fadvise(POSIX_FADV_DONTNEED) on what is done,
//   as it goes (what `dd iflag=nocache` and backup tools do; a written range
//   is first written back with sync_file_range, or DONTNEED cannot drop it);
// - preadv2()/pwritev2() with RWF_DONTCACHE (Linux 6.14, include/uapi/
//   linux/fs.h): the pages go once the I/O is done, where the file system
//   supports it (EOPNOTSUPP where not, and from a kernel without the flag);
// - O_DIRECT: no page cache at all, the I/O straight from the buffer.
// The desktop's pages left, the big file's pages left and the speed tell
// the lesson. The parent evicts and measures (neither puts a page in the
// cache); the worker does all the I/O, charged to its cgroup.

#include "containedworker.h"
#include "engines.h"
#include "experimentsupport.h"

#include "format.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>

// Linux 6.14's include/uapi/linux/fs.h; trixie's headers (6.12) lack it.
#ifndef RWF_DONTCACHE
#define RWF_DONTCACHE 0x00000080
#endif

namespace Cachescope::Experiments
{

uint64_t dropBehindDefaultLimit(uint64_t size)
{
    return size + (16ULL << 20);
}

std::string dropBehindVariantName(bool write, const char *method)
{
    return std::string(write ? "write, " : "read, ") + method;
}

namespace
{

enum Method : int32_t {
    Plain = 0,
    Fadvise = 1,
    DontCache = 2,
    Direct = 3,
};

enum CommandKind : int32_t {
    ReadDesktop = 1,
    ReadBig = 2,
    WriteBig = 3,
};
struct Command {
    int32_t kind = 0;
    int32_t method = Plain;
};
enum Step : int32_t {
    NoStep,
    Opening,
    Reading,
    Writing,
    Advising,
    Syncing,
    Mapping
};
struct Report {
    int32_t kind = 0;
    int32_t error = 0;
    int32_t step = NoStep;
    int32_t file = -1; // the desktop file, or -1 for the big one
    uint64_t bytes = 0;
    double seconds = 0;
};

constexpr size_t bufferBytes = 1 << 20;
constexpr int desktopFileBytes = 4 << 20;

const char *stepName(int32_t step)
{
    switch (step) {
    case Opening:
        return "open";
    case Reading:
        return "read";
    case Writing:
        return "write";
    case Advising:
        return "posix_fadvise";
    case Syncing:
        return "sync";
    case Mapping:
        return "mmap";
    default:
        return "?";
    }
}

// The worker's steps: system calls only (it is forked from a process with
// threads). Each fills report on failure and returns false.
bool failed(Report &report, Step step, int file)
{
    report.error = errno ? errno : EIO;
    report.step = step;
    report.file = file;
    return false;
}

bool readWhole(const char *path, int method, char *buffer, uint64_t chunk, Report &report, int file)
{
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC | (method == Direct ? O_DIRECT : 0));
    if (fd < 0) {
        return failed(report, Opening, file);
    }
    uint64_t offset = 0;
    uint64_t advised = 0;
    for (;;) {
        ssize_t got;
        if (method == DontCache) {
            struct iovec vector = {buffer, bufferBytes};
            got = ::preadv2(fd, &vector, 1, off_t(offset), RWF_DONTCACHE);
        } else {
            got = ::read(fd, buffer, bufferBytes);
        }
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            const int error = errno;
            ::close(fd);
            errno = error;
            return failed(report, Reading, file);
        }
        if (got == 0) {
            break;
        }
        offset += uint64_t(got);
        report.bytes += uint64_t(got);
        if (method == Fadvise && offset - advised >= chunk) {
            // posix_fadvise returns its error rather than setting errno.
            if (const int error = ::posix_fadvise(fd, off_t(advised), off_t(offset - advised), POSIX_FADV_DONTNEED); error != 0) {
                ::close(fd);
                errno = error;
                return failed(report, Advising, file);
            }
            advised = offset;
        }
    }
    if (method == Fadvise && offset > advised) {
        (void)::posix_fadvise(fd, off_t(advised), 0, POSIX_FADV_DONTNEED);
    }
    ::close(fd);
    return true;
}

bool writeWhole(const char *path, int method, const char *buffer, uint64_t size, uint64_t chunk, Report &report)
{
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (method == Direct ? O_DIRECT : 0), 0600);
    if (fd < 0) {
        return failed(report, Opening, -1);
    }
    uint64_t advised = 0;
    const auto bail = [fd, &report](Step step) {
        const int error = errno;
        ::close(fd);
        errno = error;
        return failed(report, step, -1);
    };
    while (report.bytes < size) {
        const size_t piece = size_t(std::min<uint64_t>(bufferBytes, size - report.bytes));
        ssize_t done;
        if (method == DontCache) {
            struct iovec vector = {const_cast<char *>(buffer), piece};
            done = ::pwritev2(fd, &vector, 1, off_t(report.bytes), RWF_DONTCACHE);
        } else {
            done = ::write(fd, buffer, piece);
        }
        if (done < 0 && errno == EINTR) {
            continue;
        }
        if (done <= 0) {
            if (done == 0) {
                errno = EIO;
            }
            return bail(Writing);
        }
        report.bytes += uint64_t(done);
        if (method == Fadvise && report.bytes - advised >= chunk) {
            // Dirty pages cannot be dropped: written back first, then dropped.
            if (::sync_file_range(fd,
                                  off_t(advised),
                                  off_t(report.bytes - advised),
                                  SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER)
                != 0) {
                return bail(Syncing);
            }
            if (const int error = ::posix_fadvise(fd, off_t(advised), off_t(report.bytes - advised), POSIX_FADV_DONTNEED); error != 0) {
                errno = error;
                return bail(Advising);
            }
            advised = report.bytes;
        }
    }
    // Every way ends on the disk: the plain write's pages are written back too.
    if (::fsync(fd) != 0) {
        return bail(Syncing);
    }
    if (method == Fadvise) {
        (void)::posix_fadvise(fd, off_t(advised), 0, POSIX_FADV_DONTNEED);
    }
    ::close(fd);
    return true;
}

struct WorkerPaths {
    const char *big = nullptr;
    const char *written = nullptr;
    const char *const *desktop = nullptr;
    int desktopCount = 0;
    uint64_t size = 0;
    uint64_t chunk = 0;
};

[[noreturn]] void workerMain(int commandFd, int reportFd, const WorkerPaths &paths)
{
    Report report;
    // Page-aligned, as O_DIRECT wants it.
    void *mapped = ::mmap(nullptr, bufferBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
        failed(report, Mapping, -1);
        (void)!::write(reportFd, &report, sizeof report);
        ::_exit(1);
    }
    auto *buffer = static_cast<char *>(mapped);
    fillIncompressible(buffer, bufferBytes);
    for (;;) {
        Command command;
        if (!readWorkerCommand(commandFd, &command, sizeof command)) {
            ::_exit(0);
        }
        report = Report();
        report.kind = command.kind;
        errno = 0;
        const double start = monotonicSeconds();
        switch (command.kind) {
        case ReadDesktop:
            for (int i = 0; i < paths.desktopCount && readWhole(paths.desktop[i], Plain, buffer, paths.chunk, report, i); ++i) { }
            break;
        case ReadBig:
            (void)readWhole(paths.big, command.method, buffer, paths.chunk, report, -1);
            break;
        case WriteBig:
            (void)writeWhole(paths.written, command.method, buffer, paths.size, paths.chunk, report);
            break;
        default:
            report.error = EINVAL;
        }
        report.seconds = monotonicSeconds() - start;
        (void)!::write(reportFd, &report, sizeof report);
    }
}

class DropBehindExperiment : public Engine
{
public:
    DropBehindExperiment(const DropBehindParameters &parameters, const PrivilegedSteps &privileged)
        : Engine("drop-behind")
        , m_parameters(parameters)
        , m_privileged(privileged)
    {
    }

private:
    QJsonObject parametersJson() const override
    {
        const DropBehindParameters &p = m_parameters;
        return QJsonObject{
            {QStringLiteral("folder"), QString::fromStdString(p.folder)},
            {QStringLiteral("size"), double(p.size)},
            {QStringLiteral("desktop_size"), double(p.desktopSize)},
            {QStringLiteral("limit"), double(limit())},
            {QStringLiteral("runs"), p.runs},
            {QStringLiteral("reads"), p.reads},
            {QStringLiteral("writes"), p.writes},
        };
    }

    uint64_t limit() const
    {
        return m_parameters.limit ? m_parameters.limit : dropBehindDefaultLimit(m_parameters.size);
    }

    std::vector<std::pair<bool, int>> ways() const
    {
        std::vector<std::pair<bool, int>> list;
        for (const bool write : {false, true}) {
            if ((write && !m_parameters.writes) || (!write && !m_parameters.reads)) {
                continue;
            }
            for (int method = Plain; method <= Direct; ++method) {
                list.emplace_back(write, method);
            }
        }
        return list;
    }

    std::string checkParameters() const
    {
        const DropBehindParameters &p = m_parameters;
        if (p.size < (16ULL << 20) || p.size > (64ULL << 30)) {
            return "the big file must be from 16 MiB to 64 GiB (got " + formatBytes(p.size).toStdString() + ")";
        }
        if (p.size % bufferBytes != 0) {
            return "the big file's size must be whole MiB, as O_DIRECT reads and writes it (got " + formatBytes(p.size).toStdString() + ")";
        }
        if (p.desktopSize < uint64_t(desktopFileBytes) || p.desktopSize > (1ULL << 30)) {
            return "the desktop's files must be from 4 MiB to 1 GiB (got " + formatBytes(p.desktopSize).toStdString() + ")";
        }
        if (limit() < (16ULL << 20)) {
            return "the cgroup's limit must be at least 16 MiB (got " + formatBytes(limit()).toStdString() + ")";
        }
        if (p.runs < 1) {
            return "at least one run";
        }
        if (ways().empty()) {
            return "neither reads nor writes chosen";
        }
        return {};
    }

    void skipAll(Result &result, const std::string &reason) const
    {
        for (const auto &[write, method] : ways()) {
            VariantResult skipped;
            skipped.name = dropBehindVariantName(write, dropBehindMethods[method]);
            skipped.skipped = true;
            skipped.skipReason = reason;
            result.variants.push_back(std::move(skipped));
        }
    }

    // Whether RWF_DONTCACHE works on this file system with this kernel: the
    // error of a one-page try, 0 when it works.
    static int dontCacheError(const std::string &folder)
    {
        const std::string probe = folder + "/dontcache-probe";
        const int fd = ::open(probe.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
            return errno;
        }
        char page[4096] = {};
        struct iovec vector = {page, sizeof page};
        int error = 0;
        if (::pwritev2(fd, &vector, 1, 0, RWF_DONTCACHE) < 0 || ::preadv2(fd, &vector, 1, 0, RWF_DONTCACHE) < 0) {
            error = errno;
        }
        ::close(fd);
        ::unlink(probe.c_str());
        return error;
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const DropBehindParameters &p = m_parameters;
        result.error = checkParameters();
        if (!result.error.empty()) {
            return;
        }
        if (!m_privileged.contain) {
            skipAll(result, containUnavailableReason() + "; the lesson never runs unconfined, which would flush the whole desktop's cache");
            return;
        }
        result.error = checkScratchFolder(p.folder, 2 * p.size + p.desktopSize);
        if (!result.error.empty()) {
            return;
        }
        TemporaryFolder guard;
        const std::string base = makeExperimentFolder(p.folder, "cachescope-drop-behind", guard, result.error);
        if (base.empty()) {
            return;
        }
        result.details.insert(QStringLiteral("path"), QString::fromStdString(base));

        // The files, made here (flushed, then evicted): the worker's reads
        // then charge their pages to its cgroup.
        recorder.event("Making the big file (" + formatBytes(p.size).toStdString() + ") and the desktop's files (" + formatBytes(p.desktopSize).toStdString()
                       + ") in " + base);
        std::vector<std::unique_ptr<TemporaryFile>> made;
        const auto make = [&](const std::string &name, uint64_t bytes) -> std::string {
            auto file = std::make_unique<TemporaryFile>();
            std::string error = createScratchFile(base, name.c_str(), bytes, cancel, *file);
            if (!error.empty()) {
                return error;
            }
            made.push_back(std::move(file));
            return {};
        };
        std::string error = make("big", p.size);
        const int desktopCount = int(p.desktopSize / desktopFileBytes);
        for (int i = 0; i < desktopCount && error.empty() && !cancel.load(); ++i) {
            error = make("desktop-" + std::to_string(i), desktopFileBytes);
        }
        if (!error.empty() || cancel.load()) {
            result.error = error;
            return;
        }
        m_big = made.front()->path();
        m_desktop.clear();
        for (size_t i = 1; i < made.size(); ++i) {
            m_desktop.push_back(made[i]->path());
        }
        m_written = base + "/written";

        const int dontCache = dontCacheError(base);
        result.details.insert(QStringLiteral("dontcache_supported"), dontCache == 0);
        if (dontCache != 0) {
            result.details.insert(QStringLiteral("dontcache_error"), QString::fromStdString(errnoText(dontCache)));
        }

        std::vector<const char *> desktopPaths;
        desktopPaths.reserve(m_desktop.size());
        for (const std::string &path : m_desktop) {
            desktopPaths.push_back(path.c_str());
        }
        WorkerPaths paths;
        paths.big = m_big.c_str();
        paths.written = m_written.c_str();
        paths.desktop = desktopPaths.data();
        paths.desktopCount = int(desktopPaths.size());
        paths.size = p.size;
        paths.chunk = std::max<uint64_t>(p.chunk, bufferBytes);

        recorder.event("Making a memory cgroup of " + formatBytes(limit()).toStdString() + " for the worker");
        ContainedWorker worker;
        if (!worker.startContained(
                m_privileged,
                limit(),
                [&paths](int commandFd, int reportFd) {
                    workerMain(commandFd, reportFd, paths);
                },
                error)) {
            skipAll(result, error);
            return;
        }
        const ContainedGroup group = worker.containedGroup();
        result.details.insert(QStringLiteral("cgroup"), containedGroupToJson(group));
        recorder.event("The worker runs in " + group.path + " (cgroup v" + std::to_string(group.version) + ", limit "
                       + formatBytes(group.limitBytes).toStdString() + ")");

        PeriodicThread sampler(std::chrono::milliseconds(std::max(20, p.sampleIntervalMs)), [this, &recorder, &group] {
            recorder.sample(sampleNow(group));
        });

        bool ok = true;
        for (const auto &[write, method] : ways()) {
            if (!ok || cancel.load()) {
                break;
            }
            VariantResult v;
            v.name = dropBehindVariantName(write, dropBehindMethods[method]);
            v.details = QJsonObject{{QStringLiteral("method"), QString::fromLatin1(dropBehindMethods[method])},
                                    {QStringLiteral("operation"), write ? QStringLiteral("write") : QStringLiteral("read")}};
            if (method == DontCache && dontCache != 0) {
                v.skipped = true;
                v.skipReason = "not supported by this kernel or file system (RWF_DONTCACHE: " + errnoText(dontCache) + ")";
                result.variants.push_back(std::move(v));
                continue;
            }
            for (int run = 0; ok && !v.skipped && run < p.runs && !cancel.load(); ++run) {
                ok = runOnce(v, write, method, run, worker, recorder, result, cancel);
            }
            // A way the file system refused in its first run says so.
            if (!v.measurements.empty() || v.skipped) {
                v.computeStatistics();
                result.variants.push_back(std::move(v));
            }
        }
        sampler.stop();
        const bool cgroupGone = worker.stop();
        result.details.insert(QStringLiteral("cgroup_removed"), cgroupGone);
        if (!cgroupGone) {
            result.notes.push_back("The cgroup " + group.path + " was still there 3 s after its worker ended; it is removed at the next contained run.");
        }
        made.clear();
        guard.remove();
        recorder.event(cancel.load() ? "Cancelled: the worker was killed, its files and cgroup removed" : "The files and the cgroup were removed");
    }

    void setPhase(const std::string &phase, const std::string &file)
    {
        const std::lock_guard lock(m_mutex);
        m_phase = phase;
        m_watched = file;
    }

    Sample sampleNow(const ContainedGroup &group)
    {
        Sample sample;
        std::string watched;
        {
            const std::lock_guard lock(m_mutex);
            sample.phase = m_phase;
            watched = m_watched;
        }
        addMemInfo(sample);
        if (!watched.empty()) {
            const FilesPages file = pagesOf({watched});
            sample.fileResident = file.resident;
            sample.filePages = file.pages;
        }
        const FilesPages desktop = pagesOf(m_desktop);
        sample.desktopResident = desktop.resident;
        sample.desktopPages = desktop.pages;
        sample.groupCached = cgroupPageCache(group);
        sample.groupUsage = cgroupUsage(group);
        return sample;
    }

    bool order(ContainedWorker &worker, const Command &command, Report &report, const std::string &what, Result &result, const std::atomic<bool> &cancel)
    {
        return worker.exchange(&command,
                               sizeof command,
                               &report,
                               sizeof report,
                               cancel,
                               what,
                               ": the limit of " + formatBytes(limit()).toStdString() + " is too small",
                               result.error);
    }

    std::string failureText(const Report &report) const
    {
        const std::string &path = report.file >= 0 && size_t(report.file) < m_desktop.size() ? m_desktop[size_t(report.file)]
            : report.kind == WriteBig                                                        ? m_written
                                                                                             : m_big;
        return path + ": " + stepName(report.step) + ": " + errnoText(report.error);
    }

    bool
    runOnce(VariantResult &v, bool write, int method, int run, ContainedWorker &worker, Recorder &recorder, Result &result, const std::atomic<bool> &cancel)
    {
        const std::string prefix = v.name + ": run " + std::to_string(run + 1) + ": ";
        // Every run starts alike: nothing of the files cached, no written file.
        setPhase(v.name + ": setting up run " + std::to_string(run + 1), {});
        std::error_code ignored;
        std::filesystem::remove(m_written, ignored);
        evictAll(m_desktop);
        evictAll({m_big});

        recorder.event(prefix + "reading the desktop's files");
        Report report;
        if (!order(worker, {ReadDesktop, Plain}, report, prefix + "reading the desktop's files", result, cancel)) {
            return false;
        }
        if (report.error != 0) {
            result.error = failureText(report);
            return false;
        }
        const FilesPages desktopBefore = pagesOf(m_desktop);

        const std::string &file = write ? m_written : m_big;
        setPhase(v.name + ": run " + std::to_string(run + 1), file);
        recorder.event(prefix + (write ? "writing " : "reading ") + formatBytes(m_parameters.size).toStdString() + " " + dropBehindMethods[method]);
        if (!order(worker, {write ? WriteBig : ReadBig, method}, report, prefix + (write ? "writing" : "reading"), result, cancel)) {
            return false;
        }
        if (report.error != 0) {
            // A file system that takes no O_DIRECT is a finding, not a failure.
            if ((method == Direct && report.error == EINVAL) || report.error == EOPNOTSUPP) {
                v.skipped = true;
                v.skipReason = "not supported by this kernel or file system (" + failureText(report) + ")";
                return true;
            }
            result.error = failureText(report);
            return false;
        }
        const FilesPages fileAfter = pagesOf({file});
        const FilesPages desktopAfter = pagesOf(m_desktop);
        const double kept = desktopBefore.resident > 0 ? 100.0 * double(desktopAfter.resident) / double(desktopBefore.resident) : 0;
        const double mibPerSecond = report.seconds > 0 ? double(report.bytes) / double(1 << 20) / report.seconds : 0;
        v.add("seconds", "s", report.seconds);
        v.add("throughput", "MiB/s", mibPerSecond);
        v.add("cache_left_bytes", "bytes", double(fileAfter.resident * pageSize()));
        v.add("cache_left_percent", "percent", fileAfter.pages > 0 ? 100.0 * double(fileAfter.resident) / double(fileAfter.pages) : 0);
        v.add("desktop_kept_percent", "percent", kept);
        v.runs.append(QJsonObject{
            {QStringLiteral("run"), run + 1},
            {QStringLiteral("bytes"), double(report.bytes)},
            {QStringLiteral("seconds"), report.seconds},
            {QStringLiteral("cache_left_bytes"), double(fileAfter.resident * pageSize())},
            {QStringLiteral("desktop_resident_before"), double(desktopBefore.resident)},
            {QStringLiteral("desktop_resident_after"), double(desktopAfter.resident)},
            {QStringLiteral("desktop_pages"), double(desktopAfter.pages)},
        });
        recorder.event(prefix + formatBytes(report.bytes).toStdString() + " in " + std::to_string(report.seconds) + " s; the file's pages left: "
                       + formatBytes(fileAfter.resident * pageSize()).toStdString() + "; the desktop's kept: " + std::to_string(int(kept)) + " %");
        return true;
    }

    DropBehindParameters m_parameters;
    PrivilegedSteps m_privileged;
    std::string m_big;
    std::string m_written;
    std::vector<std::string> m_desktop;
    std::mutex m_mutex;
    std::string m_phase;
    std::string m_watched;
};

} // namespace

std::unique_ptr<Experiment> makeDropBehindExperiment(const DropBehindParameters &parameters, const PrivilegedSteps &privileged)
{
    return std::make_unique<DropBehindExperiment>(parameters, privileged);
}

} // namespace Cachescope::Experiments
