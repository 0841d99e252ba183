// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Screenshots of the files panel on a real X display (tests/support/run-under-xvfb.sh):
// a half-resident file's heatmap, a folder expanded with totals, the evict
// drop zone while something is dragged over it, same-named rows told apart
// and the warning of an eviction that left dirty pages. They go to
// $CACHESCOPE_SCREENSHOT_DIR, else to <build>/screenshots.

#include "files/evictdropzone.h"
#include "files/filesmodel.h"
#include "files/filespanel.h"
#include "files/kepttree.h"
#include "files/liverefresh.h"
#include "heatmap/heatmapwidget.h"
#include "memory/memorypanel.h"
#include "memory/memorysampler.h"
#include "residency.h"
#include "testutil.h"
#include "uniquefd.h"

#include <KActionCollection>
#include <KMessageWidget>

#include <QDir>
#include <QGuiApplication>
#include <QHeaderView>
#include <QIcon>
#include <QMenu>
#include <QScreen>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <thread>

using namespace Cachescope;
using namespace Cachescope::App;

namespace
{

QString screenshotDir()
{
    const QString fromEnvironment = qEnvironmentVariable("CACHESCOPE_SCREENSHOT_DIR");
    if (!fromEnvironment.isEmpty()) {
        return fromEnvironment;
    }
    return QDir(QStringLiteral(CACHESCOPE_TEST_SCRATCH "/..")).absoluteFilePath(QStringLiteral("screenshots"));
}

void makeFile(const std::string &path, uint64_t bytes)
{
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    TestUtil::makeColdFile(path, bytes);
}

// Writes without syncing: these pages are dirty for a while.
void dirty(const std::string &path, uint64_t offset, uint64_t length)
{
    Cachescope::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd.isValid()) {
        return;
    }
    const std::string data(length, 'd');
    [[maybe_unused]] const ssize_t written = pwrite(fd.get(), data.data(), data.size(), off_t(offset));
}

} // namespace

