// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "accounttext.h"

#include "format.h"

#include <KLocalizedString>

#include <QStringList>

namespace Cachescope::App
{

QString accountSummaryText(const CacheAccount &account, AccountLinks links)
{
    const QLocale locale;
    const auto bytes = [&locale](uint64_t value) {
        return formatBytes(value, ByteStyle::OneDecimal, locale);
    };
    const bool rich = links == AccountLinks::Groups;
    const auto escaped = [rich](const QString &text) {
        return rich ? text.toHtmlEscaped() : text;
    };
    QStringList parts;
    for (const AccountGroupTotal &group : accountGroups(account)) {
        QString text;
        switch (group.group) {
        case AccountGroup::FilesByPath:
            text = i18nc("@info %1 bytes", "%1 files under /", bytes(group.bytes));
            break;
        case AccountGroup::SharedMemory:
            text = i18nc("@info %1 bytes", "%1 tmpfs and shared memory", bytes(group.bytes));
            break;
        case AccountGroup::DeletedFiles:
            text =
                i18ncp("@info %2 bytes", "%2 in %1 deleted file still open", "%2 in %1 deleted files still open", qulonglong(group.parts), bytes(group.bytes));
            break;
        case AccountGroup::OtherNamespaces:
            text = i18nc("@info %1 bytes", "%1 in other mount namespaces", bytes(group.bytes));
            break;
        case AccountGroup::CoveredFolders:
            text = i18nc("@info %1 bytes", "%1 in folders under mount points", bytes(group.bytes));
            break;
        }
        parts.append(rich ? QStringLiteral("<a href=\"%1\">%2</a>").arg(int(group.group)).arg(text.toHtmlEscaped()) : text);
    }
    const QString unexplained = account.unexplained >= 0
        ? bytes(uint64_t(account.unexplained))
        : i18nc("@info %1 bytes", "−%1 (pages counted in a part left the cache before Cached was read)", bytes(uint64_t(-account.unexplained)));
    parts.append(escaped(i18nc("@info %1 bytes", "%1 unexplained", unexplained)));
    QString text = i18nc("@info %1 bytes, %2 the parts, separated by commas", "Cached %1: %2", bytes(account.cached), parts.join(QStringLiteral(", ")));
    if (account.inChroot) {
        text += QStringLiteral("; ") + escaped(i18nc("@info", "/ is a chroot here: the files outside it are in unexplained"));
    }
    if (account.mountsNotWalked > 0) {
        text += QStringLiteral("; ")
            + escaped(i18ncp("@info",
                             "%1 FUSE or stacked mount not walked (a daemon that does not answer would stall the account)",
                             "%1 FUSE or stacked mounts not walked (a daemon that does not answer would stall the account)",
                             qulonglong(account.mountsNotWalked)));
    }
    if (account.hidden.processes > 0) {
        text += QStringLiteral("; ")
            + escaped(i18ncp("@info",
                             "the open files of %1 process are hidden from you (run cachescope-cli account as root to see them)",
                             "the open files of %1 processes are hidden from you (run cachescope-cli account as root to see them)",
                             qulonglong(account.hidden.processes)));
    }
    if (account.hidden.coveredMountPoints > 0) {
        text += QStringLiteral("; ")
            + escaped(i18ncp("@info",
                             "the folder under %1 mount point is hidden from you",
                             "the folders under %1 mount points are hidden from you",
                             qulonglong(account.hidden.coveredMountPoints)));
    }
    return text;
}

} // namespace Cachescope::App
