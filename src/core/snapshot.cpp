// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "snapshot.h"

#include "atomicfile.h"
#include "cachescope_core_debug.h"
#include "format.h"
#include "load.h"
#include "pathcodec.h"
#include "uniquefd.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <mutex>

namespace Cachescope
{

namespace
{
constexpr const char *formatName = "cachescope-snapshot";
constexpr int formatVersion = 1;
const char *const hiddenProblem = "residency hidden by the kernel: not stored";
const char *const changedReason = "changed since the snapshot (size or mtime)";

int64_t mtimeNsOf(const struct stat &st)
{
    return int64_t(st.st_mtim.tv_sec) * 1000000000 + int64_t(st.st_mtim.tv_nsec);
}

uint64_t countPages(const std::vector<PageRange> &ranges)
{
    uint64_t pages = 0;
    for (const PageRange &range : ranges) {
        pages += range.count;
    }
    return pages;
}

// The pages of a that are not in b; both sorted and disjoint.
std::vector<PageRange> subtractRanges(const std::vector<PageRange> &a, const std::vector<PageRange> &b)
{
    std::vector<PageRange> out;
    size_t j = 0;
    for (const PageRange &range : a) {
        uint64_t position = range.first;
        const uint64_t end = range.first + range.count;
        while (j < b.size() && b[j].first + b[j].count <= position) {
            ++j;
        }
        for (size_t k = j; position < end && k < b.size() && b[k].first < end; ++k) {
            if (b[k].first > position) {
                out.push_back({position, b[k].first - position});
            }
            position = std::max(position, b[k].first + b[k].count);
        }
        if (position < end) {
            out.push_back({position, end - position});
        }
    }
    return out;
}

// A whole JSON number that fits in 64 bits, or nothing.
std::optional<int64_t> integerOf(const QJsonValue &value)
{
    if (!value.isDouble()) {
        return std::nullopt;
    }
    const qint64 integer = value.toInteger(0);
    if (integer == 0 && value.toDouble() != 0.0) {
        return std::nullopt;
    }
    return integer;
}

QString quotedPath(const std::string &path)
{
    return QLatin1Char('"') + QString::fromStdString(toDisplayUtf8(path)) + QLatin1Char('"');
}
} // namespace

uint64_t SnapshotFile::residentPages() const
{
    return countPages(ranges);
}

uint64_t Snapshot::residentPages() const
{
    uint64_t pages = 0;
    for (const SnapshotFile &file : files) {
        pages += file.residentPages();
    }
    return pages;
}

const SnapshotFile *Snapshot::find(const std::string &path) const
{
    const auto it = std::lower_bound(files.begin(), files.end(), path, [](const SnapshotFile &file, const std::string &wanted) {
        return file.path < wanted;
    });
    return it != files.end() && it->path == path ? &*it : nullptr;
}

void SnapshotControl::cancel()
{
    m_cancelled.store(true);
    const std::lock_guard lock(m_mutex);
    if (m_walker) {
        m_walker->cancel();
    }
}

bool SnapshotControl::isCancelled() const
{
    return m_cancelled.load();
}

uint64_t SnapshotControl::entriesSeen() const
{
    const std::lock_guard lock(m_mutex);
    return m_walker ? m_walker->entriesSeen() : m_entries;
}

uint64_t SnapshotControl::bytesSeen() const
{
    const std::lock_guard lock(m_mutex);
    return m_walker ? m_walker->bytesSeen() : m_bytes;
}

void SnapshotControl::attach(Walker *walker)
{
    const std::lock_guard lock(m_mutex);
    m_walker = walker;
}

void SnapshotControl::detach()
{
    const std::lock_guard lock(m_mutex);
    m_entries = m_walker->entriesSeen();
    m_bytes = m_walker->bytesSeen();
    m_walker = nullptr;
}

uint64_t SnapshotFileDiff::loadedPages() const
{
    return countPages(loaded);
}

uint64_t SnapshotFileDiff::evictedPages() const
{
    return countPages(evicted);
}

Snapshot takeSnapshot(const std::vector<std::string> &roots, WalkOptions options, Walker::ProblemCallback problems, SnapshotControl *control)
{
    Snapshot snapshot;
    snapshot.pageSize = pageSize();
    snapshot.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
    options.action = FileAction::Residency;
    options.histogramBuckets = 0;
    options.reportDirectories = false;

    std::mutex mutex;
    const auto report = [&problems](const WalkEntry &entry, int error, const std::string &reason) {
        if (problems) {
            WalkProblem problem;
            problem.root = entry.root;
            problem.path = entry.path();
            problem.kind = entry.kind;
            problem.error = error;
            problem.reason = reason;
            problems(problem);
        }
    };

    Walker walker(options);
    // walk() forgets a cancel() that came before it started: the callbacks
    // pass on one that came since the walker was attached.
    const auto cancelled = [&walker, control] {
        if (control && control->isCancelled()) {
            walker.cancel();
            return true;
        }
        return false;
    };
    walker.setProblemCallback([&problems, &cancelled](const WalkProblem &problem) {
        if (!cancelled() && problems) {
            problems(problem);
        }
    });
    walker.setEntryCallback([&](const WalkEntry &entry) {
        if (entry.kind != EntryKind::File || cancelled()) {
            return;
        }
        if (entry.residency.hidden) {
            // Storing it would store the kernel's lie (or nothing at all).
            report(entry, EPERM, hiddenProblem);
            return;
        }
        if (!entry.residency.ok()) {
            return; // the walker reports its own failures
        }
        SnapshotFile file;
        file.path = entry.path();
        file.size = entry.size;
        file.mtimeNs = entry.mtimeNs;
        const uint64_t pages = pagesFor(entry.size);
        if (entry.residency.resident > 0 && entry.residency.resident >= pages) {
            file.ranges.push_back({0, pages});
        } else if (entry.residency.resident > 0) {
            // Which pages: the walker counted them, now ask for the ranges.
            struct stat st;
            int error = 0;
            std::string errorText;
            const UniqueFd fd = openRegularFile(AT_FDCWD, file.path.c_str(), true, st, error, errorText);
            if (!fd) {
                report(entry, error, errorText);
                return;
            }
            if (uint64_t(st.st_dev) != entry.device || uint64_t(st.st_ino) != entry.inode) {
                report(entry, ESTALE, "replaced while the snapshot was taken: not stored");
                return;
            }
            const ResidentRanges ranges = residentRangesOfDescriptor(fd.get(), st);
            if (ranges.hidden) {
                report(entry, EPERM, hiddenProblem);
                return;
            }
            if (!ranges.ok()) {
                report(entry, ranges.error, ranges.errorText);
                return;
            }
            file.size = uint64_t(std::max<off_t>(st.st_size, 0));
            file.mtimeNs = mtimeNsOf(st);
            file.ranges = ranges.ranges;
        }
        std::lock_guard lock(mutex);
        snapshot.files.push_back(std::move(file));
    });
    if (control) {
        control->attach(&walker);
    }
    if (!control || !control->isCancelled()) {
        (void)walker.walk(roots);
    }
    if (control) {
        control->detach();
    }
    std::sort(snapshot.files.begin(), snapshot.files.end(), [](const SnapshotFile &a, const SnapshotFile &b) {
        return a.path < b.path;
    });
    return snapshot;
}

QByteArray snapshotToJson(const Snapshot &snapshot)
{
    // Written by hand, one file a line: snapshots of big trees stay readable
    // and diffable with text tools.
    std::string out;
    out += "{\"format\":";
    appendJsonString(out, formatName);
    out += ",\"version\":" + std::to_string(formatVersion);
    out += ",\"page_size\":" + std::to_string(snapshot.pageSize);
    out += ",\"created\":";
    appendJsonString(out, snapshot.created.toStdString());
    out += ",\"files\":[";
    bool first = true;
    for (const SnapshotFile &file : snapshot.files) {
        out += first ? "\n{" : ",\n{";
        first = false;
        appendJsonPath(out, file.path);
        out += ",\"size\":" + std::to_string(file.size);
        out += ",\"mtime_ns\":" + std::to_string(file.mtimeNs);
        out += ",\"ranges\":[";
        for (size_t i = 0; i < file.ranges.size(); ++i) {
            out += i ? ",[" : "[";
            out += std::to_string(file.ranges[i].first) + ',' + std::to_string(file.ranges[i].count) + ']';
        }
        out += "]}";
    }
    out += "\n]}\n";
    return QByteArray::fromStdString(out);
}

std::optional<Snapshot> snapshotFromJson(const QByteArray &json, QString *error)
{
    const auto fail = [error](const QString &text) -> std::optional<Snapshot> {
        if (error) {
            *error = text;
        }
        return std::nullopt;
    };
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        return fail(QStringLiteral("not valid JSON at byte %1: %2").arg(parseError.offset).arg(parseError.errorString()));
    }
    if (!document.isObject()) {
        return fail(QStringLiteral("the top level is not a JSON object"));
    }
    const QJsonObject root = document.object();
    if (root.value(QLatin1String("format")).toString() != QLatin1String(formatName)) {
        return fail(QStringLiteral("\"format\" is not \"%1\"").arg(QLatin1String(formatName)));
    }
    const std::optional<int64_t> version = integerOf(root.value(QLatin1String("version")));
    if (!version) {
        return fail(QStringLiteral("\"version\" is missing or not an integer"));
    }
    if (*version != formatVersion) {
        return fail(QStringLiteral("unsupported snapshot version %1: this version of Cachescope reads version %2").arg(*version).arg(formatVersion));
    }
    Snapshot snapshot;
    const std::optional<int64_t> page = integerOf(root.value(QLatin1String("page_size")));
    if (!page || *page < 512 || (*page & (*page - 1)) != 0) {
        return fail(QStringLiteral("\"page_size\" must be a power of two of at least 512"));
    }
    snapshot.pageSize = uint64_t(*page);
    const QJsonValue created = root.value(QLatin1String("created"));
    if (!created.isString()) {
        return fail(QStringLiteral("\"created\" is missing or not a string"));
    }
    snapshot.created = created.toString();
    const QJsonValue files = root.value(QLatin1String("files"));
    if (!files.isArray()) {
        return fail(QStringLiteral("\"files\" is missing or not an array"));
    }
    const QJsonArray fileArray = files.toArray();
    snapshot.files.reserve(size_t(fileArray.size()));
    for (qsizetype i = 0; i < fileArray.size(); ++i) {
        const QString where = QStringLiteral("files[%1]").arg(i);
        if (!fileArray.at(i).isObject()) {
            return fail(where + QStringLiteral(": not an object"));
        }
        const QJsonObject object = fileArray.at(i).toObject();
        SnapshotFile file;
        const QJsonValue path = object.value(QLatin1String("path"));
        if (!path.isString() || path.toString().isEmpty()) {
            return fail(where + QStringLiteral(": \"path\" is missing or not a non-empty string"));
        }
        file.path = path.toString().toStdString();
        if (object.contains(QLatin1String("path_base64"))) {
            const QJsonValue encoded = object.value(QLatin1String("path_base64"));
            const std::optional<std::string> bytes = encoded.isString() ? base64Decode(encoded.toString().toStdString()) : std::nullopt;
            if (!bytes || bytes->empty()) {
                return fail(where + QStringLiteral(": \"path_base64\" is not valid base64"));
            }
            file.path = *bytes;
        }
        const QString named = where + QStringLiteral(" (") + quotedPath(file.path) + QStringLiteral(")");
        const std::optional<int64_t> size = integerOf(object.value(QLatin1String("size")));
        if (!size || *size < 0) {
            return fail(named + QStringLiteral(": \"size\" must be a non-negative integer"));
        }
        file.size = uint64_t(*size);
        const std::optional<int64_t> mtime = integerOf(object.value(QLatin1String("mtime_ns")));
        if (!mtime) {
            return fail(named + QStringLiteral(": \"mtime_ns\" must be an integer"));
        }
        file.mtimeNs = *mtime;
        const QJsonValue ranges = object.value(QLatin1String("ranges"));
        if (!ranges.isArray()) {
            return fail(named + QStringLiteral(": \"ranges\" is missing or not an array"));
        }
        const uint64_t pages = (file.size + snapshot.pageSize - 1) / snapshot.pageSize;
        uint64_t previousEnd = 0;
        const QJsonArray rangeArray = ranges.toArray();
        for (qsizetype r = 0; r < rangeArray.size(); ++r) {
            const QString at = named + QStringLiteral(": range %1").arg(r);
            const QJsonArray pair = rangeArray.at(r).toArray();
            if (!rangeArray.at(r).isArray() || pair.size() != 2) {
                return fail(at + QStringLiteral(" is not a [first, count] pair"));
            }
            const std::optional<int64_t> first = integerOf(pair.at(0));
            const std::optional<int64_t> count = integerOf(pair.at(1));
            if (!first || *first < 0) {
                return fail(at + QStringLiteral(": the first page must be a non-negative integer"));
            }
            if (!count || *count <= 0) {
                return fail(at + QStringLiteral(": the page count must be a positive integer"));
            }
            if (uint64_t(*first) < previousEnd) {
                return fail(at + QStringLiteral(" overlaps the range before it or is out of order"));
            }
            if (uint64_t(*count) > pages || uint64_t(*first) > pages - uint64_t(*count)) {
                return fail(at + QStringLiteral(" goes past the end of the file (%1 pages)").arg(pages));
            }
            previousEnd = uint64_t(*first) + uint64_t(*count);
            file.ranges.push_back({uint64_t(*first), uint64_t(*count)});
        }
        snapshot.files.push_back(std::move(file));
    }
    std::sort(snapshot.files.begin(), snapshot.files.end(), [](const SnapshotFile &a, const SnapshotFile &b) {
        return a.path < b.path;
    });
    for (size_t i = 1; i < snapshot.files.size(); ++i) {
        if (snapshot.files[i].path == snapshot.files[i - 1].path) {
            return fail(QStringLiteral("the file %1 is listed twice").arg(quotedPath(snapshot.files[i].path)));
        }
    }
    return snapshot;
}

