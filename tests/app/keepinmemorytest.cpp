// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Keep in Memory in the files panel, on real files in a disk-backed scratch
// folder: the action locks the selected file (its pages stay through an
// eviction), the list shows a pin, unchecking, removing the row and closing
// the panel each release it, and RLIMIT_MEMLOCK refuses with the numbers in
// the panel's message bar.

#include "files/filesmodel.h"
#include "files/filespanel.h"
#include "format.h"

#include "testutil.h"

#include <KActionCollection>
#include <KMessageWidget>

#include <QAction>
#include <QSortFilterProxyModel>
#include <QTest>
#include <QTreeView>
#include <QUrl>

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace Cachescope;
using namespace Cachescope::App;

namespace
{
const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));

// CAP_IPC_LOCK in this process's effective set, on or off (root's tests turn
// it off to meet RLIMIT_MEMLOCK as a user would, and back on after).
bool setIpcLock(bool on)
{
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capget, &header, data) != 0) {
        return false;
    }
    if (on) {
        data[0].effective |= 1u << CAP_IPC_LOCK;
    } else {
        data[0].effective &= ~(1u << CAP_IPC_LOCK);
    }
    return syscall(SYS_capset, &header, data) == 0;
}

struct PanelUnderTest {
    std::unique_ptr<FilesPanel> panel = std::make_unique<FilesPanel>();
    KActionCollection collection{panel.get(), QStringLiteral("cachescope")};
    QTreeView *view = nullptr;
    QAction *keep = nullptr;

    PanelUnderTest()
    {
        panel->setUpActions(&collection);
        panel->setPaused(true);
        panel->resize(1000, 700);
        panel->show();
        view = panel->findChild<QTreeView *>(QStringLiteral("filesView"));
        keep = collection.action(QStringLiteral("file_keep_in_memory"));
    }

    // Adds path and selects its row.
    bool select(const std::string &path)
    {
        panel->inspectUrls({QUrl::fromLocalFile(QString::fromStdString(path))});
        if (!QTest::qWaitFor(
                [&] {
                    return view->model()->rowCount() > 0;
                },
                10000)) {
            return false;
        }
        view->setCurrentIndex(view->model()->index(0, 0));
        return true;
    }

    [[nodiscard]] QString iconName() const
    {
        return view->model()->index(0, 0).data(Qt::DecorationRole).value<QIcon>().name();
    }
};
} // namespace

class KeepInMemoryTest : public QObject
{
    Q_OBJECT

private:
    std::string m_file;

private Q_SLOTS:
    void init()
    {
        m_file = TestUtil::scratchDir("keepinmemory") + "/kept";
        TestUtil::makeColdFile(m_file, 200 * page);
    }

