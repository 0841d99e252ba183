// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// A cgroup's files: the first byte picks which: memory.stat (v1 and v2),
// memory.pressure, memory.max or memory.limit_in_bytes, /proc/PID/cgroup,
// /proc/PID/io (the view without rights).

#include "fuzzinput.h"

#include "activity/ownactivity.h"
#include "cgroups/cgroupfs.h"
#include "procfs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Cachescope::Fuzz::Input input(data, size);
    const uint8_t which = input.byte();
    const std::string_view text = input.rest();
    switch (which % 5) {
    case 0:
        (void)Cachescope::parseVmStat(text).find("file");
        break;
    case 1:
        (void)Cachescope::Cgroups::parsePressure(text);
        break;
    case 2:
        (void)Cachescope::Cgroups::parseMemoryLimit(text);
        break;
    case 3:
        (void)Cachescope::Cgroups::parseProcessCgroup(text);
        break;
    default:
        (void)Cachescope::Activity::parseProcessIo(text);
        break;
    }
    return 0;
}
