// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// strace's log of a cold start (-f -e trace=openat,open,execve): the traced
// program chooses the file names in it.

#include "fuzzinput.h"

#include "experiments/engines.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Cachescope::Fuzz::Input input(data, size);
    const std::string workingDirectory = input.shortString();
    (void)Cachescope::Experiments::filesFromStraceLog(std::string(input.rest()), workingDirectory);
    return 0;
}
