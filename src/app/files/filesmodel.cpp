// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filesmodel.h"

#include "droppedurls.h"
#include "filesnaming.h"
#include "format.h"
#include "kepttree.h"
#include "snapshotcomparison.h"

#include <KColorScheme>
#include <KLocalizedString>

#include <QFile>
#include <QGuiApplication>
#include <QHash>
#include <QIcon>
#include <QMimeData>
#include <QMimeDatabase>
#include <QPalette>

#include <limits>
#include <set>
#include <unordered_map>

namespace Cachescope::App
{

QString displayPath(const std::string &path)
{
    return QFile::decodeName(QByteArray::fromRawData(path.data(), qsizetype(path.size())));
}

namespace
{

std::string joinPath(const std::string &folder, const std::string &name)
{
    std::string joined = folder;
    if (joined.empty() || joined.back() != '/') {
        joined.push_back('/');
    }
    joined += name;
    return joined;
}

// The icon of a file's MIME type, guessed from its name only: sniffing the
// content would read the file and change the very page cache we show.
QIcon iconFor(const FileNode &node)
{
    static QHash<QString, QIcon> cache;
    QString iconName;
    QString genericName;
    static const QMimeDatabase mimeDatabase;
    if (node.isDirectory) {
        iconName = QStringLiteral("folder");
    } else if (node.notRegular) {
        // inode/fifo, inode/socket, ...: from stat, nothing is opened.
        iconName = mimeDatabase.mimeTypeForFile(QFile::decodeName(QByteArray::fromStdString(node.path))).iconName();
    } else {
        const QMimeType mime = mimeDatabase.mimeTypeForFile(node.displayName, QMimeDatabase::MatchExtension);
        if (mime.isDefault()) {
            // No type from the name (a .bin, no extension): the plain
            // document, not application-octet-stream, which Breeze draws as
            // a question mark, as if the file were damaged. Its content is
            // not looked at, so nothing is known about it.
            iconName = QStringLiteral("unknown");
        } else {
            iconName = mime.iconName();
            genericName = mime.genericIconName();
        }
    }
    if (const auto it = cache.constFind(iconName); it != cache.constEnd()) {
        return *it;
    }
    QIcon icon = QIcon::fromTheme(iconName);
    if (icon.isNull() && !genericName.isEmpty()) {
        icon = QIcon::fromTheme(genericName);
    }
    if (icon.isNull()) {
        icon = QIcon::fromTheme(QStringLiteral("unknown"));
    }
    return *cache.insert(iconName, icon);
}

QString percentText(uint64_t part, uint64_t whole)
{
    // One decimal where it matters (a few pages of a big file, the last few
    // missing), none between; never 100 % while a page is missing.
    const double rough = percentShown(part, whole, 0);
    const int decimals = (rough < 10.0 || rough >= 99.0) && part > 0 && part < whole ? 1 : 0;
    return i18nc("@item:intable percent of the file that is cached", "%1%", QLocale().toString(percentShown(part, whole, decimals), 'f', decimals));
}

bool allHidden(const FileNode &node)
{
    if (!node.isDirectory) {
        return node.hidden;
    }
    return node.files > 0 && node.hiddenFiles == node.files;
}

// The pages whose residency is known (a folder's hidden files' left out).
uint64_t knownPages(const FileNode &node)
{
    return node.isDirectory ? node.pages - std::min(node.pages, node.hiddenPages) : node.pages;
}

// The resident fraction of those.
double knownFraction(const FileNode &node)
{
    const uint64_t known = knownPages(node);
    return known == 0 ? 0.0 : double(node.resident) / double(known);
}

} // namespace

QString totalsAgeText(qint64 readAtMs)
{
    const qint64 seconds = std::max<qint64>(0, (monotonicNowMs() - readAtMs) / 1000);
    if (seconds < 60) {
        return i18ncp("@info:tooltip how old the folder's totals are", "Totals from %1 second ago", "Totals from %1 seconds ago", seconds);
    }
    return i18ncp("@info:tooltip how old the folder's totals are", "Totals from %1 minute ago", "Totals from %1 minutes ago", seconds / 60);
}

QString shortTotalsAgeText(qint64 readAtMs)
{
    const qint64 seconds = std::max<qint64>(0, (monotonicNowMs() - readAtMs) / 1000);
    if (seconds < 60) {
        // In steps of ten seconds: the row is painted again when the words change.
        return i18ncp("@item:intable how old a folder's totals are, short", "%1 s ago", "%1 s ago", seconds / 10 * 10);
    }
    if (seconds < 3600) {
        return i18ncp("@item:intable how old a folder's totals are, short", "%1 min ago", "%1 min ago", seconds / 60);
    }
    return i18ncp("@item:intable how old a folder's totals are, short", "%1 h ago", "%1 h ago", seconds / 3600);
}

bool totalsAreStale(const FileNode &node)
{
    return node.isDirectory && node.known && !node.scanning && node.totalsReadAtMs > 0 && monotonicNowMs() - node.totalsReadAtMs > FilesModel::freshTotalsMs;
}

int FileNode::row() const
{
    if (!parent) {
        return 0;
    }
    const auto &siblings = parent->children;
    // Rows of big folders are asked for often (each refresh): remember the last answer.
    if (rowHint >= 0 && size_t(rowHint) < siblings.size() && siblings[size_t(rowHint)].get() == this) {
        return rowHint;
    }
    for (size_t i = 0; i < siblings.size(); ++i) {
        if (siblings[i].get() == this) {
            rowHint = int(i);
            return rowHint;
        }
    }
    return 0;
}

FilesModel::FilesModel(QObject *parent)
    : QAbstractItemModel(parent)
{
    m_root.isDirectory = true;
    m_root.childState = FileNode::Children::Filled;
}

FilesModel::~FilesModel() = default;

FileNode *FilesModel::node(const QModelIndex &index) const
{
    if (!index.isValid()) {
        return const_cast<FileNode *>(&m_root);
    }
    return static_cast<FileNode *>(index.internalPointer());
}

QModelIndex FilesModel::indexOf(const FileNode *node, int column) const
{
    if (!node || node == &m_root) {
        return {};
    }
    return createIndex(node->row(), column, const_cast<FileNode *>(node));
}

QModelIndex FilesModel::index(int row, int column, const QModelIndex &parent) const
{
    const FileNode *parentNode = node(parent);
    if (row < 0 || column < 0 || column >= ColumnCount || size_t(row) >= parentNode->children.size()) {
        return {};
    }
    return createIndex(row, column, parentNode->children[size_t(row)].get());
}

QModelIndex FilesModel::parent(const QModelIndex &child) const
{
    if (!child.isValid()) {
        return {};
    }
    return indexOf(node(child)->parent);
}

int FilesModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0) {
        return 0;
    }
    return int(node(parent)->children.size());
}

int FilesModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

bool FilesModel::hasChildren(const QModelIndex &parent) const
{
    const FileNode *n = node(parent);
    if (parent.isValid() && parent.column() != 0) {
        return false;
    }
    if (!n->isDirectory) {
        return false;
    }
    return n->childState != FileNode::Children::Filled || !n->children.empty();
}

bool FilesModel::canFetchMore(const QModelIndex &parent) const
{
    const FileNode *n = node(parent);
    return parent.isValid() && n->isDirectory && n->childState == FileNode::Children::NotAsked;
}

void FilesModel::fetchMore(const QModelIndex &parent)
{
    FileNode *n = node(parent);
    if (!parent.isValid() || !n->isDirectory || n->childState != FileNode::Children::NotAsked) {
        return;
    }
    n->childState = FileNode::Children::Wanted;
    Q_EMIT folderScanWanted(n->path);
}

Qt::ItemFlags FilesModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags flags = QAbstractItemModel::flags(index);
    if (index.isValid()) {
        flags |= Qt::ItemIsDragEnabled;
    }
    return flags;
}

QStringList FilesModel::mimeTypes() const
{
    return draggedRowsFormats();
}

QMimeData *FilesModel::mimeData(const QModelIndexList &indexes) const
{
    // One URL a row (the indexes hold every column of it), in the order given.
    QList<QUrl> urls;
    std::set<const FileNode *> seen;
    for (const QModelIndex &index : indexes) {
        const FileNode *n = index.isValid() ? node(index) : nullptr;
        if (n && seen.insert(n).second) {
            urls.append(urlOfLocalPath(n->path));
        }
    }
    if (urls.isEmpty()) {
        return nullptr;
    }
    auto *mimeData = new QMimeData;
    setDraggedRows(urls, mimeData);
    return mimeData;
}

Qt::DropActions FilesModel::supportedDragActions() const
{
    return Qt::CopyAction | Qt::LinkAction;
}

