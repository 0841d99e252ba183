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
    options.reportDirectories = true;
    return options;
}

void CacheMapBuilder::attach(Walker &walker, Walker::ProblemCallback problems)
{
    walker.setEntryCallback([this](const WalkEntry &entry) {
        add(entry);
    });
    walker.setProblemCallback([this, problems = std::move(problems)](const WalkProblem &problem) {
        addProblem(problem);
        if (problems) {
            problems(problem);
        }
    });
}

// The folder of path, made (with the parents it lacks) when it is new.
// The walker reports a folder before anything in it, so a parent made here
// from a path alone is the exception (its device stays unknown: 0).
uint32_t CacheMapBuilder::folderLocked(std::string_view path, int root, uint64_t device)
{
    if (const auto found = m_index.find(path); found != m_index.end()) {
        CacheMapFolder &folder = m_folders[found->second];
        if (folder.device == 0) {
            folder.device = device;
        }
        return found->second;
    }
    uint32_t parent = CacheMapFolder::NoParent;
    const bool isRoot = std::find_if(m_roots.begin(),
                                     m_roots.end(),
                                     [&](uint32_t index) {
                                         return m_folders[index].root == root;
                                     })
        == m_roots.end();
    if (!isRoot) {
        const std::string_view up = parentOf(path);
        if (!up.empty() && up != path) {
            parent = folderLocked(up, root, 0);
        }
    }
    const auto index = uint32_t(m_folders.size());
    CacheMapFolder &folder = m_folders.emplace_back();
    folder.path = std::string(path);
    folder.parent = parent;
    folder.root = root;
    folder.device = device;
    if (parent != CacheMapFolder::NoParent) {
        const CacheMapFolder &up = m_folders[parent];
        folder.mountPoint = device != 0 && up.device != 0 && device != up.device;
        ++m_folders[parent].own.folders;
    } else {
        m_roots.push_back(index);
    }
    m_index.emplace(std::string_view(folder.path), index);
    return index;
}

void CacheMapBuilder::add(const WalkEntry &entry)
{
    if (entry.kind == EntryKind::Directory) {
        const std::string path = entry.path();
        std::lock_guard lock(m_mutex);
        if (!entry.directory.empty()) {
            // The parent first: a root's first folder must not be taken for the root.
            folderLocked(entry.directory, entry.root, 0);
        }
        folderLocked(path, entry.root, entry.device);
        return;
    }
    if (entry.kind != EntryKind::File || !entry.firstLink) {
        return;
    }
    // A root that is a file stands in a folder of its own name.
    const std::string_view folderPath = entry.directory.empty() ? entry.name : entry.directory;
    FolderTotals single;
    ThreadTotals *pending = threadTotals();
    if (pending && (!pending->used || pending->directory != folderPath || pending->root != entry.root)) {
        if (pending->used) {
            std::lock_guard lock(m_mutex);
            flushLocked(*pending);
        }
        pending->directory.assign(folderPath);
        pending->root = entry.root;
        pending->used = true;
    }
    FolderTotals &own = pending ? pending->totals : single;
    ++own.files;
    own.bytes += entry.size;
    if (entry.residency.known()) {
        own.pages += entry.residency.pages;
        own.resident += entry.residency.resident;
        own.dirty += entry.residency.dirty;
    } else if (entry.residency.hidden) {
        ++own.hiddenFiles;
        own.hiddenBytes += entry.size;
    }
    // A file whose residency failed is counted by addProblem(): the walker reports it there too.
    if (!pending || entry.directory.empty()) {
        // No slot left (more threads than slots), or a root that is a file (its device names the folder).
        std::lock_guard lock(m_mutex);
        if (pending) {
            flushLocked(*pending);
        } else {
            m_folders[folderLocked(folderPath, entry.root, 0)].own.add(single);
        }
    }
}

CacheMapBuilder::ThreadTotals *CacheMapBuilder::threadTotals()
{
    const std::thread::id me = std::this_thread::get_id();
    for (ThreadTotals &slot : m_threads) {
        if (slot.owner.load(std::memory_order_relaxed) == me) {
            return &slot;
        }
    }
    for (ThreadTotals &slot : m_threads) {
        std::thread::id free{};
        if (slot.owner.compare_exchange_strong(free, me)) {
            return &slot;
        }
    }
    return nullptr;
}

void CacheMapBuilder::flushLocked(ThreadTotals &pending)
{
    if (!pending.used) {
        return;
    }
    m_folders[folderLocked(pending.directory, pending.root, 0)].own.add(pending.totals);
    pending.totals = FolderTotals();
    pending.used = false;
}

void CacheMapBuilder::finish()
{
    std::lock_guard lock(m_mutex);
    for (ThreadTotals &slot : m_threads) {
        flushLocked(slot);
        slot.owner.store(std::thread::id());
    }
}

void CacheMapBuilder::addProblem(const WalkProblem &problem)
{
    std::lock_guard lock(m_mutex);
    // A folder that could not be read is counted in itself; anything else in its folder.
    auto found = m_index.find(problem.path);
    if (found == m_index.end()) {
        found = m_index.find(parentOf(problem.path));
    }
    if (found != m_index.end()) {
        ++m_folders[found->second].own.problems;
    }
}

CacheMapTree CacheMapBuilder::snapshot(bool complete) const
{
    CacheMapTree tree;
    {
        std::lock_guard lock(m_mutex);
        tree.folders.assign(m_folders.begin(), m_folders.end());
        tree.roots = m_roots;
    }
    tree.complete = complete;
    for (CacheMapFolder &folder : tree.folders) {
        folder.tree = folder.own;
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
    return tree;
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
    builder.finish();
    result.tree = builder.snapshot(!result.walk.cancelled);
    return result;
}

} // namespace Cachescope
