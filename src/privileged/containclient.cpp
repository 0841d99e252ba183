// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The client side of a contained run and of reclaim: systemd's user manager
// where it answers (a transient scope, which systemd removes when it is
// empty), the helper's Contain method otherwise, and the helper's Reclaim.

#include "cachescope_privileged_debug.h"
#include "privileged.h"
#include "privilegedcall.h"

#include "cgroups/memorycgroup.h"
#include "helperprotocol.h"
#include "procfs.h"

#include <KLocalizedString>

#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusMetaType>
#include <QDBusVariant>
#include <QThread>

#include <chrono>

#include <unistd.h>

namespace
{
// systemd's a(sv) properties and a(sa(sv)) auxiliary units.
struct UnitProperty {
    QString name;
    QDBusVariant value;
};
struct AuxiliaryUnit {
    QString name;
    QList<UnitProperty> properties;
};
} // namespace

Q_DECLARE_METATYPE(UnitProperty)
Q_DECLARE_METATYPE(AuxiliaryUnit)

namespace
{
QDBusArgument &operator<<(QDBusArgument &argument, const UnitProperty &property)
{
    argument.beginStructure();
    argument << property.name << property.value;
    argument.endStructure();
    return argument;
}
const QDBusArgument &operator>>(const QDBusArgument &argument, UnitProperty &property)
{
    argument.beginStructure();
    argument >> property.name >> property.value;
    argument.endStructure();
    return argument; // NOLINT(bugprone-return-const-ref-from-parameter): the signature QDBusArgument's streaming asks for
}
QDBusArgument &operator<<(QDBusArgument &argument, const AuxiliaryUnit &unit)
{
    argument.beginStructure();
    argument << unit.name << unit.properties;
    argument.endStructure();
    return argument;
}
const QDBusArgument &operator>>(const QDBusArgument &argument, AuxiliaryUnit &unit)
{
    argument.beginStructure();
    argument >> unit.name >> unit.properties;
    argument.endStructure();
    return argument; // NOLINT(bugprone-return-const-ref-from-parameter): the signature QDBusArgument's streaming asks for
}
} // namespace

namespace Cachescope::Privileged
{

using namespace HelperProtocol;

namespace
{

const QString systemdService = QStringLiteral("org.freedesktop.systemd1");

// The unified cgroup of pid as /proc/<pid>/cgroup names it ("0::/..."), or empty.
QString unifiedCgroupOf(int pid)
{
    const std::optional<std::string> text = readProcFile("/proc/" + std::to_string(pid) + "/cgroup");
    if (!text) {
        return {};
    }
    const size_t line = text->find("0::");
    if (line == std::string::npos) {
        return {};
    }
    const size_t end = text->find('\n', line);
    return QString::fromStdString(text->substr(line + 3, end == std::string::npos ? std::string::npos : end - line - 3));
}

ContainResult containWithUserManager(int pid, qint64 limitBytes)
{
    qDBusRegisterMetaType<UnitProperty>();
    qDBusRegisterMetaType<QList<UnitProperty>>();
    qDBusRegisterMetaType<AuxiliaryUnit>();
    qDBusRegisterMetaType<QList<AuxiliaryUnit>>();
    static int counter = 0;
    const QString unit = QStringLiteral("cachescope-run-%1-%2.scope").arg(getpid()).arg(++counter);
    const quint64 limit = quint64(limitBytes);
    // The same limits the helper sets (memorycgroup.h): high, a hard
    // maximum a margin above, no swap.
    const QList<UnitProperty> properties{
        {QStringLiteral("Description"), QDBusVariant(QStringLiteral("Cachescope contained run"))},
        {QStringLiteral("PIDs"), QDBusVariant(QVariant::fromValue(QList<uint>{uint(pid)}))},
        {QStringLiteral("MemoryHigh"), QDBusVariant(QVariant::fromValue(limit))},
        {QStringLiteral("MemoryMax"), QDBusVariant(QVariant::fromValue(limit + hardLimitMargin(limit)))},
        {QStringLiteral("MemorySwapMax"), QDBusVariant(QVariant::fromValue(quint64(0)))},
    };
    QDBusMessage call = QDBusMessage::createMethodCall(systemdService,
                                                       QStringLiteral("/org/freedesktop/systemd1"),
                                                       QStringLiteral("org.freedesktop.systemd1.Manager"),
                                                       QStringLiteral("StartTransientUnit"));
    call << unit << QStringLiteral("fail") << QVariant::fromValue(properties) << QVariant::fromValue(QList<AuxiliaryUnit>{});
    const QDBusMessage answer = QDBusConnection::sessionBus().call(call);
    ContainResult out;
    out.how = QStringLiteral("systemd-run");
    out.limitBytes = limitBytes;
    if (answer.type() == QDBusMessage::ErrorMessage) {
        out.failure = Failure::Failed;
        out.message = i18nc("@info %1 is systemd's error", "systemd's user manager could not make a scope for the command: %1", answer.errorMessage());
        return out;
    }
    // The scope holds the process once systemd has started it.
    using namespace std::chrono;
    const auto deadline = steady_clock::now() + seconds(5);
    QString cgroup;
    while (!(cgroup = unifiedCgroupOf(pid)).endsWith(QLatin1Char('/') + unit) && steady_clock::now() < deadline) {
        QThread::msleep(20);
    }
    if (!cgroup.endsWith(QLatin1Char('/') + unit)) {
        out.failure = Failure::Failed;
        out.message = i18nc("@info %1 is a unit name", "systemd's user manager did not move the command into %1 within 5 seconds.", unit);
        return out;
    }
    out.cgroupPath = QLatin1String(defaultCgroupRoot) + cgroup;
    out.version = 2;
    return out;
}

} // namespace

bool userManagerAvailable(QString *reason)
{
    QDBusConnection bus = QDBusConnection::sessionBus();
    if (bus.isConnected() && bus.interface() && bus.interface()->isServiceRegistered(systemdService).value()) {
        return true;
    }
    if (reason) {
        *reason = i18nc("@info", "no systemd user manager answers on the session bus");
    }
    return false;
}

ContainResult contain(int pid, qint64 limitBytes)
{
    if (!runsAsRoot()) {
        QString reason;
        if (userManagerAvailable(&reason)) {
            return containWithUserManager(pid, limitBytes);
        }
        qCDebug(CACHESCOPE_PRIVILEGED) << "contain:" << reason << "; asking the helper";
    }
    ContainResult out;
    static_cast<Result &>(out) = runSynchronously(containRequest(pid, limitBytes));
    out.how = runsAsRoot() ? QStringLiteral("root") : QStringLiteral("helper");
    if (out.ok()) {
        out.cgroupPath = out.data.value(replyCgroupPath).toString();
        out.version = out.data.value(replyCgroupVersion).toInt();
        out.limitBytes = out.data.value(keyLimitBytes).toLongLong();
    }
    return out;
}

ReclaimResult reclaimCgroup(const QString &cgroup)
{
    return toReclaimResult(runSynchronously(reclaimRequest(cgroup)));
}

ReclaimResult toReclaimResult(const Result &result)
{
    ReclaimResult out;
    static_cast<Result &>(out) = result;
    if (out.ok()) {
        out.fileBytesBefore = out.data.value(replyFileBytesBefore).toULongLong();
        out.fileBytesAfter = out.data.value(replyFileBytesAfter).toULongLong();
        out.stoppedAtDeadline = out.data.value(replyStoppedAtDeadline).toBool();
    }
    return out;
}

} // namespace Cachescope::Privileged
