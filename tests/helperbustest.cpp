// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// End to end through a real system bus, a real polkitd and the installed
// helper, with the client library the CLI and the window use. Started by
// tests/helper-fixture.sh, once as cachescope-other (role "refused") and once
// as cachescope-user (role "allowed"); each test runs in one role only.
// CACHESCOPE_FIXTURE_DIR holds what the fixture made: active.swap (on, priority
// 7), inactive.swap (signature, off, not in fstab), rootfile (root, 0644),
// and a folder per user.

#include "helperlogic.h"
#include "privileged.h"
#include "procfs.h"
#include "residency.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

using namespace Cachescope;

namespace
{
QString role()
{
    return qEnvironmentVariable("CACHESCOPE_HELPER_ROLE");
}

std::string fixture(const char *name)
{
    return qEnvironmentVariable("CACHESCOPE_FIXTURE_DIR").toStdString() + '/' + name;
}

std::optional<SwapArea> activeArea(const std::string &path)
{
    const std::optional<std::vector<SwapArea>> swaps = readSwaps();
    if (swaps) {
        for (const SwapArea &area : *swaps) {
            if (area.filename == path) {
                return area;
            }
        }
    }
    return std::nullopt;
}

uint64_t residentPages(const std::string &path)
{
    const Residency residency = residencyOfPath(path);
    return residency.known() ? residency.resident : ~0ULL;
}

#define REQUIRE_ROLE(name)                                                                                                                                     \
    if (role() != QLatin1String(name)) {                                                                                                                       \
        QSKIP("runs as the " name " user");                                                                                                                    \
    }
} // namespace

class HelperBusTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (qEnvironmentVariableIsEmpty("CACHESCOPE_FIXTURE_DIR")) {
            QSKIP("run through tests/helper-fixture.sh (ctest -R helper-bus)");
        }
        QString reason;
        QVERIFY2(Privileged::helperAvailable(&reason), qPrintable(reason));
    }

    // The refused user: a clear "not authorized", and nothing changes.
    void refusedUserDropCaches()
    {
        REQUIRE_ROLE("refused");
        const std::string path = fixture("other/cached");
        TestUtil::makeColdFile(path, 4 << 20);
        TestUtil::readRange(path, 0, 4 << 20);
        const uint64_t pages = (4 << 20) / pageSize();
        QCOMPARE(residentPages(path), pages);
        const Privileged::DropCachesResult result = Privileged::dropCaches(1);
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY2(result.message.contains(QLatin1String("not authorized")), qPrintable(result.message));
        QCOMPARE(residentPages(path), pages);
    }

    void refusedUserSwapOff()
    {
        REQUIRE_ROLE("refused");
        const std::string swap = fixture("active.swap");
        QVERIFY(activeArea(swap));
        const Privileged::SwapResult result = Privileged::swapOff(QString::fromStdString(swap));
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(result.message.contains(QLatin1String("not authorized")));
        QVERIFY(activeArea(swap));
        QCOMPARE(activeArea(swap)->priority, 7);
    }

    void refusedUserResidency()
    {
        REQUIRE_ROLE("refused");
        const int fd = open(fixture("rootfile").c_str(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        const Privileged::ResidencyResult result = Privileged::residencyOfDescriptors({fd}, 8);
        close(fd);
        QCOMPARE(result.failure, Privileged::Failure::NotAuthorized);
        QVERIFY(result.files.empty());
    }

    // cachescope-cli's privileged commands go the same way, and say so.
    void refusedUserCli()
    {
        REQUIRE_ROLE("refused");
        const TestUtil::RunResult result = TestUtil::run(TestUtil::cliPath(), {QStringLiteral("drop-caches"), QStringLiteral("1")});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains("drop-caches: ") && result.err.contains("not authorized"), result.err.constData());
    }

    void cliThroughHelper()
    {
        REQUIRE_ROLE("allowed");
        const std::string path = fixture("rootfile");
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        QCOMPARE(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        close(fd);
        TestUtil::readRange(path, 2 << 20, 1 << 20);
        const QString file = QString::fromStdString(path);
        // Without --privileged the user is told it is hidden; with it, the truth.
        const TestUtil::RunResult plain = TestUtil::run(TestUtil::cliPath(), {QStringLiteral("status"), QStringLiteral("--json"), file});
        QCOMPARE(plain.exitCode, 0);
        QVERIFY(plain.out.contains("\"hidden\":true"));
        const TestUtil::RunResult privileged =
            TestUtil::run(TestUtil::cliPath(), {QStringLiteral("status"), QStringLiteral("--privileged"), QStringLiteral("--json"), file});
        QCOMPARE(privileged.exitCode, 0);
        const QJsonObject document = QJsonDocument::fromJson(privileged.out).object();
        QCOMPARE(document.value(QStringLiteral("privileged")).toBool(), true);
        const QJsonObject entry = document.value(QStringLiteral("files")).toArray().at(0).toObject();
        QCOMPARE(entry.value(QStringLiteral("hidden")).toBool(), false);
        QCOMPARE(entry.value(QStringLiteral("resident")).toInteger(), qint64((1 << 20) / pageSize()));

        const TestUtil::RunResult drop =
            TestUtil::run(TestUtil::cliPath(), {QStringLiteral("drop-caches"), QStringLiteral("pagecache"), QStringLiteral("--json")});
        QCOMPARE(drop.exitCode, 0);
        const QJsonObject dropped = QJsonDocument::fromJson(drop.out).object();
        QCOMPARE(dropped.value(QStringLiteral("level")).toInt(), 1);
        QVERIFY(dropped.value(QStringLiteral("before")).toObject().value(QStringLiteral("mem_total")).toInteger() > 0);
        QCOMPARE(residentPages(fixture("rootfile")), ~0ULL); // still hidden from us: no number
    }

    // The allowed user's drop_caches empties the page cache of a test file.
    void dropCachesEmptiesPageCache()
    {
        REQUIRE_ROLE("allowed");
        const std::string path = fixture("user/cached");
        TestUtil::makeColdFile(path, 8 << 20);
        TestUtil::readRange(path, 0, 8 << 20);
        const uint64_t pages = (8 << 20) / pageSize();
        QCOMPARE(residentPages(path), pages);
        if (const std::optional<uint64_t> fincore = TestUtil::fincoreResidentPages(path)) {
            QCOMPARE(*fincore, pages);
        }
        const Privileged::DropCachesResult result = Privileged::dropCaches(1);
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.level, 1);
        QVERIFY(result.before.memTotal > 0);
        QCOMPARE(result.after.memTotal, result.before.memTotal);
        QCOMPARE(residentPages(path), uint64_t(0));
        if (const std::optional<uint64_t> fincore = TestUtil::fincoreResidentPages(path)) {
            QCOMPARE(*fincore, uint64_t(0));
        }
    }

    // Residency through a passed descriptor: the user cannot see it (the
    // kernel would lie), the helper can, and it matches what was set up.
    void residencyThroughDescriptor()
    {
        REQUIRE_ROLE("allowed");
        const std::string path = fixture("rootfile");
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        QVERIFY(fd >= 0);
        // fadvise(DONTNEED) works on a read-only descriptor; then exactly 1 MiB and 512 KiB are read.
        QCOMPARE(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        TestUtil::readRange(path, 0, 1 << 20);
        TestUtil::readRange(path, 6 << 20, 512 << 10);
        QVERIFY(residencyOfPath(path).hidden);

        const Privileged::ResidencyResult result = Privileged::residencyOfDescriptors({fd}, 8);
        close(fd);
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.files.size(), size_t(1));
        const Privileged::FileResidency &file = result.files.front();
        const uint64_t pagesPerMiB = (1 << 20) / pageSize();
        QCOMPARE(file.sizeBytes, uint64_t(8 << 20));
        QCOMPARE(file.resident, pagesPerMiB + pagesPerMiB / 2);
        QCOMPARE(file.histogram.size(), size_t(8));
        QCOMPARE(file.histogram[0], pagesPerMiB);
        QCOMPARE(file.histogram[6], pagesPerMiB / 2);
        QCOMPARE(file.histogram[3], uint64_t(0));
        struct stat st;
        QVERIFY(stat(path.c_str(), &st) == 0);
        QCOMPARE(file.inode, uint64_t(st.st_ino));
    }

    void badDescriptorsRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("message");
        QTest::newRow("FIFO") << QStringLiteral("fifo") << QStringLiteral("is a FIFO, not a regular file");
        QTest::newRow("directory") << QStringLiteral("dir") << QStringLiteral("is a directory, not a regular file");
        QTest::newRow("O_PATH") << QStringLiteral("opath") << QStringLiteral("opened with O_PATH");
    }
    void badDescriptorsRefused()
    {
        REQUIRE_ROLE("allowed");
        QFETCH(QString, kind);
        QFETCH(QString, message);
        const std::string fifo = fixture("user/fifo");
        unlink(fifo.c_str());
        QVERIFY(mkfifo(fifo.c_str(), 0600) == 0);
        int fd = -1;
        if (kind == QLatin1String("fifo")) {
            fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        } else if (kind == QLatin1String("dir")) {
            fd = open(fixture("user").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        } else {
            fd = open(fixture("rootfile").c_str(), O_PATH | O_CLOEXEC);
        }
        QVERIFY(fd >= 0);
        const Privileged::ResidencyResult result = Privileged::residencyOfDescriptors({fd}, 8);
        close(fd);
        QCOMPARE(result.failure, Privileged::Failure::InvalidRequest);
        QVERIFY2(result.message.contains(message), qPrintable(result.message));
    }

    // swapoff / swapon round trip with the state file and the priority.
    void swapRoundTrip()
    {
        REQUIRE_ROLE("allowed");
        const std::string swap = fixture("active.swap");
        QVERIFY(activeArea(swap));
        QCOMPARE(activeArea(swap)->priority, 7);

        Privileged::SwapResult result = Privileged::swapOff(QString::fromStdString(swap));
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.areas, QStringList{QString::fromStdString(swap)});
        QCOMPARE(result.priorities, QList<int>{7});
        QVERIFY(!activeArea(swap));

        // The root-owned state file under /run records it with priority 7.
        struct stat st;
        QVERIFY(stat("/run/cachescope/swap-state", &st) == 0);
        QCOMPARE(st.st_uid, 0u);
        QVERIFY((st.st_mode & 022) == 0);
        std::ifstream in("/run/cachescope/swap-state");
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        QString error;
        const auto records = HelperLogic::parseSwapState(text, &error);
        QVERIFY2(records, qPrintable(error));
        QCOMPARE(records->size(), size_t(1));
        QCOMPARE(records->front().path, swap);
        QCOMPARE(records->front().priority, 7);

        // Turning it off again: nothing is active there any more.
        result = Privileged::swapOff(QString::fromStdString(swap));
        QCOMPARE(result.failure, Privileged::Failure::Refused);
        QVERIFY2(result.message.contains(QLatin1String("not an active swap area")), qPrintable(result.message));

        result = Privileged::swapOn(QString::fromStdString(swap));
        QVERIFY2(result.ok(), qPrintable(result.message));
        QCOMPARE(result.priorities, QList<int>{7});
        QVERIFY(activeArea(swap));
        QCOMPARE(activeArea(swap)->priority, 7);
        QVERIFY(access("/run/cachescope/swap-state", F_OK) != 0);
    }

    void swapOnOfUnknownAreaRefused()
    {
        REQUIRE_ROLE("allowed");
        const std::string swap = fixture("inactive.swap");
        const Privileged::SwapResult result = Privileged::swapOn(QString::fromStdString(swap));
        QCOMPARE(result.failure, Privileged::Failure::Refused);
        QVERIFY2(result.message.contains(QLatin1String("was not turned off by Cachescope and /etc/fstab does not declare it")), qPrintable(result.message));
        QVERIFY(!activeArea(swap));
    }

    void experimentSwapFile()
    {
        REQUIRE_ROLE("allowed");
        const std::string path = "/var/lib/cachescope/experiment.swap";
        Privileged::Result result = Privileged::createExperimentSwapFile(32 << 20);
        QVERIFY2(result.ok(), qPrintable(result.message));
        const std::optional<SwapArea> area = activeArea(path);
        QVERIFY(area);
        QCOMPARE(area->sizeBytes, uint64_t(32 << 20) - pageSize());
        result = Privileged::createExperimentSwapFile(32 << 20);
        QCOMPARE(result.failure, Privileged::Failure::NothingToDo);
        QVERIFY(result.message.contains(QLatin1String("already exists")));
        result = Privileged::removeExperimentSwapFile();
        QVERIFY2(result.ok(), qPrintable(result.message));
        QVERIFY(result.data.value(QStringLiteral("wasActive")).toBool());
        QVERIFY(!activeArea(path));
        result = Privileged::removeExperimentSwapFile();
        QCOMPARE(result.failure, Privileged::Failure::NothingToDo);
    }

    // A refusal through the bus reads as well as in-process.
    void badLevelThroughBus()
    {
        REQUIRE_ROLE("allowed");
        const Privileged::DropCachesResult result = Privileged::dropCaches(4);
        QCOMPARE(result.failure, Privileged::Failure::InvalidRequest);
        QVERIFY2(result.message.contains(QLatin1String("out of range (1 to 3)")), qPrintable(result.message));
    }
};

QTEST_GUILESS_MAIN(HelperBusTest)
#include "helperbustest.moc"
