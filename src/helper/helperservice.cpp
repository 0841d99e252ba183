// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "helperservice.h"

#include "accountanswer.h"
#include "activityanswer.h"
#include "busconnection.h"
#include "cachescope_helper_debug.h"
#include "helperprotocol.h"
#include "residencyanswer.h"
#include "tracecapture.h"

#include <QCoreApplication>
#include <QFile>
#include <QMetaObject>

#include <systemd/sd-bus.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>

#include <pthread.h>
#include <unistd.h>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

namespace
{

HelperService *s_service = nullptr;

constexpr const char *serviceName = "org.kde.cachescope.Helper1";
constexpr const char *objectPath = "/org/kde/cachescope/Helper1";
constexpr const char *interfaceName = "org.kde.cachescope.Helper1";
constexpr const char *jobInterfaceName = "org.kde.cachescope.Job1";
constexpr const char *jobPathPrefix = "/org/kde/cachescope/Helper1/job";

using ActionFunction = ActionReply (*)(const QVariantMap &, const Caller &, HelperContext &);

struct OperationSpec {
    Operation operation;
    QLatin1StringView polkitAction;
    // The audit line's name of the action (docs/helper-security.md rule 11).
    const char *auditName;
    bool job;
    // Cancel makes the action end early with what it has (HelperContext::stopped).
    bool endsEarlyOnCancel;
    std::chrono::seconds deadline;
    ActionFunction action;
};

using std::chrono::seconds;
// docs/helper-security.md rule 14: every operation has a deadline, past
// which its caller is answered Timeout and its thread is no longer waited for.
const OperationSpec operationSpecs[] = {
    // sync() runs in a child bounded by syncDeadlineMs; the drop itself is quick.
    {Operation::DropCaches, actionDropCaches, "dropcaches", false, false, seconds(120), dropCachesAction},
    {Operation::SwapOff, actionSwapOff, "swapoff", true, false, seconds(30 * 60), swapOffAction},
    {Operation::SwapOffAll, actionSwapOff, "swapoff", true, false, seconds(30 * 60), swapOffAction},
    {Operation::SwapOn, actionSwapOn, "swapon", false, false, seconds(120), swapOnAction},
    {Operation::SwapOnAll, actionSwapOn, "swapon", false, false, seconds(120), swapOnAction},
    {Operation::CreateExperimentSwapFile, actionSwapFileCreate, "swapfilecreate", false, false, seconds(600), swapFileCreateAction},
    {Operation::RemoveExperimentSwapFile, actionSwapFileRemove, "swapfileremove", false, false, seconds(30 * 60), swapFileRemoveAction},
    {Operation::ReadResidency, actionResidency, "residency", true, false, seconds(residencyDeadlineSeconds * 2 + 10), residencyAction},
    {Operation::Trace, actionTrace, "trace", true, true, seconds(maxTraceSeconds + 30), traceAction},
    {Operation::Contain, actionContain, "contain", false, false, seconds(60), containAction},
    {Operation::Reclaim, actionReclaim, "reclaim", true, true, seconds(reclaimDeadlineSeconds + 20), reclaimAction},
    {Operation::Account, actionAccount, "account", true, false, seconds(accountDeadlineSeconds + 20), accountAction},
    {Operation::Activity, actionActivity, "activity", true, true, seconds(maxActivitySeconds + 30), activityAction},
};

const OperationSpec &specOf(Operation operation)
{
    for (const OperationSpec &spec : operationSpecs) {
        if (spec.operation == operation) {
            return spec;
        }
    }
    Q_UNREACHABLE();
}

QString errnoText(int error)
{
    return QString::fromLocal8Bit(strerror(error < 0 ? -error : error));
}

// --- Arguments: the typed D-Bus values into the action's map ------------------

// One "ay" as bytes.
int readBytes(sd_bus_message *message, QByteArray *out)
{
    const void *data = nullptr;
    size_t size = 0;
    const int r = sd_bus_message_read_array(message, 'y', &data, &size);
    if (r < 0) {
        return r;
    }
    *out = size > 0 ? QByteArray(static_cast<const char *>(data), qsizetype(size)) : QByteArray();
    return 0;
}

// The action's argument map, or nullopt with *error (a sentence) when the
// values cannot be read. sd-bus has already refused a wrong signature
// (wrong types, arguments missing or extra) with InvalidArgs.
std::optional<QVariantMap> argumentsOf(Operation operation, sd_bus_message *message, QString *error)
{
    int r = 0;
    QVariantMap args;
    const auto failed = [&](const char *what) {
        *error = QStringLiteral("Cannot read the %1 argument: %2.").arg(QLatin1String(what), errnoText(r));
        return std::nullopt;
    };
    switch (operation) {
    case Operation::DropCaches: {
        uint32_t level = 0;
        if ((r = sd_bus_message_read(message, "u", &level)) < 0) {
            return failed("level");
        }
        args.insert(keyLevel, uint(level));
        break;
    }
    case Operation::SwapOff:
    case Operation::SwapOn: {
        QByteArray area;
        if ((r = readBytes(message, &area)) < 0) {
            return failed("area");
        }
        // The kernel's names are text (/proc/swaps); the action compares the
        // UTF-8 bytes with the kernel's and refuses a NUL.
        args.insert(keyArea, QString::fromUtf8(area));
        break;
    }
    case Operation::SwapOffAll:
    case Operation::SwapOnAll:
        args.insert(keyAll, true);
        break;
    case Operation::CreateExperimentSwapFile: {
        uint64_t size = 0;
        if ((r = sd_bus_message_read(message, "t", &size)) < 0) {
            return failed("size_bytes");
        }
        args.insert(keySizeBytes, qulonglong(size));
        break;
    }
    case Operation::RemoveExperimentSwapFile:
        break;
    case Operation::ReadResidency: {
        if ((r = sd_bus_message_enter_container(message, 'a', "ay")) < 0) {
            return failed("paths");
        }
        int count = 0;
        while ((r = sd_bus_message_at_end(message, false)) == 0) {
            if (count == maxPathsPerCall) {
                // Read no further than the limit: the rest is never copied.
                *error = QStringLiteral("At most %1 paths a call.").arg(maxPathsPerCall);
                return std::nullopt;
            }
            QByteArray path;
            if ((r = readBytes(message, &path)) < 0) {
                return failed("paths");
            }
            args.insert(pathKey(count), path);
            ++count;
        }
        if (r < 0 || (r = sd_bus_message_exit_container(message)) < 0) {
            return failed("paths");
        }
        uint32_t buckets = 0;
        if ((r = sd_bus_message_read(message, "u", &buckets)) < 0) {
            return failed("buckets");
        }
        args.insert(keyCount, count);
        args.insert(keyBuckets, uint(buckets));
        break;
    }
    case Operation::Trace: {
        uint32_t pid = 0;
        uint32_t secondsArg = 0;
        if ((r = sd_bus_message_read(message, "uu", &pid, &secondsArg)) < 0) {
            return failed("pid and seconds");
        }
        args.insert(keyPid, uint(pid));
        args.insert(keySeconds, uint(secondsArg));
        break;
    }
    case Operation::Contain: {
        uint32_t pid = 0;
        uint64_t limit = 0;
        if ((r = sd_bus_message_read(message, "ut", &pid, &limit)) < 0) {
            return failed("pid and limit_bytes");
        }
        args.insert(keyPid, uint(pid));
        args.insert(keyLimitBytes, qulonglong(limit));
        break;
    }
    case Operation::Reclaim: {
        QByteArray cgroup;
        if ((r = readBytes(message, &cgroup)) < 0) {
            return failed("cgroup");
        }
        args.insert(keyCgroup, QString::fromUtf8(cgroup));
        break;
    }
    case Operation::Account:
        break;
    case Operation::Activity: {
        uint32_t secondsArg = 0;
        uint32_t intervalMs = 0;
        if ((r = sd_bus_message_read(message, "uu", &secondsArg, &intervalMs)) < 0) {
            return failed("seconds and interval");
        }
        args.insert(keySeconds, uint(secondsArg));
        args.insert(keyIntervalMs, uint(intervalMs));
        break;
    }
    }
    return args;
}

// --- Answers: the action's data into typed D-Bus values -------------------------

int appendBytes(sd_bus_message *message, const QByteArray &bytes)
{
    return sd_bus_message_append_array(message, 'y', bytes.constData(), size_t(bytes.size()));
}

int appendByteArrays(sd_bus_message *message, const QStringList &texts)
{
    int r = sd_bus_message_open_container(message, 'a', "ay");
    for (const QString &text : texts) {
        if (r >= 0) {
            r = appendBytes(message, text.toUtf8());
        }
    }
    return r < 0 ? r : sd_bus_message_close_container(message);
}

int appendIntegers(sd_bus_message *message, const QVariantList &values)
{
    std::vector<int32_t> numbers;
    numbers.reserve(size_t(values.size()));
    for (const QVariant &value : values) {
        numbers.push_back(int32_t(value.toInt()));
    }
    return sd_bus_message_append_array(message, 'i', numbers.data(), numbers.size() * sizeof(int32_t));
}

int appendFigures(sd_bus_message *message, const QVariantMap &figures)
{
    int r = sd_bus_message_open_container(message, 'a', "{st}");
    for (QLatin1StringView key : memoryFigureKeys) {
        if (r >= 0 && figures.contains(key)) {
            r = sd_bus_message_append(message, "{st}", QByteArray(key.data(), key.size()).constData(), uint64_t(figures.value(key).toULongLong()));
        }
    }
    return r < 0 ? r : sd_bus_message_close_container(message);
}

int appendSwapOnAnswer(sd_bus_message *message, const QVariantMap &data)
{
    int r = appendByteArrays(message, data.value(replyTurnedOn).toStringList());
    if (r >= 0) {
        r = appendIntegers(message, data.value(replyPriorities).toList());
    }
    if (r >= 0) {
        r = sd_bus_message_open_container(message, 'a', "(aysis)");
    }
    const QVariantList areas = data.value(replyAreas).toList();
    for (const QVariant &entry : areas) {
        const QVariantMap area = entry.toMap();
        if (r >= 0) {
            r = sd_bus_message_open_container(message, 'r', "aysis");
        }
        if (r >= 0) {
            r = appendBytes(message, area.value(areaName).toString().toUtf8());
        }
        if (r >= 0) {
            r = sd_bus_message_append(message,
                                      "sis",
                                      area.value(areaOutcome).toString().toUtf8().constData(),
                                      int32_t(area.value(areaPriority).toInt()),
                                      area.value(areaMessage).toString().toUtf8().constData());
        }
        if (r >= 0) {
            r = sd_bus_message_close_container(message);
        }
    }
    return r < 0 ? r : sd_bus_message_close_container(message);
}

// A plain operation's return values.
int appendReturn(Operation operation, sd_bus_message *message, const QVariantMap &data)
{
    switch (operation) {
    case Operation::DropCaches: {
        const int r = appendFigures(message, data.value(replyBefore).toMap());
        return r < 0 ? r : appendFigures(message, data.value(replyAfter).toMap());
    }
    case Operation::SwapOn:
    case Operation::SwapOnAll:
        return appendSwapOnAnswer(message, data);
    case Operation::CreateExperimentSwapFile: {
        const int r = appendBytes(message, QFile::encodeName(data.value(replyPath).toString()));
        return r < 0 ? r : sd_bus_message_append(message, "t", uint64_t(data.value(replySizeBytes).toULongLong()));
    }
    case Operation::RemoveExperimentSwapFile: {
        const int r = appendBytes(message, QFile::encodeName(data.value(replyPath).toString()));
        return r < 0 ? r : sd_bus_message_append(message, "b", int(data.value(replyWasActive).toBool()));
    }
    case Operation::Contain: {
        const int r = appendBytes(message, QFile::encodeName(data.value(replyCgroupPath).toString()));
        return r < 0 ? r : sd_bus_message_append(message, "u", uint32_t(data.value(replyCgroupVersion).toUInt()));
    }
    default:
        return -EINVAL;
    }
}

// Text for a D-Bus string: valid UTF-8 (sd-bus refuses anything else), a
// byte that is not shown as U+FFFD.
std::string busText(const std::string &text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size())).toStdString();
}

