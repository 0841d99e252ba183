// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filespanel.h"

#include "cachescope_app_debug.h"
#include "droppedurls.h"
#include "evictdropzone.h"
#include "filedialogs.h"
#include "filesactions.h"
#include "filesjob.h"
#include "filesjobreport.h"
#include "filesmessagebar.h"
#include "filesmodel.h"
#include "filesnaming.h"
#include "filesview.h"
#include "format.h"
#include "heatmap/heatmapwidget.h"
#include "keepinmemory.h"
#include "liverefresh.h"
#include "residencydelegate.h"
#include "snapshotcomparison.h"
#include "topcacheddialog.h"
#include "uniquefd.h"

#include <KActionCollection>
#include <KIO/StatJob>
#include <KLocalizedString>
#include <KMessageWidget>
#include <KProtocolInfo>

#include <QAction>
#include <QDateTime>
#include <QDebug>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStandardPaths>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <optional>
#include <set>

namespace Cachescope::App
{

namespace
{

// Paths are bytes: a URL's percent-encoded path gives them back as they are,
// also for a name that is not UTF-8 (the list's own rows dragged out).
std::string localPathOf(const QUrl &url)
{
    std::string path = localPathOfUrl(url);
    while (path.size() > 1 && path.back() == '/') {
        path.pop_back();
    }
    return path;
}

// The bytes of a path as a QString names them (a file dialog's answer).
std::string encodedPath(const QString &path)
{
    return QFile::encodeName(path).toStdString();
}

} // namespace

struct FilesPanel::Private {
    FilesPanel *q = nullptr;
    FilesModel *model = nullptr;
    FilesSortProxyModel *proxy = nullptr;
    FilesView *view = nullptr;
    ResidencyDelegate *delegate = nullptr;
    HeatmapWidget *heatmap = nullptr;
    QLabel *heatmapTitle = nullptr;
    EvictDropZone *dropZone = nullptr;
    FilesMessageBar *messageBar = nullptr;
    KeepInMemory *pins = nullptr;
    QWidget *progressRow = nullptr;
    QLabel *progressLabel = nullptr;
    QProgressBar *progressBar = nullptr;
    QPushButton *cancelButton = nullptr;

    LiveRefresh *live = nullptr;
    bool cachedColumnFitsAge = false; // widened once for "· 1 min ago"
    QTimer progressTimer;

    // Compare with Snapshot: the comparison on show, the job making the
    // newest one (an older one's answer is dropped), and the bar that says
    // what is compared and leads out of it.
    std::shared_ptr<const SnapshotComparison> comparison;
    FilesJob *compareJob = nullptr;
    KMessageWidget *compareBar = nullptr;
    QAction *compareAgain = nullptr;
    // Where the snapshot dialogs open: the folder of the last snapshot.
    QString snapshotFolder;

    FilesActions *actions = nullptr;
    bool privilegedHelperAvailable = false;

    bool followSymlinks = false;
    bool oneFileSystem = false;

    // While a menu for other files than the list's selection is open (Top
    // Cached Files' results): the files its actions act on.
    std::optional<std::vector<std::string>> menuFiles;
    // A file to select once the folder walks on the way to its row report.
    std::string pendingReveal;

    std::vector<FilesJob *> jobs; // owned by the panel (QObject children)
    std::set<std::string> expandedForBenchmark;
    int pendingUrlJobs = 0; // KIO::mostLocalUrl jobs under way
    bool wasBusy = false;

    WalkOptions walkOptions() const
    {
        WalkOptions options;
        options.followSymlinks = followSymlinks;
        options.oneFileSystem = oneFileSystem;
        return options;
    }

    // What a snapshot of the list records: its top-level rows (the rows below them are in their walks).
    std::vector<std::string> listRoots() const
    {
        std::vector<std::string> roots;
        roots.reserve(size_t(model->topLevelCount()));
        for (int row = 0; row < model->topLevelCount(); ++row) {
            roots.push_back(model->node(model->index(row, 0))->path);
        }
        return roots;
    }

    // Their size, for the progress bar; 0 while any is not known yet.
    uint64_t listBytes() const
    {
        uint64_t bytes = 0;
        for (int row = 0; row < model->topLevelCount(); ++row) {
            const FileNode *n = model->node(model->index(row, 0));
            if (!n->known) {
                return 0;
            }
            bytes += n->size;
        }
        return bytes;
    }

    QString snapshotDialogFolder() const
    {
        return snapshotFolder.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation) : snapshotFolder;
    }

    bool busy() const
    {
        if (pendingUrlJobs > 0) {
            return true;
        }
        return std::any_of(jobs.begin(), jobs.end(), [](const FilesJob *job) {
            return job->showsProgress;
        });
    }

    bool currentIsHidden() const
    {
        const FileNode *current = currentNode();
        return current && !current->isDirectory && current->hidden;
    }

    FileNode *currentNode() const
    {
        const QModelIndex current = view->currentIndex();
        return current.isValid() ? model->node(proxy->mapToSource(current)) : nullptr;
    }

    std::vector<FileNode *> selectedNodes() const
    {
        std::vector<FileNode *> nodes;
        const QModelIndexList rows = view->selectionModel()->selectedRows();
        for (const QModelIndex &row : rows) {
            nodes.push_back(model->node(proxy->mapToSource(row)));
        }
        if (nodes.empty()) {
            if (FileNode *current = currentNode()) {
                nodes.push_back(current);
            }
        }
        return nodes;
    }

    std::vector<std::string> selectedPaths() const
    {
        if (menuFiles) {
            return *menuFiles;
        }
        std::vector<std::string> paths;
        std::set<std::string> seen;
        for (const FileNode *n : selectedNodes()) {
            if (seen.insert(n->path).second) {
                paths.push_back(n->path);
            }
        }
        return paths;
    }

