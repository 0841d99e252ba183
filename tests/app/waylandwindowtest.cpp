// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The window on Wayland, as Plasma 6 runs it by default: on a headless
// Weston (tests/support/run-under-weston.sh), Qt's wayland platform. It opens at
// 1300x930, shows a file's residency in the list and its heatmap, evicts it
// through the Evict action, and leaves screenshots in
// $CACHESCOPE_SCREENSHOT_DIR (wayland-window.png, wayland-evicted.png).

#include "files/filesmodel.h"
#include "files/filespanel.h"
#include "format.h"
#include "heatmap/heatmapwidget.h"
#include "mainwindow.h"
#include "memory/memorypanel.h"
#include "residency.h"
#include "testutil.h"

#include <KAboutData>
#include <KActionCollection>
#include <KMessageWidget>

#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QLocale>
#include <QSplitter>
#include <QStandardPaths>
#include <QTest>
#include <QTreeView>

using namespace Cachescope::App;

namespace
{

QString screenshotDir()
{
    const QString fromEnvironment = qEnvironmentVariable("CACHESCOPE_SCREENSHOT_DIR");
    return fromEnvironment.isEmpty() ? QDir(QStringLiteral(CACHESCOPE_TEST_SCRATCH "/..")).absoluteFilePath(QStringLiteral("screenshots")) : fromEnvironment;
}

} // namespace

class WaylandWindowTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // Not skipped anywhere: this test exists to run on Wayland.
        QCOMPARE(QGuiApplication::platformName(), QStringLiteral("wayland"));
        qputenv("HOME", QFile::encodeName(QString::fromStdString(TestUtil::scratchDir("waylandwindowtest-home"))));
        QStandardPaths::setTestModeEnabled(true);
        KAboutData about(QStringLiteral("cachescope"), QStringLiteral("Cachescope"), QStringLiteral("0"));
        KAboutData::setApplicationData(about);
        QIcon::setThemeName(QStringLiteral("breeze"));
        QVERIFY(QDir().mkpath(screenshotDir()));
    }

    void residencyHeatmapAndEvict()
    {
        const std::string folder = TestUtil::scratchDir("waylandwindowtest");
        const std::string file = folder + "/video.mkv";
        const uint64_t size = 8 << 20;
        TestUtil::makeColdFile(file, size);
        // The first 3 MiB cached, held so that the kernel keeps them until the check.
        auto held = std::make_unique<TestUtil::HeldPages>(file, 0, 3 << 20);
        const uint64_t residentBytes = TestUtil::pagesNow(file).resident * Cachescope::pageSize();
        QCOMPARE(residentBytes, uint64_t(3 << 20));

        MainWindow window;
        window.resize(1300, 930);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.filesPanel()->inspectUrls({QUrl::fromLocalFile(QString::fromStdString(file))});

        auto *list = qobject_cast<QTreeView *>(window.filesSplitter()->widget(0));
        QVERIFY(list);
        QTRY_COMPARE(list->model()->rowCount(), 1);
        const QModelIndex row = list->model()->index(0, FilesModel::CachedColumn);
        const QString expected = Cachescope::formatBytes(residentBytes, Cachescope::ByteStyle::OneDecimal, QLocale());
        QTRY_COMPARE(row.data().toString(), expected);

        // Selected, its heatmap shows the cached first 3/8 and nothing after.
        list->setCurrentIndex(list->model()->index(0, 0));
        auto *heatmap = window.findChild<HeatmapWidget *>(QStringLiteral("detailHeatmap"));
        QVERIFY(heatmap);
        QTRY_VERIFY_WITH_TIMEOUT(heatmap->file() == file && !heatmap->isComputing() && heatmap->cellCount() > 0, 30000);
        QCOMPARE(heatmap->filePageCount(), size / Cachescope::pageSize());
        QCOMPARE(heatmap->cellResidentFraction(0), 1.0);
        QCOMPARE(heatmap->cellResidentFraction(heatmap->cellCount() - 1), 0.0);
        qInfo() << "memory panel" << window.memoryPanel()->geometry() << "minimum" << window.memoryPanel()->minimumSizeHint() << "splitters"
                << window.splitter()->sizes() << window.filesSplitter()->sizes() << "list" << list->viewport()->height();
        save(window, QStringLiteral("wayland-window.png"));

        // Evict through the action, as Ctrl+E or the toolbar does.
        held.reset();
        QAction *evict = window.actionCollection()->action(QStringLiteral("file_evict"));
        QVERIFY(evict && evict->isEnabled());
        evict->trigger();
        auto *message = window.findChild<KMessageWidget *>(QStringLiteral("filesMessage")); // the files panel reports its own work
        QVERIFY(message);
        QTRY_VERIFY_WITH_TIMEOUT(message->isVisible() && message->text().startsWith(QStringLiteral("Evicted 1 file")), 30000);
        QCOMPARE(TestUtil::pagesNow(file).resident, uint64_t(0));
        QTRY_COMPARE_WITH_TIMEOUT(row.data().toString(), Cachescope::formatBytes(0, Cachescope::ByteStyle::OneDecimal, QLocale()), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!heatmap->isComputing() && heatmap->cellResidentFraction(0) == 0.0, 30000);
        // The message bar slides in: the screenshot shows it whole.
        QTRY_VERIFY(!message->isShowAnimationRunning());
        save(window, QStringLiteral("wayland-evicted.png"));
    }

private:
    void save(QWidget &window, const QString &name)
    {
        QCoreApplication::processEvents();
        const QImage image = window.grab().toImage();
        QCOMPARE(image.size(), window.size() * window.devicePixelRatio());
        const QString path = QDir(screenshotDir()).absoluteFilePath(name);
        QVERIFY2(image.save(path), qPrintable(QStringLiteral("cannot save ") + path));
        qInfo() << "saved" << path << image.size();
    }
};

QTEST_MAIN(WaylandWindowTest)
#include "waylandwindowtest.moc"
