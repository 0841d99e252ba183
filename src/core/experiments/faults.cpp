// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 5. Page faults and kinds of I/O: the same file read with read() in small
// buffers, through stdio (default buffer and a setvbuf one), through mmap and
// with O_DIRECT, cold and warm. Each read runs in a child process so that its
// fault counts (getrusage) are its own.

#include "engines.h"
#include "experimentsupport.h"

#include "residency.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace Cachescope::Experiments
{

namespace
{

enum class Method {
    ReadSmall,
    StdioDefault,
    StdioSetvbuf,
    Mmap,
    Direct,
};

struct MethodInfo {
    Method method;
    const char *name;
};
constexpr MethodInfo methods[] = {
    {Method::ReadSmall, "read"},
    {Method::StdioDefault, "stdio"},
    {Method::StdioSetvbuf, "setvbuf"},
    {Method::Mmap, "mmap"},
    {Method::Direct, "direct"},
};

// What the child measured itself, through the pipe.
struct ChildReport {
    double seconds = 0;
    uint64_t bytes = 0;
    int64_t minorFaults = 0;
    int64_t majorFaults = 0;
    int error = 0;
};

// A page-aligned buffer, touched, so that its faults come before the measurement.
char *touchedBuffer(uint64_t size)
{
    void *memory = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        return nullptr;
    }
    std::memset(memory, 0, size);
    return static_cast<char *>(memory);
}

// Runs in the forked child, which counts only its own faults: it closes its
// descriptors by hand (no UniqueFd), since it leaves with _exit and only what
// it does between the two getrusage calls may cost faults.
[[noreturn]] void childMain(int writeFd, Method method, const std::string &path, const FaultsParameters &p)
{
    ChildReport report;
    char *buffer = touchedBuffer(std::max({p.smallBuffer, p.stdioChunk, p.setvbufSize, p.directBuffer, uint64_t(4096)}));
    char *stdioBuffer = touchedBuffer(std::max<uint64_t>(p.setvbufSize, 4096));
    if (!buffer || !stdioBuffer) {
        report.error = ENOMEM;
        (void)!::write(writeFd, &report, sizeof report);
        ::_exit(1);
    }
    struct rusage before;
    ::getrusage(RUSAGE_SELF, &before);
    const double start = monotonicSeconds();
    volatile unsigned char sink = 0;
    switch (method) {
    case Method::ReadSmall:
    case Method::Direct: {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (method == Method::Direct ? O_DIRECT : 0));
        if (fd < 0) {
            report.error = errno;
            break;
        }
        const size_t size = size_t(method == Method::Direct ? p.directBuffer : p.smallBuffer);
        for (;;) {
            const ssize_t done = ::read(fd, buffer, size);
            if (done < 0) {
                report.error = errno;
                break;
            }
            if (done == 0) {
                break;
            }
            report.bytes += uint64_t(done);
        }
        ::close(fd);
        break;
    }
    case Method::StdioDefault:
    case Method::StdioSetvbuf: {
        FILE *file = std::fopen(path.c_str(), "re");
        if (!file) {
            report.error = errno;
            break;
        }
        if (method == Method::StdioSetvbuf) {
            std::setvbuf(file, stdioBuffer, _IOFBF, size_t(p.setvbufSize));
        }
        size_t done;
        while ((done = std::fread(buffer, 1, size_t(p.stdioChunk), file)) > 0) {
            report.bytes += done;
        }
        if (std::ferror(file)) {
            report.error = EIO;
        }
        std::fclose(file);
        break;
    }
    case Method::Mmap: {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || ::fstat(fd, &st) != 0) {
            report.error = errno;
            break;
        }
        const size_t size = size_t(st.st_size);
        void *map = size ? ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0) : nullptr;
        ::close(fd);
        if (map == MAP_FAILED) {
            report.error = errno;
            break;
        }
        const uint64_t page = pageSize();
        const auto *bytes = static_cast<const unsigned char *>(map);
        for (size_t offset = 0; offset < size; offset += size_t(page)) {
            sink = sink + bytes[offset]; // one read a page: each page is faulted in
        }
        report.bytes = size;
        if (map) {
            ::munmap(map, size);
        }
        break;
    }
    }
    report.seconds = monotonicSeconds() - start;
    struct rusage after;
    ::getrusage(RUSAGE_SELF, &after);
    report.minorFaults = after.ru_minflt - before.ru_minflt;
    report.majorFaults = after.ru_majflt - before.ru_majflt;
    (void)sink;
    (void)!::write(writeFd, &report, sizeof report);
    ::_exit(report.error ? 1 : 0);
}