QVariant FilesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) {
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return i18nc("@title:column file name", "Name");
        case SizeColumn:
            return i18nc("@title:column file size", "Size");
        case CachedColumn:
            return i18nc("@title:column bytes in the page cache", "Cached");
        case CachedPercentColumn:
            return i18nc("@title:column percent in the page cache", "Cached %");
        case DirtyColumn:
            return i18nc("@title:column bytes not yet written to disk", "Dirty");
        case ResidencyColumn:
            return i18nc("@title:column where in the file the cached pages are", "Residency");
        case ChangeColumn:
            return i18nc("@title:column what came into and went out of the page cache since the snapshot", "Since Snapshot");
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case CachedColumn:
            return i18nc("@info:tooltip",
                         "How much memory the file's cached pages take now. The cache holds whole pages (4 KiB), so a folder of "
                         "small files can take more cache than its size.");
        case DirtyColumn:
            return i18nc("@info:tooltip", "Cached data changed in memory and not yet written to disk");
        case ResidencyColumn:
            return i18nc("@info:tooltip", "Which parts of the file are cached, from its start (left) to its end (right)");
        case ChangeColumn:
            return i18nc("@info:tooltip",
                         "What changed in the page cache since the snapshot: + the memory of pages cached now and not then, − of pages cached then "
                         "and not now");
        }
    } else if (role == Qt::TextAlignmentRole && section != NameColumn && section != ResidencyColumn) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant FilesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid()) {
        return {};
    }
    const FileNode &n = *node(index);
    const uint64_t page = pageSize();
    const int column = index.column();
    const bool hasError = !n.error.isEmpty();
    if (column == ChangeColumn && role != Qt::TextAlignmentRole && role < PathRole) {
        return changeData(n, role);
    }

    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return n.displayName;
        case SizeColumn:
            if (!n.known) {
                return n.scanning ? i18nc("@item:intable still counting", "…") : QString();
            }
            return formatBytes(n.size, ByteStyle::OneDecimal, QLocale());
        case CachedColumn:
            if (!n.known || hasError) {
                return n.scanning ? i18nc("@item:intable still counting", "…") : (hasError ? i18nc("@item:intable no value", "—") : QString());
            }
            if (allHidden(n)) {
                return i18nc("@item:intable the kernel hides the residency", "hidden");
            }
            if (n.cancelled) {
                return i18nc("@item:intable at least this much (the count was cancelled)",
                             "≥ %1",
                             formatBytes(n.resident * page, ByteStyle::OneDecimal, QLocale()));
            }
            if (totalsAreStale(n)) {
                return i18nc("@item:intable cached bytes of a folder, then how old that total is",
                             "%1 · %2",
                             formatBytes(n.resident * page, ByteStyle::OneDecimal, QLocale()),
                             shortTotalsAgeText(n.totalsReadAtMs));
            }
            return formatBytes(n.resident * page, ByteStyle::OneDecimal, QLocale());
        case CachedPercentColumn:
            if (!n.known || hasError) {
                return QString();
            }
            if (allHidden(n)) {
                return i18nc("@item:intable the kernel hides the residency", "hidden");
            }
            if (!n.isDirectory && n.noPageCache) {
                return i18nc("@item:intable the file system (proc, sysfs, ...) keeps no page cache", "no page cache");
            }
            if (n.pages == 0) {
                return i18nc("@item:intable no value (empty file)", "—");
            }
            if (n.isDirectory && n.hiddenFiles > 0) {
                return i18ncp("@item:intable percent cached, then how many files the kernel hides",
                              "%2 · %1 hidden",
                              "%2 · %1 hidden",
                              n.hiddenFiles,
                              percentText(n.resident, knownPages(n)));
            }
            return percentText(n.resident, knownPages(n));
        case DirtyColumn:
            if (!n.known || hasError || allHidden(n)) {
                return QString();
            }
            if (!n.detail) {
                return i18nc("@item:intable not known", "—");
            }
            return formatBytes(n.dirty * page, ByteStyle::OneDecimal, QLocale());
        }
        return {};
    case Qt::DecorationRole:
        if (column == NameColumn && m_isKept && !n.isDirectory && m_isKept(n.path)) {
            return QIcon::fromTheme(QStringLiteral("window-pin"));
        }
        if (column == NameColumn) {
            return iconFor(n);
        }
        return {};
    case Qt::TextAlignmentRole:
        if (column != NameColumn && column != ResidencyColumn) {
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        }
        return {};
    case Qt::ForegroundRole:
        if (hasError || (column != NameColumn && allHidden(n))) {
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        }
        return {};
    case Qt::ToolTipRole: {
        QStringList lines{displayPath(n.path)};
        if (hasError) {
            lines << n.error;
        }
        if (n.isDirectory && n.known) {
            lines << i18ncp("@info:tooltip", "%1 file in this folder and below", "%1 files in this folder and below", n.files);
        }
        if (n.hidden) {
            lines << i18nc("@info:tooltip",
                           "The kernel hides this file's page cache from you (%1). Cachescope shows no number rather than a wrong one.",
                           n.hiddenReason);
        } else if (n.isDirectory && n.hiddenFiles > 0) {
            lines << i18ncp("@info:tooltip",
                            "The kernel hides the page cache of %1 file from you: it is not counted.",
                            "The kernel hides the page cache of %1 files from you: they are not counted.",
                            n.hiddenFiles);
        }
        if (m_isKept && !n.isDirectory && m_isKept(n.path)) {
            lines << i18nc("@info:tooltip", "Kept in memory: its pages are locked until you release it or quit Cachescope.");
        }
        if (n.cancelled) {
            lines << i18nc("@info:tooltip", "The count was cancelled: these totals are partial.");
        }
        if (n.isDirectory && n.known && n.totalsReadAtMs > 0) {
            lines << totalsAgeText(n.totalsReadAtMs);
            if (totalsAreStale(n)) {
                lines << i18nc("@info:tooltip",
                               "Cachescope reads big trees again within a small share of the processor, so their totals can be older. "
                               "View > Refresh reads them now.");
            }
        }
        if (!n.problem.isEmpty()) {
            lines << i18nc("@info:tooltip", "Not everything could be read: %1", n.problem);
        }
        if (!n.isDirectory && n.known && n.detail && !n.hidden && n.evicted > 0) {
            // cachestat(2)'s nr_evicted and nr_recently_evicted: shadow entries
            // left where reclaim evicted pages (mm/workingset.c). Every such
            // page read again counts as a refault; the recent ones, by the
            // refault distance against the working set, are also put straight
            // back among the active pages.
            lines << i18ncp("@info:tooltip",
                            "Came and went: %1 page of this file was evicted and the kernel still remembers it (cachestat); read again, it "
                            "counts as a refault",
                            "Came and went: %1 pages of this file were evicted and the kernel still remembers them (cachestat); read again, they "
                            "count as refaults",
                            qulonglong(n.evicted));
            if (n.recentlyEvicted > 0) {
                lines << i18ncp("@info:tooltip",
                                "%1 of them evicted so recently that, read again, it would go straight back among the pages in use: a sign that the "
                                "cache is too small for what runs",
                                "%1 of them evicted so recently that, read again, they would go straight back among the pages in use: a sign that the "
                                "cache is too small for what runs",
                                qulonglong(n.recentlyEvicted));
            }
        }
        if (column == DirtyColumn && n.known && !n.detail) {
            lines << i18nc("@info:tooltip", "Dirty pages are known only with cachestat (Linux 6.5 and later).");
        }
        return lines.join(QLatin1Char('\n'));
    }
    case SortRole:
        switch (column) {
        case NameColumn:
            return n.displayName;
        case SizeColumn:
            return qulonglong(n.size);
        case CachedColumn:
            return allHidden(n) || hasError ? -1.0 : double(n.resident);
        case CachedPercentColumn:
        case ResidencyColumn:
            return allHidden(n) || hasError ? -1.0 : knownFraction(n);
        case DirtyColumn:
            return n.detail && !allHidden(n) ? double(n.dirty) : -1.0;
        }
        return {};
    case PathRole:
        return QByteArray(n.path.data(), qsizetype(n.path.size()));
    case IsDirectoryRole:
        return n.isDirectory;
    case HiddenRole:
        return allHidden(n);
    case StripRole:
        return QVariant::fromValue(n.strip);
    case StripDirtyRole:
        return QVariant::fromValue(n.stripDirty);
    case FolderFractionsRole:
        if (!n.isDirectory || !n.known || n.pages == 0) {
            return {};
        }
        return QVariant::fromValue(QList<float>{float(double(n.resident) / double(n.pages)), float(double(n.hiddenPages) / double(n.pages))});
    case BusyRole:
        return n.scanning;
    }
    return {};
}

