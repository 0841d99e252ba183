// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "procfs.h"

#include "format.h"
#include "uniquefd.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>

namespace Cachescope
{

namespace
{

// A proc file is a few KiB; anything far larger is not one (a symlink to
// /dev/zero, a huge fixture) and reading it to the end would never finish.
constexpr size_t maxProcFileBytes = size_t(16) * 1024 * 1024;

bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

// The next whitespace-separated token; empty at the end of the line.
std::string_view nextToken(std::string_view &text)
{
    text = trimmedText(text);
    size_t end = 0;
    while (end < text.size() && !isBlank(text[end])) {
        ++end;
    }
    const std::string_view token = text.substr(0, end);
    text.remove_prefix(end);
    return token;
}

// Only plain decimal digits; nullopt for anything else and for values that
// do not fit, so that a corrupt line is dropped instead of wrapping around.
std::optional<uint64_t> parseUnsigned(std::string_view digits)
{
    if (digits.empty()) {
        return std::nullopt;
    }
    uint64_t value = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') {
            return std::nullopt;
        }
        const uint64_t digit = uint64_t(c - '0');
        if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
            return std::nullopt;
        }
        value = value * 10 + digit;
    }
    return value;
}

std::optional<int> parseInt(std::string_view text)
{
    bool negative = false;
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
        negative = text.front() == '-';
        text.remove_prefix(1);
    }
    const std::optional<uint64_t> magnitude = parseUnsigned(text);
    const uint64_t limit = negative ? uint64_t(std::numeric_limits<int>::max()) + 1 : uint64_t(std::numeric_limits<int>::max());
    if (!magnitude || *magnitude > limit) {
        return std::nullopt;
    }
    return negative ? int(-int64_t(*magnitude)) : int(*magnitude);
}

std::optional<uint64_t> kibToBytes(uint64_t kib)
{
    if (kib > std::numeric_limits<uint64_t>::max() / 1024) {
        return std::nullopt;
    }
    return kib * 1024;
}

bool isOctalDigit(char c)
{
    return c >= '0' && c <= '7';
}

std::string joinPath(const std::string &root, const char *name)
{
    if (!root.empty() && root.back() == '/') {
        return root + name;
    }
    return root + '/' + name;
}

void setError(std::string *error, const std::string &path, const std::string &reason)
{
    if (error) {
        *error = path + ": " + reason;
    }
}

template<typename Result, typename Parse>
std::optional<Result> readAndParse(const std::string &procRoot, const char *name, std::string *error, Parse parse)
{
    const std::string path = joinPath(procRoot, name);
    const std::optional<std::string> text = readProcFile(path, error);
    if (!text) {
        return std::nullopt;
    }
    return parse(*text);
}

} // namespace

std::optional<uint64_t> processStatField(std::string_view statText, size_t number)
{
    const size_t close = statText.rfind(')');
    if (close == std::string_view::npos || number < 3) {
        return std::nullopt;
    }
    const std::vector<std::string_view> fields = splitFields(statText.substr(close + 1));
    if (fields.size() <= number - 3) {
        return std::nullopt;
    }
    const std::string_view field = fields[number - 3];
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (error != std::errc() || end != field.data() + field.size()) {
        return std::nullopt;
    }
    return value;
}

std::vector<int> processIds(const std::string &procRoot)
{
    std::vector<int> pids;
    DIR *dir = opendir(procRoot.c_str());
    if (!dir) {
        return pids;
    }
    while (const dirent *entry = readdir(dir)) {
        const std::string_view name = entry->d_name;
        int pid = 0;
        const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (error == std::errc() && end == name.data() + name.size() && pid > 0) {
            pids.push_back(pid);
        }
    }
    closedir(dir);
    std::sort(pids.begin(), pids.end());
    return pids;
}

std::string_view trimmedText(std::string_view text)
{
    const auto blank = [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    };
    while (!text.empty() && blank(text.front())) {
        text.remove_prefix(1);
    }
    while (!text.empty() && blank(text.back())) {
        text.remove_suffix(1);
    }
    return text;
}

std::vector<std::string_view> splitFields(std::string_view line)
{
    std::vector<std::string_view> fields;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) {
            ++i;
        }
        const size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') {
            ++i;
        }
        if (i > start) {
            fields.push_back(line.substr(start, i - start));
        }
    }
    return fields;
}

std::string decodeOctalEscapes(std::string_view text)
{
    std::string decoded;
    decoded.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 3 < text.size() && isOctalDigit(text[i + 1]) && isOctalDigit(text[i + 2]) && isOctalDigit(text[i + 3])
            && text[i + 1] <= '3') {
            decoded.push_back(char((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + (text[i + 3] - '0')));
            i += 3;
        } else {
            decoded.push_back(text[i]);
        }
    }
    return decoded;
}