    bool scanRunningFor(const std::string &folder) const
    {
        return std::any_of(jobs.begin(), jobs.end(), [&](const FilesJob *job) {
            return job->kind() == FilesJob::Kind::Scan && !live->isQuietScan(job)
                && std::find(job->roots().begin(), job->roots().end(), folder) != job->roots().end();
        });
    }

    void readFileNow(FileNode *n)
    {
        live->readFile(n);
    }

    // Where Top Cached Files looks: the selected folders and the folders of
    // the selected files, none below another (its walk has them); the home
    // folder when nothing is selected.
    std::vector<std::string> topCachedFolders() const
    {
        std::vector<std::string> folders;
        for (const FileNode *n : selectedNodes()) {
            folders.push_back(n->isDirectory ? n->path : folderOf(n->path));
        }
        if (folders.empty()) {
            return {QFile::encodeName(QDir::homePath()).toStdString()};
        }
        std::sort(folders.begin(), folders.end());
        std::vector<std::string> outermost;
        for (const std::string &folder : folders) {
            if (outermost.empty() || !isAtOrBelow(folder, outermost.back())) {
                outermost.push_back(folder);
            }
        }
        return outermost;
    }

    // The files of a menu that are not the list's selection.
    FilesActions::Selection selectionOfFiles(const std::vector<std::string> &paths) const
    {
        FilesActions::Selection selection;
        selection.any = !paths.empty();
        selection.allKept = std::all_of(paths.begin(), paths.end(), [this](const std::string &path) {
            return pins->isKept(path);
        });
        selection.keeping = pins->isBusy();
        selection.listHasRows = model->topLevelCount() > 0;
        selection.comparing = comparison != nullptr;
        return selection;
    }

    void updateActions()
    {
        if (menuFiles) {
            actions->updateEnabled(selectionOfFiles(*menuFiles), busy(), privilegedHelperAvailable);
            return;
        }
        const auto nodes = selectedNodes();
        FilesActions::Selection selection;
        selection.any = !nodes.empty();
        selection.anyTopLevel = std::any_of(nodes.begin(), nodes.end(), [](const FileNode *n) {
            return n->parent && !n->parent->parent;
        });
        selection.anyFolder = std::any_of(nodes.begin(), nodes.end(), [](const FileNode *n) {
            return n->isDirectory;
        });
        selection.currentIsHidden = currentIsHidden();
        selection.allKept = std::all_of(nodes.begin(), nodes.end(), [this](const FileNode *n) {
            return !n->isDirectory && pins->isKept(n->path);
        });
        selection.keeping = pins->isBusy();
        selection.listHasRows = model->topLevelCount() > 0;
        selection.comparing = comparison != nullptr;
        if (selection.any) {
            for (const std::string &folder : topCachedFolders()) {
                selection.topCachedFolders << displayBaseName(folder);
            }
        }
        actions->updateEnabled(selection, busy(), privilegedHelperAvailable);
    }

    // The list's menu, for files that are not its selection: its actions act
    // on them while it is open.
    void execFileMenu(const std::vector<std::string> &paths, QMenu &menu, const QPoint &globalPos)
    {
        menuFiles = paths;
        updateActions();
        actions->fillFileMenu(menu);
        menu.exec(globalPos);
        menuFiles.reset();
        updateActions();
    }

    // The row showing path: selected and scrolled to, the folders above it
    // expanded. A file below a listed folder whose walk has not listed its
    // children yet gets them walked, and is selected once they are
    // (pendingReveal). False when the list has it nowhere.
    bool reveal(const std::string &path)
    {
        pendingReveal.clear();
        const std::vector<FileNode *> rows = model->nodesForPath(path);
        FileNode *row = rows.empty() ? nullptr : rows.front();
        for (FileNode *candidate : rows) {
            if (isShown(candidate)) {
                row = candidate;
                break;
            }
        }
        if (row) {
            expandAbove(row);
            const QModelIndex index = proxy->mapFromSource(model->indexOf(row));
            view->setCurrentIndex(index);
            view->scrollTo(index);
            return true;
        }
        FileNode *folder = model->deepestFolderAbove(path);
        if (!folder || folder->childState == FileNode::Children::Filled) {
            // Not below a listed folder, or its walk did not find it.
            return false;
        }
        pendingReveal = path;
        expandAbove(folder);
        const QModelIndex source = model->indexOf(folder);
        if (model->canFetchMore(source)) {
            model->fetchMore(source);
        }
        view->expand(proxy->mapFromSource(source));
        return true;
    }

    bool isShown(const FileNode *n) const
    {
        for (const FileNode *above = n->parent; above && above->parent; above = above->parent) {
            if (!view->isExpanded(proxy->mapFromSource(model->indexOf(above)))) {
                return false;
            }
        }
        return true;
    }

    // Expands the folders above n, the outermost first (a folder is laid out
    // only once the one above it is expanded).
    void expandAbove(const FileNode *n)
    {
        std::vector<const FileNode *> above;
        for (const FileNode *folder = n->parent; folder && folder->parent; folder = folder->parent) {
            above.push_back(folder);
        }
        for (auto it = above.rbegin(); it != above.rend(); ++it) {
            view->expand(proxy->mapFromSource(model->indexOf(*it)));
        }
    }

    void showCurrentInHeatmap()
    {
        const FileNode *n = currentNode();
        if (n && !n->isDirectory && n->noPageCache) {
            // Never opened for a heatmap: there is no page of it to show.
            heatmap->setFile({});
            heatmapTitle->setText(
                i18nc("@info file path", "%1 is on a file system that keeps no page cache (proc, sysfs, ...): it has no pages to show", displayPath(n->path)));
        } else if (n && !n->isDirectory) {
            heatmap->setFile(n->path);
            heatmapTitle->setText(displayPath(n->path));
            if (comparison && comparison->change(n->path, false).compared) {
                const SnapshotFile *recorded = comparison->recorded(n->path);
                heatmap->setComparison(recorded ? recorded->ranges : std::vector<PageRange>{},
                                       recorded != nullptr,
                                       QFileInfo(displayPath(comparison->file())).fileName());
            } else {
                heatmap->clearComparison();
            }
        } else {
            heatmap->setFile({});
            heatmapTitle->setText(i18nc("@info", "Select a file to see where its cached pages are"));
        }
        updateActions();
    }
};

