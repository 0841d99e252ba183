// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "cachemapview.h"

#include "accountpartsdialog.h"
#include "accountscan.h"
#include "accounttext.h"
#include "cachemapscan.h"
#include "cachemapwidget.h"
#include "experiments/figuretext.h"
#include "files/filedialogs.h"

#include "format.h"
#include "residency.h"

#include <KLocalizedString>

#include <algorithm>

#include <QApplication>
#include <QClipboard>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPointer>
#include <QPushButton>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace Cachescope::App
{

struct CacheMapView::Private {
    CacheMapScan *scan = nullptr;
    CacheMapWidget *map = nullptr;
    QToolButton *backButton = nullptr;
    QToolButton *upButton = nullptr;
    QLabel *location = nullptr;
    QPushButton *wholeSystemButton = nullptr;
    QPushButton *folderButton = nullptr;
    QPushButton *refreshButton = nullptr;
    // Text, not a busy bar: a busy bar repaints many times a second, and on
    // two cores that took 15-20 % from the walk it waits for.
    QLabel *progress = nullptr;
    QPushButton *cancelButton = nullptr;
    QLabel *summary = nullptr;
    // The account of Cached under the map of / (AccountScan), its parts as links.
    QLabel *account = nullptr;
    AccountScan *accountScan = nullptr;
    std::shared_ptr<const CacheAccount> lastAccount;
    // The account on show was made by the helper as root (until the next map).
    bool accountPrivileged = false;
    bool askingHelper = false;
    QString helperFailure;
    CacheMapView::HelperAccount helperAccount;
    QString helperUnavailable;
    QTimer *progressTimer = nullptr;

    std::shared_ptr<const CacheMapTree> tree;
    uint32_t shown = CacheMapFolder::NoParent; // the folder shown, in tree
    // The map before a new walk: freed once the new one is whole, not in
    // the walk's way (a map of / is some 16,000 folders to free).
    std::shared_ptr<const CacheMapTree> retired;
    QString root;
    QString current; // the folder shown, by path: kept across snapshots
    QStringList history; // for Back
    bool oneFileSystem = false;
    bool walkKernelFileSystems = false;
    bool complete = false;
    bool shownOnce = false;
    // The picture shown is the map before a Refresh, until the new walk's first snapshot or its end.
    bool previousShown = false;
    // The page cache changed by an action of the window while the map was not on show.
    bool outdated = false;
    QElapsedTimer walkTime;
};

CacheMapView::CacheMapView(QWidget *parent)
    : QWidget(parent)
    , d(std::make_unique<Private>())
{
    d->scan = new CacheMapScan(this);
    d->map = new CacheMapWidget(this);
    d->map->setObjectName(QStringLiteral("cacheMapWidget"));

    d->backButton = new QToolButton(this);
    d->backButton->setIcon(QIcon::fromTheme(QStringLiteral("go-previous")));
    d->backButton->setToolTip(i18nc("@info:tooltip", "Back to the folder shown before"));
    d->backButton->setAccessibleName(i18nc("@action:button", "Back"));
    d->backButton->setAutoRaise(true);
    d->upButton = new QToolButton(this);
    d->upButton->setIcon(QIcon::fromTheme(QStringLiteral("go-up")));
    d->upButton->setToolTip(i18nc("@info:tooltip", "The folder above"));
    d->upButton->setAccessibleName(i18nc("@action:button", "Up"));
    d->upButton->setAutoRaise(true);
    d->location = new QLabel(this);
    d->location->setTextInteractionFlags(Qt::TextSelectableByMouse);
    d->location->setObjectName(QStringLiteral("cacheMapLocation"));
    d->wholeSystemButton = new QPushButton(QIcon::fromTheme(QStringLiteral("drive-harddisk-root")), i18nc("@action:button", "Whole System"), this);
    d->wholeSystemButton->setToolTip(i18nc("@info:tooltip", "Map the page cache of every folder from /"));
    d->folderButton = new QPushButton(QIcon::fromTheme(QStringLiteral("folder-open")), i18nc("@action:button", "Map Folder…"), this);
    d->refreshButton = new QPushButton(QIcon::fromTheme(QStringLiteral("view-refresh")), i18nc("@action:button", "Refresh"), this);
    d->refreshButton->setToolTip(i18nc("@info:tooltip", "Walk the map's folder again: the map is a picture of one moment"));

    auto *header = new QHBoxLayout;
    header->addWidget(d->backButton);
    header->addWidget(d->upButton);
    header->addWidget(d->location, 1);
    header->addWidget(d->wholeSystemButton);
    header->addWidget(d->folderButton);
    header->addWidget(d->refreshButton);

    d->progress = new QLabel(this);
    d->progress->setObjectName(QStringLiteral("cacheMapProgress"));
    d->cancelButton = new QPushButton(QIcon::fromTheme(QStringLiteral("dialog-cancel")), i18nc("@action:button", "Cancel"), this);
    // The progress row keeps its height between walks (it then says when the
    // map was made): the map below does not jump, nor is it laid out and
    // drawn again, each time a walk starts and ends.
    QSizePolicy keepSpace = d->cancelButton->sizePolicy();
    keepSpace.setRetainSizeWhenHidden(true);
    d->cancelButton->setSizePolicy(keepSpace);
    auto *progressRow = new QHBoxLayout;
    progressRow->addWidget(d->progress, 1);
    progressRow->addWidget(d->cancelButton);

    d->summary = new QLabel(this);
    d->summary->setWordWrap(true);
    d->summary->setObjectName(QStringLiteral("cacheMapSummary"));
    // A line even while empty (a walk's start, before its first figures): the map keeps its place.
    d->summary->setMinimumHeight(d->summary->fontMetrics().lineSpacing());

    d->accountScan = new AccountScan(this);
    d->account = new QLabel(this);
    d->account->setObjectName(QStringLiteral("cacheMapAccount"));
    d->account->setWordWrap(true);
    d->account->setTextFormat(Qt::RichText);
    d->account->setTextInteractionFlags(Qt::TextBrowserInteraction);
    // A line even while empty (the map of a folder, not of /): the map keeps its place.
    d->account->setMinimumHeight(d->account->fontMetrics().lineSpacing());
    connect(d->account, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link == QLatin1String("privileged")) {
            showAccountWithAdministratorRights();
            return;
        }
        bool ok = false;
        const int group = link.toInt(&ok);
        if (ok) {
            showAccountGroup(AccountGroup(group));
        }
    });
    connect(d->accountScan, &AccountScan::finished, this, [this](std::shared_ptr<const CacheAccount> account) {
        d->lastAccount = std::move(account);
        d->accountPrivileged = false;
        d->helperFailure.clear();
        updateAccount();
        Q_EMIT accountChanged();
    });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addLayout(progressRow);
    layout->addWidget(d->map, 1);
    auto *legend = new QLabel(i18nc("@info the cache map's legend",
                                    "Area: share of the page cache · Colour: stronger where more of a folder's files is cached · "
                                    "Hatched: files directly in a folder · Dashed frame: a mount point"),
                              this);
    legend->setWordWrap(true);
    legend->setEnabled(false); // the secondary colour of the style, as hints are
    layout->addWidget(d->summary);
    layout->addWidget(d->account);
    layout->addWidget(legend);

    d->progressTimer = new QTimer(this);
    d->progressTimer->setInterval(200);
    connect(d->progressTimer, &QTimer::timeout, this, [this] {
        d->progress->setText(i18nc("@info:progress", "Walking %1… %2 entries so far", d->root, QLocale().toString(qulonglong(d->scan->entriesSeen()))));
    });

    connect(d->backButton, &QToolButton::clicked, this, &CacheMapView::back);
    connect(d->upButton, &QToolButton::clicked, this, &CacheMapView::up);
    connect(d->wholeSystemButton, &QPushButton::clicked, this, [this] {
        mapFolder(QStringLiteral("/"));
    });
    connect(d->folderButton, &QPushButton::clicked, this, &CacheMapView::chooseFolder);
    connect(d->refreshButton, &QPushButton::clicked, this, &CacheMapView::refresh);
    connect(d->cancelButton, &QPushButton::clicked, this, &CacheMapView::cancel);
    connect(d->map, &CacheMapWidget::folderActivated, this, [this](quint32 folder) {
        showFolder(folder, true);
    });
    connect(d->map, &CacheMapWidget::contextMenuRequested, this, &CacheMapView::contextMenuFor);
    connect(d->map, &CacheMapWidget::backRequested, this, &CacheMapView::back);
    connect(d->map, &CacheMapWidget::upRequested, this, &CacheMapView::up);
    connect(d->scan, &CacheMapScan::snapshotReady, this, &CacheMapView::setTree);
    connect(d->scan, &CacheMapScan::finished, this, [this](std::shared_ptr<const CacheMapTree> tree, bool complete) {
        d->complete = complete;
        d->progressTimer->stop();
        // With the date: a window left open overnight still says when.
        const QString at = QLocale().toString(QDateTime::currentDateTime(), QLocale::ShortFormat);
        const QString took = formatDuration(double(d->walkTime.elapsed()) / 1000.0);
        d->progress->setText(complete ? i18nc("@info:status %1 a date and time, %2 a duration (0.65 s)", "Mapped on %1 (took %2)", at, took)
                                      : i18nc("@info:status %1 a date and time, %2 a duration (0.65 s)", "Walk cancelled on %1 after %2", at, took));
        // The map of the whole system starts the account of Cached: the
        // parts that no folder shows.
        if (complete && d->root == QLatin1String("/")) {
            d->accountScan->start(tree);
        }
        setTree(std::move(tree));
        updateAccount();
        Q_EMIT mappingChanged(false);
        QTimer::singleShot(0, this, [this] {
            d->retired.reset();
        });
    });
    updateHeader();
}

