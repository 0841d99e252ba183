// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "cachemap.h"

#include <algorithm>
#include <tuple>

namespace Cachescope
{

namespace
{
std::string_view parentOf(std::string_view path)
{
    const size_t slash = path.find_last_of('/');
    if (slash == std::string_view::npos) {
        return {};
    }
    return slash == 0 ? path.substr(0, 1) : path.substr(0, slash);
}
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
    // One call a folder, when it has been listed, with its files' totals.
    options.reportDirectories = false;
    options.folderTotals = true;
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

// The folder of path, made (with the parents it lacks) when it is new.
// Folders come when they have been listed, so a subfolder often comes before
// the folder it is in: that one is made here from the path, and its device
// comes with its own call. depth 0 is a root.
uint32_t CacheMapBuilder::folderLocked(std::string_view path, int root, int depth, uint64_t device)
{
    if (const auto found = m_index.find(path); found != m_index.end()) {
        CacheMapFolder &folder = m_folders[found->second];
        if (folder.device == 0) {
            folder.device = device;
        }
        return found->second;
    }
    uint32_t parent = CacheMapFolder::NoParent;
    if (depth > 0) {
        const std::string_view up = parentOf(path);
        if (!up.empty() && up != path) {
            parent = folderLocked(up, root, depth - 1, 0);
        }
    }
    const auto index = uint32_t(m_folders.size());
    CacheMapFolder &folder = m_folders.emplace_back();
    folder.path = std::string(path);
    folder.parent = parent;
    folder.root = root;
    folder.device = device;
    if (parent != CacheMapFolder::NoParent) {
        ++m_folders[parent].own.folders;
    } else {
        m_roots.push_back(index);
    }
    m_index.emplace(std::string_view(folder.path), index);
    return index;
}

void CacheMapBuilder::add(const WalkEntry &entry)
{
    // Folders come whole through addFolder(); walkOptions() asks for no folder entries.
    if (entry.kind != EntryKind::File || !entry.firstLink) {
        return;
    }
    // A root that is a file stands in a folder of its own name; a file in a
    // folder comes here only from a walk without folderTotals.
    FolderFiles single;
    single.addFile(entry.size, entry.residency);
    std::lock_guard lock(m_mutex);
    const bool isRoot = entry.directory.empty();
    m_folders[folderLocked(isRoot ? entry.name : entry.directory, entry.root, isRoot ? 0 : entry.depth - 1, 0)].own.addFiles(single);
}

void CacheMapBuilder::addFolder(const WalkFolder &folder)
{
    std::lock_guard lock(m_mutex);
    CacheMapFolder &made = m_folders[folderLocked(folder.path, folder.root, folder.depth, folder.device)];
    made.own.addFiles(folder.files);
    // The problems met while it was listed came before it did.
    if (!m_pendingProblems.empty()) {
        if (const auto pending = m_pendingProblems.find(made.path); pending != m_pendingProblems.end()) {
            made.own.problems += pending->second;
            m_pendingProblems.erase(pending);
        }
    }
}

void CacheMapBuilder::addProblem(const WalkProblem &problem)
{
    std::lock_guard lock(m_mutex);
    // A folder that could not be read is counted in itself; anything else in
    // its folder. That folder is often not here yet (a folder comes once it
    // has been listed, and the problems come while it is): the count waits
    // for it, one entry a folder, not one a problem.
    const std::string_view where = problem.kind == EntryKind::Directory ? std::string_view(problem.path) : parentOf(problem.path);
    if (const auto found = m_index.find(where); found != m_index.end()) {
        ++m_folders[found->second].own.problems;
    } else if (const auto pending = m_pendingProblems.find(where); pending != m_pendingProblems.end()) {
        ++pending->second;
    } else {
        m_pendingProblems.emplace(std::string(where), 1);
    }
}

CacheMapTree CacheMapBuilder::snapshot(bool complete) const
{
    CacheMapTree tree;
    FolderCounts problems;
    {
        // The walkers wait while this copies: only the copy and the
        // problems' lookups are done here, the rest after.
        std::lock_guard lock(m_mutex);
        tree.folders.assign(m_folders.begin(), m_folders.end());
        tree.roots = m_roots;
        problems = pendingProblemsLocked();
    }
    tree.complete = complete;
    finishTree(tree, problems);
    return tree;
}

CacheMapTree CacheMapBuilder::take(bool complete)
{
    CacheMapTree tree;
    FolderCounts problems;
    {
        std::lock_guard lock(m_mutex);
        // Looked up before the move: m_index views the paths' text, which
        // for a short path lives in the string object moved from.
        problems = pendingProblemsLocked();
        tree.folders.assign(std::make_move_iterator(m_folders.begin()), std::make_move_iterator(m_folders.end()));
        tree.roots = std::move(m_roots);
        m_index.clear();
        m_pendingProblems.clear();
        m_folders.clear();
        m_roots.clear();
    }
    tree.complete = complete;
    finishTree(tree, problems);
    return tree;
}

CacheMapBuilder::FolderCounts CacheMapBuilder::pendingProblemsLocked() const
{
    // Still waiting: the walk goes on, or a folder that could not be
    // opened never came (its problems count in the folder it is in).
    FolderCounts counts;
    for (const auto &[path, count] : m_pendingProblems) {
        auto found = m_index.find(path);
        if (found == m_index.end()) {
            found = m_index.find(parentOf(path));
        }
        if (found != m_index.end()) {
            counts.emplace_back(found->second, count);
        }
    }
    return counts;
}

void CacheMapBuilder::finishTree(CacheMapTree &tree, const FolderCounts &problems)
{
    for (const auto &[folder, count] : problems) {
        tree.folders[folder].own.problems += count;
    }
    for (CacheMapFolder &folder : tree.folders) {
        folder.tree = folder.own;
        if (folder.parent != CacheMapFolder::NoParent) {
            const uint64_t up = tree.folders[folder.parent].device;
            folder.mountPoint = folder.device != 0 && up != 0 && folder.device != up;
        }
    }
    // Parents come before their children: one pass from the end adds each
    // folder's tree into its parent's and lists it there.
    for (size_t i = tree.folders.size(); i-- > 0;) {
        CacheMapFolder &folder = tree.folders[i];
        if (folder.parent != CacheMapFolder::NoParent) {
            CacheMapFolder &parent = tree.folders[folder.parent];
            parent.tree.add(folder.tree);
            parent.children.push_back(uint32_t(i));
        }
    }
    for (CacheMapFolder &folder : tree.folders) {
        // Most resident first; equal ones by path, so that every run shows the same order.
        std::sort(folder.children.begin(), folder.children.end(), [&tree](uint32_t a, uint32_t b) {
            const CacheMapFolder &x = tree.folders[a];
            const CacheMapFolder &y = tree.folders[b];
            return std::tie(y.tree.resident, x.path) < std::tie(x.tree.resident, y.path);
        });
    }
    for (uint32_t root : tree.roots) {
        tree.total.add(tree.folders[root].tree);
    }
}

size_t CacheMapBuilder::folderCount() const
{
    std::lock_guard lock(m_mutex);
    return m_folders.size();
}

size_t CacheMapBuilder::memoryBytes() const
{
    std::lock_guard lock(m_mutex);
    size_t bytes = m_folders.size() * (sizeof(CacheMapFolder) + sizeof(std::pair<std::string_view, uint32_t>) + 2 * sizeof(void *));
    for (const CacheMapFolder &folder : m_folders) {
        if (folder.path.capacity() > 15) { // beyond the string's own small buffer
            bytes += folder.path.capacity() + 1;
        }
    }
    return bytes + m_index.bucket_count() * sizeof(void *);
}

CacheMapResult mapCache(const std::vector<std::string> &roots, WalkOptions options, Walker::ProblemCallback problems)
{
    CacheMapBuilder builder;
    Walker walker(CacheMapBuilder::walkOptions(options));
    builder.attach(walker, std::move(problems));
    CacheMapResult result;
    result.walk = walker.walk(roots);
    result.tree = builder.take(!result.walk.cancelled);
    return result;
}

} // namespace Cachescope
