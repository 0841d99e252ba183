// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The contain and reclaim actions (docs/helper-security.md rule 17).
// contain moves one process of the caller's into a memory cgroup the helper
// names and limits, and returns at once: a watcher child of root's removes
// the cgroup when it is empty, so that no command, however long, holds the
// helper. reclaim asks the kernel to reclaim the file pages of one cgroup
// whose processes are all the caller's.

#include "actionsupport.h"
#include "cachescope_helper_debug.h"
#include "callerprocess.h"
#include "helperactions.h"
#include "helperlogic.h"
#include "helperprotocol.h"

#include "cgroups/cgroupfs.h"
#include "cgroups/memorycgroup.h"
#include "format.h"
#include "procfs.h"
#include "uniquefd.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

namespace
{

// The kernel's largest pid (PID_MAX_LIMIT on 64-bit).
constexpr long long maxPid = 4194304;
// How often the watcher looks whether its cgroup is empty.
constexpr long watchIntervalNs = 250'000'000;

// What the watcher needs, prepared before fork(): after it, only system
// calls (the helper has threads; the child must not allocate).
struct WatchJob {
    std::string cgroup;
    std::string parent; // removed too when this was its last run (else EBUSY: left alone)
    std::string stateFile; // cgroup.events (v2) or cgroup.procs (v1)
    int version = 0;
};

bool watchedCgroupEmpty(const WatchJob &job)
{
    const int fd = open(job.stateFile.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return true; // gone: rmdir below then finds it gone too
    }
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (n < 0) {
        return false;
    }
    buffer[n] = '\0';
    if (job.version == 2) {
        const char *line = strstr(buffer, "populated ");
        return line && line[10] == '0';
    }
    for (ssize_t i = 0; i < n; ++i) {
        if (buffer[i] >= '0' && buffer[i] <= '9') {
            return false;
        }
    }
    return true;
}

[[noreturn]] void runWatcher(const WatchJob &job)
{
    // Nothing of the helper's stays open: above all not its D-Bus
    // connection, which a watcher living as long as the command would
    // otherwise keep alive, and with it the helper's bus name.
    close_range(0, ~0U, 0);
    const int null = open("/dev/null", O_RDWR);
    if (null == 0) {
        (void)dup2(0, 1);
        (void)dup2(0, 2);
    }
    const timespec interval{0, watchIntervalNs};
    for (;;) {
        if (watchedCgroupEmpty(job) && (rmdir(job.cgroup.c_str()) == 0 || errno == ENOENT)) {
            (void)rmdir(job.parent.c_str());
            _exit(0);
        }
        nanosleep(&interval, nullptr);
    }
}

// Starts the watcher as a grandchild, in a session of its own (a terminal's
// Ctrl+C never reaches it, also where root runs the action in the CLI's
// process), and reaps the child in between at once: the helper never waits
// for the watcher and leaves no zombie.
bool startWatcher(const WatchJob &job)
{
    const pid_t child = fork();
    if (child < 0) {
        return false;
    }
    if (child == 0) {
        unblockTerminationSignals();
        setsid();
        signal(SIGHUP, SIG_IGN);
        const pid_t watcher = fork();
        if (watcher == 0) {
            runWatcher(job);
        }
        _exit(watcher < 0 ? 1 : 0);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) { }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::optional<uint64_t> memTotal(const HelperContext &context)
{
    const std::optional<MemInfo> memInfo = readMemInfo(context.procRoot);
    return memInfo ? memInfo->find("MemTotal") : std::nullopt;
}

// docs/helper-security.md rule 17: a cgroup as /proc/<pid>/cgroup names it,
// checked as a string before anything is looked up: absolute, no empty,
// "." or ".." component, printable ASCII, at most maxCgroupPathBytes.
std::optional<QString> cgroupPathProblem(const QString &path)
{
    if (path.size() > maxCgroupPathBytes) {
        return QStringLiteral("The cgroup path is longer than %1 bytes.").arg(maxCgroupPathBytes);
    }
    if (!path.startsWith(QLatin1Char('/')) || path == QLatin1String("/")) {
        return QStringLiteral("The cgroup %1 is not a cgroup below the root (write it as /proc/<pid>/cgroup does: /user.slice/...).")
            .arg(quoteForMessage(path));
    }
    for (const QChar c : path) {
        if (c.unicode() < 0x21 || c.unicode() > 0x7e) {
            return QStringLiteral("The cgroup %1 has a character that is not printable ASCII.").arg(quoteForMessage(path));
        }
    }
    const QStringList parts = path.mid(1).split(QLatin1Char('/'));
    for (const QString &part : parts) {
        if (part.isEmpty() || part == QLatin1String(".") || part == QLatin1String("..")) {
            return QStringLiteral("The cgroup %1 has an empty, \".\" or \"..\" part.").arg(quoteForMessage(path));
        }
    }
    return std::nullopt;
}

// The pids of a cgroup and every cgroup below it (at most maxReclaimCgroups
// cgroups); nothing when it cannot be read or is too large.
bool collectPids(const std::string &cgroup, std::vector<long long> &pids, int &cgroups)
{
    if (++cgroups > maxReclaimCgroups) {
        return false;
    }
    const std::optional<std::string> procs = readProcFile(cgroup + "/cgroup.procs");
    if (!procs) {
        return false;
    }
    const char *text = procs->c_str();
    char *end = nullptr;
    for (long long pid = std::strtoll(text, &end, 10); end != text; pid = std::strtoll(text, &end, 10)) {
        pids.push_back(pid);
        text = end;
    }
    DIR *dir = opendir(cgroup.c_str());
    if (!dir) {
        return false;
    }
    std::vector<std::string> children;
    while (const dirent *entry = readdir(dir)) {
        if (entry->d_type == DT_DIR && strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0) {
            children.push_back(cgroup + "/" + entry->d_name);
        }
    }
    closedir(dir);
    for (const std::string &child : children) {
        if (!collectPids(child, pids, cgroups)) {
            return false;
        }
    }
    return true;
}

} // namespace

ActionReply containAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    static const char *action = "contain";
    if (!caller.uid) {
        return finish(context, action, caller, {}, unknownCallerRefusal());
    }
    // docs/helper-security.md rules 9 and 17: the process and the limit; nothing else.
    if (auto problem = checkKeys(args, {keyPid, keyLimitBytes}, {keyPid, keyLimitBytes})) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    const IntegerArgument pid = integerArgument(args, keyPid, 1, maxPid);
    if (!pid.value) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, pid.error));
    }
    const IntegerArgument limit = integerArgument(args, keyLimitBytes, minCacheLimitBytes, std::numeric_limits<long long>::max());
    if (!limit.value) {
        return finish(context,
                      action,
                      caller,
                      {},
                      refuse(InvalidArgument, limit.error + QStringLiteral(" A memory limit is at least %1.").arg(formatBytes(minCacheLimitBytes))));
    }
    const std::optional<uint64_t> total = memTotal(context);
    if (!total || uint64_t(*limit.value) > *total) {
        return finish(context,
                      action,
                      caller,
                      {},
                      refuse(InvalidArgument,
                             QStringLiteral("A memory limit of %1 is more than this machine has (MemTotal %2).")
                                 .arg(formatBytes(uint64_t(*limit.value)), total ? formatBytes(*total) : QStringLiteral("unknown"))));
    }
    QString target = QStringLiteral("pid=%1,limit=%2").arg(*pid.value).arg(*limit.value);
    std::string error;
    const std::optional<MemoryHierarchy> hierarchy = findMemoryHierarchy(context.cgroupRoot, &error);
    if (!hierarchy) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(Unsupported, QStringLiteral("Cannot contain a process here: %1.").arg(QString::fromStdString(error))));
    }

    // docs/helper-security.md rule 17: pinned first, then its uids (real,
    // effective and saved: never a set-user-ID program's) must be the caller's.
    const UniqueFd pidfd = openPidfd(*pid.value);
    if (!pidfd.isValid()) {
        const int code = errno;
        return finish(context,
                      action,
                      caller,
                      target,
                      code == ESRCH ? refuse(NotPermitted, QStringLiteral("Process %1 does not exist.").arg(*pid.value))
                                    : refuse(SystemFailure, QStringLiteral("Cannot hold process %1: %2").arg(*pid.value).arg(errnoQText(code))));
    }
    const std::optional<ProcessCredentials> credentials = credentialsOf(pidfd.get(), *pid.value, context.procRoot);
    if (!credentials) {
        return finish(context, action, caller, target, refuse(NotPermitted, QStringLiteral("Process %1 has already ended.").arg(*pid.value)));
    }
    if (!ownedByCaller(*credentials, *caller.uid)) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(NotPermitted,
                             QStringLiteral("Process %1 is not yours: the helper contains only processes whose real, effective and saved user are the caller.")
                                 .arg(*pid.value)));
    }

    for (const std::string &stale : removeStaleRunCgroups(*hierarchy, context.staleRunCgroupSeconds)) {
        qCInfo(CACHESCOPE_HELPER) << action << "removed the stale cgroup" << QString::fromStdString(stale);
    }
    if (runCgroupsOf(*hierarchy, *caller.uid).size() >= size_t(maxRunCgroupsPerCaller)) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(NotPermitted, QStringLiteral("You have %1 contained runs already; wait until one of them ends.").arg(maxRunCgroupsPerCaller)));
    }
    const std::string name = nextRunCgroupName(*hierarchy, *caller.uid);
    const std::optional<std::string> path = makeLimitedCgroup(*hierarchy, name, uint64_t(*limit.value), &error);
    if (!path) {
        return finish(context, action, caller, target, refuse(SystemFailure, QString::fromStdString(error) + QLatin1Char('.')));
    }
    target += QStringLiteral(",cgroup=%1,v%2").arg(QString::fromStdString(name)).arg(hierarchy->version);
    // Where the process is now, to move it back should it stop being the
    // caller's between the check above and the move (an exec of a
    // set-user-ID program).
    const std::optional<Cgroups::ProcessCgroup> origin = Cgroups::processCgroup(int(*pid.value), context.procRoot);
    if (!origin) {
        (void)removeCgroup(*path, nullptr);
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(NotPermitted, QStringLiteral("Cannot tell which cgroup process %1 is in: the helper does not move it.").arg(*pid.value)));
    }
    if (!moveIntoCgroup(*path, int(*pid.value), &error)) {
        (void)removeCgroup(*path, nullptr);
        return finish(context, action, caller, target, refuse(SystemFailure, QString::fromStdString(error) + QLatin1Char('.')));
    }
    // docs/helper-security.md rule 17: checked again after the move, on the
    // same pidfd: a process that became another user's meanwhile goes back
    // where it was, and the cgroup goes.
    const std::optional<ProcessCredentials> after = credentialsOf(pidfd.get(), *pid.value, context.procRoot);
    if (!after || !ownedByCaller(*after, *caller.uid)) {
        std::string ignored;
        (void)moveIntoCgroup(hierarchy->root + (origin->path == "/" ? std::string() : origin->path), int(*pid.value), &ignored);
        (void)removeCgroup(*path, nullptr);
        return finish(
            context,
            action,
            caller,
            target,
            refuse(NotPermitted,
                   after ? QStringLiteral("Process %1 stopped being yours while it was moved (a set-user-ID program?): it was put back.").arg(*pid.value)
                         : QStringLiteral("Process %1 ended while it was moved.").arg(*pid.value)));
    }
    // The watcher removes the cgroup once it is empty, whatever happens next.
    const WatchJob job{*path, hierarchy->parent(), *path + (hierarchy->version == 2 ? "/cgroup.events" : "/cgroup.procs"), hierarchy->version};
    const bool watched = startWatcher(job);
    // The pidfd not exited proves that the pid named this very process
    // through the move (a pid is reused only after its process has ended).
    if (processHasExited(pidfd.get())) {
        return finish(context, action, caller, target, refuse(NotPermitted, QStringLiteral("Process %1 ended while it was moved.").arg(*pid.value)));
    }
    if (!watched) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(SystemFailure,
                             QStringLiteral("Cannot start the watcher that removes %1 when it is empty: %2. It is removed at the next contained run after "
                                            "the process ends.")
                                 .arg(QString::fromStdString(*path), errnoQText(errno))));
    }
    ActionReply reply = ActionReply::SuccessReply();
    reply.addData(replyCgroupPath, QString::fromStdString(*path));
    reply.addData(replyCgroupVersion, hierarchy->version);
    reply.addData(keyLimitBytes, qint64(*limit.value));
    return finish(context, action, caller, target, reply);
}

