// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The residency action (docs/helper-security.md rule 9). The caller sends
// paths, never descriptors (the service's bus connection takes none): a
// descriptor of a file on a FUSE mount whose daemon never answers would
// hang whoever closes it. Each path is read in a forked child that has
// taken the caller's identity to look it up and open it, and takes root
// back only to read the residency; a child that does not answer by the
// deadline is killed and abandoned, never waited for. The answer reaches
// the caller alone (a signal addressed to it).

#include "actionsupport.h"
#include "cachescope_helper_debug.h"
#include "helperactions.h"
#include "helperlogic.h"
#include "helperprotocol.h"
#include "residencyanswer.h"

#include "format.h"
#include "residency.h"
#include "uniquefd.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/magic.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

namespace
{

// No child's answer is longer than this (histogram and two sentences).
constexpr size_t maxAnswerBytes = size_t(256) * 1024;
constexpr unsigned fuseSuperMagic = 0x65735546;

// What a child needs, all prepared before fork(): after it, the child calls
// no Qt and looks nothing up in the user database.
struct ChildJob {
    std::string path;
    bool dropToCaller = false;
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
    int buckets = 64;
    bool mincore = false; // cachestat(2) missing, or forced (tests)
    unsigned long long mincorePageBudget = 0;
};

// The child's answer, as it travels through the pipe (same machine, same
// binary: host byte order).
struct ChildAnswer {
    std::string error;
    uint64_t device = 0, inode = 0, sizeBytes = 0, pages = 0, resident = 0, dirty = 0, writeback = 0;
    uint64_t method = 0, detail = 0, hidden = 0;
    std::vector<uint64_t> histogram;
};

void putNumber(std::string &out, uint64_t value)
{
    out.append(reinterpret_cast<const char *>(&value), sizeof value);
}

std::string encode(const ChildAnswer &answer)
{
    std::string out;
    putNumber(out, answer.error.size());
    out += answer.error;
    for (uint64_t value : {answer.device,
                           answer.inode,
                           answer.sizeBytes,
                           answer.pages,
                           answer.resident,
                           answer.dirty,
                           answer.writeback,
                           answer.method,
                           answer.detail,
                           answer.hidden,
                           uint64_t(answer.histogram.size())}) {
        putNumber(out, value);
    }
    for (uint64_t value : answer.histogram) {
        putNumber(out, value);
    }
    return out;
}

struct Reader {
    const std::string &bytes;
    size_t offset = 0;
    bool ok = true;
    uint64_t number()
    {
        uint64_t value = 0;
        if (offset + sizeof value > bytes.size()) {
            ok = false;
            return 0;
        }
        std::memcpy(&value, bytes.data() + offset, sizeof value);
        offset += sizeof value;
        return value;
    }
};

std::optional<ChildAnswer> decode(const std::string &bytes, int buckets)
{
    Reader reader{bytes};
    ChildAnswer answer;
    const uint64_t errorBytes = reader.number();
    if (!reader.ok || errorBytes > 4096 || reader.offset + errorBytes > bytes.size()) {
        return std::nullopt;
    }
    answer.error.assign(bytes, reader.offset, errorBytes);
    reader.offset += errorBytes;
    for (uint64_t *field : {&answer.device,
                            &answer.inode,
                            &answer.sizeBytes,
                            &answer.pages,
                            &answer.resident,
                            &answer.dirty,
                            &answer.writeback,
                            &answer.method,
                            &answer.detail,
                            &answer.hidden}) {
        *field = reader.number();
    }
    const uint64_t count = reader.number();
    if (!reader.ok || count > uint64_t(buckets)) {
        return std::nullopt;
    }
    for (uint64_t i = 0; i < count; ++i) {
        answer.histogram.push_back(reader.number());
    }
    if (!reader.ok || reader.offset != bytes.size()) {
        return std::nullopt;
    }
    return answer;
}

std::string typeOfMode(mode_t mode)
{
    if (S_ISDIR(mode)) {
        return "a directory";
    }
    if (S_ISFIFO(mode)) {
        return "a FIFO";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    if (S_ISBLK(mode)) {
        return "a block device";
    }
    return "not a regular file";
}

// Kernel file systems whose "files" are not page cache (or whose reading
// has effects), and FUSE, whose daemon is the caller's own program.
std::string refusedFileSystem(int fd)
{
    struct statfs fs{};
    if (fstatfs(fd, &fs) != 0) {
        return "cannot tell its file system: " + errnoText(errno);
    }
    switch (static_cast<unsigned long>(fs.f_type)) {
    case PROC_SUPER_MAGIC:
        return "is on procfs: not a file in the page cache";
    case SYSFS_MAGIC:
        return "is on sysfs: not a file in the page cache";
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
        return "is on a kernel file system: not a file in the page cache";
    case fuseSuperMagic:
        return "is on a FUSE file system: the helper does not read those";
    default:
        return {};
    }
}

// Runs in the child. Looks the path up and opens it as the caller, so that
// the kernel decides what the caller may open (docs/helper-security.md
// rule 9); then takes root back (the saved uid stayed 0, which keeps the
// permitted capabilities) only to read what mincore and cachestat hide from
// users who cannot write the file.
ChildAnswer readAsCaller(const ChildJob &job)
{
    ChildAnswer answer;
    if (job.dropToCaller
        && (setgroups(job.groups.size(), job.groups.data()) != 0 || setresgid(job.gid, job.gid, job.gid) != 0 || setresuid(job.uid, job.uid, 0) != 0)) {
        answer.error = "the helper could not take the caller's identity: " + errnoText(errno);
        return answer;
    }
    struct stat st{};
    // stat first, so that no device or FIFO is ever opened (opening some
    // devices has effects of its own).
    if (stat(job.path.c_str(), &st) != 0) {
        answer.error = errnoText(errno);
        return answer;
    }
    if (!S_ISREG(st.st_mode)) {
        answer.error = "is " + typeOfMode(st.st_mode) + ", not a regular file: never opened";
        return answer;
    }
    const UniqueFd fd(open(job.path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!fd.isValid()) {
        answer.error = errnoText(errno);
        return answer;
    }
    if (fstat(fd.get(), &st) != 0) {
        answer.error = errnoText(errno);
        return answer;
    }
    if (!S_ISREG(st.st_mode)) {
        answer.error = "is " + typeOfMode(st.st_mode) + ", not a regular file";
        return answer;
    }
    if (std::string refused = refusedFileSystem(fd.get()); !refused.empty()) {
        answer.error = refused;
        return answer;
    }
    if (job.dropToCaller && setresuid(0, 0, 0) != 0) {
        answer.error = "the helper could not take root back: " + errnoText(errno);
        return answer;
    }
    answer.device = uint64_t(st.st_dev);
    answer.inode = uint64_t(st.st_ino);
    answer.sizeBytes = uint64_t(st.st_size);
    // docs/helper-security.md rule 14: mincore(2) costs a call per GiB even
    // over holes; a huge sparse file gets an error, not hours of work.
    if (job.mincore && pagesFor(uint64_t(st.st_size)) > job.mincorePageBudget) {
        answer.error = "has " + std::to_string(pagesFor(uint64_t(st.st_size))) + " pages; without cachestat(2) the helper reads at most "
            + std::to_string(job.mincorePageBudget) + " pages a file";
        return answer;
    }
    const ResidencyOptions options{.forceMincore = job.mincore};
    const Residency residency = residencyOfDescriptor(fd.get(), st, options);
    const Histogram histogram = histogramOfDescriptor(fd.get(), st, job.buckets, options);
    if (!residency.ok() || !histogram.ok()) {
        answer.error = residency.ok() ? histogram.errorText : residency.errorText;
        return answer;
    }
    answer.pages = residency.pages;
    answer.resident = residency.resident;
    answer.dirty = residency.dirty;
    answer.writeback = residency.writeback;
    answer.method = uint64_t(residency.method);
    answer.detail = residency.detail;
    answer.hidden = residency.hidden || histogram.hidden;
    if (!answer.hidden) {
        answer.histogram = histogram.resident;
    }
    return answer;
}

[[noreturn]] void runChild(const ChildJob &job, int writeFd)
{
    // The answer goes to 3; nothing else of the helper's stays open.
    if (!keepOnlyDescriptors({writeFd})) {
        _exit(1);
    }
    const std::string bytes = encode(readAsCaller(job));
    size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = write(3, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            _exit(1);
        }
        written += size_t(n);
    }
    _exit(0);
}

struct Child {
    pid_t pid = -1;
    UniqueFd output;
    std::string bytes;
    bool finished = false;
    std::string startError;
};

// Kills a child that has not ended and keeps it to be reaped later: one in
// uninterruptible sleep (a FUSE request) ends only when its file system
// answers or goes away, and the helper must not wait for that.
void endChild(HeldPlaces &places, Child &child)
{
    if (child.pid <= 0) {
        return;
    }
    // No grace: up to 16 children a call, each stuck one would add to it.
    endOrAbandon(places, child.pid, std::chrono::milliseconds(0));
    child.pid = -1;
}

// Starts one child a path, then reads their answers until all have answered
// or the deadline passed.
void runChildren(HelperContext &context, HeldPlaces &places, const std::vector<ChildJob> &jobs, std::vector<Child> &children)
{
    children.resize(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) {
            children[i].startError = "the helper could not start a reader: " + errnoText(errno);
            continue;
        }
        UniqueFd readEnd(fds[0]);
        UniqueFd writeEnd(fds[1]);
        const pid_t pid = fork();
        if (pid == 0) {
            runChild(jobs[i], writeEnd.get());
        }
        if (pid < 0) {
            children[i].startError = "the helper could not start a reader: " + errnoText(errno);
            continue;
        }
        children[i].pid = pid;
        children[i].output = std::move(readEnd);
    }
    using Clock = std::chrono::steady_clock;
    const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(context.residencyDeadlineMs);
    for (;;) {
        std::vector<pollfd> polled;
        std::vector<size_t> indexes;
        for (size_t i = 0; i < children.size(); ++i) {
            if (children[i].output.isValid() && !children[i].finished) {
                polled.push_back({children[i].output.get(), POLLIN, 0});
                indexes.push_back(i);
            }
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (polled.empty() || left <= 0) {
            break;
        }
        const int ready = poll(polled.data(), polled.size(), int(left));
        if (ready < 0 && errno != EINTR) {
            break;
        }
        for (size_t k = 0; k < polled.size() && ready > 0; ++k) {
            if (polled[k].revents == 0) {
                continue;
            }
            Child &child = children[indexes[k]];
            char buffer[8192];
            const ssize_t n = read(child.output.get(), buffer, sizeof buffer);
            if (n > 0 && child.bytes.size() + size_t(n) <= maxAnswerBytes) {
                child.bytes.append(buffer, size_t(n));
            } else if (n >= 0 || (errno != EINTR && errno != EAGAIN)) {
                child.finished = true; // end of the answer, more than any answer holds, or an error
            }
        }
    }
    for (Child &child : children) {
        endChild(places, child);
        child.output.reset();
    }
}

FileResidencyAnswer resultOf(const Child &child, const ChildJob &job, int deadlineMs)
{
    FileResidencyAnswer result;
    if (!child.startError.empty()) {
        result.error = QString::fromStdString(child.startError);
        return result;
    }
    if (!child.finished) {
        result.error = QStringLiteral("did not answer within %1 s").arg(double(deadlineMs) / 1000.0);
        return result;
    }
    const std::optional<ChildAnswer> answer = decode(child.bytes, job.buckets);
    if (!answer) {
        result.error = QStringLiteral("the helper's reader gave no answer");
        return result;
    }
    if (!answer->error.empty()) {
        result.error = QString::fromStdString(answer->error);
        return result;
    }
    result.device = answer->device;
    result.inode = answer->inode;
    result.sizeBytes = answer->sizeBytes;
    result.pages = answer->pages;
    result.resident = answer->resident;
    result.method = QLatin1String(methodName(ResidencyMethod(answer->method)));
    result.detail = answer->detail != 0;
    result.hidden = answer->hidden != 0;
    result.dirty = answer->dirty;
    result.writeback = answer->writeback;
    for (uint64_t pages : answer->histogram) {
        result.histogram.append(pages);
    }
    return result;
}

// The caller's primary group and groups, looked up before any fork (NSS may
// start threads or open sockets).
bool identityOf(uid_t uid, ChildJob &job)
{
    std::vector<char> buffer(16384);
    struct passwd entry{};
    struct passwd *found = nullptr;
    if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) != 0 || !found) {
        return false;
    }
    job.uid = uid;
    job.gid = found->pw_gid;
    int count = 64;
    job.groups.resize(size_t(count));
    if (getgrouplist(found->pw_name, found->pw_gid, job.groups.data(), &count) < 0) {
        job.groups.resize(size_t(count));
        if (getgrouplist(found->pw_name, found->pw_gid, job.groups.data(), &count) < 0) {
            return false;
        }
    }
    job.groups.resize(size_t(count));
    return true;
}

