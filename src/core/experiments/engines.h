// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The five classic page-cache experiments, the trace and its replay, and
// the folder-eviction lesson. Each engine takes its parameters at
// construction and runs with Experiment::run(progress, cancel).

#include "experiment.h"

#include <memory>

namespace Cachescope::Experiments
{

// Where an experiment makes its file, when it makes one.
struct ScratchFile {
    std::string path; // an existing file to use; empty: make one
    std::string folder = "."; // where to make it: disk-backed (tmpfs is refused)
    uint64_t size = 64ULL << 20;
};

// 1. Cold read against warm read.
struct ColdReadParameters {
    ScratchFile file;
    int runs = 3;
    uint64_t bufferSize = 1 << 20;
    bool fadviseVariant = true; // evict with posix_fadvise(DONTNEED)
    bool dropCachesVariant = false; // evict with drop_caches (privileged)
    int sampleIntervalMs = 20; // file residency during the cold read
};

// 2. Memory pressure, with and without swap.
struct PressureParameters {
    ScratchFile file; // the warm file whose survival is watched
    uint64_t limit = 0; // the most the child allocates; 0: MemAvailable minus the margin
    uint64_t step = 16ULL << 20;
    int stepDelayMs = 20;
    int holdMs = 300; // how long the child keeps its memory at the top
    bool allowOomKiller = false; // go past the safety margin (the child may be OOM-killed)
    bool withSwapVariant = true;
    bool withoutSwapVariant = false; // swap off first (privileged), back on after
    int runs = 1;
    int sampleIntervalMs = 50;
    // In a memory cgroup of the warm file's size plus containHeadroom
    // (privileged.contain): the child's allocations take the file's pages on
    // any machine, and nothing outside the cgroup is pressed. The child then
    // allocates the file's size by default (and at most, unless
    // allowOomKiller). False: the whole machine, under the safety margin.
    bool contained = true;
    uint64_t containHeadroom = 16ULL << 20;
};

// The safety margin kept free below MemAvailable: max(256 MiB, 5%).
[[nodiscard]] uint64_t pressureMargin(uint64_t memTotal);

// 3. A program's cold start, with only its own files evicted.
struct ColdStartParameters {
    std::vector<std::string> command; // argv; never a shell
    int runs = 3;
    double timeoutSeconds = 60;
    bool showOutput = false; // else stdout and stderr go to /dev/null
    bool dropCachesVariant = false;
    bool forceMapsFallback = false; // tests: as if strace were missing
};

// Asked for while the writeback experiment runs (the window's fsync and sync
// buttons): each count the engine has not served yet is done at its next
// sample, timed, and reported in that sample and as an event.
struct WritebackRequests {
    std::atomic<int> fsync{0};
    std::atomic<int> sync{0};
};

// 4. Dirty pages and writeback.
struct WritebackParameters {
    ScratchFile file; // file.path is ignored: the experiment always makes its own
    uint64_t step = 4ULL << 20;
    // Past dirty_expire_centisecs (30 s) plus a flusher wake-up
    // (dirty_writeback_centisecs, 5 s): Documentation/admin-guide/sysctl/vm.rst.
    double waitSeconds = 40; // watch the kernel write back by itself
    double drainTimeoutSeconds = 60;
    int sampleIntervalMs = 100;
    int runs = 1;
    std::shared_ptr<WritebackRequests> requests; // may be null
};

// 5. Page faults and kinds of I/O.
struct FaultsParameters {
    ScratchFile file;
    // The sizes of the classic demonstration (256-byte reads, a 4 KiB setvbuf buffer).
    uint64_t smallBuffer = 256; // read() in small buffers
    uint64_t stdioChunk = 256; // fread() size under stdio's buffering
    uint64_t setvbufSize = 4096;
    uint64_t directBuffer = 1 << 20; // O_DIRECT, aligned
    int runs = 1;
    bool cold = true;
    bool warm = true;
};

// 6. Where a command's pages come from: the trace.
struct TraceParameters {
    std::vector<std::string> command; // argv; never a shell (ignored for the lesson)
    int runs = 1; // each run evicts the command's files and traces it again
    // A run is stopped (and the command killed) after this. The privileged
    // helper traces for 30 s at the most and refuses longer.
    double timeoutSeconds = 30;
    bool showOutput = false; // else stdout and stderr go to /dev/null
    bool forceFallback = false; // the residency diff even where privileged.trace is set
    // Why the privileged trace is not used although it was asked for (the
    // CLI falls back when it ended early): the residency diff then, its note
    // starting with this sentence, and details.fallback_reason holding it.
    std::string fallbackReason;
    bool forceMapsRecording = false; // as if strace were missing
    std::string traceFolder = "."; // the lesson's file (disk-backed)
    // The built-in lesson when set: this program (findTraceLessonReader())
    // reads 64 KiB at offset 0 and 64 KiB at 512 KiB of a 1 MiB file that
    // the engine makes in traceFolder and removes at the end.
    std::string lessonReader;
};

// The lesson's file and its two reads (the seed's own example).
inline constexpr uint64_t traceLessonFileBytes = 1ULL << 20;
inline constexpr uint64_t traceLessonReadBytes = 64ULL << 10;
inline constexpr uint64_t traceLessonSecondReadOffset = 512ULL << 10;
// cachescope-lesson-reader: next to the running program (the build folder),
// else where it is installed (libexec). Empty, with what was looked for in
// *lookedFor, when neither exists.
[[nodiscard]] std::string findTraceLessonReader(std::string *lookedFor = nullptr);
// The lesson's command line: the reader and the file it reads.
[[nodiscard]] std::vector<std::string> traceLessonCommand(const std::string &reader, const std::string &file);

// 7. The replay of a trace (cachescope-cli trace, the window's trace page):
// its files checked against what was traced, evicted, then exactly its
// extents read back with readahead off, as recorded, in file order and in
// disk order (FIEMAP), runs times each; then the seed's check: the
// command's measured cold start against replayed cold I/O + warm start.
struct ReplayParameters {
    Trace::Report report;
    int runs = 3;
    bool checkColdStart = true; // run report.command cold and warm (needs a command in the report)
    double timeoutSeconds = 60; // each run of the command
    bool showOutput = false; // the command's stdout and stderr; else /dev/null
    bool dropCaches = false; // also drop_caches before every cold run (privileged.dropCaches)
    int sampleIntervalMs = 50;
};

// 8. The folder-eviction lesson: in a memory cgroup that holds about three
// of four folders, copy folder 1 to 2, sync, copy 3 to 4, sync, then read
// every file of folder 1; the same with folder 2 evicted before copying 3.
// Every step's I/O is done by a worker inside the cgroup; without
// privileged.contain every variant is skipped (never run unconfined).
struct FolderThrashParameters {
    std::string folder = "."; // disk-backed: the four folders are made in a new folder here
    std::vector<int> fileCounts = {30, 33, 36, 39}; // N, files in each folder
    uint64_t fileSize = 1ULL << 20;
    uint64_t limit = 0; // the cgroup's; 0: folderThrashDefaultLimit()
    int runs = 3;
    bool withoutEvictionVariant = true;
    bool evictionVariant = true; // folder 2 evicted before folder 3 is copied
    int sampleIntervalMs = 50; // folder 1's residency and the cgroup's cache while it runs
};

// Three folders of the largest count, plus 8 MiB for the worker itself.
[[nodiscard]] uint64_t folderThrashDefaultLimit(const std::vector<int> &fileCounts, uint64_t fileSize);
// The variants' names.
inline constexpr const char *folderThrashWithoutEviction = "without eviction";
inline constexpr const char *folderThrashWithEviction = "evict folder 2 first";
// A variant's name: "24 files, evict folder 2 first".
[[nodiscard]] std::string folderThrashVariantName(int files, const char *variant);
// The phase of the samples taken during one run of a variant (run counts
// from 1), and the variant a phase is a run of: empty for the other phases
// (making the folders).
[[nodiscard]] std::string folderThrashRunPhase(const std::string &variantName, int run);
[[nodiscard]] std::string folderThrashVariantOfPhase(const std::string &phase);

[[nodiscard]] std::unique_ptr<Experiment> makeColdReadExperiment(const ColdReadParameters &parameters, const PrivilegedSteps &privileged = {});
[[nodiscard]] std::unique_ptr<Experiment> makePressureExperiment(const PressureParameters &parameters, const PrivilegedSteps &privileged = {});
[[nodiscard]] std::unique_ptr<Experiment> makeColdStartExperiment(const ColdStartParameters &parameters, const PrivilegedSteps &privileged = {});
[[nodiscard]] std::unique_ptr<Experiment> makeWritebackExperiment(const WritebackParameters &parameters);
[[nodiscard]] std::unique_ptr<Experiment> makeFaultsExperiment(const FaultsParameters &parameters);
// With privileged.trace: the kernel's page-cache events (Method::Tracefs);
// without it, or with forceFallback: the residency diff (Method::ResidencyDiff).
[[nodiscard]] std::unique_ptr<Experiment> makeTraceExperiment(const TraceParameters &parameters, const PrivilegedSteps &privileged = {});
[[nodiscard]] std::unique_ptr<Experiment> makeReplayExperiment(const ReplayParameters &parameters, const PrivilegedSteps &privileged = {});
// Every variant is skipped without privileged.contain.
[[nodiscard]] std::unique_ptr<Experiment> makeFolderThrashExperiment(const FolderThrashParameters &parameters, const PrivilegedSteps &privileged = {});

// 8. Drop-behind: one big file read, then written, four ways each from a
// cold start (plain; read or write then posix_fadvise(DONTNEED) as it goes;
// preadv2/pwritev2 with RWF_DONTCACHE, Linux 6.14+ where the file system has
// it; O_DIRECT), after a set of "desktop" files was read: the way's speed,
// the big file's pages left in the cache, and how much of the desktop's
// stayed. In a memory cgroup (PrivilegedSteps::contain) a little larger
// than the big file, so that what a plain read keeps pushes the desktop's
// pages out there and nowhere else; never run unconfined.
struct DropBehindParameters {
    std::string folder = "."; // disk-backed: the files are made in a new folder here
    uint64_t size = 256ULL << 20; // the big file
    uint64_t desktopSize = 32ULL << 20; // the desktop's files, 4 MiB each
    uint64_t limit = 0; // the cgroup's; 0: dropBehindDefaultLimit()
    int runs = 1;
    bool reads = true;
    bool writes = true;
    uint64_t chunk = 8ULL << 20; // fadvise's and sync_file_range's step
    int sampleIntervalMs = 50;
};
// The big file and 16 MiB: all of it fits, the desktop's files do not.
[[nodiscard]] uint64_t dropBehindDefaultLimit(uint64_t size);
// The four ways, as the variants' "method" detail names them.
inline constexpr const char *dropBehindMethods[] = {"plain", "fadvise", "dontcache", "direct"};
// A variant's name: "read, fadvise", "write, direct".
[[nodiscard]] std::string dropBehindVariantName(bool write, const char *method);
[[nodiscard]] std::unique_ptr<Experiment> makeDropBehindExperiment(const DropBehindParameters &parameters, const PrivilegedSteps &privileged = {});

// 9. The thrashing cliff: in a memory cgroup of a fixed limit, a working set
// read pass after pass, for working sets from half the limit to one and a
// half times it. Below the limit every pass after the first is served from
// memory; just over it, each page is evicted shortly before it is needed
// again and every pass goes to the disk. Per working set: seconds a pass
// and refaults a pass (v2's workingset_refault_file; on v1, which does not
// count them, the bytes the worker read from storage, /proc/PID/io).
//
// Second part, scan resistance: in the same cgroup, files A (a quarter of
// the limit) read once or twice, then files B (one and a quarter times the
// limit) streamed once, plainly or with POSIX_FADV_NOREUSE: how much of A
// stayed, the cgroup's Active(file) and Inactive(file) before and after the
// stream, and the pages it moved to the active list (pgactivate, cgroup v2).
struct ThrashCliffParameters {
    std::string folder = "."; // disk-backed: the files are made in a new folder here
    uint64_t limit = 64ULL << 20; // the cgroup's
    std::vector<double> fractions = {0.5, 0.75, 0.9, 1.1, 1.25, 1.5}; // working sets, of the limit
    int passes = 3; // measured passes after the first (cold) one
    int runs = 1;
    bool scanResistance = true; // the second part
    int sampleIntervalMs = 50;
};
// A working set's variant name: "working set 48 MiB (75 % of the limit)".
[[nodiscard]] std::string thrashCliffVariantName(uint64_t bytes, double fraction);
// The scan-resistance variants, as their "scan" detail names them: A read
// once, A read twice, A read once and B streamed with POSIX_FADV_NOREUSE.
inline constexpr const char *thrashCliffScans[] = {"once", "twice", "noreuse"};
// A scan variant's name: "A read twice, then B streamed".
[[nodiscard]] std::string thrashCliffScanVariantName(const char *scan);
// Which LRU the kernel runs (/sys/kernel/mm/lru_gen/enabled): "multi-gen
// LRU" with its value, "multi-gen LRU built in, off", or "two lists (active
// and inactive): the multi-gen LRU is not built into this kernel".
[[nodiscard]] std::string lruKind(const std::string &sysRoot = "/sys");
[[nodiscard]] std::unique_ptr<Experiment> makeThrashCliffExperiment(const ThrashCliffParameters &parameters, const PrivilegedSteps &privileged = {});

// 10. Memory that cannot be evicted: a file on a tmpfs (one the experiment
// mounts as root, else /dev/shm, or the tmpfs folder given) counts in Cached
// and Shmem (free's "shared"), stays through posix_fadvise(DONTNEED) and
// drop_caches, and under pressure in a memory cgroup stays without swap
// (the cgroup's limit is hit); reclaimed on request (MADV_PAGEOUT) with swap
// on (the experiment swap file where there is none), it goes to swap. The
// cgroup's part is skipped without privileged.contain or when this computer
// has swap on; the page-out without swap and privileged.swapFileOn.
struct ShmemParameters {
    std::string folder; // a tmpfs folder to use; empty: a tmpfs mounted for the lesson, or /dev/shm
    uint64_t size = 64ULL << 20; // the file, 16 MiB to 4 GiB, at most a quarter of MemAvailable
    uint64_t headroom = 0; // the cgroup's limit above the file, 4 MiB to less than it; 0: 32 MiB, at most half the file
    bool dropCachesVariant = true; // privileged.dropCaches
    bool pressure = true; // the cgroup's part (privileged.contain)
    bool withSwapVariant = true; // the page-out: privileged.swapFileOn, unless swap is on already
    double pressureTimeoutSeconds = 30;
    int runs = 1;
    int sampleIntervalMs = 50;
    std::string mountRoot = "/run"; // where the lesson's tmpfs is mounted, in a new folder
};
// The variants' names.
inline constexpr const char *shmemFill = "fill the tmpfs";
inline constexpr const char *shmemEvict = "evict the file";
inline constexpr const char *shmemDropCaches = "drop caches";
inline constexpr const char *shmemWithoutSwap = "pressure without swap";
inline constexpr const char *shmemWithSwap = "paged out, swap on";
[[nodiscard]] std::unique_ptr<Experiment> makeShmemExperiment(const ShmemParameters &parameters, const PrivilegedSteps &privileged = {});

// The cold-start recording: which regular files a command opened, from an
// strace log (-f -e trace=openat,open,execve). Failed opens are left out.
[[nodiscard]] std::vector<std::string> filesFromStraceLog(const std::string &log, const std::string &workingDirectory);

// The vm.dirty_* settings, name -> value (missing files left out).
[[nodiscard]] QJsonObject dirtySettings(const std::string &procRoot = "/proc");

// The read_ahead_kb of the block device that holds path (its disk's, for a
// partition; the bdi's for a device without a queue, such as NFS); nullopt
// when none is found (btrfs names its bdi otherwise). The readahead window
// grows up to it (mm/readahead.c).
[[nodiscard]] std::optional<uint64_t> readAheadKiB(const std::string &path, const std::string &sysRoot = "/sys");

} // namespace Cachescope::Experiments
