// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include "residency.h"

#include <functional>
#include <map>
#include <memory>
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
//   and no total is ever older than maxTotalsAgeMs. A folder is walked again
//   only when something in it changed (a folder's modification time, a file
//   gone or replaced).
// - Nothing at all happens while the window is hidden or minimized, or the
//   refresh is paused; the first tick comes at once when it shows again.
class LiveRefresh : public QObject
{
    Q_OBJECT

public:
    // Every file is read again within this period...
    static constexpr qint64 sweepPeriodMs = 27000;
    // ...so that no folder total on show is older than this (the tooltip says how old).
    static constexpr qint64 maxTotalsAgeMs = 30000;

    struct Counters {
        quint64 ticks = 0; // refreshes that did any work
        quint64 filesShownRead = 0; // file rows on show read again
        quint64 keptFilesRead = 0; // files of kept trees read again
        quint64 walksStarted = 0; // quiet walks of folders
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
    void shareReading(const FileNode *node, const FileReading &reading);

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
    Counters m_counters;
};

} // namespace Cachescope::App
