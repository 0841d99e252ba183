// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <QIcon>
#include <QString>

#include <optional>

namespace Cachescope::App
{

struct DesktopApplication {
    QString name; // "Dolphin"
    QString iconName; // the theme's name for its icon
    QString comment;
};

// The application a desktop file id names ("org.kde.dolphin"): from the
// sycoca database, else from the desktop file itself where the XDG rules put
// it (a session rebuilds the database on its own schedule). Nothing when no
// valid desktop file has the id.
[[nodiscard]] std::optional<DesktopApplication> desktopApplication(const QString &desktopFileId);

} // namespace Cachescope::App
