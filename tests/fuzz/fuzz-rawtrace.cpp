// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// tracefs's binary per-CPU pages, in this kernel's layout; and, for input
// that is text, the format and header_page files.

#include "fuzzinput.h"

#include "activity/rawtrace.h"

#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const Cachescope::RawTrace::PageLayout layout; // this kernel's (events/header_page)
    size_t records = 0;
    (void)Cachescope::RawTrace::parsePage(std::span<const uint8_t>(data, size), layout, [&records](const Cachescope::RawTrace::Record &record) {
        records += record.data.size() > 0 ? 1 : 0;
    });
    std::string error;
    const std::string_view text = Cachescope::Fuzz::asText(data, size);
    (void)Cachescope::RawTrace::parseEventFormat(text, &error);
    (void)Cachescope::RawTrace::parseHeaderPage(text, &error);
    return 0;
}