class FilesPanelShots : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;
    QWidget *m_window = nullptr;
    FilesPanel *m_panel = nullptr;
    KActionCollection *m_actions = nullptr;
    QTreeView *m_view = nullptr;

    void save(const QString &name)
    {
        // Let the heatmap's workers answer and the view lay itself out.
        auto *heatmap = m_panel->findChild<HeatmapWidget *>(QStringLiteral("detailHeatmap"));
        QTRY_VERIFY_WITH_TIMEOUT(!m_panel->isBusy() && !(heatmap && heatmap->isComputing()), 30000);
        QCoreApplication::processEvents();
        const QString path = QDir(screenshotDir()).absoluteFilePath(name);
        const QImage image = m_window->grab().toImage();
        QVERIFY2(image.save(path), qPrintable(QStringLiteral("cannot save ") + path));
        qInfo() << "saved" << path << image.size();
    }

    QModelIndex rowOf(const std::string &path, const QModelIndex &parent = {}) const
    {
        QAbstractItemModel *model = m_view->model();
        for (int row = 0; row < model->rowCount(parent); ++row) {
            const QModelIndex index = model->index(row, 0, parent);
            if (index.data(FilesModel::PathRole).toByteArray() == QByteArray::fromStdString(path)) {
                return index;
            }
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        if (QGuiApplication::platformName() != QLatin1String("xcb")) {
            QSKIP("screenshots are taken on a real X display: run through tests/support/run-under-xvfb.sh");
        }
        if (QIcon::themeName().isEmpty() || QIcon::themeName() == QLatin1String("hicolor")) {
            QIcon::setThemeName(QStringLiteral("breeze"));
        }
        QVERIFY(QDir().mkpath(screenshotDir()));

        m_dir = TestUtil::scratchDir("filespanel-shots");
        const uint64_t mib = 1 << 20;
        makeFile(m_dir + "/disk-image.iso", 64 * mib);
        makeFile(m_dir + "/mail-archive.sqlite", 8 * mib);
        makeFile(m_dir + "/notes.txt", 40 * 1024);
        makeFile(m_dir + "/project/README.md", 12 * 1024);
        makeFile(m_dir + "/project/src/main.cpp", 96 * 1024);
        makeFile(m_dir + "/project/src/window.cpp", 180 * 1024);
        makeFile(m_dir + "/project/src/icons.svg", 2 * mib);
        makeFile(m_dir + "/project/build/app.o", 6 * mib);
        makeFile(m_dir + "/project/build/app", 14 * mib);
        makeFile(m_dir + "/project/video.mkv", 24 * mib);

        // Half of the image, in stripes, as a program reading parts of it leaves it.
        for (uint64_t offset = 0; offset < 64 * mib; offset += 8 * mib) {
            TestUtil::readRange(m_dir + "/disk-image.iso", offset, 4 * mib);
        }
        TestUtil::readRange(m_dir + "/mail-archive.sqlite", 0, 8 * mib);
        dirty(m_dir + "/mail-archive.sqlite", 2 * mib, 512 * 1024);
        TestUtil::readRange(m_dir + "/project/README.md", 0, 12 * 1024);
        TestUtil::readRange(m_dir + "/project/src/main.cpp", 0, 96 * 1024);
        TestUtil::readRange(m_dir + "/project/src/icons.svg", 0, mib);
        TestUtil::readRange(m_dir + "/project/build/app", 0, 14 * mib);
        TestUtil::readRange(m_dir + "/project/video.mkv", 0, 6 * mib);

        m_window = new QWidget;
        m_window->setWindowTitle(QStringLiteral("Cachescope"));
        auto *layout = new QVBoxLayout(m_window);
        m_panel = new FilesPanel(m_window);
        m_actions = new KActionCollection(m_panel, QStringLiteral("cachescope"));
        m_panel->setUpActions(m_actions);
        layout->addWidget(m_panel);
        m_window->resize(1200, 760);
        m_window->move(0, 0);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window));
        m_view = m_panel->findChild<QTreeView *>(QStringLiteral("filesView"));
        QVERIFY(m_view);

        QList<QUrl> list;
        for (const char *name : {"disk-image.iso", "mail-archive.sqlite", "notes.txt", "project"}) {
            list << QUrl::fromLocalFile(QString::fromStdString(m_dir + "/" + name));
        }
        m_panel->inspectUrls(list);
        QTRY_VERIFY_WITH_TIMEOUT(!m_panel->isBusy(), 30000);
    }

    void halfResidentHeatmap()
    {
        const QModelIndex row = rowOf(m_dir + "/disk-image.iso");
        QVERIFY(row.isValid());
        QCOMPARE(row.siblingAtColumn(FilesModel::CachedPercentColumn).data().toString(), QStringLiteral("50%"));
        m_view->setCurrentIndex(row);
        save(QStringLiteral("files-heatmap-half-resident.png"));
    }

    void folderExpandedWithTotals()
    {
        const QModelIndex project = rowOf(m_dir + "/project");
        QVERIFY(project.isValid());
        m_view->expand(project);
        QTRY_COMPARE_WITH_TIMEOUT(m_view->model()->rowCount(project), 4, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!m_panel->isBusy(), 30000);
        const QModelIndex src = rowOf(m_dir + "/project/src", project);
        QVERIFY(src.isValid());
        m_view->expand(src);
        QTRY_COMPARE_WITH_TIMEOUT(m_view->model()->rowCount(src), 3, 30000);
        m_view->setCurrentIndex(rowOf(m_dir + "/project/video.mkv", project));
        save(QStringLiteral("files-folder-expanded.png"));
    }

    // A big tree's totals, older than the live refresh's 30 s (its CPU
    // budget spent elsewhere), say their age beside the figure.
    void folderTotalsSayTheirAge()
    {
        auto *live = m_panel->findChild<LiveRefresh *>();
        QVERIFY(live);
        const QModelIndex project = rowOf(m_dir + "/project");
        QVERIFY(project.isValid());
        // As the shots after this one expect it back: the current row and
        // the Cached column's width.
        const QPersistentModelIndex currentBefore = m_view->currentIndex();
        const int cachedWidthBefore = m_view->header()->sectionSize(FilesModel::CachedColumn);
        live->setCpuBudget(0);
        QTest::qWait(300);
        auto *files = m_panel->findChild<FilesModel *>();
        QVERIFY(files);
        FolderScan old;
        old.root = m_dir + "/project";
        old.readAtMs = monotonicNowMs() - 95000;
        files->setTotalsReadAt(old);
        const QModelIndex cached = project.siblingAtColumn(FilesModel::CachedColumn);
        QTRY_VERIFY_WITH_TIMEOUT(cached.data().toString().endsWith(QStringLiteral(" · 1 min ago")), 30000);
        // Once the refresh has seen the row: the Cached column shows the words whole.
        QTRY_VERIFY_WITH_TIMEOUT(m_view->header()->sectionSize(FilesModel::CachedColumn)
                                     >= m_view->fontMetrics().horizontalAdvance(cached.data().toString()) + 8,
                                 30000);
        m_view->setCurrentIndex(project);
        save(QStringLiteral("files-totals-age.png"));

        live->setCpuBudget(LiveRefresh::cpuBudgetShare);
        QAction *refresh = m_actions->action(QStringLiteral("view_refresh"));
        QVERIFY(refresh);
        refresh->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!cached.data().toString().contains(QStringLiteral("ago")), 30000);
        m_view->header()->resizeSection(FilesModel::CachedColumn, cachedWidthBefore);
        m_view->setCurrentIndex(currentBefore);
    }

    void evictDropZone()
    {
        auto *zone = m_panel->findChild<EvictDropZone *>(QStringLiteral("evictDropZone"));
        QVERIFY(zone);
        // As while files from Dolphin are dragged over it.
        zone->setHighlighted(true);
        save(QStringLiteral("files-evict-drop-zone.png"));
        zone->setHighlighted(false);
    }

    // Keep in Memory on a partly cached file: loaded, locked, a pin on its
    // row and the message saying what it holds. Released afterwards.
    void keepInMemory()
    {
        const std::string video = m_dir + "/project/video.mkv";
        // Found again each time: a refresh may sort the rows anew.
        const auto videoRow = [&] {
            return rowOf(video, rowOf(m_dir + "/project"));
        };
        const auto pinned = [&] {
            return videoRow().data(Qt::DecorationRole).value<QIcon>().name() == QLatin1String("window-pin");
        };
        QVERIFY(videoRow().isValid());
        m_view->setCurrentIndex(videoRow());
        QAction *keep = m_actions->action(QStringLiteral("file_keep_in_memory"));
        QVERIFY(keep);
        QTRY_VERIFY(keep->isEnabled());
        keep->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(pinned(), 20000);
        QTRY_COMPARE_WITH_TIMEOUT(videoRow().siblingAtColumn(FilesModel::CachedPercentColumn).data().toString(), QStringLiteral("100%"), 20000);
        auto *bar = m_panel->findChild<KMessageWidget *>(QStringLiteral("filesMessage"));
        QVERIFY(bar);
        QTRY_VERIFY(bar->isVisible() && !bar->isShowAnimationRunning());
        QVERIFY2(bar->text().contains(QLatin1String("in memory")), qPrintable(bar->text()));
        save(QStringLiteral("files-keep-in-memory.png"));
        m_view->setCurrentIndex(videoRow());
        keep->trigger();
        QTRY_VERIFY(!pinned());
        bar->animatedHide();
        QTRY_VERIFY(!bar->isVisible());
    }

    // Compare with Snapshot: a snapshot saved, then stripes of the disk image
    // evicted and others read, the mail archive evicted; the list says what
    // changed and the heatmap marks the image's pages.
    void snapshotCompared()
    {
        const uint64_t mib = 1 << 20;
        const std::string image = m_dir + "/disk-image.iso";
        const std::string mail = m_dir + "/mail-archive.sqlite";
        std::map<uint64_t, std::unique_ptr<TestUtil::HeldPages>> stripes; // by offset in MiB
        for (uint64_t offset = 0; offset < 64; offset += 8) {
            stripes[offset] = std::make_unique<TestUtil::HeldPages>(image, offset * mib, 4 * mib);
        }
        auto mailHeld = std::make_unique<TestUtil::HeldPages>(mail, 0, 8 * mib);
        QSignalSpy messages(m_panel, &FilesPanel::message);
        const QString file = QString::fromStdString(m_dir + "/before.json");
        m_panel->saveSnapshot(file);
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, 30000);
        QVERIFY2(messages.at(0).at(0).toString().startsWith(QLatin1String("Saved")), qPrintable(messages.at(0).at(0).toString()));
        // Read, and closed: the comparison has a bar of its own.
        auto *saved = m_panel->findChild<KMessageWidget *>(QStringLiteral("filesMessage"));
        QVERIFY(saved);
        saved->animatedHide();
        QTRY_VERIFY(!saved->isVisible());

        // Since then: two stripes and the mail archive went out, two new stretches came in.
        for (uint64_t offset : {16, 40}) {
            stripes.erase(offset);
            Cachescope::UniqueFd fd(open(image.c_str(), O_RDONLY | O_CLOEXEC));
            QCOMPARE(posix_fadvise(fd.get(), off_t(offset * mib), off_t(4 * mib), POSIX_FADV_DONTNEED), 0);
        }
        mailHeld.reset();
        TestUtil::evictRaw(mail);
        const TestUtil::HeldPages cameIn(image, 28 * mib, 4 * mib);
        const TestUtil::HeldPages alsoCameIn(image, 60 * mib, 2 * mib);

        m_panel->compareWithSnapshot(file);
        QTRY_VERIFY_WITH_TIMEOUT(m_panel->isComparing(), 30000);
        const QModelIndex row = rowOf(image);
        QVERIFY(row.isValid());
        m_view->setCurrentIndex(row);
        auto *heatmap = m_panel->findChild<HeatmapWidget *>(QStringLiteral("detailHeatmap"));
        QTRY_VERIFY_WITH_TIMEOUT(heatmap->showsComparison(), 30000);
        auto *bar = m_panel->findChild<KMessageWidget *>(QStringLiteral("compareBar"));
        QVERIFY(bar);
        QTRY_VERIFY(bar->isVisible() && !bar->isShowAnimationRunning());
        save(QStringLiteral("files-snapshot-compare.png"));
        m_panel->stopComparing();
        QTRY_VERIFY(!bar->isVisible());
    }

    // Top Cached Files of a selected file's folder, with the list's menu for
    // files open on a result: files-top-cached-menu.png, to look at (the
    // handbook does not show it).
    void topCachedWithMenu()
    {
        const std::string src = m_dir + "/project/src";
        // Read again and held: the machine pages out idle pages after a minute.
        const TestUtil::HeldPages main(src + "/main.cpp", 0, 96 * 1024);
        const TestUtil::HeldPages icons(src + "/icons.svg", 0, 1 << 20);
        const QModelIndex srcRow = rowOf(src, rowOf(m_dir + "/project"));
        QVERIFY(srcRow.isValid());
        m_view->setCurrentIndex(rowOf(src + "/main.cpp", srcRow));
        QAction *top = m_actions->action(QStringLiteral("file_top_cached"));
        QCOMPARE(top->text(), QStringLiteral("Top Cached Files in “src”…"));
        top->trigger();
        QTreeWidget *list = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((list = m_panel->findChild<QTreeWidget *>(QStringLiteral("topCachedList"))), 30000);
        QWidget *dialog = list->window();
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QCOMPARE(list->topLevelItemCount(), 2);
        QTreeWidgetItem *first = list->topLevelItem(0);
        list->setCurrentItem(first);

        QString saved;
        QObject whileHere; // the timer goes with it if no menu came
        QTimer::singleShot(500, &whileHere, [&] {
            auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
            if (!menu) {
                return;
            }
            const QRect area = dialog->frameGeometry().united(menu->frameGeometry());
            const QPixmap shot = dialog->screen()->grabWindow(0, area.x(), area.y(), area.width(), area.height());
            const QString path = QDir(screenshotDir()).absoluteFilePath(QStringLiteral("files-top-cached-menu.png"));
            if (shot.save(path)) {
                saved = path;
            }
            menu->close();
        });
        const QPoint at = list->visualItemRect(first).center();
        QContextMenuEvent event(QContextMenuEvent::Mouse, at, list->viewport()->mapToGlobal(at));
        QApplication::sendEvent(list->viewport(), &event);
        QVERIFY(!saved.isEmpty());
        qInfo() << "saved" << saved;
        dialog->close();
    }

    // Top-level rows with the same name told apart by their folders, names
    // in Dolphin's order, and the warning of an eviction that left dirty
    // pages, with Flush and Evict in it.
    void sameNamesAndDirtyWarning()
    {
        const std::string names = m_dir + "/names";
        makeFile(names + "/usr/lib/libfoo.so", 640 * 1024);
        makeFile(names + "/usr/local/lib/libbar.so", 320 * 1024);
        QList<QUrl> urls{QUrl::fromLocalFile(QString::fromStdString(names + "/usr/lib")),
                         QUrl::fromLocalFile(QString::fromStdString(names + "/usr/local/lib"))};
        for (const char *name : {"d2.log", "d10.log", "X11.conf", "apt.list"}) {
            makeFile(names + "/" + name, 16 * 1024);
            TestUtil::readRange(names + "/" + name, 0, 8 * 1024);
            urls << QUrl::fromLocalFile(QString::fromStdString(names + "/" + name));
        }
        m_view->collapse(rowOf(m_dir + "/project"));
        m_panel->inspectUrls(urls);
        QTRY_VERIFY_WITH_TIMEOUT(!m_panel->isBusy(), 30000);

        const std::string unsaved = names + "/unsaved.db";
        makeFile(unsaved, 1 << 20);
        dirty(unsaved, 0, 1 << 20);
        QSignalSpy messages(m_panel, &FilesPanel::message);
        m_panel->evictUrls({QUrl::fromLocalFile(QString::fromStdString(unsaved))});
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, 30000);
        auto *bar = m_panel->findChild<KMessageWidget *>(QStringLiteral("filesMessage"));
        QVERIFY(bar);
        QTRY_VERIFY(bar->isVisible() && !bar->isShowAnimationRunning());
        m_view->setCurrentIndex(rowOf(names + "/usr/lib"));
        save(QStringLiteral("files-names-and-dirty-warning.png"));
    }

    // The memory panel while a 2 GiB file is written and then read: the
    // cache grows, dirty pages rise and drain, a marker says what happened.
    void memoryPanelWhileAFileIsRead()
    {
        MemoryPanel panel;
        panel.setHistoryMinutes(1);
        panel.resize(1100, 460);
        MemorySampler sampler;
        sampler.setInterval(std::chrono::milliseconds(250));
        connect(&sampler, &MemorySampler::sampled, &panel, &MemoryPanel::addSample);
        panel.show();
        sampler.start();
        QTRY_VERIFY(panel.sampleCount() >= 8);
        const std::string path = m_dir + "/memory-demo.bin";
        panel.addMarker(QStringLiteral("Writing 2 GiB"), {});
        makeFile(path, 2ULL << 30); // written, synced and evicted
        QTest::qWait(1000);
        panel.addMarker(QStringLiteral("Reading it"), {});
        std::atomic<bool> done = false;
        std::thread reader([&] {
            TestUtil::readRange(path, 0, 2ULL << 30);
            done = true;
        });
        QTRY_VERIFY_WITH_TIMEOUT(done.load(), 120000);
        reader.join();
        QTest::qWait(2000);
        const QString shot = QDir(screenshotDir()).absoluteFilePath(QStringLiteral("memory-panel-file-read.png"));
        QVERIFY(panel.grab().toImage().save(shot));
        qInfo() << "saved" << shot;
        sampler.stop();
        std::filesystem::remove(path);
    }

    void cleanupTestCase()
    {
        delete m_window;
    }
};

QTEST_MAIN(FilesPanelShots)

#include "filespanelshots.moc"
