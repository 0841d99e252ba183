// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "liverefresh.h"

#include "cachescope_app_debug.h"
#include "filesjob.h"
#include "filesmodel.h"
#include "filesview.h"
#include "kepttree.h"
#include "residency.h"
#include "uniquefd.h"

#include <QEvent>
#include <QWidget>
#include <QWindow>

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace Cachescope::App
{

namespace
{
// This thread's CPU time: what the refresh's own work costs, not the load of
// other programs on the machine.
qint64 threadCpuNs()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return qint64(now.tv_sec) * 1000000000 + now.tv_nsec;
}
} // namespace

LiveRefresh::LiveRefresh(FilesModel *model, FilesSortProxyModel *proxy, FilesView *view, QWidget *watched, QObject *parent)
    : QObject(parent)
    , m_model(model)
    , m_proxy(proxy)
    , m_view(view)
    , m_watched(watched)
{
    m_timer.setInterval(1000);
    m_allowanceNs = m_budgetShare * double(budgetWindowMs) * 1e6;
    m_creditedAtMs = monotonicNowMs();
    m_loggedAtMs = m_creditedAtMs;
    connect(&m_timer, &QTimer::timeout, this, &LiveRefresh::tick);
    // The panel's own show and hide; its window's are hooked once it has one.
    m_watched->installEventFilter(this);
    updateWatching();
}

LiveRefresh::~LiveRefresh() = default;

void LiveRefresh::setScanStarter(std::function<FilesJob *(const std::vector<std::string> &)> start)
{
    m_startScan = std::move(start);
}

void LiveRefresh::setScanRunning(std::function<bool(const std::string &)> running)
{
    m_scanRunning = std::move(running);
}

LiveRefresh::FileReading LiveRefresh::readFileInto(FilesModel *model, FileNode *n)
{
    FileReading reading;
    if (n->notRegular) {
        return reading; // a FIFO, socket or device: opening it could block or have effects
    }
    if (n->noPageCache && n->known) {
        // A file of proc, sysfs and the like: nothing can change, and opening
        // some has effects (tracefs's trace pauses tracing while open).
        return reading;
    }
    struct stat st;
    int error = 0;
    std::string errorText;
    const UniqueFd fd(openRegularFile(AT_FDCWD, n->path.c_str(), false, st, error, errorText));
    if (!fd.isValid()) {
        model->setFileError(n, QString::fromStdString(errorText));
        return reading;
    }
    // Asked at a file's first read only: a refresh reads the rows in sight
    // every second, and a known file's file system does not change.
    if (!n->known && descriptorKeepsNoPageCache(fd.get())) {
        model->setFileResidency(n, noPageCacheResidency(uint64_t(std::max<off_t>(st.st_size, 0))), nullptr);
        return reading;
    }
    reading.residency = residencyOfDescriptor(fd.get(), st);
    const Histogram histogram = histogramOfDescriptor(fd.get(), st, FilesModel::stripCells);
    // The row's figures and its strip from one reading: the strip's buckets
    // cover the whole file, so their sums are the file's (a page read
    // between the two calls would otherwise show in one and not the other).
    if (reading.residency.ok() && !reading.residency.hidden && histogram.ok() && !histogram.hidden && histogram.windowFirst == 0
        && histogram.pages == reading.residency.pages) {
        reading.residency.resident = std::accumulate(histogram.resident.begin(), histogram.resident.end(), uint64_t(0));
        if (histogram.detail && reading.residency.detail) {
            reading.residency.dirty = std::accumulate(histogram.dirty.begin(), histogram.dirty.end(), uint64_t(0));
            reading.residency.writeback = std::accumulate(histogram.writeback.begin(), histogram.writeback.end(), uint64_t(0));
        }
    }
    model->setFileResidency(n, reading.residency, &histogram);
    reading.read = true;
    reading.inode = uint64_t(st.st_ino);
    reading.device = uint64_t(st.st_dev);
    return reading;
}

void LiveRefresh::readFile(FileNode *n)
{
    shareReading(n, readFileInto(m_model, n));
}