    void keepShowsAPinAndHoldsThePages()
    {
        PanelUnderTest t;
        QVERIFY(t.keep && t.keep->isCheckable());
        QVERIFY(t.select(m_file));
        QTRY_VERIFY(t.keep->isEnabled());
        QVERIFY(!t.keep->isChecked());
        t.keep->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(t.iconName(), QStringLiteral("window-pin"), 20000);
        QVERIFY(t.keep->isChecked());
        QVERIFY(t.view->model()->index(0, 0).data(Qt::ToolTipRole).toString().contains(QLatin1String("Kept in memory")));
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(200));
        TestUtil::adviseDontNeed(m_file);
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(200));
        auto *message = t.panel->findChild<KMessageWidget *>(QStringLiteral("filesMessage"));
        QVERIFY(message);
        QTRY_VERIFY(message->text().contains(QLatin1String("Keeping 1 file (800.0 KiB) in memory")));

        // Unchecked: released, and the pin goes.
        t.keep->trigger();
        QVERIFY(!t.keep->isChecked());
        QVERIFY(t.iconName() != QLatin1String("window-pin"));
        TestUtil::adviseDontNeed(m_file);
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(0));
    }

    // Keeping reads the file in: its row and the folder above it show the
    // new figures at once, as after Load (the panel is paused: no live
    // refresh does it for them).
    void keepingUpdatesTheFolderAbove()
    {
        const std::string folder = TestUtil::scratchDir("keepinmemory-folder");
        const std::string file = folder + "/kept";
        TestUtil::makeColdFile(file, 100 * page);
        PanelUnderTest t;
        QVERIFY(t.select(folder));
        const QModelIndex top = t.view->model()->index(0, 0);
        const auto cachedText = [&](const QModelIndex &row) {
            return row.siblingAtColumn(FilesModel::CachedColumn).data().toString();
        };
        QTRY_COMPARE_WITH_TIMEOUT(cachedText(top), QStringLiteral("0 B"), 10000);
        t.view->expand(top);
        QTRY_COMPARE_WITH_TIMEOUT(t.view->model()->rowCount(top), 1, 10000);
        t.view->setCurrentIndex(t.view->model()->index(0, 0, top));
        QTRY_VERIFY(t.keep->isEnabled());
        t.keep->trigger();
        const QString kept = formatBytes(100 * page, ByteStyle::OneDecimal, QLocale());
        QTRY_COMPARE_WITH_TIMEOUT(cachedText(t.view->model()->index(0, 0, top)), kept, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(cachedText(top), kept, 20000);
        t.view->setCurrentIndex(t.view->model()->index(0, 0, top));
        t.keep->trigger();
        QVERIFY(!t.keep->isChecked());
    }

    // Evicting a file the window keeps says why its pages stay: Cachescope's
    // own pin, not "mapped by a running program".
    void evictingAKeptFileNamesThePin()
    {
        PanelUnderTest t;
        QVERIFY(t.select(m_file));
        QTRY_VERIFY(t.keep->isEnabled());
        t.keep->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(t.iconName(), QStringLiteral("window-pin"), 20000);
        auto *message = t.panel->findChild<KMessageWidget *>(QStringLiteral("filesMessage"));
        QVERIFY(message);
        QTRY_VERIFY(message->text().contains(QLatin1String("Keeping 1 file")));
        t.view->setCurrentIndex(t.view->model()->index(0, 0));
        QAction *evict = t.collection.action(QStringLiteral("file_evict"));
        QTRY_VERIFY(evict->isEnabled());
        evict->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(message->text().contains(QLatin1String("Nothing was evicted")), 20000);
        QVERIFY2(message->text().contains(QLatin1String("800.0 KiB in 1 file is kept in memory by Cachescope (Keep in Memory)")), qPrintable(message->text()));
        QVERIFY2(!message->text().contains(QLatin1String("mapped by a running program")), qPrintable(message->text()));
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(200));
        t.keep->trigger();
    }

    void removingTheRowOrClosingReleases()
    {
        {
            PanelUnderTest t;
            QVERIFY(t.select(m_file));
            QTRY_VERIFY(t.keep->isEnabled());
            t.keep->trigger();
            QTRY_COMPARE_WITH_TIMEOUT(t.iconName(), QStringLiteral("window-pin"), 20000);
            t.view->selectionModel()->select(t.view->model()->index(0, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            t.collection.action(QStringLiteral("file_remove"))->trigger();
            QCOMPARE(t.view->model()->rowCount(), 0);
            TestUtil::adviseDontNeed(m_file);
            QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(0));

            // Kept again, then the panel (the window) goes.
            QVERIFY(t.select(m_file));
            QTRY_VERIFY(t.keep->isEnabled());
            t.keep->trigger();
            QTRY_COMPARE_WITH_TIMEOUT(t.iconName(), QStringLiteral("window-pin"), 20000);
            TestUtil::adviseDontNeed(m_file);
            QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(200));
        }
        TestUtil::adviseDontNeed(m_file);
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(0));
    }

    void theLimitRefusesWithTheNumbers()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("sets its own RLIMIT_MEMLOCK below a file and turns CAP_IPC_LOCK off and on: needs root");
        }
        struct rlimit saved{};
        getrlimit(RLIMIT_MEMLOCK, &saved);
        struct rlimit low = {64 * 1024, saved.rlim_max};
        QCOMPARE(setrlimit(RLIMIT_MEMLOCK, &low), 0);
        QVERIFY(setIpcLock(false));
        PanelUnderTest t;
        QVERIFY(t.select(m_file));
        QTRY_VERIFY(t.keep->isEnabled());
        t.keep->trigger();
        auto *message = t.panel->findChild<KMessageWidget *>(QStringLiteral("filesMessage"));
        QVERIFY(message);
        const bool refused = QTest::qWaitFor(
            [&] {
                return message->text().contains(QLatin1String("RLIMIT_MEMLOCK allows 64.0 KiB"));
            },
            20000);
        const QString text = message->text();
        const KMessageWidget::MessageType type = message->messageType();
        QVERIFY(setIpcLock(true));
        QCOMPARE(setrlimit(RLIMIT_MEMLOCK, &saved), 0);
        QVERIFY2(refused, qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("needs 800.0 KiB")), qPrintable(text));
        QCOMPARE(type, KMessageWidget::Error);
        QVERIFY(t.iconName() != QLatin1String("window-pin"));
        QVERIFY(!t.keep->isChecked());
    }
};

QTEST_MAIN(KeepInMemoryTest)
#include "keepinmemorytest.moc"