// The paths path0 ... path<count-1>: each a QByteArray, absolute, no NUL,
// at most maxPathBytes; no two alike. The refusal never repeats a path.
std::optional<QString> pathsFrom(const QVariantMap &args, int count, std::vector<std::string> &paths)
{
    std::set<std::string> seen;
    for (int i = 0; i < count; ++i) {
        const QString key = pathKey(i);
        const QVariant value = args.value(key);
        if (value.metaType() != QMetaType::fromType<QByteArray>()) {
            return QStringLiteral("Argument '%1' must be the bytes of a path (QByteArray), not %2.").arg(key, QString::fromLatin1(value.metaType().name()));
        }
        const QByteArray bytes = value.toByteArray();
        if (bytes.isEmpty() || bytes.front() != '/' || bytes.contains('\0') || bytes.size() > maxPathBytes) {
            return QStringLiteral("Argument '%1' must be an absolute path of at most %2 bytes without NUL.").arg(key).arg(maxPathBytes);
        }
        std::string path = bytes.toStdString();
        if (!seen.insert(path).second) {
            // One answer a path: the client sends each path once and shares the answer.
            return QStringLiteral("Argument '%1' names a path given before; name each path once.").arg(key);
        }
        paths.push_back(std::move(path));
    }
    return std::nullopt;
}

} // namespace

