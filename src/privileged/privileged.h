// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The unprivileged side of the root helper (src/helper): what the CLI and the
// window call. Each request goes through KAuth (polkit underneath) to
// org.kde.cachescope; arguments and replies are spelled only with the keys of
// helperprotocol.h. Results carry a translated sentence a person understands
// for every failure: not authorized, cancelled, busy, not enough memory for
// swapoff, timeout, ...
//
// Run as root, nothing goes to the helper: root needs no authorization, so
// each request runs the helper's own action in this process, with its checks
// (docs/helper-security.md rule 15).
//
// Synchronous calls (for the CLI) run a nested event loop until the helper
// answers. The window uses RequestQueue, which runs one request at a time
// (the helper refuses a second concurrent one) and reports asynchronously.

#include "trace/tracereport.h"

#include <KAuth/Action>

#include <QList>
#include <QObject>
#include <QString>
#include <QVariantMap>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

class QThread;

namespace KAuth
{
class ExecuteJob;
}

namespace Cachescope::Privileged
{

enum class Failure {
    None,
    NotAuthorized, // polkit said no (KAuth error 4)
    Cancelled, // the user dismissed the password dialog
    Busy, // the helper is running another request
    NotEnoughMemory, // swapoff would not fit, or the kernel ran out
    Timeout, // no answer within the request's timeout
    InvalidRequest, // the helper refused the arguments
    Refused, // well formed, but not allowed (not a known swap area, ...)
    NothingToDo, // already off / on / no such file
    Unsupported, // filesystem cannot hold swap, ...
    Unavailable, // no helper or no polkit installed, no system bus
    Failed, // anything else; message says what
};

struct Result {
    Failure failure = Failure::None;
    QString message; // for people; empty on success
    QVariantMap data; // the helper's reply
    [[nodiscard]] bool ok() const
    {
        return failure == Failure::None;
    }
};

// Figures from /proc/meminfo as the helper read them, in bytes.
struct MemoryFigures {
    uint64_t memTotal = 0;
    uint64_t memFree = 0;
    uint64_t memAvailable = 0;
    uint64_t buffers = 0;
    uint64_t cached = 0;
    uint64_t sReclaimable = 0;
    uint64_t dirty = 0;
    uint64_t swapTotal = 0;
    uint64_t swapFree = 0;
    [[nodiscard]] static MemoryFigures fromVariantMap(const QVariantMap &map);
};

struct DropCachesResult : Result {
    int level = 0;
    MemoryFigures before;
    MemoryFigures after;
};

// swapon: what became of one area the helper had recorded turning off.
struct SwapAreaOutcome {
    QString name;
    QString outcome; // HelperProtocol::outcomeOn, outcomeAlreadyOn, outcomeGone or outcomeFailed
    int priority = -1;
    QString message; // the helper's sentence; empty when turned on
};

struct SwapResult : Result {
    QStringList areas; // the kernel's names of the areas turned off / on
    QList<int> priorities;
    QList<SwapAreaOutcome> outcomes; // swapon: every recorded area it looked at
};

struct FileResidency {
    QString error; // empty: the numbers hold; else why this file has none (for people)
    bool hidden = false; // the helper could not see either (never where it runs as root)
    uint64_t device = 0;
    uint64_t inode = 0;
    uint64_t sizeBytes = 0;
    uint64_t pages = 0;
    uint64_t resident = 0;
    QString method; // "cachestat" or "mincore"
    bool detail = false;
    uint64_t dirty = 0;
    uint64_t writeback = 0;
    std::vector<uint64_t> histogram; // resident pages per bucket, as Cachescope::Histogram
};

struct ResidencyResult : Result {
    std::vector<FileResidency> files; // in the order of the paths
};

struct TraceResult : Result {
    Trace::Capture capture; // the events, lost events, why it ended
};

// Whether the helper can be reached at all: the polkit policy and the D-Bus
// service are installed and a system bus answers. When not, *reason says why
// (for a disabled menu entry's tooltip). Always true as root: root needs no
// helper, and every call below then runs the helper's own action in this
// process (docs/helper-security.md rule 15).
[[nodiscard]] bool helperAvailable(QString *reason = nullptr);

// level: 1 page cache, 2 dentries and inodes, 3 both.
[[nodiscard]] DropCachesResult dropCaches(int level);
// area: a path listed in /proc/swaps (a partition or a swap file).
[[nodiscard]] SwapResult swapOff(const QString &area);
[[nodiscard]] SwapResult swapOffAll();
// area: one Cachescope turned off, named as it recorded it (the kernel's name).
[[nodiscard]] SwapResult swapOn(const QString &area);
// Everything Cachescope turned off, with the old priorities, area by area:
// outcomes says what became of each.
[[nodiscard]] SwapResult swapOnAll();
// /var/lib/cachescope/experiment.swap, sizeBytes between 16 MiB and 4 GiB
// (rounded down to whole pages).
[[nodiscard]] Result createExperimentSwapFile(qint64 sizeBytes);
[[nodiscard]] Result removeExperimentSwapFile();
// Residency of files by path, read by the helper as root after it opened
// each path as this user (docs/helper-security.md rule 9). Paths are bytes
// (any file name works); relative ones are taken from the current folder.
// Any number: sent HelperProtocol::maxPathsPerCall at a time, each distinct
// path once. A file the helper could not read has its own error; the result
// fails only when a call does. buckets: 1 to 4096.
[[nodiscard]] ResidencyResult residencyOfPaths(const QList<QByteArray> &paths, int buckets);
// The page-cache events of process `pid` (this user's own, as this process
// numbers it; held before exec) and its children, recorded by the helper's
// trace action (docs/helper-security.md rule 16) for at most maxSeconds
// (1 to HelperProtocol::maxTraceSeconds). tracingOn() is called once, on
// the calling thread, as soon as the events are being recorded: then let
// the process go on. Returns when it has exited, the time is up or *cancel
// became true (cancel may be null). As root, the helper's action runs in
// this process.
[[nodiscard]] TraceResult trace(int pid, int maxSeconds, const std::function<void()> &tracingOn, const std::atomic<bool> *cancel);

// A process of this user's own (as this process numbers it; held before it
// starts its work) moved into a new memory cgroup limited to limitBytes
// (cache first: memorycgroup.h), removed once it is empty. Where a systemd
// user manager answers on the session bus, it makes a transient scope
// (MemoryHigh=, MemoryMax= a margin above, MemorySwapMax=0); otherwise the
// helper's contain action (docs/helper-security.md rule 17) does, or, as
// root, that action in this process. how: "systemd-run", "helper" or "root".
struct ContainResult : Result {
    QString cgroupPath; // the cgroup's folder
    int version = 0; // 1 or 2
    qint64 limitBytes = 0;
    QString how;
};
[[nodiscard]] ContainResult contain(int pid, qint64 limitBytes);
// Whether a systemd user manager answers on the session bus; *reason says
// why not (for messages: "no systemd user manager answers here").
[[nodiscard]] bool userManagerAvailable(QString *reason = nullptr);
// Reclaims the cached file pages of one cgroup whose processes are all this
// user's, named as /proc/<pid>/cgroup names it ("/user.slice/..."), through
// the helper's reclaim action (docs/helper-security.md rule 17): v2's
// memory.reclaim with swappiness=0; v1 only without swap (force_empty).
struct ReclaimResult : Result {
    uint64_t fileBytesBefore = 0;
    uint64_t fileBytesAfter = 0;
    // The kernel was still reclaiming at the helper's deadline
    // (HelperProtocol::reclaimDeadlineSeconds) and was stopped there.
    bool stoppedAtDeadline = false;
};
[[nodiscard]] ReclaimResult reclaimCgroup(const QString &cgroup);

// The building blocks of the calls above, for asynchronous use.
[[nodiscard]] KAuth::Action dropCachesAction(int level);
[[nodiscard]] KAuth::Action swapOffAction(const QString &area); // empty: all
[[nodiscard]] KAuth::Action swapOnAction(const QString &area); // empty: all
[[nodiscard]] KAuth::Action createExperimentSwapFileAction(qint64 sizeBytes);
[[nodiscard]] KAuth::Action removeExperimentSwapFileAction();
// At most HelperProtocol::maxPathsPerCall absolute, distinct paths.
struct ResidencyRequest {
    QVariantMap arguments;
    int paths = 0;
    // The KAuth action that carries it to the helper.
    [[nodiscard]] KAuth::Action action() const;
};
[[nodiscard]] ResidencyRequest residencyAction(const QList<QByteArray> &absolutePaths, int buckets);
// Turns a finished job into a Result with a sentence for people.
[[nodiscard]] Result resultOf(const KAuth::ExecuteJob *job);
[[nodiscard]] Result resultOf(int kauthError, const QString &errorText, const QVariantMap &data);
[[nodiscard]] DropCachesResult toDropCachesResult(const Result &result);
[[nodiscard]] SwapResult toSwapResult(const Result &result);
// Reads one FileResidency a path; a malformed reply is a failure.
[[nodiscard]] ResidencyResult toResidencyResult(const Result &result, const ResidencyRequest &request);

// swapoff brings every swapped-out page back: allow 2 minutes plus 1 s per
// 16 MiB in use (slow disks do about that), at most 3 hours.
[[nodiscard]] std::chrono::milliseconds swapOffTimeout(uint64_t swapUsedBytes);

// Runs actions one after another; the helper does one at a time.
class RequestQueue : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const Result &)>;
    explicit RequestQueue(QObject *parent = nullptr);
    ~RequestQueue() override;

    void enqueue(const KAuth::Action &action, Callback done);
    [[nodiscard]] int pending() const;

Q_SIGNALS:
    // A request leaves the queue for the helper (authorization comes first).
    void started(const QString &actionName);
    // Progress data from the helper (swapoff: HelperProtocol::progressSwapUsedBytes).
    void progress(const QString &actionName, const QVariantMap &data);

private:
    void startNext();
    struct Request {
        KAuth::Action action;
        Callback done;
    };
    // As root: the helper's action in this process, in m_directWorker.
    void startDirectly(Request request);
    std::deque<Request> m_requests;
    bool m_running = false;
    QThread *m_directWorker = nullptr;
};

} // namespace Cachescope::Privileged
