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

// Enter, move, drop of mime as a drag would bring it. Returns whether the
// target took the drop as a copy.
inline bool dropMimeData(QWidget *target, const QMimeData *mime)
{
    const QPoint pos = target->rect().center();
    QDragEnterEvent enter(pos, Qt::CopyAction | Qt::MoveAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    if (!enter.isAccepted()) {
        return false;
    }
    QDragMoveEvent move(pos, Qt::CopyAction | Qt::MoveAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &move);
    QDropEvent drop(QPointF(pos), Qt::CopyAction | Qt::MoveAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
    return drop.isAccepted() && drop.dropAction() == Qt::CopyAction;
}

// The URLs set through KUrlMimeData, as a file manager does (the path
// droppedurls.cpp reads).
inline bool dropUrls(QWidget *target, const QList<QUrl> &urls)
{
    QMimeData mime;
    KUrlMimeData::setUrls(urls, urls, &mime);
    return dropMimeData(target, &mime);
}

// A path's bytes percent-encoded, so that a name that is not UTF-8 stays
// what it is (QUrl::fromLocalFile takes text).
inline QUrl urlOf(const std::string &path)
{
    return QUrl::fromEncoded(QByteArray("file://").append(QByteArray::fromStdString(path).toPercentEncoding("/")), QUrl::StrictMode);
}

// The bytes of a file URL's path.
inline std::string pathOf(const QUrl &url)
{
    return QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1()).toStdString();
}

} // namespace FilesDrop
