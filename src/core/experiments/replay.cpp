// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// 6. The replay of a trace: read exactly the pages a command's start made the
// kernel read, evicted first, in three orders (as recorded, by file and
// offset, by position on the disk), and check the method as the seed did:
// replayed cold I/O + warm start against a measured cold start.
//
// Exact reads: buffered pread with POSIX_FADV_RANDOM. The kernel then reads
// exactly the pages a read covers (force_page_cache_ra, folios of the
// mapping's minimum order: order 0 on ext4), no readahead window, no async
// readahead marks. O_DIRECT would read the same bytes from the disk but leave
// nothing in the page cache, and the page cache after the replay equal to the
// trace is how a test (and each run here) proves the reads were exact.

#include "engines.h"
#include "experimentsupport.h"

#include "evict.h"
#include "residency.h"
#include "trace/fiemap.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <map>

namespace Cachescope::Experiments
{

namespace
{

enum class FileState {
    Replayed,
    Refused, // changed since the trace: never read
    Skipped, // vanished or cannot be opened
    Unnamed, // the trace could not name it (dev:inode only)
    Metadata, // the file system's own blocks
    NoExtents, // named, but the trace read none of its pages
};

const char *stateName(FileState state)
{
    switch (state) {
    case FileState::Replayed:
        return "replayed";
    case FileState::Refused:
        return "refused";
    case FileState::Skipped:
        return "skipped";
    case FileState::Unnamed:
        return "unnamed";
    case FileState::Metadata:
        return "metadata";
    case FileState::NoExtents:
        return "no extents";
    }
    return "";
}

struct ReplayFile {
    FileState state = FileState::Replayed;
    std::string reason;
    UniqueFd fd;
    struct stat st = {};
    Trace::FileMap map;
    uint64_t tracedPages = 0; // pages of the report's extents
    std::vector<PageRange> expected; // the pages a replay leaves resident: sorted, disjoint
    std::vector<PageRange> stayed; // resident right after this run's eviction (mapped, dirty): not read from the disk
    bool stayedKnown = false;
};

// One pread of the replay.
struct Read {
    int file = 0;
    uint64_t offset = 0;
    uint64_t length = 0;
    std::optional<uint64_t> physical; // device byte of offset (disk order only)
};

struct Order {
    const char *name;
    std::vector<Read> reads;
    uint64_t bytes = 0;
};

// Sorted, disjoint, not adjacent.
std::vector<PageRange> unionOf(std::vector<PageRange> ranges)
{
    std::sort(ranges.begin(), ranges.end(), [](const PageRange &a, const PageRange &b) {
        return a.first < b.first;
    });
    std::vector<PageRange> merged;
    for (const PageRange &range : ranges) {
        if (!merged.empty() && range.first <= merged.back().first + merged.back().count) {
            PageRange &last = merged.back();
            last.count = std::max(last.first + last.count, range.first + range.count) - last.first;
        } else if (range.count > 0) {
            merged.push_back(range);
        }
    }
    return merged;
}

// Pages of a that are not in b (both sorted and disjoint).
uint64_t pagesNotIn(const std::vector<PageRange> &a, const std::vector<PageRange> &b)
{
    uint64_t count = 0;
    size_t j = 0;
    for (const PageRange &range : a) {
        uint64_t at = range.first;
        const uint64_t end = range.first + range.count;
        while (at < end) {
            while (j < b.size() && b[j].first + b[j].count <= at) {
                ++j;
            }
            if (j == b.size() || b[j].first >= end) {
                count += end - at;
                break;
            }
            if (b[j].first > at) {
                count += b[j].first - at;
            }
            at = b[j].first + b[j].count;
        }
    }
    return count;
}

// Appends a read, merged into the previous one when it continues it in the
// same file (and on the disk, where positions are known).
void appendRead(std::vector<Read> &reads, const Read &read)
{
    if (!reads.empty()) {
        Read &last = reads.back();
        const bool continuesFile = last.file == read.file && last.offset + last.length == read.offset;
        const bool continuesDisk = last.physical.has_value() == read.physical.has_value() && (!read.physical || *last.physical + last.length == *read.physical);
        if (continuesFile && continuesDisk) {
            last.length += read.length;
            return;
        }
    }
    reads.push_back(read);
}

QJsonArray readsToJson(const std::vector<Read> &reads)
{
    QJsonArray array;
    for (const Read &read : reads) {
        array.append(QJsonObject{{QStringLiteral("file"), read.file},
                                 {QStringLiteral("offset"), double(read.offset)},
                                 {QStringLiteral("length"), double(read.length)},
                                 {QStringLiteral("physical"), read.physical ? QJsonValue(double(*read.physical)) : QJsonValue()}});
    }
    return array;
}

std::string changes(const Trace::File &traced, const struct stat &st)
{
    std::string text;
    const auto add = [&text](const std::string &change) {
        text += (text.empty() ? "" : ", ") + change;
    };
    if (major(st.st_dev) != traced.major || minor(st.st_dev) != traced.minor) {
        add("device " + std::to_string(traced.major) + ':' + std::to_string(traced.minor) + " is now " + std::to_string(major(st.st_dev)) + ':'
            + std::to_string(minor(st.st_dev)));
    }
    if (uint64_t(st.st_ino) != traced.inode) {
        add("inode " + std::to_string(traced.inode) + " is now " + std::to_string(st.st_ino) + " (replaced by another file)");
    }
    if (uint64_t(st.st_size) != traced.sizeBytes) {
        add("size " + std::to_string(traced.sizeBytes) + " bytes is now " + std::to_string(st.st_size));
    }
    const int64_t modified = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    if (modified != traced.modifiedNs) {
        add("modified since (mtime " + std::to_string(traced.modifiedNs) + " ns is now " + std::to_string(modified) + ")");
    }
    return text;
}

double megabytesPerSecond(uint64_t bytes, double seconds)
{
    return seconds > 0 ? double(bytes) / 1e6 / seconds : 0;
}

class ReplayExperiment : public Engine
{
public:
    ReplayExperiment(const ReplayParameters &parameters, const PrivilegedSteps &privileged)
        : Engine("replay")
        , m_parameters(parameters)
        , m_privileged(privileged)
    {
    }

private:
    QJsonObject parametersJson() const override
    {
        const ReplayParameters &p = m_parameters;
        QJsonArray command;
        for (const std::string &argument : p.report.command) {
            command.append(QString::fromStdString(argument));
        }
        return QJsonObject{
            {QStringLiteral("command"), command},
            {QStringLiteral("runs"), p.runs},
            {QStringLiteral("check_cold_start"), p.checkColdStart},
            {QStringLiteral("timeout"), p.timeoutSeconds},
            {QStringLiteral("drop_caches"), p.dropCaches},
            {QStringLiteral("trace_method"), QString::fromLatin1(Trace::methodName(p.report.method))},
        };
    }

