// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Where each rule of docs/helper-security.md is met is said in a comment
// naming it.

#include "actionsupport.h"
#include "cachescope_helper_debug.h"
#include "helperprotocol.h"

#include "format.h"
#include "pidnamespace.h"

#include <QRandomGenerator>

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <ctime>
#include <iterator>
#include <string_view>
#include <thread>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

namespace
{
std::mutex swapStateMutex;
}

SwapStateLock::SwapStateLock(const HelperContext &context)
    : m_inProcess(swapStateMutex)
{
    // Made here as the state's own save makes it (and checks it there).
    (void)mkdir(context.stateDir.c_str(), 0755);
    m_folder = open(context.stateDir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    while (m_folder >= 0 && flock(m_folder, LOCK_EX) != 0 && errno == EINTR) { }
}

SwapStateLock::~SwapStateLock()
{
    if (m_folder >= 0) {
        close(m_folder); // the lock goes with it
    }
}

void announceStart(HelperContext &context)
{
    if (context.started) {
        context.started();
    }
}

void unblockTerminationSignals()
{
    sigset_t terminate;
    sigemptyset(&terminate);
    sigaddset(&terminate, SIGTERM);
    sigaddset(&terminate, SIGINT);
    sigprocmask(SIG_UNBLOCK, &terminate, nullptr);
}

std::unique_ptr<TraceInstance> newTraceInstance(HelperContext &context, TracefsMountGuard &mount, const char *action, ActionReply *refusal)
{
    if (auto problem = ensureTracefs(context.tracefsPath, &mount.mounted)) {
        *refusal = refuse(Unsupported, QString::fromStdString(*problem));
        return nullptr;
    }
    for (const std::string &stale : removeStaleInstances(context.tracefsPath, initialProcRoot(context))) {
        qCInfo(CACHESCOPE_HELPER) << action << "removed the stale instance" << QString::fromStdString(stale);
    }
    const HostPid helperPid = hostPidOf(int(getpid()), context.procRoot, context.hostProcRoot);
    std::string error;
    std::unique_ptr<TraceInstance> instance = TraceInstance::create(context.tracefsPath, helperPid.pid.value_or(int(getpid())), &error);
    if (!instance) {
        *refusal = refuse(SystemFailure, QString::fromStdString(error));
    }
    return instance;
}

ActionReply refuse(int code, const QString &message)
{
    ActionReply reply = ActionReply::HelperErrorReply(code);
    reply.setErrorDescription(message);
    return reply;
}

ActionReply finish(HelperContext &context, const char *action, const Caller &caller, const QString &target, const ActionReply &reply)
{
    // The developer's view of the decision; the sentence holds caller strings
    // only as quoteForMessage() filtered them.
    if (reply.failed()) {
        qCInfo(CACHESCOPE_HELPER) << action << "uid" << caller.text() << "target" << target << "refused with code" << reply.error() << ":"
                                  << reply.errorDescription();
    } else {
        qCDebug(CACHESCOPE_HELPER) << action << "uid" << caller.text() << "target" << target << "done";
    }
    logArea(context, action, caller, target, reply);
    return reply;
}

void logArea(HelperContext &context, const char *action, const Caller &caller, const QString &target, const ActionReply &reply)
{
    if (context.log) {
        context.log(auditLine(QLatin1String(action), caller, target, reply));
    }
}

ActionReply unknownCallerRefusal()
{
    return refuse(CallerUnknown, QStringLiteral("The helper could not learn who is calling from D-Bus, so it refuses."));
}

std::optional<ActionReply> refuseUnknownCaller(const Caller &caller)
{
    if (!caller.uid) {
        return unknownCallerRefusal();
    }
    return std::nullopt;
}

QString deviceText(const AreaIdentity &identity)
{
    const QString device = QStringLiteral("%1:%2").arg(major(identity.device)).arg(minor(identity.device));
    if (identity.blockDevice) {
        return QStringLiteral("blockdev=") + device;
    }
    return QStringLiteral("dev=%1,ino=%2").arg(device).arg(identity.inode);
}

uint64_t swapUsedNow(const std::string &procRoot)
{
    const std::optional<MemInfo> memInfo = readMemInfo(procRoot);
    return memInfo ? freeFigures(*memInfo).swapUsed : 0;
}

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
        if (!std::string_view(area.filename).ends_with(" (deleted)") && lstat(area.filename.c_str(), &st) == 0) {
            active.identity = areaIdentity(st);
        }
        areas.push_back(std::move(active));
    }
    return areas;
}

