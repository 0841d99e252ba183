// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli: the page cache from a shell. See docs/cli.md.

#include "commands.h"
#include "processlimits.h"

int main(int argc, char **argv)
{
    // The parallel walker keeps many folder descriptors open at once.
    Cachescope::raiseOpenFileLimit();
    return Cachescope::Cli::runCli(argc, argv);
}
