// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "helperbus.h"
#include "accountanswer.h"
#include "activityanswer.h"
#include "cachescope_privileged_debug.h"
#include "helperprotocol.h"
#include "tracecapture.h"

#include <KLocalizedString>

#include <QDBusArgument>
#include <QDBusObjectPath>
#include <QDBusPendingCallWatcher>
#include <QDBusServiceWatcher>
#include <QEventLoop>
#include <QFile>
#include <QPointer>
#include <QTimer>

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

namespace Cachescope::Privileged
{

using namespace HelperProtocol;
using namespace Qt::StringLiterals;

namespace
{

// The D-Bus errors of the bus itself that the client tells apart.
constexpr QLatin1StringView busError{"org.freedesktop.DBus.Error."};

QString busErrorName(QLatin1StringView shortName)
{
    return QString(busError) + shortName;
}

// A reply or signal that is not what org.kde.cachescope.Helper1.xml says:
// nothing of it is used.
Reply malformed(const QString &what)
{
    qCWarning(CACHESCOPE_PRIVILEGED) << "the helper's answer is malformed:" << what;
    Reply reply;
    reply.failure = Failure::Failed;
    reply.message = i18nc("@info",
                          "The Cachescope helper's answer could not be read, so nothing of it is used. The helper and this program may come from "
                          "different versions of Cachescope.");
    return reply;
}

Reply replyOf(const Result &result)
{
    Reply reply;
    static_cast<Result &>(reply) = result;
    return reply;
}

QDBusArgument argumentAt(const QDBusMessage &message, int index)
{
    return qvariant_cast<QDBusArgument>(message.arguments().at(index));
}

// Names the kernel gave as bytes, for people and the helper's text keys.
QStringList decodedNames(const QList<QByteArray> &names)
{
    QStringList out;
    for (const QByteArray &name : names) {
        out << QFile::decodeName(name);
    }
    return out;
}

QVariantList variantList(const QList<int> &numbers)
{
    QVariantList out;
    for (const int number : numbers) {
        out << number;
    }
    return out;
}

// DropCaches' a{st}: meminfo figures in bytes.
QVariantMap memoryFigures(const QDBusArgument &argument)
{
    QVariantMap figures;
    argument.beginMap();
    while (!argument.atEnd()) {
        QString key;
        qulonglong value = 0;
        argument.beginMapEntry();
        argument >> key >> value;
        argument.endMapEntry();
        figures.insert(key, value);
    }
    argument.endMap();
    return figures;
}

// The figures of a method that answers at once, keyed as the helper's
// action answers in process (helperprotocol.h's reply keys).
std::optional<QVariantMap> dataOfReply(const Request &request, const QDBusMessage &reply)
{
    const QString signature = reply.signature();
    switch (request.operation) {
    case Operation::DropCaches:
        if (signature != QLatin1String("a{st}a{st}")) {
            return std::nullopt;
        }
        return QVariantMap{{QString(keyLevel), request.arguments.value(keyLevel).toInt()},
                           {QString(replyBefore), memoryFigures(argumentAt(reply, 0))},
                           {QString(replyAfter), memoryFigures(argumentAt(reply, 1))}};
    case Operation::SwapOn: {
        if (signature != QLatin1String("aayaia(aysis)")) {
            return std::nullopt;
        }
        QList<QByteArray> turnedOn;
        QList<int> priorities;
        argumentAt(reply, 0) >> turnedOn;
        argumentAt(reply, 1) >> priorities;
        QVariantList areas;
        const QDBusArgument areasArgument = argumentAt(reply, 2);
        areasArgument.beginArray();
        while (!areasArgument.atEnd()) {
            QByteArray name;
            QString outcome;
            int priority = 0;
            QString message;
            areasArgument.beginStructure();
            areasArgument >> name >> outcome >> priority >> message;
            areasArgument.endStructure();
            areas << QVariantMap{{QString(areaName), QFile::decodeName(name)},
                                 {QString(areaOutcome), outcome},
                                 {QString(areaPriority), priority},
                                 {QString(areaMessage), message}};
        }
        areasArgument.endArray();
        return QVariantMap{{QString(replyTurnedOn), decodedNames(turnedOn)}, {QString(replyPriorities), variantList(priorities)}, {QString(replyAreas), areas}};
    }
    case Operation::CreateExperimentSwapFile:
        if (signature != QLatin1String("ayt")) {
            return std::nullopt;
        }
        return QVariantMap{{QString(replyPath), QFile::decodeName(reply.arguments().at(0).toByteArray())},
                           {QString(replySizeBytes), reply.arguments().at(1).toULongLong()}};
    case Operation::RemoveExperimentSwapFile:
        if (signature != QLatin1String("ayb")) {
            return std::nullopt;
        }
        return QVariantMap{{QString(replyPath), QFile::decodeName(reply.arguments().at(0).toByteArray())},
                           {QString(replyWasActive), reply.arguments().at(1).toBool()}};
    case Operation::Contain:
        if (signature != QLatin1String("ayu")) {
            return std::nullopt;
        }
        return QVariantMap{{QString(replyCgroupPath), QFile::decodeName(reply.arguments().at(0).toByteArray())},
                           {QString(replyCgroupVersion), int(reply.arguments().at(1).toUInt())},
                           {QString(keyLimitBytes), request.arguments.value(keyLimitBytes).toLongLong()}};
    case Operation::SwapOff:
    case Operation::Residency:
    case Operation::Trace:
    case Operation::Reclaim:
    case Operation::Account:
    case Operation::Activity:
        break; // jobs
    }
    return std::nullopt;
}

// ResidencyCompleted's files, one a path asked for, each histogram within
// the buckets asked for.
std::optional<std::vector<FileResidency>> filesOf(const QDBusMessage &message, qsizetype paths, int buckets, QString &problem)
{
    if (message.signature() != signatureResidencyCompleted) {
        problem = QStringLiteral("ResidencyCompleted with the signature ") + message.signature();
        return std::nullopt;
    }
    std::vector<FileResidency> files;
    const QDBusArgument array = argumentAt(message, 0);
    array.beginArray();
    while (!array.atEnd()) {
        if (qsizetype(files.size()) == paths) {
            problem = QStringLiteral("more files than the %1 paths asked for").arg(paths);
            return std::nullopt;
        }
        FileResidency file;
        qulonglong device = 0;
        qulonglong inode = 0;
        qulonglong sizeBytes = 0;
        qulonglong pages = 0;
        qulonglong resident = 0;
        qulonglong dirty = 0;
        qulonglong writeback = 0;
        QList<qulonglong> histogram;
        array.beginStructure();
        array >> file.error >> file.hidden >> device >> inode >> sizeBytes >> pages >> resident;
        array >> file.method >> file.detail >> dirty >> writeback >> histogram;
        array.endStructure();
        if (histogram.size() > buckets) {
            problem = QStringLiteral("%1 buckets where %2 were asked for").arg(histogram.size()).arg(buckets);
            return std::nullopt;
        }
        if (file.error.isEmpty() && (resident > pages || (file.method != QLatin1String("cachestat") && file.method != QLatin1String("mincore")))) {
            problem = QStringLiteral("a file with %1 of %2 pages resident, method '%3'").arg(resident).arg(pages).arg(file.method);
            return std::nullopt;
        }
        file.device = device;
        file.inode = inode;
        file.sizeBytes = sizeBytes;
        file.pages = pages;
        file.resident = resident;
        file.dirty = dirty;
        file.writeback = writeback;
        file.histogram.assign(histogram.begin(), histogram.end());
        files.push_back(std::move(file));
    }
    array.endArray();
    if (qsizetype(files.size()) != paths) {
        problem = QStringLiteral("%1 files for %2 paths").arg(files.size()).arg(paths);
        return std::nullopt;
    }
    return files;
}

// TraceCompleted's capture, within HelperProtocol's limits.
std::optional<Trace::Capture> captureOf(const QDBusMessage &message, QString &problem)
{
    if (message.signature() != signatureTraceCompleted) {
        problem = QStringLiteral("TraceCompleted with the signature ") + message.signature();
        return std::nullopt;
    }
    Trace::Capture capture;
    const QDBusArgument array = argumentAt(message, 0);
    array.beginArray();
    while (!array.atEnd()) {
        if (capture.events.size() == size_t(maxTraceEvents)) {
            problem = QStringLiteral("more than %1 events").arg(maxTraceEvents);
            return std::nullopt;
        }
        uchar kind = 0;
        qulonglong timeNs = 0;
        int pid = 0;
        uint major = 0;
        uint minor = 0;
        qulonglong inode = 0;
        qulonglong firstPage = 0;
        qulonglong pageCount = 0;
        qulonglong sector = 0;
        uint bytes = 0;
        QString rwbs;
        array.beginStructure();
        array >> kind >> timeNs >> pid >> major >> minor >> inode >> firstPage >> pageCount >> sector >> bytes >> rwbs;
        array.endStructure();
        if (kind > uchar(Trace::EventKind::BlockIssue) || rwbs.size() > maxRwbsBytes) {
            problem = QStringLiteral("an event of kind %1 with rwbs '%2'").arg(kind).arg(rwbs);
            return std::nullopt;
        }
        Trace::RawEvent event;
        event.kind = Trace::EventKind(kind);
        event.timeNs = timeNs;
        event.pid = pid;
        event.major = major;
        event.minor = minor;
        if (event.kind == Trace::EventKind::BlockIssue) {
            event.sector = sector;
            event.bytes = bytes;
            event.rwbs = rwbs.toStdString();
        } else {
            event.inode = inode;
            event.firstPage = firstPage;
            event.pageCount = pageCount;
        }
        capture.events.push_back(std::move(event));
    }
    array.endArray();
    const QList<QVariant> arguments = message.arguments();
    capture.lostEvents = arguments.at(1).toULongLong();
    capture.usageEvents = arguments.at(2).toBool();
    capture.blockEvents = arguments.at(3).toBool();
    const QString endReason = arguments.at(4).toString();
    if (endReason.isEmpty() || endReason.toUtf8().size() > maxEndReasonBytes) {
        problem = QStringLiteral("the end reason '%1'").arg(endReason);
        return std::nullopt;
    }
    capture.endReason = endReason.toStdString();
    return capture;
}

// AccountCompleted's account, within the limits of accountanswer.h.
std::optional<CacheAccount> accountOf(const QDBusMessage &message, QString &problem)
{
    if (message.signature() != signatureAccountCompleted) {
        problem = QStringLiteral("AccountCompleted with the signature ") + message.signature();
        return std::nullopt;
    }
    const auto text = [](const QByteArray &bytes) {
        return std::string(bytes.constData(), size_t(bytes.size()));
    };
    CacheAccount account;
    QMap<QString, qulonglong> figures;
    argumentAt(message, 0) >> figures;
    account.cached = figures.value(QStringLiteral("Cached"));
    account.memInfoBefore.fields.emplace_back("Cached", figures.value(QStringLiteral("CachedAtStart")));
    account.buffers = figures.value(QStringLiteral("Buffers"));
    account.shmem = figures.value(QStringLiteral("Shmem"));
    account.mountsNotWalked = figures.value(QStringLiteral("MountsNotWalked"));
    account.ownIpcNamespace = figures.value(QStringLiteral("OwnIpcNamespace")) != 0;
    const QDBusArgument parts = argumentAt(message, 1);
    parts.beginArray();
    while (!parts.atEnd()) {
        if (qsizetype(account.parts.size()) == maxAccountParts) {
            problem = QStringLiteral("more than %1 parts").arg(maxAccountParts);
            return std::nullopt;
        }
        uchar kind = 0;
        QByteArray path, name;
        qulonglong bytes = 0, size = 0, files = 0, device = 0, inode = 0, processCount = 0;
        QString fileSystem, hiddenReason;
        bool hidden = false;
        AccountPart part;
        parts.beginStructure();
        parts >> kind >> path >> name >> bytes >> size >> files >> device >> inode >> fileSystem >> hidden >> hiddenReason;
        parts.beginArray();
        while (!parts.atEnd()) {
            int pid = 0;
            QByteArray command;
            parts.beginStructure();
            parts >> pid >> command;
            parts.endStructure();
            if (part.processes.size() == AccountPart::maxProcessesNamed) {
                problem = QStringLiteral("a part with more than %1 processes named").arg(AccountPart::maxProcessesNamed);
                return std::nullopt;
            }
            part.processes.push_back({pid, text(command)});
        }
        parts.endArray();
        parts >> processCount;
        parts.endStructure();
        if (kind > uchar(AccountKind::CoveredFolder)) {
            problem = QStringLiteral("a part of kind %1").arg(kind);
            return std::nullopt;
        }
        part.kind = AccountKind(kind);
        part.path = text(path);
        part.name = text(name);
        part.bytes = bytes;
        part.sizeBytes = size;
        part.files = files;
        part.device = device;
        part.inode = inode;
        part.fileSystem = fileSystem.toStdString();
        part.hidden = hidden;
        part.hiddenReason = hiddenReason.toStdString();
        part.processCount = processCount;
        account.parts.push_back(std::move(part));
    }
    parts.endArray();
    const QDBusArgument hidden = argumentAt(message, 2);
    qulonglong processes = 0, files = 0, fileBytes = 0, covered = 0;
    hidden.beginStructure();
    hidden >> processes >> files >> fileBytes >> covered;
    hidden.endStructure();
    account.hidden = {processes, files, fileBytes, covered};
    const QDBusArgument devices = argumentAt(message, 3);
    devices.beginArray();
    while (!devices.atEnd()) {
        if (qsizetype(account.buffersByDevice.size()) == maxAccountDevices) {
            problem = QStringLiteral("more than %1 block devices").arg(maxAccountDevices);
            return std::nullopt;
        }
        QByteArray name;
        qulonglong bytes = 0;
        bool deviceHidden = false;
        QString reason;
        devices.beginStructure();
        devices >> name >> bytes >> deviceHidden >> reason;
        devices.endStructure();
        BlockDeviceBuffers device;
        device.name = text(name);
        device.bytes = bytes;
        device.hidden = deviceHidden;
        device.hiddenReason = reason.toStdString();
        account.buffersByDevice.push_back(std::move(device));
    }
    devices.endArray();
    const QList<QVariant> arguments = message.arguments();
    account.complete = arguments.at(4).toBool();
    account.inChroot = arguments.at(5).toBool();
    account.seconds = arguments.at(6).toDouble();
    account.unexplained = int64_t(account.cached) - int64_t(account.partsBytes());
    return account;
}

// ActivityInterval's or ActivityCompleted's aggregates (the first eight
// arguments), within the limits of activityanswer.h.
std::optional<Activity::Interval> activityOf(const QDBusMessage &message, QString &problem)
{
    const auto text = [](const QByteArray &bytes) {
        return std::string(bytes.constData(), size_t(std::min<qsizetype>(bytes.size(), maxActivityTextBytes)));
    };
    const auto figures = [](const QDBusArgument &argument) {
        qulonglong added = 0, reclaimed = 0, dropped = 0, dirtied = 0;
        argument.beginStructure();
        argument >> added >> reclaimed >> dropped >> dirtied;
        argument.endStructure();
        return Activity::Figures{added, reclaimed, dropped, dirtied};
    };
    Activity::Interval interval;
    const QList<QVariant> arguments = message.arguments();
    interval.seconds = arguments.at(0).toDouble();
    const QDBusArgument processes = argumentAt(message, 1);
    processes.beginArray();
    while (!processes.atEnd()) {
        if (qsizetype(interval.processes.size()) == qsizetype(4) * maxActivityEntries) {
            problem = QStringLiteral("more than %1 processes").arg(4 * maxActivityEntries);
            return std::nullopt;
        }
        Activity::ProcessActivity process;
        int pid = 0;
        qlonglong uid = -1;
        QByteArray command, cgroup, application;
        bool reclaimThread = false;
        processes.beginStructure();
        processes >> pid >> command >> uid >> cgroup >> application >> reclaimThread;
        process.figures = figures(processes);
        processes.beginArray();
        while (!processes.atEnd()) {
            qulonglong device = 0, inode = 0, pages = 0;
            processes.beginStructure();
            processes >> device >> inode >> pages;
            processes.endStructure();
            if (qsizetype(process.pushedOut.size()) == maxActivityPushedOut) {
                problem = QStringLiteral("a process with more than %1 files pushed out").arg(maxActivityPushedOut);
                return std::nullopt;
            }
            process.pushedOut.emplace_back(Activity::FileKey{device, inode}, pages);
        }
        processes.endArray();
        processes.endStructure();
        process.pid = pid;
        process.uid = uid;
        process.command = text(command);
        process.cgroup = text(cgroup);
        process.application = text(application);
        process.reclaimThread = reclaimThread;
        interval.processes.push_back(std::move(process));
    }
    processes.endArray();
    const QDBusArgument files = argumentAt(message, 2);
    files.beginArray();
    while (!files.atEnd()) {
        if (qsizetype(interval.files.size()) == qsizetype(4) * maxActivityEntries) {
            problem = QStringLiteral("more than %1 files").arg(4 * maxActivityEntries);
            return std::nullopt;
        }
        Activity::FileActivity file;
        qulonglong device = 0, inode = 0;
        QByteArray deviceName, path;
        int adder = 0;
        files.beginStructure();
        files >> device >> inode >> deviceName >> path >> adder;
        file.figures = figures(files);
        files.endStructure();
        file.key = {device, inode};
        file.deviceName = text(deviceName);
        file.path = text(path);
        file.topAdder = adder;
        interval.files.push_back(std::move(file));
    }
    files.endArray();
    interval.otherProcesses = figures(argumentAt(message, 3));
    interval.otherFiles = figures(argumentAt(message, 4));
    interval.all = figures(argumentAt(message, 5));
    interval.lostEvents = arguments.at(6).toULongLong();
    interval.undecoded = arguments.at(7).toULongLong();
    return interval;
}

// The signals each job sends (Failed besides).
QList<QLatin1StringView> signalsOf(Operation operation)
{
    switch (operation) {
    case Operation::SwapOff:
        return {signalSwapOffProgress, signalSwapOffCompleted};
    case Operation::Residency:
        return {signalResidencyCompleted};
    case Operation::Trace:
        return {signalTracing, signalTraceCompleted};
    case Operation::Reclaim:
        return {signalReclaimCompleted};
    case Operation::Account:
        return {signalAccountCompleted};
    case Operation::Activity:
        return {signalActivityInterval, signalActivityCompleted};
    default:
        return {};
    }
}

QDBusArgument byteArrays(const QList<QByteArray> &values)
{
    QDBusArgument argument;
    argument.beginArray(QMetaType::fromType<QByteArray>());
    for (const QByteArray &value : values) {
        argument << value;
    }
    argument.endArray();
    return argument;
}

} // namespace

bool helperOnSessionBus()
{
    return qgetenv("CACHESCOPE_HELPER_BUS") == "session";
}

QDBusConnection helperBus()
{
    return helperOnSessionBus() ? QDBusConnection::sessionBus() : QDBusConnection::systemBus();
}

bool isJob(Operation operation)
{
    return !signalsOf(operation).isEmpty();
}

QDBusMessage methodCallOf(const Request &request)
{
    const QVariantMap &arguments = request.arguments;
    const auto call = [](QLatin1StringView method) {
        return QDBusMessage::createMethodCall(QString(busName), QString(busObjectPath), QString(busInterface), QString(method));
    };
    // Negative numbers become large ones, which the helper refuses as out of range.
    const auto unsignedArgument = [&arguments](QLatin1StringView key) {
        return uint(arguments.value(key).toInt());
    };
    QDBusMessage message;
    switch (request.operation) {
    case Operation::DropCaches:
        message = call(methodDropCaches);
        message << unsignedArgument(keyLevel);
        break;
    case Operation::SwapOff:
    case Operation::SwapOn: {
        const bool off = request.operation == Operation::SwapOff;
        if (arguments.value(keyAll).toBool()) {
            message = call(off ? methodSwapOffAll : methodSwapOnAll);
        } else {
            message = call(off ? methodSwapOff : methodSwapOn);
            message << QFile::encodeName(arguments.value(keyArea).toString());
        }
        break;
    }
    case Operation::CreateExperimentSwapFile:
        message = call(methodCreateExperimentSwapFile);
        message << qulonglong(std::max<qlonglong>(arguments.value(keySizeBytes).toLongLong(), 0));
        break;
    case Operation::RemoveExperimentSwapFile:
        message = call(methodRemoveExperimentSwapFile);
        break;
    case Operation::Residency: {
        QList<QByteArray> paths;
        const int count = arguments.value(keyCount).toInt();
        for (int i = 0; i < count; ++i) {
            paths << arguments.value(pathKey(i)).toByteArray();
        }
        message = call(methodReadResidency);
        message << QVariant::fromValue(byteArrays(paths)) << unsignedArgument(keyBuckets);
        break;
    }
    case Operation::Trace:
        message = call(methodTrace);
        message << unsignedArgument(keyPid) << unsignedArgument(keySeconds);
        break;
    case Operation::Contain:
        message = call(methodContain);
        message << unsignedArgument(keyPid) << qulonglong(std::max<qlonglong>(arguments.value(keyLimitBytes).toLongLong(), 0));
        break;
    case Operation::Reclaim:
        message = call(methodReclaim);
        message << QFile::encodeName(arguments.value(keyCgroup).toString());
        break;
    case Operation::Account:
        message = call(methodAccount);
        break;
    case Operation::Activity:
        message = call(methodActivity);
        message << unsignedArgument(keySeconds) << unsignedArgument(keyIntervalMs);
        break;
    }
    // polkit may show its password dialog for this call; the call's timeout
    // leaves room for it.
    message.setInteractiveAuthorizationAllowed(true);
    return message;
}

Result resultOfError(const QString &errorName, const QString &message)
{
    Result result;
    // Failed signals may name the error without its prefix ("Cancelled").
    const QString name = errorName.contains(QLatin1Char('.')) || errorName.isEmpty() ? errorName : QString(errorPrefix) + errorName;
    // The helper's sentences come from root code, which answers every
    // caller alike and is not translated.
    const auto helperSaid = [&result, &message](Failure failure, const QString &otherwise) {
        result.failure = failure;
        result.message = message.isEmpty() ? otherwise : message;
        return result;
    };
    const auto weSay = [&result](Failure failure, const QString &sentence) {
        result.failure = failure;
        result.message = sentence;
        return result;
    };
    if (name == errorNotAuthorized) {
        return weSay(Failure::NotAuthorized,
                     i18nc("@info", "You are not authorized to do this: polkit refused the request. Ask an administrator, or sign in as one."));
    }
    if (name == errorInvalidArgument) {
        return helperSaid(Failure::InvalidRequest, i18nc("@info", "The Cachescope helper refused the request's arguments."));
    }
    if (name == errorNotPermitted) {
        return helperSaid(Failure::Refused, i18nc("@info", "The Cachescope helper refused the request."));
    }
    if (name == errorCallerUnknown) {
        return helperSaid(Failure::Refused, i18nc("@info", "The Cachescope helper could not tell who asks, so it refused."));
    }
    if (name == errorNotEnoughMemory) {
        return helperSaid(Failure::NotEnoughMemory, i18nc("@info", "There is not enough memory for this."));
    }
    if (name == errorUnsupported) {
        return helperSaid(Failure::Unsupported, i18nc("@info", "The file system or the kernel cannot do this."));
    }
    if (name == errorAlreadyDone) {
        return helperSaid(Failure::NothingToDo, i18nc("@info", "There is nothing to do."));
    }
    if (name == errorBusy) {
        return helperSaid(Failure::Busy, i18nc("@info", "The Cachescope helper is busy with other requests; try again when they have finished."));
    }
    if (name == errorCancelled) {
        return helperSaid(Failure::Cancelled, i18nc("@info", "The request was cancelled."));
    }
    if (name == errorTimeout) {
        return helperSaid(Failure::Timeout, i18nc("@info", "The Cachescope helper stopped the operation at its deadline."));
    }
    if (name == errorSystemFailure || name.startsWith(errorPrefix)) {
        return helperSaid(Failure::Failed, i18nc("@info", "The Cachescope helper failed and gave no reason."));
    }
    // The bus's own errors: the helper is missing, could not start, did not
    // answer, or does not know the call.
    if (name == busErrorName("ServiceUnknown"_L1) || name == busErrorName("NameHasNoOwner"_L1) || name == busErrorName("Spawn.ServiceNotFound"_L1)) {
        return weSay(Failure::Unavailable,
                     i18nc("@info %1 is a D-Bus name", "The Cachescope helper is not installed: the system bus cannot start %1.", QString(busName)));
    }
    if (name.startsWith(busErrorName("Spawn."_L1))) {
        return weSay(Failure::Unavailable, i18nc("@info %1 is D-Bus's error text", "The system bus could not start the Cachescope helper: %1", message));
    }
    if (name == busErrorName("NoReply"_L1) || name == busErrorName("Timeout"_L1) || name == busErrorName("TimedOut"_L1)) {
        return weSay(Failure::Timeout,
                     i18nc("@info", "The Cachescope helper did not answer in time. The operation may still be running; check again in a moment."));
    }
    if (name == busErrorName("InvalidArgs"_L1) || name == busErrorName("InvalidSignature"_L1)) {
        return weSay(Failure::InvalidRequest,
                     i18nc("@info %1 is D-Bus's error text",
                           "The Cachescope helper does not take the request as this program sends it (%1): the two come from different versions of "
                           "Cachescope.",
                           message));
    }
    if (name == busErrorName("UnknownMethod"_L1) || name == busErrorName("UnknownObject"_L1) || name == busErrorName("UnknownInterface"_L1)) {
        return weSay(
            Failure::Unavailable,
            i18nc("@info %1 is D-Bus's error text", "The installed Cachescope helper does not offer this action (%1); reinstall Cachescope.", message));
    }
    if (name == busErrorName("AccessDenied"_L1)) {
        return weSay(Failure::Unavailable,
                     i18nc("@info %1 is D-Bus's error text",
                           "The system bus does not let this request through to the Cachescope helper (%1): its D-Bus policy may be missing; reinstall "
                           "Cachescope.",
                           message));
    }
    if (name == busErrorName("InteractiveAuthorizationRequired"_L1)) {
        return weSay(Failure::NotAuthorized, i18nc("@info", "You are not authorized to do this without a password, and no dialog could ask for one."));
    }
    if (name == busErrorName("Disconnected"_L1) || name == busErrorName("NoServer"_L1) || name == busErrorName("NoNetwork"_L1)) {
        return weSay(Failure::Unavailable, i18nc("@info %1 is D-Bus's error text", "Cannot reach the Cachescope helper: %1", message));
    }
    const QString what = message.isEmpty() ? name : message;
    return weSay(
        Failure::Failed,
        i18nc("@info %1 is D-Bus's error text", "The request to the Cachescope helper failed: %1", what.isEmpty() ? i18nc("@info", "no reason given") : what));
}

Reply runOnBus(const Request &request, const std::function<void(const QVariantMap &)> &progress, const std::function<bool()> &cancelled)
{
    QEventLoop loop;
    Reply reply;
    bool done = false;
    QPointer<BusCall> call = new BusCall(
        request,
        helperBus(),
        [&](const Reply &answer) {
            reply = answer;
            done = true;
            loop.quit();
        },
        progress);
    QTimer cancelWatch;
    if (cancelled) {
        QObject::connect(&cancelWatch, &QTimer::timeout, &loop, [&call, &cancelled] {
            if (call && cancelled()) {
                call->cancel();
            }
        });
        cancelWatch.start(100);
    }
    call->start();
    if (!done) {
        loop.exec();
    }
    return reply;
}

BusCall::BusCall(const Request &request, const QDBusConnection &bus, Done done, Progress progress)
    : m_request(request)
    , m_bus(bus)
    , m_done(std::move(done))
    , m_progress(std::move(progress))
{
}

BusCall::~BusCall()
{
    disconnectJobSignals();
}

QString BusCall::jobPath() const
{
    return m_jobPath;
}

void BusCall::connectJobSignals()
{
    // Before the call: a job may answer before its path reaches us, and its
    // signals must be here by then. With the bus name as sender, QtDBus
    // takes only what the name's owner sends (any peer can send a signal
    // addressed to us); an empty path is any path, so that the job's path
    // need not be known yet.
    QList<QLatin1StringView> names = signalsOf(m_request.operation);
    names << signalJobFailed;
    m_signalsConnected = true;
    for (const QLatin1StringView name : std::as_const(names)) {
        if (!m_bus.connect(QString(busName), QString(), QString(busJobInterface), QString(name), this, SLOT(jobSignal(QDBusMessage)))) {
            m_signalsConnected = false;
        }
    }
}

void BusCall::disconnectJobSignals()
{
    if (!m_signalsConnected) {
        return;
    }
    m_signalsConnected = false;
    QList<QLatin1StringView> names = signalsOf(m_request.operation);
    names << signalJobFailed;
    for (const QLatin1StringView name : std::as_const(names)) {
        m_bus.disconnect(QString(busName), QString(), QString(busJobInterface), QString(name), this, SLOT(jobSignal(QDBusMessage)));
    }
}

void BusCall::start()
{
    if (!m_bus.isConnected()) {
        finish(replyOf(resultOfError(m_bus.lastError().name(), m_bus.lastError().message())));
        return;
    }
    if (isJob(m_request.operation)) {
        connectJobSignals();
        if (!m_signalsConnected) {
            Reply reply;
            reply.failure = Failure::Unavailable;
            reply.message = i18nc("@info", "Cannot listen for the Cachescope helper's answers on the bus.");
            finish(reply);
            return;
        }
        // A helper that goes away (killed, crashed) sends no more signals.
        m_serviceWatcher = new QDBusServiceWatcher(QString(busName), m_bus, QDBusServiceWatcher::WatchForUnregistration, this);
        connect(m_serviceWatcher, &QDBusServiceWatcher::serviceUnregistered, this, &BusCall::helperLeftTheBus);
    }
    // The whole request, polkit's dialog included, within its timeout.
    m_deadline = new QTimer(this);
    m_deadline->setSingleShot(true);
    connect(m_deadline, &QTimer::timeout, this, [this] {
        qCDebug(CACHESCOPE_PRIVILEGED) << "no answer within" << m_request.timeout.count() << "ms; job" << m_jobPath;
        // Given up on: the job is cancelled, now or once its path comes.
        m_cancelWanted = true;
        if (!m_jobPath.isEmpty()) {
            sendCancel();
        }
        finish(replyOf(resultOfError(busErrorName("Timeout"_L1), QString())));
    });
    m_deadline->start(m_request.timeout);

    const QDBusMessage call = methodCallOf(m_request);
    qCDebug(CACHESCOPE_PRIVILEGED) << "calling" << call.member() << "on" << (helperOnSessionBus() ? "the session bus" : "the system bus");
    const int timeoutMs = int(std::clamp<qint64>(m_request.timeout.count(), 1000, std::numeric_limits<int>::max()));
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call, timeoutMs), this);
    m_replyPending = true;
    connect(watcher, &QDBusPendingCallWatcher::finished, this, &BusCall::methodReplied);
}

