// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include "filesmodel.h"
#include "residency.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

class QWidget;

namespace Cachescope::App
{

struct FileNode;
class FilesJob;
class FilesModel;
class FilesSortProxyModel;
class FilesView;
class KeptTree;

// The live refresh of the file list: one timer, reading only what someone
// looks at, in the manner of ksystemstats.
//
// - Files on show are read every tick (open, cachestat, close: microseconds).
// - Folders on show (and the folders whose children are on show) are walked
//   once; after that their files are read again from the list the walk kept,
//   a slice each tick, so that every file is read again within sweepPeriodMs
//   and no total is older than maxTotalsAgeMs, as far as the CPU budget goes.
//   A folder is walked again only when something in it changed (a folder's
//   modification time, a file gone or replaced).
// - All of it keeps within a CPU budget (cpuBudgetShare of one core, on
//   average): big trees then have older totals, and the list says how old.
//   Trees where something changed (a walk due, a file's pages that came or
//   went) take from the budget first, then the one read longest ago.
// - Nothing at all happens while the window is hidden or minimized, or the
//   refresh is paused; the first tick comes at once when it shows again.
class LiveRefresh : public QObject
{
    Q_OBJECT

public:
    // Every file is read again within this period...
    static constexpr qint64 sweepPeriodMs = 27000;
    // ...so that no folder total on show is older than this (the tooltip says
    // how old) when the budget allows; older totals say their age in the list.
    static constexpr qint64 maxTotalsAgeMs = FilesModel::freshTotalsMs;
    // The share of one core the refresh may use, on average: its ticks' CPU
    // time (this thread's clock) and its walks' (one thread each, charged at
    // their wall time, which bounds their CPU time).
    static constexpr double cpuBudgetShare = 0.004;
    // After a rest it may spend at once what this much time earns.
    static constexpr qint64 budgetWindowMs = 5000;

    struct Counters {
        quint64 ticks = 0; // refreshes that did any work
        quint64 filesShownRead = 0; // file rows on show read again
        quint64 keptFilesRead = 0; // files of kept trees read again
        quint64 walksStarted = 0; // quiet walks of folders
        quint64 cpuNs = 0; // CPU time the refresh was charged
        quint64 slicesCut = 0; // slices of a sweep the budget made smaller
    };

    LiveRefresh(FilesModel *model, FilesSortProxyModel *proxy, FilesView *view, QWidget *watched, QObject *parent = nullptr);
    ~LiveRefresh() override;

    // How the panel starts a quiet walk of folders and tells whether a walk
    // of a folder is already under way.
    void setScanStarter(std::function<FilesJob *(const std::vector<std::string> &)> start);
    void setScanRunning(std::function<bool(const std::string &)> running);

    // One reading of a file: its row's numbers and strip come from it.
    struct FileReading {
        bool read = false; // opened and measured
        uint64_t inode = 0;
        uint64_t device = 0;
        Cachescope::Residency residency;
    };
    // Reads a file's numbers and its strip now, on the calling thread.
    static FileReading readFileInto(FilesModel *model, FileNode *node);
    // The same, and the folders kept for the sweep that hold the file take
    // the reading into their totals, which the next tick shows.
    void readFile(FileNode *node);

    void setInterval(int milliseconds);
    [[nodiscard]] int interval() const;
    void setPaused(bool paused);
    // For tests: how long one sweep over every kept file takes.
    void setSweepPeriod(qint64 milliseconds);
    // For tests: the share of one core the refresh may use (cpuBudgetShare).
    void setCpuBudget(double share);

    // A walk ended: its trees are kept (if it was not cancelled).
    void scanFinished(FilesJob *job);
    [[nodiscard]] bool isQuietScan(const FilesJob *job) const;
    // View > Refresh: what shows is read now, and its folders walked again.
    void refreshNow();
    // A row came into view (expanded): refresh at the next turn of the event loop.
    void refreshSoon();
    // Files on show are read now (after a walk listed them).
    void refreshFilesShown();

    // Whether someone can see the list: shown, not minimized, not paused.
    [[nodiscard]] bool isWatching() const;
    [[nodiscard]] const Counters &counters() const;
    // The age of the oldest total among the trees on show, or -1 with none.
    [[nodiscard]] qint64 oldestTotalsAgeMs() const;
    // The age of the oldest number in one folder's kept totals, or -1 when none is kept.
    [[nodiscard]] qint64 totalsAgeMs(const std::string &folder) const;
    [[nodiscard]] size_t keptFileCount() const;

Q_SIGNALS:
    // After each refresh: the heatmap of the current file follows.
    void refreshed();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void tick();
    void updateWatching();
    [[nodiscard]] std::vector<std::string> rootsOnShow();
    void sweep(const std::vector<std::string> &roots, bool walkNow);
    void startWalk(const std::vector<std::string> &folders, bool walkNow);
    void shareReading(const FileNode *node, const FileReading &reading);
    // The budget: credit() adds what the time since the last credit earns,
    // charge() takes what was spent.
    void credit();
    void charge(qint64 nanoseconds);

    FilesModel *m_model;
    FilesSortProxyModel *m_proxy;
    FilesView *m_view;
    QPointer<QWidget> m_watched;
    QPointer<QWidget> m_watchedWindow;
    QTimer m_timer;
    bool m_paused = false;
    bool m_watching = false;
    qint64 m_sweepPeriodMs = sweepPeriodMs;
    std::function<FilesJob *(const std::vector<std::string> &)> m_startScan;
    std::function<bool(const std::string &)> m_scanRunning;
    FilesJob *m_quietScan = nullptr;
    QElapsedTimer m_sinceWalk;
    qint64 m_lastWalkMs = 0;
    std::map<std::string, std::shared_ptr<KeptTree>> m_trees; // by folder
    std::vector<std::string> m_lastRoots;
    std::vector<FileNode *> m_agedRows; // folder rows on show, within a tick (rows may go after it)
    Counters m_counters;
    double m_budgetShare = cpuBudgetShare;
    double m_allowanceNs = 0; // what may be spent now; negative after a walk
    qint64 m_creditedAtMs = 0;
    qint64 m_loggedAtMs = 0;
    quint64 m_loggedCpuNs = 0;
    double m_nsPerItem = 10000; // a file's reading or a folder's look, as measured
    std::set<std::string> m_changedInLastSlice; // folders whose totals moved in their last slice
};

} // namespace Cachescope::App
