// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filedialogs.h"

#include <KFileCustomDialog>
#include <KFileFilter>
#include <KFileWidget>
#include <KLocalizedString>

#include <QDir>
#include <QPointer>

namespace Cachescope::App
{

KFileCustomDialog *makeFileDialog(QWidget *parent, const QString &title, KFile::Modes mode, const QUrl &start)
{
    auto *dialog = new KFileCustomDialog(start.isValid() ? start : QUrl::fromLocalFile(QDir::homePath()), parent);
    dialog->setObjectName(QStringLiteral("cachescopeFileDialog"));
    dialog->setWindowTitle(title);
    dialog->setOperationMode(KFileWidget::Opening);
    dialog->fileWidget()->setMode(mode | KFile::ExistingOnly | KFile::LocalOnly);
    return dialog;
}

namespace
{
QList<QUrl> choose(QWidget *parent, const QString &title, KFile::Modes mode, const QUrl &start)
{
    // On the heap, as a dialog whose parent may go while it is open should be.
    QPointer<KFileCustomDialog> dialog = makeFileDialog(parent, title, mode, start);
    QList<QUrl> chosen;
    if (dialog->exec() == QDialog::Accepted && dialog) {
        chosen = dialog->fileWidget()->selectedUrls();
    }
    delete dialog;
    return chosen;
}

QUrl chooseSnapshot(QWidget *parent, const QString &title, const QUrl &where, KFileWidget::OperationMode operation)
{
    const bool saving = operation == KFileWidget::Saving;
    QPointer<KFileCustomDialog> dialog = makeFileDialog(parent, title, KFile::File, saving ? where.adjusted(QUrl::RemoveFilename) : where);
    dialog->setOperationMode(operation);
    KFileWidget *widget = dialog->fileWidget();
    widget->setMode(KFile::File | KFile::LocalOnly | (saving ? KFile::Modes() : KFile::Modes(KFile::ExistingOnly)));
    const KFileFilter snapshots(i18nc("@item:inlistbox file type", "Cachescope snapshot"), {QStringLiteral("*.json")}, {});
    widget->setFilters({snapshots, KFileFilter(i18nc("@item:inlistbox file type", "All files"), {QStringLiteral("*")}, {})}, snapshots);
    if (saving) {
        widget->setSelectedUrl(where);
        widget->setConfirmOverwrite(true);
    }
    QUrl chosen;
    if (dialog->exec() == QDialog::Accepted && dialog) {
        chosen = dialog->fileWidget()->selectedUrl();
    }
    delete dialog;
    return chosen;
}
}

QUrl chooseSnapshotToOpen(QWidget *parent, const QString &title, const QUrl &folder)
{
    return chooseSnapshot(parent, title, folder, KFileWidget::Opening);
}

QUrl chooseSnapshotToSave(QWidget *parent, const QString &title, const QUrl &proposed)
{
    return chooseSnapshot(parent, title, proposed, KFileWidget::Saving);
}

QList<QUrl> chooseFilesToInspect(QWidget *parent, const QString &title)
{
    return choose(parent, title, KFile::Files, {});
}

QUrl chooseFolder(QWidget *parent, const QString &title, const QUrl &start)
{
    return choose(parent, title, KFile::Directory, start).value(0);
}

} // namespace Cachescope::App
