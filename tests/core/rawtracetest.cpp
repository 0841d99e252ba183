// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The binary tracefs readers: format files and header_page copied from a
// 6.18 kernel, and the same cut or changed into what they must refuse;
// ring-buffer pages built byte by byte with every kind of record, whole and
// broken; and, as root, the kernel's own pages of a private tracefs
// instance, which must tell every page of a file the test read.

#include "activity/rawtrace.h"
#include "pidnamespace.h"
#include "testutil.h"
#include "uniquefd.h"

#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

using namespace Cachescope;
using namespace Cachescope::RawTrace;

namespace
{

// Copied from this machine's kernel (6.18, x86-64): tracefs's files, exactly.
// events/filemap/mm_filemap_add_to_page_cache/format
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

print fmt: "dev %d:%d ino %lx pfn=0x%lx ofs=%lu order=%u", ((unsigned int) ((REC->s_dev) >> 20)), ((unsigned int) ((REC->s_dev) & ((1U << 20) - 1))), REC->i_ino, REC->pfn, REC->index << 12, REC->order
)tracefs";

// events/filemap/mm_filemap_delete_from_page_cache/format
constexpr std::string_view deleteFromPageCacheFormat = R"tracefs(name: mm_filemap_delete_from_page_cache
ID: 601
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

print fmt: "dev %d:%d ino %lx pfn=0x%lx ofs=%lu order=%u", ((unsigned int) ((REC->s_dev) >> 20)), ((unsigned int) ((REC->s_dev) & ((1U << 20) - 1))), REC->i_ino, REC->pfn, REC->index << 12, REC->order
)tracefs";

// events/writeback/writeback_dirty_folio/format
constexpr std::string_view writebackDirtyFolioFormat = R"tracefs(name: writeback_dirty_folio
ID: 1009
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:char name[32];	offset:8;	size:32;	signed:0;
	field:ino_t ino;	offset:40;	size:8;	signed:0;
	field:unsigned long index;	offset:48;	size:8;	signed:0;

print fmt: "bdi %s: ino=%lu index=%lu", REC->name, (unsigned long)REC->ino, REC->index
)tracefs";

// events/sched/sched_process_exec/format
constexpr std::string_view processExecFormat = R"tracefs(name: sched_process_exec
ID: 365
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:__data_loc char[] filename;	offset:8;	size:4;	signed:0;
	field:pid_t pid;	offset:12;	size:4;	signed:1;
	field:pid_t old_pid;	offset:16;	size:4;	signed:1;

print fmt: "filename=%s pid=%d old_pid=%d", __get_str(filename), REC->pid, REC->old_pid
)tracefs";

// events/vmscan/mm_vmscan_direct_reclaim_begin/format
constexpr std::string_view directReclaimBeginFormat = R"tracefs(name: mm_vmscan_direct_reclaim_begin
ID: 637
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:int order;	offset:8;	size:4;	signed:1;
	field:unsigned long gfp_flags;	offset:16;	size:8;	signed:0;

print fmt: "order=%d gfp_flags=%s", REC->order, (REC->gfp_flags) ? __print_flags(REC->gfp_flags, "|", {( unsigned long)(((((((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | (( gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))) | (( gfp_t)((((1UL))) << (20)))) | (( gfp_t)((((1UL))) << (1)))) | (( gfp_t)((((1UL))) << (3))) | (( gfp_t)0)) | (( gfp_t)((((1UL))) << (18))) | (( gfp_t)((((1UL))) << (19))) | (( gfp_t)((((1UL))) << (13)))) & ~(( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11))))) | (( gfp_t)((((1UL))) << (10)))), "GFP_TRANSHUGE"}, {( unsigned long)((((((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | (( gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))) | (( gfp_t)((((1UL))) << (20)))) | (( gfp_t)((((1UL))) << (1)))) | (( gfp_t)((((1UL))) << (3))) | (( gfp_t)0)) | (( gfp_t)((((1UL))) << (18))) | (( gfp_t)((((1UL))) << (19))) | (( gfp_t)((((1UL))) << (13)))) & ~(( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11))))), "GFP_TRANSHUGE_LIGHT"}, {( unsigned long)((((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | (( gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))) | (( gfp_t)((((1UL))) << (20)))) | (( gfp_t)((((1UL))) << (1)))) | (( gfp_t)((((1UL))) << (3))) | (( gfp_t)0)), "GFP_HIGHUSER_MOVABLE"}, {( unsigned long)(((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | (( gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))) | (( gfp_t)((((1UL))) << (20)))) | (( gfp_t)((((1UL))) << (1)))), "GFP_HIGHUSER"}, {( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | (( gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7))) | (( gfp_t)((((1UL))) << (20)))), "GFP_USER"}, {( unsigned long)(((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | (( gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7)))) | (( gfp_t)((((1UL))) << (22)))), "GFP_KERNEL_ACCOUNT"}, {( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | (( gfp_t)((((1UL))) << (6))) | (( gfp_t)((((1UL))) << (7)))), "GFP_KERNEL"}, {( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | (( gfp_t)((((1UL))) << (6)))), "GFP_NOFS"}, {( unsigned long)((( gfp_t)((((1UL))) << (5)))|(( gfp_t)((((1UL))) << (11)))), "GFP_ATOMIC"}, {( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11))))), "GFP_NOIO"}, {( unsigned long)((( gfp_t)((((1UL))) << (11))) | (( gfp_t)((((1UL))) << (13)))), "GFP_NOWAIT"}, {( unsigned long)(( gfp_t)((((1UL))) << (0))), "GFP_DMA"}, {( unsigned long)(( gfp_t)((((1UL))) << (2))), "GFP_DMA32"}, {( unsigned long)(( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))), "__GFP_RECLAIM"}, {( unsigned long)(( gfp_t)((((1UL))) << (0))), "__GFP_DMA"}, {( unsigned long)(( gfp_t)((((1UL))) << (1))), "__GFP_HIGHMEM"}, {( unsigned long)(( gfp_t)((((1UL))) << (2))), "__GFP_DMA32"}, {( unsigned long)(( gfp_t)((((1UL))) << (3))), "__GFP_MOVABLE"}, {( unsigned long)(( gfp_t)((((1UL))) << (4))), "__GFP_RECLAIMABLE"}, {( unsigned long)(( gfp_t)((((1UL))) << (5))), "__GFP_HIGH"}, {( unsigned long)(( gfp_t)((((1UL))) << (6))), "__GFP_IO"}, {( unsigned long)(( gfp_t)((((1UL))) << (7))), "__GFP_FS"}, {( unsigned long)(( gfp_t)((((1UL))) << (8))), "__GFP_ZERO"}, {( unsigned long)(( gfp_t)((((1UL))) << (10))), "__GFP_DIRECT_RECLAIM"}, {( unsigned long)(( gfp_t)((((1UL))) << (11))), "__GFP_KSWAPD_RECLAIM"}, {( unsigned long)(( gfp_t)((((1UL))) << (12))), "__GFP_WRITE"}, {( unsigned long)(( gfp_t)((((1UL))) << (13))), "__GFP_NOWARN"}, {( unsigned long)(( gfp_t)((((1UL))) << (14))), "__GFP_RETRY_MAYFAIL"}, {( unsigned long)(( gfp_t)((((1UL))) << (15))), "__GFP_NOFAIL"}, {( unsigned long)(( gfp_t)((((1UL))) << (16))), "__GFP_NORETRY"}, {( unsigned long)(( gfp_t)((((1UL))) << (17))), "__GFP_MEMALLOC"}, {( unsigned long)(( gfp_t)((((1UL))) << (18))), "__GFP_COMP"}, {( unsigned long)(( gfp_t)((((1UL))) << (19))), "__GFP_NOMEMALLOC"}, {( unsigned long)(( gfp_t)((((1UL))) << (20))), "__GFP_HARDWALL"}, {( unsigned long)(( gfp_t)((((1UL))) << (21))), "__GFP_THISNODE"}, {( unsigned long)(( gfp_t)((((1UL))) << (22))), "__GFP_ACCOUNT"}, {( unsigned long)(( gfp_t)((((1UL))) << (23))), "__GFP_ZEROTAGS"}, {( unsigned long)(( gfp_t)((((1UL))) << (24))), "__GFP_NO_OBJ_EXT"}, { 0, ((void *)0) } ) : "none"
)tracefs";

