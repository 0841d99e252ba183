// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The account action (docs/helper-security.md rule 18): the account of
// Cached made as root, for a user whose own account has hidden parts
// (other users' processes, files only mapped, the folders under mount
// points, block devices). The account walks / and every process's files,
// any of which may be on a FUSE mount whose daemon never answers: it runs
// in a child that holds nothing of the helper's and execs the helper's own
// program afresh (a forked child of the threaded helper may make only
// system calls), and the helper waits for it at most accountDeadlineSeconds
// and for the caller's cancel, then kills it. The answer reaches the caller
// alone (a signal addressed to it).

#include "accountanswer.h"
#include "actionsupport.h"
#include "cachescope_helper_debug.h"
#include "helperactions.h"
#include "helperlogic.h"
#include "helperprotocol.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

int runAccountChild()
{
    // fd 3: the pipe to the helper (keepOnlyDescriptors put it there).
    AccountOptions options;
    // docs/helper-security.md rule 14's task budget: a few walker threads, whatever the cores.
    options.threads = 4;
    CacheAccount account = accountCache(options);
    boundAccount(account);
    const QByteArray bytes = serializeAccount(account);
    qsizetype written = 0;
    while (written < bytes.size()) {
        const ssize_t n = write(3, bytes.constData() + written, size_t(bytes.size() - written));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return 1;
        }
        written += n;
    }
    return 0;
}

ActionReply accountAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    static const char *action = "account";
    if (auto refused = refuseUnknownCaller(caller)) {
        return finish(context, action, caller, {}, *refused);
    }
    if (auto problem = checkKeys(args, {}, {})) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    HeldPlaces places(context.abandonedChildren, 1);
    if (!places.held()) {
        return finish(context, action, caller, {}, refuse(SystemFailure, QStringLiteral("Too many earlier requests have not answered; try again later.")));
    }
    // Everything the child needs, made before fork(): after it, system calls only.
    const std::string program = context.accountChildProgram;
    char argument0[] = "cachescope-helper";
    char argument1[] = "--account-child";
    char *const argv[] = {argument0, argument1, nullptr};
    char *const envp[] = {nullptr};
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        return finish(context,
                      action,
                      caller,
                      {},
                      refuse(SystemFailure, QStringLiteral("Cannot make a pipe: %1.").arg(QString::fromLocal8Bit(strerror(errno)))));
    }
    UniqueFd readEnd(fds[0]);
    UniqueFd writeEnd(fds[1]);
    announceStart(context);
    const pid_t parent = getpid();
    sigset_t noSignals;
    sigemptyset(&noSignals);
    const pid_t child = fork();
    if (child == 0) {
        // Ends with the helper (KillMode=process would leave it walking), and
        // starts with no signal blocked. System calls only.
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() == parent && sigprocmask(SIG_SETMASK, &noSignals, nullptr) == 0
            && keepOnlyDescriptors({writeEnd.get()})) {
            execve(program.c_str(), argv, envp);
        }
        _exit(127);
    }
    if (child < 0) {
        return finish(context,
                      action,
                      caller,
                      {},
                      refuse(SystemFailure, QStringLiteral("Cannot start the account: %1.").arg(QString::fromLocal8Bit(strerror(errno)))));
    }
    writeEnd.reset();
    // Read to the end, within the deadline, until the caller cancels.
    QByteArray bytes;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(context.accountDeadlineSeconds);
    bool ended = false;
    bool cancelled = false;
    bool tooLong = false;
    while (!ended) {
        if (context.stopped && context.stopped()) {
            cancelled = true;
            break;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
        if (left <= 0) {
            break;
        }
        pollfd ready = {readEnd.get(), POLLIN, 0};
        const int r = poll(&ready, 1, int(std::min<long long>(left, 200)));
        if (r < 0 && errno != EINTR) {
            break;
        }
        if (r <= 0) {
            continue;
        }
        char block[65536];
        const ssize_t n = read(readEnd.get(), block, sizeof block);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            ended = n == 0;
            break;
        }
        if (bytes.size() + n > maxAccountAnswerBytes) {
            tooLong = true;
            break;
        }
        bytes.append(block, n);
    }
    // Its pipe closed: the child ends now, or is made to by the deadline.
    int status = 0;
    bool exited = false;
    while (ended && !exited) {
        const pid_t waited = waitpid(child, &status, WNOHANG);
        exited = waited == child;
        if (waited < 0 || (!exited && std::chrono::steady_clock::now() >= until)) {
            ended = false;
            break;
        }
        if (!exited) {
            const timespec step{0, 20'000'000};
            nanosleep(&step, nullptr);
        }
    }
    if (ended && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        if (const std::optional<CacheAccount> account = parseAccount(bytes)) {
            const QString target = QStringLiteral("parts=%1").arg(account->parts.size());
            qCDebug(CACHESCOPE_HELPER) << action << "uid" << caller.text() << ":" << account->parts.size() << "parts," << bytes.size() << "bytes";
            ActionReply reply = ActionReply::SuccessReply();
            reply.addData(replyAccount, bytes);
            return finish(context, action, caller, target, reply);
        }
        return finish(context, action, caller, {}, refuse(SystemFailure, QStringLiteral("The account gave an answer the helper cannot read.")));
    }
    if (!ended) {
        endOrAbandon(places, child, std::chrono::milliseconds(100));
    }
    if (cancelled) {
        return finish(context, action, caller, QStringLiteral("stopped=cancel"), refuse(Cancelled, QStringLiteral("The account was cancelled.")));
    }
    if (tooLong) {
        return finish(context, action, caller, {}, refuse(SystemFailure, QStringLiteral("The account is longer than the helper reads.")));
    }
    if (!ended) {
        return finish(context,
                      action,
                      caller,
                      QStringLiteral("stopped=deadline"),
                      refuse(SystemFailure, QStringLiteral("The account did not end within %1 s.").arg(context.accountDeadlineSeconds)));
    }
    return finish(context, action, caller, {}, refuse(SystemFailure, QStringLiteral("The account ended without an answer.")));
}

} // namespace Cachescope::Helper
