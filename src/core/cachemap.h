// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The cache map: how much of the page cache each folder of a tree holds,
// built from the streaming walker. One record a folder, none a file, so that
// memory grows with the number of folders (a few hundred bytes each), not
// with the number of files. The window draws it while the walk goes on; the
// CLI prints it (cachescope-cli map).

#include "walker.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace Cachescope
{

struct FolderTotals {
    uint64_t files = 0; // regular files, each inode once
    uint64_t folders = 0; // subfolders (in `own`: the direct ones)
    uint64_t bytes = 0; // file sizes
    uint64_t pages = 0; // file pages of the files whose residency is known
    uint64_t resident = 0; // resident pages of those files
    uint64_t dirty = 0;
    // Files whose residency the kernel hides from this user: counted here,
    // never in pages or resident (their sizes are in bytes).
    uint64_t hiddenFiles = 0;
    uint64_t hiddenBytes = 0;
    uint64_t problems = 0; // entries that failed or were skipped
    // Mount points of file systems that keep no page cache, named but not
    // walked (WalkOptions::skipNoPageCache): in `tree` only, such a folder
    // counting itself; 0 in `own`.
    uint64_t foldersNotEntered = 0;
    // Mount points whose files are counted at another path of the map, not
    // walked (WalkOptions::countMountsOnce): in `tree` only, as foldersNotEntered.
    uint64_t mountsCountedElsewhere = 0;

    void add(const FolderTotals &other);
    void addFiles(const FolderFiles &files);
    [[nodiscard]] bool operator==(const FolderTotals &other) const = default;
};

struct CacheMapFolder {
    static constexpr uint32_t NoParent = UINT32_MAX;

    std::string path; // as the walker names it: the root as given, then joined names
    uint32_t parent = NoParent; // index in CacheMapTree::folders; NoParent for a root
    int root = 0; // index into the roots given to the walk
    uint64_t device = 0;
    // On another file system than its parent (or the root's own device): a mount point.
    bool mountPoint = false;
    // On a file system that keeps no page cache, not walked (WalkOptions::skipNoPageCache).
    bool noPageCache = false;
    // A bind mount of a folder counted at countedAt, an overlay whose layers
    // are counted there, or a root of the map met again: not walked
    // (WalkOptions::countMountsOnce), and marked as a mount point.
    std::vector<std::string> countedAt;
    MountAlias::Kind countedAtKind = MountAlias::Kind::BindMount;
    FolderTotals own; // the files directly in this folder
    FolderTotals tree; // own plus every subfolder's (CacheMapTree only)
    std::vector<uint32_t> children; // most resident first (CacheMapTree only)

    // The last component of path ("/" for "/"; the path itself for a root).
    [[nodiscard]] std::string_view name() const;
};

// A copy of the map at one moment: folders in creation order (every parent
// before its children), tree totals and children filled in.
struct CacheMapTree {
    std::vector<CacheMapFolder> folders;
    std::vector<uint32_t> roots; // indices of the roots' folders, in the order given
    FolderTotals total; // every root's tree
    bool complete = false; // the walk ended (not cancelled)

    [[nodiscard]] const CacheMapFolder *find(std::string_view path) const;
};

// Collects a walk's folders into a map. add(), addFolder() and addProblem()
// are called from the walker's threads; snapshot() from any thread, at any
// time. The walker adds up each folder's files itself
// (WalkOptions::folderTotals), numbers the folders as it opens them and hands
// over each one twice: opened, and then listed with its files' totals. The
// builder keeps a folder at its number, so that nothing is looked up by path:
// the lock is taken twice a folder, never once a file, for a few stores,
// and a map costs the walk almost nothing beyond status -r.
class CacheMapBuilder
{
public:
    CacheMapBuilder();
    ~CacheMapBuilder();
    CacheMapBuilder(const CacheMapBuilder &) = delete;
    CacheMapBuilder &operator=(const CacheMapBuilder &) = delete;

    // Wires the walker's callbacks to this builder (and to problems, when set,
    // for the caller's own report). The walker must run with walkOptions(),
    // and walk once: a builder keeps folders at one walk's numbers.
    void attach(Walker &walker, Walker::ProblemCallback problems = {});
    // Folders opened and listed, with their files' totals.
    [[nodiscard]] static WalkOptions walkOptions(WalkOptions options);

    // A file named as a root (it stands in a folder of its own name).
    void add(const WalkEntry &entry);
    void addFolder(const WalkFolder &folder);
    void addProblem(const WalkProblem &problem);

    [[nodiscard]] CacheMapTree snapshot(bool complete = false) const;
    // The map once the walk has ended, its folders moved out rather than
    // copied: the builder holds no folder afterwards.
    [[nodiscard]] CacheMapTree take(bool complete);
    [[nodiscard]] size_t folderCount() const;
    // The bytes the builder holds for its folders (for the figures in the README).
    [[nodiscard]] size_t memoryBytes() const;

private:
    // What the builder keeps of a folder: half a CacheMapFolder (no tree
    // totals, no children), so that the walk's copies and memory stay small.
    struct Slot {
        std::string path;
        uint32_t parent = CacheMapFolder::NoParent;
        int root = 0; // -1: a number handed out whose opened call has not come yet
        uint64_t device = 0;
        // own.foldersNotEntered is 1 for a folder not walked (WalkFolder::noPageCache):
        // CacheMapFolder::noPageCache, not a bool of its own (8 more bytes a folder).
        FolderTotals own;
    };
    // The map of these slots: the numbers not come yet left out (a snapshot
    // in the middle of a walk), the files named as roots added, tree totals,
    // children, roots and the total filled in.
    // A folder not walked because its files are counted elsewhere (WalkFolder::countedAt), by its number.
    struct Alias {
        uint32_t folder = 0;
        MountAlias alias;
    };
    [[nodiscard]] static CacheMapTree treeOf(std::vector<Slot> slots, std::vector<Slot> fileRoots, std::vector<Alias> aliases, bool complete);

    mutable std::mutex m_mutex;
    std::vector<Slot> m_folders; // at the walk's numbers (WalkFolder::id)
    size_t m_absent = 0;
    std::vector<Slot> m_fileRoots;
    std::vector<Alias> m_aliases; // few: the bind mounts and overlays below the roots
};

struct CacheMapResult {
    CacheMapTree tree;
    WalkResult walk;
};

// Walks the roots and returns their map (residency only: nothing changes).
[[nodiscard]] CacheMapResult mapCache(const std::vector<std::string> &roots, WalkOptions options = {}, Walker::ProblemCallback problems = {});

} // namespace Cachescope
