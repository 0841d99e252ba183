// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QObject>
#include <QStringList>

class QAction;
class QMenu;
class QWidget;
class KActionCollection;

namespace Cachescope::App
{

// The files panel's actions: made once (the context menu and the tests use
// them before the window puts them in its menus), registered under their
// names in the window's collection, and enabled by what is selected.
class FilesActions : public QObject
{
    Q_OBJECT

public:
    // The actions are children of the panel, as the actions of a widget are.
    explicit FilesActions(QWidget *panel);

    // Registers them under their names (before KXmlGuiWindow::setupGUI):
    // file_add_files, file_add_folder, file_remove, file_evict,
    // file_flush_evict, file_load, file_keep_in_memory, file_top_cached,
    // view_refresh, file_cancel, file_show_privileged, file_save_snapshot,
    // file_compare_snapshot, file_restore_snapshot, file_stop_comparing.
    void addTo(KActionCollection *collection);

    // What is selected decides what can be done.
    struct Selection {
        bool any = false;
        bool anyTopLevel = false; // only the list's own rows can be removed
        bool anyFolder = false;
        bool currentIsHidden = false;
        bool allKept = false; // every selected file is kept in memory
        bool keeping = false; // a Keep in Memory is locking files now
        bool listHasRows = false; // what a snapshot of the list records
        bool comparing = false; // the list is compared with a snapshot
        // The names of the folders Top Cached Files looks in: the selected
        // folders and the folders of the selected files. Nothing selected:
        // empty, and it looks in the home folder.
        QStringList topCachedFolders;
    };
    void updateEnabled(const Selection &selection, bool busy, bool privilegedHelperAvailable);

    // The list's context menu.
    void fillContextMenu(QMenu &menu, bool currentIsHidden) const;
    // What that menu offers for the files themselves (Evict, Flush and Evict,
    // Load, Keep in Memory): also the menu of Top Cached Files' results.
    void fillFileMenu(QMenu &menu) const;

    QAction *const addFiles;
    QAction *const addFolder;
    QAction *const remove;
    QAction *const evict;
    QAction *const flushAndEvict;
    QAction *const load;
    QAction *const keepInMemory; // checkable: checked when the selected files are kept
    QAction *const topCached;
    QAction *const refresh;
    QAction *const cancel;
    QAction *const showPrivileged;
    QAction *const saveSnapshot;
    QAction *const compareSnapshot;
    QAction *const restoreSnapshot;
    QAction *const stopComparing;
};

} // namespace Cachescope::App
