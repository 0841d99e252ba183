// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "cachemap.h"

#include <algorithm>
#include <tuple>

namespace Cachescope
{

namespace
{
// CacheMapFolder::root of a number handed out whose folder has not come yet.
constexpr int absentRoot = -1;
} // namespace

void FolderTotals::add(const FolderTotals &other)
{
    files += other.files;
    folders += other.folders;
    bytes += other.bytes;
    pages += other.pages;
    resident += other.resident;
    dirty += other.dirty;
    hiddenFiles += other.hiddenFiles;
    hiddenBytes += other.hiddenBytes;
    problems += other.problems;
    foldersNotEntered += other.foldersNotEntered;
    mountsCountedElsewhere += other.mountsCountedElsewhere;
}

void FolderTotals::addFiles(const FolderFiles &f)
{
    files += f.files;
    bytes += f.bytes;
    pages += f.knownPages;
    resident += f.resident;
    dirty += f.dirty;
    hiddenFiles += f.hiddenFiles;
    hiddenBytes += f.hiddenBytes;
}

std::string_view CacheMapFolder::name() const
{
    if (parent == NoParent || path == "/") {
        return path;
    }
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string_view(path) : std::string_view(path).substr(slash + 1);
}

const CacheMapFolder *CacheMapTree::find(std::string_view path) const
{
    for (const CacheMapFolder &folder : folders) {
        if (folder.path == path) {
            return &folder;
        }
    }
    return nullptr;
}

CacheMapBuilder::CacheMapBuilder() = default;
CacheMapBuilder::~CacheMapBuilder() = default;

WalkOptions CacheMapBuilder::walkOptions(WalkOptions options)
{
    // A map reads residency and changes nothing, whatever the caller set.
    options.action = FileAction::Residency;
    options.histogramBuckets = 0;
    // Two calls a folder, opened and listed (with its files' totals).
    options.reportDirectories = false;
    options.folderTotals = true;
    // A page shown by a bind mount or an overlay as well is counted once.
    options.countMountsOnce = true;
    return options;
}

void CacheMapBuilder::attach(Walker &walker, Walker::ProblemCallback problems)
{
    walker.setEntryCallback([this](const WalkEntry &entry) {
        add(entry);
    });
    walker.setFolderCallback([this](const WalkFolder &folder) {
        addFolder(folder);
    });
    walker.setProblemCallback([this, problems = std::move(problems)](const WalkProblem &problem) {
        addProblem(problem);
        if (problems) {
            problems(problem);
        }
    });
}

void CacheMapBuilder::add(const WalkEntry &entry)
{
    // Files in folders come added up through addFolder() (walkOptions()):
    // only a file named as a root comes here, and stands in a folder of its own name.
    if (entry.kind != EntryKind::File || !entry.firstLink || !entry.directory.empty()) {
        return;
    }
    Slot folder;
    folder.path = std::string(entry.name);
    folder.root = entry.root;
    folder.device = entry.device;
    FolderFiles single;
    single.addFile(entry.size, entry.residency);
    folder.own.addFiles(single);
    std::lock_guard lock(m_mutex);
    m_fileRoots.push_back(std::move(folder));
}

void CacheMapBuilder::addFolder(const WalkFolder &folder)
{
    if (folder.id == WalkFolder::None) {
        return;
    }
    if (folder.listed) {
        std::lock_guard lock(m_mutex);
        if (folder.id < m_folders.size()) {
            m_folders[folder.id].own.addFiles(folder.files);
        }
        return;
    }
    // Opened: the path is copied before the lock is taken.
    std::string path(folder.path);
    std::lock_guard lock(m_mutex);
    if (folder.id >= m_folders.size()) {
        const size_t before = m_folders.size();
        m_folders.resize(size_t(folder.id) + 1);
        // Numbers below this one that have not come yet: another thread is opening them.
        for (size_t i = before; i < folder.id; ++i) {
            m_folders[i].root = absentRoot;
            ++m_absent;
        }
    } else if (m_folders[folder.id].root == absentRoot) {
        --m_absent;
    }
    Slot &made = m_folders[folder.id];
    made.path = std::move(path);
    made.root = folder.root;
    made.device = folder.device;
    made.own.foldersNotEntered = folder.noPageCache ? 1 : 0;
    if (folder.countedAt) {
        m_aliases.push_back(Alias{folder.id, *folder.countedAt});
    }
    // Its parent was opened (and numbered) before this folder was found.
    if (folder.parent != WalkFolder::None && folder.parent < m_folders.size()) {
        made.parent = folder.parent;
        ++m_folders[folder.parent].own.folders;
    }
}

void CacheMapBuilder::addProblem(const WalkProblem &problem)
{
    // Counted in the folder being listed (a folder that could not be opened
    // counts in its parent); a root's own problem belongs to no folder.
    if (problem.folder == WalkFolder::None) {
        return;
    }
    std::lock_guard lock(m_mutex);
    if (problem.folder < m_folders.size()) {
        ++m_folders[problem.folder].own.problems;
    }
}

CacheMapTree CacheMapBuilder::snapshot(bool complete) const
{
    std::vector<Slot> slots;
    std::vector<Slot> fileRoots;
    std::vector<Alias> aliases;
    {
        // The walkers wait while this copies: only the copy is done here, the rest after.
        std::lock_guard lock(m_mutex);
        slots = m_folders;
        fileRoots = m_fileRoots;
        aliases = m_aliases;
    }
    return treeOf(std::move(slots), std::move(fileRoots), std::move(aliases), complete);
}

CacheMapTree CacheMapBuilder::take(bool complete)
{
    std::vector<Slot> slots;
    std::vector<Slot> fileRoots;
    std::vector<Alias> aliases;
    {
        std::lock_guard lock(m_mutex);
        slots = std::exchange(m_folders, {});
        fileRoots = std::exchange(m_fileRoots, {});
        aliases = std::exchange(m_aliases, {});
        m_absent = 0;
    }
    return treeOf(std::move(slots), std::move(fileRoots), std::move(aliases), complete);
}

CacheMapTree CacheMapBuilder::treeOf(std::vector<Slot> slots, std::vector<Slot> fileRoots, std::vector<Alias> aliases, bool complete)
{
    CacheMapTree tree;
    tree.complete = complete;
    std::vector<CacheMapFolder> &folders = tree.folders;
    folders.reserve(slots.size() + fileRoots.size());
    // A folder is numbered before its opened call, so another thread's later
    // number can come first: the gaps are closed here. A folder that is here
    // has its parent here (a parent is opened before its subfolders are found).
    std::vector<uint32_t> moved(slots.size(), CacheMapFolder::NoParent);
    const auto keep = [&folders](Slot &slot, uint32_t parent) {
        CacheMapFolder &folder = folders.emplace_back();
        folder.path = std::move(slot.path);
        folder.parent = parent;
        folder.root = slot.root;
        folder.device = slot.device;
        folder.own = slot.own;
        folder.noPageCache = slot.own.foldersNotEntered > 0;
        folder.own.foldersNotEntered = 0; // counted in `tree` only
    };
    for (size_t i = 0; i < slots.size(); ++i) {
        Slot &slot = slots[i];
        if (slot.root == absentRoot) {
            continue;
        }
        moved[i] = uint32_t(folders.size());
        keep(slot, slot.parent == CacheMapFolder::NoParent ? CacheMapFolder::NoParent : moved[slot.parent]);
    }
    for (Slot &file : fileRoots) {
        keep(file, CacheMapFolder::NoParent);
    }
    for (Alias &alias : aliases) {
        if (alias.folder < moved.size() && moved[alias.folder] != CacheMapFolder::NoParent) {
            CacheMapFolder &folder = folders[moved[alias.folder]];
            folder.countedAt = std::move(alias.alias.countedAt);
            folder.countedAtKind = alias.alias.kind;
        }
    }
    for (CacheMapFolder &folder : folders) {
        const bool countedElsewhere = !folder.countedAt.empty();
        folder.tree = folder.own;
        folder.tree.foldersNotEntered = folder.noPageCache ? 1 : 0;
        folder.tree.mountsCountedElsewhere = countedElsewhere ? 1 : 0;
        if (folder.parent != CacheMapFolder::NoParent) {
            const uint64_t up = folders[folder.parent].device;
            // A bind mount of the same file system shows the same device.
            folder.mountPoint = (folder.device != 0 && up != 0 && folder.device != up) || countedElsewhere;
        }
    }
    // Parents come before their children: one pass from the end adds each
    // folder's tree into its parent's and lists it there.
    for (size_t i = folders.size(); i-- > 0;) {
        CacheMapFolder &folder = folders[i];
        if (folder.parent != CacheMapFolder::NoParent) {
            CacheMapFolder &parent = folders[folder.parent];
            parent.tree.add(folder.tree);
            parent.children.push_back(uint32_t(i));
        } else {
            tree.roots.push_back(uint32_t(i));
        }
    }
    for (CacheMapFolder &folder : folders) {
        // Most resident first; equal ones by path, so that every run shows the same order.
        std::sort(folder.children.begin(), folder.children.end(), [&folders](uint32_t a, uint32_t b) {
            const CacheMapFolder &x = folders[a];
            const CacheMapFolder &y = folders[b];
            return std::tie(y.tree.resident, x.path) < std::tie(x.tree.resident, y.path);
        });
    }
    // In the order the roots were given (each root's folder, or the file named as it).
    std::sort(tree.roots.begin(), tree.roots.end(), [&folders](uint32_t a, uint32_t b) {
        return std::tie(folders[a].root, a) < std::tie(folders[b].root, b);
    });
    for (uint32_t root : tree.roots) {
        tree.total.add(folders[root].tree);
    }
    return tree;
}

size_t CacheMapBuilder::folderCount() const
{
    std::lock_guard lock(m_mutex);
    return m_folders.size() - m_absent + m_fileRoots.size();
}

size_t CacheMapBuilder::memoryBytes() const
{
    std::lock_guard lock(m_mutex);
    size_t bytes = (m_folders.capacity() + m_fileRoots.capacity()) * sizeof(Slot);
    for (const std::vector<Slot> *list : {&m_folders, &m_fileRoots}) {
        for (const Slot &folder : *list) {
            if (folder.path.capacity() > 15) { // beyond the string's own small buffer
                bytes += folder.path.capacity() + 1;
            }
        }
    }
    return bytes;
}

CacheMapResult mapCache(const std::vector<std::string> &roots, WalkOptions options, Walker::ProblemCallback problems)
{
    CacheMapBuilder builder;
    Walker walker(CacheMapBuilder::walkOptions(std::move(options)));
    builder.attach(walker, std::move(problems));
    CacheMapResult result;
    result.walk = walker.walk(roots);
    result.tree = builder.take(!result.walk.cancelled);
    return result;
}

} // namespace Cachescope
