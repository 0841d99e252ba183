// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Help > Cachescope Handbook: the window's help menu has the action, it is
// enabled, and triggering it opens help:/ for this application where
// KHelpCenter is installed (KHelpClient), else the window's own viewer with
// the handbook's HTML pages, built beside the program. KHelpClient
// names help:/cachescope/index.html, which is where the handbook is
// installed (docs/handbook/CMakeLists.txt: share/doc/HTML/en/cachescope/),
// and the desktop file's X-DocPath says the same. The help: scheme is caught
// with QDesktopServices::setUrlHandler.

#include "handbookviewer.h"
#include "mainwindow.h"

#include <KAboutData>
#include <KActionCollection>
#include <KDesktopFile>
#include <KHelpClient>
#include <KMessageWidget>
#include <KXMLGUIFactory>

#include <QAction>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QStandardPaths>
#include <QTest>
#include <QTextBrowser>
#include <QUrl>

using namespace Cachescope::App;

class HelpUrlCatcher : public QObject
{
    Q_OBJECT
public:
    QList<QUrl> urls;

public Q_SLOTS:
    void openUrl(const QUrl &url)
    {
        urls.append(url);
    }
};

class HandbookMenuTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        // As main.cpp sets it up: the component name names the handbook's folder.
        KAboutData about(QStringLiteral("cachescope"), QStringLiteral("Cachescope"), QStringLiteral("0"));
        about.setDesktopFileName(QStringLiteral("org.kde.cachescope"));
        KAboutData::setApplicationData(about);
    }

    void helpMenuOpensTheHandbook()
    {
        MainWindow window;
        QAction *handbook = window.actionCollection()->action(QStringLiteral("help_contents"));
        QVERIFY2(handbook, "the window has no help_contents action (Help > Cachescope Handbook)");
        QCOMPARE(handbook->text().remove(QLatin1Char('&')), QStringLiteral("Cachescope Handbook"));
        QVERIFY(handbook->isEnabled());

        // It is in the Help menu the user sees, not only in the collection.
        auto *helpMenu = qobject_cast<QMenu *>(window.guiFactory()->container(QStringLiteral("help"), &window));
        QVERIFY2(helpMenu, "the window has no Help menu");
        QVERIFY(helpMenu->actions().contains(handbook));

        HelpUrlCatcher catcher;
        QDesktopServices::setUrlHandler(QStringLiteral("help"), &catcher, "openUrl");
        QDesktopServices::setUrlHandler(QStringLiteral("file"), &catcher, "openUrl");
        handbook->trigger();
        QDesktopServices::unsetUrlHandler(QStringLiteral("help"));
        QDesktopServices::unsetUrlHandler(QStringLiteral("file"));
        if (HandbookViewer::helpCenterInstalled()) {
            QCOMPARE(catcher.urls.size(), 1);
            QCOMPARE(catcher.urls.first().scheme(), QStringLiteral("help"));
        } else {
            // No help viewer (tools/dev run's root, a minimal desktop): the
            // window's own shows the handbook's pages, built with the program.
            QVERIFY2(catcher.urls.isEmpty(), qPrintable(catcher.urls.value(0).toString()));
            auto *viewer = window.findChild<HandbookViewer *>();
            QVERIFY2(viewer, "Help > Cachescope Handbook showed nothing without KHelpCenter");
            QVERIFY(viewer->isVisible());
            QCOMPARE(viewer->currentPage().fileName(), QStringLiteral("index.html"));
            const QString text = viewer->browser()->toPlainText();
            QVERIFY2(text.contains(QStringLiteral("The Cachescope Handbook")), qPrintable(text.left(300)));
            QVERIFY(viewer->findChild<KMessageWidget *>()->text().contains(QStringLiteral("KHelpCenter")));
            if (const QString shots = qEnvironmentVariable("CACHESCOPE_SCREENSHOT_DIR"); !shots.isEmpty()) {
                QDir().mkpath(shots);
                QVERIFY(viewer->grab().save(shots + QStringLiteral("/handbook-viewer.png")));
            }
            // A chapter's link stays in the viewer; F1 again raises the same window.
            const QString chapter = viewer->currentPage().resolved(QUrl(QStringLiteral("cache-map.html"))).toLocalFile();
            QVERIFY2(QFileInfo::exists(chapter), qPrintable(chapter));
            Q_EMIT viewer->browser()->anchorClicked(QUrl(QStringLiteral("cache-map.html")));
            QCOMPARE(viewer->currentPage().fileName(), QStringLiteral("cache-map.html"));
            QVERIFY(viewer->browser()->toPlainText().contains(QStringLiteral("Cache Map")));
            handbook->trigger();
            QCOMPARE(window.findChildren<HandbookViewer *>().size(), 1);
            QVERIFY(catcher.urls.isEmpty());
            viewer->close();
        }
        catcher.urls.clear();

        // What help:/ becomes for this application.
        QDesktopServices::setUrlHandler(QStringLiteral("help"), &catcher, "openUrl");
        KHelpClient::invokeHelp(QString(), KAboutData::applicationData().componentName());
        QDesktopServices::unsetUrlHandler(QStringLiteral("help"));
        QCOMPARE(catcher.urls.size(), 1);
        QCOMPARE(catcher.urls.last(), QUrl(QStringLiteral("help:/cachescope/index.html")));
        // Help centres and KService find it through the desktop file.
        const KDesktopFile desktopFile(QStringLiteral(CACHESCOPE_DESKTOP_FILE));
        QCOMPARE(desktopFile.readDocPath(), QStringLiteral("cachescope/index.html"));
    }
};

QTEST_MAIN(HandbookMenuTest)
#include "handbookmenutest.moc"