FilesPanel::FilesPanel(QWidget *parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    d->q = this;
    d->model = new FilesModel(this);
    d->proxy = new FilesSortProxyModel(this);
    d->proxy->setSourceModel(d->model);
    d->proxy->setSortRole(FilesModel::SortRole);

    d->view = new FilesView(this);
    d->view->setAccessibleName(i18nc("@info:whatsthis", "Files and their page cache"));
    d->view->setModel(d->proxy);
    d->view->setUniformRowHeights(true);
    d->view->setAllColumnsShowFocus(true);
    d->view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    d->view->setSelectionBehavior(QAbstractItemView::SelectRows);
    d->view->setSortingEnabled(true);
    d->view->sortByColumn(FilesModel::NameColumn, Qt::AscendingOrder);
    d->view->setContextMenuPolicy(Qt::CustomContextMenu);
    d->delegate = new ResidencyDelegate(this);
    d->view->setItemDelegateForColumn(FilesModel::ResidencyColumn, d->delegate);
    QHeaderView *header = d->view->header();
    const int numberWidth = fontMetrics().horizontalAdvance(QStringLiteral("1,023.9 MiB")) + 24;
    for (int column : {FilesModel::SizeColumn, FilesModel::CachedColumn, FilesModel::DirtyColumn}) {
        header->resizeSection(column, numberWidth);
    }
    header->resizeSection(FilesModel::CachedPercentColumn, fontMetrics().horizontalAdvance(QStringLiteral("100% · 99 hidden")) + 16);
    header->resizeSection(FilesModel::ResidencyColumn, FilesModel::stripCells * 3 + 8);
    header->resizeSection(FilesModel::ChangeColumn, fontMetrics().horizontalAdvance(QStringLiteral("+1,023.9 MiB −1,023.9 MiB")) + 24);
    header->setSectionHidden(FilesModel::ChangeColumn, true); // until a snapshot is compared
    // However small the window, the list shows its header and four rows.
    d->view->setMinimumHeight(header->sizeHint().height() + 4 * (fontMetrics().height() + 8) + 2 * d->view->frameWidth());

    // Below the list: the detail heatmap of the selected file, and beside it the evict drop zone.
    auto *detail = new QWidget(this);
    auto *detailLayout = new QVBoxLayout(detail);
    // Its title, header and legend are text: kept off the window's edge, as
    // the drop zone beside it is.
    detailLayout->setContentsMargins(style()->pixelMetric(QStyle::PM_LayoutLeftMargin), style()->pixelMetric(QStyle::PM_LayoutTopMargin) / 2, 0, 0);
    d->heatmapTitle = new QLabel(detail);
    d->heatmapTitle->setObjectName(QStringLiteral("heatmapTitle"));
    d->heatmapTitle->setTextFormat(Qt::PlainText);
    d->heatmapTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    d->heatmapTitle->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    detailLayout->addWidget(d->heatmapTitle);
    d->heatmap = new HeatmapWidget(detail);
    d->heatmap->setObjectName(QStringLiteral("detailHeatmap"));
    d->heatmap->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    detailLayout->addWidget(d->heatmap, 1);

    d->dropZone = new EvictDropZone(this);

    auto *bottom = new QWidget(this);
    auto *bottomLayout = new QHBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->addWidget(detail, 1);
    bottomLayout->addWidget(d->dropZone);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->setObjectName(QStringLiteral("filesSplitter"));
    splitter->addWidget(d->view);
    splitter->addWidget(bottom);
    // The list takes what the window grows by; the heatmap keeps its height
    // and can be collapsed (the main window sets and remembers the sizes).
    splitter->setCollapsible(0, false);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 0);

    // Progress of long walks, with Cancel; hidden while nothing long runs.
    d->progressRow = new QWidget(this);
    d->progressRow->setObjectName(QStringLiteral("progressRow"));
    auto *progressLayout = new QHBoxLayout(d->progressRow);
    progressLayout->setContentsMargins(0, 0, 0, 0);
    d->progressLabel = new QLabel(d->progressRow);
    d->progressBar = new QProgressBar(d->progressRow);
    d->progressBar->setTextVisible(false);
    d->progressBar->setMaximumWidth(fontMetrics().averageCharWidth() * 40);
    d->cancelButton = new QPushButton(QIcon::fromTheme(QStringLiteral("process-stop")), i18nc("@action:button stop the walk", "Cancel"), d->progressRow);
    d->cancelButton->setObjectName(QStringLiteral("cancelButton"));
    progressLayout->addWidget(d->progressLabel, 1);
    progressLayout->addWidget(d->progressBar);
    progressLayout->addWidget(d->cancelButton);
    d->progressRow->setVisible(false);

    // Messages above the list, as in Dolphin's views: every message() shows there.
    d->messageBar = new FilesMessageBar(this);
    connect(this, &FilesPanel::message, d->messageBar, &FilesMessageBar::showText);
    connect(d->messageBar, &FilesMessageBar::flushAndEvictRequested, this, [this](const std::vector<std::string> &paths) {
        startEvict(paths, true);
    });

    // Actions exist from the start (the context menu and tests use them);
    // setUpActions() puts them into the window's collection.
    d->actions = new FilesActions(this);

    // While the list is compared with a snapshot: which, what changed, and the way out.
    d->compareBar = new KMessageWidget(this);
    d->compareBar->setObjectName(QStringLiteral("compareBar"));
    d->compareBar->setMessageType(KMessageWidget::Information);
    d->compareBar->setIcon(QIcon::fromTheme(QStringLiteral("vcs-diff")));
    d->compareBar->setWordWrap(true);
    d->compareBar->setCloseButtonVisible(false); // Stop Comparing says what closing it does
    d->compareAgain = new QAction(QIcon::fromTheme(QStringLiteral("view-refresh")), i18nc("@action:button", "Compare Again"), this);
    d->compareBar->addAction(d->compareAgain);
    d->compareBar->addAction(d->actions->stopComparing);
    d->compareBar->hide();
    connect(d->compareAgain, &QAction::triggered, this, [this] {
        if (d->comparison) {
            startCompare(d->comparison->file(), d->comparison->before(), true);
        }
    });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(d->messageBar);
    layout->addWidget(d->compareBar);
    layout->addWidget(splitter, 1);
    layout->addWidget(d->progressRow);

    // The heatmap draws the button for a hidden file; it stays disabled until the helper exists.
    d->heatmap->setPrivilegedViewAvailable(false, d->actions->showPrivileged->toolTip());

    connect(d->actions->addFiles, &QAction::triggered, this, [this] {
        const QList<QUrl> urls = chooseFilesToInspect(this, i18nc("@title:window", "Add Files"));
        if (!urls.isEmpty()) {
            inspectUrls(urls);
        }
    });
    connect(d->actions->addFolder, &QAction::triggered, this, [this] {
        const QUrl url = chooseFolder(this, i18nc("@title:window", "Add Folder"));
        if (!url.isEmpty()) {
            inspectUrls({url});
        }
    });
    // Keep in Memory: the locks live while the window does, or until released.
    d->pins = new KeepInMemory(this);
    d->model->setKeptCheck([pins = d->pins](const std::string &path) {
        return pins->isKept(path);
    });
    connect(d->pins, &KeepInMemory::message, this, &FilesPanel::message);
    // As after Load: the files read again now, and the folders above counted again.
    connect(d->pins, &KeepInMemory::loaded, this, &FilesPanel::refreshAfterChange);
    connect(d->pins, &KeepInMemory::changed, this, [this] {
        d->view->viewport()->update();
        d->updateActions();
    });
    connect(d->actions->keepInMemory, &QAction::triggered, this, [this](bool keep) {
        if (keep) {
            d->pins->keep(d->selectedPaths());
        } else {
            d->pins->release(d->selectedPaths());
        }
        d->updateActions();
    });
    connect(d->actions->remove, &QAction::triggered, this, [this] {
        QModelIndexList sourceRows;
        const auto selectedRows = d->view->selectionModel()->selectedRows();
        for (const QModelIndex &row : selectedRows) {
            sourceRows.append(d->proxy->mapToSource(row));
            if (!sourceRows.last().parent().isValid()) { // only top-level rows leave the list
                d->pins->releaseUnder(d->model->node(sourceRows.last())->path);
            }
        }
        d->model->removeTopLevel(sourceRows);
        d->pendingReveal.clear();
        d->showCurrentInHeatmap();
    });
    connect(d->actions->evict, &QAction::triggered, this, [this] {
        startEvict(d->selectedPaths(), false);
    });
    connect(d->actions->flushAndEvict, &QAction::triggered, this, [this] {
        startEvict(d->selectedPaths(), true);
    });
    connect(d->actions->load, &QAction::triggered, this, [this] {
        startLoad(d->selectedPaths());
    });
    connect(d->actions->topCached, &QAction::triggered, this, [this] {
        startTopCached(d->topCachedFolders());
    });
    connect(d->actions->refresh, &QAction::triggered, this, [this] {
        d->live->refreshNow();
        if (d->comparison) {
            startCompare(d->comparison->file(), d->comparison->before(), false);
        }
    });
    connect(d->actions->saveSnapshot, &QAction::triggered, this, [this] {
        const QString proposed = QStringLiteral("cachescope-snapshot-%1.json").arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd-HHmmss")));
        const QUrl chosen =
            chooseSnapshotToSave(this, i18nc("@title:window", "Save Snapshot"), QUrl::fromLocalFile(QDir(d->snapshotDialogFolder()).filePath(proposed)));
        if (!chosen.isLocalFile()) {
            return;
        }
        QString file = chosen.toLocalFile();
        if (QFileInfo(file).suffix().isEmpty()) {
            file += QStringLiteral(".json");
        }
        saveSnapshot(file);
    });
    const auto askSnapshot = [this](const QString &title) {
        const QUrl chosen = chooseSnapshotToOpen(this, title, QUrl::fromLocalFile(d->snapshotDialogFolder()));
        return chosen.isLocalFile() ? chosen.toLocalFile() : QString();
    };
    connect(d->actions->compareSnapshot, &QAction::triggered, this, [this, askSnapshot] {
        const QString file = askSnapshot(i18nc("@title:window", "Compare with Snapshot"));
        if (!file.isEmpty()) {
            compareWithSnapshot(file);
        }
    });
    connect(d->actions->restoreSnapshot, &QAction::triggered, this, [this, askSnapshot] {
        const QString file = askSnapshot(i18nc("@title:window", "Restore Snapshot"));
        if (!file.isEmpty()) {
            restoreSnapshot(file);
        }
    });
    connect(d->actions->stopComparing, &QAction::triggered, this, &FilesPanel::stopComparing);
    // Save Snapshot and Compare with Snapshot need rows.
    connect(d->model, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex &parent) {
        if (!parent.isValid()) {
            d->updateActions();
        }
    });
    connect(d->model, &QAbstractItemModel::rowsRemoved, this, [this](const QModelIndex &parent) {
        if (!parent.isValid()) {
            d->updateActions();
        }
    });
    connect(d->actions->cancel, &QAction::triggered, this, &FilesPanel::cancelAll);
    connect(d->cancelButton, &QPushButton::clicked, this, &FilesPanel::cancelAll);
    connect(d->actions->showPrivileged, &QAction::triggered, this, [this] {
        if (const FileNode *n = d->currentNode()) {
            Q_EMIT privilegedViewRequested(n->path);
        }
    });
    connect(d->heatmap, &HeatmapWidget::privilegedViewRequested, this, &FilesPanel::privilegedViewRequested);

    connect(d->view, &FilesView::urlsDropped, this, &FilesPanel::inspectUrls);
    connect(d->dropZone, &EvictDropZone::urlsDropped, this, &FilesPanel::evictUrls);
    connect(d->view, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        QMenu menu(this);
        d->actions->fillContextMenu(menu, d->currentIsHidden());
        menu.exec(d->view->viewport()->mapToGlobal(pos));
    });
    connect(d->view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        d->showCurrentInHeatmap();
    });
    connect(d->view->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        d->updateActions();
    });
    connect(d->model, &FilesModel::folderScanWanted, this, [this](const std::string &folder) {
        if (!d->scanRunningFor(folder)) {
            startScan({folder}, true);
        }
    });
    // The live refresh: only while someone looks, only what shows.
    d->live = new LiveRefresh(d->model, d->proxy, d->view, this, this);
    d->live->setScanRunning([this](const std::string &folder) {
        return d->scanRunningFor(folder);
    });
    d->live->setScanStarter([this](const std::vector<std::string> &folders) {
        // One thread, whose CPU time the refresh's budget is charged
        // (FilesJob::walkThreadCpuNs): a quiet walk, not a burst on every core.
        WalkOptions options = d->walkOptions();
        options.threads = 1;
        auto *job = new FilesJob(FilesJob::Kind::Scan, folders, options, this);
        job->showsProgress = false;
        return startJob(job);
    });
    connect(d->live, &LiveRefresh::refreshed, d->heatmap, &HeatmapWidget::refresh);
    // The Cached column is sized for a figure; the first time a folder's
    // totals say their age ("1.2 GiB · 1 min ago") it widens to show it
    // whole, once: a width the person chooses after that is theirs.
    connect(d->model, &FilesModel::totalsAgeShown, this, [this] {
        if (d->cachedColumnFitsAge) {
            return;
        }
        d->cachedColumnFitsAge = true;
        // The widest the words get: a figure of four digits, and the longer
        // of "59 min ago" and "99 h ago" in this language.
        const QString figure = formatBytes(uint64_t(1023.9 * 1024 * 1024), ByteStyle::OneDecimal, QLocale());
        int widest = 0;
        for (const QString &age : {i18ncp("@item:intable how old a folder's totals are, short", "%1 min ago", "%1 min ago", 59),
                                   i18ncp("@item:intable how old a folder's totals are, short", "%1 h ago", "%1 h ago", 99)}) {
            const QString text = i18nc("@item:intable cached bytes of a folder, then how old that total is", "%1 · %2", figure, age);
            widest = std::max(widest, fontMetrics().horizontalAdvance(text));
        }
        QHeaderView *header = d->view->header();
        const int wanted = widest + 24;
        if (header->sectionSize(FilesModel::CachedColumn) < wanted) {
            header->resizeSection(FilesModel::CachedColumn, wanted);
        }
    });
    // A row that becomes visible by expanding gets its numbers at once.
    connect(d->view, &QTreeView::expanded, d->live, &LiveRefresh::refreshSoon);

    // The progress row shows up only for walks that last: short ones would flicker.
    d->progressTimer.setInterval(250);
    connect(&d->progressTimer, &QTimer::timeout, this, &FilesPanel::updateProgress);

    d->showCurrentInHeatmap();
}

