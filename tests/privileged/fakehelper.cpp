// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-fake-helper: a stand-in for the helper's D-Bus service on the
// session bus, for the client's tests (the client looks there with
// CACHESCOPE_HELPER_BUS=session). It owns org.kde.cachescope.Helper1,
// refuses any call whose signature is not the one of
// src/helperprotocol/org.kde.cachescope.Helper1.xml, and answers as the XML
// says, or misbehaves on request: signals before the method's reply,
// signals of another job, Failed, malformed answers, a slow trace.
//
//   cachescope-fake-helper [OPTIONS]                  prints "ready" once it owns the name, serves until killed
//   cachescope-fake-helper [OPTIONS] -- COMMAND ARG... runs COMMAND once it owns the name (with
//                                                     CACHESCOPE_HELPER_BUS=session), exits with its status
//
//   --drop-caches-error NAME  DropCaches answers the D-Bus error NAME
//   --residency MODE          ok, signals-first, other-job, failed, malformed
//   --trace MODE              exited, cancelled, credentials, failed-signal, slow, late-reply
//   --reclaim MODE            ok, failed
//
// Every Cancel it receives is printed on stdout: "cancel PATH".

#include "helperprotocol.h"

#include <QCoreApplication>
#include <QDBusArgument>
#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMetaType>
#include <QDBusObjectPath>
#include <QDBusVirtualObject>
#include <QHash>
#include <QProcess>
#include <QSet>
#include <QTimer>

#include <cstdio>

using namespace Cachescope::HelperProtocol;

namespace
{

// ResidencyCompleted's entry (sbtttttsbttat).
struct FakeFile {
    QString error;
    bool hidden = false;
    qulonglong device = 0;
    qulonglong inode = 0;
    qulonglong sizeBytes = 0;
    qulonglong pages = 0;
    qulonglong resident = 0;
    QString method;
    bool detail = false;
    qulonglong dirty = 0;
    qulonglong writeback = 0;
    QList<qulonglong> histogram;
};
// TraceCompleted's event (ytiuuttttus).
struct FakeEvent {
    uchar kind = 0;
    qulonglong timeNs = 0;
    int pid = 0;
    uint major = 0;
    uint minor = 0;
    qulonglong inode = 0;
    qulonglong firstPage = 0;
    qulonglong pageCount = 0;
    qulonglong sector = 0;
    uint bytes = 0;
    QString rwbs;
};
// SwapOn's area (aysis).
struct FakeArea {
    QByteArray name;
    QString outcome;
    int priority = 0;
    QString message;
};

} // namespace

Q_DECLARE_METATYPE(FakeFile)
Q_DECLARE_METATYPE(FakeEvent)
Q_DECLARE_METATYPE(FakeArea)

namespace
{

QDBusArgument &operator<<(QDBusArgument &argument, const FakeFile &file)
{
    argument.beginStructure();
    argument << file.error << file.hidden << file.device << file.inode << file.sizeBytes << file.pages << file.resident << file.method << file.detail
             << file.dirty << file.writeback << file.histogram;
    argument.endStructure();
    return argument;
}
const QDBusArgument &operator>>(const QDBusArgument &argument, FakeFile &)
{
    return argument; // only sent
}
QDBusArgument &operator<<(QDBusArgument &argument, const FakeEvent &event)
{
    argument.beginStructure();
    argument << event.kind << event.timeNs << event.pid << event.major << event.minor << event.inode << event.firstPage << event.pageCount << event.sector
             << event.bytes << event.rwbs;
    argument.endStructure();
    return argument;
}
const QDBusArgument &operator>>(const QDBusArgument &argument, FakeEvent &)
{
    return argument;
}
QDBusArgument &operator<<(QDBusArgument &argument, const FakeArea &area)
{
    argument.beginStructure();
    argument << area.name << area.outcome << area.priority << area.message;
    argument.endStructure();
    return argument;
}
const QDBusArgument &operator>>(const QDBusArgument &argument, FakeArea &)
{
    return argument;
}

void say(const QString &line)
{
    std::fprintf(stdout, "%s\n", line.toUtf8().constData());
    std::fflush(stdout);
}

// What the methods take, as the XML's in arguments.
const QHash<QString, QString> &inSignatures()
{
    static const QHash<QString, QString> signatures{
        {QString(methodDropCaches), QStringLiteral("u")},
        {QString(methodSwapOff), QStringLiteral("ay")},
        {QString(methodSwapOffAll), QString()},
        {QString(methodSwapOn), QStringLiteral("ay")},
        {QString(methodSwapOnAll), QString()},
        {QString(methodCreateExperimentSwapFile), QStringLiteral("t")},
        {QString(methodRemoveExperimentSwapFile), QString()},
        {QString(methodReadResidency), QStringLiteral("aayu")},
        {QString(methodTrace), QStringLiteral("uu")},
        {QString(methodContain), QStringLiteral("ut")},
        {QString(methodReclaim), QStringLiteral("ay")},
    };
    return signatures;
}

class FakeHelper : public QDBusVirtualObject
{
public:
    QString dropCachesError;
    QString residencyMode = QStringLiteral("ok");
    QString traceMode = QStringLiteral("exited");
    QString reclaimMode = QStringLiteral("ok");

