// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "privileged.h"
#include "cachescope_privileged_debug.h"
#include "helperactions.h"
#include "helperprotocol.h"
#include "privilegedcall.h"
#include "residencyanswer.h"
#include "tracecapture.h"

#include "procfs.h"
#include "residency.h"

#include <KAuth/ActionReply>
#include <KAuth/ExecuteJob>
#include <KLocalizedString>

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QEventLoop>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QThread>
#include <QTimer>

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
// What a request is before it becomes a KAuth::Action. Root runs it in this
// process (rule 15) and never makes the KAuth::Action at all: making one
// starts KAuth's polkit backend, which asks for a system bus root does not
// need.
struct ActionSpec {
    QLatin1StringView name;
    QVariantMap arguments;
    std::chrono::milliseconds timeout;
};

KAuth::Action makeAction(const ActionSpec &spec)
{
    KAuth::Action action{QString(spec.name)};
    action.setHelperId(QString(helperId));
    action.setArguments(spec.arguments);
    action.setTimeout(spec.timeout);
    // docs/helper-security.md rule 8: no DetailMessage. polkitd would show a
    // client's text instead of the actions file's own message, so any program
    // could ask for swapoff under a reassuring sentence; the policy's
    // messages are exact and are the only ones shown.
    return action;
}

ActionSpec dropCachesSpec(int level)
{
    // sync() first can take long with much unsaved data.
    return {actionDropCaches, {{QString(keyLevel), level}}, std::chrono::minutes(10)};
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

ActionSpec swapOffSpec(const QString &area)
{
    // docs/helper-security.md rule 10: an explicit timeout long enough for the swap in use now.
    const std::optional<MemInfo> memInfo = readMemInfo();
    const uint64_t used = memInfo ? freeFigures(*memInfo).swapUsed : 0;
    return {actionSwapOff, areaArguments(area), swapOffTimeout(used)};
}

ActionSpec swapOnSpec(const QString &area)
{
    return {actionSwapOn, areaArguments(area), std::chrono::minutes(2)};
}

ActionSpec createExperimentSwapFileSpec(qint64 sizeBytes)
{
    // The helper takes only whole pages and does not round: round down here,
    // as the size was always meant. Writing up to 4 GiB of zeros takes a while.
    const qint64 page = qint64(pageSize());
    return {actionSwapFileCreate, {{QString(keySizeBytes), sizeBytes / page * page}}, std::chrono::minutes(15)};
}

ActionSpec removeExperimentSwapFileSpec()
{
    return {actionSwapFileRemove, {}, swapOffTimeout(maxExperimentSwapBytes)};
}

ActionSpec residencySpec(const ResidencyRequest &request)
{
    // The helper gives each path residencyDeadlineSeconds, all at once; the
    // password dialog comes first.
    return {actionResidency, request.arguments, std::chrono::minutes(2)};
}

uint64_t number(const QVariantMap &map, QLatin1StringView key)
{
    return map.value(key).toULongLong();
}

// docs/helper-security.md rule 15: root needs no authorization, so it does not
// ask the helper (which refuses uid 0, KAuth's "could not look the caller up")
// and acts in this process, through the helper's own action functions: the
// same argument checks, the same refusals, the same state file.
bool actsDirectly()
{
    return geteuid() == 0;
}

using HelperAction = Helper::ActionReply (*)(const QVariantMap &, const Helper::Caller &, Helper::HelperContext &);

HelperAction helperActionNamed(const QString &name)
{
    static const std::pair<QLatin1StringView, HelperAction> actions[] = {
        {actionDropCaches, Helper::dropCachesAction},
        {actionSwapOff, Helper::swapOffAction},
        {actionSwapOn, Helper::swapOnAction},
        {actionSwapFileCreate, Helper::swapFileCreateAction},
        {actionSwapFileRemove, Helper::swapFileRemoveAction},
        {actionResidency, Helper::residencyAction},
        {actionTrace, Helper::traceAction},
        {actionContain, Helper::containAction},
        {actionReclaim, Helper::reclaimAction},
    };
    for (const auto &[actionName, function] : actions) {
        if (name == actionName) {
            return function;
        }
    }
    return nullptr;
}

// The helper's work for root, in this process. progress gets what the helper
// would send as KAuth progress data; stopped stands for KAuth's isStopped().
Result performDirectly(const QString &actionName,
                       const QVariantMap &arguments,
                       const std::function<void(const QVariantMap &)> &progress,
                       const std::function<bool()> &stopped = {})
{
    const HelperAction perform = helperActionNamed(actionName);
    if (!perform) {
        return resultOf(KAuth::ActionReply::NoSuchActionError, actionName, {});
    }
    qCDebug(CACHESCOPE_PRIVILEGED) << "running as root:" << actionName << "in this process, without the helper";
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
    static std::mutex abandonedMutex;
    static std::vector<int> abandoned;
    {
        const std::lock_guard lock(abandonedMutex);
        context.abandonedChildren.swap(abandoned);
    }
    const Helper::Caller root{0};
    const Helper::ActionReply reply = perform(arguments, root, context);
    {
        const std::lock_guard lock(abandonedMutex);
        abandoned.insert(abandoned.end(), context.abandonedChildren.begin(), context.abandonedChildren.end());
    }
    // As KAuth's ExecuteJob takes a reply from the bus: a failure's code and
    // sentence, a success's data.
    if (reply.failed()) {
        return resultOf(reply.error(), reply.errorDescription(), {});
    }
    return resultOf(0, QString(), reply.data());
}

Result runSynchronously(const ActionSpec &spec)
{
    if (actsDirectly()) {
        return performDirectly(QString(spec.name), spec.arguments, {});
    }
    QString reason;
    if (!helperAvailable(&reason)) {
        qCDebug(CACHESCOPE_PRIVILEGED) << spec.name << "not sent:" << reason;
        return {Failure::Unavailable, reason, {}};
    }
    qCDebug(CACHESCOPE_PRIVILEGED) << "sending" << spec.name << "and waiting for the answer";
    KAuth::Action action = makeAction(spec);
    KAuth::ExecuteJob *job = action.execute();
    job->setAutoDelete(false);
    job->exec();
    const Result result = resultOf(job);
    delete job;
    return result;
}
} // namespace

