// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "whoview.h"

#include "activitywatch.h"
#include "applications/desktopapplication.h"
#include "plotstyle.h"
#include "sparklinedelegate.h"
#include "whomodel.h"

#include "format.h"
#include "helperprotocol.h"
#include "privileged.h"

#include <KLocalizedString>
#include <KMessageWidget>
#include <KUser>

#include <QAction>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QShowEvent>
#include <QSplitter>
#include <QStandardItemModel>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace Cachescope::App
{

namespace
{

// Brought in as reads are drawn (blue), evicted in red, dirtied as the
// memory plot's dirty pages (orange).
const std::array<QColor, 3> allUsersColors{PlotColors::abyssBlue, PlotColors::iconRed, PlotColors::dirty};
const std::array<QColor, 3> ownProcessColors{PlotColors::abyssBlue, PlotColors::bewareOrange, PlotColors::teal};
const std::array<QColor, 3> ownGroupColors{PlotColors::nobleGreen, PlotColors::iconRed, PlotColors::deepPurple};

bool canBeSeen(const QWidget *widget)
{
    return widget->isVisible() && !widget->window()->isMinimized();
}

double bytesOfPages(uint64_t pages, double seconds)
{
    static const double pageSize = double(sysconf(_SC_PAGESIZE));
    return seconds > 0 ? double(pages) * pageSize / seconds : 0;
}

// Looked up once a user: each interval names the same few again.
QString userName(int64_t uid)
{
    if (uid < 0) {
        return {};
    }
    static std::map<int64_t, QString> names;
    if (const auto found = names.find(uid); found != names.end()) {
        return found->second;
    }
    if (names.size() >= 4096) {
        names.clear();
    }
    const KUser user{K_UID(uid)};
    return names.emplace(uid, user.isValid() ? user.loginName() : QString::number(uid)).first->second;
}

// The same for applications: KService reads its database at each lookup.
std::optional<DesktopApplication> applicationOf(const std::string &desktopFileId)
{
    if (desktopFileId.empty()) {
        return std::nullopt;
    }
    static std::map<std::string, std::optional<DesktopApplication>> applications;
    if (const auto found = applications.find(desktopFileId); found != applications.end()) {
        return found->second;
    }
    if (applications.size() >= 4096) {
        applications.clear();
    }
    return applications.emplace(desktopFileId, desktopApplication(QString::fromStdString(desktopFileId))).first->second;
}

QTreeView *makeList(QWidget *parent, WhoSortModel *model, SparklineDelegate *sparkline, const QString &accessibleName)
{
    auto *view = new QTreeView(parent);
    view->setModel(model);
    view->setRootIsDecorated(false);
    view->setUniformRowHeights(true);
    view->setAllColumnsShowFocus(true);
    view->setSortingEnabled(true);
    view->setAlternatingRowColors(true);
    view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setItemDelegateForColumn(WhoModel::HistoryColumn, sparkline);
    view->setAccessibleName(accessibleName);
    view->header()->setStretchLastSection(false);
    view->header()->setSectionResizeMode(WhoModel::NameColumn, QHeaderView::Stretch);
    // Wide enough for "1,023.9 MiB/s" and the headings; fixed rather than
    // fitted to the contents, which would measure every row each second.
    const int figureWidth = view->fontMetrics().horizontalAdvance(QStringLiteral("1,023.9 MiB/s")) + 16;
    for (int column = WhoModel::FirstMeasureColumn; column <= WhoModel::ThirdMeasureColumn; ++column) {
        view->header()->setSectionResizeMode(column, QHeaderView::Interactive);
        view->header()->resizeSection(column, figureWidth);
    }
    view->header()->setSectionResizeMode(WhoModel::HistoryColumn, QHeaderView::Fixed);
    view->header()->resizeSection(WhoModel::HistoryColumn, view->fontMetrics().horizontalAdvance(QLatin1Char('0')) * 14);
    view->sortByColumn(WhoModel::FirstMeasureColumn, Qt::DescendingOrder);
    return view;
}

QLabel *paneTitle(QWidget *parent)
{
    auto *label = new QLabel(parent);
    QFont font = label->font();
    font.setBold(true);
    label->setFont(font);
    return label;
}

// The icons every row of a kind shares, looked up in the theme once.
const QIcon &themeIcon(const char *name)
{
    static std::map<std::string, QIcon> icons;
    auto found = icons.find(name);
    if (found == icons.end()) {
        found = icons.emplace(name, QIcon::fromTheme(QLatin1String(name))).first;
    }
    return found->second;
}

// An application's icon, with a fallback, once an application.
QIcon applicationIcon(const QString &iconName, const char *fallback)
{
    static QHash<QString, QIcon> icons;
    const QString key = iconName + QLatin1Char('|') + QLatin1String(fallback);
    if (const auto found = icons.constFind(key); found != icons.constEnd()) {
        return *found;
    }
    if (icons.size() >= 4096) {
        icons.clear();
    }
    return *icons.insert(key, QIcon::fromTheme(iconName, themeIcon(fallback)));
}

} // namespace

WhoView::WhoView(QWidget *parent)
    : QWidget(parent)
    , m_processesModel(new WhoModel(this))
    , m_secondModel(new WhoModel(this))
    , m_processesSort(new WhoSortModel(this))
    , m_secondSort(new WhoSortModel(this))
    , m_processesSparkline(new SparklineDelegate(this))
    , m_secondSparkline(new SparklineDelegate(this))
    , m_pushedOutModel(new QStandardItemModel(this))
    , m_watch(new ActivityWatch(this))
    , m_ownSampler(std::make_unique<Activity::OwnActivitySampler>())
{
    m_processesSort->setSourceModel(m_processesModel);
    m_secondSort->setSourceModel(m_secondModel);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto *header = new QHBoxLayout;
    header->setContentsMargins(6, 4, 6, 0);
    m_sourceLabel = new QLabel(this);
    m_sourceLabel->setWordWrap(true);
    m_sourceLabel->setTextFormat(Qt::PlainText);
    header->addWidget(m_sourceLabel, 1);
    m_watchAllButton = new QPushButton(this);
    m_watchAllButton->setObjectName(QStringLiteral("watchAllButton"));
    header->addWidget(m_watchAllButton);
    m_pauseButton = new QToolButton(this);
    m_pauseButton->setObjectName(QStringLiteral("pauseButton"));
    m_pauseButton->setCheckable(true);
    m_pauseButton->setIcon(QIcon::fromTheme(QStringLiteral("media-playback-pause")));
    m_pauseButton->setText(i18nc("@action:button hold the lists still", "Pause"));
    m_pauseButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_pauseButton->setToolTip(i18nc("@info:tooltip", "Hold the lists still to read them; nothing new is shown until you go on."));
    header->addWidget(m_pauseButton);
    layout->addLayout(header);

    m_messageWidget = new KMessageWidget(this);
    m_messageWidget->setWordWrap(true);
    m_messageWidget->setCloseButtonVisible(true);
    m_messageWidget->hide();
    layout->addWidget(m_messageWidget);

    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setChildrenCollapsible(false);
    const auto addPane = [this](QLabel *&title, QWidget *list) {
        auto *pane = new QWidget(m_splitter);
        auto *paneLayout = new QVBoxLayout(pane);
        paneLayout->setContentsMargins(0, 0, 0, 0);
        paneLayout->setSpacing(2);
        title = paneTitle(pane);
        title->setContentsMargins(6, 0, 0, 0);
        paneLayout->addWidget(title);
        list->setParent(pane);
        paneLayout->addWidget(list, 1);
        m_splitter->addWidget(pane);
        return pane;
    };
    m_processesView = makeList(this, m_processesSort, m_processesSparkline, i18nc("@info:whatsthis", "Processes that fill the page cache"));
    m_processesView->setObjectName(QStringLiteral("whoProcesses"));
    addPane(m_processesLabel, m_processesView);
    m_secondView = makeList(this, m_secondSort, m_secondSparkline, i18nc("@info:whatsthis", "Files or applications whose page cache changes"));
    m_secondView->setObjectName(QStringLiteral("whoFiles"));
    addPane(m_secondLabel, m_secondView);

    m_pushedOutView = new QTreeView(this);
    m_pushedOutView->setObjectName(QStringLiteral("whoPushedOut"));
    m_pushedOutView->setModel(m_pushedOutModel);
    m_pushedOutView->setRootIsDecorated(false);
    m_pushedOutView->setUniformRowHeights(true);
    m_pushedOutView->setAlternatingRowColors(true);
    m_pushedOutView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_pushedOutView->setAccessibleName(i18nc("@info:whatsthis", "Files that lost pages while the selected process read"));
    m_pushedOutModel->setHorizontalHeaderLabels({i18nc("@title:column", "File"),
                                                 i18nc("@title:column pages of a file taken out of the cache", "Lost"),
                                                 i18nc("@title:column who reclaimed the pages", "By")});
    m_pushedOutView->header()->setStretchLastSection(false);
    m_pushedOutView->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_pushedOutView->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_pushedOutView->header()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_pushedOutPane = addPane(m_pushedOutLabel, m_pushedOutView);
    m_pushedOutLabel->setWordWrap(true);
    m_splitter->setStretchFactor(0, 4);
    m_splitter->setStretchFactor(1, 4);
    m_splitter->setStretchFactor(2, 3);
    layout->addWidget(m_splitter, 1);

    const int historyLength = 60;
    m_processesModel->setHistoryLength(historyLength);
    m_secondModel->setHistoryLength(historyLength);

    connect(m_watchAllButton, &QPushButton::clicked, this, [this] {
        if (m_source == Source::AllUsers) {
            stopWatchingAllUsers();
        } else {
            watchAllUsers();
        }
    });
    connect(m_pauseButton, &QToolButton::toggled, this, &WhoView::setPaused);
    connect(m_watch, &ActivityWatch::intervalArrived, this, [this](const std::shared_ptr<const Activity::Interval> &interval) {
        takeAllUsersInterval(*interval);
    });
    connect(m_watch, &ActivityWatch::finished, this, &WhoView::watchFinished);
    // The sparkline draws what the list is sorted by.
    const auto followSort = [](QTreeView *view, WhoModel *model) {
        connect(view->header(), &QHeaderView::sortIndicatorChanged, model, [model](int section, Qt::SortOrder) {
            if (section >= WhoModel::FirstMeasureColumn && section <= WhoModel::ThirdMeasureColumn) {
                model->setSparklineMeasure(section - WhoModel::FirstMeasureColumn);
            }
        });
    };
    followSort(m_processesView, m_processesModel);
    followSort(m_secondView, m_secondModel);
    connect(m_processesView->selectionModel(), &QItemSelectionModel::selectionChanged, this, &WhoView::updatePushedOut);
    connect(m_secondView, &QTreeView::activated, this, &WhoView::inspectSelectedFiles);
    m_secondView->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_secondView, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        if (m_source != Source::AllUsers || !m_secondView->indexAt(position).isValid()) {
            return;
        }
        QMenu menu(this);
        QAction *open = menu.addAction(QIcon::fromTheme(QStringLiteral("view-list-details")), i18nc("@action:inmenu", "Show in Files List"));
        bool named = false;
        const QModelIndexList rows = m_secondView->selectionModel()->selectedRows();
        for (const QModelIndex &index : rows) {
            const WhoModel::Row *row = m_secondModel->rowAt(m_secondSort->mapToSource(index).row());
            named = named || (row && !row->path.isEmpty());
        }
        open->setEnabled(named);
        if (!named) {
            open->setToolTip(i18nc("@info:tooltip", "The helper could not name this file: it is not open or mapped in this mount namespace."));
        }
        connect(open, &QAction::triggered, this, &WhoView::inspectSelectedFiles);
        menu.exec(m_secondView->viewport()->mapToGlobal(position));
    });

    m_ownTimer.setInterval(m_intervalMs);
    connect(&m_ownTimer, &QTimer::timeout, this, &WhoView::sampleOwn);
    m_clock.start();
    setSource(Source::Own);
}

