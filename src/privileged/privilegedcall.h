// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Internal to the client: one request to the helper, waited for (as root:
// the helper's action in this process, docs/helper-security.md rule 15).

#include "privileged.h"

#include <chrono>

namespace Cachescope::Privileged
{

[[nodiscard]] Result runHelperAction(QLatin1StringView name, const QVariantMap &arguments, std::chrono::milliseconds timeout);
// Effective uid 0: requests run in this process.
[[nodiscard]] bool runsAsRoot();

} // namespace Cachescope::Privileged
