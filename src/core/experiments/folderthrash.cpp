// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 7. The folder-eviction lesson (Li Wang's directory-level fadvise patch,
// 2013): a page cache too small for four folders. Copying folder 3 after
// folder 1 was copied to 2 pushes folder 1 out of the cache (it is the
// oldest), and a read of folder 1 goes to the disk again; evicting the copy
// (folder 2) first leaves room for 3 and 4, and folder 1 stays cached.
//
// The small page cache is a memory cgroup (PrivilegedSteps::contain): a
// worker forked held, contained, then released does every copy, sync and
// read, so that only the cgroup is pressed. The parent orders the steps,
// evicts folders (Cachescope's folder eviction: the walker with
// FileAction::Evict) and reads residency, neither of which puts pages in
// the cache.

#include "containedworker.h"
#include "engines.h"
#include "experimentsupport.h"

#include "walker.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <string_view>

namespace Cachescope::Experiments
{

uint64_t folderThrashDefaultLimit(const std::vector<int> &fileCounts, uint64_t fileSize)
{
    const int largest = fileCounts.empty() ? 0 : *std::max_element(fileCounts.begin(), fileCounts.end());
    return 3 * uint64_t(std::max(largest, 0)) * fileSize + (8ULL << 20);
}

namespace
{

// folderThrashRunPhase(): the variant, this, the run.
constexpr std::string_view runPhaseMark = ": run ";

// The parent's orders and the worker's answers, through the pipes.
enum CommandKind : int32_t {
    MakeFolders = 1, // files [0, files) in folders 1 and 3 that are missing, then sync
    CopyOneToTwo = 2, // then sync
    CopyThreeToFour = 3, // then sync
    ReadOne = 4, // every file, timed
};
struct Command {
    int32_t kind = 0;
    int32_t files = 0;
};
enum Step : int32_t {
    NoStep,
    MakingFolder,
    Opening,
    Reading,
    Writing,
    Syncing,
    Mapping
};
struct Report {
    int32_t kind = 0;
    int32_t error = 0; // errno of the step that failed
    int32_t step = NoStep;
    int32_t folder = 0; // where it failed
    int32_t file = -1;
    int32_t padding = 0;
    uint64_t bytes = 0;
    double seconds = 0;
};

constexpr size_t workerBufferBytes = 1 << 20;
constexpr size_t readPieceBytes = 128 << 10; // the size of grep's reads, near enough
constexpr size_t longestBase = 3900; // the base's path and "/1/000000" fit in pathBytes
constexpr size_t pathBytes = 4096;

const char *stepName(int32_t step)
{
    switch (step) {
    case MakingFolder:
        return "mkdir";
    case Opening:
        return "open";
    case Reading:
        return "read";
    case Writing:
        return "write";
    case Syncing:
        return "syncfs";
    case Mapping:
        return "mmap";
    default:
        return "?";
    }
}

// <base>/<folder>[/<file, six digits>], written without the C library's
// formatting (the worker may only make system calls).
void folderPath(char *out, const char *base, int folder, int file = -1)
{
    size_t length = std::strlen(base);
    std::memcpy(out, base, length);
    out[length++] = '/';
    out[length++] = char('0' + folder);
    if (file >= 0) {
        out[length++] = '/';
        for (int divisor = 100000; divisor > 0; divisor /= 10) {
            out[length++] = char('0' + (file / divisor) % 10);
        }
    }
    out[length] = '\0';
}

// The worker's steps: system calls only. Each fills report on failure and
// returns false.
bool writeAll(int fd, const char *data, size_t size)
{
    while (size > 0) {
        const ssize_t done = ::write(fd, data, size);
        if (done < 0 && errno == EINTR) {
            continue;
        }
        if (done <= 0) {
            if (done == 0) {
                errno = EIO;
            }
            return false;
        }
        data += done;
        size -= size_t(done);
    }
    return true;
}

bool failed(Report &report, Step step, int folder, int file)
{
    report.error = errno ? errno : EIO;
    report.step = step;
    report.folder = folder;
    report.file = file;
    return false;
}

bool syncFolder(const char *base, int folder, Report &report)
{
    char path[pathBytes];
    folderPath(path, base, folder);
    const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return failed(report, Opening, folder, -1);
    }
    // The seed's `sync`, for the folder's file system only.
    const bool ok = ::syncfs(fd) == 0;
    const int error = errno;
    ::close(fd);
    errno = error;
    return ok || failed(report, Syncing, folder, -1);
}

bool makeFolder(const char *base, int folder, Report &report)
{
    char path[pathBytes];
    folderPath(path, base, folder);
    return ::mkdir(path, 0700) == 0 || errno == EEXIST || failed(report, MakingFolder, folder, -1);
}

bool makeFiles(const char *base, int files, uint64_t fileSize, char *buffer, Report &report)
{
    for (const int folder : {1, 3}) {
        if (!makeFolder(base, folder, report)) {
            return false;
        }
        for (int file = 0; file < files; ++file) {
            char path[pathBytes];
            folderPath(path, base, folder, file);
            const int fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            if (fd < 0 && errno == EEXIST) {
                continue; // made for a smaller count
            }
            if (fd < 0) {
                return failed(report, Opening, folder, file);
            }
            uint64_t written = 0;
            bool ok = true;
            while (ok && written < fileSize) {
                // Every MiB of every file differs: no file system can share them.
                buffer[0] = char(folder);
                std::memcpy(buffer + 1, &file, sizeof file);
                std::memcpy(buffer + 1 + sizeof file, &written, sizeof written);
                const size_t piece = size_t(std::min<uint64_t>(workerBufferBytes, fileSize - written));
                ok = writeAll(fd, buffer, piece);
                written += piece;
            }
            const int error = errno;
            ::close(fd);
            errno = error;
            if (!ok) {
                return failed(report, Writing, folder, file);
            }
        }
        if (!syncFolder(base, folder, report)) {
            return false;
        }
    }
    return true;
}

// `cp -r from to` then `sync`, timed.
bool copyFolder(const char *base, int from, int to, int files, char *buffer, Report &report)
{
    const double start = monotonicSeconds();
    if (!makeFolder(base, to, report)) {
        return false;
    }
    for (int file = 0; file < files; ++file) {
        char source[pathBytes];
        char target[pathBytes];
        folderPath(source, base, from, file);
        folderPath(target, base, to, file);
        const int in = ::open(source, O_RDONLY | O_CLOEXEC);
        if (in < 0) {
            return failed(report, Opening, from, file);
        }
        const int out = ::open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (out < 0) {
            const int error = errno;
            ::close(in);
            errno = error;
            return failed(report, Opening, to, file);
        }
        bool ok = true;
        Step failedStep = NoStep;
        for (;;) {
            const ssize_t got = ::read(in, buffer, workerBufferBytes);
            if (got < 0 && errno == EINTR) {
                continue;
            }
            if (got < 0) {
                ok = false;
                failedStep = Reading;
                break;
            }
            if (got == 0) {
                break;
            }
            report.bytes += uint64_t(got);
            if (!writeAll(out, buffer, size_t(got))) {
                ok = false;
                failedStep = Writing;
                break;
            }
        }
        const int error = errno;
        ::close(in);
        ::close(out);
        errno = error;
        if (!ok) {
            return failed(report, failedStep, failedStep == Reading ? from : to, file);
        }
    }
    if (!syncFolder(base, to, report)) {
        return false;
    }
    report.seconds = monotonicSeconds() - start;
    return true;
}

// The seed's `grep "data" 1/*`: every file of folder 1 read once, timed.
bool readFolder(const char *base, int folder, int files, char *buffer, Report &report)
{
    const double start = monotonicSeconds();
    for (int file = 0; file < files; ++file) {
        char path[pathBytes];
        folderPath(path, base, folder, file);
        const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            return failed(report, Opening, folder, file);
        }
        for (;;) {
            const ssize_t got = ::read(fd, buffer, readPieceBytes);
            if (got < 0 && errno == EINTR) {
                continue;
            }
            if (got < 0) {
                const int error = errno;
                ::close(fd);
                errno = error;
                return failed(report, Reading, folder, file);
            }
            if (got == 0) {
                break;
            }
            report.bytes += uint64_t(got);
        }
        ::close(fd);
    }
    report.seconds = monotonicSeconds() - start;
    return true;
}

