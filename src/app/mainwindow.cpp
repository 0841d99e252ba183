// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "mainwindow.h"

#include "activity/whoview.h"
#include "applications/applicationsview.h"
#include "cachelimitdialog.h"
#include "cachemap/cachemapview.h"
#include "cachescopesettings.h"
#include "commandline.h"
#include "experiments/experimentswindow.h"
#include "files/filespanel.h"
#include "handbookviewer.h"
#include "memory/memorypanel.h"
#include "memory/memorysampler.h"
#include "privileged.h"
#include "privilegedactions.h"
#include "ui_SettingsAppearanceBase.h"
#include "ui_SettingsGeneralBase.h"

#include <KActionCollection>
#include <KConfigDialog>
#include <KConfigGroup>
#include <KHelpClient>
#include <KLineEdit>
#include <KLocalizedString>
#include <KMessageBox>
#include <KMessageWidget>
#include <KSharedConfig>
#include <KStandardActions>
#include <KUrlRequester>

#include <QAction>
#include <QApplication>
#include <QIcon>
#include <QPointer>
#include <QShowEvent>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace Cachescope::App
{

namespace
{

const QString settingsDialogName = QStringLiteral("settings");

// Of the window's height, what the memory panel and the selected file's
// heatmap get before the splitters are moved: the list keeps more than half.
constexpr double memoryShare = 0.24;
constexpr double heatmapShare = 0.15;
// What the Cache Map and Applications get at first: they are views to work
// in, not a context beside the list.
constexpr double defaultViewShare = 0.55;

KConfigGroup layoutState()
{
    return KSharedConfig::openStateConfig()->group(QStringLiteral("MainWindowLayout"));
}

} // namespace

MainWindow::MainWindow(const QString &procRoot, QWidget *parent)
    : KXmlGuiWindow(parent)
    , m_sampler(new MemorySampler(procRoot, this))
{
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);

    m_messageWidget = new KMessageWidget(central);
    m_messageWidget->setWordWrap(true);
    m_messageWidget->setCloseButtonVisible(true);
    m_messageWidget->setPosition(KMessageWidget::Header);
    m_messageWidget->hide();
    layout->addWidget(m_messageWidget);

    // Files above, because they are what one works on; memory below, as the
    // context that shows what evicting and loading did. The list is what a
    // person reads row by row, so it takes what the window grows by; the
    // plots keep their height and can be dragged smaller or collapsed.
    m_splitter = new QSplitter(Qt::Vertical, central);
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));
    m_filesPanel = new FilesPanel(m_splitter);
    m_memoryPanel = new MemoryPanel(m_splitter);
    m_splitter->addWidget(m_filesPanel);
    m_splitter->addWidget(m_memoryPanel);
    m_splitter->setCollapsible(0, false);
    m_splitter->setCollapsible(1, true);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 0);
    layout->addWidget(m_splitter);
    setCentralWidget(central);

    connect(m_sampler, &MemorySampler::sampled, m_memoryPanel, &MemoryPanel::addSample);
    connect(m_sampler, &MemorySampler::failed, m_memoryPanel, &MemoryPanel::showError);
    connect(m_sampler, &MemorySampler::recovered, m_memoryPanel, &MemoryPanel::clearError);
    // vmstat is read only while its plot is on screen.
    connect(m_memoryPanel, &MemoryPanel::ratesShownChanged, m_sampler, &MemorySampler::setRatesEnabled);
    connect(m_memoryPanel, &MemoryPanel::message, this, &MainWindow::showMessage);

    // Cache by application: a tab beside the plots, read only while shown.
    m_applicationsView = new ApplicationsView(m_memoryPanel);
    m_memoryPanel->tabs()->addTab(m_applicationsView, QIcon::fromTheme(QStringLiteral("view-process-tree")), i18nc("@title:tab", "Applications"));
    connect(m_applicationsView, &ApplicationsView::shownChanged, m_sampler, &MemorySampler::setApplicationsEnabled);
    connect(m_sampler, &MemorySampler::applicationsSampled, m_applicationsView, &ApplicationsView::setReport);
    connect(m_applicationsView, &ApplicationsView::message, this, &MainWindow::showMessage);
    connect(m_applicationsView, &ApplicationsView::refreshRequested, m_sampler, &MemorySampler::sampleNow);

    // Who fills the cache now: under the activity plot, read only while shown.
    m_whoView = new WhoView(m_memoryPanel);
    m_whoView->setObjectName(QStringLiteral("whoView"));
    m_memoryPanel->addActivityPart(m_whoView);
    connect(m_whoView, &WhoView::message, this, &MainWindow::showMessage);

    // The cache map: which folders hold the cache. It walks when first shown
    // and on request; its actions go through the files panel, as drops do.
    m_cacheMapView = new CacheMapView(m_memoryPanel);
    m_cacheMapView->setObjectName(QStringLiteral("cacheMapView"));
    m_memoryPanel->tabs()->addTab(m_cacheMapView, QIcon::fromTheme(QStringLiteral("office-chart-area-focus-peak-node")), i18nc("@title:tab", "Cache Map"));
    // The files panel says its own results under the toolbar: what the bar
    // on top said before is older, and goes.
    connect(m_filesPanel, &FilesPanel::message, m_messageWidget, [this] {
        if (m_messageWidget->isVisible() && !m_messageWidget->isHideAnimationRunning()) {
            m_messageWidget->animatedHide();
        }
    });
    connect(m_cacheMapView, &CacheMapView::evictRequested, m_filesPanel, &FilesPanel::evictUrls);
    connect(m_cacheMapView, &CacheMapView::accountChanged, m_applicationsView, [this] {
        m_applicationsView->setCacheAccount(m_cacheMapView->account());
    });
    connect(m_cacheMapView, &CacheMapView::inspectRequested, m_filesPanel, &FilesPanel::inspectUrls);
    connect(m_whoView, &WhoView::inspectRequested, m_filesPanel, &FilesPanel::inspectUrls);

    // What needs root (drop caches, swap, hidden residency) goes through the
    // privileged helper; its effects are marked on the memory plot.
    m_privileged = new PrivilegedActions(this);
    m_privileged->setDialogParent(this);
    connect(m_privileged, &PrivilegedActions::markerRequested, m_memoryPanel, [this](const QDateTime &, const QString &label, const QString &details) {
        m_memoryPanel->addMarker(label, details);
    });
    connect(m_privileged, &PrivilegedActions::message, this, &MainWindow::showMessage);
    connect(m_privileged, &PrivilegedActions::progress, this, &MainWindow::showProgress);
    // What shows residency follows the window's own changes of the page cache.
    connect(m_privileged, &PrivilegedActions::pageCacheChanged, m_filesPanel, &FilesPanel::pageCacheChangedElsewhere);
    connect(m_privileged, &PrivilegedActions::pageCacheChanged, m_cacheMapView, &CacheMapView::pageCacheChanged);
    connect(m_filesPanel, &FilesPanel::pageCacheChanged, m_cacheMapView, &CacheMapView::pageCacheChangedUnder);
    connect(m_privileged, &PrivilegedActions::availabilityChanged, m_filesPanel, &FilesPanel::setPrivilegedHelperAvailable);
    connect(m_sampler, &MemorySampler::sampled, m_privileged, [this](const MemorySample &sample) {
        m_privileged->setSwapTotal(sample.figures.swapTotal);
    });
    m_filesPanel->setPrivilegedHelperAvailable(m_privileged->isAvailable(), m_privileged->unavailableReason());
    connect(m_filesPanel, &FilesPanel::privilegedViewRequested, m_privileged, [this](const std::string &path) {
        m_privileged->requestResidency(path, m_filesPanel->heatmapCells());
    });
    connect(m_privileged, &PrivilegedActions::residencyReady, m_filesPanel, &FilesPanel::showPrivilegedResidency);
    // Reclaiming a cgroup this user may not write: the helper's reclaim action.
    const auto setHelperReclaim = [this](bool available, const QString &reason) {
        if (!available) {
            m_applicationsView->setHelperReclaim({}, reason);
            return;
        }
        m_applicationsView->setHelperReclaim([this](const QString &cgroup, quint64, const ApplicationsView::HelperReclaimDone &done) {
            // Asynchronous, polkit's dialog included: the window goes on
            // meanwhile. The view takes the answer only while it is there.
            const QPointer<ApplicationsView> view = m_applicationsView;
            m_privileged->reclaimCgroup(cgroup, [view, done](const Privileged::ReclaimResult &result) {
                if (view) {
                    done(result.ok() ? QString() : result.message, result.stoppedAtDeadline);
                }
            });
        });
    };
    connect(m_privileged, &PrivilegedActions::availabilityChanged, this, setHelperReclaim);
    setHelperReclaim(m_privileged->isAvailable(), m_privileged->unavailableReason());
    // The account's hidden parts: the helper's account made as root.
    const auto setHelperAccount = [this](bool available, const QString &reason) {
        if (!available) {
            m_cacheMapView->setHelperAccount({}, reason);
            return;
        }
        m_cacheMapView->setHelperAccount([this](const CacheMapView::AccountDone &done) {
            m_privileged->accountWithHelper([done](const Privileged::AccountResult &result) {
                if (result.ok()) {
                    done(std::make_shared<const CacheAccount>(result.account), QString());
                } else {
                    done(nullptr, result.message);
                }
            });
        });
    };
    connect(m_privileged, &PrivilegedActions::availabilityChanged, this, setHelperAccount);
    setHelperAccount(m_privileged->isAvailable(), m_privileged->unavailableReason());

    setUpActions();
    // No status bar: messages go to the bar on top, figures to the panels.
    setupGUI(defaultSize, ToolBar | Keys | Save | Create, QStringLiteral("cachescopeui.rc"));
    // After setupGUI, which would otherwise put its own caption back.
    setPlainCaption(i18nc("@title:window", "Cachescope"));
    restoreLayout();
    connect(m_memoryPanel->tabs(), &QTabWidget::currentChanged, this, &MainWindow::fitSplitterToMemoryTab);
    // Help > Cachescope Handbook (F1): KHelpCenter where it is installed,
    // else the window's own viewer, never nothing (KHelpMenu would hand
    // help:/ to a desktop that may have no handler for it).
    if (QAction *handbook = actionCollection()->action(QStringLiteral("help_contents"))) {
        disconnect(handbook, &QAction::triggered, nullptr, nullptr);
        connect(handbook, &QAction::triggered, this, &MainWindow::showHandbook);
    }

    applySettings();
    m_sampler->start();
}

