// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The system calls, the audit line, and dropcaches. Residency is in
// residencyaction.cpp, swap in swapactions.cpp, the experiment swap file in
// swapfileactions.cpp. Where each rule of docs/helper-security.md is
// met is said in a comment naming it.

#include "helperactions.h"
#include "actionsupport.h"
#include "cachescope_helper_debug.h"
#include "helperlogic.h"
#include "helperprotocol.h"
#include "tracefs.h"

#include "cgroups/memorycgroup.h"
#include "format.h"
#include "procfs.h"
#include "residency.h"
#include "uniquefd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <limits>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

SystemCalls::~SystemCalls() = default;

bool SystemCalls::syncAll(HelperContext &context)
{
    // docs/helper-security.md rule 2: sync() first, so that dirty pages are
    // written and can be dropped; rule 14: in a child that holds nothing of
    // the helper's, so that a mount whose writeback never ends (a hung NFS
    // server, a FUSE daemon) holds the child past the deadline, not us. Past
    // the cap of abandoned children no child is started: not synced.
    HeldPlaces places(context.abandonedChildren, 1);
    if (!places.held()) {
        return false;
    }
    const pid_t child = fork();
    if (child == 0) {
        if (keepOnlyDescriptors({})) {
            sync();
        }
        _exit(0);
    }
    if (child < 0) {
        return false;
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(context.syncDeadlineMs);
    const timespec step{0, 20'000'000};
    while (waitpid(child, nullptr, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() >= until) {
            endOrAbandon(places, child, std::chrono::milliseconds(100));
            return false;
        }
        nanosleep(&step, nullptr);
    }
    return true;
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

QString auditLine(const QString &action, const Caller &caller, const QString &target, const ActionReply &reply)
{
    QString result = QStringLiteral("ok");
    if (reply.failed()) {
        result = reply.error() == SystemFailure ? QStringLiteral("failed") : QStringLiteral("refused");
    }
    return QStringLiteral("cachescope-helper: action=%1 uid=%2 target=%3 result=%4 code=%5")
        .arg(action, caller.text(), target.isEmpty() ? QStringLiteral("-") : target, result, QString::number(reply.failed() ? reply.error() : 0));
}

void writeAuditLine(const QString &line)
{
    // docs/helper-security.md rule 11: syslog is the audit log (and the
    // journal, through stderr, under systemd).
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

} // namespace

ActionReply dropCachesAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
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
    if (!context.system->syncAll(context)) {
        qCWarning(CACHESCOPE_HELPER) << action << ": sync() did not end within" << context.syncDeadlineMs << "ms; dropping what is clean";
    }
    const int error = context.system->dropCaches(int(*level.value));
    if (error != 0) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(SystemFailure, QStringLiteral("Writing to /proc/sys/vm/drop_caches failed: %1.").arg(errnoQText(error))));
    }
    ActionReply reply = ActionReply::SuccessReply();
    reply.addData(keyLevel, int(*level.value));
    reply.addData(replyBefore, before);
    reply.addData(replyAfter, memoryFigures(context.procRoot));
    return finish(context, action, caller, target, reply);
}

std::vector<std::string> removeLeftovers(const HelperContext &context)
{
    std::vector<std::string> removed;
    // Only where tracefs is mounted: mounting it to look would be a change.
    struct stat instances{};
    if (stat((context.tracefsPath + "/instances").c_str(), &instances) == 0) {
        for (std::string &name : removeStaleInstances(context.tracefsPath, initialProcRoot(context))) {
            removed.push_back("tracefs instance " + name);
        }
    }
    // No contain of this helper is under way yet: any empty run cgroup,
    // however young, is a killed helper's.
    std::string error;
    if (const std::optional<MemoryHierarchy> hierarchy = findMemoryHierarchy(context.cgroupRoot, &error)) {
        for (std::string &path : removeStaleRunCgroups(*hierarchy, 0)) {
            removed.push_back("run cgroup " + path);
        }
    }
    return removed;
}

} // namespace Cachescope::Helper
