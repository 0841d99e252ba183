// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 4. Dirty pages and writeback: write without syncing, watch Dirty and
// Writeback (system-wide and the file's own, from cachestat) rise and drain,
// then fsync and sync with the time each takes.

#include "engines.h"
#include "experimentsupport.h"

#include "residency.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

namespace Cachescope::Experiments
{

QJsonObject dirtySettings(const std::string &procRoot)
{
    static const char *const names[] =
        {"dirty_ratio", "dirty_background_ratio", "dirty_bytes", "dirty_background_bytes", "dirty_expire_centisecs", "dirty_writeback_centisecs"};
    QJsonObject settings;
    for (const char *name : names) {
        std::ifstream stream(procRoot + "/sys/vm/" + name);
        double value = 0;
        if (stream >> value) {
            settings.insert(QLatin1String(name), value);
        }
    }
    return settings;
}

namespace
{

class WritebackExperiment : public Engine
{
public:
    explicit WritebackExperiment(const WritebackParameters &parameters)
        : Engine("writeback")
        , m_parameters(parameters)
    {
    }

private:
    QJsonObject parametersJson() const override
    {
        const WritebackParameters &p = m_parameters;
        return QJsonObject{
            {QStringLiteral("folder"), QString::fromStdString(p.file.folder)},
            {QStringLiteral("size"), double(p.file.size)},
            {QStringLiteral("step"), double(p.step)},
            {QStringLiteral("wait"), p.waitSeconds},
            {QStringLiteral("drain_timeout"), p.drainTimeoutSeconds},
            {QStringLiteral("runs"), p.runs},
        };
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const WritebackParameters &p = m_parameters;
        result.details.insert(QStringLiteral("vm_settings"), dirtySettings());
        if (p.step == 0) {
            result.error = "the write step must be more than 0 bytes";
            return;
        }
        const std::string problem = checkScratchFolder(p.file.folder, p.file.size);
        if (!problem.empty()) {
            result.error = problem;
            return;
        }
        VariantResult v;
        v.name = "write, wait, fsync, sync";
        for (int run = 0; run < p.runs && !cancel.load(); ++run) {
            if (!runOnce(v, run, recorder, result, cancel)) {
                break;
            }
        }
        v.computeStatistics();
        result.variants.push_back(std::move(v));
    }

