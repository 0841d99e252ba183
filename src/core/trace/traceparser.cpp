// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "trace/traceparser.h"

#include "procfs.h"

#include "residency.h"

#include <array>
#include <charconv>
#include <utility>

namespace Cachescope::Trace
{

namespace
{

struct EventName {
    std::string_view name;
    EventKind kind;
};

constexpr std::array<EventName, 6> eventNames{{
    {"mm_filemap_add_to_page_cache", EventKind::Added},
    {"mm_filemap_delete_from_page_cache", EventKind::Deleted},
    {"mm_filemap_get_pages", EventKind::GetPages},
    {"mm_filemap_map_pages", EventKind::MapPages},
    {"mm_filemap_fault", EventKind::Fault},
    {"block_rq_issue", EventKind::BlockIssue},
}};

// A folio's order above this is no folio (the largest is PUD-sized, order 18
// on x86-64 with 4 KiB pages); refused rather than shifted into nonsense.
constexpr unsigned maxFolioOrder = 30;

// Splits off the next space-separated word of text.
std::string_view nextWord(std::string_view &text)
{
    text = trimmedText(text);
    const size_t end = std::min(text.find(' '), text.size());
    const std::string_view word = text.substr(0, end);
    text.remove_prefix(end);
    return word;
}

template<typename Number>
std::optional<Number> numberOf(std::string_view text, int base = 10)
{
    Number value{};
    if (text.empty()) {
        return std::nullopt;
    }
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (error != std::errc() || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

// "8363.556112" (seconds, up to nine decimals) in nanoseconds.
std::optional<uint64_t> nanosecondsOf(std::string_view text)
{
    const size_t dot = text.find('.');
    if (dot == std::string_view::npos) {
        return std::nullopt;
    }
    const std::string_view fraction = text.substr(dot + 1);
    const std::optional<uint64_t> seconds = numberOf<uint64_t>(text.substr(0, dot));
    const std::optional<uint64_t> fractionValue = numberOf<uint64_t>(fraction);
    if (!seconds || !fractionValue || fraction.size() > 9 || *seconds > UINT64_MAX / 1000000000ULL - 1) {
        return std::nullopt;
    }
    uint64_t nanoseconds = *fractionValue;
    for (size_t digits = fraction.size(); digits < 9; ++digits) {
        nanoseconds *= 10;
    }
    return *seconds * 1000000000ULL + nanoseconds;
}

// "254:0" (filemap events) or "254,0" (block events).
bool parseDevice(std::string_view text, char separator, RawEvent &event)
{
    const size_t at = text.find(separator);
    if (at == std::string_view::npos) {
        return false;
    }
    const std::optional<uint32_t> major = numberOf<uint32_t>(text.substr(0, at));
    const std::optional<uint32_t> minor = numberOf<uint32_t>(text.substr(at + 1));
    if (!major || !minor) {
        return false;
    }
    event.major = *major;
    event.minor = *minor;
    return true;
}

// The value after "key=" in a word, or nothing when the word is not that key's.
std::optional<std::string_view> valueOf(std::string_view word, std::string_view key)
{
    if (word.size() <= key.size() || word.substr(0, key.size()) != key || word[key.size()] != '=') {
        return std::nullopt;
    }
    return word.substr(key.size() + 1);
}

// add/delete: "dev 254:0 ino 3c529 pfn=0x192d2b ofs=0 order=0". Kernels
// before large folios print no order (a single page) and "page=..."
// before pfn=; unknown words are skipped.
bool parseFolio(std::string_view fields, uint64_t pageBytes, RawEvent &event)
{
    if (nextWord(fields) != "dev" || !parseDevice(nextWord(fields), ':', event) || nextWord(fields) != "ino") {
        return false;
    }
    const std::optional<uint64_t> inode = numberOf<uint64_t>(nextWord(fields), 16);
    if (!inode) {
        return false;
    }
    event.inode = *inode;
    std::optional<uint64_t> offset;
    unsigned order = 0;
    for (std::string_view word = nextWord(fields); !word.empty(); word = nextWord(fields)) {
        if (const auto value = valueOf(word, "ofs")) {
            offset = numberOf<uint64_t>(*value);
            if (!offset) {
                return false;
            }
        } else if (const auto value = valueOf(word, "order")) {
            const std::optional<unsigned> parsed = numberOf<unsigned>(*value);
            if (!parsed || *parsed > maxFolioOrder) {
                return false;
            }
            order = *parsed;
        }
    }
    if (!offset || *offset % pageBytes != 0) {
        return false;
    }
    event.firstPage = *offset / pageBytes;
    event.pageCount = uint64_t(1) << order;
    return true;
}

// get_pages/map_pages: "dev=254:0 ino=3c529 ofs=0-4095" (the last byte is
// included); fault: "dev=254:0 ino=3c529 ofs=86016" (one page).
bool parseRange(std::string_view fields, uint64_t pageBytes, bool range, RawEvent &event)
{
    const auto device = valueOf(nextWord(fields), "dev");
    if (!device || !parseDevice(*device, ':', event)) {
        return false;
    }
    const auto inodeText = valueOf(nextWord(fields), "ino");
    const std::optional<uint64_t> inode = inodeText ? numberOf<uint64_t>(*inodeText, 16) : std::nullopt;
    const auto offsets = valueOf(nextWord(fields), "ofs");
    if (!inode || !offsets || !trimmedText(fields).empty()) {
        return false;
    }
    event.inode = *inode;
    uint64_t first = 0;
    uint64_t last = 0;
    if (range) {
        const size_t dash = offsets->find('-');
        const std::optional<uint64_t> start = dash == std::string_view::npos ? std::nullopt : numberOf<uint64_t>(offsets->substr(0, dash));
        const std::optional<uint64_t> end = dash == std::string_view::npos ? std::nullopt : numberOf<uint64_t>(offsets->substr(dash + 1));
        if (!start || !end || *end < *start) {
            return false;
        }
        first = *start;
        last = *end;
    } else {
        const std::optional<uint64_t> offset = numberOf<uint64_t>(*offsets);
        if (!offset) {
            return false;
        }
        first = last = *offset;
    }
    event.firstPage = first / pageBytes;
    event.pageCount = last / pageBytes - event.firstPage + 1;
    return true;
}

// "254,0 RA 16384 () 12580504 + 32 be,0,4 [bash]": device, rwbs, bytes,
// the command of a passthrough request in parentheses (may hold spaces),
// sector "+" sectors, then the I/O priority (6.x) and the issuer's name.
bool parseBlockRequest(std::string_view fields, RawEvent &event)
{
    if (!parseDevice(nextWord(fields), ',', event)) {
        return false;
    }
    const std::string_view rwbs = nextWord(fields);
    const std::optional<uint32_t> bytes = numberOf<uint32_t>(nextWord(fields));
    fields = trimmedText(fields);
    const size_t close = fields.find(')');
    if (rwbs.empty() || !bytes || fields.empty() || fields.front() != '(' || close == std::string_view::npos) {
        return false;
    }
    fields.remove_prefix(close + 1);
    const std::optional<uint64_t> sector = numberOf<uint64_t>(nextWord(fields));
    if (!sector || nextWord(fields) != "+" || !numberOf<uint32_t>(nextWord(fields))) {
        return false;
    }
    event.rwbs = std::string(rwbs);
    event.bytes = *bytes;
    event.sector = *sector;
    return true;
}

// "  dd-21124   [000] ..... 8363.556112" (the part before ": <event>: "):
// the name may hold spaces and dashes, so it is read from the right.
bool parsePrefix(std::string_view prefix, RawEvent &event)
{
    prefix = trimmedText(prefix);
    const size_t lastSpace = prefix.rfind(' ');
    if (lastSpace == std::string_view::npos) {
        return false;
    }
    const std::optional<uint64_t> time = nanosecondsOf(prefix.substr(lastSpace + 1));
    const size_t cpu = prefix.rfind(" [", lastSpace);
    if (!time || cpu == std::string_view::npos) {
        return false;
    }
    const std::string_view task = trimmedText(prefix.substr(0, cpu));
    const size_t dash = task.rfind('-');
    const std::optional<int32_t> pid = dash == std::string_view::npos ? std::nullopt : numberOf<int32_t>(task.substr(dash + 1));
    if (!pid || *pid < 0) {
        return false;
    }
    event.timeNs = *time;
    event.pid = *pid;
    return true;
}

} // namespace

std::optional<RawEvent> parseTraceLine(std::string_view line, uint64_t pageBytes)
{
    if (pageBytes == 0 || (pageBytes & (pageBytes - 1)) != 0) {
        return std::nullopt;
    }
    const std::string_view content = trimmedText(line);
    if (content.empty() || content.front() == '#') {
        return std::nullopt;
    }
    // The first ": <known event>: " ends the prefix; a task name (at most 15
    // bytes) is too short to hold one.
    for (const EventName &known : eventNames) {
        const std::string marker = ": " + std::string(known.name) + ": ";
        const size_t at = content.find(marker);
        if (at == std::string_view::npos) {
            continue;
        }
        RawEvent event;
        event.kind = known.kind;
        if (!parsePrefix(content.substr(0, at), event)) {
            return std::nullopt;
        }
        const std::string_view fields = content.substr(at + marker.size());
        bool parsed = false;
        switch (known.kind) {
        case EventKind::Added:
        case EventKind::Deleted:
            parsed = parseFolio(fields, pageBytes, event);
            break;
        case EventKind::GetPages:
        case EventKind::MapPages:
            parsed = parseRange(fields, pageBytes, true, event);
            break;
        case EventKind::Fault:
            parsed = parseRange(fields, pageBytes, false, event);
            break;
        case EventKind::BlockIssue:
            parsed = parseBlockRequest(fields, event);
            break;
        }
        if (!parsed) {
            return std::nullopt;
        }
        return event;
    }
    return std::nullopt;
}

std::optional<RawEvent> parseTraceLine(std::string_view line)
{
    return parseTraceLine(line, pageSize());
}

std::optional<BufferLosses> parseBufferStats(std::string_view text)
{
    BufferLosses losses;
    bool sawOverrun = false;
    while (!text.empty()) {
        const size_t end = std::min(text.find('\n'), text.size());
        const std::string_view line = text.substr(0, end);
        text.remove_prefix(std::min(end + 1, text.size()));
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            continue;
        }
        const std::string_view key = trimmedText(line.substr(0, colon));
        uint64_t *field = key == "overrun" ? &losses.overrun
            : key == "commit overrun"      ? &losses.commitOverrun
            : key == "dropped events"      ? &losses.dropped
                                           : nullptr;
        if (!field) {
            continue;
        }
        const std::optional<uint64_t> value = numberOf<uint64_t>(trimmedText(line.substr(colon + 1)));
        if (!value) {
            return std::nullopt;
        }
        *field = *value;
        sawOverrun = sawOverrun || field == &losses.overrun;
    }
    if (!sawOverrun) {
        return std::nullopt;
    }
    return losses;
}

} // namespace Cachescope::Trace