void LiveRefresh::shareReading(const FileNode *n, const FileReading &reading)
{
    if (!reading.read) {
        return;
    }
    // Every kept folder above the file counts it: the folder's own (its
    // rows' figures) and those of the folders around it (its folder's row).
    for (const FileNode *folder = n->parent; folder; folder = folder->parent) {
        if (auto it = m_trees.find(folder->path); it != m_trees.end()) {
            it->second->takeReading(n->path, reading.inode, reading.device, reading.residency);
        }
    }
}

void LiveRefresh::setInterval(int milliseconds)
{
    m_timer.setInterval(std::clamp(milliseconds, 100, 10000));
}

int LiveRefresh::interval() const
{
    return m_timer.interval();
}

void LiveRefresh::setPaused(bool paused)
{
    m_paused = paused;
    updateWatching();
}

void LiveRefresh::setSweepPeriod(qint64 milliseconds)
{
    m_sweepPeriodMs = std::max<qint64>(milliseconds, 100);
}

void LiveRefresh::setCpuBudget(double share)
{
    m_budgetShare = std::clamp(share, 0.0, 1.0);
    m_allowanceNs = std::min(m_allowanceNs, m_budgetShare * double(budgetWindowMs) * 1e6);
}

void LiveRefresh::credit()
{
    const qint64 now = monotonicNowMs();
    const double earned = m_budgetShare * double(now - m_creditedAtMs) * 1e6;
    m_allowanceNs = std::min(m_allowanceNs + earned, m_budgetShare * double(budgetWindowMs) * 1e6);
    m_creditedAtMs = now;
}

void LiveRefresh::charge(qint64 nanoseconds)
{
    nanoseconds = std::max<qint64>(nanoseconds, 0);
    // The debt is bounded by one window: what was spent beyond it (rows in
    // sight at a short interval, a long walk) stops the sweep for a window,
    // not for hours. The counter keeps all of it.
    const double window = m_budgetShare * double(budgetWindowMs) * 1e6;
    m_allowanceNs = std::max(m_allowanceNs - double(nanoseconds), -window);
    m_counters.cpuNs += quint64(nanoseconds);
}

bool LiveRefresh::isWatching() const
{
    if (m_paused || !m_watched || !m_watched->isVisible()) {
        return false;
    }
    const QWidget *window = m_watched->window();
    if (window->isMinimized()) {
        return false;
    }
    // The compositor may say more than the widget (a minimized or unmapped window).
    if (const QWindow *handle = window->windowHandle()) {
        const QWindow::Visibility visibility = handle->visibility();
        if (visibility == QWindow::Hidden || visibility == QWindow::Minimized) {
            return false;
        }
    }
    return true;
}

void LiveRefresh::updateWatching()
{
    if (m_watched) {
        QWidget *window = m_watched->window();
        if (window != m_watchedWindow && window != m_watched) {
            if (m_watchedWindow) {
                m_watchedWindow->removeEventFilter(this);
            }
            m_watchedWindow = window;
            window->installEventFilter(this);
        }
        if (window->windowHandle() && !window->windowHandle()->property("cachescopeWatched").toBool()) {
            window->windowHandle()->setProperty("cachescopeWatched", true);
            connect(window->windowHandle(), &QWindow::visibilityChanged, this, &LiveRefresh::updateWatching);
        }
    }
    const bool watching = isWatching();
    if (watching == m_watching) {
        return;
    }
    m_watching = watching;
    qCDebug(CACHESCOPE_APP) << "live refresh" << (watching ? "runs" : "stops: nobody looks");
    if (watching) {
        m_timer.start();
        // The totals are as old as the time away: bring what shows up to date at once.
        QTimer::singleShot(0, this, &LiveRefresh::tick);
    } else {
        m_timer.stop();
    }
}

