// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Where each rule of ../shared/helper-security.md is met is said in a
// comment starting "Rule N".

#include "helperactions.h"
#include "helperlogic.h"
#include "helperprotocol.h"

#include "procfs.h"
#include "residency.h"

#include <QDBusUnixFileDescriptor>
#include <QStringList>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace Cachescope
{

using namespace HelperProtocol;
using HelperLogic::AreaIdentity;
using HelperLogic::SwapRecord;

SystemCalls::~SystemCalls() = default;

void SystemCalls::syncAll()
{
    // Rule 2: sync() first, so that dirty pages are written and can be dropped.
    sync();
}

int SystemCalls::dropCaches(int level)
{
    // Rule 2: the helper decides what is written where. The path is this
    // constant, the value one of three strings chosen here, never the caller's.
    static const char *const values[] = {"1\n", "2\n", "3\n"};
    if (level < 1 || level > 3) {
        return EINVAL;
    }
    const int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        return errno;
    }
    const ssize_t written = write(fd, values[level - 1], 2);
    const int error = written == 2 ? 0 : (written < 0 ? errno : EIO);
    close(fd);
    return error;
}

int SystemCalls::swapOff(const std::string &path)
{
    // Rule 3: the syscall, not swapoff(8).
    return ::swapoff(path.c_str()) == 0 ? 0 : errno;
}

int SystemCalls::swapOn(const std::string &path, int flags)
{
    return ::swapon(path.c_str(), flags) == 0 ? 0 : errno;
}