// ActivityInterval's and ActivityCompleted's values but the end reason
// (org.kde.cachescope.Helper1.xml).
int appendActivity(sd_bus_message *signal, const Activity::Interval &interval)
{
    const auto figures = [signal](const Activity::Figures &f) {
        return sd_bus_message_append(signal, "(tttt)", uint64_t(f.addedPages), uint64_t(f.reclaimedPages), uint64_t(f.droppedPages), uint64_t(f.dirtiedPages));
    };
    const auto bytes = [signal](const std::string &text) {
        return sd_bus_message_append_array(signal, 'y', text.data(), text.size());
    };
    int r = sd_bus_message_append(signal, "d", interval.seconds);
    if (r >= 0) {
        r = sd_bus_message_open_container(signal, 'a', "(iayxayayb(tttt)a(ttt))");
    }
    for (const Activity::ProcessActivity &process : interval.processes) {
        if (r >= 0) {
            r = sd_bus_message_open_container(signal, 'r', "iayxayayb(tttt)a(ttt)");
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal, "i", int32_t(process.pid));
        }
        if (r >= 0) {
            r = bytes(process.command);
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal, "x", int64_t(process.uid));
        }
        if (r >= 0) {
            r = bytes(process.cgroup);
        }
        if (r >= 0) {
            r = bytes(process.application);
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal, "b", int(process.reclaimThread));
        }
        if (r >= 0) {
            r = figures(process.figures);
        }
        if (r >= 0) {
            r = sd_bus_message_open_container(signal, 'a', "(ttt)");
        }
        for (const auto &[key, pages] : process.pushedOut) {
            if (r >= 0) {
                r = sd_bus_message_append(signal, "(ttt)", uint64_t(key.device), uint64_t(key.inode), uint64_t(pages));
            }
        }
        if (r >= 0) {
            r = sd_bus_message_close_container(signal);
        }
        if (r >= 0) {
            r = sd_bus_message_close_container(signal);
        }
    }
    if (r >= 0) {
        r = sd_bus_message_close_container(signal);
    }
    if (r >= 0) {
        r = sd_bus_message_open_container(signal, 'a', "(ttayayi(tttt))");
    }
    for (const Activity::FileActivity &file : interval.files) {
        if (r >= 0) {
            r = sd_bus_message_open_container(signal, 'r', "ttayayi(tttt)");
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal, "tt", uint64_t(file.key.device), uint64_t(file.key.inode));
        }
        if (r >= 0) {
            r = bytes(file.deviceName);
        }
        if (r >= 0) {
            r = bytes(file.path);
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal, "i", int32_t(file.topAdder));
        }
        if (r >= 0) {
            r = figures(file.figures);
        }
        if (r >= 0) {
            r = sd_bus_message_close_container(signal);
        }
    }
    if (r >= 0) {
        r = sd_bus_message_close_container(signal);
    }
    if (r >= 0) {
        r = figures(interval.otherProcesses);
    }
    if (r >= 0) {
        r = figures(interval.otherFiles);
    }
    if (r >= 0) {
        r = figures(interval.all);
    }
    if (r >= 0) {
        r = sd_bus_message_append(signal, "tt", uint64_t(interval.lostEvents), uint64_t(interval.undecoded));
    }
    return r;
}