    QString introspect(const QString &) const override
    {
        return {};
    }

    bool handleMessage(const QDBusMessage &message, const QDBusConnection &connection) override
    {
        if (message.path().startsWith(busJobPathPrefix)) {
            return handleJobCall(message, connection);
        }
        if (message.path() != busObjectPath || message.interface() != busInterface || !inSignatures().contains(message.member())) {
            connection.send(message.createErrorReply(QStringLiteral("org.freedesktop.DBus.Error.UnknownMethod"), QStringLiteral("No such method.")));
            return true;
        }
        if (message.signature() != inSignatures().value(message.member())) {
            connection.send(message.createErrorReply(
                QStringLiteral("org.freedesktop.DBus.Error.InvalidArgs"),
                QStringLiteral("%1 takes (%2), not (%3).").arg(message.member(), inSignatures().value(message.member()), message.signature())));
            return true;
        }
        const QString member = message.member();
        if (!message.isInteractiveAuthorizationAllowed()) {
            connection.send(message.createErrorReply(QString(errorNotAuthorized), QStringLiteral("The fake wants interaction allowed.")));
            return true;
        }
        if (member == methodDropCaches) {
            if (!dropCachesError.isEmpty()) {
                connection.send(message.createErrorReply(dropCachesError, QStringLiteral("The fake refuses: %1.").arg(dropCachesError)));
                return true;
            }
            const QMap<QString, qulonglong> before{{QString(memCached), 3000}, {QString(memFree), 100}};
            const QMap<QString, qulonglong> after{{QString(memCached), 10}, {QString(memFree), 3090}};
            connection.send(message.createReply({QVariant::fromValue(before), QVariant::fromValue(after)}));
            return true;
        }
        if (member == methodSwapOnAll) {
            const QList<FakeArea> areas{{QByteArrayLiteral("/swapfile"), QString(outcomeOn), 5, QString()},
                                        {QByteArrayLiteral("/gone"), QString(outcomeGone), -2, QStringLiteral("It is gone.")}};
            connection.send(message.createReply(
                {QVariant::fromValue(QList<QByteArray>{QByteArrayLiteral("/swapfile")}), QVariant::fromValue(QList<int>{5}), QVariant::fromValue(areas)}));
            return true;
        }
        if (member == methodCreateExperimentSwapFile) {
            connection.send(message.createReply({QByteArray(experimentSwapPath), message.arguments().at(0)}));
            return true;
        }
        if (member == methodContain) {
            connection.send(message.createReply({QByteArrayLiteral("/sys/fs/cgroup/cachescope/run-1"), 2u}));
            return true;
        }
        const QString caller = message.service();
        const QString path = QString(busJobPathPrefix) + QString::number(++m_jobs);
        const auto replyWithJob = [message, connection, path] {
            connection.send(message.createReply(QVariant::fromValue(QDBusObjectPath(path))));
        };
        const auto signal = [connection, caller](const QString &jobPath, QLatin1StringView name, const QVariantList &arguments) {
            QDBusMessage out = QDBusMessage::createTargetedSignal(caller, jobPath, QString(busJobInterface), QString(name));
            out.setArguments(arguments);
            connection.send(out);
        };
        if (member == methodSwapOffAll || member == methodSwapOff) {
            replyWithJob();
            signal(path, signalSwapOffProgress, {QByteArrayLiteral("/swapfile"), qulonglong(2048)});
            signal(path, signalSwapOffProgress, {QByteArrayLiteral("/swapfile"), qulonglong(1024)});
            signal(
                path,
                signalSwapOffCompleted,
                {QVariant::fromValue(QList<QByteArray>{QByteArrayLiteral("/swapfile")}), QVariant::fromValue(QList<int>{5}), qulonglong(2048), qulonglong(0)});
            return true;
        }
        if (member == methodReadResidency) {
            QList<QByteArray> paths;
            message.arguments().at(0).value<QDBusArgument>() >> paths;
            QList<FakeFile> files;
            for (qsizetype i = 0; i < paths.size(); ++i) {
                FakeFile file;
                file.device = 1;
                file.inode = 100 + qulonglong(i);
                file.sizeBytes = 4 * 4096;
                file.pages = 4;
                file.resident = 3;
                file.method = QStringLiteral("cachestat");
                file.histogram = {1, 2};
                files << file;
            }
            const QString other = QString(busJobPathPrefix) + QStringLiteral("999");
            QList<FakeFile> otherFiles = files;
            for (FakeFile &file : otherFiles) {
                file.inode += 5000; // another job's answer
            }
            if (residencyMode == QLatin1String("signals-first")) {
                // Sent before the reply: the client has no path yet.
                signal(other, signalResidencyCompleted, {QVariant::fromValue(otherFiles)});
                signal(path, signalResidencyCompleted, {QVariant::fromValue(files)});
                replyWithJob();
            } else if (residencyMode == QLatin1String("other-job")) {
                replyWithJob();
                signal(other, signalJobFailed, {QString(errorNotPermitted), QStringLiteral("Not this job.")});
                signal(other, signalResidencyCompleted, {QVariant::fromValue(otherFiles)});
                signal(path, signalResidencyCompleted, {QVariant::fromValue(files)});
            } else if (residencyMode == QLatin1String("failed")) {
                replyWithJob();
                signal(path, signalJobFailed, {QString(errorNotPermitted), QStringLiteral("/secret is not a regular file.")});
            } else if (residencyMode == QLatin1String("malformed")) {
                replyWithJob();
                signal(path, signalResidencyCompleted, {QVariant::fromValue(files + files)}); // twice the files asked for
            } else {
                replyWithJob();
                signal(path, signalResidencyCompleted, {QVariant::fromValue(files)});
            }
            return true;
        }
        if (member == methodTrace && traceMode == QLatin1String("late-reply")) {
            // As when polkit's dialog is still open: the job's path comes late.
            m_slowJobs.insert(path);
            QTimer::singleShot(500, replyWithJob);
            return true;
        }
        if (member == methodTrace) {
            replyWithJob();
            signal(path, signalTracing, {});
            const int pid = int(message.arguments().at(0).toUInt());
            QList<FakeEvent> events{{0, 1000, pid, 8, 1, 42, 0, 4, 0, 0, QString()}, {5, 2000, pid, 8, 0, 0, 0, 0, 2048, 16384, QStringLiteral("RA")}};
            const auto completed = [signal, path, events](const QString &endReason) {
                signal(path, signalTraceCompleted, {QVariant::fromValue(events), qulonglong(3), true, true, endReason});
            };
            if (traceMode == QLatin1String("failed-signal")) {
                signal(path, signalJobFailed, {QStringLiteral("Cancelled"), QStringLiteral("Another program cancelled the trace.")});
            } else if (traceMode == QLatin1String("slow")) {
                m_slowJobs.insert(path);
                QTimer::singleShot(1500, [this, path, completed] {
                    if (m_slowJobs.remove(path)) {
                        completed(QStringLiteral("exited"));
                    }
                });
            } else {
                QTimer::singleShot(50, [completed, mode = traceMode] {
                    completed(mode);
                });
            }
            return true;
        }
        if (member == methodReclaim) {
            replyWithJob();
            if (reclaimMode == QLatin1String("failed")) {
                signal(path, signalJobFailed, {QStringLiteral("NotPermitted"), QStringLiteral("Not your cgroup.")});
            } else {
                signal(path, signalReclaimCompleted, {qulonglong(1 << 20), qulonglong(4096), false});
            }
            return true;
        }
        connection.send(message.createErrorReply(QString(errorUnsupported), QStringLiteral("The fake does not do %1.").arg(member)));
        return true;
    }

private:
    bool handleJobCall(const QDBusMessage &message, const QDBusConnection &connection)
    {
        if (message.interface() != busJobInterface || message.member() != methodJobCancel) {
            connection.send(message.createErrorReply(QStringLiteral("org.freedesktop.DBus.Error.UnknownMethod"), QStringLiteral("No such method.")));
            return true;
        }
        say(QStringLiteral("cancel ") + message.path());
        connection.send(message.createReply());
        if (m_slowJobs.remove(message.path())) {
            QDBusMessage failed = QDBusMessage::createTargetedSignal(message.service(), message.path(), QString(busJobInterface), QString(signalJobFailed));
            failed << QString(errorCancelled) << QStringLiteral("The trace was cancelled.");
            connection.send(failed);
        }
        return true;
    }

