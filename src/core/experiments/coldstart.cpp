// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 3. A program's cold start with only its own files evicted (the "selectively
// cold cache"): record which files a run opens, evict exactly those, time a
// cold run and a warm one. drop_caches, the usual way, evicts everything
// else too and makes the start slower than users ever see it.

#include "commandrecording.h"
#include "engines.h"
#include "experimentsupport.h"

#include "evict.h"
#include "residency.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace Cachescope::Experiments
{

namespace
{

// Decodes a string as strace prints it ("...", with \" \\ \n \t \NNN \xHH).
std::optional<std::string> straceString(std::string_view text, size_t &position)
{
    if (position >= text.size() || text[position] != '"') {
        return std::nullopt;
    }
    std::string out;
    for (size_t i = position + 1; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            position = i + 1;
            // strace marks a string it cut short with "..." after the quote.
            if (text.substr(position, 3) == "...") {
                return std::nullopt;
            }
            return out;
        }
        if (c != '\\' || i + 1 >= text.size()) {
            out += c;
            continue;
        }
        const char e = text[++i];
        switch (e) {
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case 'r':
            out += '\r';
            break;
        case 'v':
            out += '\v';
            break;
        case 'f':
            out += '\f';
            break;
        case 'x': {
            int value = 0;
            int digits = 0;
            while (digits < 2 && i + 1 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1]))) {
                const char h = text[++i];
                value = value * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                ++digits;
            }
            out += char(value);
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                int value = e - '0';
                for (int digits = 1; digits < 3 && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '7'; ++digits) {
                    value = value * 8 + (text[++i] - '0');
                }
                out += char(value);
            } else {
                out += e;
            }
        }
    }
    return std::nullopt;
}

} // namespace

