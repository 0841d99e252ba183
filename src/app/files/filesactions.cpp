// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filesactions.h"

#include <KActionCollection>
#include <KLocalizedString>
#include <KStandardShortcut>

#include <QAction>
#include <QIcon>
#include <QMenu>
#include <QWidget>

namespace Cachescope::App
{

namespace
{

QAction *makeAction(QWidget *panel, const char *icon, const QString &text, const QString &toolTip)
{
    auto *action = new QAction(QIcon::fromTheme(QLatin1String(icon)), text, panel);
    action->setToolTip(toolTip);
    action->setStatusTip(toolTip);
    return action;
}

} // namespace

FilesActions::FilesActions(QWidget *panel)
    : QObject(panel)
    , addFiles(makeAction(panel, "document-open", i18nc("@action", "Add Files…"), i18nc("@info:tooltip", "Choose files to inspect")))
    , addFolder(makeAction(panel, "folder-open", i18nc("@action", "Add Folder…"), i18nc("@info:tooltip", "Choose a folder to inspect with everything in it")))
    , remove(makeAction(panel,
                        "list-remove",
                        i18nc("@action", "Remove from List"),
                        i18nc("@info:tooltip", "Stop inspecting the selected items (the files are not touched)")))
    , evict(makeAction(panel,
                       "edit-clear-all",
                       i18nc("@action", "Evict from Page Cache"),
                       i18nc("@info:tooltip", "Drop the selected files and folders from the page cache; they stay on disk")))
    , flushAndEvict(makeAction(panel,
                               "document-save",
                               i18nc("@action", "Flush and Evict"),
                               i18nc("@info:tooltip", "Write dirty pages to disk first, then drop the selected items from the page cache")))
    , load(makeAction(panel,
                      "document-import",
                      i18nc("@action", "Load into Page Cache"),
                      i18nc("@info:tooltip", "Read the selected files and folders into the page cache")))
    , keepInMemory(makeAction(
          panel,
          "window-pin",
          i18nc("@action", "Keep in Memory"),
          i18nc("@info:tooltip", "Lock the selected files' pages in memory (mlock) while Cachescope runs: no eviction or memory pressure takes them")))
    , topCached(makeAction(panel,
                           "view-sort-descending",
                           i18nc("@action", "Top Cached Files…"),
                           i18nc("@info:tooltip",
                                 "List the files with the most pages in the page cache in the selected folders and the folders of the selected files, or in "
                                 "your home folder when nothing is selected")))
    , refresh(makeAction(panel, "view-refresh", i18nc("@action", "Refresh"), i18nc("@info:tooltip", "Read the residency of the shown items again now")))
    , cancel(makeAction(panel, "process-stop", i18nc("@action", "Cancel"), i18nc("@info:tooltip", "Stop the running scan, eviction or load")))
    , showPrivileged(makeAction(panel,
                                "security-high",
                                i18nc("@action", "Show with Administrator Rights"),
                                i18nc("@info:tooltip", "The privileged helper is not available")))
    , saveSnapshot(makeAction(panel,
                              "document-save-as",
                              i18nc("@action", "Save Snapshot…"),
                              i18nc("@info:tooltip", "Record which pages of the listed files and folders are in the page cache now, in a file")))
    , compareSnapshot(makeAction(panel,
                                 "vcs-diff",
                                 i18nc("@action", "Compare with Snapshot…"),
                                 i18nc("@info:tooltip", "Show what came into the page cache and what went out in the listed files since a snapshot")))
    , restoreSnapshot(makeAction(panel,
                                 "document-revert",
                                 i18nc("@action", "Restore Snapshot…"),
                                 i18nc("@info:tooltip", "Load the pages a snapshot recorded back into the page cache")))
    , stopComparing(makeAction(panel,
                               "dialog-close",
                               i18nc("@action", "Stop Comparing"),
                               i18nc("@info:tooltip", "Leave the comparison with the snapshot: the list shows the page cache only")))
{
    showPrivileged->setEnabled(false);
    keepInMemory->setCheckable(true);
    // Its text names the folders it looks in; a toolbar keeps it short.
    topCached->setIconText(i18nc("@action:intoolbar", "Top Cached"));
}

void FilesActions::addTo(KActionCollection *collection)
{
    auto add = [collection](const char *name, QAction *action, const QList<QKeySequence> &shortcuts = {}) {
        collection->addAction(QLatin1String(name), action);
        if (!shortcuts.isEmpty()) {
            KActionCollection::setDefaultShortcuts(action, shortcuts);
        }
    };
    add("file_add_files", addFiles, KStandardShortcut::open());
    add("file_add_folder", addFolder, {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O)});
    add("file_remove", remove, {QKeySequence(Qt::Key_Delete)});
    add("file_evict", evict, {QKeySequence(Qt::CTRL | Qt::Key_E)});
    add("file_flush_evict", flushAndEvict, {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E)});
    add("file_load", load, {QKeySequence(Qt::CTRL | Qt::Key_L)});
    add("file_keep_in_memory", keepInMemory);
    add("file_top_cached", topCached, {QKeySequence(Qt::CTRL | Qt::Key_T)});
    add("view_refresh", refresh, KStandardShortcut::reload());
    add("file_cancel", cancel, {QKeySequence(Qt::Key_Escape)});
    add("file_show_privileged", showPrivileged);
    add("file_save_snapshot", saveSnapshot);
    add("file_compare_snapshot", compareSnapshot);
    add("file_restore_snapshot", restoreSnapshot);
    add("file_stop_comparing", stopComparing);
}

void FilesActions::updateEnabled(const Selection &selection, bool busy, bool privilegedHelperAvailable)
{
    remove->setEnabled(selection.anyTopLevel);
    evict->setEnabled(selection.any);
    flushAndEvict->setEnabled(selection.any);
    load->setEnabled(selection.any);
    // Files only: a folder's files are many and change; lock takes named files.
    keepInMemory->setEnabled(selection.any && !selection.anyFolder && !selection.keeping);
    keepInMemory->setChecked(selection.any && selection.allKept);
    // With nothing selected it looks in the home folder: a first thing to try.
    topCached->setEnabled(!selection.any || !selection.topCachedFolders.isEmpty());
    if (selection.topCachedFolders.size() == 1) {
        topCached->setText(i18nc("@action %1 is a folder's name", "Top Cached Files in “%1”…", selection.topCachedFolders.first()));
    } else if (selection.topCachedFolders.size() > 1) {
        topCached->setText(i18ncp("@action", "Top Cached Files in %1 Folder…", "Top Cached Files in %1 Folders…", selection.topCachedFolders.size()));
    } else {
        topCached->setText(i18nc("@action", "Top Cached Files…"));
    }
    cancel->setEnabled(busy);
    showPrivileged->setEnabled(privilegedHelperAvailable && selection.currentIsHidden);
    saveSnapshot->setEnabled(selection.listHasRows);
    compareSnapshot->setEnabled(selection.listHasRows);
    stopComparing->setEnabled(selection.comparing);
}

void FilesActions::fillContextMenu(QMenu &menu, bool currentIsHidden) const
{
    menu.addActions({addFiles, addFolder});
    menu.addSeparator();
    fillFileMenu(menu);
    menu.addAction(topCached);
    menu.addSeparator();
    menu.addActions({refresh, remove});
    if (currentIsHidden) {
        menu.addAction(showPrivileged);
    }
}

void FilesActions::fillFileMenu(QMenu &menu) const
{
    menu.addActions({evict, flushAndEvict, load, keepInMemory});
}

} // namespace Cachescope::App
