// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Pids of a private PID namespace translated into the initial namespace's,
// for real: tools/dev runs the tests in a namespace of their own and shows
// the host's /proc at /run/host/proc; as root the test also makes a
// namespace of its own (with its own /proc) wherever it runs. The answer is
// checked against the kernel's own: /proc/self of the host's procfs names
// the reader by its host pid.

#include "pidnamespace.h"
#include "testutil.h"

#include <QTest>

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>

using namespace Cachescope;

namespace
{

bool inInitialNamespace()
{
    return pidNamespaceInode("/proc", "self") == initialPidNamespaceInode;
}

// The /proc that shows the initial namespace: ours, or the host's.
std::string hostProc()
{
    return inInitialNamespace() ? "/proc" : "/run/host/proc";
}

// The caller's pid in the procfs at procRoot, as the kernel says it.
int selfPidIn(const std::string &procRoot)
{
    char target[32] = {};
    const ssize_t n = readlink((procRoot + "/self").c_str(), target, sizeof target - 1);
    return n > 0 ? atoi(target) : -1;
}

} // namespace

class PidNamespaceTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void translatesThisProcessAndAChild()
    {
        const HostPid self = hostPidOf(getpid());
        QVERIFY2(self.pid, self.error.c_str());
        QCOMPARE(*self.pid, selfPidIn(hostProc()));
        if (inInitialNamespace()) {
            QCOMPARE(*self.pid, int(getpid()));
        } else {
            QVERIFY(*self.pid != int(getpid()));
        }

        // A child that tells its own host pid through a pipe, then waits.
        int fds[2];
        QVERIFY(pipe(fds) == 0);
        const std::string proc = hostProc();
        const pid_t child = fork();
        if (child == 0) {
            const int hostPid = selfPidIn(proc);
            (void)!write(fds[1], &hostPid, sizeof hostPid);
            pause();
            _exit(0);
        }
        close(fds[1]);
        int childHostPid = -1;
        QCOMPARE(read(fds[0], &childHostPid, sizeof childHostPid), ssize_t(sizeof childHostPid));
        close(fds[0]);
        const HostPid translated = hostPidOf(child);
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
        QVERIFY2(translated.pid, translated.error.c_str());
        QCOMPARE(*translated.pid, childHostPid);
    }

    void refusesWhatCannotBeTranslated()
    {
        for (const int pid : {0, -1, INT_MIN}) {
            const HostPid result = hostPidOf(pid);
            QVERIFY(!result.pid);
            QVERIFY2(result.error.find("is not a process") != std::string::npos, result.error.c_str());
        }
        const HostPid noProc = hostPidOf(getpid(), TestUtil::scratchDir("pidns-no-proc"));
        QVERIFY(!noProc.pid);
        QVERIFY2(noProc.error.find("/self/ns/pid") != std::string::npos, noProc.error.c_str());
        if (inInitialNamespace()) {
            return; // nothing to translate: the rest is tested in a namespace of the test's own
        }
        const pid_t gone = fork();
        if (gone == 0) {
            _exit(0);
        }
        waitpid(gone, nullptr, 0);
        const HostPid exited = hostPidOf(gone);
        QVERIFY(!exited.pid);
        QVERIFY2(exited.error.find("does not exist") != std::string::npos, exited.error.c_str());

        const std::string notProc = TestUtil::scratchDir("pidns-not-proc");
        const HostPid noHost = hostPidOf(getpid(), "/proc", notProc);
        QVERIFY(!noHost.pid);
        QVERIFY2(noHost.error.find("private PID namespace") != std::string::npos && noHost.error.find(notProc) != std::string::npos, noHost.error.c_str());
        // Our own /proc is procfs but not the host's.
        const HostPid ownProc = hostPidOf(getpid(), "/proc", "/proc");
        QVERIFY(!ownProc.pid);
        QVERIFY2(ownProc.error.find("is not the host's /proc") != std::string::npos, ownProc.error.c_str());
    }

    void translatesFromANamespaceOfItsOwn()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("making a PID namespace needs root (tools/dev runs the tests as root)");
        }
        // In a child: a new PID and mount namespace, its first process (pid
        // 1 there) mounts the namespace's procfs on a scratch folder and
        // translates itself; the other processes of the test check it is
        // not a pid of theirs.
        const std::string ownProc = TestUtil::scratchDir("pidns-own-proc");
        const std::string proc = hostProc();
        struct Answer {
            int translated = -1;
            int hostSelf = -1;
            char error[200] = {};
        };
        QString failure;
        const std::optional<Answer> answer = TestUtil::valueFromChild<Answer>(
            [&]() -> Answer {
                Answer out;
                // The scratch folder becomes a private mount of its own, so
                // that the procfs mounted on it is seen nowhere else (a chroot's
                // "/" is no mount point to make private).
                if (unshare(CLONE_NEWPID | CLONE_NEWNS) != 0 || mount(ownProc.c_str(), ownProc.c_str(), nullptr, MS_BIND, nullptr) != 0
                    || mount(nullptr, ownProc.c_str(), nullptr, MS_PRIVATE, nullptr) != 0) {
                    snprintf(out.error, sizeof out.error, "unshare or private mount: %d", errno);
                    return out;
                }
                int fds[2];
                if (pipe(fds) != 0) {
                    return out;
                }
                const pid_t first = fork();
                if (first == 0) {
                    Answer inner;
                    if (mount("proc", ownProc.c_str(), "proc", 0, nullptr) != 0) {
                        snprintf(inner.error, sizeof inner.error, "mount proc: %d", errno);
                    } else {
                        const HostPid result = hostPidOf(int(getpid()), ownProc, proc);
                        inner.translated = result.pid.value_or(-1);
                        snprintf(inner.error, sizeof inner.error, "%s", result.error.c_str());
                        inner.hostSelf = selfPidIn(proc);
                        umount(ownProc.c_str());
                    }
                    (void)!write(fds[1], &inner, sizeof inner);
                    _exit(0);
                }
                close(fds[1]);
                if (first < 0 || read(fds[0], &out, sizeof out) != ssize_t(sizeof out)) {
                    snprintf(out.error, sizeof out.error, "no answer from the namespace");
                }
                waitpid(first, nullptr, 0);
                return out;
            },
            std::nullopt,
            &failure);
        QVERIFY2(answer, qPrintable(failure));
        QVERIFY2(answer->translated > 0, answer->error);
        QCOMPARE(answer->translated, answer->hostSelf);
        QVERIFY(answer->translated != 1);
    }
};

QTEST_GUILESS_MAIN(PidNamespaceTest)

#include "pidnamespacetest.moc"