    void execute(Result &result, Recorder &recorder, const std::atomic<bool> &cancel) override
    {
        const ReplayParameters &p = m_parameters;
        if (p.dropCaches && !m_privileged.dropCaches) {
            result.error = "drop_caches needs the privileged helper, which this program cannot reach";
            return;
        }
        recorder.event("Checking the " + std::to_string(p.report.files.size()) + " traced files against what was traced");
        checkFiles(result, recorder);
        std::vector<Order> orders = planOrders(result);
        if (orders.front().reads.empty()) {
            if (result.error.empty()) {
                result.error = p.report.extents.empty() ? "the trace has no extents: nothing to replay"
                                                        : "nothing to replay: every traced file changed, vanished, or could not be named";
            }
            return;
        }
        std::shared_ptr<const MappedFiles> mapped = MappedFiles::scan();
        std::vector<VariantResult> variants(orders.size());
        for (size_t o = 0; o < orders.size(); ++o) {
            variants[o].name = orders[o].name;
        }
        // One untimed pass first: the first reads of a file also read its
        // extent blocks, which posix_fadvise cannot evict, so whichever order
        // came first would pay for them alone.
        VariantResult warmUp;
        bool stopped = !replayOnce(orders.front(), warmUp, -1, mapped.get(), result, recorder, cancel);
        for (int run = 0; run < p.runs && !stopped; ++run) {
            // Orders interleaved in each run and the first one turned, so
            // that neither a drift of the machine (other load, the host's
            // cache) nor going first favours one order.
            for (size_t i = 0; i < orders.size() && !stopped; ++i) {
                const size_t o = (i + size_t(run)) % orders.size();
                stopped = !replayOnce(orders[o], variants[o], run, mapped.get(), result, recorder, cancel);
            }
        }
        // The runs done so far, also when cancelled (the figures are then partial).
        for (VariantResult &v : variants) {
            v.computeStatistics();
            result.variants.push_back(std::move(v));
        }
        if (stopped) {
            return;
        }
        summarise(result);
        if (p.checkColdStart) {
            checkAgainstColdStart(result, recorder, cancel);
        }
    }

