// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "filesmodel.h"

#include <QtGlobal>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace Cachescope::App
{

// Milliseconds on the monotonic clock (CLOCK_MONOTONIC, as QElapsedTimer): ages
// of totals do not jump when the wall clock is set.
[[nodiscard]] qint64 monotonicNowMs();

// What one walk of a folder learned about its files, kept so that the live
// refresh can read their residency again (open, fstat, cachestat, close) without
// walking the folders again: a walk costs getdents64 and a stat for every
// entry and finds nothing new while the tree stays as it is. The totals of the
// folder and of its children (the FolderScan the model shows) are kept up to
// date file by file, so each number in them is at most one sweep old.
//
// A changed tree is noticed by its folders' modification times (a file made,
// removed or renamed), by a file that no longer opens or is another inode:
// then needsWalk() says the folder must be walked again.
class KeptTree
{
public:
    // Filled by the walk (FilesJob), on its threads, under its lock.
    void addDirectory(const std::string &path, int64_t mtimeNs);
    // child: the child of the root this file counts for (its name; the file's
    // own name for a file right in the root). countsInTotal: the first name of
    // its inode (hard links count once in the folder's total).
    void addFile(const std::string &path, std::string_view child, uint64_t inode, uint64_t device, bool countsInTotal, const Cachescope::Residency &residency);
    // At the end of the walk: the scan the totals start from, and when the walk began.
    void finish(const FolderScan &scan, qint64 walkStartedMs);

    [[nodiscard]] const FolderScan &scan() const
    {
        return m_scan;
    }
    [[nodiscard]] size_t fileCount() const
    {
        return m_files.size();
    }
    [[nodiscard]] size_t directoryCount() const
    {
        return m_directories.size();
    }
    // When the oldest number in the totals was read (the file the sweep reads next).
    [[nodiscard]] qint64 oldestReadMs() const;
    // Reads the next `count` files again, round robin. Returns how many were read.
    size_t rereadNext(size_t count);
    // Checks the next `count` folders' modification times, round robin.
    size_t checkNextDirectories(size_t count);
    // A reading of one of the tree's files made elsewhere (a row on show),
    // taken into the totals at once, so that a folder's total and its files'
    // rows agree while both are drawn. Ignored for a path the tree does not
    // hold or another inode. When it moved the resident pages, the others
    // may have moved too (a drop of caches, a folder read from a shell):
    // the sweep catches up (catchingUp()).
    void takeReading(std::string_view path, uint64_t inode, uint64_t device, const Cachescope::Residency &residency);
    [[nodiscard]] bool catchingUp() const
    {
        return m_catchUp > 0;
    }
    // The totals moved since the last takeChanged().
    [[nodiscard]] bool takeChanged();
    [[nodiscard]] bool needsWalk() const
    {
        return m_needsWalk;
    }

private:
    struct File {
        uint64_t inode = 0;
        uint64_t device = 0;
        uint64_t size = 0;
        uint64_t pages = 0;
        uint64_t resident = 0;
        uint64_t dirty = 0;
        qint64 readAtMs = 0;
        uint32_t pathOffset = 0;
        int32_t child = -1; // into m_scan.children after finish()
        bool countsInTotal = true;
        bool hidden = false;
        bool noAtime = false; // O_NOATIME is allowed (root or the owner)
    };
    struct Directory {
        uint32_t pathOffset = 0;
        int64_t mtimeNs = 0;
    };
    struct Contribution {
        uint64_t size = 0, pages = 0, resident = 0, dirty = 0, hiddenFiles = 0, hiddenPages = 0;
    };
    [[nodiscard]] static Contribution contributionOf(const File &file);
    [[nodiscard]] const char *pathAt(uint32_t offset) const
    {
        return m_paths.data() + offset;
    }
    uint32_t storePath(const std::string &path);
    void reread(File &file, qint64 now, int folderFd, const char *name);
    // The file's new figures into it, the totals and its child's hidden flag.
    // Returns whether its resident pages moved.
    bool update(File &file, const Cachescope::Residency &residency);
    void apply(const File &file, const Contribution &before, const Contribution &after);

    std::string m_paths; // every path, each ended by '\0'
    std::vector<File> m_files;
    std::vector<Directory> m_directories;
    std::unordered_map<std::string, int32_t> m_childIds; // while walking: child name to a provisional id
    std::vector<std::string> m_childNames;
    FolderScan m_scan;
    size_t m_cursor = 0;
    size_t m_directoryCursor = 0;
    size_t m_catchUp = 0; // files still to read before the sweep slows down again
    qint64 m_walkStartedMs = 0;
    bool m_changed = false;
    bool m_needsWalk = false;
};

} // namespace Cachescope::App