CacheMapView::~CacheMapView() = default;

void CacheMapView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    // The first look maps the whole system; later ones keep the picture.
    if (!d->shownOnce) {
        d->shownOnce = true;
        if (d->root.isEmpty()) {
            mapFolder(QStringLiteral("/"));
        }
    } else if (d->outdated) {
        refresh();
    }
}

void CacheMapView::pageCacheChanged()
{
    if (d->root.isEmpty()) {
        return;
    }
    // A walk of / takes well under a second on a warm machine; the map in
    // sight stays until the new one replaces it.
    if (isVisible()) {
        refresh();
    } else {
        d->outdated = true;
    }
}

void CacheMapView::pageCacheChangedUnder(const std::vector<std::string> &paths)
{
    const std::string root = d->root.toStdString();
    const auto overlaps = [&root](const std::string &path) {
        const auto isUnder = [](const std::string &inner, const std::string &outer) {
            return inner == outer || outer == "/" || (inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '/');
        };
        return isUnder(path, root) || isUnder(root, path);
    };
    if (std::any_of(paths.begin(), paths.end(), overlaps)) {
        pageCacheChanged();
    }
}

void CacheMapView::mapFolder(const QString &root)
{
    d->outdated = false;
    d->root = root;
    d->current = root;
    d->history.clear();
    d->complete = false;
    d->retired = std::move(d->tree);
    d->shown = CacheMapFolder::NoParent;
    d->map->setTree(nullptr, CacheMapFolder::NoParent);
    d->accountScan->cancel();
    WalkOptions options;
    options.oneFileSystem = d->oneFileSystem;
    options.skipNoPageCache = !d->walkKernelFileSystems;
    d->scan->start(root.toStdString(), options);
    d->walkTime.start();
    d->progressTimer->start();
    d->progress->setText(i18nc("@info:progress", "Walking %1…", root));
    Q_EMIT mappingChanged(true);
    updateHeader();
    updateAccount();
}