    // Every file of the report, checked; the replayable ones opened and held.
    void checkFiles(Result &result, Recorder &recorder)
    {
        const Trace::Report &report = m_parameters.report;
        const uint64_t page = pageSize();
        m_files.clear();
        m_files.resize(report.files.size());
        std::vector<std::vector<PageRange>> tracedRanges(report.files.size());
        for (const Trace::Extent &extent : report.extents) {
            if (extent.file >= 0 && size_t(extent.file) < report.files.size()) {
                m_files[size_t(extent.file)].tracedPages += extent.pageCount;
                tracedRanges[size_t(extent.file)].push_back({extent.firstPage, extent.pageCount});
            }
        }
        QJsonArray filesJson;
        std::map<FileState, uint64_t> leftOutPages;
        bool anyWithoutFiemap = false;
        for (size_t i = 0; i < report.files.size(); ++i) {
            const Trace::File &traced = report.files[i];
            ReplayFile &file = m_files[i];
            const std::string name =
                traced.path.empty() ? std::to_string(traced.major) + ':' + std::to_string(traced.minor) + ':' + std::to_string(traced.inode) : traced.path;
            if (traced.metadata) {
                file.state = FileState::Metadata;
                file.reason =
                    "the file system's own blocks (inode tables, extent blocks): they are read through the block device, which a replay of files cannot do";
            } else if (traced.path.empty()) {
                file.state = FileState::Unnamed;
                file.reason = "the trace could not name this inode: there is no path to read it by";
            } else if (file.tracedPages == 0) {
                file.state = FileState::NoExtents;
            } else {
                int openError = 0;
                std::string openErrorText;
                file.fd = openRegularFile(AT_FDCWD, traced.path.c_str(), false, file.st, openError, openErrorText);
                if (!file.fd.isValid()) {
                    const bool vanished = openError == ENOENT || openError == ENOTDIR;
                    // Something else under the name (a FIFO, a folder) is a change, not an absence.
                    const bool otherKind = openError == EISDIR || openError == EINVAL;
                    file.state = otherKind ? FileState::Refused : FileState::Skipped;
                    file.reason = vanished ? "vanished since the trace (" + openErrorText + ")" : openErrorText;
                } else if (const std::string changed = changes(traced, file.st); !changed.empty()) {
                    file.fd.reset();
                    file.state = FileState::Refused;
                    file.reason = "changed since the trace: " + changed + "; its pages would not be the ones traced";
                } else if (isMemoryBackedFilesystem(file.fd.get())) {
                    file.fd.reset();
                    file.state = FileState::Skipped;
                    file.reason = "is in memory (tmpfs or ramfs): its pages cannot be evicted, so they cannot be read cold";
                } else {
                    const uint64_t filePages = pagesFor(uint64_t(file.st.st_size));
                    for (PageRange &range : tracedRanges[i]) {
                        range.count = range.first >= filePages ? 0 : std::min(range.count, filePages - range.first);
                    }
                    file.expected = unionOf(tracedRanges[i]);
                    file.map = Trace::fileMapOfDescriptor(file.fd.get());
                    anyWithoutFiemap = anyWithoutFiemap || !file.map.supported;
                    (void)::posix_fadvise(file.fd.get(), 0, 0, POSIX_FADV_RANDOM);
                }
            }
            if (file.state != FileState::Replayed && file.state != FileState::NoExtents) {
                leftOutPages[file.state] += file.tracedPages;
            }
            if (file.state == FileState::Refused || file.state == FileState::Skipped) {
                recorder.event(name + ": " + stateName(file.state) + ": " + file.reason);
            }
            QJsonObject json{
                {QStringLiteral("path"), QString::fromStdString(traced.path)},
                {QStringLiteral("name"), QString::fromStdString(name)},
                {QStringLiteral("state"), QString::fromLatin1(stateName(file.state))},
                {QStringLiteral("reason"), QString::fromStdString(file.reason)},
                {QStringLiteral("traced_pages"), double(file.tracedPages)},
            };
            if (file.state == FileState::Replayed) {
                json.insert(QStringLiteral("fiemap"), file.map.supported);
                json.insert(QStringLiteral("physical_extents"), double(file.map.extents.size()));
                if (!file.map.supported) {
                    json.insert(QStringLiteral("fiemap_error"), QString::fromStdString(file.map.errorText));
                }
            }
            filesJson.append(json);
        }
        result.details.insert(QStringLiteral("traced_files"), filesJson);
        result.details.insert(QStringLiteral("page_size"), double(page));
        QJsonObject leftOut;
        for (FileState state : {FileState::Refused, FileState::Skipped, FileState::Unnamed, FileState::Metadata}) {
            leftOut.insert(QString::fromLatin1(stateName(state)), double(leftOutPages[state]));
        }
        result.details.insert(QStringLiteral("pages_left_out"), leftOut);
        if (leftOutPages[FileState::Metadata] + leftOutPages[FileState::Unnamed] > 0) {
            result.notes.push_back("Not replayed: " + std::to_string(leftOutPages[FileState::Metadata]) + " pages of file system metadata and "
                                   + std::to_string(leftOutPages[FileState::Unnamed])
                                   + " pages of inodes the trace could not name. A replay reads files by path; the real cold start also "
                                     "reads these, so the replayed I/O is that much lighter.");
        }
        if (leftOutPages[FileState::Refused] + leftOutPages[FileState::Skipped] > 0) {
            result.notes.push_back("Not replayed: " + std::to_string(leftOutPages[FileState::Refused])
                                   + " pages of files that changed since the trace (refused) and " + std::to_string(leftOutPages[FileState::Skipped])
                                   + " pages of files that vanished or cannot be opened (skipped); each is named in the files list.");
        }
        if (anyWithoutFiemap) {
            result.notes.push_back(
                "Some files are on a file system without FIEMAP: their positions on the disk are unknown, so the disk order reads them "
                "last, in file order.");
        }
    }

