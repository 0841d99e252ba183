// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Building blocks the engines share: a recorder for samples and events, a
// sampler thread, guards that remove temporary files and kill children
// whatever way a run ends, and the file steps (create, evict, read).

#include "engines.h"
#include "experiment.h"
#include "format.h"
#include "uniquefd.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace Cachescope::Experiments
{

// Keeps samples and events in the result and passes them on, from any thread.
class Recorder
{
public:
    Recorder(Result &result, const Progress &progress);
    [[nodiscard]] double seconds() const;
    void sample(Sample sample); // stamps the time
    // The same for the listeners only: not kept in the result (a figure its
    // measurements already hold).
    void liveSample(Sample sample);
    void event(const std::string &text);

private:
    Result &m_result;
    const Progress &m_progress;
    std::chrono::steady_clock::time_point m_start;
    std::mutex m_mutex;
};

// The start and the end that every engine shares: run() makes the result
// (name, start time, parameters) and the recorder, lets the engine do its
// work, then notes how long it ran and whether it was cancelled. An engine
// says what its parameters are and does its work; nothing else.
class Engine : public Experiment
{
public:
    [[nodiscard]] std::string name() const final;
    [[nodiscard]] Result run(const Progress &progress, const std::atomic<bool> &cancel) final;

protected:
    explicit Engine(std::string name);
    // The parameters as the result records them.
    [[nodiscard]] virtual QJsonObject parametersJson() const = 0;
    // The experiment itself. Returns when done, when it failed (result.error
    // set) or when cancel was set; the base fills in the rest.
    virtual void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) = 0;

private:
    std::string m_name;
};

// Fills the /proc/meminfo figures of a sample.
void addMemInfo(Sample &sample);
// Fills the file figures of a sample (residency by descriptor; dirty and
// writeback when cachestat is there).
void addFileResidency(Sample &sample, int fd, const struct stat &st);
// Fills the sample's histogram of the file (fileHistogramBuckets buckets, or
// one a page for a smaller file); left empty when residency is not known.
inline constexpr int fileHistogramBuckets = 256;
void addFileHistogram(Sample &sample, int fd, const struct stat &st);

// Calls tick every interval on its own thread until stopped (or destroyed).
class PeriodicThread
{
public:
    PeriodicThread(std::chrono::milliseconds interval, std::function<void()> tick);
    ~PeriodicThread();
    void stop();

private:
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_condition;
    bool m_stop = false;
};

// Removes the file when it goes out of scope, unless released.
class TemporaryFile
{
public:
    TemporaryFile() = default;
    ~TemporaryFile();
    TemporaryFile(const TemporaryFile &) = delete;
    TemporaryFile &operator=(const TemporaryFile &) = delete;
    void set(const std::string &path)
    {
        m_path = path;
    }
    [[nodiscard]] const std::string &path() const
    {
        return m_path;
    }
    void remove();

private:
    std::string m_path;
};

// Removes a folder of the experiment's own (a fresh mkdtemp) and all it
// holds when it goes out of scope, or on remove().
class TemporaryFolder
{
public:
    TemporaryFolder() = default;
    ~TemporaryFolder();
    TemporaryFolder(const TemporaryFolder &) = delete;
    TemporaryFolder &operator=(const TemporaryFolder &) = delete;
    void set(const std::string &path)
    {
        m_path = path;
    }
    void remove();

private:
    std::string m_path;
};

// A new folder of the experiment's own in folder ("<folder>/<prefix>-XXXXXX",
// mkdtemp), given to guard. Its path, or empty with error naming folder and why.
[[nodiscard]] std::string makeExperimentFolder(const std::string &folder, const char *prefix, TemporaryFolder &guard, std::string &error);

// A child process that is killed (SIGKILL) and reaped when the guard goes
// out of scope, so that no way out of an engine leaves one behind.
class ChildGuard
{
public:
    ChildGuard() = default;
    ~ChildGuard();
    ChildGuard(const ChildGuard &) = delete;
    ChildGuard &operator=(const ChildGuard &) = delete;
    void set(pid_t pid);
    [[nodiscard]] pid_t pid() const
    {
        return m_pid;
    }
    // Reaped by the caller (waitChild): nothing left to do.
    void release()
    {
        m_pid = -1;
    }
    void killNow();

private:
    pid_t m_pid = -1;
};

