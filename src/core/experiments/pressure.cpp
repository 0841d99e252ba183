// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 2. Memory pressure: a warm file, then a child that allocates and touches
// memory in steps while we watch the cache shrink. The child runs with
// oom_score_adj 1000 so that, if the OOM killer acts at all, it picks the
// child; it always stops a safety margin short of MemAvailable unless the
// OOM killer is allowed.
//
// By default the child runs in a memory cgroup of the warm file's size plus
// a little (ContainedWorker): it reads the file itself, so that its pages
// are charged to the cgroup, then allocates the file's size, and the cgroup
// must give up the file's pages for it. That shows on any machine, however
// much memory is free, and presses nothing outside the cgroup. On the whole
// machine (contained = false) the cache gives way only when memory is short.

#include "containedworker.h"
#include "engines.h"
#include "experimentsupport.h"

#include "residency.h"

#include "procfs.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace Cachescope::Experiments
{

uint64_t pressureMargin(uint64_t memTotal)
{
    return std::max<uint64_t>(256ULL << 20, memTotal / 20);
}

namespace
{

// What the child tells the parent through the pipe after each step.
struct StepReport {
    uint64_t allocated = 0;
    int32_t kind = 0; // 0 a step, 1 reached the limit, 2 stopped at the margin, 3 mmap failed, 4 the file read (contained)
    int32_t error = 0;
};

// MemAvailable in bytes, read with raw system calls only: the child of a
// multithreaded process may call nothing that takes a lock (no malloc).
uint64_t rawMemAvailable()
{
    const UniqueFd fd(::open("/proc/meminfo", O_RDONLY | O_CLOEXEC));
    if (!fd.isValid()) {
        return 0;
    }
    char buffer[4096];
    const ssize_t length = ::read(fd.get(), buffer, sizeof buffer - 1);
    if (length <= 0) {
        return 0;
    }
    buffer[length] = '\0';
    const char *line = std::strstr(buffer, "MemAvailable:");
    if (!line) {
        return 0;
    }
    line += 13;
    while (*line == ' ') {
        ++line;
    }
    uint64_t kib = 0;
    while (*line >= '0' && *line <= '9') {
        kib = kib * 10 + uint64_t(*line - '0');
        ++line;
    }
    return kib * 1024;
}

[[noreturn]] void childMain(int writeFd, uint64_t limit, uint64_t step, uint64_t margin, bool allowOom, int stepDelayMs)
{
    // ContainedWorker has it die with its parent.
    (void)::setpriority(PRIO_PROCESS, 0, 19);
    const UniqueFd adj(::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC));
    if (adj.isValid()) {
        (void)!::write(adj.get(), "1000", 4);
    }
    StepReport report;
    while (report.allocated + step <= limit) {
        if (!allowOom) {
            const uint64_t available = rawMemAvailable();
            if (available < margin + step) {
                report.kind = 2;
                break;
            }
        }
        void *memory = ::mmap(nullptr, step, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) {
            report.kind = 3;
            report.error = errno;
            break;
        }
        // Touch every page: only touched pages take memory.
        std::memset(memory, 0x5a, step);
        report.allocated += step;
        (void)!::write(writeFd, &report, sizeof report);
        if (stepDelayMs > 0) {
            ::usleep(useconds_t(stepDelayMs) * 1000);
        }
    }
    if (report.kind == 0) {
        report.kind = 1;
    }
    (void)!::write(writeFd, &report, sizeof report);
    // Keep the memory until the parent has looked, then it kills us.
    for (;;) {
        ::pause();
    }
}

// The contained child: reads the warm file itself (its pages are charged to
// the cgroup), says so, waits for the parent's go, then allocates.
[[noreturn]] void containedChildMain(int commandFd, int reportFd, int fileFd, uint64_t limit, uint64_t step, uint64_t margin, bool allowOom, int stepDelayMs)
{
    char buffer[64 << 10];
    StepReport report;
    off_t offset = 0;
    for (;;) {
        const ssize_t got = ::pread(fileFd, buffer, sizeof buffer, offset);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            report.error = got < 0 ? errno : 0;
            break;
        }
        offset += got;
    }
    report.kind = 4;
    (void)!::write(reportFd, &report, sizeof report);
    char go = 0;
    ssize_t got;
    while ((got = ::read(commandFd, &go, 1)) < 0 && errno == EINTR) { }
    if (got != 1) {
        ::_exit(0);
    }
    childMain(reportFd, limit, step, margin, allowOom, stepDelayMs);
}

