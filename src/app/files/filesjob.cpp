// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filesjob.h"

#include "filesnaming.h"
#include "kepttree.h"
#include "snapshotcomparison.h"

#include <time.h>

#include <QElapsedTimer>
#include <QThread>

#include <algorithm>
#include <mutex>
#include <unordered_map>

namespace Cachescope::App
{

namespace
{

// The first path component of `directory` below `root`: the child of the root
// this entry counts for. Empty when directory is not below root.
std::string_view childBelow(std::string_view root, std::string_view directory)
{
    size_t prefix = root.size();
    if (root.empty() || root.back() != '/') {
        ++prefix;
    }
    if (directory.size() < prefix) {
        return {};
    }
    std::string_view rest = directory.substr(prefix);
    return rest.substr(0, rest.find('/'));
}

std::string_view parentOf(std::string_view path)
{
    const size_t slash = path.rfind('/');
    if (slash == std::string_view::npos) {
        return {};
    }
    return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
}

struct HeapOrder {
    bool operator()(const TopEntry &a, const TopEntry &b) const
    {
        return a.resident > b.resident; // a min-heap on resident pages
    }
};

} // namespace

// Everything the callbacks collect, behind one mutex: the callbacks run on
// the walker's threads at once.
struct FilesJob::Aggregate {
    std::mutex mutex;
    // Scan: per root, children by name.
    std::vector<std::unordered_map<std::string, FolderChild>> children;
    std::vector<std::string> firstProblem;
    // Scan: per root, its files and folders, for the live refresh to read again.
    std::vector<std::shared_ptr<KeptTree>> kept;
    EvictSummary evict;
    LoadSummary load;
    std::vector<TopEntry> heap;
};

FilesJob::FilesJob(Kind kind, std::vector<std::string> roots, WalkOptions options, QObject *parent)
    : QObject(parent)
    , m_kind(kind)
    , m_roots(std::move(roots))
    , m_aggregate(std::make_unique<Aggregate>())
{
    switch (kind) {
    case Kind::Scan:
    case Kind::Top:
    case Kind::SaveSnapshot:
    case Kind::CompareSnapshot:
    case Kind::RestoreSnapshot:
        options.action = FileAction::Residency;
        break;
    case Kind::Evict:
        options.action = FileAction::Evict;
        break;
    case Kind::Load:
        options.action = FileAction::Load;
        break;
    }
    options.reportDirectories = kind == Kind::Scan;
    options.histogramBuckets = 0;
    m_options = options;
    if (isSnapshotKind()) {
        return; // takeSnapshot() and restoreSnapshot() walk themselves
    }
    m_walker = std::make_unique<Walker>(options);
    m_walker->setEntryCallback([this](const WalkEntry &entry) {
        onEntry(entry);
    });
    m_walker->setProblemCallback([this](const WalkProblem &problem) {
        onProblem(problem);
    });
    m_aggregate->children.resize(m_roots.size());
    m_aggregate->firstProblem.resize(m_roots.size());
    if (kind == Kind::Scan) {
        for (size_t i = 0; i < m_roots.size(); ++i) {
            m_aggregate->kept.push_back(std::make_shared<KeptTree>());
        }
    }
}

FilesJob::~FilesJob()
{
    if (m_thread) {
        cancel();
        m_thread->wait();
        delete m_thread;
    }
}

void FilesJob::start()
{
    Q_ASSERT(!m_thread);
    m_thread = QThread::create([this] {
        run();
    });
    m_thread->setObjectName(QStringLiteral("cachescope-walk"));
    // QThread::finished comes from the worker; connected to this object (on
    // the UI thread) it arrives queued, after run() is done with every member.
    connect(m_thread, &QThread::finished, this, [this] {
        m_finished = true;
        Q_EMIT finished(this);
    });
    m_thread->start(QThread::LowPriority);
}

void FilesJob::cancel()
{
    m_cancelRequested.store(true);
    if (m_walker) {
        m_walker->cancel();
    }
    m_snapshotControl.cancel();
}

bool FilesJob::isSnapshotKind() const
{
    return m_kind == Kind::SaveSnapshot || m_kind == Kind::CompareSnapshot || m_kind == Kind::RestoreSnapshot;
}

uint64_t FilesJob::entriesSeen() const
{
    if (m_kind == Kind::RestoreSnapshot) {
        return m_restoreProgress.filesDone.load(std::memory_order_relaxed);
    }
    return m_walker ? m_walker->entriesSeen() : m_snapshotControl.entriesSeen();
}

uint64_t FilesJob::bytesSeen() const
{
    if (m_kind == Kind::RestoreSnapshot) {
        return m_restoreProgress.bytesDone.load(std::memory_order_relaxed);
    }
    return m_walker ? m_walker->bytesSeen() : m_snapshotControl.bytesSeen();
}

uint64_t FilesJob::bytesExpected() const
{
    return m_kind == Kind::RestoreSnapshot ? m_restoreBytes.load(std::memory_order_relaxed) : expectedBytes;
}

void FilesJob::run()
{
    QElapsedTimer timer;
    timer.start();
    const qint64 startedMs = monotonicNowMs();
    if (isSnapshotKind()) {
        if (!m_cancelRequested.load()) {
            runSnapshot();
        }
        m_result.cancelled = m_cancelRequested.load() || m_snapshotControl.isCancelled() || snapshot.restore.cancelled;
        elapsedMs = timer.elapsed();
        return;
    }
    if (!m_cancelRequested.load()) {
        // This thread's CPU time: all of a one-thread walk's (the live refresh's budget).
        timespec before{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &before);
        m_result = m_walker->walk(m_roots);
        timespec after{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &after);
        walkThreadCpuNs = (qint64(after.tv_sec) - qint64(before.tv_sec)) * 1000000000 + (after.tv_nsec - before.tv_nsec);
    }
    // walk() clears an earlier cancel() when it starts: the flag here catches
    // a cancel that came before the walk got going.
    m_result.cancelled = m_result.cancelled || m_cancelRequested.load();
    elapsedMs = timer.elapsed();

    Aggregate &a = *m_aggregate;
    switch (m_kind) {
    case Kind::Scan:
        for (size_t i = 0; i < m_roots.size(); ++i) {
            FolderScan scan;
            scan.root = m_roots[i];
            scan.cancelled = m_result.cancelled;
            if (i < m_result.perRoot.size()) {
                scan.total = m_result.perRoot[i];
            }
            scan.firstProblem = std::move(a.firstProblem[i]);
            scan.elapsedMs = elapsedMs;
            scan.readAtMs = startedMs;
            scan.children.reserve(a.children[i].size());
            for (auto &[name, child] : a.children[i]) {
                scan.children.push_back(std::move(child));
            }
            if (!scan.cancelled) {
                a.kept[i]->finish(scan, startedMs);
                scan.kept = std::move(a.kept[i]);
            }
            scans.push_back(std::move(scan));
        }
        break;
    case Kind::Evict:
        evict = std::move(a.evict);
        evict.total = m_result.total;
        break;
    case Kind::Load:
        load = std::move(a.load);
        load.total = m_result.total;
        break;
    case Kind::Top:
        top = std::move(a.heap);
        std::sort(top.begin(), top.end(), HeapOrder());
        break;
    case Kind::SaveSnapshot:
    case Kind::CompareSnapshot:
    case Kind::RestoreSnapshot:
        break; // runSnapshot()
    }
}

void FilesJob::runSnapshot()
{
    // Files the walk could not record: counted, the first named (the
    // callback runs on the walker's threads).
    const auto problems = [this](const WalkProblem &problem) {
        if (problem.skipped) {
            return; // FIFOs, sockets, devices: no pages to record
        }
        std::lock_guard lock(m_aggregate->mutex);
        if (snapshot.problems++ == 0) {
            snapshot.firstProblem = problem.path + ": " + problem.reason;
        }
    };
    const auto readIn = [this]() -> std::shared_ptr<const Snapshot> {
        std::shared_ptr<const Snapshot> read = snapshotIn;
        if (!read) {
            std::optional<Snapshot> fromFile = readSnapshotFile(snapshotFile, &snapshot.fileError);
            read = fromFile ? std::make_shared<const Snapshot>(std::move(*fromFile)) : nullptr;
        }
        snapshot.pageSize = read ? read->pageSize : 0;
        return read;
    };
    switch (m_kind) {
    case Kind::SaveSnapshot: {
        const Snapshot taken = takeSnapshot(m_roots, m_options, problems, &m_snapshotControl);
        if (m_snapshotControl.isCancelled()) {
            return; // half a walk is no snapshot: nothing is written
        }
        snapshot.files = taken.files.size();
        snapshot.residentPages = taken.residentPages();
        snapshot.pageSize = taken.pageSize;
        (void)writeSnapshotFile(snapshotFile, taken, &snapshot.fileError);
        return;
    }
    case Kind::CompareSnapshot: {
        const std::shared_ptr<const Snapshot> before = readIn();
        if (before && before->pageSize != pageSize()) {
            snapshot.otherPageSize = true;
        }
        if (!before || snapshot.otherPageSize) {
            return;
        }
        const Snapshot now = takeSnapshot(m_roots, m_options, problems, &m_snapshotControl);
        if (!m_snapshotControl.isCancelled()) {
            snapshot.comparison = std::make_shared<const SnapshotComparison>(snapshotFile, before, now, m_roots);
        }
        return;
    }
    case Kind::RestoreSnapshot: {
        const std::shared_ptr<const Snapshot> read = readIn();
        if (!read) {
            return;
        }
        m_restoreBytes.store(recordedBytes(*read));
        snapshot.restore = restoreSnapshot(*read, &m_cancelRequested, &m_restoreProgress);
        std::string common;
        for (const SnapshotFile &file : read->files) {
            if (file.ranges.empty() || !file.path.starts_with('/')) {
                continue;
            }
            common = common.empty() ? folderOf(file.path) : common;
            while (!isAtOrBelow(file.path, common)) {
                common = folderOf(common);
            }
        }
        if (!common.empty()) {
            snapshot.restoredUnder.push_back(common);
        }
        return;
    }
    case Kind::Scan:
    case Kind::Evict:
    case Kind::Load:
    case Kind::Top:
        return; // run()
    }
}

void FilesJob::onEntry(const WalkEntry &entry)
{
    if (m_cancelRequested.load(std::memory_order_relaxed)) {
        m_walker->cancel();
        return;
    }
    Aggregate &a = *m_aggregate;
    const bool isFile = entry.kind == EntryKind::File;

    switch (m_kind) {
    case Kind::Scan: {
        const std::string &root = m_roots[size_t(entry.root)];
        // Kept for the live refresh: every folder (its modification time
        // tells when to walk again) and every file whose residency was read.
        // A file of proc, sysfs and the like has nothing to re-read: never kept, never opened again.
        const bool noPageCache = entry.residency.method == ResidencyMethod::NoPageCache;
        const bool keepFile = isFile && entry.depth > 0 && entry.residency.ok() && !noPageCache && (entry.firstLink || entry.depth == 1);
        if (keepFile || entry.kind == EntryKind::Directory) {
            const std::string path = entry.path();
            std::lock_guard lock(a.mutex);
            KeptTree &kept = *a.kept[size_t(entry.root)];
            if (keepFile) {
                kept.addFile(path,
                             entry.depth == 1 ? entry.name : childBelow(root, entry.directory),
                             entry.inode,
                             entry.device,
                             entry.firstLink,
                             entry.residency);
            } else {
                kept.addDirectory(path, entry.mtimeNs);
            }
        }
        if (entry.depth == 0 || !(isFile || entry.kind == EntryKind::Directory)) {
            return;
        }
        std::lock_guard lock(a.mutex);
        auto &children = a.children[size_t(entry.root)];
        if (entry.depth == 1) {
            FolderChild &child = children[std::string(entry.name)];
            child.name = std::string(entry.name);
            child.isDirectory = !isFile;
            if (isFile) {
                const Residency &r = entry.residency;
                child.size = entry.size;
                // Its size is the kernel's figure, not data: no pages (WalkTotals::noPageCache).
                child.pages = noPageCache ? 0 : pagesFor(entry.size);
                child.noPageCache = noPageCache;
                child.files = 1;
                if (!r.ok()) {
                    child.error = r.errorText;
                } else if (r.hidden) {
                    child.hidden = true;
                    child.hiddenReason = r.hiddenReason;
                    child.hiddenFiles = 1;
                    child.hiddenPages = child.pages;
                } else {
                    child.resident = r.resident;
                    child.dirty = r.dirty;
                    child.detail = r.detail;
                    child.evicted = r.evicted;
                    child.recentlyEvicted = r.recentlyEvicted;
                }
            }
            return;
        }
        if (!isFile || !entry.firstLink) {
            return;
        }
        const std::string_view childName = childBelow(root, entry.directory);
        if (childName.empty()) {
            return;
        }
        FolderChild &child = children[std::string(childName)];
        child.name = std::string(childName);
        child.isDirectory = true;
        if (noPageCache) {
            ++child.files; // in no size or pages, as in the walk's totals
            return;
        }
        child.size += entry.size;
        const uint64_t pages = pagesFor(entry.size);
        child.pages += pages;
        ++child.files;
        const Residency &r = entry.residency;
        if (r.ok() && r.hidden) {
            ++child.hiddenFiles;
            child.hiddenPages += pages;
        } else if (r.ok()) {
            child.resident += r.resident;
            child.dirty += r.dirty;
            child.detail = child.detail || r.detail;
        }
        return;
    }
    case Kind::Evict: {
        if (!isFile || !entry.firstLink) {
            return;
        }
        const EvictReport &report = entry.evict;
        std::lock_guard lock(a.mutex);
        if (report.error != 0) {
            return; // counted by onProblem
        }
        if (report.hidden) {
            ++a.evict.hiddenFiles;
            return;
        }
        a.evict.freedPages += report.freedPages();
        if (report.after > 0 && report.reason == RemainReason::Mapped && keptInMemory.contains({entry.device, entry.inode})) {
            ++a.evict.keptFiles;
            a.evict.keptPages += report.after;
        } else if (report.after > 0) {
            const auto reason = size_t(report.reason);
            ++a.evict.filesByReason[reason];
            a.evict.pagesByReason[reason] += report.after;
        }
        return;
    }
    case Kind::Load: {
        if (!isFile || !entry.firstLink) {
            return;
        }
        const LoadReport &report = entry.load;
        std::lock_guard lock(a.mutex);
        if (report.hidden) {
            ++a.load.hiddenFiles;
        } else if (report.error == 0 && report.after > report.before) {
            a.load.loadedPages += report.after - report.before;
        }
        return;
    }
    case Kind::Top: {
        const Residency &r = entry.residency;
        if (!isFile || !entry.firstLink || !r.known() || r.resident == 0) {
            return;
        }
        std::lock_guard lock(a.mutex);
        if (a.heap.size() >= topCount && a.heap.front().resident >= r.resident) {
            return;
        }
        TopEntry top{entry.path(), entry.size, r.pages, r.resident, r.dirty};
        a.heap.push_back(std::move(top));
        std::push_heap(a.heap.begin(), a.heap.end(), HeapOrder());
        if (a.heap.size() > topCount) {
            std::pop_heap(a.heap.begin(), a.heap.end(), HeapOrder());
            a.heap.pop_back();
        }
        return;
    }
    case Kind::SaveSnapshot:
    case Kind::CompareSnapshot:
    case Kind::RestoreSnapshot:
        return; // no walker of ours
    }
}

void FilesJob::onProblem(const WalkProblem &problem)
{
    Aggregate &a = *m_aggregate;
    std::lock_guard lock(a.mutex);
    const std::string described = problem.path + ": " + problem.reason;
    switch (m_kind) {
    case Kind::Scan: {
        const auto root = size_t(problem.root);
        if (root < a.firstProblem.size() && a.firstProblem[root].empty()) {
            a.firstProblem[root] = described;
        }
        // A file right in the folder that could not be read still gets its
        // row, and so does a FIFO, socket or device there (greyed, never opened).
        const bool special = problem.skipped
            && (problem.kind == EntryKind::Fifo || problem.kind == EntryKind::Socket || problem.kind == EntryKind::CharDevice
                || problem.kind == EntryKind::BlockDevice);
        if ((special || (!problem.skipped && problem.kind == EntryKind::File)) && root < m_roots.size() && parentOf(problem.path) == m_roots[root]) {
            const std::string name = problem.path.substr(problem.path.rfind('/') + 1);
            FolderChild &child = a.children[root][name];
            child.name = name;
            child.notRegular = special;
            child.error = special ? std::string("not a regular file (") + kindName(problem.kind) + "): never opened" : problem.reason;
        }
        break;
    }
    case Kind::Evict:
        if (!problem.skipped) {
            ++a.evict.errors;
            if (a.evict.firstError.empty()) {
                a.evict.firstError = described;
            }
        }
        break;
    case Kind::Load:
        if (!problem.skipped) {
            ++a.load.errors;
            if (a.load.firstError.empty()) {
                a.load.firstError = described;
            }
        }
        break;
    case Kind::Top:
    case Kind::SaveSnapshot:
    case Kind::CompareSnapshot:
    case Kind::RestoreSnapshot:
        break;
    }
}

} // namespace Cachescope::App
