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

// Runs an engine as the CLI does: its events on stderr when that is a
// terminal, an interrupt (Ctrl+C) cancels it.
[[nodiscard]] Experiments::Result runEngine(Experiments::Experiment &experiment);
// The result's JSON document (resultToJson, "command", "problems") on stdout.
void appendResultJson(Context &context, const Experiments::Result &result, const char *command);

// Set in cachescope-cli-privileged (privilegedmain.cpp): the steps that
// go to the privileged helper. cachescope-cli has none, and runs the
// companion when a variant needs them (--drop-caches, --without-swap).
void setExperimentPrivilegedSteps(const Experiments::PrivilegedSteps &steps);
// The steps set there; null in cachescope-cli (trace --privileged runs the companion then).
[[nodiscard]] const Experiments::PrivilegedSteps *experimentPrivilegedSteps();

} // namespace Cachescope::Cli
