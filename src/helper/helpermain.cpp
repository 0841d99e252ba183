// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-helper: the D-Bus system service org.kde.cachescope.Helper1,
// started by the bus (D-Bus activation, under systemd as
// cachescope-helper.service). The service is helperservice.cpp; the
// decisions are the actions (helperactions.h); docs/helper-security.md
// rules them all.

#include "busconnection.h"
#include "cachescope_helper_debug.h"
#include "helperactions.h"
#include "helperservice.h"

#include <QCoreApplication>
#include <QSocketNotifier>

#include <csignal>
#include <cstring>
#include <sys/signalfd.h>
#include <syslog.h>
#include <systemd/sd-bus.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

using namespace Cachescope::Helper;

namespace
{

// docs/helper-security.md rule 16 and 17: what a helper killed in the
// middle of a trace or a contain left behind goes now, not only at the next
// trace or contain.
void removeLeftoversOfEarlierRuns(const HelperContext &context)
{
    for (const std::string &leftover : removeLeftovers(context)) {
        syslog(LOG_AUTHPRIV | LOG_NOTICE, "cachescope-helper: removed the leftover %s", leftover.c_str());
    }
}

} // namespace

int main(int argc, char **argv)
{
    // docs/helper-security.md rule 18: the account's child, started by the
    // helper itself (any user may start it: it then accounts as that user).
    if (argc == 2 && strcmp(argv[1], "--account-child") == 0) {
        return runAccountChild();
    }
    if (geteuid() != 0) {
        fprintf(stderr, "cachescope-helper: must run as root (it is started by the system bus)\n");
        return 1;
    }
    // SIGTERM (systemd's stop) is read from a descriptor, so that the
    // service leaves in order (HelperService::leave): blocked here, before
    // any thread exists, so that every thread inherits the mask.
    sigset_t terminate;
    sigemptyset(&terminate);
    sigaddset(&terminate, SIGTERM);
    sigaddset(&terminate, SIGINT);
    if (pthread_sigmask(SIG_BLOCK, &terminate, nullptr) != 0) {
        fprintf(stderr, "cachescope-helper: cannot block SIGTERM\n");
        return 1;
    }
    const int terminateFd = signalfd(-1, &terminate, SFD_CLOEXEC | SFD_NONBLOCK);
    if (terminateFd < 0) {
        fprintf(stderr, "cachescope-helper: cannot read SIGTERM: %s\n", strerror(errno));
        return 1;
    }
    QCoreApplication app(argc, argv);
    openlog("cachescope-helper", LOG_PID, LOG_AUTHPRIV);

    SystemCalls system;
    HelperContext context;
    context.system = &system;
    context.log = writeAuditLine;
    removeLeftoversOfEarlierRuns(context);

    QString error;
    std::unique_ptr<BusConnection> bus = BusConnection::openSystemBus(&error);
    if (!bus) {
        fprintf(stderr, "cachescope-helper: %s\n", qPrintable(error));
        return 1;
    }
    bus->setLostHandler([] {
        QCoreApplication::exit(1);
    });
    ServiceLimits limits;
    // Tests shorten the idle time; nothing else reads the environment.
    if (const QByteArray idle = qgetenv("CACHESCOPE_HELPER_IDLE_SECONDS"); !idle.isEmpty()) {
        limits.idleExit = std::chrono::seconds(idle.toInt());
    }
    auto *service = new HelperService(*bus, context, limits);
    if (!service->start(&error)) {
        fprintf(stderr, "cachescope-helper: %s\n", qPrintable(error));
        return 1;
    }
    QSocketNotifier terminated(terminateFd, QSocketNotifier::Read);
    QObject::connect(&terminated, &QSocketNotifier::activated, service, [service, terminateFd] {
        signalfd_siginfo info{};
        while (read(terminateFd, &info, sizeof info) == ssize_t(sizeof info)) { }
        qCDebug(CACHESCOPE_HELPER) << "SIGTERM: leaving";
        service->leave(true);
    });
    const int status = app.exec();
    // The last answers are written before the process ends.
    sd_bus_flush(bus->bus());
    // Threads of operations abandoned at their deadline may still be in a
    // system call: end the process without running destructors under them.
    fflush(nullptr);
    _exit(status);
}
