// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "figuretext.h"

#include "residency.h"

#include <KLocalizedString>

#include <QDateTime>
#include <QHash>
#include <QLocale>

#include <cmath>

namespace Cachescope::App
{

namespace
{
constexpr double bytesPerMiB = 1024.0 * 1024.0;
}

QString measurementLabel(const std::string &name)
{
    static const QHash<QString, KLocalizedString> labels = {
        {QStringLiteral("cold_seconds"), ki18nc("@item measurement", "Cold time")},
        {QStringLiteral("warm_seconds"), ki18nc("@item measurement", "Warm time")},
        {QStringLiteral("cold_throughput"), ki18nc("@item measurement", "Cold throughput")},
        {QStringLiteral("warm_throughput"), ki18nc("@item measurement", "Warm throughput")},
        {QStringLiteral("cold_warm_ratio"), ki18nc("@item measurement", "Cold ÷ warm")},
        {QStringLiteral("io_seconds"), ki18nc("@item measurement", "Time due to I/O")},
        {QStringLiteral("allocated"), ki18nc("@item measurement", "Allocated")},
        {QStringLiteral("cache_reclaimed"), ki18nc("@item measurement", "Cache reclaimed")},
        {QStringLiteral("reclaimed_per_allocated"), ki18nc("@item measurement", "Reclaimed per allocated")},
        {QStringLiteral("warm_file_survived"), ki18nc("@item measurement", "Warm file still cached")},
        {QStringLiteral("swap_used"), ki18nc("@item measurement", "Swap used")},
        {QStringLiteral("mem_free_drop"), ki18nc("@item measurement", "Free memory fell by")},
        {QStringLiteral("write_seconds"), ki18nc("@item measurement", "Write time")},
        {QStringLiteral("write_throughput"), ki18nc("@item measurement", "Write throughput")},
        {QStringLiteral("fsync_seconds"), ki18nc("@item measurement", "fsync time")},
        {QStringLiteral("sync_seconds"), ki18nc("@item measurement", "sync time")},
        {QStringLiteral("file_dirty_peak"), ki18nc("@item measurement", "File's dirty pages at most")},
        {QStringLiteral("seconds"), ki18nc("@item measurement", "Time")},
        {QStringLiteral("throughput"), ki18nc("@item measurement", "Throughput")},
        {QStringLiteral("minor_faults"), ki18nc("@item measurement", "Minor faults")},
        {QStringLiteral("major_faults"), ki18nc("@item measurement", "Major faults")},
        {QStringLiteral("cache_bytes_added"), ki18nc("@item measurement", "Read into the cache")},
        {QStringLiteral("warm_file_reclaimed"), ki18nc("@item measurement", "Warm file reclaimed")},
        {QStringLiteral("read_seconds"), ki18nc("@item measurement", "Time to read folder 1")},
        {QStringLiteral("folder1_resident"), ki18nc("@item measurement", "Folder 1's cached pages before the read")},
        {QStringLiteral("folder1_cached"), ki18nc("@item measurement", "Folder 1 cached before the read")},
        {QStringLiteral("folder1_reclaimed"), ki18nc("@item measurement", "Folder 1's pages reclaimed")},
        {QStringLiteral("cgroup_refaults"), ki18nc("@item measurement", "The cgroup's refaults")},
    };
    const QString key = QString::fromStdString(name);
    const auto found = labels.constFind(key);
    if (found != labels.constEnd()) {
        return found->toString();
    }
    QString text = key;
    text.replace(QLatin1Char('_'), QLatin1Char(' '));
    return text;
}

double displayValue(const std::string &unit, double value)
{
    return unit == "bytes" ? value / bytesPerMiB : value;
}

QString displayUnit(const std::string &unit)
{
    if (unit == "bytes") {
        return i18nc("@item unit", "MiB");
    }
    if (unit == "percent") {
        return QStringLiteral("%");
    }
    if (unit == "ratio") {
        return i18nc("@item unit", "×");
    }
    if (unit == "count") {
        return i18nc("@item unit", "faults");
    }
    return QString::fromStdString(unit);
}

QString formatNumber(double value)
{
    const double magnitude = std::abs(value);
    const int decimals = magnitude >= 100 || magnitude == 0 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
    return QLocale().toString(value, 'f', decimals);
}

QString startedText(const Experiments::Result &result)
{
    const QDateTime started = QDateTime::fromString(QString::fromStdString(result.started), Qt::ISODate);
    if (!started.isValid()) {
        return QString::fromStdString(result.started);
    }
    return QLocale().toString(started.toLocalTime(), QLocale::ShortFormat);
}

QString engineText(const std::string &text)
{
    return QString::fromStdString(text);
}

QStringList noteLines(const Experiments::Result &result)
{
    QStringList lines;
    for (const std::string &note : result.notes) {
        lines << engineText(note);
    }
    for (const Experiments::VariantResult &variant : result.variants) {
        if (variant.skipped) {
            lines << i18nc("@info:status %1 variant, %2 reason", "%1 was skipped: %2", engineText(variant.name), engineText(variant.skipReason));
        }
    }
    return lines;
}

std::optional<double> mebibytes(const std::optional<uint64_t> &bytes)
{
    if (!bytes) {
        return std::nullopt;
    }
    return double(*bytes) / bytesPerMiB;
}

std::optional<double> pagesInMebibytes(const std::optional<uint64_t> &pages)
{
    if (!pages) {
        return std::nullopt;
    }
    return double(*pages * pageSize()) / bytesPerMiB;
}

std::optional<double> filePercent(const Experiments::Sample &sample)
{
    if (!sample.fileResident || !sample.filePages || *sample.filePages == 0) {
        return std::nullopt;
    }
    return 100.0 * double(*sample.fileResident) / double(*sample.filePages);
}

} // namespace Cachescope::App
