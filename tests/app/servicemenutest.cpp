// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Dolphin's service menu: the order KIO gives its actions (Inspect first),
// and "Evict from Page Cache" with no window open: the files leave the page
// cache, a notification says what was freed, no window opens. Notifications
// go to a small org.freedesktop.Notifications server of the test's own on
// the session bus (the test runs under dbus-run-session).

#include "files/filesmodel.h"
#include "format.h"
#include "mainwindow.h"
#include "residency.h"
#include "session.h"
#include "testutil.h"

#include <KAboutData>
#include <KFileItem>
#include <KFileItemActions>
#include <KFileItemListProperties>
#include <KMessageWidget>

#include <QApplication>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSplitter>
#include <QTest>
#include <QTreeView>

#include <sys/stat.h>

#include <filesystem>

using namespace Cachescope::App;

namespace
{

const QString notificationsPath = QStringLiteral("/org/freedesktop/Notifications");
const QString notificationsService = QStringLiteral("org.freedesktop.Notifications");

// The menu KIO hands Dolphin for one item, and in it the "Page Cache" submenu's entries in order
// ("---" for a separator).
QStringList pageCacheSubmenu(const KFileItem &item)
{
    KFileItemActions actions;
    actions.setItemListProperties(KFileItemListProperties(KFileItemList{item}));
    QMenu menu;
    actions.addActionsTo(&menu, KFileItemActions::MenuActionSource::Services);
    QList<QMenu *> menus{&menu};
    while (!menus.isEmpty()) {
        QMenu *current = menus.takeFirst();
        for (QAction *action : current->actions()) {
            if (!action->menu()) {
                continue;
            }
            if (action->menu()->title() == QLatin1String("Page Cache")) {
                QStringList entries;
                for (QAction *entry : action->menu()->actions()) {
                    entries << (entry->isSeparator() ? QStringLiteral("---") : entry->text());
                }
                return entries;
            }
            menus << action->menu();
        }
    }
    return {};
}

} // namespace

// org.freedesktop.Notifications as far as KNotification uses it: what it was
// asked to show, kept for the test; closing is up to the test.
class NotificationServer : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Notifications")

public:
    struct Shown {
        QString appName;
        QString summary;
        QString body;
        QStringList actions;
    };
    QList<Shown> shown;

    void closeAll()
    {
        for (uint id = 1; id <= uint(shown.size()); ++id) {
            Q_EMIT NotificationClosed(id, 1); // 1: expired
        }
    }

public Q_SLOTS:
    uint Notify(const QString &appName,
                uint replacesId,
                const QString &appIcon,
                const QString &summary,
                const QString &body,
                const QStringList &actions,
                const QVariantMap &hints,
                int timeout)
    {
        Q_UNUSED(replacesId)
        Q_UNUSED(appIcon)
        Q_UNUSED(hints)
        Q_UNUSED(timeout)
        shown.append({appName, summary, body, actions});
        return uint(shown.size());
    }
    void CloseNotification(uint id)
    {
        Q_EMIT NotificationClosed(id, 3); // 3: closed by a call
    }
    QStringList GetCapabilities()
    {
        // As Plasma's server: bodies are markup.
        return {QStringLiteral("body"), QStringLiteral("body-markup"), QStringLiteral("actions")};
    }
    QString GetServerInformation(QString &vendor, QString &version, QString &specVersion)
    {
        vendor = QStringLiteral("Cachescope tests");
        version = QStringLiteral("1");
        specVersion = QStringLiteral("1.2");
        return QStringLiteral("servicemenutest");
    }

Q_SIGNALS:
    void NotificationClosed(uint id, uint reason);
    void ActionInvoked(uint id, const QString &actionKey);
};

class ServiceMenuTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(QDBusConnection::sessionBus().isConnected(), "no session bus: run under dbus-run-session");
        m_home = QString::fromStdString(TestUtil::scratchDir("servicemenutest-home"));
        qputenv("HOME", QFile::encodeName(m_home));
        qputenv("XDG_CONFIG_HOME", QFile::encodeName(m_home + QStringLiteral("/.config")));
        qputenv("XDG_DATA_HOME", QFile::encodeName(m_home + QStringLiteral("/.local/share")));
        // Where KIO finds service menus and KNotification the notifyrc, as
        // if installed: the source's own files, copied as they are now.
        const QString data = m_home + QStringLiteral("/data");
        QVERIFY(QDir().mkpath(data + QStringLiteral("/kio/servicemenus")));
        QVERIFY(QDir().mkpath(data + QStringLiteral("/knotifications6")));
        QVERIFY(QFile::copy(QStringLiteral(CACHESCOPE_SOURCE_DIR "/resources/servicemenus/cachescope-servicemenu.desktop"),
                            data + QStringLiteral("/kio/servicemenus/cachescope-servicemenu.desktop")));
        QVERIFY(
            QFile::copy(QStringLiteral(CACHESCOPE_SOURCE_DIR "/resources/cachescope.notifyrc"), data + QStringLiteral("/knotifications6/cachescope.notifyrc")));
        qputenv("XDG_DATA_DIRS", QFile::encodeName(data + QStringLiteral(":/usr/local/share:/usr/share")));

        KAboutData about(QStringLiteral("cachescope"), QStringLiteral("Cachescope"), QStringLiteral("0"));
        KAboutData::setApplicationData(about);

        // The notification server, on a connection of its own.
        m_serverBus = std::make_unique<QDBusConnection>(QDBusConnection::connectToBus(QDBusConnection::SessionBus, QStringLiteral("notification-server")));
        QVERIFY(m_serverBus->isConnected());
        QVERIFY(m_serverBus->registerObject(notificationsPath, &m_server, QDBusConnection::ExportAllSlots | QDBusConnection::ExportAllSignals));
        QVERIFY2(m_serverBus->registerService(notificationsService), "another notification server owns org.freedesktop.Notifications on this bus");
        m_scratch = TestUtil::scratchDir("servicemenutest");
    }

    void init()
    {
        m_server.shown.clear();
    }

    void cleanupTestCase()
    {
        if (m_serverBus) {
            m_serverBus->unregisterService(notificationsService);
            QDBusConnection::disconnectFromBus(QStringLiteral("notification-server"));
        }
    }

    // KIO sorts the actions of a service menu by name between separators
    // (KFileItemActions, which builds Dolphin's context menu); "Evict" would
    // come before "Inspect". As Dolphin shows it, for a file and a folder:
    void inspectComesFirstInDolphinsMenu()
    {
        const std::string file = m_scratch + "/menu.bin";
        TestUtil::makeColdFile(file, 4096);
        const KFileItem fileItem(QUrl::fromLocalFile(QString::fromStdString(file)), QStringLiteral("application/octet-stream"), S_IFREG);
        const KFileItem folderItem(QUrl::fromLocalFile(QString::fromStdString(m_scratch)), QStringLiteral("inode/directory"), S_IFDIR);
        const QStringList order{QStringLiteral("Inspect Page Cache"), QStringLiteral("Evict from Page Cache")};
        const auto withoutSeparators = [](QStringList entries) {
            entries.removeAll(QStringLiteral("---"));
            return entries;
        };
        QCOMPARE(withoutSeparators(pageCacheSubmenu(fileItem)), order);
        QCOMPARE(withoutSeparators(pageCacheSubmenu(folderItem)), order);
        // A separator between them keeps that order whatever the names
        // become in a translation.
        const QStringList expected{order.at(0), QStringLiteral("---"), order.at(1)};
        QCOMPARE(pageCacheSubmenu(fileItem), expected);
        QCOMPARE(pageCacheSubmenu(folderItem), expected);
    }

    // With no window open, the eviction reports in a notification and no
    // window opens; the process is done when the notification is closed.
    void evictWithoutWindowNotifies()
    {
        const std::string file = m_scratch + "/evict.bin";
        const uint64_t size = 1 << 20;
        TestUtil::makeColdFile(file, size);
        TestUtil::readRange(file, 0, size);
        QCOMPARE(TestUtil::pagesNow(file).resident, size / Cachescope::pageSize());

        Session session;
        QSignalSpy done(&session, &Session::done);
        session.start({{QUrl::fromLocalFile(QString::fromStdString(file))}, true});
        QVERIFY(!session.window());
        QCOMPARE(session.runningEvictions(), 1);

        QTRY_COMPARE_WITH_TIMEOUT(m_server.shown.size(), qsizetype(1), 30000);
        const NotificationServer::Shown &shown = m_server.shown.first();
        // The notifyrc was found: its [Global] name is the application's.
        QCOMPARE(shown.appName, QStringLiteral("Cachescope"));
        QCOMPARE(shown.summary, QStringLiteral("Evicted from the Page Cache"));
        // What was freed, as the window would say it: at most the file,
        // and more than nothing (the kernel may have paged out a few of its
        // pages itself since they were read).
        const QRegularExpression freed(QStringLiteral("^Evicted 1 file from the page cache: (.+) freed\\."));
        const QRegularExpressionMatch match = freed.match(shown.body);
        QVERIFY2(match.hasMatch(), qPrintable(shown.body));
        QVERIFY2(match.captured(1) != QStringLiteral("0 B"), qPrintable(shown.body));
        QVERIFY2(match.captured(1).endsWith(QStringLiteral("KiB")) || match.captured(1) == QStringLiteral("1.0 MiB"), qPrintable(shown.body));
        QVERIFY(shown.actions.contains(QStringLiteral("Inspect in Cachescope")));
        QCOMPARE(TestUtil::pagesNow(file).resident, uint64_t(0));

        // No window, shown or hidden.
        for (QWidget *widget : QApplication::topLevelWidgets()) {
            QVERIFY2(!qobject_cast<MainWindow *>(widget), "a main window was made");
            QVERIFY2(!widget->isVisible(), widget->metaObject()->className());
        }
        QVERIFY(!session.window());
        QCOMPARE(done.count(), 0);

        m_server.closeAll();
        QTRY_COMPARE(done.count(), 1);
        QCOMPARE(session.runningEvictions(), 0);
        QVERIFY(!session.window());
    }

    // "Inspect in Cachescope" in the notification opens the window on the
    // evicted files; a plain start meanwhile gets the window too.
    void theNotificationOpensTheWindowOnItsFiles()
    {
        const std::string file = m_scratch + "/inspect.bin";
        TestUtil::makeColdFile(file, 64 * 1024);
        const QUrl url = QUrl::fromLocalFile(QString::fromStdString(file));
        Session session;
        session.start({{url}, true});
        QTRY_COMPARE_WITH_TIMEOUT(m_server.shown.size(), qsizetype(1), 30000);
        QVERIFY(!session.window());
        const QStringList actions = m_server.shown.first().actions; // key, label, ...
        const qsizetype label = actions.indexOf(QStringLiteral("Inspect in Cachescope"));
        QVERIFY(label >= 1);
        Q_EMIT m_server.ActionInvoked(1, actions.at(label - 1));
        QTRY_VERIFY_WITH_TIMEOUT(session.window(), 10000);
        QVERIFY(session.window()->isVisible());
        QVERIFY(session.window()->findChild<QTreeView *>());
        auto *list = qobject_cast<QTreeView *>(session.window()->filesSplitter()->widget(0));
        QVERIFY(list);
        QTRY_COMPARE(list->model()->rowCount(), 1);
        QCOMPARE(list->model()->index(0, 0).data(FilesModel::PathRole).toByteArray(), QByteArray::fromStdString(file));
        m_server.closeAll();
        session.window()->close();

        // A plain second start while an eviction's notification is up.
        Session another;
        another.start({{url}, true});
        QTRY_COMPARE_WITH_TIMEOUT(m_server.shown.size(), qsizetype(2), 30000);
        QVERIFY(!another.window());
        another.activate({QStringLiteral("cachescope")}, QString::fromStdString(m_scratch));
        QVERIFY(another.window());
        QVERIFY(another.window()->isVisible());
        m_server.closeAll();
        another.window()->close();
    }

    // A path that is not there: the notification says so with the path and
    // the reason, as an error.
    void evictOfAMissingFileNotifiesTheReason()
    {
        const QString missing = QString::fromStdString(m_scratch + "/not-there.bin");
        Session session;
        session.start({{QUrl::fromLocalFile(missing)}, true});
        QTRY_COMPARE_WITH_TIMEOUT(m_server.shown.size(), qsizetype(1), 30000);
        const NotificationServer::Shown &shown = m_server.shown.first();
        QCOMPARE(shown.summary, QStringLiteral("Could Not Evict from the Page Cache"));
        QVERIFY2(shown.body.contains(missing) && shown.body.contains(QStringLiteral("No such file or directory")), qPrintable(shown.body));
        QVERIFY(!session.window());
        m_server.closeAll();
    }

    // With the window open, an eviction from the service menu reports in the
    // window as before, and no notification is sent.
    void withAWindowOpenTheWindowReports()
    {
        const std::string file = m_scratch + "/window.bin";
        TestUtil::makeColdFile(file, 64 * 1024);
        Session session;
        session.start({});
        QVERIFY(session.window());
        session.activate({QStringLiteral("cachescope"), QStringLiteral("--evict"), QStringLiteral("window.bin")}, QString::fromStdString(m_scratch));
        auto *message = session.window()->findChild<KMessageWidget *>(QStringLiteral("filesMessage")); // the files panel reports its own work
        QVERIFY(message);
        QTRY_VERIFY_WITH_TIMEOUT(message->isVisible() && message->text().startsWith(QStringLiteral("Evicted 1 file")), 30000);
        QVERIFY(m_server.shown.isEmpty());
        QCOMPARE(session.runningEvictions(), 0);
        session.window()->close();
    }

    // No notification service on the bus (and none to start): the window
    // opens and says what was freed, rather than nothing saying it at all.
    void withoutANotificationServiceTheWindowReports()
    {
        const std::string file = m_scratch + "/no-server.bin";
        TestUtil::makeColdFile(file, 64 * 1024);
        QVERIFY(m_serverBus->unregisterService(notificationsService));
        QVERIFY(!QDBusConnection::sessionBus().interface()->isServiceRegistered(notificationsService));
        Session session;
        session.start({{QUrl::fromLocalFile(QString::fromStdString(file))}, true});
        const bool registered = m_serverBus->registerService(notificationsService);
        QVERIFY(session.window());
        auto *message = session.window()->findChild<KMessageWidget *>(QStringLiteral("filesMessage")); // the files panel reports its own work
        QVERIFY(message);
        QTRY_VERIFY_WITH_TIMEOUT(message->isVisible() && message->text().startsWith(QStringLiteral("Evicted 1 file")), 30000);
        QVERIFY(registered);
        QVERIFY(m_server.shown.isEmpty());
        session.window()->close();
    }

    // Other URLs (sftp:, and trash:/ that KIO turns into a local file) are
    // for the window, which can resolve or refuse them with its message.
    void remoteUrlsGoToTheWindow()
    {
        Session session;
        session.start({{QUrl(QStringLiteral("sftp://example.org/file"))}, true});
        QVERIFY(session.window());
        auto *message = session.window()->findChild<KMessageWidget *>(QStringLiteral("filesMessage")); // the files panel reports its own work
        QVERIFY(message);
        QTRY_VERIFY(message->isVisible());
        QVERIFY2(message->text().contains(QStringLiteral("sftp://example.org/file")), qPrintable(message->text()));
        QVERIFY(m_server.shown.isEmpty());
        session.window()->close();
    }

    // The real program, as Dolphin starts it: `cachescope --evict FILE`
    // with no Cachescope running sends the notification and ends by itself
    // once it is closed.
    void theProgramEndsAfterItsNotification()
    {
        const std::string file = m_scratch + "/program.bin";
        TestUtil::makeColdFile(file, 256 * 1024);
        TestUtil::readRange(file, 0, 256 * 1024);
        QProcess program;
        program.setProcessChannelMode(QProcess::ForwardedChannels);
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        program.setProcessEnvironment(environment);
        program.start(QStringLiteral(CACHESCOPE_APP_PATH), {QStringLiteral("--evict"), QString::fromStdString(file)});
        QVERIFY(program.waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(m_server.shown.size(), qsizetype(1), 60000);
        QVERIFY2(m_server.shown.first().body.startsWith(QStringLiteral("Evicted 1 file")), qPrintable(m_server.shown.first().body));
        QCOMPARE(TestUtil::pagesNow(file).resident, uint64_t(0));
        QCOMPARE(program.state(), QProcess::Running); // until the notification goes
        m_server.closeAll();
        QTRY_COMPARE_WITH_TIMEOUT(program.state(), QProcess::NotRunning, 30000);
        QCOMPARE(program.exitStatus(), QProcess::NormalExit);
        QCOMPARE(program.exitCode(), 0);
    }

private:
    QString m_home;
    std::string m_scratch;
    NotificationServer m_server;
    std::unique_ptr<QDBusConnection> m_serverBus;
};

QTEST_MAIN(ServiceMenuTest)
#include "servicemenutest.moc"
