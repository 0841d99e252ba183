// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "helperlogic.h"
#include "helperprotocol.h"

#include "format.h"
#include "procfs.h"

#include <QByteArray>
#include <QStringList>

#include <sys/stat.h>
#include <sys/swap.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

namespace Cachescope::Helper
{

namespace
{
template<typename T>
std::optional<T> parseNumber(std::string_view text)
{
    T value{};
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
        return std::nullopt;
    }
    return value;
}

QString typeNameOf(const QVariant &value)
{
    if (!value.isValid()) {
        return QStringLiteral("nothing");
    }
    return QString::fromLatin1(value.metaType().name());
}

constexpr QLatin1StringView stateHeader{"cachescope-swap-state 1"};

// Sizes in sentences: "16 MiB", "4 GiB", "1.5 GiB" (no ".0" on whole units).
QString sentenceBytes(uint64_t bytes)
{
    return formatBytes(bytes, ByteStyle::Exact);
}
} // namespace

QString quoteForMessage(const QString &text)
{
    QString shown;
    for (const QChar c : text) {
        if (shown.size() >= 40) {
            shown += QStringLiteral("...");
            break;
        }
        shown += (c.unicode() >= 0x20 && c.unicode() < 0x7f) ? c : QLatin1Char('?');
    }
    return QLatin1Char('\'') + shown + QLatin1Char('\'');
}

std::optional<QString> checkKeys(const QVariantMap &args, const std::vector<QString> &allowed, const std::vector<QString> &required)
{
    if (args.size() > HelperProtocol::maxArguments) {
        return QStringLiteral("Too many arguments (%1): the helper takes at most %2.").arg(args.size()).arg(HelperProtocol::maxArguments);
    }
    for (auto it = args.cbegin(); it != args.cend(); ++it) {
        if (std::find(allowed.cbegin(), allowed.cend(), it.key()) == allowed.cend()) {
            return QStringLiteral("Unknown argument %1: this action does not take it.").arg(quoteForMessage(it.key()));
        }
    }
    for (const QString &key : required) {
        if (!args.contains(key)) {
            return QStringLiteral("Missing argument '%1'.").arg(key);
        }
    }
    return std::nullopt;
}

IntegerArgument integerArgument(const QVariantMap &args, const QString &key, long long min, long long max)
{
    IntegerArgument result;
    const auto it = args.constFind(key);
    if (it == args.cend()) {
        result.error = QStringLiteral("Missing argument '%1'.").arg(key);
        return result;
    }
    const QVariant &value = *it;
    std::optional<long long> number;
    switch (value.metaType().id()) {
    case QMetaType::Int:
        number = value.toInt();
        break;
    case QMetaType::UInt:
        number = value.toUInt();
        break;
    case QMetaType::LongLong:
        number = value.toLongLong();
        break;
    case QMetaType::ULongLong:
        if (value.toULongLong() <= uint64_t(std::numeric_limits<long long>::max())) {
            number = (long long)value.toULongLong();
        } else {
            result.error = QStringLiteral("Argument '%1' is out of range (%2 to %3).").arg(key).arg(min).arg(max);
            return result;
        }
        break;
    default:
        result.error = QStringLiteral("Argument '%1' must be an integer, not %2.").arg(key, typeNameOf(value));
        return result;
    }
    if (*number < min || *number > max) {
        result.error = QStringLiteral("Argument '%1' is %2, out of range (%3 to %4).").arg(key).arg(*number).arg(min).arg(max);
        return result;
    }
    result.value = number;
    return result;
}

std::optional<QString> checkTrueFlag(const QVariantMap &args, const QString &key)
{
    const QVariant value = args.value(key);
    if (value.metaType().id() != QMetaType::Bool) {
        return QStringLiteral("Argument '%1' must be the boolean true, not %2.").arg(key, typeNameOf(value));
    }
    if (!value.toBool()) {
        return QStringLiteral("Argument '%1' must be true when given.").arg(key);
    }
    return std::nullopt;
}

