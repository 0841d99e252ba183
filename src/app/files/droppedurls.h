// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QList>
#include <QUrl>

#include <string>

class QDropEvent;
class QMimeData;

namespace Cachescope::App
{

// The URLs of a drop, local ones preferred (KIO gives trash:/ and desktop:/
// items their local paths). The drop is accepted as a copy, never a move, so
// that the file manager keeps its files; without URLs it is ignored and the
// list is empty.
[[nodiscard]] QList<QUrl> acceptDroppedUrls(QDropEvent *event);

// A path (bytes) as a file URL, and a file URL's path as bytes. The bytes
// travel percent-encoded, so that a name that is not UTF-8 comes back as it
// was (QUrl::toLocalFile would turn its bytes into U+FFFD); for UTF-8 names
// these are QUrl::fromLocalFile and QFile::encodeName(toLocalFile()).
[[nodiscard]] QUrl urlOfLocalPath(const std::string &path);
[[nodiscard]] std::string localPathOfUrl(const QUrl &url);

// Rows of the files list being dragged: file URLs as Dolphin's are
// (text/uri-list), marked as this process's own so that the list can tell
// its rows coming back from files dragged in from elsewhere.
void setDraggedRows(const QList<QUrl> &urls, QMimeData *mimeData);
[[nodiscard]] bool isOwnDraggedRows(const QMimeData *mimeData);
[[nodiscard]] QStringList draggedRowsFormats();

} // namespace Cachescope::App
