// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// A process held before exec, for the trace tests (tracehelpertest,
// helperbustest): the tracer needs its pid before it runs, and lets it go
// once the events are being recorded, as the experiments do.

#include "testutil.h"

#include <QByteArray>
#include <QStringList>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <vector>

namespace TestUtil
{

// A process forked and stopped before exec: it waits on a pipe until
// release(), then execs argv (as `user` when given). Killed and reaped at
// the end of its scope.
class HeldProcess
{
public:
    explicit HeldProcess(const QStringList &argv, std::optional<uid_t> user = std::nullopt)
    {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) {
            return;
        }
        std::vector<QByteArray> arguments;
        for (const QString &argument : argv) {
            arguments.push_back(argument.toLocal8Bit());
        }
        std::vector<char *> pointers;
        for (QByteArray &argument : arguments) {
            pointers.push_back(argument.data());
        }
        pointers.push_back(nullptr);
        m_pid = fork();
        if (m_pid == 0) {
            close(fds[1]);
            if (user && !becomeUser(*user)) {
                _exit(126);
            }
            char go = 0;
            if (read(fds[0], &go, 1) != 1) {
                _exit(125);
            }
            execv(pointers[0], pointers.data());
            _exit(127);
        }
        close(fds[0]);
        m_release = fds[1];
    }
    ~HeldProcess()
    {
        if (m_release >= 0) {
            close(m_release);
        }
        if (m_pid > 0) {
            kill(m_pid, SIGKILL);
            waitpid(m_pid, nullptr, 0);
        }
    }
    [[nodiscard]] pid_t pid() const
    {
        return m_pid;
    }
    void release()
    {
        if (m_release >= 0) {
            (void)!write(m_release, "x", 1);
            close(m_release);
            m_release = -1;
        }
    }
    // Its exit status after release (waits for it); -1 when killed.
    [[nodiscard]] int wait()
    {
        int status = 0;
        if (m_pid <= 0 || waitpid(m_pid, &status, 0) != m_pid) {
            return -1;
        }
        m_pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

private:
    pid_t m_pid = -1;
    int m_release = -1;
};

// The arguments of a dd that reads 64 KiB of path from block `skip` (of
// 64 KiB) and says nothing: what the held processes of the trace tests run.
inline QStringList ddReading(const std::string &path, int skip = 0)
{
    return {QStringLiteral("/usr/bin/dd"),
            QStringLiteral("if=") + QString::fromStdString(path),
            QStringLiteral("of=/dev/null"),
            QStringLiteral("bs=64k"),
            QStringLiteral("skip=%1").arg(skip),
            QStringLiteral("count=1"),
            QStringLiteral("status=none")};
}

} // namespace TestUtil