WhoView::~WhoView() = default;

WhoView::Source WhoView::source() const
{
    return m_source;
}

WhoModel *WhoView::processesModel() const
{
    return m_processesModel;
}

WhoModel *WhoView::secondModel() const
{
    return m_secondModel;
}

QTreeView *WhoView::processesView() const
{
    return m_processesView;
}

QTreeView *WhoView::secondView() const
{
    return m_secondView;
}

QTreeView *WhoView::pushedOutView() const
{
    return m_pushedOutView;
}

QStandardItemModel *WhoView::pushedOutModel() const
{
    return m_pushedOutModel;
}

QLabel *WhoView::sourceLabel() const
{
    return m_sourceLabel;
}

QLabel *WhoView::pushedOutLabel() const
{
    return m_pushedOutLabel;
}

QPushButton *WhoView::watchAllButton() const
{
    return m_watchAllButton;
}

QToolButton *WhoView::pauseButton() const
{
    return m_pauseButton;
}

KMessageWidget *WhoView::messageWidget() const
{
    return m_messageWidget;
}

ActivityWatch *WhoView::watch() const
{
    return m_watch;
}

bool WhoView::isShown() const
{
    return m_shown;
}

bool WhoView::isPaused() const
{
    return m_paused;
}

bool WhoView::isSampling() const
{
    return m_ownTimer.isActive();
}

