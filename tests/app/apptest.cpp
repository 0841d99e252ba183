// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The window, its memory panel and the sampler, on the offscreen platform;
// what a screen reader gets of them beyond the Cache Map's boxes and the
// heatmap's cells (cachemapviewtest, heatmaptest): the plots' descriptions,
// a name for every control.

#include "accessibleevents.h"
#include "cachelimitdialog.h"
#include "cachemap/cachemapview.h"
#include "experiments/experimentswindow.h"
#include "files/filespanel.h"
#include "format.h"
#include "handbookviewer.h"
#include "mainwindow.h"
#include "memory/memorypanel.h"
#include "memory/memorysampler.h"
#include "plotdescription.h"
#include "procfs.h"
#include "testutil.h"

#include <KAboutData>
#include <KActionCollection>
#include <KConfigDialog>
#include <KConfigGroup>
#include <KFormat>
#include <KMessageWidget>
#include <KSharedConfig>
#include <KStandardActions>
#include <KStandardShortcut>
#include <KToolBar>
#include <KXMLGUIFactory>
#include <KXmlGuiWindow>

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QShortcut>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QTreeView>

#include <qcustomplot.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

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

// Everything in a window a key sequence can trigger: the actions of its
// KActionCollection (the standard ones KStandardActions and setupGUI add
// included), every QAction and QShortcut below it, and buttons with a
// shortcut of their own.
struct Binding {
    QString who; // "file_flush_evict (Flush and Evict)"
    QKeySequence keys;
    const QObject *source = nullptr;
    // Set for a widget-only shortcut: it triggers only while that widget has
    // the focus, so it cannot clash with another widget's own.
    const QWidget *onlyIn = nullptr;
};

QString describe(const QObject *object, const QString &text)
{
    QString plain = text;
    plain.remove(QLatin1Char('&'));
    return object->objectName().isEmpty() ? plain : QStringLiteral("%1 (%2)").arg(object->objectName(), plain);
}

QList<Binding> bindingsOf(QWidget *window)
{
    QList<QAction *> actions = window->findChildren<QAction *>();
    if (auto *xmlGuiWindow = qobject_cast<KXmlGuiWindow *>(window)) {
        actions += xmlGuiWindow->actionCollection()->actions();
    }
    actions += window->actions();
    std::sort(actions.begin(), actions.end());
    actions.erase(std::unique(actions.begin(), actions.end()), actions.end());

    QList<Binding> bindings;
    for (QAction *action : std::as_const(actions)) {
        const QWidget *onlyIn = nullptr;
        if (action->shortcutContext() == Qt::WidgetShortcut) {
            onlyIn = qobject_cast<const QWidget *>(action->parent());
        }
        for (const QKeySequence &keys : action->shortcuts()) {
            if (!keys.isEmpty()) {
                bindings.append({describe(action, action->text()), keys, action, onlyIn});
            }
        }
    }
    const QList<QShortcut *> shortcuts = window->findChildren<QShortcut *>();
    for (QShortcut *shortcut : shortcuts) {
        const QWidget *onlyIn = shortcut->context() == Qt::WidgetShortcut ? qobject_cast<const QWidget *>(shortcut->parent()) : nullptr;
        for (const QKeySequence &keys : shortcut->keys()) {
            if (!keys.isEmpty()) {
                bindings.append({describe(shortcut, shortcut->whatsThis()), keys, shortcut, onlyIn});
            }
        }
    }
    const QList<QAbstractButton *> buttons = window->findChildren<QAbstractButton *>();
    for (QAbstractButton *button : buttons) {
        // Not the Alt+letter of a button's mnemonic: those only act on the
        // page that shows the button, and Qt cycles through equal ones.
        if (!button->shortcut().isEmpty() && button->shortcut() != QKeySequence::mnemonic(button->text())) {
            bindings.append({describe(button, button->text()), button->shortcut(), button, nullptr});
        }
    }
    return bindings;
}

