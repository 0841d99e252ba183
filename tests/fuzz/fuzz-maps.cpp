// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// /proc/PID/maps (the account's files only mapped) and /proc/sysvipc/shm.

#include "fuzzinput.h"

#include "account.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text = Cachescope::Fuzz::asText(data, size);
    (void)Cachescope::parseMapsFiles(text);
    (void)Cachescope::parseSysvShm(text);
    return 0;
}