    // The three orders' reads, byte ranges clipped to each file.
    std::vector<Order> planOrders(Result &result)
    {
        const Trace::Report &report = m_parameters.report;
        const uint64_t page = pageSize();
        Order recorded{"recorded order", {}, 0};
        for (const Trace::Extent &extent : report.extents) {
            if (extent.file < 0 || size_t(extent.file) >= m_files.size() || m_files[size_t(extent.file)].state != FileState::Replayed) {
                continue;
            }
            const ReplayFile &file = m_files[size_t(extent.file)];
            const uint64_t size = uint64_t(file.st.st_size);
            const uint64_t offset = extent.firstPage * page;
            if (offset >= size || extent.pageCount == 0) {
                continue;
            }
            appendRead(recorded.reads, {extent.file, offset, std::min(extent.pageCount * page, size - offset), std::nullopt});
        }
        Order byFile{"file order", {}, 0};
        Order byDisk{"disk order", {}, 0};
        std::vector<Read> located;
        std::vector<Read> unlocated;
        for (size_t i = 0; i < m_files.size(); ++i) {
            const ReplayFile &file = m_files[i];
            if (file.state != FileState::Replayed) {
                continue;
            }
            const uint64_t size = uint64_t(file.st.st_size);
            for (const PageRange &range : file.expected) {
                const uint64_t offset = range.first * page;
                const uint64_t length = std::min(range.count * page, size - offset);
                appendRead(byFile.reads, {int(i), offset, length, std::nullopt});
                for (const Trace::PhysicalPiece &piece : Trace::physicalPieces(file.map, offset, length)) {
                    (piece.physical ? located : unlocated).push_back({int(i), piece.offset, piece.length, piece.physical});
                }
            }
        }
        std::stable_sort(located.begin(), located.end(), [](const Read &a, const Read &b) {
            return *a.physical < *b.physical;
        });
        for (const Read &read : located) {
            appendRead(byDisk.reads, read);
        }
        for (const Read &read : unlocated) {
            appendRead(byDisk.reads, read);
        }
        if (!unlocated.empty()) {
            uint64_t bytes = 0;
            for (const Read &read : unlocated) {
                bytes += read.length;
            }
            result.notes.push_back(std::to_string(bytes) + " bytes have no known position on the disk (no FIEMAP, a hole, inline or delayed "
                                   "allocation): the disk order reads them last, in file order.");
        }
        QJsonObject plans;
        for (Order *order : {&recorded, &byFile, &byDisk}) {
            for (const Read &read : order->reads) {
                order->bytes += read.length;
            }
            // "recorded_order", "file_order", "disk_order": keys without spaces.
            plans.insert(QString::fromLatin1(order->name).replace(QLatin1Char(' '), QLatin1Char('_')), readsToJson(order->reads));
        }
        result.details.insert(QStringLiteral("reads"), plans);
        result.details.insert(QStringLiteral("bytes"), double(recorded.bytes));
        result.details.insert(QStringLiteral("disk_order_differs"),
                              !std::equal(byFile.reads.begin(), byFile.reads.end(), byDisk.reads.begin(), byDisk.reads.end(), [](const Read &a, const Read &b) {
                                  return a.file == b.file && a.offset == b.offset && a.length == b.length;
                              }));
        return {std::move(recorded), std::move(byFile), std::move(byDisk)};
    }

