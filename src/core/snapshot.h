// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "walker.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <cstdint>
#include <mutex>
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
    [[nodiscard]] uint64_t residentPages() const;
};

struct Snapshot {
    uint64_t pageSize = 0;
    QString created; // ISO 8601, UTC
    std::vector<SnapshotFile> files; // sorted by path
    [[nodiscard]] uint64_t residentPages() const; // of every file, in the snapshot's pages
    // The file recorded under path, or null (binary search: files are sorted).
    [[nodiscard]] const SnapshotFile *find(const std::string &path) const;
};

class SnapshotControl;

// Resident ranges of every readable regular file under the roots. Hidden files
// are reported through problems and left out (we would only store a lie).
// With a control, another thread can follow the walk and cancel it; a
// cancelled snapshot is incomplete (control->isCancelled()) and not to be saved.
[[nodiscard]] Snapshot
takeSnapshot(const std::vector<std::string> &roots, WalkOptions options = {}, Walker::ProblemCallback problems = {}, SnapshotControl *control = nullptr);

// Follows and stops a takeSnapshot() running on another thread (the window's
// Save Snapshot and Compare with Snapshot).
class SnapshotControl
{
public:
    // Any thread, any time, also before the walk starts: it stops soon.
    void cancel();
    [[nodiscard]] bool isCancelled() const;
    // Of the walk under way, or of the last one once it has ended.
    [[nodiscard]] uint64_t entriesSeen() const;
    [[nodiscard]] uint64_t bytesSeen() const;

private:
    friend Snapshot takeSnapshot(const std::vector<std::string> &, WalkOptions, Walker::ProblemCallback, SnapshotControl *);
    void attach(Walker *walker);
    void detach();

    mutable std::mutex m_mutex;
    Walker *m_walker = nullptr;
    std::atomic<bool> m_cancelled{false};
    uint64_t m_entries = 0;
    uint64_t m_bytes = 0;
};

[[nodiscard]] QByteArray snapshotToJson(const Snapshot &snapshot);
[[nodiscard]] std::optional<Snapshot> snapshotFromJson(const QByteArray &json, QString *error = nullptr);

// Reads and checks a snapshot file. Nothing when it cannot, and *error says
// why, for people: the system's reason ("No such file or directory"), "not a
// regular file", or "not a Cachescope snapshot: " and what is wrong in it.
[[nodiscard]] std::optional<Snapshot> readSnapshotFile(const std::string &path, std::string *error = nullptr);
// Writes the snapshot to path (snapshotToJson) through a file beside it that
// is renamed into place: an interrupted save never leaves half a snapshot.
// False, with *error ("cannot write: No space left on device"), when it fails.
[[nodiscard]] bool writeSnapshotFile(const std::string &path, const Snapshot &snapshot, std::string *error = nullptr);

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

// How far a restore running on another thread has got.
struct RestoreProgress {
    // Of the snapshot's recorded ranges (recordedBytes()): gone through so
    // far, loaded, found resident or skipped.
    std::atomic<uint64_t> bytesDone{0};
    std::atomic<uint64_t> filesDone{0};
};

// The bytes of every recorded range: what a restore goes through.
[[nodiscard]] uint64_t recordedBytes(const Snapshot &snapshot);

struct RestoreReport {
    uint64_t filesRestored = 0;
    uint64_t pagesRequested = 0;
    uint64_t pagesResidentAfter = 0; // of the requested ranges
    std::vector<RestoreProblem> skipped;
    bool cancelled = false;
};

// Loads exactly the recorded ranges back, skipping files whose size or mtime changed.
[[nodiscard]] RestoreReport restoreSnapshot(const Snapshot &snapshot, const std::atomic<bool> *cancel = nullptr, RestoreProgress *progress = nullptr);

} // namespace Cachescope