FilesPanel::~FilesPanel()
{
    // Jobs are children and wait for their threads when deleted: cancel them
    // all first so that they end together.
    for (FilesJob *job : d->jobs) {
        job->cancel();
    }
}

void FilesPanel::setUpActions(KActionCollection *collection)
{
    d->actions->addTo(collection);
}

void FilesPanel::resolveUrls(const QList<QUrl> &urls, const std::function<void(const std::vector<std::string> &)> &use)
{
    std::vector<std::string> local;
    for (const QUrl &url : urls) {
        if (url.isLocalFile()) {
            local.push_back(localPathOf(url));
            continue;
        }
        // trash:/, desktop:/, recentlyused:/ ... are local files under
        // another name; sftp:/, smb:/, http:/ are not, whatever KIO can do.
        if (KProtocolInfo::protocolClass(url.scheme()) != QLatin1String(":local")) {
            qCDebug(CACHESCOPE_APP) << "refused, not a local file:" << url;
            Q_EMIT message(i18nc("@info",
                                 "%1 is not on this computer: the page cache only holds local files. Copy it here first to inspect or evict it.",
                                 url.toDisplayString(QUrl::PreferLocalFile)),
                           true);
            continue;
        }
        ++d->pendingUrlJobs;
        emitBusyIfChanged();
        KIO::StatJob *job = KIO::mostLocalUrl(url, KIO::HideProgressInfo);
        connect(job, &KJob::result, this, [this, job, url, use] {
            --d->pendingUrlJobs;
            if (job->error() || !job->mostLocalUrl().isLocalFile()) {
                qCDebug(CACHESCOPE_APP) << "refused, no local file behind" << url << job->errorString();
            }
            if (job->error()) {
                Q_EMIT message(i18nc("@info", "Cannot find the file behind %1: %2", url.toDisplayString(), job->errorString()), true);
            } else if (!job->mostLocalUrl().isLocalFile()) {
                Q_EMIT message(i18nc("@info", "%1 is not a local file: the page cache only holds local files.", url.toDisplayString()), true);
            } else {
                use({localPathOf(job->mostLocalUrl())});
            }
            emitBusyIfChanged();
        });
    }
    if (!local.empty()) {
        use(local);
    }
}

