// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "filesmodel.h"
#include "snapshot.h"
#include "top.h"
#include "walker.h"

#include <QObject>

#include <array>
#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <vector>

class QThread;

namespace Cachescope::App
{

class SnapshotComparison;

// What an eviction freed and what stayed, and why.
struct EvictSummary {
    Cachescope::WalkTotals total;
    uint64_t freedPages = 0;
    uint64_t hiddenFiles = 0; // evicted, but what it freed is unknown
    // Indexed by Cachescope::RemainReason: files with pages left, and those pages.
    std::array<uint64_t, 6> filesByReason{};
    std::array<uint64_t, 6> pagesByReason{};
    // Of the mapped ones: files the window itself keeps in memory (Keep in
    // Memory, FilesJob::keptInMemory), and their pages left.
    uint64_t keptFiles = 0;
    uint64_t keptPages = 0;
    uint64_t errors = 0;
    std::string firstError; // "path: reason"
};

struct LoadSummary {
    Cachescope::WalkTotals total;
    uint64_t loadedPages = 0;
    uint64_t hiddenFiles = 0;
    uint64_t errors = 0;
    std::string firstError;
};

// What a snapshot job did (Save Snapshot, Compare with Snapshot, Restore Snapshot).
struct SnapshotSummary {
    // The snapshot file could not be read or written: why (core's words); nothing more was done.
    std::string fileError;
    // The page size the snapshot was recorded with (its file read or written).
    uint64_t pageSize = 0;
    // Save: what the file records.
    uint64_t files = 0;
    uint64_t residentPages = 0;
    // Save and Compare: files the walk could not record, and the first ("path: reason").
    uint64_t problems = 0;
    std::string firstProblem;
    // Compare: the snapshot against the page cache now.
    std::shared_ptr<const SnapshotComparison> comparison;
    // Compare: it is not this computer's, so the pages cannot be compared.
    bool otherPageSize = false;
    // Restore.
    Cachescope::RestoreReport restore;
    // Restore: the folder that holds every file it loaded (to read again
    // what shows of them); empty when it loaded none.
    std::vector<std::string> restoredUnder;
};

// One walk off the UI thread: a scan of folders, an eviction, a load, a
// search for the most cached files, or a snapshot saved, compared or
// restored. The walk runs on its own QThread (and the walker's threads);
// results are kept in the job and announced once, by finished(), on the
// thread the job lives in: one signal a job, never one a file.
class FilesJob : public QObject
{
    Q_OBJECT

public:
    enum class Kind {
        Scan,
        Evict,
        Load,
        Top,
        // Snapshots (core's snapshot.h) of snapshotFile. Save: the residency
        // of the roots written there. Compare: read from there (or
        // snapshotIn, to compare again), against the roots now. Restore: read
        // from there and loaded back; no roots.
        SaveSnapshot,
        CompareSnapshot,
        RestoreSnapshot,
    };

    FilesJob(Kind kind, std::vector<std::string> roots, Cachescope::WalkOptions options, QObject *parent = nullptr);
    // Cancels a running walk and waits for it: nothing outlives the job.
    ~FilesJob() override;

    void start();
    // Any time; the walk stops soon and finished() still comes.
    void cancel();

    [[nodiscard]] Kind kind() const
    {
        return m_kind;
    }
    [[nodiscard]] const std::vector<std::string> &roots() const
    {
        return m_roots;
    }
    [[nodiscard]] bool isFinished() const
    {
        return m_finished;
    }
    [[nodiscard]] bool wasCancelled() const
    {
        return m_result.cancelled;
    }
    [[nodiscard]] uint64_t entriesSeen() const;
    [[nodiscard]] uint64_t bytesSeen() const;
    // What bytesSeen() will reach: expectedBytes, or what a restore read in its snapshot; 0: unknown.
    [[nodiscard]] uint64_t bytesExpected() const;

    // Shown in the progress bar; quiet jobs (live refresh) are not.
    bool showsProgress = true;
    // Evict: files the window keeps in memory (device, inode), set before
    // start(); their pages stay because of that, not another program.
    std::set<std::pair<uint64_t, uint64_t>> keptInMemory;
    uint64_t expectedBytes = 0; // 0: unknown, the bar is busy
    size_t topCount = 50;
    // Snapshots, set before start().
    std::string snapshotFile;
    std::shared_ptr<const Cachescope::Snapshot> snapshotIn;

    // Valid once finished() was emitted.
    [[nodiscard]] const Cachescope::WalkResult &result() const
    {
        return m_result;
    }
    std::vector<FolderScan> scans; // Scan: one a root
    EvictSummary evict;
    LoadSummary load;
    std::vector<Cachescope::TopEntry> top; // most resident first
    SnapshotSummary snapshot;
    qint64 elapsedMs = 0;
    // The CPU time of the walk on the job's thread: all of it for a walk of
    // one thread (WalkOptions::threads = 1), a part otherwise.
    qint64 walkThreadCpuNs = 0;

Q_SIGNALS:
    void finished(Cachescope::App::FilesJob *job);

private:
    void run(); // on the worker thread
    void runSnapshot(); // run() of the snapshot kinds
    [[nodiscard]] bool isSnapshotKind() const;
    void onEntry(const Cachescope::WalkEntry &entry);
    void onProblem(const Cachescope::WalkProblem &problem);

    struct Aggregate;

    Kind m_kind;
    std::vector<std::string> m_roots;
    std::unique_ptr<Cachescope::Walker> m_walker; // not for the snapshot kinds: core walks
    Cachescope::WalkOptions m_options;
    Cachescope::SnapshotControl m_snapshotControl;
    Cachescope::RestoreProgress m_restoreProgress;
    std::atomic<uint64_t> m_restoreBytes{0};
    std::unique_ptr<Aggregate> m_aggregate;
    std::atomic<bool> m_cancelRequested{false};
    QThread *m_thread = nullptr;
    bool m_finished = false;
    Cachescope::WalkResult m_result;
};

} // namespace Cachescope::App