namespace
{

KAuth::ActionReply refuse(int code, const QString &message)
{
    KAuth::ActionReply reply = KAuth::ActionReply::HelperErrorReply(code);
    reply.setErrorDescription(message);
    return reply;
}

QString errnoText(int error)
{
    return QString::fromLocal8Bit(strerror(error));
}

QString deviceText(const AreaIdentity &identity)
{
    // Rule 11: the log names areas by numbers the helper found, not by caller strings.
    const QString device = QStringLiteral("%1:%2").arg(major(identity.device)).arg(minor(identity.device));
    if (identity.blockDevice) {
        return QStringLiteral("blockdev=") + device;
    }
    return QStringLiteral("dev=%1,ino=%2").arg(device).arg(identity.inode);
}

// Every action ends here: one audit line, then the reply (rule 11).
KAuth::ActionReply finish(HelperContext &context, const char *action, int callerUid, const QString &target, const KAuth::ActionReply &reply)
{
    if (context.log) {
        context.log(auditLine(QLatin1String(action), callerUid, target, reply));
    }
    return reply;
}

// Rule 6: the uid comes from D-Bus (KAuth::HelperSupport::callerUid() in the
// glue), never from the arguments. Unknown means refused: fail closed.
std::optional<KAuth::ActionReply> refuseUnknownCaller(int callerUid)
{
    if (callerUid < 0) {
        return refuse(CallerUnknown, QStringLiteral("The helper could not learn who is calling from D-Bus, so it refuses."));
    }
    return std::nullopt;
}

QVariantMap memorySnapshot(const std::string &procRoot)
{
    QVariantMap snapshot;
    const std::optional<MemInfo> memInfo = readMemInfo(procRoot);
    if (!memInfo) {
        return snapshot;
    }
    for (const char *name : {"MemTotal", "MemFree", "MemAvailable", "Buffers", "Cached", "SReclaimable", "Dirty", "SwapTotal", "SwapFree"}) {
        if (const std::optional<uint64_t> value = memInfo->find(name)) {
            snapshot.insert(QLatin1String(name), qulonglong(*value));
        }
    }
    return snapshot;
}

uint64_t swapUsedNow(const std::string &procRoot)
{
    const std::optional<MemInfo> memInfo = readMemInfo(procRoot);
    if (!memInfo) {
        return 0;
    }
    const uint64_t total = memInfo->value("SwapTotal");
    const uint64_t free = memInfo->value("SwapFree");
    return total > free ? total - free : 0;
}

struct ActiveArea {
    SwapArea area;
    std::optional<AreaIdentity> identity;
};

// Rule 4: the areas the kernel lists, each identified by lstat() of the
// kernel's own name: device number for a partition, device and inode for a file.
std::optional<std::vector<ActiveArea>> activeAreas(const HelperContext &context, QString *error)
{
    std::string readError;
    const std::optional<std::vector<SwapArea>> swaps = readSwaps(context.procRoot, &readError);
    if (!swaps) {
        *error = QStringLiteral("Cannot read the active swap areas: %1").arg(QString::fromStdString(readError));
        return std::nullopt;
    }
    std::vector<ActiveArea> areas;
    for (const SwapArea &area : *swaps) {
        struct stat st;
        ActiveArea active{area, std::nullopt};
        if (lstat(area.filename.c_str(), &st) == 0) {
            active.identity = HelperLogic::areaIdentity(st);
        }
        areas.push_back(std::move(active));
    }
    return areas;
}

std::vector<std::optional<AreaIdentity>> identitiesOf(const std::vector<ActiveArea> &areas)
{
    std::vector<std::optional<AreaIdentity>> identities;
    for (const ActiveArea &area : areas) {
        identities.push_back(area.identity);
    }
    return identities;
}

// A path opened with O_PATH | O_NOFOLLOW: the helper then works on exactly
// this inode through /proc/self/fd/N, so that renaming or replacing the name
// after the check changes nothing (rule 4: do not follow symlinks, no races).
class OpenedArea
{
public:
    OpenedArea() = default;
    OpenedArea(const OpenedArea &) = delete;
    OpenedArea &operator=(const OpenedArea &) = delete;
    ~OpenedArea()
    {
        if (fd >= 0) {
            close(fd);
        }
    }
    [[nodiscard]] std::string procPath() const
    {
        return "/proc/self/fd/" + std::to_string(fd);
    }
    int fd = -1;
    struct stat st{};
    AreaIdentity identity;
};

bool openArea(const std::string &path, OpenedArea &opened, QString *error, const QString &shownName)
{
    opened.fd = open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (opened.fd < 0) {
        *error = QStringLiteral("%1: %2.").arg(shownName, errnoText(errno));
        return false;
    }
    if (fstat(opened.fd, &opened.st) != 0) {
        *error = QStringLiteral("%1: %2.").arg(shownName, errnoText(errno));
        return false;
    }
    if (S_ISLNK(opened.st.st_mode)) {
        *error = QStringLiteral("%1 is a symbolic link: name the swap area itself.").arg(shownName);
        return false;
    }
    const std::optional<AreaIdentity> identity = HelperLogic::areaIdentity(opened.st);
    if (!identity) {
        *error = QStringLiteral("%1 is neither a regular file nor a block device, so it cannot be a swap area.").arg(shownName);
        return false;
    }
    opened.identity = *identity;
    return true;
}

// Rule 10: swapoff can run for minutes. The syscall runs on a thread while
// this one reports SwapUsed falling, which also keeps the D-Bus call alive
// for the client (its timeout is set long, in the client library).
int runSwapOffWithProgress(HelperContext &context, const std::string &path, const QString &shownName)
{
    std::atomic<bool> done{false};
    int result = 0;
    std::thread worker([&]() {
        result = context.system->swapOff(path);
        done = true;
    });
    auto lastReport = std::chrono::steady_clock::now();
    while (!done) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const auto now = std::chrono::steady_clock::now();
        if (context.progress && now - lastReport >= std::chrono::milliseconds(context.progressIntervalMs)) {
            lastReport = now;
            context.progress({{QStringLiteral("area"), shownName}, {QStringLiteral("swapUsedBytes"), qulonglong(swapUsedNow(context.procRoot))}});
        }
    }
    worker.join();
    return result;
}

KAuth::ActionReply swapOffFailure(int error, const QString &shownName)
{
    if (error == ENOMEM) {
        // swapoff(8) says this with exit code 2; the helper says it in words.
        return refuse(
            NotEnoughMemory,
            QStringLiteral("Linux ran out of memory while bringing pages back from swap on %1, so that area stays on. Close some programs and try again.")
                .arg(shownName));
    }
    return refuse(SystemFailure, QStringLiteral("Turning off swap on %1 failed: %2.").arg(shownName, errnoText(error)));
}

// --- The state file -----------------------------------------------------------

