// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The helper's state file (the swap areas it turned off): what it parses,
// formatted again, must parse to the same.

#include "fuzzinput.h"

#include "helperlogic.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    QString error;
    const auto records = Cachescope::Helper::parseSwapState(Cachescope::Fuzz::asText(data, size), &error);
    if (!records) {
        return 0;
    }
    const auto again = Cachescope::Helper::parseSwapState(Cachescope::Helper::formatSwapState(*records), &error);
    if (!again || *again != *records) {
        std::abort();
    }
    return 0;
}