void WhoView::setOwnSampler(std::unique_ptr<Activity::OwnActivitySampler> sampler)
{
    m_ownSampler = std::move(sampler);
}

void WhoView::setIntervalMs(int intervalMs)
{
    m_intervalMs = std::clamp(intervalMs, HelperProtocol::minActivityIntervalMs, HelperProtocol::maxActivityIntervalMs);
    m_ownTimer.setInterval(m_intervalMs);
    const int historyLength = std::max(2, int(std::lround(60000.0 / m_intervalMs)));
    m_processesModel->setHistoryLength(historyLength);
    m_secondModel->setHistoryLength(historyLength);
    m_processesSparkline->setSlots(historyLength);
    m_secondSparkline->setSlots(historyLength);
}

void WhoView::setWatchSeconds(int seconds)
{
    m_watchSeconds = std::clamp(seconds, 1, HelperProtocol::maxActivitySeconds);
}

void WhoView::setSource(Source source)
{
    m_source = source;
    m_processesModel->clear();
    m_secondModel->clear();
    m_pushedOut.clear();
    m_pushedOutModel->removeRows(0, m_pushedOutModel->rowCount());
    m_pushedOutShowsHint = false;
    m_firstIntervalShown = false;
    m_lostEvents = 0;
    const bool allUsers = source == Source::AllUsers;
    if (allUsers) {
        const QString fromEvents = i18nc("@info:tooltip", "From the kernel's page-cache events (filemap, writeback, vmscan), recorded by the helper.");
        m_processesModel->setMeasures({{
            {i18nc("@title:column pages read into the cache a second", "Brought In"),
             i18nc("@info:tooltip", "Pages this process brought into the page cache, a second. %1", fromEvents),
             true},
            {i18nc("@title:column pages taken out of the cache a second", "Evicted"),
             i18nc("@info:tooltip",
                   "Pages taken out of the page cache in this process, a second: reclaimed (kswapd, or the process in direct reclaim) or dropped (truncated, "
                   "evicted on request). %1",
                   fromEvents),
             true},
            {i18nc("@title:column pages written to in the cache a second", "Dirtied"),
             i18nc("@info:tooltip", "Pages this process dirtied, a second: written in the cache, not yet on the disk. %1", fromEvents),
             true},
        }});
        m_secondModel->setMeasures({{
            {i18nc("@title:column", "Brought In"), i18nc("@info:tooltip", "Pages of this file brought into the page cache, a second. %1", fromEvents), true},
            {i18nc("@title:column", "Evicted"), i18nc("@info:tooltip", "Pages of this file taken out of the page cache, a second. %1", fromEvents), true},
            {i18nc("@title:column", "Dirtied"), i18nc("@info:tooltip", "Pages of this file dirtied, a second. %1", fromEvents), true},
        }});
        m_processesSparkline->setColors(allUsersColors);
        m_secondSparkline->setColors(allUsersColors);
        m_processesLabel->setText(i18nc("@title:group", "Processes"));
        m_secondLabel->setText(i18nc("@title:group", "Files"));
        m_watchAllButton->setText(i18nc("@action:button", "Stop Watching All Users"));
        m_watchAllButton->setIcon(QIcon::fromTheme(QStringLiteral("media-playback-stop")));
        m_watchAllButton->setToolTip(i18nc("@info:tooltip", "Back to what you may see without administrator rights; the helper stops recording."));
        m_secondView->setToolTip(i18nc("@info:tooltip", "Double-click a file to show it in the files list with its heatmap."));
    } else {
        m_processesModel->setMeasures({{
            {i18nc("@title:column bytes read from the disk a second", "Read from Disk"),
             i18nc("@info:tooltip", "What this process read from storage, a second: /proc/PID/io read_bytes. Reads served by the page cache are not in it."),
             true},
            {i18nc("@title:column bytes written to the disk a second", "Written"),
             i18nc("@info:tooltip", "What this process caused to be written to storage, a second: /proc/PID/io write_bytes."),
             true},
            {i18nc("@title:column bytes asked for by read calls a second", "Asked For"),
             i18nc("@info:tooltip", "What this process asked for with read calls, a second, from the cache or not: /proc/PID/io rchar."),
             true},
        }});
        m_secondModel->setMeasures({{
            {i18nc("@title:column page cache growth a second", "Cache Grew"),
             i18nc("@info:tooltip", "How fast this memory cgroup's page cache grew: memory.stat \"file\", between two readings."),
             true},
            {i18nc("@title:column page cache shrinkage a second", "Cache Shrank"),
             i18nc("@info:tooltip", "How fast this memory cgroup's page cache shrank: memory.stat \"file\", between two readings."),
             true},
            {i18nc("@title:column", "Refaults"),
             i18nc("@info:tooltip",
                   "File pages read again after they were evicted while the kernel still remembered them, a second: memory.stat "
                   "workingset_refault_file."),
             false},
        }});
        m_processesSparkline->setColors(ownProcessColors);
        m_secondSparkline->setColors(ownGroupColors);
        m_processesLabel->setText(i18nc("@title:group", "Your Processes"));
        m_secondLabel->setText(i18nc("@title:group memory cgroups", "Applications and Services"));
        m_watchAllButton->setText(i18nc("@action:button", "Watch All Users…"));
        m_watchAllButton->setIcon(QIcon::fromTheme(QStringLiteral("view-process-all")));
        updateWatchButton();
        m_secondView->setToolTip({});
    }
    m_pushedOutPane->setVisible(allUsers);
    m_processesView->sortByColumn(WhoModel::FirstMeasureColumn, Qt::DescendingOrder);
    m_secondView->sortByColumn(WhoModel::FirstMeasureColumn, Qt::DescendingOrder);
    m_processesModel->setSparklineMeasure(0);
    m_secondModel->setSparklineMeasure(0);
    updateSourceLabel();
    updatePushedOut();
    updateSampling();
}

