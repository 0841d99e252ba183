// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 9. The thrashing cliff. A worker in a memory cgroup of a fixed limit reads
// a working set of 1 MiB files, pass after pass. While the set fits, every
// pass after the first comes from memory. Once it does not, the pages read
// longest ago go first, and those are the next pass's first pages: every
// pass goes to the disk again (mm/workingset.c calls it thrashing, and
// counts each page that comes back while its eviction is remembered as a
// refault). The parent makes the files, evicts them between working sets
// and reads the cgroup's refaults or, on cgroup v1 which has none, the
// worker's reads from storage.
//
// Second part, scan resistance. Eviction is not a strict LRU: a file page
// starts on the inactive list, and a second use while it is there moves it
// to the active list (mm/swap.c folio_mark_accessed); reclaim takes from
// the inactive list and shrinks the active one only when it outgrows the
// inactive (mm/vmscan.c inactive_is_low). So files A read twice survive a
// stream B larger than the cgroup read once; read once, A is just older
// than B and goes first. POSIX_FADV_NOREUSE (mm/fadvise.c, Linux 6.3) marks
// the file so that accesses through a mapping of it do not count
// (include/linux/mm_inline.h vma_has_recency); read() still marks pages
// accessed, which the third variant shows.

#include "containedworker.h"
#include "engines.h"
#include "experimentsupport.h"

#include "activity/ownactivity.h"
#include "format.h"
#include "procfs.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace Cachescope::Experiments
{

std::string thrashCliffVariantName(uint64_t bytes, double fraction)
{
    return "working set " + formatBytes(bytes).toStdString() + " (" + std::to_string(int(std::lround(fraction * 100))) + " % of the limit)";
}

std::string thrashCliffScanVariantName(const char *scan)
{
    const std::string which(scan);
    if (which == "twice") {
        return "A read twice, then B streamed";
    }
    if (which == "noreuse") {
        return "A read once, then B streamed with NOREUSE";
    }
    return "A read once, then B streamed";
}

std::string lruKind(const std::string &sysRoot)
{
    const std::optional<std::string> text = readProcFile(sysRoot + "/kernel/mm/lru_gen/enabled");
    if (!text) {
        return "two lists (active and inactive): the multi-gen LRU is not built into this kernel";
    }
    std::string value = *text;
    while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) {
        value.pop_back();
    }
    // Bit 0 is the main switch (Documentation/admin-guide/mm/multigen_lru.rst).
    const unsigned long bits = std::strtoul(value.c_str(), nullptr, 16);
    if ((bits & 1) != 0) {
        return "multi-gen LRU (lru_gen/enabled " + value + ")";
    }
    return "two lists (active and inactive): the multi-gen LRU is built in but off (lru_gen/enabled " + value + ")";
}

namespace
{

constexpr uint64_t fileBytes = 1ULL << 20;
constexpr size_t bufferBytes = 1 << 20;
constexpr size_t pathBytes = 4096;
constexpr size_t longestBase = 3900;

struct Command {
    int32_t first = 0; // read files [first, first + count) once each, in order
    int32_t count = 0;
    int32_t noReuse = 0; // posix_fadvise(POSIX_FADV_NOREUSE) on each first
    int32_t padding = 0;
};
struct Report {
    int32_t error = 0;
    int32_t file = -1;
    uint64_t bytes = 0;
    double seconds = 0;
};

// <base>/<six digits>, without the C library's formatting (the worker may
// only make system calls).
void filePath(char *out, const char *base, int file)
{
    size_t length = std::strlen(base);
    std::memcpy(out, base, length);
    out[length++] = '/';
    for (int divisor = 100000; divisor > 0; divisor /= 10) {
        out[length++] = char('0' + (file / divisor) % 10);
    }
    out[length] = '\0';
}

[[noreturn]] void workerMain(int commandFd, int reportFd, const char *base)
{
    Report report;
    void *mapped = ::mmap(nullptr, bufferBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) {
        report.error = errno;
        (void)!::write(reportFd, &report, sizeof report);
        ::_exit(1);
    }
    auto *buffer = static_cast<char *>(mapped);
    char path[pathBytes];
    for (;;) {
        Command command;
        if (!readWorkerCommand(commandFd, &command, sizeof command)) {
            ::_exit(0);
        }
        report = Report();
        const double start = monotonicSeconds();
        for (int file = command.first; file < command.first + command.count && report.error == 0; ++file) {
            filePath(path, base, file);
            const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                report.error = errno;
                report.file = file;
                break;
            }
            // posix_fadvise returns its error rather than setting errno.
            if (command.noReuse != 0) {
                if (const int error = ::posix_fadvise(fd, 0, 0, POSIX_FADV_NOREUSE); error != 0) {
                    report.error = error;
                    report.file = file;
                    ::close(fd);
                    break;
                }
            }
            for (;;) {
                const ssize_t got = ::read(fd, buffer, bufferBytes);
                if (got < 0 && errno == EINTR) {
                    continue;
                }
                if (got < 0) {
                    report.error = errno;
                    report.file = file;
                }
                if (got <= 0) {
                    break;
                }
                report.bytes += uint64_t(got);
            }
            ::close(fd);
        }
        report.seconds = monotonicSeconds() - start;
        (void)!::write(reportFd, &report, sizeof report);
    }
}

