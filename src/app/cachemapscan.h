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

// One walk that builds a cache map off the GUI thread. While it runs, a
// snapshot of the map so far comes every few hundred milliseconds (the first
// picture long before the walk ends); then the whole map. Cancel at any time;
// destruction cancels and waits.
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
    // Bytes the map holds for its folders now.
    [[nodiscard]] size_t memoryBytes() const;

    static constexpr int snapshotIntervalMs = 250;

Q_SIGNALS:
    void snapshotReady(std::shared_ptr<const Cachescope::CacheMapTree> tree);
    // The walk ended: complete is false when it was cancelled.
    void finished(std::shared_ptr<const Cachescope::CacheMapTree> tree, bool complete);

private:
    void walkEnded(bool cancelled);
    void stop();

    std::unique_ptr<CacheMapBuilder> m_builder;
    std::unique_ptr<Walker> m_walker;
    std::thread m_thread;
    // Set by cancel(): a Walker forgets a cancel that comes before its walk
    // starts, so the walk's own callback checks this too.
    std::shared_ptr<std::atomic<bool>> m_cancelRequested;
    QTimer m_snapshots;
    bool m_running = false;
    uint64_t m_generation = 0; // a walk's end from an older start() is ignored
};

} // namespace Cachescope::App
