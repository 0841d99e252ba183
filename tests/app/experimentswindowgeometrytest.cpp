// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The Experiments window on a real X screen of 1600x1000 (Xvfb, set by
// CMake): it opens inside the screen's available geometry whatever page is
// shown, and a saved size larger than the screen is fitted to it.

#include "experiments/experimentpage.h"
#include "experiments/experimentswindow.h"

#include <KConfigGroup>
#include <KSharedConfig>

#include <QApplication>
#include <QScreen>
#include <QStandardPaths>
#include <QTest>

using namespace Cachescope::App;

namespace
{
KConfigGroup windowState()
{
    return KSharedConfig::openStateConfig()->group(QStringLiteral("ExperimentsWindow"));
}

QString rectText(const QRect &rect)
{
    return QStringLiteral("%1x%2 at %3,%4").arg(rect.width()).arg(rect.height()).arg(rect.x()).arg(rect.y());
}
} // namespace

class ExperimentsWindowGeometryTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        windowState().deleteGroup();
        QScreen *screen = QGuiApplication::primaryScreen();
        QVERIFY(screen);
        if (screen->size() != QSize(1600, 1000)) {
            QSKIP("needs the 1600x1000 screen of run-under-xvfb.sh with CACHESCOPE_XVFB_SCREEN=1600x1000x24");
        }
    }

    // Every page fits: the window never grows past the screen when one is shown.
    void opensInsideTheScreen()
    {
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        auto *window = new ExperimentsWindow;
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window));
        for (ExperimentPage *page : window->pages()) {
            window->showPage(page);
            QApplication::processEvents();
            const QSize minimum = window->minimumSizeHint();
            QVERIFY2(minimum.width() <= available.width() && minimum.height() <= available.height(),
                     qPrintable(page->experimentName() + QStringLiteral(": needs at least %1x%2").arg(minimum.width()).arg(minimum.height())));
            QVERIFY2(available.contains(window->frameGeometry()), qPrintable(page->experimentName() + QLatin1String(": ") + rectText(window->frameGeometry())));
        }
        delete window;
    }

    // A size saved on a larger screen is fitted to this one; the size a
    // window closes with is the size the next one opens with.
    void savedSizeIsFitted()
    {
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        windowState().writeEntry("Size", QSize(3000, 2000));
        auto *window = new ExperimentsWindow;
        window->show();
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QVERIFY2(available.contains(window->frameGeometry()), qPrintable(rectText(window->frameGeometry())));
        QVERIFY(window->width() > ExperimentsWindow::defaultSize.width()); // the room there is, not the default
        window->resize(1100, 700);
        QTRY_COMPARE(window->size(), QSize(1100, 700));
        window->close(); // deletes itself
        QCOMPARE(windowState().readEntry("Size", QSize()), QSize(1100, 700));
        auto *again = new ExperimentsWindow;
        again->show();
        QVERIFY(QTest::qWaitForWindowExposed(again));
        QCOMPARE(again->size(), QSize(1100, 700));
        QVERIFY(available.contains(again->frameGeometry()));
        delete again;
    }
};

QTEST_MAIN(ExperimentsWindowGeometryTest)

#include "experimentswindowgeometrytest.moc"
