// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "residency.h"
#include "walker.h"

#include <QAbstractItemModel>
#include <QSortFilterProxyModel>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace Cachescope::App
{

class KeptTree;
class SnapshotComparison;

// What a folder walk found about one entry directly inside the folder: a file
// with its own residency, or a subfolder with the totals of its whole tree.
struct FolderChild {
    std::string name; // bytes
    bool isDirectory = false;
    uint64_t size = 0;
    uint64_t pages = 0;
    uint64_t resident = 0;
    uint64_t dirty = 0;
    bool detail = false;
    // Files, with cachestat: pages evicted whose shadow entries the kernel
    // keeps, and of them those whose return would count as a refault.
    uint64_t evicted = 0;
    uint64_t recentlyEvicted = 0;
    uint64_t files = 0; // folders: files in the tree
    uint64_t hiddenFiles = 0;
    uint64_t hiddenPages = 0;
    bool hidden = false; // files: the kernel hides its residency
    std::string hiddenReason;
    std::string error; // files: why its residency could not be read
    // Files: on a file system that keeps no page cache (proc, sysfs, ...):
    // nothing to read, and never opened again.
    bool noPageCache = false;
    // Not a regular file or folder (a FIFO, a socket, a device): listed, as
    // Dolphin lists it, greyed with why (error), and never opened.
    bool notRegular = false;
};

// One walk of a folder: its totals and, one level down, its children.
struct FolderScan {
    std::string root; // the folder, as bytes
    Cachescope::WalkTotals total;
    bool cancelled = false;
    std::vector<FolderChild> children;
    std::string firstProblem; // "path: reason", for the tooltip
    qint64 elapsedMs = 0;
    // When the oldest number in these totals was read (monotonicNowMs()).
    qint64 readAtMs = 0;
    // The walk's files, for the live refresh to read again (not for cancelled walks).
    std::shared_ptr<KeptTree> kept;
};

// One row: an inspected file or folder, or a child of an expanded folder.
struct FileNode {
    std::string path; // bytes: names that are not UTF-8 survive
    QString displayName;
    bool isDirectory = false;
    FileNode *parent = nullptr;
    std::vector<std::unique_ptr<FileNode>> children;
    enum class Children : uint8_t {
        NotAsked,
        Wanted, // expanded: filled when the folder's walk reports
        Filled,
    } childState = Children::NotAsked;

    bool known = false; // numbers have been read at least once
    bool scanning = false; // folders: a walk is under way
    bool cancelled = false; // folders: the last walk was cancelled (totals partial)
    uint64_t size = 0;
    uint64_t pages = 0;
    uint64_t resident = 0;
    uint64_t dirty = 0;
    bool detail = false; // dirty is known (cachestat)
    uint64_t evicted = 0; // files, with cachestat (FolderChild::evicted)
    uint64_t recentlyEvicted = 0;
    bool hidden = false; // files: the kernel hides the residency
    bool noPageCache = false; // files: on proc, sysfs, ...: never opened again after the first read
    bool notRegular = false; // a FIFO, socket or device in a listed folder: never opened (FolderChild::notRegular)
    QString hiddenReason;
    QString error;
    // Folders.
    uint64_t files = 0;
    uint64_t hiddenFiles = 0;
    uint64_t hiddenPages = 0;
    QString problem;
    qint64 totalsReadAtMs = 0; // folders: when the oldest number in the totals was read
    QString ageShown; // folders: the age their row said last (FilesModel::ageChanged)
    // Files: resident fraction of each cell of the residency strip (and dirty).
    QList<float> strip;
    QList<float> stripDirty;

    [[nodiscard]] int row() const;
    mutable int rowHint = -1;
};

class FilesModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        SizeColumn,
        CachedColumn,
        CachedPercentColumn,
        DirtyColumn,
        ResidencyColumn,
        // What changed since a snapshot (Compare with Snapshot); hidden otherwise.
        ChangeColumn,
        ColumnCount,
    };
    enum Role {
        SortRole = Qt::UserRole + 1,
        PathRole, // QByteArray: the path's bytes
        IsDirectoryRole,
        HiddenRole, // bool: the residency (or all of it, for a folder) is hidden
        StripRole, // QList<float>: resident fraction a cell (files)
        StripDirtyRole, // QList<float>: dirty fraction a cell (files)
        FolderFractionsRole, // QList<float>{resident, hidden} fractions of the pages (folders)
        BusyRole, // bool: a walk is under way for this folder
    };

    // Cells of the residency strip in the list.
    static constexpr int stripCells = 64;
    // A folder's totals older than this say their age in the list, not only
    // in the tooltip (the live refresh keeps them younger while its CPU
    // budget allows).
    static constexpr qint64 freshTotalsMs = 30000;

    explicit FilesModel(QObject *parent = nullptr);
    ~FilesModel() override;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;
    // Rows drag out as their files' URLs (text/uri-list), as Dolphin's do:
    // onto the evict zone, into Dolphin, into a terminal. Copied or linked,
    // never moved: a drag out of the list must not take a file away.
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    Qt::DropActions supportedDragActions() const override;

    // A top-level row for path (bytes); an existing row for the same path is returned as is.
    QModelIndex addItem(const std::string &path, bool isDirectory);
    [[nodiscard]] QModelIndex findTopLevel(const std::string &path) const;
    // Removes top-level rows (children of folders go with their folder).
    void removeTopLevel(const QModelIndexList &indexes);
    void clear();

    [[nodiscard]] FileNode *node(const QModelIndex &index) const;
    [[nodiscard]] QModelIndex indexOf(const FileNode *node, int column = 0) const;

    // Numbers of a file, read by the caller (the panel reads visible rows).
    void setFileResidency(FileNode *node, const Cachescope::Residency &residency, const Cachescope::Histogram *histogram);
    void setFileError(FileNode *node, const QString &error);
    // Totals of a folder and of its children, from a walk; applies to every
    // row that shows scan.root (a folder can be both a top-level row and a child).
    void applyFolderScan(const FolderScan &scan);
    void setScanning(const std::string &folder, bool scanning);
    // The totals of scan.root (and its children) are as they were, read again
    // until scan.readAtMs: only their age changes (no repaint).
    void setTotalsReadAt(const FolderScan &scan);
    // Repaints the figures of a folder row whose totals say their age: the
    // words change as time goes by.
    void ageChanged(FileNode *node);

    // Which files are kept in memory (Keep in Memory): they show a pin.
    void setKeptCheck(std::function<bool(const std::string &)> isKept);
    // What ChangeColumn shows; null ends the comparison.
    void setComparison(std::shared_ptr<const SnapshotComparison> comparison);
    [[nodiscard]] const std::shared_ptr<const SnapshotComparison> &comparison() const
    {
        return m_comparison;
    }

    // Every row showing this path (bytes).
    [[nodiscard]] std::vector<FileNode *> nodesForPath(const std::string &path) const;
    // Every row whose path is path or lies below it.
    [[nodiscard]] std::vector<FileNode *> nodesUnder(const std::string &path) const;
    // The deepest folder row that path lies below (not a row of path itself),
    // or null: where the list would show path once that folder is expanded.
    [[nodiscard]] FileNode *deepestFolderAbove(const std::string &path) const;
    [[nodiscard]] int topLevelCount() const;
    // The folders on show whose totals a change under roots (an eviction, a
    // load) makes stale: top-level folders that hold a root or lie below
    // one, and the expanded folders among them (their children's numbers
    // come from their own walk).
    [[nodiscard]] std::vector<std::string> foldersToRecount(const std::vector<std::string> &roots) const;

