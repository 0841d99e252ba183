// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "filesjobreport.h"

#include "evict.h"
#include "format.h"
#include "residency.h"
#include "snapshotcomparison.h"

#include <KLocalizedString>

#include <QFileInfo>
#include <QLocale>
#include <QStringList>

#include <algorithm>
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
    case FilesJob::Kind::SaveSnapshot:
        what = i18nc("@info:progress", "Recording the page cache for the snapshot…");
        break;
    case FilesJob::Kind::CompareSnapshot:
        what = i18nc("@info:progress", "Comparing with the snapshot…");
        break;
    case FilesJob::Kind::RestoreSnapshot:
        // Its entries are the snapshot's files, its bytes the recorded pages gone through.
        return i18ncp("@info:progress files, bytes",
                      "Restoring the snapshot… %1 file, %2",
                      "Restoring the snapshot… %1 files, %2",
                      qulonglong(entries),
                      bytesText(bytes));
    }
    return i18ncp("@info:progress what, entries, bytes", "%2 %1 entry, %3", "%2 %1 entries, %3", qulonglong(entries), what, bytesText(bytes));
}

FilesMessage FilesJobReport::loaded(const FilesJob &job)
{
    const LoadSummary &s = job.load;
    const WalkTotals &t = s.total;
    const uint64_t hiddenFiles = std::min(t.hiddenFiles, t.files);
    const uint64_t knownFiles = t.files - hiddenFiles;
    const uint64_t knownPages = t.pages - std::min(t.pages, t.hiddenPages);
    FilesMessage message;
    QStringList parts;
    if (t.files == 0 && s.errors == 0) {
        parts << i18nc("@info", "Nothing to load: there are no regular files there.");
        message.type = KMessageWidget::Information;
    } else if (knownFiles > 0 && t.residentAfter >= knownPages) {
        // What is resident now, measured after the load: not what was asked for.
        parts << i18ncp("@info",
                        "Loaded %1 file into the page cache: all of its %2 are resident now.",
                        "Loaded %1 files into the page cache: all of their %2 are resident now.",
                        qulonglong(knownFiles),
                        bytesText(hiddenFiles == 0 ? t.bytes : knownPages * pageSize()));
    } else if (knownFiles > 0) {
        // Pages, not sizes: 16,380 of 16,384 pages would both read "64.0 MiB".
        parts << i18ncp("@info %2 of %3 pages resident, %4 not",
                        "Loaded %1 file into the page cache: %2 of its %3 pages are resident now (%4 are not).",
                        "Loaded %1 files into the page cache: %2 of their %3 pages are resident now (%4 are not).",
                        qulonglong(knownFiles),
                        QLocale().toString(qulonglong(t.residentAfter)),
                        QLocale().toString(qulonglong(knownPages)),
                        QLocale().toString(qulonglong(knownPages - t.residentAfter)));
        message.type = KMessageWidget::Information;
    }
    if (hiddenFiles > 0) {
        parts << (knownFiles > 0 ? i18ncp("@info",
                                          "%1 more file was read too, but the kernel hides its page cache from you: what is resident of it is hidden.",
                                          "%1 more files were read too, but the kernel hides their page cache from you: what is resident of them is hidden.",
                                          qulonglong(hiddenFiles))
                                 : i18ncp("@info",
                                          "Read %1 file into the page cache. The kernel hides its page cache from you: what is resident now is hidden.",
                                          "Read %1 files into the page cache. The kernel hides their page cache from you: what is resident now is hidden.",
                                          qulonglong(hiddenFiles)));
        if (knownFiles == 0) {
            message.type = KMessageWidget::Information;
        }
    }
    if (s.errors > 0) {
        parts << i18ncp("@info",
                        "%1 file could not be read: %2",
                        "%1 files could not be read, the first: %2",
                        qulonglong(s.errors),
                        QString::fromStdString(s.firstError));
        message.type = t.files == 0 ? KMessageWidget::Error : KMessageWidget::Warning;
    }
    if (job.wasCancelled()) {
        parts << i18nc("@info", "Cancelled before the end.");
        message.type = message.type == KMessageWidget::Positive ? KMessageWidget::Information : message.type;
    }
    message.text = parts.join(QLatin1Char(' '));
    return message;
}