void WhoView::updateSourceLabel()
{
    if (m_source == Source::AllUsers) {
        QString text = m_watch->isRunning() && !m_watch->isStopping()
            ? i18nc("@info", "Every user's processes and files, from the kernel's page-cache events, each second.")
            : i18nc("@info", "Asking the helper to watch every user's processes and files…");
        if (m_lostEvents > 0) {
            text += QLatin1Char(' ')
                + i18ncp("@info", "%1 event was lost: the figures are low by it.", "%1 events were lost: the figures are low by them.", m_lostEvents);
        }
        if (m_sourceLabel->text() != text) {
            m_sourceLabel->setText(text);
        }
    } else {
        m_sourceLabel->setText(
            i18nc("@info",
                  "What you may see without administrator rights: your processes' reads and writes (/proc/PID/io) and each memory cgroup's page cache "
                  "(memory.stat, memory.pressure)."));
    }
}

void WhoView::watchAllUsers()
{
    if (m_source == Source::AllUsers || m_watch->isRunning()) {
        return;
    }
    m_messageWidget->animatedHide();
    setSource(Source::AllUsers);
    m_watch->start(m_watchSeconds, m_intervalMs);
    updateSourceLabel();
}

void WhoView::stopWatchingAllUsers()
{
    m_stopRequested = m_watch->isRunning();
    m_watch->stop();
    if (m_source == Source::AllUsers) {
        setSource(Source::Own);
    }
}