// The cgroup's file LRU lists (memory.stat active_file, inactive_file, in
// bytes on v1 and v2) and the pages it moved to the active list (v2's
// pgactivate; v1 does not count them).
struct FileLists {
    std::optional<uint64_t> active;
    std::optional<uint64_t> inactive;
    std::optional<uint64_t> activations;
};

FileLists fileLists(const ContainedGroup &group)
{
    FileLists lists;
    const std::optional<std::string> text = readProcFile(group.path + "/memory.stat");
    if (!text) {
        return lists;
    }
    const VmStat stat = parseVmStat(*text);
    lists.active = stat.find("active_file");
    lists.inactive = stat.find("inactive_file");
    if (group.version == 2) {
        lists.activations = stat.find("pgactivate");
    }
    return lists;
}

// The bytes a process read from storage (/proc/PID/io read_bytes).
std::optional<uint64_t> storageReads(pid_t pid)
{
    std::ifstream file("/proc/" + std::to_string(pid) + "/io");
    std::stringstream text;
    text << file.rdbuf();
    if (!file) {
        return std::nullopt;
    }
    const std::optional<Activity::IoCounters> counters = Activity::parseProcessIo(text.str());
    return counters ? std::optional<uint64_t>(counters->readBytes) : std::nullopt;
}

class ThrashCliffExperiment : public Engine
{
public:
    ThrashCliffExperiment(const ThrashCliffParameters &parameters, const PrivilegedSteps &privileged)
        : Engine("thrash-cliff")
        , m_parameters(parameters)
        , m_privileged(privileged)
    {
        std::sort(m_parameters.fractions.begin(), m_parameters.fractions.end());
        m_parameters.fractions.erase(std::unique(m_parameters.fractions.begin(), m_parameters.fractions.end()), m_parameters.fractions.end());
    }

private:
    QJsonObject parametersJson() const override
    {
        const ThrashCliffParameters &p = m_parameters;
        QJsonArray fractions;
        for (const double fraction : p.fractions) {
            fractions.append(fraction);
        }
        return QJsonObject{
            {QStringLiteral("folder"), QString::fromStdString(p.folder)},
            {QStringLiteral("limit"), double(p.limit)},
            {QStringLiteral("fractions"), fractions},
            {QStringLiteral("passes"), p.passes},
            {QStringLiteral("runs"), p.runs},
        };
    }

    int filesOf(double fraction) const
    {
        return std::max(1, int(std::lround(double(m_parameters.limit) * fraction / double(fileBytes))));
    }
    // Scan resistance: A a quarter of the limit, B one and a quarter times it.
    int firstFiles() const
    {
        return filesOf(0.25);
    }
    int streamFiles() const
    {
        return filesOf(1.25);
    }
    int filesNeeded() const
    {
        const int cliff = filesOf(m_parameters.fractions.back());
        return m_parameters.scanResistance ? std::max(cliff, firstFiles() + streamFiles()) : cliff;
    }

    std::string checkParameters() const
    {
        const ThrashCliffParameters &p = m_parameters;
        if (p.limit < (16ULL << 20) || p.limit > (16ULL << 30)) {
            return "the cgroup's limit must be from 16 MiB to 16 GiB (got " + formatBytes(p.limit).toStdString() + ")";
        }
        if (p.fractions.empty()) {
            return "no working set given";
        }
        if (p.fractions.front() <= 0 || p.fractions.back() > 4) {
            return "working sets must be above 0 and at most 4 times the limit";
        }
        if (p.passes < 1 || p.passes > 100) {
            return "from 1 to 100 passes";
        }
        if (p.runs < 1) {
            return "at least one run";
        }
        if (p.folder.size() > longestBase) {
            return p.folder + ": the path is too long";
        }
        return {};
    }

