// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QList>
#include <QString>
#include <QStringList>
#include <QUrl>

class QCommandLineParser;

namespace Cachescope::App
{

// `cachescope [FILE|FOLDER...]`, for the first start and for a second start
// that D-Bus hands to the running window.

// Adds the positional argument and KAboutData's options.
void setUpCommandLine(QCommandLineParser &parser);

// The files and folders named on a command line, relative ones resolved
// against workingDirectory (that of the process that was started, which for
// a second start is not ours). Anything QUrl understands is kept as a URL;
// the files panel refuses what is not local.
[[nodiscard]] QList<QUrl> urlsFromArguments(const QStringList &positionalArguments, const QString &workingDirectory);

// What a command line asks for: files and folders, to inspect or (with
// --evict, as the Dolphin service menu's "Evict from Page Cache" does) to evict.
struct CommandLineRequest {
    QList<QUrl> urls;
    bool evict = false;
};

// The same from a whole argument list as KDBusService::activateRequested()
// delivers it (program name first).
[[nodiscard]] CommandLineRequest requestFromActivation(const QStringList &arguments, const QString &workingDirectory);
[[nodiscard]] QList<QUrl> urlsFromActivation(const QStringList &arguments, const QString &workingDirectory);

} // namespace Cachescope::App
