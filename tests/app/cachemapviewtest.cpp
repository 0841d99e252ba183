// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The Cache Map tab on a real X display (Xvfb): the treemap layout, a map of
// a scratch tree whose pages the test holds resident, hover, click to open,
// Back and Up, Evict through the context menu into the files panel (the
// kernel's residency checked after), Cancel, and screenshots to look at
// (<build>/screenshots/cachemap*.png).

#include "cachemap/cachemapview.h"
#include "cachemap/cachemapwidget.h"
#include "cachemap/treemaplayout.h"
#include "files/filespanel.h"

#include "format.h"
#include "residency.h"
#include "testutil.h"

#include <KActionCollection>

#include <QApplication>
#include <QContextMenuEvent>
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QTest>
#include <QTimer>

#include <sys/stat.h>
#include <sys/statfs.h>
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

void saveScreenshot(QWidget &widget, const char *name)
{
    const QString dir = qEnvironmentVariable("CACHESCOPE_SCREENSHOT_DIR");
    if (dir.isEmpty()) {
        return;
    }
    QDir().mkpath(dir);
    QVERIFY(widget.grab().save(dir + QLatin1Char('/') + QLatin1String(name)));
}
} // namespace

class CacheMapViewTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;
    std::vector<std::unique_ptr<TestUtil::HeldPages>> m_held;

    // The level-1 box of the folder at this path (relative to the scratch folder).
    const CacheMapWidget::Box *box(const CacheMapView &view, const std::string &relative)
    {
        const CacheMapWidget *widget = view.mapWidget();
        for (const CacheMapWidget::Box &candidate : widget->boxes()) {
            if (candidate.folder != CacheMapWidget::FilesHere && widget->tree()->folders[candidate.folder].path == m_dir + '/' + relative) {
                return &candidate;
            }
        }
        return nullptr;
    }

    void mapAndWait(CacheMapView &view, const std::string &root)
    {
        view.mapFolder(QString::fromStdString(root));
        QTRY_VERIFY_WITH_TIMEOUT(!view.isMapping(), 60000);
        QVERIFY(view.isComplete());
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
        saveScreenshot(view, "cachemap.png");

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

    // Not a timed assertion: the figures for the README, and a screenshot of a
    // real tree. The longest stretch the event loop did not run is measured
    // with a 10 ms timer while / is walked.
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
        saveScreenshot(view, "cachemap-system.png");
    }
};

QTEST_MAIN(CacheMapViewTest)
#include "cachemapviewtest.moc"
