// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The Applications tab on fixture trees (tests/support/cgrouptree.h): rows, the
// total, sorting (natural, total last), names and icons from desktop files,
// the message where the hierarchy is missing or applications cannot be
// named, the cgroups read only while the tab is shown, the reclaim action
// (disabled with the reason, through memory.reclaim, through a helper), and
// screenshots to look at (run under Xvfb: <build>/screenshots/applications*.png).

#include "applications/applicationsview.h"
#include "applications/applicationsmodel.h"
#include "cgrouptree.h"
#include "mainwindow.h"
#include "memory/memorypanel.h"
#include "memory/memorysampler.h"
#include "testutil.h"

#include <KMessageWidget>

#include <QAction>
#include <QDir>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

using namespace Cachescope;
using namespace Cachescope::App;
using namespace CgroupTree;

namespace
{

QString screenshotDir()
{
    const QString fromEnvironment = qEnvironmentVariable("CACHESCOPE_SCREENSHOT_DIR");
    return !fromEnvironment.isEmpty() ? fromEnvironment : QDir(QStringLiteral(CACHESCOPE_TEST_SCRATCH "/..")).absoluteFilePath(QStringLiteral("screenshots"));
}

QStringList columnTexts(const QAbstractItemModel *model, int column)
{
    QStringList texts;
    for (int row = 0; row < model->rowCount(); ++row) {
        texts << model->index(row, column).data().toString();
    }
    return texts;
}

Cgroups::ApplicationCache unitRow(const std::string &name, uint64_t file)
{
    Cgroups::ApplicationCache row;
    row.kind = Cgroups::GroupKind::SystemService;
    row.name = name;
    row.cgroupPath = "/system.slice/" + name;
    row.stats.file = file;
    return row;
}

} // namespace

class ApplicationsViewTest : public QObject
{
    Q_OBJECT

private:
    std::string m_scratch;
    std::string m_desktop;
    std::string m_v1;
    std::string m_proc;

    Cgroups::ApplicationsReport desktopReport() const
    {
        Cgroups::ApplicationsSampler sampler(m_proc, m_desktop);
        return sampler.sample(1.0);
    }

    void saveScreenshot(QWidget *window, const QString &name)
    {
        if (QGuiApplication::platformName() != QLatin1String("xcb")) {
            return; // offscreen pictures are not what a user sees
        }
        QDir().mkpath(screenshotDir());
        const QString path = screenshotDir() + QLatin1Char('/') + name;
        QVERIFY2(window->grab().toImage().save(path), qPrintable(path));
        qInfo() << "saved" << path;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        m_scratch = TestUtil::scratchDir("applicationsviewtest");
        m_desktop = m_scratch + "/desktop";
        makeDesktopTree(m_desktop);
        m_v1 = m_scratch + "/v1";
        makeV1Tree(m_v1);
        m_proc = m_scratch + "/proc";
        makeMemInfo(m_proc);
        // A desktop file for Konsole's scope, where KService finds it.
        const QString applications = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/applications");
        QDir().mkpath(applications);
        QFile desktopFile(applications + QStringLiteral("/org.kde.konsole.desktop"));
        QVERIFY(desktopFile.open(QIODevice::WriteOnly));
        desktopFile.write("[Desktop Entry]\nType=Application\nName=Konsole Test Terminal\nComment=Command line\nIcon=utilities-terminal\nExec=true\n");
        desktopFile.close();
    }