// events/header_page
constexpr std::string_view headerPageText = R"tracefs(	field: u64 timestamp;	offset:0;	size:8;	signed:0;
	field: local_t commit;	offset:8;	size:8;	signed:1;
	field: int overwrite;	offset:8;	size:1;	signed:1;
	field: char data;	offset:16;	size:4080;	signed:0;
)tracefs";

constexpr uint32_t addToPageCacheId = 600;

// A field as the format must describe it.
Field field(const char *name, uint32_t offset, uint32_t size, bool isSigned, bool dataLoc = false)
{
    Field expected;
    expected.name = name;
    expected.offset = offset;
    expected.size = size;
    expected.isSigned = isSigned;
    expected.dataLoc = dataLoc;
    return expected;
}

// The four fields every event starts with.
std::vector<Field> commonFields()
{
    return {field("common_type", 0, 2, false), field("common_flags", 2, 1, false), field("common_preempt_count", 3, 1, false), field("common_pid", 4, 4, true)};
}

std::vector<Field> withCommonFields(const std::vector<Field> &own)
{
    std::vector<Field> all = commonFields();
    all.insert(all.end(), own.begin(), own.end());
    return all;
}

// The fields of mm_filemap_add_to_page_cache and mm_filemap_delete_from_page_cache.
std::vector<Field> filemapFields()
{
    return withCommonFields(
        {field("pfn", 8, 8, false), field("i_ino", 16, 8, false), field("index", 24, 8, false), field("s_dev", 32, 4, false), field("order", 36, 1, false)});
}

QByteArray describe(const Field &f)
{
    return QByteArray::fromStdString(f.name) + " offset " + QByteArray::number(f.offset) + " size " + QByteArray::number(f.size) + " signed "
        + QByteArray::number(f.isSigned) + " data_loc " + QByteArray::number(f.dataLoc) + " rel_loc " + QByteArray::number(f.relLoc);
}

EventFormat parsedFormat(std::string_view text)
{
    std::string error;
    const std::optional<EventFormat> format = parseEventFormat(text, &error);
    if (!format) {
        qWarning("the format was refused: %s", error.c_str());
        return {};
    }
    return *format;
}

// Text with every occurrence of `from` replaced by `to`; empty (so that the
// test fails visibly) when `from` is not there.
std::string replaced(std::string_view text, std::string_view from, std::string_view to)
{
    std::string result(text);
    const size_t at = result.find(from);
    if (at == std::string::npos) {
        qWarning("\"%s\" is not in the text", std::string(from).c_str());
        return {};
    }
    result.replace(at, from.size(), to);
    return result;
}

// A format of `count` u32 fields after the common ones.
std::string formatWithFields(size_t count, size_t nameBytes = 0)
{
    std::string text = "name: many_fields\nID: 42\nformat:\n";
    for (size_t i = 0; i < count; ++i) {
        std::string name = "f" + std::to_string(i);
        if (nameBytes > name.size()) {
            name += std::string(nameBytes - name.size(), 'x');
        }
        text += "\tfield:u32 " + name + ";\toffset:" + std::to_string(8 + 4 * i) + ";\tsize:4;\tsigned:0;\n";
    }
    return text + "\nprint fmt: \"\"\n";
}

void putBytes(std::vector<uint8_t> &bytes, size_t at, const void *value, size_t size)
{
    if (at + size > bytes.size()) {
        qFatal("the test writes past its own buffer");
    }
    std::memcpy(bytes.data() + at, value, size);
}

template<typename T>
void put(std::vector<uint8_t> &bytes, size_t at, T value)
{
    putBytes(bytes, at, &value, sizeof value);
}

constexpr uint64_t lowBits27 = (uint64_t(1) << 27) - 1;
constexpr uint64_t missedEventsFlag = uint64_t(1) << 31;
constexpr uint64_t missedStoredFlag = uint64_t(1) << 30;

// A ring-buffer page built record by record as the kernel writes one: a time
// stamp, a commit, then the records, every number in the machine's byte
// order (what the parser reads).
class PageBuilder
{
public:
    explicit PageBuilder(uint64_t timestamp, const PageLayout &layout = PageLayout{})
        : m_layout(layout)
        , m_page(layout.pageSize, 0)
    {
        put<uint64_t>(m_page, layout.timestampOffset, timestamp);
    }
    // type_len 1..28: data of 4..112 bytes, a multiple of 4.
    PageBuilder &record(uint32_t delta, const std::vector<uint8_t> &data)
    {
        header(uint32_t(data.size() / 4), delta);
        return bytes(data);
    }
    // type_len 0: array[0] holds the data's length plus its own 4 bytes; the
    // data is padded to 4 bytes.
    PageBuilder &longRecord(uint32_t delta, const std::vector<uint8_t> &data)
    {
        header(0, delta);
        word(uint32_t(data.size() + 4));
        bytes(data);
        m_at = (m_at + 3) & ~size_t(3);
        return *this;
    }
    PageBuilder &timeExtend(uint64_t delta)
    {
        header(30, uint32_t(delta & lowBits27));
        return word(uint32_t(delta >> 27));
    }
    // Of 59 bits.
    PageBuilder &timeStamp(uint64_t stamp)
    {
        header(31, uint32_t(stamp & lowBits27));
        return word(uint32_t(stamp >> 27));
    }
    // Padding of `total` bytes, its header included: a discarded record, or
    // the end of a page (delta 1).
    PageBuilder &padding(uint32_t delta, uint32_t total)
    {
        header(29, delta);
        word(total - 4);
        m_at += total - 8;
        return *this;
    }
    // The kernel's "null event": the rest of the page is empty.
    PageBuilder &nullPadding()
    {
        return header(29, 0);
    }
    PageBuilder &header(uint32_t typeLen, uint32_t delta)
    {
        // A C bit field: type_len in the low 5 bits on little-endian machines.
        return word(std::endian::native == std::endian::big ? (typeLen << 27 | delta) : (typeLen | delta << 5));
    }
    PageBuilder &word(uint32_t value)
    {
        put<uint32_t>(m_page, m_layout.dataOffset + m_at, value);
        m_at += 4;
        return *this;
    }
    PageBuilder &bytes(const std::vector<uint8_t> &data)
    {
        putBytes(m_page, m_layout.dataOffset + m_at, data.data(), data.size());
        m_at += data.size();
        return *this;
    }
    // The commit: the bytes written so far, or `length`, and flags.
    PageBuilder &commit(uint64_t flags = 0)
    {
        return commitLength(m_at, flags);
    }
    PageBuilder &commitLength(uint64_t length, uint64_t flags = 0)
    {
        const uint64_t value = length | flags;
        putBytes(m_page, m_layout.commitOffset, &value, m_layout.commitSize); // the low bytes on little-endian machines
        return *this;
    }
    // The count ring_buffer_read_page stores after the data.
    PageBuilder &storeMissed(uint64_t count)
    {
        putBytes(m_page, m_layout.dataOffset + m_at, &count, m_layout.commitSize);
        return *this;
    }
    [[nodiscard]] size_t written() const
    {
        return m_at;
    }
    [[nodiscard]] const std::vector<uint8_t> &page() const
    {
        return m_page;
    }

private:
    PageLayout m_layout;
    std::vector<uint8_t> m_page;
    size_t m_at = 0;
};

// What parsePage handed over.
struct Parsed {
    PageResult result;
    std::vector<uint64_t> times;
    std::vector<std::vector<uint8_t>> data;
};

Parsed parse(const std::vector<uint8_t> &page, const PageLayout &layout = PageLayout{})
{
    Parsed parsed;
    parsed.result = parsePage(page, layout, [&parsed](const Record &record) {
        parsed.times.push_back(record.timestamp);
        parsed.data.emplace_back(record.data.begin(), record.data.end());
    });
    return parsed;
}