// procfs reports a size of 0, so read to the end rather than trusting st_size.
std::optional<std::string> readProcFile(const std::string &path, std::string *error)
{
    // O_NONBLOCK: a FIFO put where a proc file belongs must not block the open.
    const UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (!fd) {
        setError(error, path, errnoText(errno));
        return std::nullopt;
    }
    struct stat info{};
    if (fstat(fd.get(), &info) != 0) {
        setError(error, path, errnoText(errno));
        return std::nullopt;
    }
    if (!S_ISREG(info.st_mode)) {
        setError(error, path, S_ISDIR(info.st_mode) ? errnoText(EISDIR) : "not a regular file");
        return std::nullopt;
    }
    std::string contents;
    char buffer[16384];
    for (;;) {
        const ssize_t n = read(fd.get(), buffer, sizeof buffer);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            setError(error, path, errnoText(errno));
            return std::nullopt;
        }
        if (n == 0) {
            break;
        }
        contents.append(buffer, size_t(n));
        if (contents.size() > maxProcFileBytes) {
            setError(error, path, "larger than 16 MiB, not a proc file");
            return std::nullopt;
        }
    }
    return contents;
}

bool FieldList::has(std::string_view name) const
{
    return find(name).has_value();
}

uint64_t FieldList::value(std::string_view name, uint64_t fallback) const
{
    return find(name).value_or(fallback);
}

std::optional<uint64_t> FieldList::find(std::string_view name) const
{
    for (const auto &[fieldName, fieldValue] : fields) {
        if (fieldName == name) {
            return fieldValue;
        }
    }
    return std::nullopt;
}

MemInfo parseMemInfo(std::string_view text)
{
    // "MemTotal:       24684096 kB" or "HugePages_Total:       0".
    MemInfo info;
    forEachLine(text, [&info](std::string_view line) {
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            return;
        }
        const std::string_view name = trimmedText(line.substr(0, colon));
        if (name.empty() || name.find_first_of(" \t") != std::string_view::npos) {
            return;
        }
        std::string_view rest = line.substr(colon + 1);
        std::optional<uint64_t> value = parseUnsigned(nextToken(rest));
        const std::string_view unit = nextToken(rest);
        if (!value || !trimmedText(rest).empty()) {
            return;
        }
        if (unit == "kB") {
            value = kibToBytes(*value);
        } else if (!unit.empty()) {
            return; // a unit this parser does not know: better absent than wrong
        }
        if (value) {
            info.fields.emplace_back(std::string(name), *value);
        }
    });
    return info;
}

VmStat parseVmStat(std::string_view text)
{
    // "pgpgin 1304821"
    VmStat stat;
    forEachLine(text, [&stat](std::string_view line) {
        const std::string_view name = nextToken(line);
        const std::optional<uint64_t> value = parseUnsigned(nextToken(line));
        if (name.empty() || !value || !trimmedText(line).empty()) {
            return;
        }
        stat.fields.emplace_back(std::string(name), *value);
    });
    return stat;
}

std::vector<SwapArea> parseSwaps(std::string_view text)
{
    // "Filename  Type  Size  Used  Priority" and then one line per area, the
    // path padded with spaces, sizes in KiB. The header fails the number checks.
    std::vector<SwapArea> areas;
    forEachLine(text, [&areas](std::string_view line) {
        const std::string_view filename = nextToken(line);
        const std::string_view type = nextToken(line);
        const std::optional<uint64_t> sizeKib = parseUnsigned(nextToken(line));
        const std::optional<uint64_t> usedKib = parseUnsigned(nextToken(line));
        const std::optional<int> priority = parseInt(nextToken(line));
        if (filename.empty() || type.empty() || !sizeKib || !usedKib || !priority || !trimmedText(line).empty()) {
            return;
        }
        const std::optional<uint64_t> sizeBytes = kibToBytes(*sizeKib);
        const std::optional<uint64_t> usedBytes = kibToBytes(*usedKib);
        if (!sizeBytes || !usedBytes) {
            return;
        }
        SwapArea area;
        area.filename = decodeOctalEscapes(filename);
        area.type = std::string(type);
        area.sizeBytes = *sizeBytes;
        area.usedBytes = *usedBytes;
        area.priority = *priority;
        areas.push_back(std::move(area));
    });
    return areas;
}