[[noreturn]] void workerMain(int commandFd, int reportFd, const char *base, uint64_t fileSize)
{
    Report report;
    void *mapped = ::mmap(nullptr, workerBufferBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
        failed(report, Mapping, 0, -1);
        (void)!::write(reportFd, &report, sizeof report);
        ::_exit(1);
    }
    auto *buffer = static_cast<char *>(mapped);
    fillIncompressible(buffer, workerBufferBytes);
    for (;;) {
        Command command;
        if (!readWorkerCommand(commandFd, &command, sizeof command)) {
            ::_exit(0); // the parent is done with us
        }
        report = Report();
        report.kind = command.kind;
        errno = 0;
        switch (command.kind) {
        case MakeFolders:
            (void)makeFiles(base, command.files, fileSize, buffer, report);
            break;
        case CopyOneToTwo:
            (void)copyFolder(base, 1, 2, command.files, buffer, report);
            break;
        case CopyThreeToFour:
            (void)copyFolder(base, 3, 4, command.files, buffer, report);
            break;
        case ReadOne:
            (void)readFolder(base, 1, command.files, buffer, report);
            break;
        default:
            report.error = EINVAL;
        }
        (void)!::write(reportFd, &report, sizeof report);
    }
}

// What the walker says of a folder: resident pages, pages, reclaimed pages.
struct FolderResidency {
    uint64_t pages = 0;
    uint64_t resident = 0;
    uint64_t reclaimed = 0; // cachestat's evicted count: pages reclaimed, not evicted by fadvise
    bool reclaimedKnown = false;
};

