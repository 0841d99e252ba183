// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "mainwindow.h"

#include "memorypanel.h"
#include "memorysampler.h"

#include <KActionCollection>
#include <KLocalizedString>
#include <KStandardActions>

#include <QAction>
#include <QApplication>
#include <QIcon>

MainWindow::MainWindow(const QString &procRoot, QWidget *parent)
    : KXmlGuiWindow(parent)
    , m_memoryPanel(new MemoryPanel(this))
    , m_sampler(new MemorySampler(procRoot, this))
{
    setCentralWidget(m_memoryPanel);

    connect(m_sampler, &MemorySampler::sampled, m_memoryPanel, &MemoryPanel::addSample);
    connect(m_sampler, &MemorySampler::failed, m_memoryPanel, &MemoryPanel::showError);
    connect(m_sampler, &MemorySampler::recovered, m_memoryPanel, &MemoryPanel::clearError);

    setUpActions();
    // No status bar: there is nothing to say in it yet.
    setupGUI(defaultSize, ToolBar | Keys | Save | Create, QStringLiteral("cachescopeui.rc"));
    // After setupGUI, which would otherwise put its own caption back.
    setPlainCaption(i18nc("@title:window", "Cachescope"));

    m_sampler->start();
}

MainWindow::~MainWindow() = default;

MemoryPanel *MainWindow::memoryPanel() const
{
    return m_memoryPanel;
}

MemorySampler *MainWindow::sampler() const
{
    return m_sampler;
}

void MainWindow::setUpActions()
{
    KActionCollection *actions = actionCollection();

    // closeAllWindows rather than quit, so that the window saves its size.
    KStandardActions::quit(qApp, &QApplication::closeAllWindows, actions);

    QAction *pause = actions->addAction(QStringLiteral("updates_pause"));
    pause->setText(i18nc("@action:intoolbar", "Pause Updates"));
    pause->setIcon(QIcon::fromTheme(QStringLiteral("media-playback-pause")));
    pause->setToolTip(i18nc("@info:tooltip", "Stop updating the plot and the table, to read them at leisure"));
    pause->setCheckable(true);
    connect(pause, &QAction::toggled, this, &MainWindow::setUpdatesPaused);
}

void MainWindow::setUpdatesPaused(bool paused)
{
    if (paused) {
        m_sampler->stop();
    } else {
        m_sampler->start();
    }
}