void FilesPanel::inspectUrls(const QList<QUrl> &urls)
{
    resolveUrls(urls, [this](const std::vector<std::string> &paths) {
        inspectPaths(paths);
    });
}

void FilesPanel::evictUrls(const QList<QUrl> &urls)
{
    resolveUrls(urls, [this](const std::vector<std::string> &paths) {
        startEvict(paths, false);
    });
}

void FilesPanel::showInList(const std::string &path)
{
    if (!d->reveal(path)) {
        inspectPaths({path});
    }
}

void FilesPanel::inspectPaths(const std::vector<std::string> &paths)
{
    std::vector<std::string> folders;
    QModelIndex last;
    for (const std::string &path : paths) {
        struct stat st;
        if (::stat(path.c_str(), &st) != 0) {
            const int error = errno;
            qCDebug(CACHESCOPE_APP) << "cannot inspect" << displayPath(path) << errnoQText(error);
            Q_EMIT message(i18nc("@info file path, reason", "Cannot inspect %1: %2", displayPath(path), errnoQText(error)), true);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            const bool isNew = !d->model->findTopLevel(path).isValid();
            last = d->model->addItem(path, true);
            if (isNew && !d->scanRunningFor(path)) {
                folders.push_back(path);
            }
        } else if (S_ISREG(st.st_mode)) {
            last = d->model->addItem(path, false);
            d->readFileNow(d->model->node(last));
        } else {
            Q_EMIT message(
                i18nc("@info file path",
                      "%1 is not a regular file or a folder (a device, FIFO or socket): it has no pages in the page cache, and Cachescope never opens it.",
                      displayPath(path)),
                true);
        }
    }
    if (!folders.empty()) {
        startScan(folders, true);
    }
    if (last.isValid()) {
        const QModelIndex proxyIndex = d->proxy->mapFromSource(last);
        d->view->setCurrentIndex(proxyIndex);
        d->view->scrollTo(proxyIndex);
    }
}

