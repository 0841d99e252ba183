// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The window frame (actions, settings, command line, layout) and the memory
// panel's hover, activity rates and exports, on the offscreen platform.

#include "cachemap/cachemapview.h"
#include "cachemap/cachemapwidget.h"
#include "cachescopesettings.h"
#include "commandline.h"
#include "files/filesmodel.h"
#include "files/filespanel.h"
#include "files/filesview.h"
#include "format.h"
#include "mainwindow.h"
#include "memory/memorypanel.h"
#include "memory/memorysampler.h"
#include "privilegedactions.h"
#include "procfs.h"
#include "residency.h"
#include "screenshots.h"
#include "testutil.h"

#include <KAboutData>
#include <KActionCollection>
#include <KColorButton>
#include <KConfig>
#include <KConfigDialog>
#include <KConfigGroup>
#include <KFormat>
#include <KLocalizedString>
#include <KMessageWidget>
#include <KToolBar>
#include <KUrlRequester>
#include <KXMLGUIFactory>

#include <KDesktopFile>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QIcon>
#include <QImage>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

#include <qcustomplot.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace std::chrono_literals;
using namespace Cachescope::App;

// A size as the window shows it.
static QString shownBytes(uint64_t bytes)
{
    return Cachescope::formatBytes(bytes, Cachescope::ByteStyle::OneDecimal, QLocale());
}