Result runHelperAction(QLatin1StringView name, const QVariantMap &arguments, std::chrono::milliseconds timeout)
{
    return runSynchronously({name, arguments, timeout});
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
    QDBusConnection bus = QDBusConnection::systemBus();
    if (!bus.isConnected() || !bus.interface()) {
        return fail(i18nc("@info", "There is no system D-Bus to reach the Cachescope helper."));
    }
    const QStringList activatable = bus.interface()->activatableServiceNames().value();
    const bool polkitThere = bus.interface()->isServiceRegistered(QStringLiteral("org.freedesktop.PolicyKit1")).value()
        || activatable.contains(QStringLiteral("org.freedesktop.PolicyKit1"));
    if (!polkitThere) {
        return fail(i18nc("@info", "No polkit daemon runs on this system, so administrator actions cannot be authorized."));
    }
    if (!activatable.contains(QString(helperId)) && !bus.interface()->isServiceRegistered(QString(helperId)).value()) {
        return fail(i18nc("@info %1 is the helper's D-Bus name", "The Cachescope helper (%1) is not installed for the system bus.", QString(helperId)));
    }
    return true;
}

std::chrono::milliseconds swapOffTimeout(uint64_t swapUsedBytes)
{
    using namespace std::chrono;
    const milliseconds estimate = minutes(2) + seconds(swapUsedBytes / (16ULL << 20));
    return std::min<milliseconds>(estimate, hours(3));
}

KAuth::Action dropCachesAction(int level)
{
    return makeAction(dropCachesSpec(level));
}

KAuth::Action swapOffAction(const QString &area)
{
    return makeAction(swapOffSpec(area));
}

KAuth::Action swapOnAction(const QString &area)
{
    return makeAction(swapOnSpec(area));
}