// Whether this filesystem takes O_DIRECT reads; empty, or why not.
std::string directProblem(const std::string &path, uint64_t bufferSize)
{
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT));
    if (!fd.isValid()) {
        return "the filesystem refuses O_DIRECT: " + errnoText(errno);
    }
    void *buffer = nullptr;
    if (::posix_memalign(&buffer, 4096, size_t(bufferSize)) != 0) {
        return "no memory for an aligned buffer";
    }
    const ssize_t done = ::pread(fd.get(), buffer, size_t(bufferSize), 0);
    const int error = errno;
    std::free(buffer);
    if (done < 0) {
        return "the filesystem refuses O_DIRECT reads: " + errnoText(error);
    }
    return {};
}

class FaultsExperiment : public Engine
{
public:
    explicit FaultsExperiment(const FaultsParameters &parameters)
        : Engine("faults")
        , m_parameters(parameters)
    {
    }

private:
    QJsonObject parametersJson() const override
    {
        const FaultsParameters &p = m_parameters;
        return QJsonObject{
            {QStringLiteral("file"), QString::fromStdString(p.file.path)},
            {QStringLiteral("folder"), QString::fromStdString(p.file.folder)},
            {QStringLiteral("size"), double(p.file.size)},
            {QStringLiteral("small_buffer"), double(p.smallBuffer)},
            {QStringLiteral("stdio_chunk"), double(p.stdioChunk)},
            {QStringLiteral("setvbuf_size"), double(p.setvbufSize)},
            {QStringLiteral("direct_buffer"), double(p.directBuffer)},
            {QStringLiteral("runs"), p.runs},
            {QStringLiteral("cold"), p.cold},
            {QStringLiteral("warm"), p.warm},
        };
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const FaultsParameters &p = m_parameters;
        if (p.smallBuffer == 0 || p.stdioChunk == 0 || p.setvbufSize == 0 || p.directBuffer == 0 || p.directBuffer % 4096 != 0) {
            result.error = "buffer sizes must be more than 0, and the O_DIRECT buffer a multiple of 4096 bytes";
            return;
        }
        TemporaryFile temporary;
        std::string path;
        struct stat st;
        const UniqueFd fd = openExperimentFile(p.file, "cachescope-faults", recorder, cancel, temporary, st, path, result.error);
        if (!fd.isValid()) {
            return;
        }
        const uint64_t pages = pagesFor(uint64_t(st.st_size));
        result.details = QJsonObject{{QStringLiteral("path"), QString::fromStdString(path)},
                                     {QStringLiteral("size"), double(st.st_size)},
                                     {QStringLiteral("pages"), double(pages)},
                                     {QStringLiteral("page_size"), double(pageSize())}};
        const std::string direct = directProblem(path, p.directBuffer);

        for (const MethodInfo &info : methods) {
            for (const bool cold : {true, false}) {
                if ((cold && !p.cold) || (!cold && !p.warm) || cancel.load()) {
                    continue;
                }
                VariantResult v;
                v.name = std::string(info.name) + (cold ? " cold" : " warm");
                v.details.insert(QStringLiteral("method"), QLatin1String(info.name));
                v.details.insert(QStringLiteral("cold"), cold);
                if (info.method == Method::Direct && !direct.empty()) {
                    v.skipped = true;
                    v.skipReason = direct;
                    result.variants.push_back(std::move(v));
                    continue;
                }
                for (int run = 0; run < p.runs && !cancel.load(); ++run) {
                    if (cold) {
                        (void)evictAndSettle(fd.get(), st);
                    } else {
                        (void)timedSequentialRead(fd.get(), 1 << 20, cancel);
                    }
                    const uint64_t residentBefore = residentPages(fd.get(), st);
                    recorder.event(v.name + ": run " + std::to_string(run + 1) + " (" + std::to_string(residentBefore) + " of " + std::to_string(pages)
                                   + " pages resident)");
                    ChildReport report;
                    struct rusage usage = {};
                    if (!runChild(info.method, path, report, usage, result, cancel)) {
                        break;
                    }
                    if (report.error) {
                        v.skipped = true;
                        v.skipReason = std::string(info.name) + ": " + errnoText(report.error);
                        break;
                    }
                    const uint64_t residentAfter = residentPages(fd.get(), st);
                    Sample sample;
                    sample.phase = v.name;
                    addMemInfo(sample);
                    addFileResidency(sample, fd.get(), st);
                    recorder.sample(sample);
                    const double cacheBytes = double(residentAfter > residentBefore ? residentAfter - residentBefore : 0) * double(pageSize());
                    v.add("seconds", "s", report.seconds);
                    v.add("throughput", "MiB/s", report.seconds > 0 ? double(report.bytes) / double(1 << 20) / report.seconds : 0);
                    v.add("minor_faults", "count", double(report.minorFaults));
                    v.add("major_faults", "count", double(report.majorFaults));
                    v.add("cache_bytes_added", "bytes", cacheBytes);
                    v.runs.append(QJsonObject{
                        {QStringLiteral("run"), run + 1},
                        {QStringLiteral("bytes"), double(report.bytes)},
                        {QStringLiteral("resident_before"), double(residentBefore)},
                        {QStringLiteral("resident_after"), double(residentAfter)},
                        {QStringLiteral("minor_faults"), double(report.minorFaults)},
                        {QStringLiteral("major_faults"), double(report.majorFaults)},
                        {QStringLiteral("process_minor_faults"), double(usage.ru_minflt)},
                        {QStringLiteral("process_major_faults"), double(usage.ru_majflt)},
                        {QStringLiteral("seconds"), report.seconds},
                    });
                }
                v.computeStatistics();
                result.variants.push_back(std::move(v));
            }
        }
        result.notes.push_back(
            "Fault counts are the reading child's own (getrusage before and after the read, buffers touched beforehand); "
            "process_minor_faults adds what the fork and exit cost. mmap faults once a page or once per fault-around block (64 KiB by default) "
            "when the page is cached; read() copies from the cache and faults only on its own buffer.");
    }

    bool runChild(Method method, const std::string &path, ChildReport &report, struct rusage &usage, Result &result, const std::atomic<bool> &cancel)
    {
        ChildGuard child;
        const UniqueFd readEnd = forkReportingChild(
            child,
            [&](int writeFd) {
                childMain(writeFd, method, path, m_parameters);
            },
            result.error);
        if (!readEnd) {
            return false;
        }
        int status = 0;
        const WaitOutcome outcome = waitChild(child, 0, cancel, status, usage);
        if (outcome != WaitOutcome::Exited) {
            return false;
        }
        if (::read(readEnd.get(), &report, sizeof report) != sizeof report) {
            result.error = "the reading child ended without a report";
            return false;
        }
        return true;
    }

    FaultsParameters m_parameters;
};

} // namespace

std::unique_ptr<Experiment> makeFaultsExperiment(const FaultsParameters &parameters)
{
    return std::make_unique<FaultsExperiment>(parameters);
}

} // namespace Cachescope::Experiments
