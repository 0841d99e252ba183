// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QList>
#include <QUrl>
#include <QWidget>

class KActionCollection;

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
    // file_top_cached, view_refresh, file_cancel.
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

Q_SIGNALS:
    // Something a person should read: what an eviction freed, why a URL was refused.
    void message(const QString &text, bool isError);
};