void BusCall::methodReplied(QDBusPendingCallWatcher *watcher)
{
    m_replyPending = false;
    watcher->deleteLater();
    const QDBusMessage reply = watcher->reply();
    if (reply.type() == QDBusMessage::ErrorMessage) {
        qCDebug(CACHESCOPE_PRIVILEGED) << methodCallOf(m_request).member() << "failed:" << reply.errorName() << reply.errorMessage();
        finish(replyOf(resultOfError(reply.errorName(), reply.errorMessage())));
        deleteWhenIdle();
        return;
    }
    if (!isJob(m_request.operation)) {
        const std::optional<QVariantMap> data = dataOfReply(m_request, reply);
        if (!data) {
            finish(malformed(reply.member() + QStringLiteral(" answered with the signature ") + reply.signature()));
        } else {
            Reply done;
            done.data = *data;
            finish(done);
        }
        deleteWhenIdle();
        return;
    }
    QString path;
    if (reply.signature() == QLatin1String("o")) {
        path = qvariant_cast<QDBusObjectPath>(reply.arguments().at(0)).path();
    }
    bool numbered = false;
    if (path.startsWith(busJobPathPrefix)) {
        (void)QStringView(path).mid(busJobPathPrefix.size()).toULongLong(&numbered);
    }
    if (!numbered) {
        finish(malformed(QStringLiteral("a job at '%1' (signature %2)").arg(path, reply.signature())));
        deleteWhenIdle();
        return;
    }
    m_jobPath = path;
    qCDebug(CACHESCOPE_PRIVILEGED) << "job" << m_jobPath << "started," << m_earlySignals.size() << "signals came before its path";
    if (m_finished) {
        // Cancelled or given up on while polkit asked: cancel the job now
        // that it has a path.
        if (m_cancelWanted) {
            sendCancel();
        }
        deleteWhenIdle();
        return;
    }
    std::vector<QDBusMessage> early;
    early.swap(m_earlySignals);
    for (const QDBusMessage &message : early) {
        if (m_finished) {
            break;
        }
        if (message.path() == m_jobPath) {
            handleJobSignal(message);
        } else {
            qCDebug(CACHESCOPE_PRIVILEGED) << "dropping" << message.member() << "of another job," << message.path();
        }
    }
}

