// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The KAuth glue of the root helper. KAuth registers org.kde.cachescope on
// the system bus, checks polkit, and calls the slot named after the action.
// All decisions are in helperactions.cpp, swapactions.cpp,
// swapfileactions.cpp, residencyaction.cpp, traceaction.cpp and
// containaction.cpp.

#include "helperactions.h"

#include <KAuth/ActionReply>
#include <KAuth/HelperSupport>

#include <QObject>

#include <syslog.h>

namespace Cachescope::Helper
{

namespace
{
KAuth::ActionReply toKAuth(const ActionReply &reply)
{
    if (reply.succeeded()) {
        KAuth::ActionReply out = KAuth::ActionReply::SuccessReply();
        out.setData(reply.data());
        return out;
    }
    KAuth::ActionReply out = KAuth::ActionReply::HelperErrorReply(reply.error());
    out.setErrorDescription(reply.errorDescription());
    return out;
}
} // namespace

class CachescopeHelper : public QObject
{
    Q_OBJECT

public:
    CachescopeHelper()
    {
        openlog("cachescope-helper", LOG_PID, LOG_AUTHPRIV);
        m_context.system = &m_system;
        // docs/helper-security.md rule 10: progress reaches the client as
        // KAuth progress data.
        m_context.progress = [](const QVariantMap &data) {
            KAuth::HelperSupport::progressStep(data);
        };
        m_context.log = writeAuditLine;
        // docs/helper-security.md rule 16: a trace ends early when the
        // client cancels (KAuth's stopAction; isStopped() also handles the
        // D-Bus call that carries it).
        m_context.stopped = [] {
            return KAuth::HelperSupport::isStopped();
        };
    }

    // docs/helper-security.md rule 6: authorization happens for every call, before any slot runs:
    // KAuth 6.13's DBusHelperProxy::performAction asks polkit with the
    // system-bus-name subject of the D-Bus message's sender (it ignores the
    // caller id the client supplies), and a denial returns at once without
    // calling us. Inside each slot the caller's uid is taken from D-Bus
    // (HelperSupport::callerUid, read back by callerFromKAuthUid: KAuth's 0
    // for "could not look it up" is unknown, not root) and an unknown uid is
    // refused (fail closed).
    // docs/helper-security.md rule 14: KAuth runs one action at a time (a second call gets
    // HelperBusyError) and exits the helper after 10 s idle.
    // docs/helper-security.md rule 1: one slot per polkit action, nothing generic.
public Q_SLOTS:
    KAuth::ActionReply dropcaches(const QVariantMap &args)
    {
        return toKAuth(dropCachesAction(args, callerFromKAuthUid(KAuth::HelperSupport::callerUid()), m_context));
    }
    KAuth::ActionReply swapoff(const QVariantMap &args)
    {
        return toKAuth(swapOffAction(args, callerFromKAuthUid(KAuth::HelperSupport::callerUid()), m_context));
    }
    KAuth::ActionReply swapon(const QVariantMap &args)
    {
        return toKAuth(swapOnAction(args, callerFromKAuthUid(KAuth::HelperSupport::callerUid()), m_context));
    }
    KAuth::ActionReply swapfilecreate(const QVariantMap &args)
    {
        return toKAuth(swapFileCreateAction(args, callerFromKAuthUid(KAuth::HelperSupport::callerUid()), m_context));
    }
    KAuth::ActionReply swapfileremove(const QVariantMap &args)
    {
        return toKAuth(swapFileRemoveAction(args, callerFromKAuthUid(KAuth::HelperSupport::callerUid()), m_context));
    }
    KAuth::ActionReply residency(const QVariantMap &args)
    {
        return toKAuth(residencyAction(args, callerFromKAuthUid(KAuth::HelperSupport::callerUid()), m_context));
    }
    KAuth::ActionReply trace(const QVariantMap &args)
    {
        return toKAuth(traceAction(args, callerFromKAuthUid(KAuth::HelperSupport::callerUid()), m_context));
    }
    KAuth::ActionReply contain(const QVariantMap &args)
    {
        return toKAuth(containAction(args, callerFromKAuthUid(KAuth::HelperSupport::callerUid()), m_context));
    }
    KAuth::ActionReply reclaim(const QVariantMap &args)
    {
        return toKAuth(reclaimAction(args, callerFromKAuthUid(KAuth::HelperSupport::callerUid()), m_context));
    }

private:
    SystemCalls m_system;
    HelperContext m_context;
};

} // namespace Cachescope::Helper

KAUTH_HELPER_MAIN(Cachescope::HelperProtocol::helperId.data(), Cachescope::Helper::CachescopeHelper)

#include "helpermain.moc"
