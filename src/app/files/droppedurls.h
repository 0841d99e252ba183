// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QList>
#include <QUrl>

class QDropEvent;

namespace Cachescope::App
{

// The URLs of a drop, local ones preferred (KIO gives trash:/ and desktop:/
// items their local paths). The drop is accepted as a copy, never a move, so
// that the file manager keeps its files; without URLs it is ignored and the
// list is empty.
[[nodiscard]] QList<QUrl> acceptDroppedUrls(QDropEvent *event);

} // namespace Cachescope::App
