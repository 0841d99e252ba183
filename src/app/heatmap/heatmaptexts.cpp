// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "heatmaptexts.h"

#include "format.h"

#include <KLocalizedString>

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace Cachescope::App
{

namespace
{

QString formatCount(uint64_t value)
{
    return QLocale().toString(qulonglong(value));
}

QString formatPercent(uint64_t part, uint64_t whole)
{
    // One decimal, but never "100.0 %" for a file that misses a page, nor
    // "0.0 %" for one that has one.
    return i18nc("@item percentage", "%1%", QLocale().toString(percentShown(part, whole, 1), 'f', 1));
}

// The start and end of a byte range in one unit, with as many decimals as
// tell them apart by at least a step: a 16 KiB cell at 1.5 MiB is "1.50 MiB to
// 1.52 MiB", not "1.5 MiB to 1.5 MiB". Whole units where both are whole ("320
// KiB to 384 KiB"); a smaller unit where three decimals are not enough.
std::pair<QString, QString> rangeSizes(uint64_t start, uint64_t end)
{
    static constexpr const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const auto text = [](uint64_t bytes, uint64_t unitBytes, const char *unit, int decimals) -> QString {
        if (bytes == 0) {
            return formatBytes(0, ByteStyle::OneDecimal, QLocale());
        }
        return QLocale().toString(double(bytes) / double(unitBytes), 'f', decimals) + QLatin1Char(' ') + QLatin1String(unit);
    };
    // The unit formatBytes would pick for the end.
    size_t unit = 0;
    uint64_t unitBytes = 1;
    while (unit + 1 < std::size(units) && double(end) / double(unitBytes) >= 1023.95) {
        unitBytes *= 1024;
        ++unit;
    }
    const uint64_t width = end > start ? end - start : 1;
    for (; unit > 0; --unit, unitBytes /= 1024) {
        if (start % unitBytes == 0 && end % unitBytes == 0) {
            return {text(start, unitBytes, units[unit], 0), text(end, unitBytes, units[unit], 0)};
        }
        double step = double(unitBytes) / 10.0;
        for (int decimals = 1; decimals <= 3; ++decimals, step /= 10.0) {
            if (step <= double(width)) {
                return {text(start, unitBytes, units[unit], decimals), text(end, unitBytes, units[unit], decimals)};
            }
        }
    }
    return {text(start, 1, units[0], 0), text(end, 1, units[0], 0)};
}

} // namespace

QString HeatmapTexts::size(uint64_t bytes)
{
    return formatBytes(bytes, ByteStyle::Exact, QLocale());
}

QString HeatmapTexts::pagesPerCell(const Heatmap::HeatmapCells &cells)
{
    if (cells.perPage) {
        return i18nc("@info zoom scale", "1 cell = 1 page (%1)", size(pageSize()));
    }
    const uint64_t count = cells.cells.size();
    if (count == 0) {
        return {};
    }
    const double pages = double(cells.windowPages) / double(count);
    if (cells.windowPages % count == 0) {
        return i18ncp("@info zoom scale",
                      "1 cell = %1 page (%2)",
                      "1 cell = %1 pages (%2)",
                      cells.windowPages / count,
                      size(cells.windowPages / count * pageSize()));
    }
    return i18nc("@info zoom scale", "1 cell ≈ %1 pages (%2)", QLocale().toString(pages, 'f', pages < 10 ? 1 : 0), size(uint64_t(pages * double(pageSize()))));
}

HeatmapTexts HeatmapTexts::forCells(const QString &name, const Heatmap::HeatmapCells &cells, bool hidden, bool updating, HeatmapMeaning meaning)
{
    HeatmapTexts t;
    t.name = name;
    const QString fileSize = size(cells.sizeBytes);
    if (hidden) {
        // Never a number about residency here: the kernel did not tell us one.
        t.details = i18nc("@info header %1 file size", "%1 · residency hidden", fileSize);
        t.overlayTitle = i18nc("@info residency not visible to this user", "Hidden");
        // The core's reason is a sentence fragment ("the kernel shows ...").
        QString reason = QString::fromLocal8Bit(cells.status.hiddenReason.c_str()).trimmed();
        if (reason.isEmpty()) {
            t.overlayText = i18nc("@info", "The kernel does not tell this user which pages of this file are cached.");
        } else {
            reason[0] = reason[0].toUpper();
            if (!reason.endsWith(QLatin1Char('.'))) {
                reason += QLatin1Char('.');
            }
            t.overlayText = reason;
        }
        return t;
    }
    if (cells.totalsKnown && meaning == HeatmapMeaning::TracedReads) {
        t.details = i18ncp("@info header: %2 file size, %3 pages read, %1 all pages, %4 percent",
                           "%2 · %3 of %1 page read from the disk (%4)",
                           "%2 · %3 of %1 pages read from the disk (%4)",
                           cells.filePages,
                           fileSize,
                           formatCount(cells.resident),
                           formatPercent(cells.resident, cells.filePages));
        // detail: which of them the program asked for is known (the kernel's usage tracepoints).
        t.details += cells.detail ? i18nc("@info header, appended", " · %1 asked for by the program", formatCount(cells.dirty))
                                  : i18nc("@info header, appended", " · which the program asked for: unknown");
    } else if (cells.totalsKnown) {
        t.details = i18ncp("@info header: %2 file size, %3 cached pages, %1 all pages, %4 percent",
                           "%2 · %3 of %1 page cached (%4)",
                           "%2 · %3 of %1 pages cached (%4)",
                           cells.filePages,
                           fileSize,
                           formatCount(cells.resident),
                           formatPercent(cells.resident, cells.filePages));
        if (cells.detail && cells.dirty > 0) {
            t.details += i18nc("@info header, appended", " · %1 dirty", formatCount(cells.dirty));
        }
        if (cells.detail && cells.writeback > 0) {
            t.details += i18nc("@info header, appended", " · %1 under writeback", formatCount(cells.writeback));
        }
    } else {
        t.details = fileSize;
    }
    if (cells.windowPages > 0) {
        const bool whole = cells.windowFirst == 0 && cells.windowPages == cells.filePages;
        if (whole) {
            t.window =
                i18ncp("@info zoom window: %1 pages, %2 scale", "Whole file, %1 page · %2", "Whole file, %1 pages · %2", cells.filePages, pagesPerCell(cells));
        } else {
            t.window = i18nc("@info zoom window: %1–%2 page range, %3 pages in the file, %4 scale",
                             "Pages %1–%2 of %3 · %4",
                             formatCount(cells.windowFirst),
                             formatCount(cells.windowFirst + cells.windowPages - 1),
                             formatCount(cells.filePages),
                             pagesPerCell(cells));
        }
    }
    if (cells.privileged) {
        t.window += i18nc("@info appended to the zoom line", " · shown with administrator rights");
    } else if (!cells.detail && meaning == HeatmapMeaning::Residency) {
        t.window += i18nc("@info appended to the zoom line", " · dirty pages unknown (mincore)");
    }
    if (updating) {
        t.window += i18nc("@info appended to the zoom line", " · updating…");
    }
    return t;
}

void HeatmapTexts::addComparison(const Heatmap::HeatmapCells &cells, bool inSnapshot, const QString &snapshotName)
{
    if (!inSnapshot) {
        details += i18nc("@info header, appended", " · not in the snapshot");
    } else {
        details += i18nc("@info header, appended: pages cached now and not in the snapshot, and the other way round",
                         " · since the snapshot: %1 newly cached, %2 evicted",
                         formatCount(cells.resident - std::min(cells.resident, cells.beforeStill)),
                         formatCount(cells.before - std::min(cells.before, cells.beforeStill)));
    }
    window += i18nc("@info appended to the zoom line, %1 a snapshot file's name", " · compared with %1", snapshotName);
}

QStringList HeatmapTexts::legendLabels(HeatmapMeaning meaning)
{
    if (meaning == HeatmapMeaning::SnapshotComparison) {
        return {i18nc("@label legend", "Not cached"),
                i18nc("@label legend", "Cached then and now"),
                i18nc("@label legend", "Newly cached"),
                i18nc("@label legend", "Evicted since the snapshot")};
    }
    if (meaning == HeatmapMeaning::TracedReads) {
        return {i18nc("@label legend", "Not read"), i18nc("@label legend", "Read from the disk"), i18nc("@label legend", "Asked for by the program")};
    }
    return {i18nc("@label legend", "Not cached"),
            i18nc("@label legend", "Cached"),
            i18nc("@label legend", "Dirty"),
            i18nc("@label legend", "Writeback"),
            i18nc("@label legend", "Hidden")};
}

QString HeatmapTexts::zoomHint(bool wholeFileView)
{
    if (wholeFileView) {
        return i18nc("@info legend hint", "Scroll to zoom");
    }
    return i18nc("@info legend hint", "Scroll to zoom, drag to move");
}

QString HeatmapTexts::toolTip(const Heatmap::HeatmapCells &cells, const Heatmap::Cell &cell, HeatmapMeaning meaning)
{
    const uint64_t page = pageSize();
    const uint64_t lastPage = cell.firstPage + cell.pages - 1;
    const uint64_t endByte = std::min((cell.firstPage + cell.pages) * page, std::max<uint64_t>(cells.sizeBytes, cell.firstPage * page + 1));
    QStringList lines;
    if (cell.pages == 1) {
        lines << i18nc("@info:tooltip", "Page %1", formatCount(cell.firstPage));
    } else {
        lines << i18ncp("@info:tooltip %2–%3 page range, %1 pages",
                        "Pages %2–%3 (%1 page)",
                        "Pages %2–%3 (%1 pages)",
                        cell.pages,
                        formatCount(cell.firstPage),
                        formatCount(lastPage));
    }
    const auto [from, to] = rangeSizes(cell.firstPage * page, endByte);
    lines << i18nc("@info:tooltip byte range", "Bytes %1 to %2 (offset %3)", from, to, formatCount(cell.firstPage * page));
    if (meaning == HeatmapMeaning::TracedReads) {
        lines << i18ncp("@info:tooltip %2 pages read, %1 pages, %3 percent",
                        "Read from the disk: %2 of %1 page (%3)",
                        "Read from the disk: %2 of %1 pages (%3)",
                        cell.pages,
                        formatCount(cell.resident),
                        formatPercent(cell.resident, cell.pages));
        lines << (cells.detail ? i18ncp("@info:tooltip", "Asked for by the program: %1 page", "Asked for by the program: %1 pages", cell.dirty)
                               : i18nc("@info:tooltip", "Asked for by the program: unknown"));
        return lines.join(QLatin1Char('\n'));
    }
    lines << i18ncp("@info:tooltip %2 cached pages, %1 pages, %3 percent",
                    "Cached: %2 of %1 page (%3)",
                    "Cached: %2 of %1 pages (%3)",
                    cell.pages,
                    formatCount(cell.resident),
                    formatPercent(cell.resident, cell.pages));
    if (meaning == HeatmapMeaning::SnapshotComparison && cells.compared) {
        lines << i18ncp("@info:tooltip %2 pages cached then, %1 pages",
                        "Cached in the snapshot: %2 of %1 page",
                        "Cached in the snapshot: %2 of %1 pages",
                        cell.pages,
                        formatCount(cell.before));
        lines << i18ncp("@info:tooltip", "Newly cached since: %1 page", "Newly cached since: %1 pages", cell.newlyCached());
        lines << i18ncp("@info:tooltip", "Evicted since: %1 page", "Evicted since: %1 pages", cell.evictedSince());
        return lines.join(QLatin1Char('\n'));
    }
    if (cells.detail) {
        lines << i18ncp("@info:tooltip", "Dirty: %1 page", "Dirty: %1 pages", cell.dirty);
        lines << i18ncp("@info:tooltip", "Under writeback: %1 page", "Under writeback: %1 pages", cell.writeback);
    } else {
        lines << i18nc("@info:tooltip", "Dirty and writeback pages: unknown (mincore)");
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace Cachescope::App