// length bytes, each telling its record (seed) and its place.
std::vector<uint8_t> pattern(size_t length, uint8_t seed)
{
    std::vector<uint8_t> data(length);
    for (size_t i = 0; i < length; ++i) {
        data[i] = uint8_t(seed * 31 + i);
    }
    return data;
}

// The data of an mm_filemap_add_to_page_cache record (40 bytes).
std::vector<uint8_t> addRecord(int32_t pid, uint64_t pfn, uint64_t inode, uint64_t index, uint32_t kernelDev, uint8_t order)
{
    std::vector<uint8_t> data(40, 0);
    put<uint16_t>(data, 0, uint16_t(addToPageCacheId));
    put<uint8_t>(data, 2, 0x01); // common_flags
    put<uint8_t>(data, 3, 0x00); // common_preempt_count
    put<int32_t>(data, 4, pid);
    put<uint64_t>(data, 8, pfn);
    put<uint64_t>(data, 16, inode);
    put<uint64_t>(data, 24, index);
    put<uint32_t>(data, 32, kernelDev);
    put<uint8_t>(data, 36, order);
    return data;
}

// --- The real kernel --------------------------------------------------------

constexpr const char *instancePrefix = "cachescope-rawtest-";
constexpr uint64_t fileBytes = 1 << 20;
constexpr size_t chunks = 4;
constexpr uint64_t chunkBytes = fileBytes / chunks;

bool writeText(const std::string &path, const std::string &text)
{
    const UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
    return fd && write(fd.get(), text.data(), text.size()) == ssize_t(text.size());
}

std::optional<std::string> readText(const std::string &path)
{
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        return std::nullopt;
    }
    return std::string(std::istreambuf_iterator<char>(file), {});
}

std::vector<std::string> entriesStartingWith(const std::string &folder, std::string_view prefix)
{
    std::vector<std::string> names;
    DIR *directory = opendir(folder.c_str());
    if (!directory) {
        return names;
    }
    while (const dirent *entry = readdir(directory)) {
        const std::string_view name = entry->d_name;
        if (name.substr(0, prefix.size()) == prefix) {
            names.emplace_back(name);
        }
    }
    closedir(directory);
    return names;
}

uint64_t monotonicNow()
{
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return uint64_t(now.tv_sec) * 1000000000 + uint64_t(now.tv_nsec);
}

bool mounted(const std::string &path)
{
    const std::optional<std::string> mountInfo = readText("/proc/self/mountinfo");
    return mountInfo && mountInfo->find(" " + path + " ") != std::string::npos;
}

// Undoes what the kernel test set up, in order: the event off, the instance
// gone, tracefs unmounted, its mount point removed. Returns what is left
// (empty when nothing is). Runs once, at the end or on a failure's return.
class TracefsTeardown
{
public:
    TracefsTeardown(std::string mountPoint, std::string instance, std::string event)
        : m_mountPoint(std::move(mountPoint))
        , m_instance(std::move(instance))
        , m_event(std::move(event))
    {
    }
    std::string run()
    {
        if (m_done) {
            return {};
        }
        m_done = true;
        std::string left;
        struct stat st{};
        if (stat(m_instance.c_str(), &st) == 0) {
            writeText(m_instance + "/tracing_on", "0");
            writeText(m_event + "/enable", "0");
            if (rmdir(m_instance.c_str()) != 0) {
                left += "rmdir " + m_instance + ": " + std::strerror(errno) + ". ";
            }
        }
        for (const std::string &name : entriesStartingWith(m_mountPoint + "/instances", instancePrefix)) {
            left += "the instance " + name + " is still there. ";
        }
        if (umount2(m_mountPoint.c_str(), 0) != 0) {
            left += "umount " + m_mountPoint + ": " + std::strerror(errno) + ". ";
            umount2(m_mountPoint.c_str(), MNT_DETACH);
        }
        struct statfs fs{};
        // Never remove the folder while tracefs might still be on it.
        if (statfs(m_mountPoint.c_str(), &fs) == 0 && static_cast<unsigned long>(fs.f_type) != TRACEFS_MAGIC) {
            rmdir(m_mountPoint.c_str());
        }
        if (mounted(m_mountPoint)) {
            left += m_mountPoint + " is still mounted. ";
        }
        return left;
    }

private:
    std::string m_mountPoint;
    std::string m_instance;
    std::string m_event;
    bool m_done = false;
};

} // namespace

class RawTraceTest : public QObject
{
    Q_OBJECT

private:
    static void verifyFormat(std::string_view text, uint32_t id, const char *name, const std::vector<Field> &expected)
    {
        std::string error;
        const std::optional<EventFormat> format = parseEventFormat(text, &error);
        QVERIFY2(format, error.c_str());
        QCOMPARE(format->id, id);
        QCOMPARE(format->name, std::string(name));
        QCOMPARE(format->fields.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(describe(format->fields[i]), describe(expected[i]));
        }
        for (const Field &f : expected) {
            QVERIFY(format->field(f.name));
            QCOMPARE(format->field(f.name)->offset, f.offset);
        }
        QVERIFY(!format->field("no_such_field"));
        QVERIFY(!format->field(""));
    }

private Q_SLOTS:
    // --- Formats ------------------------------------------------------------

    void parsesAddToPageCacheFormat()
    {
        verifyFormat(addToPageCacheFormat, 600, "mm_filemap_add_to_page_cache", filemapFields());
    }

    void parsesDeleteFromPageCacheFormat()
    {
        verifyFormat(deleteFromPageCacheFormat, 601, "mm_filemap_delete_from_page_cache", filemapFields());
    }

    void parsesWritebackDirtyFolioFormat()
    {
        // "char name[32]" is the field "name", 32 bytes.
        verifyFormat(writebackDirtyFolioFormat,
                     1009,
                     "writeback_dirty_folio",
                     withCommonFields({field("name", 8, 32, false), field("ino", 40, 8, false), field("index", 48, 8, false)}));
    }

    void parsesProcessExecFormat()
    {
        // "__data_loc char[] filename" is the field "filename", a 4-byte location.
        verifyFormat(processExecFormat,
                     365,
                     "sched_process_exec",
                     withCommonFields({field("filename", 8, 4, false, true), field("pid", 12, 4, true), field("old_pid", 16, 4, true)}));
    }

    void parsesDirectReclaimBeginFormat()
    {
        // Its print fmt line is 5 KiB of flag names: not read, not refused.
        QVERIFY(directReclaimBeginFormat.size() > 4000);
        verifyFormat(directReclaimBeginFormat,
                     637,
                     "mm_vmscan_direct_reclaim_begin",
                     withCommonFields({field("order", 8, 4, true), field("gfp_flags", 16, 8, false)}));
    }

    void acceptsWhatIsWithinTheBounds()
    {
        // 128 fields, each name 128 bytes.
        std::string error;
        std::optional<EventFormat> format = parseEventFormat(formatWithFields(128, 128), &error);
        QVERIFY2(format, error.c_str());
        QCOMPARE(format->fields.size(), size_t(128));
        QCOMPARE(format->fields.back().name.size(), size_t(128));
        QCOMPARE(format->fields.back().offset, uint32_t(8 + 4 * 127));

        // A field ending at byte 65536 exactly; arrays of arrays and sizes
        // with brackets; __rel_loc; no "signed:" (before 2.6.32); a key a
        // later kernel might add; the fields in any order.
        format = parseEventFormat(
            "name: bounds\n"
            "ID: 65535\n"
            "format:\n"
            "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
            "\tfield:__u8 saddr[sizeof(struct sockaddr_in6)];\toffset:8;\tsize:28;\tsigned:0;\n"
            "\tfield:char grid[2][3];\toffset:36;\tsize:6;\tsigned:1;\n"
            "\tfield:__rel_loc char[] path;\toffset:44;\tsize:4;\tsigned:0;\n"
            "\tfield:int old_style;\toffset:48;\tsize:4;\n"
            "\tfield:u64 later;\toffset:56;\tsize:8;\tsigned:0;\talign:8;\n"
            "\tfield:char tail[8];\toffset:65528;\tsize:8;\tsigned:0;\n"
            "\n"
            "print fmt: \"%s\", __get_rel_str(path)\n",
            &error);
        QVERIFY2(format, error.c_str());
        QCOMPARE(format->id, uint32_t(65535));
        QCOMPARE(format->fields.size(), size_t(7));
        Field rel = field("path", 44, 4, false);
        rel.relLoc = true;
        const std::vector<Field> expected{field("common_type", 0, 2, false),
                                          field("saddr", 8, 28, false),
                                          field("grid", 36, 6, true),
                                          rel,
                                          field("old_style", 48, 4, false),
                                          field("later", 56, 8, false),
                                          field("tail", 65528, 8, false)};
        for (size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(describe(format->fields[i]), describe(expected[i]));
        }
        // Nothing about the error when all went well.
        QVERIFY(error.empty());
        // No error sentence wanted.
        QVERIFY(parseEventFormat(addToPageCacheFormat, nullptr));
    }

