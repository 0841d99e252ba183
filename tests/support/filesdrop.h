// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Drops as a file manager makes them, for the files panel's tests.

#include <KUrlMimeData>

#include <QApplication>
#include <QDropEvent>
#include <QMimeData>
#include <QUrl>
#include <QWidget>

#include <string>

namespace FilesDrop
{

// Enter, move, drop, with the URLs set through KUrlMimeData (the path
// droppedurls.cpp reads). Returns whether the target took the drop as a copy.
inline bool dropUrls(QWidget *target, const QList<QUrl> &urls)
{
    QMimeData mime;
    KUrlMimeData::setUrls(urls, urls, &mime);
    const QPoint pos = target->rect().center();
    QDragEnterEvent enter(pos, Qt::CopyAction | Qt::MoveAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    if (!enter.isAccepted()) {
        return false;
    }
    QDragMoveEvent move(pos, Qt::CopyAction | Qt::MoveAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &move);
    QDropEvent drop(QPointF(pos), Qt::CopyAction | Qt::MoveAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
    return drop.isAccepted() && drop.dropAction() == Qt::CopyAction;
}

inline QUrl urlOf(const std::string &path)
{
    return QUrl::fromLocalFile(QString::fromStdString(path));
}

} // namespace FilesDrop
