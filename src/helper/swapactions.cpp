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

#include <cerrno>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

namespace
{

// --- The state file -----------------------------------------------------------

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

std::optional<std::vector<SwapRecord>> loadState(const HelperContext &context, QString *error)
{
    const UniqueFd fd(open(context.stateFile.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.isValid()) {
        if (errno == ENOENT) {
            return std::vector<SwapRecord>();
        }
        *error = QStringLiteral("Cannot read %1: %2.").arg(QString::fromStdString(context.stateFile), errnoQText(errno));
        return std::nullopt;
    }
    struct stat st;
    std::string text;
    if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) != 0 || st.st_size > (1 << 20)) {
        *error = QStringLiteral("%1 is not a root-owned state file; the helper does not trust it.").arg(QString::fromStdString(context.stateFile));
        return std::nullopt;
    }
    text.resize(size_t(st.st_size));
    const ssize_t got = text.empty() ? 0 : pread(fd.get(), text.data(), text.size(), 0);
    if (got != ssize_t(text.size())) {
        *error = QStringLiteral("Cannot read %1.").arg(QString::fromStdString(context.stateFile));
        return std::nullopt;
    }
    QString parseError;
    std::optional<std::vector<SwapRecord>> records = parseSwapState(text, &parseError);
    if (!records) {
        *error = QStringLiteral("%1 is damaged (%2).").arg(QString::fromStdString(context.stateFile), parseError);
    }
    return records;
}

bool saveState(const HelperContext &context, const std::vector<SwapRecord> &records, QString *error)
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
    return true;
}

KAuth::ActionReply swapOffArea(HelperContext &context, const SwapArea &area, const OpenedArea &opened, QStringList &turnedOff, QVariantList &priorities)
{
    const QString shownName = QString::fromStdString(area.filename);
    const int error = runSwapOffWithProgress(context, opened.procPath(), shownName);
    if (error != 0) {
        return swapOffFailure(error, shownName);
    }
    turnedOff << shownName;
    priorities << area.priority;
    return KAuth::ActionReply::SuccessReply();
}

// What swapoff and swapon check first: a caller we know, only the keys
// 'area' and 'all', and exactly one of them. A refusal (logged), or nothing.
std::optional<KAuth::ActionReply> refuseBadSwapRequest(const QVariantMap &args, int callerUid, HelperContext &context, const char *action)
{
    if (auto refused = refuseUnknownCaller(callerUid)) {
        return finish(context, action, callerUid, {}, *refused);
    }
    if (auto problem = checkKeys(args, {keyArea, keyAll}, {})) {
        return finish(context, action, callerUid, {}, refuse(InvalidArgument, *problem));
    }
    if (args.contains(keyArea) == args.contains(keyAll)) {
        return finish(context,
                      action,
                      callerUid,
                      {},
                      refuse(InvalidArgument, QStringLiteral("Give either 'area' (one swap area) or 'all' (true), not both and not neither.")));
    }
    return std::nullopt;
}

// /etc/fstab as text, at most about 1 MiB; empty when it cannot be read.
std::string readFstab(const HelperContext &context)
{
    std::string text;
    const UniqueFd fd(open(context.fstabPath.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.isValid()) {
        char buffer[65536];
        ssize_t got;
        while ((got = read(fd.get(), buffer, sizeof buffer)) > 0 && text.size() < (1 << 20)) {
            text.append(buffer, size_t(got));
        }
    }
    return text;
}

} // namespace