FolderResidency folderResidency(const std::string &folder)
{
    WalkOptions options;
    options.threads = 1;
    Walker walker(options);
    const WalkResult walk = walker.walk({folder});
    return {walk.total.pages, walk.total.resident, walk.total.evicted, walk.method == ResidencyMethod::Cachestat};
}

// Cachescope's folder eviction (as `cachescope-cli evict --flush FOLDER`).
// Returns the pages it freed.
uint64_t evictFolder(const std::string &folder)
{
    WalkOptions options;
    options.threads = 1;
    options.action = FileAction::Evict;
    options.evictOptions.flushDirtyFirst = true;
    Walker walker(options);
    const WalkResult walk = walker.walk({folder});
    return walk.total.resident > walk.total.residentAfter ? walk.total.resident - walk.total.residentAfter : 0;
}

class FolderThrashExperiment : public Engine
{
public:
    FolderThrashExperiment(const FolderThrashParameters &parameters, const PrivilegedSteps &privileged)
        : Engine("folder-thrash")
        , m_parameters(parameters)
        , m_privileged(privileged)
    {
        std::sort(m_parameters.fileCounts.begin(), m_parameters.fileCounts.end());
        m_parameters.fileCounts.erase(std::unique(m_parameters.fileCounts.begin(), m_parameters.fileCounts.end()), m_parameters.fileCounts.end());
    }

private:
    QJsonObject parametersJson() const override
    {
        const FolderThrashParameters &p = m_parameters;
        QJsonArray counts;
        for (const int count : p.fileCounts) {
            counts.append(count);
        }
        return QJsonObject{
            {QStringLiteral("folder"), QString::fromStdString(p.folder)},
            {QStringLiteral("files"), counts},
            {QStringLiteral("file_size"), double(p.fileSize)},
            {QStringLiteral("limit"), double(limit())},
            {QStringLiteral("runs"), p.runs},
            {QStringLiteral("without_eviction_variant"), p.withoutEvictionVariant},
            {QStringLiteral("eviction_variant"), p.evictionVariant},
        };
    }

    uint64_t limit() const
    {
        return m_parameters.limit ? m_parameters.limit : folderThrashDefaultLimit(m_parameters.fileCounts, m_parameters.fileSize);
    }

    std::vector<const char *> variantNames() const
    {
        std::vector<const char *> names;
        if (m_parameters.withoutEvictionVariant) {
            names.push_back(folderThrashWithoutEviction);
        }
        if (m_parameters.evictionVariant) {
            names.push_back(folderThrashWithEviction);
        }
        return names;
    }

