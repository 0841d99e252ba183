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

#include "containedworker.h"
#include "engines.h"
#include "experimentsupport.h"

#include "activity/ownactivity.h"
#include "format.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
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

namespace
{

constexpr uint64_t fileBytes = 1ULL << 20;
constexpr size_t bufferBytes = 1 << 20;
constexpr size_t pathBytes = 4096;
constexpr size_t longestBase = 3900;

struct Command {
    int32_t files = 0; // read files [0, files) once each, in order
    int32_t padding = 0;
};
struct Report {
    int32_t error = 0;
    int32_t file = -1;
    uint64_t bytes = 0;
    double seconds = 0;
};

double monotonicNow()
{
    struct timespec now;
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return double(now.tv_sec) + double(now.tv_nsec) / 1e9;
}

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
        const double start = monotonicNow();
        for (int file = 0; file < command.files && report.error == 0; ++file) {
            filePath(path, base, file);
            const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                report.error = errno;
                report.file = file;
                break;
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
        report.seconds = monotonicNow() - start;
        (void)!::write(reportFd, &report, sizeof report);
    }
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
        const int largest = filesOf(p.fractions.back());
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
        const ContainedGroup group = *worker.group();
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
        bool ok = true;
        for (int run = 0; ok && run < p.runs && !cancel.load(); ++run) {
            for (size_t i = 0; ok && i < variants.size() && !cancel.load(); ++i) {
                ok = measure(variants[i], filesOf(p.fractions[i]), paths, worker, group, refaultsCounted, recorder, result, cancel);
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
            const bool isBelow = v.details.value(QStringLiteral("side")).toString() == QLatin1String("below");
            if (isBelow) {
                below = &v;
            } else if (!above) {
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
        for (const std::string &path : paths) {
            struct stat st;
            std::string error;
            const UniqueFd fd = openForReading(path, st, error);
            if (fd.isValid()) {
                (void)evictAndSettle(fd.get(), st);
            }
        }
        QJsonArray passes;
        for (int pass = 0; pass <= m_parameters.passes && !cancel.load(); ++pass) {
            const std::optional<uint64_t> refaultsBefore = cgroupFileRefaults(group);
            const std::optional<uint64_t> readBefore = storageReads(worker.pid());
            const Command command{files, 0};
            Report report;
            if (!worker.send(&command, sizeof command)) {
                result.error = v.name + ": the worker is gone";
                return false;
            }
            switch (worker.receive(&report, sizeof report, cancel)) {
            case ContainedWorker::Receive::Cancelled:
                return false;
            case ContainedWorker::Receive::Ended:
                result.error = v.name + ": the worker ended (killed inside its cgroup, most likely by the OOM killer)";
                return false;
            case ContainedWorker::Receive::Received:
                break;
            }
            if (report.error != 0) {
                result.error =
                    (report.file >= 0 && size_t(report.file) < paths.size() ? paths[size_t(report.file)] : v.name) + ": read: " + errnoText(report.error);
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

    ThrashCliffParameters m_parameters;
    PrivilegedSteps m_privileged;
};

} // namespace

std::unique_ptr<Experiment> makeThrashCliffExperiment(const ThrashCliffParameters &parameters, const PrivilegedSteps &privileged)
{
    return std::make_unique<ThrashCliffExperiment>(parameters, privileged);
}

} // namespace Cachescope::Experiments