void CacheMapView::refresh()
{
    if (d->root.isEmpty()) {
        return;
    }
    const QString keep = d->current;
    const QStringList history = d->history;
    const std::shared_ptr<const CacheMapTree> shown = d->tree;
    mapFolder(d->root);
    d->current = keep;
    d->history = history;
    if (shown) {
        // The map stays in sight while its folder is walked again (no blank
        // map for up to a second): the new one replaces it when it comes.
        d->tree = shown;
        d->shown = indexOf(keep);
        if (d->shown != CacheMapFolder::NoParent) {
            d->map->setTree(d->tree, d->shown);
        }
        d->previousShown = true;
        updateHeader();
    }
}

void CacheMapView::cancel()
{
    d->scan->cancel();
}

void CacheMapView::setOneFileSystem(bool stay)
{
    d->oneFileSystem = stay;
}

void CacheMapView::setWalkKernelFileSystems(bool walk)
{
    d->walkKernelFileSystems = walk;
}

void CacheMapView::setColors(const QColor &empty, const QColor &full)
{
    d->map->setColors(empty, full);
}

QString CacheMapView::currentPath() const
{
    return d->current;
}

QString CacheMapView::rootPath() const
{
    return d->root;
}

bool CacheMapView::isMapping() const
{
    return d->scan->isRunning();
}

