// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filedialogs.h"

#include <KFileCustomDialog>
#include <KFileWidget>

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
