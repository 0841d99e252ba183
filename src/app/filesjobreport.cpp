// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filesjobreport.h"

#include "evict.h"
#include "format.h"
#include "residency.h"

#include <KLocalizedString>

#include <QLocale>
#include <QStringList>

#include <utility>

namespace Cachescope::App
{

namespace
{

QString bytesText(uint64_t bytes)
{
    return formatBytes(bytes, ByteStyle::OneDecimal, QLocale());
}

} // namespace

QString FilesJobReport::progress(FilesJob::Kind kind, uint64_t entries, uint64_t bytes)
{
    QString what;
    switch (kind) {
    case FilesJob::Kind::Scan:
        what = i18nc("@info:progress", "Counting cached pages…");
        break;
    case FilesJob::Kind::Evict:
        what = i18nc("@info:progress", "Evicting…");
        break;
    case FilesJob::Kind::Load:
        what = i18nc("@info:progress", "Loading…");
        break;
    case FilesJob::Kind::Top:
        what = i18nc("@info:progress", "Looking for the most cached files…");
        break;
    }
    return i18ncp("@info:progress what, entries, bytes", "%2 %1 entry, %3", "%2 %1 entries, %3", qulonglong(entries), what, bytesText(bytes));
}

QString FilesJobReport::loaded(const FilesJob &job)
{
    const LoadSummary &s = job.load;
    QString text = i18ncp("@info",
                          "Loaded %2 into the page cache from %1 file.",
                          "Loaded %2 into the page cache from %1 files.",
                          qulonglong(s.total.files),
                          bytesText(s.loadedPages * pageSize()));
    if (s.errors > 0) {
        text += QLatin1Char(' ')
            + i18ncp("@info",
                     "%1 file could not be read: %2",
                     "%1 files could not be read, the first: %2",
                     qulonglong(s.errors),
                     QString::fromStdString(s.firstError));
    }
    if (job.wasCancelled()) {
        text += QLatin1Char(' ') + i18nc("@info", "Cancelled before the end.");
    }
    return text;
}

QString FilesJobReport::evicted(const FilesJob &job)
{
    const EvictSummary &s = job.evict;
    const uint64_t page = pageSize();
    QStringList parts;
    if (s.total.files == 0 && s.errors == 0) {
        parts << i18nc("@info", "Nothing to evict: there are no regular files there.");
    } else {
        parts << i18ncp("@info",
                        "Evicted %1 file from the page cache: %2 freed.",
                        "Evicted %1 files from the page cache: %2 freed.",
                        qulonglong(s.total.files),
                        bytesText(s.freedPages * page));
    }
    QStringList stayed;
    auto reason = [&](RemainReason r) {
        return std::pair{qulonglong(s.filesByReason[size_t(r)]), bytesText(s.pagesByReason[size_t(r)] * page)};
    };
    if (auto [files, bytes] = reason(RemainReason::Dirty); files > 0) {
        stayed << i18ncp("@info",
                         "%2 in %1 file is dirty: it must be written to disk first (use Flush and Evict)",
                         "%2 in %1 files is dirty: it must be written to disk first (use Flush and Evict)",
                         files,
                         bytes);
    }
    if (auto [files, bytes] = reason(RemainReason::Mapped); files > 0) {
        stayed << i18ncp("@info", "%2 in %1 file is mapped by a running program", "%2 in %1 files is mapped by running programs", files, bytes);
    }
    if (auto [files, bytes] = reason(RemainReason::Shmem); files > 0) {
        stayed << i18ncp("@info",
                         "%2 in %1 file is on tmpfs or shared memory, which has no disk to drop pages to",
                         "%2 in %1 files is on tmpfs or shared memory, which has no disk to drop pages to",
                         files,
                         bytes);
    }
    if (auto [files, bytes] = reason(RemainReason::Unknown); files > 0) {
        stayed << i18ncp("@info",
                         "%2 in %1 file was read again at once by another program",
                         "%2 in %1 files was read again at once by other programs",
                         files,
                         bytes);
    }
    if (!stayed.isEmpty()) {
        parts << i18nc("@info followed by a list of reasons", "Stayed: %1.", stayed.join(QStringLiteral("; ")));
    }
    if (s.hiddenFiles > 0) {
        parts << i18ncp("@info",
                        "The kernel hides the page cache of %1 file from you: it was evicted, but what that freed is unknown.",
                        "The kernel hides the page cache of %1 files from you: they were evicted, but what that freed is unknown.",
                        qulonglong(s.hiddenFiles));
    }
    if (s.errors > 0) {
        parts << i18ncp("@info",
                        "%1 file could not be evicted: %2",
                        "%1 files could not be evicted, the first: %2",
                        qulonglong(s.errors),
                        QString::fromStdString(s.firstError));
    }
    if (job.wasCancelled()) {
        parts << i18nc("@info", "Cancelled before the end.");
    }
    return parts.join(QLatin1Char(' '));
}

} // namespace Cachescope::App