FilesJob *FilesPanel::startJob(FilesJob *job)
{
    d->jobs.push_back(job);
    connect(job, &FilesJob::finished, this, &FilesPanel::jobFinished);
    job->start();
    if (job->showsProgress && !d->progressTimer.isActive()) {
        d->progressTimer.start();
    }
    emitBusyIfChanged();
    d->updateActions();
    return job;
}

void FilesPanel::startScan(const std::vector<std::string> &folders, bool showsProgress)
{
    auto *job = new FilesJob(FilesJob::Kind::Scan, folders, d->walkOptions(), this);
    job->showsProgress = showsProgress;
    for (const std::string &folder : folders) {
        d->model->setScanning(folder, true);
    }
    qCDebug(CACHESCOPE_APP) << "scan started:" << folders.size() << "folders," << (showsProgress ? "with progress" : "quietly");
    startJob(job);
}

void FilesPanel::startEvict(const std::vector<std::string> &paths, bool flushFirst)
{
    if (paths.empty()) {
        return;
    }
    WalkOptions options = d->walkOptions();
    options.evictOptions.flushDirtyFirst = flushFirst;
    auto *job = new FilesJob(FilesJob::Kind::Evict, paths, options, this);
    job->keptInMemory = d->pins->keptFiles();
    startJob(job);
}

void FilesPanel::startLoad(const std::vector<std::string> &paths)
{
    if (paths.empty()) {
        return;
    }
    auto *job = new FilesJob(FilesJob::Kind::Load, paths, d->walkOptions(), this);
    for (const std::string &path : paths) {
        for (const FileNode *n : d->model->nodesForPath(path)) {
            job->expectedBytes += n->size;
            break;
        }
    }
    startJob(job);
}

void FilesPanel::startTopCached(const std::vector<std::string> &folders)
{
    if (folders.empty()) {
        return;
    }
    startJob(new FilesJob(FilesJob::Kind::Top, folders, d->walkOptions(), this));
}

void FilesPanel::cancelAll()
{
    d->pendingReveal.clear();
    for (FilesJob *job : d->jobs) {
        job->cancel();
    }
}

bool FilesPanel::isBusy() const
{
    return d->busy();
}

void FilesPanel::emitBusyIfChanged()
{
    const bool busy = d->busy();
    if (busy != d->wasBusy) {
        d->wasBusy = busy;
        Q_EMIT busyChanged(busy);
    }
}

void FilesPanel::updateProgress()
{
    uint64_t entries = 0;
    uint64_t bytes = 0;
    uint64_t expected = 0;
    bool expectedKnown = true;
    const FilesJob *first = nullptr;
    for (const FilesJob *job : d->jobs) {
        if (!job->showsProgress) {
            continue;
        }
        first = first ? first : job;
        entries += job->entriesSeen();
        bytes += job->bytesSeen();
        expected += job->bytesExpected();
        expectedKnown = expectedKnown && job->bytesExpected() > 0;
    }
    if (!first) {
        d->progressRow->setVisible(false);
        d->progressTimer.stop();
        return;
    }
    d->progressLabel->setText(FilesJobReport::progress(first->kind(), entries, bytes));
    if (expectedKnown && expected > 0) {
        d->progressBar->setRange(0, 1000);
        d->progressBar->setValue(int(std::min<uint64_t>(1000, bytes * 1000 / expected)));
    } else {
        d->progressBar->setRange(0, 0); // busy: the total is not known before the walk
    }
    d->progressRow->setVisible(true);
}