// AccountCompleted's values (org.kde.cachescope.Helper1.xml).
int appendAccount(sd_bus_message *signal, const CacheAccount &account)
{
    int r = sd_bus_message_open_container(signal, 'a', "{st}");
    const std::pair<const char *, uint64_t> figures[] = {
        {"Cached", account.cached},
        {"CachedAtStart", account.memInfoBefore.value("Cached")},
        {"Buffers", account.buffers},
        {"Shmem", account.shmem},
        {"MountsNotWalked", account.mountsNotWalked},
        {"OwnIpcNamespace", account.ownIpcNamespace ? 1u : 0u},
    };
    for (const auto &[name, value] : figures) {
        if (r >= 0) {
            r = sd_bus_message_append(signal, "{st}", name, value);
        }
    }
    if (r >= 0) {
        r = sd_bus_message_close_container(signal);
    }
    if (r >= 0) {
        r = sd_bus_message_open_container(signal, 'a', "(yayaytttttsbsa(iay)t)");
    }
    for (const AccountPart &part : account.parts) {
        if (r >= 0) {
            r = sd_bus_message_open_container(signal, 'r', "yayaytttttsbsa(iay)t");
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal, "y", uint8_t(part.kind));
        }
        if (r >= 0) {
            r = sd_bus_message_append_array(signal, 'y', part.path.data(), part.path.size());
        }
        if (r >= 0) {
            r = sd_bus_message_append_array(signal, 'y', part.name.data(), part.name.size());
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal,
                                      "tttttsbs",
                                      uint64_t(part.bytes),
                                      uint64_t(part.sizeBytes),
                                      uint64_t(part.files),
                                      uint64_t(part.device),
                                      uint64_t(part.inode),
                                      busText(part.fileSystem).c_str(),
                                      int(part.hidden),
                                      busText(part.hiddenReason).c_str());
        }
        if (r >= 0) {
            r = sd_bus_message_open_container(signal, 'a', "(iay)");
        }
        for (const AccountProcess &process : part.processes) {
            if (r >= 0) {
                r = sd_bus_message_open_container(signal, 'r', "iay");
            }
            if (r >= 0) {
                r = sd_bus_message_append(signal, "i", int32_t(process.pid));
            }
            if (r >= 0) {
                r = sd_bus_message_append_array(signal, 'y', process.command.data(), process.command.size());
            }
            if (r >= 0) {
                r = sd_bus_message_close_container(signal);
            }
        }
        if (r >= 0) {
            r = sd_bus_message_close_container(signal);
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal, "t", uint64_t(part.processCount));
        }
        if (r >= 0) {
            r = sd_bus_message_close_container(signal);
        }
    }
    if (r >= 0) {
        r = sd_bus_message_close_container(signal);
    }
    if (r >= 0) {
        r = sd_bus_message_append(signal,
                                  "(tttt)",
                                  uint64_t(account.hidden.processes),
                                  uint64_t(account.hidden.files),
                                  uint64_t(account.hidden.fileBytes),
                                  uint64_t(account.hidden.coveredMountPoints));
    }
    if (r >= 0) {
        r = sd_bus_message_open_container(signal, 'a', "(aytbs)");
    }
    for (const BlockDeviceBuffers &device : account.buffersByDevice) {
        if (r >= 0) {
            r = sd_bus_message_open_container(signal, 'r', "aytbs");
        }
        if (r >= 0) {
            r = sd_bus_message_append_array(signal, 'y', device.name.data(), device.name.size());
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal, "tbs", uint64_t(device.bytes), int(device.hidden), busText(device.hiddenReason).c_str());
        }
        if (r >= 0) {
            r = sd_bus_message_close_container(signal);
        }
    }
    if (r >= 0) {
        r = sd_bus_message_close_container(signal);
    }
    if (r >= 0) {
        r = sd_bus_message_append(signal, "bbd", int(account.complete), int(account.inChroot), account.seconds);
    }
    return r;
}

