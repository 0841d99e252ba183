// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "experimentswindow.h"

#include "coldreadpage.h"
#include "coldstartpage.h"
#include "dropbehindpage.h"
#include "experimentpage.h"
#include "faultspage.h"
#include "folderthrashpage.h"
#include "pressurepage.h"
#include "shmempage.h"
#include "thrashcliffpage.h"
#include "tracepage.h"
#include "writebackpage.h"

#include "privileged.h"

#include <KConfigGroup>
#include <KLocalizedString>
#include <KPageWidget>
#include <KPageWidgetModel>
#include <KSharedConfig>

#include <QAbstractItemView>
#include <QCloseEvent>
#include <QCursor>
#include <QGuiApplication>
#include <QIcon>
#include <QLineEdit>
#include <QScreen>
#include <QTimer>

#include <algorithm>

namespace Cachescope::App
{

ExperimentsWindow::ExperimentsWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_pageWidget(new KPageWidget(this))
{
    setAttribute(Qt::WA_DeleteOnClose);
    setObjectName(QStringLiteral("ExperimentsWindow"));
    setWindowTitle(i18nc("@title:window", "Experiments"));
    setWindowIcon(QIcon::fromTheme(QStringLiteral("org.kde.cachescope"), QIcon::fromTheme(QStringLiteral("labplot-xy-curve"))));
    m_pageWidget->setFaceType(KPageWidget::List);
    setCentralWidget(m_pageWidget);

    // The experiments, in the order of the list: one line each.
    const QList<ExperimentPage *> pages = {
        new ColdReadPage(m_pageWidget),
        new PressurePage(m_pageWidget),
        new ColdStartPage(m_pageWidget),
        new WritebackPage(m_pageWidget),
        new FaultsPage(m_pageWidget),
        new TracePage(m_pageWidget),
        new FolderThrashPage(m_pageWidget),
        new DropBehindPage(m_pageWidget),
        new ThrashCliffPage(m_pageWidget),
        new ShmemPage(m_pageWidget),
    };
    for (ExperimentPage *page : pages) {
        page->setObjectName(page->experimentName() + QStringLiteral("-page"));
        KPageWidgetItem *item = m_pageWidget->addPage(page, page->title());
        item->setHeader(page->header());
        item->setIcon(QIcon::fromTheme(page->iconName()));
        m_pages << page;
        m_items << item;
    }
    // KPageWidget's list of pages and its search field: named for a screen reader too.
    if (auto *search = m_pageWidget->findChild<QWidget *>(QStringLiteral("KPageView::Search"))) {
        const auto fields = search->findChildren<QLineEdit *>();
        for (auto *field : fields) {
            field->setAccessibleName(i18nc("@label:textbox", "Search the experiments"));
        }
    }
    const auto lists = m_pageWidget->findChildren<QAbstractItemView *>();
    for (auto *list : lists) {
        if (list->inherits("KDEPrivate::KPageListView")) {
            list->setAccessibleName(i18nc("@info:whatsthis", "Experiments"));
        }
    }
    fitToScreen();

    // Asking the system bus can take a moment: not before the window shows.
    QTimer::singleShot(0, this, &ExperimentsWindow::checkHelper);
}

ExperimentsWindow::~ExperimentsWindow() = default;

namespace
{
KConfigGroup savedWindowState()
{
    return KSharedConfig::openStateConfig()->group(QStringLiteral("ExperimentsWindow"));
}

// Room for the window manager's title bar and borders, which the window's
// own size does not count.
constexpr QSize frameAllowance{16, 48};
} // namespace

void ExperimentsWindow::fitToScreen()
{
    const QWidget *opener = parentWidget();
    QScreen *screen = opener ? opener->screen() : QGuiApplication::screenAt(QCursor::pos());
    if (!screen) {
        screen = QGuiApplication::primaryScreen();
    }
    if (!screen) {
        resize(defaultSize);
        return;
    }
    const QRect available = screen->availableGeometry();
    const QSize room = (available.size() - frameAllowance).expandedTo(QSize(200, 200));
    const QSize wanted = savedWindowState().readEntry("Size", defaultSize);
    const QSize size = (wanted.isValid() ? wanted : defaultSize).boundedTo(room).expandedTo(minimumSizeHint().boundedTo(room));
    resize(size);
    // Centred on that screen, the frame included.
    move(available.x() + std::max(0, (available.width() - size.width() - frameAllowance.width()) / 2),
         available.y() + std::max(0, (available.height() - size.height() - frameAllowance.height()) / 2));
}

void ExperimentsWindow::checkHelper()
{
    QString reason;
    const bool available = Cachescope::Privileged::helperAvailable(&reason);
    if (!available && reason.isEmpty()) {
        reason = i18nc("@info:tooltip", "The privileged helper cannot be reached.");
    }
    for (ExperimentPage *page : std::as_const(m_pages)) {
        page->setPrivilegedAvailable(available, reason);
    }
}

QList<ExperimentPage *> ExperimentsWindow::pages() const
{
    return m_pages;
}

ExperimentPage *ExperimentsWindow::page(const QString &experimentName) const
{
    for (ExperimentPage *page : m_pages) {
        if (page->experimentName() == experimentName) {
            return page;
        }
    }
    return nullptr;
}

void ExperimentsWindow::showPage(ExperimentPage *page)
{
    const qsizetype index = m_pages.indexOf(page);
    if (index >= 0) {
        m_pageWidget->setCurrentPage(m_items[index]);
    }
}

KPageWidget *ExperimentsWindow::pageWidget() const
{
    return m_pageWidget;
}

void ExperimentsWindow::closeEvent(QCloseEvent *event)
{
    KConfigGroup state = savedWindowState();
    state.writeEntry("Size", size());
    state.sync();
    // Closing is cancelling. A running engine still removes its files and
    // puts swap back: the window hides now and goes once every engine has
    // stopped, so that nothing is left behind and nothing waits.
    bool running = false;
    for (ExperimentPage *page : std::as_const(m_pages)) {
        page->cancel();
        running = running || page->isRunning();
    }
    if (running && testAttribute(Qt::WA_DeleteOnClose)) {
        setAttribute(Qt::WA_DeleteOnClose, false);
        for (ExperimentPage *page : std::as_const(m_pages)) {
            connect(page, &ExperimentPage::finished, this, &ExperimentsWindow::deleteWhenStopped, Qt::UniqueConnection);
        }
    }
    QMainWindow::closeEvent(event);
}

void ExperimentsWindow::deleteWhenStopped()
{
    const bool running = std::any_of(m_pages.cbegin(), m_pages.cend(), [](const ExperimentPage *page) {
        return page->isRunning();
    });
    if (!running && isHidden()) {
        deleteLater();
    }
}

} // namespace Cachescope::App