std::optional<std::string> pathArgument(const QVariantMap &args, const QString &key, QString *error)
{
    const QVariant value = args.value(key);
    if (value.metaType().id() != QMetaType::QString) {
        *error = QStringLiteral("Argument '%1' must be a path (a string), not %2.").arg(key, typeNameOf(value));
        return std::nullopt;
    }
    const QString text = value.toString();
    if (text.size() > HelperProtocol::maxPathBytes) {
        *error = QStringLiteral("Argument '%1' is too long (%2 characters; a path has at most %3 bytes).")
                     .arg(key)
                     .arg(text.size())
                     .arg(HelperProtocol::maxPathBytes);
        return std::nullopt;
    }
    const QByteArray bytes = text.toUtf8();
    if (bytes.size() > HelperProtocol::maxPathBytes) {
        *error = QStringLiteral("Argument '%1' is too long (%2 bytes; a path has at most %3).").arg(key).arg(bytes.size()).arg(HelperProtocol::maxPathBytes);
        return std::nullopt;
    }
    if (bytes.isEmpty() || bytes.front() != '/') {
        *error = QStringLiteral("Argument '%1' must be an absolute path, starting with '/'.").arg(key);
        return std::nullopt;
    }
    if (bytes.contains('\0')) {
        *error = QStringLiteral("Argument '%1' contains a NUL character.").arg(key);
        return std::nullopt;
    }
    const QList<QByteArray> parts = bytes.mid(1).split('/');
    for (const QByteArray &part : parts) {
        if (part == "..") {
            *error = QStringLiteral("Argument '%1' contains a '..' component: name the area by its plain path.").arg(key);
            return std::nullopt;
        }
        if (part == "." || part.isEmpty()) {
            *error = QStringLiteral("Argument '%1' is not a plain path (empty or '.' component).").arg(key);
            return std::nullopt;
        }
    }
    return bytes.toStdString();
}

uint64_t swapOffMargin(uint64_t memTotalBytes)
{
    return std::max<uint64_t>(128ULL << 20, memTotalBytes / 20);
}

SwapOffFit swapOffFit(uint64_t swapUsedBytes, const MemInfo &memInfo)
{
    SwapOffFit fit;
    fit.swapUsedBytes = swapUsedBytes;
    // Kernels before 3.14 have no MemAvailable: MemFree is the cautious stand-in.
    fit.availableBytes = memInfo.find("MemAvailable").value_or(memInfo.value("MemFree"));
    fit.marginBytes = swapOffMargin(memInfo.value("MemTotal"));
    const uint64_t needed = swapUsedBytes + fit.marginBytes;
    // Nothing swapped out: turning swap off cannot need memory.
    fit.fits = swapUsedBytes == 0 || needed <= fit.availableBytes;
    fit.missingBytes = fit.fits ? 0 : needed - fit.availableBytes;
    return fit;
}

QString describeSwapOffMisfit(const SwapOffFit &fit)
{
    return QStringLiteral(
               "Not enough memory to turn swap off: it would bring back %1 from swap, but only %2 of memory is available "
               "and %3 must stay free, so %4 is missing. Close some programs and try again.")
        .arg(sentenceBytes(fit.swapUsedBytes), sentenceBytes(fit.availableBytes), sentenceBytes(fit.marginBytes), sentenceBytes(fit.missingBytes));
}

std::optional<AreaIdentity> areaIdentity(const struct stat &st)
{
    AreaIdentity identity;
    if (S_ISBLK(st.st_mode)) {
        identity.blockDevice = true;
        identity.device = st.st_rdev;
        return identity;
    }
    if (S_ISREG(st.st_mode)) {
        identity.device = st.st_dev;
        identity.inode = st.st_ino;
        return identity;
    }
    return std::nullopt;
}

std::optional<size_t> findArea(const AreaIdentity &target, const std::vector<std::optional<AreaIdentity>> &candidates)
{
    for (size_t i = 0; i < candidates.size(); ++i) {
        if (const std::optional<AreaIdentity> &candidate = candidates[i]; candidate && *candidate == target) {
            return i;
        }
    }
    return std::nullopt;
}

std::string formatSwapState(const std::vector<SwapRecord> &records)
{
    std::string text = std::string(stateHeader.data(), stateHeader.size()) + '\n';
    for (const SwapRecord &record : records) {
        const QByteArray encoded = QByteArray::fromStdString(record.path).toPercentEncoding("/");
        text += record.identity.blockDevice ? "block " : "file ";
        text += std::to_string(record.identity.device) + ' ' + std::to_string(record.identity.inode) + ' ' + std::to_string(record.priority) + ' ';
        text += encoded.toStdString();
        text += '\n';
    }
    return text;
}

