// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "privileged.h"
#include "activityanswer.h"
#include "cachescope_privileged_debug.h"
#include "helperactions.h"
#include "helperbus.h"
#include "helperprotocol.h"
#include "privilegedcall.h"
#include "residencyanswer.h"
#include "tracecapture.h"

#include "procfs.h"
#include "residency.h"

#include <KLocalizedString>

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusReply>
#include <QFileInfo>
#include <QThread>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <syslog.h>
#include <unistd.h>

namespace Cachescope::Privileged
{

using namespace HelperProtocol;

namespace
{

// Where the package puts what makes the helper reachable: polkit's policy
// (polkitd reads only its one folder) and the bus's activation file (any of
// the system bus's standard folders).
constexpr const char *policyFile = "/usr/share/polkit-1/actions/org.kde.cachescope.policy";
constexpr const char *activationFileName = "org.kde.cachescope.Helper1.service";
constexpr const char *activationFolders[] = {
    "/usr/share/dbus-1/system-services",
    "/usr/local/share/dbus-1/system-services",
    "/lib/dbus-1/system-services",
};

Reply replyOf(const Result &result)
{
    Reply reply;
    static_cast<Result &>(reply) = result;
    return reply;
}

Reply failure(Failure kind, const QString &message)
{
    return replyOf({kind, message, {}});
}

uint64_t number(const QVariantMap &map, QLatin1StringView key)
{
    return map.value(key).toULongLong();
}

QVariantMap areaArguments(const QString &area)
{
    QVariantMap arguments;
    if (area.isEmpty()) {
        arguments.insert(QString(keyAll), true);
    } else {
        arguments.insert(QString(keyArea), area);
    }
    return arguments;
}

// docs/helper-security.md rule 15: root needs no authorization, so it does not
// ask the helper (which refuses uid 0) and acts in this process, through the
// helper's own action functions: the same argument checks, the same
// refusals, the same state file.
bool actsDirectly()
{
    return geteuid() == 0;
}

using HelperAction = Helper::ActionReply (*)(const QVariantMap &, const Helper::Caller &, Helper::HelperContext &);

HelperAction helperActionFor(Operation operation)
{
    switch (operation) {
    case Operation::DropCaches:
        return Helper::dropCachesAction;
    case Operation::SwapOff:
        return Helper::swapOffAction;
    case Operation::SwapOn:
        return Helper::swapOnAction;
    case Operation::CreateExperimentSwapFile:
        return Helper::swapFileCreateAction;
    case Operation::RemoveExperimentSwapFile:
        return Helper::swapFileRemoveAction;
    case Operation::Residency:
        return Helper::residencyAction;
    case Operation::Trace:
        return Helper::traceAction;
    case Operation::Contain:
        return Helper::containAction;
    case Operation::Reclaim:
        return Helper::reclaimAction;
    case Operation::Account:
        return Helper::accountAction;
    case Operation::Activity:
        return Helper::activityAction;
    }
    return nullptr;
}

// An action's refusal (HelperProtocol::HelperError) as the D-Bus error the
// service answers it with, so that both ways read alike.
QString errorNameOfCode(int code)
{
    switch (code) {
    case InvalidArgument:
        return QString(errorInvalidArgument);
    case NotPermitted:
        return QString(errorNotPermitted);
    case NotEnoughMemory:
        return QString(errorNotEnoughMemory);
    case Unsupported:
        return QString(errorUnsupported);
    case AlreadyDone:
        return QString(errorAlreadyDone);
    case CallerUnknown:
        return QString(errorCallerUnknown);
    default:
        return QString(errorSystemFailure);
    }
}

Reply unreadable(const char *what)
{
    qCWarning(CACHESCOPE_PRIVILEGED) << "the helper's action answered malformed" << what;
    return failure(Failure::Failed, i18nc("@info", "The Cachescope helper's answer could not be read, so nothing of it is used."));
}

// The helper's work for root, in this process. progress gets what the
// service would send as progress signals, keyed as helperprotocol.h's
// progress keys; stopped stands for a Cancel of the job.
Reply performDirectly(const Request &request, const std::function<void(const QVariantMap &)> &progress, const std::function<bool()> &stopped = {})
{
    if (request.operation == Operation::Account) {
        // Root sees everything itself: the account is this process's own
        // (the helper's action would start the helper's program for it).
        Reply out;
        out.account = accountCache();
        return out;
    }
    const HelperAction perform = helperActionFor(request.operation);
    qCDebug(CACHESCOPE_PRIVILEGED) << "running as root: operation" << int(request.operation) << "in this process, without the helper";
    Helper::SystemCalls system;
    // The helper's own defaults: /proc, /run/cachescope, /var/lib/cachescope.
    Helper::HelperContext context;
    context.system = &system;
    context.progress = progress;
    context.stopped = stopped;
    // The audit line goes to syslog as the helper's does, not to stderr: the
    // CLI's output stays its own.
    context.log = [](const QString &line) {
        syslog(LOG_AUTHPRIV | LOG_NOTICE, "%s", line.toUtf8().constData());
    };
    // Children killed at a deadline that had not ended (docs/helper-security.md
    // rule 14) are kept across calls, as the helper keeps them, to be reaped
    // at a later call and counted against the same cap.
    static const std::shared_ptr<Helper::AbandonedChildren> abandoned = std::make_shared<Helper::AbandonedChildren>();
    context.abandonedChildren = abandoned;
    const Helper::Caller root{0};
    const Helper::ActionReply reply = perform(request.arguments, root, context);
    if (reply.failed()) {
        return replyOf(resultOfError(errorNameOfCode(reply.error()), reply.errorDescription()));
    }
    Reply out;
    out.data = reply.data();
    // The answers the service would send as typed arrays are bytes here
    // (residencyanswer.h, tracecapture.h), read with the same limits.
    if (request.operation == Operation::Residency) {
        const std::optional<QList<FileResidencyAnswer>> files =
            parseFileResults(out.data.take(QString(replyFiles)).toByteArray(), maxPathsPerCall, request.arguments.value(keyBuckets).toInt());
        if (!files || files->size() != request.arguments.value(keyCount).toInt()) {
            return unreadable("residency");
        }
        for (const FileResidencyAnswer &answer : *files) {
            FileResidency file;
            file.error = answer.error;
            file.hidden = answer.hidden;
            file.device = answer.device;
            file.inode = answer.inode;
            file.sizeBytes = answer.sizeBytes;
            file.pages = answer.pages;
            file.resident = answer.resident;
            file.method = answer.method;
            file.detail = answer.detail;
            file.dirty = answer.dirty;
            file.writeback = answer.writeback;
            file.histogram.assign(answer.histogram.begin(), answer.histogram.end());
            out.files.push_back(std::move(file));
        }
    } else if (request.operation == Operation::Trace) {
        std::optional<Trace::Capture> capture = parseCapture(out.data.take(QString(replyCapture)).toByteArray());
        if (!capture) {
            return unreadable("trace");
        }
        out.capture = std::move(*capture);
    }
    return out;
}

} // namespace

Reply runSynchronously(const Request &request, const std::function<void(const QVariantMap &)> &progress, const std::function<bool()> &cancelled)
{
    if (actsDirectly()) {
        return performDirectly(request, progress, cancelled);
    }
    QString reason;
    if (!helperAvailable(&reason)) {
        qCDebug(CACHESCOPE_PRIVILEGED) << "operation" << int(request.operation) << "not sent:" << reason;
        return failure(Failure::Unavailable, reason);
    }
    return runOnBus(request, progress, cancelled);
}

bool runsAsRoot()
{
    return actsDirectly();
}

MemoryFigures MemoryFigures::fromVariantMap(const QVariantMap &map)
{
    MemoryFigures figures;
    figures.memTotal = number(map, HelperProtocol::memTotal);
    figures.memFree = number(map, HelperProtocol::memFree);
    figures.memAvailable = number(map, HelperProtocol::memAvailable);
    figures.buffers = number(map, HelperProtocol::memBuffers);
    figures.cached = number(map, HelperProtocol::memCached);
    figures.sReclaimable = number(map, HelperProtocol::memSReclaimable);
    figures.dirty = number(map, HelperProtocol::memDirty);
    figures.swapTotal = number(map, HelperProtocol::memSwapTotal);
    figures.swapFree = number(map, HelperProtocol::memSwapFree);
    return figures;
}

bool helperAvailable(QString *reason)
{
    // docs/helper-security.md rule 15: root acts directly, with no bus and no polkit.
    if (actsDirectly()) {
        return true;
    }
    auto fail = [reason](const QString &why) {
        if (reason) {
            *reason = why;
        }
        return false;
    };
    // Tests put a fake service on a private session bus: no polkit there,
    // nothing installed.
    const bool sessionBus = helperOnSessionBus();
    if (!sessionBus && !QFileInfo::exists(QLatin1String(policyFile))) {
        return fail(i18nc("@info %1 is a file", "The Cachescope helper is not installed: polkit has no actions for it (%1).", QLatin1String(policyFile)));
    }
    QDBusConnection bus = helperBus();
    if (!bus.isConnected() || !bus.interface()) {
        return fail(i18nc("@info", "There is no system D-Bus to reach the Cachescope helper."));
    }
    const QDBusReply<QStringList> activatable = bus.interface()->activatableServiceNames();
    if (!activatable.isValid()) {
        return fail(i18nc("@info %1 is D-Bus's error text", "The system D-Bus does not answer: %1", activatable.error().message()));
    }
    if (!sessionBus) {
        const bool polkitThere = bus.interface()->isServiceRegistered(QStringLiteral("org.freedesktop.PolicyKit1")).value()
            || activatable.value().contains(QStringLiteral("org.freedesktop.PolicyKit1"));
        if (!polkitThere) {
            return fail(i18nc("@info", "No polkit daemon runs on this system, so administrator actions cannot be authorized."));
        }
    }
    // Installed: the bus starts it on the first call (it has read the
    // activation file), or it runs already.
    if (!activatable.value().contains(QString(busName)) && !bus.interface()->isServiceRegistered(QString(busName)).value()) {
        QString folders;
        for (const char *folder : activationFolders) {
            folders += (folders.isEmpty() ? QString() : QStringLiteral(", ")) + QLatin1String(folder);
        }
        return fail(i18nc("@info %1 is a D-Bus name, %2 a file name, %3 folders",
                          "The Cachescope helper (%1) is not installed for the system bus: there is no %2 in %3.",
                          QString(busName),
                          QLatin1String(activationFileName),
                          folders));
    }
    return true;
}

std::chrono::milliseconds swapOffTimeout(uint64_t swapUsedBytes)
{
    using namespace std::chrono;
    const milliseconds estimate = minutes(2) + seconds(swapUsedBytes / (16ULL << 20));
    return std::min<milliseconds>(estimate, hours(3));
}

Request dropCachesRequest(int level)
{
    // sync() first can take long with much unsaved data.
    return {Operation::DropCaches, {{QString(keyLevel), level}}, std::chrono::minutes(10)};
}

Request swapOffRequest(const QString &area)
{
    // docs/helper-security.md rule 10: an explicit timeout long enough for the swap in use now.
    const std::optional<MemInfo> memInfo = readMemInfo();
    const uint64_t used = memInfo ? freeFigures(*memInfo).swapUsed : 0;
    return {Operation::SwapOff, areaArguments(area), swapOffTimeout(used)};
}

Request swapOnRequest(const QString &area)
{
    return {Operation::SwapOn, areaArguments(area), std::chrono::minutes(2)};
}

Request createExperimentSwapFileRequest(qint64 sizeBytes)
{
    // The helper takes only whole pages and does not round: round down here,
    // as the size was always meant. Writing up to 4 GiB of zeros takes a while.
    const qint64 page = qint64(pageSize());
    return {Operation::CreateExperimentSwapFile, {{QString(keySizeBytes), sizeBytes / page * page}}, std::chrono::minutes(15)};
}

Request removeExperimentSwapFileRequest()
{
    return {Operation::RemoveExperimentSwapFile, {}, swapOffTimeout(maxExperimentSwapBytes)};
}

Request residencyRequest(const QList<QByteArray> &absolutePaths, int buckets)
{
    QVariantMap arguments{{QString(keyCount), int(absolutePaths.size())}, {QString(keyBuckets), buckets}};
    for (int i = 0; i < absolutePaths.size(); ++i) {
        arguments.insert(pathKey(i), absolutePaths[i]);
    }
    // The helper gives each path residencyDeadlineSeconds, all at once; the
    // password dialog comes first.
    return {Operation::Residency, arguments, std::chrono::minutes(2)};
}

Request traceRequest(int pid, int maxSeconds)
{
    // docs/helper-security.md rule 14: the trace's own time, plus the
    // password dialog that comes first.
    return {Operation::Trace,
            {{QString(keyPid), pid}, {QString(keySeconds), maxSeconds}},
            std::chrono::seconds(std::max(maxSeconds, 0)) + std::chrono::minutes(2)};
}

Request containRequest(int pid, qint64 limitBytes)
{
    // The password dialog, then a moment's work.
    return {Operation::Contain, {{QString(keyPid), pid}, {QString(keyLimitBytes), limitBytes}}, std::chrono::minutes(2)};
}

Request reclaimRequest(const QString &cgroup)
{
    // The helper stops the kernel's reclaim after reclaimDeadlineSeconds;
    // the rest is for the password dialog.
    return {Operation::Reclaim, {{QString(keyCgroup), cgroup}}, std::chrono::minutes(2)};
}

Request activityRequest(int seconds, int intervalMs)
{
    // The run and a minute or two for the password dialog.
    return {Operation::Activity, {{QString(keySeconds), seconds}, {QString(keyIntervalMs), intervalMs}}, std::chrono::seconds(seconds + 120)};
}

Request accountRequest()
{
    // The walk of / and of every process as root, the password dialog
    // included: the helper's own deadline and a minute more.
    return {Operation::Account, {}, std::chrono::seconds(accountDeadlineSeconds + 60)};
}

DropCachesResult toDropCachesResult(const Result &result)
{
    DropCachesResult out;
    static_cast<Result &>(out) = result;
    out.level = result.data.value(keyLevel).toInt();
    out.before = MemoryFigures::fromVariantMap(result.data.value(replyBefore).toMap());
    out.after = MemoryFigures::fromVariantMap(result.data.value(replyAfter).toMap());
    return out;
}

SwapResult toSwapResult(const Result &result)
{
    SwapResult out;
    static_cast<Result &>(out) = result;
    out.areas = result.data.value(replyTurnedOff, result.data.value(replyTurnedOn)).toStringList();
    const QVariantList priorities = result.data.value(replyPriorities).toList();
    for (const QVariant &priority : priorities) {
        out.priorities << priority.toInt();
    }
    const QVariantList areas = result.data.value(replyAreas).toList();
    for (const QVariant &value : areas) {
        const QVariantMap area = value.toMap();
        out.outcomes.append(
            {area.value(areaName).toString(), area.value(areaOutcome).toString(), area.value(areaPriority).toInt(), area.value(areaMessage).toString()});
    }
    return out;
}

ResidencyResult toResidencyResult(const Reply &reply)
{
    ResidencyResult out;
    static_cast<Result &>(out) = reply;
    if (out.ok()) {
        // Checked against the request where the reply was read.
        out.files = reply.files;
    }
    return out;
}

DropCachesResult dropCaches(int level)
{
    return toDropCachesResult(runSynchronously(dropCachesRequest(level)));
}

SwapResult swapOff(const QString &area)
{
    if (area.isEmpty()) {
        return toSwapResult({Failure::InvalidRequest, i18nc("@info", "Name the swap area to turn off, or use swapOffAll()."), {}});
    }
    return toSwapResult(runSynchronously(swapOffRequest(area)));
}

SwapResult swapOffAll()
{
    return toSwapResult(runSynchronously(swapOffRequest(QString())));
}

SwapResult swapOn(const QString &area)
{
    if (area.isEmpty()) {
        return toSwapResult({Failure::InvalidRequest, i18nc("@info", "Name the swap area to turn on, or use swapOnAll()."), {}});
    }
    return toSwapResult(runSynchronously(swapOnRequest(area)));
}

SwapResult swapOnAll()
{
    return toSwapResult(runSynchronously(swapOnRequest(QString())));
}

Result createExperimentSwapFile(qint64 sizeBytes)
{
    return runSynchronously(createExperimentSwapFileRequest(sizeBytes));
}

Result removeExperimentSwapFile()
{
    return runSynchronously(removeExperimentSwapFileRequest());
}

AccountResult accountOfSystem()
{
    const Reply reply = runSynchronously(accountRequest());
    AccountResult out;
    static_cast<Result &>(out) = reply;
    if (out.ok()) {
        out.account = reply.account;
    }
    return out;
}

ResidencyResult residencyOfPaths(const QList<QByteArray> &paths, int buckets)
{
    QByteArray folder;
    if (char *cwd = getcwd(nullptr, 0)) {
        folder = QByteArray(cwd) + '/';
        free(cwd);
    }
    // Each distinct absolute path once (the helper refuses a path twice in a
    // call); every caller's position gets its answer.
    QList<QByteArray> distinct;
    std::map<QByteArray, qsizetype> indexOf;
    std::vector<qsizetype> positions;
    for (const QByteArray &path : paths) {
        const QByteArray absolute = path.startsWith('/') ? path : folder + path;
        const auto [found, added] = indexOf.emplace(absolute, distinct.size());
        if (added) {
            distinct.append(absolute);
        }
        positions.push_back(found->second);
    }
    ResidencyResult out;
    std::vector<FileResidency> answers;
    for (qsizetype start = 0; start < distinct.size(); start += maxPathsPerCall) {
        ResidencyResult chunk = toResidencyResult(runSynchronously(residencyRequest(distinct.mid(start, maxPathsPerCall), std::clamp(buckets, 1, maxBuckets))));
        if (!chunk.ok()) {
            static_cast<Result &>(out) = chunk;
            return out;
        }
        std::move(chunk.files.begin(), chunk.files.end(), std::back_inserter(answers));
    }
    for (const qsizetype position : positions) {
        out.files.push_back(answers[size_t(position)]);
    }
    return out;
}

TraceResult trace(int pid, int maxSeconds, const std::function<void()> &tracingOn, const std::atomic<bool> *cancel)
{
    bool announced = false;
    const auto onProgress = [&announced, &tracingOn](const QVariantMap &data) {
        if (!announced && data.value(progressTracing).toBool()) {
            announced = true;
            if (tracingOn) {
                tracingOn();
            }
        }
    };
    const auto cancelled = [cancel] {
        return cancel && cancel->load();
    };
    // Over the bus a cancel is the job's Cancel(); in process the action
    // sees it through its stopped() and ends early.
    Reply reply = runSynchronously(traceRequest(pid, maxSeconds), onProgress, cancelled);
    TraceResult out;
    static_cast<Result &>(out) = reply;
    out.data.clear(); // the events are in capture
    // Cancelled is cancelled on both ways: over the bus the job was
    // cancelled, in process the action stopped early and answered.
    if (cancelled()) {
        out.failure = Failure::Cancelled;
        out.message = i18nc("@info", "The trace was cancelled.");
        return out;
    }
    if (out.ok()) {
        out.capture = std::move(reply.capture);
    }
    return out;
}

ActivityResult activity(int seconds, int intervalMs, const std::function<void(const Activity::Interval &)> &onInterval, const std::atomic<bool> *cancel)
{
    const auto onProgress = [&onInterval](const QVariantMap &data) {
        if (!data.contains(progressActivity)) {
            return;
        }
        if (const std::optional<Activity::Interval> interval = parseActivity(data.value(progressActivity).toByteArray()); interval && onInterval) {
            onInterval(*interval);
        }
    };
    const auto cancelled = [cancel] {
        return cancel && cancel->load();
    };
    // A cancel ends the run early with its totals, on both ways: over the
    // bus Cancel() makes the job complete, in process the action's stopped().
    Reply reply = runSynchronously(activityRequest(seconds, intervalMs), onProgress, cancelled);
    ActivityResult out;
    static_cast<Result &>(out) = reply;
    out.data.clear();
    if (!out.ok()) {
        return out;
    }
    std::optional<Activity::Interval> totals = parseActivity(reply.data.value(replyActivity).toByteArray());
    if (!totals) {
        out.failure = Failure::Failed;
        out.message = i18nc("@info", "The helper's answer to the activity could not be read.");
        return out;
    }
    out.totals = std::move(*totals);
    out.endReason = reply.data.value(replyEndReason).toString();
    return out;
}

RequestQueue::RequestQueue(QObject *parent)
    : QObject(parent)
{
}

RequestQueue::~RequestQueue()
{
    // A root request still running in its thread ends before the queue goes.
    if (m_directWorker) {
        m_directWorker->wait();
        delete m_directWorker;
    }
    // One at the helper goes on there; nothing of it reaches us any more.
    if (auto *call = qobject_cast<BusCall *>(m_busCall.data())) {
        call->detach();
    }
}

void RequestQueue::enqueue(const Request &request, Callback done)
{
    m_requests.push_back({request, std::move(done)});
    if (!m_running) {
        startNext();
    }
}

int RequestQueue::pending() const
{
    return int(m_requests.size()) + (m_running ? 1 : 0);
}

void RequestQueue::finish(const Callback &done, const Reply &reply)
{
    if (done) {
        done(reply);
    }
    startNext();
}

void RequestQueue::startNext()
{
    if (m_requests.empty()) {
        m_running = false;
        return;
    }
    Entry entry = std::move(m_requests.front());
    m_requests.pop_front();
    m_running = true;
    const Operation operation = entry.request.operation;
    if (actsDirectly()) {
        Q_EMIT started(operation);
        startDirectly(std::move(entry));
        return;
    }
    QString reason;
    if (!helperAvailable(&reason)) {
        qCDebug(CACHESCOPE_PRIVILEGED) << "operation" << int(operation) << "not sent:" << reason;
        finish(entry.done, failure(Failure::Unavailable, reason));
        return;
    }
    qCDebug(CACHESCOPE_PRIVILEGED) << "sending operation" << int(operation) << "," << m_requests.size() << "more waiting";
    Q_EMIT started(operation);
    auto *call = new BusCall(
        entry.request,
        helperBus(),
        [this, done = std::move(entry.done)](const Reply &reply) {
            m_busCall = nullptr;
            finish(done, reply);
        },
        [this, operation](const QVariantMap &data) {
            Q_EMIT progress(operation, data);
        });
    m_busCall = call;
    call->start();
}

void RequestQueue::startDirectly(Entry entry)
{
    // As root, the helper's work runs in this process (actsDirectly), in a
    // thread of its own: sync() and swapoff can take minutes, and the window
    // stays responsive meanwhile, as it does while the helper works.
    const Operation operation = entry.request.operation;
    auto reply = std::make_shared<Reply>();
    auto reportProgress = [this, operation](const QVariantMap &data) {
        QMetaObject::invokeMethod(
            this,
            [this, operation, data] {
                Q_EMIT progress(operation, data);
            },
            Qt::QueuedConnection);
    };
    m_directWorker = QThread::create([request = entry.request, reply, reportProgress] {
        *reply = performDirectly(request, reportProgress);
    });
    connect(m_directWorker, &QThread::finished, this, [this, reply, done = std::move(entry.done)] {
        m_directWorker->deleteLater();
        m_directWorker = nullptr;
        finish(done, *reply);
    });
    m_directWorker->start();
}

} // namespace Cachescope::Privileged
