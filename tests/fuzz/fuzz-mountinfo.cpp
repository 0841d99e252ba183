// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// /proc/PID/mountinfo, its octal escapes, and the cgroup hierarchies found
// in it.

#include "fuzzinput.h"

#include "cgroups/cgroupfs.h"
#include "procfs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text = Cachescope::Fuzz::asText(data, size);
    (void)Cachescope::parseMountInfo(text);
    (void)Cachescope::Cgroups::parseCgroupMounts(text);
    (void)Cachescope::decodeOctalEscapes(text);
    return 0;
}
