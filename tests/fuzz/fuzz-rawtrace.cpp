// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// tracefs's binary per-CPU pages in this kernel's layout, every record's
// fields read through a real event format (mm_filemap_add_to_page_cache);
// or, after a first byte that asks for it, the text of a format file and of
// header_page, whose parsed fields then read a page too.

#include "fuzzinput.h"

#include "activity/rawtrace.h"

#include <span>

namespace
{

using namespace Cachescope::RawTrace;

constexpr std::string_view addToPageCacheFormat = R"tracefs(name: mm_filemap_add_to_page_cache
ID: 600
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:unsigned long pfn;	offset:8;	size:8;	signed:0;
	field:unsigned long i_ino;	offset:16;	size:8;	signed:0;
	field:unsigned long index;	offset:24;	size:8;	signed:0;
	field:dev_t s_dev;	offset:32;	size:4;	signed:0;
	field:unsigned char order;	offset:36;	size:1;	signed:0;
	field:__data_loc char[] name;	offset:40;	size:4;	signed:0;

print fmt: "dev %d:%d ino %lx pfn=0x%lx ofs=%lu order=%u"
)tracefs";

void readEveryField(std::span<const uint8_t> page, const PageLayout &layout, const EventFormat &format)
{
    (void)parsePage(page, layout, [&format](const Record &record) {
        (void)commonType(record.data);
        (void)commonPid(record.data, format);
        for (const Field &field : format.fields) {
            (void)readUnsigned(record.data, field);
            (void)readSigned(record.data, field);
            (void)readString(record.data, field);
        }
    });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const std::optional<EventFormat> known = parseEventFormat(addToPageCacheFormat, nullptr);
    if (!known) {
        __builtin_trap(); // the real format must parse
    }
    if (size > 0 && data[0] == 'T') {
        // Text: a format file, then (after a NUL) a header_page file, then a page.
        const std::string_view text = Cachescope::Fuzz::asText(data + 1, size - 1);
        const size_t split = text.find('\0');
        std::string error;
        const std::optional<EventFormat> format = parseEventFormat(text.substr(0, split), &error);
        const std::optional<PageLayout> layout = split == std::string_view::npos ? std::nullopt : parseHeaderPage(text.substr(split + 1), &error);
        if (format && layout) {
            readEveryField(std::span<const uint8_t>(data, size), *layout, *format);
        }
        return 0;
    }
    readEveryField(std::span<const uint8_t>(data, size), PageLayout(), *known);
    return 0;
}
