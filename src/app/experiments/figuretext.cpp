// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "figuretext.h"

#include "residency.h"

#include <KLocalizedString>

#include <QDateTime>
#include <QHash>
#include <QLocale>

#include <cmath>
#include <vector>

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
        {QStringLiteral("cache_left_bytes"), ki18nc("@item measurement", "File left in the cache")},
        {QStringLiteral("cache_left_percent"), ki18nc("@item measurement", "Share of the file left in the cache")},
        {QStringLiteral("desktop_kept_percent"), ki18nc("@item measurement", "Desktop's cache kept")},
        {QStringLiteral("pass_seconds"), ki18nc("@item measurement", "Time a pass")},
        {QStringLiteral("read_from_storage"), ki18nc("@item measurement", "Read from the disk a pass")},
        {QStringLiteral("refaults"), ki18nc("@item measurement", "Refaults a pass")},
        {QStringLiteral("first_kept_percent"), ki18nc("@item measurement", "A still cached after the stream")},
        {QStringLiteral("stream_seconds"), ki18nc("@item measurement", "Time to stream B")},
        {QStringLiteral("active_file_before"), ki18nc("@item measurement", "Active(file) before the stream")},
        {QStringLiteral("active_file_after"), ki18nc("@item measurement", "Active(file) after the stream")},
        {QStringLiteral("inactive_file_before"), ki18nc("@item measurement", "Inactive(file) before the stream")},
        {QStringLiteral("inactive_file_after"), ki18nc("@item measurement", "Inactive(file) after the stream")},
        {QStringLiteral("activations"), ki18nc("@item measurement", "Pages activated")},
        {QStringLiteral("shmem_added"), ki18nc("@item measurement", "Shmem grew by")},
        {QStringLiteral("cached_added"), ki18nc("@item measurement", "Cached grew by")},
        {QStringLiteral("buff_cache_added"), ki18nc("@item measurement", "free's buff/cache grew by")},
        {QStringLiteral("available_fell"), ki18nc("@item measurement", "MemAvailable fell by")},
        {QStringLiteral("swap_cached"), ki18nc("@item measurement", "Swap cache (written, still in memory)")},
        {QStringLiteral("file_resident_percent"), ki18nc("@item measurement", "File in memory")},
        {QStringLiteral("shmem_freed"), ki18nc("@item measurement", "Shmem fell by")},
        {QStringLiteral("cached_freed"), ki18nc("@item measurement", "Cached fell by")},
        {QStringLiteral("shmem_kept_percent"), ki18nc("@item measurement", "File still in its cache")},
        {QStringLiteral("limit_hit"), ki18nc("@item measurement", "The cgroup's limit hit")},
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

namespace
{
// A unit and how many of it make one of the engine's unit, smallest first.
struct ScaleStep {
    double perBase;
    KLocalizedString name;
};

// Steps go from the largest unit to the smallest: the first the magnitude
// reaches one of, the smallest below them all, the base unit for 0.
DisplayScale pickStep(const std::vector<ScaleStep> &steps, size_t baseIndex, double magnitude)
{
    size_t chosen = baseIndex;
    if (magnitude > 0 && std::isfinite(magnitude)) {
        chosen = steps.size() - 1;
        for (size_t i = 0; i < steps.size(); ++i) {
            if (magnitude * steps[i].perBase >= 1) {
                chosen = i;
                break;
            }
        }
    }
    DisplayScale scale;
    scale.factor = steps[chosen].perBase;
    scale.unit = steps[chosen].name.toString();
    return scale;
}

// The engines' units that are shown in a unit picked for the value, each
// with its steps (largest first) and the step of the engine's own unit.
struct ScaledUnit {
    const char *unit;
    std::vector<ScaleStep> steps;
    size_t baseIndex;
};

const std::vector<ScaledUnit> &scaledUnits()
{
    static const std::vector<ScaledUnit> units = {
        {"s",
         {
             {1.0 / 60, ki18nc("@item unit: minutes", "min")},
             {1, ki18nc("@item unit: seconds", "s")},
             {1e3, ki18nc("@item unit: milliseconds", "ms")},
             {1e6, ki18nc("@item unit: microseconds", "µs")},
             {1e9, ki18nc("@item unit: nanoseconds", "ns")},
         },
         1},
        {"bytes",
         {
             {1.0 / double(1ULL << 40), ki18nc("@item unit", "TiB")},
             {1.0 / double(1ULL << 30), ki18nc("@item unit", "GiB")},
             {1.0 / double(1ULL << 20), ki18nc("@item unit", "MiB")},
             {1.0 / double(1ULL << 10), ki18nc("@item unit", "KiB")},
             {1, ki18nc("@item unit", "B")},
         },
         4},
        {"MiB/s", {{1.0 / 1024, ki18nc("@item unit", "GiB/s")}, {1, ki18nc("@item unit", "MiB/s")}, {1024, ki18nc("@item unit", "KiB/s")}}, 1},
        {"MB/s", {{1.0 / 1000, ki18nc("@item unit", "GB/s")}, {1, ki18nc("@item unit", "MB/s")}, {1000, ki18nc("@item unit", "kB/s")}}, 1},
    };
    return units;
}
} // namespace

DisplayScale displayScale(const std::string &unit, double magnitude)
{
    magnitude = std::abs(magnitude);
    for (const ScaledUnit &scaled : scaledUnits()) {
        if (unit != scaled.unit) {
            continue;
        }
        // Minutes only from two on: "90.0 s" reads better than "1.50 min".
        if (unit == "s" && magnitude < 120) {
            return pickStep({scaled.steps.begin() + 1, scaled.steps.end()}, 0, magnitude);
        }
        return pickStep(scaled.steps, scaled.baseIndex, magnitude);
    }
    DisplayScale scale;
    if (unit == "percent") {
        scale.unit = QStringLiteral("%");
        scale.joined = true;
    } else if (unit == "ratio") {
        scale.unit = i18nc("@item unit: times as much", "×");
        scale.joined = true;
    } else if (unit == "pages") {
        scale.unit = i18nc("@item unit", "pages");
        scale.whole = true;
    } else if (unit == "count") {
        scale.whole = true; // the figure's name says what is counted
    } else {
        scale.unit = QString::fromStdString(unit);
    }
    return scale;
}

QString formatScaled(double value, const DisplayScale &scale)
{
    const double shown = value * scale.factor;
    QString number = scale.whole ? QLocale().toString(shown, 'f', shown == std::round(shown) ? 0 : 1) : formatNumber(shown);
    if (scale.unit.isEmpty()) {
        return number;
    }
    if (scale.joined) {
        return i18nc("@item a number and its unit without a space: 85%, 3.2×", "%1%2", number, scale.unit);
    }
    return i18nc("@item a number and its unit: 27.3 ms", "%1 %2", number, scale.unit);
}

QString formatFigure(const std::string &unit, double value)
{
    return formatScaled(value, displayScale(unit, value));
}

QString formatDuration(double seconds)
{
    return formatFigure("s", seconds);
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
