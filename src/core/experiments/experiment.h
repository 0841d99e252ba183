// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// What every experiment engine shares: progress (timestamped samples for live
// plots and events for a log), a cancel flag, the privileged steps the engine
// cannot do itself, and a result with per-variant measurements, statistics
// over the runs, and a JSON form that can be stored and compared later.

#include "residency.h"
#include "trace/tracereport.h"

#include <QJsonArray>
#include <QJsonObject>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace Cachescope::Experiments
{

// Mean, sample standard deviation and the 95% confidence interval of the mean
// (Student's t with n - 1 degrees of freedom; 1.96 beyond 30 values).
struct Statistics {
    int count = 0;
    double mean = 0;
    double standardDeviation = 0; // sample (n - 1); 0 for one value
    double median = 0;
    double minimum = 0;
    double maximum = 0;
    double confidenceHalfWidth = 0; // 0 when count < 2: no interval from one value
    [[nodiscard]] double confidenceLow() const
    {
        return mean - confidenceHalfWidth;
    }
    [[nodiscard]] double confidenceHigh() const
    {
        return mean + confidenceHalfWidth;
    }
};

// The two-sided 97.5% quantile of Student's t for degreesOfFreedom (>= 1).
[[nodiscard]] double studentT95(int degreesOfFreedom);
[[nodiscard]] Statistics computeStatistics(const std::vector<double> &values);

// One point of the live plots. Figures that were not read are nullopt.
struct Sample {
    double seconds = 0; // since the experiment started
    std::string phase; // "cold read", "allocating", "draining", ...
    std::optional<uint64_t> memFree;
    std::optional<uint64_t> memAvailable;
    std::optional<uint64_t> cached;
    std::optional<uint64_t> dirty;
    std::optional<uint64_t> writeback;
    std::optional<uint64_t> swapFree;
    std::optional<uint64_t> swapTotal;
    // The experiment's file (pages).
    std::optional<uint64_t> fileResident;
    std::optional<uint64_t> fileDirty;
    std::optional<uint64_t> fileWriteback;
    std::optional<uint64_t> filePages;
    // Pages of the file the kernel reclaimed on its own since it was last
    // evicted: cachestat's evicted count (reclaim leaves a shadow entry,
    // fadvise(DONTNEED) and drop_caches do not). Unknown without cachestat.
    std::optional<uint64_t> fileReclaimed;
    // Experiment-specific (the pressure child's allocation, bytes written, ...).
    std::optional<uint64_t> allocated;
    std::optional<uint64_t> written;
    // The experiment's memory cgroup (ContainedGroup), when it runs in one:
    // its page cache and all its memory, in bytes.
    std::optional<uint64_t> groupCached;
    std::optional<uint64_t> groupUsage;
    // Drop-behind: the "desktop" files' pages in the cache, and how many
    // they have (the files read before the big one).
    std::optional<uint64_t> desktopResident;
    std::optional<uint64_t> desktopPages;
    // /proc/meminfo's Shmem: tmpfs, shared memory (free's "shared").
    std::optional<uint64_t> shmem;
    // How long an fsync or sync that ended just before this sample took.
    std::optional<double> fsyncSeconds;
    std::optional<double> syncSeconds;
    // A cold start's run that just ended: how long its cold and its warm
    // start took. Live only (Recorder::liveSample): the result's
    // measurements keep them.
    std::optional<double> coldRunSeconds;
    std::optional<double> warmRunSeconds;
    // Which parts of the experiment's file are cached, in buckets over the
    // whole file (the cold read, so that a heatmap can fill in). Shared: a
    // sample is copied to every listener. Live only: not kept in the JSON.
    std::shared_ptr<const Histogram> fileHistogram;
};

struct Event {
    double seconds = 0;
    std::string text;
};

struct Progress {
    // Both may be empty. Called from the thread that runs the experiment or
    // from its sampler thread: they must be thread-safe.
    std::function<void(const Sample &)> sample;
    std::function<void(const Event &)> event;
};

// A memory cgroup that a process was moved into (PrivilegedSteps::contain).
struct ContainedGroup {
    std::string path; // the cgroup's folder, e.g. /sys/fs/cgroup/memory/cachescope/run-4201-1
    int version = 0; // 1 (the v1 memory controller) or 2
    uint64_t limitBytes = 0; // memory.high (v2) or memory.limit_in_bytes (v1)
    std::string how; // "systemd-run", "helper", "root": who made it
};

// The steps only root can do, filled by a caller that can reach the
// privileged helper. Each returns false and says why in error. Empty
// functions: the variants that need them are skipped with the reason.
struct PrivilegedSteps {
    std::function<bool(std::string &error)> dropCaches; // sync + drop_caches 3
    std::function<bool(std::string &error)> swapOff; // all swap areas
    std::function<bool(std::string &error)> swapOn; // what swapOff turned off
    // The experiment swap file (/var/lib/cachescope/experiment.swap, 16 MiB
    // to 4 GiB) made and turned on, then turned off and removed.
    std::function<bool(uint64_t bytes, std::string &error)> swapFileOn;
    std::function<bool(std::string &error)> swapFileOff;
    // Records the page-cache events of process `pid` (as this process numbers
    // it; it must be the caller's own, held before exec) and its children,
    // from when tracing is on until it exits, at most maxSeconds. Calls
    // tracingOn() once, as soon as the events are being recorded (then the
    // caller lets the process go on); returns when the process has exited,
    // the deadline passed or cancel was set. Through the helper's `trace`
    // action, or in process as root.
    std::function<
        bool(int pid, int maxSeconds, const std::function<void()> &tracingOn, const std::atomic<bool> &cancel, Trace::Capture &capture, std::string &error)>
        trace;
    // Moves process `pid` (the caller's own, held before it starts its work)
    // into a new memory cgroup limited to limitBytes, which is removed once
    // it is empty (also after a kill). Through systemd's user manager, the
    // helper's `contain` action, or in process as root.
    std::function<bool(int pid, uint64_t limitBytes, ContainedGroup &group, std::string &error)> contain;
};

// A figure measured once a run.
struct Measurement {
    std::string name; // "cold_seconds", "throughput_mib_s", ...
    std::string unit; // "s", "MiB/s", "ratio", "bytes", "count"
    std::vector<double> values;
    Statistics statistics;
};

struct VariantResult {
    std::string name; // "fadvise", "drop_caches", "with swap", "mmap cold", ...
    bool skipped = false;
    std::string skipReason;
    std::vector<Measurement> measurements;
    QJsonArray runs; // one object a run, with what the measurements do not say
    QJsonObject details; // experiment-specific (file lists, fault counts, ...)

    // Appends value to the measurement called name (made on first use).
    void add(const std::string &measurementName, const std::string &unit, double value);
    [[nodiscard]] const Measurement *find(const std::string &measurementName) const;
    void computeStatistics(); // fills every measurement's statistics
};

// A file the program of the cold-start experiment opened, with its residency.
struct ProgramFile {
    std::string path; // as the kernel has it: bytes, not necessarily UTF-8
    uint64_t size = 0;
    uint64_t pages = 0;
    // The file's cached pages after the warm run, and after it was evicted
    // for the first cold run. Unknown (never 0) when the kernel hides them.
    std::optional<uint64_t> residentWarm;
    std::optional<uint64_t> residentAfterEvict;
    // The kernel does not tell this user (not the owner, cannot write).
    bool residencyHidden = false;
    std::string hiddenReason;
    std::string remainReason; // why pages stayed after the eviction; empty when none did
};

struct Result {
    std::string experiment; // "cold-read", "pressure", "cold-start", "writeback", "faults"
    std::string started; // ISO 8601, UTC
    double seconds = 0; // how long it ran
    QJsonObject parameters;
    std::vector<VariantResult> variants;
    QJsonObject details; // experiment-wide (vm.dirty_* settings, the file, ...)
    // The cold start's recorded files, in the order they were opened; absent for the other experiments. In the JSON form: the
    // details' "files" and "files_bytes".
    std::optional<std::vector<ProgramFile>> programFiles;
    // The trace experiment's report (files, extents, requests); absent for the others. In the JSON form: the details' "trace".
    std::optional<Trace::Report> trace;
    std::vector<Sample> samples;
    std::vector<Event> events;
    bool cancelled = false;
    std::string error; // set when the experiment could not run at all
    std::vector<std::string> notes; // caveats people should know (fallbacks, ...)

    [[nodiscard]] bool ok() const
    {
        return error.empty() && !cancelled;
    }
    [[nodiscard]] const VariantResult *variant(const std::string &name) const;
};

[[nodiscard]] QJsonObject statisticsToJson(const Statistics &statistics);
[[nodiscard]] QJsonObject sampleToJson(const Sample &sample);
[[nodiscard]] QJsonObject resultToJson(const Result &result);
// Reads a stored result back (for comparing past results). Samples are kept.
[[nodiscard]] std::optional<Result> resultFromJson(const QJsonObject &object, std::string *error = nullptr);

// The common engine interface.
class Experiment
{
public:
    virtual ~Experiment() = default;
    [[nodiscard]] virtual std::string name() const = 0;
    // Blocks until done, failed or cancelled. cancel may be set from any
    // thread at any moment: the engine then stops, kills its children, removes
    // its temporary files, restores swap, and returns with cancelled set.
    [[nodiscard]] virtual Result run(const Progress &progress, const std::atomic<bool> &cancel) = 0;
};

} // namespace Cachescope::Experiments