void BusCall::jobSignal(const QDBusMessage &message)
{
    if (m_finished) {
        return;
    }
    if (m_jobPath.isEmpty()) {
        // The reply naming our job has not been handled yet.
        if (m_earlySignals.size() < size_t(maxEarlySignals)) {
            m_earlySignals.push_back(message);
        } else {
            qCWarning(CACHESCOPE_PRIVILEGED) << "dropping" << message.member() << "of" << message.path() << ": too many signals before the job's path";
        }
        return;
    }
    if (message.path() != m_jobPath) {
        qCDebug(CACHESCOPE_PRIVILEGED) << "dropping" << message.member() << "of another job," << message.path();
        return;
    }
    handleJobSignal(message);
}

void BusCall::handleJobSignal(const QDBusMessage &message)
{
    const QString member = message.member();
    const QString signature = message.signature();
    const QList<QVariant> arguments = message.arguments();
    if (member == signalJobFailed) {
        if (signature != signatureJobFailed) {
            finish(malformed(QStringLiteral("Failed with the signature ") + signature));
            return;
        }
        qCDebug(CACHESCOPE_PRIVILEGED) << "job" << m_jobPath << "failed:" << arguments.at(0).toString() << arguments.at(1).toString();
        finish(replyOf(resultOfError(arguments.at(0).toString(), arguments.at(1).toString())));
        return;
    }
    if (!signalsOf(m_request.operation).contains(member)) {
        return; // not connected for this job: cannot come
    }
    const auto expect = [&](QLatin1StringView expected) {
        if (signature == expected) {
            return true;
        }
        finish(malformed(member + QStringLiteral(" with the signature ") + signature));
        return false;
    };
    // A copy: what it calls may end this call (finish() drops m_progress).
    const Progress progress = m_progress;
    Reply reply;
    if (member == signalSwapOffProgress) {
        if (expect(signatureSwapOffProgress) && progress) {
            progress(
                {{QString(progressArea), QFile::decodeName(arguments.at(0).toByteArray())}, {QString(progressSwapUsedBytes), arguments.at(1).toULongLong()}});
        }
        return;
    }
    if (member == signalActivityInterval) {
        if (!expect(signatureActivityInterval)) {
            return;
        }
        QString problem;
        const std::optional<Activity::Interval> interval = activityOf(message, problem);
        if (!interval) {
            finish(malformed(problem));
            return;
        }
        if (progress) {
            progress({{QString(progressActivity), serializeActivity(*interval)}});
        }
        return;
    }
    if (member == signalTracing) {
        if (expect(signatureTracing) && progress) {
            progress({{QString(progressTracing), true}});
        }
        return;
    }
    if (member == signalSwapOffCompleted) {
        if (!expect(signatureSwapOffCompleted)) {
            return;
        }
        QList<QByteArray> turnedOff;
        QList<int> priorities;
        argumentAt(message, 0) >> turnedOff;
        argumentAt(message, 1) >> priorities;
        reply.data = {{QString(replyTurnedOff), decodedNames(turnedOff)},
                      {QString(replyPriorities), variantList(priorities)},
                      {QString(replySwapUsedBefore), arguments.at(2).toULongLong()},
                      {QString(replySwapUsedAfter), arguments.at(3).toULongLong()}};
    } else if (member == signalResidencyCompleted) {
        QString problem;
        std::optional<std::vector<FileResidency>> files =
            filesOf(message, m_request.arguments.value(keyCount).toInt(), m_request.arguments.value(keyBuckets).toInt(), problem);
        if (!files) {
            finish(malformed(problem));
            return;
        }
        reply.files = std::move(*files);
    } else if (member == signalTraceCompleted) {
        QString problem;
        std::optional<Trace::Capture> capture = captureOf(message, problem);
        if (!capture) {
            finish(malformed(problem));
            return;
        }
        reply.capture = std::move(*capture);
    } else if (member == signalAccountCompleted) {
        QString problem;
        std::optional<CacheAccount> account = accountOf(message, problem);
        if (!account) {
            finish(malformed(problem));
            return;
        }
        reply.account = std::move(*account);
    } else if (member == signalActivityCompleted) {
        if (!expect(signatureActivityCompleted)) {
            return;
        }
        QString problem;
        const std::optional<Activity::Interval> totals = activityOf(message, problem);
        if (!totals) {
            finish(malformed(problem));
            return;
        }
        reply.data = {{QString(replyActivity), serializeActivity(*totals)}, {QString(replyEndReason), arguments.at(8).toString()}};
    } else if (member == signalReclaimCompleted) {
        if (!expect(signatureReclaimCompleted)) {
            return;
        }
        reply.data = {{QString(replyFileBytesBefore), arguments.at(0).toULongLong()},
                      {QString(replyFileBytesAfter), arguments.at(1).toULongLong()},
                      {QString(replyStoppedAtDeadline), arguments.at(2).toBool()}};
    }
    qCDebug(CACHESCOPE_PRIVILEGED) << "job" << m_jobPath << "completed with" << member;
    finish(reply);
}