std::vector<std::optional<AreaIdentity>> identitiesOf(const std::vector<ActiveArea> &areas)
{
    std::vector<std::optional<AreaIdentity>> identities;
    identities.reserve(areas.size());
    for (const ActiveArea &area : areas) {
        identities.push_back(area.identity);
    }
    return identities;
}

std::optional<size_t> areaNamed(const std::vector<ActiveArea> &areas, const std::string &name)
{
    for (size_t i = 0; i < areas.size(); ++i) {
        if (areas[i].area.filename == name) {
            return i;
        }
    }
    return std::nullopt;
}

std::string OpenedArea::procPath() const
{
    return "/proc/self/fd/" + std::to_string(fd.get());
}

int openArea(const std::string &path, OpenedArea &opened)
{
    opened.fd.reset(open(path.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!opened.fd.isValid() || fstat(opened.fd.get(), &opened.st) != 0) {
        const int error = errno;
        opened.fd.reset();
        return error;
    }
    if (S_ISLNK(opened.st.st_mode)) {
        opened.fd.reset();
        return ELOOP;
    }
    const std::optional<AreaIdentity> identity = areaIdentity(opened.st);
    if (!identity) {
        opened.fd.reset();
        return ENODEV;
    }
    opened.identity = *identity;
    return 0;
}

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
            context.progress({{QString(progressArea), shownName}, {QString(progressSwapUsedBytes), qulonglong(swapUsedNow(context.procRoot))}});
        }
    }
    worker.join();
    return result;
}

ActionReply swapOffFailure(int error, const QString &shownName)
{
    if (error == ENOMEM) {
        // swapoff(8) says this with exit code 2; the helper says it in words
        // (docs/helper-security.md rule 10).
        return refuse(
            NotEnoughMemory,
            QStringLiteral("Linux ran out of memory while bringing pages back from swap on %1, so that area stays on. Close some programs and try again.")
                .arg(shownName));
    }
    return refuse(SystemFailure, QStringLiteral("Turning off swap on %1 failed: %2.").arg(shownName, errnoQText(error)));
}

bool AbandonedChildren::hold(size_t count)
{
    const std::lock_guard lock(m_mutex);
    std::erase_if(m_pids, [](int pid) {
        return waitpid(pid, nullptr, WNOHANG) != 0;
    });
    if (m_pids.size() + m_held + count > maxAbandonedChildren) {
        return false;
    }
    m_held += count;
    return true;
}

void AbandonedChildren::giveBack(size_t count)
{
    const std::lock_guard lock(m_mutex);
    m_held -= std::min(count, m_held);
}

void AbandonedChildren::abandon(int pid)
{
    const std::lock_guard lock(m_mutex);
    m_held -= std::min<size_t>(1, m_held);
    m_pids.push_back(pid);
}

std::vector<int> AbandonedChildren::pids()
{
    const std::lock_guard lock(m_mutex);
    std::erase_if(m_pids, [](int pid) {
        return waitpid(pid, nullptr, WNOHANG) != 0;
    });
    return m_pids;
}

HeldPlaces::HeldPlaces(const std::shared_ptr<AbandonedChildren> &children, size_t count)
{
    if (children && children->hold(count)) {
        m_children = children;
        m_count = count;
    }
}

HeldPlaces::~HeldPlaces()
{
    if (m_children) {
        m_children->giveBack(m_count);
    }
}

void HeldPlaces::abandon(int pid)
{
    if (m_children) {
        m_children->abandon(pid);
        m_count -= std::min<size_t>(1, m_count);
    }
}

void endOrAbandon(HeldPlaces &places, pid_t pid, std::chrono::milliseconds grace)
{
    if (pid <= 0 || waitpid(pid, nullptr, WNOHANG) != 0) {
        return;
    }
    kill(pid, SIGKILL);
    const auto until = std::chrono::steady_clock::now() + grace;
    const timespec step{0, 5'000'000};
    while (waitpid(pid, nullptr, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() >= until) {
            places.abandon(pid);
            return;
        }
        nanosleep(&step, nullptr);
    }
}

