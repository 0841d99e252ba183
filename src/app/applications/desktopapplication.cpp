// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "desktopapplication.h"

#include <KService>

#include <QStandardPaths>

namespace Cachescope::App
{

std::optional<DesktopApplication> desktopApplication(const QString &desktopFileId)
{
    if (desktopFileId.isEmpty()) {
        return std::nullopt;
    }
    KService::Ptr service = KService::serviceByDesktopName(desktopFileId);
    if (!service) {
        const QString path = QStandardPaths::locate(QStandardPaths::ApplicationsLocation, desktopFileId + QStringLiteral(".desktop"));
        if (!path.isEmpty()) {
            service = KService::Ptr(new KService(path));
        }
    }
    if (!service || !service->isValid() || service->name().isEmpty()) {
        return std::nullopt;
    }
    return DesktopApplication{service->name(), service->icon(), service->comment()};
}

} // namespace Cachescope::App
