// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "activity/rawtrace.h"

#include "procfs.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <utility>

namespace Cachescope::RawTrace
{

namespace
{

// A format file's bounds, far above any kernel event's (the largest have a
// few dozen fields and records of a few hundred bytes), so that a file that
// is no format cannot make us hold or index much.
constexpr size_t maxFields = 128;
constexpr size_t maxNameBytes = 128;
constexpr uint64_t maxRecordBytes = 65536;
// A ring-buffer page can be larger than a memory page (buffer_subbuf_size_kb),
// but not nearly this large.
constexpr uint64_t maxPageBytes = uint64_t(1) << 24;
// common_type is an unsigned short: an ID above this could name no record.
constexpr uint64_t maxEventId = 65535;

// The ring buffer's record types (type_len) and commit flags, as
// kernel/trace/ring_buffer.c and include/linux/ring_buffer.h define them.
constexpr uint32_t typeLenBits = 5;
constexpr uint32_t typeLenMask = (uint32_t(1) << typeLenBits) - 1;
constexpr uint32_t typeLenLong = 0;
constexpr uint32_t typePadding = 29;
constexpr uint32_t typeTimeExtend = 30;
constexpr uint32_t typeTimeStamp = 31;
constexpr unsigned timeShift = 27;
constexpr uint32_t timeDeltaMask = (uint32_t(1) << timeShift) - 1;
constexpr uint64_t missedEventsFlag = uint64_t(1) << 31;
constexpr uint64_t missedStoredFlag = uint64_t(1) << 30;
// An absolute time stamp holds 59 bits; the kernel takes the top 5 from the
// time so far (rb_fix_abs_ts), so a clock with them set survives.
constexpr uint64_t timeStampTopBits = uint64_t(0xf8) << 56;
constexpr uint64_t timeStampWrap = uint64_t(1) << 59;
// The end-of-page padding's delta, never a real delta: rb_reset_tail sets it
// so that the padding is no "null event", and the kernel's own check of a
// page's deltas (rb_read_data_buffer) does not count it.
constexpr uint32_t endPaddingDelta = 1;

template<typename T>
T load(const uint8_t *bytes)
{
    T value;
    std::memcpy(&value, bytes, sizeof value);
    return value;
}

// An integer of 1, 2, 4 or 8 bytes at bytes; the caller checked the size.
uint64_t loadUnsigned(const uint8_t *bytes, uint32_t size)
{
    switch (size) {
    case 1:
        return bytes[0];
    case 2:
        return load<uint16_t>(bytes);
    case 4:
        return load<uint32_t>(bytes);
    default:
        return load<uint64_t>(bytes);
    }
}

bool fitsIn(size_t available, uint64_t offset, uint64_t size)
{
    return offset <= available && size <= available - offset;
}

void setError(std::string *error, std::string text)
{
    if (error) {
        *error = std::move(text);
    }
}

bool isIdentifierChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

// Splits off text's next line (without its newline).
std::string_view nextLine(std::string_view &text)
{
    const size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    return line;
}

// Digits only: no sign, no spaces inside, no hex.
std::optional<uint64_t> decimal(std::string_view text)
{
    text = trimmedText(text);
    uint64_t value = 0;
    const char *const begin = text.data();
    const char *const end = begin + text.size();
    const auto [stop, failure] = std::from_chars(begin, end, value);
    if (text.empty() || failure != std::errc() || stop != end) {
        return std::nullopt;
    }
    return value;
}

// Text from a file quoted in an error: cut short, and unprintable bytes
// shown as '?', so that a binary file makes a readable sentence.
std::string quoted(std::string_view text)
{
    constexpr size_t maxQuoted = 60;
    std::string shown;
    for (const char c : text.substr(0, maxQuoted)) {
        shown += (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) ? '?' : c;
    }
    return "\"" + shown + (text.size() > maxQuoted ? "…\"" : "\"");
}

// The name a field's declaration declares: "unsigned long i_ino" gives
// i_ino, "char name[32]" name, "__u8 saddr[sizeof(struct sockaddr_in6)]"
// saddr, "__data_loc char[] filename" filename. Empty when there is none
// (a lone type, unbalanced brackets).
std::string_view declaredName(std::string_view declaration)
{
    declaration = trimmedText(declaration);
    // Array sizes, possibly several ("[2][3]") and holding brackets themselves.
    while (!declaration.empty() && declaration.back() == ']') {
        size_t at = declaration.size();
        int depth = 0;
        bool balanced = false;
        while (at > 0 && !balanced) {
            --at;
            if (declaration[at] == ']') {
                ++depth;
            } else if (declaration[at] == '[') {
                balanced = --depth == 0;
            }
        }
        if (!balanced) {
            return {};
        }
        declaration = trimmedText(declaration.substr(0, at));
    }
    size_t start = declaration.size();
    while (start > 0 && isIdentifierChar(declaration[start - 1])) {
        --start;
    }
    const std::string_view name = declaration.substr(start);
    if (name.empty() || (name.front() >= '0' && name.front() <= '9') || trimmedText(declaration.substr(0, start)).empty()) {
        return {};
    }
    return name;
}

// One "field:DECLARATION;\toffset:N;\tsize:N;\tsigned:N;" line, trimmed.
struct FieldLine {
    std::string_view declaration;
    uint64_t offset = 0;
    uint64_t size = 0;
    bool isSigned = false;
};

// The line's field, or nothing and *why (a clause: "it has no offset").
std::optional<FieldLine> parseFieldLine(std::string_view line, std::string *why)
{
    constexpr std::string_view fieldKey = "field:";
    line.remove_prefix(fieldKey.size());
    const size_t declarationEnd = line.find(';');
    if (declarationEnd == std::string_view::npos) {
        *why = "its declaration does not end with \";\"";
        return std::nullopt;
    }
    FieldLine field;
    field.declaration = trimmedText(line.substr(0, declarationEnd));
    line.remove_prefix(declarationEnd + 1);
    std::optional<uint64_t> offset;
    std::optional<uint64_t> size;
    std::optional<uint64_t> isSigned;
    while (!line.empty()) {
        const size_t end = std::min(line.find(';'), line.size());
        const std::string_view item = trimmedText(line.substr(0, end));
        line.remove_prefix(std::min(end + 1, line.size()));
        if (item.empty()) {
            continue;
        }
        const size_t colon = item.find(':');
        if (colon == std::string_view::npos) {
            *why = "it has " + quoted(item) + " where a key:value pair belongs";
            return std::nullopt;
        }
        const std::string_view key = item.substr(0, colon);
        std::optional<uint64_t> *slot = key == "offset" ? &offset : key == "size" ? &size : key == "signed" ? &isSigned : nullptr;
        if (!slot) {
            // A key a later kernel may add: it says nothing about where the field is.
            continue;
        }
        if (slot->has_value()) {
            *why = "it gives its " + std::string(key) + " twice";
            return std::nullopt;
        }
        *slot = decimal(item.substr(colon + 1));
        if (!slot->has_value()) {
            *why = "its " + std::string(key) + " " + quoted(item.substr(colon + 1)) + " is not a number";
            return std::nullopt;
        }
    }
    if (!offset) {
        *why = "it has no offset";
        return std::nullopt;
    }
    if (!size) {
        *why = "it has no size";
        return std::nullopt;
    }
    // Kernels before 2.6.32 wrote no "signed:"; 0 then, as they meant.
    if (isSigned.value_or(0) > 1) {
        *why = "its signed is neither 0 nor 1";
        return std::nullopt;
    }
    field.offset = *offset;
    field.size = *size;
    field.isSigned = isSigned.value_or(0) == 1;
    return field;
}

// The event's name, or nothing and *why.
bool acceptableName(std::string_view name, std::string *why)
{
    if (name.empty()) {
        *why = "is empty";
        return false;
    }
    if (name.size() > maxNameBytes) {
        *why = "is " + std::to_string(name.size()) + " bytes long, more than " + std::to_string(maxNameBytes);
        return false;
    }
    if (std::any_of(name.begin(), name.end(), [](char c) {
            return static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f;
        })) {
        *why = "holds a space or an unprintable byte";
        return false;
    }
    return true;
}

// The field of a format's field line, or nothing and *why.
std::optional<Field> formatField(std::string_view line, std::string *why)
{
    const std::optional<FieldLine> parsed = parseFieldLine(line, why);
    if (!parsed) {
        return std::nullopt;
    }
    const std::string_view name = declaredName(parsed->declaration);
    if (name.empty()) {
        *why = "its declaration " + quoted(parsed->declaration) + " declares no name";
        return std::nullopt;
    }
    if (name.size() > maxNameBytes) {
        *why = "its name is " + std::to_string(name.size()) + " bytes long, more than " + std::to_string(maxNameBytes);
        return std::nullopt;
    }
    if (parsed->size == 0 || parsed->size > maxRecordBytes) {
        *why = "its size " + std::to_string(parsed->size) + " is not between 1 and " + std::to_string(maxRecordBytes);
        return std::nullopt;
    }
    if (parsed->offset > maxRecordBytes - parsed->size) {
        *why = "it ends past byte " + std::to_string(maxRecordBytes) + " (offset " + std::to_string(parsed->offset) + ", size " + std::to_string(parsed->size)
            + ")";
        return std::nullopt;
    }
    Field field;
    field.name = std::string(name);
    field.offset = uint32_t(parsed->offset);
    field.size = uint32_t(parsed->size);
    field.isSigned = parsed->isSigned;
    field.dataLoc = startsWith(parsed->declaration, "__data_loc ");
    field.relLoc = startsWith(parsed->declaration, "__rel_loc ");
    if ((field.dataLoc || field.relLoc) && field.size != 4) {
        *why = "it is a dynamic field of " + std::to_string(field.size) + " bytes, not the 4 of its location";
        return std::nullopt;
    }
    return field;
}

// The time an absolute time stamp of 59 bits sets, given the time so far
// (rb_fix_abs_ts): the top bits of the time so far, and one step of 2^59
// further should that make the time go back (the top bits just grew).
uint64_t absoluteTime(uint64_t stamp, uint64_t timeSoFar)
{
    if (timeSoFar & timeStampTopBits) {
        stamp |= timeSoFar & timeStampTopBits;
        if (stamp < timeSoFar) {
            stamp += timeStampWrap;
        }
    }
    return stamp;
}

} // namespace

const Field *EventFormat::field(std::string_view wanted) const
{
    const auto found = std::find_if(fields.begin(), fields.end(), [wanted](const Field &field) {
        return field.name == wanted;
    });
    return found == fields.end() ? nullptr : &*found;
}

std::optional<EventFormat> parseEventFormat(std::string_view text, std::string *error)
{
    EventFormat format;
    bool haveName = false;
    bool haveId = false;
    bool haveFormatLine = false;
    size_t lineNumber = 0;
    const auto refuse = [error](std::string why) -> std::optional<EventFormat> {
        setError(error, std::move(why));
        return std::nullopt;
    };
    while (!text.empty()) {
        const std::string_view line = trimmedText(nextLine(text));
        ++lineNumber;
        if (line.empty()) {
            continue;
        }
        const std::string where = "Line " + std::to_string(lineNumber) + " of the format";
        std::string why;
        if (startsWith(line, "print fmt:")) {
            // How the kernel prints the event, not where its fields are.
            break;
        }
        if (startsWith(line, "name:")) {
            if (haveName) {
                return refuse(where + " names the event a second time.");
            }
            const std::string_view name = trimmedText(line.substr(5));
            if (!acceptableName(name, &why)) {
                return refuse(where + ": the event's name " + why + ".");
            }
            format.name = std::string(name);
            haveName = true;
        } else if (startsWith(line, "ID:")) {
            if (haveId) {
                return refuse(where + " gives the event's ID a second time.");
            }
            const std::optional<uint64_t> id = decimal(line.substr(3));
            if (!id || *id > maxEventId) {
                return refuse(where + ": the ID " + quoted(trimmedText(line.substr(3))) + " is not a number from 0 to " + std::to_string(maxEventId) + ".");
            }
            format.id = uint32_t(*id);
            haveId = true;
        } else if (line == "format:") {
            if (haveFormatLine) {
                return refuse(where + " starts the fields a second time.");
            }
            haveFormatLine = true;
        } else if (startsWith(line, "field:")) {
            if (!haveFormatLine) {
                return refuse(where + " is a field before the \"format:\" line.");
            }
            if (format.fields.size() == maxFields) {
                return refuse("The format has more than " + std::to_string(maxFields) + " fields.");
            }
            std::optional<Field> field = formatField(line, &why);
            if (!field) {
                return refuse(where + " is a field, but " + why + ".");
            }
            if (format.field(field->name)) {
                return refuse(where + " declares the field " + quoted(field->name) + " a second time.");
            }
            format.fields.push_back(std::move(*field));
        } else {
            return refuse(where + " is not part of an event format: " + quoted(line) + ".");
        }
    }
    if (!haveName) {
        return refuse("The format has no \"name:\" line.");
    }
    if (!haveId) {
        return refuse("The format has no \"ID:\" line.");
    }
    if (format.fields.empty()) {
        return refuse("The format has no fields.");
    }
    return format;
}

std::optional<PageLayout> parseHeaderPage(std::string_view text, std::string *error)
{
    std::optional<FieldLine> timestamp;
    std::optional<FieldLine> commit;
    std::optional<FieldLine> data;
    size_t lineNumber = 0;
    const auto refuse = [error](std::string why) -> std::optional<PageLayout> {
        setError(error, std::move(why));
        return std::nullopt;
    };
    while (!text.empty()) {
        const std::string_view line = trimmedText(nextLine(text));
        ++lineNumber;
        if (line.empty()) {
            continue;
        }
        const std::string where = "Line " + std::to_string(lineNumber) + " of header_page";
        if (!startsWith(line, "field:")) {
            return refuse(where + " is not a field: " + quoted(line) + ".");
        }
        std::string why;
        const std::optional<FieldLine> field = parseFieldLine(line, &why);
        if (!field) {
            return refuse(where + " is a field, but " + why + ".");
        }
        if (field->offset > maxPageBytes || field->size > maxPageBytes) {
            return refuse(where + " puts a field past byte " + std::to_string(maxPageBytes) + ".");
        }
        const std::string_view name = declaredName(field->declaration);
        std::optional<FieldLine> *slot = name == "timestamp" ? &timestamp : name == "commit" ? &commit : name == "data" ? &data : nullptr;
        if (!slot) {
            // "overwrite" (a flag bit inside commit) or one a later kernel adds.
            continue;
        }
        if (slot->has_value()) {
            return refuse(where + " declares " + quoted(name) + " a second time.");
        }
        *slot = field;
    }
    if (!timestamp || !commit || !data) {
        return refuse(std::string("header_page has no \"") + (!timestamp ? "timestamp" : !commit ? "commit" : "data") + "\" field.");
    }
    if (timestamp->size != 8) {
        return refuse("header_page's timestamp is " + std::to_string(timestamp->size) + " bytes, not 8.");
    }
    if (commit->size != 4 && commit->size != 8) {
        return refuse("header_page's commit is " + std::to_string(commit->size) + " bytes, neither 4 nor 8.");
    }
    if (data->size == 0 || data->offset + data->size > maxPageBytes) {
        return refuse("header_page's data of " + std::to_string(data->size) + " bytes at byte " + std::to_string(data->offset) + " makes no page of at most "
                      + std::to_string(maxPageBytes) + " bytes.");
    }
    if (timestamp->offset + timestamp->size > data->offset || commit->offset + commit->size > data->offset) {
        return refuse("header_page's timestamp or commit overlaps the data at byte " + std::to_string(data->offset) + ".");
    }
    PageLayout layout;
    layout.timestampOffset = uint32_t(timestamp->offset);
    layout.commitOffset = uint32_t(commit->offset);
    layout.commitSize = uint32_t(commit->size);
    layout.dataOffset = uint32_t(data->offset);
    layout.pageSize = uint32_t(data->offset + data->size);
    return layout;
}

PageResult parsePage(std::span<const uint8_t> page, const PageLayout &layout, const std::function<void(const Record &)> &take)
{
    PageResult result;
    const auto stop = [&result](std::string why) {
        result.malformed = true;
        result.error = std::move(why);
        return result;
    };
    if ((layout.commitSize != 4 && layout.commitSize != 8) || uint64_t(layout.timestampOffset) + 8 > layout.dataOffset
        || uint64_t(layout.commitOffset) + layout.commitSize > layout.dataOffset || layout.dataOffset >= layout.pageSize) {
        return stop("The page layout puts the time stamp or the commit outside the header, or the data outside the page.");
    }
    if (page.size() < layout.pageSize) {
        return stop("The page is " + std::to_string(page.size()) + " bytes, shorter than the " + std::to_string(layout.pageSize) + " of a page: a short read.");
    }
    const uint8_t *const data = page.data() + layout.dataOffset;
    const uint64_t room = page.size() - layout.dataOffset;
    // The flags go into commit as the kernel's int (1 << 31), which a
    // 64-bit local_t takes sign-extended: the length and the flags are in
    // the low 32 bits (as libtraceevent's kbuffer reads them), and anything
    // above them also says events were missed (added twice, bit 31 carries
    // out: seen on 6.18 as 0xffffffff00000fd0).
    const uint64_t fullCommit = loadUnsigned(page.data() + layout.commitOffset, layout.commitSize);
    const uint64_t commit = fullCommit & 0xffffffffULL;
    const uint64_t length = commit & ~(missedEventsFlag | missedStoredFlag);
    result.missedEvents = (commit & missedEventsFlag) != 0 || (fullCommit >> 32) != 0;
    if (length > room) {
        return stop("The commit at byte " + std::to_string(layout.commitOffset) + " says " + std::to_string(length) + " bytes of data, more than the "
                    + std::to_string(room) + " the page has.");
    }
    if (commit & missedStoredFlag) {
        // ring_buffer_read_page stores the count only where it fits after the data.
        if (!fitsIn(room, length, layout.commitSize)) {
            return stop("The count of missed events stored after the data, at byte " + std::to_string(layout.dataOffset + length)
                        + ", runs past the end of the page.");
        }
        result.missedCount = loadUnsigned(data + length, layout.commitSize);
    }

    uint64_t time = load<uint64_t>(page.data() + layout.timestampOffset);
    uint64_t at = 0;
    // Made only for an error: a page holds a hundred records, a trace many pages.
    const auto where = [&layout, &at] {
        return "at byte " + std::to_string(layout.dataOffset + at);
    };
    const auto dataEnd = [&layout, length] {
        return "the end of the data at byte " + std::to_string(layout.dataOffset + length);
    };
    while (at < length) {
        if (length - at < 4) {
            return stop("The record " + where() + " has no room for its 4-byte header before " + dataEnd() + ".");
        }
        const uint32_t header = load<uint32_t>(data + at);
        // The header is a C bit field: type_len in the low bits of a
        // little-endian u32, in the high bits of a big-endian one.
        const uint32_t typeLen = std::endian::native == std::endian::big ? header >> timeShift : header & typeLenMask;
        const uint32_t delta = std::endian::native == std::endian::big ? header & timeDeltaMask : header >> typeLenBits;
        const bool hasArray = typeLen == typeLenLong || typeLen == typeTimeExtend || typeLen == typeTimeStamp || (typeLen == typePadding && delta != 0);
        if (hasArray && length - at < 8) {
            return stop("The record " + where() + " (type_len " + std::to_string(typeLen) + ") has no room for its second word before " + dataEnd() + ".");
        }
        const uint32_t array = hasArray ? load<uint32_t>(data + at + 4) : 0;
        if (typeLen == typePadding) {
            if (delta == 0) {
                // rb_null_event: nothing was written from here to the end of the page.
                break;
            }
            const uint64_t skip = 4 + uint64_t(array);
            if (skip > length - at) {
                return stop("The padding " + where() + " runs " + std::to_string(skip) + " bytes, past " + dataEnd() + ".");
            }
            // A discarded record keeps its delta, and the writer counted the
            // records after it from its time (rb_read_data_buffer adds it
            // too); the end of a page has delta 1, which is none.
            if (delta != endPaddingDelta) {
                time += delta;
            }
            at += skip;
        } else if (typeLen == typeTimeExtend || typeLen == typeTimeStamp) {
            const uint64_t value = (uint64_t(array) << timeShift) + delta;
            time = typeLen == typeTimeExtend ? time + value : absoluteTime(value, time);
            at += 8;
        } else {
            uint64_t dataStart = at + 4;
            uint64_t dataBytes = uint64_t(typeLen) * 4;
            uint64_t next = dataStart + dataBytes;
            if (typeLen == typeLenLong) {
                // array[0] counts itself: the data after it is 4 bytes fewer.
                if (array < 4) {
                    return stop("The long record " + where() + " gives a length of " + std::to_string(array) + ", less than the 4 bytes of the length itself.");
                }
                dataStart = at + 8;
                dataBytes = array - 4;
                next = dataStart + ((dataBytes + 3) & ~uint64_t(3));
            }
            if (next > length) {
                return stop("The record " + where() + " (type_len " + std::to_string(typeLen) + ") runs to byte " + std::to_string(layout.dataOffset + next)
                            + ", past " + dataEnd() + ".");
            }
            time += delta;
            ++result.records;
            if (take) {
                take(Record{time, page.subspan(size_t(layout.dataOffset + dataStart), size_t(dataBytes))});
            }
            at = next;
        }
    }
    return result;
}

std::optional<uint64_t> readUnsigned(std::span<const uint8_t> data, const Field &field)
{
    if ((field.size != 1 && field.size != 2 && field.size != 4 && field.size != 8) || !fitsIn(data.size(), field.offset, field.size)) {
        return std::nullopt;
    }
    return loadUnsigned(data.data() + field.offset, field.size);
}

std::optional<int64_t> readSigned(std::span<const uint8_t> data, const Field &field)
{
    const std::optional<uint64_t> value = readUnsigned(data, field);
    if (!value) {
        return std::nullopt;
    }
    // Moves the field's sign bit to bit 63, then back with sign extension.
    const unsigned unused = 64 - field.size * 8;
    return static_cast<int64_t>(*value << unused) >> unused;
}

std::optional<std::string> readString(std::span<const uint8_t> data, const Field &field)
{
    std::span<const uint8_t> bytes;
    if (field.dataLoc || field.relLoc) {
        const std::optional<uint64_t> location = field.size == 4 ? readUnsigned(data, field) : std::nullopt;
        if (!location) {
            return std::nullopt;
        }
        uint64_t start = *location & 0xffff;
        const uint64_t length = *location >> 16;
        if (field.relLoc) {
            start += uint64_t(field.offset) + field.size;
        }
        if (!fitsIn(data.size(), start, length)) {
            return std::nullopt;
        }
        bytes = data.subspan(size_t(start), size_t(length));
    } else {
        if (!fitsIn(data.size(), field.offset, field.size)) {
            return std::nullopt;
        }
        bytes = data.subspan(field.offset, field.size);
    }
    const auto end = std::find(bytes.begin(), bytes.end(), uint8_t(0));
    return std::string(bytes.begin(), end);
}

std::optional<uint16_t> commonType(std::span<const uint8_t> data)
{
    if (data.size() < sizeof(uint16_t)) {
        return std::nullopt;
    }
    return load<uint16_t>(data.data());
}

std::optional<int64_t> commonPid(std::span<const uint8_t> data, const EventFormat &format)
{
    const Field *pid = format.field("common_pid");
    return pid ? readSigned(data, *pid) : std::nullopt;
}

} // namespace Cachescope::RawTrace
