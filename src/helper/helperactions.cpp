// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The system calls, the audit line, and the actions that change no swap:
// dropcaches and residency. Swap is in swapactions.cpp, the experiment swap
// file in swapfileactions.cpp. Where each rule of docs/helper-security.md is
// met is said in a comment naming it.

#include "helperactions.h"
#include "actionsupport.h"
#include "cachescope_helper_debug.h"
#include "helperlogic.h"
#include "helperprotocol.h"

#include "format.h"
#include "procfs.h"
#include "residency.h"
#include "uniquefd.h"

#include <QDBusUnixFileDescriptor>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <syslog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <limits>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

SystemCalls::~SystemCalls() = default;

void SystemCalls::syncAll()
{
    // docs/helper-security.md rule 2: sync() first, so that dirty pages are
    // written and can be dropped.
    sync();
}

int SystemCalls::dropCaches(int level)
{
    // docs/helper-security.md rule 2: the helper decides what is written
    // where. The path is this constant, the value one of three strings chosen
    // here, never the caller's.
    static const char *const values[] = {"1\n", "2\n", "3\n"};
    if (level < 1 || level > 3) {
        return EINVAL;
    }
    const UniqueFd fd(open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd.isValid()) {
        return errno;
    }
    const ssize_t written = write(fd.get(), values[level - 1], 2);
    return written == 2 ? 0 : (written < 0 ? errno : EIO);
}

int SystemCalls::swapOff(const std::string &path)
{
    // docs/helper-security.md rule 3: the syscall, not swapoff(8).
    return ::swapoff(path.c_str()) == 0 ? 0 : errno;
}

int SystemCalls::swapOn(const std::string &path, int flags)
{
    return ::swapon(path.c_str(), flags) == 0 ? 0 : errno;
}

QString Caller::text() const
{
    return uid ? QString::number(*uid) : QStringLiteral("unknown");
}

Caller callerFromKAuthUid(int kauthUid)
{
    // The same 32 bits, read as the unsigned uid_t they came from.
    const uint32_t uid = static_cast<uint32_t>(kauthUid);
    if (uid == 0 || uid == std::numeric_limits<uint32_t>::max()) {
        return Caller{std::nullopt};
    }
    return Caller{uid};
}

QString auditLine(const QString &action, const Caller &caller, const QString &target, const KAuth::ActionReply &reply)
{
    QString result = QStringLiteral("ok");
    if (reply.failed()) {
        result = reply.error() == SystemFailure ? QStringLiteral("failed") : QStringLiteral("refused");
    }
    return QStringLiteral("cachescope-helper: action=%1 uid=%2 target=%3 result=%4 code=%5")
        .arg(action)
        .arg(caller.text())
        .arg(target.isEmpty() ? QStringLiteral("-") : target, result)
        .arg(reply.failed() ? reply.error() : 0);
}

void writeAuditLine(const QString &line)
{
    // docs/helper-security.md rule 11: syslog is the audit log; KAuth
    // forwards the helper's Qt messages to the client, so they are not one.
    const QByteArray bytes = line.toUtf8();
    syslog(LOG_AUTHPRIV | LOG_NOTICE, "%s", bytes.constData());
    fprintf(stderr, "%s\n", bytes.constData());
}

