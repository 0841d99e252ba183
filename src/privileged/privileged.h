// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The unprivileged side of the root helper (src/helper): what the CLI and the
// window call. Each request is a call of the helper's D-Bus system service,
// org.kde.cachescope.Helper1 (src/helperprotocol/org.kde.cachescope.Helper1.xml),
// with polkit's password dialog allowed; long operations are jobs whose
// signals reach this caller alone. Results carry a translated sentence a
// person understands for every failure: not authorized, cancelled, busy, not
// enough memory for swapoff, timeout, ...
//
// Run as root, nothing goes to the helper: root needs no authorization, so
// each request runs the helper's own action in this process, with its checks
// (docs/helper-security.md rule 15).
//
// Synchronous calls (for the CLI and the experiments' worker threads) run an
// event loop of their own until the helper answers. The window uses
// RequestQueue, which runs one request at a time and reports asynchronously.

#include "account.h"
#include "activity/activity.h"
#include "trace/tracereport.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QVariantMap>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

class QThread;

namespace Cachescope::Privileged
{

enum class Failure {
    None,
    NotAuthorized, // polkit said no, or its dialog was dismissed
    Cancelled, // the request was cancelled (by this client, or at the helper)
    Busy, // the helper has too many requests under way (this caller's, or everyone's)
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

struct AccountResult : Result {
    CacheAccount account; // made as root: nothing hidden but what root cannot see
};

struct TraceResult : Result {
    Trace::Capture capture; // the events, lost events, why it ended
};

struct ActivityResult : Result {
    Activity::Interval totals; // the run's
    QString endReason; // "deadline", "cancelled"
};

// Whether the helper can be reached at all: its polkit policy
// (org.kde.cachescope.policy) and its D-Bus activation file
// (org.kde.cachescope.Helper1.service) are installed, or it runs already,
// and a system bus answers, with polkitd on it. When not, *reason says why
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

// The account of Cached made by the helper as root (account.h), so that
// other users' processes, files only mapped, the folders under mount points
// and the block devices are no longer hidden. As root: made in this process.
[[nodiscard]] AccountResult accountOfSystem();
// The page-cache events of process `pid` (this user's own, as this process
// numbers it; held before exec) and its children, recorded by the helper's
// trace action (docs/helper-security.md rule 16) for at most maxSeconds
// (1 to HelperProtocol::maxTraceSeconds). tracingOn() is called once, on
// the calling thread, as soon as the events are being recorded: then let
// the process go on. Returns when it has exited, the time is up or *cancel
// became true (cancel may be null; the helper's job is then cancelled). As
// root, the helper's action runs in this process.
[[nodiscard]] TraceResult trace(int pid, int maxSeconds, const std::function<void()> &tracingOn, const std::atomic<bool> *cancel);
// Who fills the page cache, system-wide, for `seconds` (1 to
// HelperProtocol::maxActivitySeconds), measured by the helper's activity
// action (docs/helper-security.md rule 19): onInterval is called on the
// calling thread every intervalMs with that interval's aggregates. Returns
// with the run's totals when the time is up or *cancel became true (the
// totals so far; cancel may be null). As root, in this process.
[[nodiscard]] ActivityResult
activity(int seconds, int intervalMs, const std::function<void(const Activity::Interval &)> &onInterval, const std::atomic<bool> *cancel);

// A process of this user's own (as this process numbers it; held before it
// starts its work) moved into a new memory cgroup limited to limitBytes
// (cache first: memorycgroup.h), removed once it is empty. Where a systemd
// user manager answers on the session bus, it makes a transient scope
// (MemoryHigh=, MemoryMax= a margin above, MemorySwapMax=0); otherwise the
// helper's contain action (docs/helper-security.md rule 17) does, or, as
// root, that action in this process. how: "systemd-run", "helper" or "root".
// The helper's Contain method is only the fallback where no user manager
// answers.
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
[[nodiscard]] ReclaimResult toReclaimResult(const Result &result);

// --- Asynchronous use (the window) ------------------------------------------

// What a request asks of the helper: one method of its D-Bus interface
// (org.kde.cachescope.Helper1.xml), or as root one of its actions in this
// process.
enum class Operation {
    DropCaches,
    SwapOff,
    SwapOn,
    CreateExperimentSwapFile,
    RemoveExperimentSwapFile,
    Residency,
    Trace,
    Contain,
    Reclaim,
    Account,
    Activity,
};

// One request: its operation, its arguments keyed as helperprotocol.h names
// them (the helper's actions take this very map as root; over the bus they
// become the method's typed arguments), and how long the client waits for
// the answer, the password dialog included.
struct Request {
    Operation operation = Operation::DropCaches;
    QVariantMap arguments;
    std::chrono::milliseconds timeout{0};
};
[[nodiscard]] Request dropCachesRequest(int level);
[[nodiscard]] Request swapOffRequest(const QString &area); // empty: all
[[nodiscard]] Request swapOnRequest(const QString &area); // empty: all
[[nodiscard]] Request createExperimentSwapFileRequest(qint64 sizeBytes);
[[nodiscard]] Request removeExperimentSwapFileRequest();
// 1 to HelperProtocol::maxPathsPerCall absolute, distinct paths.
[[nodiscard]] Request residencyRequest(const QList<QByteArray> &absolutePaths, int buckets);
[[nodiscard]] Request traceRequest(int pid, int maxSeconds);
[[nodiscard]] Request containRequest(int pid, qint64 limitBytes);
[[nodiscard]] Request reclaimRequest(const QString &cgroup);
[[nodiscard]] Request accountRequest();
[[nodiscard]] Request activityRequest(int seconds, int intervalMs);

// The answer to one request. data holds the figures keyed as
// helperprotocol.h's reply keys (the same from the bus and from the
// helper's action in this process); a residency request's files and a
// trace's capture come in their own members, checked against the limits.
struct Reply : Result {
    std::vector<FileResidency> files; // residency: one a path, in their order
    Trace::Capture capture; // trace
    CacheAccount account; // account
};

// The Result of a D-Bus error (a method's error reply, or a job's Failed
// signal): errorName as org.kde.cachescope.Helper1.xml names it
// (org.kde.cachescope.Helper1.Error.*) or as the bus does
// (org.freedesktop.DBus.Error.*), message the sender's sentence. Every
// failure has a sentence for people.
[[nodiscard]] Result resultOfError(const QString &errorName, const QString &message);
[[nodiscard]] DropCachesResult toDropCachesResult(const Result &result);
[[nodiscard]] SwapResult toSwapResult(const Result &result);
[[nodiscard]] ResidencyResult toResidencyResult(const Reply &reply);

// swapoff brings every swapped-out page back: allow 2 minutes plus 1 s per
// 16 MiB in use (slow disks do about that), at most 3 hours.
[[nodiscard]] std::chrono::milliseconds swapOffTimeout(uint64_t swapUsedBytes);

// Runs requests one after another and reports each asynchronously, on the
// thread the queue lives in: the window's requests, so that a second click
// waits its turn. Each goes to the helper over the system bus, or as root
// to the helper's action in a thread of this process.
class RequestQueue : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const Reply &)>;
    explicit RequestQueue(QObject *parent = nullptr);
    // A request still under way at the helper goes on there; its answer is dropped.
    ~RequestQueue() override;

    void enqueue(const Request &request, Callback done);
    [[nodiscard]] int pending() const;

Q_SIGNALS:
    // A request leaves the queue for the helper (authorization comes first).
    void started(Cachescope::Privileged::Operation operation);
    // Progress data from the helper, keyed as helperprotocol.h's progress keys
    // (swapoff: progressArea and progressSwapUsedBytes; trace: progressTracing).
    void progress(Cachescope::Privileged::Operation operation, const QVariantMap &data);

private:
    struct Entry {
        Request request;
        Callback done;
    };
    void startNext();
    void finish(const Callback &done, const Reply &reply);
    // As root: the helper's action in this process, in m_directWorker.
    void startDirectly(Entry entry);
    std::deque<Entry> m_requests;
    bool m_running = false;
    QThread *m_directWorker = nullptr;
    QPointer<QObject> m_busCall; // the request under way over the bus
};

} // namespace Cachescope::Privileged