// A job's Completed signal: its member and values. -EBADMSG when the
// action's data does not parse (never expected: the helper wrote it).
int appendCompleted(Operation operation, sd_bus_message *signal, const QVariantMap &data)
{
    int r = 0;
    switch (operation) {
    case Operation::SwapOff:
    case Operation::SwapOffAll:
        r = appendByteArrays(signal, data.value(replyTurnedOff).toStringList());
        if (r >= 0) {
            r = appendIntegers(signal, data.value(replyPriorities).toList());
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal,
                                      "tt",
                                      uint64_t(data.value(replySwapUsedBefore).toULongLong()),
                                      uint64_t(data.value(replySwapUsedAfter).toULongLong()));
        }
        return r;
    case Operation::ReadResidency: {
        const std::optional<QList<FileResidencyAnswer>> files = parseFileResults(data.value(replyFiles).toByteArray(), maxPathsPerCall, maxBuckets);
        if (!files) {
            return -EBADMSG;
        }
        r = sd_bus_message_open_container(signal, 'a', "(sbtttttsbttat)");
        for (const FileResidencyAnswer &file : *files) {
            if (r >= 0) {
                r = sd_bus_message_open_container(signal, 'r', "sbtttttsbttat");
            }
            if (r >= 0) {
                r = sd_bus_message_append(signal,
                                          "sbtttttsbtt",
                                          file.error.toUtf8().constData(),
                                          int(file.hidden),
                                          uint64_t(file.device),
                                          uint64_t(file.inode),
                                          uint64_t(file.sizeBytes),
                                          uint64_t(file.pages),
                                          uint64_t(file.resident),
                                          file.method.toUtf8().constData(),
                                          int(file.detail),
                                          uint64_t(file.dirty),
                                          uint64_t(file.writeback));
            }
            if (r >= 0) {
                std::vector<uint64_t> histogram(file.histogram.begin(), file.histogram.end());
                r = sd_bus_message_append_array(signal, 't', histogram.data(), histogram.size() * sizeof(uint64_t));
            }
            if (r >= 0) {
                r = sd_bus_message_close_container(signal);
            }
        }
        return r < 0 ? r : sd_bus_message_close_container(signal);
    }
    case Operation::Trace: {
        const std::optional<Trace::Capture> capture = parseCapture(data.value(replyCapture).toByteArray());
        if (!capture) {
            return -EBADMSG;
        }
        r = sd_bus_message_open_container(signal, 'a', "(ytiuuttttus)");
        for (const Trace::RawEvent &event : capture->events) {
            if (r >= 0) {
                r = sd_bus_message_append(signal,
                                          "(ytiuuttttus)",
                                          uint8_t(event.kind),
                                          uint64_t(event.timeNs),
                                          int32_t(event.pid),
                                          uint32_t(event.major),
                                          uint32_t(event.minor),
                                          uint64_t(event.inode),
                                          uint64_t(event.firstPage),
                                          uint64_t(event.pageCount),
                                          uint64_t(event.sector),
                                          uint32_t(event.bytes),
                                          event.rwbs.c_str());
            }
        }
        if (r >= 0) {
            r = sd_bus_message_close_container(signal);
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal,
                                      "tbbs",
                                      uint64_t(capture->lostEvents),
                                      int(capture->usageEvents),
                                      int(capture->blockEvents),
                                      capture->endReason.c_str());
        }
        return r;
    }
    case Operation::Account: {
        const std::optional<CacheAccount> account = parseAccount(data.value(replyAccount).toByteArray());
        return account ? appendAccount(signal, *account) : -EBADMSG;
    }
    case Operation::Activity: {
        const std::optional<Activity::Interval> totals = parseActivity(data.value(replyActivity).toByteArray());
        if (!totals) {
            return -EBADMSG;
        }
        r = appendActivity(signal, *totals);
        if (r >= 0) {
            r = sd_bus_message_append(signal, "s", data.value(replyEndReason).toString().toUtf8().constData());
        }
        return r;
    }
    case Operation::Reclaim:
        return sd_bus_message_append(signal,
                                     "ttb",
                                     uint64_t(data.value(replyFileBytesBefore).toULongLong()),
                                     uint64_t(data.value(replyFileBytesAfter).toULongLong()),
                                     int(data.value(replyStoppedAtDeadline).toBool()));
    default:
        return -EINVAL;
    }
}

const char *completedSignalOf(Operation operation)
{
    switch (operation) {
    case Operation::SwapOff:
    case Operation::SwapOffAll:
        return "SwapOffCompleted";
    case Operation::ReadResidency:
        return "ResidencyCompleted";
    case Operation::Trace:
        return "TraceCompleted";
    case Operation::Reclaim:
        return "ReclaimCompleted";
    case Operation::Account:
        return "AccountCompleted";
    case Operation::Activity:
        return "ActivityCompleted";
    default:
        return nullptr;
    }
}

// --- sd-bus trampolines ------------------------------------------------------------

template<Operation operation>
int onMethod(sd_bus_message *message, void *, sd_bus_error *)
{
    return s_service->handleCall(message, operation);
}

int onCancel(sd_bus_message *message, void *, sd_bus_error *)
{
    return s_service->handleCancel(message);
}

// Job objects exist only for their owner: anyone else (Introspect, Cancel)
// finds no object there.
int findJob(sd_bus *bus, const char *path, const char *, void *, void **found, sd_bus_error *)
{
    sd_bus_message *current = sd_bus_get_current_message(bus);
    const char *sender = current ? sd_bus_message_get_sender(current) : nullptr;
    if (!sender || !s_service->jobVisibleTo(path, sender)) {
        return 0;
    }
    *found = nullptr;
    return 1;
}