    std::string checkParameters() const
    {
        const FolderThrashParameters &p = m_parameters;
        if (p.fileCounts.empty()) {
            return "no file count given";
        }
        if (p.fileCounts.front() < 1 || p.fileCounts.back() > 100000) {
            return "file counts must be from 1 to 100000 (got " + std::to_string(p.fileCounts.front() < 1 ? p.fileCounts.front() : p.fileCounts.back()) + ")";
        }
        if (p.fileSize < 4096 || p.fileSize > (1ULL << 30)) {
            return "the file size must be from 4 KiB to 1 GiB (got " + formatBytes(p.fileSize).toStdString() + ")";
        }
        // The privileged helper makes no cgroup under 16 MiB either.
        if (limit() < (16ULL << 20)) {
            return "the cgroup's limit must be at least 16 MiB (got " + formatBytes(limit()).toStdString() + ")";
        }
        if (p.runs < 1) {
            return "at least one run";
        }
        if (variantNames().empty()) {
            return "no variant chosen";
        }
        if (p.folder.size() > longestBase - 40) {
            return p.folder + ": the path is too long";
        }
        return {};
    }

    void skipAll(Result &result, const std::string &reason) const
    {
        for (const char *name : variantNames()) {
            VariantResult skipped;
            skipped.name = name;
            skipped.skipped = true;
            skipped.skipReason = reason;
            result.variants.push_back(std::move(skipped));
        }
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const FolderThrashParameters &p = m_parameters;
        result.error = checkParameters();
        if (!result.error.empty()) {
            return;
        }
        if (!m_privileged.contain) {
            skipAll(result, containUnavailableReason() + "; the lesson never runs unconfined, which would press the whole desktop");
            return;
        }
        const uint64_t largestFolder = uint64_t(p.fileCounts.back()) * p.fileSize;
        result.error = checkScratchFolder(p.folder, 4 * largestFolder);
        if (!result.error.empty()) {
            return;
        }
        TemporaryFolder guard;
        m_base = makeExperimentFolder(p.folder, "cachescope-folder-thrash", guard, result.error);
        if (m_base.empty()) {
            return;
        }
        result.details.insert(QStringLiteral("path"), QString::fromStdString(m_base));

        recorder.event("Making a memory cgroup of " + formatBytes(limit()).toStdString() + " for the worker");
        ContainedWorker worker;
        std::string error;
        const std::string base = m_base;
        const uint64_t fileSize = p.fileSize;
        if (!worker.startContained(
                m_privileged,
                limit(),
                [&base, fileSize](int commandFd, int reportFd) {
                    workerMain(commandFd, reportFd, base.c_str(), fileSize);
                },
                error)) {
            skipAll(result, error);
            return;
        }
        const ContainedGroup group = worker.containedGroup();
        result.details.insert(QStringLiteral("cgroup"), containedGroupToJson(group));
        if (group.version != 2) {
            result.notes.push_back("The cgroup's refaults are unknown: cgroup v1 does not count them (v2's memory.stat has workingset_refault_file).");
        }
        recorder.event("The worker runs in " + group.path + " (cgroup v" + std::to_string(group.version) + ", limit "
                       + formatBytes(group.limitBytes).toStdString() + ")");

        // Folder 1 and the cgroup while it runs.
        PeriodicThread sampler(std::chrono::milliseconds(std::max(20, p.sampleIntervalMs)), [this, &recorder, &group] {
            recorder.sample(sampleNow(group));
        });

        std::vector<VariantResult> variants;
        for (const int files : p.fileCounts) {
            for (const char *name : variantNames()) {
                VariantResult v;
                v.name = folderThrashVariantName(files, name);
                v.details = QJsonObject{{QStringLiteral("files"), files},
                                        {QStringLiteral("evict_folder_2"), std::strcmp(name, folderThrashWithEviction) == 0},
                                        {QStringLiteral("folder_bytes"), double(uint64_t(files) * p.fileSize)}};
                variants.push_back(std::move(v));
            }
        }
        bool ok = true;
        size_t index = 0;
        for (const int files : p.fileCounts) {
            if (!ok || cancel.load()) {
                break;
            }
            // Making the folders is no run; each run is a phase of its own (runOnce).
            setPhase(std::to_string(files) + " files: making folders");
            recorder.event("Making folders 1 and 3: " + std::to_string(files) + " files of " + formatBytes(p.fileSize).toStdString() + " each");
            Report report;
            ok = order(worker, {MakeFolders, files}, report, "making folders 1 and 3", result, cancel);
            for (int run = 0; ok && run < p.runs && !cancel.load(); ++run) {
                for (size_t k = 0; ok && k < variantNames().size() && !cancel.load(); ++k) {
                    ok = runOnce(variants[index + k], files, run, worker, group, recorder, result, cancel);
                }
            }
            index += variantNames().size();
        }
        sampler.stop();
        for (VariantResult &v : variants) {
            if (!v.measurements.empty()) {
                v.computeStatistics();
                result.variants.push_back(std::move(v));
            }
        }
        // Cancel (or the end) removes the files and the cgroup.
        const bool cgroupGone = worker.stop();
        result.details.insert(QStringLiteral("cgroup_removed"), cgroupGone);
        if (!cgroupGone) {
            result.notes.push_back("The cgroup " + group.path + " was still there 3 s after its worker ended; it is removed at the next contained run.");
        }
        guard.remove();
        recorder.event(cancel.load() ? "Cancelled: the worker was killed, its files and cgroup removed" : "The files and the cgroup were removed");
    }