KAuth::Action createExperimentSwapFileAction(qint64 sizeBytes)
{
    return makeAction(createExperimentSwapFileSpec(sizeBytes));
}

KAuth::Action removeExperimentSwapFileAction()
{
    return makeAction(removeExperimentSwapFileSpec());
}

ResidencyRequest residencyAction(const QList<QByteArray> &absolutePaths, int buckets)
{
    ResidencyRequest request;
    request.paths = int(absolutePaths.size());
    QVariantMap arguments{{QString(keyCount), request.paths}, {QString(keyBuckets), buckets}};
    for (int i = 0; i < absolutePaths.size(); ++i) {
        arguments.insert(pathKey(i), absolutePaths[i]);
    }
    request.arguments = arguments;
    return request;
}

KAuth::Action ResidencyRequest::action() const
{
    return makeAction(residencySpec(*this));
}

Result resultOf(int kauthError, const QString &errorText, const QVariantMap &data)
{
    Result result;
    result.data = data;
    if (kauthError == 0) {
        return result;
    }
    switch (kauthError) {
    case KAuth::ActionReply::AuthorizationDeniedError:
        // KAuth reports a polkit denial with no text at all.
        result.failure = Failure::NotAuthorized;
        result.message = i18nc("@info", "You are not authorized to do this: polkit refused the request. Ask an administrator, or sign in as one.");
        return result;
    case KAuth::ActionReply::UserCancelledError:
        result.failure = Failure::Cancelled;
        result.message = i18nc("@info", "The request was cancelled in the authentication dialog.");
        return result;
    case KAuth::ActionReply::HelperBusyError:
    case KAuth::ActionReply::AlreadyStartedError:
        result.failure = Failure::Busy;
        result.message = i18nc("@info", "The Cachescope helper is busy with another request; try again when it has finished.");
        return result;
    case KAuth::ActionReply::NoSuchActionError:
    case KAuth::ActionReply::NoResponderError:
    case KAuth::ActionReply::InvalidActionError:
        result.failure = Failure::Unavailable;
        result.message =
            i18nc("@info %1 is KAuth's error text", "The installed Cachescope helper does not offer this action (%1); reinstall Cachescope.", errorText);
        return result;
    case KAuth::ActionReply::DBusError:
    case KAuth::ActionReply::BackendError:
        if (errorText.contains(QLatin1String("NoReply")) || errorText.contains(QLatin1String("Did not receive a reply"))
            || errorText.contains(QLatin1String("timeout"), Qt::CaseInsensitive) || errorText.contains(QLatin1String("timed out"))) {
            result.failure = Failure::Timeout;
            result.message = i18nc("@info", "The Cachescope helper did not answer in time. The operation may still be running; check again in a moment.");
        } else {
            result.failure = Failure::Unavailable;
            result.message = i18nc("@info %1 is D-Bus's error text", "Cannot reach the Cachescope helper: %1", errorText);
        }
        return result;
    case InvalidArgument:
        result.failure = Failure::InvalidRequest;
        break;
    case NotPermitted:
    case CallerUnknown:
        result.failure = Failure::Refused;
        break;
    case NotEnoughMemory:
        result.failure = Failure::NotEnoughMemory;
        break;
    case Unsupported:
        result.failure = Failure::Unsupported;
        break;
    case AlreadyDone:
        result.failure = Failure::NothingToDo;
        break;
    default:
        result.failure = Failure::Failed;
        break;
    }
    // The helper's own sentences (errorText) come from root code, which is not
    // translated: it answers every caller alike.
    result.message = errorText.isEmpty() ? i18nc("@info", "The Cachescope helper failed (error %1).", kauthError) : errorText;
    return result;
}

