// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "applicationsview.h"

#include "cachemap/accounttext.h"

#include "applicationsmodel.h"
#include "format.h"
#include "helperprotocol.h"

#include <KLocalizedString>
#include <KMessageBox>
#include <KMessageWidget>

#include <QAction>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrentRun>

namespace Cachescope::App
{

namespace
{

QString bytesText(uint64_t bytes)
{
    return formatBytes(bytes, ByteStyle::OneDecimal, QLocale());
}

// Where the page cache /proc/meminfo counts is, beyond the rows.
QString accountingText(const Cgroups::CacheAccounting &a)
{
    if (!a.meminfoCached) {
        return {};
    }
    QStringList parts;
    if (a.rootOwnFile) {
        parts << i18nc("@info part of a list",
                       "%1 charged to the root cgroup itself (kernel threads, processes in no cgroup below it)",
                       bytesText(*a.rootOwnFile));
    } else {
        parts << i18nc("@info part of a list", "pages charged to the root cgroup itself");
    }
    if (a.dyingCgroups) {
        parts << i18ncp("@info part of a list",
                        "pages of %1 removed cgroup still charged to it",
                        "pages of %1 removed cgroups still charged to them",
                        qulonglong(*a.dyingCgroups));
    } else {
        parts << i18nc("@info part of a list", "pages of removed cgroups");
    }
    if (a.meminfoShmem) {
        parts << i18nc("@info part of a list", "%1 of shared memory and tmpfs, charged to whoever touched them first", bytesText(*a.meminfoShmem));
    }
    const int64_t elsewhere = a.elsewhere().value_or(0); // known once meminfoCached is (checked above)
    const QString list = parts.join(QStringLiteral("; "));
    if (elsewhere >= 0) {
        return i18nc("@info %1 Cached, %2 rows, %3 the difference, %4 a list of places",
                     "/proc/meminfo counts %1 as cached, the rows %2. The other %3 are charged elsewhere: %4.",
                     bytesText(*a.meminfoCached),
                     bytesText(a.rowsFile),
                     bytesText(uint64_t(elsewhere)),
                     list);
    }
    return i18nc("@info %1 Cached, %2 rows, %3 the difference",
                 "/proc/meminfo counts %1 as cached, the rows %2: %3 more, because cgroups count the block devices' cache (Buffers) as page cache "
                 "and Cached does not.",
                 bytesText(*a.meminfoCached),
                 bytesText(a.rowsFile),
                 bytesText(uint64_t(-elsewhere)));
}

QString reasonText(const Cgroups::ApplicationsReport &report)
{
    if (!report.found) {
        return i18nc("@info %1 the kernel's own words",
                     "No memory cgroup hierarchy to read, so the page cache cannot be split by application: %1",
                     QString::fromStdString(report.reason));
    }
    if (report.version == Cgroups::Version::V1) {
        return i18nc("@info %1 a folder",
                     "The memory controller is cgroup v1 here (%1). systemd puts each application into a memory cgroup of its own only on cgroup "
                     "v2, so applications cannot be named: the memory cgroups that have processes are listed instead. Memory pressure is not "
                     "measured per cgroup on v1.",
                     QString::fromStdString(report.hierarchyFolder));
    }
    return i18nc("@info %1 a folder",
                 "This cgroup v2 hierarchy (%1) is not laid out by systemd, so applications cannot be named: the memory cgroups that have "
                 "processes are listed instead.",
                 QString::fromStdString(report.hierarchyFolder));
}

struct ReclaimJob {
    Cgroups::ReclaimOutcome outcome = Cgroups::ReclaimOutcome::Failed;
    std::string error;
};

} // namespace

ApplicationsView::ApplicationsView(QWidget *parent)
    : QWidget(parent)
    , m_model(new ApplicationsModel(this))
    , m_sortModel(new ApplicationsSortModel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    m_messageWidget = new KMessageWidget(this);
    m_messageWidget->setWordWrap(true);
    m_messageWidget->setCloseButtonVisible(false);
    m_messageWidget->setMessageType(KMessageWidget::Information);
    m_messageWidget->hide();
    layout->addWidget(m_messageWidget);

    m_sortModel->setSourceModel(m_model);
    m_view = new QTreeView(this);
    m_view->setAccessibleName(i18nc("@info:whatsthis", "Page cache by application"));
    m_view->setModel(m_sortModel);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(ApplicationsModel::PageCacheColumn, Qt::DescendingOrder);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(ApplicationsModel::NameColumn, QHeaderView::Stretch);
    for (int column = ApplicationsModel::PageCacheColumn; column < ApplicationsModel::ColumnCount; ++column) {
        m_view->header()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    layout->addWidget(m_view, 1);

    m_accountingLabel = new QLabel(this);
    m_accountingLabel->setContentsMargins(6, 2, 6, 4);
    m_accountingLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_accountingLabel);

    m_reclaimAction = new QAction(QIcon::fromTheme(QStringLiteral("edit-clear-all")), i18nc("@action:inmenu", "Reclaim This Application's Cache"), this);
    connect(m_reclaimAction, &QAction::triggered, this, &ApplicationsView::reclaimSelected);
    m_view->addAction(m_reclaimAction);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        const QModelIndex index = m_view->indexAt(position);
        if (!index.isValid()) {
            return;
        }
        m_view->setCurrentIndex(index);
        updateReclaimAction();
        QMenu menu(this);
        menu.setToolTipsVisible(true); // the disabled action says why
        menu.addAction(m_reclaimAction);
        menu.exec(m_view->viewport()->mapToGlobal(position));
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, &ApplicationsView::updateReclaimAction);
    setHelperReclaim({});
    updateReclaimAction();
}