Q_SIGNALS:
    // A folder was expanded and needs a walk to know its children.
    void folderScanWanted(const std::string &folder);
    // A folder row began to say how old its totals are (ageChanged).
    void totalsAgeShown();

private:
    std::function<bool(const std::string &)> m_isKept;
    std::shared_ptr<const SnapshotComparison> m_comparison;
    [[nodiscard]] QVariant changeData(const FileNode &node, int role) const;
    // Top-level rows show what tells them apart: "usr/lib" and "local/lib".
    void labelTopLevel();
    void emitRowChanged(FileNode *node);
    void mergeChildren(FileNode *folder, const FolderScan &scan);
    void forEachNode(const std::function<void(FileNode *)> &visit) const;

    FileNode m_root;
};

// Sorts by the numbers behind the text, and names as Dolphin does
// (compareNames: natural, case-insensitive), folders first.
class FilesSortProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

// The display text of a path given as bytes.
[[nodiscard]] QString displayPath(const std::string &path);
// "Totals from 12 seconds ago": how old a folder's totals are (readAtMs from monotonicNowMs()).
[[nodiscard]] QString totalsAgeText(qint64 readAtMs);
// The same, short, beside a folder's figures in the list: "2 min ago".
[[nodiscard]] QString shortTotalsAgeText(qint64 readAtMs);
// Whether a folder row's totals are old enough to say so in the list.
[[nodiscard]] bool totalsAreStale(const FileNode &node);

} // namespace Cachescope::App