// Rule 4: a root-owned folder and file. Anything else there is not ours and is
// not trusted.
bool ensureStateDir(const HelperContext &context, QString *error)
{
    if (mkdir(context.stateDir.c_str(), 0755) != 0 && errno != EEXIST) {
        *error = QStringLiteral("Cannot create %1: %2.").arg(QString::fromStdString(context.stateDir), errnoText(errno));
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
    const int fd = open(context.stateFile.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            return std::vector<SwapRecord>();
        }
        *error = QStringLiteral("Cannot read %1: %2.").arg(QString::fromStdString(context.stateFile), errnoText(errno));
        return std::nullopt;
    }
    struct stat st;
    std::string text;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) != 0 || st.st_size > (1 << 20)) {
        close(fd);
        *error = QStringLiteral("%1 is not a root-owned state file; the helper does not trust it.").arg(QString::fromStdString(context.stateFile));
        return std::nullopt;
    }
    text.resize(size_t(st.st_size));
    const ssize_t got = text.empty() ? 0 : pread(fd, text.data(), text.size(), 0);
    close(fd);
    if (got != ssize_t(text.size())) {
        *error = QStringLiteral("Cannot read %1.").arg(QString::fromStdString(context.stateFile));
        return std::nullopt;
    }
    QString parseError;
    std::optional<std::vector<SwapRecord>> records = HelperLogic::parseSwapState(text, &parseError);
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
            *error = QStringLiteral("Cannot remove %1: %2.").arg(QString::fromStdString(context.stateFile), errnoText(errno));
            return false;
        }
        return true;
    }
    // Written aside and renamed: a crash leaves the old or the new file, never half.
    const std::string temporary = context.stateFile + ".new";
    unlink(temporary.c_str());
    const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        *error = QStringLiteral("Cannot write %1: %2.").arg(QString::fromStdString(temporary), errnoText(errno));
        return false;
    }
    const std::string text = HelperLogic::formatSwapState(records);
    const bool written = write(fd, text.data(), text.size()) == ssize_t(text.size()) && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
    const int writeErrno = errno;
    close(fd);
    if (!written || rename(temporary.c_str(), context.stateFile.c_str()) != 0) {
        *error = QStringLiteral("Cannot write %1: %2.").arg(QString::fromStdString(context.stateFile), errnoText(written ? errno : writeErrno));
        unlink(temporary.c_str());
        return false;
    }
    return true;
}

// --- The experiment swap file ----------------------------------------------------

std::string experimentPath(const HelperContext &context)
{
    return context.experimentDir + '/' + experimentSwapName;
}

// Rule 5: the folder is the helper's: owned by root, not writable by others,
// not a symlink. Returns an fd of it or -1 with *error.
int openExperimentDir(const HelperContext &context, bool create, QString *error, bool *missing)
{
    *missing = false;
    if (create && mkdir(context.experimentDir.c_str(), 0700) != 0 && errno != EEXIST) {
        *error = QStringLiteral("Cannot create %1: %2.").arg(QString::fromStdString(context.experimentDir), errnoText(errno));
        return -1;
    }
    const int dirFd = open(context.experimentDir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dirFd < 0) {
        *missing = errno == ENOENT;
        *error = QStringLiteral("Cannot open %1: %2.").arg(QString::fromStdString(context.experimentDir), errnoText(errno));
        return -1;
    }
    struct stat st;
    if (fstat(dirFd, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022) != 0) {
        close(dirFd);
        *error = QStringLiteral("%1 is not owned by root or is writable by others; the helper does not put swap there.")
                     .arg(QString::fromStdString(context.experimentDir));
        return -1;
    }
    return dirFd;
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

} // namespace

QString auditLine(const QString &action, int callerUid, const QString &target, const KAuth::ActionReply &reply)
{
    QString result = QStringLiteral("ok");
    if (reply.failed()) {
        result = reply.error() == SystemFailure ? QStringLiteral("failed") : QStringLiteral("refused");
    }
    return QStringLiteral("cachescope-helper: action=%1 uid=%2 target=%3 result=%4 code=%5")
        .arg(action)
        .arg(callerUid)
        .arg(target.isEmpty() ? QStringLiteral("-") : target, result)
        .arg(reply.failed() ? reply.error() : 0);
}

void writeAuditLine(const QString &line)
{
    // Rule 11: syslog is the audit log; KAuth forwards qDebug to the client, so it is not one.
    const QByteArray bytes = line.toUtf8();
    syslog(LOG_AUTHPRIV | LOG_NOTICE, "%s", bytes.constData());
    fprintf(stderr, "%s\n", bytes.constData());
}

