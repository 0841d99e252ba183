// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The detail heatmap on the offscreen platform, against the core library on
// real files: its cells, zooming with the wheel down to single pages, hover
// text, the keyboard and QAccessible (the cells as a screen reader gets
// them), a 1 TiB sparse file, hidden residency, a vanished file, dirty pages,
// pages compared with a snapshot; a screenshot of the focus frame
// (<build>/screenshots/heatmap-focus.png).

#include "accessibleevents.h"
#include "format.h"
#include "heatmap/heatmapmodel.h"
#include "heatmap/heatmapwidget.h"
#include "residency.h"
#include "screenshots.h"
#include "testutil.h"
#include "uniquefd.h"

#include <QAccessible>
#include <QApplication>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QImage>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

using namespace Cachescope::App;

namespace
{

constexpr uint64_t kib = 1024;
constexpr uint64_t mib = 1024 * kib;
constexpr uint64_t gib = 1024 * mib;

// An open file and its fstat, to ask the core the same questions the widget asks.
struct OpenFile {
    Cachescope::UniqueFd fd;
    struct stat st = {};
    explicit OpenFile(const std::string &path)
    {
        int error = 0;
        std::string text;
        fd = Cachescope::openRegularFile(AT_FDCWD, path.c_str(), false, st, error, text);
        if (!fd.isValid()) {
            qWarning("cannot open %s: %s", path.c_str(), text.c_str());
        }
    }
};

void makeSparseFile(const std::string &path, uint64_t bytes)
{
    Cachescope::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    QVERIFY2(fd.isValid(), path.c_str());
    QVERIFY2(ftruncate(fd.get(), off_t(bytes)) == 0, Cachescope::errnoText(errno).c_str());
}

void writeWithoutSync(const std::string &path, uint64_t offset, uint64_t length)
{
    Cachescope::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
    QVERIFY2(fd.isValid(), path.c_str());
    const std::string data(length, 'd');
    QCOMPARE(pwrite(fd.get(), data.data(), data.size(), off_t(offset)), ssize_t(length));
}

void wheel(QWidget &widget, QPoint position, int notches)
{
    QWheelEvent event(QPointF(position),
                      QPointF(widget.mapToGlobal(position)),
                      QPoint(),
                      QPoint(0, notches * 120),
                      Qt::NoButton,
                      Qt::NoModifier,
                      Qt::NoScrollPhase,
                      false);
    QApplication::sendEvent(&widget, &event);
}

QPoint centerOf(const HeatmapWidget &widget, int cell)
{
    return widget.cellRect(cell).center();
}

// Every cell against a histogram of the same window from the core.
void compareWithHistogram(const HeatmapWidget &widget, const Cachescope::Histogram &expected)
{
    QVERIFY(expected.known());
    QCOMPARE(widget.cellCount(), expected.buckets());
    QCOMPARE(widget.windowFirstPage(), expected.windowFirst);
    QCOMPARE(widget.windowPageCount(), expected.pages);
    for (int b = 0; b < expected.buckets(); ++b) {
        QCOMPARE(widget.cellFirstPage(b), expected.windowFirst + expected.firstPage(b));
        QCOMPARE(widget.cellPageCount(b), expected.pagesIn(b));
        QCOMPARE(widget.cellResidentPages(b), expected.resident[size_t(b)]);
        QCOMPARE(widget.cellResidentFraction(b), double(expected.resident[size_t(b)]) / double(expected.pagesIn(b)));
    }
}

bool sameColor(QColor a, QColor b)
{
    return std::abs(a.red() - b.red()) <= 2 && std::abs(a.green() - b.green()) <= 2 && std::abs(a.blue() - b.blue()) <= 2;
}

} // namespace

class HeatmapTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;

    std::string pathOf(const char *name) const
    {
        return m_dir + "/" + name;
    }

    // A 64 MiB file whose first 40 KiB (ten pages) stay held in the cache,
    // shown in widget (1,024 cells of 16 pages) unless opened is false.
    void showTenCachedPagesOf64MiB(HeatmapWidget &widget, const std::string &path, std::unique_ptr<TestUtil::HeldPages> &held, bool opened = true)
    {
        TestUtil::makeColdFile(path, 64 * mib);
        held = std::make_unique<TestUtil::HeldPages>(path, 0, 40 * kib);
        widget.resize(900, 600);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        if (opened) {
            widget.setFile(path);
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_dir = TestUtil::scratchDir("heatmaptest");
    }

    void halfResidentMatchesCore()
    {
        const std::string path = pathOf("half.bin");
        TestUtil::makeColdFile(path, 16 * mib);
        // Held mapped while the widget reads them: the kernel here reclaims
        // unmapped idle pages at any moment (see HeldPages).
        const TestUtil::HeldPages firstFourMiB(path, 0, 4 * mib);
        const TestUtil::HeldPages fourMiBAtTen(path, 10 * mib, 4 * mib);

        HeatmapWidget widget;
        widget.resize(800, 500);
        widget.setFile(path);
        OpenFile file(path);
        const Cachescope::Histogram expected = Cachescope::histogramOfDescriptor(file.fd.get(), file.st, widget.cells());
        compareWithHistogram(widget, expected);
        QCOMPARE(widget.cellCount(), 1024);
        QCOMPARE(widget.filePageCount(), 16 * mib / Cachescope::pageSize());
        uint64_t resident = 0;
        for (int i = 0; i < widget.cellCount(); ++i) {
            resident += widget.cellResidentPages(i);
        }
        QCOMPARE(resident, 8 * mib / Cachescope::pageSize());
        // The header says it, in the locale's numbers.
        const QString cached = QLocale().toString(qulonglong(resident));
        QVERIFY2(widget.visibleTexts().join(QLatin1Char('\n')).contains(cached), qPrintable(widget.visibleTexts().join(QLatin1Char('\n'))));
        QVERIFY(widget.visibleTexts().join(QLatin1Char('\n')).contains(QStringLiteral("50.0")));
        QVERIFY(!widget.grab().isNull());
    }

    void wheelZoomsToSinglePagesAndBack()
    {
        const std::string path = pathOf("zoom.bin");
        TestUtil::makeColdFile(path, 64 * mib);
        const TestUtil::HeldPages firstMiB(path, 0, 1 * mib);
        const TestUtil::HeldPages around20MiB(path, 20 * mib + 12 * kib, 100 * kib);
        const TestUtil::HeldPages eightMiBAt40(path, 40 * mib, 8 * mib);

        HeatmapWidget widget;
        widget.resize(900, 600);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        widget.setFile(path);
        const uint64_t filePages = 64 * mib / Cachescope::pageSize();
        QCOMPARE(widget.windowPageCount(), filePages);

        // Zoom in around the cell that holds page 20 MiB + 48 KiB: it stays
        // under the pointer all the way down.
        const uint64_t anchorPage = (20 * mib + 48 * kib) / Cachescope::pageSize();
        int anchorCell = -1;
        for (int i = 0; i < widget.cellCount(); ++i) {
            if (anchorPage >= widget.cellFirstPage(i) && anchorPage < widget.cellFirstPage(i) + widget.cellPageCount(i)) {
                anchorCell = i;
            }
        }
        QVERIFY(anchorCell >= 0);
        const QPoint pointer = centerOf(widget, anchorCell);
        QCOMPARE(widget.cellAt(pointer), anchorCell);
        uint64_t pages = widget.windowPageCount();
        int notches = 0;
        while (widget.windowPageCount() > uint64_t(widget.cellCount()) || widget.cellPageCount(0) != 1) {
            wheel(widget, pointer, 1);
            ++notches;
            QVERIFY2(notches <= 20, "the wheel never reached single pages");
            QCOMPARE(widget.windowPageCount(), std::max<uint64_t>(pages / 2, uint64_t(widget.cells())));
            pages = widget.windowPageCount();
            const int under = widget.cellAt(pointer);
            QVERIFY(under >= 0);
            QVERIFY2(widget.windowFirstPage() <= anchorPage && anchorPage < widget.windowFirstPage() + pages, "the page under the pointer left the window");
            // Within a cell of the whole-file view (16 pages), all the way down.
            QVERIFY2(qAbs(int64_t(widget.cellFirstPage(under)) - int64_t(anchorPage)) <= 16, "the zoom did not keep the page under the pointer");
        }
        QCOMPARE(notches, 4); // 16,384 pages, 1,024 cells: four halvings

        // Single pages: exact flags from the page map.
        {
            OpenFile file(path);
            const Cachescope::PageMap map = Cachescope::pageMapOfDescriptor(file.fd.get(), file.st, widget.windowFirstPage(), widget.windowPageCount());
            QVERIFY(map.known());
            QCOMPARE(size_t(widget.cellCount()), map.flags.size());
            uint64_t resident = 0;
            for (int i = 0; i < widget.cellCount(); ++i) {
                QCOMPARE(widget.cellFirstPage(i), map.firstPage + uint64_t(i));
                QCOMPARE(widget.cellPageCount(i), uint64_t(1));
                QCOMPARE(widget.cellResidentPages(i), uint64_t((map.flags[size_t(i)] & Cachescope::PageResident) != 0));
                QCOMPARE(widget.cellDirtyPages(i), uint64_t((map.flags[size_t(i)] & Cachescope::PageDirty) != 0));
                QCOMPARE(widget.cellWritebackPages(i), uint64_t((map.flags[size_t(i)] & Cachescope::PageWriteback) != 0));
                resident += widget.cellResidentPages(i);
            }
            // The 100 KiB read from 20 MiB + 12 KiB is inside this window: 25 pages.
            QCOMPARE(resident, 100 * kib / Cachescope::pageSize());
            const QString header = widget.visibleTexts().join(QLatin1Char('\n'));
            QVERIFY2(header.contains(QStringLiteral("1 cell = 1 page")), qPrintable(header));
        }

        // No further than single pages.
        const uint64_t first = widget.windowFirstPage();
        wheel(widget, pointer, 1);
        QCOMPARE(widget.windowPageCount(), uint64_t(widget.cells()));
        QCOMPARE(widget.windowFirstPage(), first);

        // Keys pan (the arrows alone move the current cell), the wheel zooms back out to the whole file.
        QTest::keyClick(&widget, Qt::Key_Home);
        QCOMPARE(widget.windowFirstPage(), uint64_t(0));
        QTest::keyClick(&widget, Qt::Key_Right, Qt::ControlModifier);
        QCOMPARE(widget.windowFirstPage(), uint64_t(widget.cells()) / 4);
        QTest::keyClick(&widget, Qt::Key_End);
        QCOMPARE(widget.windowFirstPage() + widget.windowPageCount(), filePages);
        for (int i = 0; i < 10 && widget.windowPageCount() < filePages; ++i) {
            wheel(widget, pointer, -1);
        }
        QCOMPARE(widget.windowFirstPage(), uint64_t(0));
        QCOMPARE(widget.windowPageCount(), filePages);
        OpenFile file(path);
        compareWithHistogram(widget, Cachescope::histogramOfDescriptor(file.fd.get(), file.st, widget.cells()));

        // + and 0 on the keyboard.
        QTest::keyClick(&widget, Qt::Key_Plus);
        QCOMPARE(widget.windowPageCount(), filePages / 2);
        QTest::keyClick(&widget, Qt::Key_0);
        QCOMPARE(widget.windowPageCount(), filePages);
    }

    void hoverTellsPageRange()
    {
        HeatmapWidget widget;
        std::unique_ptr<TestUtil::HeldPages> held;
        showTenCachedPagesOf64MiB(widget, pathOf("hover.bin"), held);
        QCOMPARE(widget.cellPageCount(5), uint64_t(16));

        const QPoint position = centerOf(widget, 5);
        QHelpEvent help(QEvent::ToolTip, position, widget.mapToGlobal(position));
        QApplication::sendEvent(&widget, &help);
        QTRY_VERIFY(QToolTip::isVisible());
        const QString text = QToolTip::text();
        QVERIFY2(text.contains(QStringLiteral("Pages 80–95 (16 pages)")), qPrintable(text));
        QCOMPARE(text, widget.toolTipForCell(5));
        QVERIFY2(text.contains(QStringLiteral("320 KiB")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("Cached: 0 of 16 pages")), qPrintable(text));
        // The first cell holds the ten resident pages.
        QVERIFY2(widget.toolTipForCell(0).contains(QStringLiteral("Cached: 10 of 16 pages")), qPrintable(widget.toolTipForCell(0)));
        QToolTip::hideText();
    }

    // With the keyboard alone: the arrows move a current cell (by a row up
    // and down), which gets the accessible focus and shows its tooltip; Enter
    // zooms in on it, keeping it under the keyboard; past the edge of a
    // zoomed window the window moves; - and 0 zoom out.
    void keyboardMovesTheCurrentCell()
    {
        AccessibleEvents::Listening listening;
        HeatmapWidget widget;
        std::unique_ptr<TestUtil::HeldPages> held;
        const std::string path = pathOf("keys.bin");
        showTenCachedPagesOf64MiB(widget, path, held, false);
        widget.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&widget));
        // Focused (the window's only widget) before it has cells: the first is current once they come.
        widget.setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(widget.hasFocus());
        QCOMPARE(widget.currentCell(), -1);
        widget.setFile(path);
        QCOMPARE(widget.cellCount(), 1024); // 16,384 pages, 16 a cell
        QCOMPARE(widget.currentCell(), 0);
        QTRY_COMPARE(AccessibleEvents::lastFocusName(), QStringLiteral("Pages 0–15 (16 pages)"));
        QCOMPARE(AccessibleEvents::lastFocus()->parentObject, &widget);
        int columns = 1;
        while (widget.cellRect(columns).top() == widget.cellRect(0).top()) {
            ++columns;
        }

        QTest::keyClick(&widget, Qt::Key_Right);
        QCOMPARE(widget.currentCell(), 1);
        QCOMPARE(AccessibleEvents::lastFocusName(), QStringLiteral("Pages 16–31 (16 pages)"));
        QTRY_VERIFY(QToolTip::isVisible());
        QCOMPARE(QToolTip::text(), widget.toolTipForCell(1));
        QTest::keyClick(&widget, Qt::Key_Down);
        QCOMPARE(widget.currentCell(), 1 + columns);
        Screenshots::save(widget, "heatmap-focus.png");
        QTest::keyClick(&widget, Qt::Key_Up);
        QTest::keyClick(&widget, Qt::Key_Left);
        QCOMPARE(widget.currentCell(), 0);
        // The whole file shows: nothing left of the first cell.
        QTest::keyClick(&widget, Qt::Key_Left);
        QCOMPARE(widget.currentCell(), 0);
        QCOMPARE(widget.windowFirstPage(), uint64_t(0));

        // Enter zooms in on the current cell: it stays under the keyboard.
        QTest::keyClick(&widget, Qt::Key_Right);
        QTest::keyClick(&widget, Qt::Key_Return);
        QCOMPARE(widget.windowPageCount(), uint64_t(8192));
        const int zoomedOn = widget.currentCell();
        QVERIFY(widget.cellFirstPage(zoomedOn) <= 24 && 24 < widget.cellFirstPage(zoomedOn) + widget.cellPageCount(zoomedOn));
        // Down to single pages, then past the window's right edge: the window moves a cell.
        for (int i = 0; i < 3; ++i) {
            QTest::keyClick(&widget, Qt::Key_Enter);
        }
        QCOMPARE(widget.windowPageCount(), uint64_t(widget.cells()));
        QCOMPARE(widget.cellPageCount(0), uint64_t(1));
        widget.setCurrentCell(widget.cellCount() - 1);
        const uint64_t first = widget.windowFirstPage();
        const uint64_t lastPage = widget.cellFirstPage(widget.cellCount() - 1);
        QTest::keyClick(&widget, Qt::Key_Right);
        QCOMPARE(widget.windowFirstPage(), first + 1);
        QCOMPARE(widget.currentCell(), widget.cellCount() - 1);
        QCOMPARE(widget.cellFirstPage(widget.currentCell()), lastPage + 1);
        QTest::keyClick(&widget, Qt::Key_Minus);
        QCOMPARE(widget.windowPageCount(), uint64_t(2 * widget.cells()));
        QTest::keyClick(&widget, Qt::Key_0);
        QCOMPARE(widget.windowPageCount(), uint64_t(16384));
    }

    // Through QAccessible, as a screen reader sees them: every cell a list
    // item named by its page range, with its counts and place; other cells
    // after a zoom, none after clear().
    void cellsAreAccessible()
    {
        AccessibleEvents::Listening listening;
        HeatmapWidget widget;
        std::unique_ptr<TestUtil::HeldPages> held;
        showTenCachedPagesOf64MiB(widget, pathOf("cells.bin"), held);

        QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(&widget);
        QCOMPARE(iface->role(), QAccessible::List);
        QCOMPARE(iface->text(QAccessible::Name), QStringLiteral("Page cache heatmap of cells.bin"));
        QCOMPARE(widget.accessibleItemCount(), 1024);
        QAccessibleInterface *first = AccessibleEvents::itemInterface(&widget, 1024, 0);
        QCOMPARE(first->role(), QAccessible::ListItem);
        QCOMPARE(first->text(QAccessible::Name), QStringLiteral("Pages 0–15 (16 pages)"));
        QVERIFY2(first->text(QAccessible::Description).contains(QStringLiteral("Cached: 10 of 16 pages")), qPrintable(first->text(QAccessible::Description)));
        QCOMPARE(first->text(QAccessible::Value), QStringLiteral("Cached: 10 of 16 pages (62.5%)"));
        QVERIFY(AccessibleEvents::itemInterface(&widget, 1024, 5)->text(QAccessible::Description).contains(QStringLiteral("Cached: 0 of 16 pages")));
        QCOMPARE(AccessibleEvents::itemInterface(&widget, 1024, 1023)->text(QAccessible::Name), QStringLiteral("Pages 16,368–16,383 (16 pages)"));
        QCOMPARE(iface->indexOfChild(first), iface->childCount() - 1024);
        const QPoint centre = widget.mapToGlobal(widget.cellRect(5).center());
        QCOMPARE(iface->childAt(centre.x(), centre.y()), AccessibleEvents::itemInterface(&widget, 1024, 5));
        QCOMPARE(first->rect(), QRect(widget.mapToGlobal(widget.cellRect(0).topLeft()), widget.cellRect(0).size()));

        // Zoomed in: other cells, other items.
        widget.zoomIn();
        QCOMPARE(AccessibleEvents::itemInterface(&widget, 1024, 0)->text(QAccessible::Name), QStringLiteral("Pages 4,096–4,103 (8 pages)"));
        const int widgets = iface->childCount() - 1024;
        widget.clear();
        QCOMPARE(widget.accessibleItemCount(), 0);
        QCOMPARE(iface->childCount(), widgets);
    }

    // A cell's byte range has enough digits to tell its start from its end,
    // at every zoom: 16 KiB cells at 1.5 MiB are not "1.5 MiB to 1.5 MiB".
    void toolTipTellsStartFromEnd()
    {
        const std::string path = pathOf("cells16k.bin");
        TestUtil::makeColdFile(path, 16 * mib);
        HeatmapWidget widget;
        widget.resize(900, 600);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        widget.setFile(path);
        QCOMPARE(widget.cellCount(), 1024);
        QCOMPARE(widget.cellPageCount(96), uint64_t(4));
        QCOMPARE(widget.cellFirstPage(96) * Cachescope::pageSize(), 1536 * kib);
        QVERIFY2(widget.toolTipForCell(96).contains(QStringLiteral("Bytes 1.50 MiB to 1.52 MiB")), qPrintable(widget.toolTipForCell(96)));

        const QRegularExpression range(QStringLiteral("Bytes (.+) to (.+) \\(offset"));
        const QPoint pointer = centerOf(widget, 96);
        for (int zoom = 0; zoom < 3; ++zoom) {
            for (int cell = 0; cell < widget.cellCount(); ++cell) {
                const QString text = widget.toolTipForCell(cell);
                const QRegularExpressionMatch match = range.match(text);
                QVERIFY2(match.hasMatch(), qPrintable(text));
                QVERIFY2(match.captured(1) != match.captured(2), qPrintable(text));
            }
            wheel(widget, pointer, 1);
        }
        // Down to single pages: one page at 1.5 MiB.
        QCOMPARE(widget.cellPageCount(0), uint64_t(1));
        const int atOneAndAHalf = widget.cellAt(pointer);
        QVERIFY(atOneAndAHalf >= 0);
        const uint64_t start = widget.cellFirstPage(atOneAndAHalf) * Cachescope::pageSize();
        QVERIFY2(widget.toolTipForCell(atOneAndAHalf).contains(QStringLiteral("Bytes %1 MiB to ").arg(QLocale().toString(double(start) / double(mib), 'f', 3))),
                 qPrintable(widget.toolTipForCell(atOneAndAHalf)));
    }

    void hugeSparseFileShowsAtOnce()
    {
        const std::string path = pathOf("huge.bin");
        makeSparseFile(path, 1024 * gib);
        const TestUtil::HeldPages holeAtHalf(path, 512 * gib, 1 * mib); // a hole, read: zero pages in the cache

        HeatmapWidget widget;
        widget.resize(900, 600);
        QElapsedTimer timer;
        timer.start();
        widget.setFile(path);
        const qint64 setFileNs = timer.nsecsElapsed();
        QCOMPARE(widget.cellCount(), 1024);
        QCOMPARE(widget.windowPageCount(), 1024 * gib / Cachescope::pageSize());
        timer.restart();
        const QPixmap picture = widget.grab();
        const qint64 grabNs = timer.nsecsElapsed();
        QVERIFY(!picture.isNull());
        uint64_t resident = 0;
        for (int i = 0; i < widget.cellCount(); ++i) {
            resident += widget.cellResidentPages(i);
        }
        QCOMPARE(resident, 1 * mib / Cachescope::pageSize());
        qInfo("1 TiB sparse file: setFile %.2f ms, first grab %.2f ms", setFileNs / 1e6, grabNs / 1e6);
        std::filesystem::remove(path);
    }

    void slowComputationNeverBlocksPainting()
    {
        // mincore walks every page: 64 GiB is 16 million pages. The widget
        // answers at once and paints while a worker counts.
        const std::string path = pathOf("slow.bin");
        makeSparseFile(path, 64 * gib);

        HeatmapWidget widget;
        widget.resize(900, 600);
        widget.setResidencyOptions(Cachescope::ResidencyOptions{.forceMincore = true});
        QElapsedTimer timer;
        timer.start();
        widget.setFile(path);
        const qint64 setFileNs = timer.nsecsElapsed();
        QVERIFY(widget.isComputing());
        timer.restart();
        QVERIFY(!widget.grab().isNull());
        const qint64 grabNs = timer.nsecsElapsed();
        timer.restart();
        QTRY_VERIFY_WITH_TIMEOUT(!widget.isComputing(), 120000);
        qInfo("64 GiB sparse file by mincore: setFile %.2f ms, grab while computing %.2f ms, worker done after %lld ms",
              setFileNs / 1e6,
              grabNs / 1e6,
              qlonglong(timer.elapsed()));
        QCOMPARE(widget.cellCount(), 1024);
        QVERIFY(widget.visibleTexts().join(QLatin1Char('\n')).contains(QStringLiteral("mincore")));

        // A second file while a worker still counts the first: the first's
        // answer never shows.
        const std::string small = pathOf("small.bin");
        TestUtil::makeColdFile(small, 64 * kib);
        widget.setFile(path);
        widget.setWindow(0, 1 << 22);
        widget.setFile(small);
        QTRY_VERIFY_WITH_TIMEOUT(!widget.isComputing(), 120000);
        QTest::qWait(50);
        QCOMPARE(widget.filePageCount(), 64 * kib / Cachescope::pageSize());
        QCOMPARE(widget.cellCount(), 16);
        std::filesystem::remove(path);
    }

    void hiddenShowsNoNumber()
    {
        const std::optional<uint32_t> user = TestUtil::testUserUid();
        if (!user) {
            QSKIP("needs root and the cachescope-user account (tools/dev root)");
        }
        const std::string path = pathOf("hidden.bin");
        TestUtil::makeColdFile(path, 1 * mib);
        const TestUtil::HeldPages firstHalf(path, 0, 512 * kib);
        QCOMPARE(chown(path.c_str(), 0, 0), 0);
        QCOMPARE(chmod(path.c_str(), 0644), 0);

        HeatmapWidget widget;
        widget.resize(900, 600);
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        // The real kernel decides: as a user who may read but not write the
        // file, cachestat says EPERM (mincore would lie). Only setFile runs
        // with that identity.
        QCOMPARE(seteuid(*user), 0);
        widget.setFile(path);
        QCOMPARE(seteuid(0), 0);

        QVERIFY(widget.isResidencyHidden());
        QCOMPARE(widget.cellCount(), 0);
        const QStringList texts = widget.visibleTexts();
        const QString all = texts.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("Hidden")), qPrintable(all));
        QVERIFY2(!all.contains(QLatin1Char('%')), qPrintable(all));
        QVERIFY2(!all.contains(QStringLiteral("128")), qPrintable(all)); // the resident page count
        QVERIFY2(!all.contains(QStringLiteral("pages cached")), qPrintable(all));
        auto *button = widget.findChild<QPushButton *>();
        QVERIFY(button);
        QVERIFY(button->isVisible());
        QVERIFY(!button->isEnabled()); // no helper yet
        QVERIFY(!widget.grab().isNull());

        widget.setPrivilegedViewAvailable(true, QStringLiteral("Asks the helper"));
        QVERIFY(button->isEnabled());
        QCOMPARE(button->toolTip(), QStringLiteral("Asks the helper"));
        QSignalSpy requested(&widget, &HeatmapWidget::privilegedViewRequested);
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.at(0).at(0).value<std::string>(), path);

        // What the helper would answer, fed in: shown, with a note.
        const Cachescope::Histogram privileged = Cachescope::histogramOfPath(path, widget.cells());
        QVERIFY(privileged.known());
        widget.setExternalHistogram(privileged);
        QVERIFY(!widget.isResidencyHidden());
        QCOMPARE(widget.cellCount(), privileged.buckets());
        QCOMPARE(widget.cellResidentPages(0), privileged.resident[0]);
        QVERIFY(!button->isVisible());
        QVERIFY(widget.visibleTexts().join(QLatin1Char('\n')).contains(QStringLiteral("administrator rights")));

        // The page cache changed under it (Drop Caches, an eviction): the
        // helper's answer goes, the residency is hidden again, with why, and
        // the button asks anew. Read as the user, who may not see it.
        QVERIFY(widget.showsPrivilegedView());
        QCOMPARE(seteuid(*user), 0);
        widget.discardPrivilegedView(QStringLiteral("It was from before Drop Caches."));
        QCOMPARE(seteuid(0), 0);
        QTRY_VERIFY(!widget.isComputing());
        QVERIFY(!widget.showsPrivilegedView());
        QVERIFY(widget.isResidencyHidden());
        QCOMPARE(widget.cellCount(), 0);
        const QString afterDrop = widget.visibleTexts().join(QLatin1Char('\n'));
        QVERIFY2(afterDrop.contains(QStringLiteral("It was from before Drop Caches.")), qPrintable(afterDrop));
        QVERIFY2(!afterDrop.contains(QLatin1Char('%')), qPrintable(afterDrop));
        QVERIFY(button->isVisible());
        widget.setExternalHistogram(privileged);
        QVERIFY(widget.showsPrivilegedView());

        // Visible to us (root) now: our own reading replaces the privileged one.
        widget.refresh();
        QVERIFY(!widget.visibleTexts().join(QLatin1Char('\n')).contains(QStringLiteral("administrator rights")));
        QCOMPARE(widget.cellCount(), 256);
    }

    void vanishedAndBadFiles()
    {
        const std::string path = pathOf("vanishing.bin");
        TestUtil::makeColdFile(path, 256 * kib);
        HeatmapWidget widget;
        widget.resize(600, 400);
        widget.setFile(path);
        QCOMPARE(widget.cellCount(), 64);

        // Grows: the refresh sees it.
        writeWithoutSync(path, 256 * kib, 256 * kib);
        widget.refresh();
        QCOMPARE(widget.filePageCount(), 512 * kib / Cachescope::pageSize());
        QCOMPARE(widget.cellCount(), 128);

        // Replaced by rename, as editors save: the new file is shown.
        const std::string replacement = pathOf("replacement.bin");
        TestUtil::makeColdFile(replacement, 32 * kib);
        QCOMPARE(rename(replacement.c_str(), path.c_str()), 0);
        widget.refresh();
        QCOMPARE(widget.cellCount(), 8);

        QCOMPARE(unlink(path.c_str()), 0);
        widget.refresh();
        QCOMPARE(widget.cellCount(), 0);
        QVERIFY2(widget.message().contains(QStringLiteral("no longer exists")), qPrintable(widget.message()));
        QVERIFY(widget.message().contains(QStringLiteral("vanishing.bin")));
        QVERIFY(widget.visibleTexts().contains(widget.message()));
        QVERIFY(!widget.grab().isNull());
        wheel(widget, QPoint(100, 100), 1); // nothing to zoom: no crash
        widget.refresh(); // still gone

        // Back again: a refresh finds it.
        TestUtil::makeColdFile(path, 8 * kib);
        widget.refresh();
        QVERIFY(widget.message().isEmpty());
        QCOMPARE(widget.cellCount(), 2);

        const std::string missing = pathOf("never-was.bin");
        widget.setFile(missing);
        QVERIFY2(widget.message().contains(QStringLiteral("does not exist")), qPrintable(widget.message()));
        QVERIFY(widget.message().contains(QStringLiteral("never-was.bin")));
        widget.setFile(m_dir);
        QVERIFY2(widget.message().contains(QStringLiteral("folder")), qPrintable(widget.message()));
        QVERIFY(!widget.grab().isNull());

        const std::string emptyFile = pathOf("empty.bin");
        makeSparseFile(emptyFile, 0);
        widget.setFile(emptyFile);
        QVERIFY2(widget.message().contains(QStringLiteral("empty")), qPrintable(widget.message()));
        QVERIFY(!widget.grab().isNull());

        widget.clear();
        QVERIFY(widget.file().empty());
        QCOMPARE(widget.cellCount(), 0);
        QVERIFY(!widget.grab().isNull());
    }

    void dirtyPagesInTheirColour()
    {
        if (!Cachescope::cachestatAvailable()) {
            QSKIP("dirty pages need cachestat (Linux 6.5+)");
        }
        const std::string path = pathOf("dirty.bin");
        TestUtil::makeColdFile(path, 1 * mib);
        const TestUtil::HeldPages first64Pages(path, 0, 64 * 4 * kib);
        writeWithoutSync(path, 100 * 4 * kib, 4 * 4 * kib);

        HeatmapWidget widget;
        widget.resize(900, 600);
        widget.setFile(path);
        const QImage image = widget.grab().toImage();
        QCOMPARE(widget.cellCount(), 256);
        for (int page = 100; page < 104; ++page) {
            QCOMPARE(widget.cellDirtyPages(page), uint64_t(1));
        }
        QCOMPARE(widget.cellDirtyPages(99), uint64_t(0));
        const qreal dpr = image.devicePixelRatio();
        const auto pixel = [&](int cell) {
            const QPoint center = widget.cellRect(cell).center();
            return image.pixelColor(int(center.x() * dpr), int(center.y() * dpr));
        };
        QVERIFY2(sameColor(pixel(101), widget.dirtyColor()), qPrintable(pixel(101).name() + QLatin1String(" vs ") + widget.dirtyColor().name()));
        QVERIFY2(sameColor(pixel(10), widget.residentColor()), qPrintable(pixel(10).name() + QLatin1String(" vs ") + widget.residentColor().name()));
        QVERIFY2(sameColor(pixel(200), widget.emptyColor()), qPrintable(pixel(200).name() + QLatin1String(" vs ") + widget.emptyColor().name()));
        QVERIFY(widget.visibleTexts().join(QLatin1Char('\n')).contains(QStringLiteral("4 dirty")));
        QVERIFY(widget.toolTipForCell(101).contains(QStringLiteral("Dirty: 1 page")));

        Cachescope::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
        QVERIFY(fd.isValid());
        fsync(fd.get());
    }

    // Compared with a snapshot that had pages 8 to 23 cached: page by page and
    // in buckets, what is cached then and now, newly cached and evicted since.
    void comparedWithSnapshot()
    {
        const uint64_t page = Cachescope::pageSize();
        const std::string path = pathOf("compared.bin");
        TestUtil::makeColdFile(path, 64 * page);
        const TestUtil::HeldPages first16(path, 0, 16 * page);
        const TestUtil::HeldPages from32(path, 32 * page, 8 * page);

        HeatmapWidget widget;
        widget.resize(900, 600);
        widget.setFile(path);
        QVERIFY(!widget.showsComparison());
        widget.setComparison({{8, 16}}, true, QStringLiteral("before.json"));
        QVERIFY(widget.showsComparison());
        QCOMPARE(widget.cellCount(), 64);
        for (int cell = 0; cell < 64; ++cell) {
            const bool newly = cell < 8 || (cell >= 32 && cell < 40);
            QCOMPARE(widget.cellNewlyCachedPages(cell), uint64_t(newly ? 1 : 0));
            QCOMPARE(widget.cellEvictedSincePages(cell), uint64_t(cell >= 16 && cell < 24 ? 1 : 0));
        }
        const QString texts = widget.visibleTexts().join(QLatin1Char('\n'));
        QVERIFY2(texts.contains(QStringLiteral("since the snapshot: 16 newly cached, 8 evicted")), qPrintable(texts));
        QVERIFY2(texts.contains(QStringLiteral("compared with before.json")), qPrintable(texts));
        for (const char *label : {"Cached then and now", "Newly cached", "Evicted since the snapshot"}) {
            QVERIFY2(widget.visibleTexts().contains(QLatin1String(label)), label);
        }
        QVERIFY2(widget.toolTipForCell(20).contains(QStringLiteral("Cached in the snapshot: 1 of 1 page")), qPrintable(widget.toolTipForCell(20)));
        QVERIFY(!widget.grab().isNull());

        // Eight pages a cell: the kernel asked about each cell's part of the range.
        widget.setCells(8);
        QCOMPARE(widget.cellCount(), 8);
        const std::vector<std::pair<uint64_t, uint64_t>> expected{{8, 0}, {0, 0}, {0, 8}, {0, 0}, {8, 0}, {0, 0}, {0, 0}, {0, 0}};
        for (int cell = 0; cell < 8; ++cell) {
            QCOMPARE(widget.cellNewlyCachedPages(cell), expected[size_t(cell)].first);
            QCOMPARE(widget.cellEvictedSincePages(cell), expected[size_t(cell)].second);
        }

        // Ended by clearComparison(), and by another file.
        widget.clearComparison();
        QVERIFY(!widget.showsComparison());
        QVERIFY(widget.visibleTexts().contains(QStringLiteral("Cached")));
        widget.setComparison({{8, 16}}, true, QStringLiteral("before.json"));
        QVERIFY(widget.showsComparison());
        const std::string other = pathOf("compared-other.bin");
        TestUtil::makeColdFile(other, 8 * page);
        widget.setFile(other);
        QVERIFY(!widget.showsComparison());
    }

    void zoomArithmetic_data()
    {
        QTest::addColumn<quint64>("first");
        QTest::addColumn<quint64>("pages");
        QTest::addColumn<quint64>("filePages");
        QTest::addColumn<quint64>("anchor");
        QTest::addColumn<int>("steps");
        QTest::addColumn<quint64>("minPages");
        QTest::addColumn<quint64>("expectedFirst");
        QTest::addColumn<quint64>("expectedPages");
        const quint64 tib = 1ULL << 28;
        QTest::newRow("in at the start") << 0ULL << 1024ULL << 1024ULL << 0ULL << 1 << 256ULL << 0ULL << 512ULL;
        QTest::newRow("in at the end") << 0ULL << 1024ULL << 1024ULL << 1023ULL << 1 << 256ULL << 512ULL << 512ULL;
        QTest::newRow("in around the middle") << 0ULL << 1000ULL << 1000ULL << 500ULL << 1 << 256ULL << 250ULL << 500ULL;
        QTest::newRow("not below the minimum") << 0ULL << 300ULL << 1000ULL << 100ULL << 5 << 256ULL << 15ULL << 256ULL;
        QTest::newRow("out to the whole file") << 100ULL << 256ULL << 1000ULL << 200ULL << -3 << 256ULL << 0ULL << 1000ULL;
        QTest::newRow("out stays inside") << 700ULL << 256ULL << 1000ULL << 900ULL << -1 << 256ULL << 488ULL << 512ULL;
        QTest::newRow("1 TiB to pages") << 0ULL << tib << tib << tib / 2 << 18 << 1024ULL << tib / 2 - 512 << 1024ULL;
        QTest::newRow("1 TiB back out") << tib / 2 - 512 << 1024ULL << tib << tib / 2 << -40 << 1024ULL << 0ULL << tib;
    }

    void zoomArithmetic()
    {
        QFETCH(quint64, first);
        QFETCH(quint64, pages);
        QFETCH(quint64, filePages);
        QFETCH(quint64, anchor);
        QFETCH(int, steps);
        QFETCH(quint64, minPages);
        QFETCH(quint64, expectedFirst);
        QFETCH(quint64, expectedPages);
        const Heatmap::Window result = Heatmap::zoomed({first, pages}, filePages, anchor, steps, minPages);
        QCOMPARE(result.pages, expectedPages);
        QCOMPARE(result.first, expectedFirst);
        QVERIFY(result.first + result.pages <= filePages);
    }

    void panArithmetic()
    {
        QCOMPARE(Heatmap::panned({10, 100}, 1000, -50).first, uint64_t(0));
        QCOMPARE(Heatmap::panned({10, 100}, 1000, 5000).first, uint64_t(900));
        QCOMPARE(Heatmap::panned({10, 100}, 1000, 40).first, uint64_t(50));
        QCOMPARE(Heatmap::panned({0, 1000}, 1000, 40).first, uint64_t(0));
        QCOMPARE(Heatmap::panned({500, 100}, 1000, INT64_MIN).first, uint64_t(0));
        QCOMPARE(Heatmap::clamped({900, 500}, 1000, 256), (Heatmap::Window{500, 500}));
        QCOMPARE(Heatmap::clamped({900, 500}, 0, 256), (Heatmap::Window{}));
    }
};

QTEST_MAIN(HeatmapTest)

#include "heatmaptest.moc"