QModelIndex FilesModel::addItem(const std::string &path, bool isDirectory)
{
    if (QModelIndex existing = findTopLevel(path); existing.isValid()) {
        return existing;
    }
    auto item = std::make_unique<FileNode>();
    item->path = path;
    item->displayName = path == "/" ? QStringLiteral("/") : displayBaseName(path);
    item->isDirectory = isDirectory;
    item->parent = &m_root;
    const int row = int(m_root.children.size());
    beginInsertRows({}, row, row);
    m_root.children.push_back(std::move(item));
    endInsertRows();
    labelTopLevel();
    return index(row, 0);
}

void FilesModel::labelTopLevel()
{
    std::vector<std::string> paths;
    paths.reserve(m_root.children.size());
    for (const auto &child : m_root.children) {
        paths.push_back(child->path);
    }
    const std::vector<QString> labels = distinctLabels(paths);
    for (size_t i = 0; i < labels.size(); ++i) {
        FileNode &n = *m_root.children[i];
        if (n.displayName != labels[i]) {
            n.displayName = labels[i];
            const QModelIndex name = index(int(i), NameColumn);
            Q_EMIT dataChanged(name, name, {Qt::DisplayRole, SortRole});
        }
    }
}

QModelIndex FilesModel::findTopLevel(const std::string &path) const
{
    for (size_t i = 0; i < m_root.children.size(); ++i) {
        if (m_root.children[i]->path == path) {
            return index(int(i), 0);
        }
    }
    return {};
}