bool keepOnlyDescriptors(std::initializer_list<int> fds)
{
    // The helper blocks SIGTERM and SIGINT to read them from a descriptor
    // (helpermain.cpp); its children take them as any process does.
    unblockTerminationSignals();
    // Each goes above the places first, so that putting one at 3 cannot
    // close another that was there.
    constexpr int firstPlace = 3;
    constexpr int aboveThePlaces = 16;
    int moved[aboveThePlaces - firstPlace];
    if (fds.size() > std::size(moved)) {
        return false;
    }
    int count = 0;
    for (const int fd : fds) {
        moved[count] = fcntl(fd, F_DUPFD_CLOEXEC, aboveThePlaces);
        if (moved[count] < 0) {
            return false;
        }
        ++count;
    }
    for (int i = 0; i < count; ++i) {
        if (dup2(moved[i], firstPlace + i) != firstPlace + i) {
            return false;
        }
    }
    if (close_range(unsigned(firstPlace + count), ~0U, 0) != 0) {
        // A kernel before 5.9 (or a filter that refuses it): one by one, up
        // to the highest number this process may have.
        struct rlimit limit{};
        if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
            return false;
        }
        for (rlim_t fd = rlim_t(firstPlace) + rlim_t(count); fd < limit.rlim_cur; ++fd) {
            close(int(fd));
        }
    }
    const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) != 0 || dup2(null, 1) != 1 || dup2(null, 2) != 2) {
        return false;
    }
    // It is one of 0-2 itself when that one was closed.
    if (null > 2) {
        close(null);
    }
    return true;
}

namespace
{

// The child of writeInChild: after fork() only system calls (the helper
// has threads; the child must not allocate). The answer (0 or errno) goes
// to 3, the write to 4.
[[noreturn]] void writeAndReport(int fd, const char *data, size_t size, int reportFd)
{
    if (!keepOnlyDescriptors({reportFd, fd})) {
        _exit(1);
    }
    const ssize_t n = write(4, data, size);
    const int answer = n == ssize_t(size) ? 0 : (n < 0 ? errno : EIO);
    const ssize_t reported = write(3, &answer, sizeof answer);
    _exit(reported == ssize_t(sizeof answer) ? 0 : 1);
}

} // namespace

BoundedWrite writeInChild(HelperContext &context, int fd, const std::string &bytes, int deadlineMs)
{
    BoundedWrite result;
    HeldPlaces places(context.abandonedChildren, 1);
    if (!places.held()) {
        result.error = EAGAIN; // too many earlier children have not ended
        return result;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        result.error = errno;
        return result;
    }
    const UniqueFd readEnd(fds[0]);
    UniqueFd writeEnd(fds[1]);
    const pid_t pid = fork();
    if (pid == 0) {
        writeAndReport(fd, bytes.data(), bytes.size(), writeEnd.get());
    }
    if (pid < 0) {
        result.error = errno;
        return result;
    }
    writeEnd.reset();
    using Clock = std::chrono::steady_clock;
    const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(deadlineMs);
    for (;;) {
        std::optional<BoundedWrite::Outcome> stop;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (context.stopped && context.stopped()) {
            stop = BoundedWrite::Outcome::Cancelled;
        } else if (left <= 0) {
            stop = BoundedWrite::Outcome::DeadlinePassed;
        }
        // At least every 100 ms a look at the client's cancel; once stopped,
        // a last look without waiting, since an answer already written is
        // the answer.
        pollfd polled{readEnd.get(), POLLIN, 0};
        const int ready = poll(&polled, 1, stop ? 0 : int(std::min<long long>(left, 100)));
        if (ready == 0 && stop) {
            result.outcome = *stop;
            break;
        }
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready < 0) {
            result.outcome = BoundedWrite::Outcome::Failed;
            result.error = errno;
            break;
        }
        if (ready > 0) {
            int answer = 0;
            const ssize_t n = read(readEnd.get(), &answer, sizeof answer);
            if (n == ssize_t(sizeof answer)) {
                result.outcome = answer == 0 ? BoundedWrite::Outcome::Written : BoundedWrite::Outcome::Failed;
                result.error = answer;
            } else {
                // The child ended without an answer (it could not set itself up).
                result.outcome = BoundedWrite::Outcome::Failed;
                result.error = EIO;
            }
            break;
        }
    }
    // A child that has answered is ending by itself; one still writing is
    // killed, and the kernel's loop sees the signal at its next round.
    endOrAbandon(places, pid, std::chrono::milliseconds(500));
    return result;
}

} // namespace Cachescope::Helper
