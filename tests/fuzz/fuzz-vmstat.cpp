// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// /proc/vmstat and a cgroup's memory.stat: "name value" lines.

#include "fuzzinput.h"

#include "procfs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const Cachescope::VmStat stat = Cachescope::parseVmStat(Cachescope::Fuzz::asText(data, size));
    (void)stat.find("workingset_refault_file");
    (void)stat.find("pgpgin");
    return 0;
}