ApplicationsView::~ApplicationsView() = default;

ApplicationsModel *ApplicationsView::model() const
{
    return m_model;
}

ApplicationsSortModel *ApplicationsView::sortModel() const
{
    return m_sortModel;
}

QTreeView *ApplicationsView::view() const
{
    return m_view;
}

KMessageWidget *ApplicationsView::messageWidget() const
{
    return m_messageWidget;
}

QLabel *ApplicationsView::accountingLabel() const
{
    return m_accountingLabel;
}

QAction *ApplicationsView::reclaimAction() const
{
    return m_reclaimAction;
}

bool ApplicationsView::isShown() const
{
    return m_shown;
}

void ApplicationsView::setHelperReclaim(HelperReclaim reclaim, const QString &unavailableReason)
{
    m_helperReclaim = std::move(reclaim);
    m_helperUnavailableReason = !unavailableReason.isEmpty()
        ? unavailableReason
        : i18nc("@info:tooltip", "Only the privileged helper may reclaim this cgroup's memory, and this build's helper has no action for it.");
    updateReclaimAction();
}

bool ApplicationsView::selectCgroup(const QString &cgroupPath)
{
    const int row = m_model->rowOfCgroup(cgroupPath);
    if (row < 0) {
        return false;
    }
    m_view->setCurrentIndex(m_sortModel->mapFromSource(m_model->index(row, 0)));
    return true;
}