std::vector<std::string> filesFromStraceLog(const std::string &log, const std::string &workingDirectory)
{
    std::vector<std::string> files;
    std::set<std::string> seen;
    std::map<std::string, std::string> unfinished; // pid -> path of a call cut in two by another thread
    std::istringstream lines(log);
    std::string line;
    while (std::getline(lines, line)) {
        // "PID " prefix with -f (absent when only one process was traced).
        size_t position = 0;
        std::string pid;
        while (position < line.size() && std::isdigit(static_cast<unsigned char>(line[position]))) {
            pid += line[position++];
        }
        while (position < line.size() && line[position] == ' ') {
            ++position;
        }
        std::string_view rest(line);
        rest.remove_prefix(position);
        std::optional<std::string> path;
        if (rest.rfind("<... ", 0) == 0) {
            // "<... openat resumed>) = 3"
            const auto found = unfinished.find(pid);
            if (found == unfinished.end()) {
                continue;
            }
            path = found->second;
            unfinished.erase(found);
        } else {
            const bool isOpenAt = rest.rfind("openat(", 0) == 0;
            const bool isOpen = rest.rfind("open(", 0) == 0;
            const bool isExecve = rest.rfind("execve(", 0) == 0;
            if (!isOpenAt && !isOpen && !isExecve) {
                continue;
            }
            size_t at = rest.find('(') + 1;
            if (isOpenAt) {
                // The directory argument: only AT_FDCWD can be resolved here.
                const size_t comma = rest.find(", ", at);
                if (comma == std::string_view::npos) {
                    continue;
                }
                const std::string_view directory = rest.substr(at, comma - at);
                at = comma + 2;
                size_t probe = at;
                const std::optional<std::string> name = straceString(rest, probe);
                if (!name || (directory != "AT_FDCWD" && (name->empty() || name->front() != '/'))) {
                    continue;
                }
            }
            path = straceString(rest, at);
            if (!path) {
                continue;
            }
            if (rest.find("<unfinished ...>") != std::string_view::npos) {
                unfinished[pid] = *path;
                continue;
            }
        }
        const size_t equals = line.rfind(") = ");
        if (equals == std::string::npos) {
            continue;
        }
        const long value = std::strtol(line.c_str() + equals + 4, nullptr, 10);
        if (value < 0 || line.compare(equals + 4, 1, "-") == 0) {
            continue; // failed: ENOENT and friends
        }
        std::string absolute = path->empty() || path->front() == '/' ? *path : workingDirectory + '/' + *path;
        // Regular files with data only: /proc and /sys files say size 0 and
        // have no page cache; an empty file has nothing to evict either.
        struct stat st;
        if (absolute.empty() || ::stat(absolute.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
            continue;
        }
        if (seen.insert(absolute).second) {
            files.push_back(absolute);
        }
    }
    return files;
}

namespace
{

class ColdStartExperiment : public Engine
{
public:
    ColdStartExperiment(const ColdStartParameters &parameters, const PrivilegedSteps &privileged)
        : Engine("cold-start")
        , m_parameters(parameters)
        , m_privileged(privileged)
    {
    }

private:
    QJsonObject parametersJson() const override
    {
        const ColdStartParameters &p = m_parameters;
        return QJsonObject{
            {QStringLiteral("command"), argvJson(p.command)},
            {QStringLiteral("runs"), p.runs},
            {QStringLiteral("timeout"), p.timeoutSeconds},
            {QStringLiteral("drop_caches_variant"), p.dropCachesVariant},
        };
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const ColdStartParameters &p = m_parameters;
        if (p.command.empty()) {
            result.error = "no command given";
            return;
        }
        const std::string program = findProgram(p.command.front());
        if (program.empty()) {
            result.error = noSuchProgramText(p.command.front());
            return;
        }

        // Recording (a warm run, and it warms the files).
        CommandFiles recorded;
        if (!recordCommandFiles(commandSpec(program), p.forceMapsFallback, recorded, recorder, result, cancel) || cancel.load()) {
            return;
        }
        const std::vector<std::string> &files = recorded.files;
        const std::string &method = recorded.method;
        result.details.insert(QStringLiteral("recording_method"), QString::fromStdString(method));
        result.details.insert(QStringLiteral("program"), QString::fromStdString(program));

        std::vector<ProgramFile> infos;
        for (const std::string &path : files) {
            ProgramFile info;
            info.path = path;
            info.residentWarm = 0;
            info.residentAfterEvict = 0;
            struct stat st;
            std::string error;
            const UniqueFd fd = openForReading(path, st, error);
            if (fd.isValid()) {
                info.size = uint64_t(st.st_size);
                info.pages = pagesFor(info.size);
                const Residency residency = residencyOfDescriptor(fd.get(), st);
                if (residency.hidden) {
                    info.residencyHidden = true;
                    info.hiddenReason = residency.hiddenReason;
                } else if (residency.known()) {
                    info.residentWarm = residency.resident;
                }
            }
            infos.push_back(std::move(info));
        }

        struct Variant {
            const char *name;
            bool wanted;
            bool dropCaches;
        };
        const Variant variants[] = {{"own files (fadvise)", true, false}, {"drop_caches", p.dropCachesVariant, true}};
        for (const Variant &variant : variants) {
            if (!variant.wanted || cancel.load()) {
                continue;
            }
            if (variant.dropCaches && skippedWithoutHelper(result, variant.name, bool(m_privileged.dropCaches), "drop_caches")) {
                continue;
            }
            VariantResult v;
            v.name = variant.name;
            for (int run = 0; run < p.runs && !cancel.load(); ++run) {
                recorder.event(std::string(variant.name) + ": run " + std::to_string(run + 1) + ": evicting");
                if (variant.dropCaches) {
                    std::string error;
                    if (!m_privileged.dropCaches(error)) {
                        v.skipped = true;
                        v.skipReason = "drop_caches failed: " + error;
                        break;
                    }
                } else {
                    evictFiles(infos, run == 0);
                }
                double cold = 0;
                int coldStatus = 0;
                if (!timeRun(program, cold, coldStatus, result, cancel)) {
                    break;
                }
                double warm = 0;
                int warmStatus = 0;
                if (!timeRun(program, warm, warmStatus, result, cancel)) {
                    break;
                }
                v.add("cold_seconds", "s", cold);
                v.add("warm_seconds", "s", warm);
                v.add("io_seconds", "s", cold - warm);
                // For the live plot: each run's times as it ends.
                Sample runTimes;
                runTimes.phase = variant.name;
                runTimes.coldRunSeconds = cold;
                runTimes.warmRunSeconds = warm;
                recorder.liveSample(std::move(runTimes));
                v.runs.append(QJsonObject{{QStringLiteral("run"), run + 1},
                                          {QStringLiteral("cold_seconds"), cold},
                                          {QStringLiteral("warm_seconds"), warm},
                                          {QStringLiteral("cold_exit_status"), coldStatus},
                                          {QStringLiteral("warm_exit_status"), warmStatus}});
                recorder.event(std::string(variant.name) + ": run " + std::to_string(run + 1) + ": cold " + std::to_string(cold) + " s, warm "
                               + std::to_string(warm) + " s");
            }
            v.computeStatistics();
            result.variants.push_back(std::move(v));
        }
        size_t hiddenFiles = 0;
        for (ProgramFile &info : infos) {
            // Never a number where the kernel gave none.
            if (info.residencyHidden) {
                ++hiddenFiles;
                info.residentWarm.reset();
                info.residentAfterEvict.reset();
            }
        }
        if (hiddenFiles > 0) {
            result.notes.push_back("The kernel hides the residency of " + std::to_string(hiddenFiles) + " of the " + std::to_string(infos.size())
                                   + " files from this user (files it does not own and cannot write): they show as hidden, not as numbers. "
                                     "They were still evicted before each cold run, which needs no such right.");
        }
        result.programFiles = std::move(infos);
    }

    void evictFiles(std::vector<ProgramFile> &infos, bool record)
    {
        const std::shared_ptr<const MappedFiles> mapped = record ? MappedFiles::scan() : nullptr;
        for (ProgramFile &info : infos) {
            struct stat st;
            std::string error;
            const UniqueFd fd = openForReading(info.path, st, error);
            if (!fd.isValid()) {
                continue;
            }
            const EvictReport report = evictDescriptor(fd.get(), st, EvictOptions{}, mapped.get());
            if (record) {
                info.residentAfterEvict = report.after;
                info.residencyHidden = info.residencyHidden || report.hidden;
                if (report.after > 0 && !report.hidden) {
                    info.remainReason = remainReasonName(report.reason);
                }
            }
        }
    }

    bool timeRun(const std::string &program, double &seconds, int &exitStatus, Result &result, const std::atomic<bool> &cancel)
    {
        const auto start = std::chrono::steady_clock::now();
        int status = 0;
        const std::optional<WaitOutcome> outcome = startAndWait(commandSpec(program), status, result, cancel);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (outcome != WaitOutcome::Exited) {
            return false;
        }
        exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return true;
    }

    CommandSpec commandSpec(const std::string &program) const
    {
        return {program, m_parameters.command, m_parameters.timeoutSeconds, m_parameters.showOutput};
    }

    ColdStartParameters m_parameters;
    PrivilegedSteps m_privileged;
};

} // namespace

std::unique_ptr<Experiment> makeColdStartExperiment(const ColdStartParameters &parameters, const PrivilegedSteps &privileged)
{
    return std::make_unique<ColdStartExperiment>(parameters, privileged);
}

} // namespace Cachescope::Experiments