bool CacheMapView::isComplete() const
{
    return d->complete;
}

CacheMapWidget *CacheMapView::mapWidget() const
{
    return d->map;
}

QString CacheMapView::summaryText() const
{
    return d->summary->text();
}

QString CacheMapView::accountText() const
{
    return d->account->text();
}

bool CacheMapView::isAccounting() const
{
    return d->accountScan->isRunning();
}

std::shared_ptr<const CacheAccount> CacheMapView::account() const
{
    return d->lastAccount;
}

AccountPartsDialog *CacheMapView::showAccountGroup(AccountGroup group)
{
    if (!d->lastAccount) {
        return nullptr;
    }
    auto *dialog = new AccountPartsDialog(d->lastAccount, group, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

void CacheMapView::setHelperAccount(HelperAccount ask, const QString &unavailableReason)
{
    d->helperAccount = std::move(ask);
    d->helperUnavailable = unavailableReason;
    updateAccount();
}

void CacheMapView::showAccountWithAdministratorRights()
{
    if (!d->helperAccount || d->askingHelper) {
        return;
    }
    d->askingHelper = true;
    d->helperFailure.clear();
    updateAccount();
    const QPointer<CacheMapView> self(this);
    d->helperAccount([self](std::shared_ptr<const CacheAccount> account, const QString &failure) {
        if (!self) {
            return;
        }
        self->d->askingHelper = false;
        if (account) {
            self->d->lastAccount = std::move(account);
            self->d->accountPrivileged = true;
        } else {
            self->d->helperFailure = i18nc("@info %1 why", "The administrator's account failed: %1", failure);
        }
        self->updateAccount();
        Q_EMIT self->accountChanged();
    });
}

void CacheMapView::updateAccount()
{
    // Only for the whole system: a folder's map is not an account of Cached.
    if (d->root != QLatin1String("/")) {
        d->account->clear();
        return;
    }
    if (d->accountScan->isRunning() || (d->scan->isRunning() && !d->lastAccount)) {
        d->account->setText(i18nc("@info:progress", "Accounting for the rest of Cached: shared memory, deleted files, other mount namespaces…"));
        return;
    }
    if (!d->lastAccount) {
        d->account->clear();
        return;
    }
    QString text = accountSummaryText(*d->lastAccount, AccountLinks::Groups);
    const CacheAccount &account = *d->lastAccount;
    const bool hidden = account.hidden.processes > 0 || account.hidden.coveredMountPoints > 0 || account.hidden.files > 0
        || std::any_of(account.parts.begin(), account.parts.end(), [](const AccountPart &part) {
                            return part.hidden;
                        });
    if (d->accountPrivileged) {
        text += QStringLiteral(" ") + i18nc("@info", "(made by the administrator's helper)").toHtmlEscaped();
    } else if (d->askingHelper) {
        text += QStringLiteral(" — ") + i18nc("@info:progress", "asking the privileged helper…").toHtmlEscaped();
    } else if (hidden && d->helperAccount) {
        text += QStringLiteral(" — <a href=\"privileged\">%1</a>").arg(i18nc("@action", "Show with Administrator Rights").toHtmlEscaped());
    } else if (hidden && !d->helperUnavailable.isEmpty()) {
        text += QStringLiteral(" — ") + i18nc("@info %1 why not", "the privileged helper cannot show the rest: %1", d->helperUnavailable).toHtmlEscaped();
    }
    if (!d->helperFailure.isEmpty()) {
        text += QStringLiteral(" — ") + d->helperFailure.toHtmlEscaped();
    }
    d->account->setText(text);
}

size_t CacheMapView::mapMemoryBytes() const
{
    return d->scan->memoryBytes();
}

uint32_t CacheMapView::indexOf(const QString &path) const
{
    // A look through the folders (well under a millisecond for /'s): a
    // path index would cost more to build at each snapshot than it saves.
    const CacheMapFolder *found = d->tree ? d->tree->find(path.toStdString()) : nullptr;
    return found ? uint32_t(found - d->tree->folders.data()) : CacheMapFolder::NoParent;
}

void CacheMapView::setTree(std::shared_ptr<const CacheMapTree> tree)
{
    d->previousShown = false;
    d->tree = std::move(tree);
    d->shown = indexOf(d->current);
    if (d->shown == CacheMapFolder::NoParent && !d->tree->roots.empty()) {
        // Not walked yet (a refresh): the root until it is.
        d->shown = d->tree->roots.front();
    }
    if (d->shown != CacheMapFolder::NoParent) {
        d->map->setTree(d->tree, d->shown);
    }
    updateHeader();
}

void CacheMapView::showFolder(uint32_t index, bool remember)
{
    if (!d->tree || index >= d->tree->folders.size()) {
        return;
    }
    const QString path = QString::fromStdString(d->tree->folders[index].path);
    if (remember && path != d->current) {
        d->history.append(d->current);
    }
    d->current = path;
    d->shown = index;
    d->map->setTree(d->tree, index);
    updateHeader();
}

void CacheMapView::open(const QString &folder)
{
    showFolder(indexOf(folder), true);
}

void CacheMapView::back()
{
    if (d->history.isEmpty()) {
        return;
    }
    const QString previous = d->history.takeLast();
    showFolder(indexOf(previous), false);
}

void CacheMapView::up()
{
    if (d->shown == CacheMapFolder::NoParent || d->tree->folders[d->shown].parent == CacheMapFolder::NoParent) {
        return;
    }
    showFolder(d->tree->folders[d->shown].parent, true);
}

void CacheMapView::evictFolder(const QString &folder)
{
    Q_EMIT evictRequested({QUrl::fromLocalFile(folder)});
}

void CacheMapView::showInFileList(const QString &folder)
{
    Q_EMIT inspectRequested({QUrl::fromLocalFile(folder)});
}

void CacheMapView::contextMenuFor(quint32 folder, const QPoint &globalPos)
{
    if (!d->tree || folder >= d->tree->folders.size()) {
        return;
    }
    const QString path = QString::fromStdString(d->tree->folders[folder].path);
    QMenu menu(this);
    menu.addAction(QIcon::fromTheme(QStringLiteral("folder-open")), i18nc("@action:inmenu", "Open in the Map"), this, [this, folder] {
        showFolder(folder, true);
    });
    menu.addAction(QIcon::fromTheme(QStringLiteral("view-list-details")), i18nc("@action:inmenu", "Show in File List"), this, [this, path] {
        showInFileList(path);
    });
    menu.addSeparator();
    menu.addAction(QIcon::fromTheme(QStringLiteral("edit-clear")), i18nc("@action:inmenu", "Evict from Page Cache"), this, [this, path] {
        evictFolder(path);
    });
    menu.addAction(QIcon::fromTheme(QStringLiteral("edit-copy")), i18nc("@action:inmenu", "Copy Path"), this, [path] {
        QApplication::clipboard()->setText(path);
    });
    menu.exec(globalPos);
}

void CacheMapView::chooseFolder()
{
    const QUrl folder =
        App::chooseFolder(this, i18nc("@title:window", "Map a Folder's Page Cache"), QUrl::fromLocalFile(d->root.isEmpty() ? QDir::homePath() : d->root));
    if (folder.isLocalFile()) {
        mapFolder(folder.toLocalFile());
    }
}

void CacheMapView::updateHeader()
{
    const bool mapping = d->scan->isRunning();
    d->cancelButton->setVisible(mapping);
    d->backButton->setEnabled(!d->history.isEmpty());
    const uint32_t index = indexOf(d->current);
    d->upButton->setEnabled(index != CacheMapFolder::NoParent && d->tree->folders[index].parent != CacheMapFolder::NoParent);
    d->refreshButton->setEnabled(!d->root.isEmpty());
    d->location->setText(d->current.isEmpty() ? i18nc("@info", "No folder mapped yet") : d->current);
    if (!d->tree || index == CacheMapFolder::NoParent) {
        d->summary->clear();
        return;
    }
    const FolderTotals &totals = d->tree->folders[index].tree;
    QString text = i18nc("@info %1 bytes, %2 files, %3 folders, %4 a path",
                         "%1 in the page cache from %2 files in %3 folders under %4",
                         formatBytes(totals.resident * pageSize(), ByteStyle::OneDecimal, QLocale()),
                         QLocale().toString(qulonglong(totals.files)),
                         QLocale().toString(qulonglong(totals.folders)),
                         d->current);
    if (totals.hiddenFiles > 0) {
        text += QStringLiteral("; ")
            + i18ncp("@info",
                     "%1 file hidden by the kernel, not counted (run as its owner or use administrator rights)",
                     "%1 files hidden by the kernel, not counted (run as their owner or use administrator rights)",
                     qulonglong(totals.hiddenFiles));
    }
    if (totals.foldersNotEntered > 0) {
        text += QStringLiteral("; ")
            + i18ncp("@info",
                     "%1 mount point of a file system that keeps no page cache (proc, sysfs, …) not walked",
                     "%1 mount points of file systems that keep no page cache (proc, sysfs, …) not walked",
                     qulonglong(totals.foldersNotEntered));
    }
    if (totals.mountsCountedElsewhere > 0) {
        text += QStringLiteral("; ")
            + i18ncp("@info",
                     "%1 folder counted elsewhere in this map (a bind mount, an overlay) not walked, so that each page counts once",
                     "%1 folders counted elsewhere in this map (bind mounts, overlays) not walked, so that each page counts once",
                     qulonglong(totals.mountsCountedElsewhere));
    }
    if (mapping && d->previousShown) {
        text += QStringLiteral(" ") + i18nc("@info", "(the map before: walking again)");
    } else if (mapping) {
        text += QStringLiteral(" ") + i18nc("@info", "(so far: still walking)");
    } else if (!d->complete) {
        text += QStringLiteral(" ") + i18nc("@info", "(partial: the walk was cancelled)");
    }
    d->summary->setText(text);
}

} // namespace Cachescope::App