void ApplicationsView::setReport(const Cgroups::ApplicationsReport &report)
{
    m_model->setReport(report);
    if (m_firstReport && report.found) {
        m_firstReport = false;
        m_view->sortByColumn(m_view->header()->sortIndicatorSection(), m_view->header()->sortIndicatorOrder());
    }
    const bool explain = !report.found || !report.applicationsNamed;
    if (explain) {
        const QString text = reasonText(report);
        if (m_messageWidget->text() != text) {
            m_messageWidget->setText(text);
        }
        m_messageWidget->setMessageType(report.found ? KMessageWidget::Information : KMessageWidget::Warning);
        m_messageWidget->show();
        fitMessageHeight();
    } else {
        m_messageWidget->hide();
    }
    m_view->setVisible(report.found);
    // One line: a tab beside plots has no height to spare. The whole
    // account is in its tooltip.
    const Cgroups::CacheAccounting &a = report.accounting;
    if (report.found && a.meminfoCached) {
        const int64_t elsewhere = a.elsewhere().value_or(0); // known once meminfoCached is (checked above)
        m_accountingLabel->setText(i18nc("@info %1 Cached, %2 the rows, %3 the rest",
                                         "Cached in /proc/meminfo: %1, in the rows: %2, elsewhere: %3 (hover for where)",
                                         bytesText(*a.meminfoCached),
                                         bytesText(a.rowsFile),
                                         elsewhere >= 0 ? bytesText(uint64_t(elsewhere)) : QStringLiteral("−") + bytesText(uint64_t(-elsewhere))));
        m_accountingText = accountingText(a);
    } else {
        m_accountingLabel->clear();
        m_accountingText.clear();
    }
    updateAccountingToolTip();
    updateReclaimAction();
}

void ApplicationsView::setCacheAccount(std::shared_ptr<const CacheAccount> account)
{
    m_cacheAccount = std::move(account);
    updateAccountingToolTip();
}

void ApplicationsView::updateAccountingToolTip()
{
    QString tip = m_accountingText;
    if (!tip.isEmpty() && m_cacheAccount && m_cacheAccount->complete) {
        tip += QStringLiteral("\n\n")
            + i18nc("@info:tooltip %1 the account of Cached",
                    "The Cache Map's account of the whole system (Cache Map tab, Whole System): %1.",
                    accountSummaryText(*m_cacheAccount, AccountLinks::None));
    }
    m_accountingLabel->setToolTip(tip);
}

void ApplicationsView::updateVisibility()
{
    const bool shown = isVisible() && !window()->isMinimized();
    if (shown != m_shown) {
        m_shown = shown;
        Q_EMIT shownChanged(shown);
    }
}

void ApplicationsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    updateVisibility();
}

void ApplicationsView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    updateVisibility();
}

void ApplicationsView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitMessageHeight();
}

void ApplicationsView::fitMessageHeight()
{
    if (m_messageWidget->isVisibleTo(this)) {
        m_messageWidget->setFixedHeight(m_messageWidget->heightForWidth(width()));
    }
}

void ApplicationsView::updateReclaimAction()
{
    const QModelIndex index = m_view->currentIndex();
    QString why;
    if (m_reclaiming) {
        why = i18nc("@info:tooltip", "A reclaim is under way.");
    } else if (!index.isValid() || index.data(ApplicationsModel::IsTotalRole).toBool()) {
        why = i18nc("@info:tooltip", "Select an application first.");
    } else if (index.data(ApplicationsModel::CgroupVersionRole).toInt() != 2 && !m_helperReclaim) {
        why = i18nc("@info:tooltip", "cgroup v1 has no memory.reclaim, and this build's privileged helper has no reclaim action.");
    } else if (!Cgroups::canReclaim(index.data(ApplicationsModel::CgroupFolderRole).toString().toStdString()) && !m_helperReclaim) {
        why = m_helperUnavailableReason;
    }
    m_reclaimAction->setEnabled(why.isEmpty());
    m_reclaimAction->setToolTip(why.isEmpty() ? i18nc("@info:tooltip", "Ask the kernel to evict this application's file pages from the page cache") : why);
}