FilesMessage FilesJobReport::evicted(const FilesJob &job)
{
    const EvictSummary &s = job.evict;
    const uint64_t page = pageSize();
    const uint64_t hiddenFiles = std::min(s.hiddenFiles, s.total.files);
    const uint64_t knownFiles = s.total.files - hiddenFiles;
    FilesMessage message;
    QStringList stayed;
    auto reason = [&](RemainReason r) {
        return std::pair{qulonglong(s.filesByReason[size_t(r)]), bytesText(s.pagesByReason[size_t(r)] * page)};
    };
    if (auto [files, bytes] = reason(RemainReason::Dirty); files > 0) {
        stayed << i18ncp("@info",
                         "%2 in %1 file is dirty: it must be written to disk first (Flush and Evict does that)",
                         "%2 in %1 files is dirty: it must be written to disk first (Flush and Evict does that)",
                         files,
                         bytes);
        message.offersFlushAndEvict = true;
    }
    if (s.keptFiles > 0) {
        stayed << i18ncp("@info",
                         "%2 in %1 file is kept in memory by Cachescope (Keep in Memory)",
                         "%2 in %1 files is kept in memory by Cachescope (Keep in Memory)",
                         qulonglong(s.keptFiles),
                         bytesText(s.keptPages * page));
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

    QStringList parts;
    if (s.total.files == 0 && s.errors == 0) {
        parts << i18nc("@info", "Nothing to evict: there are no regular files there.");
        message.type = KMessageWidget::Information;
    } else if (knownFiles > 0 && s.freedPages > 0) {
        parts << i18ncp("@info",
                        "Evicted %1 file from the page cache: %2 freed.",
                        "Evicted %1 files from the page cache: %2 freed.",
                        qulonglong(knownFiles),
                        bytesText(s.freedPages * page));
    } else if (knownFiles > 0 && !stayed.isEmpty()) {
        // Not a success: nothing left the page cache.
        parts << i18ncp("@info", "Nothing was evicted from %1 file.", "Nothing was evicted from %1 files.", qulonglong(knownFiles));
    } else if (knownFiles > 0) {
        parts << i18ncp("@info",
                        "Evicted %1 file: none of it was in the page cache, so nothing was freed.",
                        "Evicted %1 files: none of them was in the page cache, so nothing was freed.",
                        qulonglong(knownFiles));
        message.type = KMessageWidget::Information;
    }
    if (!stayed.isEmpty()) {
        parts << i18nc("@info followed by a list of reasons", "Stayed: %1.", stayed.join(QStringLiteral("; ")));
        message.type = KMessageWidget::Warning;
    }
    if (hiddenFiles > 0) {
        // Evicted all the same (fadvise works on what one may read); only the amount is hidden.
        parts << (knownFiles > 0 ? i18ncp("@info",
                                          "%1 more file was evicted too, but the kernel hides its page cache from you: what that freed is hidden.",
                                          "%1 more files were evicted too, but the kernel hides their page cache from you: what that freed is hidden.",
                                          qulonglong(hiddenFiles))
                                 : i18ncp("@info",
                                          "Evicted %1 file from the page cache. The kernel hides its page cache from you: what that freed is hidden.",
                                          "Evicted %1 files from the page cache. The kernel hides their page cache from you: what that freed is hidden.",
                                          qulonglong(hiddenFiles)));
        if (knownFiles == 0) {
            message.type = KMessageWidget::Information;
        }
    }
    if (s.errors > 0) {
        parts << i18ncp("@info",
                        "%1 file could not be evicted: %2",
                        "%1 files could not be evicted, the first: %2",
                        qulonglong(s.errors),
                        QString::fromStdString(s.firstError));
        message.type = s.total.files == 0 ? KMessageWidget::Error : KMessageWidget::Warning;
    }
    if (job.wasCancelled()) {
        parts << i18nc("@info", "Cancelled before the end.");
        message.type = message.type == KMessageWidget::Positive ? KMessageWidget::Information : message.type;
    }
    message.text = parts.join(QLatin1Char(' '));
    return message;
}

FilesMessage FilesJobReport::savedSnapshot(const FilesJob &job)
{
    const SnapshotSummary &s = job.snapshot;
    const QString file = displayPath(job.snapshotFile);
    FilesMessage message;
    if (job.wasCancelled()) {
        message.text = i18nc("@info %1 a file path", "Saving the snapshot was cancelled: %1 was not written.", file);
        message.type = KMessageWidget::Information;
        return message;
    }
    if (!s.fileError.empty()) {
        message.text = i18nc("@info %1 a file path, %2 the reason", "Cannot save the snapshot to %1: %2", file, QString::fromStdString(s.fileError));
        message.type = KMessageWidget::Error;
        return message;
    }
    QStringList parts;
    parts << i18ncp("@info %2 the amount cached, %3 a file path",
                    "Saved a snapshot of %1 file (%2 cached) to %3.",
                    "Saved a snapshot of %1 files (%2 cached) to %3.",
                    qulonglong(s.files),
                    bytesText(s.residentPages * s.pageSize),
                    file);
    if (s.problems > 0) {
        parts << i18ncp("@info",
                        "%1 file is not in it: %2",
                        "%1 files are not in it, the first: %2",
                        qulonglong(s.problems),
                        QString::fromStdString(s.firstProblem));
        message.type = KMessageWidget::Warning;
    }
    message.text = parts.join(QLatin1Char(' '));
    return message;
}

FilesMessage FilesJobReport::notCompared(const FilesJob &job)
{
    const SnapshotSummary &s = job.snapshot;
    const QString file = displayPath(job.snapshotFile);
    FilesMessage message;
    message.type = KMessageWidget::Error;
    if (!s.fileError.empty()) {
        message.text = i18nc("@info %1 a file path, %2 the reason", "Cannot read the snapshot %1: %2", file, QString::fromStdString(s.fileError));
    } else if (s.otherPageSize) {
        message.text = i18nc("@info %1 a file path, %2 and %3 sizes",
                             "Cannot compare with the snapshot %1: it was taken where pages are %2, and here they are %3.",
                             file,
                             bytesText(s.pageSize),
                             bytesText(pageSize()));
    } else {
        message.text = i18nc("@info", "Comparing with the snapshot was cancelled.");
        message.type = KMessageWidget::Information;
    }
    return message;
}

FilesMessage FilesJobReport::restoredSnapshot(const FilesJob &job)
{
    const SnapshotSummary &s = job.snapshot;
    const RestoreReport &r = s.restore;
    const QString file = displayPath(job.snapshotFile);
    FilesMessage message;
    if (!s.fileError.empty()) {
        message.text = i18nc("@info %1 a file path, %2 the reason", "Cannot read the snapshot %1: %2", file, QString::fromStdString(s.fileError));
        message.type = KMessageWidget::Error;
        return message;
    }
    if (job.wasCancelled() && r.filesRestored == 0) {
        message.text = i18nc("@info %1 a file path", "Restoring the snapshot %1 was cancelled before a file was done: what was loaded stays cached.", file);
        message.type = KMessageWidget::Information;
        return message;
    }
    QStringList parts;
    if (r.filesRestored == 0 && r.skipped.empty()) {
        parts << i18nc("@info %1 a file path", "Nothing to restore: the snapshot %1 records no cached pages.", file);
        message.type = KMessageWidget::Information;
    } else if (r.filesRestored > 0 || r.skipped.empty()) {
        // What is cached now, measured after the load: not what was asked for.
        parts << i18ncp("@info %2 a file path, %3 of %4 pages, %5 their size",
                        "Restored %1 file from %2: %3 of its %4 recorded pages are cached now (%5).",
                        "Restored %1 files from %2: %3 of their %4 recorded pages are cached now (%5).",
                        qulonglong(r.filesRestored),
                        file,
                        QLocale().toString(qulonglong(r.pagesResidentAfter)),
                        QLocale().toString(qulonglong(r.pagesRequested)),
                        bytesText(r.pagesResidentAfter * pageSize()));
        if (r.pagesResidentAfter < r.pagesRequested) {
            message.type = KMessageWidget::Information;
        }
    }
    if (!r.skipped.empty()) {
        const RestoreProblem &first = r.skipped.front();
        parts << i18ncp("@info %2 a file path, %3 the reason",
                        "%1 file was skipped: %2: %3",
                        "%1 files were skipped, the first: %2: %3",
                        qulonglong(r.skipped.size()),
                        displayPath(first.path),
                        QString::fromStdString(first.reason));
        message.type = r.filesRestored == 0 ? KMessageWidget::Error : KMessageWidget::Warning;
    }
    if (job.wasCancelled()) {
        parts << i18nc("@info", "Cancelled before the end: what was restored stays cached.");
        message.type = message.type == KMessageWidget::Positive ? KMessageWidget::Information : message.type;
    }
    message.text = parts.join(QLatin1Char(' '));
    return message;
}

QString FilesJobReport::comparing(const SnapshotComparison &comparison, const SnapshotSummary &summary)
{
    const uint64_t page = pageSize();
    const QDateTime taken = comparison.takenAt();
    const QString file = QFileInfo(displayPath(comparison.file())).fileName(); // the bar's tooltip has the path
    QStringList parts;
    if (taken.isValid()) {
        parts << i18nc("@info %1 a file path, %2 a date and time",
                       "Comparing with the snapshot %1 of %2.",
                       file,
                       QLocale().toString(taken, QLocale::ShortFormat));
    } else {
        parts << i18nc("@info %1 a file path", "Comparing with the snapshot %1.", file);
    }
    if (comparison.loadedPages() == 0 && comparison.evictedPages() == 0) {
        parts << i18nc("@info", "Since then, no page of the list's files came into the page cache or went out.");
    } else {
        parts << i18nc("@info %1 and %2 amounts of memory",
                       "Since then, in the list's files: %1 came into the page cache, %2 went out.",
                       bytesText(comparison.loadedPages() * page),
                       bytesText(comparison.evictedPages() * page));
    }
    if (comparison.filesNotInList() > 0) {
        parts << i18ncp("@info",
                        "%1 file of the snapshot is not in the list.",
                        "%1 files of the snapshot are not in the list.",
                        qulonglong(comparison.filesNotInList()));
    }
    if (summary.problems > 0) {
        parts << i18ncp("@info",
                        "%1 file could not be read now: %2",
                        "%1 files could not be read now, the first: %2",
                        qulonglong(summary.problems),
                        QString::fromStdString(summary.firstProblem));
    }
    parts << i18nc("@info %1 a time", "Compared at %1.", QLocale().toString(comparison.comparedAt().time(), QLocale::ShortFormat));
    return parts.join(QLatin1Char(' '));
}

} // namespace Cachescope::App
