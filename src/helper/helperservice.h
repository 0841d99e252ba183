// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The D-Bus service org.kde.cachescope.Helper1
// (src/helperprotocol/org.kde.cachescope.Helper1.xml; docs/helper-security.md).
// For every call, on the bus thread and without blocking it: the caller's
// uid from the bus (GetConnectionUnixUser), then polkit
// (CheckAuthorization, the caller's system-bus-name subject, no details of
// the caller's), then the action on a thread of its own with a deadline.
// Answers are method returns; a job's signals are addressed to the bus
// name that started it. Callers are served side by side, each user with a
// bounded number of operations under way.

#include "actionreply.h"
#include "helperactions.h"

#include <QObject>
#include <QTimer>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

struct sd_bus_message;
struct sd_bus_slot;
struct sd_bus_track;

namespace Cachescope::Helper
{

class BusConnection;

// One a method of Helper1.
enum class Operation {
    DropCaches,
    SwapOff,
    SwapOffAll,
    SwapOn,
    SwapOnAll,
    CreateExperimentSwapFile,
    RemoveExperimentSwapFile,
    ReadResidency,
    Trace,
    Contain,
    Reclaim,
    Account,
    Activity,
};

struct ServiceLimits {
    // Operations under way (being authorized or running) for one uid, and
    // for the whole service; more are refused with Busy. Calls still
    // waiting for the bus to name their caller's uid (a few milliseconds)
    // are counted apart, so that one user's flood of calls never takes the
    // places of others.
    int perUser = 4;
    int total = 16;
    int lookups = 65536; // a bound for memory only: the bus bounds each caller's pending calls
    // How long polkit may take (the person types a password).
    std::chrono::seconds authorization{300};
    // The service ends after this long without a call or a job (D-Bus
    // activation starts it again); zero: never.
    std::chrono::seconds idleExit{30};
};

class HelperService : public QObject
{
public:
    // base: the context every operation starts from (its own copy each).
    HelperService(BusConnection &bus, const HelperContext &base, const ServiceLimits &limits);
    ~HelperService() override;

    // Publishes the object and takes the bus name. False, with *error, when
    // either fails (another instance owns the name).
    [[nodiscard]] bool start(QString *error);

    // Ends the service without losing a call: the bus name is released
    // first, so that the bus starts a new instance for any later call,
    // while every call that reached this one before the release (the bus
    // keeps their order) is still answered; the process quits once its
    // name is gone and nothing is under way. Called at the idle time and at
    // SIGTERM; with stopWork (SIGTERM from outside, not the stop that
    // follows the service's own release under systemd) the operations
    // under way are cancelled and their callers told.
    void leave(bool stopWork);

    // sd-bus's entry points (static trampolines call these).
    int handleCall(sd_bus_message *message, Operation operation);
    int handleCancel(sd_bus_message *message);
    [[nodiscard]] bool jobVisibleTo(const char *path, const char *sender) const;

private:
    struct Request;
    struct Job;

    void lookedUpUid(uint64_t id, sd_bus_message *reply);
    void authorized(uint64_t id, sd_bus_message *reply);
    void run(const std::shared_ptr<Request> &request);
    // A job's action has checked its arguments: its path goes to the caller.
    void startJob(uint64_t id);
    void finished(uint64_t id, const ActionReply &reply);
    void progressed(uint64_t id, const QVariantMap &data);
    void deadlinePassed(uint64_t id);
    void ownerLeft(uint64_t id);
    // The caller's answer: the method's typed return (a plain operation) or
    // the job's Completed/Failed signal. Once per request.
    void answer(const std::shared_ptr<Request> &request, const ActionReply &reply);
    void answerError(const std::shared_ptr<Request> &request, int code, const QString &message);
    void forget(uint64_t id);
    // The audit line of a refusal made by the service, a bounded number a
    // uid in a while (the rest counted).
    void auditRefusal(const char *action, const Caller &caller, int code);
    void updateIdleTimer();
    void nameReleased();
    void quitWhenDone();
    [[nodiscard]] int underWay(uint32_t uid) const;
    // Requests whose caller is known (past the uid lookup), and those not yet.
    [[nodiscard]] int placesTaken() const;
    [[nodiscard]] int lookingUp() const;

    BusConnection &m_bus;
    HelperContext m_base;
    ServiceLimits m_limits;
    sd_bus_slot *m_objectSlot = nullptr;
    sd_bus_slot *m_jobSlot = nullptr;
    uint64_t m_nextId = 1;
    std::map<uint64_t, std::shared_ptr<Request>> m_requests;
    QTimer m_idle;
    bool m_leaving = false;
    bool m_stopping = false; // SIGTERM from outside: new calls are refused
    bool m_nameReleased = false;
    sd_bus_slot *m_releaseSlot = nullptr;
    struct RefusalBudget {
        std::chrono::steady_clock::time_point windowStart{};
        int lines = 0;
        int suppressed = 0;
    };
    std::map<std::optional<uint32_t>, RefusalBudget> m_refusalBudgets;
};

} // namespace Cachescope::Helper
