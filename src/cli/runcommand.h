// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "commands.h"

#include "experiments/experiment.h"

namespace Cachescope::Cli
{

// cachescope-cli run --cache-limit SIZE -- COMMAND [ARG...]: COMMAND in a
// memory cgroup of its own, its cache shown, its exit status passed
// through. Its runner is set in cachescope-cli-privileged (the cgroup comes
// from systemd's user manager or the privileged helper), with the contain
// step below.
[[nodiscard]] Command runCommand();
int runContainedCommand(Context &context, const ParsedArgs &args);
void setRunContainStep(decltype(Experiments::PrivilegedSteps::contain) contain);

} // namespace Cachescope::Cli