    bool runOnce(VariantResult &v, int run, Recorder &recorder, Result &result, const std::atomic<bool> &cancel)
    {
        const WritebackParameters &p = m_parameters;
        TemporaryFile file;
        std::string pattern = p.file.folder + "/cachescope-writeback-XXXXXX";
        const UniqueFd fd(::mkostemp(pattern.data(), O_CLOEXEC));
        if (!fd.isValid()) {
            result.error = p.file.folder + ": cannot create a file there: " + errnoText(errno);
            return false;
        }
        file.set(pattern);
        struct stat st;
        uint64_t written = 0;
        uint64_t peakDirty = 0;
        uint64_t peakWriteback = 0;
        const auto takeSample = [&](const char *phase, std::optional<double> fsyncSeconds = {}, std::optional<double> syncSeconds = {}) {
            ::fstat(fd.get(), &st);
            Sample sample;
            sample.phase = phase;
            sample.fsyncSeconds = fsyncSeconds;
            sample.syncSeconds = syncSeconds;
            addMemInfo(sample);
            addFileResidency(sample, fd.get(), st);
            sample.written = written;
            peakDirty = std::max(peakDirty, sample.fileDirty.value_or(0));
            peakWriteback = std::max(peakWriteback, sample.fileWriteback.value_or(0));
            recorder.sample(sample);
            return sample;
        };
        // The fsync and sync someone asked for while it runs: done at once,
        // timed, and shown in the next sample, so that the plot shows what
        // each did to the dirty pages.
        QJsonArray asked;
        std::string cleanedByAsked; // "fsync" or "sync": a call asked for, which cleans the file too
        // The first call of each kind is the one that wrote the data: its time
        // is the run's figure, whether asked for or made at the end.
        std::optional<double> firstFsync;
        std::optional<double> firstSync;
        const auto serveRequests = [&] {
            if (!p.requests) {
                return true;
            }
            for (const bool isFsync : {true, false}) {
                std::atomic<int> &count = isFsync ? p.requests->fsync : p.requests->sync;
                if (count.exchange(0) == 0) {
                    continue;
                }
                const double at = recorder.seconds();
                const auto start = std::chrono::steady_clock::now();
                const int status = isFsync ? ::fsync(fd.get()) : (::sync(), 0);
                const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                if (status != 0) {
                    result.error = pattern + ": fsync failed: " + errnoText(errno);
                    return false;
                }
                if (cleanedByAsked != "fsync") {
                    cleanedByAsked = isFsync ? "fsync" : "sync";
                }
                std::optional<double> &first = isFsync ? firstFsync : firstSync;
                if (!first) {
                    first = seconds;
                }
                recorder.event(std::string(isFsync ? "fsync" : "sync") + " (asked for) took " + std::to_string(seconds) + " s");
                asked.append(QJsonObject{
                    {QStringLiteral("call"), isFsync ? QStringLiteral("fsync") : QStringLiteral("sync")},
                    {QStringLiteral("at"), at},
                    {QStringLiteral("seconds"), seconds},
                });
                if (isFsync) {
                    takeSample("after fsync (asked)", seconds);
                } else {
                    takeSample("after sync (asked)", std::nullopt, seconds);
                }
            }
            return true;
        };
        recorder.event("Run " + std::to_string(run + 1) + ": writing " + formatBytes(p.file.size).toStdString() + " in steps of "
                       + formatBytes(p.step).toStdString() + ", without syncing");
        std::vector<char> chunk(size_t(std::min<uint64_t>(p.step, 64ULL << 20)), 'w');
        const auto writeStart = std::chrono::steady_clock::now();
        while (written < p.file.size) {
            if (cancel.load()) {
                return false;
            }
            const uint64_t stepEnd = std::min(p.file.size, written + p.step);
            while (written < stepEnd) {
                const size_t piece = size_t(std::min<uint64_t>(chunk.size(), stepEnd - written));
                const ssize_t done = ::pwrite(fd.get(), chunk.data(), piece, off_t(written));
                if (done <= 0) {
                    result.error = pattern + ": cannot write: " + errnoText(done < 0 ? errno : EIO);
                    return false;
                }
                written += uint64_t(done);
            }
            takeSample("writing");
            if (!serveRequests()) {
                return false;
            }
        }
        const double writeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - writeStart).count();
        const Sample afterWrite = takeSample("written");
        recorder.event("Waiting up to " + std::to_string(p.waitSeconds) + " s for the kernel to write back by itself");
        const auto waitStart = std::chrono::steady_clock::now();
        double drainedAfter = -1;
        for (;;) {
            if (sleepUnlessCancelled(std::max(5, p.sampleIntervalMs), cancel)) {
                return false;
            }
            if (!serveRequests()) {
                return false;
            }
            const Sample sample = takeSample("waiting");
            const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - waitStart).count();
            if (sample.fileDirty && *sample.fileDirty == 0 && sample.fileWriteback.value_or(0) == 0) {
                if (!cleanedByAsked.empty()) {
                    recorder.event("The file is clean after the " + cleanedByAsked + " you asked for");
                } else {
                    drainedAfter = waited;
                    recorder.event("The kernel wrote the file back by itself after " + std::to_string(waited) + " s");
                }
                break;
            }
            if (waited >= p.waitSeconds) {
                break;
            }
        }
        const Sample beforeFsync = takeSample("before fsync");
        recorder.event("fsync");
        const auto fsyncStart = std::chrono::steady_clock::now();
        const int fsyncResult = ::fsync(fd.get());
        const double fsyncSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - fsyncStart).count();
        if (fsyncResult != 0) {
            result.error = pattern + ": fsync failed: " + errnoText(errno);
            return false;
        }
        Sample afterFsync = takeSample("after fsync", fsyncSeconds);
        // fsync waits for the file's writeback; poll briefly in case the
        // counters lag behind.
        const auto drainStart = std::chrono::steady_clock::now();
        while ((afterFsync.fileDirty.value_or(0) > 0 || afterFsync.fileWriteback.value_or(0) > 0)
               && std::chrono::duration<double>(std::chrono::steady_clock::now() - drainStart).count() < p.drainTimeoutSeconds) {
            if (sleepUnlessCancelled(std::max(5, p.sampleIntervalMs), cancel)) {
                return false;
            }
            afterFsync = takeSample("draining");
        }
        recorder.event("fsync took " + std::to_string(fsyncSeconds) + " s; sync");
        const auto syncStart = std::chrono::steady_clock::now();
        ::sync();
        const double syncSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - syncStart).count();
        const Sample afterSync = takeSample("after sync", std::nullopt, syncSeconds);
        recorder.event("sync took " + std::to_string(syncSeconds) + " s");

        v.add("write_seconds", "s", writeSeconds);
        v.add("write_throughput", "MiB/s", writeSeconds > 0 ? double(written) / double(1 << 20) / writeSeconds : 0);
        v.add("fsync_seconds", "s", firstFsync.value_or(fsyncSeconds));
        v.add("sync_seconds", "s", firstSync.value_or(syncSeconds));
        v.add("file_dirty_peak", "pages", double(peakDirty));
        const auto number = [](const std::optional<uint64_t> &x) {
            return x ? QJsonValue(double(*x)) : QJsonValue(QJsonValue::Null);
        };
        v.runs.append(QJsonObject{
            {QStringLiteral("run"), run + 1},
            {QStringLiteral("written"), double(written)},
            {QStringLiteral("file_dirty_peak"), double(peakDirty)},
            {QStringLiteral("file_writeback_peak"), double(peakWriteback)},
            {QStringLiteral("file_dirty_after_write"), number(afterWrite.fileDirty)},
            {QStringLiteral("file_dirty_before_fsync"), number(beforeFsync.fileDirty)},
            {QStringLiteral("file_dirty_after_fsync"), number(afterFsync.fileDirty)},
            {QStringLiteral("file_writeback_after_fsync"), number(afterFsync.fileWriteback)},
            {QStringLiteral("dirty_after_write"), number(afterWrite.dirty)},
            {QStringLiteral("dirty_after_sync"), number(afterSync.dirty)},
            {QStringLiteral("drained_by_itself_after"), drainedAfter >= 0 ? QJsonValue(drainedAfter) : QJsonValue(QJsonValue::Null)},
            {QStringLiteral("fsync_seconds"), firstFsync.value_or(fsyncSeconds)},
            {QStringLiteral("sync_seconds"), firstSync.value_or(syncSeconds)},
            {QStringLiteral("fsync_at_end_seconds"), fsyncSeconds},
            {QStringLiteral("sync_at_end_seconds"), syncSeconds},
            {QStringLiteral("asked"), asked},
        });
        if (!afterWrite.fileDirty) {
            result.notes.push_back(
                "This kernel has no cachestat(2) (Linux 6.5+): the file's own dirty and writeback pages are unknown; only the "
                "system-wide Dirty and Writeback are shown.");
        }
        return true;
    }

    WritebackParameters m_parameters;
};

} // namespace

std::unique_ptr<Experiment> makeWritebackExperiment(const WritebackParameters &parameters)
{
    return std::make_unique<WritebackExperiment>(parameters);
}

} // namespace Cachescope::Experiments