bool LiveRefresh::eventFilter(QObject *watched, QEvent *event)
{
    switch (event->type()) {
    case QEvent::Show:
    case QEvent::Hide:
    case QEvent::WindowStateChange:
    case QEvent::ParentChange:
        // Looked at once the event is done: visibility flags change around it.
        QMetaObject::invokeMethod(this, &LiveRefresh::updateWatching, Qt::QueuedConnection);
        break;
    default:
        break;
    }
    return QObject::eventFilter(watched, event);
}

void LiveRefresh::refreshSoon()
{
    if (m_watching) {
        QTimer::singleShot(0, this, &LiveRefresh::tick);
    }
}

void LiveRefresh::refreshFilesShown()
{
    const auto visibleRows = m_view->visibleRows();
    for (const QModelIndex &row : visibleRows) {
        FileNode *n = m_model->node(m_proxy->mapToSource(row));
        if (!n->isDirectory) {
            readFile(n);
            ++m_counters.filesShownRead;
        }
    }
}

std::vector<std::string> LiveRefresh::rootsOnShow()
{
    // Files on show: one open and a few cachestat calls each, read at once.
    // Folders on show: the walk that gives their totals is their own (top
    // level) or their parent's (children of an expanded folder).
    std::set<std::string> roots;
    m_agedRows.clear();
    const auto visibleRows = m_view->visibleRows();
    for (const QModelIndex &row : visibleRows) {
        FileNode *n = m_model->node(m_proxy->mapToSource(row));
        if (!n->isDirectory) {
            readFile(n);
            ++m_counters.filesShownRead;
        } else {
            m_agedRows.push_back(n);
            if (n->parent && !n->parent->parent) {
                roots.insert(n->path);
            }
        }
        if (n->parent && n->parent->parent) {
            roots.insert(n->parent->path);
        }
    }
    return {roots.begin(), roots.end()};
}

void LiveRefresh::tick()
{
    if (!isWatching()) {
        updateWatching();
        return;
    }
    ++m_counters.ticks;
    credit();
    const qint64 started = threadCpuNs();
    const std::vector<std::string> roots = rootsOnShow();
    // Folder rows whose totals are old say so, in words that change with
    // time (before the sweep: it may remove rows).
    for (FileNode *n : m_agedRows) {
        if (totalsAreStale(*n)) {
            m_model->ageChanged(n);
        }
    }
    m_agedRows.clear();
    charge(threadCpuNs() - started);
    sweep(roots, false);
    Q_EMIT refreshed();
    if (m_counters.ticks % 30 == 0) {
        // Its share of a core since the last such line (tools/bench/window reads it).
        const qint64 nowMs = monotonicNowMs();
        const double share = nowMs > m_loggedAtMs ? 100.0 * double(m_counters.cpuNs - m_loggedCpuNs) / (double(nowMs - m_loggedAtMs) * 1e6) : 0.0;
        m_loggedAtMs = nowMs;
        m_loggedCpuNs = m_counters.cpuNs;
        qCDebug(CACHESCOPE_APP).nospace() << "live refresh: " << roots.size() << " folders on show, " << m_counters.keptFilesRead << " kept files and "
                                          << m_counters.filesShownRead << " shown files read, " << m_counters.walksStarted << " walks, oldest total "
                                          << oldestTotalsAgeMs() << " ms old, " << m_counters.cpuNs / 1000000 << " ms CPU (" << share
                                          << " % of a core lately), " << m_counters.slicesCut << " slices cut by the budget";
    }
}

void LiveRefresh::refreshNow()
{
    // Asked for: it runs whatever the budget, and is charged to it.
    credit();
    const qint64 started = threadCpuNs();
    const std::vector<std::string> roots = rootsOnShow();
    m_agedRows.clear();
    charge(threadCpuNs() - started);
    sweep(roots, true);
    Q_EMIT refreshed();
}

