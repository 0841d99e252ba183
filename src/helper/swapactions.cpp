// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// swapoff and swapon, and the root-owned state file that records what the
// helper turned off. Where each rule of docs/helper-security.md is met is
// said in a comment naming it.

#include "actionsupport.h"
#include "cachescope_helper_debug.h"
#include "helperactions.h"
#include "helperlogic.h"
#include "helperprotocol.h"

#include "format.h"
#include "procfs.h"
#include "uniquefd.h"

#include <QStringList>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace Cachescope::Helper
{

// --- The state file -----------------------------------------------------------

namespace
{
// docs/helper-security.md rule 4: a root-owned folder and file. Anything else there is not ours and is
// not trusted.
bool ensureStateDir(const HelperContext &context, QString *error)
{
    if (mkdir(context.stateDir.c_str(), 0755) != 0 && errno != EEXIST) {
        *error = QStringLiteral("Cannot create %1: %2.").arg(QString::fromStdString(context.stateDir), errnoQText(errno));
        return false;
    }
    struct stat st;
    if (lstat(context.stateDir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) != 0) {
        *error = QStringLiteral("%1 is not a folder owned by root and writable only by root; the helper does not use it.")
                     .arg(QString::fromStdString(context.stateDir));
        return false;
    }
    return true;
}

} // namespace

std::optional<std::vector<SwapRecord>> loadSwapState(const HelperContext &context, QString *error)
{
    // docs/helper-security.md rule 4: the folder and then the file, neither
    // through a symbolic link, both root's and writable only by root.
    const QString stateFile = QString::fromStdString(context.stateFile);
    const UniqueFd dirFd(open(context.stateDir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dirFd.isValid()) {
        if (errno == ENOENT) {
            return std::vector<SwapRecord>();
        }
        *error = QStringLiteral("%1 is not a folder the helper trusts (%2).").arg(QString::fromStdString(context.stateDir), errnoQText(errno));
        return std::nullopt;
    }
    struct stat st;
    if (fstat(dirFd.get(), &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0) {
        *error = QStringLiteral("%1 is not a folder owned by root and writable only by root; the helper does not trust it.")
                     .arg(QString::fromStdString(context.stateDir));
        return std::nullopt;
    }
    const size_t slash = context.stateFile.rfind('/');
    const std::string name = slash == std::string::npos ? context.stateFile : context.stateFile.substr(slash + 1);
    const UniqueFd fd(openat(dirFd.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.isValid()) {
        if (errno == ENOENT) {
            return std::vector<SwapRecord>();
        }
        *error = QStringLiteral("Cannot read %1: %2.").arg(stateFile, errnoQText(errno));
        return std::nullopt;
    }
    std::string text;
    if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) != 0 || st.st_size > (1 << 20)) {
        *error = QStringLiteral("%1 is not a root-owned state file of at most 1 MiB; the helper does not trust it.").arg(stateFile);
        return std::nullopt;
    }
    text.resize(size_t(st.st_size));
    const ssize_t got = text.empty() ? 0 : pread(fd.get(), text.data(), text.size(), 0);
    if (got != ssize_t(text.size())) {
        *error = QStringLiteral("Cannot read %1.").arg(stateFile);
        return std::nullopt;
    }
    QString parseError;
    std::optional<std::vector<SwapRecord>> records = parseSwapState(text, &parseError);
    if (!records) {
        *error = QStringLiteral("%1 is damaged (%2).").arg(stateFile, parseError);
    }
    return records;
}

bool saveSwapState(const HelperContext &context, const std::vector<SwapRecord> &records, QString *error)
{
    if (!ensureStateDir(context, error)) {
        return false;
    }
    if (records.empty()) {
        if (unlink(context.stateFile.c_str()) != 0 && errno != ENOENT) {
            *error = QStringLiteral("Cannot remove %1: %2.").arg(QString::fromStdString(context.stateFile), errnoQText(errno));
            return false;
        }
        return true;
    }
    // Written aside and renamed: a crash leaves the old or the new file, never half.
    const std::string temporary = context.stateFile + ".new";
    unlink(temporary.c_str());
    UniqueFd fd(open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd.isValid()) {
        *error = QStringLiteral("Cannot write %1: %2.").arg(QString::fromStdString(temporary), errnoQText(errno));
        return false;
    }
    const std::string text = formatSwapState(records);
    const bool written = write(fd.get(), text.data(), text.size()) == ssize_t(text.size()) && fchmod(fd.get(), 0644) == 0 && fsync(fd.get()) == 0;
    const int writeErrno = errno;
    fd.reset();
    if (!written || rename(temporary.c_str(), context.stateFile.c_str()) != 0) {
        *error = QStringLiteral("Cannot write %1: %2.").arg(QString::fromStdString(context.stateFile), errnoQText(written ? errno : writeErrno));
        unlink(temporary.c_str());
        return false;
    }
    // The rename itself on disk: after a power cut the folder holds the new name.
    const UniqueFd dirFd(open(context.stateDir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dirFd.isValid()) {
        (void)fsync(dirFd.get());
    }
    return true;
}

using namespace HelperProtocol;

namespace
{

ActionReply swapOffArea(HelperContext &context, const SwapArea &area, const OpenedArea &opened, QStringList &turnedOff, QVariantList &priorities)
{
    const QString shownName = QString::fromStdString(area.filename);
    const int error = runSwapOffWithProgress(context, opened.procPath(), shownName);
    if (error != 0) {
        return swapOffFailure(error, shownName);
    }
    turnedOff << shownName;
    priorities << area.priority;
    return ActionReply::SuccessReply();
}

// What swapoff and swapon check first: a caller we know, only the keys
// 'area' and 'all', and exactly one of them. A refusal (logged), or nothing.
std::optional<ActionReply> refuseBadSwapRequest(const QVariantMap &args, const Caller &caller, HelperContext &context, const char *action)
{
    if (auto refused = refuseUnknownCaller(caller)) {
        return finish(context, action, caller, {}, *refused);
    }
    if (auto problem = checkKeys(args, {keyArea, keyAll}, {})) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    if (args.contains(keyArea) == args.contains(keyAll)) {
        return finish(context,
                      action,
                      caller,
                      {},
                      refuse(InvalidArgument, QStringLiteral("Give either 'area' (one swap area) or 'all' (true), not both and not neither.")));
    }
    return std::nullopt;
}

// docs/helper-security.md rule 4: one sentence for every name the helper
// does not take, whatever the reason (not listed, gone, a symbolic link, a
// different file now), so that a refusal never tells whether a path exists.
QString notAnActiveArea(const QString &shownName)
{
    return QStringLiteral("%1 is not an active swap area the helper may turn off: it takes only a name exactly as /proc/swaps lists it.").arg(shownName);
}

QString notTurnedOffByUs(const QString &shownName)
{
    return QStringLiteral("%1 was not turned off by Cachescope: the helper turns on only the areas it turned off itself, named exactly as it recorded them.")
        .arg(shownName);
}

// What became of one recorded area in swapon.
struct AreaResult {
    QLatin1StringView outcome; // outcomeOn, outcomeAlreadyOn, outcomeGone or outcomeFailed
    int code = 0; // the HelperError of a failure
    QString message; // for people; empty when turned on
    QString target; // the audit target: numbers only
};

// docs/helper-security.md rule 4: turns on one area the helper recorded,
// when it is still exactly that file or device. Looks up only the recorded
// name, never a caller's.
AreaResult turnOnRecorded(HelperContext &context, const SwapRecord &record, const std::vector<ActiveArea> &active)
{
    const QString shownName = QString::fromStdString(record.path);
    AreaResult result{outcomeFailed, 0, {}, deviceText(record.identity)};
    if (findArea(record.identity, identitiesOf(active))) {
        result.outcome = outcomeAlreadyOn;
        result.message = QStringLiteral("Swap on %1 is already on.").arg(shownName);
        return result;
    }
    OpenedArea opened;
    const int openError = openArea(record.path, opened);
    const bool gone = openError == ENOENT || openError == ENOTDIR || openError == ELOOP || openError == ENODEV;
    if (gone || (openError == 0 && !(opened.identity == record.identity))) {
        result.outcome = outcomeGone;
        result.message =
            QStringLiteral("The swap area Cachescope turned off at %1 is gone or was replaced, so the helper does not turn swap on there.").arg(shownName);
        return result;
    }
    if (openError != 0) {
        result.code = SystemFailure;
        result.message = QStringLiteral("Cannot open %1: %2.").arg(shownName, errnoQText(openError));
        return result;
    }
    // A block device only through a node root owns: the identity (its
    // device number) matched, but a node someone else made for the same
    // device (in a folder of theirs, on a mount that allows device nodes)
    // is not the administrator's area.
    if (opened.identity.blockDevice && opened.st.st_uid != 0) {
        result.code = NotPermitted;
        result.message = QStringLiteral("The device node %1 belongs to uid %2, not root: the helper turns swap on only through a node root owns.")
                             .arg(shownName)
                             .arg(opened.st.st_uid);
        return result;
    }
    // Swap on a file others can read would expose other processes' memory.
    if (!opened.identity.blockDevice && (opened.st.st_uid != 0 || (opened.st.st_mode & 077) != 0)) {
        result.code = NotPermitted;
        result.message = QStringLiteral("%1 belongs to uid %2 with mode %3: swap there would let others read memory, so the helper refuses.")
                             .arg(shownName)
                             .arg(opened.st.st_uid)
                             .arg(QString::number(opened.st.st_mode & 07777, 8));
        return result;
    }
    qCDebug(CACHESCOPE_HELPER) << "swapon:" << result.target << "was turned off by the helper, priority" << record.priority;
    const int swapError = context.system->swapOn(opened.procPath(), swapOnFlags(record.priority));
    if (swapError != 0) {
        const QString why = swapError == EINVAL ? QStringLiteral("it has no valid swap signature or Linux cannot swap there") : errnoQText(swapError);
        result.code = SystemFailure;
        result.message = QStringLiteral("Turning on swap on %1 failed: %2.").arg(shownName, why);
        return result;
    }
    result.outcome = outcomeOn;
    return result;
}

QVariantMap areaReport(const SwapRecord &record, const AreaResult &result)
{
    return {{QString(areaName), QString::fromStdString(record.path)},
            {QString(areaOutcome), QString(result.outcome)},
            {QString(areaPriority), record.priority},
            {QString(areaMessage), result.message}};
}

} // namespace

ActionReply swapOffAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    const SwapStateLock swapState(context);
    // Waited for another swap operation past this one's deadline: its caller
    // was answered already, and nothing may happen behind its back.
    if (context.stopped && context.stopped()) {
        return refuse(Timeout, QStringLiteral("Another swap operation took past this one's deadline; nothing was done."));
    }
    static const char *action = "swapoff";
    if (auto refused = refuseBadSwapRequest(args, caller, context, action)) {
        return *refused;
    }
    QString error;
    const std::optional<std::vector<ActiveArea>> active = activeAreas(context, &error);
    if (!active) {
        return finish(context, action, caller, {}, refuse(SystemFailure, error));
    }

    // docs/helper-security.md rule 4: only areas in /proc/swaps, matched by device number or inode.
    std::vector<size_t> targets;
    QString target;
    OpenedArea callerArea;
    if (args.contains(keyAll)) {
        if (auto problem = checkTrueFlag(args, keyAll)) {
            return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
        }
        target = QStringLiteral("all");
        for (size_t i = 0; i < active->size(); ++i) {
            if ((*active)[i].identity) {
                targets.push_back(i);
            }
        }
        if (targets.empty()) {
            return finish(context, action, caller, target, refuse(AlreadyDone, QStringLiteral("No swap area is active, so there is nothing to turn off.")));
        }
    } else {
        const std::optional<std::string> path = pathArgument(args, keyArea, &error);
        if (!path) {
            return finish(context, action, caller, {}, refuse(InvalidArgument, error));
        }
        // docs/helper-security.md rule 4: the caller's name is compared with
        // the kernel's names as a string first; a name the kernel does not
        // list is never looked up as root. Then the listed name is opened
        // without following links and must still be the area the kernel's
        // name led to. Every other case gets the same sentence.
        const std::optional<size_t> index = areaNamed(*active, *path);
        const ActiveArea *listed = index ? &(*active)[*index] : nullptr;
        const bool matches = listed && listed->identity && openArea(*path, callerArea) == 0 && callerArea.identity == *listed->identity;
        if (!matches) {
            return finish(context, action, caller, {}, refuse(NotPermitted, notAnActiveArea(quoteForMessage(QString::fromStdString(*path)))));
        }
        target = deviceText(callerArea.identity);
        targets.push_back(index.value_or(0)); // matches: index is there
    }

    // docs/helper-security.md rule 10: refuse up front when the pages would not fit in memory.
    uint64_t swapUsed = 0;
    for (size_t index : targets) {
        swapUsed += (*active)[index].area.usedBytes;
    }
    std::string memError;
    const std::optional<MemInfo> memInfo = readMemInfo(context.procRoot, &memError);
    if (!memInfo) {
        return finish(context, action, caller, target, refuse(SystemFailure, QString::fromStdString(memError)));
    }
    const SwapOffFit fit = swapOffFit(swapUsed, *memInfo);
    qCDebug(CACHESCOPE_HELPER) << action << "uid" << caller.text() << ":" << targets.size() << "area(s) with" << swapUsed << "bytes in use, available"
                               << fit.availableBytes << "margin" << fit.marginBytes << (fit.fits ? "fits" : "does not fit");
    if (!fit.fits) {
        return finish(context, action, caller, target, refuse(NotEnoughMemory, describeSwapOffMisfit(fit)));
    }

    std::optional<std::vector<SwapRecord>> records = loadSwapState(context, &error);
    if (!records) {
        return finish(context, action, caller, target, refuse(SystemFailure, error + QStringLiteral(" Nothing was turned off.")));
    }
    announceStart(context);
    QStringList turnedOff;
    QVariantList priorities;
    const uint64_t usedBefore = swapUsedNow(context.procRoot);
    for (size_t index : targets) {
        const ActiveArea &area = (*active)[index];
        if (!area.identity) {
            continue; // every target has one: chosen above by it
        }
        const AreaIdentity &identity = *area.identity;
        OpenedArea kernelArea;
        const OpenedArea *opened = &callerArea;
        if (args.contains(keyAll)) {
            // Opened by the kernel's name and checked again: still the same inode.
            if (openArea(area.area.filename, kernelArea) != 0 || !(kernelArea.identity == identity)) {
                continue;
            }
            opened = &kernelArea;
        }
        // docs/helper-security.md rule 4: record what the helper turns off, with its priority, so
        // that swapon gives back exactly these. Recorded before the swapoff: a helper killed
        // during it leaves the area either still on (swapon then drops the record as already
        // on) or off and recorded (swapon gives it back), never off and forgotten.
        SwapRecord record{area.area.filename, identity, area.area.priority};
        std::erase_if(*records, [&record](const SwapRecord &old) {
            return old.identity == record.identity;
        });
        records->push_back(record);
        ActionReply step = ActionReply::SuccessReply();
        if (!saveSwapState(context, *records, &error)) {
            step = refuse(SystemFailure, QStringLiteral("Swap on %1 was left on: %2").arg(QString::fromStdString(area.area.filename), error));
        } else {
            step = swapOffArea(context, area.area, *opened, turnedOff, priorities);
            if (step.failed()) {
                // Still on: not the helper's to give back.
                records->pop_back();
                QString ignored;
                (void)saveSwapState(context, *records, &ignored);
            }
        }
        if (step.failed()) {
            logArea(context, action, caller, deviceText(identity), step);
            return finish(context, action, caller, target, step);
        }
        if (args.contains(keyAll)) {
            logArea(context, action, caller, deviceText(identity), step);
        }
    }
    ActionReply reply = ActionReply::SuccessReply();
    reply.addData(replyTurnedOff, turnedOff);
    reply.addData(replyPriorities, priorities);
    reply.addData(replySwapUsedBefore, qulonglong(usedBefore));
    reply.addData(replySwapUsedAfter, qulonglong(swapUsedNow(context.procRoot)));
    return finish(context, action, caller, target, reply);
}

ActionReply swapOnAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    const SwapStateLock swapState(context);
    // Waited for another swap operation past this one's deadline: its caller
    // was answered already, and nothing may happen behind its back.
    if (context.stopped && context.stopped()) {
        return refuse(Timeout, QStringLiteral("Another swap operation took past this one's deadline; nothing was done."));
    }
    static const char *action = "swapon";
    if (auto refused = refuseBadSwapRequest(args, caller, context, action)) {
        return *refused;
    }
    QString error;
    std::optional<std::vector<SwapRecord>> records = loadSwapState(context, &error);
    if (!records) {
        return finish(context, action, caller, {}, refuse(SystemFailure, error + QStringLiteral(" Nothing was turned on.")));
    }
    const std::optional<std::vector<ActiveArea>> active = activeAreas(context, &error);
    if (!active) {
        return finish(context, action, caller, {}, refuse(SystemFailure, error));
    }

    QStringList turnedOn;
    QVariantList priorities;
    QVariantList areas;
    if (!args.contains(keyAll)) {
        const std::optional<std::string> path = pathArgument(args, keyArea, &error);
        if (!path) {
            return finish(context, action, caller, {}, refuse(InvalidArgument, error));
        }
        // docs/helper-security.md rule 4: only a name exactly as the helper
        // recorded it turning it off; nothing else is looked up. One area:
        // a refusal changes nothing, the record included.
        const auto record = std::find_if(records->begin(), records->end(), [&path](const SwapRecord &candidate) {
            return candidate.path == *path;
        });
        if (record == records->end()) {
            return finish(context, action, caller, {}, refuse(NotPermitted, notTurnedOffByUs(quoteForMessage(QString::fromStdString(*path)))));
        }
        const AreaResult result = turnOnRecorded(context, *record, *active);
        if (result.outcome == outcomeAlreadyOn) {
            return finish(context, action, caller, result.target, refuse(AlreadyDone, result.message));
        }
        if (result.outcome == outcomeGone) {
            return finish(context, action, caller, result.target, refuse(NotPermitted, result.message));
        }
        if (result.outcome == outcomeFailed) {
            return finish(context, action, caller, result.target, refuse(result.code, result.message));
        }
        turnedOn << QString::fromStdString(record->path);
        priorities << record->priority;
        areas << areaReport(*record, result);
        const QString target = result.target;
        records->erase(record);
        if (!saveSwapState(context, *records, &error)) {
            return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("Swap is on again, but %1").arg(error)));
        }
        ActionReply reply = ActionReply::SuccessReply();
        reply.addData(replyTurnedOn, turnedOn);
        reply.addData(replyPriorities, priorities);
        reply.addData(replyAreas, areas);
        return finish(context, action, caller, target, reply);
    }

    if (auto problem = checkTrueFlag(args, keyAll)) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    const QString target = QStringLiteral("all");
    if (records->empty()) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(AlreadyDone, QStringLiteral("Cachescope has not turned off any swap area, so there is nothing to turn on again.")));
    }
    // Area by area: one that fails does not keep the others off. Records of
    // areas already on or gone are dropped, a failure keeps its record for
    // another try, and the state is saved whatever happened.
    std::vector<SwapRecord> kept;
    QStringList failures;
    int firstFailureCode = 0;
    for (const SwapRecord &record : *records) {
        const AreaResult result = turnOnRecorded(context, record, *active);
        areas << areaReport(record, result);
        if (result.outcome == outcomeOn) {
            turnedOn << QString::fromStdString(record.path);
            priorities << record.priority;
            logArea(context, action, caller, result.target, ActionReply::SuccessReply());
        } else if (result.outcome == outcomeFailed) {
            kept.push_back(record);
            failures << result.message;
            firstFailureCode = firstFailureCode != 0 ? firstFailureCode : result.code;
            logArea(context, action, caller, result.target, refuse(result.code, result.message));
        } else {
            logArea(context, action, caller, result.target, refuse(result.outcome == outcomeAlreadyOn ? AlreadyDone : NotPermitted, result.message));
        }
    }
    const bool saved = saveSwapState(context, kept, &error);
    ActionReply reply = ActionReply::SuccessReply();
    if (!failures.isEmpty() || !saved) {
        if (!saved) {
            failures << QStringLiteral("The record of what is still off was not saved: %1").arg(error);
        }
        reply = refuse(
            !saved ? SystemFailure : firstFailureCode,
            QStringLiteral("Swap is on again on %1 of %2 recorded areas. %3").arg(turnedOn.size()).arg(records->size()).arg(failures.join(QLatin1Char(' '))));
    }
    reply.addData(replyTurnedOn, turnedOn);
    reply.addData(replyPriorities, priorities);
    reply.addData(replyAreas, areas);
    return finish(context, action, caller, target, reply);
}

} // namespace Cachescope::Helper