    void refusesBadFormats_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("reason"); // a part of the error

        const std::string_view add = addToPageCacheFormat;
        const auto row = [](const char *name, const std::string &text, const char *reason) {
            QTest::newRow(name) << QByteArray::fromStdString(text) << QByteArray(reason);
        };
        row("no ID", replaced(add, "ID: 600\n", ""), "no \"ID:\" line");
        row("no name", replaced(add, "name: mm_filemap_add_to_page_cache\n", ""), "no \"name:\" line");
        row("empty", "", "no \"name:\" line");
        row("only blank lines", "\n\n\t\n", "no \"name:\" line");
        row("a field past 65536", replaced(add, "offset:36;\tsize:1;", "offset:65536;\tsize:1;"), "ends past byte 65536");
        row("a field across 65536", replaced(add, "offset:32;\tsize:4;", "offset:65534;\tsize:4;"), "ends past byte 65536");
        row("a field of size 0", replaced(add, "offset:36;\tsize:1;", "offset:36;\tsize:0;"), "size 0 is not between 1 and 65536");
        row("a field of 65537 bytes", replaced(add, "offset:36;\tsize:1;", "offset:0;\tsize:65537;"), "size 65537");
        constexpr char garbage[] =
            "\x7f"
            "ELF\x02\x01\x01\0\0\0 not a format at all\n";
        row("garbage", std::string(garbage, sizeof garbage - 1), "Line 1 of the format is not part of an event format");
        row("text of another file", "# tracer: nop\n#\n# entries-in-buffer/entries-written: 0/0   #P:8\n", "Line 1 of the format is not part of");
        row("200 fields", formatWithFields(200), "more than 128 fields");
        row("129 fields", formatWithFields(129), "more than 128 fields");
        row("a line with no offset", replaced(add, "i_ino;\toffset:16;", "i_ino;"), "Line 10 of the format is a field, but it has no offset");
        row("a line with no size", replaced(add, "offset:16;\tsize:8;", "offset:16;"), "it has no size");
        row("cut inside a field", std::string(add.substr(0, add.find("offset:16;"))), "it has no offset");
        row("an offset that is no number", replaced(add, "offset:16;", "offset:0x10;"), "offset \"0x10\" is not a number");
        row("a negative size", replaced(add, "size:2;", "size:-2;"), "is not a number");
        row("an offset twice", replaced(add, "offset:16;", "offset:16;\toffset:16;"), "gives its offset twice");
        row("signed 2", replaced(add, "order;\toffset:36;\tsize:1;\tsigned:0;", "order;\toffset:36;\tsize:1;\tsigned:2;"), "neither 0 nor 1");
        row("no semicolon at all",
            replaced(add, "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;", "\tfield:unsigned long pfn offset 8"),
            "does not end with");
        row("a lone type", replaced(add, "unsigned long pfn;", "int;"), "declares no name");
        row("unbalanced brackets", replaced(add, "unsigned long pfn;", "char pfn]8];"), "declares no name");
        row("a name of 129 bytes", formatWithFields(1, 129), "129 bytes long");
        row("an event name of 129 bytes", replaced(add, "mm_filemap_add_to_page_cache\n", std::string(129, 'n') + "\n"), "129 bytes long");
        row("an empty event name", replaced(add, "name: mm_filemap_add_to_page_cache", "name:"), "name is empty");
        row("a field twice", replaced(add, "\tfield:unsigned long index;", "\tfield:unsigned long pfn;"), "declares the field \"pfn\" a second time");
        row("an ID that is no number", replaced(add, "ID: 600", "ID: six"), "the ID \"six\" is not a number");
        row("an ID beyond common_type", replaced(add, "ID: 600", "ID: 65536"), "from 0 to 65535");
        row("an ID twice", replaced(add, "ID: 600\n", "ID: 600\nID: 600\n"), "ID a second time");
        row("a name twice", replaced(add, "ID: 600\n", "ID: 600\nname: again\n"), "names the event a second time");
        row("format: twice", replaced(add, "format:\n", "format:\nformat:\n"), "a second time");
        row("fields before format:", replaced(add, "format:\n", ""), "before the \"format:\" line");
        row("no fields", "name: empty\nID: 7\nformat:\n\nprint fmt: \"\"\n", "no fields");
        row("a data_loc of 8 bytes",
            replaced(processExecFormat, "filename;\toffset:8;\tsize:4;", "filename;\toffset:8;\tsize:8;"),
            "not the 4 of its location");
        row("a stray line among the fields",
            replaced(add, "\n\tfield:unsigned long pfn;", "\n\tpfn is here\n\tfield:unsigned long pfn;"),
            "not part of an event format");
    }

    void refusesBadFormats()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, reason);
        std::string error;
        const std::optional<EventFormat> format = parseEventFormat(std::string_view(text.constData(), size_t(text.size())), &error);
        QVERIFY(!format);
        // A sentence: capital first, full stop last, saying why.
        QVERIFY2(!error.empty() && error.front() >= 'A' && error.front() <= 'Z' && error.back() == '.', error.c_str());
        QVERIFY2(error.find(reason.toStdString()) != std::string::npos, error.c_str());
        // Without a place for the sentence, the same answer.
        QVERIFY(!parseEventFormat(std::string_view(text.constData(), size_t(text.size())), nullptr));
    }

    // --- header_page --------------------------------------------------------

    void parsesHeaderPage_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<uint>("timestampOffset");
        QTest::addColumn<uint>("commitOffset");
        QTest::addColumn<uint>("commitSize");
        QTest::addColumn<uint>("dataOffset");
        QTest::addColumn<uint>("pageSize");

        QTest::newRow("this kernel") << QByteArray(headerPageText.data(), qsizetype(headerPageText.size())) << 0u << 8u << 8u << 16u << 4096u;
        // A 32-bit kernel: local_t is 4 bytes, and the data follows at 12.
        QTest::newRow("32-bit") << QByteArray(
            "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
            "\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
            "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
            "\tfield: char data;\toffset:12;\tsize:4084;\tsigned:1;\n")
                                << 0u << 8u << 4u << 12u << 4096u;
        // buffer_subbuf_size_kb 16, and no overwrite line (before 3.10).
        QTest::newRow("16 KiB sub-buffers") << QByteArray(
            "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
            "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
            "\tfield: char data;\toffset:16;\tsize:16368;\tsigned:0;\n")
                                            << 0u << 8u << 8u << 16u << 16384u;
    }

    void parsesHeaderPage()
    {
        QFETCH(QByteArray, text);
        QFETCH(uint, timestampOffset);
        QFETCH(uint, commitOffset);
        QFETCH(uint, commitSize);
        QFETCH(uint, dataOffset);
        QFETCH(uint, pageSize);
        std::string error;
        const std::optional<PageLayout> layout = parseHeaderPage(text.toStdString(), &error);
        QVERIFY2(layout, error.c_str());
        QCOMPARE(layout->timestampOffset, timestampOffset);
        QCOMPARE(layout->commitOffset, commitOffset);
        QCOMPARE(layout->commitSize, commitSize);
        QCOMPARE(layout->dataOffset, dataOffset);
        QCOMPARE(layout->pageSize, pageSize);
    }

    void refusesBadHeaderPages_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("reason");
        const std::string_view page = headerPageText;
        const auto row = [](const char *name, const std::string &text, const char *reason) {
            QTest::newRow(name) << QByteArray::fromStdString(text) << QByteArray(reason);
        };
        row("empty", "", "no \"timestamp\" field");
        row("no commit", replaced(page, "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n", ""), "no \"commit\" field");
        row("no data", replaced(page, "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n", ""), "no \"data\" field");
        row("a commit of 2 bytes", replaced(page, "commit;\toffset:8;\tsize:8;", "commit;\toffset:8;\tsize:2;"), "neither 4 nor 8");
        row("a timestamp of 4 bytes", replaced(page, "timestamp;\toffset:0;\tsize:8;", "timestamp;\toffset:0;\tsize:4;"), "not 8");
        row("no data bytes", replaced(page, "size:4080;", "size:0;"), "makes no page");
        row("a giant page", replaced(page, "size:4080;", "size:16777216;"), "makes no page");
        row("commit inside the data", replaced(page, "commit;\toffset:8;", "commit;\toffset:12;"), "overlaps the data");
        row("a field with no offset", replaced(page, "commit;\toffset:8;", "commit;"), "it has no offset");
        row("commit twice", replaced(page, "\tfield: int overwrite;", "\tfield: local_t commit;"), "a second time");
        row("garbage", "\x01\x02 hello\n", "Line 1 of header_page is not a field");
        row("an event format", std::string(addToPageCacheFormat), "Line 1 of header_page is not a field");
    }

    void refusesBadHeaderPages()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, reason);
        std::string error;
        QVERIFY(!parseHeaderPage(text.toStdString(), &error));
        QVERIFY2(!error.empty() && error.back() == '.', error.c_str());
        QVERIFY2(error.find(reason.toStdString()) != std::string::npos, error.c_str());
    }

    // --- Pages --------------------------------------------------------------

    void readsRecordsOfEveryShortLength()
    {
        // type_len 1..28: 4..112 bytes of data, each with a delta of its type_len.
        constexpr uint64_t start = 123456789;
        PageBuilder builder(start);
        for (uint32_t typeLen = 1; typeLen <= 28; ++typeLen) {
            builder.record(typeLen, pattern(typeLen * 4, uint8_t(typeLen)));
        }
        builder.commit();
        QCOMPARE(builder.written(), size_t(28 * 4 + 4 * (28 * 29 / 2)));
        const Parsed parsed = parse(builder.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QCOMPARE(parsed.result.records, size_t(28));
        QCOMPARE(parsed.times.size(), size_t(28));
        QVERIFY(!parsed.result.missedEvents);
        QCOMPARE(parsed.result.missedCount, uint64_t(0));
        for (uint32_t typeLen = 1; typeLen <= 28; ++typeLen) {
            QCOMPARE(parsed.times[typeLen - 1], start + typeLen * (typeLen + 1) / 2);
            QCOMPARE(parsed.data[typeLen - 1], pattern(typeLen * 4, uint8_t(typeLen)));
        }
    }

    void readsLongRecords()
    {
        // type_len 0: 200 bytes; 122 bytes (its length not a multiple of 4,
        // the next record 4-aligned after it); 1000 bytes, more than the
        // 112 of the largest short record.
        constexpr uint64_t start = 5000;
        PageBuilder builder(start);
        builder.longRecord(11, pattern(200, 1)).longRecord(22, pattern(122, 2)).record(33, pattern(8, 3)).longRecord(0, pattern(1000, 4)).commit();
        QCOMPARE(builder.written(), size_t(208 + 132 + 12 + 1008));
        const Parsed parsed = parse(builder.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QCOMPARE(parsed.result.records, size_t(4));
        QCOMPARE(parsed.times, (std::vector<uint64_t>{start + 11, start + 33, start + 66, start + 66}));
        QCOMPARE(parsed.data[0], pattern(200, 1));
        QCOMPARE(parsed.data[1], pattern(122, 2));
        QCOMPARE(parsed.data[2], pattern(8, 3));
        QCOMPARE(parsed.data[3], pattern(1000, 4));
    }

    void readsAddToPageCacheRecords()
    {
        const EventFormat format = parsedFormat(addToPageCacheFormat);
        QCOMPARE(format.id, addToPageCacheId);
        const uint32_t dev = 254u << 20 | 3u; // 254:3 as the kernel keeps it
        PageBuilder builder(8363556112000);
        builder.record(0, addRecord(21124, 0x192d2b, 0x3c529, 0, dev, 0)).record(250, addRecord(21124, 0x192d2c, 0x3c529, 4, dev, 2)).commit();
        const Parsed parsed = parse(builder.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QCOMPARE(parsed.result.records, size_t(2));
        QCOMPARE(parsed.times, (std::vector<uint64_t>{8363556112000, 8363556112250}));
        const std::vector<uint64_t> pfns{0x192d2b, 0x192d2c};
        const std::vector<uint64_t> indexes{0, 4};
        const std::vector<uint64_t> orders{0, 2};
        for (size_t i = 0; i < 2; ++i) {
            const std::span<const uint8_t> data = parsed.data[i];
            QCOMPARE(data.size(), size_t(40));
            QCOMPARE(commonType(data), std::optional<uint16_t>(600));
            QCOMPARE(commonPid(data, format), std::optional<int64_t>(21124));
            QCOMPARE(readUnsigned(data, *format.field("common_flags")), std::optional<uint64_t>(1));
            QCOMPARE(readUnsigned(data, *format.field("pfn")), std::optional<uint64_t>(pfns[i]));
            QCOMPARE(readUnsigned(data, *format.field("i_ino")), std::optional<uint64_t>(0x3c529));
            QCOMPARE(readUnsigned(data, *format.field("index")), std::optional<uint64_t>(indexes[i]));
            QCOMPARE(readUnsigned(data, *format.field("s_dev")), std::optional<uint64_t>(dev));
            QCOMPARE(readUnsigned(data, *format.field("order")), std::optional<uint64_t>(orders[i]));
        }
    }

    void addsTimeExtends()
    {
        // 5000000123 ns does not fit 27 bits: 37 << 27 in array[0], the rest in the delta.
        constexpr uint64_t start = 1000;
        constexpr uint64_t extend = 5000000123;
        QVERIFY(extend >> 27 == 37 && (extend & lowBits27) != 0);
        PageBuilder builder(start);
        builder.record(5, pattern(4, 1))
            .timeExtend(extend)
            .record(0, pattern(4, 2))
            .record(7, pattern(4, 3))
            .timeExtend(lowBits27 + 1)
            .record(2, pattern(4, 4))
            .commit();
        const Parsed parsed = parse(builder.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QCOMPARE(parsed.result.records, size_t(4));
        QCOMPARE(parsed.times, (std::vector<uint64_t>{start + 5, start + 5 + extend, start + 5 + extend + 7, start + 5 + extend + 7 + lowBits27 + 1 + 2}));
    }

    void setsAbsoluteTimeStamps()
    {
        // An absolute time stamp sets the time, even back; the deltas after it count from it.
        constexpr uint64_t start = 1000000;
        PageBuilder builder(start);
        builder.record(10, pattern(4, 1))
            .timeStamp(77000000000)
            .record(0, pattern(4, 2))
            .record(3, pattern(4, 3))
            .timeStamp(500)
            .record(1, pattern(4, 4))
            .commit();
        const Parsed parsed = parse(builder.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QCOMPARE(parsed.times, (std::vector<uint64_t>{start + 10, 77000000000, 77000000003, 501}));
    }

    void absoluteTimeStampsKeepTheTopBits()
    {
        // The stamp holds 59 bits: the top 5 come from the time so far, and
        // when that would make the time go back, the top bits grew by one.
        constexpr uint64_t top = uint64_t(3) << 59;
        constexpr uint64_t below59 = (uint64_t(1) << 59) - 1;
        PageBuilder builder(top + 1000);
        builder.timeStamp(5000).record(0, pattern(4, 1)).timeStamp(below59 - 9).record(4, pattern(4, 2)).timeStamp(5).record(0, pattern(4, 3)).commit();
        const Parsed parsed = parse(builder.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QCOMPARE(parsed.times, (std::vector<uint64_t>{top + 5000, top + below59 - 5, (uint64_t(4) << 59) + 5}));
        // A clock without the top bits is taken as it is.
        PageBuilder low(1000);
        low.timeStamp(below59).record(0, pattern(4, 1)).commit();
        QCOMPARE(parse(low.page()).times, (std::vector<uint64_t>{below59}));
    }

    void skipsPaddingInTheMiddle()
    {
        // A discarded record (padding with its own delta) still moves the
        // time: the records after it count from it. Delta 1 is no delta.
        constexpr uint64_t start = 900;
        PageBuilder builder(start);
        builder.record(2, pattern(8, 1)).padding(1, 48).record(4, pattern(8, 2)).padding(30, 16).record(5, pattern(8, 3)).padding(1, 8).commit();
        const Parsed parsed = parse(builder.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QCOMPARE(parsed.result.records, size_t(3));
        QCOMPARE(parsed.times, (std::vector<uint64_t>{start + 2, start + 6, start + 41}));
        QCOMPARE(parsed.data[1], pattern(8, 2));
        QCOMPARE(parsed.data[2], pattern(8, 3));
    }

    void stopsAtPaddingAtTheEnd()
    {
        // The end of a page: padding (delta 1) to the end of the data, inside the commit.
        PageBuilder end(100);
        end.record(3, pattern(12, 1));
        end.padding(1, uint32_t(4080 - end.written())).commit();
        QCOMPARE(end.written(), size_t(4080));
        Parsed parsed = parse(end.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QCOMPARE(parsed.result.records, size_t(1));
        QCOMPARE(parsed.times, (std::vector<uint64_t>{103}));

        // A null event (padding with delta 0): nothing after it counts, even
        // inside the commit.
        PageBuilder null(100);
        null.record(3, pattern(12, 1)).nullPadding().record(4, pattern(12, 2)).commit();
        parsed = parse(null.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QCOMPARE(parsed.result.records, size_t(1));
        QCOMPARE(parsed.data[0], pattern(12, 1));
    }

    void reportsMissedEvents()
    {
        // RB_MISSED_EVENTS alone: events were lost, how many is not known.
        PageBuilder flagged(10);
        flagged.record(1, pattern(4, 1)).commit(missedEventsFlag);
        Parsed parsed = parse(flagged.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QVERIFY(parsed.result.missedEvents);
        QCOMPARE(parsed.result.missedCount, uint64_t(0));
        QCOMPARE(parsed.result.records, size_t(1));
        QCOMPARE(parsed.times, (std::vector<uint64_t>{11}));

        // With RB_MISSED_STORED: the count follows the data.
        PageBuilder stored(10);
        stored.record(1, pattern(4, 1)).record(2, pattern(8, 2)).storeMissed(12345).commit(missedEventsFlag | missedStoredFlag);
        parsed = parse(stored.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QVERIFY(parsed.result.missedEvents);
        QCOMPARE(parsed.result.missedCount, uint64_t(12345));
        QCOMPARE(parsed.result.records, size_t(2));
        QCOMPARE(parsed.times, (std::vector<uint64_t>{11, 13}));

        // On a 32-bit kernel the count is 4 bytes, as the commit.
        const PageLayout narrow{0, 8, 4, 12, 4096};
        PageBuilder narrowPage(10, narrow);
        narrowPage.record(1, pattern(4, 1)).storeMissed(0xfffffffe).commit(missedEventsFlag | missedStoredFlag);
        parsed = parse(narrowPage.page(), narrow);
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QCOMPARE(parsed.result.missedCount, uint64_t(0xfffffffe));
        QCOMPARE(parsed.data, (std::vector<std::vector<uint8_t>>{pattern(4, 1)}));

        // As a 64-bit kernel writes the flags: its int (1 << 31) added to
        // the long commit sign-extends into the upper half (seen on 6.18
        // when a small buffer overflowed: 0xffffffff00000fd0 and the like).
        PageBuilder extended(10);
        extended.record(1, pattern(4, 1)).record(2, pattern(8, 2)).storeMissed(9).commit(0xffffffff00000000ULL | missedEventsFlag | missedStoredFlag);
        parsed = parse(extended.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QVERIFY(parsed.result.missedEvents);
        QCOMPARE(parsed.result.missedCount, uint64_t(9));
        QCOMPARE(parsed.result.records, size_t(2));

        // The flag added twice: bit 31 carried out, only the upper half says it.
        PageBuilder carried(10);
        carried.record(1, pattern(4, 1)).commit(0xffffffff00000000ULL);
        parsed = parse(carried.page());
        QVERIFY2(!parsed.result.malformed, parsed.result.error.c_str());
        QVERIFY(parsed.result.missedEvents);
        QCOMPARE(parsed.result.records, size_t(1));
    }

    void takesAnEmptyPage()
    {
        PageBuilder empty(10);
        empty.commit();
        Parsed parsed = parse(empty.page());
        QVERIFY(!parsed.result.malformed);
        QVERIFY(parsed.result.error.empty());
        QCOMPARE(parsed.result.records, size_t(0));
        QVERIFY(parsed.times.empty());
        QVERIFY(!parsed.result.missedEvents);

        // Lost events and nothing else.
        PageBuilder lost(10);
        lost.storeMissed(7).commit(missedEventsFlag | missedStoredFlag);
        parsed = parse(lost.page());
        QVERIFY(!parsed.result.malformed);
        QCOMPARE(parsed.result.records, size_t(0));
        QVERIFY(parsed.result.missedEvents);
        QCOMPARE(parsed.result.missedCount, uint64_t(7));

        // No callback at all.
        PageBuilder some(10);
        some.record(1, pattern(4, 1)).commit();
        QCOMPARE(parsePage(some.page(), PageLayout{}, {}).records, size_t(1));
    }

    void stopsAtMalformedRecords_data()
    {
        QTest::addColumn<QByteArray>("page");
        QTest::addColumn<int>("records"); // taken before the stop
        QTest::addColumn<QByteArray>("reason");

        const auto row = [](const char *name, const std::vector<uint8_t> &page, int records, const char *reason) {
            QTest::newRow(name) << QByteArray(reinterpret_cast<const char *>(page.data()), qsizetype(page.size())) << records << QByteArray(reason);
        };
        {
            // The second record (at page byte 16 + 12) is 44 bytes; the commit ends 4 bytes short of it.
            PageBuilder builder(0);
            builder.record(1, pattern(8, 1)).record(1, pattern(40, 2));
            builder.commitLength(builder.written() - 4);
            row("a record past the commit", builder.page(), 1, "The record at byte 28 (type_len 10) runs to byte 72, past the end of the data at byte 68.");
        }
        {
            PageBuilder builder(0);
            builder.longRecord(1, pattern(200, 1));
            builder.commitLength(builder.written() - 8);
            row("a long record past the commit",
                builder.page(),
                0,
                "The record at byte 16 (type_len 0) runs to byte 224, past the end of the data at byte 216.");
        }
        {
            PageBuilder builder(0);
            builder.record(1, pattern(4, 1)).header(0, 1).word(3).commit();
            row("a long record shorter than its length", builder.page(), 1, "The long record at byte 24 gives a length of 3");
        }
        {
            PageBuilder builder(0);
            builder.record(1, pattern(4, 1));
            builder.commitLength(builder.written() + 2);
            row("a header cut by the commit", builder.page(), 1, "The record at byte 24 has no room for its 4-byte header");
        }
        {
            PageBuilder builder(0);
            builder.record(1, pattern(4, 1)).timeExtend(uint64_t(1) << 40);
            builder.commitLength(builder.written() - 4);
            row("a time extend cut by the commit", builder.page(), 1, "The record at byte 24 (type_len 30) has no room for its second word");
        }
        {
            PageBuilder builder(0);
            builder.record(1, pattern(4, 1)).padding(5, 64);
            builder.commitLength(builder.written() - 4);
            row("padding past the commit", builder.page(), 1, "The padding at byte 24 runs 64 bytes, past the end of the data at byte 84.");
        }
        {
            PageBuilder builder(0);
            builder.record(1, pattern(4, 1)).commitLength(5000);
            row("a commit larger than the page", builder.page(), 0, "The commit at byte 8 says 5000 bytes of data, more than the 4080 the page has.");
        }
        {
            PageBuilder builder(0);
            // The upper half is the flags' sign extension (reportsMissedEvents):
            // the length is the low half's, here too long.
            builder.record(1, pattern(4, 1)).commitLength((uint64_t(1) << 32) | 5000);
            row("a commit with high bits", builder.page(), 0, "says 5000 bytes of data");
        }
        {
            PageBuilder builder(0);
            builder.record(1, pattern(4, 1)).commit();
            std::vector<uint8_t> shortPage = builder.page();
            shortPage.resize(100);
            row("a short page", shortPage, 0, "The page is 100 bytes, shorter than the 4096 of a page: a short read.");
            row("no page at all", {}, 0, "The page is 0 bytes");
        }
        {
            // A full page leaves no room for the count after the data.
            PageBuilder builder(0);
            builder.record(1, pattern(4, 1)).commitLength(4080, missedEventsFlag | missedStoredFlag);
            row("a missed count outside the page", builder.page(), 0, "at byte 4096, runs past the end of the page.");
        }
    }

    void stopsAtMalformedRecords()
    {
        QFETCH(QByteArray, page);
        QFETCH(int, records);
        QFETCH(QByteArray, reason);
        // Exactly the bytes given, so that ASan sees a read past them.
        const std::vector<uint8_t> bytes(page.begin(), page.end());
        const Parsed parsed = parse(bytes);
        QVERIFY(parsed.result.malformed);
        QCOMPARE(parsed.result.records, size_t(records));
        QCOMPARE(parsed.times.size(), size_t(records));
        QVERIFY2(parsed.result.error.find(reason.toStdString()) != std::string::npos, parsed.result.error.c_str());
    }

    void refusesAnImpossibleLayout()
    {
        PageBuilder builder(0);
        builder.record(1, pattern(4, 1)).commit();
        for (const PageLayout &layout : {PageLayout{0, 8, 2, 16, 4096}, PageLayout{12, 8, 8, 16, 4096}, PageLayout{0, 8, 8, 4096, 4096}}) {
            const Parsed parsed = parse(builder.page(), layout);
            QVERIFY(parsed.result.malformed);
            QCOMPARE(parsed.result.records, size_t(0));
            QVERIFY2(parsed.result.error.find("page layout") != std::string::npos, parsed.result.error.c_str());
        }
    }

    // --- Field readers ------------------------------------------------------

    void readsNumbers()
    {
        std::vector<uint8_t> data(24, 0);
        put<uint8_t>(data, 0, 0xff);
        put<uint16_t>(data, 2, 0x8000);
        put<int32_t>(data, 4, -5);
        put<int64_t>(data, 8, INT64_MIN);
        put<uint64_t>(data, 16, 0x0123456789abcdef);
        const Field byte = field("byte", 0, 1, true);
        const Field half = field("half", 2, 2, true);
        const Field word = field("word", 4, 4, true);
        const Field wide = field("wide", 8, 8, true);
        const Field last = field("last", 16, 8, false);
        QCOMPARE(readUnsigned(data, byte), std::optional<uint64_t>(0xff));
        QCOMPARE(readSigned(data, byte), std::optional<int64_t>(-1));
        QCOMPARE(readUnsigned(data, half), std::optional<uint64_t>(0x8000));
        QCOMPARE(readSigned(data, half), std::optional<int64_t>(-32768));
        QCOMPARE(readUnsigned(data, word), std::optional<uint64_t>(0xfffffffb));
        QCOMPARE(readSigned(data, word), std::optional<int64_t>(-5));
        QCOMPARE(readSigned(data, wide), std::optional<int64_t>(INT64_MIN));
        QCOMPARE(readUnsigned(data, last), std::optional<uint64_t>(0x0123456789abcdef));
        QCOMPARE(readSigned(data, field("positive", 18, 2, true)), std::optional<int64_t>(0x89ab - 0x10000));
        QCOMPARE(readSigned(data, field("positive", 22, 2, true)), std::optional<int64_t>(0x0123));

        // Outside the data, across its end, sizes no integer has.
        QVERIFY(!readUnsigned(data, field("past", 24, 1, false)));
        QVERIFY(!readUnsigned(data, field("across", 20, 8, false)));
        QVERIFY(!readUnsigned(data, field("far", 0xffffffff, 8, false)));
        QVERIFY(!readUnsigned(data, field("three", 0, 3, false)));
        QVERIFY(!readSigned(data, field("sixteen", 0, 16, true)));
        QVERIFY(!readUnsigned({}, byte));
        QCOMPARE(commonType(data), std::optional<uint16_t>(0x00ff));
        QVERIFY(!commonType(std::span<const uint8_t>(data).first(1)));
        EventFormat noPid;
        QVERIFY(!commonPid(data, noPid));
    }

    void readsStrings()
    {
        // writeback_dirty_folio's "char name[32]".
        const EventFormat writeback = parsedFormat(writebackDirtyFolioFormat);
        const Field *name = writeback.field("name");
        QVERIFY(name);
        std::vector<uint8_t> data(56, 0);
        putBytes(data, 8, "254:0\0junk", 10);
        QCOMPARE(readString(data, *name), std::optional<std::string>("254:0"));
        // All 32 bytes, no NUL: the whole array.
        const std::string full(32, 'b');
        putBytes(data, 8, full.data(), full.size());
        QCOMPARE(readString(data, *name), std::optional<std::string>(full));
        QVERIFY(!readString(std::span<const uint8_t>(data).first(39), *name));

        // sched_process_exec's "__data_loc char[] filename": length 14
        // (with its NUL) << 16 | offset 20.
        const EventFormat exec = parsedFormat(processExecFormat);
        const Field *filename = exec.field("filename");
        QVERIFY(filename && filename->dataLoc);
        std::vector<uint8_t> record(36, 0);
        put<uint16_t>(record, 0, uint16_t(exec.id));
        put<int32_t>(record, 4, 4242);
        put<uint32_t>(record, 8, 14u << 16 | 20u);
        put<int32_t>(record, 12, 4242);
        put<int32_t>(record, 16, 4241);
        putBytes(record, 20, "/usr/bin/true", 14);
        QCOMPARE(readString(record, *filename), std::optional<std::string>("/usr/bin/true"));
        QCOMPARE(readSigned(record, *exec.field("pid")), std::optional<int64_t>(4242));
        QCOMPARE(readSigned(record, *exec.field("old_pid")), std::optional<int64_t>(4241));
        QCOMPARE(commonPid(record, exec), std::optional<int64_t>(4242));
        QCOMPARE(commonType(record), std::optional<uint16_t>(365));
        // Its end just inside the record, then one byte past it.
        put<uint32_t>(record, 8, 16u << 16 | 20u);
        QCOMPARE(readString(record, *filename), std::optional<std::string>("/usr/bin/true"));
        put<uint32_t>(record, 8, 17u << 16 | 20u);
        QVERIFY(!readString(record, *filename));
        put<uint32_t>(record, 8, 1u << 16 | 0xffffu);
        QVERIFY(!readString(record, *filename));
        // An empty string.
        put<uint32_t>(record, 8, 0u << 16 | 20u);
        QCOMPARE(readString(record, *filename), std::optional<std::string>(""));
        // The location itself outside the record.
        QVERIFY(!readString(std::span<const uint8_t>(record).first(10), *filename));

        // __rel_loc: the offset counts from the end of the location field.
        Field relative = field("path", 8, 4, false);
        relative.relLoc = true;
        put<uint32_t>(record, 8, 14u << 16 | 8u); // 8 + 4 + 8 = 20
        QCOMPARE(readString(record, relative), std::optional<std::string>("/usr/bin/true"));
    }

    // --- The real kernel ----------------------------------------------------

    void readsTheKernelsOwnPages()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("Only root mounts tracefs.");
        }
        // tracefs goes on a folder of this test's own; the folder is removed
        // by hand once tracefs is off it, never recursively (that would go
        // into tracefs, were it still mounted).
        QTemporaryDir mountFolder;
        QVERIFY(mountFolder.isValid());
        mountFolder.setAutoRemove(false);
        const std::string mountPoint = mountFolder.path().toStdString();
        if (mount("nodev", mountPoint.c_str(), "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
            const int error = errno;
            rmdir(mountPoint.c_str());
            QSKIP(qPrintable(QStringLiteral("tracefs cannot be mounted: %1").arg(QString::fromLocal8Bit(std::strerror(error)))));
        }
        const std::string instance = mountPoint + "/instances/" + instancePrefix + std::to_string(getpid());
        const std::string event = instance + "/events/filemap/mm_filemap_add_to_page_cache";
        TracefsTeardown teardown(mountPoint, instance, event);
        auto onFailure = qScopeGuard([&teardown] {
            const std::string left = teardown.run();
            if (!left.empty()) {
                qWarning("after the failure, tracefs kept: %s", left.c_str());
            }
        });
        QVERIFY2(mkdir(instance.c_str(), 0700) == 0, std::strerror(errno));

        // The file: 1 MiB on disk, none of it cached.
        const std::string path = TestUtil::scratchDir("rawtracetest") + "/data";
        // The events count pages of the kernel's page size.
        const uint64_t memoryPage = uint64_t(sysconf(_SC_PAGESIZE));
        TestUtil::makeColdFile(path, fileBytes);
        struct stat file{};
        QVERIFY(stat(path.c_str(), &file) == 0);
        // The kernel keeps a dev_t as major << 20 | minor.
        const uint64_t kernelDev = uint64_t(major(file.st_dev)) << 20 | minor(file.st_dev);

        QVERIFY(writeText(instance + "/tracing_on", "0"));
        QVERIFY(writeText(instance + "/buffer_size_kb", "256"));
        // CLOCK_MONOTONIC's clock, so that the records' times can be checked against ours.
        QVERIFY(writeText(instance + "/trace_clock", "mono"));
        QVERIFY(writeText(event + "/enable", "1"));
        TestUtil::evictRaw(path);
        // The file in four reads, a pause of more than 2^27 ns (the most a
        // record's own delta holds) between them: the kernel writes time
        // extends, or starts pages, and each read's records must still fall
        // within that read's time.
        struct Window {
            uint64_t start = 0;
            uint64_t end = 0;
        };
        std::vector<Window> windows(chunks);
        QVERIFY(writeText(instance + "/tracing_on", "1"));
        for (size_t chunk = 0; chunk < chunks; ++chunk) {
            if (chunk > 0) {
                QTest::qSleep(200);
            }
            windows[chunk].start = monotonicNow();
            TestUtil::readRange(path, chunk * chunkBytes, chunkBytes);
            windows[chunk].end = monotonicNow();
        }
        QVERIFY(writeText(instance + "/tracing_on", "0"));

        const std::optional<std::string> headerPage = readText(instance + "/events/header_page");
        const std::optional<std::string> formatText = readText(event + "/format");
        QVERIFY(headerPage && formatText);
        std::string error;
        const std::optional<PageLayout> layout = parseHeaderPage(*headerPage, &error);
        QVERIFY2(layout, error.c_str());
        const std::optional<EventFormat> format = parseEventFormat(*formatText, &error);
        QVERIFY2(format, error.c_str());
        QCOMPARE(format->name, std::string("mm_filemap_add_to_page_cache"));
        const Field *inodeField = format->field("i_ino");
        const Field *devField = format->field("s_dev");
        const Field *indexField = format->field("index");
        const Field *orderField = format->field("order");
        QVERIFY(inodeField && devField && indexField && orderField);
        const HostPid self = hostPidOf(getpid());

        std::set<uint64_t> covered;
        size_t pages = 0;
        size_t records = 0;
        size_t ours = 0;
        uint64_t missed = 0;
        const std::vector<std::string> cpus = entriesStartingWith(instance + "/per_cpu", "cpu");
        QVERIFY(!cpus.empty());
        std::vector<uint8_t> buffer(layout->pageSize);
        for (const std::string &cpu : cpus) {
            const std::string rawPath = instance + "/per_cpu/" + cpu + "/trace_pipe_raw";
            const UniqueFd raw(open(rawPath.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
            QVERIFY2(raw, (rawPath + ": " + std::strerror(errno)).c_str());
            uint64_t lastTime = 0;
            while (true) {
                const ssize_t got = read(raw.get(), buffer.data(), buffer.size());
                if (got < 0 && errno == EINTR) {
                    continue;
                }
                if (got == 0 || (got < 0 && errno == EAGAIN)) {
                    break;
                }
                QVERIFY2(got > 0, (rawPath + ": " + std::strerror(errno)).c_str());
                ++pages;
                bool inOrder = true;
                std::string wrong;
                const PageResult result = parsePage(std::span<const uint8_t>(buffer.data(), size_t(got)), *layout, [&](const Record &record) {
                    ++records;
                    inOrder = inOrder && record.timestamp >= lastTime;
                    lastTime = record.timestamp;
                    if (commonType(record.data) != format->id) {
                        return;
                    }
                    if (readUnsigned(record.data, *inodeField) != uint64_t(file.st_ino) || readUnsigned(record.data, *devField) != kernelDev) {
                        return;
                    }
                    ++ours;
                    const std::optional<uint64_t> index = readUnsigned(record.data, *indexField);
                    const std::optional<uint64_t> order = readUnsigned(record.data, *orderField);
                    if (!index || !order || *order > 18) {
                        wrong += "an add record without index or order; ";
                        return;
                    }
                    const Window &window = windows[std::min<size_t>(*index * memoryPage / chunkBytes, chunks - 1)];
                    if (record.timestamp < window.start || record.timestamp > window.end) {
                        wrong += "the add record of page " + std::to_string(*index) + " at " + std::to_string(record.timestamp) + ", outside its read's "
                            + std::to_string(window.start) + ".." + std::to_string(window.end) + "; ";
                    }
                    if (self.pid && commonPid(record.data, *format) != int64_t(*self.pid)) {
                        wrong += "an add record of pid " + std::to_string(commonPid(record.data, *format).value_or(-1)) + ", not ours; ";
                    }
                    for (uint64_t page = *index; page < *index + (uint64_t(1) << *order); ++page) {
                        covered.insert(page);
                    }
                });
                QVERIFY2(!result.malformed, (rawPath + ": " + result.error).c_str());
                QVERIFY2(inOrder, (rawPath + ": a record's time went back").c_str());
                QVERIFY2(wrong.empty(), wrong.c_str());
                if (result.missedEvents) {
                    missed += std::max<uint64_t>(result.missedCount, 1);
                }
            }
        }
        const uint64_t filePages = fileBytes / memoryPage;
        const uint64_t coveredInFile = uint64_t(std::count_if(covered.begin(), covered.end(), [filePages](uint64_t page) {
            return page < filePages;
        }));
        const std::string summary = std::to_string(pages) + " pages, " + std::to_string(records) + " records, " + std::to_string(ours)
            + " of the file, covering " + std::to_string(coveredInFile) + " of its " + std::to_string(filePages) + " pages; " + std::to_string(missed)
            + " events lost";
        qInfo("%s", summary.c_str());
        QVERIFY2(missed == 0, summary.c_str());
        QVERIFY2(coveredInFile == filePages, summary.c_str());
        QVERIFY2(covered.size() == coveredInFile, (summary + ", and pages past the file's end").c_str());

        onFailure.dismiss();
        const std::string left = teardown.run();
        QVERIFY2(left.empty(), left.c_str());
        QVERIFY(!mounted(mountPoint));
        struct stat gone{};
        QVERIFY(stat(mountPoint.c_str(), &gone) != 0);
    }
};

QTEST_GUILESS_MAIN(RawTraceTest)

#include "rawtracetest.moc"
