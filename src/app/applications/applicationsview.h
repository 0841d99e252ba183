// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "account.h"
#include "cgroups/applications.h"

#include <QWidget>

#include <functional>
#include <memory>

class KMessageWidget;
class QAction;
class QLabel;
class QTreeView;

namespace Cachescope::App
{

class ApplicationsModel;
class ApplicationsSortModel;

// The "Applications" tab: each application's page cache, dirty pages,
// refaults and memory pressure from its memory cgroup, a total row, and what
// /proc/meminfo's Cached holds beyond the rows. The sampler reads the
// cgroups only while this is on screen (shownChanged).
class ApplicationsView : public QWidget
{
    Q_OBJECT

public:
    // Reclaims a cgroup's file pages through the privileged helper (the
    // cgroup as /proc/PID/cgroup names it, and its page cache now): calls
    // done(error) when finished, error empty on success.
    // done(error, stoppedAtDeadline): an empty error when it reclaimed; the
    // helper stops a reclaim still running at its deadline.
    using HelperReclaimDone = std::function<void(const QString &error, bool stoppedAtDeadline)>;
    using HelperReclaim = std::function<void(const QString &cgroupPath, quint64 bytes, const HelperReclaimDone &done)>;

    explicit ApplicationsView(QWidget *parent = nullptr);
    ~ApplicationsView() override;

    [[nodiscard]] ApplicationsModel *model() const;
    [[nodiscard]] ApplicationsSortModel *sortModel() const;
    [[nodiscard]] QTreeView *view() const;
    [[nodiscard]] KMessageWidget *messageWidget() const; // why applications are missing or unnamed
    [[nodiscard]] QLabel *accountingLabel() const; // Cached against the rows; its tooltip: where the rest is
    [[nodiscard]] QAction *reclaimAction() const;

    // Whether someone can see the list, and so whether the cgroups need reading.
    [[nodiscard]] bool isShown() const;

    // The helper's reclaim, for cgroups this user may not write; without one
    // the action says why it is disabled there.
    void setHelperReclaim(HelperReclaim reclaim, const QString &unavailableReason = {});

    // Selects the row of a cgroup path; false when there is none.
    bool selectCgroup(const QString &cgroupPath);

public Q_SLOTS:
    void setReport(const Cachescope::Cgroups::ApplicationsReport &report);
    // The Cache Map's account of Cached (made with its map of /): where the
    // cache the rows leave out is, said in the accounting line's tooltip.
    void setCacheAccount(std::shared_ptr<const Cachescope::CacheAccount> account);
    // The window calls this when it is minimised or restored.
    void updateVisibility();
    // Reclaims the selected application's page cache (asks first where the
    // kernel cannot spare anonymous memory).
    void reclaimSelected();

Q_SIGNALS:
    void shownChanged(bool shown);
    void message(const QString &text, bool isError);
    // After a reclaim: the sampler reads again at once.
    void refreshRequested();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void updateAccountingToolTip();
    struct ReclaimRequest {
        QString folder;
        QString name;
        quint64 bytes = 0;
        quint64 before = 0;
        int version = 2;
    };
    void startReclaim(const ReclaimRequest &request, bool fileOnly);
    void updateReclaimAction();
    // The message as tall as its text at this width: in a tab, the layout
    // would otherwise give it the height of its narrowest wrapping.
    void fitMessageHeight();
    void showReclaimed(const QString &name, quint64 before, const QString &folder, int version, const QString &error, bool stoppedAtDeadline = false);

    ApplicationsModel *m_model = nullptr;
    ApplicationsSortModel *m_sortModel = nullptr;
    QTreeView *m_view = nullptr;
    KMessageWidget *m_messageWidget = nullptr;
    QLabel *m_accountingLabel = nullptr;
    std::shared_ptr<const Cachescope::CacheAccount> m_cacheAccount;
    QString m_accountingText; // the tooltip without the account
    QAction *m_reclaimAction = nullptr;
    HelperReclaim m_helperReclaim;
    QString m_helperUnavailableReason;
    bool m_shown = false;
    bool m_reclaiming = false;
    bool m_firstReport = true;
};

} // namespace Cachescope::App