void FilesPanel::jobFinished(FilesJob *job)
{
    d->jobs.erase(std::remove(d->jobs.begin(), d->jobs.end(), job), d->jobs.end());
    job->deleteLater();
    const bool cancelled = job->wasCancelled();

    switch (job->kind()) {
    case FilesJob::Kind::Scan:
        for (const FolderScan &scan : job->scans) {
            d->model->applyFolderScan(scan);
        }
        qCDebug(CACHESCOPE_APP) << (cancelled ? "scan cancelled" : "scan finished") << "after" << job->elapsedMs << "ms";
        if (cancelled && !d->live->isQuietScan(job)) {
            Q_EMIT message(i18nc("@info", "Counting was cancelled: the totals shown are partial (marked ≥)."), false);
        }
        d->live->scanFinished(job);
        expandForBenchmark(job);
        // Files just listed get their residency strips now, not a second later.
        d->live->refreshFilesShown();
        if (!d->pendingReveal.empty()) {
            showInList(std::string(d->pendingReveal));
        }
        break;
    case FilesJob::Kind::Evict:
        qCDebug(CACHESCOPE_APP) << "evict finished:" << job->evict.total.files << "files," << job->evict.freedPages << "pages freed," << job->evict.hiddenFiles
                                << "hidden," << job->evict.errors << "errors" << (cancelled ? "(cancelled)" : "");
        if (job->evict.errors > 0) {
            qCWarning(CACHESCOPE_APP) << "evict: first error:" << QString::fromStdString(job->evict.firstError);
        }
        report(FilesJobReport::evicted(*job), job->roots());
        refreshAfterChange(job->roots());
        break;
    case FilesJob::Kind::Load: {
        const LoadSummary &s = job->load;
        qCDebug(CACHESCOPE_APP) << "load finished:" << s.total.files << "files," << s.loadedPages << "pages loaded," << s.errors << "errors"
                                << (cancelled ? "(cancelled)" : "");
        report(FilesJobReport::loaded(*job), job->roots());
        refreshAfterChange(job->roots());
        break;
    }
    case FilesJob::Kind::Top:
        if (cancelled) {
            Q_EMIT message(i18nc("@info", "The search for the most cached files was cancelled."), false);
        } else {
            auto *dialog = new TopCachedDialog(job->roots(), job->top, job->result().total, this);
            connect(dialog, &TopCachedDialog::inspectRequested, this, &FilesPanel::showInList);
            connect(dialog, &TopCachedDialog::contextMenuRequested, this, [this, dialog](const std::vector<std::string> &paths, const QPoint &globalPos) {
                QMenu menu(dialog);
                QAction *show = menu.addAction(QIcon::fromTheme(QStringLiteral("go-jump")), i18nc("@action:inmenu", "Show in List"));
                connect(show, &QAction::triggered, this, [this, path = paths.front()] {
                    showInList(path);
                });
                menu.setDefaultAction(show);
                menu.addSeparator();
                d->execFileMenu(paths, menu, globalPos);
            });
            dialog->show();
        }
        break;
    case FilesJob::Kind::SaveSnapshot:
        qCDebug(CACHESCOPE_APP) << "snapshot save finished:" << job->snapshot.files << "files," << job->snapshot.residentPages << "pages,"
                                << job->snapshot.problems << "problems" << (cancelled ? "(cancelled)" : "") << job->snapshot.fileError.c_str();
        report(FilesJobReport::savedSnapshot(*job), {});
        break;
    case FilesJob::Kind::CompareSnapshot:
        compareFinished(job);
        break;
    case FilesJob::Kind::RestoreSnapshot: {
        const RestoreReport &r = job->snapshot.restore;
        qCDebug(CACHESCOPE_APP) << "snapshot restore finished:" << r.filesRestored << "files," << r.pagesResidentAfter << "of" << r.pagesRequested
                                << "pages resident," << r.skipped.size() << "skipped" << (cancelled ? "(cancelled)" : "") << job->snapshot.fileError.c_str();
        report(FilesJobReport::restoredSnapshot(*job), {});
        if (job->snapshot.fileError.empty()) {
            refreshAfterChange(job->snapshot.restoredUnder);
        }
        break;
    }
    }

    updateProgress();
    emitBusyIfChanged();
    d->updateActions();
}

void FilesPanel::report(const FilesMessage &shown, const std::vector<std::string> &paths)
{
    d->messageBar->setNext(shown, paths);
    Q_EMIT message(shown.text, shown.type == KMessageWidget::Error);
}

void FilesPanel::refreshAfterChange(const std::vector<std::string> &roots)
{
    // At most this many files are read at once on the UI thread (about 20 µs each).
    constexpr size_t limit = 2000;
    size_t done = 0;
    for (const std::string &root : roots) {
        for (FileNode *n : d->model->nodesUnder(root)) {
            if (!n->isDirectory && done++ < limit) {
                d->readFileNow(n);
            }
        }
    }
    // Folders that hold these, or lie below them, are counted again.
    const std::vector<std::string> folders = d->model->foldersToRecount(roots);
    if (!folders.empty()) {
        startScan(folders, false);
    }
    d->heatmap->discardPrivilegedView(
        i18nc("@info", "The view with administrator rights was from before Cachescope changed the page cache: show it again to see it now."));
    d->heatmap->refresh();
    const auto dialogs = findChildren<TopCachedDialog *>();
    for (TopCachedDialog *dialog : dialogs) {
        dialog->refreshFigures(roots);
    }
    if (d->comparison) {
        startCompare(d->comparison->file(), d->comparison->before(), false);
    }
    Q_EMIT pageCacheChanged(roots);
}

void FilesPanel::pageCacheChangedElsewhere(const QString &what)
{
    d->heatmap->discardPrivilegedView(
        i18nc("@info %1 what changed the page cache", "The view with administrator rights was from before “%1”: show it again to see it now.", what));
    // What shows is read again, the heatmap with it (LiveRefresh::refreshed),
    // and folders walked again: their totals would lag their files for a sweep.
    d->live->refreshNow();
    if (d->comparison) {
        startCompare(d->comparison->file(), d->comparison->before(), false);
    }
}

void FilesPanel::expandForBenchmark(FilesJob *job)
{
    static const bool wanted = qEnvironmentVariableIntValue("CACHESCOPE_EXPAND_FOLDERS") == 1;
    if (!wanted || job->wasCancelled()) {
        return;
    }
    for (const std::string &root : job->roots()) {
        const QModelIndex top = d->model->findTopLevel(root);
        if (top.isValid() && d->expandedForBenchmark.insert(root).second) {
            d->view->expand(d->proxy->mapFromSource(top));
        }
    }
}

void FilesPanel::setRefreshInterval(int milliseconds)
{
    d->live->setInterval(milliseconds);
}

void FilesPanel::setHeatmapCells(int cells)
{
    d->heatmap->setCells(cells);
}

