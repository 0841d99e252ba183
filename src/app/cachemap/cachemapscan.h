// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "cachemap.h"

#include <QObject>
#include <QTimer>

#include <atomic>
#include <memory>
#include <thread>

namespace Cachescope::App
{

// One walk that builds a cache map off the GUI thread. While it runs,
// snapshots of the map so far come, the first after a second and then every
// two; then the whole map. A walk that ends within a second (/ on a warm
// two-core machine takes 0.6 s) shows the whole map at once: a half map for
// a few hundred milliseconds would tell nothing, and each snapshot copies
// every folder, which, with the paint it brings, takes from the walk on two
// cores (measured: the whole map of / 12 ms later with a snapshot at 250 ms).
// Cancel at any time; destruction cancels and waits.
class CacheMapScan : public QObject
{
    Q_OBJECT

public:
    explicit CacheMapScan(QObject *parent = nullptr);
    ~CacheMapScan() override;

    void start(const std::string &root, const WalkOptions &options);
    void cancel();
    [[nodiscard]] bool isRunning() const;
    [[nodiscard]] uint64_t entriesSeen() const;
    // Bytes the map holds for its folders now (at the end of a walk: then).
    [[nodiscard]] size_t memoryBytes() const;

    // The first snapshot's delay; each later one waits twice as long as the
    // one before, up to the last interval.
    static constexpr int firstSnapshotMs = 1000;
    static constexpr int lastSnapshotIntervalMs = 2000;

Q_SIGNALS:
    void snapshotReady(std::shared_ptr<const Cachescope::CacheMapTree> tree);
    // The walk ended: complete is false when it was cancelled.
    void finished(std::shared_ptr<const Cachescope::CacheMapTree> tree, bool complete);

private:
    void walkEnded(const std::shared_ptr<const Cachescope::CacheMapTree> &tree, bool cancelled);
    void stop();

    std::unique_ptr<CacheMapBuilder> m_builder;
    std::unique_ptr<Walker> m_walker;
    std::thread m_thread;
    // Set by cancel(): a Walker forgets a cancel that comes before its walk
    // starts, so the walk's own callback checks this too.
    std::shared_ptr<std::atomic<bool>> m_cancelRequested;
    QTimer m_snapshots;
    bool m_running = false;
    std::atomic<size_t> m_memoryBytesAtEnd{0}; // set by the walk's thread, before it empties the builder
    uint64_t m_generation = 0; // a walk's end from an older start() is ignored
};

} // namespace Cachescope::App