namespace
{

// The dropcaches reply's figures: /proc/meminfo's fields under their own names.
QVariantMap memoryFigures(const std::string &procRoot)
{
    QVariantMap figures;
    const std::optional<MemInfo> memInfo = readMemInfo(procRoot);
    if (!memInfo) {
        return figures;
    }
    for (const QLatin1StringView name : memoryFigureKeys) {
        if (const std::optional<uint64_t> value = memInfo->find(std::string_view(name.data(), size_t(name.size())))) {
            figures.insert(QString(name), qulonglong(*value));
        }
    }
    return figures;
}

QString typeOfMode(mode_t mode)
{
    if (S_ISDIR(mode)) {
        return QStringLiteral("a directory");
    }
    if (S_ISFIFO(mode)) {
        return QStringLiteral("a FIFO");
    }
    if (S_ISSOCK(mode)) {
        return QStringLiteral("a socket");
    }
    if (S_ISCHR(mode)) {
        return QStringLiteral("a character device");
    }
    if (S_ISBLK(mode)) {
        return QStringLiteral("a block device");
    }
    if (S_ISLNK(mode)) {
        return QStringLiteral("a symbolic link");
    }
    return QStringLiteral("not a regular file");
}

// docs/helper-security.md rule 9: the descriptor argument `key` is an open,
// read-only, non-O_PATH descriptor of a regular file. Returns it with its
// stat, or the reason for refusing.
struct CheckedDescriptor {
    int fd = -1;
    struct stat st{};
    QString problem;
};

CheckedDescriptor checkDescriptor(const QVariantMap &args, const QString &key)
{
    CheckedDescriptor checked;
    const QVariant value = args.value(key);
    if (value.metaType() != QMetaType::fromType<QDBusUnixFileDescriptor>()) {
        checked.problem = QStringLiteral("Argument '%1' must be a file descriptor, not %2.")
                              .arg(key, value.isValid() ? QString::fromLatin1(value.metaType().name()) : QStringLiteral("nothing"));
        return checked;
    }
    const QDBusUnixFileDescriptor descriptor = value.value<QDBusUnixFileDescriptor>();
    // The QVariant in args keeps the descriptor open while the action runs.
    const int fd = descriptor.isValid() ? descriptor.fileDescriptor() : -1;
    if (fd < 0) {
        checked.problem = QStringLiteral("Argument '%1' is not an open file descriptor.").arg(key);
        return checked;
    }
    const int flags = fcntl(fd, F_GETFL);
    if (flags < 0) {
        checked.problem = QStringLiteral("Descriptor '%1' is not usable: %2.").arg(key, errnoQText(errno));
    } else if (flags & O_PATH) {
        checked.problem = QStringLiteral("Descriptor '%1' was opened with O_PATH; pass a descriptor opened for reading.").arg(key);
    } else if ((flags & O_ACCMODE) != O_RDONLY) {
        checked.problem = QStringLiteral("Descriptor '%1' must be opened read-only.").arg(key);
    } else if (fstat(fd, &checked.st) != 0) {
        checked.problem = QStringLiteral("Descriptor '%1': %2.").arg(key, errnoQText(errno));
    } else if (!S_ISREG(checked.st.st_mode)) {
        checked.problem = QStringLiteral("Descriptor '%1' is %2, not a regular file.").arg(key, typeOfMode(checked.st.st_mode));
    } else {
        checked.fd = fd;
    }
    return checked;
}

} // namespace

KAuth::ActionReply dropCachesAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    static const char *action = "dropcaches";
    if (auto refused = refuseUnknownCaller(caller)) {
        return finish(context, action, caller, {}, *refused);
    }
    // docs/helper-security.md rule 9: keys, type and range before anything else.
    if (auto problem = checkKeys(args, {keyLevel}, {keyLevel})) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    // docs/helper-security.md rule 2: an integer checked against {1, 2, 3}.
    const IntegerArgument level = integerArgument(args, keyLevel, 1, 3);
    if (!level.value) {
        return finish(context,
                      action,
                      caller,
                      {},
                      refuse(InvalidArgument, level.error + QStringLiteral(" Use 1 (page cache), 2 (dentries and inodes) or 3 (both).")));
    }
    const QString target = QStringLiteral("level=%1").arg(*level.value);
    qCDebug(CACHESCOPE_HELPER) << action << "uid" << caller.text() << ": sync, then drop_caches level" << *level.value;
    const QVariantMap before = memoryFigures(context.procRoot);
    context.system->syncAll();
    const int error = context.system->dropCaches(int(*level.value));
    if (error != 0) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(SystemFailure, QStringLiteral("Writing to /proc/sys/vm/drop_caches failed: %1.").arg(errnoQText(error))));
    }
    KAuth::ActionReply reply = KAuth::ActionReply::SuccessReply();
    reply.addData(keyLevel, int(*level.value));
    reply.addData(replyBefore, before);
    reply.addData(replyAfter, memoryFigures(context.procRoot));
    return finish(context, action, caller, target, reply);
}

