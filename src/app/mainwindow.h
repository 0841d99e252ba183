// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <KXmlGuiWindow>

#include <QPointer>

#include <QList>
#include <QUrl>

class KConfigDialog;
class KMessageWidget;
class QSplitter;

namespace Cachescope::App
{

class ApplicationsView;
class WhoView;
class CacheMapView;
class PrivilegedActions;
class FilesPanel;
class HandbookViewer;
class MemoryPanel;
class MemorySampler;

// The Cachescope window: the files panel above, the memory panel below, a
// message bar on top for what either has to say.
class MainWindow : public KXmlGuiWindow
{
    Q_OBJECT

public:
    // The size it opens with the first time, before it remembers one. It
    // matters where no window manager places and sizes windows (Xvfb).
    static constexpr QSize defaultSize{1200, 760};

    // procRoot is where meminfo and vmstat are read; tests point it elsewhere.
    explicit MainWindow(const QString &procRoot = QStringLiteral("/proc"), QWidget *parent = nullptr);
    ~MainWindow() override;

    [[nodiscard]] MemoryPanel *memoryPanel() const;
    [[nodiscard]] MemorySampler *sampler() const;
    [[nodiscard]] FilesPanel *filesPanel() const;
    // Files above, memory below.
    [[nodiscard]] QSplitter *splitter() const;
    // In the files panel: the list above, the selected file's heatmap below.
    [[nodiscard]] QSplitter *filesSplitter() const;
    [[nodiscard]] KMessageWidget *messageWidget() const;
    [[nodiscard]] ApplicationsView *applicationsView() const;
    [[nodiscard]] WhoView *whoView() const;

public Q_SLOTS:
    // Files and folders to inspect, from the command line or a second start.
    // Inspects the URLs, or with evict evicts them at once.
    void openUrls(const QList<QUrl> &urls, bool evict = false);
    // KDBusService::activateRequested: a second `cachescope FILE` lands here.
    void activate(const QStringList &arguments, const QString &workingDirectory);
    // Opens the settings (or raises them when they are open) and returns them.
    KConfigDialog *showSettings();
    // Hands the settings to the sampler and the panels.
    void applySettings();
    void showMessage(const QString &text, bool isError);
    // Help > Cachescope Handbook: KHelpCenter, else the window's own viewer.
    void showHandbook();
    // Work under way (the helper dropping caches, swap coming back): said in the bar on top.
    void showProgress(const QString &text);

Q_SIGNALS:
    // Just before the files panel gets them; lets tests see what arrived.
    void urlsOpened(const QList<QUrl> &urls);

protected:
    bool queryClose() override;
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    void setUpActions();
    void setUpdatesPaused(bool paused);
    void restoreLayout();
    void saveLayout();
    // Whether the memory panel shows a view one works in (Cache Map,
    // Applications) rather than the plots beside the list.
    [[nodiscard]] bool memoryPanelShowsAView() const;
    // Gives the memory panel the room its current tab wants: the plots their
    // own height, a view its share of the height (both kept apart).
    void fitSplitterToMemoryTab();

    KMessageWidget *m_messageWidget = nullptr;
    QSplitter *m_splitter = nullptr;
    FilesPanel *m_filesPanel = nullptr;
    MemoryPanel *m_memoryPanel = nullptr;
    MemorySampler *m_sampler = nullptr;
    PrivilegedActions *m_privileged = nullptr;
    ApplicationsView *m_applicationsView = nullptr;
    WhoView *m_whoView = nullptr;
    CacheMapView *m_cacheMapView = nullptr;
    QPointer<HandbookViewer> m_handbookViewer;
    // No saved splitter sizes: the first show sets them from the window's height.
    bool m_defaultSplitterSizesPending = false;
    bool m_restoredMainSplitter = false;
    bool m_restoredFilesSplitter = false;
    bool m_wasShown = false;
    // The main splitter as laid out for the plots, kept while a view shows;
    // and a view's share of the splitter's height.
    bool m_splitterFitsAView = false;
    QList<int> m_plotSplitterSizes;
    double m_viewShare = 0.55;
};

} // namespace Cachescope::App