// RssAnon of a process, in bytes (0 when gone).
uint64_t anonymousResident(pid_t pid)
{
    const std::string path = "/proc/" + std::to_string(pid) + "/status";
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.isValid()) {
        return 0;
    }
    char buffer[8192];
    const ssize_t length = ::read(fd.get(), buffer, sizeof buffer - 1);
    if (length <= 0) {
        return 0;
    }
    buffer[length] = '\0';
    const char *line = std::strstr(buffer, "RssAnon:");
    return line ? std::strtoull(line + 8, nullptr, 10) * 1024 : 0;
}

class PressureExperiment : public Engine
{
public:
    PressureExperiment(const PressureParameters &parameters, const PrivilegedSteps &privileged)
        : Engine("pressure")
        , m_parameters(parameters)
        , m_privileged(privileged)
    {
    }

private:
    QJsonObject parametersJson() const override
    {
        const PressureParameters &p = m_parameters;
        return QJsonObject{
            {QStringLiteral("file"), QString::fromStdString(p.file.path)},
            {QStringLiteral("folder"), QString::fromStdString(p.file.folder)},
            {QStringLiteral("size"), double(p.file.size)},
            {QStringLiteral("limit"), double(p.limit)},
            {QStringLiteral("step"), double(p.step)},
            {QStringLiteral("allow_oom_killer"), p.allowOomKiller},
            {QStringLiteral("with_swap_variant"), p.withSwapVariant},
            {QStringLiteral("without_swap_variant"), p.withoutSwapVariant},
            {QStringLiteral("runs"), p.runs},
            {QStringLiteral("contained"), p.contained},
            {QStringLiteral("contain_headroom"), double(p.containHeadroom)},
        };
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const PressureParameters &p = m_parameters;
        if (p.step == 0) {
            result.error = "the allocation step must be more than 0 bytes";
            return;
        }

        TemporaryFile temporary;
        std::string path;
        struct stat st;
        const UniqueFd fd = openExperimentFile(p.file, "cachescope-pressure", recorder, cancel, temporary, st, path, result.error);
        if (!fd.isValid()) {
            return;
        }
        result.details.insert(QStringLiteral("path"), QString::fromStdString(path));
        result.details.insert(QStringLiteral("size"), double(st.st_size));
        result.details.insert(QStringLiteral("pages"), double(pagesFor(uint64_t(st.st_size))));

        struct Variant {
            const char *name;
            bool wanted;
            bool swapOff;
        };
        const Variant variants[] = {{"with swap", p.withSwapVariant, false}, {"without swap", p.withoutSwapVariant, true}};
        result.details.insert(QStringLiteral("contained"), p.contained);
        for (const Variant &variant : variants) {
            if (!variant.wanted || cancel.load()) {
                continue;
            }
            if (p.contained && !m_privileged.contain) {
                VariantResult skipped;
                skipped.name = variant.name;
                skipped.skipped = true;
                skipped.skipReason =
                    "it runs in a memory cgroup, and " + containUnavailableReason() + "; the whole-machine variant needs neither (--whole-machine)";
                result.variants.push_back(std::move(skipped));
                continue;
            }
            if (variant.swapOff && skippedWithoutHelper(result, variant.name, m_privileged.swapOff && m_privileged.swapOn, "turning swap off")) {
                continue;
            }
            VariantResult v;
            v.name = variant.name;
            // Swap goes back on however this block is left.
            struct SwapRestorer {
                const PrivilegedSteps *steps = nullptr;
                Recorder *recorder = nullptr;
                std::vector<std::string> *notes = nullptr;
                ~SwapRestorer()
                {
                    if (!steps) {
                        return;
                    }
                    std::string error;
                    if (steps->swapOn(error)) {
                        recorder->event("Swap turned back on");
                    } else {
                        notes->push_back("Turning swap back on failed: " + error + ". Run 'cachescope-cli swap on'.");
                    }
                }
            } restorer;
            if (variant.swapOff) {
                recorder.event("Turning swap off");
                std::string error;
                if (!m_privileged.swapOff(error)) {
                    v.skipped = true;
                    v.skipReason = "turning swap off failed: " + error;
                    result.variants.push_back(std::move(v));
                    continue;
                }
                restorer.recorder = &recorder;
                restorer.notes = &result.notes;
                restorer.steps = &m_privileged;
            }
            m_containFailure.clear();
            for (int run = 0; run < p.runs && !cancel.load(); ++run) {
                if (!runOnce(v, run, fd.get(), st, recorder, result, cancel)) {
                    break;
                }
            }
            if (!m_containFailure.empty()) {
                v.skipped = v.measurements.empty();
                (v.skipped ? v.skipReason : result.error) = m_containFailure;
            }
            v.computeStatistics();
            result.variants.push_back(std::move(v));
        }
    }

