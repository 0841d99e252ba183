// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "cachemapscan.h"

#include <QMetaObject>
#include <QPointer>

#include <algorithm>

namespace Cachescope::App
{

CacheMapScan::CacheMapScan(QObject *parent)
    : QObject(parent)
{
    m_snapshots.setSingleShot(true);
    connect(&m_snapshots, &QTimer::timeout, this, [this] {
        if (!m_builder || !m_running) {
            return;
        }
        auto tree = std::make_shared<const CacheMapTree>(m_builder->snapshot());
        // Empty before the root's folder comes, and after the walk's thread
        // took the map (the end is on its way): nothing to show.
        if (!tree->folders.empty()) {
            Q_EMIT snapshotReady(std::move(tree));
        }
        m_snapshots.start(std::min(2 * m_snapshots.interval(), lastSnapshotIntervalMs));
    });
}

CacheMapScan::~CacheMapScan()
{
    stop();
}

void CacheMapScan::stop()
{
    if (m_cancelRequested) {
        m_cancelRequested->store(true);
    }
    if (m_walker) {
        m_walker->cancel();
    }
    if (m_thread.joinable()) {
        m_thread.join();
    }
    m_snapshots.stop();
    m_running = false;
}

void CacheMapScan::start(const std::string &root, const WalkOptions &options)
{
    stop();
    const uint64_t generation = ++m_generation;
    m_builder = std::make_unique<CacheMapBuilder>();
    m_walker = std::make_unique<Walker>(CacheMapBuilder::walkOptions(options));
    m_builder->attach(*m_walker);
    Walker *walker = m_walker.get();
    CacheMapBuilder *builder = m_builder.get();
    auto cancelRequested = std::make_shared<std::atomic<bool>>(false);
    m_cancelRequested = cancelRequested;
    m_walker->setFolderCallback([walker, builder, cancelRequested](const WalkFolder &folder) {
        if (cancelRequested->load(std::memory_order_relaxed)) {
            walker->cancel();
            return;
        }
        builder->addFolder(folder);
    });
    m_running = true;
    m_memoryBytesAtEnd = 0;
    m_snapshots.start(firstSnapshotMs);
    QPointer<CacheMapScan> self(this);
    m_thread = std::thread([walker, builder, root, self, generation, cancelRequested, this] {
        WalkResult result;
        if (!cancelRequested->load()) {
            result = walker->walk({root});
        }
        const bool cancelled = result.cancelled || cancelRequested->load();
        // The map is finished here, not on the GUI thread: the folders move
        // into it rather than being copied, and the window stays free meanwhile.
        // Kept before the builder empties: until walkEnded(), memoryBytes() answers with it.
        m_memoryBytesAtEnd = builder->memoryBytes();
        auto tree = std::make_shared<const CacheMapTree>(builder->take(!cancelled));
        // Back on the GUI thread; `self` is checked there (the destructor
        // joins this thread, so the object outlives the walk itself).
        QMetaObject::invokeMethod(
            this,
            [self, generation, cancelled, tree = std::move(tree)] {
                if (self && self->m_generation == generation) {
                    self->walkEnded(tree, cancelled);
                }
            },
            Qt::QueuedConnection);
    });
}

void CacheMapScan::walkEnded(const std::shared_ptr<const CacheMapTree> &tree, bool cancelled)
{
    if (m_thread.joinable()) {
        m_thread.join();
    }
    m_snapshots.stop();
    m_running = false;
    Q_EMIT finished(tree, !cancelled);
}

void CacheMapScan::cancel()
{
    if (m_walker && m_running) {
        m_cancelRequested->store(true);
        m_walker->cancel();
    }
}

bool CacheMapScan::isRunning() const
{
    return m_running;
}

uint64_t CacheMapScan::entriesSeen() const
{
    return m_walker ? m_walker->entriesSeen() : 0;
}

size_t CacheMapScan::memoryBytes() const
{
    const size_t atEnd = m_memoryBytesAtEnd.load();
    if (!m_running || atEnd > 0) {
        return atEnd;
    }
    return m_builder ? m_builder->memoryBytes() : 0;
}

} // namespace Cachescope::App
