// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// cachescope-cli-privileged, the companion program that runs the commands
// that need the privileged helper (it links the helper's client, QtDBus and
// KI18n, and for root the helper's own actions, which every other command
// would pay for at start). cachescope-cli replaces itself with it.

#include <functional>
#include <string>
#include <string_view>

namespace Cachescope::Cli
{

// Runs cachescope-cli-privileged with arguments (argv as main() got it) in
// place of this process: the one next to this program (the build folder),
// else the installed one. Returns only when that fails, with ExitFailures,
// after a message on stderr: messagePrefix starts it ("experiment: "), and
// notInstalled(lookedFor) is the sentence when neither exists ("looked for A and B").
[[nodiscard]] int
runInPrivilegedCompanion(char **arguments, std::string_view messagePrefix, const std::function<std::string(const std::string &lookedFor)> &notInstalled);

} // namespace Cachescope::Cli
