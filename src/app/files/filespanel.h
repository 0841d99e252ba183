// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QColor>
#include <QList>
#include <QUrl>
#include <QWidget>

#include "residency.h"
#include "snapshot.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

class KActionCollection;

namespace Cachescope::App
{

class FilesJob;
struct FilesMessage;

// The files side of the window: the list of inspected files and folders with
// their residency, the detail heatmap of the selected file, the evict drop
// zone, and the actions that work on them. The main window places it and
// forwards settings; everything else about files lives here.
class FilesPanel : public QWidget
{
    Q_OBJECT

public:
    explicit FilesPanel(QWidget *parent = nullptr);
    ~FilesPanel() override;

    // Registers this panel's actions (before KXmlGuiWindow::setupGUI):
    // file_add_files, file_add_folder, file_remove, file_evict, file_load,
    // file_top_cached, view_refresh, file_cancel; also file_flush_evict
    // (Flush and Evict, offered when dirty pages stayed),
    // file_show_privileged (hidden residency, disabled until the helper
    // exists), and the snapshots' file_save_snapshot, file_compare_snapshot,
    // file_restore_snapshot and file_stop_comparing.
    void setUpActions(KActionCollection *collection);

    // Inspect these (local files and folders; what cannot be made local is
    // refused with a message). Used by drops, the command line and D-Bus activation.
    void inspectUrls(const QList<QUrl> &urls);
    // Evict these from the page cache at once, as a drop on the evict zone does.
    void evictUrls(const QList<QUrl> &urls);

    void setRefreshInterval(int milliseconds);
    void setHeatmapCells(int cells);
    void setFollowSymlinks(bool follow);
    void setOneFileSystem(bool stay);
    void setPaused(bool paused);
    // Colours of the residency strips and the detail heatmap (the settings' heatmap colours).
    void setColors(const QColor &resident, const QColor &dirty, const QColor &empty);
    // The hook for the privileged helper: true enables "Show with Administrator
    // Rights" for hidden files, which then emits privilegedViewRequested().
    void setPrivilegedHelperAvailable(bool available, const QString &unavailableReason = {});
    // Shows residency the helper read (for a hidden file) in the heatmap, if
    // it still shows that file.
    void showPrivilegedResidency(const std::string &path, const Cachescope::Histogram &histogram);
    // The page cache changed by another of the window's actions (Drop
    // Caches): what shows is read again at once and a view with
    // administrator rights goes. what: the action, as the memory graph's
    // marker says it ("Dropped page cache").
    void pageCacheChangedElsewhere(const QString &what);
    [[nodiscard]] int heatmapCells() const;
    // Closes the panel's message (a newer one shows elsewhere in the window).
    void hideMessage();

    // Snapshots of the page cache in core's files, as cachescope-cli snapshot
    // reads and writes them (the actions ask for the file, then call these).
    // Each runs off the UI thread with progress and Cancel, and says how it
    // went in a message. Save records the files and folders of the list.
    // Compare shows what changed since the snapshot in the list's Since
    // Snapshot column, in the heatmap and in a bar above the list, until
    // stopComparing(); Refresh and the panel's own evictions and loads
    // compare again. Restore loads the recorded pages back.
    void saveSnapshot(const QString &file);
    void compareWithSnapshot(const QString &file);
    void restoreSnapshot(const QString &file);
    void stopComparing();
    [[nodiscard]] bool isComparing() const;

    // A scan, eviction, load or URL lookup the person waits for is under way
    // (the quiet live refresh of folders does not count).
    [[nodiscard]] bool isBusy() const;

Q_SIGNALS:
    // Something a person should read: what an eviction freed, why a URL was
    // refused. The panel shows it in its own message bar (with its type and
    // actions); the signal is for whoever tells it elsewhere (a notification).
    void message(const QString &text, bool isError);
    void busyChanged(bool busy);
    // The person asked to see this hidden file's residency with administrator rights.
    void privilegedViewRequested(const std::string &path);
    // An eviction, a load or Keep in Memory of this panel changed the page
    // cache of these files and folders.
    void pageCacheChanged(const std::vector<std::string> &paths);

private:
    void resolveUrls(const QList<QUrl> &urls, const std::function<void(const std::vector<std::string> &)> &use);
    void inspectPaths(const std::vector<std::string> &paths);
    // Selects path's row, expanding the folders above it (Top Cached Files'
    // double-click); adds it only when the list has it nowhere.
    void showInList(const std::string &path);
    FilesJob *startJob(FilesJob *job);
    void startScan(const std::vector<std::string> &folders, bool showsProgress);
    void startEvict(const std::vector<std::string> &paths, bool flushFirst);
    void startLoad(const std::vector<std::string> &paths);
    void startTopCached(const std::vector<std::string> &folders);
    // A comparison of the list with the snapshot in file (read there, or
    // snapshot when it has been read already); it replaces one under way.
    void startCompare(const std::string &file, std::shared_ptr<const Cachescope::Snapshot> snapshot, bool showsProgress);
    void compareFinished(FilesJob *job);
    void cancelAll();
    void jobFinished(FilesJob *job);
    // Shows an eviction's or a load's message (its Flush and Evict acts on paths) and emits message().
    void report(const FilesMessage &shown, const std::vector<std::string> &paths);
    void updateProgress();
    void emitBusyIfChanged();
    void refreshAfterChange(const std::vector<std::string> &roots);
    // For tools/bench/window: CACHESCOPE_EXPAND_FOLDERS=1 expands every
    // top-level folder once its first walk is done, as a person would.
    void expandForBenchmark(FilesJob *job);

    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace Cachescope::App
