// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// /proc/swaps: a header, then "name type size used priority" lines.

#include "fuzzinput.h"

#include "procfs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::vector<Cachescope::SwapArea> areas = Cachescope::parseSwaps(Cachescope::Fuzz::asText(data, size));
    (void)areas;
    return 0;
}
