// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The experiment swap file: made, turned on, turned off and removed at the
// one path the helper chooses (docs/helper-security.md rule 5). Where each
// rule of docs/helper-security.md is met is said in a comment naming it.

#include "actionsupport.h"
#include "cachescope_helper_debug.h"
#include "helperactions.h"
#include "helperlogic.h"
#include "helperprotocol.h"

#include "format.h"
#include "procfs.h"
#include "residency.h"
#include "uniquefd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

namespace
{

std::string experimentPath(const HelperContext &context)
{
    return context.experimentDir + '/' + experimentSwapName;
}

// docs/helper-security.md rule 5: the folder is the helper's: owned by root,
// not writable by others, not a symlink. Returns a descriptor of it, or an
// invalid one with *error (and *missing when it does not exist).
UniqueFd openExperimentDir(const HelperContext &context, bool create, QString *error, bool *missing)
{
    *missing = false;
    if (create && mkdir(context.experimentDir.c_str(), 0700) != 0 && errno != EEXIST) {
        *error = QStringLiteral("Cannot create %1: %2.").arg(QString::fromStdString(context.experimentDir), errnoQText(errno));
        return {};
    }
    UniqueFd dirFd(open(context.experimentDir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dirFd.isValid()) {
        *missing = errno == ENOENT;
        *error = QStringLiteral("Cannot open %1: %2.").arg(QString::fromStdString(context.experimentDir), errnoQText(errno));
        return {};
    }
    struct stat st;
    if (fstat(dirFd.get(), &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0) {
        *error = QStringLiteral("%1 is not owned by root or is writable by others; the helper does not put swap there.")
                     .arg(QString::fromStdString(context.experimentDir));
        return {};
    }
    return dirFd;
}

// Fills the file with a swap header and zeros (written, not fallocated:
// every filesystem Linux swaps on accepts a written file). Returns errno or 0.
int writeSwapFile(int fd, uint64_t bytes, uint64_t page)
{
    if (fchown(fd, 0, 0) != 0 || fchmod(fd, 0600) != 0) {
        return errno;
    }
    std::vector<char> block(1 << 20, 0);
    writeSwapHeader(block.data(), page, bytes / page);
    for (uint64_t done = 0; done < bytes;) {
        const size_t chunk = size_t(std::min<uint64_t>(block.size(), bytes - done));
        const ssize_t written = pwrite(fd, block.data(), chunk, off_t(done));
        if (written <= 0) {
            return written < 0 ? errno : EIO;
        }
        if (done == 0) {
            memset(block.data(), 0, page); // the header goes in the first page only
        }
        done += uint64_t(written);
    }
    return fsync(fd) == 0 ? 0 : errno;
}

} // namespace

ActionReply swapFileCreateAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    const SwapStateLock swapState(context);
    // Waited for another swap operation past this one's deadline: its caller
    // was answered already, and nothing may happen behind its back.
    if (context.stopped && context.stopped()) {
        return refuse(Timeout, QStringLiteral("Another swap operation took past this one's deadline; nothing was done."));
    }
    static const char *action = "swapfilecreate";
    if (auto refused = refuseUnknownCaller(caller)) {
        return finish(context, action, caller, {}, *refused);
    }
    if (auto problem = checkKeys(args, {keySizeBytes}, {keySizeBytes})) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    // docs/helper-security.md rule 5: bounded size.
    const IntegerArgument size = integerArgument(args, keySizeBytes, minExperimentSwapBytes, context.maxExperimentBytes);
    if (!size.value) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, size.error));
    }
    const uint64_t page = pageSize();
    if (uint64_t(*size.value) % page != 0) {
        // Refused, not rounded: the helper does exactly what was authorized.
        return finish(
            context,
            action,
            caller,
            {},
            refuse(InvalidArgument, QStringLiteral("Argument '%1' must be a multiple of the page size (%2 bytes).").arg(QString(keySizeBytes)).arg(page)));
    }
    const uint64_t bytes = uint64_t(*size.value);
    const QString target = QStringLiteral("experiment,bytes=%1").arg(bytes);
    const QString path = QString::fromStdString(experimentPath(context));

    QString error;
    bool missing = false;
    const UniqueFd dirFd = openExperimentDir(context, true, &error, &missing);
    if (!dirFd.isValid()) {
        return finish(context, action, caller, target, refuse(SystemFailure, error));
    }
    // docs/helper-security.md rule 5: refuse filesystems that cannot hold
    // swap, with a clear message.
    struct statfs fs;
    if (fstatfs(dirFd.get(), &fs) != 0) {
        return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("Cannot inspect %1: %2.").arg(path, errnoQText(errno))));
    }
    if (auto problem = swapFilesystemProblem((long long)fs.f_type)) {
        return finish(context, action, caller, target, refuse(Unsupported, *problem));
    }
    if (auto problem = experimentSizeProblem((long long)bytes, context.maxExperimentBytes, uint64_t(fs.f_bavail) * uint64_t(fs.f_bsize))) {
        return finish(context, action, caller, target, refuse(InvalidArgument, *problem));
    }
    // docs/helper-security.md rule 5: the fixed path, created here with mode
    // 0600 and owner root.
    UniqueFd fd(openat(dirFd.get(), experimentSwapName, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd.isValid()) {
        const int openErrno = errno;
        if (openErrno == EEXIST) {
            return finish(context,
                          action,
                          caller,
                          target,
                          refuse(AlreadyDone, QStringLiteral("An experiment swap file already exists at %1; remove it first.").arg(path)));
        }
        return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("Cannot create %1: %2.").arg(path, errnoQText(openErrno))));
    }
    // A failure once the file exists: it is closed and removed again, then refused.
    auto removeAgain = [&](int code, const QString &message) {
        fd.reset();
        unlinkat(dirFd.get(), experimentSwapName, 0);
        return finish(context, action, caller, target, refuse(code, message));
    };
    qCDebug(CACHESCOPE_HELPER) << action << "uid" << caller.text() << ": writing" << bytes << "bytes of swap file";
    const int writeErrno = writeSwapFile(fd.get(), bytes, page);
    if (writeErrno != 0) {
        return removeAgain(SystemFailure, QStringLiteral("Writing the swap file %1 failed: %2; it was removed again.").arg(path, errnoQText(writeErrno)));
    }
    const std::string procPath = "/proc/self/fd/" + std::to_string(fd.get());
    const int swapErrno = context.system->swapOn(procPath, 0);
    if (swapErrno != 0) {
        return removeAgain(Unsupported, QStringLiteral("Linux refused swap on %1 (%2); the file was removed again.").arg(path, errnoQText(swapErrno)));
    }
    fd.reset();
    ActionReply reply = ActionReply::SuccessReply();
    reply.addData(replyPath, path);
    reply.addData(replySizeBytes, qulonglong(bytes));
    return finish(context, action, caller, target, reply);
}

