// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "commandline.h"
#include "processlimits.h"
#include "session.h"

#include "cachescope_version.h"

#include <KAboutData>
#include <KCrash>
#include <KDBusService>
#include <KIconTheme>
#include <KLocalizedString>
#include <KSignalHandler>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>

#include <csignal>
#include <cstdio>

namespace
{

QtMessageHandler previousMessageHandler = nullptr;

// One line Cachescope cannot prevent: KConfig 6.13's KConfigWatcher keeps
// its watchers in a function-local QThreadStorage that exit() destroys
// before KConfigGui's KStandardShortcut watcher, whose destruction writes
// to it again; Qt then says "QThreadStorage: Thread … exited after
// QThreadStorage N destroyed" as the main thread ends. Nothing is lost (the
// process is ending). Installed only once main() returns; every other
// message goes on as before.
void dropLibraryNoiseAtExit(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (type == QtWarningMsg && message.startsWith(QLatin1String("QThreadStorage: Thread "))
        && message.contains(QLatin1String(" exited after QThreadStorage "))) {
        return;
    }
    if (previousMessageHandler) {
        previousMessageHandler(type, context, message);
        return;
    }
    std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

} // namespace

int main(int argc, char **argv)
{
    using namespace Cachescope::App;

    // The window walks folders too (files panel, top cached files).
    Cachescope::raiseOpenFileLimit();
    // Breeze icons and the KDE icon engine also outside Plasma; must come
    // before the application object.
    KIconTheme::initTheme();
    QApplication app(argc, argv);
    KLocalizedString::setApplicationDomain("cachescope");

    KAboutData about(QStringLiteral("cachescope"),
                     i18nc("@title", "Cachescope"),
                     QStringLiteral(CACHESCOPE_VERSION_STRING),
                     i18nc("@info", "See and steer the Linux page cache"),
                     KAboutLicense::GPL_V2,
                     i18nc("@info:credit", "© 2026 Cachescope developers"));
    about.setLicense(KAboutLicense::GPL_V2, KAboutLicense::OrLaterVersions);
    about.setDesktopFileName(QStringLiteral("org.kde.cachescope"));
    KAboutData::setApplicationData(about);
    // Installed, the icon comes from the hicolor theme; run from the build
    // folder, from the copy compiled in.
    app.setWindowIcon(QIcon::fromTheme(QStringLiteral("org.kde.cachescope"), QIcon(QStringLiteral(":/icons/org.kde.cachescope.svg"))));

    KCrash::initialize();

    // The session's end (logout) and Ctrl+C end the event loop rather than
    // the process: the window then goes in order, and what it started with
    // administrator rights in this process (as root) is undone. Before any
    // window: a window's work may start as soon as it shows.
    for (const int signal : {SIGTERM, SIGINT, SIGHUP}) {
        KSignalHandler::self()->watchSignal(signal);
    }
    QObject::connect(KSignalHandler::self(), &KSignalHandler::signalReceived, &app, &QCoreApplication::quit);

    QCommandLineParser parser;
    setUpCommandLine(parser);
    parser.process(app);
    about.processCommandLine(&parser);

    // A second start hands its arguments to the running process (below) and
    // ends here, before it makes a window of its own.
    KDBusService service(KDBusService::Unique);

    if (QIcon::themeName().isEmpty()) {
        QIcon::setThemeName(QStringLiteral("breeze"));
    }

    // The window, or for Dolphin's "Evict from Page Cache" with no window
    // open only a notification of what was freed; later starts land here too.
    Session session;
    QObject::connect(&service, &KDBusService::activateRequested, &session, &Session::activate);
    QObject::connect(&session, &Session::done, &app, &QCoreApplication::quit);
    session.start({urlsFromArguments(parser.positionalArguments(), QDir::currentPath()), parser.isSet(QStringLiteral("evict"))});

    const int status = app.exec();
    previousMessageHandler = qInstallMessageHandler(dropLibraryNoiseAtExit);
    return status;
}