void WhoView::updateWatchButton()
{
    if (m_source != Source::Own) {
        return;
    }
    // Asked once, when first shown: it takes calls on the system bus, and
    // its answer holds for the session.
    if (!m_helperAvailable && !m_shown) {
        m_watchAllButton->setEnabled(false);
        return;
    }
    if (!m_helperAvailable) {
        QString reason;
        m_helperAvailable = Privileged::helperAvailable(&reason);
        m_helperUnavailableReason = reason;
    }
    // A watch that is still ending (its job cancelled) is waited for.
    m_watchAllButton->setEnabled(*m_helperAvailable && !m_watch->isRunning());
    m_watchAllButton->setToolTip(*m_helperAvailable ? i18nc("@info:tooltip",
                                                            "Every process and every file, from the kernel's events: pages brought in, evicted and "
                                                            "dirtied. It shows other users' file names, so it asks for the administrator's password "
                                                            "each time.")
                                                    : m_helperUnavailableReason);
}

void WhoView::watchFinished(const QString &error, const QString &endReason)
{
    // A watch stopped here (Stop, the tab left) may end with "cancelled"
    // while polkit still asked: that is no failure to report.
    const bool stoppedHere = m_stopRequested;
    m_stopRequested = false;
    if (!error.isEmpty() && !stoppedHere) {
        showMessage(i18nc("@info", "Every user's activity could not be watched: %1", error), KMessageWidget::Error);
    } else if (endReason == QLatin1String("deadline")) {
        showMessage(i18nc("@info", "The watch of all users ended after its hour. Watch All Users… starts another."), KMessageWidget::Information);
    }
    if (m_source == Source::AllUsers) {
        setSource(Source::Own);
    } else {
        updateWatchButton(); // this user's lists stay as they are
    }
}

void WhoView::setPaused(bool paused)
{
    m_paused = paused;
    if (m_pauseButton->isChecked() != paused) {
        m_pauseButton->setChecked(paused);
    }
    m_pauseButton->setIcon(QIcon::fromTheme(paused ? QStringLiteral("media-playback-start") : QStringLiteral("media-playback-pause")));
    m_pauseButton->setText(paused ? i18nc("@action:button", "Go On") : i18nc("@action:button hold the lists still", "Pause"));
    updateSampling();
}

void WhoView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    updateVisibility();
}

void WhoView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    updateVisibility();
}