MainWindow::~MainWindow()
{
    saveLayout();
}

MemoryPanel *MainWindow::memoryPanel() const
{
    return m_memoryPanel;
}

MemorySampler *MainWindow::sampler() const
{
    return m_sampler;
}

FilesPanel *MainWindow::filesPanel() const
{
    return m_filesPanel;
}

QSplitter *MainWindow::splitter() const
{
    return m_splitter;
}

KMessageWidget *MainWindow::messageWidget() const
{
    return m_messageWidget;
}

ApplicationsView *MainWindow::applicationsView() const
{
    return m_applicationsView;
}

WhoView *MainWindow::whoView() const
{
    return m_whoView;
}

void MainWindow::setUpActions()
{
    KActionCollection *actions = actionCollection();

    // closeAllWindows rather than quit, so that the window saves its size.
    KStandardActions::quit(qApp, &QApplication::closeAllWindows, actions);
    KStandardActions::preferences(this, &MainWindow::showSettings, actions);

    QAction *pause = actions->addAction(QStringLiteral("updates_pause"));
    pause->setText(i18nc("@action:intoolbar", "Pause Updates"));
    pause->setIcon(QIcon::fromTheme(QStringLiteral("media-playback-pause")));
    pause->setToolTip(i18nc("@info:tooltip", "Stop updating the plots, the table and the file list, to read them at leisure"));
    pause->setCheckable(true);
    actions->setDefaultShortcut(pause, QKeySequence(Qt::Key_Pause));
    connect(pause, &QAction::toggled, this, &MainWindow::setUpdatesPaused);

    QAction *experiments = actions->addAction(QStringLiteral("tools_experiments"));
    experiments->setText(i18nc("@action", "Page Cache Experiments…"));
    experiments->setIcon(QIcon::fromTheme(QStringLiteral("applications-science")));
    experiments->setToolTip(
        i18nc("@info:tooltip", "Run the classic page cache lessons: cold against warm reads, memory pressure, cold starts, writeback, page faults"));
    actions->setDefaultShortcut(experiments, QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X));
    connect(experiments, &QAction::triggered, this, [] {
        // Deletes itself when closed, cancelling what runs.
        (new Cachescope::App::ExperimentsWindow)->show();
    });

    QAction *cacheLimit = actions->addAction(QStringLiteral("tools_cache_limit"));
    cacheLimit->setText(i18nc("@action", "Run with a Cache Limit…"));
    cacheLimit->setIcon(QIcon::fromTheme(QStringLiteral("system-run")));
    cacheLimit->setToolTip(i18nc("@info:tooltip", "Run a command (a backup, a scan) whose page cache cannot grow beyond a limit"));
    connect(cacheLimit, &QAction::triggered, this, [this] {
        (new Cachescope::App::CacheLimitDialog(this))->show();
    });

    // The tabs beside the plots, from the keyboard (Alt+1 to Alt+4, as
    // Konsole's and Dolphin's tabs) and over D-Bus (org.kde.KMainWindow.activateAction).
    const struct {
        const char *name;
        QWidget *page;
        QString text;
        const char *icon;
        Qt::Key key;
    } tabActions[] = {
        {"view_show_memory", m_memoryPanel->tabs()->widget(0), i18nc("@action", "Show Memory"), "memory", Qt::Key_1},
        {"view_show_activity", m_memoryPanel->tabs()->widget(1), i18nc("@action", "Show Activity"), "office-chart-line", Qt::Key_2},
        {"view_show_applications", m_applicationsView, i18nc("@action", "Show Applications"), "view-process-tree", Qt::Key_3},
        {"view_show_cache_map", m_cacheMapView, i18nc("@action", "Show Cache Map"), "office-chart-area-focus-peak-node", Qt::Key_4},
    };
    for (const auto &tab : tabActions) {
        QAction *show = actions->addAction(QString::fromLatin1(tab.name));
        show->setText(tab.text);
        show->setIcon(QIcon::fromTheme(QString::fromLatin1(tab.icon)));
        actions->setDefaultShortcut(show, QKeySequence(Qt::ALT | tab.key));
        connect(show, &QAction::triggered, this, [this, page = tab.page] {
            m_memoryPanel->tabs()->setCurrentWidget(page);
        });
    }
    QAction *refreshMap = actions->addAction(QStringLiteral("view_refresh_cache_map"));
    refreshMap->setText(i18nc("@action", "Refresh Cache Map"));
    refreshMap->setIcon(QIcon::fromTheme(QStringLiteral("view-refresh")));
    refreshMap->setToolTip(i18nc("@info:tooltip", "Show the Cache Map and walk its folder again: the map is a picture of one moment"));
    connect(refreshMap, &QAction::triggered, this, [this] {
        // Shown for the first time it maps / by itself; a walk under way goes on.
        m_memoryPanel->tabs()->setCurrentWidget(m_cacheMapView);
        if (!m_cacheMapView->isMapping()) {
            m_cacheMapView->refresh();
        }
    });

    m_memoryPanel->setUpActions(actions);
    m_filesPanel->setUpActions(actions);
    m_privileged->setUpActions(actions);
}

