// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "walker.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace Cachescope
{

struct SnapshotFile {
    std::string path; // bytes
    uint64_t size = 0;
    int64_t mtimeNs = 0;
    std::vector<PageRange> ranges; // resident pages
};

struct Snapshot {
    uint64_t pageSize = 0;
    QString created; // ISO 8601, UTC
    std::vector<SnapshotFile> files; // sorted by path
};

// Resident ranges of every readable regular file under the roots. Hidden files
// are reported through problems and left out (we would only store a lie).
[[nodiscard]] Snapshot takeSnapshot(const std::vector<std::string> &roots, WalkOptions options = {}, Walker::ProblemCallback problems = {});

[[nodiscard]] QByteArray snapshotToJson(const Snapshot &snapshot);
[[nodiscard]] std::optional<Snapshot> snapshotFromJson(const QByteArray &json, QString *error = nullptr);

struct SnapshotFileDiff {
    std::string path;
    std::vector<PageRange> loaded; // resident in the second, not in the first
    std::vector<PageRange> evicted; // resident in the first, not in the second
    bool onlyInFirst = false;
    bool onlyInSecond = false;
    [[nodiscard]] uint64_t loadedPages() const;
    [[nodiscard]] uint64_t evictedPages() const;
};

struct SnapshotDiff {
    std::vector<SnapshotFileDiff> files; // only files that differ
    uint64_t loadedPages = 0;
    uint64_t evictedPages = 0;
};

[[nodiscard]] SnapshotDiff diffSnapshots(const Snapshot &first, const Snapshot &second);

struct RestoreProblem {
    std::string path;
    std::string reason; // "changed since the snapshot (size or mtime)", "No such file or directory", ...
};

struct RestoreReport {
    uint64_t filesRestored = 0;
    uint64_t pagesRequested = 0;
    uint64_t pagesResidentAfter = 0; // of the requested ranges
    std::vector<RestoreProblem> skipped;
    bool cancelled = false;
};

// Loads exactly the recorded ranges back, skipping files whose size or mtime changed.
[[nodiscard]] RestoreReport restoreSnapshot(const Snapshot &snapshot, const std::atomic<bool> *cancel = nullptr);

} // namespace Cachescope
