// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Names that are not UTF-8: the display form, and base64 both ways (what
// base64Encode gives, base64Decode must give back).

#include "fuzzinput.h"

#include "pathcodec.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view bytes = Cachescope::Fuzz::asText(data, size);
    (void)Cachescope::isValidUtf8(bytes);
    const std::string shown = Cachescope::toDisplayUtf8(bytes);
    if (!Cachescope::isValidUtf8(shown)) {
        std::abort(); // the display form must always be UTF-8
    }
    const std::optional<std::string> back = Cachescope::base64Decode(Cachescope::base64Encode(bytes));
    if (!back || *back != bytes) {
        std::abort();
    }
    (void)Cachescope::base64Decode(bytes);
    return 0;
}