void FilesModel::removeTopLevel(const QModelIndexList &indexes)
{
    std::vector<int> rows;
    for (const QModelIndex &index : indexes) {
        if (index.isValid() && !index.parent().isValid()) {
            rows.push_back(index.row());
        }
    }
    std::sort(rows.begin(), rows.end(), std::greater<>());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    for (int row : rows) {
        beginRemoveRows({}, row, row);
        m_root.children.erase(m_root.children.begin() + row);
        endRemoveRows();
    }
    labelTopLevel();
}

void FilesModel::setKeptCheck(std::function<bool(const std::string &)> isKept)
{
    m_isKept = std::move(isKept);
}

void FilesModel::setComparison(std::shared_ptr<const SnapshotComparison> comparison)
{
    m_comparison = std::move(comparison);
    // Every row's change, in each folder's rows.
    std::vector<const FileNode *> parents{&m_root};
    forEachNode([&parents](FileNode *n) {
        if (!n->children.empty()) {
            parents.push_back(n);
        }
    });
    for (const FileNode *parent : parents) {
        const QModelIndex parentIndex = indexOf(parent);
        Q_EMIT dataChanged(index(0, ChangeColumn, parentIndex), index(int(parent->children.size()) - 1, ChangeColumn, parentIndex));
    }
}

QVariant FilesModel::changeData(const FileNode &n, int role) const
{
    if (!m_comparison) {
        return {};
    }
    const SnapshotChange c = m_comparison->change(n.path, n.isDirectory);
    const uint64_t page = pageSize();
    const auto bytes = [page](uint64_t pages) {
        return formatBytes(pages * page, ByteStyle::OneDecimal, QLocale());
    };
    const bool changed = c.loadedPages > 0 || c.evictedPages > 0;
    switch (role) {
    case Qt::DisplayRole:
        if (!c.compared) {
            return QString();
        }
        if (c.loadedPages > 0 && c.evictedPages > 0) {
            return i18nc("@item:intable memory that came into and went out of the page cache since the snapshot",
                         "+%1 −%2",
                         bytes(c.loadedPages),
                         bytes(c.evictedPages));
        }
        if (c.loadedPages > 0) {
            return i18nc("@item:intable memory that came into the page cache since the snapshot", "+%1", bytes(c.loadedPages));
        }
        if (c.evictedPages > 0) {
            return i18nc("@item:intable memory that went out of the page cache since the snapshot", "−%1", bytes(c.evictedPages));
        }
        if (!c.inSnapshot) {
            return i18nc("@item:intable the snapshot does not record this file or folder", "not in snapshot");
        }
        return i18nc("@item:intable nothing changed in the page cache since the snapshot", "no change");
    case Qt::ForegroundRole: {
        if (!changed) {
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        }
        if (c.loadedPages > 0 && c.evictedPages > 0) {
            return {};
        }
        const KColorScheme scheme(QPalette::Active, KColorScheme::View);
        return scheme.foreground(c.loadedPages > 0 ? KColorScheme::PositiveText : KColorScheme::NegativeText);
    }
    case Qt::ToolTipRole: {
        QStringList lines{displayPath(n.path)};
        if (!c.compared) {
            lines << i18nc("@info:tooltip", "Added to the list after the comparison: Refresh compares again.");
            return lines.join(QLatin1Char('\n'));
        }
        if (!c.inSnapshot) {
            lines << (n.isDirectory ? i18nc("@info:tooltip", "The snapshot records no file in this folder.")
                                    : i18nc("@info:tooltip", "The snapshot does not record this file: it was not there, or not below what was recorded."));
        }
        if (c.goneNow) {
            lines << i18nc("@info:tooltip", "The snapshot records this file, but it is not there now, or its page cache cannot be read.");
        }
        if (changed) {
            lines << i18ncp("@info:tooltip %2 an amount of memory",
                            "Newly cached since the snapshot: %1 page (%2)",
                            "Newly cached since the snapshot: %1 pages (%2)",
                            qulonglong(c.loadedPages),
                            bytes(c.loadedPages))
                  << i18ncp("@info:tooltip %2 an amount of memory",
                            "Evicted since the snapshot: %1 page (%2)",
                            "Evicted since the snapshot: %1 pages (%2)",
                            qulonglong(c.evictedPages),
                            bytes(c.evictedPages));
        } else if (c.inSnapshot) {
            lines << i18nc("@info:tooltip", "The same pages are cached as in the snapshot.");
        }
        return lines.join(QLatin1Char('\n'));
    }
    case SortRole:
        // Most gone first when ascending; rows not compared last.
        return c.compared ? double(c.loadedPages) - double(c.evictedPages) : std::numeric_limits<double>::max();
    }
    return {};
}