ActionReply residencyAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    static const char *action = "residency";
    if (!caller.uid) {
        return finish(context, action, caller, {}, unknownCallerRefusal());
    }
    if (args.size() > maxArguments) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, checkKeys(args, {}, {}).value_or(QStringLiteral("too many arguments"))));
    }
    const IntegerArgument count = integerArgument(args, keyCount, 1, maxPathsPerCall);
    if (!count.value) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, count.error));
    }
    const QString target = QStringLiteral("paths=%1").arg(*count.value);
    std::vector<QString> keys{keyCount, keyBuckets};
    std::vector<QString> required{keyCount};
    for (int i = 0; i < *count.value; ++i) {
        keys.push_back(pathKey(i));
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
    std::vector<std::string> paths;
    if (auto problem = pathsFrom(args, int(*count.value), paths)) {
        return finish(context, action, caller, target, refuse(InvalidArgument, *problem));
    }

    // A place for each reader, held before any starts.
    HeldPlaces places(context.abandonedChildren, paths.size());
    if (!places.held()) {
        return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("Too many earlier requests have not answered; try again later.")));
    }
    ChildJob prototype;
    prototype.buckets = buckets;
    prototype.mincore = context.forceMincore || !cachestatAvailable(); // probed here, not in a child
    prototype.mincorePageBudget = context.mincorePageBudget;
    // The helper is root; only in-process tests run this as a user, who
    // cannot change identity and needs not.
    prototype.dropToCaller = geteuid() == 0;
    if (prototype.dropToCaller && !identityOf(uid_t(*caller.uid), prototype)) {
        return finish(context, action, caller, target, refuse(NotPermitted, QStringLiteral("The calling user has no entry in the user database.")));
    }
    std::vector<ChildJob> jobs;
    for (std::string &path : paths) {
        ChildJob job = prototype;
        job.path = std::move(path);
        jobs.push_back(std::move(job));
    }
    std::vector<Child> children;
    announceStart(context);
    runChildren(context, places, jobs, children);

    QList<FileResidencyAnswer> results;
    for (size_t i = 0; i < jobs.size(); ++i) {
        results.append(resultOf(children[i], jobs[i], context.residencyDeadlineMs));
    }
    qCDebug(CACHESCOPE_HELPER) << action << "uid" << caller.text() << ":" << results.size() << "paths read," << context.abandonedChildren->pids().size()
                               << "readers abandoned";
    ActionReply reply = ActionReply::SuccessReply();
    reply.addData(replyFiles, serializeFileResults(results));
    return finish(context, action, caller, target, reply);
}

} // namespace Cachescope::Helper
