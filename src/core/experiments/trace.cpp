// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 6. Where a command's pages come from. The files the command opens are
// recorded (as the cold start does), evicted (a selectively cold cache), and
// the command is run again: held before exec while the privileged helper
// starts recording the kernel's page-cache events for it and its children,
// then let go. Without the helper, the fallback compares the files'
// residency before and after the run: the same pages, without their order.

#include "commandrecording.h"
#include "engines.h"
#include "experimentsupport.h"

#include "evict.h"
#include "residency.h"
#include "trace/traceanalysis.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <ctime>
#include <map>
#include <set>

extern char **environ;

namespace Cachescope::Experiments
{

namespace
{

uint64_t monotonicNs()
{
    struct timespec now;
    ::clock_gettime(CLOCK_MONOTONIC, &now);
    return uint64_t(now.tv_sec) * 1000000000ULL + uint64_t(now.tv_nsec);
}

// The command, forked and waiting before exec until released: tracing can be
// switched on for its pid before it does anything.
class HeldCommand
{
public:
    // False with error set when the pipes or fork failed.
    bool start(const CommandSpec &command, std::string &error)
    {
        int releasePipe[2];
        int execPipe[2];
        if (::pipe2(releasePipe, O_CLOEXEC) != 0) {
            error = "pipe: " + errnoText(errno);
            return false;
        }
        UniqueFd releaseRead(releasePipe[0]);
        m_release.reset(releasePipe[1]);
        if (::pipe2(execPipe, O_CLOEXEC) != 0) {
            error = "pipe: " + errnoText(errno);
            return false;
        }
        m_execError.reset(execPipe[0]);
        UniqueFd execWrite(execPipe[1]);
        // Everything the child needs is made before fork: after it, only
        // async-signal-safe calls (this process may have threads).
        std::vector<char *> arguments;
        arguments.reserve(command.argv.size() + 1);
        for (const std::string &argument : command.argv) {
            arguments.push_back(const_cast<char *>(argument.c_str()));
        }
        arguments.push_back(nullptr);
        const char *program = command.program.c_str();
        const bool showOutput = command.showOutput;
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid < 0) {
            error = "fork: " + errnoText(errno);
            return false;
        }
        if (pid == 0) {
            // Only the parent may hold the release pipe's write end: its
            // closing without a byte must reach the child as end of file.
            ::close(releasePipe[1]);
            // Killed with us, whatever way we end.
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent) {
                ::_exit(127);
            }
            struct sigaction defaultAction = {};
            defaultAction.sa_handler = SIG_DFL;
            for (int signal = 1; signal < NSIG; ++signal) {
                (void)::sigaction(signal, &defaultAction, nullptr);
            }
            sigset_t none;
            sigemptyset(&none);
            (void)::sigprocmask(SIG_SETMASK, &none, nullptr);
            const int null = ::open("/dev/null", O_RDWR);
            if (null >= 0) {
                ::dup2(null, STDIN_FILENO);
                if (!showOutput) {
                    ::dup2(null, STDOUT_FILENO);
                    ::dup2(null, STDERR_FILENO);
                }
            }
            char go = 0;
            ssize_t got;
            do {
                got = ::read(releaseRead.get(), &go, 1);
            } while (got < 0 && errno == EINTR);
            if (got != 1) {
                ::_exit(127); // the parent gave up before letting it go
            }
            ::execve(program, arguments.data(), environ);
            const int failure = errno;
            (void)!::write(execWrite.get(), &failure, sizeof failure);
            ::_exit(127);
        }
        m_child.set(pid);
        return true;
    }

    [[nodiscard]] pid_t pid() const
    {
        return m_child.pid();
    }

    // Lets the command exec. Safe to call once from any thread.
    void release()
    {
        const char go = 1;
        (void)!::write(m_release.get(), &go, 1);
        m_release.reset();
    }

    // After the child ended: the errno of a failed execve, or 0.
    [[nodiscard]] int execErrno()
    {
        int failure = 0;
        return ::read(m_execError.get(), &failure, sizeof failure) == ssize_t(sizeof failure) ? failure : 0;
    }