void WhoView::updateVisibility()
{
    const bool shown = canBeSeen(this);
    if (shown == m_shown) {
        return;
    }
    m_shown = shown;
    if (shown && !m_helperAvailable) {
        updateWatchButton();
    }
    if (!shown && m_source == Source::AllUsers) {
        // Nothing runs for a part nobody sees: the helper's instance goes.
        m_stopRequested = m_watch->isRunning();
        m_watch->stop();
        setSource(Source::Own);
        showMessage(i18nc("@info", "Watching all users stopped when the Activity tab was hidden: it costs nothing while it is not on show."),
                    KMessageWidget::Information);
    }
    updateSampling();
    Q_EMIT shownChanged(shown);
    // tools/bench/window --watch-all-users: the window's cost while it
    // shows every user's activity, without a click.
    static bool watchOnFirstShow = qEnvironmentVariableIntValue("CACHESCOPE_WATCH_ALL_USERS") == 1;
    if (shown && watchOnFirstShow) {
        watchOnFirstShow = false;
        watchAllUsers();
    }
}

void WhoView::updateSampling()
{
    const bool sampleOwnNow = m_shown && !m_paused && m_source == Source::Own;
    if (sampleOwnNow && !m_ownTimer.isActive()) {
        // The first reading only takes a sample; the next one gives figures.
        sampleOwn();
        m_ownTimer.start();
    } else if (!sampleOwnNow) {
        m_ownTimer.stop();
    }
}

void WhoView::sampleOwn()
{
    if (!m_ownSampler) {
        return;
    }
    const std::optional<Activity::OwnInterval> interval = m_ownSampler->sample(double(m_clock.nsecsElapsed()) / 1e9);
    if (interval) {
        takeOwnInterval(*interval);
    }
}

void WhoView::takeOwnInterval(const Activity::OwnInterval &interval)
{
    if (m_paused || m_source != Source::Own || interval.seconds <= 0) {
        return;
    }
    const double seconds = interval.seconds;
    std::vector<WhoModel::Row> processes;
    processes.reserve(interval.processes.size());
    for (const Activity::ProcessIo &process : interval.processes) {
        WhoModel::Row row;
        row.key = QStringLiteral("p:%1").arg(process.pid);
        row.pid = process.pid;
        row.name = QString::fromStdString(process.command);
        row.icon = themeIcon("application-x-executable");
        row.toolTip = i18nc("@info:tooltip", "%1, process %2", row.name, process.pid);
        row.perSecond = {double(process.readBytes) / seconds, double(process.writeBytes) / seconds, double(process.readCalls) / seconds};
        processes.push_back(std::move(row));
    }
    m_processesModel->addInterval(std::move(processes), seconds);

    std::vector<WhoModel::Row> groups;
    groups.reserve(interval.groups.size());
    for (const Activity::GroupActivity &group : interval.groups) {
        WhoModel::Row row;
        row.key = QStringLiteral("g:") + QString::fromStdString(group.cgroupPath);
        row.name = QString::fromStdString(group.name);
        row.icon = themeIcon("folder");
        if (const std::optional<DesktopApplication> application = applicationOf(group.desktopFileId)) {
            row.name = application->name;
            row.icon = applicationIcon(application->iconName, "folder");
        }
        QStringList lines{QString::fromStdString(group.cgroupPath)};
        lines << i18nc("@info:tooltip", "Page cache now: %1", formatBytes(group.fileBytes, ByteStyle::OneDecimal, QLocale()));
        if (group.pressureSomeAvg10) {
            lines << i18nc("@info:tooltip memory.pressure",
                           "Memory pressure: some task waited for memory %1 % of the last 10 seconds (memory.pressure)",
                           QLocale().toString(*group.pressureSomeAvg10, 'f', 2));
        }
        row.toolTip = lines.join(QLatin1Char('\n'));
        const double change = double(group.fileChangeBytes) / seconds;
        row.perSecond = {std::max(0.0, change), std::max(0.0, -change), double(group.refaults.value_or(0)) / seconds};
        groups.push_back(std::move(row));
    }
    m_secondModel->addInterval(std::move(groups), seconds);
    if (!interval.groupsFound && !interval.groupsReason.empty()) {
        m_secondView->setToolTip(QString::fromStdString(interval.groupsReason));
    }
}

QString WhoView::fileName(const Activity::FileKey &key) const
{
    if (const auto found = m_fileNames.find(key); found != m_fileNames.end()) {
        return found->second;
    }
    return i18nc("@item a file the helper could not name", "inode %1 on %2:%3", key.inode, major(key.device), minor(key.device));
}

