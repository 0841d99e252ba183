// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Reads what tracefs hands out in binary, without the text formatting of
// `trace_pipe` (which costs the kernel a vsnprintf per event and loses
// nothing the binary has):
//
//  - an event's `events/<system>/<event>/format`: where each field of its
//    records lies;
//  - `events/header_page`: where a ring-buffer page keeps its time stamp,
//    its commit (the length of its data, plus two flags) and its data;
//  - one page of `per_cpu/cpuN/trace_pipe_raw` as one read(2) returns it:
//    the ring buffer's own records, each a compressed header (type_len and
//    a time delta) and the event's data.
//
// The kernel writes every number in the machine's own byte order, and these
// readers run on the traced machine, so they read native integers.
// Everything is bounded: a format or a page that is cut, changed or not what
// the kernel writes is refused (or stops the page) with a sentence saying
// why, and no read goes outside the text or the page given.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace Cachescope::RawTrace
{

// One field of an event's records, as its format file describes it.
struct Field {
    std::string name; // "i_ino", "name" for "char name[32]", "filename" for "__data_loc char[] filename"
    uint32_t offset = 0;
    uint32_t size = 0;
    bool isSigned = false;
    bool dataLoc = false; // __data_loc: a u32 (length << 16 | offset) pointing into the record
    bool relLoc = false; // __rel_loc: the same, its offset counted from the end of this field
};

struct EventFormat {
    uint32_t id = 0; // "ID: N", the records' common_type
    std::string name; // "name: ..."
    std::vector<Field> fields; // common_* fields too, in the file's order
    [[nodiscard]] const Field *field(std::string_view name) const; // nullptr when absent
};

// tracefs events/<system>/<event>/format. Nothing (and *error, a sentence)
// on anything unexpected: a missing name, ID or format section, a line that
// belongs to no format file, a field without offset or size, a field name
// twice. Bounded: at most 128 fields, a name at most 128 bytes, sizes
// 1..65536, offset + size at most 65536. What follows "print fmt:" is not read.
[[nodiscard]] std::optional<EventFormat> parseEventFormat(std::string_view text, std::string *error);

// Where the page header's fields are, from tracefs events/header_page:
//
//   field: u64 timestamp;	offset:0;	size:8;	signed:0;
//   field: local_t commit;	offset:8;	size:8;	signed:1;
//   field: int overwrite;	offset:8;	size:1;	signed:1;
//   field: char data;	offset:16;	size:4080;	signed:0;
//
// ("overwrite", and any other field, is ignored).
struct PageLayout {
    uint32_t timestampOffset = 0;
    uint32_t commitOffset = 8;
    uint32_t commitSize = 8; // 4 or 8 (local_t, a long)
    uint32_t dataOffset = 16;
    uint32_t pageSize = 4096; // data's offset + size: what one read of trace_pipe_raw returns
};
// Nothing (and *error) unless timestamp (8 bytes), commit (4 or 8) and data
// are there, the first two before the data.
[[nodiscard]] std::optional<PageLayout> parseHeaderPage(std::string_view text, std::string *error);

// One event record: the absolute time stamp (page time stamp plus the deltas
// so far, in the trace clock's unit) and its data (beginning with
// common_type, a u16). The data points into the page given to parsePage.
struct Record {
    uint64_t timestamp = 0;
    std::span<const uint8_t> data;
};

struct PageResult {
    size_t records = 0;
    bool missedEvents = false; // RB_MISSED_EVENTS (1 << 31 in commit): events were lost before this page
    uint64_t missedCount = 0; // when RB_MISSED_STORED (1 << 30): the unsigned long stored right after the data
    bool malformed = false; // stopped at a record that does not fit; `error` says what and at which byte
    std::string error;
};

// Parses one page as read(2) from trace_pipe_raw returns it (layout.pageSize
// bytes; a shorter read is a malformed page). Calls take for each data
// record in order; never reads outside `page`; stops at the first malformed
// record (the records before it were taken). A commit of 0 is an empty
// page, not a malformed one.
//
// Records, after the u32 header (type_len its low 5 bits, time_delta the
// other 27): type_len 1..28, data of type_len * 4 bytes; 0, the length in
// the next u32 (itself included), the data after it. 29 is padding: with a
// delta of 0 the rest of the page is empty, else the next u32 says how many
// bytes to skip (a discarded record, whose delta still counts, or the end
// of a page, whose delta is 1 and does not). 30 extends the time by
// (u32 << 27) + time_delta; 31 sets it to that (59 bits, the top 5 taken
// from the time so far).
[[nodiscard]] PageResult parsePage(std::span<const uint8_t> page, const PageLayout &layout, const std::function<void(const Record &)> &take);

// Field readers over a record's data: nothing when the field lies outside
// the data or has an unsupported size.
[[nodiscard]] std::optional<uint64_t> readUnsigned(std::span<const uint8_t> data, const Field &field); // sizes 1, 2, 4, 8
[[nodiscard]] std::optional<int64_t> readSigned(std::span<const uint8_t> data, const Field &field); // sign-extended
// A fixed char array (up to its first NUL) or a __data_loc / __rel_loc
// string (bounded by the record, up to its first NUL).
[[nodiscard]] std::optional<std::string> readString(std::span<const uint8_t> data, const Field &field);

// The record's common_type (the u16 at offset 0): which event it is.
[[nodiscard]] std::optional<uint16_t> commonType(std::span<const uint8_t> data);
// The record's common_pid, where the format's common_pid field says.
[[nodiscard]] std::optional<int64_t> commonPid(std::span<const uint8_t> data, const EventFormat &format);

} // namespace Cachescope::RawTrace