    // One pass: warm the file, let the child allocate, watch. False to stop.
    bool runOnce(VariantResult &v, int run, int fd, const struct stat &st, Recorder &recorder, Result &result, const std::atomic<bool> &cancel)
    {
        const PressureParameters &p = m_parameters;
        const uint64_t fileBytes = uint64_t(st.st_size);
        const std::string prefix = v.name + ": run " + std::to_string(run + 1) + ": ";
        if (p.contained) {
            // The worker's read must bring the pages in, or they stay charged
            // to whoever read them before.
            recorder.event(prefix + "evicting the file, for the contained child to read it");
            (void)evictAndSettle(fd, st);
        } else {
            recorder.event(prefix + "warming the file");
            const TimedRead warmUp = timedSequentialRead(fd, 1 << 20, cancel);
            if (warmUp.cancelled) {
                return false;
            }
        }

        const std::optional<MemInfo> memInfo = readMemInfo();
        const uint64_t memTotal = memInfo ? memInfo->value("MemTotal") : 0;
        const uint64_t available = memInfo ? memInfo->value("MemAvailable") : 0;
        const uint64_t margin = pressureMargin(memTotal);
        const uint64_t safe = available > margin ? available - margin : 0;
        uint64_t limit = p.limit ? p.limit : p.contained ? fileBytes : safe;
        if (p.contained && !p.allowOomKiller && limit > fileBytes) {
            result.notes.push_back("The limit was lowered to the warm file's size, " + formatBytes(fileBytes).toStdString()
                                   + ": more would not fit in the cgroup. Allow the OOM killer to go further (the child is then killed inside the cgroup).");
            limit = fileBytes;
        }
        if (!p.allowOomKiller && limit > safe) {
            result.notes.push_back("The limit was lowered to " + formatBytes(safe).toStdString() + ": MemAvailable (" + formatBytes(available).toStdString()
                                   + ") minus the safety margin (" + formatBytes(margin).toStdString() + "). Allow the OOM killer to go further.");
            limit = safe;
        }
        uint64_t step = p.step;
        if (p.contained && limit > 0 && step > limit) {
            // A small warm file in its cgroup: one step of its size.
            result.notes.push_back("The step was lowered to " + formatBytes(limit).toStdString() + ", the most the child allocates in its cgroup.");
            step = limit;
        }
        if (limit < step) {
            result.error = "not enough memory available for even one step of " + formatBytes(step).toStdString() + " (MemAvailable "
                + formatBytes(available).toStdString() + ", safety margin " + formatBytes(margin).toStdString()
                + (p.contained ? ", the warm file " + formatBytes(fileBytes).toStdString() : std::string()) + ")";
            return false;
        }

        ContainedWorker worker;
        const bool allowOom = p.allowOomKiller;
        const int stepDelayMs = p.stepDelayMs;
        QJsonObject runObject{{QStringLiteral("run"), run + 1}, {QStringLiteral("limit"), double(limit)}};
        if (p.contained) {
            const uint64_t groupLimit = fileBytes + p.containHeadroom;
            std::string error;
            if (!worker.startContained(
                    m_privileged,
                    groupLimit,
                    [=](int commandFd, int reportFd) {
                        containedChildMain(commandFd, reportFd, fd, limit, step, margin, allowOom, stepDelayMs);
                    },
                    error)) {
                m_containFailure = error; // the variant is skipped with it
                return false;
            }
            const ContainedGroup &group = worker.containedGroup();
            runObject.insert(QStringLiteral("cgroup"), containedGroupToJson(group));
            recorder.event(prefix + "the child reads the file in " + group.path + " (limit " + formatBytes(group.limitBytes).toStdString() + ")");
            StepReport warmed;
            const ContainedWorker::Receive received = worker.receive(&warmed, sizeof warmed, cancel);
            if (received == ContainedWorker::Receive::Cancelled) {
                return false;
            }
            if (received == ContainedWorker::Receive::Ended || warmed.kind != 4 || warmed.error != 0) {
                result.error = "the contained child could not read the warm file"
                    + std::string(warmed.error ? ": " + errnoText(warmed.error) : " (killed inside its cgroup)");
                return false;
            }
        }
        const auto groupFigures = [&worker](Sample &sample) {
            if (worker.group()) {
                sample.groupCached = cgroupPageCache(*worker.group());
                sample.groupUsage = cgroupUsage(*worker.group());
            }
        };
        Sample before;
        before.phase = "before";
        addMemInfo(before);
        addFileResidency(before, fd, st);
        groupFigures(before);
        recorder.sample(before);
        recorder.event(prefix + "the child allocates up to " + formatBytes(limit).toStdString() + " in steps of " + formatBytes(step).toStdString());
        if (p.contained) {
            const char go = 'g';
            if (!worker.send(&go, 1)) {
                result.error = "the contained child ended before it allocated";
                return false;
            }
        } else if (!worker.startUncontained(
                       [=](int, int reportFd) {
                           childMain(reportFd, limit, step, margin, allowOom, stepDelayMs);
                       },
                       result.error)) {
            return false;
        }
        const pid_t pid = worker.pid();

        StepReport last;
        bool finished = false;
        bool childDied = false;
        uint64_t peakAnonymous = 0;
        Sample peak = before;
        const auto takeSample = [&](const char *phase) {
            Sample sample;
            sample.phase = phase;
            addMemInfo(sample);
            addFileResidency(sample, fd, st);
            groupFigures(sample);
            sample.allocated = last.allocated;
            peakAnonymous = std::max(peakAnonymous, anonymousResident(pid));
            recorder.sample(sample);
            return sample;
        };
        const auto readReports = [&] {
            struct pollfd pollFd = {worker.reportFd(), POLLIN, 0};
            if (::poll(&pollFd, 1, std::max(5, p.sampleIntervalMs)) <= 0) {
                return;
            }
            StepReport report;
            const ssize_t length = ::read(worker.reportFd(), &report, sizeof report);
            if (length == sizeof report) {
                last = report;
                finished = report.kind != 0;
            } else if (length == 0) {
                childDied = true; // the pipe closed: the child is gone
            }
        };
        while (!finished && !childDied && !cancel.load()) {
            readReports();
            peak = takeSample("allocating");
        }
        if (cancel.load()) {
            (void)worker.stop();
            recorder.event("Cancelled: the child was killed and its memory freed");
            return false;
        }
        if (childDied) {
            int status = 0;
            struct rusage usage;
            (void)waitChild(worker.child(), 5, cancel, status, usage);
            const bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
            runObject.insert(QStringLiteral("child_ended"), killed ? QStringLiteral("killed (most likely by the OOM killer)") : QStringLiteral("exited"));
            recorder.event(v.name + ": the child ended before its limit" + std::string(killed ? ": killed, most likely by the OOM killer" : ""));
        } else {
            // Hold at the top for a moment, so the plot shows it.
            const auto holdEnd = std::chrono::steady_clock::now() + std::chrono::milliseconds(p.holdMs);
            while (std::chrono::steady_clock::now() < holdEnd && !cancel.load()) {
                ::usleep(useconds_t(std::max(5, p.sampleIntervalMs)) * 1000);
                peak = takeSample("holding");
            }
            static const char *const why[] = {"", "reached its limit", "stopped at the safety margin", "could not map more memory"};
            recorder.event(v.name + ": the child " + why[std::clamp(last.kind, 1, 3)] + " after " + formatBytes(last.allocated).toStdString());
            runObject.insert(QStringLiteral("child_stop"), QString::fromLatin1(why[std::clamp(last.kind, 1, 3)]));
        }
        // The child's memory goes, and with it its cgroup.
        const bool groupRemoved = worker.stop();
        if (p.contained) {
            runObject.insert(QStringLiteral("cgroup_removed"), groupRemoved);
        }
        if (cancel.load()) {
            return false;
        }
        Sample after;
        after.phase = "after";
        addMemInfo(after);
        addFileResidency(after, fd, st);
        if (p.contained) {
            // The cgroup went with the child: it holds nothing now.
            after.groupCached = 0;
            after.groupUsage = 0;
        }
        recorder.sample(after);

        const auto value = [](const std::optional<uint64_t> &x) {
            return double(x.value_or(0));
        };
        // Contained, the cache that matters is the cgroup's: the machine's
        // moves by as much, lost among everything else it holds.
        const double reclaimed =
            p.contained ? std::max(0.0, value(before.groupCached) - value(peak.groupCached)) : std::max(0.0, value(before.cached) - value(peak.cached));
        const double swapUsed = std::max(0.0, value(before.swapFree) - value(peak.swapFree));
        const double survived = value(before.fileResident) > 0 ? 100.0 * value(peak.fileResident) / value(before.fileResident) : 0;
        const double fileReclaimed = std::max(0.0, value(before.fileResident) - value(peak.fileResident)) * double(pageSize());
        v.add("allocated", "bytes", double(last.allocated));
        v.add("cache_reclaimed", "bytes", reclaimed);
        v.add("reclaimed_per_allocated", "ratio", last.allocated ? reclaimed / double(last.allocated) : 0);
        v.add("warm_file_survived", "percent", survived);
        v.add("warm_file_reclaimed", "bytes", fileReclaimed);
        v.add("swap_used", "bytes", swapUsed);
        v.add("mem_free_drop", "bytes", std::max(0.0, value(before.memFree) - value(peak.memFree)));
        runObject.insert(QStringLiteral("allocated"), double(last.allocated));
        runObject.insert(QStringLiteral("child_peak_rss_anon"), double(peakAnonymous));
        runObject.insert(QStringLiteral("file_resident_before"), value(before.fileResident));
        runObject.insert(QStringLiteral("file_reclaimed_before"), before.fileReclaimed ? QJsonValue(double(*before.fileReclaimed)) : QJsonValue());
        runObject.insert(QStringLiteral("file_resident_at_peak"), value(peak.fileResident));
        runObject.insert(QStringLiteral("file_resident_after"), value(after.fileResident));
        runObject.insert(QStringLiteral("cached_before"), value(before.cached));
        runObject.insert(QStringLiteral("cached_at_peak"), value(peak.cached));
        runObject.insert(QStringLiteral("cached_after"), value(after.cached));
        runObject.insert(QStringLiteral("mem_available_before"), value(before.memAvailable));
        runObject.insert(QStringLiteral("mem_available_at_peak"), value(peak.memAvailable));
        if (p.contained) {
            runObject.insert(QStringLiteral("group_cached_before"), value(before.groupCached));
            runObject.insert(QStringLiteral("group_cached_at_peak"), value(peak.groupCached));
        }
        v.runs.append(runObject);
        return true;
    }

    PressureParameters m_parameters;
    PrivilegedSteps m_privileged;
    std::string m_containFailure; // why the last run's cgroup could not be made
};

} // namespace

std::unique_ptr<Experiment> makePressureExperiment(const PressureParameters &parameters, const PrivilegedSteps &privileged)
{
    return std::make_unique<PressureExperiment>(parameters, privileged);
}

} // namespace Cachescope::Experiments