// Every method is SD_BUS_VTABLE_UNPRIVILEGED: polkit decides, not sd-bus's
// own capability check (which would also ask the bus for several
// credentials at once, and dbus-broker then sends a process descriptor).
const sd_bus_vtable helperVtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD_WITH_ARGS("DropCaches",
                            SD_BUS_ARGS("u", level),
                            SD_BUS_RESULT("a{st}", before, "a{st}", after),
                            onMethod<Operation::DropCaches>,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("SwapOff", SD_BUS_ARGS("ay", area), SD_BUS_RESULT("o", job), onMethod<Operation::SwapOff>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("SwapOffAll", SD_BUS_NO_ARGS, SD_BUS_RESULT("o", job), onMethod<Operation::SwapOffAll>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("SwapOn",
                            SD_BUS_ARGS("ay", area),
                            SD_BUS_RESULT("aay", turned_on, "ai", priorities, "a(aysis)", areas),
                            onMethod<Operation::SwapOn>,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("SwapOnAll",
                            SD_BUS_NO_ARGS,
                            SD_BUS_RESULT("aay", turned_on, "ai", priorities, "a(aysis)", areas),
                            onMethod<Operation::SwapOnAll>,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("CreateExperimentSwapFile",
                            SD_BUS_ARGS("t", size_bytes),
                            SD_BUS_RESULT("ay", path, "t", created_bytes),
                            onMethod<Operation::CreateExperimentSwapFile>,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("RemoveExperimentSwapFile",
                            SD_BUS_NO_ARGS,
                            SD_BUS_RESULT("ay", path, "b", was_active),
                            onMethod<Operation::RemoveExperimentSwapFile>,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("ReadResidency",
                            SD_BUS_ARGS("aay", paths, "u", buckets),
                            SD_BUS_RESULT("o", job),
                            onMethod<Operation::ReadResidency>,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Trace", SD_BUS_ARGS("u", pid, "u", seconds), SD_BUS_RESULT("o", job), onMethod<Operation::Trace>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Contain",
                            SD_BUS_ARGS("u", pid, "t", limit_bytes),
                            SD_BUS_RESULT("ay", cgroup_path, "u", version),
                            onMethod<Operation::Contain>,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Reclaim", SD_BUS_ARGS("ay", cgroup), SD_BUS_RESULT("o", job), onMethod<Operation::Reclaim>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Account", SD_BUS_NO_ARGS, SD_BUS_RESULT("o", job), onMethod<Operation::Account>, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD_WITH_ARGS("Activity",
                            SD_BUS_ARGS("u", seconds, "u", interval_ms),
                            SD_BUS_RESULT("o", job),
                            onMethod<Operation::Activity>,
                            SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END,
};

const sd_bus_vtable jobVtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Cancel", "", "", onCancel, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL_WITH_ARGS("Failed", SD_BUS_ARGS("s", error, "s", message), 0),
    SD_BUS_SIGNAL_WITH_ARGS("SwapOffProgress", SD_BUS_ARGS("ay", area, "t", swap_used_bytes), 0),
    SD_BUS_SIGNAL_WITH_ARGS("SwapOffCompleted", SD_BUS_ARGS("aay", turned_off, "ai", priorities, "t", swap_used_before, "t", swap_used_after), 0),
    SD_BUS_SIGNAL_WITH_ARGS("ResidencyCompleted", SD_BUS_ARGS("a(sbtttttsbttat)", files), 0),
    SD_BUS_SIGNAL("Tracing", "", 0),
    SD_BUS_SIGNAL_WITH_ARGS("TraceCompleted",
                            SD_BUS_ARGS("a(ytiuuttttus)", events, "t", lost_events, "b", usage_events, "b", block_events, "s", end_reason),
                            0),
    SD_BUS_SIGNAL_WITH_ARGS("ReclaimCompleted", SD_BUS_ARGS("t", file_bytes_before, "t", file_bytes_after, "b", stopped_at_deadline), 0),
    SD_BUS_SIGNAL_WITH_ARGS(
        "AccountCompleted",
        SD_BUS_ARGS("a{st}", figures, "a(yayaytttttsbsa(iay)t)", parts, "(tttt)", hidden, "a(aytbs)", buffers, "b", complete, "b", in_chroot, "d", seconds),
        0),
    SD_BUS_SIGNAL_WITH_ARGS("ActivityInterval",
                            SD_BUS_ARGS("d",
                                        seconds,
                                        "a(iayxayayb(tttt)a(ttt))",
                                        processes,
                                        "a(ttayayi(tttt))",
                                        files,
                                        "(tttt)",
                                        other_processes,
                                        "(tttt)",
                                        other_files,
                                        "(tttt)",
                                        all,
                                        "t",
                                        lost_events,
                                        "t",
                                        undecoded),
                            0),
    SD_BUS_SIGNAL_WITH_ARGS("ActivityCompleted",
                            SD_BUS_ARGS("d",
                                        seconds,
                                        "a(iayxayayb(tttt)a(ttt))",
                                        processes,
                                        "a(ttayayi(tttt))",
                                        files,
                                        "(tttt)",
                                        other_processes,
                                        "(tttt)",
                                        other_files,
                                        "(tttt)",
                                        all,
                                        "t",
                                        lost_events,
                                        "t",
                                        undecoded,
                                        "s",
                                        end_reason),
                            0),
    SD_BUS_VTABLE_END,
};

} // namespace

// --- Requests ------------------------------------------------------------------------

struct HelperService::Request {
    uint64_t id = 0;
    const OperationSpec *spec = nullptr;
    MessageRef call;
    std::string sender;
    QVariantMap arguments;
    std::optional<uint32_t> uid;
    // The uid lookup or the polkit check under way (cancelled with the request).
    sd_bus_slot *pending = nullptr;
    std::string cancellationId;
    bool authorizing = false;
    bool running = false; // the action's thread was started
    bool threadDone = false;
    bool answered = false; // the caller has its answer (return, error, or the job's last signal)
    std::shared_ptr<std::atomic<bool>> cancelled = std::make_shared<std::atomic<bool>>(false);
    std::string jobPath; // jobs only, once authorized
    sd_bus_track *track = nullptr;

    [[nodiscard]] Caller caller() const
    {
        return Caller{uid};
    }
};

HelperService::HelperService(BusConnection &bus, const HelperContext &base, const ServiceLimits &limits)
    : m_bus(bus)
    , m_base(base)
    , m_limits(limits)
{
    Q_ASSERT(!s_service);
    s_service = this;
    m_idle.setSingleShot(true);
    connect(&m_idle, &QTimer::timeout, this, [this] {
        if (m_requests.empty()) {
            qCDebug(CACHESCOPE_HELPER) << "idle: ending";
            leave(false);
        }
    });
}

HelperService::~HelperService()
{
    for (auto &[id, request] : m_requests) {
        if (request->pending) {
            sd_bus_slot_unref(request->pending);
        }
        if (request->track) {
            sd_bus_track_unref(request->track);
        }
    }
    sd_bus_slot_unref(m_releaseSlot);
    sd_bus_slot_unref(m_jobSlot);
    sd_bus_slot_unref(m_objectSlot);
    s_service = nullptr;
}

bool HelperService::start(QString *error)
{
    sd_bus *bus = m_bus.bus();
    int r = sd_bus_add_object_vtable(bus, &m_objectSlot, objectPath, interfaceName, helperVtable, nullptr);
    if (r >= 0) {
        r = sd_bus_add_fallback_vtable(bus, &m_jobSlot, jobPathPrefix, jobInterfaceName, jobVtable, findJob, nullptr);
    }
    if (r < 0) {
        *error = QStringLiteral("cannot publish %1: %2").arg(QLatin1String(objectPath), errnoText(r));
        return false;
    }
    // Taken last, when everything is in place to answer.
    r = sd_bus_request_name(bus, serviceName, 0);
    if (r < 0) {
        *error = QStringLiteral("cannot own %1: %2").arg(QLatin1String(serviceName), errnoText(r));
        return false;
    }
    updateIdleTimer();
    // The call that activated the service may already wait in sd-bus's
    // queue (read while the name was requested): no socket event will
    // announce it again.
    m_bus.wake();
    return true;
}

int HelperService::placesTaken() const
{
    int count = 0;
    for (const auto &[id, request] : m_requests) {
        count += request->uid ? 1 : 0;
    }
    return count;
}

int HelperService::lookingUp() const
{
    return int(m_requests.size()) - placesTaken();
}

int HelperService::underWay(uint32_t uid) const
{
    int count = 0;
    for (const auto &[id, request] : m_requests) {
        count += request->uid == uid ? 1 : 0;
    }
    return count;
}

int HelperService::handleCall(sd_bus_message *message, Operation operation)
{
    const OperationSpec &spec = specOf(operation);
    const char *sender = sd_bus_message_get_sender(message);
    if (!sender) {
        return sd_bus_reply_method_errorf(message, errorName(CallerUnknown), "The call names no sender.");
    }
    QString problem;
    std::optional<QVariantMap> args = argumentsOf(operation, message, &problem);
    if (!args) {
        auditRefusal(spec.auditName, Caller{}, InvalidArgument);
        return sd_bus_reply_method_errorf(message, errorName(InvalidArgument), "%s", problem.toUtf8().constData());
    }
    // Stopping at SIGTERM: what comes now is not started (the next
    // instance the bus starts will take it).
    if (m_stopping) {
        return sd_bus_reply_method_errorf(message, errorName(Busy), "The Cachescope helper is stopping; try again in a moment.");
    }
    // A flood of calls never grows the requests kept, whoever sends them:
    // those waiting for their uid have a bound of their own.
    if (lookingUp() >= m_limits.lookups || placesTaken() >= m_limits.total) {
        auditRefusal(spec.auditName, Caller{}, Busy);
        return sd_bus_reply_method_errorf(message,
                                          errorName(Busy),
                                          "The Cachescope helper is busy with %d operations; try again when some have finished.",
                                          int(m_requests.size()));
    }
    auto request = std::make_shared<Request>();
    request->id = m_nextId++;
    request->spec = &spec;
    request->call = MessageRef(message);
    request->sender = sender;
    request->arguments = std::move(*args);
    m_requests.emplace(request->id, request);
    updateIdleTimer();

    // docs/helper-security.md rule 6: the uid the bus recorded when the
    // caller connected (SO_PEERCRED), one credential a call: asking for
    // several at once gets a process descriptor on dbus-broker, which a
    // connection without descriptor passing may not receive.
    const int r = sd_bus_call_method_async(
        m_bus.bus(),
        &request->pending,
        "org.freedesktop.DBus",
        "/org/freedesktop/DBus",
        "org.freedesktop.DBus",
        "GetConnectionUnixUser",
        [](sd_bus_message *reply, void *userdata, sd_bus_error *) {
            s_service->lookedUpUid(uint64_t(reinterpret_cast<uintptr_t>(userdata)), reply);
            return 0;
        },
        reinterpret_cast<void *>(uintptr_t(request->id)),
        "s",
        sender);
    if (r < 0) {
        answerError(request, CallerUnknown, QStringLiteral("The caller's user could not be learnt from the bus: %1.").arg(errnoText(r)));
    }
    return 1;
}

void HelperService::lookedUpUid(uint64_t id, sd_bus_message *reply)
{
    const auto found = m_requests.find(id);
    if (found == m_requests.end()) {
        return;
    }
    std::shared_ptr<Request> request = found->second;
    sd_bus_slot_unref(request->pending);
    request->pending = nullptr;
    uint32_t uid = 0;
    if (sd_bus_message_is_method_error(reply, nullptr) || sd_bus_message_read(reply, "u", &uid) < 0) {
        // docs/helper-security.md rule 6: fail closed.
        answerError(request, CallerUnknown, QStringLiteral("The caller's user could not be learnt from the bus; nothing was done."));
        return;
    }
    request->uid = uid;
    if (underWay(uid) > m_limits.perUser) {
        answerError(request,
                    Busy,
                    QStringLiteral("You have %1 operations of the Cachescope helper under way; try again when one has finished.").arg(m_limits.perUser));
        return;
    }
    if (placesTaken() > m_limits.total) {
        answerError(request, Busy, QStringLiteral("The Cachescope helper is busy with %1 operations; try again when some have finished.").arg(m_limits.total));
        return;
    }

    // docs/helper-security.md rule 6 and 8: polkit asked with the caller's
    // bus name as subject (polkitd resolves it itself), the action's own id,
    // no details of the caller's (the dialog's text is the policy's), and
    // the caller's wish about an authentication dialog.
    static uint64_t checks = 0;
    request->cancellationId = "cachescope-" + std::to_string(getpid()) + "-" + std::to_string(++checks);
    sd_bus_message *query = nullptr;
    int r = sd_bus_message_new_method_call(m_bus.bus(),
                                           &query,
                                           "org.freedesktop.PolicyKit1",
                                           "/org/freedesktop/PolicyKit1/Authority",
                                           "org.freedesktop.PolicyKit1.Authority",
                                           "CheckAuthorization");
    const uint32_t flags = sd_bus_message_get_allow_interactive_authorization(request->call.get()) > 0 ? 1 : 0;
    const QByteArray actionId(request->spec->polkitAction.data(), request->spec->polkitAction.size());
    if (r >= 0) {
        r = sd_bus_message_append(query, "(sa{sv})", "system-bus-name", 1, "name", "s", request->sender.c_str());
    }
    if (r >= 0) {
        r = sd_bus_message_append(query, "sa{ss}us", actionId.constData(), 0, flags, request->cancellationId.c_str());
    }
    if (r >= 0) {
        const auto timeout = std::chrono::duration_cast<std::chrono::microseconds>(m_limits.authorization).count();
        r = sd_bus_call_async(
            m_bus.bus(),
            &request->pending,
            query,
            [](sd_bus_message *answer, void *userdata, sd_bus_error *) {
                s_service->authorized(uint64_t(reinterpret_cast<uintptr_t>(userdata)), answer);
                return 0;
            },
            reinterpret_cast<void *>(uintptr_t(id)),
            uint64_t(timeout));
    }
    sd_bus_message_unref(query);
    if (r < 0) {
        answerError(request, SystemFailure, QStringLiteral("polkit could not be asked: %1.").arg(errnoText(r)));
        return;
    }
    request->authorizing = true;
}

void HelperService::authorized(uint64_t id, sd_bus_message *reply)
{
    const auto found = m_requests.find(id);
    if (found == m_requests.end()) {
        return;
    }
    std::shared_ptr<Request> request = found->second;
    sd_bus_slot_unref(request->pending);
    request->pending = nullptr;
    request->authorizing = false;
    if (sd_bus_message_is_method_error(reply, nullptr)) {
        const sd_bus_error *error = sd_bus_message_get_error(reply);
        answerError(request,
                    NotAuthorized,
                    QStringLiteral("polkit did not authorize the request: %1.").arg(QString::fromUtf8(error && error->message ? error->message : "no answer")));
        return;
    }
    int isAuthorized = 0;
    int isChallenge = 0;
    bool dismissed = false;
    int r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
    if (r >= 0) {
        r = sd_bus_message_read(reply, "bb", &isAuthorized, &isChallenge);
    }
    if (r >= 0 && (r = sd_bus_message_enter_container(reply, 'a', "{ss}")) >= 0) {
        const char *key = nullptr;
        const char *value = nullptr;
        while ((r = sd_bus_message_read(reply, "{ss}", &key, &value)) > 0) {
            if (strcmp(key, "polkit.dismissed") == 0 && strcmp(value, "true") == 0) {
                dismissed = true;
            }
        }
    }
    if (r < 0 || !isAuthorized) {
        answerError(request,
                    NotAuthorized,
                    dismissed ? QStringLiteral("The request was cancelled in the authentication dialog.")
                              : QStringLiteral("You are not authorized to do this: polkit refused the request."));
        return;
    }
    run(request);
}

void HelperService::run(const std::shared_ptr<Request> &request)
{
    const OperationSpec &spec = *request->spec;
    // Its own copy of the context: operations run side by side (sharing
    // the abandoned children and their cap).
    HelperContext context = m_base;
    const uint64_t id = request->id;
    context.progress = [this, id](const QVariantMap &data) {
        QMetaObject::invokeMethod(
            this,
            [this, id, data] {
                progressed(id, data);
            },
            Qt::QueuedConnection);
    };
    context.stopped = [cancelled = request->cancelled] {
        return cancelled->load();
    };
    if (spec.job) {
        context.started = [this, id] {
            QMetaObject::invokeMethod(
                this,
                [this, id] {
                    startJob(id);
                },
                Qt::QueuedConnection);
        };
    }
    // A thread of its own (pthread_create, not std::thread: this code has no
    // exceptions, and a thread that cannot be made is an answer, not an abort).
    auto *work = new std::function<void()>(
        [this, id, action = spec.action, args = request->arguments, caller = request->caller(), context = std::move(context)]() mutable {
            const ActionReply reply = action(args, caller, context);
            QMetaObject::invokeMethod(
                this,
                [this, id, reply] {
                    finished(id, reply);
                },
                Qt::QueuedConnection);
        });
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    const int error = pthread_create(
        &thread,
        &attributes,
        [](void *argument) -> void * {
            const std::unique_ptr<std::function<void()>> run(static_cast<std::function<void()> *>(argument));
            (*run)();
            return nullptr;
        },
        work);
    pthread_attr_destroy(&attributes);
    if (error != 0) {
        delete work;
        answerError(request, SystemFailure, QStringLiteral("The helper cannot start the operation now: %1.").arg(errnoText(error)));
        return;
    }
    request->running = true;
    QTimer::singleShot(std::chrono::duration_cast<std::chrono::milliseconds>(spec.deadline), this, [this, id] {
        deadlinePassed(id);
    });
}

void HelperService::startJob(uint64_t id)
{
    const auto found = m_requests.find(id);
    if (found == m_requests.end() || found->second->answered || !found->second->jobPath.empty()) {
        return;
    }
    const std::shared_ptr<Request> request = found->second;
    // The job's path goes back now that the action has checked everything;
    // its signals follow this return, in order, to the caller alone.
    static uint64_t jobs = 0;
    request->jobPath = std::string(jobPathPrefix) + "/" + std::to_string(++jobs);
    if (sd_bus_reply_method_return(request->call.get(), "o", request->jobPath.c_str()) < 0) {
        request->cancelled->store(true);
        request->answered = true;
        forget(id);
        return;
    }
    m_bus.wake();
    // docs/helper-security.md rule 14: a caller that leaves the bus
    // cancels its job.
    if (sd_bus_track_new(
            m_bus.bus(),
            &request->track,
            [](sd_bus_track *, void *userdata) {
                s_service->ownerLeft(uint64_t(reinterpret_cast<uintptr_t>(userdata)));
                return 1;
            },
            reinterpret_cast<void *>(uintptr_t(id)))
        >= 0) {
        if (sd_bus_track_add_name(request->track, request->sender.c_str()) < 0) {
            // Gone already (or cannot be tracked): no empty track is kept.
            request->track = sd_bus_track_unref(request->track);
        }
    }
}

void HelperService::progressed(uint64_t id, const QVariantMap &data)
{
    const auto found = m_requests.find(id);
    if (found == m_requests.end() || found->second->answered || found->second->jobPath.empty()) {
        return;
    }
    const Request &request = *found->second;
    sd_bus_message *signal = nullptr;
    int r = 0;
    if (data.value(progressTracing).toBool()) {
        r = sd_bus_message_new_signal_to(m_bus.bus(), &signal, request.sender.c_str(), request.jobPath.c_str(), jobInterfaceName, "Tracing");
    } else if (data.contains(progressActivity)) {
        const std::optional<Activity::Interval> interval = parseActivity(data.value(progressActivity).toByteArray());
        if (!interval) {
            return;
        }
        r = sd_bus_message_new_signal_to(m_bus.bus(), &signal, request.sender.c_str(), request.jobPath.c_str(), jobInterfaceName, "ActivityInterval");
        if (r >= 0) {
            r = appendActivity(signal, *interval);
        }
    } else if (data.contains(progressSwapUsedBytes)) {
        r = sd_bus_message_new_signal_to(m_bus.bus(), &signal, request.sender.c_str(), request.jobPath.c_str(), jobInterfaceName, "SwapOffProgress");
        if (r >= 0) {
            r = appendBytes(signal, data.value(progressArea).toString().toUtf8());
        }
        if (r >= 0) {
            r = sd_bus_message_append(signal, "t", uint64_t(data.value(progressSwapUsedBytes).toULongLong()));
        }
    } else {
        return;
    }
    if (r >= 0) {
        sd_bus_send(m_bus.bus(), signal, nullptr);
    }
    sd_bus_message_unref(signal);
    m_bus.wake();
}

void HelperService::finished(uint64_t id, const ActionReply &reply)
{
    const auto found = m_requests.find(id);
    if (found == m_requests.end()) {
        return;
    }
    std::shared_ptr<Request> request = found->second;
    request->threadDone = true;
    // A job action that succeeded without announcing its start still
    // answers with a job (then completed at once); one refused before it,
    // with the method's error.
    if (!request->answered && request->spec->job && request->jobPath.empty() && reply.succeeded()) {
        startJob(id);
    }
    if (!request->answered) {
        answer(request, reply);
    }
    forget(id);
}

void HelperService::deadlinePassed(uint64_t id)
{
    const auto found = m_requests.find(id);
    if (found == m_requests.end() || found->second->answered) {
        return;
    }
    std::shared_ptr<Request> request = found->second;
    // The thread goes on until the kernel lets it; its answer is dropped.
    // It still counts against the limits until it ends.
    request->cancelled->store(true);
    answerError(request,
                Timeout,
                QStringLiteral("The operation did not finish within its %1 s; it was abandoned.")
                    .arg(std::chrono::duration_cast<std::chrono::seconds>(request->spec->deadline).count()));
}

void HelperService::ownerLeft(uint64_t id)
{
    const auto found = m_requests.find(id);
    if (found == m_requests.end()) {
        return;
    }
    std::shared_ptr<Request> request = found->second;
    request->cancelled->store(true);
    request->answered = true; // nobody to answer
    // The track goes now, not when the thread ends: sd-bus would otherwise
    // queue an empty track again and again, and the bus thread would spin
    // on it for as long as the thread runs (sd-bus holds its own reference
    // while it calls us).
    if (request->track) {
        request->track = sd_bus_track_unref(request->track);
    }
    forget(id);
}

int HelperService::handleCancel(sd_bus_message *message)
{
    const char *path = sd_bus_message_get_path(message);
    const char *sender = sd_bus_message_get_sender(message);
    for (auto &[id, request] : m_requests) {
        if (!path || request->jobPath != path) {
            continue;
        }
        // findJob() showed the object to its owner alone; checked again here.
        if (!sender || request->sender != sender) {
            return sd_bus_reply_method_errorf(message, errorName(NotPermitted), "Only the caller that started a job may cancel it.");
        }
        request->cancelled->store(true);
        if (!request->answered && !request->spec->endsEarlyOnCancel) {
            answerError(request, Cancelled, QStringLiteral("The job was cancelled."));
        }
        return sd_bus_reply_method_return(message, "");
    }
    return sd_bus_reply_method_errorf(message, "org.freedesktop.DBus.Error.UnknownObject", "No such job.");
}

bool HelperService::jobVisibleTo(const char *path, const char *sender) const
{
    for (const auto &[id, request] : m_requests) {
        if (request->jobPath == path) {
            return request->sender == sender;
        }
    }
    return false;
}

void HelperService::answer(const std::shared_ptr<Request> &request, const ActionReply &reply)
{
    if (reply.failed()) {
        answerError(request, reply.error(), reply.errorDescription());
        return;
    }
    request->answered = true;
    const Operation operation = request->spec->operation;
    int r = 0;
    if (request->jobPath.empty()) {
        sd_bus_message *ret = nullptr;
        r = sd_bus_message_new_method_return(request->call.get(), &ret);
        if (r >= 0) {
            r = appendReturn(operation, ret, reply.data());
        }
        if (r >= 0) {
            r = sd_bus_send(m_bus.bus(), ret, nullptr);
        }
        sd_bus_message_unref(ret);
        if (r < 0) {
            sd_bus_reply_method_errorf(request->call.get(), errorName(SystemFailure), "The answer could not be sent: %s.", strerror(-r));
        }
    } else {
        sd_bus_message *signal = nullptr;
        r = sd_bus_message_new_signal_to(m_bus.bus(),
                                         &signal,
                                         request->sender.c_str(),
                                         request->jobPath.c_str(),
                                         jobInterfaceName,
                                         completedSignalOf(operation));
        if (r >= 0) {
            r = appendCompleted(operation, signal, reply.data());
        }
        if (r >= 0) {
            r = sd_bus_send(m_bus.bus(), signal, nullptr);
        }
        sd_bus_message_unref(signal);
        if (r < 0) {
            qCWarning(CACHESCOPE_HELPER) << "could not send the job's result:" << strerror(-r);
            sd_bus_emit_signal_to(m_bus.bus(),
                                  request->sender.c_str(),
                                  request->jobPath.c_str(),
                                  jobInterfaceName,
                                  "Failed",
                                  "ss",
                                  errorName(SystemFailure),
                                  "The job's result could not be sent.");
        }
    }
    m_bus.wake();
}

void HelperService::answerError(const std::shared_ptr<Request> &request, int code, const QString &message)
{
    if (request->answered) {
        return;
    }
    request->answered = true;
    if (request->pending) {
        // A polkit check still under way is withdrawn.
        if (request->authorizing) {
            sd_bus_call_method_async(m_bus.bus(),
                                     nullptr,
                                     "org.freedesktop.PolicyKit1",
                                     "/org/freedesktop/PolicyKit1/Authority",
                                     "org.freedesktop.PolicyKit1.Authority",
                                     "CancelCheckAuthorization",
                                     nullptr,
                                     nullptr,
                                     "s",
                                     request->cancellationId.c_str());
        }
        sd_bus_slot_unref(request->pending);
        request->pending = nullptr;
    }
    // Refusals before the action ran get their audit line here; the
    // action writes its own.
    if (!request->running || code == Timeout || code == Cancelled) {
        auditRefusal(request->spec->auditName, request->caller(), code);
    }
    const char *name = errorName(code) ? errorName(code) : errorName(SystemFailure);
    const QByteArray text = message.toUtf8();
    if (request->jobPath.empty()) {
        sd_bus_reply_method_errorf(request->call.get(), name, "%s", text.constData());
    } else {
        sd_bus_emit_signal_to(m_bus.bus(), request->sender.c_str(), request->jobPath.c_str(), jobInterfaceName, "Failed", "ss", name, text.constData());
    }
    m_bus.wake();
    forget(request->id);
}

void HelperService::auditRefusal(const char *action, const Caller &caller, int code)
{
    // docs/helper-security.md rule 11: every refusal is audited, but a flood
    // of calls must not flood the log: at most refusalLinesPerWindow lines a
    // uid in each refusalWindow; the rest are counted, and the count is
    // written as one line when the window ends.
    constexpr int refusalLinesPerWindow = 20;
    constexpr auto refusalWindow = std::chrono::seconds(10);
    const auto now = std::chrono::steady_clock::now();
    RefusalBudget &budget = m_refusalBudgets[caller.uid];
    if (now - budget.windowStart >= refusalWindow) {
        budget.windowStart = now;
        budget.lines = 0;
    }
    if (budget.lines < refusalLinesPerWindow) {
        ++budget.lines;
        m_base.log(auditLine(QLatin1String(action), caller, QString(), ActionReply::HelperErrorReply(code)));
        return;
    }
    if (budget.suppressed++ == 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(budget.windowStart + refusalWindow - now);
        QTimer::singleShot(std::max(left, std::chrono::milliseconds(0)), this, [this, uid = caller.uid, name = QString::fromLatin1(action), code] {
            RefusalBudget &ended = m_refusalBudgets[uid];
            m_base.log(auditLine(name, Caller{uid}, QStringLiteral("unlogged-refusals=%1").arg(ended.suppressed), ActionReply::HelperErrorReply(code)));
            ended.suppressed = 0;
        });
    }
}

void HelperService::forget(uint64_t id)
{
    const auto found = m_requests.find(id);
    if (found == m_requests.end()) {
        return;
    }
    const std::shared_ptr<Request> &request = found->second;
    // A thread still running keeps its place: it counts against the limits.
    if (!request->answered || (request->running && !request->threadDone)) {
        return;
    }
    if (request->pending) {
        sd_bus_slot_unref(request->pending);
    }
    if (request->track) {
        sd_bus_track_unref(request->track);
    }
    m_requests.erase(found);
    updateIdleTimer();
}

void HelperService::leave(bool stopWork)
{
    if (stopWork && !m_leaving) {
        m_stopping = true;
        std::vector<uint64_t> ids;
        ids.reserve(m_requests.size());
        for (const auto &[id, request] : m_requests) {
            ids.push_back(id);
        }
        for (const uint64_t id : ids) {
            const auto found = m_requests.find(id);
            if (found == m_requests.end()) {
                continue;
            }
            const std::shared_ptr<Request> request = found->second;
            request->cancelled->store(true);
            if (!request->answered) {
                answerError(request, Cancelled, QStringLiteral("The Cachescope helper is stopping."));
            }
            forget(id); // a thread still running keeps its place until it ends
        }
    }
    if (m_leaving) {
        quitWhenDone();
        return;
    }
    m_leaving = true;
    m_idle.stop();
    // Asynchronous: the calls the bus delivered before the release are
    // read and dispatched before its answer, which arrives in order.
    const int r = sd_bus_release_name_async(
        m_bus.bus(),
        &m_releaseSlot,
        serviceName,
        [](sd_bus_message *, void *, sd_bus_error *) {
            s_service->nameReleased();
            return 0;
        },
        nullptr);
    if (r < 0) {
        qCWarning(CACHESCOPE_HELPER) << "cannot release the bus name:" << errnoText(r);
        m_nameReleased = true; // the connection is going anyway
    }
    m_bus.wake();
    quitWhenDone();
}

void HelperService::nameReleased()
{
    qCDebug(CACHESCOPE_HELPER) << "the bus name is released";
    m_nameReleased = true;
    quitWhenDone();
}

void HelperService::quitWhenDone()
{
    if (m_leaving && m_nameReleased && m_requests.empty()) {
        // Queued, so that the answers just sent are written out first.
        QMetaObject::invokeMethod(
            this,
            [] {
                QCoreApplication::quit();
            },
            Qt::QueuedConnection);
    }
}

void HelperService::updateIdleTimer()
{
    if (m_leaving) {
        quitWhenDone();
        return;
    }
    if (m_requests.empty() && m_limits.idleExit.count() > 0) {
        m_idle.start(std::chrono::duration_cast<std::chrono::milliseconds>(m_limits.idleExit));
    } else {
        m_idle.stop();
    }
}

} // namespace Cachescope::Helper