ActionReply swapFileRemoveAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    const SwapStateLock swapState(context);
    // Waited for another swap operation past this one's deadline: its caller
    // was answered already, and nothing may happen behind its back.
    if (context.stopped && context.stopped()) {
        return refuse(Timeout, QStringLiteral("Another swap operation took past this one's deadline; nothing was done."));
    }
    static const char *action = "swapfileremove";
    if (auto refused = refuseUnknownCaller(caller)) {
        return finish(context, action, caller, {}, *refused);
    }
    if (auto problem = checkKeys(args, {}, {})) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    const QString target = QStringLiteral("experiment");
    const QString path = QString::fromStdString(experimentPath(context));
    QString error;
    bool missing = false;
    const UniqueFd dirFd = openExperimentDir(context, false, &error, &missing);
    if (!dirFd.isValid()) {
        return finish(context,
                      action,
                      caller,
                      target,
                      missing ? refuse(AlreadyDone, QStringLiteral("There is no experiment swap file.")) : refuse(SystemFailure, error));
    }
    OpenedArea opened;
    opened.fd.reset(openat(dirFd.get(), experimentSwapName, O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!opened.fd.isValid()) {
        const int openErrno = errno;
        if (openErrno == ENOENT) {
            return finish(context, action, caller, target, refuse(AlreadyDone, QStringLiteral("There is no experiment swap file.")));
        }
        return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("Cannot open %1: %2.").arg(path, errnoQText(openErrno))));
    }
    if (fstat(opened.fd.get(), &opened.st) != 0 || !S_ISREG(opened.st.st_mode) || opened.st.st_uid != 0) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(NotPermitted, QStringLiteral("%1 is not a root-owned regular file; the helper leaves it alone.").arg(path)));
    }
    const std::optional<AreaIdentity> identity = areaIdentity(opened.st);
    if (!identity) {
        return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("%1 has no device and inode the helper can match.").arg(path)));
    }
    opened.identity = *identity;
    const std::optional<std::vector<ActiveArea>> active = activeAreas(context, &error);
    if (!active) {
        return finish(context, action, caller, target, refuse(SystemFailure, error));
    }
    const std::optional<size_t> index = findArea(opened.identity, identitiesOf(*active));
    if (index) {
        // docs/helper-security.md rule 10 applies here too: the file's pages
        // must fit in memory.
        std::string memError;
        const std::optional<MemInfo> memInfo = readMemInfo(context.procRoot, &memError);
        const SwapOffFit fit = swapOffFit((*active)[*index].area.usedBytes, memInfo.value_or(MemInfo()));
        qCDebug(CACHESCOPE_HELPER) << action << "uid" << caller.text() << ": the file is active," << fit.swapUsedBytes << "bytes in use,"
                                   << (fit.fits ? "fits" : "does not fit");
        if (!memInfo || !fit.fits) {
            return finish(context, action, caller, target, refuse(NotEnoughMemory, memInfo ? describeSwapOffMisfit(fit) : QString::fromStdString(memError)));
        }
        const int swapError = runSwapOffWithProgress(context, opened.procPath(), path);
        if (swapError != 0) {
            return finish(context, action, caller, target, swapOffFailure(swapError, path));
        }
    }
    if (unlinkat(dirFd.get(), experimentSwapName, 0) != 0) {
        return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("Cannot remove %1: %2.").arg(path, errnoQText(errno))));
    }
    ActionReply reply = ActionReply::SuccessReply();
    reply.addData(replyPath, path);
    reply.addData(replyWasActive, index.has_value());
    return finish(context, action, caller, target, reply);
}

} // namespace Cachescope::Helper