KAuth::ActionReply dropCachesAction(const QVariantMap &args, int callerUid, HelperContext &context)
{
    static const char *action = "dropcaches";
    if (auto refused = refuseUnknownCaller(callerUid)) {
        return finish(context, action, callerUid, {}, *refused);
    }
    // Rule 9: keys, type and range before anything else.
    if (auto problem = HelperLogic::checkKeys(args, {keyLevel}, {keyLevel})) {
        return finish(context, action, callerUid, {}, refuse(InvalidArgument, *problem));
    }
    // Rule 2: an integer checked against {1, 2, 3}.
    const HelperLogic::IntegerArgument level = HelperLogic::integerArgument(args, keyLevel, 1, 3);
    if (!level.value) {
        return finish(context,
                      action,
                      callerUid,
                      {},
                      refuse(InvalidArgument, level.error + QStringLiteral(" Use 1 (page cache), 2 (dentries and inodes) or 3 (both).")));
    }
    const QString target = QStringLiteral("level=%1").arg(*level.value);
    const QVariantMap before = memorySnapshot(context.procRoot);
    context.system->syncAll();
    const int error = context.system->dropCaches(int(*level.value));
    if (error != 0) {
        return finish(context,
                      action,
                      callerUid,
                      target,
                      refuse(SystemFailure, QStringLiteral("Writing to /proc/sys/vm/drop_caches failed: %1.").arg(errnoText(error))));
    }
    KAuth::ActionReply reply = KAuth::ActionReply::SuccessReply();
    reply.addData(QStringLiteral("level"), int(*level.value));
    reply.addData(QStringLiteral("before"), before);
    reply.addData(QStringLiteral("after"), memorySnapshot(context.procRoot));
    return finish(context, action, callerUid, target, reply);
}

