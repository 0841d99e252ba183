// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "snapshotcomparison.h"

#include "filesnaming.h"

#include <algorithm>

namespace Cachescope::App
{

namespace
{

bool belowAny(const std::string &path, const std::vector<std::string> &roots)
{
    return std::any_of(roots.begin(), roots.end(), [&path](const std::string &root) {
        return isAtOrBelow(path, root);
    });
}

// The items (sorted by path) that lie below folder: all paths with one
// prefix sit together in that order.
template<typename Item>
std::pair<typename std::vector<Item>::const_iterator, typename std::vector<Item>::const_iterator> below(const std::vector<Item> &items,
                                                                                                        const std::string &folder)
{
    std::string prefix = folder;
    if (prefix.empty() || prefix.back() != '/') {
        prefix.push_back('/');
    }
    const auto begin = std::lower_bound(items.begin(), items.end(), prefix, [](const Item &item, const std::string &path) {
        return item.path < path;
    });
    auto end = begin;
    while (end != items.end() && end->path.starts_with(prefix)) {
        ++end;
    }
    return {begin, end};
}

} // namespace

SnapshotComparison::SnapshotComparison(std::string file, std::shared_ptr<const Snapshot> before, const Snapshot &now, std::vector<std::string> roots)
    : m_file(std::move(file))
    , m_before(std::move(before))
    , m_roots(std::move(roots))
    , m_comparedAt(QDateTime::currentDateTime())
{
    // Only what the list holds is compared: a file of the snapshot below no
    // row would otherwise count as evicted.
    Snapshot listed;
    listed.pageSize = m_before->pageSize;
    for (const SnapshotFile &recorded : m_before->files) {
        if (belowAny(recorded.path, m_roots)) {
            listed.files.push_back(recorded);
        } else {
            ++m_filesNotInList;
        }
    }
    SnapshotDiff diff = diffSnapshots(listed, now);
    m_diff = std::move(diff.files);
    m_loadedPages = diff.loadedPages;
    m_evictedPages = diff.evictedPages;
}

QDateTime SnapshotComparison::takenAt() const
{
    return QDateTime::fromString(m_before->created, Qt::ISODate).toLocalTime();
}

const SnapshotFile *SnapshotComparison::recorded(const std::string &path) const
{
    return m_before->find(path);
}

SnapshotChange SnapshotComparison::change(const std::string &path, bool isDirectory) const
{
    SnapshotChange change;
    change.compared = belowAny(path, m_roots);
    if (!change.compared) {
        return change;
    }
    if (!isDirectory) {
        change.inSnapshot = recorded(path) != nullptr;
        const auto it = std::lower_bound(m_diff.begin(), m_diff.end(), path, [](const SnapshotFileDiff &diff, const std::string &wanted) {
            return diff.path < wanted;
        });
        if (it != m_diff.end() && it->path == path) {
            change.loadedPages = it->loadedPages();
            change.evictedPages = it->evictedPages();
            change.goneNow = it->onlyInFirst;
        }
        return change;
    }
    if (const auto cached = m_folders.find(path); cached != m_folders.end()) {
        return cached->second;
    }
    const auto [first, last] = below(m_diff, path);
    for (auto it = first; it != last; ++it) {
        change.loadedPages += it->loadedPages();
        change.evictedPages += it->evictedPages();
    }
    const auto [firstRecorded, lastRecorded] = below(m_before->files, path);
    change.inSnapshot = firstRecorded != lastRecorded;
    m_folders.emplace(path, change);
    return change;
}

} // namespace Cachescope::App