void LiveRefresh::sweep(const std::vector<std::string> &roots, bool walkNow)
{
    if (roots != m_lastRoots) {
        // Trees of folders no longer in the list go; those scrolled away stay
        // (walking them again would cost more than keeping them).
        for (auto it = m_trees.begin(); it != m_trees.end();) {
            it = m_model->nodesForPath(it->first).empty() ? m_trees.erase(it) : std::next(it);
        }
        for (auto it = m_changedInLastSlice.begin(); it != m_changedInLastSlice.end();) {
            it = m_trees.count(*it) == 0 ? m_changedInLastSlice.erase(it) : std::next(it);
        }
        m_lastRoots = roots;
    }

    std::vector<std::string> toWalk;
    const qint64 now = monotonicNowMs();
    const qint64 interval = m_timer.interval();
    std::vector<std::pair<std::string, KeptTree *>> kept;
    for (const std::string &root : roots) {
        auto it = m_trees.find(root);
        if (walkNow || it == m_trees.end() || it->second->needsWalk()) {
            if (!m_quietScan && !(m_scanRunning && m_scanRunning(root))) {
                toWalk.push_back(root);
            }
            if (it == m_trees.end()) {
                continue;
            }
        }
        kept.emplace_back(root, it->second.get());
    }
    // Folders whose modification time changed (or whose files went) are
    // walked first: the walk takes from the budget before any slice.
    startWalk(toWalk, walkNow);
    // Who takes from the budget first: trees where the kernel told a change
    // (a file on show whose pages moved, a kept file's that did in the
    // tree's last slice), then the one read longest ago.
    const auto changedLately = [&](const std::string &root) {
        return m_changedInLastSlice.count(root) > 0;
    };
    // A tree left alone for four times the bound goes before them all: one
    // that changes all the time (a build, a log) cannot starve the others.
    const auto starving = [&](const KeptTree &tree) {
        return now - tree.oldestReadMs() > 4 * maxTotalsAgeMs;
    };
    std::stable_sort(kept.begin(), kept.end(), [&](const auto &a, const auto &b) {
        if (starving(*a.second) != starving(*b.second)) {
            return starving(*a.second);
        }
        const bool aFirst = a.second->catchingUp() || changedLately(a.first);
        const bool bFirst = b.second->catchingUp() || changedLately(b.first);
        if (aFirst != bFirst) {
            return aFirst;
        }
        return a.second->oldestReadMs() < b.second->oldestReadMs();
    });

    for (const auto &[root, treePointer] : kept) {
        KeptTree &tree = *treePointer;
        // A slice of the files each tick, so that all of them are read within
        // the sweep period; a tree left alone for longer (scrolled away,
        // window hidden) catches up in a few ticks.
        const bool behind = now - tree.oldestReadMs() > m_sweepPeriodMs + m_sweepPeriodMs / 20 + interval;
        // A file on show whose pages came or went (a drop of caches, a folder
        // read from a shell) says the others may have too: they are read
        // within a few ticks, at most catchUpFilesPerTick a tick (about 40 ms).
        constexpr size_t catchUpFilesPerTick = 2000;
        const bool catchingUp = tree.catchingUp();
        const auto slice = [&](size_t count) {
            const size_t even = size_t((uint64_t(count) * uint64_t(interval) + uint64_t(m_sweepPeriodMs) - 1) / uint64_t(m_sweepPeriodMs));
            if (behind || walkNow) {
                return std::max<size_t>(1, std::max(even, count / 3 + 1));
            }
            if (catchingUp) {
                return std::max<size_t>(1, std::max(even, std::min(count / 3 + 1, catchUpFilesPerTick)));
            }
            return std::max<size_t>(1, even);
        };
        size_t files = tree.fileCount() > 0 ? slice(tree.fileCount()) : 0;
        size_t directories = tree.directoryCount() > 0 ? slice(tree.directoryCount()) : 0;
        // What the budget allows, at the cost measured so far. View > Refresh
        // (walkNow) reads what it asks for.
        // A slice the budget cuts is not made smaller than minimumSlice: the
        // model's update costs as much for one file as for many, so the
        // budget is saved up for a slice worth it.
        constexpr size_t minimumSlice = 64;
        const size_t wanted = files + directories;
        const double affordable = std::max(0.0, m_allowanceNs) / m_nsPerItem;
        if (!walkNow && double(wanted) > affordable) {
            ++m_counters.slicesCut;
            // Never more than the budget can ever save up (its window), or a
            // costly file system would starve the sweep for good.
            const double mostSaved = 0.9 * m_budgetShare * double(budgetWindowMs) * 1e6 / m_nsPerItem;
            const double minimum = std::max(1.0, std::min({double(wanted), double(minimumSlice), mostSaved}));
            const double share = affordable < minimum ? 0.0 : affordable / double(wanted);
            files = size_t(double(files) * share);
            directories = size_t(double(directories) * share);
            if (share > 0 && files + directories == 0) {
                files = std::min<size_t>(1, tree.fileCount());
                directories = files == 0 ? 1 : 0;
            }
        }
        if (files + directories == 0) {
            // Its totals grow older, and say so. The budget is saved up for
            // this tree, first in line: the ones after it wait too.
            break;
        }
        const qint64 started = threadCpuNs();
        const size_t read = tree.rereadNext(files);
        m_counters.keptFilesRead += read;
        const size_t looked = tree.checkNextDirectories(directories);
        const qint64 readingDone = threadCpuNs();
        if (read + looked >= 8) {
            // The cost of a file or folder follows what this machine does now
            // (cold metadata costs more); the model's update below is charged
            // but not counted in it: it costs the same for one file or many.
            const double measured = double(readingDone - started) / double(read + looked);
            m_nsPerItem = std::clamp(0.75 * m_nsPerItem + 0.25 * measured, 200.0, 1e6);
        }
        if (tree.takeChanged()) {
            m_changedInLastSlice.insert(root);
            m_model->applyFolderScan(tree.scan());
        } else {
            m_changedInLastSlice.erase(root);
            m_model->setTotalsReadAt(tree.scan());
        }
        charge(threadCpuNs() - started);
    }
}