// "Ctrl+Shift+E: file_flush_evict (Flush and Evict), memory_export_plot
// (Export Plot…)", one line for each key sequence bound twice.
QStringList shortcutClashes(QWidget *window)
{
    const QList<Binding> bindings = bindingsOf(window);
    QStringList clashes;
    QSet<QString> reported;
    for (qsizetype i = 0; i < bindings.size(); ++i) {
        QStringList who{bindings[i].who};
        for (qsizetype j = 0; j < bindings.size(); ++j) {
            const bool bothWidgetOnly = bindings[i].onlyIn && bindings[j].onlyIn;
            if (j != i && bindings[j].keys == bindings[i].keys && bindings[j].source != bindings[i].source
                && !(bothWidgetOnly && bindings[i].onlyIn != bindings[j].onlyIn)) {
                who << bindings[j].who;
            }
        }
        const QString keys = bindings[i].keys.toString(QKeySequence::PortableText);
        if (who.size() > 1 && !reported.contains(keys)) {
            reported.insert(keys);
            who.sort();
            clashes << QStringLiteral("%1: %2").arg(keys, who.join(QStringLiteral(", ")));
        }
    }
    return clashes;
}

// KDE's standard shortcuts that mean something in a whole window (File, Edit,
// View, Go, Settings, Help), with the name of the standard action that owns
// each. Left out are those that only act inside a text field or a list
// (completion, word and line movement, paging): a window action on one of
// those keys is not ambiguous.
QHash<QString, QString> windowStandardShortcuts()
{
    using KStandardShortcut::StandardShortcut;
    const QSet<int> onlyInsideAField = {
        StandardShortcut::PasteSelection,
        StandardShortcut::DeleteWordBack,
        StandardShortcut::DeleteWordForward,
        StandardShortcut::BeginningOfLine,
        StandardShortcut::EndOfLine,
        StandardShortcut::BackwardWord,
        StandardShortcut::ForwardWord,
        StandardShortcut::TextCompletion,
        StandardShortcut::PrevCompletion,
        StandardShortcut::NextCompletion,
        StandardShortcut::SubstringCompletion,
        StandardShortcut::RotateUp,
        StandardShortcut::RotateDown,
        StandardShortcut::Prior,
        StandardShortcut::Next,
        StandardShortcut::Up,
        StandardShortcut::Begin,
        StandardShortcut::End,
    };
    QHash<QString, QString> owners; // portable key text -> standard shortcut name
    for (int id = StandardShortcut::AccelNone + 1; id < StandardShortcut::StandardShortcutCount; ++id) {
        const auto standard = StandardShortcut(id);
        if (onlyInsideAField.contains(id)) {
            continue;
        }
        for (const QKeySequence &keys : KStandardShortcut::shortcut(standard)) {
            owners.insert(keys.toString(QKeySequence::PortableText), KStandardShortcut::name(standard));
        }
    }
    return owners;
}

// Every control a person can tab to that a screen reader could not name:
// no name of its own, from its text or its buddy label, and no label
// related to it (combo boxes on Linux: Qt names them by their text and
// relates their label).
QStringList unnamedControls(QWidget *root)
{
    QStringList unnamed;
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    for (QWidget *widget : std::as_const(widgets)) {
        if (!(widget->focusPolicy() & Qt::TabFocus) || widget->objectName().startsWith(QLatin1String("qt_"))) {
            continue;
        }
        // Parts of a named control (a spin box's line edit, a combo box's
        // line edit and list), scroll bars and scroll areas around a pane,
        // tab widgets and tab bars, whose tabs carry the names, and labels,
        // whose text is their name.
        QWidget *parent = widget->parentWidget();
        const auto insideCombo = [widget] {
            for (QWidget *above = widget->parentWidget(); above; above = above->parentWidget()) {
                if (qobject_cast<QComboBox *>(above)) {
                    return true;
                }
            }
            return false;
        };
        if (qobject_cast<QScrollBar *>(widget) || qobject_cast<QTabBar *>(widget) || qobject_cast<QTabWidget *>(widget) || qobject_cast<QLabel *>(widget)
            || widget->metaObject() == &QScrollArea::staticMetaObject || qobject_cast<QAbstractSpinBox *>(parent) || insideCombo()) {
            continue;
        }
        QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(widget);
        if (!iface) {
            continue;
        }
        if (iface->text(QAccessible::Name).trimmed().isEmpty() && iface->relations(QAccessible::Label).isEmpty()) {
            unnamed << QStringLiteral("%1 \"%2\" in %3")
                           .arg(QString::fromLatin1(widget->metaObject()->className()),
                                widget->objectName(),
                                parent ? QString::fromLatin1(parent->metaObject()->className()) + QLatin1Char(' ') + parent->objectName() : QString());
        }
    }
    return unnamed;
}
} // namespace

class AppTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // Keep the window's saved size, splitters and shortcuts out of the
        // real config, and out of other tests' (~/.qttest is shared).
        qputenv("HOME", QFile::encodeName(QString::fromStdString(TestUtil::scratchDir("apptest-home"))));
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

    // The tabs beside the plots come from the keyboard (Alt+1 to Alt+4) and
    // the View menu, and Refresh Cache Map shows the map and walks it.
    void tabsFromTheKeyboard()
    {
        MainWindow window;
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTabWidget *tabs = window.memoryPanel()->tabs();
        auto *viewMenu = qobject_cast<QMenu *>(window.guiFactory()->container(QStringLiteral("view"), &window));
        QVERIFY(viewMenu);
        const struct {
            const char *action;
            const char *tab;
            Qt::Key key;
        } expected[] = {
            {"view_show_applications", "Applications", Qt::Key_3},
            {"view_show_activity", "Activity", Qt::Key_2},
            {"view_show_memory", "Memory", Qt::Key_1},
        };
        for (const auto &e : expected) {
            QAction *action = window.actionCollection()->action(QString::fromLatin1(e.action));
            QVERIFY2(action, e.action);
            QVERIFY(viewMenu->actions().contains(action));
            QCOMPARE(action->shortcut(), QKeySequence(Qt::ALT | e.key));
            tabs->setCurrentIndex((tabs->currentIndex() + 1) % tabs->count()); // somewhere else first
            QTest::keyClick(&window, e.key, Qt::AltModifier);
            QTRY_COMPARE(tabs->tabText(tabs->currentIndex()).remove(QLatin1Char('&')), QString::fromLatin1(e.tab));
        }
        QAction *refreshMap = window.actionCollection()->action(QStringLiteral("view_refresh_cache_map"));
        QVERIFY(refreshMap);
        QVERIFY(viewMenu->actions().contains(refreshMap));
        auto *map = window.findChild<CacheMapView *>(QStringLiteral("cacheMapView"));
        QVERIFY(map);
        refreshMap->trigger();
        QCOMPARE(tabs->currentWidget(), map);
        QVERIFY(map->isMapping() || map->isComplete());
        QTRY_VERIFY_WITH_TIMEOUT(!map->isMapping() && map->isComplete(), 120000);
        // Again: a new walk of the same folder.
        refreshMap->trigger();
        QVERIFY(map->isMapping());
        QTRY_VERIFY_WITH_TIMEOUT(!map->isMapping() && map->isComplete(), 120000);
    }

    // Ctrl+Shift+E was Flush and Evict and Export Plot at once: KDE then asks
    // which one was meant and runs neither. Every key sequence of a window
    // belongs to one thing in it.
    void noShortcutIsBoundTwice()
    {
        MainWindow window;
        const QList<Binding> bindings = bindingsOf(&window);
        // The walk sees the standard actions and the panels' own.
        const auto bound = [&bindings](const QString &name) {
            return std::any_of(bindings.begin(), bindings.end(), [&name](const Binding &b) {
                return b.source->objectName() == name;
            });
        };
        QVERIFY(bound(QStringLiteral("file_quit")));
        QVERIFY(bound(QStringLiteral("options_configure_keybinding")));
        QVERIFY(bound(QStringLiteral("file_evict")));
        QVERIFY(bound(QStringLiteral("file_flush_evict")));
        QVERIFY(bound(QStringLiteral("memory_export_plot")));
        const QStringList clashes = shortcutClashes(&window);
        QVERIFY2(clashes.isEmpty(), qPrintable(QStringLiteral("bound twice in the main window: ") + clashes.join(QStringLiteral("; "))));

        ExperimentsWindow experiments;
        const QStringList experimentClashes = shortcutClashes(&experiments);
        QVERIFY2(experimentClashes.isEmpty(),
                 qPrintable(QStringLiteral("bound twice in the Experiments window: ") + experimentClashes.join(QStringLiteral("; "))));
    }

    // The walk itself: a clash made on purpose is found and named.
    void aClashIsReportedWithBothActions()
    {
        MainWindow window;
        QAction *extra = window.actionCollection()->addAction(QStringLiteral("test_extra"));
        extra->setText(QStringLiteral("&Extra"));
        extra->setShortcut(window.actionCollection()->action(QStringLiteral("file_evict"))->shortcut());
        const QStringList clashes = shortcutClashes(&window);
        QCOMPARE(clashes.size(), 1);
        QVERIFY2(clashes.first().contains(QStringLiteral("file_evict")) && clashes.first().contains(QStringLiteral("test_extra (Extra)")),
                 qPrintable(clashes.first()));
    }

    // Cachescope's own actions keep off the keys KDE gives its standard
    // actions in every application (Ctrl+Shift+F full screen, Ctrl+M menu
    // bar, F2 rename ...), so that muscle memory from other KDE
    // applications never triggers an eviction.
    void ownShortcutsKeepOffKdeStandardOnes()
    {
        MainWindow window;
        QHash<QString, KStandardShortcut::StandardShortcut> standardOfAction;
        for (int id = KStandardActions::ActionNone + 1; id <= KStandardActions::HamburgerMenu; ++id) {
            const QString name = KStandardActions::name(KStandardActions::StandardAction(id));
            if (!name.isEmpty()) {
                standardOfAction.insert(name, KStandardActions::shortcutForActionId(KStandardActions::StandardAction(id)));
            }
        }
        // Actions that take a standard shortcut for the standard's meaning:
        // Add Files opens files (Open), Refresh reloads (Reload), Remove
        // from List deletes the selected rows (Delete, as Move to Trash).
        standardOfAction.insert(QStringLiteral("file_add_files"), KStandardShortcut::Open);
        standardOfAction.insert(QStringLiteral("view_refresh"), KStandardShortcut::Reload);
        standardOfAction.insert(QStringLiteral("file_remove"), KStandardShortcut::MoveToTrash);
        const QHash<QString, QString> owners = windowStandardShortcuts();
        QStringList taken;
        for (const Binding &binding : bindingsOf(&window)) {
            const QString keys = binding.keys.toString(QKeySequence::PortableText);
            const auto owner = owners.constFind(keys);
            if (owner == owners.constEnd()) {
                continue;
            }
            const auto standard = standardOfAction.constFind(binding.source->objectName());
            if (standard != standardOfAction.constEnd() && KStandardShortcut::name(*standard) == *owner) {
                continue; // the standard action itself
            }
            taken << QStringLiteral("%1 takes %2, KDE's %3").arg(binding.who, keys, *owner);
        }
        QVERIFY2(taken.isEmpty(), qPrintable(taken.join(QStringLiteral("; "))));
    }

    // At 1300x930 the list had room for six rows: the heatmap and the plots
    // took two thirds of the height. Now the list takes what the window
    // grows by and the panels below start near their minimum (the plots stay
    // readable, the heatmap shows its grid and legend): at least 40 % of
    // the window's height and 16 rows for the list.
    void theListGetsTheRoom()
    {
        KSharedConfig::openStateConfig()->deleteGroup(QStringLiteral("MainWindowLayout"));
        const std::string folder = TestUtil::scratchDir("apptest-rows");
        QList<QUrl> files;
        for (int i = 0; i < 40; ++i) {
            const std::string path = folder + "/file-" + std::to_string(100 + i);
            TestUtil::makeColdFile(path, 4096);
            files << QUrl::fromLocalFile(QString::fromStdString(path));
        }
        MainWindow window;
        window.resize(1300, 930);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.filesPanel()->inspectUrls(files);
        auto *list = qobject_cast<QTreeView *>(window.filesSplitter()->widget(0));
        QVERIFY(list);
        QTRY_COMPARE(list->model()->rowCount(), 40);
        const int rowHeight = list->visualRect(list->model()->index(0, 0)).height();
        QVERIFY(rowHeight > 0);
        const int rowsShown = list->viewport()->height() / rowHeight;
        qInfo() << "at 1300x930: list" << list->viewport()->height() << "px," << rowsShown << "rows of" << rowHeight << "px; main splitter"
                << window.splitter()->sizes() << "files splitter" << window.filesSplitter()->sizes();
        QVERIFY2(list->viewport()->height() * 10 >= window.height() * 4, qPrintable(QString::number(list->viewport()->height())));
        QVERIFY2(rowsShown >= 16, qPrintable(QString::number(rowsShown)));
        // The plots and the heatmap are still there to be read.
        QVERIFY(window.splitter()->sizes().at(1) >= window.memoryPanel()->minimumSizeHint().height());
        QVERIFY(window.filesSplitter()->sizes().at(1) > 0);

        // Growing the window grows the list; the panels below keep their height.
        const QList<int> before = window.splitter()->sizes();
        window.resize(1300, 1100);
        QTRY_COMPARE(window.splitter()->sizes().at(1), before.at(1));
        QVERIFY(window.splitter()->sizes().at(0) > before.at(0));
    }

    // Splitters moved (the heatmap collapsed, the plots made smaller) stay
    // so in the next window, as after a restart.
    void splittersAreRestoredInANewWindow()
    {
        KSharedConfig::openStateConfig()->deleteGroup(QStringLiteral("MainWindowLayout"));
        QList<int> mainSizes;
        {
            MainWindow window;
            window.resize(1300, 930);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            const int total = window.splitter()->sizes().at(0) + window.splitter()->sizes().at(1);
            window.splitter()->setSizes({total - 300, 300});
            mainSizes = window.splitter()->sizes();
            const int files = window.filesSplitter()->sizes().at(0) + window.filesSplitter()->sizes().at(1);
            window.filesSplitter()->setSizes({files, 0});
            QCOMPARE(window.filesSplitter()->sizes().at(1), 0);
            QVERIFY(window.close());
        }
        MainWindow window;
        window.resize(1300, 930);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.splitter()->sizes(), mainSizes);
        QCOMPARE(window.filesSplitter()->sizes().at(1), 0);
        QVERIFY(window.filesSplitter()->sizes().at(0) > 0);
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

    // A screen reader gets the memory plots' latest figures as their
    // description, written at each sample only while one listens.
    void plotsDescribeTheirLatestValues()
    {
        std::optional<AccessibleEvents::Listening> listening(std::in_place);
        MemoryPanel panel;
        MemorySample sample;
        sample.time = 10;
        sample.figures.total = 16ULL << 30;
        sample.figures.used = 3ULL << 30;
        sample.figures.free = 10ULL << 30;
        sample.figures.buffers = 100ULL << 20;
        sample.figures.cache = 2ULL << 30;
        sample.figures.available = 12ULL << 30;
        sample.dirty = 5ULL << 20;
        sample.rates = VmStatRates{};
        sample.rates->readKiBPerSecond = 2048;
        panel.addSample(sample);
        const QString memory = panel.plot()->accessibleDescription();
        QVERIFY2(memory.contains(QStringLiteral("Cache %1").arg(Cachescope::formatBytes(2ULL << 30, Cachescope::ByteStyle::OneDecimal, QLocale()))),
                 qPrintable(memory));
        QVERIFY2(memory.contains(QStringLiteral("Free %1").arg(Cachescope::formatBytes(10ULL << 30, Cachescope::ByteStyle::OneDecimal, QLocale()))),
                 qPrintable(memory));
        QVERIFY2(memory.contains(QStringLiteral("Dirty %1").arg(Cachescope::formatBytes(5ULL << 20, Cachescope::ByteStyle::OneDecimal, QLocale()))),
                 qPrintable(memory));
        QVERIFY2(panel.ratesPlot()->accessibleDescription().contains(QStringLiteral("Read from disk 2.0 MiB/s")),
                 qPrintable(panel.ratesPlot()->accessibleDescription()));
        QVERIFY(!panel.plot()->accessibleName().isEmpty());

        // The next sample's figures replace them.
        sample.time = 11;
        sample.figures.cache = 3ULL << 30;
        panel.addSample(sample);
        QVERIFY(panel.plot()->accessibleDescription().contains(
            QStringLiteral("Cache %1").arg(Cachescope::formatBytes(3ULL << 30, Cachescope::ByteStyle::OneDecimal, QLocale()))));

        // With no assistive technology listening, nothing is written.
        listening.reset();
        sample.time = 12;
        sample.figures.cache = 4ULL << 30;
        panel.addSample(sample);
        QVERIFY(panel.plot()->accessibleDescription().contains(
            QStringLiteral("Cache %1").arg(Cachescope::formatBytes(3ULL << 30, Cachescope::ByteStyle::OneDecimal, QLocale()))));
    }

    // The experiments' plots: each line of the legend with its latest
    // value, or each of its points, each bar with its label, in the unit
    // their axis names; parts out of the legend (a band's edges) left out.
    void plotDescriptionsReadLinesAndBars()
    {
        QCustomPlot plot;
        plot.legend->setVisible(true);
        plot.yAxis->setLabel(QStringLiteral("Page cache (MiB)"));
        QCPGraph *cache = plot.addGraph();
        cache->setName(QStringLiteral("Page cache (right scale)"));
        cache->setData({0, 1, 2}, {10, 64.25, std::numeric_limits<double>::quiet_NaN()});
        QCPGraph *edge = plot.addGraph();
        edge->setName(QStringLiteral("edge"));
        edge->removeFromLegend();
        edge->setData({0}, {3});
        QCOMPARE(plotDescription(&plot), QStringLiteral("Page cache 64.3 MiB"));
        QCOMPARE(plotDescription(&plot, PlotValues::Every), QStringLiteral("Page cache: 0 10.0 MiB, 1 64.3 MiB"));

        QCustomPlot bars;
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        ticker->addTick(1, QStringLiteral("cold"));
        ticker->addTick(2, QStringLiteral("warm"));
        bars.xAxis->setTicker(ticker);
        bars.yAxis->setLabel(QStringLiteral("Read time (ms)"));
        auto *thisRun = new QCPBars(bars.xAxis, bars.yAxis);
        thisRun->setName(QStringLiteral("This run"));
        thisRun->setData({1, 2}, {120, 3.5});
        QCOMPARE(plotDescription(&bars), QStringLiteral("cold 120 ms, warm 3.50 ms"));
    }

    // Every control a person can tab to has a name a screen reader can say,
    // in the main window, the Experiments window, the settings and the dialogs.
    void everyControlIsNamed()
    {
        MainWindow window;
        QStringList unnamed = unnamedControls(&window);
        ExperimentsWindow experiments;
        unnamed << unnamedControls(&experiments);
        CacheLimitDialog limit;
        unnamed << unnamedControls(&limit);
        HandbookViewer handbook(QUrl::fromLocalFile(QDir::tempPath() + QStringLiteral("/index.html")));
        unnamed << unnamedControls(&handbook);
        QAction *settings = window.actionCollection()->action(QStringLiteral("options_configure"));
        QVERIFY(settings);
        settings->trigger();
        KConfigDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<KConfigDialog *>()));
        // Our pages of it (KPageDialog's own search field and list are KDE's).
        QSet<QWidget *> pages;
        for (QWidget *setting : dialog->findChildren<QWidget *>()) {
            if (setting->objectName().startsWith(QLatin1String("kcfg_"))) {
                pages.insert(setting->parentWidget());
            }
        }
        QCOMPARE(pages.size(), 2);
        for (QWidget *settingsPage : std::as_const(pages)) {
            unnamed << unnamedControls(settingsPage);
        }
        dialog->close();
        QVERIFY2(unnamed.isEmpty(), qPrintable(QStringLiteral("no accessible name: ") + unnamed.join(QStringLiteral("; "))));
    }
};

QTEST_MAIN(AppTest)
#include "apptest.moc"