namespace
{

QString fixtureProcRoot(const char *kernel)
{
    return QStringLiteral(CACHESCOPE_FIXTURES "/proc/") + QLatin1String(kernel);
}

std::string readText(const std::string &path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// A vmstat text with some counters moved on by `deltas` (name, amount);
// a negative amount moves the counter back, as a reset would.
std::string advanceVmStat(std::string text, const QList<std::pair<QString, qint64>> &deltas)
{
    QString result = QString::fromStdString(text);
    for (const auto &[name, delta] : deltas) {
        const QRegularExpression line(QStringLiteral("^%1 (\\d+)$").arg(name), QRegularExpression::MultilineOption);
        const QRegularExpressionMatch match = line.match(result);
        if (!match.hasMatch()) {
            qWarning() << "no" << name << "in the vmstat fixture";
            continue;
        }
        const qint64 value = std::max<qint64>(0, match.captured(1).toLongLong() + delta);
        result.replace(match.capturedStart(), match.capturedLength(), QStringLiteral("%1 %2").arg(name).arg(value));
    }
    return result.toStdString();
}

void writeText(const std::string &path, const std::string &text)
{
    std::ofstream out(path, std::ios::trunc);
    out << text;
}

// A sample with round numbers, `used` GiB in use of 16 GiB.
MemorySample makeSample(double time, int usedGiB)
{
    MemorySample sample;
    sample.time = time;
    sample.wallClockMSecs = 1'780'000'000'000 + static_cast<qint64>(time * 1000);
    sample.figures.total = 16ull << 30;
    sample.figures.used = static_cast<uint64_t>(usedGiB) << 30;
    sample.figures.free = (16ull - usedGiB) << 30;
    sample.figures.available = (16ull - usedGiB) << 30;
    sample.dirty = 3ull << 20;
    return sample;
}

} // namespace

class FrameTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // A home of our own: the test-mode config (~/.qttest) would otherwise
        // be shared with other test runs in the same root.
        m_home = QString::fromStdString(TestUtil::scratchDir("frametest-home"));
        qputenv("HOME", QFile::encodeName(m_home));
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation).startsWith(m_home),
                 qPrintable(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation)));
        KAboutData about(QStringLiteral("cachescope"), QStringLiteral("Cachescope"), QStringLiteral("0"));
        KAboutData::setApplicationData(about);
        KLocalizedString::setApplicationDomain("cachescope");
        // As main() sets them: Breeze icons, and the application icon that
        // the About action shows.
        QIcon::setThemeName(QStringLiteral("breeze"));
        QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/org.kde.cachescope.svg")));
        CachescopeSettings::self()->load();
    }

    void cleanup()
    {
        // Each test starts from the defaults.
        CachescopeSettings::self()->setDefaults();
        CachescopeSettings::self()->save();
    }

    // The settings are written aside and renamed (KConfig saves through
    // QSaveFile): a writer killed in the middle of a save leaves the file
    // before it whole (issue 29). The kernel kills it there: under
    // RLIMIT_FSIZE a write past the limit raises SIGXFSZ.
    void settingsWholeAfterAKill()
    {
        CachescopeSettings::self()->setRefreshInterval(2000);
        CachescopeSettings::self()->save();
        const QString path = QStandardPaths::locate(QStandardPaths::GenericConfigLocation, QStringLiteral("cachescoperc"));
        QVERIFY2(!path.isEmpty(), "no cachescoperc after a save");
        QFile before(path);
        QVERIFY(before.open(QIODevice::ReadOnly));
        const QByteArray bytesBefore = before.readAll();
        before.close();
        QVERIFY(bytesBefore.contains("RefreshInterval=2000"));

        // 1 KiB: past KConfig's lock file (a few lines), short of the settings file.
        const QString killed = TestUtil::killWhileWriting(1024, [] {
            CachescopeSettings::self()->setRefreshInterval(3000);
            // A file of some kilobytes: written in more than one piece.
            CachescopeSettings::self()->setExperimentsFolder(QUrl::fromLocalFile(QStringLiteral("/tmp/") + QString(8000, QLatin1Char('x'))));
            (void)CachescopeSettings::self()->save();
        });
        QVERIFY2(killed.isEmpty(), qPrintable(killed));
        QFile after(path);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), bytesBefore);
        KConfig reread(QStringLiteral("cachescoperc"));
        QCOMPARE(reread.group(QStringLiteral("General")).readEntry("RefreshInterval", 0), 2000);
        // QSaveFile's temporary file, which the killed writer left.
        const QFileInfo info(path);
        for (const QString &left : info.absoluteDir().entryList({info.fileName() + QStringLiteral(".*")}, QDir::Files)) {
            QFile::remove(info.absoluteDir().filePath(left));
        }
    }

    void everyActionHasAnIcon()
    {
        MainWindow window;
        const QList<QAction *> actions = window.actionCollection()->actions();
        QVERIFY(actions.size() >= 10);
        for (QAction *action : actions) {
            QVERIFY2(!action->icon().isNull(), qPrintable(action->objectName()));
            QVERIFY2(!action->text().isEmpty(), qPrintable(action->objectName()));
        }
        for (const char *name : {"file_quit",
                                 "options_configure",
                                 "options_configure_keybinding",
                                 "options_configure_toolbars",
                                 "help_about_app",
                                 "updates_pause",
                                 "memory_export_plot",
                                 "memory_export_samples"}) {
            QVERIFY2(window.actionCollection()->action(QLatin1String(name)), name);
        }
        QCOMPARE(window.actionCollection()->action(QStringLiteral("file_quit"))->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Q));
        QCOMPARE(window.actionCollection()->action(QStringLiteral("updates_pause"))->shortcut(), QKeySequence(Qt::Key_Pause));
    }

    // The helper's actions are in the window; without a helper (no system bus
    // here) they are disabled and say why, except as root, which needs none. Experiments open their window.
    void privilegedActionsAndExperiments()
    {
        MainWindow window;
        const std::optional<Cachescope::MemInfo> memInfo = Cachescope::readMemInfo();
        QVERIFY(memInfo);
        const bool swapIsOn = memInfo->value("SwapTotal") > 0;
        for (const char *name :
             {"memory_drop_pagecache", "memory_drop_slab", "memory_drop_all", "swap_off_all", "swap_on_again", "swap_create_file", "swap_remove_file"}) {
            QAction *action = window.actionCollection()->action(QLatin1String(name));
            QVERIFY2(action, name);
            if (TestUtil::isRoot() && std::string_view(name) == "swap_off_all") {
                // Enabled only with swap to turn off, as the memory samples say.
                QTRY_COMPARE(action->isEnabled(), swapIsOn);
            } else if (TestUtil::isRoot()) {
                // Root acts without the helper (docs/helper-security.md rule 15).
                QVERIFY2(action->isEnabled(), name);
            } else if (!QFile::exists(QStringLiteral("/run/dbus/system_bus_socket"))) {
                QVERIFY2(!action->isEnabled(), name);
                QVERIFY2(action->toolTip().contains(QStringLiteral("D-Bus")), qPrintable(action->toolTip()));
            }
        }
        auto *dropMenu = qobject_cast<QMenu *>(window.guiFactory()->container(QStringLiteral("drop_caches"), &window));
        QVERIFY(dropMenu);
        QVERIFY(dropMenu->actions().contains(window.actionCollection()->action(QStringLiteral("memory_drop_pagecache"))));
        auto *tools = qobject_cast<QMenu *>(window.guiFactory()->container(QStringLiteral("tools"), &window));
        QVERIFY(tools && tools->actions().contains(window.actionCollection()->action(QStringLiteral("tools_experiments"))));
        QAction *experiments = window.actionCollection()->action(QStringLiteral("tools_experiments"));
        QVERIFY(experiments);
        experiments->trigger();
        QWidget *opened = nullptr;
        for (QWidget *widget : QApplication::topLevelWidgets()) {
            if (widget->inherits("Cachescope::App::ExperimentsWindow") && widget->isVisible()) {
                opened = widget;
            }
        }
        QVERIFY(opened);
        opened->close();
    }

    void actionsSitInTheirMenusAndToolbar()
    {
        MainWindow window;
        const auto menu = [&window](const char *name) {
            return qobject_cast<QMenu *>(window.guiFactory()->container(QLatin1String(name), &window));
        };
        const auto action = [&window](const char *name) {
            return window.actionCollection()->action(QLatin1String(name));
        };
        QVERIFY(menu("file"));
        QVERIFY(menu("view"));
        QVERIFY(menu("settings"));
        QVERIFY(menu("file")->actions().contains(action("memory_export_plot")));
        QVERIFY(menu("file")->actions().contains(action("file_quit")));
        QVERIFY(menu("view")->actions().contains(action("updates_pause")));
        QVERIFY(menu("settings")->actions().contains(action("options_configure")));
        QVERIFY(window.toolBar()->actions().contains(action("updates_pause")));

        // The files panel's actions, once it registers them.
        if (!action("file_evict")) {
            QSKIP("the files panel registers no actions yet");
        }
        QVERIFY(menu("cache"));
        for (const char *name : {"file_evict", "file_load", "file_top_cached", "file_cancel"}) {
            QVERIFY2(menu("cache")->actions().contains(action(name)), name);
        }
        for (const char *name : {"file_add_files",
                                 "file_add_folder",
                                 "file_remove",
                                 "file_save_snapshot",
                                 "file_compare_snapshot",
                                 "file_restore_snapshot",
                                 "file_stop_comparing"}) {
            QVERIFY2(menu("file")->actions().contains(action(name)), name);
        }
        for (const char *name : {"file_add_files", "file_add_folder", "file_evict", "file_load", "view_refresh", "updates_pause"}) {
            QVERIFY2(window.toolBar()->actions().contains(action(name)), name);
        }
    }

    void settingsDialogAppliesAndPersists()
    {
        MainWindow window;
        KConfigDialog *dialog = window.showSettings();
        QVERIFY(dialog);
        // Asking again raises the same dialog.
        QCOMPARE(window.showSettings(), dialog);

        auto *interval = dialog->findChild<QSpinBox *>(QStringLiteral("kcfg_RefreshInterval"));
        auto *history = dialog->findChild<QSpinBox *>(QStringLiteral("kcfg_HistoryMinutes"));
        auto *cells = dialog->findChild<QSpinBox *>(QStringLiteral("kcfg_HeatmapCells"));
        auto *follow = dialog->findChild<QCheckBox *>(QStringLiteral("kcfg_FollowSymlinks"));
        auto *oneFileSystem = dialog->findChild<QCheckBox *>(QStringLiteral("kcfg_OneFileSystem"));
        auto *resident = dialog->findChild<KColorButton *>(QStringLiteral("kcfg_ResidentColor"));
        auto *experiments = dialog->findChild<KUrlRequester *>(QStringLiteral("kcfg_ExperimentsFolder"));
        QVERIFY(interval && history && cells && follow && oneFileSystem && resident && experiments);
        // The widgets show the defaults, and the spin box keeps to the range.
        QCOMPARE(interval->value(), 1000);
        QCOMPARE(interval->minimum(), 100);
        QCOMPARE(interval->maximum(), 10000);
        QCOMPARE(oneFileSystem->isChecked(), true);

        interval->setValue(250);
        history->setValue(10);
        cells->setValue(2048);
        follow->setChecked(true);
        resident->setColor(QColor(0x11, 0x22, 0x33));
        const QString lessons = QString::fromStdString(TestUtil::scratchDir("frame-lessons"));
        experiments->setUrl(QUrl::fromLocalFile(lessons));
        QSignalSpy changed(dialog, &KConfigDialog::settingsChanged);
        dialog->button(QDialogButtonBox::Ok)->click();
        QCOMPARE(changed.count(), 1);

        // Applied at once...
        QCOMPARE(window.sampler()->interval(), 250ms);
        QCOMPARE(window.memoryPanel()->historySeconds(), 600.0);
        // ... and on disk, as a new reader of the file sees it.
        KConfig file(QStringLiteral("cachescoperc"), KConfig::SimpleConfig);
        QCOMPARE(file.group(QStringLiteral("General")).readEntry("RefreshInterval", 0), 250);
        QCOMPARE(file.group(QStringLiteral("General")).readEntry("HistoryMinutes", 0), 10);
        QCOMPARE(file.group(QStringLiteral("General")).readEntry("FollowSymlinks", false), true);
        QCOMPARE(file.group(QStringLiteral("Appearance")).readEntry("HeatmapCells", 0), 2048);
        QCOMPARE(file.group(QStringLiteral("Appearance")).readEntry("ResidentColor", QColor()), QColor(0x11, 0x22, 0x33));
        QCOMPARE(file.group(QStringLiteral("General")).readEntry("ExperimentsFolder", QUrl()), QUrl::fromLocalFile(lessons));
        CachescopeSettings::self()->setExperimentsFolder(QUrl());
        CachescopeSettings::self()->save();
    }

    void settingsAreReadAtStart()
    {
        // As a later start finds them: written by someone else, then loaded.
        {
            KConfig file(QStringLiteral("cachescoperc"), KConfig::SimpleConfig);
            file.group(QStringLiteral("General")).writeEntry("RefreshInterval", 2500);
            file.group(QStringLiteral("General")).writeEntry("HistoryMinutes", 3);
            file.sync();
        }
        CachescopeSettings::self()->load();
        MainWindow window;
        QCOMPARE(window.sampler()->interval(), 2500ms);
        QCOMPARE(window.memoryPanel()->historySeconds(), 180.0);
        // The axis spans what there is, never more than the history.
        QVERIFY(window.memoryPanel()->plot()->xAxis->range().lower >= -180.0);
    }

    // A new window's plot fills its width with the samples it has, up to the
    // history, instead of a thin column at the right of a ten-minute axis;
    // the activity panes follow, and the labels say seconds or minutes.
    void plotFillsItsWidthWithWhatItHas_data()
    {
        QTest::addColumn<double>("secondsOfSamples");
        QTest::addColumn<double>("expectedSpan");
        QTest::newRow("one sample: two seconds") << 0.0 << 2.0;
        QTest::newRow("three seconds") << 3.0 << 3.0;
        QTest::newRow("twenty seconds") << 20.0 << 20.0;
        QTest::newRow("five minutes") << 300.0 << 300.0;
        QTest::newRow("longer than the history") << 900.0 << 600.0;
    }

    void plotFillsItsWidthWithWhatItHas()
    {
        QFETCH(double, secondsOfSamples);
        QFETCH(double, expectedSpan);
        MemoryPanel panel;
        panel.setHistoryMinutes(10);
        for (double t = 0; t <= secondsOfSamples; t += 1.0) {
            panel.addSample(makeSample(1000.0 + t, 4));
        }
        QCOMPARE(panel.plot()->xAxis->range().lower, -expectedSpan);
        QCOMPARE(panel.plot()->xAxis->range().upper, 0.0);
        for (QCPAxisRect *rect : panel.ratesPlot()->axisRects()) {
            QCOMPARE(rect->axis(QCPAxis::atBottom)->range().lower, -expectedSpan);
        }
        // Labels the way people say it, at every tick on show.
        QCPAxis *axis = panel.plot()->xAxis;
        QVector<double> ticks;
        QVector<QString> labels;
        axis->ticker()->generate(axis->range(), QLocale(), QLatin1Char('g'), 0, ticks, nullptr, &labels);
        QVERIFY(labels.size() >= 2);
        QVERIFY(labels.contains(QStringLiteral("now")));
        for (const QString &label : std::as_const(labels)) {
            QVERIFY2(label == QStringLiteral("now") || label.endsWith(QStringLiteral(" ago")), qPrintable(label));
        }
    }

    void settingsOutOfRangeAreClamped_data()
    {
        QTest::addColumn<int>("written");
        QTest::addColumn<int>("expected");
        QTest::newRow("too short") << 5 << 100;
        QTest::newRow("too long") << 3'600'000 << 10000;
        QTest::newRow("negative") << -1 << 100;
        QTest::newRow("fine") << 400 << 400;
    }

    void settingsOutOfRangeAreClamped()
    {
        QFETCH(int, written);
        QFETCH(int, expected);
        {
            KConfig file(QStringLiteral("cachescoperc"), KConfig::SimpleConfig);
            file.group(QStringLiteral("General")).writeEntry("RefreshInterval", written);
            file.sync();
        }
        CachescopeSettings::self()->load();
        QCOMPARE(CachescopeSettings::refreshInterval(), expected);
    }

    void splitterAndTabAreRestored()
    {
        QList<int> saved;
        {
            MainWindow window;
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.splitter()->setSizes({450, 250});
            saved = window.splitter()->sizes();
            // The Activity tab holds lists too (its "Who" part): it gets a
            // view's room; the plots' sizes are kept for the Memory tab.
            window.memoryPanel()->tabs()->setCurrentIndex(MemoryPanel::ActivityTab);
            QVERIFY(window.close());
        }
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.memoryPanel()->tabs()->currentIndex(), int(MemoryPanel::ActivityTab));
        window.memoryPanel()->tabs()->setCurrentIndex(MemoryPanel::MemoryTab);
        QTRY_COMPARE(window.splitter()->sizes(), saved);
    }

    void vmStatRates_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("refaultField");
        QTest::addColumn<bool>("hasRefaults");

        QTest::newRow("linux-6.18") << QStringLiteral("linux-6.18") << QStringLiteral("workingset_refault_file") << true;
        QTest::newRow("linux-5.15") << QStringLiteral("linux-5.15") << QStringLiteral("workingset_refault_file") << true;
        QTest::newRow("linux-4.19") << QStringLiteral("linux-4.19") << QStringLiteral("workingset_refault") << true;
        QTest::newRow("linux-3.10 (no refault counter)") << QStringLiteral("linux-3.10") << QString() << false;
    }

    void vmStatRates()
    {
        QFETCH(QString, kernel);
        QFETCH(QString, refaultField);
        QFETCH(bool, hasRefaults);

        const std::string earlierText = readText(fixtureProcRoot(kernel.toLatin1().constData()).toStdString() + "/vmstat");
        QVERIFY(!earlierText.empty());
        QList<std::pair<QString, qint64>> deltas = {
            {QStringLiteral("pgpgin"), 8192},
            {QStringLiteral("pgpgout"), 4096},
            {QStringLiteral("pgfault"), 3000},
            {QStringLiteral("pgmajfault"), 200},
        };
        if (hasRefaults) {
            deltas.append({refaultField, 50});
        }
        const auto earlier = Cachescope::parseVmStat(earlierText);
        const auto later = Cachescope::parseVmStat(advanceVmStat(earlierText, deltas));
        QCOMPARE(later.value("pgpgin"), earlier.value("pgpgin") + 8192);

        // Two seconds apart.
        const auto rates = ::vmStatRates(earlier, later, 2.0);
        QVERIFY(rates);
        QCOMPARE(rates->readKiBPerSecond, 4096.0);
        QCOMPARE(rates->writtenKiBPerSecond, 2048.0);
        // 3000 faults, 200 of them major: 2800 minor.
        QCOMPARE(rates->minorFaultsPerSecond, 1400.0);
        QCOMPARE(rates->majorFaultsPerSecond, 100.0);
        QCOMPARE(rates->refaultsPerSecond.has_value(), hasRefaults);
        if (hasRefaults) {
            QCOMPARE(*rates->refaultsPerSecond, 25.0);
        }

        // No time between them: no rate, rather than a division by zero.
        QVERIFY(!::vmStatRates(earlier, later, 0.0));
        // Counters that went back (a reset) are no activity, not 2^64.
        const auto backwards = ::vmStatRates(later, earlier, 2.0);
        QVERIFY(backwards);
        QCOMPARE(backwards->readKiBPerSecond, 0.0);
        QCOMPARE(backwards->minorFaultsPerSecond, 0.0);
    }

    void vmStatIsReadOnlyWhileTheActivityPlotShows()
    {
        // A proc folder of our own, whose vmstat the test moves on.
        const std::string root = TestUtil::scratchDir("frametest-proc");
        const std::string fixture = fixtureProcRoot("linux-6.18").toStdString();
        std::filesystem::copy_file(fixture + "/meminfo", root + "/meminfo");
        const std::string vmstat = readText(fixture + "/vmstat");
        writeText(root + "/vmstat", vmstat);

        MainWindow window(QString::fromStdString(root));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        MemoryPanel *panel = window.memoryPanel();
        panel->tabs()->setCurrentIndex(MemoryPanel::MemoryTab);
        QVERIFY(!window.sampler()->ratesEnabled());
        QVERIFY(window.sampler()->sampleNow());
        QVERIFY(!panel->samples().back().rates);

        panel->tabs()->setCurrentIndex(MemoryPanel::ActivityTab);
        QVERIFY(panel->ratesShown());
        QVERIFY(window.sampler()->ratesEnabled());
        // Turning rates on reads the starting point; the next sample has rates.
        writeText(root + "/vmstat", advanceVmStat(vmstat, {{QStringLiteral("pgpgin"), 1 << 20}, {QStringLiteral("pgmajfault"), 10}}));
        QTest::qWait(20);
        const auto sample = window.sampler()->sampleNow();
        QVERIFY(sample);
        QVERIFY(sample->rates);
        QVERIFY(sample->rates->readKiBPerSecond > 0);
        QCOMPARE(sample->rates->writtenKiBPerSecond, 0.0);
        QVERIFY(sample->rates->majorFaultsPerSecond > 0);
        // The activity plot got the point (MiB/s), at "now".
        const QCPGraph *read = panel->ratesPlot()->graph(0);
        QVERIFY(read->dataCount() >= 1);
        const auto newest = read->data()->at(read->dataCount() - 1);
        QCOMPARE(newest->key, 0.0);
        QVERIFY(qFuzzyCompare(newest->value, sample->rates->readKiBPerSecond / 1024.0));

        // Back to the memory tab: vmstat is no longer read.
        panel->tabs()->setCurrentIndex(MemoryPanel::MemoryTab);
        QVERIFY(!window.sampler()->ratesEnabled());
        std::filesystem::remove(root + "/vmstat");
        const auto withoutVmStat = window.sampler()->sampleNow();
        QVERIFY(withoutVmStat);
        QVERIFY(!withoutVmStat->rates);
        // The hidden window does not read it either.
        window.hide();
        QVERIFY(!panel->ratesShown());
    }

    void hoverShowsTheValuesAtThatTime()
    {
        MemoryPanel panel;
        // Ten seconds, used growing by 1 GiB a second: 0 GiB at 1000 s, 10 GiB at 1010 s.
        for (int second = 0; second <= 10; ++second) {
            panel.addSample(makeSample(1000.0 + second, second));
        }
        // 3.2 s before the newest: the sample at 1007 s.
        const QString text = panel.memoryHoverText(-3.2);
        QVERIFY2(text.contains(shownBytes(7ull << 30)), qPrintable(text));
        QVERIFY2(!text.contains(shownBytes(8ull << 30)), qPrintable(text));
        QVERIFY2(text.contains(KFormat().formatSpelloutDuration(3000)), qPrintable(text));
        QVERIFY2(text.contains(shownBytes(3ull << 20)), qPrintable(text)); // dirty
        // Beyond the ends: the nearest sample.
        QVERIFY(panel.memoryHoverText(-100).contains(shownBytes(16ull << 30))); // free at 0 GiB used
        QVERIFY(panel.memoryHoverText(5).contains(shownBytes(10ull << 30)));
        // Without rates, the activity hover says why there are none.
        QVERIFY(panel.ratesHoverText(-1).contains(QStringLiteral("Not measured")));
        QVERIFY(MemoryPanel().memoryHoverText(0).isEmpty());

        MemorySample withRates = makeSample(1011.0, 10);
        withRates.rates = VmStatRates{2048.0, 0, 1500, 12, 7.0};
        panel.addSample(withRates);
        const QString rates = panel.ratesHoverText(0);
        QVERIFY2(rates.contains(KFormat().formatByteSize(2048.0 * 1024)), qPrintable(rates));
        QVERIFY2(rates.contains(QLocale().toString(1500.0, 'f', 0)), qPrintable(rates));
        QVERIFY2(rates.contains(QLocale().toString(12.0, 'f', 0)), qPrintable(rates));
    }

    // A cache drop or a swap change is marked at its moment, explained on
    // hover, and scrolls out with the history.
    void markersMarkAMoment()
    {
        MemoryPanel panel;
        const double now = monotonicSeconds();
        panel.addSample(makeSample(now - 1, 4));
        panel.addMarker(QStringLiteral("Dropped the page cache"), QStringLiteral("Cached: 4.0 GiB \u2192 120 MiB"));
        panel.addSample(makeSample(now + 1, 2));
        QCOMPARE(panel.markerCount(), 1);
        const QString near = panel.memoryHoverText(-1);
        QVERIFY2(near.contains(QStringLiteral("Dropped the page cache")) && near.contains(QStringLiteral("120 MiB")), qPrintable(near));
        QVERIFY(!panel.memoryHoverText(-200).contains(QStringLiteral("Dropped")));
        const int itemsWithMarker = panel.plot()->itemCount();
        // Past the history, the marker and its items go.
        panel.addSample(makeSample(now + panel.historySeconds() + 10, 2));
        QCOMPARE(panel.markerCount(), 0);
        QCOMPARE(panel.plot()->itemCount(), itemsWithMarker - 2);
    }

    void hoverDrawsALineAtTheMouse()
    {
        MemoryPanel panel;
        panel.resize(900, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        for (int second = 0; second <= 60; ++second) {
            panel.addSample(makeSample(1000.0 + second, second % 16));
        }
        QCustomPlot *plot = panel.plot();
        plot->replot();
        const int x = qRound(plot->xAxis->coordToPixel(-30.0));
        const int y = plot->axisRect()->rect().center().y();
        QTest::mouseMove(plot, QPoint(x, y));
        QTRY_VERIFY(plot->itemCount() >= 1);
        auto *line = qobject_cast<QCPItemStraightLine *>(plot->item(0));
        QVERIFY(line);
        QVERIFY(line->visible());
        QVERIFY(qAbs(line->point1->key() - (-30.0)) <= 1.0);
    }

    void exportWritesFiles()
    {
        const QString dir = QString::fromStdString(TestUtil::scratchDir("frametest-export"));
        MemoryPanel panel;
        for (int second = 0; second < 30; ++second) {
            MemorySample sample = makeSample(1000.0 + second, 4);
            if (second >= 10) {
                sample.rates = VmStatRates{100.0, 50.0, 900.0, 1.0, 2.0};
            }
            panel.addSample(sample);
        }
        QString error;

        const QString png = dir + QStringLiteral("/memory.png");
        QVERIFY2(panel.exportPlot(png, &error), qPrintable(error));
        const QImage image(png);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 400);

        const QString pdf = dir + QStringLiteral("/memory.pdf");
        QVERIFY2(panel.exportPlot(pdf, &error), qPrintable(error));
        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly));
        QVERIFY(pdfFile.size() > 1000);
        QCOMPARE(pdfFile.read(5), QByteArray("%PDF-"));

        // The activity tab exports the activity plot.
        panel.tabs()->setCurrentIndex(MemoryPanel::ActivityTab);
        const QString ratesPng = dir + QStringLiteral("/activity.png");
        QVERIFY2(panel.exportPlot(ratesPng, &error), qPrintable(error));
        QVERIFY(QImage(ratesPng) != image);

        const QString csv = dir + QStringLiteral("/samples.csv");
        QVERIFY2(panel.exportSamples(csv, &error), qPrintable(error));
        QFile csvFile(csv);
        QVERIFY(csvFile.open(QIODevice::ReadOnly | QIODevice::Text));
        const QList<QByteArray> lines = csvFile.readAll().split('\n');
        // Header, 30 rows, and the empty string after the last newline.
        QCOMPARE(lines.size(), 32);
        QVERIFY(lines.last().isEmpty());
        QVERIFY(lines[0].startsWith("time,total_bytes,used_bytes,free_bytes,"));
        const int columns = lines[0].count(',') + 1;
        QCOMPARE(columns, 17);
        for (int row = 1; row <= 30; ++row) {
            QCOMPARE(lines[row].count(',') + 1, columns);
        }
        QVERIFY(lines[1].contains(QByteArray::number(16ull << 30)));
        // Not measured is empty; measured has the numbers.
        QVERIFY(lines[1].endsWith(",,,,,"));
        QVERIFY(lines[30].endsWith(",100.0,50.0,900.0,1.0,2.0"));
    }

    void exportFailuresNameThePathAndReason_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing folder png") << QStringLiteral("no-such-folder/plot.png") << QString();
        QTest::newRow("missing folder csv") << QStringLiteral("no-such-folder/samples.csv") << QString();
        QTest::newRow("unknown suffix") << QStringLiteral("plot.gif") << QStringLiteral(".png or .pdf");
    }

    void exportFailuresNameThePathAndReason()
    {
        QFETCH(QString, name);
        QFETCH(QString, reason);
        const QString path = QString::fromStdString(TestUtil::scratchDir("frametest-export-bad")) + QLatin1Char('/') + name;
        MemoryPanel panel;
        panel.addSample(makeSample(1.0, 1));
        QString error;
        const bool written = name.endsWith(QLatin1String(".csv")) ? panel.exportSamples(path, &error) : panel.exportPlot(path, &error);
        QVERIFY(!written);
        QVERIFY2(error.contains(path), qPrintable(error));
        QVERIFY2(error.contains(reason), qPrintable(error));
        QVERIFY(!QFile::exists(path));
    }

    void commandLineUrls_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("workingDirectory");
        QTest::addColumn<QList<QUrl>>("expected");

        const QString work = QStringLiteral("/home/someone/work");
        QTest::newRow("relative file") << QStringList{QStringLiteral("data.bin")} << work
                                       << QList<QUrl>{QUrl::fromLocalFile(work + QStringLiteral("/data.bin"))};
        QTest::newRow("absolute and folder") << QStringList{QStringLiteral("/var/log"), QStringLiteral("sub/dir/")} << work
                                             << QList<QUrl>{QUrl::fromLocalFile(QStringLiteral("/var/log")),
                                                            QUrl::fromLocalFile(work + QStringLiteral("/sub/dir/"))};
        QTest::newRow("looks like a host") << QStringList{QStringLiteral("www.example.log")} << work
                                           << QList<QUrl>{QUrl::fromLocalFile(work + QStringLiteral("/www.example.log"))};
        QTest::newRow("remote kept for the panel to refuse")
            << QStringList{QStringLiteral("sftp://host/file")} << work << QList<QUrl>{QUrl(QStringLiteral("sftp://host/file"))};
        QTest::newRow("nothing") << QStringList{} << work << QList<QUrl>{};
    }

    void commandLineUrls()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, workingDirectory);
        QFETCH(QList<QUrl>, expected);
        QCOMPARE(urlsFromArguments(arguments, workingDirectory), expected);
        // As a second start delivers them: the program first, options mixed in.
        QCOMPARE(urlsFromActivation(QStringList{QStringLiteral("cachescope")} + arguments, workingDirectory), expected);
    }

    // Dolphin's service menu: Inspect runs `cachescope %F`, Evict runs
    // `cachescope --evict %F`, which a running window takes over.
    void serviceMenuAndEvictOption()
    {
        KDesktopFile menu(QStringLiteral(CACHESCOPE_SOURCE_DIR "/resources/servicemenus/cachescope-servicemenu.desktop"));
        QCOMPARE(menu.desktopGroup().readEntry("Type"), QStringLiteral("Service"));
        QCOMPARE(menu.readActions(), (QStringList{QStringLiteral("inspectPageCache"), QStringLiteral("_SEPARATOR_"), QStringLiteral("evictFromPageCache")}));
        QVERIFY(menu.desktopGroup().readXdgListEntry("MimeType").contains(QStringLiteral("inode/directory")));
        QCOMPARE(menu.actionGroup(QStringLiteral("inspectPageCache")).readEntry("Exec"), QStringLiteral("cachescope %F"));
        QCOMPARE(menu.actionGroup(QStringLiteral("evictFromPageCache")).readEntry("Exec"), QStringLiteral("cachescope --evict %F"));

        const CommandLineRequest evict =
            requestFromActivation({QStringLiteral("cachescope"), QStringLiteral("--evict"), QStringLiteral("a.iso"), QStringLiteral("/srv")},
                                  QStringLiteral("/home/me"));
        QVERIFY(evict.evict);
        QCOMPARE(evict.urls, (QList<QUrl>{QUrl::fromLocalFile(QStringLiteral("/home/me/a.iso")), QUrl::fromLocalFile(QStringLiteral("/srv"))}));
        QVERIFY(!requestFromActivation({QStringLiteral("cachescope"), QStringLiteral("a.iso")}, QStringLiteral("/home/me")).evict);
    }

    void secondStartOpensItsFilesInTheWindow()
    {
        MainWindow window;
        QSignalSpy opened(&window, &MainWindow::urlsOpened);
        const QString elsewhere = QString::fromStdString(TestUtil::scratchDir("frametest-second-start"));
        window.activate({QStringLiteral("/usr/bin/cachescope"), QStringLiteral("--nonsense-option"), QStringLiteral("big.iso")}, elsewhere);
        QCOMPARE(opened.count(), 1);
        QCOMPARE(opened.at(0).at(0).value<QList<QUrl>>(), QList<QUrl>{QUrl::fromLocalFile(elsewhere + QStringLiteral("/big.iso"))});
        QVERIFY(window.isVisible());

        // A plain second start only raises the window.
        window.activate({QStringLiteral("cachescope")}, elsewhere);
        QCOMPARE(opened.count(), 1);
    }

    void messagesShowOnTop()
    {
        MainWindow window;
        window.show();
        Q_EMIT window.memoryPanel()->message(QStringLiteral("Saved it."), false);
        QTRY_VERIFY(window.messageWidget()->isVisible());
        QCOMPARE(window.messageWidget()->text(), QStringLiteral("Saved it."));
        QCOMPARE(window.messageWidget()->messageType(), KMessageWidget::Positive);
        window.showMessage(QStringLiteral("No."), true);
        QCOMPARE(window.messageWidget()->messageType(), KMessageWidget::Error);

        // The files panel's message is newer: the older one on top goes; a
        // newer one on top closes the panel's. Never two stacked.
        KMessageWidget *filesBar = nullptr;
        for (auto *bar : window.filesPanel()->findChildren<KMessageWidget *>()) {
            if (bar->inherits("Cachescope::App::FilesMessageBar")) {
                filesBar = bar;
            }
        }
        QVERIFY(filesBar);
        Q_EMIT window.filesPanel()->message(QStringLiteral("Evicted 1 file."), false);
        QTRY_VERIFY(filesBar->isVisible());
        QTRY_VERIFY(!window.messageWidget()->isVisible());
        window.showMessage(QStringLiteral("Dropped the page cache."), false);
        QTRY_VERIFY(window.messageWidget()->isVisible());
        QTRY_VERIFY(!filesBar->isVisible());
    }

    // The Cache Map follows the window's own changes of the page cache: an
    // eviction from its context menu (through the files panel) and a drop of
    // caches (PrivilegedActions' signal, emitted here: that a real drop emits
    // it is privilegedactionstest's), without a Refresh.
    void cacheMapFollowsTheWindowsOwnChanges()
    {
        const std::string dir = TestUtil::scratchDir("frame-cachemap");
        const std::string sub = dir + "/sub";
        QCOMPARE(mkdir(sub.c_str(), 0755), 0);
        const std::string file = sub + "/f";
        const uint64_t pages = 256;
        TestUtil::makeColdFile(file, pages * Cachescope::pageSize());
        auto held = std::make_unique<TestUtil::HeldPages>(file, 0, pages * Cachescope::pageSize());

        MainWindow window;
        window.filesPanel()->setPaused(true);
        auto *map = window.findChild<CacheMapView *>(QStringLiteral("cacheMapView"));
        QVERIFY(map);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.memoryPanel()->tabs()->setCurrentWidget(map);
        map->mapFolder(QString::fromStdString(dir));
        const auto residentInMap = [map, &sub]() -> uint64_t {
            const Cachescope::CacheMapTree *tree = map->mapWidget()->tree();
            const Cachescope::CacheMapFolder *folder = tree ? tree->find(sub) : nullptr;
            return folder ? folder->tree.resident : UINT64_MAX;
        };
        QTRY_VERIFY_WITH_TIMEOUT(!map->isMapping() && map->isComplete(), 60000);
        QCOMPARE(residentInMap(), pages);

        held.reset(); // mapped pages are not evicted
        map->evictFolder(QString::fromStdString(sub));
        QTRY_COMPARE_WITH_TIMEOUT(TestUtil::pagesNow(file).resident, uint64_t(0), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(residentInMap(), uint64_t(0), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!map->isMapping(), 60000);

        // Cached again behind the map's back; then the helper says it dropped caches.
        held = std::make_unique<TestUtil::HeldPages>(file, 0, pages * Cachescope::pageSize());
        map->refresh();
        QTRY_VERIFY_WITH_TIMEOUT(!map->isMapping(), 60000);
        QCOMPARE(residentInMap(), pages);
        held.reset();
        TestUtil::evictRaw(file);
        auto *privileged = window.findChild<PrivilegedActions *>();
        QVERIFY(privileged);
        const QString dropped = PrivilegedActions::markerLabel(PrivilegedActions::Request::DropPageCache);
        Q_EMIT privileged->pageCacheChanged(dropped);
        QTRY_COMPARE_WITH_TIMEOUT(residentInMap(), uint64_t(0), 30000);

        // Not on show: the map is walked again when it shows.
        window.memoryPanel()->tabs()->setCurrentIndex(0);
        QTRY_VERIFY_WITH_TIMEOUT(!map->isMapping(), 60000);
        held = std::make_unique<TestUtil::HeldPages>(file, 0, pages * Cachescope::pageSize());
        Q_EMIT privileged->pageCacheChanged(dropped);
        QVERIFY(!map->isMapping());
        window.memoryPanel()->tabs()->setCurrentWidget(map);
        QTRY_COMPARE_WITH_TIMEOUT(residentInMap(), pages, 30000);
    }

    // At its smallest the window still shows every column's heading or a
    // scroll bar, four rows of the list and every legend entry whole.
    void theSmallestWindowStillWorks()
    {
        MainWindow window;
        window.filesPanel()->setPaused(true);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QSize smallest = window.minimumSizeHint();
        // Smaller than the 577x635 a user measured before (issue 24).
        QVERIFY2(smallest.width() < 577 && smallest.height() < 635, qPrintable(QStringLiteral("%1x%2").arg(smallest.width()).arg(smallest.height())));
        window.resize(smallest);
        auto *view = window.filesPanel()->findChild<FilesView *>();
        QVERIFY(view);
        QTRY_COMPARE(window.size(), smallest);
        QTRY_COMPARE(view->header()->sectionSize(FilesModel::NameColumn), view->nameColumnMinimum());
        QVERIFY2(view->viewport()->height() >= 3 * view->fontMetrics().height(), qPrintable(QString::number(view->viewport()->height())));
        auto *heatmap = window.filesPanel()->findChild<QWidget *>(QStringLiteral("detailHeatmap"));
        QVERIFY(heatmap);
        QVERIFY(heatmap->height() >= heatmap->minimumSizeHint().height());
        for (auto *plot : window.memoryPanel()->findChildren<QCustomPlot *>()) {
            if (!plot->isVisible()) {
                continue;
            }
            plot->replot();
            for (int i = 0; i < plot->legend->elementCount(); ++i) {
                if (QCPLayoutElement *entry = plot->legend->elementAt(i)) {
                    QVERIFY2(plot->rect().contains(entry->outerRect()), qPrintable(QStringLiteral("legend entry %1 cut off").arg(i)));
                }
            }
        }
        Screenshots::save(window, "window-smallest.png");

        // Wide again: the Name column takes what the others leave.
        window.resize(1200, 760);
        QTRY_VERIFY(view->header()->sectionSize(FilesModel::NameColumn) > view->nameColumnMinimum());
        int sum = 0;
        for (int column = 0; column < view->header()->count(); ++column) {
            sum += view->header()->isSectionHidden(column) ? 0 : view->header()->sectionSize(column);
        }
        QCOMPARE(sum, view->viewport()->width());
    }

    // The Cache Map and Applications are views to work in: on show they get
    // their share of the height, also maximised; the plots keep theirs.
    void theShownTabsViewGetsTheRoom()
    {
        auto *map = static_cast<QWidget *>(nullptr);
        QList<int> plotSizes;
        {
            MainWindow window;
            window.filesPanel()->setPaused(true);
            window.resize(1200, 900);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            map = window.findChild<CacheMapView *>(QStringLiteral("cacheMapView"));
            QVERIFY(map);
            window.memoryPanel()->tabs()->setCurrentIndex(MemoryPanel::MemoryTab);
            plotSizes = window.splitter()->sizes();
            QVERIFY2(plotSizes.value(1) < plotSizes.value(0), "the plots are context beside the list");

            window.memoryPanel()->tabs()->setCurrentWidget(map);
            const auto viewShare = [&window] {
                const QList<int> sizes = window.splitter()->sizes();
                return double(sizes.value(1)) / (sizes.value(0) + sizes.value(1));
            };
            QVERIFY2(viewShare() > 0.5, qPrintable(QString::number(viewShare())));
            window.resize(1900, 1040);
            QTRY_COMPARE(window.size(), QSize(1900, 1040));
            QVERIFY2(viewShare() > 0.5, qPrintable(QString::number(viewShare())));
            QVERIFY2(map->height() > 400, qPrintable(QString::number(map->height())));
            Screenshots::save(window, "window-cache-map-large.png");

            window.resize(1200, 900);
            QTRY_COMPARE(window.size(), QSize(1200, 900));
            window.memoryPanel()->tabs()->setCurrentIndex(MemoryPanel::MemoryTab);
            QCOMPARE(window.splitter()->sizes(), plotSizes);
            // A share the person set is kept for the views.
            window.memoryPanel()->tabs()->setCurrentWidget(map);
            const int total = window.splitter()->sizes().value(0) + window.splitter()->sizes().value(1);
            window.splitter()->setSizes({total * 35 / 100, total - total * 35 / 100});
            QVERIFY(window.close());
        }
        // Opened again on the Cache Map: its share, and the plots' sizes behind it.
        MainWindow window;
        window.filesPanel()->setPaused(true);
        window.resize(1200, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QList<int> sizes = window.splitter()->sizes();
        QVERIFY2(qAbs(double(sizes.value(1)) / (sizes.value(0) + sizes.value(1)) - 0.65) < 0.02,
                 qPrintable(QStringLiteral("%1 %2").arg(sizes.value(0)).arg(sizes.value(1))));
        window.memoryPanel()->tabs()->setCurrentIndex(MemoryPanel::MemoryTab);
        QCOMPARE(window.splitter()->sizes(), plotSizes);
    }

private:
    QString m_home;
};

QTEST_MAIN(FrameTest)
#include "frametest.moc"