ActionReply reclaimAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    static const char *action = "reclaim";
    if (!caller.uid) {
        return finish(context, action, caller, {}, unknownCallerRefusal());
    }
    if (auto problem = checkKeys(args, {keyCgroup}, {keyCgroup})) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    const QVariant value = args.value(keyCgroup);
    if (value.metaType().id() != QMetaType::QString) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, QStringLiteral("Argument '%1' must be text.").arg(keyCgroup)));
    }
    const QString cgroup = value.toString();
    if (auto problem = cgroupPathProblem(cgroup)) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    std::string error;
    const std::optional<MemoryHierarchy> hierarchy = findMemoryHierarchy(context.cgroupRoot, &error);
    if (!hierarchy) {
        return finish(context, action, caller, {}, refuse(Unsupported, QStringLiteral("Cannot reclaim here: %1.").arg(QString::fromStdString(error))));
    }
    // One sentence for every cgroup that is not there or not a cgroup, so
    // that a refusal never tells what exists.
    const std::string path = hierarchy->root + cgroup.toStdString();
    const QString notThere = QStringLiteral("There is no memory cgroup %1.").arg(quoteForMessage(cgroup));
    struct statfs fs{};
    struct stat st{};
    if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || statfs(path.c_str(), &fs) != 0
        || (fs.f_type != CGROUP_SUPER_MAGIC && fs.f_type != CGROUP2_SUPER_MAGIC)) {
        return finish(context, action, caller, {}, refuse(NotPermitted, notThere));
    }
    // The audit line names the cgroup by inode, never by the caller's string.
    QString target = QStringLiteral("cgroup-ino=%1,v%2").arg(st.st_ino).arg(hierarchy->version);

    // docs/helper-security.md rule 17: every process in it and below it is
    // the caller's; an empty one is refused (whose cache it is cannot be told).
    std::vector<long long> pids;
    int cgroups = 0;
    if (!collectPids(path, pids, cgroups)) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(NotPermitted,
                             QStringLiteral("Cannot read the processes of the cgroup %1 (or it has more than %2 cgroups below it).")
                                 .arg(quoteForMessage(cgroup))
                                 .arg(maxReclaimCgroups)));
    }
    int checked = 0;
    for (const long long pid : pids) {
        const UniqueFd pidfd = openPidfd(pid);
        const std::optional<ProcessCredentials> credentials = pidfd.isValid() ? credentialsOf(pidfd.get(), pid, context.procRoot) : std::nullopt;
        if (!credentials) {
            continue; // ended meanwhile
        }
        if (credentials->realUid != *caller.uid) {
            return finish(context,
                          action,
                          caller,
                          target,
                          refuse(NotPermitted,
                                 QStringLiteral("The cgroup %1 holds processes of other users; the helper reclaims only cgroups whose processes are all yours.")
                                     .arg(quoteForMessage(cgroup))));
        }
        ++checked;
    }
    if (checked == 0) {
        return finish(
            context,
            action,
            caller,
            target,
            refuse(NotPermitted, QStringLiteral("The cgroup %1 has no processes, so whose cache it holds cannot be told.").arg(quoteForMessage(cgroup))));
    }
    const std::optional<RunCgroupMemory> before = readRunCgroupMemory(path, hierarchy->version, &error);
    if (!before) {
        return finish(context, action, caller, target, refuse(SystemFailure, QString::fromStdString(error) + QLatin1Char('.')));
    }
    // docs/helper-security.md rule 14: the kernel's reclaim runs in a child
    // the helper kills at the deadline; past the cap of abandoned children
    // (ones the kernel has not let go yet) nothing more is started.
    if (!HeldPlaces(context.abandonedChildren, 1).held()) {
        return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("Too many earlier requests have not answered; try again later.")));
    }
    UniqueFd fd;
    std::string request;
    if (hierarchy->version == 2) {
        // Only file pages: the kernel's swappiness=0 argument (Linux 6.13+).
        request = std::to_string(std::max<uint64_t>(before->pageCache, 4096)) + " swappiness=0";
        fd = UniqueFd(open((path + "/memory.reclaim").c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
        if (!fd.isValid()) {
            const int code = errno;
            return finish(context,
                          action,
                          caller,
                          target,
                          refuse(Unsupported,
                                 code == ENOENT ? QStringLiteral("This kernel has no memory.reclaim (Linux 5.19 and later have it).")
                                                : QStringLiteral("Cannot open memory.reclaim: %1.").arg(errnoQText(code))));
        }
    } else {
        // cgroup v1 has no file-only reclaim: memory.force_empty reclaims
        // anonymous memory too, which goes to swap. Without any swap there
        // is nowhere for it to go, so then it reclaims file pages only.
        const std::optional<MemInfo> memInfo = readMemInfo(context.procRoot);
        if (!memInfo || memInfo->find("SwapTotal").value_or(1) != 0) {
            return finish(context,
                          action,
                          caller,
                          target,
                          refuse(Unsupported,
                                 QStringLiteral("cgroup v1 has no reclaim of file pages alone: memory.force_empty would swap the application's own memory "
                                                "out too, and this machine has swap. Nothing was reclaimed.")));
        }
        request = "0";
        fd = UniqueFd(open((path + "/memory.force_empty").c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW));
        if (!fd.isValid()) {
            return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("Reclaim failed: %1.").arg(errnoQText(errno))));
        }
    }
    announceStart(context);
    const BoundedWrite written = writeInChild(context, fd.get(), request, context.reclaimDeadlineMs);
    const int code = written.error;
    if (written.outcome == BoundedWrite::Outcome::NotStarted) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(SystemFailure, QStringLiteral("The helper could not start the reclaim: %1.").arg(errnoQText(code))));
    }
    if (hierarchy->version == 2 && written.outcome == BoundedWrite::Outcome::Failed && code == EINVAL) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(Unsupported,
                             QStringLiteral("This kernel's memory.reclaim takes no swappiness argument (Linux 6.13 and later do), so it could swap "
                                            "the application's own memory out; nothing was reclaimed.")));
    }
    // EAGAIN (v2) and EBUSY (v1): less could be reclaimed than asked, which
    // is an answer, not a failure.
    if (written.outcome == BoundedWrite::Outcome::Failed && code != EAGAIN && code != EBUSY) {
        return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("Reclaim failed: %1.").arg(errnoQText(code))));
    }
    // Stopped at the deadline or by the client's cancel: what the kernel
    // reclaimed until then stays reclaimed, and the figures say how much.
    const bool stopped = written.outcome == BoundedWrite::Outcome::DeadlinePassed || written.outcome == BoundedWrite::Outcome::Cancelled;
    const std::optional<RunCgroupMemory> after = readRunCgroupMemory(path, hierarchy->version, &error);
    target += QStringLiteral(",before=%1,after=%2").arg(before->pageCache).arg(after ? after->pageCache : 0);
    if (stopped) {
        target += written.outcome == BoundedWrite::Outcome::Cancelled ? QStringLiteral(",stopped=cancel") : QStringLiteral(",stopped=deadline");
    }
    ActionReply reply = ActionReply::SuccessReply();
    reply.addData(replyFileBytesBefore, qulonglong(before->pageCache));
    reply.addData(replyFileBytesAfter, qulonglong(after ? after->pageCache : 0));
    reply.addData(replyStoppedAtDeadline, stopped);
    return finish(context, action, caller, target, reply);
}

} // namespace Cachescope::Helper