    void skipAll(Result &result, const std::string &reason) const
    {
        for (const double fraction : m_parameters.fractions) {
            VariantResult skipped;
            skipped.name = thrashCliffVariantName(uint64_t(filesOf(fraction)) * fileBytes, fraction);
            skipped.skipped = true;
            skipped.skipReason = reason;
            result.variants.push_back(std::move(skipped));
        }
        if (m_parameters.scanResistance) {
            for (const char *scan : thrashCliffScans) {
                VariantResult skipped;
                skipped.name = thrashCliffScanVariantName(scan);
                skipped.skipped = true;
                skipped.skipReason = reason;
                result.variants.push_back(std::move(skipped));
            }
        }
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const ThrashCliffParameters &p = m_parameters;
        result.error = checkParameters();
        if (!result.error.empty()) {
            return;
        }
        if (!m_privileged.contain) {
            skipAll(result, containUnavailableReason() + "; the lesson never runs unconfined, which would thrash the whole desktop");
            return;
        }
        const int largest = filesNeeded();
        result.error = checkScratchFolder(p.folder, uint64_t(largest) * fileBytes);
        if (!result.error.empty()) {
            return;
        }
        TemporaryFolder guard;
        const std::string base = makeExperimentFolder(p.folder, "cachescope-thrash-cliff", guard, result.error);
        if (base.empty()) {
            return;
        }
        result.details.insert(QStringLiteral("path"), QString::fromStdString(base));

        recorder.event("Making " + std::to_string(largest) + " files of 1 MiB in " + base);
        std::vector<std::string> paths;
        for (int file = 0; file < largest && !cancel.load(); ++file) {
            char path[pathBytes];
            filePath(path, base.c_str(), file);
            TemporaryFile made;
            const std::string error = createScratchFile(base, "make", fileBytes, cancel, made);
            if (!error.empty()) {
                result.error = error;
                return;
            }
            if (::rename(made.path().c_str(), path) != 0) {
                result.error = std::string(path) + ": " + errnoText(errno);
                return;
            }
            made.set({}); // renamed: the folder's guard removes it
            paths.push_back(path);
        }
        if (cancel.load()) {
            return;
        }

        recorder.event("Making a memory cgroup of " + formatBytes(p.limit).toStdString() + " for the worker");
        ContainedWorker worker;
        std::string error;
        if (!worker.startContained(
                m_privileged,
                p.limit,
                [&base](int commandFd, int reportFd) {
                    workerMain(commandFd, reportFd, base.c_str());
                },
                error)) {
            skipAll(result, error);
            return;
        }
        const ContainedGroup group = worker.containedGroup();
        result.details.insert(QStringLiteral("cgroup"), containedGroupToJson(group));
        const bool refaultsCounted = cgroupFileRefaults(group).has_value();
        result.details.insert(QStringLiteral("refaults_method"),
                              refaultsCounted ? QStringLiteral("memory.stat workingset_refault_file") : QStringLiteral("/proc/PID/io read_bytes"));
        if (!refaultsCounted) {
            result.notes.push_back("cgroup v1 counts no refaults: each pass's reads from storage (/proc/PID/io read_bytes) stand for them.");
        }
        recorder.event("The worker runs in " + group.path + " (cgroup v" + std::to_string(group.version) + ", limit "
                       + formatBytes(group.limitBytes).toStdString() + ")");

        PeriodicThread sampler(std::chrono::milliseconds(std::max(20, p.sampleIntervalMs)), [&recorder, &group] {
            Sample sample;
            addMemInfo(sample);
            sample.groupCached = cgroupPageCache(group);
            sample.groupUsage = cgroupUsage(group);
            recorder.sample(sample);
        });

        std::vector<VariantResult> variants;
        for (const double fraction : p.fractions) {
            VariantResult v;
            const int files = filesOf(fraction);
            v.name = thrashCliffVariantName(uint64_t(files) * fileBytes, fraction);
            v.details = QJsonObject{{QStringLiteral("working_set_bytes"), double(uint64_t(files) * fileBytes)},
                                    {QStringLiteral("fraction"), fraction},
                                    {QStringLiteral("side"), fraction < 1 ? QStringLiteral("below") : QStringLiteral("above")}};
            variants.push_back(std::move(v));
        }
        const size_t cliffVariants = variants.size();
        if (p.scanResistance) {
            const std::string kind = lruKind();
            result.details.insert(QStringLiteral("lru"), QString::fromStdString(kind));
            result.notes.push_back("The kernel's LRU: " + kind + ".");
            if (group.version != 2) {
                result.notes.push_back("cgroup v1 counts no activations (pgactivate): Active(file) before and after the stream shows them.");
            }
            for (const char *scan : thrashCliffScans) {
                VariantResult v;
                v.name = thrashCliffScanVariantName(scan);
                v.details = QJsonObject{{QStringLiteral("scan"), QString::fromLatin1(scan)},
                                        {QStringLiteral("first_bytes"), double(uint64_t(firstFiles()) * fileBytes)},
                                        {QStringLiteral("stream_bytes"), double(uint64_t(streamFiles()) * fileBytes)}};
                variants.push_back(std::move(v));
            }
        }
        bool ok = true;
        for (int run = 0; ok && run < p.runs && !cancel.load(); ++run) {
            for (size_t i = 0; ok && i < cliffVariants && !cancel.load(); ++i) {
                ok = measure(variants[i], filesOf(p.fractions[i]), paths, worker, group, refaultsCounted, recorder, result, cancel);
            }
            for (size_t i = cliffVariants; ok && i < variants.size() && !cancel.load(); ++i) {
                ok = measureScan(variants[i], thrashCliffScans[i - cliffVariants], paths, worker, recorder, result, cancel);
            }
        }
        sampler.stop();
        for (VariantResult &v : variants) {
            if (!v.measurements.empty()) {
                v.computeStatistics();
                result.variants.push_back(std::move(v));
            }
        }
        // The cliff: a pass just over the limit against one just under.
        const VariantResult *below = nullptr;
        const VariantResult *above = nullptr;
        for (const VariantResult &v : result.variants) {
            const QString side = v.details.value(QStringLiteral("side")).toString();
            if (side == QLatin1String("below")) {
                below = &v;
            } else if (side == QLatin1String("above") && !above) {
                above = &v;
            }
        }
        if (below && above && below->find("pass_seconds") && above->find("pass_seconds") && below->find("pass_seconds")->statistics.mean > 0) {
            result.details.insert(QStringLiteral("cliff_ratio"), above->find("pass_seconds")->statistics.mean / below->find("pass_seconds")->statistics.mean);
        }
        const bool cgroupGone = worker.stop();
        result.details.insert(QStringLiteral("cgroup_removed"), cgroupGone);
        guard.remove();
        recorder.event(cancel.load() ? "Cancelled: the worker was killed, its files and cgroup removed" : "The files and the cgroup were removed");
    }