KAuth::ActionReply swapOffAction(const QVariantMap &args, int callerUid, HelperContext &context)
{
    static const char *action = "swapoff";
    if (auto refused = refuseBadSwapRequest(args, callerUid, context, action)) {
        return *refused;
    }
    QString error;
    const std::optional<std::vector<ActiveArea>> active = activeAreas(context, &error);
    if (!active) {
        return finish(context, action, callerUid, {}, refuse(SystemFailure, error));
    }

    // docs/helper-security.md rule 4: only areas in /proc/swaps, matched by device number or inode.
    std::vector<size_t> targets;
    QString target;
    OpenedArea callerArea;
    if (args.contains(keyAll)) {
        if (auto problem = checkTrueFlag(args, keyAll)) {
            return finish(context, action, callerUid, {}, refuse(InvalidArgument, *problem));
        }
        target = QStringLiteral("all");
        for (size_t i = 0; i < active->size(); ++i) {
            if ((*active)[i].identity) {
                targets.push_back(i);
            }
        }
        if (targets.empty()) {
            return finish(context, action, callerUid, target, refuse(AlreadyDone, QStringLiteral("No swap area is active, so there is nothing to turn off.")));
        }
    } else {
        const std::optional<std::string> path = pathArgument(args, keyArea, &error);
        if (!path) {
            return finish(context, action, callerUid, {}, refuse(InvalidArgument, error));
        }
        const QString shownName = quoteForMessage(QString::fromStdString(*path));
        if (!openArea(*path, callerArea, &error, shownName)) {
            return finish(context, action, callerUid, {}, refuse(NotPermitted, error));
        }
        target = deviceText(callerArea.identity);
        const std::optional<size_t> index = findArea(callerArea.identity, identitiesOf(*active));
        if (!index) {
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(NotPermitted, QStringLiteral("%1 is not an active swap area: /proc/swaps does not list it.").arg(shownName)));
        }
        targets.push_back(*index);
    }

    // docs/helper-security.md rule 10: refuse up front when the pages would not fit in memory.
    uint64_t swapUsed = 0;
    for (size_t index : targets) {
        swapUsed += (*active)[index].area.usedBytes;
    }
    std::string memError;
    const std::optional<MemInfo> memInfo = readMemInfo(context.procRoot, &memError);
    if (!memInfo) {
        return finish(context, action, callerUid, target, refuse(SystemFailure, QString::fromStdString(memError)));
    }
    const SwapOffFit fit = swapOffFit(swapUsed, *memInfo);
    qCDebug(CACHESCOPE_HELPER) << action << "uid" << callerUid << ":" << targets.size() << "area(s) with" << swapUsed << "bytes in use, available"
                               << fit.availableBytes << "margin" << fit.marginBytes << (fit.fits ? "fits" : "does not fit");
    if (!fit.fits) {
        return finish(context, action, callerUid, target, refuse(NotEnoughMemory, describeSwapOffMisfit(fit)));
    }

    std::optional<std::vector<SwapRecord>> records = loadState(context, &error);
    if (!records) {
        return finish(context, action, callerUid, target, refuse(SystemFailure, error + QStringLiteral(" Nothing was turned off.")));
    }
    QStringList turnedOff;
    QVariantList priorities;
    const uint64_t usedBefore = swapUsedNow(context.procRoot);
    for (size_t index : targets) {
        const ActiveArea &area = (*active)[index];
        OpenedArea kernelArea;
        const OpenedArea *opened = &callerArea;
        if (args.contains(keyAll)) {
            // Opened by the kernel's name and checked again: still the same inode.
            if (!openArea(area.area.filename, kernelArea, &error, QString::fromStdString(area.area.filename)) || !(kernelArea.identity == *area.identity)) {
                continue;
            }
            opened = &kernelArea;
        }
        KAuth::ActionReply step = swapOffArea(context, area.area, *opened, turnedOff, priorities);
        if (step.succeeded()) {
            // docs/helper-security.md rule 4: record what the helper turned off, with its priority, so
            // that swapon gives back exactly these.
            SwapRecord record{area.area.filename, *area.identity, area.area.priority};
            std::erase_if(*records, [&record](const SwapRecord &old) {
                return old.identity == record.identity;
            });
            records->push_back(record);
            if (!saveState(context, *records, &error)) {
                step = refuse(SystemFailure, QStringLiteral("Swap on %1 is off, but %2").arg(QString::fromStdString(area.area.filename), error));
            }
        }
        if (step.failed()) {
            logArea(context, action, callerUid, deviceText(*area.identity), step);
            return finish(context, action, callerUid, target, step);
        }
        if (args.contains(keyAll)) {
            logArea(context, action, callerUid, deviceText(*area.identity), step);
        }
    }
    KAuth::ActionReply reply = KAuth::ActionReply::SuccessReply();
    reply.addData(replyTurnedOff, turnedOff);
    reply.addData(replyPriorities, priorities);
    reply.addData(replySwapUsedBefore, qulonglong(usedBefore));
    reply.addData(replySwapUsedAfter, qulonglong(swapUsedNow(context.procRoot)));
    return finish(context, action, callerUid, target, reply);
}

