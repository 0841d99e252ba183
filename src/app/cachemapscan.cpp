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
        Q_EMIT snapshotReady(std::make_shared<const CacheMapTree>(m_builder->snapshot()));
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
        result.cancelled = result.cancelled || cancelRequested->load();
        // Back on the GUI thread; `self` is checked there (the destructor
        // joins this thread, so the object outlives the walk itself).
        QMetaObject::invokeMethod(
            this,
            [self, generation, cancelled = result.cancelled] {
                if (self && self->m_generation == generation) {
                    self->walkEnded(cancelled);
                }
            },
            Qt::QueuedConnection);
    });
}

void CacheMapScan::walkEnded(bool cancelled)
{
    if (m_thread.joinable()) {
        m_thread.join();
    }
    m_snapshots.stop();
    m_running = false;
    // The walk is over: the folders move into the map rather than being copied.
    m_memoryBytesAtEnd = m_builder->memoryBytes();
    Q_EMIT finished(std::make_shared<const CacheMapTree>(m_builder->take(!cancelled)), !cancelled);
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
    if (!m_running) {
        return m_memoryBytesAtEnd;
    }
    return m_builder ? m_builder->memoryBytes() : 0;
}

} // namespace Cachescope::App