    bool measure(VariantResult &v,
                 int files,
                 const std::vector<std::string> &paths,
                 ContainedWorker &worker,
                 const ContainedGroup &group,
                 bool refaultsCounted,
                 Recorder &recorder,
                 Result &result,
                 const std::atomic<bool> &cancel)
    {
        // Each working set starts cold: none of the files cached.
        evictAll(paths);
        QJsonArray passes;
        for (int pass = 0; pass <= m_parameters.passes && !cancel.load(); ++pass) {
            const std::optional<uint64_t> refaultsBefore = cgroupFileRefaults(group);
            const std::optional<uint64_t> readBefore = storageReads(worker.pid());
            Report report;
            if (!order(v, Command{0, files, 0, 0}, paths, worker, report, result, cancel)) {
                return false;
            }
            const std::optional<uint64_t> refaultsAfter = cgroupFileRefaults(group);
            const std::optional<uint64_t> readAfter = storageReads(worker.pid());
            QJsonObject passObject{{QStringLiteral("pass"), pass},
                                   {QStringLiteral("seconds"), report.seconds},
                                   {QStringLiteral("bytes"), double(report.bytes)}};
            const bool measured = pass > 0; // the first pass fills the cache
            if (measured) {
                v.add("pass_seconds", "s", report.seconds);
            }
            if (refaultsCounted && refaultsBefore && refaultsAfter) {
                const double refaults = double(*refaultsAfter - std::min(*refaultsAfter, *refaultsBefore));
                passObject.insert(QStringLiteral("refaults"), refaults);
                if (measured) {
                    v.add("refaults", "count", refaults);
                }
            }
            if (readBefore && readAfter) {
                const double read = double(*readAfter - std::min(*readAfter, *readBefore));
                passObject.insert(QStringLiteral("read_from_storage"), read);
                if (measured) {
                    v.add("read_from_storage", "bytes", read);
                }
            }
            passes.append(passObject);
            recorder.event(v.name + ": pass " + std::to_string(pass) + (measured ? "" : " (cold)") + ": " + std::to_string(report.seconds) + " s");
        }
        v.runs.append(QJsonObject{{QStringLiteral("passes"), passes}});
        return !cancel.load();
    }

