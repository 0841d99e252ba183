// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "experimentsupport.h"

#include "evict.h"
#include "procfs.h"
#include "residency.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <filesystem>
#include <vector>

namespace Cachescope::Experiments
{

Engine::Engine(std::string name)
    : m_name(std::move(name))
{
}

std::string Engine::name() const
{
    return m_name;
}

Result Engine::run(const Progress &progress, const std::atomic<bool> &cancel)
{
    Result result;
    result.experiment = m_name;
    result.started = utcNowIso();
    result.parameters = parametersJson();
    Recorder recorder(result, progress);
    execute(result, recorder, cancel);
    result.cancelled = result.cancelled || cancel.load();
    result.seconds = recorder.seconds();
    return result;
}

Recorder::Recorder(Result &result, const Progress &progress)
    : m_result(result)
    , m_progress(progress)
    , m_start(std::chrono::steady_clock::now())
{
}

double Recorder::seconds() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

void Recorder::sample(Sample sample)
{
    sample.seconds = seconds();
    {
        const std::lock_guard lock(m_mutex);
        m_result.samples.push_back(sample);
    }
    if (m_progress.sample) {
        m_progress.sample(sample);
    }
}

void Recorder::liveSample(Sample sample)
{
    sample.seconds = seconds();
    if (m_progress.sample) {
        m_progress.sample(sample);
    }
}

void Recorder::event(const std::string &text)
{
    const Event event{seconds(), text};
    {
        const std::lock_guard lock(m_mutex);
        m_result.events.push_back(event);
    }
    if (m_progress.event) {
        m_progress.event(event);
    }
}

void addMemInfo(Sample &sample)
{
    const std::optional<MemInfo> info = readMemInfo();
    if (!info) {
        return;
    }
    sample.memFree = info->find("MemFree");
    sample.memAvailable = info->find("MemAvailable");
    sample.cached = info->find("Cached");
    sample.dirty = info->find("Dirty");
    sample.writeback = info->find("Writeback");
    sample.swapFree = info->find("SwapFree");
    sample.swapTotal = info->find("SwapTotal");
    sample.shmem = info->find("Shmem");
}

void addFileResidency(Sample &sample, int fd, const struct stat &st)
{
    const Residency residency = residencyOfDescriptor(fd, st);
    if (!residency.known()) {
        return;
    }
    sample.filePages = residency.pages;
    sample.fileResident = residency.resident;
    if (residency.detail) {
        sample.fileDirty = residency.dirty;
        sample.fileWriteback = residency.writeback;
        sample.fileReclaimed = residency.evicted;
    }
}

void addFileHistogram(Sample &sample, int fd, const struct stat &st)
{
    const uint64_t pages = pagesFor(uint64_t(std::max<off_t>(st.st_size, 0)));
    const int buckets = int(std::min<uint64_t>(fileHistogramBuckets, std::max<uint64_t>(pages, 1)));
    auto histogram = std::make_shared<Histogram>(histogramOfDescriptor(fd, st, buckets));
    if (histogram->known()) {
        sample.fileHistogram = std::move(histogram);
    }
}

PeriodicThread::PeriodicThread(std::chrono::milliseconds interval, std::function<void()> tick)
{
    m_thread = std::thread([this, interval, tick = std::move(tick)] {
        std::unique_lock lock(m_mutex);
        while (!m_stop) {
            lock.unlock();
            tick();
            lock.lock();
            m_condition.wait_for(lock, interval, [this] {
                return m_stop;
            });
        }
    });
}

PeriodicThread::~PeriodicThread()
{
    stop();
}

void PeriodicThread::stop()
{
    {
        const std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_condition.notify_all();
    if (m_thread.joinable()) {
        m_thread.join();
    }
}

TemporaryFile::~TemporaryFile()
{
    remove();
}

void TemporaryFile::remove()
{
    if (!m_path.empty()) {
        ::unlink(m_path.c_str());
        m_path.clear();
    }
}

TemporaryFolder::~TemporaryFolder()
{
    remove();
}

void TemporaryFolder::remove()
{
    if (!m_path.empty()) {
        std::error_code error;
        std::filesystem::remove_all(m_path, error);
        m_path.clear();
    }
}

std::string makeExperimentFolder(const std::string &folder, const char *prefix, TemporaryFolder &guard, std::string &error)
{
    std::string pattern = folder + '/' + prefix + "-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
        error = folder + ": cannot make a folder there: " + errnoText(errno);
        return {};
    }
    guard.set(pattern);
    return pattern;
}

ChildGuard::~ChildGuard()
{
    killNow();
}

bool skippedWithoutHelper(Result &result, const std::string &variantName, bool helperReachable, const char *what)
{
    if (helperReachable) {
        return false;
    }
    VariantResult skipped;
    skipped.name = variantName;
    skipped.skipped = true;
    skipped.skipReason = std::string(what) + " needs the privileged helper (administrator rights), which this program cannot reach";
    result.variants.push_back(std::move(skipped));
    return true;
}

UniqueFd forkReportingChild(ChildGuard &child, const std::function<void(int writeFd)> &childMain, std::string &error)
{
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0) {
        error = "pipe: " + errnoText(errno);
        return UniqueFd();
    }
    UniqueFd readEnd(pipeFds[0]);
    const UniqueFd writeEnd(pipeFds[1]);
    const pid_t pid = ::fork();
    if (pid < 0) {
        error = "fork: " + errnoText(errno);
        return UniqueFd();
    }
    if (pid == 0) {
        ::close(pipeFds[0]);
        childMain(pipeFds[1]);
        ::_exit(127);
    }
    child.set(pid);
    // The parent's write end closes here, so that the read end sees the
    // child's exit as end of file.
    return readEnd;
}

