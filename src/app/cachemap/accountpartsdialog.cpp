// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "accountpartsdialog.h"

#include "format.h"

#include <KLocalizedString>

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTextDocument>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace Cachescope::App
{

namespace
{

enum Column {
    CachedColumn,
    SizeColumn,
    WhatColumn,
    HeldByColumn,
    ColumnCount,
};

QString whatOf(const AccountPart &part)
{
    QString path = QString::fromStdString(part.path);
    const QString name = QString::fromStdString(part.name);
    switch (part.kind) {
    case AccountKind::Files:
    case AccountKind::Tmpfs:
        return part.fileSystem.empty() ? path : i18nc("@item %1 a folder, %2 a file system type", "%1 (%2)", path, QString::fromStdString(part.fileSystem));
    case AccountKind::Memfd:
        return i18nc("@item %1 the name a program gave its memfd", "memfd “%1”", name);
    case AccountKind::SysvShm:
        return i18nc("@item %1 key and id of a System V segment", "System V segment, %1", name);
    case AccountKind::SharedAnonymous:
        return i18nc("@item", "Anonymous shared memory");
    case AccountKind::DeletedFile:
        return i18nc("@item %1 the path a deleted file had", "%1 (deleted)", path);
    case AccountKind::OtherNamespace:
        return i18nc("@item %1 a mount point, %2 a process", "%1 in the mount namespace of %2", path, name);
    case AccountKind::CoveredFolder:
        return i18nc("@item %1 a folder", "%1, under the mount there", path);
    }
    return path;
}

QString heldByOf(const AccountPart &part)
{
    QStringList names;
    for (const AccountProcess &process : part.processes) {
        // A pid is an identifier, not an amount: no digit grouping.
        names.append(i18nc("@item %1 a command, %2 its process id", "%1, pid %2", QString::fromStdString(process.command), QString::number(process.pid)));
    }
    if (part.processCount > part.processes.size()) {
        names.append(i18ncp("@item", "%1 more", "%1 more", qulonglong(part.processCount - part.processes.size())));
    }
    return names.join(QStringLiteral("; "));
}

QString explanationOf(AccountGroup group)
{
    switch (group) {
    case AccountGroup::FilesByPath:
        return i18nc("@info", "The files you can reach by a path, by mount: the Cache Map shows them folder by folder.");
    case AccountGroup::SharedMemory:
        return i18nc("@info",
                     "Files on tmpfs, System V segments, memfds and anonymous shared mappings: their pages are in the page cache but cannot be "
                     "evicted, only swapped out.");
    case AccountGroup::DeletedFiles:
        return i18nc("@info",
                     "Files deleted while a process still holds them open or mapped: no folder shows them, and their pages stay until the last "
                     "process lets go.");
    case AccountGroup::OtherNamespaces:
        return i18nc("@info", "Mounts that only another mount namespace has (containers, Flatpak apps): / does not show them.");
    case AccountGroup::CoveredFolders:
        return i18nc("@info", "Files in folders that another file system was mounted over: cached, but no path reaches them now.");
    }
    return {};
}

} // namespace

QString AccountPartsDialog::groupTitle(AccountGroup group)
{
    switch (group) {
    case AccountGroup::FilesByPath:
        return i18nc("@title", "Files by path");
    case AccountGroup::SharedMemory:
        return i18nc("@title", "tmpfs and shared memory");
    case AccountGroup::DeletedFiles:
        return i18nc("@title", "Deleted files still open");
    case AccountGroup::OtherNamespaces:
        return i18nc("@title", "Other mount namespaces");
    case AccountGroup::CoveredFolders:
        return i18nc("@title", "Folders under mount points");
    }
    return {};
}

AccountPartsDialog::AccountPartsDialog(std::shared_ptr<const CacheAccount> account, AccountGroup group, QWidget *parent)
    : QDialog(parent)
    , m_account(std::move(account))
{
    setWindowTitle(groupTitle(group));
    auto *explanation = new QLabel(explanationOf(group), this);
    explanation->setWordWrap(true);
    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("accountParts"));
    m_list->setRootIsDecorated(false);
    m_list->setColumnCount(ColumnCount);
    m_list->setHeaderLabels({i18nc("@title:column bytes in the page cache", "Cached"),
                             i18nc("@title:column", "Size"),
                             i18nc("@title:column", "What"),
                             i18nc("@title:column processes", "Held By")});
    m_list->setAccessibleName(groupTitle(group));
    for (const AccountPart &part : m_account->parts) {
        if (accountGroupOf(part.kind) != group) {
            continue;
        }
        auto *item = new QTreeWidgetItem(m_list);
        if (part.hidden) {
            item->setText(CachedColumn, i18nc("@item the kernel hides the figure", "hidden"));
            item->setToolTip(CachedColumn, Qt::convertFromPlainText(QString::fromStdString(part.hiddenReason)));
        } else {
            item->setText(CachedColumn, formatBytes(part.bytes, ByteStyle::OneDecimal, QLocale()));
        }
        item->setText(SizeColumn, formatBytes(part.sizeBytes, ByteStyle::OneDecimal, QLocale()));
        item->setTextAlignment(CachedColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(SizeColumn, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(WhatColumn, whatOf(part));
        // Others' names, as plain text: a tooltip would take markup in them for its own.
        item->setToolTip(WhatColumn, Qt::convertFromPlainText(whatOf(part)));
        item->setText(HeldByColumn, heldByOf(part));
        item->setToolTip(HeldByColumn, Qt::convertFromPlainText(heldByOf(part)));
    }
    m_list->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_list->header()->setStretchLastSection(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(explanation);
    layout->addWidget(m_list, 1);
    layout->addWidget(buttons);
    resize(760, 380);
}

QTreeWidget *AccountPartsDialog::partsList() const
{
    return m_list;
}

} // namespace Cachescope::App
