// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "filesjob.h"

#include <KMessageWidget>

#include <QString>

#include <cstdint>

namespace Cachescope::App
{

// A message about a job that has ended: what it says, how it is shown (a
// warning where pages stayed, never a green success for nothing freed), and
// whether it offers Flush and Evict for the job's paths (dirty pages stayed).
struct FilesMessage {
    QString text;
    KMessageWidget::MessageType type = KMessageWidget::Positive;
    bool offersFlushAndEvict = false;
};

// What the files panel tells the person about a job: the progress line while
// it runs, and the message when an eviction or a load has ended (what was
// freed or what is resident now, what stayed and why, what failed). Where the
// kernel hides a file's page cache, no figure stands for it.
class FilesJobReport
{
public:
    // "Evicting… 1,024 entries, 3.5 MiB"
    [[nodiscard]] static QString progress(FilesJob::Kind kind, uint64_t entries, uint64_t bytes);
    [[nodiscard]] static FilesMessage evicted(const FilesJob &job);
    [[nodiscard]] static FilesMessage loaded(const FilesJob &job);
    // Snapshots: where the file was saved and what it holds; why a snapshot
    // could not be compared (a comparison that worked shows in its own bar);
    // what a restore brought back and what it skipped.
    [[nodiscard]] static FilesMessage savedSnapshot(const FilesJob &job);
    [[nodiscard]] static FilesMessage notCompared(const FilesJob &job);
    [[nodiscard]] static FilesMessage restoredSnapshot(const FilesJob &job);
    // The compare bar: which snapshot, from when, what changed in the list.
    [[nodiscard]] static QString comparing(const SnapshotComparison &comparison, const SnapshotSummary &summary);
};

} // namespace Cachescope::App
