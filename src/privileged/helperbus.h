// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Internal to the client (and its tests): the helper's D-Bus service as the
// client speaks it, src/helperprotocol/org.kde.cachescope.Helper1.xml being
// the contract. A request becomes one method call, polkit's dialog allowed.
// A long operation answers with a job's object path at once; the job's
// signals then come to this connection alone, from the bus name's owner.
//
// BusCall never looks at the uid: privileged.cpp decides that root acts in
// process instead, so that tests can drive the bus path as any user.

#include "privileged.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QObject>
#include <QString>

#include <functional>
#include <vector>

class QDBusPendingCallWatcher;
class QDBusServiceWatcher;
class QTimer;

namespace Cachescope::Privileged
{

// The bus the helper is looked for on: the system bus, or the session bus
// where the environment has CACHESCOPE_HELPER_BUS=session. Only tests set
// that (a fake service on a private session bus, HACKING.md): it is read
// here and nowhere else.
[[nodiscard]] bool helperOnSessionBus();
[[nodiscard]] QDBusConnection helperBus();

// Whether an operation answers with a job (SwapOff, ReadResidency, Trace,
// Reclaim) rather than with its figures.
[[nodiscard]] bool isJob(Operation operation);

// The method call of a request: the typed arguments of
// org.kde.cachescope.Helper1.xml, made from the request's argument map,
// with interactive authorization allowed.
[[nodiscard]] QDBusMessage methodCallOf(const Request &request);

// One request over the bus, waited for in an event loop of the calling
// thread (runSynchronously's way for a user): progress gets the progress
// signals' data (helperprotocol.h's progress keys); cancelled is asked every
// 100 ms, and cancels the job when it says so.
[[nodiscard]] Reply
runOnBus(const Request &request, const std::function<void(const QVariantMap &)> &progress = {}, const std::function<bool()> &cancelled = {});

// One request over the bus, from the call to the job's last signal. Made
// with new; it deletes itself once it has finished and nothing it waits for
// is still under way on the bus (a cancel before the job's path was known
// waits for that path, to cancel the job there). Lives in the thread that
// made it, which must run an event loop.
//
// Race-free by construction: the job's signals are connected before the
// call is sent, with the helper's bus name as sender and any object path
// (QtDBus then takes only signals whose sender owns that name, and follows
// the owner through NameOwnerChanged); a signal that comes before the
// method's reply is kept until the reply names the job's path. Then only
// that path's signals count; others (another call's job of this process)
// are dropped.
class BusCall : public QObject
{
    Q_OBJECT
public:
    using Done = std::function<void(const Reply &)>;
    using Progress = std::function<void(const QVariantMap &)>;

    BusCall(const Request &request, const QDBusConnection &bus, Done done, Progress progress = {});
    ~BusCall() override;

    // Sends the call; done() may run before this returns.
    void start();
    // Asks the helper to cancel the job (its Cancel method) and finishes at
    // once as cancelled; an activity's job, once it runs, completes with
    // its totals instead, and is waited for.
    void cancel();
    // Forgets done and progress (their receiver is going); the request goes
    // on at the helper and its answer is dropped.
    void detach();
    [[nodiscard]] QString jobPath() const;

    // At most this many signals are kept while the reply is awaited.
    static constexpr int maxEarlySignals = 64;

public Q_SLOTS:
    // QtDBus delivers the job's signals here (connected by name, hence a slot).
    void jobSignal(const QDBusMessage &message);

private:
    void helperLeftTheBus();
    void connectJobSignals();
    void disconnectJobSignals();
    void methodReplied(QDBusPendingCallWatcher *watcher);
    void handleJobSignal(const QDBusMessage &message);
    void sendCancel();
    void finish(const Reply &reply);
    void deleteWhenIdle();

    Request m_request;
    QDBusConnection m_bus;
    Done m_done;
    Progress m_progress;
    QTimer *m_deadline = nullptr;
    QDBusServiceWatcher *m_serviceWatcher = nullptr;
    bool m_signalsConnected = false;
    bool m_replyPending = false;
    bool m_finished = false;
    bool m_cancelWanted = false;
    QString m_jobPath;
    std::vector<QDBusMessage> m_earlySignals;
};

} // namespace Cachescope::Privileged