Result resultOf(const KAuth::ExecuteJob *job)
{
    if (job->error() != 0) {
        qCDebug(CACHESCOPE_PRIVILEGED) << job->action().name() << "failed with KAuth error" << job->error() << ":" << job->errorText();
    } else {
        qCDebug(CACHESCOPE_PRIVILEGED) << job->action().name() << "succeeded";
    }
    return resultOf(job->error(), job->errorText(), job->data());
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

ResidencyResult toResidencyResult(const Result &result, const ResidencyRequest &request)
{
    ResidencyResult out;
    static_cast<Result &>(out) = result;
    if (!result.ok()) {
        return out;
    }
    const std::optional<QList<FileResidencyAnswer>> files = parseFileResults(result.data.value(replyFiles).toByteArray(), maxPathsPerCall, maxBuckets);
    if (!files || files->size() != request.paths) {
        qCDebug(CACHESCOPE_PRIVILEGED) << "residency reply is malformed";
        out.failure = Failure::Failed;
        out.message = i18nc("@info", "The helper's residency answer could not be read; nothing is shown.");
        return out;
    }
    out.data.clear(); // the numbers are in files
    for (const FileResidencyAnswer &sealedFile : *files) {
        FileResidency file;
        file.error = sealedFile.error;
        file.hidden = sealedFile.hidden;
        file.device = sealedFile.device;
        file.inode = sealedFile.inode;
        file.sizeBytes = sealedFile.sizeBytes;
        file.pages = sealedFile.pages;
        file.resident = sealedFile.resident;
        file.method = sealedFile.method;
        file.detail = sealedFile.detail;
        file.dirty = sealedFile.dirty;
        file.writeback = sealedFile.writeback;
        file.histogram.assign(sealedFile.histogram.begin(), sealedFile.histogram.end());
        out.files.push_back(std::move(file));
    }
    return out;
}

DropCachesResult dropCaches(int level)
{
    return toDropCachesResult(runSynchronously(dropCachesSpec(level)));
}

SwapResult swapOff(const QString &area)
{
    if (area.isEmpty()) {
        return toSwapResult({Failure::InvalidRequest, i18nc("@info", "Name the swap area to turn off, or use swapOffAll()."), {}});
    }
    return toSwapResult(runSynchronously(swapOffSpec(area)));
}

SwapResult swapOffAll()
{
    return toSwapResult(runSynchronously(swapOffSpec(QString())));
}

SwapResult swapOn(const QString &area)
{
    if (area.isEmpty()) {
        return toSwapResult({Failure::InvalidRequest, i18nc("@info", "Name the swap area to turn on, or use swapOnAll()."), {}});
    }
    return toSwapResult(runSynchronously(swapOnSpec(area)));
}

SwapResult swapOnAll()
{
    return toSwapResult(runSynchronously(swapOnSpec(QString())));
}

Result createExperimentSwapFile(qint64 sizeBytes)
{
    return runSynchronously(createExperimentSwapFileSpec(sizeBytes));
}

Result removeExperimentSwapFile()
{
    return runSynchronously(removeExperimentSwapFileSpec());
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
        const ResidencyRequest request = residencyAction(distinct.mid(start, maxPathsPerCall), std::clamp(buckets, 1, maxBuckets));
        ResidencyResult chunk = toResidencyResult(runSynchronously(residencySpec(request)), request);
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
    const QVariantMap arguments{{QString(keyPid), pid}, {QString(keySeconds), maxSeconds}};
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
    Result result;
    if (actsDirectly()) {
        result = performDirectly(QString(actionTrace), arguments, onProgress, cancelled);
    } else if (QString reason; !helperAvailable(&reason)) {
        result = {Failure::Unavailable, reason, {}};
    } else {
        // docs/helper-security.md rule 14: the trace's own time, plus the
        // password dialog that comes first.
        KAuth::Action action = makeAction({actionTrace, arguments, std::chrono::seconds(std::max(maxSeconds, 0)) + std::chrono::minutes(2)});
        KAuth::ExecuteJob *job = action.execute();
        job->setAutoDelete(false);
        QEventLoop loop;
        QObject::connect(job, &KAuth::ExecuteJob::newData, &loop, onProgress);
        QObject::connect(job, &KJob::result, &loop, &QEventLoop::quit);
        // Cancel asks the helper to stop (KAuth's stopAction: the helper's
        // isStopped() turns true, and it removes its instance).
        QTimer cancelWatch;
        QObject::connect(&cancelWatch, &QTimer::timeout, &loop, [job, &cancelled, &cancelWatch] {
            if (cancelled()) {
                cancelWatch.stop();
                job->kill(KJob::EmitResult);
            }
        });
        cancelWatch.start(100);
        job->start();
        loop.exec();
        result = resultOf(job);
        delete job;
    }
    TraceResult out;
    static_cast<Result &>(out) = result;
    // Cancelled is cancelled on both ways: over the bus the job was killed,
    // in process the action stopped early and answered.
    if (cancelled()) {
        out.failure = Failure::Cancelled;
        out.message = i18nc("@info", "The trace was cancelled.");
        out.data.clear();
        return out;
    }
    if (!result.ok()) {
        return out;
    }
    std::optional<Trace::Capture> capture = parseCapture(result.data.value(replyCapture).toByteArray());
    out.data.clear(); // the events are in capture
    if (!capture) {
        qCDebug(CACHESCOPE_PRIVILEGED) << "trace reply is malformed";
        out.failure = Failure::Failed;
        out.message = i18nc("@info", "The helper's trace could not be read; nothing is shown.");
        return out;
    }
    out.capture = std::move(*capture);
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
}

void RequestQueue::enqueue(const KAuth::Action &action, Callback done)
{
    m_requests.push_back({action, std::move(done)});
    if (!m_running) {
        startNext();
    }
}

int RequestQueue::pending() const
{
    return int(m_requests.size()) + (m_running ? 1 : 0);
}

void RequestQueue::startNext()
{
    if (m_requests.empty()) {
        m_running = false;
        return;
    }
    Request request = std::move(m_requests.front());
    m_requests.pop_front();
    m_running = true;
    if (actsDirectly()) {
        Q_EMIT started(request.action.name());
        startDirectly(std::move(request));
        return;
    }
    QString reason;
    if (!helperAvailable(&reason)) {
        qCDebug(CACHESCOPE_PRIVILEGED) << request.action.name() << "not sent:" << reason;
        if (request.done) {
            request.done({Failure::Unavailable, reason, {}});
        }
        startNext();
        return;
    }
    qCDebug(CACHESCOPE_PRIVILEGED) << "sending" << request.action.name() << "," << m_requests.size() << "more waiting";
    Q_EMIT started(request.action.name());
    KAuth::ExecuteJob *job = request.action.execute();
    const QString name = request.action.name();
    connect(job, &KAuth::ExecuteJob::newData, this, [this, name](const QVariantMap &data) {
        Q_EMIT progress(name, data);
    });
    connect(job, &KJob::result, this, [this, done = std::move(request.done)](KJob *finished) {
        if (done) {
            done(resultOf(static_cast<KAuth::ExecuteJob *>(finished)));
        }
        startNext();
    });
    job->start();
}

void RequestQueue::startDirectly(Request request)
{
    // As root, the helper's work runs in this process (actsDirectly), in a
    // thread of its own: sync() and swapoff can take minutes, and the window
    // stays responsive meanwhile, as it does while the helper works.
    const QString name = request.action.name();
    auto result = std::make_shared<Result>();
    auto reportProgress = [this, name](const QVariantMap &data) {
        QMetaObject::invokeMethod(
            this,
            [this, name, data] {
                Q_EMIT progress(name, data);
            },
            Qt::QueuedConnection);
    };
    m_directWorker = QThread::create([name, arguments = request.action.arguments(), result, reportProgress] {
        *result = performDirectly(name, arguments, reportProgress);
    });
    connect(m_directWorker, &QThread::finished, this, [this, result, done = std::move(request.done)] {
        m_directWorker->deleteLater();
        m_directWorker = nullptr;
        if (done) {
            done(*result);
        }
        startNext();
    });
    m_directWorker->start();
}

} // namespace Cachescope::Privileged
