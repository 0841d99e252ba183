// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// /proc/meminfo: "Name:   value kB" lines, as the memory panel reads them.

#include "fuzzinput.h"

#include "procfs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const Cachescope::MemInfo info = Cachescope::parseMemInfo(Cachescope::Fuzz::asText(data, size));
    (void)info.find("MemAvailable");
    (void)info.find("Cached");
    return 0;
}
