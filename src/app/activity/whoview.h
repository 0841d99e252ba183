// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "activity/activity.h"
#include "activity/ownactivity.h"

#include <QElapsedTimer>
#include <QTimer>
#include <QUrl>
#include <QWidget>

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>

class KMessageWidget;
class QLabel;
class QPushButton;
class QSplitter;
class QStandardItemModel;
class QToolButton;
class QTreeView;

namespace Cachescope::App
{

class ActivityWatch;
class SparklineDelegate;
class WhoModel;
class WhoSortModel;

// The Activity tab's "Who" part: who fills the page cache right now. Two
// top lists side by side, each row with a sparkline of its last minute,
// sortable by each figure:
// - without administrator rights, from what this user may read: this
//   user's processes (/proc/PID/io) and the memory cgroups, applications
//   named by their desktop files (memory.stat, memory.pressure);
// - with Watch All Users… (the helper's activity action, polkit
//   auth_admin every time): every process and every file, pages brought
//   in, evicted and dirtied a second; a selected process shows which
//   files lost pages while it read (what it pushed out); a file opens in
//   the files list and its heatmap.
// Nothing is read while the part is not on show (another tab, a minimised
// window): the own sampling stops, and a watch of all users ends, its
// tracefs instance removed. Pause holds the lists still.
class WhoView : public QWidget
{
    Q_OBJECT

public:
    enum class Source {
        Own, // this user's view, without rights
        AllUsers, // the helper's
    };

    explicit WhoView(QWidget *parent = nullptr);
    ~WhoView() override;

    [[nodiscard]] Source source() const;
    [[nodiscard]] WhoModel *processesModel() const;
    [[nodiscard]] WhoModel *secondModel() const; // files, or without rights the memory cgroups
    [[nodiscard]] QTreeView *processesView() const;
    [[nodiscard]] QTreeView *secondView() const;
    [[nodiscard]] QTreeView *pushedOutView() const;
    [[nodiscard]] QStandardItemModel *pushedOutModel() const;
    [[nodiscard]] QLabel *sourceLabel() const;
    [[nodiscard]] QLabel *pushedOutLabel() const;
    [[nodiscard]] QPushButton *watchAllButton() const;
    [[nodiscard]] QToolButton *pauseButton() const;
    [[nodiscard]] KMessageWidget *messageWidget() const;
    [[nodiscard]] ActivityWatch *watch() const;

    // Whether someone can see the part, and so whether anything is read.
    [[nodiscard]] bool isShown() const;
    [[nodiscard]] bool isPaused() const;
    // Whether this user's view is being read (its timer runs).
    [[nodiscard]] bool isSampling() const;

    // Tests: the sampler of the view without rights (a fixture /proc), and
    // how often it reads. The interval also sets the helper's.
    void setOwnSampler(std::unique_ptr<Activity::OwnActivitySampler> sampler);
    void setIntervalMs(int intervalMs);
    // How long one watch of all users may run (the helper's limit: an hour).
    void setWatchSeconds(int seconds);

public Q_SLOTS:
    // Asks the helper (polkit asks for the administrator's password).
    void watchAllUsers();
    // Back to this user's view; the helper's instance goes.
    void stopWatchingAllUsers();
    void setPaused(bool paused);
    // The window calls this when it is minimised or restored.
    void updateVisibility();
    // An interval of each source, as the samplers give it (tests call these).
    void takeAllUsersInterval(const Cachescope::Activity::Interval &interval);
    void takeOwnInterval(const Cachescope::Activity::OwnInterval &interval);
    // Opens the selected file rows in the files list (all users' view).
    void inspectSelectedFiles();

Q_SIGNALS:
    void shownChanged(bool shown);
    // A file row to open in the files list and its heatmap.
    void inspectRequested(const QList<QUrl> &urls);
    void message(const QString &text, bool isError);

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void setSource(Source source);
    void sampleOwn();
    void updateSampling();
    void updatePushedOut();
    void updateSourceLabel();
    void showMessage(const QString &text, int type);
    void watchFinished(const QString &error, const QString &endReason);
    void updateWatchButton();
    [[nodiscard]] QString fileName(const Activity::FileKey &key) const;

    Source m_source = Source::Own;
    WhoModel *m_processesModel = nullptr;
    WhoModel *m_secondModel = nullptr;
    WhoSortModel *m_processesSort = nullptr;
    WhoSortModel *m_secondSort = nullptr;
    SparklineDelegate *m_processesSparkline = nullptr;
    SparklineDelegate *m_secondSparkline = nullptr;
    QTreeView *m_processesView = nullptr;
    QTreeView *m_secondView = nullptr;
    QTreeView *m_pushedOutView = nullptr;
    QStandardItemModel *m_pushedOutModel = nullptr;
    QLabel *m_sourceLabel = nullptr;
    QLabel *m_processesLabel = nullptr;
    QLabel *m_secondLabel = nullptr;
    QLabel *m_pushedOutLabel = nullptr;
    QWidget *m_pushedOutPane = nullptr;
    QSplitter *m_splitter = nullptr;
    QPushButton *m_watchAllButton = nullptr;
    QToolButton *m_pauseButton = nullptr;
    KMessageWidget *m_messageWidget = nullptr;
    ActivityWatch *m_watch = nullptr;

    std::unique_ptr<Activity::OwnActivitySampler> m_ownSampler;
    QTimer m_ownTimer;
    QElapsedTimer m_clock;
    int m_intervalMs = 1000;
    int m_watchSeconds = 3600;
    bool m_shown = false;
    bool m_paused = false;
    uint64_t m_lostEvents = 0; // in this watch
    bool m_firstIntervalShown = false;
    bool m_stopRequested = false; // the running watch was stopped here
    std::optional<bool> m_helperAvailable;
    QString m_helperUnavailableReason;
    bool m_pushedOutShowsHint = false; // no process selected: nothing to redo each interval

    // What each process pushed out, interval by interval over the last
    // minute: the files it reclaimed itself (direct reclaim), and what the
    // reclaim threads reclaimed while it brought pages in.
    struct PushedOut {
        std::map<int32_t, std::vector<std::pair<Activity::FileKey, uint64_t>>> byProcess;
        std::set<int32_t> adding;
        std::vector<std::pair<Activity::FileKey, uint64_t>> byReclaimThreads;
    };
    std::deque<PushedOut> m_pushedOut;
    std::map<Activity::FileKey, QString> m_fileNames; // the paths the helper gave
};

} // namespace Cachescope::App