std::optional<Snapshot> readSnapshotFile(const std::string &path, std::string *error)
{
    const auto fail = [error](std::string reason) -> std::optional<Snapshot> {
        if (error) {
            *error = std::move(reason);
        }
        return std::nullopt;
    };
    // Non-blocking: a FIFO put in its place must not hang the reader.
    const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
    if (!fd) {
        return fail(errnoText(errno));
    }
    struct stat st;
    if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        return fail("not a regular file");
    }
    QByteArray data;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return fail(errnoText(errno));
        }
        if (n == 0) {
            break;
        }
        data.append(buffer, n);
    }
    QString reason;
    std::optional<Snapshot> snapshot = snapshotFromJson(data, &reason);
    if (!snapshot) {
        return fail("not a Cachescope snapshot: " + reason.toStdString());
    }
    return snapshot;
}

bool writeSnapshotFile(const std::string &path, const Snapshot &snapshot, std::string *error)
{
    const QByteArray data = snapshotToJson(snapshot);
    return writeFileAtomically(path, std::string_view(data.constData(), size_t(data.size())), 0644, error);
}

SnapshotDiff diffSnapshots(const Snapshot &first, const Snapshot &second)
{
    SnapshotDiff diff;
    const auto add = [&diff](SnapshotFileDiff &&file) {
        diff.loadedPages += file.loadedPages();
        diff.evictedPages += file.evictedPages();
        diff.files.push_back(std::move(file));
    };
    // Both are sorted by path: one merge pass.
    size_t i = 0;
    size_t j = 0;
    while (i < first.files.size() || j < second.files.size()) {
        SnapshotFileDiff file;
        if (j == second.files.size() || (i < first.files.size() && first.files[i].path < second.files[j].path)) {
            // Gone (or not walked): its cached pages are no longer there.
            file.path = first.files[i].path;
            file.onlyInFirst = true;
            file.evicted = first.files[i++].ranges;
            add(std::move(file));
        } else if (i == first.files.size() || second.files[j].path < first.files[i].path) {
            file.path = second.files[j].path;
            file.onlyInSecond = true;
            file.loaded = second.files[j++].ranges;
            add(std::move(file));
        } else {
            file.path = first.files[i].path;
            file.loaded = subtractRanges(second.files[j].ranges, first.files[i].ranges);
            file.evicted = subtractRanges(first.files[i].ranges, second.files[j].ranges);
            ++i;
            ++j;
            if (!file.loaded.empty() || !file.evicted.empty()) {
                add(std::move(file));
            }
        }
    }
    return diff;
}