    void rowsAndTotal()
    {
        ApplicationsModel model;
        QCOMPARE(model.rowCount(), 0);
        model.setReport(desktopReport());
        QCOMPARE(model.rowCount(), 13); // 12 cgroups and the total
        const QModelIndex total = model.index(12, ApplicationsModel::NameColumn);
        QVERIFY(total.data(ApplicationsModel::IsTotalRole).toBool());
        QCOMPARE(total.data().toString(), QStringLiteral("Total of 12 rows"));
        QCOMPARE(model.index(12, ApplicationsModel::PageCacheColumn).data().toString(), QStringLiteral("541.0 MiB"));
        QVERIFY(total.data(Qt::ToolTipRole).toString().contains(QStringLiteral("700.0 MiB")));
        // Konsole, named and iconed from its desktop file; refaults unknown
        // from one sample; the fixture's pressure.
        const int konsole = model.rowOfCgroup(QString::fromStdString(userManager) + QStringLiteral("/app.slice/app-org.kde.konsole-4242.scope"));
        QVERIFY(konsole >= 0);
        QCOMPARE(model.index(konsole, ApplicationsModel::NameColumn).data().toString(), QStringLiteral("Konsole Test Terminal"));
        QCOMPARE(model.index(konsole, ApplicationsModel::NameColumn).data(Qt::DecorationRole).value<QIcon>().name(), QStringLiteral("utilities-terminal"));
        QVERIFY(model.index(konsole, ApplicationsModel::NameColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Command line")));
        QCOMPARE(model.index(konsole, ApplicationsModel::PageCacheColumn).data().toString(), QStringLiteral("40.0 MiB"));
        QCOMPARE(model.index(konsole, ApplicationsModel::RefaultsColumn).data().toString(), QStringLiteral("–"));
        QCOMPARE(model.index(konsole, ApplicationsModel::PressureColumn).data().toString(), QStringLiteral("0.50 %"));
        QCOMPARE(model.index(konsole, ApplicationsModel::LimitColumn).data().toString(), QStringLiteral("None"));
        // Without a desktop file: the desktop file id.
        const int firefox = model.rowOfCgroup(QString::fromStdString(userManager) + QStringLiteral("/app.slice/app-flatpak-org.mozilla.firefox-9.scope"));
        QCOMPARE(model.index(firefox, ApplicationsModel::NameColumn).data().toString(), QStringLiteral("org.mozilla.firefox"));
        // A second report of the same cgroups changes figures in place.
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        model.setReport(desktopReport());
        QCOMPARE(resets.count(), 0);
    }

    void sorting()
    {
        ApplicationsModel model;
        ApplicationsSortModel sorted;
        sorted.setSourceModel(&model);
        model.setReport(desktopReport());
        sorted.sort(ApplicationsModel::PageCacheColumn, Qt::DescendingOrder);
        QStringList names = columnTexts(&sorted, ApplicationsModel::NameColumn);
        QCOMPARE(names.first(), QStringLiteral("org.mozilla.firefox"));
        QCOMPARE(names.last(), QStringLiteral("Total of 12 rows"));
        sorted.sort(ApplicationsModel::PageCacheColumn, Qt::AscendingOrder);
        names = columnTexts(&sorted, ApplicationsModel::NameColumn);
        QCOMPARE(names.last(), QStringLiteral("Total of 12 rows")); // last either way
        QCOMPARE(columnTexts(&sorted, ApplicationsModel::PageCacheColumn).at(names.size() - 2), QStringLiteral("300.0 MiB"));

        // Names: natural order, case ignored ("worker-9" before "worker-10").
        Cgroups::ApplicationsReport report;
        report.found = true;
        report.rows = {unitRow("worker-10.service", 1), unitRow("Worker-1.service", 2), unitRow("worker-9.service", 3)};
        model.setReport(report);
        sorted.sort(ApplicationsModel::NameColumn, Qt::AscendingOrder);
        QCOMPARE(columnTexts(&sorted, ApplicationsModel::NameColumn),
                 (QStringList{QStringLiteral("Worker-1.service"),
                              QStringLiteral("worker-9.service"),
                              QStringLiteral("worker-10.service"),
                              QStringLiteral("Total of 3 rows")}));
        sorted.sort(ApplicationsModel::NameColumn, Qt::DescendingOrder);
        QCOMPARE(columnTexts(&sorted, ApplicationsModel::NameColumn).first(), QStringLiteral("worker-10.service"));
        QCOMPARE(columnTexts(&sorted, ApplicationsModel::NameColumn).last(), QStringLiteral("Total of 3 rows"));
    }

    void messages()
    {
        ApplicationsView view;
        view.resize(800, 400);
        view.show();
        // No hierarchy at all.
        Cgroups::ApplicationsReport missing = Cgroups::readApplications(m_scratch + "/no-proc");
        view.setReport(missing);
        QVERIFY(view.messageWidget()->isVisibleTo(&view));
        QVERIFY2(view.messageWidget()->text().contains(QStringLiteral("No memory cgroup hierarchy")), qPrintable(view.messageWidget()->text()));
        QVERIFY(view.messageWidget()->text().contains(QString::fromStdString(m_scratch + "/no-proc/self/mountinfo")));
        QVERIFY(!view.view()->isVisibleTo(&view));
        // v1: rows, and why they are not applications.
        Cgroups::ApplicationsSampler sampler(m_proc, m_v1);
        view.setReport(sampler.sample(1.0));
        QVERIFY(view.view()->isVisibleTo(&view));
        QCOMPARE(view.model()->rowCount(), 3);
        QVERIFY2(view.messageWidget()->text().contains(QStringLiteral("cgroup v1")), qPrintable(view.messageWidget()->text()));
        QVERIFY(view.accountingLabel()->toolTip().contains(QStringLiteral("charged to the root cgroup itself")));
        // A systemd desktop: no message, the accounting under the list.
        view.setReport(desktopReport());
        QVERIFY(!view.messageWidget()->isVisibleTo(&view));
        QCOMPARE(view.accountingLabel()->text(),
                 QStringLiteral("Cached in /proc/meminfo: 700.0 MiB, in the rows: 541.0 MiB, elsewhere: 159.0 MiB (hover for where)"));
        QCOMPARE(view.accountingLabel()->toolTip(),
                 QStringLiteral("/proc/meminfo counts 700.0 MiB as cached, the rows 541.0 MiB. The other 159.0 MiB are charged elsewhere: 59.0 MiB charged "
                                "to the root cgroup itself (kernel threads, processes in no cgroup below it); pages of 3 removed cgroups still "
                                "charged to them; 10.0 MiB of shared memory and tmpfs, charged to whoever touched them first."));
        // With the Cache Map's account (on the real kernel): where the rest is.
        AccountOptions options;
        options.root = m_scratch;
        options.buffers = false;
        const auto account = std::make_shared<const CacheAccount>(accountCache(options));
        view.setCacheAccount(account);
        const QString tip = view.accountingLabel()->toolTip();
        QVERIFY2(tip.startsWith(QStringLiteral("/proc/meminfo counts 700.0 MiB")), qPrintable(tip));
        QVERIFY2(tip.contains(QStringLiteral("The Cache Map's account of the whole system")) && tip.contains(QStringLiteral(" unexplained")), qPrintable(tip));
        QVERIFY2(!tip.contains(QLatin1Char('<')), qPrintable(tip)); // a tooltip in plain text, no links
    }

    void readOnlyWhileShown()
    {
        MainWindow window(QString::fromStdString(m_proc));
        window.sampler()->setCgroupRoot(QString::fromStdString(m_desktop));
        ApplicationsView *view = window.applicationsView();
        QTabWidget *tabs = window.memoryPanel()->tabs();
        tabs->setCurrentIndex(0);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(!window.sampler()->applicationsEnabled());
        QCOMPARE(view->model()->rowCount(), 0); // nothing read while hidden
        tabs->setCurrentWidget(view);
        QTRY_VERIFY(window.sampler()->applicationsEnabled());
        QTRY_COMPARE(view->model()->rowCount(), 13);
        // The second sample gives the refault rates.
        window.sampler()->sampleNow();
        const int konsole = view->model()->rowOfCgroup(QString::fromStdString(userManager) + QStringLiteral("/app.slice/app-org.kde.konsole-4242.scope"));
        QTRY_COMPARE(view->model()->index(konsole, ApplicationsModel::RefaultsColumn).data().toString(), QStringLiteral("0.0"));
        QVERIFY(view->selectCgroup(QString::fromStdString(userManager) + QStringLiteral("/app.slice/app-org.kde.dolphin@b1c2.service")));
        saveScreenshot(&window, QStringLiteral("applications.png"));
        tabs->setCurrentIndex(0);
        QTRY_VERIFY(!window.sampler()->applicationsEnabled());

        // v1 without systemd: what there is, and why.
        window.sampler()->setCgroupRoot(QString::fromStdString(m_v1));
        tabs->setCurrentWidget(view);
        QTRY_COMPARE(view->model()->rowCount(), 3);
        QVERIFY(view->messageWidget()->isVisible());
        // Laid out above the list before the picture is taken.
        QTRY_VERIFY(view->messageWidget()->geometry().bottom() < view->view()->geometry().top());
        QTRY_VERIFY(view->messageWidget()->height() >= view->messageWidget()->heightForWidth(view->messageWidget()->width()));
        saveScreenshot(&window, QStringLiteral("applications-v1.png"));
    }

    // The machine's own hierarchy (v1 here): this process's cgroup is a row.
    void liveHierarchy()
    {
        std::string error;
        const std::optional<Cgroups::ProcessCgroup> own = Cgroups::processCgroup(0, "/proc", &error);
        if (Cgroups::memoryHierarchies("/proc", &error).empty() || !own) {
            QSKIP(error.c_str());
        }
        MainWindow window;
        ApplicationsView *view = window.applicationsView();
        window.memoryPanel()->tabs()->setCurrentWidget(view);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(view->model()->rowCount() >= 2);
        QTRY_VERIFY2(view->model()->rowOfCgroup(QString::fromStdString(own->path)) >= 0 || view->model()->report().applicationsNamed, own->path.c_str());
        QVERIFY(!view->accountingLabel()->text().isEmpty());
        saveScreenshot(&window, QStringLiteral("applications-this-machine.png"));
    }

    void reclaimAction()
    {
        ApplicationsView view;
        view.setReport(desktopReport());
        // Nothing selected, then the total: nothing to reclaim.
        QVERIFY(!view.reclaimAction()->isEnabled());
        view.view()->setCurrentIndex(view.sortModel()->index(view.sortModel()->rowCount() - 1, 0));
        QVERIFY(!view.reclaimAction()->isEnabled());
        // No memory.reclaim this user may write and no helper: disabled, with why.
        const QString dolphin = QString::fromStdString(userManager) + QStringLiteral("/app.slice/app-org.kde.dolphin@b1c2.service");
        QVERIFY(view.selectCgroup(dolphin));
        QVERIFY(!view.reclaimAction()->isEnabled());
        QVERIFY2(view.reclaimAction()->toolTip().contains(QStringLiteral("privileged helper")), qPrintable(view.reclaimAction()->toolTip()));

        // Through a helper: called with the cgroup's folder and its cache.
        QString helperCgroup;
        quint64 helperBytes = 0;
        view.setHelperReclaim([&](const QString &cgroup, quint64 bytes, const ApplicationsView::HelperReclaimDone &done) {
            helperCgroup = cgroup;
            helperBytes = bytes;
            done(QStringLiteral("refused by the test"), false);
        });
        QVERIFY(view.reclaimAction()->isEnabled());
        QSignalSpy messages(&view, &ApplicationsView::message);
        view.reclaimAction()->trigger();
        QCOMPARE(helperCgroup, dolphin);
        QCOMPARE(helperBytes, quint64(120) * 1024 * 1024);
        QCOMPARE(messages.count(), 1);
        QCOMPARE(messages.at(0).at(0).toString(), QStringLiteral("Could not reclaim the cache of org.kde.dolphin: refused by the test"));
        QCOMPARE(messages.at(0).at(1).toBool(), true);
        // Stopped at the helper's deadline: the figures, and that it was stopped.
        view.setHelperReclaim([&](const QString &, quint64, const ApplicationsView::HelperReclaimDone &done) {
            done(QString(), true);
        });
        view.reclaimAction()->trigger();
        QCOMPARE(messages.count(), 2);
        QCOMPARE(messages.at(1).at(0).toString(),
                 QStringLiteral("The page cache of org.kde.dolphin went from 120.0 MiB to 120.0 MiB; the kernel was still reclaiming after 10 seconds and "
                                "was stopped there (the application may be reading its files back in)."));
        QCOMPARE(messages.at(1).at(1).toBool(), false);

        // memory.reclaim the user may write (a delegated session): written
        // directly, asking for file pages only.
        view.setHelperReclaim({});
        const std::string reclaimFile = m_desktop + dolphin.toStdString() + "/memory.reclaim";
        writeText(reclaimFile, "");
        view.setReport(desktopReport());
        QVERIFY(view.selectCgroup(dolphin));
        QVERIFY(view.reclaimAction()->isEnabled());
        view.reclaimAction()->trigger();
        QTRY_COMPARE(messages.count(), 3);
        QCOMPARE(QString::fromStdString(readText(reclaimFile)), QStringLiteral("125829120 swappiness=0"));
        QCOMPARE(messages.at(2).at(0).toString(), QStringLiteral("The page cache of org.kde.dolphin went from 120.0 MiB to 120.0 MiB."));
        QVERIFY(std::remove(reclaimFile.c_str()) == 0);
    }
};

QTEST_MAIN(ApplicationsViewTest)

#include "applicationsviewtest.moc"