std::vector<MountInfoEntry> parseMountInfo(std::string_view text)
{
    // "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue":
    // id, parent, major:minor, root, mount point, options, optional fields
    // up to "-", then the type, the source and the super options.
    std::vector<MountInfoEntry> mounts;
    forEachLine(text, [&mounts](std::string_view line) {
        const size_t separator = line.find(" - ");
        if (separator == std::string_view::npos) {
            return;
        }
        std::string_view before = line.substr(0, separator);
        std::string_view after = line.substr(separator + 3);
        const std::optional<uint64_t> id = parseUnsigned(nextToken(before));
        const std::optional<uint64_t> parentId = parseUnsigned(nextToken(before));
        const std::string_view device = nextToken(before);
        const std::string_view root = nextToken(before);
        const std::string_view mountPoint = nextToken(before);
        const size_t colon = device.find(':');
        if (!id || !parentId || colon == std::string_view::npos || root.empty() || mountPoint.empty() || *id > UINT32_MAX || *parentId > UINT32_MAX) {
            return;
        }
        const std::optional<uint64_t> major = parseUnsigned(device.substr(0, colon));
        const std::optional<uint64_t> minor = parseUnsigned(device.substr(colon + 1));
        const std::string_view fsType = nextToken(after);
        if (!major || !minor || *major > UINT32_MAX || *minor > UINT32_MAX || fsType.empty()) {
            return;
        }
        MountInfoEntry mount;
        mount.id = uint32_t(*id);
        mount.parentId = uint32_t(*parentId);
        mount.device = makedev(unsigned(*major), unsigned(*minor));
        mount.root = decodeOctalEscapes(root);
        mount.mountPoint = decodeOctalEscapes(mountPoint);
        mount.fsType = decodeOctalEscapes(fsType);
        mount.source = decodeOctalEscapes(nextToken(after));
        mount.superOptions = std::string(nextToken(after));
        mounts.push_back(std::move(mount));
    });
    return mounts;
}

std::optional<std::vector<MountInfoEntry>> readMountInfo(const std::string &procRoot, std::string *error)
{
    return readAndParse<std::vector<MountInfoEntry>>(procRoot, "self/mountinfo", error, parseMountInfo);
}

std::optional<MemInfo> readMemInfo(const std::string &procRoot, std::string *error)
{
    return readAndParse<MemInfo>(procRoot, "meminfo", error, parseMemInfo);
}

std::optional<VmStat> readVmStat(const std::string &procRoot, std::string *error)
{
    return readAndParse<VmStat>(procRoot, "vmstat", error, parseVmStat);
}

std::optional<std::vector<SwapArea>> readSwaps(const std::string &procRoot, std::string *error)
{
    return readAndParse<std::vector<SwapArea>>(procRoot, "swaps", error, parseSwaps);
}

std::optional<uint64_t> fileRefaults(const VmStat &vmStat)
{
    // Split into _anon and _file in Linux 5.9; before that only file pages
    // had shadow entries, so the unsplit counter means the same thing.
    if (const auto value = vmStat.find("workingset_refault_file")) {
        return value;
    }
    return vmStat.find("workingset_refault");
}

std::optional<uint64_t> fileActivations(const VmStat &vmStat)
{
    if (const auto value = vmStat.find("workingset_activate_file")) {
        return value;
    }
    return vmStat.find("workingset_activate");
}

FreeFigures freeFigures(const MemInfo &memInfo)
{
    // procps-ng 4.0.4, library/meminfo.c (confirmed against its `free` on
    // every fixture in procfstest): MemAvailable missing or 0 (kernels before
    // 3.14) falls back to MemFree, as does one larger than MemTotal (seen in
    // containers); used = total - available.
    FreeFigures figures;
    figures.total = memInfo.value("MemTotal");
    figures.free = memInfo.value("MemFree");
    figures.shared = memInfo.value("Shmem");
    figures.buffers = memInfo.value("Buffers");
    figures.cache = memInfo.value("Cached") + memInfo.value("SReclaimable");
    figures.buffCache = figures.buffers + figures.cache;

    figures.available = memInfo.value("MemAvailable");
    if (figures.available == 0 || figures.available > figures.total) {
        figures.available = figures.free;
    }
    // Only MemFree > MemTotal (broken input) gets here with available > total;
    // procps then wraps around to nearly 2^64, 0 says less nonsense.
    figures.used = figures.available <= figures.total ? figures.total - figures.available : 0;

    figures.swapTotal = memInfo.value("SwapTotal");
    figures.swapFree = memInfo.value("SwapFree");
    figures.swapUsed = figures.swapFree < figures.swapTotal ? figures.swapTotal - figures.swapFree : 0;
    return figures;
}

} // namespace Cachescope
