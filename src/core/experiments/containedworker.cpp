// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "containedworker.h"

#include "cgroups/memorycgroup.h"
#include "procfs.h"

#include <QJsonObject>
#include <QString>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>

namespace Cachescope::Experiments
{

namespace
{
// The byte that releases a held worker.
constexpr char releaseByte = 'G';

bool makePipe(UniqueFd &readEnd, UniqueFd &writeEnd, std::string &error)
{
    int ends[2];
    if (::pipe2(ends, O_CLOEXEC) != 0) {
        error = "pipe: " + errnoText(errno);
        return false;
    }
    readEnd.reset(ends[0]);
    writeEnd.reset(ends[1]);
    return true;
}
} // namespace

ContainedWorker::~ContainedWorker()
{
    (void)stop(0);
}

bool ContainedWorker::fork(const WorkerMain &workerMain, bool held, std::string &error)
{
    UniqueFd commandRead;
    UniqueFd reportWrite;
    if (!makePipe(commandRead, m_commands, error) || !makePipe(m_reports, reportWrite, error)) {
        return false;
    }
    const int commandPipe[2] = {commandRead.get(), m_commands.get()};
    const int reportPipe[2] = {m_reports.get(), reportWrite.get()};
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        error = "fork: " + errnoText(errno);
        return false;
    }
    if (pid == 0) {
        // System calls only from here on (see the header).
        ::close(commandPipe[1]);
        ::close(reportPipe[0]);
        // Die with the parent, whatever happens to it; it may have gone
        // before the line above. (Not getppid() == 1: the parent may be
        // process 1 itself, in a container.)
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) {
            ::_exit(1);
        }
        if (held) {
            char byte = 0;
            ssize_t got;
            while ((got = ::read(commandPipe[0], &byte, 1)) < 0 && errno == EINTR) { }
            if (got != 1 || byte != releaseByte) {
                ::_exit(1); // the parent gave up on it
            }
        }
        workerMain(commandPipe[0], reportPipe[1]);
        ::_exit(127);
    }
    m_child.set(pid);
    // The parent's copies of the child's ends close here, so that the
    // report pipe sees the worker's end as end of file.
    return true;
}

bool ContainedWorker::startUncontained(const WorkerMain &workerMain, std::string &error)
{
    return fork(workerMain, false, error);
}

bool ContainedWorker::startContained(const PrivilegedSteps &privileged, uint64_t limitBytes, const WorkerMain &workerMain, std::string &error)
{
    if (!privileged.contain) {
        error = containUnavailableReason();
        return false;
    }
    if (!fork(workerMain, true, error)) {
        return false;
    }
    ContainedGroup group;
    std::string why;
    if (!privileged.contain(int(m_child.pid()), limitBytes, group, why)) {
        m_child.killNow();
        error = "could not make a memory cgroup of " + formatBytes(limitBytes).toStdString() + ": " + why;
        return false;
    }
    m_group = group;
    if (!send(&releaseByte, 1)) {
        error = "the worker ended before it was released";
        (void)stop();
        return false;
    }
    return true;
}

