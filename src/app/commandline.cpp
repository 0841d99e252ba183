// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "commandline.h"

#include "cachescope_app_debug.h"

#include <KAboutData>
#include <KLocalizedString>

#include <QCommandLineParser>

namespace Cachescope::App
{

void setUpCommandLine(QCommandLineParser &parser)
{
    KAboutData::applicationData().setupCommandLine(&parser);
    parser.addPositionalArgument(QStringLiteral("files"),
                                 i18nc("@info:shell", "Files and folders to inspect"),
                                 i18nc("@info:shell command-line syntax", "[FILE|FOLDER...]"));
    parser.addOption(
        QCommandLineOption(QStringLiteral("evict"), i18nc("@info:shell", "Evict the files and folders from the page cache instead of inspecting them")));
}

QList<QUrl> urlsFromArguments(const QStringList &positionalArguments, const QString &workingDirectory)
{
    QList<QUrl> urls;
    urls.reserve(positionalArguments.size());
    for (const QString &argument : positionalArguments) {
        if (argument.isEmpty()) {
            continue;
        }
        // AssumeLocalFile: a name like "www.log" is a file here, not a web site.
        urls.append(QUrl::fromUserInput(argument, workingDirectory, QUrl::AssumeLocalFile));
    }
    return urls;
}

CommandLineRequest requestFromActivation(const QStringList &arguments, const QString &workingDirectory)
{
    if (arguments.isEmpty()) {
        return {};
    }
    QCommandLineParser parser;
    setUpCommandLine(parser);
    // parse(), not process(): a bad option from another start must not end
    // the running window. Whatever could be parsed is still used.
    if (!parser.parse(arguments)) {
        qCWarning(CACHESCOPE_APP) << "ignoring a bad option of a second start:" << parser.errorText();
    }
    return {urlsFromArguments(parser.positionalArguments(), workingDirectory), parser.isSet(QStringLiteral("evict"))};
}

QList<QUrl> urlsFromActivation(const QStringList &arguments, const QString &workingDirectory)
{
    return requestFromActivation(arguments, workingDirectory).urls;
}

} // namespace Cachescope::App
