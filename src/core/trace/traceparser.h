// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Reads what tracefs writes: one line of an instance's `trace` or
// `trace_pipe` file into a RawEvent, and an instance's
// `per_cpu/cpuN/stats` into the number of events the ring buffer lost.
// Lines look like (ofs in bytes, ino in hex, the clock "mono" in seconds):
//
//   dd-21124 [000] ..... 8363.556112: mm_filemap_add_to_page_cache: dev 254:0 ino 3c529 pfn=0x192d2b ofs=0 order=0
//   dd-21124 [000] ..... 8363.563894: mm_filemap_get_pages: dev=254:0 ino=3c529 ofs=0-4095
//   dd-21124 [000] ..... 8363.556161: block_rq_issue: 254,0 RA 16384 () 12580504 + 32 be,0,4 [bash]
//
// Only the six events of tracereport.h are read; comment lines, the
// kernel's "CPU:N [LOST n EVENTS]" lines (the stats count those) and every
// other event give nothing, as does a line that is cut short or does not
// have the format above.

#include "trace/tracereport.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace Cachescope::Trace
{

// One traced line. Byte offsets become pages of Cachescope::pageSize()
// (the traced kernel's own page size: the parser runs on that machine), a
// folio of order n becomes 1 << n pages, a byte range "A-B" (B the last
// byte) becomes the pages it touches, "8363.556112" becomes nanoseconds.
[[nodiscard]] std::optional<RawEvent> parseTraceLine(std::string_view line);
// The same with an explicit page size (a power of two), for fixtures.
[[nodiscard]] std::optional<RawEvent> parseTraceLine(std::string_view line, uint64_t pageBytes);

// One CPU's ring-buffer losses, as its per_cpu/cpuN/stats file counts them.
struct BufferLosses {
    uint64_t overrun = 0; // "overrun:": old events overwritten by new ones
    uint64_t commitOverrun = 0; // "commit overrun:": lost inside nested events
    uint64_t dropped = 0; // "dropped events:": new events refused (buffer full, overwrite off)
    [[nodiscard]] uint64_t lost() const
    {
        return overrun + commitOverrun + dropped;
    }
};

// The losses of one stats file; nothing when it has no "overrun:" line or
// one of the three lines does not hold a number (not a stats file). A
// kernel without "commit overrun:" or "dropped events:" counts 0 for it.
[[nodiscard]] std::optional<BufferLosses> parseBufferStats(std::string_view text);

} // namespace Cachescope::Trace