void FilesModel::clear()
{
    beginResetModel();
    m_root.children.clear();
    endResetModel();
}

std::vector<std::string> FilesModel::foldersToRecount(const std::vector<std::string> &roots) const
{
    std::set<std::string> folders;
    for (int row = 0; row < topLevelCount(); ++row) {
        const FileNode *top = node(index(row, 0));
        if (!top->isDirectory) {
            continue;
        }
        for (const std::string &root : roots) {
            if (isAtOrBelow(root, top->path) || isAtOrBelow(top->path, root)) {
                folders.insert(top->path);
            }
        }
        // Expanded folders inside too: their children's numbers come from their own walk.
        for (const FileNode *n : nodesUnder(top->path)) {
            if (n->isDirectory && n != top && n->childState == FileNode::Children::Filled) {
                for (const std::string &root : roots) {
                    if (n->path.starts_with(root) || root.starts_with(n->path)) {
                        folders.insert(n->path);
                    }
                }
            }
        }
    }
    return std::vector<std::string>(folders.begin(), folders.end());
}

int FilesModel::topLevelCount() const
{
    return int(m_root.children.size());
}

void FilesModel::emitRowChanged(FileNode *n)
{
    const int row = n->row();
    const QModelIndex parentIndex = indexOf(n->parent);
    Q_EMIT dataChanged(index(row, 0, parentIndex), index(row, ColumnCount - 1, parentIndex));
}

void FilesModel::setFileResidency(FileNode *n, const Residency &residency, const Histogram *histogram)
{
    if (!residency.ok()) {
        setFileError(n, QString::fromStdString(residency.errorText));
        return;
    }
    n->known = true;
    n->error.clear();
    n->size = residency.sizeBytes;
    n->pages = residency.pages;
    n->hidden = residency.hidden;
    n->noPageCache = residency.method == ResidencyMethod::NoPageCache;
    n->hiddenReason = QString::fromStdString(residency.hiddenReason);
    n->resident = residency.hidden ? 0 : residency.resident;
    n->detail = residency.detail;
    n->dirty = residency.dirty;
    n->evicted = residency.hidden ? 0 : residency.evicted;
    n->recentlyEvicted = residency.hidden ? 0 : residency.recentlyEvicted;
    n->strip.clear();
    n->stripDirty.clear();
    if (histogram && histogram->ok() && !histogram->hidden) {
        const int cells = histogram->buckets();
        n->strip.reserve(cells);
        for (int b = 0; b < cells; ++b) {
            const uint64_t pagesIn = histogram->pagesIn(b);
            const double scale = pagesIn == 0 ? 0.0 : 1.0 / double(pagesIn);
            n->strip.push_back(float(double(histogram->resident[size_t(b)]) * scale));
            if (histogram->detail) {
                n->stripDirty.push_back(float(double(histogram->dirty[size_t(b)]) * scale));
            }
        }
    }
    emitRowChanged(n);
}

