// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "commands.h"

#include "experiments/experiment.h"

namespace Cachescope::Cli
{

// cachescope-cli experiment NAME [OPTIONS] [-- COMMAND...]: the engines of
// src/core/experiments on the command line. See docs/cli.md.
[[nodiscard]] Command experimentCommand();
int runExperiment(Context &context, const ParsedArgs &args);

// Set in cachescope-cli-privileged (privilegedmain.cpp): the steps that
// go to the privileged helper. cachescope-cli has none, and runs the
// companion when a variant needs them (--drop-caches, --without-swap).
void setExperimentPrivilegedSteps(const Experiments::PrivilegedSteps &steps);
// The steps set there; null in cachescope-cli (trace --privileged runs the companion then).
[[nodiscard]] const Experiments::PrivilegedSteps *experimentPrivilegedSteps();

} // namespace Cachescope::Cli