    void setPhase(const std::string &phase)
    {
        const std::lock_guard lock(m_phaseMutex);
        m_phase = phase;
    }

    Sample sampleNow(const ContainedGroup &group)
    {
        Sample sample;
        {
            const std::lock_guard lock(m_phaseMutex);
            sample.phase = m_phase;
        }
        addMemInfo(sample);
        const FolderResidency one = folderResidency(m_base + "/1");
        if (one.pages > 0) {
            sample.fileResident = one.resident;
            sample.filePages = one.pages;
        }
        sample.groupCached = cgroupPageCache(group);
        sample.groupUsage = cgroupUsage(group);
        return sample;
    }

    // Sends a command and waits for its report. False (result.error set,
    // unless cancelled) when the worker failed or is gone.
    bool order(ContainedWorker &worker, const Command &command, Report &report, const char *what, Result &result, const std::atomic<bool> &cancel)
    {
        if (!worker.exchange(&command,
                             sizeof command,
                             &report,
                             sizeof report,
                             cancel,
                             what,
                             ": the limit of " + formatBytes(limit()).toStdString() + " is too small for these files",
                             result.error)) {
            return false;
        }
        if (report.error != 0 && report.step == Mapping) {
            result.error = std::string(what) + ": the worker's buffer: mmap: " + errnoText(report.error);
            return false;
        }
        if (report.error != 0) {
            char path[pathBytes];
            folderPath(path, m_base.c_str(), report.folder, report.file);
            result.error = std::string(what) + ": " + path + ": " + stepName(report.step) + ": " + errnoText(report.error);
            return false;
        }
        return true;
    }