void FilesModel::setFileError(FileNode *n, const QString &error)
{
    n->known = true;
    n->error = error;
    n->strip.clear();
    n->stripDirty.clear();
    emitRowChanged(n);
}

void FilesModel::forEachNode(const std::function<void(FileNode *)> &visit) const
{
    std::vector<const FileNode *> stack{&m_root};
    while (!stack.empty()) {
        const FileNode *n = stack.back();
        stack.pop_back();
        if (n != &m_root) {
            visit(const_cast<FileNode *>(n));
        }
        for (const auto &child : n->children) {
            stack.push_back(child.get());
        }
    }
}

std::vector<FileNode *> FilesModel::nodesForPath(const std::string &path) const
{
    std::vector<FileNode *> found;
    forEachNode([&](FileNode *n) {
        if (n->path == path) {
            found.push_back(n);
        }
    });
    return found;
}

std::vector<FileNode *> FilesModel::nodesUnder(const std::string &path) const
{
    std::string prefix = path;
    if (prefix.empty() || prefix.back() != '/') {
        prefix.push_back('/');
    }
    std::vector<FileNode *> found;
    forEachNode([&](FileNode *n) {
        if (n->path == path || n->path.starts_with(prefix)) {
            found.push_back(n);
        }
    });
    return found;
}

FileNode *FilesModel::deepestFolderAbove(const std::string &path) const
{
    FileNode *deepest = nullptr;
    forEachNode([&](FileNode *n) {
        if (n->isDirectory && n->path != path && isAtOrBelow(path, n->path) && (!deepest || n->path.size() > deepest->path.size())) {
            deepest = n;
        }
    });
    return deepest;
}

void FilesModel::setScanning(const std::string &folder, bool scanning)
{
    for (FileNode *n : nodesForPath(folder)) {
        if (n->isDirectory && n->scanning != scanning) {
            n->scanning = scanning;
            emitRowChanged(n);
        }
    }
}

namespace
{
void applyTotals(FileNode &n, const WalkTotals &t)
{
    n.known = true;
    n.error.clear();
    n.size = t.bytes;
    n.pages = t.pages;
    n.resident = t.resident;
    n.dirty = t.dirty;
    n.detail = cachestatAvailable();
    n.files = t.files;
    n.hiddenFiles = t.hiddenFiles;
    n.hiddenPages = t.hiddenPages;
}

void applyChild(FileNode &n, const FolderChild &child)
{
    n.known = true;
    n.size = child.size;
    n.pages = child.pages;
    n.resident = child.resident;
    n.dirty = child.dirty;
    n.detail = child.detail;
    n.evicted = child.evicted;
    n.recentlyEvicted = child.recentlyEvicted;
    n.hidden = child.hidden;
    n.noPageCache = child.noPageCache;
    n.notRegular = child.notRegular;
    n.hiddenReason = QString::fromStdString(child.hiddenReason);
    n.error = QString::fromStdString(child.error);
    n.files = child.files;
    n.hiddenFiles = child.hiddenFiles;
    n.hiddenPages = child.hiddenPages;
    if (n.hidden) {
        n.strip.clear();
        n.stripDirty.clear();
    }
}
} // namespace

void FilesModel::applyFolderScan(const FolderScan &scan)
{
    for (FileNode *n : nodesForPath(scan.root)) {
        if (!n->isDirectory) {
            continue;
        }
        n->scanning = false;
        n->cancelled = scan.cancelled;
        n->totalsReadAtMs = scan.readAtMs;
        n->problem = QString::fromStdString(scan.firstProblem);
        applyTotals(*n, scan.total);
        emitRowChanged(n);
        if (n->childState != FileNode::Children::NotAsked) {
            mergeChildren(n, scan);
        }
    }
    setTotalsReadAt(scan);
}

void FilesModel::setTotalsReadAt(const FolderScan &scan)
{
    // A row that said its totals' age says it no more once they are fresh.
    const auto freshen = [this](FileNode *node) {
        if (!node->ageShown.isEmpty() && !totalsAreStale(*node)) {
            node->ageShown.clear();
            const QModelIndex cached = indexOf(node, CachedColumn);
            Q_EMIT dataChanged(cached, cached, {Qt::DisplayRole, Qt::ToolTipRole});
        }
    };
    for (FileNode *n : nodesForPath(scan.root)) {
        if (!n->isDirectory) {
            continue;
        }
        n->totalsReadAtMs = scan.readAtMs;
        freshen(n);
        for (const auto &child : n->children) {
            child->totalsReadAtMs = scan.readAtMs;
            freshen(child.get());
        }
    }
}

