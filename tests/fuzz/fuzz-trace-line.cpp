// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// trace_pipe lines of the filemap events, and an instance's per-CPU stats.

#include "fuzzinput.h"

#include "trace/traceparser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text = Cachescope::Fuzz::asText(data, size);
    (void)Cachescope::Trace::parseTraceLine(text);
    (void)Cachescope::Trace::parseTraceLine(text, 65536);
    (void)Cachescope::Trace::parseBufferStats(text);
    return 0;
}
