// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The Cache Map tab on a real X display (Xvfb): the treemap layout, a map of
// a scratch tree whose pages the test holds resident, hover, click to open,
// Back and Up, Evict through the context menu into the files panel (the
// kernel's residency checked after), Cancel, the keyboard and QAccessible
// (the boxes as a screen reader gets them), and screenshots to look at
// (<build>/screenshots/cachemap*.png).

#include "cachemap/cachemapview.h"
#include "cachemap/accountpartsdialog.h"
#include "cachemap/cachemapwidget.h"
#include "cachemap/treemaplayout.h"
#include "files/filespanel.h"
#include "privileged.h"
#include "privilegedactions.h"

#include "accessibleevents.h"
#include "format.h"
#include "residency.h"
#include "screenshots.h"
#include "testutil.h"

#include <KActionCollection>

#include <QAccessible>
#include <QApplication>
#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QTest>
#include <QTimer>
#include <QToolTip>
#include <QTreeWidget>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>

using namespace Cachescope;
using namespace Cachescope::App;

namespace
{
const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));

struct Planned {
    const char *name;
    uint64_t pages;
    uint64_t resident;
};

const Planned planned[] = {
    {"big/a", 600, 600},
    {"big/b", 200, 100},
    {"big/inner/c", 300, 300},
    {"small/d", 300, 150},
    {"other/e", 100, 50},
    {"loose", 80, 80},
};

} // namespace

class CacheMapViewTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;
    std::vector<std::unique_ptr<TestUtil::HeldPages>> m_held;

    // The index of the box of the folder at this path (relative to the
    // scratch folder, "" for itself), or of the files directly in it; -1: none.
    int boxIndex(const CacheMapWidget *widget, const std::string &relative, bool filesHere = false) const
    {
        const std::vector<CacheMapWidget::Box> &boxes = widget->boxes();
        for (size_t i = 0; i < boxes.size(); ++i) {
            const uint32_t folder = filesHere ? boxes[i].parentFolder : boxes[i].folder;
            if ((boxes[i].folder == CacheMapWidget::FilesHere) == filesHere && folder < widget->tree()->folders.size()
                && widget->tree()->folders[folder].path == m_dir + (relative.empty() ? "" : "/" + relative)) {
                return int(i);
            }
        }
        return -1;
    }

    // The box of the folder at this path (relative to the scratch folder).
    const CacheMapWidget::Box *box(const CacheMapView &view, const std::string &relative)
    {
        const int index = boxIndex(view.mapWidget(), relative);
        return index < 0 ? nullptr : &view.mapWidget()->boxes()[size_t(index)];
    }

    void mapAndWait(CacheMapView &view, const std::string &root)
    {
        view.mapFolder(QString::fromStdString(root));
        QTRY_VERIFY_WITH_TIMEOUT(!view.isMapping(), 60000);
        QVERIFY(view.isComplete());
    }

    // Runs key on the map: the texts of the context menu it opened (closed again), and where it opened.
    void menuFromKey(QWidget *map, Qt::Key key, Qt::KeyboardModifiers modifiers, QStringList *texts, QPoint *at)
    {
        texts->clear();
        QTimer::singleShot(200, this, [texts, at] {
            auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
            if (!menu) {
                return;
            }
            for (QAction *action : menu->actions()) {
                *texts << action->text();
            }
            *at = menu->pos();
            menu->close();
        });
        QTest::keyClick(map, key, modifiers);
        QTRY_VERIFY(!QApplication::activePopupWidget());
    }