void WhoView::takeAllUsersInterval(const Activity::Interval &interval)
{
    if (m_source != Source::AllUsers || interval.seconds <= 0) {
        return;
    }
    m_lostEvents += interval.lostEvents;
    // The label changes with the first interval and with lost events only.
    if (interval.lostEvents > 0 || !m_firstIntervalShown) {
        m_firstIntervalShown = true;
        updateSourceLabel();
    }
    if (m_paused) {
        return;
    }
    const double seconds = interval.seconds;
    const auto perSecond = [seconds](const Activity::Figures &figures) {
        return std::array<double, 3>{bytesOfPages(figures.addedPages, seconds),
                                     bytesOfPages(figures.evictedPages(), seconds),
                                     bytesOfPages(figures.dirtiedPages, seconds)};
    };

    for (const Activity::FileActivity &file : interval.files) {
        if (!file.path.empty()) {
            if (m_fileNames.size() >= Activity::Aggregator::maxTracked) {
                m_fileNames.clear();
            }
            m_fileNames[file.key] = QString::fromStdString(file.path);
        }
    }

    PushedOut pushed;
    std::vector<WhoModel::Row> processes;
    processes.reserve(interval.processes.size());
    for (const Activity::ProcessActivity &process : interval.processes) {
        WhoModel::Row row;
        row.key = QStringLiteral("p:%1").arg(process.pid);
        row.pid = process.pid;
        const QString command = QString::fromStdString(process.command);
        row.name = command.isEmpty() ? i18nc("@item a process", "process %1", process.pid) : command;
        const char *fallback = process.reclaimThread ? "edit-clear-history" : "application-x-executable";
        row.icon = themeIcon(fallback);
        if (const std::optional<DesktopApplication> application = applicationOf(process.application)) {
            row.name = i18nc("@item application and its command", "%1 (%2)", application->name, command);
            row.icon = applicationIcon(application->iconName, fallback);
        }
        QStringList lines;
        lines << i18nc("@info:tooltip", "%1, process %2", command.isEmpty() ? row.name : command, process.pid);
        if (process.reclaimThread) {
            lines << i18nc("@info:tooltip", "One of the kernel's reclaim threads: what it evicts, it evicts to make room for everyone.");
        } else if (process.uid >= 0) {
            lines << i18nc("@info:tooltip", "User: %1", userName(process.uid));
        } else {
            lines << i18nc("@info:tooltip", "It ended before the helper could name its user.");
        }
        if (!process.cgroup.empty()) {
            lines << i18nc("@info:tooltip", "Cgroup: %1", QString::fromStdString(process.cgroup));
        }
        row.toolTip = lines.join(QLatin1Char('\n'));
        row.perSecond = perSecond(process.figures);
        processes.push_back(std::move(row));

        if (process.figures.addedPages > 0) {
            pushed.adding.insert(process.pid);
        }
        if (process.reclaimThread) {
            pushed.byReclaimThreads.insert(pushed.byReclaimThreads.end(), process.pushedOut.begin(), process.pushedOut.end());
        } else if (!process.pushedOut.empty()) {
            pushed.byProcess[process.pid] = process.pushedOut;
        }
    }
    m_processesModel->addInterval(std::move(processes), seconds);

    std::vector<WhoModel::Row> files;
    files.reserve(interval.files.size());
    for (const Activity::FileActivity &file : interval.files) {
        WhoModel::Row row;
        row.key = QStringLiteral("f:%1:%2").arg(file.key.device).arg(file.key.inode);
        row.device = file.key.device;
        row.inode = file.key.inode;
        row.path = QString::fromStdString(file.path);
        if (row.path.isEmpty()) {
            // Named in an earlier interval: the name stays (the helper names
            // a file only while a process has it open or mapped).
            if (const auto known = m_fileNames.find(file.key); known != m_fileNames.end()) {
                row.path = known->second;
            }
        }
        if (!row.path.isEmpty()) {
            row.name = QFileInfo(row.path).fileName();
            row.toolTip = row.path;
        } else {
            const QString device =
                file.key.device ? QStringLiteral("%1:%2").arg(major(file.key.device)).arg(minor(file.key.device)) : QString::fromStdString(file.deviceName);
            row.name = i18nc("@item a file the helper could not name", "inode %1 on %2", file.key.inode, device);
            row.toolTip =
                i18nc("@info:tooltip", "The helper could not name this file: no process had it open or mapped when it looked, or not in this mount namespace.");
        }
        row.icon = themeIcon("text-x-generic");
        row.perSecond = perSecond(file.figures);
        files.push_back(std::move(row));
    }
    m_secondModel->addInterval(std::move(files), seconds);

    m_pushedOut.push_back(std::move(pushed));
    const size_t minute = size_t(std::max(2, int(std::lround(60000.0 / m_intervalMs))));
    while (m_pushedOut.size() > minute) {
        m_pushedOut.pop_front();
    }
    updatePushedOut();
}