void ChildGuard::set(pid_t pid)
{
    m_pid = pid;
}

void ChildGuard::killNow()
{
    if (m_pid <= 0) {
        return;
    }
    ::kill(m_pid, SIGKILL);
    while (::waitpid(m_pid, nullptr, 0) < 0 && errno == EINTR) { }
    m_pid = -1;
}

WaitOutcome waitChild(ChildGuard &child, double timeoutSeconds, const std::atomic<bool> &cancel, int &status, struct rusage &usage, double *secondsWaited)
{
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const pid_t pid = child.pid();
    if (pid <= 0) {
        return WaitOutcome::Failed;
    }
    // A pidfd becomes readable the moment the child ends: exact timing
    // without a busy loop. Without one (old kernels), poll every millisecond.
    const UniqueFd pidFd(int(::syscall(SYS_pidfd_open, pid, 0)));
    WaitOutcome outcome = WaitOutcome::Failed;
    for (;;) {
        const pid_t done = ::wait4(pid, &status, WNOHANG, &usage);
        if (done == pid) {
            if (secondsWaited) {
                *secondsWaited = elapsed();
            }
            child.release();
            outcome = WaitOutcome::Exited;
            break;
        }
        if (done < 0 && errno != EINTR) {
            child.release();
            break;
        }
        if (cancel.load()) {
            child.killNow();
            outcome = WaitOutcome::Cancelled;
            break;
        }
        if (timeoutSeconds > 0 && elapsed() >= timeoutSeconds) {
            child.killNow();
            outcome = WaitOutcome::TimedOut;
            break;
        }
        if (pidFd.isValid()) {
            struct pollfd fd = {pidFd.get(), POLLIN, 0};
            (void)::poll(&fd, 1, 20);
        } else {
            ::usleep(1000);
        }
    }
    return outcome;
}

std::string checkScratchFolder(const std::string &folder, uint64_t bytes)
{
    const UniqueFd fd(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd.isValid()) {
        return folder + ": " + errnoText(errno);
    }
    if (isMemoryBackedFilesystem(fd.get())) {
        return folder
            + ": is in memory (tmpfs or ramfs): its pages cannot be evicted, so cold reads are impossible there; choose a folder on a disk (--folder)";
    }
    struct statvfs fs;
    if (::fstatvfs(fd.get(), &fs) != 0) {
        return folder + ": cannot read the free space: " + errnoText(errno);
    }
    const uint64_t available = uint64_t(fs.f_bavail) * uint64_t(fs.f_frsize);
    const uint64_t needed = bytes + bytes / 20 + (64ULL << 20);
    if (available < needed) {
        return folder + ": not enough free space for a " + formatBytes(bytes).toStdString() + " file (" + formatBytes(available).toStdString()
            + " free; keeping 5% and 64 MiB to spare)";
    }
    return {};
}

std::string createScratchFile(const std::string &folder, const char *prefix, uint64_t bytes, const std::atomic<bool> &cancel, TemporaryFile &file)
{
    std::string problem = checkScratchFolder(folder, bytes);
    if (!problem.empty()) {
        return problem;
    }
    std::string pattern = folder + '/' + prefix + "-XXXXXX";
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    const UniqueFd fd(::mkostemp(name.data(), O_CLOEXEC));
    if (!fd.isValid()) {
        return folder + ": cannot create a file there: " + errnoText(errno);
    }
    file.set(name.data());
    // Incompressible-ish data, so a compressing filesystem cannot fake the reads.
    std::vector<char> chunk(1 << 20);
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    for (char &c : chunk) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        c = char(state);
    }
    uint64_t written = 0;
    while (written < bytes) {
        if (cancel.load()) {
            file.remove();
            return "cancelled";
        }
        const size_t piece = size_t(std::min<uint64_t>(chunk.size(), bytes - written));
        chunk[0] = char(written >> 20); // each MiB differs
        const ssize_t done = ::pwrite(fd.get(), chunk.data(), piece, off_t(written));
        if (done <= 0) {
            const std::string reason = errnoText(done < 0 ? errno : EIO);
            file.remove();
            return std::string(name.data()) + ": cannot write: " + reason;
        }
        written += uint64_t(done);
    }
    if (::fdatasync(fd.get()) != 0) {
        const std::string reason = errnoText(errno);
        file.remove();
        return std::string(name.data()) + ": cannot flush: " + reason;
    }
    struct stat st;
    if (::fstat(fd.get(), &st) == 0) {
        (void)evictAndSettle(fd.get(), st);
    }
    return {};
}