    // Sends the worker a command and waits for its report; false (with
    // result.error set unless cancelled) when it failed.
    static bool order(const VariantResult &v,
                      const Command &command,
                      const std::vector<std::string> &paths,
                      ContainedWorker &worker,
                      Report &report,
                      Result &result,
                      const std::atomic<bool> &cancel)
    {
        if (!worker.exchange(&command, sizeof command, &report, sizeof report, cancel, v.name, {}, result.error)) {
            return false;
        }
        if (report.error != 0) {
            const char *what = command.noReuse != 0 ? ": read with POSIX_FADV_NOREUSE: " : ": read: ";
            result.error = (report.file >= 0 && size_t(report.file) < paths.size() ? paths[size_t(report.file)] : v.name) + what + errnoText(report.error);
            return false;
        }
        return true;
    }

    // Scan resistance, one run: everything evicted, A read once or twice,
    // then B streamed once; A's pages and the cgroup's lists before and
    // after the stream.
    bool measureScan(VariantResult &v,
                     const char *scan,
                     const std::vector<std::string> &paths,
                     ContainedWorker &worker,
                     Recorder &recorder,
                     Result &result,
                     const std::atomic<bool> &cancel)
    {
        const ContainedGroup &group = worker.containedGroup();
        const std::string which(scan);
        const int first = firstFiles();
        const int stream = streamFiles();
        const std::vector<std::string> firstPaths(paths.begin(), paths.begin() + first);
        evictAll(paths);
        const FileLists start = fileLists(group);
        Report report;
        const int firstReads = which == "twice" ? 2 : 1;
        for (int read = 0; read < firstReads; ++read) {
            if (!order(v, Command{0, first, 0, 0}, paths, worker, report, result, cancel)) {
                return false;
            }
        }
        const FilesPages firstBefore = pagesOf(firstPaths);
        const FileLists before = fileLists(group);
        if (!order(v, Command{first, stream, which == "noreuse" ? 1 : 0, 0}, paths, worker, report, result, cancel)) {
            return false;
        }
        const FileLists after = fileLists(group);
        const uint64_t firstAfter = pagesOf(firstPaths).resident;
        const double kept = firstBefore.pages > 0 ? 100.0 * double(firstAfter) / double(firstBefore.pages) : 0;
        v.add("first_kept_percent", "percent", kept);
        v.add("stream_seconds", "s", report.seconds);
        QJsonObject run{{QStringLiteral("first_cached_before_bytes"), double(firstBefore.resident * pageSize())},
                        {QStringLiteral("first_cached_after_bytes"), double(firstAfter * pageSize())},
                        {QStringLiteral("stream_seconds"), report.seconds}};
        const auto addList = [&run, &v](const char *name, const std::optional<uint64_t> &value) {
            if (value) {
                run.insert(QString::fromLatin1(name), double(*value));
                v.add(name, "bytes", double(*value));
            }
        };
        addList("active_file_before", before.active);
        addList("inactive_file_before", before.inactive);
        addList("active_file_after", after.active);
        addList("inactive_file_after", after.inactive);
        if (start.activations && after.activations) {
            const double activations = double(*after.activations - std::min(*after.activations, *start.activations));
            run.insert(QStringLiteral("activations"), activations);
            v.add("activations", "count", activations);
        }
        v.runs.append(run);
        recorder.event(v.name + ": " + std::to_string(int(std::lround(kept))) + " % of A still cached after B");
        return !cancel.load();
    }

    ThrashCliffParameters m_parameters;
    PrivilegedSteps m_privileged;
};

} // namespace

std::unique_ptr<Experiment> makeThrashCliffExperiment(const ThrashCliffParameters &parameters, const PrivilegedSteps &privileged)
{
    return std::make_unique<ThrashCliffExperiment>(parameters, privileged);
}

} // namespace Cachescope::Experiments
