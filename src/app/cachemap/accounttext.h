// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "account.h"

#include <QString>

namespace Cachescope::App
{

enum class AccountLinks {
    None, // plain text (a tooltip)
    Groups, // each group a link whose href is its AccountGroup number (rich text)
};

// "Cached 2.1 GiB: 1.2 GiB files under /, 310 MiB tmpfs and shared memory,
// 64 MiB in 3 deleted files still open, …, 8 MiB unexplained", then what was
// hidden: the Cache Map's line under the map of /, and the Applications
// tab's account of what its rows leave out.
[[nodiscard]] QString accountSummaryText(const CacheAccount &account, AccountLinks links);

} // namespace Cachescope::App
