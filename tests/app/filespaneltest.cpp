// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The files panel on the offscreen platform, against the real kernel: drops,
// rows dragged out as URLs (onto the evict zone, refused back on the list),
// evictions through the action and through the drop zone, refused remote
// URLs, cancelling a long scan, folder totals, Top Cached Files (where it
// looks, its results' menu and double-click), hidden residency, and
// snapshots saved, compared with the list and restored.

#include "files/filespanel.h"
#include "files/evictdropzone.h"
#include "files/filedialogs.h"
#include "files/filesmodel.h"
#include "filesdrop.h"
#include "format.h"
#include "heatmap/heatmapwidget.h"
#include "residency.h"
#include "snapshot.h"
#include "testutil.h"
#include "uniquefd.h"

#include <KActionCollection>
#include <KFileCustomDialog>
#include <KFilePlacesView>
#include <KFileWidget>
#include <KUrlMimeData>

#include <QAction>
#include <QDir>
#include <QDrag>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenu>
#include <QMimeData>
#include <QPointer>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QTreeWidget>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

using namespace Cachescope;
using namespace Cachescope::App;

// A size as the window shows it.
static QString shownBytes(uint64_t bytes)
{
    return formatBytes(bytes, ByteStyle::OneDecimal, QLocale());
}

namespace
{

constexpr int longWaitMs = 60000;

using FilesDrop::dropMimeData;
using FilesDrop::dropUrls;
using FilesDrop::urlOf;

uint64_t residentPages(const std::string &path)
{
    const Residency r = residencyOfPath(path);
    if (!r.known()) {
        qWarning() << "residency of" << path.c_str() << "unknown:" << r.errorText.c_str() << r.hiddenReason.c_str();
    }
    return r.resident;
}

// Drops mime on the list as a drag of its own rows would come back.
bool dropUrlsBack(QTreeView *view, const QMimeData *mime)
{
    return dropMimeData(view->viewport(), mime);
}

// Sees the drags a view starts: QAbstractItemView::startDrag makes a QDrag
// child of the view, and deletes it later (the offscreen platform ends the
// drag at once), so what it carried can be read until the event loop runs.
struct DragCatcher : QObject {
    explicit DragCatcher(QObject *view)
    {
        view->installEventFilter(this);
    }
    bool eventFilter(QObject *, QEvent *event) override
    {
        // Told while the child is being made: what it is shows only later.
        if (event->type() == QEvent::ChildAdded) {
            children.append(static_cast<QChildEvent *>(event)->child());
        }
        return false;
    }
    QList<QDrag *> drags() const
    {
        QList<QDrag *> found;
        for (const QPointer<QObject> &child : children) {
            if (auto *drag = qobject_cast<QDrag *>(child.data())) {
                found.append(drag);
            }
        }
        return found;
    }
    QList<QPointer<QObject>> children;
};

// The panel with its actions in a collection, as the main window has them.
struct PanelUnderTest {
    FilesPanel panel;
    KActionCollection collection{&panel, QStringLiteral("cachescope")};
    QTreeView *view = nullptr;
    QAbstractItemModel *model = nullptr;

    PanelUnderTest()
    {
        panel.setUpActions(&collection);
        // The live refresh is tested on its own; here it would only race the asserts.
        panel.setPaused(true);
        panel.resize(1000, 700);
        panel.show();
        view = panel.findChild<QTreeView *>(QStringLiteral("filesView"));
        model = view ? view->model() : nullptr;
    }

    QAction *action(const char *name) const
    {
        return collection.action(QLatin1String(name));
    }

    // The top-level row showing path, or an invalid index.
    QModelIndex rowOf(const std::string &path, const QModelIndex &parent = {}) const
    {
        const QByteArray bytes = QByteArray::fromStdString(path);
        for (int row = 0; row < model->rowCount(parent); ++row) {
            const QModelIndex index = model->index(row, 0, parent);
            if (index.data(FilesModel::PathRole).toByteArray() == bytes) {
                return index;
            }
        }
        return {};
    }

    QString text(const QModelIndex &row, int column) const
    {
        return row.siblingAtColumn(column).data().toString();
    }

    // The row of the last of paths, expanding the rows of the others on the
    // way, from the top-level row of the first.
    QModelIndex expandTo(const std::vector<std::string> &paths)
    {
        QModelIndex row;
        for (const std::string &path : paths) {
            const QModelIndex parent = row;
            if (parent.isValid()) {
                view->expand(parent);
            }
            if (!QTest::qWaitFor(
                    [&] {
                        return rowOf(path, parent).isValid();
                    },
                    longWaitMs)) {
                return {};
            }
            row = rowOf(path, parent);
        }
        return row;
    }

    // Triggers Top Cached Files and waits for its results (null if none came).
    QTreeWidget *topCached()
    {
        action("file_top_cached")->trigger();
        QTreeWidget *list = nullptr;
        (void)QTest::qWaitFor(
            [&] {
                return (list = panel.findChild<QTreeWidget *>(QStringLiteral("topCachedList"))) != nullptr;
            },
            longWaitMs);
        return list;
    }
};

// Files of 64 pages below dir (each named by its path below it), the first
// `resident` pages of each read and held mapped, so that Top Cached Files
// still finds them resident when it walks.
std::vector<std::unique_ptr<TestUtil::HeldPages>> makeCachedFiles(const std::string &dir, const std::vector<std::pair<std::string, uint64_t>> &files)
{
    const uint64_t page = pageSize();
    std::vector<std::unique_ptr<TestUtil::HeldPages>> held;
    for (const auto &[name, resident] : files) {
        const std::string path = dir + "/" + name;
        std::filesystem::create_directories(std::filesystem::path(path).parent_path());
        TestUtil::makeColdFile(path, 64 * page);
        held.push_back(resident > 0 ? std::make_unique<TestUtil::HeldPages>(path, 0, resident * page) : nullptr);
    }
    return held;
}

// Snapshots: a folder with two files (one in a subfolder) and a file beside
// it, some pages of each read and held mapped.
struct SnapshotTree {
    std::string dir;
    std::string folder, a, b, c;
    std::map<std::string, std::vector<std::unique_ptr<TestUtil::HeldPages>>> held;

    explicit SnapshotTree(const char *name)
        : dir(TestUtil::scratchDir(name))
        , folder(dir + "/tree")
        , a(folder + "/a.bin")
        , b(folder + "/sub/b.bin")
        , c(dir + "/c.bin")
    {
        std::filesystem::create_directories(folder + "/sub");
        TestUtil::makeColdFile(a, 64 * pageSize());
        TestUtil::makeColdFile(b, 32 * pageSize());
        TestUtil::makeColdFile(c, 16 * pageSize());
        hold(a, 0, 16);
        hold(b, 8, 8);
        hold(c, 0, 16);
    }

    void hold(const std::string &path, uint64_t first, uint64_t count)
    {
        held[path].push_back(std::make_unique<TestUtil::HeldPages>(path, first * pageSize(), count * pageSize()));
    }

    // A mapped page is not evicted: let go of it first.
    void evict(const std::string &path)
    {
        held.erase(path);
        TestUtil::evictRaw(path);
    }

    // Listed: the folder and the file beside it.
    void inspect(FilesPanel &panel) const
    {
        panel.inspectUrls({urlOf(folder), urlOf(c)});
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), longWaitMs);
    }
};

// The text of the message after the first `before`, once it has come.
QString nextMessage(const QSignalSpy &messages, qsizetype before)
{
    if (!QTest::qWaitFor(
            [&] {
                return messages.count() > before;
            },
            longWaitMs)) {
        return QStringLiteral("(no message)");
    }
    return messages.at(before).at(0).toString();
}

// Save Snapshot of the list to file; its message.
QString saveSnapshotOf(FilesPanel &panel, const QSignalSpy &messages, const std::string &file)
{
    const qsizetype before = messages.count();
    panel.saveSnapshot(QString::fromStdString(file));
    return nextMessage(messages, before);
}

// A SnapshotTree listed in a panel, and a snapshot of the list saved to before.json.
struct SavedSnapshot {
    SnapshotTree tree;
    PanelUnderTest t;
    QSignalSpy messages{&t.panel, &FilesPanel::message};
    std::string file = tree.dir + "/before.json";
    QString saved; // its message

    explicit SavedSnapshot(const char *name)
        : tree(name)
    {
        tree.inspect(t.panel);
        saved = saveSnapshotOf(t.panel, messages, file);
    }
};

QString sinceSnapshot(const QModelIndex &row)
{
    return row.siblingAtColumn(FilesModel::ChangeColumn).data().toString();
}

} // namespace

class FilesPanelTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
    }

    // Add Folder… and Map Folder… use KDE's file dialog (Places, as in
    // Dolphin) on any desktop, not Qt's plain one, for folders, local only.
    void foldersAreChosenInKdesFileDialog()
    {
        std::unique_ptr<KFileCustomDialog> dialog(makeFileDialog(nullptr, QStringLiteral("Add Folder"), KFile::Directory, {}));
        QVERIFY(dialog->findChild<KFilePlacesView *>());
        QVERIFY(dialog->fileWidget()->mode().testFlag(KFile::Directory));
        QVERIFY(dialog->fileWidget()->mode().testFlag(KFile::LocalOnly));
        QCOMPARE(dialog->fileWidget()->baseUrl().adjusted(QUrl::StripTrailingSlash), QUrl::fromLocalFile(QDir::homePath()));
    }

    // A file dropped on the list is added, and its row shows what the core library reads.
    void dropAddsFileWithCoreNumbers()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-drop");
        const std::string path = dir + "/half.bin";
        const uint64_t page = pageSize();
        TestUtil::makeColdFile(path, 256 * page);

        // Held mapped: idle file pages are reclaimed on these machines, even
        // during the slow ASan panel set-up, but not mapped ones.
        const TestUtil::HeldPages half(path, 0, 128 * page);
        PanelUnderTest t;
        QVERIFY(t.view);
        QVERIFY(dropUrls(t.view->viewport(), {urlOf(path)}));
        const QModelIndex row = t.rowOf(path);
        QVERIFY(row.isValid());

        const Residency core = residencyOfPath(path);
        QVERIFY(core.known());
        QCOMPARE(core.resident, uint64_t(128));
        QCOMPARE(row.siblingAtColumn(FilesModel::CachedColumn).data(FilesModel::SortRole).toDouble(), double(core.resident));
        QCOMPARE(t.text(row, FilesModel::NameColumn), QStringLiteral("half.bin"));
        QCOMPARE(t.text(row, FilesModel::SizeColumn), shownBytes(core.sizeBytes));
        QCOMPARE(t.text(row, FilesModel::CachedColumn), shownBytes(core.resident * page));
        QCOMPARE(t.text(row, FilesModel::CachedPercentColumn), QStringLiteral("50%"));
        // The strip: the first half of the cells resident, the second half not.
        const QList<float> strip = row.data(FilesModel::StripRole).value<QList<float>>();
        QCOMPARE(strip.size(), FilesModel::stripCells);
        QCOMPARE(strip.first(), 1.0f);
        QCOMPARE(strip.last(), 0.0f);
        // Dropping it again does not add a second row.
        QVERIFY(dropUrls(t.view->viewport(), {urlOf(path)}));
        QCOMPARE(t.model->rowCount(), 1);
    }

    // Something that is neither a file nor a folder is refused with its path and the reason.

    // A file missing one page of a thousand is not "100%": the list says
    // 99.9%, as the heatmap does (percentShown, never rounded up to 100).
    void aFileMissingAPageIsNotFull()
    {
        const uint64_t page = pageSize();
        const std::string path = TestUtil::scratchDir("filespanel-almost") + "/almost.bin";
        TestUtil::makeColdFile(path, 1000 * page);
        const TestUtil::HeldPages allButOne(path, 0, 999 * page);
        PanelUnderTest t;
        QVERIFY(dropUrls(t.view->viewport(), {urlOf(path)}));
        const QModelIndex row = t.rowOf(path);
        QVERIFY(row.isValid());
        QCOMPARE(residencyOfPath(path).resident, uint64_t(999));
        QCOMPARE(t.text(row, FilesModel::CachedPercentColumn), QLocale().toString(99.9, 'f', 1) + QLatin1Char('%'));
    }
    void dropOfMissingFileIsRefused()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-missing");
        PanelUnderTest t;
        QSignalSpy messages(&t.panel, &FilesPanel::message);
        QVERIFY(dropUrls(t.view->viewport(), {urlOf(dir + "/gone")}));
        QCOMPARE(messages.count(), 1);
        QVERIFY(messages.at(0).at(0).toString().contains(QStringLiteral("gone")));
        QVERIFY(messages.at(0).at(0).toString().contains(QStringLiteral("No such file")));
        QCOMPARE(messages.at(0).at(1).toBool(), true);
        QCOMPARE(t.model->rowCount(), 0);
    }

    void remoteUrlIsRefused_data()
    {
        QTest::addColumn<QUrl>("url");
        QTest::newRow("sftp") << QUrl(QStringLiteral("sftp://host/x"));
        QTest::newRow("smb") << QUrl(QStringLiteral("smb://server/share/file.iso"));
        QTest::newRow("https") << QUrl(QStringLiteral("https://example.org/file.iso"));
    }

    void remoteUrlIsRefused()
    {
        QFETCH(QUrl, url);
        PanelUnderTest t;
        QSignalSpy messages(&t.panel, &FilesPanel::message);
        QVERIFY(dropUrls(t.view->viewport(), {url}));
        // Refused at once: no network, no job.
        QCOMPARE(messages.count(), 1);
        const QString text = messages.at(0).at(0).toString();
        QVERIFY2(text.contains(url.toDisplayString()), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("local")), qPrintable(text));
        QCOMPARE(messages.at(0).at(1).toBool(), true);
        QCOMPARE(t.model->rowCount(), 0);
        QVERIFY(!t.panel.isBusy());

        // The evict zone refuses it the same way.
        auto *zone = t.panel.findChild<EvictDropZone *>(QStringLiteral("evictDropZone"));
        QVERIFY(zone);
        QVERIFY(dropUrls(zone, {url}));
        QCOMPARE(messages.count(), 2);
        QCOMPARE(messages.at(1).at(1).toBool(), true);
    }

    void evictThroughAction()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-evict-action");
        const std::string path = dir + "/cached.bin";
        const uint64_t page = pageSize();
        TestUtil::makeColdFile(path, 512 * page);

        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(path)});
        const QModelIndex row = t.rowOf(path);
        QVERIFY(row.isValid());
        t.view->setCurrentIndex(row);
        QSignalSpy messages(&t.panel, &FilesPanel::message);

        TestUtil::readRange(path, 0, 512 * page);
        QAction *evict = t.action("file_evict");
        QVERIFY(evict);
        QVERIFY(evict->isEnabled());
        // What the eviction will find: the kernel may have reclaimed a few
        // pages on its own already.
        const TestUtil::PagesNow before = TestUtil::pagesNow(path);
        QCOMPARE(before.residentOrReclaimed(), uint64_t(512));
        evict->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, longWaitMs);
        QCOMPARE(residentPages(path), uint64_t(0));
        const QString text = messages.at(0).at(0).toString();
        QVERIFY2(text.contains(QStringLiteral("freed")) && text.contains(shownBytes(before.resident * page)), qPrintable(text));
        QCOMPARE(messages.at(0).at(1).toBool(), false);
        // The row was read again after the eviction.
        QCOMPARE(row.siblingAtColumn(FilesModel::CachedColumn).data(FilesModel::SortRole).toDouble(), 0.0);
    }

    void evictThroughDropZone()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-evict-drop");
        const std::string file = dir + "/dropped.bin";
        const std::string folder = dir + "/tree";
        std::filesystem::create_directories(folder + "/deeper");
        const std::string inFolder = folder + "/deeper/inside.bin";
        const uint64_t page = pageSize();
        TestUtil::makeColdFile(file, 64 * page);
        TestUtil::makeColdFile(inFolder, 32 * page);

        PanelUnderTest t;
        auto *zone = t.panel.findChild<EvictDropZone *>(QStringLiteral("evictDropZone"));
        QVERIFY(zone);
        QVERIFY(zone->isVisible());
        QSignalSpy messages(&t.panel, &FilesPanel::message);

        TestUtil::readRange(file, 0, 64 * page);
        TestUtil::readRange(inFolder, 0, 32 * page);
        const TestUtil::PagesNow before = TestUtil::pagesNow({file, inFolder});
        QCOMPARE(before.residentOrReclaimed(), uint64_t(96));

        QVERIFY(dropUrls(zone, {urlOf(file), urlOf(folder)}));
        QVERIFY(!zone->isHighlighted());
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, longWaitMs);
        QCOMPARE(residentPages(file), uint64_t(0));
        QCOMPARE(residentPages(inFolder), uint64_t(0));
        const QString text = messages.at(0).at(0).toString();
        QVERIFY2(text.contains(QStringLiteral("Evicted 2 files")) && text.contains(shownBytes(before.resident * page)), qPrintable(text));
        // A drop on the zone evicts; it does not add to the list.
        QCOMPARE(t.model->rowCount(), 0);
    }

    // Rows drag out as their files' URLs, as Dolphin's do (text/uri-list):
    // one a row, byte for byte (a name with spaces, one that is not UTF-8),
    // copied or linked, never moved. Dropped back on the list, they are
    // refused: no second row, not even for a row inside a folder.
    void rowsDragOutAsUrls()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-drag-out");
        const uint64_t page = pageSize();
        const std::vector<std::string> files{dir + "/plain.bin", dir + "/with spaces.bin", dir + "/latin1-\xe9t\xe9.bin"};
        const std::string folder = dir + "/folder";
        std::filesystem::create_directories(folder);
        for (const std::string &file : files) {
            TestUtil::makeColdFile(file, 8 * page);
        }
        TestUtil::makeColdFile(folder + "/inside.bin", 8 * page);

        PanelUnderTest t;
        QVERIFY(t.view->dragEnabled());
        QCOMPARE(t.view->dragDropMode(), QAbstractItemView::DragDrop);
        QVERIFY(t.model->supportedDragActions() & Qt::CopyAction);
        QVERIFY(!(t.model->supportedDragActions() & Qt::MoveAction));

        QList<QUrl> urls;
        for (const std::string &file : files) {
            urls << urlOf(file);
        }
        t.panel.inspectUrls(urls);
        QCOMPARE(t.model->rowCount(), 3);
        t.view->selectAll();
        const QModelIndexList selected = t.view->selectionModel()->selectedIndexes();
        QCOMPARE(selected.size(), 3 * t.model->columnCount());
        for (const QModelIndex &index : selected) {
            QVERIFY(t.model->flags(index) & Qt::ItemIsDragEnabled);
        }
        const std::unique_ptr<QMimeData> mime(t.model->mimeData(selected));
        QVERIFY(mime);
        QVERIFY(mime->hasFormat(QStringLiteral("text/uri-list")));
        QCOMPARE(mime->urls().size(), 3);
        std::set<std::string> dragged;
        for (const QUrl &url : mime->urls()) {
            QVERIFY(url.isLocalFile());
            dragged.insert(FilesDrop::pathOf(url));
        }
        QCOMPARE(dragged, std::set<std::string>(files.begin(), files.end()));
        // KIO reads them as it reads Dolphin's.
        QCOMPARE(KUrlMimeData::urlsFromMimeData(mime.get(), KUrlMimeData::PreferLocalUrls).size(), 3);

        // Back onto the list: refused, nothing added.
        QVERIFY(!dropUrlsBack(t.view, mime.get()));
        QCOMPARE(t.model->rowCount(), 3);

        // A file inside a listed folder, dragged back: no top-level row of it.
        t.panel.inspectUrls({urlOf(folder)});
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        const QModelIndex folderRow = t.rowOf(folder);
        QVERIFY(folderRow.isValid());
        t.view->expand(folderRow);
        QTRY_COMPARE_WITH_TIMEOUT(t.model->rowCount(folderRow), 1, longWaitMs);
        const QModelIndex inside = t.model->index(0, 0, folderRow);
        t.view->selectionModel()->select(inside, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        const std::unique_ptr<QMimeData> insideMime(t.model->mimeData(t.view->selectionModel()->selectedIndexes()));
        QCOMPARE(insideMime->urls(), QList<QUrl>{urlOf(folder + "/inside.bin")});
        QVERIFY(!dropUrlsBack(t.view, insideMime.get()));
        QCOMPARE(t.model->rowCount(), 4);
        QVERIFY(!t.rowOf(folder + "/inside.bin").isValid());
    }

    // The rows' URLs dropped on the evict zone beside the list evict those
    // files, as a drop from Dolphin does; the rows stay.
    void rowsDraggedOntoEvictZoneAreEvicted()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-drag-evict");
        const uint64_t page = pageSize();
        const std::vector<std::string> files{dir + "/with spaces.bin", dir + "/latin1-\xe9t\xe9.bin"};
        QList<QUrl> urls;
        for (const std::string &file : files) {
            TestUtil::makeColdFile(file, 32 * page);
            urls << urlOf(file);
        }
        PanelUnderTest t;
        t.panel.inspectUrls(urls);
        QCOMPARE(t.model->rowCount(), 2);
        t.view->selectAll();
        const std::unique_ptr<QMimeData> mime(t.model->mimeData(t.view->selectionModel()->selectedIndexes()));
        QVERIFY(mime);
        auto *zone = t.panel.findChild<EvictDropZone *>(QStringLiteral("evictDropZone"));
        QVERIFY(zone);
        QSignalSpy messages(&t.panel, &FilesPanel::message);

        // Held mapped until the drop (idle pages go on their own here), and checked at once.
        std::vector<std::unique_ptr<TestUtil::HeldPages>> held;
        for (const std::string &file : files) {
            held.push_back(std::make_unique<TestUtil::HeldPages>(file, 0, 32 * page));
            QCOMPARE(residentPages(file), uint64_t(32));
        }
        held.clear();
        const TestUtil::PagesNow before = TestUtil::pagesNow(files);
        QCOMPARE(before.residentOrReclaimed(), uint64_t(64));

        QVERIFY(dropMimeData(zone, mime.get()));
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, longWaitMs);
        for (const std::string &file : files) {
            QCOMPARE(residentPages(file), uint64_t(0));
        }
        const QString text = messages.at(0).at(0).toString();
        QVERIFY2(text.contains(QStringLiteral("Evicted 2 files")) && text.contains(shownBytes(before.resident * page)), qPrintable(text));
        QCOMPARE(messages.at(0).at(1).toBool(), false);
        QCOMPARE(t.model->rowCount(), 2);
    }

    // With the mouse, as QAbstractItemView does it in Dolphin's way: a drag
    // starts from a row, and from a selected one it takes the whole
    // selection; a press below the rows selects by dragging instead.
    void dragStartsFromARow()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-drag-mouse");
        const std::vector<std::string> files{dir + "/a.bin", dir + "/b.bin", dir + "/c.bin"};
        QList<QUrl> urls;
        for (const std::string &file : files) {
            TestUtil::makeColdFile(file, pageSize());
            urls << urlOf(file);
        }
        PanelUnderTest t;
        t.panel.inspectUrls(urls);
        QCOMPARE(t.model->rowCount(), 3);
        QWidget *viewport = t.view->viewport();
        const auto centreOf = [&t](const std::string &path) {
            return t.view->visualRect(t.rowOf(path)).center();
        };
        const auto selectedPaths = [&t] {
            std::set<std::string> paths;
            for (const QModelIndex &row : t.view->selectionModel()->selectedRows()) {
                paths.insert(row.data(FilesModel::PathRole).toByteArray().toStdString());
            }
            return paths;
        };
        const QPoint step(0, QApplication::startDragDistance() * 3);

        QTest::mouseClick(viewport, Qt::LeftButton, {}, centreOf(files[0]));
        QTest::mouseClick(viewport, Qt::LeftButton, Qt::ControlModifier, centreOf(files[2]));
        QCOMPARE(selectedPaths(), (std::set<std::string>{files[0], files[2]}));

        DragCatcher catcher(t.view);
        QTest::mousePress(viewport, Qt::LeftButton, {}, centreOf(files[2]));
        QTest::mouseMove(viewport, centreOf(files[2]) + step);
        QTest::mouseMove(viewport, centreOf(files[2]) + step * 2);
        QCOMPARE(catcher.drags().size(), 1);
        QVERIFY(catcher.drags().first()->mimeData());
        const QList<QUrl> dragged = catcher.drags().first()->mimeData()->urls();
        QTest::mouseRelease(viewport, Qt::LeftButton, {}, centreOf(files[2]) + step * 2);
        QCOMPARE(dragged.size(), 2);
        QCOMPARE((std::set<std::string>{FilesDrop::pathOf(dragged[0]), FilesDrop::pathOf(dragged[1])}), (std::set<std::string>{files[0], files[2]}));
        catcher.children.clear();

        const QPoint below(centreOf(files[2]).x(), t.view->visualRect(t.rowOf(files[2])).bottom() + 40);
        QVERIFY(!t.view->indexAt(below).isValid());
        QTest::mousePress(viewport, Qt::LeftButton, {}, below);
        QTest::mouseMove(viewport, centreOf(files[1]) + QPoint(0, 1));
        QTest::mouseMove(viewport, centreOf(files[1]));
        QTest::mouseRelease(viewport, Qt::LeftButton, {}, centreOf(files[1]));
        QCOMPARE(catcher.drags().size(), 0);
        QCOMPARE(selectedPaths(), (std::set<std::string>{files[1], files[2]}));
    }

    // The zone lights up while files are dragged over it, and only for files.
    void dropZoneHighlightsOnDragOver()
    {
        PanelUnderTest t;
        auto *zone = t.panel.findChild<EvictDropZone *>(QStringLiteral("evictDropZone"));
        QVERIFY(zone);
        QMimeData text;
        text.setText(QStringLiteral("not a file"));
        QDragEnterEvent enterText(zone->rect().center(), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(zone, &enterText);
        QVERIFY(!enterText.isAccepted());
        QVERIFY(!zone->isHighlighted());

        QMimeData files;
        KUrlMimeData::setUrls({QUrl::fromLocalFile(QStringLiteral("/etc/hostname"))}, {}, &files);
        QDragEnterEvent enter(zone->rect().center(), Qt::CopyAction, &files, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(zone, &enter);
        QVERIFY(enter.isAccepted());
        QVERIFY(zone->isHighlighted());
        QDragLeaveEvent leave;
        QApplication::sendEvent(zone, &leave);
        QVERIFY(!zone->isHighlighted());
    }

    // Pages a running program maps stay after an eviction; the message says so and why.
    void evictionTellsWhatStayed()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-mapped");
        const std::string path = dir + "/mapped.bin";
        const uint64_t page = pageSize();
        TestUtil::makeColdFile(path, 64 * page);
        Cachescope::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
        QVERIFY(fd.isValid());
        void *map = mmap(nullptr, 64 * page, PROT_READ, MAP_SHARED, fd.get(), 0);
        fd.reset();
        QVERIFY(map != MAP_FAILED);
        // Touch every page so that each is mapped, not only resident.
        volatile char sum = 0;
        for (uint64_t offset = 0; offset < 64 * page; offset += page) {
            sum = char(sum + static_cast<const char *>(map)[offset]);
        }
        QCOMPARE(residentPages(path), uint64_t(64));

        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(path)});
        t.view->setCurrentIndex(t.rowOf(path));
        QSignalSpy messages(&t.panel, &FilesPanel::message);
        t.action("file_evict")->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, longWaitMs);
        munmap(map, 64 * page);
        const QString text = messages.at(0).at(0).toString();
        QVERIFY2(text.contains(QStringLiteral("Stayed:")) && text.contains(QStringLiteral("mapped by a running program")), qPrintable(text));
        QVERIFY2(text.contains(shownBytes(64 * page)), qPrintable(text));
    }

    // Dirty pages: Flush and Evict drops them (plain Evict may leave them, and then says so).
    void flushAndEvictDropsDirtyPages()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-dirty");
        const std::string path = dir + "/dirty.bin";
        const uint64_t page = pageSize();
        TestUtil::makeColdFile(path, 64 * page);
        {
            Cachescope::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
            QVERIFY(fd.isValid());
            const std::string data(16 * page, 'x');
            QCOMPARE(pwrite(fd.get(), data.data(), data.size(), 0), ssize_t(data.size()));
        }
        if (!cachestatAvailable()) {
            QSKIP("dirty pages are told apart with cachestat (Linux 6.5)");
        }
        const Residency before = residencyOfPath(path);
        if (before.dirty == 0) {
            QSKIP("the kernel wrote the pages back already");
        }
        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(path)});
        t.view->setCurrentIndex(t.rowOf(path));
        QSignalSpy messages(&t.panel, &FilesPanel::message);
        t.action("file_evict")->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, longWaitMs);
        const QString text = messages.at(0).at(0).toString();
        if (residentPages(path) > 0) {
            QVERIFY2(text.contains(QStringLiteral("dirty")) && text.contains(QStringLiteral("Flush and Evict")), qPrintable(text));
        }
        // Flush and Evict drops them.
        t.action("file_flush_evict")->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 2, longWaitMs);
        QCOMPARE(residentPages(path), uint64_t(0));
        QVERIFY2(!messages.at(1).at(0).toString().contains(QStringLiteral("dirty")), qPrintable(messages.at(1).at(0).toString()));
    }

    void loadThroughAction()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-load");
        const std::string path = dir + "/cold.bin";
        const uint64_t page = pageSize();
        TestUtil::makeColdFile(path, 256 * page);
        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(path)});
        t.view->setCurrentIndex(t.rowOf(path));
        QSignalSpy messages(&t.panel, &FilesPanel::message);
        t.action("file_load")->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, longWaitMs);
        // Every page was loaded; the kernel may have reclaimed a few of them
        // since, which it counts (pagesNow).
        const TestUtil::PagesNow now = TestUtil::pagesNow(path);
        QCOMPARE(now.residentOrReclaimed(), uint64_t(256));
        const QString text = messages.at(0).at(0).toString();
        QVERIFY2(text.startsWith(QStringLiteral("Loaded ")), qPrintable(text));
        if (now.reclaimed == 0) {
            QVERIFY2(text.contains(shownBytes(256 * page)), qPrintable(text));
        }
    }

    // A big tree: cancelled right after the start, the walk stops and the UI
    // shows a final, honest state.
    void cancelStopsScan()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-cancel");
        const std::string tree = dir + "/tree";
        constexpr int folders = 100;
        constexpr int filesEach = 200;
        for (int f = 0; f < folders; ++f) {
            const std::string folder = tree + "/d" + std::to_string(f);
            std::filesystem::create_directories(folder);
            for (int i = 0; i < filesEach; ++i) {
                Cachescope::UniqueFd fd(open((folder + "/f" + std::to_string(i)).c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
                QVERIFY(fd.isValid());
            }
        }

        PanelUnderTest t;
        QSignalSpy messages(&t.panel, &FilesPanel::message);
        QSignalSpy busy(&t.panel, &FilesPanel::busyChanged);
        t.panel.inspectUrls({urlOf(tree)});
        QVERIFY(t.panel.isBusy());
        QAction *cancel = t.action("file_cancel");
        QVERIFY(cancel->isEnabled());
        cancel->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);

        QCOMPARE(busy.count(), 2);
        QCOMPARE(busy.at(1).at(0).toBool(), false);
        QVERIFY(!cancel->isEnabled());
        QWidget *progress = t.panel.findChild<QWidget *>(QStringLiteral("progressRow"));
        QVERIFY(progress);
        QVERIFY(!progress->isVisible());
        QCOMPARE(messages.count(), 1);
        QVERIFY2(messages.at(0).at(0).toString().contains(QStringLiteral("cancelled")), qPrintable(messages.at(0).at(0).toString()));
        const QModelIndex row = t.rowOf(tree);
        QVERIFY(row.isValid());
        QVERIFY(!row.data(FilesModel::BusyRole).toBool());
        QVERIFY2(t.text(row, FilesModel::CachedColumn).startsWith(QStringLiteral("≥")), qPrintable(t.text(row, FilesModel::CachedColumn)));

        // Refresh counts it again, to the end this time.
        t.action("view_refresh")->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(!t.text(t.rowOf(tree), FilesModel::CachedColumn).startsWith(QStringLiteral("≥")), longWaitMs);
        QVERIFY2(t.rowOf(tree).data(Qt::ToolTipRole).toString().contains(QStringLiteral("20,000 files")),
                 qPrintable(t.rowOf(tree).data(Qt::ToolTipRole).toString()));
    }

    // A folder shows the totals of its tree; expanded, its children show theirs.
    void folderExpandsWithTotals()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-folder");
        const std::string folder = dir + "/project";
        std::filesystem::create_directories(folder + "/sub/deep");
        const uint64_t page = pageSize();
        const std::string a = folder + "/sub/a.bin";
        const std::string b = folder + "/sub/deep/b.bin";
        const std::string c = folder + "/c.txt";
        TestUtil::makeColdFile(a, 100 * page);
        TestUtil::makeColdFile(b, 50 * page);
        TestUtil::makeColdFile(c, 20 * page);
        // Held mapped, so that the kernel does not reclaim them before the checks.
        const TestUtil::HeldPages heldA(a, 0, 40 * page);
        const TestUtil::HeldPages heldB(b, 0, 50 * page);
        const TestUtil::HeldPages heldC(c, 0, 10 * page);

        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(folder)});
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        const QModelIndex row = t.rowOf(folder);
        QVERIFY(row.isValid());
        const uint64_t total = residentPages(a) + residentPages(b) + residentPages(c);
        QCOMPARE(total, uint64_t(100));
        QCOMPARE(t.text(row, FilesModel::CachedColumn), shownBytes(total * page));
        QCOMPARE(t.text(row, FilesModel::SizeColumn), shownBytes(170 * page));
        QVERIFY(t.model->hasChildren(row));

        t.view->expand(row);
        QTRY_COMPARE_WITH_TIMEOUT(t.model->rowCount(row), 2, longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        // Folders first, as in Dolphin.
        const QModelIndex sub = t.model->index(0, 0, row);
        const QModelIndex file = t.model->index(1, 0, row);
        QCOMPARE(t.text(sub, FilesModel::NameColumn), QStringLiteral("sub"));
        QCOMPARE(t.text(file, FilesModel::NameColumn), QStringLiteral("c.txt"));
        QCOMPARE(t.text(sub, FilesModel::CachedColumn), shownBytes(90 * page));
        QCOMPARE(t.text(sub, FilesModel::SizeColumn), shownBytes(150 * page));
        QCOMPARE(t.text(sub, FilesModel::CachedPercentColumn), QStringLiteral("60%"));
        QCOMPARE(t.text(file, FilesModel::CachedColumn), shownBytes(10 * page));
        QCOMPARE(t.text(file, FilesModel::CachedPercentColumn), QStringLiteral("50%"));

        // Deeper still.
        t.view->expand(sub);
        QTRY_COMPARE_WITH_TIMEOUT(t.model->rowCount(sub), 2, longWaitMs);
        const QModelIndex deep = t.model->index(0, 0, sub);
        QCOMPARE(t.text(deep, FilesModel::NameColumn), QStringLiteral("deep"));
        QCOMPARE(t.text(deep, FilesModel::CachedPercentColumn), QStringLiteral("100%"));
    }

    // A folder of sysfs: its files keep no page cache. Each says so instead of
    // a percentage, and their sizes (4 KiB an attribute, the kernel's figure)
    // make up no size or pages of the folder.
    void folderWithoutPageCache()
    {
        const std::string folder = "/sys/kernel/mm";
        struct statfs fs;
        if (statfs(folder.c_str(), &fs) != 0 || fs.f_type != 0x62656572 || !QFileInfo::exists(QStringLiteral("/sys/kernel/mm/transparent_hugepage/enabled"))) {
            QSKIP("no sysfs with transparent_hugepage here");
        }
        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(folder)});
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        const QModelIndex row = t.rowOf(folder);
        QVERIFY(row.isValid());
        QCOMPARE(t.text(row, FilesModel::SizeColumn), shownBytes(0));
        QCOMPARE(t.text(row, FilesModel::CachedPercentColumn), QStringLiteral("—"));
        t.view->expand(row);
        QTRY_VERIFY_WITH_TIMEOUT(t.model->rowCount(row) > 0, longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        const auto childNamed = [&t](const QModelIndex &parent, QLatin1String name) {
            for (int i = 0; i < t.model->rowCount(parent); ++i) {
                if (t.text(t.model->index(i, 0, parent), FilesModel::NameColumn) == name) {
                    return t.model->index(i, 0, parent);
                }
            }
            return QModelIndex();
        };
        const QModelIndex hugePages = childNamed(row, QLatin1String("transparent_hugepage"));
        QVERIFY(hugePages.isValid());
        QCOMPARE(t.text(hugePages, FilesModel::SizeColumn), shownBytes(0));
        t.view->expand(hugePages);
        QTRY_VERIFY_WITH_TIMEOUT(t.model->rowCount(hugePages) > 0, longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        const QModelIndex enabled = childNamed(hugePages, QLatin1String("enabled"));
        QVERIFY(enabled.isValid());
        QCOMPARE(t.text(enabled, FilesModel::CachedPercentColumn), QStringLiteral("no page cache"));
    }

    // Top Cached Files of a folder: most resident first, in a dialog.
    void topCachedOfFolder()
    {
        const std::string folder = TestUtil::scratchDir("filespanel-top") + "/tree";
        const uint64_t page = pageSize();
        const auto held = makeCachedFiles(folder, {{"little.bin", 8}, {"sub/most.bin", 48}, {"cold.bin", 0}});

        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(folder)});
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        t.view->setCurrentIndex(t.rowOf(folder));
        QVERIFY(t.action("file_top_cached")->isEnabled());
        QTreeWidget *list = t.topCached();
        QVERIFY(list);
        // The cold file has nothing cached: it is not ranked.
        QCOMPARE(list->topLevelItemCount(), 2);
        QCOMPARE(list->topLevelItem(0)->text(0), QString::fromStdString(folder + "/sub/most.bin"));
        QCOMPARE(list->topLevelItem(0)->text(1), shownBytes(48 * page));
        QCOMPARE(list->topLevelItem(1)->text(0), QString::fromStdString(folder + "/little.bin"));
    }

    // A newcomer's first step: with an empty list, Top Cached Files looks in
    // the home folder, and the empty list says so.
    void topCachedOfHomeWhenNothingIsSelected()
    {
        const std::string home = TestUtil::scratchDir("filespanel-home");
        const uint64_t page = pageSize();
        TestUtil::makeColdFile(home + "/letter.odt", 64 * page);
        const TestUtil::HeldPages held(home + "/letter.odt", 0, 16 * page);
        const QByteArray oldHome = qgetenv("HOME");
        qputenv("HOME", QByteArray::fromStdString(home));
        const auto restoreHome = qScopeGuard([&] {
            qputenv("HOME", oldHome);
        });

        PanelUnderTest t;
        QCOMPARE(t.model->rowCount(), 0);
        QVERIFY(t.action("file_top_cached")->isEnabled());
        QTreeWidget *list = t.topCached();
        QVERIFY(list);
        QCOMPARE(list->topLevelItemCount(), 1);
        QCOMPARE(list->topLevelItem(0)->text(0), QString::fromStdString(home + "/letter.odt"));
        QCOMPARE(list->topLevelItem(0)->text(1), shownBytes(16 * page));
    }

    // A file selected: Top Cached Files looks in the file's folder, and its
    // text names that folder, as the dialog's title does.
    void topCachedOfASelectedFilesFolder()
    {
        const std::string folder = TestUtil::scratchDir("filespanel-top-file") + "/Reports";
        const auto held = makeCachedFiles(folder, {{"march.odt", 8}, {"old/april.odt", 32}});

        PanelUnderTest t;
        QAction *top = t.action("file_top_cached");
        QCOMPARE(top->text(), QStringLiteral("Top Cached Files…"));
        t.panel.inspectUrls({urlOf(folder + "/march.odt")});
        t.view->setCurrentIndex(t.rowOf(folder + "/march.odt"));
        QVERIFY(top->isEnabled());
        QCOMPARE(top->text(), QStringLiteral("Top Cached Files in “Reports”…"));
        QTreeWidget *list = t.topCached();
        QVERIFY(list);
        QCOMPARE(list->window()->windowTitle(), QStringLiteral("Top Cached Files in ") + QString::fromStdString(folder));
        QCOMPARE(list->topLevelItemCount(), 2);
        QCOMPARE(list->topLevelItem(0)->text(0), QString::fromStdString(folder + "/old/april.odt"));
        QCOMPARE(list->topLevelItem(0)->text(1), shownBytes(32 * pageSize()));
        QCOMPARE(list->topLevelItem(1)->text(0), QString::fromStdString(folder + "/march.odt"));

        // A folder and a file in it: the folder, once.
        t.panel.inspectUrls({urlOf(folder)});
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        t.view->selectAll();
        QCOMPARE(t.view->selectionModel()->selectedRows().size(), 2);
        QCOMPARE(top->text(), QStringLiteral("Top Cached Files in “Reports”…"));
    }

    // Right-click on Top Cached Files' results: the list's menu for files,
    // the very same actions, acting on the results selected (not on the
    // list's selection); their figures are read again afterwards.
    void topCachedResultsHaveTheListsMenu()
    {
        const std::string folder = TestUtil::scratchDir("filespanel-top-menu") + "/tree";
        const uint64_t page = pageSize();
        const std::string hot = folder + "/hot.bin";
        const auto held = makeCachedFiles(folder, {{"hot.bin", 48}, {"warm.bin", 16}});

        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(folder)});
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        t.view->setCurrentIndex(t.rowOf(folder));
        QTreeWidget *list = t.topCached();
        QVERIFY(list);
        QCOMPARE(list->topLevelItemCount(), 2);
        QTreeWidgetItem *hotItem = list->topLevelItem(0);
        QCOMPARE(hotItem->text(0), QString::fromStdString(hot));
        list->setCurrentItem(hotItem);
        QSignalSpy messages(&t.panel, &FilesPanel::message);

        // Mapped pages stay: let hot.bin's go now, and evict it at once.
        held[0]->release();
        const TestUtil::PagesNow before = TestUtil::pagesNow(hot);
        QCOMPARE(before.residentOrReclaimed(), uint64_t(48));
        QStringList offered;
        QList<QAction *> shared;
        bool evicted = false;
        QObject whileHere; // the timer goes with it if no menu ever came
        QTimer::singleShot(0, &whileHere, [&] {
            auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
            if (!menu) {
                return;
            }
            for (QAction *action : menu->actions()) {
                if (!action->isSeparator()) {
                    offered << action->text();
                }
                if (t.collection.actions().contains(action)) {
                    shared << action;
                }
            }
            if (QAction *evict = t.action("file_evict"); menu->actions().contains(evict) && evict->isEnabled()) {
                evict->trigger();
                evicted = true;
            }
            menu->close();
        });
        const QPoint at = list->visualItemRect(hotItem).center();
        QContextMenuEvent event(QContextMenuEvent::Mouse, at, list->viewport()->mapToGlobal(at));
        QApplication::sendEvent(list->viewport(), &event);
        QVERIFY2(evicted, qPrintable(offered.join(QStringLiteral(", "))));
        QCOMPARE(offered.first(), QStringLiteral("Show in List"));
        const QList<QAction *> fileActions{t.action("file_evict"), t.action("file_flush_evict"), t.action("file_load"), t.action("file_keep_in_memory")};
        QCOMPARE(shared, fileActions);

        QTRY_COMPARE_WITH_TIMEOUT(messages.count(), 1, longWaitMs);
        QCOMPARE(residentPages(hot), uint64_t(0));
        const QString text = messages.at(0).at(0).toString();
        // hot.bin alone, not the folder selected in the list.
        QVERIFY2(text.contains(QStringLiteral("Evicted 1 file")) && text.contains(shownBytes(before.resident * page)), qPrintable(text));
        QTRY_COMPARE_WITH_TIMEOUT(hotItem->text(1), shownBytes(0), longWaitMs);
        // The list's actions act on the list's selection again.
        QVERIFY(t.action("file_top_cached")->isEnabled());
        QCOMPARE(t.action("file_top_cached")->text(), QStringLiteral("Top Cached Files in “tree”…"));
    }

    // Double-click on a result shows its row in the list: the row it has,
    // also deep in a listed folder (expanded on the way); a row is added
    // only for a file the list has nowhere.
    void topCachedDoubleClickShowsTheRow()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-top-show");
        const auto held = makeCachedFiles(dir, {{"tree/sub/deeper/deep.bin", 48}, {"loose/solo.bin", 32}, {"loose/other.bin", 16}});
        const std::string tree = dir + "/tree";
        const std::string deep = tree + "/sub/deeper/deep.bin";
        const std::string solo = dir + "/loose/solo.bin";
        const std::string other = dir + "/loose/other.bin";

        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(tree), urlOf(solo)});
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        QCOMPARE(t.model->rowCount(), 2);
        t.view->selectAll();
        QAction *top = t.action("file_top_cached");
        QCOMPARE(top->text(), QStringLiteral("Top Cached Files in 2 Folders…"));
        QTreeWidget *list = t.topCached();
        QVERIFY(list);
        QCOMPARE(list->topLevelItemCount(), 3);
        const auto doubleClick = [list](const std::string &path) {
            const QList<QTreeWidgetItem *> items = list->findItems(QString::fromStdString(path), Qt::MatchExactly);
            QCOMPARE(items.size(), 1);
            const QPoint at = list->visualItemRect(items.first()).center();
            QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, at);
            QTest::mouseDClick(list->viewport(), Qt::LeftButton, {}, at);
        };
        const auto currentPath = [&t] {
            return t.view->currentIndex().data(FilesModel::PathRole).toByteArray().toStdString();
        };

        // Deep in the listed folder: its folders walked and expanded, no new row.
        doubleClick(deep);
        QTRY_COMPARE_WITH_TIMEOUT(currentPath(), deep, longWaitMs);
        const QModelIndex current = t.view->currentIndex();
        QVERIFY(current.parent().isValid());
        QVERIFY(t.view->isExpanded(current.parent()));
        QVERIFY(t.view->isExpanded(current.parent().parent()));
        QCOMPARE(t.view->selectionModel()->selectedRows(), QModelIndexList{current});
        QVERIFY(t.view->viewport()->rect().intersects(t.view->visualRect(current)));
        QCOMPARE(t.model->rowCount(), 2);

        // A row of its own already: that one.
        doubleClick(solo);
        QCOMPARE(currentPath(), solo);
        QCOMPARE(t.view->currentIndex(), t.rowOf(solo));
        QCOMPARE(t.model->rowCount(), 2);

        // Listed nowhere: added.
        doubleClick(other);
        QTRY_COMPARE_WITH_TIMEOUT(t.model->rowCount(), 3, longWaitMs);
        QCOMPARE(currentPath(), other);
    }

    // Residency the kernel hides is shown as "hidden", never as a number.
    void hiddenIsNeverANumber()
    {
        FilesModel model;
        const QModelIndex file = model.addItem("/somewhere/secret.db", false);
        Residency hidden;
        hidden.method = ResidencyMethod::Cachestat;
        hidden.hidden = true;
        hidden.hiddenReason = "not your file and not writable by you";
        hidden.sizeBytes = 1 << 20;
        hidden.pages = (1 << 20) / pageSize();
        hidden.resident = hidden.pages; // what mincore would have claimed
        model.setFileResidency(model.node(file), hidden, nullptr);

        for (int column : {FilesModel::CachedColumn, FilesModel::CachedPercentColumn}) {
            QCOMPARE(file.siblingAtColumn(column).data().toString(), QStringLiteral("hidden"));
        }
        QCOMPARE(file.siblingAtColumn(FilesModel::DirtyColumn).data().toString(), QString());
        QVERIFY(file.data(FilesModel::HiddenRole).toBool());
        QCOMPARE(file.siblingAtColumn(FilesModel::CachedColumn).data(FilesModel::SortRole).toDouble(), -1.0);
        QVERIFY(file.data(Qt::ToolTipRole).toString().contains(QStringLiteral("not your file")));

        // A folder whose files are all hidden, and one where some are.
        const QModelIndex folder = model.addItem("/somewhere/else", true);
        FolderScan scan;
        scan.root = "/somewhere/else";
        scan.total.files = 3;
        scan.total.pages = 300;
        scan.total.hiddenFiles = 3;
        scan.total.hiddenPages = 300;
        model.applyFolderScan(scan);
        QCOMPARE(folder.siblingAtColumn(FilesModel::CachedColumn).data().toString(), QStringLiteral("hidden"));
        QVERIFY(folder.data(FilesModel::HiddenRole).toBool());
        scan.total.hiddenFiles = 1;
        scan.total.hiddenPages = 100;
        scan.total.resident = 50;
        model.applyFolderScan(scan);
        QCOMPARE(folder.siblingAtColumn(FilesModel::CachedPercentColumn).data().toString(), QStringLiteral("25% · 1 hidden"));
        QVERIFY(!folder.data(FilesModel::HiddenRole).toBool());
    }

    // For real: a file of root's that cachescope-user may read but not write
    // shows "hidden" in that user's panel, and the privileged button appears, disabled.
    void hiddenForAnotherUser()
    {
        if (qEnvironmentVariableIsSet("CACHESCOPE_FILESPANEL_CHILD")) {
            QSKIP("the child run does this");
        }
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the cachescope-user of the dev root");
        }
        const std::string dir = TestUtil::scratchDir("filespanel-hidden");
        const std::string path = dir + "/roots-file.bin";
        TestUtil::makeColdFile(path, 64 * pageSize());
        QCOMPARE(chmod(dir.c_str(), 0755), 0);
        QCOMPARE(chmod(path.c_str(), 0644), 0);
        // The user must reach the file through every folder above it.
        if (const std::string closed = TestUtil::whyOthersCannotReach(dir); !closed.empty()) {
            QSKIP(closed.c_str());
        }
        const TestUtil::RunResult r = TestUtil::run(QStringLiteral("runuser"),
                                                    {QStringLiteral("-u"),
                                                     QLatin1String(TestUtil::testUserName),
                                                     QStringLiteral("--"),
                                                     QStringLiteral("env"),
                                                     QStringLiteral("QT_QPA_PLATFORM=offscreen"),
                                                     QStringLiteral("CACHESCOPE_FILESPANEL_CHILD=") + QString::fromStdString(path),
                                                     QCoreApplication::applicationFilePath(),
                                                     QStringLiteral("childShowsHidden")});
        QVERIFY2(!r.timedOut && r.exitCode == 0, r.out.constData());
        QVERIFY2(r.out.contains("PASS   : FilesPanelTest::childShowsHidden"), r.out.constData());
    }

    // Runs in the child process of hiddenForAnotherUser, as cachescope-user.
    void childShowsHidden()
    {
        const QByteArray path = qgetenv("CACHESCOPE_FILESPANEL_CHILD");
        if (path.isEmpty()) {
            QSKIP("run by hiddenForAnotherUser");
        }
        QVERIFY(getuid() != 0);
        PanelUnderTest t;
        t.panel.inspectUrls({QUrl::fromLocalFile(QString::fromLocal8Bit(path))});
        const QModelIndex row = t.rowOf(path.toStdString());
        QVERIFY(row.isValid());
        QCOMPARE(t.text(row, FilesModel::CachedColumn), QStringLiteral("hidden"));
        QCOMPARE(t.text(row, FilesModel::CachedPercentColumn), QStringLiteral("hidden"));
        QVERIFY(row.data(FilesModel::HiddenRole).toBool());
        t.view->setCurrentIndex(row);
        // The detail heatmap shows it hatched, and the way to the helper is there but disabled.
        auto *heatmap = t.panel.findChild<HeatmapWidget *>(QStringLiteral("detailHeatmap"));
        QVERIFY(heatmap);
        QCOMPARE(heatmap->file(), path.toStdString());
        QTRY_VERIFY(heatmap->isResidencyHidden());
        QAction *privileged = t.action("file_show_privileged");
        QVERIFY(!privileged->isEnabled());
        QVERIFY(privileged->toolTip().contains(QStringLiteral("privileged helper")));
    }

    // Visible rows follow the page cache at the refresh interval.
    void visibleRowsRefreshLive()
    {
        const std::string dir = TestUtil::scratchDir("filespanel-live");
        const std::string path = dir + "/live.bin";
        const uint64_t page = pageSize();
        TestUtil::makeColdFile(path, 64 * page);
        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(path)});
        const QModelIndex row = t.rowOf(path);
        QCOMPARE(row.siblingAtColumn(FilesModel::CachedColumn).data(FilesModel::SortRole).toDouble(), 0.0);
        t.panel.setRefreshInterval(100);
        t.panel.setPaused(false);
        const TestUtil::HeldPages half(path, 0, 32 * page);
        QTRY_COMPARE_WITH_TIMEOUT(row.siblingAtColumn(FilesModel::CachedColumn).data(FilesModel::SortRole).toDouble(), 32.0, 5000);
    }

    // Snapshots: the File menu's actions, and what they need.
    void snapshotActionsNeedAList()
    {
        PanelUnderTest t;
        for (const char *name : {"file_save_snapshot", "file_compare_snapshot", "file_restore_snapshot", "file_stop_comparing"}) {
            QVERIFY2(t.action(name), name);
            QVERIFY2(!t.action(name)->icon().isNull(), name);
        }
        QCOMPARE(t.action("file_save_snapshot")->text(), QStringLiteral("Save Snapshot…"));
        QCOMPARE(t.action("file_compare_snapshot")->text(), QStringLiteral("Compare with Snapshot…"));
        QCOMPARE(t.action("file_restore_snapshot")->text(), QStringLiteral("Restore Snapshot…"));
        // An empty list has nothing to record or compare; restoring needs no list.
        QVERIFY(!t.action("file_save_snapshot")->isEnabled());
        QVERIFY(!t.action("file_compare_snapshot")->isEnabled());
        QVERIFY(t.action("file_restore_snapshot")->isEnabled());
        QVERIFY(!t.action("file_stop_comparing")->isEnabled());
        SnapshotTree tree("filespanel-snapshot-actions");
        tree.inspect(t.panel);
        QVERIFY(t.action("file_save_snapshot")->isEnabled());
        QVERIFY(t.action("file_compare_snapshot")->isEnabled());
        QVERIFY(t.view->header()->isSectionHidden(FilesModel::ChangeColumn));
    }

    // What Save Snapshot writes is what core reads, page for page, and the CLI reads it too.
    void snapshotSavedAsCoreAndTheCliRead()
    {
        const uint64_t page = pageSize();
        SavedSnapshot s("filespanel-snapshot-save");
        const SnapshotTree &tree = s.tree;
        const std::string &file = s.file;
        QVERIFY2(s.saved.contains(QStringLiteral("Saved a snapshot of 3 files (%1 cached) to ").arg(shownBytes(40 * page)) + QString::fromStdString(file)),
                 qPrintable(s.saved));
        QCOMPARE(s.messages.at(0).at(1).toBool(), false);

        std::string error;
        const std::optional<Snapshot> read = readSnapshotFile(file, &error);
        QVERIFY2(read, error.c_str());
        QCOMPARE(read->pageSize, page);
        QCOMPARE(read->files.size(), size_t(3));
        const std::map<std::string, PageRange> expected{{tree.a, {0, 16}}, {tree.b, {8, 8}}, {tree.c, {0, 16}}};
        for (const auto &[path, range] : expected) {
            const SnapshotFile *recorded = read->find(path);
            QVERIFY2(recorded, path.c_str());
            QCOMPARE(recorded->ranges.size(), size_t(1));
            QCOMPARE(recorded->ranges.front(), range);
            // And the kernel agrees: those pages, and no others.
            QCOMPARE(TestUtil::pagesNow(path, range.first * page, range.count * page).resident, range.count);
            QCOMPARE(TestUtil::pagesNow(path).resident, range.count);
            struct stat st;
            QCOMPARE(stat(path.c_str(), &st), 0);
            QCOMPARE(recorded->size, uint64_t(st.st_size));
            QCOMPARE(recorded->mtimeNs, int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
        }
        // The CLI reads it as its own: no difference between it and itself.
        const QString q = QString::fromStdString(file);
        const TestUtil::RunResult cli =
            TestUtil::run(TestUtil::cliPath(), {QStringLiteral("snapshot"), QStringLiteral("diff"), QStringLiteral("--json"), q, q});
        QCOMPARE(cli.exitCode, 0);
        const QJsonObject diff = TestUtil::jsonObjectOf(cli);
        QCOMPARE(diff.value(QLatin1String("loaded_pages")).toInteger(-1), 0);
        QCOMPARE(diff.value(QLatin1String("evicted_pages")).toInteger(-1), 0);
    }

    // Compare after an eviction and a load: the rows say what went out and
    // what came in, the heatmap marks the pages, Stop Comparing leaves.
    void snapshotComparedInRowsAndHeatmap()
    {
        const uint64_t page = pageSize();
        SavedSnapshot s("filespanel-snapshot-compare");
        SnapshotTree &tree = s.tree;
        PanelUnderTest &t = s.t;
        QVERIFY2(s.saved.startsWith(QStringLiteral("Saved")), qPrintable(s.saved));

        // Since the snapshot: all of a went out, pages 20 to 23 of b came in.
        tree.evict(tree.a);
        tree.hold(tree.b, 20, 4);
        t.panel.compareWithSnapshot(QString::fromStdString(s.file));
        QTRY_VERIFY_WITH_TIMEOUT(t.panel.isComparing(), longWaitMs);
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        QVERIFY(!t.view->header()->isSectionHidden(FilesModel::ChangeColumn));
        QCOMPARE(t.model->headerData(FilesModel::ChangeColumn, Qt::Horizontal).toString(), QStringLiteral("Since Snapshot"));
        QVERIFY(t.action("file_stop_comparing")->isEnabled());

        QCOMPARE(sinceSnapshot(t.rowOf(tree.folder)), QStringLiteral("+%1 −%2").arg(shownBytes(4 * page), shownBytes(16 * page)));
        QCOMPARE(sinceSnapshot(t.rowOf(tree.c)), QStringLiteral("no change"));
        const QModelIndex a = t.expandTo({tree.folder, tree.a});
        QVERIFY(a.isValid());
        QCOMPARE(sinceSnapshot(a), QStringLiteral("−%1").arg(shownBytes(16 * page)));
        const QString tip = a.siblingAtColumn(FilesModel::ChangeColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("Evicted since the snapshot: 16 pages")), qPrintable(tip));
        const QModelIndex b = t.expandTo({tree.folder, tree.folder + "/sub", tree.b});
        QVERIFY(b.isValid());
        QCOMPARE(sinceSnapshot(b), QStringLiteral("+%1").arg(shownBytes(4 * page)));
        auto *bar = t.panel.findChild<QWidget *>(QStringLiteral("compareBar"));
        QVERIFY(bar);
        QTRY_VERIFY(bar->isVisible());

        // The heatmap of a: one cell a page, the first 16 evicted since, none newly cached.
        auto *heatmap = t.panel.findChild<HeatmapWidget *>(QStringLiteral("detailHeatmap"));
        QVERIFY(heatmap);
        t.view->setCurrentIndex(a);
        QTRY_VERIFY_WITH_TIMEOUT(heatmap->showsComparison(), longWaitMs);
        QCOMPARE(heatmap->cellCount(), 64);
        for (int cell = 0; cell < 64; ++cell) {
            QCOMPARE(heatmap->cellEvictedSincePages(cell), uint64_t(cell < 16 ? 1 : 0));
            QCOMPARE(heatmap->cellNewlyCachedPages(cell), uint64_t(0));
        }
        QVERIFY(heatmap->visibleTexts().contains(QStringLiteral("Evicted since the snapshot")));
        QVERIFY2(heatmap->toolTipForCell(3).contains(QStringLiteral("Evicted since: 1 page")), qPrintable(heatmap->toolTipForCell(3)));
        // b: 20 to 23 newly cached, 8 to 15 cached then and now.
        t.view->setCurrentIndex(b);
        QTRY_VERIFY_WITH_TIMEOUT(heatmap->showsComparison() && heatmap->cellCount() == 32, longWaitMs);
        for (int cell = 0; cell < 32; ++cell) {
            QCOMPARE(heatmap->cellNewlyCachedPages(cell), uint64_t(cell >= 20 && cell < 24 ? 1 : 0));
            QCOMPARE(heatmap->cellEvictedSincePages(cell), uint64_t(0));
            QCOMPARE(heatmap->cellResidentPages(cell), uint64_t((cell >= 8 && cell < 16) || (cell >= 20 && cell < 24) ? 1 : 0));
        }

        // Leaving: no column, no bar, a plain heatmap.
        t.action("file_stop_comparing")->trigger();
        QVERIFY(!t.panel.isComparing());
        QVERIFY(t.view->header()->isSectionHidden(FilesModel::ChangeColumn));
        QTRY_VERIFY(!bar->isVisible());
        QTRY_VERIFY(!heatmap->showsComparison());
        QVERIFY(!heatmap->visibleTexts().contains(QStringLiteral("Evicted since the snapshot")));
        QVERIFY(!t.action("file_stop_comparing")->isEnabled());
    }

    // Restore loads the recorded pages back, and no others.
    void snapshotRestoreBringsPagesBack()
    {
        const uint64_t page = pageSize();
        SavedSnapshot s("filespanel-snapshot-restore");
        SnapshotTree &tree = s.tree;
        QSignalSpy &messages = s.messages;
        const std::string &file = s.file;
        QVERIFY2(s.saved.startsWith(QStringLiteral("Saved")), qPrintable(s.saved));
        for (const std::string &path : {tree.a, tree.b, tree.c}) {
            tree.evict(path);
            QCOMPARE(TestUtil::pagesNow(path).resident, uint64_t(0));
        }

        const qsizetype before = messages.count();
        s.t.panel.restoreSnapshot(QString::fromStdString(file));
        const QString text = nextMessage(messages, before);
        // Loaded pages may be reclaimed again at once (DAMON): counted with their shadow entries.
        QCOMPARE(TestUtil::pagesNow(tree.a, 0, 16 * page).residentOrReclaimed(), uint64_t(16));
        QCOMPARE(TestUtil::pagesNow(tree.a).residentOrReclaimed(), uint64_t(16));
        QCOMPARE(TestUtil::pagesNow(tree.b, 8 * page, 8 * page).residentOrReclaimed(), uint64_t(8));
        QCOMPARE(TestUtil::pagesNow(tree.b).residentOrReclaimed(), uint64_t(8));
        QCOMPARE(TestUtil::pagesNow(tree.c).residentOrReclaimed(), uint64_t(16));
        QVERIFY2(text.contains(QStringLiteral("Restored 3 files from ") + QString::fromStdString(file)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("of their 40 recorded pages are cached now")), qPrintable(text));
        QCOMPARE(messages.at(before).at(1).toBool(), false);
    }

    // Cancel: a save of 20,000 files writes no file; a restore of 128 MiB
    // stops before the end, and says so.
    void snapshotSaveAndRestoreCancel()
    {
        const uint64_t page = pageSize();
        const std::string dir = TestUtil::scratchDir("filespanel-snapshot-cancel");
        const std::string many = dir + "/many";
        for (int f = 0; f < 100; ++f) {
            const std::string folder = many + "/d" + std::to_string(f);
            std::filesystem::create_directories(folder);
            for (int i = 0; i < 200; ++i) {
                std::ofstream(folder + "/f" + std::to_string(i));
            }
        }
        PanelUnderTest t;
        t.panel.inspectUrls({urlOf(many)});
        QTRY_VERIFY_WITH_TIMEOUT(!t.panel.isBusy(), longWaitMs);
        QSignalSpy messages(&t.panel, &FilesPanel::message);
        const std::string file = dir + "/cancelled.json";
        t.panel.saveSnapshot(QString::fromStdString(file));
        QVERIFY(t.panel.isBusy());
        QVERIFY(t.action("file_cancel")->isEnabled());
        t.action("file_cancel")->trigger();
        QString text = nextMessage(messages, 0);
        QVERIFY2(text.contains(QStringLiteral("cancelled")) && text.contains(QString::fromStdString(file)), qPrintable(text));
        QVERIFY(!std::filesystem::exists(file));

        // A snapshot of a whole 128 MiB file, cached in none of it now.
        const std::string big = dir + "/big.bin";
        const uint64_t pages = (128 << 20) / page;
        TestUtil::makeColdFile(big, pages * page);
        struct stat st;
        QCOMPARE(stat(big.c_str(), &st), 0);
        Snapshot snapshot;
        snapshot.pageSize = page;
        snapshot.created = QStringLiteral("2026-01-01T00:00:00Z");
        snapshot.files.push_back({big, uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec, {{0, pages}}});
        const std::string saved = dir + "/big.json";
        std::string error;
        QVERIFY2(writeSnapshotFile(saved, snapshot, &error), error.c_str());
        t.panel.restoreSnapshot(QString::fromStdString(saved));
        t.action("file_cancel")->trigger();
        text = nextMessage(messages, 1);
        QVERIFY2(text.contains(QStringLiteral("was cancelled")), qPrintable(text));
        QVERIFY(TestUtil::pagesNow(big).residentOrReclaimed() < pages);
        TestUtil::evictRaw(big);
    }

    // A file that is no snapshot, or no file: a message with its path and
    // the reason, for Compare and for Restore, and nothing else happens.
    void badSnapshotFilesAreNamed_data()
    {
        QTest::addColumn<QByteArray>("content"); // empty: no file at all
        QTest::addColumn<QString>("reason");
        QTest::newRow("not JSON") << QByteArray("{\"format\": \"cachescope-snapshot\", ")
                                  << QStringLiteral("not a Cachescope snapshot: not valid JSON at byte");
        QTest::newRow("another format") << QByteArray(R"({"format":"vmtouch","version":1})")
                                        << QStringLiteral("not a Cachescope snapshot: \"format\" is not \"cachescope-snapshot\"");
        QTest::newRow("a range past the end") << QByteArray(
            R"({"format":"cachescope-snapshot","version":1,"page_size":4096,"created":"x","files":[{"path":"/x","size":4096,"mtime_ns":1,"ranges":[[0,9]]}]})")
                                              << QStringLiteral("goes past the end of the file");
        QTest::newRow("missing") << QByteArray() << QString::fromStdString(errnoText(ENOENT));
    }

    void badSnapshotFilesAreNamed()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, reason);
        SnapshotTree tree("filespanel-snapshot-bad");
        const QString file = QString::fromStdString(tree.dir + "/bad.json");
        if (!content.isEmpty()) {
            std::ofstream(file.toStdString()) << content.toStdString();
        }
        PanelUnderTest t;
        tree.inspect(t.panel);
        QSignalSpy messages(&t.panel, &FilesPanel::message);
        for (const bool compare : {true, false}) {
            const qsizetype before = messages.count();
            if (compare) {
                t.panel.compareWithSnapshot(file);
            } else {
                t.panel.restoreSnapshot(file);
            }
            const QString text = nextMessage(messages, before);
            QVERIFY2(text.startsWith(QStringLiteral("Cannot read the snapshot ") + file + QStringLiteral(": ")), qPrintable(text));
            QVERIFY2(text.contains(reason), qPrintable(text));
            QCOMPARE(messages.at(before).at(1).toBool(), true);
            QVERIFY(!t.panel.isComparing());
            QVERIFY(t.view->header()->isSectionHidden(FilesModel::ChangeColumn));
        }
    }
};

QTEST_MAIN(FilesPanelTest)

#include "filespaneltest.moc"
