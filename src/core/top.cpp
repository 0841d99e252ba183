// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "top.h"

#include <algorithm>
#include <mutex>
#include <tuple>

namespace Cachescope
{

namespace
{
// Most resident first; equal counts by path, so that the order is the same on every run.
bool ranksBefore(const TopEntry &a, const TopEntry &b)
{
    return std::tie(b.resident, a.path) < std::tie(a.resident, b.path);
}

// Keeps the n best entries seen so far: a heap whose top is the worst kept,
// so a file that does not make the list costs one comparison. Memory is O(n).
class BoundedTop
{
public:
    explicit BoundedTop(size_t limit)
        : m_limit(limit)
    {
    }

    // Cheap check before building a path: would this count be kept?
    bool wouldKeep(uint64_t resident)
    {
        std::lock_guard lock(m_mutex);
        return m_heap.size() < m_limit || resident >= m_heap.front().resident;
    }

    void offer(TopEntry entry)
    {
        std::lock_guard lock(m_mutex);
        if (m_heap.size() < m_limit) {
            m_heap.push_back(std::move(entry));
            std::push_heap(m_heap.begin(), m_heap.end(), ranksBefore);
        } else if (ranksBefore(entry, m_heap.front())) {
            std::pop_heap(m_heap.begin(), m_heap.end(), ranksBefore);
            m_heap.back() = std::move(entry);
            std::push_heap(m_heap.begin(), m_heap.end(), ranksBefore);
        }
    }

    std::vector<TopEntry> takeSorted()
    {
        std::lock_guard lock(m_mutex);
        std::sort(m_heap.begin(), m_heap.end(), ranksBefore);
        return std::move(m_heap);
    }

private:
    const size_t m_limit;
    std::mutex m_mutex;
    std::vector<TopEntry> m_heap;
};
} // namespace

TopResult topCached(const std::vector<std::string> &roots, size_t n, WalkOptions options, Walker::ProblemCallback problems)
{
    TopResult result;
    // Ranking reads residency and changes nothing, whatever the caller set.
    options.action = FileAction::Residency;
    options.histogramBuckets = 0;
    options.reportDirectories = false;
    BoundedTop top(n);

    Walker walker(options);
    walker.setProblemCallback(std::move(problems));
    walker.setEntryCallback([&top, n](const WalkEntry &entry) {
        // Hidden files have no numbers to rank by; a second name of a
        // hard-linked file would rank the same pages twice; a file with
        // nothing cached is not a cached file.
        if (n == 0 || entry.kind != EntryKind::File || !entry.firstLink || !entry.residency.known() || entry.residency.resident == 0) {
            return;
        }
        if (!top.wouldKeep(entry.residency.resident)) {
            return;
        }
        TopEntry candidate;
        candidate.path = entry.path();
        candidate.size = entry.size;
        candidate.pages = entry.residency.pages;
        candidate.resident = entry.residency.resident;
        candidate.dirty = entry.residency.dirty;
        top.offer(std::move(candidate));
    });
    result.walk = walker.walk(roots);
    result.entries = top.takeSorted();
    return result;
}

} // namespace Cachescope
