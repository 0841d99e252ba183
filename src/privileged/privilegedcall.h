// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Internal to the client: one request to the helper, waited for (as root:
// the helper's action in this process, docs/helper-security.md rule 15).

#include "privileged.h"

#include <functional>

namespace Cachescope::Privileged
{

// Runs an event loop of the calling thread until the answer is there.
// progress gets the helper's progress data (helperprotocol.h's progress
// keys); cancelled is asked every 100 ms, and cancels the request when it
// says so. Without a helper to reach: Failure::Unavailable and why.
[[nodiscard]] Reply
runSynchronously(const Request &request, const std::function<void(const QVariantMap &)> &progress = {}, const std::function<bool()> &cancelled = {});
// Effective uid 0: requests run in this process.
[[nodiscard]] bool runsAsRoot();

} // namespace Cachescope::Privileged