void WhoView::updatePushedOut()
{
    if (m_source != Source::AllUsers) {
        return;
    }
    const QModelIndex current = m_processesView->selectionModel()->currentIndex();
    const QModelIndexList selected = m_processesView->selectionModel()->selectedRows();
    const WhoModel::Row *process =
        selected.isEmpty() ? nullptr : m_processesModel->rowAt(m_processesSort->mapToSource(current.isValid() ? current : selected.first()).row());
    if ((!process || process->pid <= 0) && m_pushedOutShowsHint) {
        return; // the hint stands
    }
    m_pushedOutModel->removeRows(0, m_pushedOutModel->rowCount());
    m_pushedOutShowsHint = !process || process->pid <= 0;
    if (!process || process->pid <= 0) {
        m_pushedOutLabel->setText(i18nc("@title:group", "Pushed Out"));
        const QString hint = i18nc("@info", "Select a process to see which files lost pages while it read, over the last minute.");
        m_pushedOutView->setToolTip(hint);
        auto *placeholder = new QStandardItem(hint);
        placeholder->setEnabled(false);
        placeholder->setToolTip(hint);
        m_pushedOutModel->appendRow(placeholder);
        return;
    }
    m_pushedOutLabel->setText(i18nc("@title:group %1 a process", "Pushed Out by %1", process->name));
    m_pushedOutView->setToolTip(
        i18nc("@info:tooltip",
              "The files whose pages were reclaimed over the last minute by this process itself (direct reclaim), and by the kernel's reclaim threads "
              "(kswapd, kdamond) while it brought pages in."));
    // file → pages, by itself and by the reclaim threads
    std::map<Activity::FileKey, std::pair<uint64_t, uint64_t>> lost;
    for (const PushedOut &interval : m_pushedOut) {
        if (const auto own = interval.byProcess.find(process->pid); own != interval.byProcess.end()) {
            for (const auto &[key, pages] : own->second) {
                lost[key].first += pages;
            }
        }
        if (interval.adding.contains(process->pid)) {
            for (const auto &[key, pages] : interval.byReclaimThreads) {
                lost[key].second += pages;
            }
        }
    }
    std::vector<std::pair<Activity::FileKey, std::pair<uint64_t, uint64_t>>> rows(lost.begin(), lost.end());
    std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
        return a.second.first + a.second.second > b.second.first + b.second.second;
    });
    static const uint64_t pageSize = uint64_t(sysconf(_SC_PAGESIZE));
    constexpr size_t shownRows = 200;
    for (size_t i = 0; i < rows.size() && i < shownRows; ++i) {
        const auto &[key, pages] = rows[i];
        auto *name = new QStandardItem(QIcon::fromTheme(QStringLiteral("text-x-generic")), fileName(key));
        name->setToolTip(fileName(key));
        auto *bytes = new QStandardItem(formatBytes((pages.first + pages.second) * pageSize, ByteStyle::OneDecimal, QLocale()));
        bytes->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        QString by;
        if (pages.first > 0 && pages.second > 0) {
            by = i18nc("@item reclaimed by the process and by the kernel's reclaim threads (kswapd, kdamond)", "It and a reclaim thread");
        } else if (pages.first > 0) {
            by = i18nc("@item reclaimed by the process itself", "It (direct reclaim)");
        } else {
            by = i18nc("@item reclaimed by the kernel's reclaim threads (kswapd, kdamond)", "A reclaim thread while it read");
        }
        m_pushedOutModel->appendRow({name, bytes, new QStandardItem(by)});
    }
    if (rows.empty()) {
        auto *none = new QStandardItem(i18nc("@item", "Nothing in the last minute"));
        none->setEnabled(false);
        m_pushedOutModel->appendRow(none);
    }
}

void WhoView::inspectSelectedFiles()
{
    if (m_source != Source::AllUsers) {
        return;
    }
    QList<QUrl> urls;
    const QModelIndexList rows = m_secondView->selectionModel()->selectedRows();
    for (const QModelIndex &index : rows) {
        const WhoModel::Row *row = m_secondModel->rowAt(m_secondSort->mapToSource(index).row());
        if (row && !row->path.isEmpty()) {
            urls << QUrl::fromLocalFile(row->path);
        }
    }
    if (urls.isEmpty()) {
        showMessage(i18nc("@info", "The helper could not name this file, so it cannot be shown in the files list."), KMessageWidget::Warning);
        return;
    }
    Q_EMIT inspectRequested(urls);
}

void WhoView::showMessage(const QString &text, int type)
{
    m_messageWidget->setText(text);
    m_messageWidget->setMessageType(KMessageWidget::MessageType(type));
    m_messageWidget->animatedShow();
}

} // namespace Cachescope::App
