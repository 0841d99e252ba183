// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The window, its memory panel and the sampler, on the offscreen platform.

#include "mainwindow.h"
#include "memorypanel.h"
#include "memorysampler.h"
#include "procfs.h"
#include "testutil.h"

#include <KAboutData>
#include <KActionCollection>
#include <KFormat>
#include <KMessageWidget>
#include <KToolBar>
#include <KXMLGUIFactory>

#include <QAction>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>

#include <qcustomplot.h>

#include <filesystem>
#include <fstream>

using namespace std::chrono_literals;
using namespace Cachescope::App;

namespace
{

// The memory total of a proc folder, the way the table must print it.
QString expectedTotal(const std::string &procRoot)
{
    std::string error;
    const auto memInfo = Cachescope::readMemInfo(procRoot, &error);
    if (!memInfo) {
        qWarning() << "cannot read" << procRoot << error.c_str();
        return {};
    }
    return KFormat().formatByteSize(static_cast<double>(Cachescope::freeFigures(*memInfo).total));
}

QString fixtureProcRoot(const char *kernel)
{
    return QStringLiteral(CACHESCOPE_FIXTURES "/proc/") + QLatin1String(kernel);
}

} // namespace

class AppTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // Keep the window's saved size and shortcuts out of the real config.
        QStandardPaths::setTestModeEnabled(true);
        // KXmlGui finds cachescopeui.rc by the component name.
        KAboutData about(QStringLiteral("cachescope"), QStringLiteral("Cachescope"), QStringLiteral("0"));
        KAboutData::setApplicationData(about);
    }

    void windowLoadsItsXmlGui()
    {
        MainWindow window;
        QCOMPARE(window.windowTitle(), QStringLiteral("Cachescope"));
        QCOMPARE(window.size(), MainWindow::defaultSize);

        // Actions created in code exist either way; that they sit in the
        // toolbar and the View menu proves cachescopeui.rc was found.
        QAction *pause = window.actionCollection()->action(QStringLiteral("updates_pause"));
        QVERIFY(pause);
        QVERIFY(window.toolBar()->actions().contains(pause));
        QVERIFY(window.actionCollection()->action(QStringLiteral("file_quit")));
        // From setupGUI(Keys):
        QVERIFY(window.actionCollection()->action(QStringLiteral("options_configure_keybinding")));
        auto *viewMenu = qobject_cast<QMenu *>(window.guiFactory()->container(QStringLiteral("view"), &window));
        QVERIFY(viewMenu);
        QVERIFY(viewMenu->actions().contains(pause));
    }

    void liveSamplesReachThePlotAndTable()
    {
        MainWindow window;
        window.show();
        MemoryPanel *panel = window.memoryPanel();
        QCustomPlot *plot = panel->plot();
        QCOMPARE(plot->graphCount(), 6);

        // One sample at start, then one a second.
        QTRY_VERIFY_WITH_TIMEOUT(panel->sampleCount() >= 3, 5000);
        for (int i = 0; i < plot->graphCount(); ++i) {
            QVERIFY2(plot->graph(i)->dataCount() >= 3, qPrintable(plot->graph(i)->name()));
        }
        // The newest point is at "now" and the stack reaches the total.
        const double totalGiB = plot->graph(3)->data()->at(plot->graph(3)->dataCount() - 1)->value;
        QCOMPARE(plot->graph(0)->data()->at(plot->graph(0)->dataCount() - 1)->key, 0.0);
        QVERIFY(totalGiB > 0);
        QCOMPARE(plot->yAxis->range().upper, totalGiB);

        const QString total = expectedTotal("/proc");
        QVERIFY(!total.isEmpty());
        QCOMPARE(panel->figuresTable()->item(MemoryPanel::MemoryRow, MemoryPanel::TotalColumn)->text(), total);
        QVERIFY(panel->messageWidget()->isHidden());
    }

    void pauseStopsUpdates()
    {
        MainWindow window;
        MemoryPanel *panel = window.memoryPanel();
        window.sampler()->setInterval(50ms);
        QTRY_VERIFY(panel->sampleCount() >= 2);

        window.actionCollection()->action(QStringLiteral("updates_pause"))->setChecked(true);
        QVERIFY(!window.sampler()->isRunning());
        const std::size_t frozen = panel->sampleCount();
        // Ten intervals without a new sample.
        QTest::qWait(500);
        QCOMPARE(panel->sampleCount(), frozen);

        window.actionCollection()->action(QStringLiteral("updates_pause"))->setChecked(false);
        QTRY_VERIFY(panel->sampleCount() > frozen);
    }

    void tableShowsFreeFigures_data()
    {
        QTest::addColumn<QString>("procRoot");
        QTest::addColumn<QString>("total");
        QTest::addColumn<QString>("swapTotal");

        // 24684096 kB of memory, 16380 kB of swap.
        QTest::newRow("linux-6.18") << fixtureProcRoot("linux-6.18") << KFormat().formatByteSize(24684096.0 * 1024) << KFormat().formatByteSize(16380.0 * 1024);
    }

    void tableShowsFreeFigures()
    {
        QFETCH(QString, procRoot);
        QFETCH(QString, total);
        QFETCH(QString, swapTotal);

        MemorySampler sampler(procRoot);
        MemoryPanel panel;
        connect(&sampler, &MemorySampler::sampled, &panel, &MemoryPanel::addSample);
        QVERIFY(sampler.sampleNow());

        QCOMPARE(panel.figuresTable()->item(MemoryPanel::MemoryRow, MemoryPanel::TotalColumn)->text(), total);
        QCOMPARE(panel.figuresTable()->item(MemoryPanel::MemoryRow, MemoryPanel::TotalColumn)->text(), expectedTotal(procRoot.toStdString()));
        QCOMPARE(panel.figuresTable()->item(MemoryPanel::SwapRow, MemoryPanel::TotalColumn)->text(), swapTotal);
        // Every cell explains itself.
        QVERIFY(!panel.figuresTable()->item(MemoryPanel::MemoryRow, MemoryPanel::BuffCacheColumn)->toolTip().isEmpty());
        QVERIFY(!panel.figuresTable()->item(MemoryPanel::SwapRow, MemoryPanel::UsedColumn)->toolTip().isEmpty());
    }

    void unreadableMemInfoIsReportedOnceAndRecovers()
    {
        // A proc folder whose meminfo is missing, then appears.
        const std::string root = TestUtil::scratchDir("apptest-proc");
        const QString rootPath = QString::fromStdString(root);

        MemorySampler sampler(rootPath);
        MemoryPanel panel;
        connect(&sampler, &MemorySampler::sampled, &panel, &MemoryPanel::addSample);
        connect(&sampler, &MemorySampler::failed, &panel, &MemoryPanel::showError);
        connect(&sampler, &MemorySampler::recovered, &panel, &MemoryPanel::clearError);
        QSignalSpy failed(&sampler, &MemorySampler::failed);
        QSignalSpy recovered(&sampler, &MemorySampler::recovered);

        QVERIFY(!sampler.sampleNow());
        QCOMPARE(failed.count(), 1);
        const QString message = failed.at(0).at(0).toString();
        QVERIFY2(message.contains(rootPath + QStringLiteral("/meminfo")), qPrintable(message));
        QVERIFY(!panel.messageWidget()->isHidden());
        QCOMPARE(panel.messageWidget()->text(), message);
        QCOMPARE(panel.sampleCount(), std::size_t(0));

        // The same failure again is not announced again.
        QVERIFY(!sampler.sampleNow());
        QCOMPARE(failed.count(), 1);

        std::filesystem::copy_file(fixtureProcRoot("linux-6.18").toStdString() + "/meminfo", root + "/meminfo");
        QVERIFY(sampler.sampleNow());
        QCOMPARE(recovered.count(), 1);
        QTRY_VERIFY(panel.messageWidget()->isHidden());
        QCOMPARE(panel.sampleCount(), std::size_t(1));
    }

    void oldSamplesLeaveThePlot()
    {
        MemoryPanel panel;
        MemorySample sample;
        sample.figures.total = 8ull << 30;
        sample.figures.used = 2ull << 30;
        sample.figures.free = 6ull << 30;
        // Ten minutes of samples, one a second.
        for (int second = 0; second <= 600; ++second) {
            sample.time = 1000.0 + second;
            panel.addSample(sample);
        }
        // Five minutes and one sample just beyond the left edge.
        QCOMPARE(panel.sampleCount(), std::size_t(302));
        const QCPGraph *used = panel.plot()->graph(0);
        QCOMPARE(used->data()->at(0)->key, -301.0);
        QCOMPARE(used->data()->at(used->dataCount() - 1)->key, 0.0);
        QCOMPARE(used->data()->at(0)->value, 2.0);
        // Free sits on top of used: the stack reaches the 8 GiB total.
        QCOMPARE(panel.plot()->graph(3)->data()->at(0)->value, 8.0);
    }
};

QTEST_MAIN(AppTest)
#include "apptest.moc"