uint64_t recordedBytes(const Snapshot &snapshot)
{
    return snapshot.residentPages() * (snapshot.pageSize ? snapshot.pageSize : pageSize());
}

RestoreReport restoreSnapshot(const Snapshot &snapshot, const std::atomic<bool> *cancel, RestoreProgress *progress)
{
    RestoreReport report;
    const uint64_t page = pageSize();
    const uint64_t recordedPage = snapshot.pageSize ? snapshot.pageSize : page;
    // Where the files before this one end, in recorded bytes.
    uint64_t bytesBefore = 0;
    for (const SnapshotFile &file : snapshot.files) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            report.cancelled = true;
            break;
        }
        if (progress) {
            progress->bytesDone.store(bytesBefore, std::memory_order_relaxed);
            progress->filesDone.fetch_add(1, std::memory_order_relaxed);
        }
        const uint64_t fileBytes = file.residentPages() * recordedPage;
        const uint64_t fileStart = bytesBefore;
        bytesBefore += fileBytes;
        if (file.ranges.empty()) {
            continue; // nothing was cached: nothing to bring back
        }
        struct stat st;
        int error = 0;
        std::string errorText;
        // The last name must still be the regular file: a symlink put there since is refused.
        const UniqueFd fd = openRegularFile(AT_FDCWD, file.path.c_str(), true, st, error, errorText);
        if (!fd) {
            report.skipped.push_back({file.path, errorText});
            continue;
        }
        if (uint64_t(std::max<off_t>(st.st_size, 0)) != file.size || mtimeNsOf(st) != file.mtimeNs) {
            // Other data now: the recorded pages would be the wrong ones.
            report.skipped.push_back({file.path, changedReason});
            continue;
        }
        std::string problem;
        bool cancelled = false;
        // Ranges are recorded in the snapshot's pages; load and count them in ours.
        std::vector<PageRange> requested;
        uint64_t rangeStart = fileStart;
        for (const PageRange &range : file.ranges) {
            LoadOptions options;
            options.offset = range.first * recordedPage;
            options.length = range.count * recordedPage;
            options.cancel = cancel;
            if (progress) {
                options.progress = [progress, rangeStart](uint64_t bytesDone) {
                    progress->bytesDone.store(rangeStart + bytesDone, std::memory_order_relaxed);
                };
            }
            rangeStart += options.length;
            const LoadReport load = loadDescriptor(fd.get(), st, options);
            if (load.cancelled) {
                cancelled = true;
                break;
            }
            if (load.truncated || load.error != 0) {
                problem = load.errorText;
                break;
            }
            const uint64_t firstPage = options.offset / page;
            const uint64_t endPage = std::min(pagesFor(options.offset + options.length), pagesFor(file.size));
            if (endPage > firstPage) {
                requested.push_back({firstPage, endPage - firstPage});
            }
        }
        if (cancelled) {
            report.cancelled = true;
            break;
        }
        if (!problem.empty()) {
            report.skipped.push_back({file.path, problem});
            continue;
        }
        for (const PageRange &range : requested) {
            const RangeResidency after = residencyOfPageRange(fd.get(), st, range.first, range.count);
            report.pagesRequested += range.count;
            report.pagesResidentAfter += after.known() ? after.resident : 0;
        }
        ++report.filesRestored;
    }
    if (progress && !report.cancelled) {
        progress->bytesDone.store(bytesBefore, std::memory_order_relaxed);
    }
    qCDebug(CACHESCOPE_CORE) << "snapshot restore:" << report.filesRestored << "files restored," << report.skipped.size() << "skipped,"
                             << report.pagesResidentAfter << "of" << report.pagesRequested << "pages resident" << (report.cancelled ? "(cancelled)" : "");
    return report;
}

} // namespace Cachescope