bool ContainedWorker::send(const void *command, size_t size)
{
    if (!m_commands.isValid()) {
        return false;
    }
    // Writing to a worker that is gone must fail, not kill us.
    sigset_t pipeSignal;
    sigemptyset(&pipeSignal);
    sigaddset(&pipeSignal, SIGPIPE);
    sigset_t old;
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &old);
    ssize_t done;
    while ((done = ::write(m_commands.get(), command, size)) < 0 && errno == EINTR) { }
    if (done < 0 && errno == EPIPE) {
        // Take the pending SIGPIPE before unblocking.
        const struct timespec zero = {0, 0};
        (void)sigtimedwait(&pipeSignal, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return done == ssize_t(size);
}

ContainedWorker::Receive ContainedWorker::receive(void *report, size_t size, const std::atomic<bool> &cancel)
{
    auto *bytes = static_cast<char *>(report);
    size_t got = 0;
    while (got < size) {
        if (cancel.load()) {
            return Receive::Cancelled;
        }
        struct pollfd fd = {m_reports.get(), POLLIN, 0};
        const int ready = ::poll(&fd, 1, 20);
        if (ready < 0 && errno != EINTR) {
            return Receive::Ended;
        }
        if (ready <= 0) {
            continue;
        }
        const ssize_t length = ::read(m_reports.get(), bytes + got, size - got);
        if (length < 0 && errno == EINTR) {
            continue;
        }
        if (length <= 0) {
            return Receive::Ended;
        }
        got += size_t(length);
    }
    return Receive::Received;
}

bool ContainedWorker::exchange(const void *command,
                               size_t commandSize,
                               void *report,
                               size_t reportSize,
                               const std::atomic<bool> &cancel,
                               const std::string &what,
                               const std::string &hint,
                               std::string &error)
{
    if (!send(command, commandSize)) {
        error = what + ": the worker is gone";
        return false;
    }
    switch (receive(report, reportSize, cancel)) {
    case Receive::Cancelled:
        return false;
    case Receive::Ended:
        error = what + ": the worker ended (killed inside its cgroup, most likely by the OOM killer" + hint + ")";
        return false;
    case Receive::Received:
        break;
    }
    return true;
}

bool ContainedWorker::stop(double waitSeconds)
{
    m_child.killNow();
    m_commands.reset();
    m_reports.reset();
    if (!m_group) {
        return true;
    }
    const std::string path = m_group->path;
    m_group.reset();
    return waitUntilGone(path, waitSeconds);
}

std::string containUnavailableReason()
{
    return "a memory cgroup of its own needs systemd's user manager or the privileged helper (administrator rights), and this program can reach "
           "neither";
}

namespace
{
// memory.stat is "key value" lines, as /proc/vmstat.
std::optional<VmStat> cgroupMemoryStat(const ContainedGroup &group)
{
    const std::optional<std::string> text = readProcFile(group.path + "/memory.stat");
    if (!text) {
        return std::nullopt;
    }
    return parseVmStat(*text);
}
} // namespace

std::optional<uint64_t> cgroupPageCache(const ContainedGroup &group)
{
    const std::optional<RunCgroupMemory> memory = readRunCgroupMemory(group.path, group.version);
    return memory ? std::optional<uint64_t>(memory->pageCache) : std::nullopt;
}

std::optional<uint64_t> cgroupUsage(const ContainedGroup &group)
{
    const std::optional<RunCgroupMemory> memory = readRunCgroupMemory(group.path, group.version);
    return memory ? std::optional<uint64_t>(memory->usage) : std::nullopt;
}

std::optional<uint64_t> cgroupFileRefaults(const ContainedGroup &group)
{
    if (group.version != 2) {
        return std::nullopt;
    }
    const std::optional<VmStat> stat = cgroupMemoryStat(group);
    return stat ? stat->find("workingset_refault_file") : std::nullopt;
}

QJsonObject containedGroupToJson(const ContainedGroup &group)
{
    return QJsonObject{
        {QStringLiteral("path"), QString::fromStdString(group.path)},
        {QStringLiteral("version"), group.version},
        {QStringLiteral("limit"), double(group.limitBytes)},
        {QStringLiteral("how"), QString::fromStdString(group.how)},
    };
}

bool waitUntilGone(const std::string &path, double waitSeconds)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(waitSeconds);
    struct stat st;
    while (::stat(path.c_str(), &st) == 0) {
        if (std::chrono::steady_clock::now() >= deadline) {
            return false;
        }
        ::usleep(20000);
    }
    return true;
}

void fillIncompressible(char *buffer, size_t size)
{
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < size; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        buffer[i] = char(state);
    }
}

bool readWorkerCommand(int commandFd, void *command, size_t size)
{
    ssize_t got;
    while ((got = ::read(commandFd, command, size)) < 0 && errno == EINTR) { }
    return got == ssize_t(size);
}

} // namespace Cachescope::Experiments