    // Evicts every replayed file; the pages that stayed (dirty, mapped).
    uint64_t evictAll(const MappedFiles *mapped, std::map<std::string, uint64_t> &stayedBy)
    {
        uint64_t stayed = 0;
        for (ReplayFile &file : m_files) {
            if (file.state != FileState::Replayed) {
                continue;
            }
            const EvictReport report = evictDescriptor(file.fd.get(), file.st, EvictOptions{}, mapped);
            if (!report.hidden && report.after > 0) {
                stayed += report.after;
                stayedBy[remainReasonName(report.reason)] += report.after;
            }
            // Which pages stayed, so that the check after the reads does not
            // take them for pages the replay read.
            ResidentRanges resident = report.after > 0 ? residentRangesOfDescriptor(file.fd.get(), file.st) : ResidentRanges{};
            file.stayedKnown = report.after == 0 || resident.known();
            file.stayed = std::move(resident.ranges);
        }
        return stayed;
    }

    bool replayOnce(const Order &order,
                    VariantResult &variant,
                    int run,
                    const MappedFiles *mapped,
                    Result &result,
                    Recorder &recorder,
                    const std::atomic<bool> &cancel)
    {
        const ReplayParameters &p = m_parameters;
        const std::string label = run < 0 ? std::string(order.name) + ": untimed first pass"
                                          : std::string(order.name) + ": run " + std::to_string(run + 1) + " of " + std::to_string(p.runs);
        std::map<std::string, uint64_t> stayedBy;
        const uint64_t stayed = evictAll(mapped, stayedBy);
        if (p.dropCaches) {
            std::string error;
            if (!m_privileged.dropCaches(error)) {
                result.error = "drop_caches failed: " + error;
                return false;
            }
        }
        if (stayed > 0) {
            std::string why;
            for (const auto &[reason, pages] : stayedBy) {
                why += (why.empty() ? "" : ", ") + std::to_string(pages) + ' ' + reason;
            }
            recorder.event(label + ": " + std::to_string(stayed) + " pages stayed in the cache after eviction (" + why + "): those are not read from the disk");
        }
        recorder.event(label + ": reading " + std::to_string(order.reads.size()) + " ranges, " + formatBytes(order.bytes).toStdString());
        const uint64_t page = pageSize();
        std::atomic<uint64_t> bytesRead{0};
        const auto sampleProgress = [&] {
            Sample sample;
            sample.phase = std::string(order.name) + (run < 0 ? std::string(" first pass") : " run " + std::to_string(run + 1));
            addMemInfo(sample);
            sample.fileResident = bytesRead.load() / page;
            sample.filePages = order.bytes / page;
            recorder.sample(sample);
        };
        sampleProgress();
        std::vector<char> buffer(4 << 20);
        double seconds = 0;
        {
            PeriodicThread sampler(std::chrono::milliseconds(std::max(5, p.sampleIntervalMs)), sampleProgress);
            const auto start = std::chrono::steady_clock::now();
            for (const Read &read : order.reads) {
                const int fd = m_files[size_t(read.file)].fd.get();
                uint64_t done = 0;
                while (done < read.length) {
                    if (cancel.load()) {
                        return false;
                    }
                    const size_t piece = size_t(std::min<uint64_t>(buffer.size(), read.length - done));
                    const ssize_t got = ::pread(fd, buffer.data(), piece, off_t(read.offset + done));
                    if (got < 0 && errno == EINTR) {
                        continue;
                    }
                    if (got <= 0) {
                        result.error = p.report.files[size_t(read.file)].path + ": read at byte " + std::to_string(read.offset + done)
                            + " failed: " + (got < 0 ? errnoText(errno) : std::string("the file ended early"));
                        return false;
                    }
                    done += uint64_t(got);
                    bytesRead.fetch_add(uint64_t(got));
                }
            }
            seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
        sampleProgress();
        // The proof that the reads were exact: what is cached now against the trace.
        uint64_t outside = 0;
        uint64_t missing = 0;
        int hidden = 0;
        int known = 0;
        for (ReplayFile &file : m_files) {
            if (file.state != FileState::Replayed) {
                continue;
            }
            const ResidentRanges resident = residentRangesOfDescriptor(file.fd.get(), file.st);
            if (!resident.known() || !file.stayedKnown) {
                ++hidden;
                continue;
            }
            ++known;
            std::vector<PageRange> explained = file.expected;
            explained.insert(explained.end(), file.stayed.begin(), file.stayed.end());
            outside += pagesNotIn(resident.ranges, unionOf(std::move(explained)));
            missing += pagesNotIn(file.expected, resident.ranges);
        }
        variant.add("seconds", "s", seconds);
        variant.add("throughput", "MB/s", megabytesPerSecond(order.bytes, seconds));
        QJsonObject runJson{
            {QStringLiteral("run"), run + 1},
            {QStringLiteral("seconds"), seconds},
            {QStringLiteral("bytes"), double(order.bytes)},
            {QStringLiteral("reads"), double(order.reads.size())},
            {QStringLiteral("files_hidden"), hidden},
        };
        // Never a number where the kernel gave none.
        const bool anyKnown = known > 0;
        runJson.insert(QStringLiteral("stayed_after_evict"), anyKnown ? QJsonValue(double(stayed)) : QJsonValue());
        runJson.insert(QStringLiteral("pages_outside_trace"), anyKnown ? QJsonValue(double(outside)) : QJsonValue());
        runJson.insert(QStringLiteral("pages_missing"), anyKnown ? QJsonValue(double(missing)) : QJsonValue());
        variant.runs.append(runJson);
        recorder.event(label + ": " + std::to_string(seconds) + " s, " + std::to_string(megabytesPerSecond(order.bytes, seconds)) + " MB/s"
                       + (outside + missing > 0
                              ? "; cached now against the trace: " + std::to_string(outside) + " pages more, " + std::to_string(missing) + " fewer"
                              : ""));
        return true;
    }

    void summarise(Result &result)
    {
        const VariantResult *recorded = result.variant("recorded order");
        const VariantResult *disk = result.variant("disk order");
        const Measurement *recordedSeconds = recorded ? recorded->find("seconds") : nullptr;
        const Measurement *diskSeconds = disk ? disk->find("seconds") : nullptr;
        if (recordedSeconds && diskSeconds && diskSeconds->statistics.mean > 0) {
            result.details.insert(QStringLiteral("disk_order_speedup"), recordedSeconds->statistics.mean / diskSeconds->statistics.mean);
        }
    }

    // The seed's check: a measured cold start (its files evicted, as the
    // cold-start experiment does) against replayed cold I/O + warm start.
    void checkAgainstColdStart(Result &result, Recorder &recorder, const std::atomic<bool> &cancel)
    {
        const ReplayParameters &p = m_parameters;
        if (p.report.command.empty()) {
            result.notes.push_back("The trace names no command: the check against a measured cold start was left out.");
            return;
        }
        ColdStartParameters coldStart;
        coldStart.command = p.report.command;
        coldStart.runs = p.runs;
        coldStart.timeoutSeconds = p.timeoutSeconds;
        coldStart.showOutput = p.showOutput;
        coldStart.dropCachesVariant = p.dropCaches;
        Progress forward;
        forward.event = [&recorder](const Event &event) {
            recorder.event("cold start: " + event.text);
        };
        recorder.event("The check: the command's cold start, its files evicted, against replayed cold I/O + warm start");
        const Result measured = makeColdStartExperiment(coldStart, m_privileged)->run(forward, cancel);
        if (!measured.error.empty()) {
            result.notes.push_back("The check against a measured cold start could not run: " + measured.error);
            return;
        }
        const VariantResult *measuredVariant = measured.variant(p.dropCaches ? "drop_caches" : "own files (fadvise)");
        if (cancel.load() || !measuredVariant || measuredVariant->skipped) {
            return;
        }
        VariantResult v = *measuredVariant;
        v.name = "cold start";
        v.details.insert(QStringLiteral("eviction"), QString::fromStdString(measuredVariant->name));
        const Measurement *cold = v.find("cold_seconds");
        const Measurement *warm = v.find("warm_seconds");
        const Measurement *replayed = result.variant("recorded order")->find("seconds");
        if (cold && warm && replayed) {
            const double predicted = replayed->statistics.mean + warm->statistics.mean;
            const double difference = cold->statistics.mean - predicted;
            result.details.insert(
                QStringLiteral("check"),
                QJsonObject{{QStringLiteral("cold_seconds"), cold->statistics.mean},
                            {QStringLiteral("warm_seconds"), warm->statistics.mean},
                            {QStringLiteral("replayed_seconds"), replayed->statistics.mean},
                            {QStringLiteral("replayed_plus_warm_seconds"), predicted},
                            {QStringLiteral("difference_seconds"), difference},
                            {QStringLiteral("difference_percent"), cold->statistics.mean > 0 ? difference / cold->statistics.mean * 100 : 0.0}});
            recorder.event("The check: cold start " + std::to_string(cold->statistics.mean) + " s against replayed + warm " + std::to_string(predicted) + " s");
        }
        if (measured.programFiles) {
            v.details.insert(QStringLiteral("files_evicted"), double(measured.programFiles->size()));
        }
        for (const std::string &note : measured.notes) {
            result.notes.push_back("Cold start: " + note);
        }
        result.variants.push_back(std::move(v));
    }

    ReplayParameters m_parameters;
    PrivilegedSteps m_privileged;
    std::vector<ReplayFile> m_files; // parallel to the report's files
};

} // namespace

std::unique_ptr<Experiment> makeReplayExperiment(const ReplayParameters &parameters, const PrivilegedSteps &privileged)
{
    return std::make_unique<ReplayExperiment>(parameters, privileged);
}

} // namespace Cachescope::Experiments