void BusCall::helperLeftTheBus()
{
    if (m_finished || m_jobPath.isEmpty()) {
        return; // before the job: the call itself fails (NoReply)
    }
    Reply reply;
    reply.failure = Failure::Failed;
    reply.message = i18nc("@info", "The Cachescope helper stopped before it finished; what it had done by then is not known.");
    finish(reply);
}

void BusCall::cancel()
{
    if (m_finished) {
        return;
    }
    // An activity stopped once it runs still has its totals to give: its
    // job completes with them at the Cancel, and is waited for.
    if (m_request.operation == Operation::Activity && !m_jobPath.isEmpty()) {
        if (!m_cancelWanted) {
            m_cancelWanted = true;
            sendCancel();
        }
        return;
    }
    m_cancelWanted = true;
    if (!m_jobPath.isEmpty()) {
        sendCancel();
    }
    Reply reply;
    reply.failure = Failure::Cancelled;
    reply.message = i18nc("@info", "The request was cancelled.");
    finish(reply);
}

void BusCall::sendCancel()
{
    qCDebug(CACHESCOPE_PRIVILEGED) << "cancelling job" << m_jobPath;
    QDBusMessage cancel = QDBusMessage::createMethodCall(QString(busName), m_jobPath, QString(busJobInterface), QString(methodJobCancel));
    // A helper that has gone is not started again to hear it.
    cancel.setAutoStartService(false);
    cancel.setInteractiveAuthorizationAllowed(true);
    // Its answer does not matter: the job then ends as cancelled, or had ended.
    m_bus.asyncCall(cancel, 10000);
}

void BusCall::detach()
{
    m_done = nullptr;
    m_progress = nullptr;
}

void BusCall::finish(const Reply &reply)
{
    if (m_finished) {
        return;
    }
    m_finished = true;
    if (m_deadline) {
        m_deadline->stop();
    }
    disconnectJobSignals();
    m_earlySignals.clear();
    Done done = std::move(m_done);
    m_done = nullptr;
    m_progress = nullptr;
    if (done) {
        done(reply);
    }
    deleteWhenIdle();
}

void BusCall::deleteWhenIdle()
{
    if (m_finished && !m_replyPending) {
        deleteLater();
    }
}

} // namespace Cachescope::Privileged