KAuth::ActionReply residencyAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    static const char *action = "residency";
    if (auto refused = refuseUnknownCaller(caller)) {
        return finish(context, action, caller, {}, *refused);
    }
    if (args.size() > maxArguments) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *checkKeys(args, {}, {})));
    }
    const IntegerArgument count = integerArgument(args, keyCount, 1, maxDescriptors);
    if (!count.value) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, count.error));
    }
    const QString target = QStringLiteral("fds=%1").arg(*count.value);
    std::vector<QString> keys{keyCount, keyBuckets};
    std::vector<QString> required{keyCount};
    for (int i = 0; i < *count.value; ++i) {
        keys.push_back(descriptorKey(i));
        required.push_back(keys.back());
    }
    if (auto problem = checkKeys(args, keys, required)) {
        return finish(context, action, caller, target, refuse(InvalidArgument, *problem));
    }
    int buckets = 64;
    if (args.contains(keyBuckets)) {
        const IntegerArgument bucketArg = integerArgument(args, keyBuckets, 1, maxBuckets);
        if (!bucketArg.value) {
            return finish(context, action, caller, target, refuse(InvalidArgument, bucketArg.error));
        }
        buckets = int(*bucketArg.value);
    }

    // docs/helper-security.md rule 9: every descriptor is checked before any
    // is used. Never a path: the caller opened the file, so the helper sees
    // only what it could open.
    std::vector<CheckedDescriptor> files;
    for (int i = 0; i < *count.value; ++i) {
        CheckedDescriptor checked = checkDescriptor(args, descriptorKey(i));
        if (checked.fd < 0) {
            return finish(context, action, caller, target, refuse(InvalidArgument, checked.problem));
        }
        files.push_back(std::move(checked));
    }
    qCDebug(CACHESCOPE_HELPER) << action << "uid" << caller.text() << ":" << files.size() << "descriptors checked, histograms of" << buckets << "buckets";

    KAuth::ActionReply reply = KAuth::ActionReply::SuccessReply();
    for (size_t i = 0; i < files.size(); ++i) {
        const int index = int(i);
        const int fd = files[i].fd;
        const struct stat &st = files[i].st;
        // The same core code the app uses, histogram included.
        const Residency residency = residencyOfDescriptor(fd, st);
        const Histogram histogram = histogramOfDescriptor(fd, st, buckets);
        if (!residency.ok() || !histogram.ok()) {
            const std::string &why = residency.ok() ? histogram.errorText : residency.errorText;
            return finish(
                context,
                action,
                caller,
                target,
                refuse(SystemFailure, QStringLiteral("Residency of descriptor '%1' failed: %2.").arg(descriptorKey(index), QString::fromStdString(why))));
        }
        QVariantList resident;
        for (uint64_t pages : histogram.resident) {
            resident << qulonglong(pages);
        }
        reply.addData(descriptorReplyKey(index, fileDevice), qulonglong(st.st_dev));
        reply.addData(descriptorReplyKey(index, fileInode), qulonglong(st.st_ino));
        reply.addData(descriptorReplyKey(index, fileSizeBytes), qulonglong(residency.sizeBytes));
        reply.addData(descriptorReplyKey(index, filePages), qulonglong(residency.pages));
        reply.addData(descriptorReplyKey(index, fileResident), qulonglong(residency.resident));
        reply.addData(descriptorReplyKey(index, fileMethod), QLatin1String(methodName(residency.method)));
        reply.addData(descriptorReplyKey(index, fileDetail), residency.detail);
        reply.addData(descriptorReplyKey(index, fileDirty), qulonglong(residency.dirty));
        reply.addData(descriptorReplyKey(index, fileWriteback), qulonglong(residency.writeback));
        reply.addData(descriptorReplyKey(index, fileHistogram), resident);
    }
    reply.addData(keyCount, int(files.size()));
    reply.addData(keyBuckets, buckets);
    return finish(context, action, caller, target, reply);
}

} // namespace Cachescope::Helper