    bool runOnce(VariantResult &v,
                 int files,
                 int run,
                 ContainedWorker &worker,
                 const ContainedGroup &group,
                 Recorder &recorder,
                 Result &result,
                 const std::atomic<bool> &cancel)
    {
        const bool evict = v.details.value(QStringLiteral("evict_folder_2")).toBool();
        // Every run starts alike: no folders 2 and 4, nothing of 1 and 3
        // cached. Setting it up is no part of a run (nor of the one before).
        setPhase(v.name + ": setting up run " + std::to_string(run + 1));
        std::error_code ignored;
        std::filesystem::remove_all(m_base + "/2", ignored);
        std::filesystem::remove_all(m_base + "/4", ignored);
        (void)evictFolder(m_base + "/1");
        (void)evictFolder(m_base + "/3");
        // The live plot lays the runs of a variant over each other by this
        // phase, from the first sample that sees folder 1 evicted.
        const std::string phase = folderThrashRunPhase(v.name, run + 1);
        setPhase(phase);
        const std::string prefix = phase + ": ";
        QJsonObject runObject{{QStringLiteral("run"), run + 1}};

        recorder.event(prefix + "copying folder 1 to 2, sync");
        Report report;
        if (!order(worker, {CopyOneToTwo, files}, report, "copying folder 1 to 2", result, cancel)) {
            return false;
        }
        runObject.insert(QStringLiteral("copy_1_to_2_seconds"), report.seconds);
        if (evict) {
            const uint64_t freed = evictFolder(m_base + "/2");
            recorder.event(prefix + "folder 2 evicted: " + formatBytes(freed * pageSize()).toStdString() + " freed");
            runObject.insert(QStringLiteral("folder2_evicted"), double(freed));
        }
        recorder.event(prefix + "copying folder 3 to 4, sync");
        if (!order(worker, {CopyThreeToFour, files}, report, "copying folder 3 to 4", result, cancel)) {
            return false;
        }
        runObject.insert(QStringLiteral("copy_3_to_4_seconds"), report.seconds);

        const FolderResidency one = folderResidency(m_base + "/1");
        const std::optional<uint64_t> groupCache = cgroupPageCache(group);
        const std::optional<uint64_t> refaultsBefore = cgroupFileRefaults(group);
        if (!order(worker, {ReadOne, files}, report, "reading folder 1", result, cancel)) {
            return false;
        }
        const std::optional<uint64_t> refaultsAfter = cgroupFileRefaults(group);
        recorder.event(prefix + "folder 1 read in " + QString::number(report.seconds * 1000, 'f', 1).toStdString() + " ms; " + std::to_string(one.resident)
                       + " of " + std::to_string(one.pages) + " pages were cached before");

        v.add("read_seconds", "s", report.seconds);
        v.add("folder1_resident", "pages", double(one.resident));
        v.add("folder1_cached", "percent", one.pages ? 100.0 * double(one.resident) / double(one.pages) : 0);
        if (one.reclaimedKnown) {
            v.add("folder1_reclaimed", "pages", double(one.reclaimed));
        }
        if (refaultsBefore && refaultsAfter) {
            v.add("cgroup_refaults", "count", double(*refaultsAfter - std::min(*refaultsAfter, *refaultsBefore)));
        }
        runObject.insert(QStringLiteral("read_seconds"), report.seconds);
        runObject.insert(QStringLiteral("read_bytes"), double(report.bytes));
        runObject.insert(QStringLiteral("folder1_pages"), double(one.pages));
        runObject.insert(QStringLiteral("folder1_resident"), double(one.resident));
        runObject.insert(QStringLiteral("folder1_reclaimed"), one.reclaimedKnown ? QJsonValue(double(one.reclaimed)) : QJsonValue());
        runObject.insert(QStringLiteral("cgroup_cache_before_read"), groupCache ? QJsonValue(double(*groupCache)) : QJsonValue());
        runObject.insert(QStringLiteral("cgroup_refaults"),
                         refaultsBefore && refaultsAfter ? QJsonValue(double(*refaultsAfter - std::min(*refaultsAfter, *refaultsBefore))) : QJsonValue());
        v.runs.append(runObject);
        return true;
    }

    FolderThrashParameters m_parameters;
    PrivilegedSteps m_privileged;
    std::string m_base;
    std::mutex m_phaseMutex;
    std::string m_phase;
};

} // namespace

std::unique_ptr<Experiment> makeFolderThrashExperiment(const FolderThrashParameters &parameters, const PrivilegedSteps &privileged)
{
    return std::make_unique<FolderThrashExperiment>(parameters, privileged);
}

std::string folderThrashVariantName(int files, const char *variant)
{
    return std::to_string(files) + " files, " + variant;
}

std::string folderThrashRunPhase(const std::string &variantName, int run)
{
    return variantName + std::string(runPhaseMark) + std::to_string(run);
}

std::string folderThrashVariantOfPhase(const std::string &phase)
{
    const size_t at = phase.rfind(runPhaseMark);
    if (at == std::string::npos || at == 0 || at + runPhaseMark.size() >= phase.size()) {
        return {};
    }
    const bool numbered = phase.find_first_not_of("0123456789", at + runPhaseMark.size()) == std::string::npos;
    return numbered ? phase.substr(0, at) : std::string();
}

} // namespace Cachescope::Experiments