void MainWindow::setUpdatesPaused(bool paused)
{
    if (paused) {
        m_sampler->stop();
    } else {
        m_sampler->start();
    }
    m_filesPanel->setPaused(paused);
}

void MainWindow::openUrls(const QList<QUrl> &urls, bool evict)
{
    if (urls.isEmpty()) {
        return;
    }
    Q_EMIT urlsOpened(urls);
    if (evict) {
        m_filesPanel->evictUrls(urls);
    } else {
        m_filesPanel->inspectUrls(urls);
    }
}

void MainWindow::activate(const QStringList &arguments, const QString &workingDirectory)
{
    const CommandLineRequest request = requestFromActivation(arguments, workingDirectory);
    openUrls(request.urls, request.evict);
    if (isMinimized()) {
        setWindowState(windowState() & ~Qt::WindowMinimized);
    }
    show();
    raise();
    activateWindow();
}

KConfigDialog *MainWindow::showSettings()
{
    if (KConfigDialog::showDialog(settingsDialogName)) {
        return KConfigDialog::exists(settingsDialogName);
    }
    auto *dialog = new KConfigDialog(this, settingsDialogName, CachescopeSettings::self());
    dialog->setFaceType(KPageDialog::List);

    auto *general = new QWidget(dialog);
    Ui::SettingsGeneralBase generalForm;
    generalForm.setupUi(general);
    // The label is the requester's buddy; its own line edit and button
    // are what a screen reader reaches.
    generalForm.kcfg_ExperimentsFolder->lineEdit()->setAccessibleName(generalForm.experimentsFolderLabel->text().remove(QLatin1Char(':')));
    generalForm.kcfg_ExperimentsFolder->button()->setAccessibleName(i18nc("@action:button accessible name", "Choose the Experiments Folder"));
    dialog->addPage(general, i18nc("@title:tab settings page", "General"), QStringLiteral("configure"));

    auto *appearance = new QWidget(dialog);
    Ui::SettingsAppearanceBase().setupUi(appearance);
    dialog->addPage(appearance, i18nc("@title:tab settings page", "Appearance"), QStringLiteral("preferences-desktop-color"));

    connect(dialog, &KConfigDialog::settingsChanged, this, &MainWindow::applySettings);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

void MainWindow::applySettings()
{
    const CachescopeSettings *settings = CachescopeSettings::self();
    const int interval = settings->refreshInterval();
    m_sampler->setInterval(std::chrono::milliseconds(interval));
    m_memoryPanel->setHistoryMinutes(settings->historyMinutes());

    m_filesPanel->setRefreshInterval(interval);
    m_filesPanel->setHeatmapCells(settings->heatmapCells());
    m_filesPanel->setFollowSymlinks(settings->followSymlinks());
    m_filesPanel->setOneFileSystem(settings->oneFileSystem());
    m_cacheMapView->setOneFileSystem(settings->oneFileSystem());
    m_cacheMapView->setColors(settings->emptyColor(), settings->residentColor());
    // The residency strips of the list and the heatmap take the same colours.
    m_filesPanel->setColors(settings->residentColor(), settings->dirtyColor(), settings->emptyColor());
}

void MainWindow::showMessage(const QString &text, bool isError)
{
    // One message at a time: the newest, never stacked under an older one.
    m_filesPanel->hideMessage();
    m_messageWidget->setMessageType(isError ? KMessageWidget::Error : KMessageWidget::Positive);
    m_messageWidget->setIcon(QIcon::fromTheme(isError ? QStringLiteral("dialog-error") : QStringLiteral("dialog-positive")));
    m_messageWidget->setText(text);
    m_messageWidget->animatedShow();
}

void MainWindow::showHandbook()
{
    if (HandbookViewer::helpCenterInstalled()) {
        KHelpClient::invokeHelp(QString(), QStringLiteral("cachescope"));
        return;
    }
    if (m_handbookViewer) {
        m_handbookViewer->show();
        m_handbookViewer->raise();
        m_handbookViewer->activateWindow();
        return;
    }
    const QUrl index = HandbookViewer::locateIndex();
    if (index.isEmpty()) {
        KMessageBox::error(this,
                           xi18nc("@info",
                                  "<para>KHelpCenter, KDE's help viewer, is not installed, and the handbook's pages are not where Cachescope "
                                  "looks for them (<filename>cachescope/handbook/index.html</filename> in the data folders).</para><para>Install "
                                  "KHelpCenter (the <application>khelpcenter</application> package) or Cachescope's handbook to read it.</para>"),
                           i18nc("@title:window", "No Handbook"));
        return;
    }
    m_handbookViewer = new HandbookViewer(index, this);
    m_handbookViewer->show();
}

void MainWindow::showProgress(const QString &text)
{
    m_filesPanel->hideMessage();
    // Work under way, not a result: no "positive" tick yet.
    m_messageWidget->setMessageType(KMessageWidget::Information);
    m_messageWidget->setIcon(QIcon::fromTheme(QStringLiteral("view-refresh")));
    m_messageWidget->setText(text);
    m_messageWidget->animatedShow();
}

QSplitter *MainWindow::filesSplitter() const
{
    return m_filesPanel->findChild<QSplitter *>(QStringLiteral("filesSplitter"));
}

void MainWindow::restoreLayout()
{
    KConfigGroup group = layoutState();
    // "Splitter" held the sizes of the old layout, in which the plots took
    // two thirds of the height: not carried over.
    group.deleteEntry("Splitter");
    const QByteArray mainState = group.readEntry("MainSplitter", QByteArray());
    const QByteArray filesState = group.readEntry("FilesSplitter", QByteArray());
    QSplitter *files = filesSplitter();
    const bool mainRestored = !mainState.isEmpty() && m_splitter->restoreState(mainState);
    const bool filesRestored = files && !filesState.isEmpty() && files->restoreState(filesState);
    // Sizes from shares of the height the window opens with (showEvent).
    m_defaultSplitterSizesPending = !mainRestored || !filesRestored;
    m_restoredMainSplitter = mainRestored;
    m_restoredFilesSplitter = filesRestored;
    m_viewShare = std::clamp(group.readEntry("ViewShare", defaultViewShare), 0.0, 0.9);
    m_memoryPanel->tabs()->setCurrentIndex(group.readEntry("MemoryTab", 0));
}

bool MainWindow::memoryPanelShowsAView() const
{
    const QWidget *current = m_memoryPanel->tabs()->currentWidget();
    return current == m_cacheMapView || current == m_applicationsView || current == m_memoryPanel->activityTab();
}

void MainWindow::fitSplitterToMemoryTab()
{
    const bool view = memoryPanelShowsAView();
    // Before the first show the splitter has no sizes of its own: showEvent fits it.
    if (view == m_splitterFitsAView || !m_wasShown || m_defaultSplitterSizesPending) {
        return;
    }
    const QList<int> sizes = m_splitter->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    if (m_splitterFitsAView) {
        if (total > 0) {
            m_viewShare = std::clamp(double(sizes.value(1)) / total, 0.0, 0.9);
        }
    } else {
        m_plotSplitterSizes = sizes;
    }
    m_splitterFitsAView = view;
    if (view) {
        // Growing the window keeps the view's share.
        const int viewPart = int(total * m_viewShare);
        m_splitter->setStretchFactor(0, 100 - int(m_viewShare * 100));
        m_splitter->setStretchFactor(1, int(m_viewShare * 100));
        m_splitter->setSizes({total - viewPart, viewPart});
    } else {
        // The plots keep their height; the list takes what the window grows by.
        m_splitter->setStretchFactor(0, 1);
        m_splitter->setStretchFactor(1, 0);
        if (!m_plotSplitterSizes.isEmpty()) {
            m_splitter->setSizes(m_plotSplitterSizes);
        }
    }
}

void MainWindow::showEvent(QShowEvent *event)
{
    KXmlGuiWindow::showEvent(event);
    m_wasShown = true;
    if (event->spontaneous()) {
        return;
    }
    if (m_defaultSplitterSizesPending) {
        m_defaultSplitterSizesPending = false;
        // The panels that do not stretch keep these heights as the window grows
        // or shrinks; the list takes the rest.
        if (!m_restoredMainSplitter) {
            m_splitter->setSizes({height(), int(height() * memoryShare)});
        }
        if (QSplitter *files = filesSplitter(); files && !m_restoredFilesSplitter) {
            files->setSizes({height(), int(height() * heatmapShare)});
        }
    }
    // Opened on the Cache Map or Applications: they get their room.
    fitSplitterToMemoryTab();
}

void MainWindow::saveLayout()
{
    KConfigGroup group = layoutState();
    // A window never shown has splitters never laid out: nothing to keep.
    if (m_wasShown) {
        // The plots' sizes are what "MainSplitter" keeps; a view's, its share.
        if (m_splitterFitsAView) {
            const QList<int> sizes = m_splitter->sizes();
            if (const int total = sizes.value(0) + sizes.value(1); total > 0) {
                m_viewShare = std::clamp(double(sizes.value(1)) / total, 0.0, 0.9);
            }
            if (!m_plotSplitterSizes.isEmpty()) {
                const QSignalBlocker blocker(m_splitter);
                m_splitter->setSizes(m_plotSplitterSizes);
                group.writeEntry("MainSplitter", m_splitter->saveState());
                m_splitter->setSizes(sizes);
            }
        } else {
            group.writeEntry("MainSplitter", m_splitter->saveState());
        }
        group.writeEntry("ViewShare", m_viewShare);
        if (const QSplitter *files = filesSplitter()) {
            group.writeEntry("FilesSplitter", files->saveState());
        }
    }
    group.writeEntry("MemoryTab", m_memoryPanel->tabs()->currentIndex());
    group.sync();
}

bool MainWindow::queryClose()
{
    saveLayout();
    return KXmlGuiWindow::queryClose();
}

void MainWindow::changeEvent(QEvent *event)
{
    KXmlGuiWindow::changeEvent(event);
    if (event->type() == QEvent::WindowStateChange) {
        // Minimised: the plots stop drawing; restored: they catch up.
        m_memoryPanel->updateVisibility();
        m_applicationsView->updateVisibility();
        m_whoView->updateVisibility();
    }
}

} // namespace Cachescope::App
