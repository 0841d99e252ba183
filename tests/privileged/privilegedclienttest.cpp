// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The helper's client over D-Bus, against cachescope-fake-helper on the
// private session bus ctest runs in (CACHESCOPE_HELPER_BUS=session), whatever
// the uid: every D-Bus error name becomes a Failure with a sentence; each
// method is sent with the XML's signature and polkit's interaction allowed,
// and its answer read; a job's signals that come before the method's reply
// are kept, those of another job and those of a peer that does not own the
// helper's name are dropped; Failed is mapped as a method's error; a cancel
// reaches the job, also one made before the job's path came; a helper that
// leaves the bus mid-job, a malformed answer and a missing helper each end
// in a sentence.

#include "helperbus.h"
#include "helperprotocol.h"
#include "privileged.h"

#include <QDBusConnection>
#include <QDBusConnectionInterface>
#include <QDBusMetaType>
#include <QElapsedTimer>
#include <QProcess>
#include <QTest>
#include <QTimer>

#include <unistd.h>

using namespace Cachescope;
using namespace Cachescope::Privileged;
using namespace Cachescope::HelperProtocol;

Q_DECLARE_METATYPE(Cachescope::Privileged::Failure)

namespace
{

// TraceCompleted's event, as an impostor sends it.
struct ImpostorEvent {
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

} // namespace

Q_DECLARE_METATYPE(ImpostorEvent)

namespace
{

QDBusArgument &operator<<(QDBusArgument &argument, const ImpostorEvent &event)
{
    argument.beginStructure();
    argument << event.kind << event.timeNs << event.pid << event.major << event.minor << event.inode << event.firstPage << event.pageCount << event.sector
             << event.bytes << event.rwbs;
    argument.endStructure();
    return argument;
}

const QDBusArgument &operator>>(const QDBusArgument &argument, ImpostorEvent &)
{
    return argument;
}

// One cachescope-fake-helper, owning the helper's name on the session bus
// while it lives.
class FakeHelper
{
public:
    explicit FakeHelper(const QStringList &arguments = {})
    {
        m_process.setProgram(QStringLiteral(CACHESCOPE_FAKE_HELPER));
        m_process.setArguments(arguments);
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start();
        if (m_process.waitForReadyRead(10000)) {
            m_output = m_process.readAll();
        }
    }
    ~FakeHelper()
    {
        stop();
    }
    [[nodiscard]] bool ready() const
    {
        return m_output.startsWith("ready");
    }
    // Everything it printed so far ("cancel PATH" lines).
    [[nodiscard]] QByteArray output()
    {
        m_output += m_process.readAll();
        return m_output;
    }
    void stop()
    {
        if (m_process.state() == QProcess::NotRunning) {
            return;
        }
        m_process.kill();
        m_process.waitForFinished(10000);
        // Gone from the bus before the next test's fake takes the name.
        QDBusConnectionInterface *bus = QDBusConnection::sessionBus().interface();
        for (int i = 0; i < 100 && bus->isServiceRegistered(QString(busName)).value(); ++i) {
            QTest::qWait(20);
        }
    }

private:
    QProcess m_process;
    QByteArray m_output;
};

#define START_FAKE(name, ...)                                                                                                                                  \
    FakeHelper name{__VA_ARGS__};                                                                                                                              \
    QVERIFY2(name.ready(), "cachescope-fake-helper did not start")

Request residencyOf(int paths, int buckets = 2)
{
    QList<QByteArray> names;
    for (int i = 0; i < paths; ++i) {
        names << QByteArrayLiteral("/fake/file") + QByteArray::number(i);
    }
    return residencyRequest(names, buckets);
}

} // namespace

class PrivilegedClientTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("CACHESCOPE_HELPER_BUS", "session");
        QVERIFY(helperOnSessionBus());
        if (!QDBusConnection::sessionBus().isConnected()) {
            QSKIP("no session bus: ctest runs in dbus-run-session (tools/dev test)");
        }
        qDBusRegisterMetaType<ImpostorEvent>();
        qDBusRegisterMetaType<QList<ImpostorEvent>>();
    }

    // Every error name of org.kde.cachescope.Helper1.xml and the bus's own
    // becomes a Failure with a sentence: the helper's own where it gave
    // one, else ours.
    void errorMapping_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("message");
        QTest::addColumn<Failure>("failure");
        QTest::addColumn<QString>("sentence");

        const QString said = QStringLiteral("What the helper said.");
        const auto row = [&](const char *tag, const QString &name, const QString &message, Failure failure, const QString &sentence) {
            QTest::newRow(tag) << name << message << failure << sentence;
        };
        row("InvalidArgument", QString(errorInvalidArgument), said, Failure::InvalidRequest, said);
        row("InvalidArgument, no text", QString(errorInvalidArgument), QString(), Failure::InvalidRequest, QStringLiteral("refused the request's arguments"));
        row("NotPermitted", QString(errorNotPermitted), said, Failure::Refused, said);
        row("NotAuthorized", QString(errorNotAuthorized), said, Failure::NotAuthorized, QStringLiteral("You are not authorized to do this"));
        row("NotAuthorized, short", QStringLiteral("NotAuthorized"), said, Failure::NotAuthorized, QStringLiteral("You are not authorized"));
        row("NotEnoughMemory", QString(errorNotEnoughMemory), said, Failure::NotEnoughMemory, said);
        row("Unsupported", QString(errorUnsupported), said, Failure::Unsupported, said);
        row("SystemFailure", QString(errorSystemFailure), said, Failure::Failed, said);
        row("SystemFailure, no text", QString(errorSystemFailure), QString(), Failure::Failed, QStringLiteral("failed and gave no reason"));
        row("AlreadyDone", QString(errorAlreadyDone), said, Failure::NothingToDo, said);
        row("CallerUnknown", QString(errorCallerUnknown), QString(), Failure::Refused, QStringLiteral("could not tell who asks"));
        row("Busy", QString(errorBusy), QString(), Failure::Busy, QStringLiteral("is busy with other requests"));
        row("Cancelled", QString(errorCancelled), said, Failure::Cancelled, said);
        row("Cancelled, short", QStringLiteral("Cancelled"), QString(), Failure::Cancelled, QStringLiteral("was cancelled"));
        row("Timeout", QString(errorTimeout), QString(), Failure::Timeout, QStringLiteral("at its deadline"));
        row("a newer helper's error", QString(errorPrefix) + QStringLiteral("Frobnicated"), said, Failure::Failed, said);
        const QString bus = QStringLiteral("org.freedesktop.DBus.Error.");
        const QString notInstalled = QStringLiteral("The Cachescope helper is not installed: the system bus cannot start org.kde.cachescope.Helper1.");
        row("ServiceUnknown", bus + QStringLiteral("ServiceUnknown"), said, Failure::Unavailable, notInstalled);
        row("NameHasNoOwner", bus + QStringLiteral("NameHasNoOwner"), said, Failure::Unavailable, notInstalled);
        row("Spawn.ChildExited",
            bus + QStringLiteral("Spawn.ChildExited"),
            said,
            Failure::Unavailable,
            QStringLiteral("could not start the Cachescope helper: ") + said);
        const QString noAnswer = QStringLiteral("did not answer in time");
        row("NoReply", bus + QStringLiteral("NoReply"), said, Failure::Timeout, noAnswer);
        row("Timeout of the bus", bus + QStringLiteral("Timeout"), said, Failure::Timeout, noAnswer);
        row("TimedOut", bus + QStringLiteral("TimedOut"), said, Failure::Timeout, noAnswer);
        row("InvalidArgs", bus + QStringLiteral("InvalidArgs"), said, Failure::InvalidRequest, QStringLiteral("different versions of Cachescope"));
        row("UnknownMethod", bus + QStringLiteral("UnknownMethod"), said, Failure::Unavailable, QStringLiteral("does not offer this action"));
        row("UnknownObject", bus + QStringLiteral("UnknownObject"), said, Failure::Unavailable, QStringLiteral("does not offer this action"));
        row("AccessDenied", bus + QStringLiteral("AccessDenied"), said, Failure::Unavailable, QStringLiteral("D-Bus policy may be missing"));
        row("InteractiveAuthorizationRequired",
            bus + QStringLiteral("InteractiveAuthorizationRequired"),
            said,
            Failure::NotAuthorized,
            QStringLiteral("no dialog could ask"));
        row("Disconnected", bus + QStringLiteral("Disconnected"), said, Failure::Unavailable, QStringLiteral("Cannot reach the Cachescope helper: ") + said);
        row("anything else", bus + QStringLiteral("Failed"), said, Failure::Failed, QStringLiteral("The request to the Cachescope helper failed: ") + said);
        row("no name at all", QString(), QString(), Failure::Failed, QStringLiteral("no reason given"));
    }

    void errorMapping()
    {
        QFETCH(QString, name);
        QFETCH(QString, message);
        QFETCH(Failure, failure);
        QFETCH(QString, sentence);
        const Result result = resultOfError(name, message);
        QCOMPARE(result.failure, failure);
        QVERIFY(!result.ok());
        QVERIFY2(result.message.contains(sentence), qPrintable(result.message));
    }

    // Without anyone owning the name, on a bus that cannot start it.
    void helperMissing()
    {
        const Reply reply = runOnBus(dropCachesRequest(1));
        QCOMPARE(reply.failure, Failure::Unavailable);
        QVERIFY2(reply.message.contains(QLatin1String("not installed")), qPrintable(reply.message));
    }

    // The methods that answer at once: sent as the XML says (the fake
    // refuses any other signature, and a call without interaction allowed),
    // their answers read into the helper's reply keys.
    void methodsAnswerAtOnce()
    {
        START_FAKE(fake);
        const Reply drop = runOnBus(dropCachesRequest(3));
        QVERIFY2(drop.ok(), qPrintable(drop.message));
        const DropCachesResult figures = toDropCachesResult(drop);
        QCOMPARE(figures.level, 3);
        QCOMPARE(figures.before.cached, uint64_t(3000));
        QCOMPARE(figures.after.memFree, uint64_t(3090));

        const SwapResult on = toSwapResult(runOnBus(swapOnRequest(QString())));
        QVERIFY2(on.ok(), qPrintable(on.message));
        QCOMPARE(on.areas, QStringList{QStringLiteral("/swapfile")});
        QCOMPARE(on.priorities, QList<int>{5});
        QCOMPARE(on.outcomes.size(), 2);
        QCOMPARE(on.outcomes.at(1).name, QStringLiteral("/gone"));
        QCOMPARE(on.outcomes.at(1).outcome, QString(outcomeGone));
        QCOMPARE(on.outcomes.at(1).message, QStringLiteral("It is gone."));

        const Reply created = runOnBus(createExperimentSwapFileRequest(64LL << 20));
        QVERIFY2(created.ok(), qPrintable(created.message));
        QCOMPARE(created.data.value(replyPath).toString(), QLatin1String(experimentSwapPath));
        QCOMPARE(created.data.value(replySizeBytes).toULongLong(), 64ULL << 20);

        const Reply contained = runOnBus(containRequest(1234, 32LL << 20));
        QVERIFY2(contained.ok(), qPrintable(contained.message));
        QCOMPARE(contained.data.value(replyCgroupPath).toString(), QStringLiteral("/sys/fs/cgroup/cachescope/run-1"));
        QCOMPARE(contained.data.value(replyCgroupVersion).toInt(), 2);
        QCOMPARE(contained.data.value(keyLimitBytes).toLongLong(), 32LL << 20);

        // A method the fake does not do: its error, mapped.
        const Reply removed = runOnBus(removeExperimentSwapFileRequest());
        QCOMPARE(removed.failure, Failure::Unsupported);
        QVERIFY2(removed.message.contains(QLatin1String("The fake does not do")), qPrintable(removed.message));
    }

    void methodErrorMapped()
    {
        START_FAKE(fake, {QStringLiteral("--drop-caches-error"), QString(errorNotAuthorized)});
        const Reply reply = runOnBus(dropCachesRequest(1));
        QCOMPARE(reply.failure, Failure::NotAuthorized);
        QVERIFY2(reply.message.startsWith(QLatin1String("You are not authorized")), qPrintable(reply.message));
    }

    // A job's signals sent before the method's reply are kept until the
    // reply names the job; those of another job are dropped, before the
    // reply and after it.
    void residencySignalsBeforeTheReply_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("signals before the reply") << QStringLiteral("signals-first");
        QTest::newRow("another job's signals after it") << QStringLiteral("other-job");
        QTest::newRow("in order") << QStringLiteral("ok");
    }

    void residencySignalsBeforeTheReply()
    {
        QFETCH(QString, mode);
        START_FAKE(fake, {QStringLiteral("--residency"), mode});
        const ResidencyResult result = toResidencyResult(runOnBus(residencyOf(3)));
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.files.size(), size_t(3));
        for (size_t i = 0; i < result.files.size(); ++i) {
            const FileResidency &file = result.files[i];
            QCOMPARE(file.inode, uint64_t(100 + i)); // this job's answer, not job 999's
            QCOMPARE(file.method, QStringLiteral("cachestat"));
            QCOMPARE(file.pages, uint64_t(4));
            QCOMPARE(file.resident, uint64_t(3));
            QCOMPARE(file.histogram, (std::vector<uint64_t>{1, 2}));
        }
    }

    void residencyFailedMapped()
    {
        START_FAKE(fake, {QStringLiteral("--residency"), QStringLiteral("failed")});
        const ResidencyResult result = toResidencyResult(runOnBus(residencyOf(1)));
        QCOMPARE(result.failure, Failure::Refused);
        QCOMPARE(result.message, QStringLiteral("/secret is not a regular file."));
        QVERIFY(result.files.empty());
    }

    void residencyMalformedRefused()
    {
        START_FAKE(fake, {QStringLiteral("--residency"), QStringLiteral("malformed")});
        const ResidencyResult result = toResidencyResult(runOnBus(residencyOf(2)));
        QCOMPARE(result.failure, Failure::Failed);
        QVERIFY2(result.message.contains(QLatin1String("could not be read")), qPrintable(result.message));
        QVERIFY(result.files.empty());
    }

    // Tracing comes as progress (the held process is let go then), the
    // capture with TraceCompleted, within the limits.
    void traceCompletes_data()
    {
        QTest::addColumn<QString>("endReason");
        QTest::newRow("exited") << QStringLiteral("exited");
        QTest::newRow("cancelled at the helper") << QStringLiteral("cancelled");
        QTest::newRow("credentials") << QStringLiteral("credentials");
    }

    void traceCompletes()
    {
        QFETCH(QString, endReason);
        START_FAKE(fake, {QStringLiteral("--trace"), endReason});
        int tracing = 0;
        const Reply reply = runOnBus(traceRequest(4321, 5), [&tracing](const QVariantMap &data) {
            tracing += data.value(progressTracing).toBool() ? 1 : 0;
        });
        QVERIFY2(reply.ok(), qPrintable(reply.message));
        QCOMPARE(tracing, 1);
        QCOMPARE(QString::fromStdString(reply.capture.endReason), endReason);
        QCOMPARE(reply.capture.events.size(), size_t(2));
        QCOMPARE(reply.capture.lostEvents, uint64_t(3));
        QVERIFY(reply.capture.usageEvents);
        QVERIFY(reply.capture.blockEvents);
        const Trace::RawEvent &added = reply.capture.events[0];
        QCOMPARE(added.kind, Trace::EventKind::Added);
        QCOMPARE(added.pid, 4321);
        QCOMPARE(added.inode, uint64_t(42));
        QCOMPARE(added.pageCount, uint64_t(4));
        const Trace::RawEvent &block = reply.capture.events[1];
        QCOMPARE(block.kind, Trace::EventKind::BlockIssue);
        QCOMPARE(block.sector, uint64_t(2048));
        QCOMPARE(block.bytes, uint32_t(16384));
        QCOMPARE(block.rwbs, std::string("RA"));
        QCOMPARE(block.inode, uint64_t(0));
    }

    // Failed, named without the prefix, ends the job as a method error would.
    void traceFailedMapped()
    {
        START_FAKE(fake, {QStringLiteral("--trace"), QStringLiteral("failed-signal")});
        const Reply reply = runOnBus(traceRequest(1, 5));
        QCOMPARE(reply.failure, Failure::Cancelled);
        QCOMPARE(reply.message, QStringLiteral("Another program cancelled the trace."));
    }

    // Any peer can send a signal addressed to us: one that does not own the
    // helper's name is not taken for the job's, even with the job's path.
    void impostorSignalsIgnored()
    {
        START_FAKE(fake, {QStringLiteral("--trace"), QStringLiteral("slow")});
        QDBusConnection impostor = QDBusConnection::connectToBus(QDBusConnection::SessionBus, QStringLiteral("impostor"));
        QVERIFY(impostor.isConnected());
        const QString us = QDBusConnection::sessionBus().baseService();
        const QString job = QString(busJobPathPrefix) + QStringLiteral("1"); // the fake's first job
        const Reply reply = runOnBus(traceRequest(7, 5), [&](const QVariantMap &data) {
            if (!data.value(progressTracing).toBool()) {
                return;
            }
            QDBusMessage completed = QDBusMessage::createTargetedSignal(us, job, QString(busJobInterface), QString(signalTraceCompleted));
            completed << QVariant::fromValue(QList<ImpostorEvent>{}) << qulonglong(0) << false << false << QStringLiteral("impostor");
            QVERIFY(impostor.send(completed));
            QDBusMessage failed = QDBusMessage::createTargetedSignal(us, job, QString(busJobInterface), QString(signalJobFailed));
            failed << QString(errorNotAuthorized) << QStringLiteral("Forged.");
            QVERIFY(impostor.send(failed));
        });
        QDBusConnection::disconnectFromBus(QStringLiteral("impostor"));
        QVERIFY2(reply.ok(), qPrintable(reply.message));
        QCOMPARE(reply.capture.endReason, std::string("exited")); // the fake's, 1.5 s later
    }

    // A cancel reaches the job (its Cancel method) and ends the wait at once.
    void cancelReachesTheJob()
    {
        START_FAKE(fake, {QStringLiteral("--trace"), QStringLiteral("slow")});
        bool tracing = false;
        QElapsedTimer clock;
        clock.start();
        const Reply reply = runOnBus(
            traceRequest(7, 5),
            [&tracing](const QVariantMap &data) {
                tracing = tracing || data.value(progressTracing).toBool();
            },
            [&tracing] {
                return tracing;
            });
        QCOMPARE(reply.failure, Failure::Cancelled);
        QVERIFY2(clock.elapsed() < 1400, "the client waited for the job's end");
        QTRY_VERIFY2(fake.output().contains("cancel /org/kde/cachescope/Helper1/job/1"), fake.output().constData());
    }

    // Cancelled before the method's reply (polkit's dialog still open): the
    // wait ends at once, and the job is cancelled once its path comes.
    void cancelBeforeTheReply()
    {
        START_FAKE(fake, {QStringLiteral("--trace"), QStringLiteral("late-reply")});
        QElapsedTimer clock;
        clock.start();
        const Reply reply = runOnBus(traceRequest(7, 5), {}, [] {
            return true;
        });
        QCOMPARE(reply.failure, Failure::Cancelled);
        QVERIFY2(clock.elapsed() < 450, "the client waited for the method's reply");
        QVERIFY(!fake.output().contains("cancel"));
        QTRY_VERIFY2(fake.output().contains("cancel /org/kde/cachescope/Helper1/job/1"), fake.output().constData());
    }

    // The helper leaves the bus while its job runs: no more signals can
    // come, so the client says so instead of waiting for its timeout.
    void helperLeavesMidJob()
    {
        START_FAKE(fake, {QStringLiteral("--trace"), QStringLiteral("slow")});
        QElapsedTimer clock;
        clock.start();
        const Reply reply = runOnBus(traceRequest(7, 5), [&fake](const QVariantMap &data) {
            if (data.value(progressTracing).toBool()) {
                QTimer::singleShot(0, [&fake] {
                    fake.stop();
                });
            }
        });
        QCOMPARE(reply.failure, Failure::Failed);
        QVERIFY2(reply.message.contains(QLatin1String("stopped before it finished")), qPrintable(reply.message));
        QVERIFY(clock.elapsed() < 10000);
    }

    void swapOffProgressAndCompletion()
    {
        START_FAKE(fake);
        QList<uint64_t> used;
        const Reply reply = runOnBus(swapOffRequest(QString()), [&used](const QVariantMap &data) {
            QCOMPARE(data.value(progressArea).toString(), QStringLiteral("/swapfile"));
            used << data.value(progressSwapUsedBytes).toULongLong();
        });
        QVERIFY2(reply.ok(), qPrintable(reply.message));
        QCOMPARE(used, (QList<uint64_t>{2048, 1024}));
        const SwapResult off = toSwapResult(reply);
        QCOMPARE(off.areas, QStringList{QStringLiteral("/swapfile")});
        QCOMPARE(off.priorities, QList<int>{5});
        QCOMPARE(reply.data.value(replySwapUsedBefore).toULongLong(), 2048ULL);
        QCOMPARE(reply.data.value(replySwapUsedAfter).toULongLong(), 0ULL);
    }

    void reclaim_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<Failure>("failure");
        QTest::newRow("ok") << QStringLiteral("ok") << Failure::None;
        QTest::newRow("failed") << QStringLiteral("failed") << Failure::Refused;
    }

    void reclaim()
    {
        QFETCH(QString, mode);
        QFETCH(Failure, failure);
        START_FAKE(fake, {QStringLiteral("--reclaim"), mode});
        const ReclaimResult result = toReclaimResult(runOnBus(reclaimRequest(QStringLiteral("/user.slice/app.scope"))));
        QCOMPARE(result.failure, failure);
        if (failure == Failure::None) {
            QCOMPARE(result.fileBytesBefore, uint64_t(1) << 20);
            QCOMPARE(result.fileBytesAfter, uint64_t(4096));
            QVERIFY(!result.stoppedAtDeadline);
        } else {
            QCOMPARE(result.message, QStringLiteral("Not your cgroup."));
        }
    }

    // The queue of the window, as a user: the same calls, one after another,
    // with progress. As root it acts in process instead (privilegedactionstest).
    void queueOverTheBus()
    {
        if (geteuid() == 0) {
            QSKIP("as root the queue acts in process, without the bus");
        }
        START_FAKE(fake);
        RequestQueue queue;
        QList<Operation> started;
        int progress = 0;
        connect(&queue, &RequestQueue::started, this, [&started](Operation operation) {
            started << operation;
        });
        connect(&queue, &RequestQueue::progress, this, [&progress](Operation, const QVariantMap &) {
            ++progress;
        });
        QStringList order;
        queue.enqueue(swapOffRequest(QString()), [&order](const Reply &reply) {
            order << (reply.ok() ? QStringLiteral("swapoff") : reply.message);
        });
        queue.enqueue(dropCachesRequest(1), [&order](const Reply &reply) {
            order << (reply.ok() ? QStringLiteral("drop") : reply.message);
        });
        QTRY_COMPARE(order, (QStringList{QStringLiteral("swapoff"), QStringLiteral("drop")}));
        QCOMPARE(started, (QList<Operation>{Operation::SwapOff, Operation::DropCaches}));
        QCOMPARE(progress, 2);
    }
};

QTEST_GUILESS_MAIN(PrivilegedClientTest)

#include "privilegedclienttest.moc"