std::optional<std::vector<SwapRecord>> parseSwapState(std::string_view text, QString *error)
{
    std::vector<SwapRecord> records;
    size_t start = 0;
    int lineNumber = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            *error = QStringLiteral("line %1 does not end with a newline").arg(lineNumber + 1);
            return std::nullopt;
        }
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++lineNumber;
        if (lineNumber == 1) {
            if (line != std::string_view(stateHeader.data(), stateHeader.size())) {
                *error = QStringLiteral("not a Cachescope swap state file (first line)");
                return std::nullopt;
            }
            continue;
        }
        const std::vector<std::string_view> fields = splitFields(line);
        SwapRecord record;
        const std::optional<uint64_t> device = fields.size() == 5 ? parseNumber<uint64_t>(fields[1]) : std::nullopt;
        const std::optional<uint64_t> inode = fields.size() == 5 ? parseNumber<uint64_t>(fields[2]) : std::nullopt;
        const std::optional<int> priority = fields.size() == 5 ? parseNumber<int>(fields[3]) : std::nullopt;
        if (fields.size() != 5 || (fields[0] != "file" && fields[0] != "block") || !device || !inode || !priority || fields[4].front() != '/') {
            *error = QStringLiteral("line %1 is malformed").arg(lineNumber);
            return std::nullopt;
        }
        record.identity.blockDevice = fields[0] == "block";
        record.identity.device = *device;
        record.identity.inode = *inode;
        if (record.identity.blockDevice != (record.identity.inode == 0)) {
            *error = QStringLiteral("line %1 is malformed (inode)").arg(lineNumber);
            return std::nullopt;
        }
        record.priority = *priority;
        record.path = QByteArray::fromPercentEncoding(QByteArray(fields[4].data(), qsizetype(fields[4].size()))).toStdString();
        records.push_back(std::move(record));
    }
    if (lineNumber == 0) {
        *error = QStringLiteral("the file is empty");
        return std::nullopt;
    }
    return records;
}

int swapOnFlags(int priority)
{
    if (priority < 0) {
        return 0;
    }
    return SWAP_FLAG_PREFER | ((std::min(priority, SWAP_FLAG_PRIO_MASK) << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
}

std::optional<QString> swapFilesystemProblem(long long filesystemType)
{
    switch ((unsigned long long)filesystemType & 0xffffffffULL) {
    case 0xEF53: // ext2, ext3, ext4
    case 0x58465342: // XFS
    case 0xF2F52010: // F2FS
        return std::nullopt;
    case 0x01021994: // tmpfs
    case 0x858458f6: // ramfs
        return QStringLiteral("The folder is on tmpfs or ramfs, which keeps its files in memory: swap there would gain nothing, and Linux refuses it.");
    case 0x9123683E: // btrfs
        return QStringLiteral(
            "The folder is on btrfs, where a swap file needs copy-on-write switched off and no snapshots; Cachescope does not create one there.");
    case 0x794c7630: // overlayfs
        return QStringLiteral("The folder is on an overlay filesystem, which cannot hold swap.");
    case 0x6969: // NFS
    case 0xFF534D42: // CIFS
    case 0xFE534D42: // SMB2
        return QStringLiteral("The folder is on a network filesystem, which cannot hold swap safely.");
    default:
        return QStringLiteral("The folder is on a filesystem (type 0x%1) that Cachescope does not know to hold swap; it supports ext4, XFS and F2FS.")
            .arg(QString::number((unsigned long long)filesystemType & 0xffffffffULL, 16));
    }
}

std::optional<QString> experimentSizeProblem(long long sizeBytes, long long maxBytes, uint64_t freeBytes)
{
    if (sizeBytes < HelperProtocol::minExperimentSwapBytes || sizeBytes > maxBytes) {
        return QStringLiteral("An experiment swap file must be between %1 and %2; %3 was asked for.")
            .arg(sentenceBytes(HelperProtocol::minExperimentSwapBytes),
                 sentenceBytes(uint64_t(std::max(maxBytes, 0LL))),
                 sentenceBytes(uint64_t(std::max(sizeBytes, 0LL))));
    }
    // Leave at least as much free as the file takes: a full disk helps nobody.
    if (uint64_t(sizeBytes) > freeBytes / 2) {
        return QStringLiteral("Not enough free disk space for a %1 swap file: %2 is free, and at least half of it must stay free.")
            .arg(sentenceBytes(uint64_t(sizeBytes)), sentenceBytes(freeBytes));
    }
    return std::nullopt;
}

void writeSwapHeader(char *firstPage, size_t pageSize, uint64_t pages)
{
    // union swap_header in the kernel: 1024 boot bytes, then version,
    // last_page, nr_badpages, uuid[16], volume_name[16]; the magic ends the page.
    memset(firstPage, 0, pageSize);
    const uint32_t version = 1;
    const uint32_t lastPage = uint32_t(std::min<uint64_t>(pages - 1, 0xffffffffULL));
    const uint32_t badPages = 0;
    memcpy(firstPage + 1024, &version, 4);
    memcpy(firstPage + 1028, &lastPage, 4);
    memcpy(firstPage + 1032, &badPages, 4);
    const std::string_view magic = "SWAPSPACE2"; // no terminating zero: the page ends with it
    std::copy(magic.begin(), magic.end(), firstPage + pageSize - magic.size());
}

} // namespace Cachescope::Helper
