// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 1. Cold read against warm read: evict a file, time a sequential read while
// its pages fill in, then read it again from memory.

#include "engines.h"
#include "experimentsupport.h"

#include "evict.h"
#include "residency.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>

namespace Cachescope::Experiments
{

namespace
{

double mibPerSecond(uint64_t bytes, double seconds)
{
    return seconds > 0 ? double(bytes) / double(1 << 20) / seconds : 0;
}

class ColdReadExperiment : public Engine
{
public:
    ColdReadExperiment(const ColdReadParameters &parameters, const PrivilegedSteps &privileged)
        : Engine("cold-read")
        , m_parameters(parameters)
        , m_privileged(privileged)
    {
    }

private:
    QJsonObject parametersJson() const override
    {
        const ColdReadParameters &p = m_parameters;
        return QJsonObject{
            {QStringLiteral("file"), QString::fromStdString(p.file.path)},
            {QStringLiteral("folder"), QString::fromStdString(p.file.folder)},
            {QStringLiteral("size"), double(p.file.size)},
            {QStringLiteral("runs"), p.runs},
            {QStringLiteral("buffer_size"), double(p.bufferSize)},
            {QStringLiteral("fadvise_variant"), p.fadviseVariant},
            {QStringLiteral("drop_caches_variant"), p.dropCachesVariant},
        };
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const ColdReadParameters &p = m_parameters;
        TemporaryFile temporary;
        std::string path;
        struct stat st;
        const UniqueFd fd = openExperimentFile(p.file, "cachescope-cold-read", recorder, cancel, temporary, st, path, result.error);
        if (!fd.isValid()) {
            return;
        }
        if (isMemoryBackedFilesystem(fd.get())) {
            result.error = path + ": is in memory (tmpfs or ramfs): its pages cannot be evicted, so it cannot be read cold";
            return;
        }
        const uint64_t pages = pagesFor(uint64_t(st.st_size));
        result.details = QJsonObject{
            {QStringLiteral("path"), QString::fromStdString(path)},
            {QStringLiteral("size"), double(st.st_size)},
            {QStringLiteral("pages"), double(pages)},
            {QStringLiteral("created"), !temporary.path().empty()},
        };

        struct Variant {
            const char *name;
            bool wanted;
            bool dropCaches;
        };
        const Variant variants[] = {{"fadvise", p.fadviseVariant, false}, {"drop_caches", p.dropCachesVariant, true}};
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
                recorder.event(std::string(variant.name) + ": run " + std::to_string(run + 1) + " of " + std::to_string(p.runs) + ": evicting");
                if (variant.dropCaches) {
                    std::string error;
                    if (!m_privileged.dropCaches(error)) {
                        v.skipped = true;
                        v.skipReason = "drop_caches failed: " + error;
                        break;
                    }
                } else {
                    (void)evictAndSettle(fd.get(), st);
                }
                const uint64_t residentBeforeCold = residentPages(fd.get(), st);
                recorder.event(std::string(variant.name) + ": run " + std::to_string(run + 1) + ": cold read (" + std::to_string(residentBeforeCold) + " of "
                               + std::to_string(pages) + " pages resident)");
                const auto sampleColdRead = [&] {
                    Sample sample;
                    sample.phase = "cold read";
                    addMemInfo(sample);
                    addFileResidency(sample, fd.get(), st);
                    addFileHistogram(sample, fd.get(), st);
                    recorder.sample(sample);
                };
                // The evicted state first, from here: the sampler thread's
                // first tick may come after the read has begun.
                sampleColdRead();
                TimedRead cold;
                {
                    PeriodicThread sampler(std::chrono::milliseconds(std::max(5, p.sampleIntervalMs)), sampleColdRead);
                    cold = timedSequentialRead(fd.get(), p.bufferSize, cancel);
                }
                if (cold.cancelled) {
                    break;
                }
                if (cold.error) {
                    result.error = path + ": read failed: " + errnoText(cold.error);
                    return;
                }
                // Pages read early in a long cold read may be reclaimed by the
                // kernel before it ends (these machines page out idle file
                // pages on their own); the warm read then reads those from the
                // disk again. Said, not hidden.
                const Residency afterCold = residencyOfDescriptor(fd.get(), st);
                const uint64_t residentAfterCold = afterCold.known() ? afterCold.resident : 0;
                const QJsonValue reclaimedDuringCold = afterCold.known() && afterCold.detail ? QJsonValue(double(afterCold.evicted)) : QJsonValue();
                if (afterCold.known() && afterCold.detail && afterCold.evicted > 0) {
                    recorder.event(std::string(variant.name) + ": run " + std::to_string(run + 1) + ": the kernel reclaimed "
                                   + std::to_string(afterCold.evicted) + " pages of the file during the cold read; the warm read reads them again");
                }
                const TimedRead warm = timedSequentialRead(fd.get(), p.bufferSize, cancel);
                if (warm.cancelled) {
                    break;
                }
                Sample after;
                after.phase = "warm read done";
                addMemInfo(after);
                addFileResidency(after, fd.get(), st);
                addFileHistogram(after, fd.get(), st);
                recorder.sample(after);
                v.add("cold_seconds", "s", cold.seconds);
                v.add("warm_seconds", "s", warm.seconds);
                v.add("cold_throughput", "MiB/s", mibPerSecond(cold.bytes, cold.seconds));
                v.add("warm_throughput", "MiB/s", mibPerSecond(warm.bytes, warm.seconds));
                v.add("cold_warm_ratio", "ratio", warm.seconds > 0 ? cold.seconds / warm.seconds : 0);
                v.runs.append(QJsonObject{
                    {QStringLiteral("run"), run + 1},
                    {QStringLiteral("bytes"), double(cold.bytes)},
                    {QStringLiteral("resident_before_cold"), double(residentBeforeCold)},
                    {QStringLiteral("resident_after_cold"), double(residentAfterCold)},
                    {QStringLiteral("resident_before_warm"), double(residentAfterCold)},
                    {QStringLiteral("reclaimed_during_cold"), reclaimedDuringCold},
                    {QStringLiteral("cold_seconds"), cold.seconds},
                    {QStringLiteral("warm_seconds"), warm.seconds},
                });
                recorder.event(std::string(variant.name) + ": run " + std::to_string(run + 1) + ": cold " + std::to_string(cold.seconds) + " s, warm "
                               + std::to_string(warm.seconds) + " s");
            }
            v.computeStatistics();
            result.variants.push_back(std::move(v));
        }
        if (!temporary.path().empty()) {
            recorder.event("Removing " + temporary.path());
        }
    }

    ColdReadParameters m_parameters;
    PrivilegedSteps m_privileged;
};

} // namespace

std::unique_ptr<Experiment> makeColdReadExperiment(const ColdReadParameters &parameters, const PrivilegedSteps &privileged)
{
    return std::make_unique<ColdReadExperiment>(parameters, privileged);
}

std::optional<uint64_t> readAheadKiB(const std::string &path, const std::string &sysRoot)
{
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0) {
        return std::nullopt;
    }
    const std::string device = std::to_string(major(st.st_dev)) + ':' + std::to_string(minor(st.st_dev));
    const std::string block = sysRoot + "/dev/block/" + device;
    // A partition has no queue of its own: its disk, one level up, has.
    for (const std::string &file : {block + "/queue/read_ahead_kb", block + "/../queue/read_ahead_kb", sysRoot + "/class/bdi/" + device + "/read_ahead_kb"}) {
        std::ifstream stream(file);
        uint64_t value = 0;
        if (stream >> value) {
            return value;
        }
    }
    return std::nullopt;
}

} // namespace Cachescope::Experiments