UniqueFd openForReading(const std::string &path, struct stat &st, std::string &error)
{
    int errorCode = 0;
    std::string errorText;
    UniqueFd fd(openRegularFile(AT_FDCWD, path.c_str(), false, st, errorCode, errorText));
    if (!fd.isValid()) {
        error = path + ": " + errorText;
    }
    // openRegularFile opens non-blocking; reads of regular files ignore that.
    return fd;
}

UniqueFd openExperimentFile(const ScratchFile &file,
                            const char *prefix,
                            Recorder &recorder,
                            const std::atomic<bool> &cancel,
                            TemporaryFile &temporary,
                            struct stat &st,
                            std::string &path,
                            std::string &error)
{
    path = file.path;
    if (path.empty()) {
        recorder.event("Creating a " + formatBytes(file.size).toStdString() + " file in " + file.folder);
        const std::string problem = createScratchFile(file.folder, prefix, file.size, cancel, temporary);
        if (!problem.empty()) {
            if (!cancel.load()) {
                error = problem;
            }
            return {};
        }
        path = temporary.path();
    }
    UniqueFd fd = openForReading(path, st, error);
    if (!fd.isValid()) {
        return {};
    }
    // These experiments measure what is cached: where the kernel will not say
    // (mincore would then claim every page), no figure would be true.
    const Residency residency = residencyOfDescriptor(fd.get(), st);
    if (residency.hidden) {
        error = path + ": the kernel hides which of its pages are cached from this user (" + residency.hiddenReason
            + "), so the experiment could not tell cold from warm; use a file of your own";
        return {};
    }
    return fd;
}

uint64_t evictAndSettle(int fd, const struct stat &st)
{
    EvictOptions options;
    options.flushDirtyFirst = true;
    (void)evictDescriptor(fd, st, options, nullptr);
    uint64_t left = residentPages(fd, st);
    for (int i = 0; i < 50 && left > 0; ++i) {
        ::usleep(20000);
        (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        left = residentPages(fd, st);
    }
    return left;
}

uint64_t residentPages(int fd, const struct stat &st)
{
    const Residency residency = residencyOfDescriptor(fd, st);
    return residency.known() ? residency.resident : 0;
}

FilesPages pagesOf(const std::vector<std::string> &paths)
{
    FilesPages total;
    for (const std::string &path : paths) {
        struct stat st;
        std::string error;
        const UniqueFd fd = openForReading(path, st, error);
        if (fd.isValid()) {
            // A file being written grows between the stat and the count.
            const uint64_t pages = pagesFor(uint64_t(st.st_size));
            total.resident += std::min(residentPages(fd.get(), st), pages);
            total.pages += pages;
        }
    }
    return total;
}

void evictAll(const std::vector<std::string> &paths)
{
    for (const std::string &path : paths) {
        struct stat st;
        std::string error;
        const UniqueFd fd = openForReading(path, st, error);
        if (fd.isValid()) {
            (void)evictAndSettle(fd.get(), st);
        }
    }
}

double monotonicSeconds()
{
    struct timespec now;
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return double(now.tv_sec) + double(now.tv_nsec) / 1e9;
}

TimedRead timedSequentialRead(int fd, uint64_t bufferSize, const std::atomic<bool> &cancel)
{
    TimedRead result;
    std::vector<char> buffer(size_t(std::max<uint64_t>(bufferSize, 4096)));
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        if (cancel.load()) {
            result.cancelled = true;
            break;
        }
        const ssize_t done = ::pread(fd, buffer.data(), buffer.size(), off_t(result.bytes));
        if (done < 0) {
            if (errno == EINTR) {
                continue;
            }
            result.error = errno;
            break;
        }
        if (done == 0) {
            break;
        }
        result.bytes += uint64_t(done);
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

std::string utcNowIso()
{
    const std::time_t now = std::time(nullptr);
    struct tm utc;
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

bool sleepUnlessCancelled(int milliseconds, const std::atomic<bool> &cancel)
{
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(milliseconds);
    while (std::chrono::steady_clock::now() < end) {
        if (cancel.load()) {
            return true;
        }
        ::usleep(5000);
    }
    return cancel.load();
}

} // namespace Cachescope::Experiments
