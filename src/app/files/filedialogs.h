// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <KFile>

#include <QList>
#include <QString>
#include <QUrl>

class KFileCustomDialog;
class QWidget;

namespace Cachescope::App
{

// KDE's file dialog (KFileWidget: Places, breadcrumb, previews) for the
// files and folders to inspect or map, on any desktop: QFileDialog gives
// it only where a KDE platform theme is loaded (Plasma), and Qt's plain
// dialog without Places everywhere else (another window manager,
// tools/dev run). Local files only: the page cache is this machine's.
// Empty when cancelled.
[[nodiscard]] QList<QUrl> chooseFilesToInspect(QWidget *parent, const QString &title);
[[nodiscard]] QUrl chooseFolder(QWidget *parent, const QString &title, const QUrl &start = {});
// A snapshot file (*.json) to read, or where to save one (proposed: the
// folder and name offered); the dialog asks before overwriting.
[[nodiscard]] QUrl chooseSnapshotToOpen(QWidget *parent, const QString &title, const QUrl &folder);
[[nodiscard]] QUrl chooseSnapshotToSave(QWidget *parent, const QString &title, const QUrl &proposed);
// The dialog they use, not yet shown (tests look at it).
[[nodiscard]] KFileCustomDialog *makeFileDialog(QWidget *parent, const QString &title, KFile::Modes mode, const QUrl &start);

} // namespace Cachescope::App
