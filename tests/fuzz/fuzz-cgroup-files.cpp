// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// A cgroup's and a process's files: the first byte picks which:
// memory.stat (v2 and v1, as the Applications tab and the cgroups' figures
// read it), memory.pressure, memory.max or memory.limit_in_bytes,
// /proc/PID/cgroup, /proc/PID/io (the view without rights), /proc/PID/stat.

#include "fuzzinput.h"

#include "activity/ownactivity.h"
#include "cgroups/cgroupfs.h"
#include "procfs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Cachescope::Fuzz::Input input(data, size);
    const uint8_t which = input.byte();
    const std::string_view text = input.rest();
    switch (which % 8) {
    case 0: {
        Cachescope::Cgroups::MemoryStats stats;
        stats.version = Cachescope::Cgroups::Version::V2;
        Cachescope::Cgroups::parseMemoryStat(text, stats);
        break;
    }
    case 5: {
        Cachescope::Cgroups::MemoryStats stats;
        stats.version = Cachescope::Cgroups::Version::V1;
        Cachescope::Cgroups::parseMemoryStat(text, stats);
        break;
    }
    case 6:
        (void)Cachescope::parseVmStat(text).find("file");
        break;
    case 7:
        for (size_t field = 1; field < 60; field += 7) {
            (void)Cachescope::processStatField(text, field);
        }
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