namespace
{
// What swapoff and swapon check first: a caller we know, only the keys
// 'area' and 'all', and exactly one of them. A refusal (logged), or nothing.
std::optional<KAuth::ActionReply> refuseBadSwapRequest(const QVariantMap &args, int callerUid, HelperContext &context, const char *action)
{
    if (auto refused = refuseUnknownCaller(callerUid)) {
        return finish(context, action, callerUid, {}, *refused);
    }
    if (auto problem = HelperLogic::checkKeys(args, {keyArea, keyAll}, {})) {
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

    // Rule 4: only areas in /proc/swaps, matched by device number or inode.
    std::vector<size_t> targets;
    QString target;
    OpenedArea callerArea;
    if (args.contains(keyAll)) {
        if (auto problem = HelperLogic::checkTrueFlag(args, keyAll)) {
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
        const std::optional<std::string> path = HelperLogic::pathArgument(args, keyArea, &error);
        if (!path) {
            return finish(context, action, callerUid, {}, refuse(InvalidArgument, error));
        }
        const QString shownName = HelperLogic::quoteForMessage(QString::fromStdString(*path));
        if (!openArea(*path, callerArea, &error, shownName)) {
            return finish(context, action, callerUid, {}, refuse(NotPermitted, error));
        }
        target = deviceText(callerArea.identity);
        const std::optional<size_t> index = HelperLogic::findArea(callerArea.identity, identitiesOf(*active));
        if (!index) {
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(NotPermitted, QStringLiteral("%1 is not an active swap area: /proc/swaps does not list it.").arg(shownName)));
        }
        targets.push_back(*index);
    }

    // Rule 10: refuse up front when the pages would not fit in memory.
    uint64_t swapUsed = 0;
    for (size_t index : targets) {
        swapUsed += (*active)[index].area.usedBytes;
    }
    std::string memError;
    const std::optional<MemInfo> memInfo = readMemInfo(context.procRoot, &memError);
    if (!memInfo) {
        return finish(context, action, callerUid, target, refuse(SystemFailure, QString::fromStdString(memError)));
    }
    const HelperLogic::SwapOffFit fit = HelperLogic::swapOffFit(swapUsed, *memInfo);
    if (!fit.fits) {
        return finish(context, action, callerUid, target, refuse(NotEnoughMemory, HelperLogic::describeSwapOffMisfit(fit)));
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
            // Rule 4: record what the helper turned off, with its priority, so
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
            if (context.log) {
                context.log(auditLine(QLatin1String(action), callerUid, deviceText(*area.identity), step));
            }
            return finish(context, action, callerUid, target, step);
        }
        if (context.log && args.contains(keyAll)) {
            context.log(auditLine(QLatin1String(action), callerUid, deviceText(*area.identity), step));
        }
    }
    KAuth::ActionReply reply = KAuth::ActionReply::SuccessReply();
    reply.addData(QStringLiteral("turnedOff"), turnedOff);
    reply.addData(QStringLiteral("priorities"), priorities);
    reply.addData(QStringLiteral("swapUsedBefore"), qulonglong(usedBefore));
    reply.addData(QStringLiteral("swapUsedAfter"), qulonglong(swapUsedNow(context.procRoot)));
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
        if (auto problem = HelperLogic::checkTrueFlag(args, keyAll)) {
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
        const std::optional<std::string> path = HelperLogic::pathArgument(args, keyArea, &error);
        if (!path) {
            return finish(context, action, callerUid, {}, refuse(InvalidArgument, error));
        }
        candidates.push_back({*path, -1, false});
    }

    QStringList turnedOn;
    QVariantList priorities;
    for (Candidate &candidate : candidates) {
        const QString shownName =
            candidate.fromState ? QString::fromStdString(candidate.path) : HelperLogic::quoteForMessage(QString::fromStdString(candidate.path));
        OpenedArea opened;
        if (!openArea(candidate.path, opened, &error, shownName)) {
            return finish(context, action, callerUid, target, refuse(NotPermitted, error));
        }
        const QString areaTarget = deviceText(opened.identity);
        if (target.isEmpty()) {
            target = areaTarget;
        }
        // Rule 4: never a caller-chosen file. Only what the helper recorded
        // turning off, or what the administrator declared in /etc/fstab.
        std::vector<std::optional<AreaIdentity>> recorded;
        for (const SwapRecord &record : *records) {
            recorded.push_back(record.identity);
        }
        const std::optional<size_t> recordIndex = HelperLogic::findArea(opened.identity, recorded);
        bool known = false;
        if (recordIndex) {
            known = true;
            candidate.priority = (*records)[*recordIndex].priority;
        } else if (!candidate.fromState) {
            std::string fstabText;
            const int fstabFd = open(context.fstabPath.c_str(), O_RDONLY | O_CLOEXEC);
            if (fstabFd >= 0) {
                char buffer[65536];
                ssize_t got;
                while ((got = read(fstabFd, buffer, sizeof buffer)) > 0 && fstabText.size() < (1 << 20)) {
                    fstabText.append(buffer, size_t(got));
                }
                close(fstabFd);
            }
            for (const HelperLogic::FstabSwap &entry : HelperLogic::parseFstabSwaps(fstabText)) {
                const std::optional<std::string> sourcePath = HelperLogic::fstabSourcePath(entry.source);
                struct stat st;
                // The administrator's names (UUID= links made by udev) may be followed.
                if (!sourcePath || stat(sourcePath->c_str(), &st) != 0) {
                    continue;
                }
                const std::optional<AreaIdentity> identity = HelperLogic::areaIdentity(st);
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
        if (HelperLogic::findArea(opened.identity, identitiesOf(*active))) {
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
        const int swapError = context.system->swapOn(opened.procPath(), HelperLogic::swapOnFlags(candidate.priority));
        if (swapError != 0) {
            const QString why = swapError == EINVAL ? QStringLiteral("it has no valid swap signature or Linux cannot swap there") : errnoText(swapError);
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
        if (context.log && args.contains(keyAll)) {
            context.log(auditLine(QLatin1String(action), callerUid, areaTarget, KAuth::ActionReply::SuccessReply()));
        }
    }
    if (!saveState(context, *records, &error)) {
        return finish(context, action, callerUid, target, refuse(SystemFailure, QStringLiteral("Swap is on again, but %1").arg(error)));
    }
    KAuth::ActionReply reply = KAuth::ActionReply::SuccessReply();
    reply.addData(QStringLiteral("turnedOn"), turnedOn);
    reply.addData(QStringLiteral("priorities"), priorities);
    return finish(context, action, callerUid, target, reply);
}

KAuth::ActionReply swapFileCreateAction(const QVariantMap &args, int callerUid, HelperContext &context)
{
    static const char *action = "swapfilecreate";
    if (auto refused = refuseUnknownCaller(callerUid)) {
        return finish(context, action, callerUid, {}, *refused);
    }
    if (auto problem = HelperLogic::checkKeys(args, {keySizeBytes}, {keySizeBytes})) {
        return finish(context, action, callerUid, {}, refuse(InvalidArgument, *problem));
    }
    // Rule 5: bounded size.
    const HelperLogic::IntegerArgument size = HelperLogic::integerArgument(args, keySizeBytes, minExperimentSwapBytes, context.maxExperimentBytes);
    if (!size.value) {
        return finish(context, action, callerUid, {}, refuse(InvalidArgument, size.error));
    }
    const uint64_t page = pageSize();
    const uint64_t bytes = uint64_t(*size.value) / page * page;
    const QString target = QStringLiteral("experiment,bytes=%1").arg(bytes);
    const QString path = QString::fromStdString(experimentPath(context));

    QString error;
    bool missing = false;
    const int dirFd = openExperimentDir(context, true, &error, &missing);
    if (dirFd < 0) {
        return finish(context, action, callerUid, target, refuse(SystemFailure, error));
    }
    // Rule 5: refuse filesystems that cannot hold swap, with a clear message.
    struct statfs fs;
    if (fstatfs(dirFd, &fs) != 0) {
        close(dirFd);
        return finish(context, action, callerUid, target, refuse(SystemFailure, QStringLiteral("Cannot inspect %1: %2.").arg(path, errnoText(errno))));
    }
    if (auto problem = HelperLogic::swapFilesystemProblem((long long)fs.f_type)) {
        close(dirFd);
        return finish(context, action, callerUid, target, refuse(Unsupported, *problem));
    }
    if (auto problem = HelperLogic::experimentSizeProblem((long long)bytes, context.maxExperimentBytes, uint64_t(fs.f_bavail) * uint64_t(fs.f_bsize))) {
        close(dirFd);
        return finish(context, action, callerUid, target, refuse(InvalidArgument, *problem));
    }
    // Rule 5: the fixed path, created here with mode 0600 and owner root.
    const int fd = openat(dirFd, experimentSwapName, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        const int openErrno = errno;
        close(dirFd);
        if (openErrno == EEXIST) {
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(AlreadyDone, QStringLiteral("An experiment swap file already exists at %1; remove it first.").arg(path)));
        }
        return finish(context, action, callerUid, target, refuse(SystemFailure, QStringLiteral("Cannot create %1: %2.").arg(path, errnoText(openErrno))));
    }
    bool ok = fchown(fd, 0, 0) == 0 && fchmod(fd, 0600) == 0;
    // Written, not fallocated: every filesystem Linux swaps on accepts a written file.
    std::vector<char> block(1 << 20, 0);
    HelperLogic::writeSwapHeader(block.data(), page, bytes / page);
    for (uint64_t done = 0; ok && done < bytes;) {
        const size_t chunk = size_t(std::min<uint64_t>(block.size(), bytes - done));
        const ssize_t written = pwrite(fd, block.data(), chunk, off_t(done));
        if (written <= 0) {
            ok = false;
            break;
        }
        if (done == 0) {
            memset(block.data(), 0, page); // the header goes in the first page only
        }
        done += uint64_t(written);
    }
    ok = ok && fsync(fd) == 0;
    int writeErrno = errno;
    if (ok) {
        const std::string procPath = "/proc/self/fd/" + std::to_string(fd);
        writeErrno = context.system->swapOn(procPath, 0);
        ok = writeErrno == 0;
        if (!ok) {
            close(fd);
            unlinkat(dirFd, experimentSwapName, 0);
            close(dirFd);
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(Unsupported, QStringLiteral("Linux refused swap on %1 (%2); the file was removed again.").arg(path, errnoText(writeErrno))));
        }
    }
    close(fd);
    if (!ok) {
        unlinkat(dirFd, experimentSwapName, 0);
        close(dirFd);
        return finish(context,
                      action,
                      callerUid,
                      target,
                      refuse(SystemFailure, QStringLiteral("Writing the swap file %1 failed: %2; it was removed again.").arg(path, errnoText(writeErrno))));
    }
    close(dirFd);
    KAuth::ActionReply reply = KAuth::ActionReply::SuccessReply();
    reply.addData(QStringLiteral("path"), path);
    reply.addData(QStringLiteral("sizeBytes"), qulonglong(bytes));
    return finish(context, action, callerUid, target, reply);
}

KAuth::ActionReply swapFileRemoveAction(const QVariantMap &args, int callerUid, HelperContext &context)
{
    static const char *action = "swapfileremove";
    if (auto refused = refuseUnknownCaller(callerUid)) {
        return finish(context, action, callerUid, {}, *refused);
    }
    if (auto problem = HelperLogic::checkKeys(args, {}, {})) {
        return finish(context, action, callerUid, {}, refuse(InvalidArgument, *problem));
    }
    const QString target = QStringLiteral("experiment");
    const QString path = QString::fromStdString(experimentPath(context));
    QString error;
    bool missing = false;
    const int dirFd = openExperimentDir(context, false, &error, &missing);
    if (dirFd < 0) {
        return finish(context,
                      action,
                      callerUid,
                      target,
                      missing ? refuse(AlreadyDone, QStringLiteral("There is no experiment swap file.")) : refuse(SystemFailure, error));
    }
    OpenedArea opened;
    opened.fd = openat(dirFd, experimentSwapName, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (opened.fd < 0) {
        const int openErrno = errno;
        close(dirFd);
        if (openErrno == ENOENT) {
            return finish(context, action, callerUid, target, refuse(AlreadyDone, QStringLiteral("There is no experiment swap file.")));
        }
        return finish(context, action, callerUid, target, refuse(SystemFailure, QStringLiteral("Cannot open %1: %2.").arg(path, errnoText(openErrno))));
    }
    if (fstat(opened.fd, &opened.st) != 0 || !S_ISREG(opened.st.st_mode) || opened.st.st_uid != 0) {
        close(dirFd);
        return finish(context,
                      action,
                      callerUid,
                      target,
                      refuse(NotPermitted, QStringLiteral("%1 is not a root-owned regular file; the helper leaves it alone.").arg(path)));
    }
    opened.identity = *HelperLogic::areaIdentity(opened.st);
    const std::optional<std::vector<ActiveArea>> active = activeAreas(context, &error);
    if (!active) {
        close(dirFd);
        return finish(context, action, callerUid, target, refuse(SystemFailure, error));
    }
    const std::optional<size_t> index = HelperLogic::findArea(opened.identity, identitiesOf(*active));
    bool wasActive = false;
    if (index) {
        // Rule 10 applies here too: the file's pages must fit in memory.
        std::string memError;
        const std::optional<MemInfo> memInfo = readMemInfo(context.procRoot, &memError);
        const HelperLogic::SwapOffFit fit = HelperLogic::swapOffFit((*active)[*index].area.usedBytes, memInfo.value_or(MemInfo()));
        if (!memInfo || !fit.fits) {
            close(dirFd);
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(NotEnoughMemory, memInfo ? HelperLogic::describeSwapOffMisfit(fit) : QString::fromStdString(memError)));
        }
        const int swapError = runSwapOffWithProgress(context, opened.procPath(), path);
        if (swapError != 0) {
            close(dirFd);
            return finish(context, action, callerUid, target, swapOffFailure(swapError, path));
        }
        wasActive = true;
    }
    if (unlinkat(dirFd, experimentSwapName, 0) != 0) {
        const int unlinkErrno = errno;
        close(dirFd);
        return finish(context, action, callerUid, target, refuse(SystemFailure, QStringLiteral("Cannot remove %1: %2.").arg(path, errnoText(unlinkErrno))));
    }
    close(dirFd);
    KAuth::ActionReply reply = KAuth::ActionReply::SuccessReply();
    reply.addData(QStringLiteral("path"), path);
    reply.addData(QStringLiteral("wasActive"), wasActive);
    return finish(context, action, callerUid, target, reply);
}

KAuth::ActionReply residencyAction(const QVariantMap &args, int callerUid, HelperContext &context)
{
    static const char *action = "residency";
    if (auto refused = refuseUnknownCaller(callerUid)) {
        return finish(context, action, callerUid, {}, *refused);
    }
    if (args.size() > maxArguments) {
        return finish(context, action, callerUid, {}, refuse(InvalidArgument, *HelperLogic::checkKeys(args, {}, {})));
    }
    const HelperLogic::IntegerArgument count = HelperLogic::integerArgument(args, keyCount, 1, maxDescriptors);
    if (!count.value) {
        return finish(context, action, callerUid, {}, refuse(InvalidArgument, count.error));
    }
    const QString target = QStringLiteral("fds=%1").arg(*count.value);
    std::vector<QString> keys{keyCount, keyBuckets};
    std::vector<QString> required{keyCount};
    for (int i = 0; i < *count.value; ++i) {
        keys.push_back(QStringLiteral("fd%1").arg(i));
        required.push_back(keys.back());
    }
    if (auto problem = HelperLogic::checkKeys(args, keys, required)) {
        return finish(context, action, callerUid, target, refuse(InvalidArgument, *problem));
    }
    int buckets = 64;
    if (args.contains(keyBuckets)) {
        const HelperLogic::IntegerArgument bucketArg = HelperLogic::integerArgument(args, keyBuckets, 1, maxBuckets);
        if (!bucketArg.value) {
            return finish(context, action, callerUid, target, refuse(InvalidArgument, bucketArg.error));
        }
        buckets = int(*bucketArg.value);
    }

    // Rule 9: every descriptor is checked before any is used. Never a path:
    // the caller opened the file, so the helper sees only what it could open.
    std::vector<std::pair<int, struct stat>> files;
    for (int i = 0; i < *count.value; ++i) {
        const QString key = QStringLiteral("fd%1").arg(i);
        const QVariant value = args.value(key);
        if (value.metaType() != QMetaType::fromType<QDBusUnixFileDescriptor>()) {
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(InvalidArgument,
                                 QStringLiteral("Argument '%1' must be a file descriptor, not %2.")
                                     .arg(key, value.isValid() ? QString::fromLatin1(value.metaType().name()) : QStringLiteral("nothing"))));
        }
        const QDBusUnixFileDescriptor descriptor = value.value<QDBusUnixFileDescriptor>();
        const int fd = descriptor.isValid() ? descriptor.fileDescriptor() : -1;
        if (fd < 0) {
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(InvalidArgument, QStringLiteral("Argument '%1' is not an open file descriptor.").arg(key)));
        }
        const int flags = fcntl(fd, F_GETFL);
        if (flags < 0) {
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(InvalidArgument, QStringLiteral("Descriptor '%1' is not usable: %2.").arg(key, errnoText(errno))));
        }
        if (flags & O_PATH) {
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(InvalidArgument, QStringLiteral("Descriptor '%1' was opened with O_PATH; pass a descriptor opened for reading.").arg(key)));
        }
        if ((flags & O_ACCMODE) != O_RDONLY) {
            return finish(context, action, callerUid, target, refuse(InvalidArgument, QStringLiteral("Descriptor '%1' must be opened read-only.").arg(key)));
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
            return finish(context, action, callerUid, target, refuse(InvalidArgument, QStringLiteral("Descriptor '%1': %2.").arg(key, errnoText(errno))));
        }
        if (!S_ISREG(st.st_mode)) {
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(InvalidArgument, QStringLiteral("Descriptor '%1' is %2, not a regular file.").arg(key, typeOfMode(st.st_mode))));
        }
        files.emplace_back(fd, st);
    }

    KAuth::ActionReply reply = KAuth::ActionReply::SuccessReply();
    for (size_t i = 0; i < files.size(); ++i) {
        const auto &[fd, st] = files[i];
        const QString prefix = QStringLiteral("fd%1.").arg(i);
        // The same core code the app uses, histogram included.
        const Residency residency = residencyOfDescriptor(fd, st);
        const Histogram histogram = histogramOfDescriptor(fd, st, buckets);
        if (!residency.ok() || !histogram.ok()) {
            const std::string &why = residency.ok() ? histogram.errorText : residency.errorText;
            return finish(context,
                          action,
                          callerUid,
                          target,
                          refuse(SystemFailure, QStringLiteral("Residency of descriptor 'fd%1' failed: %2.").arg(i).arg(QString::fromStdString(why))));
        }
        QVariantList resident;
        for (uint64_t pages : histogram.resident) {
            resident << qulonglong(pages);
        }
        reply.addData(prefix + QStringLiteral("device"), qulonglong(st.st_dev));
        reply.addData(prefix + QStringLiteral("inode"), qulonglong(st.st_ino));
        reply.addData(prefix + QStringLiteral("sizeBytes"), qulonglong(residency.sizeBytes));
        reply.addData(prefix + QStringLiteral("pages"), qulonglong(residency.pages));
        reply.addData(prefix + QStringLiteral("resident"), qulonglong(residency.resident));
        reply.addData(prefix + QStringLiteral("method"), QLatin1String(methodName(residency.method)));
        reply.addData(prefix + QStringLiteral("detail"), residency.detail);
        reply.addData(prefix + QStringLiteral("dirty"), qulonglong(residency.dirty));
        reply.addData(prefix + QStringLiteral("writeback"), qulonglong(residency.writeback));
        reply.addData(prefix + QStringLiteral("histogram"), resident);
    }
    reply.addData(QStringLiteral("count"), int(files.size()));
    reply.addData(QStringLiteral("buckets"), buckets);
    return finish(context, action, callerUid, target, reply);
}

} // namespace Cachescope
