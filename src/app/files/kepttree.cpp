// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "kepttree.h"

#include "residency.h"
#include "uniquefd.h"

#include <QElapsedTimer>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace Cachescope::App
{

qint64 monotonicNowMs()
{
    QElapsedTimer clock;
    clock.start();
    return clock.msecsSinceReference();
}

uint32_t KeptTree::storePath(const std::string &path)
{
    const auto offset = uint32_t(m_paths.size());
    m_paths.append(path);
    m_paths.push_back('\0');
    return offset;
}

void KeptTree::addDirectory(const std::string &path, int64_t mtimeNs)
{
    m_directories.push_back(Directory{storePath(path), mtimeNs});
}

void KeptTree::addFile(const std::string &path,
                       std::string_view child,
                       uint64_t inode,
                       uint64_t device,
                       bool countsInTotal,
                       const Cachescope::Residency &residency)
{
    File file;
    file.inode = inode;
    file.device = device;
    file.size = residency.sizeBytes;
    file.pages = residency.pages;
    file.hidden = residency.hidden;
    file.resident = residency.hidden ? 0 : residency.resident;
    file.dirty = residency.hidden ? 0 : residency.dirty;
    file.countsInTotal = countsInTotal;
    file.pathOffset = storePath(path);
    auto [it, isNew] = m_childIds.try_emplace(std::string(child), int32_t(m_childNames.size()));
    if (isNew) {
        m_childNames.emplace_back(child);
    }
    file.child = it->second;
    m_files.push_back(file);
}

void KeptTree::finish(const FolderScan &scan, qint64 walkStartedMs)
{
    m_scan = scan;
    m_scan.kept.reset();
    m_walkStartedMs = walkStartedMs;
    // The walk's child ids become positions in the scan's children.
    std::unordered_map<std::string_view, int32_t> positions;
    for (size_t i = 0; i < m_scan.children.size(); ++i) {
        positions.emplace(m_scan.children[i].name, int32_t(i));
    }
    std::vector<int32_t> remap(m_childNames.size(), -1);
    for (size_t id = 0; id < m_childNames.size(); ++id) {
        if (auto it = positions.find(m_childNames[id]); it != positions.end()) {
            remap[id] = it->second;
        }
    }
    const bool privileged = geteuid() == 0;
    // In path order, so that the files of a folder come together and are
    // opened relative to it: the path is looked up once a folder, not once a file.
    std::sort(m_files.begin(), m_files.end(), [this](const File &a, const File &b) {
        return std::strcmp(pathAt(a.pathOffset), pathAt(b.pathOffset)) < 0;
    });
    for (File &file : m_files) {
        file.child = file.child >= 0 ? remap[size_t(file.child)] : -1;
        file.readAtMs = walkStartedMs;
        file.noAtime = privileged;
    }
    m_childIds.clear();
    m_childNames.clear();
    m_childNames.shrink_to_fit();
    m_files.shrink_to_fit();
    m_directories.shrink_to_fit();
    m_paths.shrink_to_fit();
    m_scan.readAtMs = walkStartedMs;
}

qint64 KeptTree::oldestReadMs() const
{
    // The sweep goes round in order, so the file it reads next is the one read longest ago.
    return m_files.empty() ? m_walkStartedMs : m_files[m_cursor].readAtMs;
}

KeptTree::Contribution KeptTree::contributionOf(const File &file)
{
    Contribution c;
    c.size = file.size;
    c.pages = file.pages;
    if (file.hidden) {
        c.hiddenFiles = 1;
        c.hiddenPages = file.pages;
    } else {
        c.resident = file.resident;
        c.dirty = file.dirty;
    }
    return c;
}

size_t KeptTree::rereadNext(size_t count)
{
    if (m_files.empty()) {
        return 0;
    }
    count = std::min(count, m_files.size());
    const qint64 now = monotonicNowMs();
    // The folder the last file was in, open while its files come: no
    // descriptor is kept from one slice to the next.
    UniqueFd folder;
    std::string_view folderPath;
    for (size_t i = 0; i < count; ++i) {
        File &file = m_files[m_cursor];
        const std::string_view path(pathAt(file.pathOffset));
        const size_t slash = path.rfind('/');
        const std::string_view parent = path.substr(0, slash == 0 ? 1 : slash);
        if (parent != folderPath || !folder.isValid()) {
            folderPath = parent;
            folder.reset(::open(std::string(parent).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        }
        reread(file, now, folder.isValid() ? folder.get() : AT_FDCWD, folder.isValid() ? path.data() + slash + 1 : path.data());
        m_cursor = (m_cursor + 1) % m_files.size();
    }
    m_catchUp -= std::min(m_catchUp, count);
    m_scan.readAtMs = oldestReadMs();
    return count;
}

void KeptTree::reread(File &file, qint64 now, int folderFd, const char *name)
{
    file.readAtMs = now;
    // The file was a regular file when the walk saw it. It is opened without
    // looking first (the walker's fstatat): that look is a third of the cost,
    // and a name turned into something else shows in its folder's
    // modification time, which makes the folder walked again. O_NONBLOCK and
    // O_NOCTTY keep even that case harmless; fstat checks the inode.
    constexpr int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
    UniqueFd fd(::openat(folderFd, name, flags | (file.noAtime ? O_NOATIME : 0)));
    if (!fd.isValid() && errno == EPERM && file.noAtime) {
        file.noAtime = false;
        fd.reset(::openat(folderFd, name, flags));
    }
    struct stat st;
    if (!fd.isValid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || uint64_t(st.st_ino) != file.inode || uint64_t(st.st_dev) != file.device) {
        m_needsWalk = true; // removed, replaced or unreadable now: the walk tells which
        return;
    }
    const Residency residency = residencyOfDescriptor(fd.get(), st);
    if (!residency.ok()) {
        m_needsWalk = true;
        return;
    }
    update(file, residency);
}

bool KeptTree::update(File &file, const Residency &residency)
{
    const Contribution before = contributionOf(file);
    const bool wasHidden = file.hidden;
    file.size = residency.sizeBytes;
    file.pages = residency.pages;
    file.hidden = residency.hidden;
    file.resident = residency.hidden ? 0 : residency.resident;
    file.dirty = residency.hidden ? 0 : residency.dirty;
    const Contribution after = contributionOf(file);
    if (before.size != after.size || before.pages != after.pages || before.resident != after.resident || before.dirty != after.dirty
        || before.hiddenFiles != after.hiddenFiles) {
        apply(file, before, after);
    }
    if (wasHidden != file.hidden && file.child >= 0 && !m_scan.children[size_t(file.child)].isDirectory) {
        FolderChild &child = m_scan.children[size_t(file.child)];
        child.hidden = file.hidden;
        child.hiddenReason = residency.hiddenReason;
        m_changed = true;
    }
    return before.resident != after.resident;
}

void KeptTree::takeReading(std::string_view path, uint64_t inode, uint64_t device, const Residency &residency)
{
    if (!residency.ok()) {
        return;
    }
    // m_files is in path order (finish()).
    const auto it = std::lower_bound(m_files.begin(), m_files.end(), path, [this](const File &file, std::string_view wanted) {
        return std::string_view(pathAt(file.pathOffset)) < wanted;
    });
    if (it == m_files.end() || std::string_view(pathAt(it->pathOffset)) != path || it->inode != inode || it->device != device) {
        return;
    }
    // Its read time stays: the sweep's cursor tells the oldest reading by it.
    if (update(*it, residency)) {
        m_catchUp = m_files.size();
    }
}

void KeptTree::apply(const File &file, const Contribution &before, const Contribution &after)
{
    // Sums move by the difference: the old value out, the new one in (unsigned, so in that order).
    const auto move = [&](uint64_t &size, uint64_t &pages, uint64_t &resident, uint64_t &dirty, uint64_t &hiddenFiles, uint64_t &hiddenPages) {
        size = size - before.size + after.size;
        pages = pages - before.pages + after.pages;
        resident = resident - before.resident + after.resident;
        dirty = dirty - before.dirty + after.dirty;
        hiddenFiles = hiddenFiles - before.hiddenFiles + after.hiddenFiles;
        hiddenPages = hiddenPages - before.hiddenPages + after.hiddenPages;
    };
    if (file.countsInTotal) {
        WalkTotals &t = m_scan.total;
        move(t.bytes, t.pages, t.resident, t.dirty, t.hiddenFiles, t.hiddenPages);
    }
    if (file.child >= 0) {
        FolderChild &child = m_scan.children[size_t(file.child)];
        // A file right in the folder is its own child and shows its own
        // numbers, whatever its links; deeper files add to their folder's,
        // each inode once.
        if (!child.isDirectory || file.countsInTotal) {
            move(child.size, child.pages, child.resident, child.dirty, child.hiddenFiles, child.hiddenPages);
        }
    }
    m_changed = true;
}

size_t KeptTree::checkNextDirectories(size_t count)
{
    if (m_directories.empty()) {
        return 0;
    }
    count = std::min(count, m_directories.size());
    for (size_t i = 0; i < count; ++i) {
        const Directory &directory = m_directories[m_directoryCursor];
        struct stat st;
        if (::stat(pathAt(directory.pathOffset), &st) != 0 || int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec != directory.mtimeNs) {
            m_needsWalk = true;
        }
        m_directoryCursor = (m_directoryCursor + 1) % m_directories.size();
    }
    return count;
}

bool KeptTree::takeChanged()
{
    const bool changed = m_changed;
    m_changed = false;
    return changed;
}

} // namespace Cachescope::App