void FilesModel::ageChanged(FileNode *node)
{
    QString age = shortTotalsAgeText(node->totalsReadAtMs);
    if (age == node->ageShown) {
        return;
    }
    const bool firstShown = node->ageShown.isEmpty();
    node->ageShown = std::move(age);
    const QModelIndex index = indexOf(node);
    if (index.isValid()) {
        const QModelIndex cached = index.siblingAtColumn(CachedColumn);
        Q_EMIT dataChanged(cached, cached, {Qt::DisplayRole, Qt::ToolTipRole});
        if (firstShown) {
            Q_EMIT totalsAgeShown();
        }
    }
}

void FilesModel::mergeChildren(FileNode *folder, const FolderScan &scan)
{
    const QModelIndex folderIndex = indexOf(folder);
    std::unordered_map<std::string_view, const FolderChild *> byName;
    byName.reserve(scan.children.size());
    for (const FolderChild &child : scan.children) {
        byName.emplace(child.name, &child);
    }

    // Rows that vanished go, unless the walk was cancelled and simply did not get there.
    if (!scan.cancelled) {
        for (int row = int(folder->children.size()) - 1; row >= 0; --row) {
            const FileNode &existing = *folder->children[size_t(row)];
            const std::string name = existing.path.substr(existing.path.rfind('/') + 1);
            if (!byName.contains(name)) {
                beginRemoveRows(folderIndex, row, row);
                folder->children.erase(folder->children.begin() + row);
                endRemoveRows();
            }
        }
    }

    std::unordered_map<std::string, FileNode *> existingByName;
    for (const auto &child : folder->children) {
        existingByName.emplace(child->path.substr(child->path.rfind('/') + 1), child.get());
    }
    std::vector<std::unique_ptr<FileNode>> added;
    for (const FolderChild &child : scan.children) {
        auto it = existingByName.find(child.name);
        if (it != existingByName.end() && it->second->isDirectory == child.isDirectory) {
            applyChild(*it->second, child);
            continue;
        }
        auto n = std::make_unique<FileNode>();
        n->path = joinPath(folder->path, child.name);
        n->displayName = QFile::decodeName(QByteArray(child.name.data(), qsizetype(child.name.size())));
        n->isDirectory = child.isDirectory;
        n->parent = folder;
        applyChild(*n, child);
        added.push_back(std::move(n));
    }
    if (!folder->children.empty()) {
        Q_EMIT dataChanged(index(0, 0, folderIndex), index(int(folder->children.size()) - 1, ColumnCount - 1, folderIndex));
    }
    if (!added.empty()) {
        const int first = int(folder->children.size());
        beginInsertRows(folderIndex, first, first + int(added.size()) - 1);
        for (auto &n : added) {
            folder->children.push_back(std::move(n));
        }
        endInsertRows();
    }
    if (folder->childState != FileNode::Children::Filled) {
        folder->childState = FileNode::Children::Filled;
        // hasChildren() may have changed (an empty folder).
        emitRowChanged(folder);
    }
}

bool FilesSortProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const bool leftFolder = left.data(FilesModel::IsDirectoryRole).toBool();
    const bool rightFolder = right.data(FilesModel::IsDirectoryRole).toBool();
    if (leftFolder != rightFolder) {
        // Folders first in either order, as in Dolphin: the proxy swaps the
        // arguments for a descending sort, so answer accordingly.
        return sortOrder() == Qt::AscendingOrder ? leftFolder : rightFolder;
    }
    const QVariant a = left.data(FilesModel::SortRole);
    const QVariant b = right.data(FilesModel::SortRole);
    if (a.typeId() == QMetaType::QString) {
        const int order = compareNames(a.toString(), b.toString());
        if (order != 0) {
            return order < 0;
        }
    } else {
        const double x = a.toDouble();
        const double y = b.toDouble();
        if (x != y) {
            return x < y;
        }
    }
    // A stable order for equal keys, so that live updates do not shuffle rows.
    return left.data(FilesModel::PathRole).toByteArray() < right.data(FilesModel::PathRole).toByteArray();
}

} // namespace Cachescope::App