    ChildGuard &child()
    {
        return m_child;
    }

private:
    ChildGuard m_child; // declared first: destroyed (killed, reaped) last
    UniqueFd m_release;
    UniqueFd m_execError;
};

// A file the command opened, open for the whole experiment: evicted before
// each run, its residency read before and after.
struct WatchedFile {
    std::string path;
    UniqueFd fd;
    struct stat st = {};
    bool hidden = false;
    std::string hiddenReason;
    std::vector<PageRange> before;
};

std::vector<PageRange> residentRanges(WatchedFile &file)
{
    const ResidentRanges ranges = residentRangesOfDescriptor(file.fd.get(), file.st);
    if (ranges.hidden) {
        file.hidden = true;
        file.hiddenReason = ranges.hiddenReason;
    }
    return ranges.known() ? ranges.ranges : std::vector<PageRange>();
}

// The pages the kernel reclaimed since the file was evicted (fadvise removes
// the shadow entries that cachestat counts as evicted); 0 without cachestat.
uint64_t reclaimedPages(const WatchedFile &file)
{
    CachestatCounts counts;
    return cachestatRange(file.fd.get(), 0, 0, counts) == 0 ? counts.evicted : 0;
}

int exitStatusOf(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class TraceExperiment : public Engine
{
public:
    TraceExperiment(const TraceParameters &parameters, const PrivilegedSteps &privileged)
        : Engine("trace")
        , m_parameters(parameters)
        , m_privileged(privileged)
    {
    }

private:
    QJsonObject parametersJson() const override
    {
        const TraceParameters &p = m_parameters;
        return QJsonObject{
            {QStringLiteral("command"), argvJson(p.command)},
            {QStringLiteral("runs"), p.runs},
            {QStringLiteral("timeout"), p.timeoutSeconds},
            {QStringLiteral("force_fallback"), p.forceFallback},
            {QStringLiteral("lesson"), !p.lessonReader.empty()},
        };
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const TraceParameters &p = m_parameters;
        std::vector<std::string> command = p.command;
        TemporaryFile lessonFile;
        if (!p.lessonReader.empty()) {
            // An absolute path: the trace names the file as the lesson reads it.
            char resolved[PATH_MAX];
            const std::string folder = ::realpath(p.traceFolder.c_str(), resolved) ? std::string(resolved) : p.traceFolder;
            recorder.event("Making the lesson's 1 MiB file in " + folder);
            const std::string problem = createScratchFile(folder, "cachescope-lesson", traceLessonFileBytes, cancel, lessonFile);
            if (!problem.empty()) {
                if (!cancel.load()) {
                    result.error = problem;
                }
                return;
            }
            command = traceLessonCommand(p.lessonReader, lessonFile.path());
            result.details.insert(QStringLiteral("lesson_file"), QString::fromStdString(lessonFile.path()));
        }
        if (command.empty()) {
            result.error = "no command given";
            return;
        }
        if (p.runs < 1) {
            result.error = "runs must be at least 1";
            return;
        }
        const std::string program = findProgram(command.front());
        if (program.empty()) {
            result.error = noSuchProgramText(command.front());
            return;
        }
        m_command = {program, command, p.timeoutSeconds, p.showOutput};

        CommandFiles recorded;
        if (!recordCommandFiles(m_command, p.forceMapsRecording, recorded, recorder, result, cancel)) {
            return;
        }
        result.details.insert(QStringLiteral("recording_method"), QString::fromStdString(recorded.method));
        result.details.insert(QStringLiteral("program"), QString::fromStdString(program));
        watch(program, recorded.files, lessonFile.path());

        const bool traced = m_privileged.trace && !p.forceFallback && p.fallbackReason.empty();
        const Trace::Method method = traced ? Trace::Method::Tracefs : Trace::Method::ResidencyDiff;
        result.details.insert(QStringLiteral("method"), QLatin1String(Trace::methodName(method)));
        if (!p.fallbackReason.empty()) {
            result.details.insert(QStringLiteral("fallback_reason"), QString::fromStdString(p.fallbackReason));
        }
        if (!traced) {
            const std::string why = !p.fallbackReason.empty() ? p.fallbackReason
                : p.forceFallback                             ? std::string("The fallback was asked for")
                                                              : std::string("Tracing needs the privileged helper, which was not used");
            result.notes.push_back(why
                                   + ": the pages come from the difference of the files' residency before and after the run (exact pages, no order, "
                                     "no time, nothing of which pages the program asked for, and only the files it opened: not the file system's "
                                     "metadata).");
        }

        VariantResult variant;
        variant.name = Trace::methodName(method);
        for (int run = 1; run <= p.runs && !cancel.load(); ++run) {
            recorder.event("Run " + std::to_string(run) + ": evicting " + std::to_string(m_files.size()) + " files");
            std::optional<Trace::Report> report;
            Trace::Report residencyDiff;
            if (traced) {
                report = tracedRun(residencyDiff, recorder, result, cancel);
            } else {
                report = fallbackRun(recorder, result, cancel);
            }
            if (!report) {
                break;
            }
            report->command = command;
            addHiddenNote(*report);
            addRun(variant, run, *report, traced ? &residencyDiff : nullptr);
            recorder.event("Run " + std::to_string(run) + ": " + std::to_string(report->pagesRead()) + " pages in " + std::to_string(report->extents.size())
                           + " extents of " + std::to_string(report->files.size()) + " files");
            if (run == 1) {
                if (traced) {
                    result.details.insert(QStringLiteral("residency_diff"), Trace::reportToJson(residencyDiff));
                }
                result.trace = std::move(*report);
            }
        }
        variant.computeStatistics();
        result.variants.push_back(std::move(variant));
    }

    // Opens the files to evict and watch: the program, those it opened, the lesson's file.
    void watch(const std::string &program, const std::vector<std::string> &recorded, const std::string &lessonFile)
    {
        std::vector<std::string> paths;
        char resolved[PATH_MAX];
        paths.push_back(::realpath(program.c_str(), resolved) ? resolved : program);
        paths.insert(paths.end(), recorded.begin(), recorded.end());
        if (!lessonFile.empty()) {
            paths.push_back(lessonFile);
        }
        std::set<std::pair<dev_t, ino_t>> seen;
        for (const std::string &path : paths) {
            WatchedFile file;
            file.path = path;
            std::string error;
            file.fd = openForReading(path, file.st, error);
            if (!file.fd.isValid() || !seen.emplace(file.st.st_dev, file.st.st_ino).second) {
                continue;
            }
            m_files.push_back(std::move(file));
        }
    }

    // Evicts every watched file and notes what stayed.
    void evictAll()
    {
        const std::shared_ptr<const MappedFiles> mapped = MappedFiles::scan();
        for (WatchedFile &file : m_files) {
            (void)evictDescriptor(file.fd.get(), file.st, EvictOptions{}, mapped.get());
            file.before = residentRanges(file);
        }
    }

    std::vector<Trace::ResidencyChange> residencyChanges()
    {
        std::vector<Trace::ResidencyChange> changes;
        for (WatchedFile &file : m_files) {
            Trace::ResidencyChange change;
            change.path = file.path;
            change.major = ::major(file.st.st_dev);
            change.minor = ::minor(file.st.st_dev);
            change.inode = uint64_t(file.st.st_ino);
            change.sizeBytes = uint64_t(file.st.st_size);
            change.modifiedNs = int64_t(file.st.st_mtim.tv_sec) * 1000000000LL + file.st.st_mtim.tv_nsec;
            change.before = file.before;
            change.after = residentRanges(file);
            change.reclaimed = file.hidden ? 0 : reclaimedPages(file);
            if (!file.hidden) {
                changes.push_back(std::move(change));
            }
        }
        return changes;
    }

    std::optional<Trace::Report> fallbackRun(Recorder &recorder, Result &result, const std::atomic<bool> &cancel)
    {
        evictAll();
        recorder.event("Running the command");
        const auto start = std::chrono::steady_clock::now();
        int status = 0;
        const std::optional<WaitOutcome> outcome = startAndWait(m_command, status, result, cancel);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (outcome != WaitOutcome::Exited) {
            return std::nullopt;
        }
        Trace::Report report = Trace::residencyDiffReport(residencyChanges());
        report.durationSeconds = seconds;
        report.exitStatus = exitStatusOf(status);
        report.endReason = "exited";
        return report;
    }

    std::optional<Trace::Report> tracedRun(Trace::Report &residencyDiff, Recorder &recorder, Result &result, const std::atomic<bool> &cancel)
    {
        const TraceParameters &p = m_parameters;
        evictAll();
        HeldCommand held;
        std::string error;
        if (!held.start(m_command, error)) {
            result.error = error;
            return std::nullopt;
        }
        recorder.event("Tracing the command");
        uint64_t startNs = 0;
        std::chrono::steady_clock::time_point start;
        std::atomic<bool> released{false};
        // Called by the trace step once the events are being recorded,
        // perhaps from another thread.
        const auto tracingOn = [&] {
            if (released.exchange(true)) {
                return;
            }
            startNs = monotonicNs();
            start = std::chrono::steady_clock::now();
            held.release();
        };
        Trace::Capture capture;
        const int maxSeconds = int(std::ceil(std::max(1.0, p.timeoutSeconds)));
        const bool traced = m_privileged.trace(held.pid(), maxSeconds, tracingOn, cancel, capture, error);
        if (!traced || !released.load() || capture.endReason != "exited") {
            held.child().killNow(); // a deadline, a cancel or a failure: the command ends here
        }
        int status = 0;
        struct rusage usage;
        const WaitOutcome outcome = waitChild(held.child(), 10, cancel, status, usage);
        const double seconds = released.load() ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() : 0;
        if (cancel.load()) {
            return std::nullopt;
        }
        if (!traced) {
            result.error = "tracing failed: " + error;
            return std::nullopt;
        }
        if (const int failure = held.execErrno()) {
            result.error = m_command.program + ": cannot run it: " + errnoText(failure);
            return std::nullopt;
        }
        residencyDiff = Trace::residencyDiffReport(residencyChanges());
        Trace::AnalysisOptions options;
        for (const WatchedFile &file : m_files) {
            options.candidates.push_back(file.path);
        }
        options.startNs = startNs;
        Trace::Report report = Trace::analyzeCapture(capture, options);
        report.durationSeconds = seconds;
        report.exitStatus = outcome == WaitOutcome::Exited && capture.endReason == "exited" ? exitStatusOf(status) : -1;
        if (capture.endReason == "deadline") {
            report.notes.push_back("The command did not end within " + std::to_string(maxSeconds) + " s: it was killed and the trace stops there.");
        } else if (capture.endReason == "event limit") {
            report.notes.push_back("The trace reached the helper's event limit: the command was killed and the trace stops there.");
        }
        return report;
    }

    void addHiddenNote(Trace::Report &report) const
    {
        if (report.method != Trace::Method::ResidencyDiff) {
            return; // the trace sees their pages all the same
        }
        // The files by reason: the reason is nearly always the same one.
        std::map<std::string, std::string> namesByReason;
        size_t hidden = 0;
        for (const WatchedFile &file : m_files) {
            if (file.hidden) {
                std::string &names = namesByReason[file.hiddenReason];
                names += (names.empty() ? "" : ", ") + file.path;
                ++hidden;
            }
        }
        if (hidden == 0) {
            return;
        }
        std::string note = "hidden: the kernel hides the residency of " + std::to_string(hidden) + (hidden == 1 ? " file" : " files")
            + " from this user, so their pages are not in this trace";
        for (const auto &[reason, names] : namesByReason) {
            note.append(" (").append(reason).append("): ").append(names).append(";");
        }
        note.back() = '.';
        report.notes.push_back(std::move(note));
    }

    static void addRun(VariantResult &variant, int run, const Trace::Report &report, const Trace::Report *residencyDiff)
    {
        const uint64_t page = pageSize();
        variant.add("seconds", "s", report.durationSeconds);
        variant.add("pages_read", "pages", double(report.pagesRead()));
        variant.add("bytes_read", "bytes", double(report.pagesRead() * page));
        variant.add("extents", "count", double(report.extents.size()));
        variant.add("files", "count", double(report.files.size()));
        if (report.usageKnown) {
            variant.add("readahead_only_pages", "pages", double(report.pagesReadaheadOnly()));
        }
        QJsonObject runObject{{QStringLiteral("run"), run},
                              {QStringLiteral("exit_status"), report.exitStatus},
                              {QStringLiteral("end_reason"), QString::fromStdString(report.endReason)},
                              {QStringLiteral("lost_events"), double(report.lostEvents)},
                              {QStringLiteral("requests"), double(report.requests.size())}};
        if (residencyDiff) {
            runObject.insert(QStringLiteral("agreement"), agreement(report, *residencyDiff));
        }
        variant.runs.append(runObject);
    }

    // The traced pages against the residency diff of the same run, over the
    // files both name: they agree when the diff has nothing the trace missed,
    // and the trace has nothing the diff lacks beyond what the kernel
    // reclaimed meanwhile.
    static QJsonObject agreement(const Trace::Report &traced, const Trace::Report &diff)
    {
        const std::map<std::string, Trace::PageRangeSet> tracedPages = Trace::pagesByPath(traced);
        const std::map<std::string, Trace::PageRangeSet> diffPages = Trace::pagesByPath(diff);
        uint64_t tracedTotal = 0;
        uint64_t diffTotal = 0;
        uint64_t onlyTraced = 0;
        uint64_t onlyDiff = 0;
        const Trace::PageRangeSet none;
        for (const auto &[path, pages] : tracedPages) {
            const auto other = diffPages.find(path);
            tracedTotal += pages.pages();
            onlyTraced += pages.pagesNotIn(other == diffPages.end() ? none : other->second);
        }
        for (const auto &[path, pages] : diffPages) {
            const auto other = tracedPages.find(path);
            diffTotal += pages.pages();
            onlyDiff += pages.pagesNotIn(other == tracedPages.end() ? none : other->second);
        }
        uint64_t reclaimed = 0;
        for (const Trace::File &file : diff.files) {
            reclaimed += file.pagesDeleted;
        }
        return QJsonObject{{QStringLiteral("traced_pages"), double(tracedTotal)},
                           {QStringLiteral("residency_diff_pages"), double(diffTotal)},
                           {QStringLiteral("only_traced"), double(onlyTraced)},
                           {QStringLiteral("only_residency_diff"), double(onlyDiff)},
                           {QStringLiteral("reclaimed"), double(reclaimed)}};
    }

    TraceParameters m_parameters;
    PrivilegedSteps m_privileged;
    CommandSpec m_command;
    std::vector<WatchedFile> m_files;
};

} // namespace

std::string findTraceLessonReader(std::string *lookedFor)
{
    std::vector<std::string> candidates;
    char self[PATH_MAX];
    const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (length > 0) {
        const std::string exe(self, size_t(length));
        candidates.push_back(exe.substr(0, exe.rfind('/') + 1) + "cachescope-lesson-reader");
    }
    candidates.push_back(CACHESCOPE_LESSON_READER_PATH);
    for (const std::string &candidate : candidates) {
        if (::access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
    }
    if (lookedFor) {
        *lookedFor = "looked for " + candidates.front() + (candidates.size() > 1 ? " and " + candidates.back() : std::string());
    }
    return {};
}

std::vector<std::string> traceLessonCommand(const std::string &reader, const std::string &file)
{
    return {reader, file, "0", std::to_string(traceLessonReadBytes), std::to_string(traceLessonSecondReadOffset), std::to_string(traceLessonReadBytes)};
}

std::unique_ptr<Experiment> makeTraceExperiment(const TraceParameters &parameters, const PrivilegedSteps &privileged)
{
    return std::make_unique<TraceExperiment>(parameters, privileged);
}

} // namespace Cachescope::Experiments
