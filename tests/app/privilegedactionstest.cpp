// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The window's privileged actions on the offscreen platform, where
// there is no system bus and no helper: the actions exist, are disabled and
// say why; a disabled action does nothing; requests queue in order; every
// failure kind becomes a sentence a person understands; the helper's
// residency answer becomes the heatmap's histogram (and a malformed one is
// refused); descriptors are only ever opened for regular files.

#include "privilegedactions.h"
#include "helperprotocol.h"
#include "privileged.h"
#include "residency.h"
#include "testutil.h"

#include <KActionCollection>
#include <KFormat>

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

using namespace Cachescope;
using namespace Cachescope::App;
using Privileged::Failure;
using Privileged::Result;
using Request = PrivilegedActions::Request;

namespace
{

constexpr uint64_t mib = 1024 * 1024;

const char *const actionNames[] = {
    "memory_drop_pagecache",
    "memory_drop_slab",
    "memory_drop_all",
    "swap_off_all",
    "swap_on_again",
    "swap_create_file",
    "swap_remove_file",
    "memory_drop_caches",
    "memory_swap",
};

QString bytes(uint64_t value)
{
    return KFormat().formatByteSize(double(value));
}

QVariantMap meminfo(uint64_t cached, uint64_t free, uint64_t available, uint64_t slab)
{
    return {{QStringLiteral("Cached"), qulonglong(cached)},
            {QStringLiteral("MemFree"), qulonglong(free)},
            {QStringLiteral("MemAvailable"), qulonglong(available)},
            {QStringLiteral("SReclaimable"), qulonglong(slab)}};
}

Privileged::FileResidency residency(const char *method, uint64_t sizeBytes, std::vector<uint64_t> histogram)
{
    Privileged::FileResidency file;
    file.method = QLatin1String(method);
    file.sizeBytes = sizeBytes;
    file.pages = pagesFor(sizeBytes);
    file.histogram = std::move(histogram);
    for (uint64_t pages : file.histogram) {
        file.resident += pages;
    }
    return file;
}

} // namespace

Q_DECLARE_METATYPE(Cachescope::Privileged::FileResidency)
Q_DECLARE_METATYPE(Cachescope::Privileged::Result)

class PrivilegedActionsTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;

    // Everything here is about the plain test environment, without a helper.
    // QSKIP leaves only the function it is in, so the test returns itself
    // when this says it is skipped: the checks trigger every action, which
    // as root would then act for real (docs/helper-security.md rule 15).
    [[nodiscard]] bool skippedAsHelperThere(const PrivilegedActions &actions)
    {
        if (!actions.isAvailable()) {
            return false;
        }
        QTest::qSkip("The Cachescope helper is reachable here, or this runs as root, which acts without it; these checks are for its absence",
                     __FILE__,
                     __LINE__);
        return true;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_dir = TestUtil::scratchDir("privilegedactionstest");
    }

    void actionsExistDisabledWithReason()
    {
        PrivilegedActions actions;
        if (skippedAsHelperThere(actions)) {
            return;
        }
        QVERIFY(!actions.unavailableReason().isEmpty());
        qInfo() << "Helper unavailable:" << actions.unavailableReason();
        KActionCollection collection(static_cast<QObject *>(nullptr));
        actions.setUpActions(&collection);
        for (const char *name : actionNames) {
            QAction *action = collection.action(QLatin1String(name));
            QVERIFY2(action, name);
            QVERIFY2(!action->isEnabled(), name);
            QCOMPARE(action->toolTip(), actions.unavailableReason());
            QVERIFY2(!action->text().isEmpty(), name);
        }
        QCOMPARE(actions.action(Request::DropPageCache), collection.action(QStringLiteral("memory_drop_pagecache")));
        QCOMPARE(actions.action(Request::Residency), nullptr);
        // The reason is one of the sentences of Privileged::helperAvailable.
        QString reason;
        QVERIFY(!Privileged::helperAvailable(&reason));
        QCOMPARE(actions.unavailableReason(), reason);
    }

    // As root the Memory menu works with no helper and no bus: the client acts
    // directly (docs/helper-security.md rule 15).
    void actionsEnabledAsRoot()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("needs root");
        }
        PrivilegedActions actions;
        QVERIFY(actions.isAvailable());
        QVERIFY(actions.unavailableReason().isEmpty());
        KActionCollection collection(static_cast<QObject *>(nullptr));
        actions.setUpActions(&collection);
        for (const char *name : actionNames) {
            QAction *action = collection.action(QLatin1String(name));
            QVERIFY2(action, name);
            QVERIFY2(action->isEnabled(), name);
        }
    }

    // With no swap area on, Turn Off All Swap has nothing to do: disabled,
    // saying why, and enabled again once there is swap (the window passes
    // every memory sample's SwapTotal).
    void swapOffNeedsSwap()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("needs the actions enabled: root acts without the helper");
        }
        PrivilegedActions actions;
        KActionCollection collection(static_cast<QObject *>(nullptr));
        actions.setUpActions(&collection);
        QAction *swapOff = actions.action(Request::SwapOffAll);
        const QString toolTip = swapOff->toolTip();
        QVERIFY(swapOff->isEnabled()); // before any sample: not known
        actions.setSwapTotal(0);
        QVERIFY(!swapOff->isEnabled());
        QCOMPARE(swapOff->toolTip(), QStringLiteral("No swap area is on: there is nothing to turn off"));
        for (const Request other : {Request::DropPageCache, Request::SwapOnAgain, Request::CreateSwapFile, Request::RemoveSwapFile}) {
            QVERIFY(actions.action(other)->isEnabled());
        }
        actions.setSwapTotal(uint64_t(1) << 30);
        QVERIFY(swapOff->isEnabled());
        QCOMPARE(swapOff->toolTip(), toolTip);
    }

    // A confirmation's button names what it does ("Drop Page Cache"), never
    // "Continue". Cancelled here: nothing is dropped.
    void confirmationsNameTheAction()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("needs the actions enabled: root acts without the helper");
        }
        QStandardPaths::setTestModeEnabled(true); // "don't ask again" lands in a test configuration
        PrivilegedActions actions;
        KActionCollection collection(static_cast<QObject *>(nullptr));
        actions.setUpActions(&collection);
        actions.setConfirmationsEnabled(true);
        for (const Request request : {Request::DropPageCache, Request::RemoveSwapFile}) {
            QStringList buttons;
            QTimer poll;
            connect(&poll, &QTimer::timeout, this, [&] {
                for (QWidget *widget : QApplication::topLevelWidgets()) {
                    auto *dialog = qobject_cast<QDialog *>(widget);
                    if (!dialog || !dialog->isVisible()) {
                        continue;
                    }
                    for (QPushButton *button : dialog->findChildren<QPushButton *>()) {
                        buttons << button->text().remove(QLatin1Char('&'));
                    }
                    dialog->reject();
                    poll.stop();
                }
            });
            poll.start(20);
            actions.action(request)->trigger();
            QVERIFY2(!poll.isActive(), "no confirmation came");
            QVERIFY2(buttons.contains(actions.action(request)->text()), qPrintable(buttons.join(QStringLiteral(", "))));
            QVERIFY2(!buttons.contains(QStringLiteral("Continue")), qPrintable(buttons.join(QStringLiteral(", "))));
            QCOMPARE(actions.pendingRequests(), 0); // cancelled: nothing asked of the helper
        }
    }

    void triggeringDisabledActionDoesNothing()
    {
        PrivilegedActions actions;
        if (skippedAsHelperThere(actions)) {
            return;
        }
        actions.setConfirmationsEnabled(false);
        KActionCollection collection(static_cast<QObject *>(nullptr));
        actions.setUpActions(&collection);
        QSignalSpy messages(&actions, &PrivilegedActions::message);
        QSignalSpy markers(&actions, &PrivilegedActions::markerRequested);
        QSignalSpy busy(&actions, &PrivilegedActions::busyChanged);
        for (const char *name : actionNames) {
            collection.action(QLatin1String(name))->trigger();
        }
        QCOMPARE(messages.count(), 0);
        QCOMPARE(markers.count(), 0);
        QCOMPARE(busy.count(), 0);
        QCOMPARE(actions.pendingRequests(), 0);
    }

    void queueKeepsOrder()
    {
        // The client queue itself: both callbacks run, the first one first.
        Privileged::RequestQueue queue;
        QStringList order;
        if (TestUtil::isRoot()) {
            // As root the queue runs the helper's own actions in this process
            // (docs/helper-security.md rule 15), in a thread: requests its
            // checks refuse, so that nothing on this machine changes.
            queue.enqueue(Privileged::dropCachesRequest(7), [&order](const Result &result) {
                QCOMPARE(result.failure, Failure::InvalidRequest);
                order << QStringLiteral("first");
            });
            queue.enqueue(Privileged::swapOnRequest(QStringLiteral("/nonexistent/never-recorded.swap")), [&order](const Result &result) {
                QVERIFY(!result.ok());
                QVERIFY(result.failure != Failure::Unavailable);
                order << QStringLiteral("second");
            });
            QTRY_COMPARE(order, (QStringList{QStringLiteral("first"), QStringLiteral("second")}));
            QCOMPARE(queue.pending(), 0);
            return;
        }
        queue.enqueue(Privileged::dropCachesRequest(1), [&order](const Result &result) {
            QCOMPARE(result.failure, Failure::Unavailable);
            order << QStringLiteral("first");
        });
        queue.enqueue(Privileged::swapOffRequest(QString()), [&order](const Result &result) {
            QCOMPARE(result.failure, Failure::Unavailable);
            order << QStringLiteral("second");
        });
        QTRY_COMPARE(order, (QStringList{QStringLiteral("first"), QStringLiteral("second")}));
        QCOMPARE(queue.pending(), 0);
    }

    void requestsWithoutHelperReportInOrder()
    {
        PrivilegedActions actions;
        if (skippedAsHelperThere(actions)) {
            return;
        }
        actions.setConfirmationsEnabled(false);
        QSignalSpy messages(&actions, &PrivilegedActions::message);
        QSignalSpy busy(&actions, &PrivilegedActions::busyChanged);
        actions.dropCaches(1);
        actions.swapOffAll();
        QTRY_COMPARE(messages.count(), 2);
        QCOMPARE(messages.at(0).at(0).toString(), QStringLiteral("Dropping the page cache failed: %1").arg(actions.unavailableReason()));
        QCOMPARE(messages.at(0).at(1).toBool(), true);
        QCOMPARE(messages.at(1).at(0).toString(), QStringLiteral("Turning swap off failed: %1").arg(actions.unavailableReason()));
        QTRY_COMPARE(actions.pendingRequests(), 0);
        QVERIFY(!busy.isEmpty());
        QCOMPARE(busy.last().at(0).toBool(), false);
    }

    void dropSaysItWritesFirstAndThatTheCacheChanged()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("drops caches for real only as root (the helper's action then runs in this process)");
        }
        PrivilegedActions actions;
        actions.setConfirmationsEnabled(false);
        QSignalSpy progress(&actions, &PrivilegedActions::progress);
        QSignalSpy changed(&actions, &PrivilegedActions::pageCacheChanged);
        // 32 MiB written and not synced: Dirty for the next 30 s (dirty_expire_centisecs),
        // unless sync() writes it, which the drop does first.
        const std::string path = TestUtil::scratchDir("privileged-drop") + "/unsaved";
        {
            const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            QVERIFY(fd >= 0);
            const std::string chunk(1 << 20, 'x');
            for (int i = 0; i < 32; ++i) {
                QCOMPARE(::write(fd, chunk.data(), chunk.size()), ssize_t(chunk.size()));
            }
            ::close(fd);
        }
        actions.dropCaches(1);
        QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, 120000);
        QCOMPARE(changed.at(0).at(0).toString(), PrivilegedActions::markerLabel(Request::DropPageCache));
        QVERIFY(!progress.isEmpty());
        const QString first = progress.at(0).at(0).toString();
        QVERIFY2(first.startsWith(QLatin1String("Dropping caches: writing ")) && first.contains(QLatin1String("unsaved")), qPrintable(first));
        // Written, then dropped: nothing of it dirty, nothing cached.
        QCOMPARE(TestUtil::pagesNow(path).resident, uint64_t(0));
        std::remove(path.c_str());
    }

    void badDropLevelIsRefused()
    {
        PrivilegedActions actions;
        actions.setConfirmationsEnabled(false);
        QSignalSpy messages(&actions, &PrivilegedActions::message);
        actions.dropCaches(4);
        QCOMPARE(messages.count(), 1);
        QVERIFY(messages.at(0).at(0).toString().contains(QLatin1String("no drop_caches level 4")));
        QCOMPARE(actions.pendingRequests(), 0);
    }

    void failureMessages_data()
    {
        QTest::addColumn<Request>("request");
        QTest::addColumn<Result>("result");
        QTest::addColumn<Failure>("failure");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("isError");

        // The D-Bus errors of org.kde.cachescope.Helper1.xml, and the bus's own.
        using namespace HelperProtocol;
        const auto fromBus = [](QLatin1StringView name, const QString &message) {
            return Privileged::resultOfError(QString(name), message);
        };
        const QString notAuthorized = QStringLiteral(
            "Dropping the page cache failed: You are not authorized to do this: polkit refused the request. Ask an administrator, or sign in as one.");
        QTest::newRow("denied") << Request::DropPageCache << fromBus(errorNotAuthorized, QStringLiteral("Not authorized.")) << Failure::NotAuthorized
                                << notAuthorized << true;
        // A job's Failed signal may name the error without its prefix.
        QTest::newRow("denied, short name") << Request::DropPageCache << Privileged::resultOfError(QStringLiteral("NotAuthorized"), QString())
                                            << Failure::NotAuthorized << notAuthorized << true;
        QTest::newRow("cancelled") << Request::SwapOffAll << fromBus(errorCancelled, QString()) << Failure::Cancelled
                                   << QStringLiteral("Turning swap off was cancelled: nothing changed.") << false;
        QTest::newRow("busy") << Request::DropAll << fromBus(errorBusy, QString()) << Failure::Busy
                              << QStringLiteral(
                                     "Dropping the page cache and the dentry and inode caches failed: The Cachescope helper is busy with other "
                                     "requests; try again when they have finished.")
                              << true;
        const QString missing = QStringLiteral("Swap holds 6.0 GiB but only 4.0 GiB of memory is available (margin 256 MiB): 2.3 GiB missing.");
        QTest::newRow("not enough memory") << Request::SwapOffAll << fromBus(errorNotEnoughMemory, missing) << Failure::NotEnoughMemory
                                           << QStringLiteral("Turning swap off failed: ") + missing << true;
        QTest::newRow("timeout") << Request::SwapOffAll
                                 << fromBus(QLatin1StringView("org.freedesktop.DBus.Error.NoReply"), QStringLiteral("Did not receive a reply"))
                                 << Failure::Timeout
                                 << QStringLiteral(
                                        "Turning swap off failed: The Cachescope helper did not answer in time. The operation may still be running; "
                                        "check again in a moment.")
                                 << true;
        QTest::newRow("unavailable") << Request::Residency
                                     << Result{Failure::Unavailable, QStringLiteral("There is no system D-Bus to reach the Cachescope helper."), {}}
                                     << Failure::Unavailable
                                     << QStringLiteral(
                                            "Reading the residency with administrator rights failed: There is no system D-Bus to reach the Cachescope "
                                            "helper.")
                                     << true;
        QTest::newRow("not installed") << Request::DropPageCache
                                       << fromBus(QLatin1StringView("org.freedesktop.DBus.Error.ServiceUnknown"),
                                                  QStringLiteral("The name org.kde.cachescope.Helper1 was not provided by any .service files"))
                                       << Failure::Unavailable
                                       << QStringLiteral(
                                              "Dropping the page cache failed: The Cachescope helper is not installed: the system bus cannot start "
                                              "org.kde.cachescope.Helper1.")
                                       << true;
        const QString notOff = QStringLiteral("Cachescope has not turned off any swap area, so there is nothing to turn on again.");
        QTest::newRow("nothing to do") << Request::SwapOnAgain << fromBus(errorAlreadyDone, notOff) << Failure::NothingToDo
                                       << QStringLiteral("Turning swap on again: nothing to do. ") + notOff << false;
        const QString tmpfs = QStringLiteral("/var/lib/cachescope is on tmpfs, which cannot hold swap.");
        QTest::newRow("unsupported") << Request::CreateSwapFile << fromBus(errorUnsupported, tmpfs) << Failure::Unsupported
                                     << QStringLiteral("Creating the experiment swap file failed: ") + tmpfs << true;
        const QString refused = QStringLiteral(
            "'/home/x/swap' was not turned off by Cachescope: the helper turns on only the areas it turned off itself, named exactly as it recorded them.");
        QTest::newRow("refused") << Request::SwapOnAgain << fromBus(errorNotPermitted, refused) << Failure::Refused
                                 << QStringLiteral("Turning swap on again failed: ") + refused << true;
        QTest::newRow("invalid") << Request::DropDentriesAndInodes << fromBus(errorInvalidArgument, QStringLiteral("Argument 'level' must be 1, 2 or 3."))
                                 << Failure::InvalidRequest
                                 << QStringLiteral("Dropping the dentry and inode caches failed: Argument 'level' must be 1, 2 or 3.") << true;
        QTest::newRow("failed without text") << Request::RemoveSwapFile << fromBus(errorSystemFailure, QString()) << Failure::Failed
                                             << QStringLiteral("Removing the experiment swap file failed: The Cachescope helper failed and gave no reason.")
                                             << true;
    }

    void failureMessages()
    {
        QFETCH(Request, request);
        QFETCH(Result, result);
        QFETCH(Failure, failure);
        QFETCH(QString, text);
        QFETCH(bool, isError);

        QCOMPARE(result.failure, failure);
        QCOMPARE(PrivilegedActions::failureText(request, result), text);
        PrivilegedActions actions;
        QSignalSpy messages(&actions, &PrivilegedActions::message);
        QSignalSpy markers(&actions, &PrivilegedActions::markerRequested);
        actions.handleResult(request, result);
        QCOMPARE(messages.count(), 1);
        QCOMPARE(messages.at(0).at(0).toString(), text);
        QCOMPARE(messages.at(0).at(1).toBool(), isError);
        QCOMPARE(markers.count(), 0);
    }

    void dropCachesMarker_data()
    {
        QTest::addColumn<Request>("request");
        QTest::addColumn<QString>("label");
        QTest::addColumn<bool>("showsSlab");
        QTest::newRow("page cache") << Request::DropPageCache << QStringLiteral("Dropped page cache") << false;
        QTest::newRow("dentries and inodes") << Request::DropDentriesAndInodes << QStringLiteral("Dropped dentries and inodes") << true;
        QTest::newRow("both") << Request::DropAll << QStringLiteral("Dropped all caches") << true;
    }

    void dropCachesMarker()
    {
        QFETCH(Request, request);
        QFETCH(QString, label);
        QFETCH(bool, showsSlab);

        const Result result{Failure::None,
                            {},
                            {{QStringLiteral("level"), 1},
                             {QStringLiteral("before"), meminfo(3072 * mib, 512 * mib, 4096 * mib, 300 * mib)},
                             {QStringLiteral("after"), meminfo(100 * mib, 3484 * mib, 4100 * mib, 20 * mib)}}};
        PrivilegedActions actions;
        QSignalSpy markers(&actions, &PrivilegedActions::markerRequested);
        QSignalSpy messages(&actions, &PrivilegedActions::message);
        const QDateTime before = QDateTime::currentDateTime();
        actions.handleResult(request, result);
        QCOMPARE(markers.count(), 1);
        const QDateTime when = markers.at(0).at(0).toDateTime();
        QVERIFY(when >= before && when <= QDateTime::currentDateTime());
        QCOMPARE(markers.at(0).at(1).toString(), label);
        const QString details = markers.at(0).at(2).toString();
        QVERIFY2(details.contains(QStringLiteral("Cached: %1 → %2").arg(bytes(3072 * mib), bytes(100 * mib))), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("Free: %1 → %2").arg(bytes(512 * mib), bytes(3484 * mib))), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("Available: %1 → %2").arg(bytes(4096 * mib), bytes(4100 * mib))), qPrintable(details));
        QCOMPARE(details.contains(QStringLiteral("Reclaimable slab: %1 → %2").arg(bytes(300 * mib), bytes(20 * mib))), showsSlab);
        QCOMPARE(messages.count(), 1);
        QCOMPARE(messages.at(0).at(1).toBool(), false);
        QVERIFY(messages.at(0).at(0).toString().startsWith(bytes(2972 * mib)));
    }

    void swapOffMarker()
    {
        const Result result{Failure::None,
                            {},
                            {{QStringLiteral("turnedOff"), QStringList{QStringLiteral("/swapfile"), QStringLiteral("/dev/sda3")}},
                             {QStringLiteral("priorities"), QVariantList{7, -2}},
                             {QStringLiteral("swapUsedBefore"), qulonglong(200 * mib)},
                             {QStringLiteral("swapUsedAfter"), qulonglong(0)}}};
        PrivilegedActions actions;
        QSignalSpy markers(&actions, &PrivilegedActions::markerRequested);
        QSignalSpy progress(&actions, &PrivilegedActions::progress);
        actions.handleResult(Request::SwapOffAll, result);
        QCOMPARE(markers.count(), 1);
        QCOMPARE(markers.at(0).at(1).toString(), QStringLiteral("Swap off"));
        const QString details = markers.at(0).at(2).toString();
        QVERIFY2(details.contains(QStringLiteral("Turned off: /swapfile (priority 7), /dev/sda3 (priority -2)")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("Swap in use: %1 → %2").arg(bytes(200 * mib), bytes(0))), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("available")), qPrintable(details)); // our own meminfo afterwards
        QCOMPARE(progress.count(), 1);
        QCOMPARE(progress.at(0).at(1).toInt(), 100);
    }

    void histogramFromResidency_data()
    {
        QTest::addColumn<Privileged::FileResidency>("file");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<int>("method");
        QTest::addColumn<QString>("reason");

        const uint64_t page = pageSize();
        QTest::newRow("cachestat, 10 pages in 4 buckets")
            << residency("cachestat", 10 * page, {2, 0, 2, 3}) << true << int(ResidencyMethod::Cachestat) << QString();
        QTest::newRow("mincore, a page each") << residency("mincore", 3 * page - 1, {1, 0, 1}) << true << int(ResidencyMethod::Mincore) << QString();
        QTest::newRow("empty file") << residency("cachestat", 0, {}) << true << int(ResidencyMethod::Cachestat) << QString();
        QTest::newRow("unknown method") << residency("guess", 4 * page, {1, 1}) << false << int(ResidencyMethod::None) << QStringLiteral("unknown method");
        QTest::newRow("bucket overflows") << residency("cachestat", 10 * page, {2, 0, 4, 2}) << false << int(ResidencyMethod::Cachestat)
                                          << QStringLiteral("bucket 2 holds more resident pages");
        QTest::newRow("more buckets than pages") << residency("cachestat", 2 * page, {1, 1, 0}) << false << int(ResidencyMethod::Cachestat)
                                                 << QStringLiteral("3 buckets for 2 pages");
        QTest::newRow("no buckets") << residency("mincore", 2 * page, {}) << false << int(ResidencyMethod::Mincore) << QStringLiteral("no buckets");
        Privileged::FileResidency wrongPages = residency("cachestat", 10 * page, {1});
        wrongPages.pages = 11;
        QTest::newRow("pages do not match size") << wrongPages << false << int(ResidencyMethod::Cachestat) << QStringLiteral("11 pages for");
    }

    void histogramFromResidency()
    {
        QFETCH(Privileged::FileResidency, file);
        QFETCH(bool, ok);
        QFETCH(int, method);
        QFETCH(QString, reason);

        const Histogram histogram = PrivilegedActions::histogramFromResidency(file);
        QCOMPARE(histogram.ok(), ok);
        QCOMPARE(int(histogram.method), method);
        if (!ok) {
            QVERIFY2(QString::fromStdString(histogram.errorText).contains(reason), histogram.errorText.c_str());
            QVERIFY(histogram.resident.empty());
            return;
        }
        QVERIFY(histogram.known());
        QCOMPARE(histogram.windowFirst, 0u);
        QCOMPARE(histogram.pages, file.pages);
        QCOMPARE(histogram.detail, false);
        QCOMPARE(histogram.resident, file.histogram);
        // The buckets tile the file.
        QCOMPARE(histogram.firstPage(histogram.buckets()), file.pages);
    }

    // The helper computes its answer with histogramOfDescriptor; converted
    // back, it is the histogram the core gives us for the same file.
    void histogramMatchesCore()
    {
        const std::string path = m_dir + "/half.bin";
        TestUtil::makeColdFile(path, 8 * mib);
        const TestUtil::HeldPages firstThreeMiB(path, 0, 3 * mib); // see HeldPages
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        struct stat st = {};
        QCOMPARE(fstat(fd, &st), 0);
        const Histogram core = histogramOfDescriptor(fd, st, 100);
        const Residency total = residencyOfDescriptor(fd, st);
        ::close(fd);
        QVERIFY(core.known());

        Privileged::FileResidency file;
        file.method = QLatin1String(methodName(core.method));
        file.sizeBytes = uint64_t(st.st_size);
        file.pages = total.pages;
        file.resident = total.resident;
        file.histogram = core.resident;
        const Histogram converted = PrivilegedActions::histogramFromResidency(file);
        QVERIFY(converted.known());
        QCOMPARE(converted.buckets(), core.buckets());
        QCOMPARE(converted.resident, core.resident);
        for (int bucket = 0; bucket <= core.buckets(); ++bucket) {
            QCOMPARE(converted.firstPage(bucket), core.firstPage(bucket));
        }
        QCOMPARE(converted.resident.front(), converted.pagesIn(0)); // the first 3 MiB are resident
        QCOMPARE(converted.resident.back(), 0u);
    }

    void residencyRefusesWhatIsNotARegularFile_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("reason");
        QTest::newRow("fifo") << QStringLiteral("fifo") << QStringLiteral("not a regular file");
        QTest::newRow("directory") << QStringLiteral("folder") << QStringLiteral("is a folder");
        QTest::newRow("missing") << QStringLiteral("missing") << QStringLiteral("No such file");
    }

    void residencyRefusesWhatIsNotARegularFile()
    {
        QFETCH(QString, name);
        QFETCH(QString, reason);
        const std::string fifo = m_dir + "/fifo";
        if (access(fifo.c_str(), F_OK) != 0) {
            QCOMPARE(mkfifo(fifo.c_str(), 0600), 0);
        }
        const std::string folder = m_dir + "/folder";
        if (access(folder.c_str(), F_OK) != 0) {
            QCOMPARE(mkdir(folder.c_str(), 0700), 0);
        }
        const std::string path = m_dir + '/' + name.toStdString();

        PrivilegedActions actions;
        QSignalSpy messages(&actions, &PrivilegedActions::message);
        QSignalSpy ready(&actions, &PrivilegedActions::residencyReady);
        // A FIFO without a writer must not block the open: this returns at once.
        actions.requestResidency(path, 64);
        QCOMPARE(messages.count(), 1);
        const QString text = messages.at(0).at(0).toString();
        QVERIFY2(text.startsWith(QStringLiteral("Cannot show %1 with administrator rights: ").arg(QString::fromStdString(path))), qPrintable(text));
        QVERIFY2(text.contains(reason, Qt::CaseInsensitive), qPrintable(text));
        QCOMPARE(messages.at(0).at(1).toBool(), true);
        QCOMPARE(ready.count(), 0);
        QCOMPARE(actions.pendingRequests(), 0);
    }

    void residencyWithoutHelperSaysWhy()
    {
        PrivilegedActions actions;
        if (skippedAsHelperThere(actions)) {
            return;
        }
        const std::string path = m_dir + "/plain.bin";
        TestUtil::makeColdFile(path, 1 * mib);
        QSignalSpy messages(&actions, &PrivilegedActions::message);
        QSignalSpy ready(&actions, &PrivilegedActions::residencyReady);
        actions.showResidencyWithAdministratorRights(path, nullptr);
        QTRY_COMPARE(messages.count(), 1);
        QCOMPARE(messages.at(0).at(0).toString(),
                 QStringLiteral("Reading the residency with administrator rights failed: %1").arg(actions.unavailableReason()));
        QCOMPARE(ready.count(), 0);
        QTRY_COMPARE(actions.pendingRequests(), 0);
    }
};

QTEST_MAIN(PrivilegedActionsTest)

#include "privilegedactionstest.moc"