void ApplicationsView::reclaimSelected()
{
    const QModelIndex index = m_view->currentIndex();
    if (!index.isValid() || index.data(ApplicationsModel::IsTotalRole).toBool() || m_reclaiming) {
        return;
    }
    const QString folder = index.data(ApplicationsModel::CgroupFolderRole).toString();
    const int version = index.data(ApplicationsModel::CgroupVersionRole).toInt();
    const quint64 before = index.data(ApplicationsModel::PageCacheBytesRole).toULongLong();
    const QString name = index.sibling(index.row(), ApplicationsModel::NameColumn).data().toString();
    // All its page cache; the kernel stops early when it cannot find more.
    const quint64 bytes = std::max<quint64>(before, 4096);

    if (version != 2 || !Cgroups::canReclaim(folder.toStdString())) {
        if (!m_helperReclaim) {
            return;
        }
        m_reclaiming = true;
        updateReclaimAction();
        m_helperReclaim(index.data(ApplicationsModel::CgroupPathRole).toString(),
                        bytes,
                        [this, name, before, folder, version](const QString &error, bool stoppedAtDeadline) {
                            m_reclaiming = false;
                            showReclaimed(name, before, folder, version, error, stoppedAtDeadline);
                        });
        return;
    }
    startReclaim({folder, name, bytes, before, version}, true);
}

void ApplicationsView::startReclaim(const ReclaimRequest &request, bool fileOnly)
{
    m_reclaiming = true;
    updateReclaimAction();
    auto *watcher = new QFutureWatcher<ReclaimJob>(this);
    connect(watcher, &QFutureWatcher<ReclaimJob>::finished, this, [this, watcher, request, fileOnly] {
        watcher->deleteLater();
        m_reclaiming = false;
        const ReclaimJob job = watcher->result();
        if (job.outcome != Cgroups::ReclaimOutcome::NoSwappinessArgument || !fileOnly) {
            showReclaimed(request.name, request.before, request.folder, request.version, QString::fromStdString(job.error));
            return;
        }
        // This kernel (before 6.13) cannot keep the reclaim to file pages.
        const QString text = i18nc("@info",
                                   "This kernel cannot limit a cgroup's reclaim to file pages: reclaiming the cache of %1 may also swap out "
                                   "its anonymous memory (its programs' data), which it would then have to read back from swap.",
                                   request.name);
        if (KMessageBox::warningContinueCancel(this, text, i18nc("@title:window", "Reclaim Cache"), KGuiItem(i18nc("@action:button", "Reclaim Anyway")))
            == KMessageBox::Continue) {
            startReclaim(request, false);
        } else {
            updateReclaimAction();
        }
    });
    // Writing memory.reclaim returns when the kernel is done: off the UI thread.
    watcher->setFuture(QtConcurrent::run([folder = request.folder.toStdString(), bytes = request.bytes, fileOnly] {
        ReclaimJob job;
        job.outcome = Cgroups::reclaim(folder, bytes, fileOnly, &job.error);
        return job;
    }));
}

void ApplicationsView::showReclaimed(const QString &name, quint64 before, const QString &folder, int version, const QString &error, bool stoppedAtDeadline)
{
    updateReclaimAction();
    if (!error.isEmpty()) {
        Q_EMIT message(i18nc("@info %1 an application, %2 the reason", "Could not reclaim the cache of %1: %2", name, error), true);
        return;
    }
    const std::optional<Cgroups::MemoryStats> after =
        Cgroups::readMemoryStats(folder.toStdString(), version == 1 ? Cgroups::Version::V1 : Cgroups::Version::V2);
    if (after && after->file && stoppedAtDeadline) {
        Q_EMIT message(i18ncp("@info %1 an application",
                              "The page cache of %2 went from %3 to %4; the kernel was still reclaiming after %1 second and was stopped there "
                              "(the application may be reading its files back in).",
                              "The page cache of %2 went from %3 to %4; the kernel was still reclaiming after %1 seconds and was stopped there "
                              "(the application may be reading its files back in).",
                              HelperProtocol::reclaimDeadlineSeconds,
                              name,
                              bytesText(before),
                              bytesText(*after->file)),
                       false);
    } else if (after && after->file) {
        Q_EMIT message(i18nc("@info %1 an application", "The page cache of %1 went from %2 to %3.", name, bytesText(before), bytesText(*after->file)), false);
    } else {
        Q_EMIT message(i18nc("@info %1 an application", "Reclaimed the cache of %1.", name), false);
    }
    Q_EMIT refreshRequested();
}

} // namespace Cachescope::App
