// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "snapshot.h"

#include <QDateTime>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace Cachescope::App
{

// What changed in the page cache of one row of the list since a snapshot.
struct SnapshotChange {
    // The row lies below what was compared; false for a row added since.
    bool compared = false;
    // Files: the snapshot records the file. Folders: a file below it.
    bool inSnapshot = false;
    // Files: recorded, but not found by the walk now (deleted, or not readable).
    bool goneNow = false;
    uint64_t loadedPages = 0; // cached now, not in the snapshot
    uint64_t evictedPages = 0; // cached in the snapshot, not now
};

// A snapshot compared with the page cache now, for the files and folders of
// the list (Compare with Snapshot): core's diffSnapshots() of the snapshot's
// files below the list's rows and a snapshot of those rows taken now, as
// `cachescope-cli snapshot diff` would compare them. Made on a worker
// thread, then read only on the UI thread.
class SnapshotComparison
{
public:
    // before: the snapshot as read from file (kept whole, to compare again);
    // now: takeSnapshot() of roots, just taken. Both in this computer's pages.
    SnapshotComparison(std::string file, std::shared_ptr<const Cachescope::Snapshot> before, const Cachescope::Snapshot &now, std::vector<std::string> roots);

    [[nodiscard]] const std::string &file() const
    {
        return m_file;
    }
    [[nodiscard]] const std::shared_ptr<const Cachescope::Snapshot> &before() const
    {
        return m_before;
    }
    [[nodiscard]] const std::vector<std::string> &roots() const
    {
        return m_roots;
    }
    [[nodiscard]] const QDateTime &comparedAt() const
    {
        return m_comparedAt;
    }
    // When the snapshot was taken, in local time (invalid if the file says no time).
    [[nodiscard]] QDateTime takenAt() const;
    // Of the files below the roots.
    [[nodiscard]] uint64_t loadedPages() const
    {
        return m_loadedPages;
    }
    [[nodiscard]] uint64_t evictedPages() const
    {
        return m_evictedPages;
    }
    // The snapshot's files that no row of the list holds.
    [[nodiscard]] uint64_t filesNotInList() const
    {
        return m_filesNotInList;
    }

    // A row's change; a folder's is the sum of its files'.
    [[nodiscard]] SnapshotChange change(const std::string &path, bool isDirectory) const;
    // The file's record in the snapshot, or null.
    [[nodiscard]] const Cachescope::SnapshotFile *recorded(const std::string &path) const;

private:
    std::string m_file;
    std::shared_ptr<const Cachescope::Snapshot> m_before;
    std::vector<std::string> m_roots;
    QDateTime m_comparedAt;
    std::vector<Cachescope::SnapshotFileDiff> m_diff; // sorted by path, only files that differ
    uint64_t m_loadedPages = 0;
    uint64_t m_evictedPages = 0;
    uint64_t m_filesNotInList = 0;
    mutable std::unordered_map<std::string, SnapshotChange> m_folders; // summed once asked
};

} // namespace Cachescope::App