void LiveRefresh::startWalk(const std::vector<std::string> &folders, bool walkNow)
{
    if (folders.empty() || !m_startScan) {
        return;
    }
    // A folder that keeps changing (a build under way) is walked again at
    // most a twentieth of the time, and only while the budget has something
    // left (the walk is charged when it ends).
    const qint64 due = std::max<qint64>(m_timer.interval(), 20 * m_lastWalkMs);
    if (!walkNow && ((m_sinceWalk.isValid() && m_sinceWalk.elapsed() < due) || m_allowanceNs <= 0)) {
        return;
    }
    m_quietScan = m_startScan(folders);
    m_sinceWalk.start();
    ++m_counters.walksStarted;
    qCDebug(CACHESCOPE_APP) << "live refresh walks" << folders.size() << "folders again";
}

void LiveRefresh::scanFinished(FilesJob *job)
{
    if (job == m_quietScan) {
        m_quietScan = nullptr;
        m_lastWalkMs = job->elapsedMs;
        // Quiet walks run on one thread, the job's: its CPU clock is the walk's.
        credit();
        charge(job->walkThreadCpuNs);
    }
    for (const FolderScan &scan : job->scans) {
        if (scan.kept) {
            m_trees[scan.root] = scan.kept;
        }
    }
}

bool LiveRefresh::isQuietScan(const FilesJob *job) const
{
    return job && job == m_quietScan;
}

const LiveRefresh::Counters &LiveRefresh::counters() const
{
    return m_counters;
}

qint64 LiveRefresh::oldestTotalsAgeMs() const
{
    qint64 oldest = -1;
    const qint64 now = monotonicNowMs();
    for (const std::string &root : m_lastRoots) {
        if (auto it = m_trees.find(root); it != m_trees.end()) {
            oldest = std::max(oldest, now - it->second->oldestReadMs());
        }
    }
    return oldest;
}

qint64 LiveRefresh::totalsAgeMs(const std::string &folder) const
{
    const auto it = m_trees.find(folder);
    return it == m_trees.end() ? -1 : monotonicNowMs() - it->second->oldestReadMs();
}

size_t LiveRefresh::keptFileCount() const
{
    size_t files = 0;
    for (const auto &[root, tree] : m_trees) {
        files += tree->fileCount();
    }
    return files;
}

} // namespace Cachescope::App