private Q_SLOTS:
    void init()
    {
        m_held.clear();
        m_dir = TestUtil::scratchDir("cachemapview");
        for (const char *sub : {"/big", "/big/inner", "/small", "/other", "/cold"}) {
            QCOMPARE(mkdir((m_dir + sub).c_str(), 0755), 0);
        }
        for (const Planned &file : planned) {
            const std::string path = m_dir + '/' + file.name;
            TestUtil::makeColdFile(path, file.pages * page);
            m_held.push_back(std::make_unique<TestUtil::HeldPages>(path, 0, file.resident * page));
        }
        TestUtil::makeColdFile(m_dir + "/cold/f", 40 * page);
    }

    void cleanup()
    {
        m_held.clear();
    }

    void squarifyTilesByWeight_data()
    {
        QTest::addColumn<QList<double>>("weights");
        QTest::addColumn<QRectF>("bounds");
        QTest::newRow("one") << QList<double>{5} << QRectF(0, 0, 300, 200);
        QTest::newRow("equal") << QList<double>{1, 1, 1, 1} << QRectF(10, 10, 400, 400);
        QTest::newRow("the paper's") << QList<double>{6, 6, 4, 3, 2, 2, 1} << QRectF(0, 0, 600, 400);
        QTest::newRow("one dominates") << QList<double>{1000, 3, 2, 1} << QRectF(0, 0, 800, 300);
        QTest::newRow("tall") << QList<double>{9, 7, 5, 3, 1} << QRectF(0, 0, 120, 900);
        QTest::newRow("many") << QList<double>([] {
            QList<double> w;
            for (int i = 200; i > 0; --i) {
                w << double(i);
            }
            return w;
        }()) << QRectF(0, 0, 1000, 700);
    }

    void squarifyTilesByWeight()
    {
        QFETCH(QList<double>, weights);
        QFETCH(QRectF, bounds);
        const std::vector<double> w(weights.begin(), weights.end());
        const std::vector<QRectF> rects = squarify(w, bounds);
        QCOMPARE(rects.size(), w.size());
        double total = 0;
        for (double x : w) {
            total += x;
        }
        double covered = 0;
        for (size_t i = 0; i < rects.size(); ++i) {
            const QRectF &r = rects[i];
            // Inside the bounds, and its area its share of them.
            QVERIFY2(bounds.adjusted(-0.01, -0.01, 0.01, 0.01).contains(r), qPrintable(QStringLiteral("rect %1").arg(i)));
            const double expected = w[i] / total * bounds.width() * bounds.height();
            QVERIFY2(std::abs(r.width() * r.height() - expected) <= 0.01 * expected + 1.0,
                     qPrintable(QStringLiteral("rect %1: area %2, expected %3").arg(i).arg(r.width() * r.height()).arg(expected)));
            covered += r.width() * r.height();
            for (size_t j = i + 1; j < rects.size(); ++j) {
                const QRectF overlap = r.intersected(rects[j]);
                QVERIFY2(overlap.width() * overlap.height() < 0.5, qPrintable(QStringLiteral("rects %1 and %2 overlap").arg(i).arg(j)));
            }
        }
        QVERIFY(std::abs(covered - bounds.width() * bounds.height()) < 1.0);
        // Squarified: the equal weights in a square are four squares.
        if (qstrcmp(QTest::currentDataTag(), "equal") == 0) {
            for (const QRectF &r : rects) {
                QCOMPARE(r.size(), QSizeF(200, 200));
            }
        }
    }

    void mapShowsFoldersByTheirCache()
    {
        CacheMapView view;
        view.resize(1000, 640);
        mapAndWait(view, m_dir); // before show(): the first look would map /
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir));

        const CacheMapWidget::Box *big = box(view, "big");
        const CacheMapWidget::Box *small = box(view, "small");
        const CacheMapWidget::Box *other = box(view, "other");
        QVERIFY(big && small && other);
        QVERIFY2(!box(view, "cold"), "a folder with nothing cached has no box");
        // Areas in proportion to the resident pages: 1000 : 150 : 50.
        const auto area = [](const CacheMapWidget::Box *b) {
            return b->rect.width() * b->rect.height();
        };
        QVERIFY2(std::abs(area(big) / area(small) - 1000.0 / 150.0) < 0.1 * 1000.0 / 150.0, qPrintable(QString::number(area(big) / area(small))));
        QVERIFY(std::abs(area(small) / area(other) - 3.0) < 0.3);
        // The files directly in the folder have a box of their own.
        bool filesHere = false;
        for (const CacheMapWidget::Box &b : view.mapWidget()->boxes()) {
            filesHere = filesHere || (b.folder == CacheMapWidget::FilesHere && b.level == 1);
        }
        QVERIFY(filesHere);
        // big is large enough to show its subfolder inside.
        bool nested = false;
        for (const CacheMapWidget::Box &b : view.mapWidget()->boxes()) {
            nested = nested || (b.level == 2 && big->rect.contains(b.rect.center()));
        }
        QVERIFY(nested);

        // Hover: the figures.
        const QString tip = view.mapWidget()->toolTipFor(*big);
        QVERIFY2(tip.contains(formatBytes(1000 * page, ByteStyle::OneDecimal, QLocale())), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("3 files")), qPrintable(tip));
        QVERIFY(view.summaryText().contains(formatBytes(1280 * page, ByteStyle::OneDecimal, QLocale())));
        Screenshots::save(view, "cachemap.png");

        // Click opens big; Back returns; Up from big returns too.
        QTest::mouseClick(view.mapWidget(), Qt::LeftButton, {}, (big->rect.topLeft() + QPointF(12, 8)).toPoint());
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir + "/big"));
        QVERIFY(box(view, "big/inner"));
        view.back();
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir));
        view.open(QString::fromStdString(m_dir + "/big"));
        view.up();
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir));
        view.back();
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir + "/big"));
    }

    void evictFromTheContextMenu()
    {
        FilesPanel panel;
        KActionCollection collection{&panel, QStringLiteral("cachescope")};
        panel.setUpActions(&collection);
        panel.setPaused(true);
        CacheMapView view;
        connect(&view, &CacheMapView::evictRequested, &panel, &FilesPanel::evictUrls);
        view.resize(1000, 640);
        mapAndWait(view, m_dir);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const CacheMapWidget::Box *small = box(view, "small");
        QVERIFY(small);

        // Mapped pages are not evicted: let small/d's go (the others stay held).
        m_held[3].reset();
        const std::string d = m_dir + "/small/d";
        QVERIFY(TestUtil::pagesNow(d).resident > 0);

        bool triggered = false;
        QTimer::singleShot(200, this, [&triggered] {
            auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
            QVERIFY(menu);
            for (QAction *action : menu->actions()) {
                if (action->text().contains(QLatin1String("Evict"))) {
                    triggered = true;
                    action->trigger();
                }
            }
            menu->close();
        });
        const QPoint at = small->rect.center().toPoint();
        QContextMenuEvent event(QContextMenuEvent::Mouse, at, view.mapWidget()->mapToGlobal(at));
        QApplication::sendEvent(view.mapWidget(), &event);
        QVERIFY(triggered);
        QTRY_COMPARE_WITH_TIMEOUT(TestUtil::pagesNow(d).resident, uint64_t(0), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        // Only that folder: big's pages are still there.
        QCOMPARE(TestUtil::pagesNow(m_dir + "/big/a").resident, uint64_t(600));
    }

    void cancelLeavesAPartialMap()
    {
        CacheMapView view;
        view.resize(800, 500);
        view.mapFolder(QStringLiteral("/"));
        QVERIFY(view.isMapping());
        view.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!view.isMapping(), 30000);
        QVERIFY(!view.isComplete());
        QVERIFY2(view.summaryText().isEmpty() || view.summaryText().contains(QLatin1String("partial")), qPrintable(view.summaryText()));
    }

    void progressIsTextWhileWalking()
    {
        // A busy bar repaints many times a second, which took 15-20 % from a
        // walk of / on two cores: the entries counted so far say it instead.
        CacheMapView view;
        view.resize(800, 500);
        mapAndWait(view, m_dir); // before show(): the first look would map /
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.findChildren<QProgressBar *>().isEmpty());
        const auto *progress = view.findChild<QLabel *>(QStringLiteral("cacheMapProgress"));
        QVERIFY(progress);
        // Between walks the row says when the map was made.
        QVERIFY2(progress->text().startsWith(QLatin1String("Mapped on ")), qPrintable(progress->text()));
        const QRect mapPlace = view.mapWidget()->geometry();
        view.mapFolder(QStringLiteral("/"));
        QVERIFY(progress->isVisible());
        QVERIFY2(progress->text().contains(QLatin1String("Walking /")), qPrintable(progress->text()));
        // The map keeps its place when a walk starts (the progress row keeps its height).
        QApplication::processEvents();
        QCOMPARE(view.mapWidget()->geometry(), mapPlace);
        // The count comes within the progress timer's 200 ms (the walk of / takes longer).
        QTRY_VERIFY_WITH_TIMEOUT(progress->text().contains(QLatin1String("entries")) || !view.isMapping(), 10000);
        const bool cancelled = view.isMapping();
        view.cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!view.isMapping(), 30000);
        QVERIFY2(progress->text().startsWith(QLatin1String(cancelled ? "Walk cancelled on " : "Mapped on ")), qPrintable(progress->text()));
        // The map it holds is measured once the walk has ended, too.
        mapAndWait(view, m_dir);
        QVERIFY(view.mapMemoryBytes() > 0);
        QVERIFY(view.mapMemoryBytes() < 64 * 1024);
        QApplication::processEvents();
        QCOMPARE(view.mapWidget()->geometry(), mapPlace);
    }

    // The tab does not walk devpts below /dev, and says so under the map.
    void fileSystemsWithoutPageCacheAreNamed()
    {
        if (!TestUtil::devptsWithPtmx()) {
            QSKIP("/dev/pts is not a devpts with its ptmx here");
        }
        CacheMapView view;
        view.resize(800, 500);
        mapAndWait(view, "/dev");
        const CacheMapFolder *pts = view.mapWidget()->tree()->find("/dev/pts");
        QVERIFY(pts);
        QVERIFY(pts->noPageCache);
        QVERIFY2(view.summaryText().contains(QStringLiteral("no page cache (proc, sysfs, …) not walked")), qPrintable(view.summaryText()));
        view.setWalkKernelFileSystems(true);
        mapAndWait(view, "/dev");
        pts = view.mapWidget()->tree()->find("/dev/pts");
        QVERIFY(pts);
        QVERIFY(!pts->noPageCache);
        QVERIFY2(!view.summaryText().contains(QLatin1String("not walked")), qPrintable(view.summaryText()));
    }

    // Refresh keeps the map in sight while the folder is walked again, and
    // says so; the new map replaces it.
    void refreshKeepsThePicture()
    {
        CacheMapView view;
        view.resize(800, 500);
        mapAndWait(view, m_dir);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const size_t boxes = view.mapWidget()->boxes().size();
        QVERIFY(boxes > 0);
        view.refresh();
        // Before the walk's end can arrive (it comes through the event loop).
        QVERIFY(view.isMapping());
        QCOMPARE(view.mapWidget()->boxes().size(), boxes);
        QVERIFY2(view.summaryText().contains(QLatin1String("walking again")), qPrintable(view.summaryText()));
        QTRY_VERIFY_WITH_TIMEOUT(!view.isMapping(), 60000);
        QVERIFY(view.isComplete());
        QVERIFY(!view.summaryText().contains(QLatin1String("walking again")));
        QCOMPARE(view.mapWidget()->boxes().size(), boxes);
    }

    // With the keyboard alone: the arrows go to the nearest box that way
    // (into a folder's boxes and out again), each box gets the accessible
    // focus and shows its figures; the menu key and Shift+F10 open its menu
    // at it; Enter opens it, Backspace, Alt+Left and Alt+Up go back and up,
    // to the box of the folder left.
    void cacheMapWithTheKeyboard()
    {
        AccessibleEvents::Listening listening;
        CacheMapView view;
        view.resize(1000, 640);
        mapAndWait(view, m_dir); // before show(): the first look would map /
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&view));
        CacheMapWidget *map = view.mapWidget();
        QCOMPARE(map->focusPolicy(), Qt::StrongFocus);
        map->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(map->hasFocus());
        const std::vector<CacheMapWidget::Box> &boxes = map->boxes();

        // The biggest box first, its accessible item focused.
        const int big = boxIndex(map, "big");
        QCOMPARE(map->currentBox(), big);
        QTRY_COMPARE(AccessibleEvents::lastFocusName(), QStringLiteral("big"));
        QCOMPARE(AccessibleEvents::lastFocus()->role, QAccessible::ListItem);
        QCOMPARE(AccessibleEvents::lastFocus()->parentObject, map);
        Screenshots::save(view, "cachemap-focus.png");

        // Right from big's header: the nearest box to the right at its height.
        const QRectF header(boxes[size_t(big)].rect.topLeft(), QSizeF(boxes[size_t(big)].rect.width(), 18));
        QTest::keyClick(map, Qt::Key_Right);
        const int right = map->currentBox();
        QVERIFY(right != big);
        const QRectF rightRect = boxes[size_t(right)].rect;
        QVERIFY2(rightRect.left() >= header.right() - 0.5, qPrintable(QStringLiteral("%1 is not right of big").arg(map->nameOf(boxes[size_t(right)]))));
        QVERIFY(rightRect.top() < header.bottom() && rightRect.bottom() > header.top());
        for (size_t i = 0; i < boxes.size(); ++i) {
            const QRectF r = boxes[i].rect;
            if (r.top() < header.bottom() && r.bottom() > header.top() && r.left() >= header.right() - 0.5) {
                QVERIFY2(r.left() >= rightRect.left() - 0.5, "a nearer box to the right was passed over");
            }
        }
        QCOMPARE(AccessibleEvents::lastFocusName(), map->nameOf(boxes[size_t(right)]));
        // The figures a pointer would get, for the eyes too.
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), map->toolTipFor(boxes[size_t(right)]));
        // And back.
        QTest::keyClick(map, Qt::Key_Left);
        QCOMPARE(map->currentBox(), big);

        // Down from big's header: into big, to a box shown inside it.
        QTest::keyClick(map, Qt::Key_Down);
        const CacheMapWidget::Box &inside = boxes[size_t(map->currentBox())];
        QCOMPARE(inside.level, 2);
        QVERIFY(boxes[size_t(big)].rect.contains(inside.rect.center()));
        Screenshots::save(view, "cachemap-focus-nested.png");
        QTest::keyClick(map, Qt::Key_Up);
        QCOMPARE(map->currentBox(), big);

        // The menu key and Shift+F10: the box's menu, at the box.
        QPoint menuAt;
        QStringList menu;
        menuFromKey(map, Qt::Key_Menu, Qt::NoModifier, &menu, &menuAt);
        QVERIFY2(menu.contains(QStringLiteral("Open in the Map")), qPrintable(menu.join(QLatin1Char(','))));
        const QRect bigOnScreen(map->mapToGlobal(boxes[size_t(big)].rect.topLeft().toPoint()), boxes[size_t(big)].rect.size().toSize());
        QVERIFY2(bigOnScreen.contains(menuAt), qPrintable(QStringLiteral("menu at %1,%2").arg(menuAt.x()).arg(menuAt.y())));
        menuFromKey(map, Qt::Key_F10, Qt::ShiftModifier, &menu, &menuAt);
        QVERIFY(menu.contains(QStringLiteral("Evict from Page Cache")));

        // Enter opens big, as a click does; Backspace goes back, to big's box.
        QTest::keyClick(map, Qt::Key_Return);
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir + "/big"));
        QVERIFY(map->currentBox() >= 0);
        QTRY_COMPARE(AccessibleEvents::lastFocusName(), map->nameOf(map->boxes()[size_t(map->currentBox())]));
        QTest::keyClick(map, Qt::Key_Backspace);
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir));
        QCOMPARE(map->currentBox(), boxIndex(map, "big"));
        // Alt+Left is Back too, Alt+Up is Up.
        QTest::keyClick(map, Qt::Key_Enter);
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir + "/big"));
        QTest::keyClick(map, Qt::Key_Up, Qt::AltModifier);
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir));
        QTest::keyClick(map, Qt::Key_Left, Qt::AltModifier);
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir + "/big"));
        QTest::keyClick(map, Qt::Key_Backspace);
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir));
        // The files directly in a folder open nothing, as a click opens nothing.
        const int loose = boxIndex(map, "", true);
        QVERIFY(loose >= 0);
        map->setCurrentBox(loose);
        QTest::keyClick(map, Qt::Key_Return);
        QCOMPARE(view.currentPath(), QString::fromStdString(m_dir));
    }

    // Through QAccessible, as a screen reader sees them: every box a list
    // item named by its folder, with its figures, its place, what is under a
    // point, the focus, and the actions that focus and open it.
    void cacheMapBoxesAreAccessible()
    {
        AccessibleEvents::Listening listening;
        CacheMapView view;
        view.resize(1000, 640);
        mapAndWait(view, m_dir);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        CacheMapWidget *map = view.mapWidget();
        const std::vector<CacheMapWidget::Box> &boxes = map->boxes();

        QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(map);
        QVERIFY(iface);
        QCOMPARE(iface->role(), QAccessible::List);
        QCOMPARE(iface->text(QAccessible::Name), QStringLiteral("Cache map of %1").arg(QString::fromStdString(m_dir)));
        QCOMPARE(iface->childCount(), int(boxes.size()));
        for (int i = 0; i < iface->childCount(); ++i) {
            QAccessibleInterface *child = iface->child(i);
            QVERIFY(child && child->isValid());
            QCOMPARE(child->role(), QAccessible::ListItem);
            QCOMPARE(child->text(QAccessible::Name), map->nameOf(boxes[size_t(i)]));
            QCOMPARE(child->parent(), iface);
            QCOMPARE(iface->indexOfChild(child), i);
            QCOMPARE(child->rect().size(), boxes[size_t(i)].rect.toAlignedRect().size());
        }
        // big: 1000 of its 1100 pages cached, 3 files, 1000 of the map's 1280.
        QAccessibleInterface *big = iface->child(boxIndex(map, "big"));
        const QString description = big->text(QAccessible::Description);
        QVERIFY2(description.contains(QString::fromStdString(m_dir + "/big")), qPrintable(description));
        QVERIFY2(description.contains(
                     QStringLiteral("In the page cache: %1 (78.1% of what this map shows)").arg(formatBytes(1000 * page, ByteStyle::OneDecimal, QLocale()))),
                 qPrintable(description));
        QVERIFY2(description.contains(QStringLiteral("3 files")), qPrintable(description));
        QCOMPARE(big->text(QAccessible::Value), QStringLiteral("%1, 78.1%").arg(formatBytes(1000 * page, ByteStyle::OneDecimal, QLocale())));

        // What is under a point, the focus child, the actions.
        const int small = boxIndex(map, "small");
        // In small's header (below it, its files' box shows inside).
        const QPoint smallHeader = map->mapToGlobal(boxes[size_t(small)].rect.topLeft().toPoint() + QPoint(8, 8));
        QCOMPARE(iface->childAt(smallHeader.x(), smallHeader.y())->text(QAccessible::Name), QStringLiteral("small"));
        QAccessibleActionInterface *actions = iface->child(small)->actionInterface();
        QVERIFY(actions);
        QCOMPARE(actions->actionNames(),
                 QStringList(
                     {QAccessibleActionInterface::pressAction(), QAccessibleActionInterface::showMenuAction(), QAccessibleActionInterface::setFocusAction()}));
        view.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&view));
        actions->doAction(QAccessibleActionInterface::setFocusAction());
        QTRY_VERIFY(map->hasFocus());
        QCOMPARE(map->currentBox(), small);
        QCOMPARE(iface->focusChild(), iface->child(small));
        QVERIFY(iface->child(small)->state().focused);
        QVERIFY(!iface->child(boxIndex(map, "big"))->state().focused);
        QTRY_COMPARE(AccessibleEvents::lastFocusName(), QStringLiteral("small"));
        actions->doAction(QAccessibleActionInterface::pressAction());
        QTRY_COMPARE(view.currentPath(), QString::fromStdString(m_dir + "/small"));
        // Another folder, other items: the new ones name its boxes.
        QCOMPARE(iface->childCount(), int(map->boxes().size()));
        QCOMPARE(iface->child(0)->text(QAccessible::Name), map->nameOf(map->boxes()[0]));
    }

    // Not a timed assertion: the figures for the README, and a screenshot of a
    // real tree. The longest stretch the event loop did not run is measured
    // with a 10 ms timer while / is walked.
    void wholeSystemAccount()
    {
        // A process holding a memfd that no folder shows: the account names it.
        int ready[2];
        QCOMPARE(pipe2(ready, O_CLOEXEC), 0);
        const uint64_t size = 3 * 1024 * 1024;
        const pid_t holder = fork();
        if (holder == 0) {
            const int fd = memfd_create("cachescope-map-account", 0);
            static char block[65536];
            uint64_t done = 0;
            while (fd >= 0 && done < size && write(fd, block, sizeof block) == ssize_t(sizeof block)) {
                done += sizeof block;
            }
            (void)!write(ready[1], done == size ? "r" : "f", 1);
            for (;;) {
                pause();
            }
        }
        close(ready[1]);
        const auto reap = qScopeGuard([holder] {
            kill(holder, SIGKILL);
            waitpid(holder, nullptr, 0);
        });
        char answer = 0;
        QVERIFY(read(ready[0], &answer, 1) == 1 && answer == 'r');
        close(ready[0]);

        CacheMapView view;
        view.resize(1100, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.mapFolder(QStringLiteral("/"));
        QTRY_VERIFY_WITH_TIMEOUT(!view.isMapping() && !view.isAccounting() && view.account(), 300000);
        const QString text = view.accountText();
        QVERIFY2(text.contains(QStringLiteral("unexplained")) && text.startsWith(QStringLiteral("Cached ")), qPrintable(text));
        const QString sharedLink = QStringLiteral("<a href=\"%1\">").arg(int(AccountGroup::SharedMemory));
        QVERIFY2(text.contains(sharedLink), qPrintable(text));
        Screenshots::save(view, "cachemap-account.png");

        // The link lists the memfd with its size and its holder.
        auto *label = view.findChild<QLabel *>(QStringLiteral("cacheMapAccount"));
        QVERIFY(label && label->isVisible());
        Q_EMIT label->linkActivated(QString::number(int(AccountGroup::SharedMemory)));
        AccountPartsDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = view.findChild<AccountPartsDialog *>()) != nullptr);
        QTreeWidget *list = dialog->partsList();
        QTreeWidgetItem *found = nullptr;
        for (int i = 0; i < list->topLevelItemCount(); ++i) {
            if (list->topLevelItem(i)->text(2).contains(QStringLiteral("cachescope-map-account"))) {
                found = list->topLevelItem(i);
            }
        }
        QVERIFY(found);
        QCOMPARE(found->text(0), formatBytes(size, ByteStyle::OneDecimal, QLocale()));
        QVERIFY2(found->text(3).contains(QString::number(holder)), qPrintable(found->text(3)));
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        Screenshots::save(*dialog, "cachemap-account-shared-memory.png");
        dialog->close();

        // Show with Administrator Rights: the window's privileged actions
        // (as root: the account made in this process, as the helper's would be).
        PrivilegedActions privileged;
        view.setHelperAccount([&privileged](const CacheMapView::AccountDone &done) {
            privileged.accountWithHelper([done](const Privileged::AccountResult &result) {
                done(result.ok() ? std::make_shared<const CacheAccount>(result.account) : nullptr, result.message);
            });
        });
        view.showAccountWithAdministratorRights();
        QVERIFY2(view.accountText().contains(QStringLiteral("asking the privileged helper")), qPrintable(view.accountText()));
        QTRY_VERIFY_WITH_TIMEOUT(view.accountText().contains(QStringLiteral("made by the administrator's helper")), 120000);
        QVERIFY2(view.accountText().contains(QStringLiteral("unexplained")), qPrintable(view.accountText()));
        // A failure says why, and the account on show stays.
        view.setHelperAccount([](const CacheMapView::AccountDone &done) {
            done(nullptr, QStringLiteral("Not authorized."));
        });
        view.showAccountWithAdministratorRights();
        QVERIFY2(view.accountText().contains(QStringLiteral("The administrator's account failed: Not authorized.")), qPrintable(view.accountText()));
        QVERIFY(view.account());

        // A folder's map is no account of Cached: the line goes.
        view.mapFolder(QString::fromStdString(TestUtil::scratchDir("cachemap-account")));
        QTRY_VERIFY_WITH_TIMEOUT(!view.isMapping(), 60000);
        QVERIFY(view.accountText().isEmpty());
    }

    void wholeSystemFigures()
    {
        CacheMapView view;
        view.resize(1100, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QElapsedTimer clock;
        clock.start();
        view.mapFolder(QStringLiteral("/"));
        qint64 firstPicture = -1;
        qint64 worstGap = 0;
        qint64 last = clock.elapsed();
        QTimer tick;
        tick.setInterval(10);
        connect(&tick, &QTimer::timeout, this, [&] {
            const qint64 now = clock.elapsed();
            worstGap = std::max(worstGap, now - last);
            last = now;
            if (firstPicture < 0 && !view.mapWidget()->boxes().empty()) {
                firstPicture = now;
            }
        });
        tick.start();
        QTRY_VERIFY_WITH_TIMEOUT(!view.isMapping(), 300000);
        tick.stop();
        if (firstPicture < 0) {
            firstPicture = clock.elapsed(); // no snapshot before the whole map (a walk under a second)
        }
        QVERIFY(view.isComplete());
        QVERIFY(!view.mapWidget()->boxes().empty());
        qInfo("cache map of /: first picture after %lld ms, whole map after %lld ms, longest event-loop stall %lld ms; %zu folders, %zu bytes held for them",
              firstPicture,
              clock.elapsed(),
              worstGap,
              view.mapWidget()->tree()->folders.size(),
              view.mapMemoryBytes());
        Screenshots::save(view, "cachemap-system.png");
    }
};

QTEST_MAIN(CacheMapViewTest)
#include "cachemapviewtest.moc"