void FilesPanel::setColors(const QColor &resident, const QColor &dirty, const QColor &empty)
{
    d->delegate->setColors(resident, dirty, empty);
    d->heatmap->setColors(resident, dirty, empty);
    d->view->viewport()->update();
}

void FilesPanel::setFollowSymlinks(bool follow)
{
    d->followSymlinks = follow;
}

void FilesPanel::setOneFileSystem(bool stay)
{
    d->oneFileSystem = stay;
}

void FilesPanel::setPaused(bool paused)
{
    d->live->setPaused(paused);
}

void FilesPanel::setPrivilegedHelperAvailable(bool available, const QString &unavailableReason)
{
    d->privilegedHelperAvailable = available;
    d->actions->showPrivileged->setToolTip(available ? i18nc("@info:tooltip", "Ask the privileged helper for the true residency of this file")
                                                     : unavailableReason);
    d->heatmap->setPrivilegedViewAvailable(available, d->actions->showPrivileged->toolTip());
    d->updateActions();
}

void FilesPanel::hideMessage()
{
    if (d->messageBar->isVisible() && !d->messageBar->isHideAnimationRunning()) {
        d->messageBar->animatedHide();
    }
}

int FilesPanel::heatmapCells() const
{
    return d->heatmap->cells();
}

void FilesPanel::saveSnapshot(const QString &file)
{
    const std::vector<std::string> roots = d->listRoots();
    if (roots.empty()) {
        Q_EMIT message(i18nc("@info", "The list is empty: add the files and folders whose page cache the snapshot should record."), true);
        return;
    }
    d->snapshotFolder = QFileInfo(file).absolutePath();
    auto *job = new FilesJob(FilesJob::Kind::SaveSnapshot, roots, d->walkOptions(), this);
    job->snapshotFile = encodedPath(file);
    job->expectedBytes = d->listBytes();
    qCDebug(CACHESCOPE_APP) << "snapshot save started:" << roots.size() << "roots to" << file;
    startJob(job);
}

void FilesPanel::compareWithSnapshot(const QString &file)
{
    if (d->model->topLevelCount() == 0) {
        Q_EMIT message(i18nc("@info", "The list is empty: add the files and folders to compare with the snapshot first."), true);
        return;
    }
    d->snapshotFolder = QFileInfo(file).absolutePath();
    startCompare(encodedPath(file), nullptr, true);
}

void FilesPanel::startCompare(const std::string &file, std::shared_ptr<const Snapshot> snapshot, bool showsProgress)
{
    const std::vector<std::string> roots = d->listRoots();
    if (roots.empty()) {
        return;
    }
    if (d->compareJob) {
        d->compareJob->cancel(); // superseded: its answer is dropped
    }
    auto *job = new FilesJob(FilesJob::Kind::CompareSnapshot, roots, d->walkOptions(), this);
    job->snapshotFile = file;
    job->snapshotIn = std::move(snapshot);
    job->showsProgress = showsProgress;
    job->expectedBytes = d->listBytes();
    d->compareJob = job;
    qCDebug(CACHESCOPE_APP) << "snapshot compare started:" << roots.size() << "roots with" << displayPath(file) << (showsProgress ? "" : "quietly");
    startJob(job);
}

void FilesPanel::compareFinished(FilesJob *job)
{
    if (job != d->compareJob) {
        return; // a newer comparison is under way, or comparing stopped
    }
    d->compareJob = nullptr;
    const SnapshotSummary &s = job->snapshot;
    if (!s.comparison) {
        qCDebug(CACHESCOPE_APP) << "snapshot compare failed:" << s.fileError.c_str() << (job->wasCancelled() ? "(cancelled)" : "");
        // A quiet comparison again that was cancelled leaves the last one on show.
        if (job->showsProgress || !job->wasCancelled()) {
            report(FilesJobReport::notCompared(*job), {});
        }
        return;
    }
    qCDebug(CACHESCOPE_APP) << "snapshot compared:" << s.comparison->loadedPages() << "pages loaded," << s.comparison->evictedPages() << "evicted,"
                            << s.comparison->filesNotInList() << "files not in the list";
    d->comparison = s.comparison;
    d->model->setComparison(d->comparison);
    d->view->header()->setSectionHidden(FilesModel::ChangeColumn, false);
    d->compareBar->setText(FilesJobReport::comparing(*d->comparison, s));
    d->compareBar->setToolTip(displayPath(d->comparison->file()));
    d->compareBar->animatedShow();
    d->showCurrentInHeatmap();
    if (job->showsProgress) {
        // The other columns read again: beside the change, the cache as it
        // was compared (a quiet comparison again comes with a refresh of its own).
        d->live->refreshNow();
    }
}

void FilesPanel::stopComparing()
{
    if (d->compareJob) {
        d->compareJob->cancel();
        d->compareJob = nullptr;
    }
    if (!d->comparison) {
        return;
    }
    d->comparison.reset();
    d->model->setComparison(nullptr);
    d->view->header()->setSectionHidden(FilesModel::ChangeColumn, true);
    d->compareBar->animatedHide();
    d->heatmap->clearComparison();
    d->updateActions();
}

bool FilesPanel::isComparing() const
{
    return d->comparison != nullptr;
}

void FilesPanel::restoreSnapshot(const QString &file)
{
    d->snapshotFolder = QFileInfo(file).absolutePath();
    auto *job = new FilesJob(FilesJob::Kind::RestoreSnapshot, {}, d->walkOptions(), this);
    job->snapshotFile = encodedPath(file);
    qCDebug(CACHESCOPE_APP) << "snapshot restore started from" << file;
    startJob(job);
}

void FilesPanel::showPrivilegedResidency(const std::string &path, const Cachescope::Histogram &histogram)
{
    // Only if the heatmap still shows that file: the answer may come late.
    if (d->heatmap->file() == path) {
        d->heatmap->setExternalHistogram(histogram);
    }
}

} // namespace Cachescope::App
