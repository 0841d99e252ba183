// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "cachescope_app_debug.h"
#include "commandline.h"
#include "format.h"
#include "mainwindow.h"

#include "cachescope_version.h"

#include <KAboutData>
#include <KCrash>
#include <KDBusService>
#include <KIconTheme>
#include <KLocalizedString>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QIcon>

#include <sys/resource.h>

#include <cerrno>

namespace Cachescope::App
{
namespace
{

// The core's parallel walker holds a directory descriptor open for every
// folder it is inside, in each of its threads, and the scans, evictions and
// heatmap files of the window add their own: a deep tree walked by several
// threads passes the usual soft limit of 1,024 descriptors. The hard limit
// is ours to use. The library leaves process-wide limits alone, so the
// program decides here, once, before anything is opened.
void raiseOpenFileLimit()
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) {
        return;
    }
    limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
        qCWarning(CACHESCOPE_APP) << "cannot raise the limit of open files:" << errnoQText(errno);
    }
}

} // namespace
} // namespace Cachescope::App

int main(int argc, char **argv)
{
    using namespace Cachescope::App;

    raiseOpenFileLimit();
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

    QCommandLineParser parser;
    setUpCommandLine(parser);
    parser.process(app);
    about.processCommandLine(&parser);

    // A second start hands its arguments to the running window (below) and
    // ends here, before it makes a window of its own.
    KDBusService service(KDBusService::Unique);

    if (QIcon::themeName().isEmpty()) {
        QIcon::setThemeName(QStringLiteral("breeze"));
    }

    auto *window = new MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    QObject::connect(&service, &KDBusService::activateRequested, window, &MainWindow::activate);
    window->show();
    window->openUrls(urlsFromArguments(parser.positionalArguments(), QDir::currentPath()), parser.isSet(QStringLiteral("evict")));

    return app.exec();
}
