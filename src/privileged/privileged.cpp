// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "privileged.h"
#include "helperprotocol.h"

#include "procfs.h"

#include <KAuth/ActionReply>
#include <KAuth/ExecuteJob>

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusUnixFileDescriptor>
#include <QFileInfo>

#include <algorithm>

namespace Cachescope::Privileged
{

using namespace HelperProtocol;

namespace
{
KAuth::Action makeAction(QLatin1StringView name, const QVariantMap &arguments, const QString &message)
{
    KAuth::Action action{QString(name)};
    action.setHelperId(QString(helperId));
    action.setArguments(arguments);
    // Rule 8: the dialog says exactly what will happen.
    action.setDetailsV2({{KAuth::Action::AuthDetail::DetailMessage, message}});
    return action;
}

uint64_t number(const QVariantMap &map, const char *key)
{
    return map.value(QLatin1String(key)).toULongLong();
}

QString levelText(int level)
{
    switch (level) {
    case 1:
        return QStringLiteral("Drop the page cache");
    case 2:
        return QStringLiteral("Drop the dentry and inode caches");
    case 3:
        return QStringLiteral("Drop the page cache and the dentry and inode caches");
    default:
        return QStringLiteral("Drop caches (level %1)").arg(level);
    }
}

Result runSynchronously(KAuth::Action action)
{
    QString reason;
    if (!helperAvailable(&reason)) {
        return {Failure::Unavailable, reason, {}};
    }
    KAuth::ExecuteJob *job = action.execute();
    job->setAutoDelete(false);
    job->exec();
    const Result result = resultOf(job);
    delete job;
    return result;
}
} // namespace

MemorySnapshot MemorySnapshot::fromVariantMap(const QVariantMap &map)
{
    MemorySnapshot snapshot;
    snapshot.memTotal = number(map, "MemTotal");
    snapshot.memFree = number(map, "MemFree");
    snapshot.memAvailable = number(map, "MemAvailable");
    snapshot.buffers = number(map, "Buffers");
    snapshot.cached = number(map, "Cached");
    snapshot.sReclaimable = number(map, "SReclaimable");
    snapshot.dirty = number(map, "Dirty");
    snapshot.swapTotal = number(map, "SwapTotal");
    snapshot.swapFree = number(map, "SwapFree");
    return snapshot;
}

bool helperAvailable(QString *reason)
{
    auto fail = [reason](const QString &why) {
        if (reason) {
            *reason = why;
        }
        return false;
    };
    QDBusConnection bus = QDBusConnection::systemBus();
    if (!bus.isConnected() || !bus.interface()) {
        return fail(QStringLiteral("There is no system D-Bus to reach the Cachescope helper."));
    }
    const QStringList activatable = bus.interface()->activatableServiceNames().value();
    const bool polkitThere = bus.interface()->isServiceRegistered(QStringLiteral("org.freedesktop.PolicyKit1")).value()
        || activatable.contains(QStringLiteral("org.freedesktop.PolicyKit1"));
    if (!polkitThere) {
        return fail(QStringLiteral("No polkit daemon runs on this system, so administrator actions cannot be authorized."));
    }
    if (!activatable.contains(QString(helperId)) && !bus.interface()->isServiceRegistered(QString(helperId)).value()) {
        return fail(QStringLiteral("The Cachescope helper (org.kde.cachescope) is not installed for the system bus."));
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
    KAuth::Action action = makeAction(actionDropCaches, {{QString(keyLevel), level}}, levelText(level));
    // sync() first can take long with much unsaved data.
    action.setTimeout(std::chrono::minutes(10));
    return action;
}

KAuth::Action swapOffAction(const QString &area)
{
    QVariantMap arguments;
    if (area.isEmpty()) {
        arguments.insert(QString(keyAll), true);
    } else {
        arguments.insert(QString(keyArea), area);
    }
    // Rule 10: an explicit timeout long enough for the swap in use now.
    uint64_t used = 0;
    if (const std::optional<MemInfo> memInfo = readMemInfo()) {
        const uint64_t total = memInfo->value("SwapTotal");
        const uint64_t free = memInfo->value("SwapFree");
        used = total > free ? total - free : 0;
    }
    KAuth::Action action =
        makeAction(actionSwapOff, arguments, area.isEmpty() ? QStringLiteral("Turn off all swap") : QStringLiteral("Turn off swap on %1").arg(area));
    action.setTimeout(swapOffTimeout(used));
    return action;
}

KAuth::Action swapOnAction(const QString &area)
{
    QVariantMap arguments;
    if (area.isEmpty()) {
        arguments.insert(QString(keyAll), true);
    } else {
        arguments.insert(QString(keyArea), area);
    }
    KAuth::Action action =
        makeAction(actionSwapOn,
                   arguments,
                   area.isEmpty() ? QStringLiteral("Turn swap on again where Cachescope turned it off") : QStringLiteral("Turn on swap on %1").arg(area));
    action.setTimeout(std::chrono::minutes(2));
    return action;
}

KAuth::Action createExperimentSwapFileAction(qint64 sizeBytes)
{
    KAuth::Action action =
        makeAction(actionSwapFileCreate,
                   {{QString(keySizeBytes), sizeBytes}},
                   QStringLiteral("Create a swap file of %1 MiB at /var/lib/cachescope/experiment.swap and turn swap on there").arg(sizeBytes >> 20));
    // Writing up to 4 GiB of zeros.
    action.setTimeout(std::chrono::minutes(15));
    return action;
}

KAuth::Action removeExperimentSwapFileAction()
{
    KAuth::Action action = makeAction(actionSwapFileRemove, {}, QStringLiteral("Turn off swap on /var/lib/cachescope/experiment.swap and delete the file"));
    action.setTimeout(swapOffTimeout(maxExperimentSwapBytes));
    return action;
}

KAuth::Action residencyAction(const QList<int> &fds, int buckets)
{
    QVariantMap arguments{{QString(keyCount), int(fds.size())}, {QString(keyBuckets), buckets}};
    for (int i = 0; i < fds.size(); ++i) {
        // KAuth 6.13 sends QDBusUnixFileDescriptor values as real descriptors
        // (a separate a{sh} argument); QDBusUnixFileDescriptor dups the fd.
        arguments.insert(QStringLiteral("fd%1").arg(i), QVariant::fromValue(QDBusUnixFileDescriptor(fds[i])));
    }
    KAuth::Action action = makeAction(actionResidency, arguments, QStringLiteral("Read the page-cache residency of %1 file(s) you opened").arg(fds.size()));
    action.setTimeout(std::chrono::minutes(2));
    return action;
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
        result.message = QStringLiteral("You are not authorized to do this: polkit refused the request. Ask an administrator, or sign in as one.");
        return result;
    case KAuth::ActionReply::UserCancelledError:
        result.failure = Failure::Cancelled;
        result.message = QStringLiteral("The request was cancelled in the authentication dialog.");
        return result;
    case KAuth::ActionReply::HelperBusyError:
    case KAuth::ActionReply::AlreadyStartedError:
        result.failure = Failure::Busy;
        result.message = QStringLiteral("The Cachescope helper is busy with another request; try again when it has finished.");
        return result;
    case KAuth::ActionReply::NoSuchActionError:
    case KAuth::ActionReply::NoResponderError:
    case KAuth::ActionReply::InvalidActionError:
        result.failure = Failure::Unavailable;
        result.message = QStringLiteral("The installed Cachescope helper does not offer this action (%1); reinstall Cachescope.").arg(errorText);
        return result;
    case KAuth::ActionReply::DBusError:
    case KAuth::ActionReply::BackendError:
        if (errorText.contains(QLatin1String("NoReply")) || errorText.contains(QLatin1String("Did not receive a reply"))
            || errorText.contains(QLatin1String("timeout"), Qt::CaseInsensitive) || errorText.contains(QLatin1String("timed out"))) {
            result.failure = Failure::Timeout;
            result.message = QStringLiteral("The Cachescope helper did not answer in time. The operation may still be running; check again in a moment.");
        } else {
            result.failure = Failure::Unavailable;
            result.message = QStringLiteral("Cannot reach the Cachescope helper: %1").arg(errorText);
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
    result.message = errorText.isEmpty() ? QStringLiteral("The Cachescope helper failed (error %1).").arg(kauthError) : errorText;
    return result;
}

Result resultOf(const KAuth::ExecuteJob *job)
{
    return resultOf(job->error(), job->errorText(), job->data());
}

DropCachesResult toDropCachesResult(const Result &result)
{
    DropCachesResult out;
    static_cast<Result &>(out) = result;
    out.level = result.data.value(QStringLiteral("level")).toInt();
    out.before = MemorySnapshot::fromVariantMap(result.data.value(QStringLiteral("before")).toMap());
    out.after = MemorySnapshot::fromVariantMap(result.data.value(QStringLiteral("after")).toMap());
    return out;
}

SwapResult toSwapResult(const Result &result)
{
    SwapResult out;
    static_cast<Result &>(out) = result;
    out.areas = result.data.value(QStringLiteral("turnedOff"), result.data.value(QStringLiteral("turnedOn"))).toStringList();
    const QVariantList priorities = result.data.value(QStringLiteral("priorities")).toList();
    for (const QVariant &priority : priorities) {
        out.priorities << priority.toInt();
    }
    return out;
}

ResidencyResult toResidencyResult(const Result &result)
{
    ResidencyResult out;
    static_cast<Result &>(out) = result;
    const int count = result.data.value(QStringLiteral("count")).toInt();
    for (int i = 0; i < count; ++i) {
        const QString prefix = QStringLiteral("fd%1.").arg(i);
        auto value = [&](const char *key) {
            return result.data.value(prefix + QLatin1String(key));
        };
        FileResidency file;
        file.device = value("device").toULongLong();
        file.inode = value("inode").toULongLong();
        file.sizeBytes = value("sizeBytes").toULongLong();
        file.pages = value("pages").toULongLong();
        file.resident = value("resident").toULongLong();
        file.method = value("method").toString();
        file.detail = value("detail").toBool();
        file.dirty = value("dirty").toULongLong();
        file.writeback = value("writeback").toULongLong();
        const QVariantList histogram = value("histogram").toList();
        for (const QVariant &bucket : histogram) {
            file.histogram.push_back(bucket.toULongLong());
        }
        out.files.push_back(std::move(file));
    }
    return out;
}

DropCachesResult dropCaches(int level)
{
    return toDropCachesResult(runSynchronously(dropCachesAction(level)));
}

SwapResult swapOff(const QString &area)
{
    if (area.isEmpty()) {
        return toSwapResult({Failure::InvalidRequest, QStringLiteral("Name the swap area to turn off, or use swapOffAll()."), {}});
    }
    return toSwapResult(runSynchronously(swapOffAction(area)));
}

SwapResult swapOffAll()
{
    return toSwapResult(runSynchronously(swapOffAction(QString())));
}

SwapResult swapOn(const QString &area)
{
    if (area.isEmpty()) {
        return toSwapResult({Failure::InvalidRequest, QStringLiteral("Name the swap area to turn on, or use swapOnAll()."), {}});
    }
    return toSwapResult(runSynchronously(swapOnAction(area)));
}

SwapResult swapOnAll()
{
    return toSwapResult(runSynchronously(swapOnAction(QString())));
}

Result createExperimentSwapFile(qint64 sizeBytes)
{
    return runSynchronously(createExperimentSwapFileAction(sizeBytes));
}

Result removeExperimentSwapFile()
{
    return runSynchronously(removeExperimentSwapFileAction());
}

ResidencyResult residencyOfDescriptors(const QList<int> &fds, int buckets)
{
    return toResidencyResult(runSynchronously(residencyAction(fds, buckets)));
}

RequestQueue::RequestQueue(QObject *parent)
    : QObject(parent)
{
}

RequestQueue::~RequestQueue() = default;

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
    QString reason;
    if (!helperAvailable(&reason)) {
        if (request.done) {
            request.done({Failure::Unavailable, reason, {}});
        }
        startNext();
        return;
    }
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

} // namespace Cachescope::Privileged