// A variant that needs the privileged helper (what: "drop_caches", "turning
// swap off") where this program cannot reach it: recorded in result as
// skipped, with the reason. True when it was skipped.
[[nodiscard]] bool skippedWithoutHelper(Result &result, const std::string &variantName, bool helperReachable, const char *what);

// Forks a child that reports to its parent through a pipe. The child runs
// childMain(writeFd), which must not return (it ends with _exit). In the
// parent, child holds the new process and the pipe's read end is returned;
// an invalid descriptor, with error set ("pipe: ...", "fork: ..."), when
// either call failed.
[[nodiscard]] UniqueFd forkReportingChild(ChildGuard &child, const std::function<void(int writeFd)> &childMain, std::string &error);

enum class WaitOutcome {
    Exited, // status filled
    TimedOut, // killed and reaped
    Cancelled, // killed and reaped
    Failed,
};

// Waits for the child (pidfd + poll, so the end is seen at once), checking
// cancel every 20 ms; on timeout or cancel it is killed and reaped.
// timeoutSeconds <= 0: no timeout. Fills status, usage and the seconds from
// the call to the child's end.
[[nodiscard]] WaitOutcome
waitChild(ChildGuard &child, double timeoutSeconds, const std::atomic<bool> &cancel, int &status, struct rusage &usage, double *secondsWaited = nullptr);

// Checks that folder is a disk-backed folder with room for bytes (plus 5%
// and 64 MiB to spare). Returns an empty string, or why not (naming the path).
[[nodiscard]] std::string checkScratchFolder(const std::string &folder, uint64_t bytes);

// Creates a file of bytes in folder (a pattern, flushed, then evicted) and
// registers it with the guard. Empty string, or why not.
[[nodiscard]] std::string
createScratchFile(const std::string &folder, const char *prefix, uint64_t bytes, const std::atomic<bool> &cancel, TemporaryFile &file);

// Opens a regular file for reading; an invalid descriptor and error (naming
// the path) if not.
[[nodiscard]] UniqueFd openForReading(const std::string &path, struct stat &st, std::string &error);

// The file an experiment reads: file.path, or a new file of file.size bytes in
// file.folder that `temporary` removes. Returns an open descriptor and fills
// st and path, or returns an invalid one with error set (left empty when
// cancelled).
[[nodiscard]] UniqueFd openExperimentFile(const ScratchFile &file,
                                          const char *prefix,
                                          Recorder &recorder,
                                          const std::atomic<bool> &cancel,
                                          TemporaryFile &temporary,
                                          struct stat &st,
                                          std::string &path,
                                          std::string &error);

// posix_fadvise(DONTNEED) after fdatasync, then polls (up to a second) until
// the kernel agrees. Returns the resident pages left.
uint64_t evictAndSettle(int fd, const struct stat &st);

// Resident pages, or 0 when unknown.
[[nodiscard]] uint64_t residentPages(int fd, const struct stat &st);

// The pages of files in the cache, summed (a file that cannot be read counts
// nothing); never more cached than a file had when it was counted.
struct FilesPages {
    uint64_t resident = 0;
    uint64_t pages = 0;
};
[[nodiscard]] FilesPages pagesOf(const std::vector<std::string> &paths);
// Every file of paths evicted (evictAndSettle); one that cannot be opened is left.
void evictAll(const std::vector<std::string> &paths);

struct TimedRead {
    uint64_t bytes = 0;
    double seconds = 0;
    bool cancelled = false;
    int error = 0;
};
// Reads the whole file from offset 0 with pread in bufferSize pieces.
[[nodiscard]] TimedRead timedSequentialRead(int fd, uint64_t bufferSize, const std::atomic<bool> &cancel);

[[nodiscard]] std::string utcNowIso();

// Sleeps up to milliseconds; true at once when cancelled.
[[nodiscard]] bool sleepUnlessCancelled(int milliseconds, const std::atomic<bool> &cancel);

// CLOCK_MONOTONIC in seconds: a system call only, so that a forked
// worker's main may time its work with it.
[[nodiscard]] double monotonicSeconds();

} // namespace Cachescope::Experiments