KAuth::ActionReply swapOnAction(const QVariantMap &args, int callerUid, HelperContext &context)
{
    static const char *action = "swapon";
    if (auto refused = refuseBadSwapRequest(args, callerUid, context, action)) {
        return *refused;
    }
    QString error;
    std::optional<std::vector<SwapRecord>> records = loadState(context, &error);
    if (!records) {
        return finish(context, action, callerUid, {}, refuse(SystemFailure, error + QStringLiteral(" Nothing was turned on.")));
    }
    const std::optional<std::vector<ActiveArea>> active = activeAreas(context, &error);
    if (!active) {
        return finish(context, action, callerUid, {}, refuse(SystemFailure, error));
    }

    struct Candidate {
        std::string path;
        int priority = -1;
        bool fromState = false;
    };
    std::vector<Candidate> candidates;
    QString target;
    if (args.contains(keyAll)) {
        if (auto problem = checkTrueFlag(args, keyAll)) {
            return finish(context, action, callerUid, {}, refuse(InvalidArgument, *problem));
        }
        target = QStringLiteral("all");
        if (records->empty()) {
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(AlreadyDone, QStringLiteral("Cachescope has not turned off any swap area, so there is nothing to turn on again.")));
        }
        for (const SwapRecord &record : *records) {
            candidates.push_back({record.path, record.priority, true});
        }
    } else {
        const std::optional<std::string> path = pathArgument(args, keyArea, &error);
        if (!path) {
            return finish(context, action, callerUid, {}, refuse(InvalidArgument, error));
        }
        candidates.push_back({*path, -1, false});
    }

    QStringList turnedOn;
    QVariantList priorities;
    for (Candidate &candidate : candidates) {
        const QString shownName = candidate.fromState ? QString::fromStdString(candidate.path) : quoteForMessage(QString::fromStdString(candidate.path));
        OpenedArea opened;
        if (!openArea(candidate.path, opened, &error, shownName)) {
            return finish(context, action, callerUid, target, refuse(NotPermitted, error));
        }
        const QString areaTarget = deviceText(opened.identity);
        if (target.isEmpty()) {
            target = areaTarget;
        }
        // docs/helper-security.md rule 4: never a caller-chosen file. Only what the helper recorded
        // turning off, or what the administrator declared in /etc/fstab.
        std::vector<std::optional<AreaIdentity>> recorded;
        for (const SwapRecord &record : *records) {
            recorded.push_back(record.identity);
        }
        const std::optional<size_t> recordIndex = findArea(opened.identity, recorded);
        bool known = false;
        if (recordIndex) {
            known = true;
            candidate.priority = (*records)[*recordIndex].priority;
        } else if (!candidate.fromState) {
            for (const FstabSwap &entry : parseFstabSwaps(readFstab(context))) {
                const std::optional<std::string> sourcePath = fstabSourcePath(entry.source);
                struct stat st;
                // The administrator's names (UUID= links made by udev) may be followed.
                if (!sourcePath || stat(sourcePath->c_str(), &st) != 0) {
                    continue;
                }
                const std::optional<AreaIdentity> identity = areaIdentity(st);
                if (identity && *identity == opened.identity) {
                    known = true;
                    candidate.priority = entry.priority.value_or(-1);
                    break;
                }
            }
        }
        if (!known) {
            return finish(
                context,
                action,
                callerUid,
                areaTarget,
                refuse(NotPermitted,
                       QStringLiteral("%1 was not turned off by Cachescope and /etc/fstab does not declare it as swap; the helper turns on only those.")
                           .arg(shownName)));
        }
        if (findArea(opened.identity, identitiesOf(*active))) {
            return finish(context, action, callerUid, areaTarget, refuse(AlreadyDone, QStringLiteral("Swap on %1 is already on.").arg(shownName)));
        }
        // Swap on a file others can read would expose other processes' memory.
        if (!opened.identity.blockDevice && (opened.st.st_uid != 0 || (opened.st.st_mode & 077) != 0)) {
            return finish(context,
                          action,
                          callerUid,
                          areaTarget,
                          refuse(NotPermitted,
                                 QStringLiteral("%1 belongs to uid %2 with mode %3: swap there would let others read memory, so the helper refuses.")
                                     .arg(shownName)
                                     .arg(opened.st.st_uid)
                                     .arg(QString::number(opened.st.st_mode & 07777, 8))));
        }
        qCDebug(CACHESCOPE_HELPER) << action << "uid" << callerUid << ":" << areaTarget
                                   << (recordIndex ? "was turned off by the helper" : "is declared in fstab") << ", priority" << candidate.priority;
        const int swapError = context.system->swapOn(opened.procPath(), swapOnFlags(candidate.priority));
        if (swapError != 0) {
            const QString why = swapError == EINVAL ? QStringLiteral("it has no valid swap signature or Linux cannot swap there") : errnoQText(swapError);
            return finish(context,
                          action,
                          callerUid,
                          areaTarget,
                          refuse(SystemFailure, QStringLiteral("Turning on swap on %1 failed: %2.").arg(shownName, why)));
        }
        std::erase_if(*records, [&opened](const SwapRecord &record) {
            return record.identity == opened.identity;
        });
        turnedOn << shownName;
        priorities << candidate.priority;
        if (args.contains(keyAll)) {
            logArea(context, action, callerUid, areaTarget, KAuth::ActionReply::SuccessReply());
        }
    }
    if (!saveState(context, *records, &error)) {
        return finish(context, action, callerUid, target, refuse(SystemFailure, QStringLiteral("Swap is on again, but %1").arg(error)));
    }
    KAuth::ActionReply reply = KAuth::ActionReply::SuccessReply();
    reply.addData(replyTurnedOn, turnedOn);
    reply.addData(replyPriorities, priorities);
    return finish(context, action, callerUid, target, reply);
}

} // namespace Cachescope::Helper