    int m_jobs = 0;
    QSet<QString> m_slowJobs;
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication application(argc, argv);
    qDBusRegisterMetaType<FakeFile>();
    qDBusRegisterMetaType<QList<FakeFile>>();
    qDBusRegisterMetaType<FakeEvent>();
    qDBusRegisterMetaType<QList<FakeEvent>>();
    qDBusRegisterMetaType<FakeArea>();
    qDBusRegisterMetaType<QList<FakeArea>>();
    qDBusRegisterMetaType<QList<QByteArray>>();
    qDBusRegisterMetaType<QMap<QString, qulonglong>>();

    FakeHelper fake;
    QStringList command;
    const QStringList arguments = application.arguments().mid(1);
    for (qsizetype i = 0; i < arguments.size(); ++i) {
        const QString &argument = arguments.at(i);
        const QString value = i + 1 < arguments.size() ? arguments.at(i + 1) : QString();
        if (argument == QLatin1String("--")) {
            command = arguments.mid(i + 1);
            break;
        }
        if (argument == QLatin1String("--drop-caches-error")) {
            fake.dropCachesError = value;
        } else if (argument == QLatin1String("--residency")) {
            fake.residencyMode = value;
        } else if (argument == QLatin1String("--trace")) {
            fake.traceMode = value;
        } else if (argument == QLatin1String("--reclaim")) {
            fake.reclaimMode = value;
        } else {
            std::fprintf(stderr, "cachescope-fake-helper: unknown argument %s\n", argument.toUtf8().constData());
            return 2;
        }
        ++i;
    }

    QDBusConnection bus = QDBusConnection::sessionBus();
    if (!bus.isConnected() || !bus.registerVirtualObject(QString(busObjectPath), &fake, QDBusConnection::SubPath) || !bus.registerService(QString(busName))) {
        std::fprintf(stderr, "cachescope-fake-helper: cannot own %s on the session bus\n", busName.data());
        return 2;
    }
    if (command.isEmpty()) {
        say(QStringLiteral("ready"));
        return application.exec();
    }
    QProcess child;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("CACHESCOPE_HELPER_BUS"), QStringLiteral("session"));
    child.setProcessEnvironment(environment);
    child.setProcessChannelMode(QProcess::ForwardedChannels);
    QObject::connect(&child, &QProcess::finished, &application, [&application](int exitCode, QProcess::ExitStatus status) {
        application.exit(status == QProcess::NormalExit ? exitCode : 128);
    });
    QObject::connect(&child, &QProcess::errorOccurred, &application, [&application, &command](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            std::fprintf(stderr, "cachescope-fake-helper: cannot run %s\n", command.front().toUtf8().constData());
            application.exit(127);
        }
    });
    child.start(command.front(), command.mid(1));
    return application.exec();
}
