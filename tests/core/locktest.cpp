// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Pinning (src/core/pin.*, cachescope-cli lock) on real files in a
// disk-backed scratch folder: locked pages stay through an eviction and
// through memory pressure in a memory-limited cgroup, RLIMIT_MEMLOCK refuses
// with the numbers and locks nothing, bad input names the path, --daemon
// writes its pid file once locked and releases on SIGTERM.

#include "cgroups/memorycgroup.h"
#include "pin.h"
#include "testutil.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

using namespace Cachescope;

namespace
{
const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));

uint64_t lockedBytesOfSelf()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmLck:", 0) == 0) {
            return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
        }
    }
    return 0;
}
} // namespace

class LockTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;
    std::string m_file; // 256 pages, cold

private Q_SLOTS:
    void init()
    {
        m_dir = TestUtil::scratchDir("lock");
        m_file = m_dir + "/pinned";
        TestUtil::makeColdFile(m_file, 256 * page);
    }

    void lockedPagesStayThroughAnEviction()
    {
        PinResult result = pinFiles({{m_file}});
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.pins->pages(), uint64_t(256));
        QCOMPARE(result.pins->residentPages(), uint64_t(256));
        TestUtil::adviseDontNeed(m_file);
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(256));
        // Released: the same eviction now takes them.
        result.pins.reset();
        TestUtil::adviseDontNeed(m_file);
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(0));
        QCOMPARE(lockedBytesOfSelf(), uint64_t(0));
    }

    void rangesAreRoundedToPages()
    {
        PinResult result = pinFiles({{m_file, 10 * page + 100, 3 * page}});
        QVERIFY2(result.ok(), result.error.c_str());
        const PinnedRange &range = result.pins->ranges().front();
        QCOMPARE(range.offset, 10 * page);
        QCOMPARE(range.pages, uint64_t(4)); // bytes 10p+100 .. 13p+100 touch pages 10-13
        QCOMPARE(TestUtil::pagesNow(m_file, 10 * page, 4 * page).resident, uint64_t(4));
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(4));
    }

    void badInputLocksNothing_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<uint64_t>("offset");
        QTest::addColumn<QString>("reason");
        QTest::newRow("missing") << QStringLiteral("nothing") << uint64_t(0) << QStringLiteral("No such file or directory");
        QTest::newRow("folder") << QStringLiteral("folder") << uint64_t(0) << QStringLiteral("a folder");
        QTest::newRow("fifo") << QStringLiteral("fifo") << uint64_t(0) << QStringLiteral("not a regular file");
        QTest::newRow("empty") << QStringLiteral("empty") << uint64_t(0) << QStringLiteral("empty: nothing to lock");
        QTest::newRow("beyond the end") << QStringLiteral("pinned") << uint64_t(1000 * page) << QStringLiteral("beyond its end");
    }

    void badInputLocksNothing()
    {
        QFETCH(QString, name);
        QFETCH(uint64_t, offset);
        QFETCH(QString, reason);
        QCOMPARE(mkdir((m_dir + "/folder").c_str(), 0755), 0);
        QCOMPARE(mkfifo((m_dir + "/fifo").c_str(), 0644), 0);
        QCOMPARE(close(open((m_dir + "/empty").c_str(), O_CREAT | O_WRONLY, 0644)), 0);
        const std::string bad = m_dir + '/' + name.toStdString();
        // The good file first: all or nothing, so it must not stay locked either.
        const PinResult result = pinFiles({{m_file}, {bad, offset, 0}});
        QVERIFY(!result.ok());
        QVERIFY2(QString::fromStdString(result.error).startsWith(QString::fromStdString(bad) + QLatin1Char(':')), result.error.c_str());
        QVERIFY2(QString::fromStdString(result.error).contains(reason), result.error.c_str());
        QCOMPARE(lockedBytesOfSelf(), uint64_t(0));
    }

    void theLimitRefusesWithTheNumbers()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev (root is not limited by RLIMIT_MEMLOCK)");
        }
        const std::string unreachable = TestUtil::whyOthersCannotReach(m_dir);
        if (!unreachable.empty()) {
            QSKIP(unreachable.c_str());
        }
        QCOMPARE(chmod(m_file.c_str(), 0644), 0);
        const TestUtil::ChildResult child = TestUtil::runInChild(
            [this]() -> QByteArray {
                struct rlimit limit = {64 * 1024, 64 * 1024};
                setrlimit(RLIMIT_MEMLOCK, &limit);
                const PinResult result = pinFiles({{m_file}});
                return QByteArray(result.ok() ? "locked" : result.error.c_str()) + '\n' + QByteArray::number(qulonglong(lockedBytesOfSelf()));
            },
            *uid);
        QVERIFY2(child.ok, qPrintable(child.failure));
        const QList<QByteArray> lines = child.output.split('\n');
        QVERIFY2(lines.value(0).contains("locking needs 1.0 MiB, but RLIMIT_MEMLOCK allows 64.0 KiB"), lines.value(0).constData());
        QCOMPARE(lines.value(1), QByteArray("0"));

        // The CLI says the same, exits 1, and its JSON has the numbers.
        const auto run = TestUtil::run(QStringLiteral("runuser"),
                                       {QStringLiteral("-u"),
                                        QString::fromLatin1(TestUtil::testUserName),
                                        QStringLiteral("--"),
                                        QStringLiteral("sh"),
                                        QStringLiteral("-c"),
                                        QStringLiteral("ulimit -l 64 && exec \"$0\" --json lock \"$1\""),
                                        TestUtil::cliPath(),
                                        QString::fromStdString(m_file)});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("nothing locked: locking needs 1.0 MiB"), run.err.constData());
        const QJsonObject json = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(json.value(QLatin1String("locked")).toBool(true), false);
        QCOMPARE(json.value(QLatin1String("needed_bytes")).toInteger(), qint64(256 * page));
        QCOMPARE(json.value(QLatin1String("limit_bytes")).toInteger(), qint64(64 * 1024));
    }

    void lockedPagesStayUnderPressureInALimitedCgroup()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("makes a memory cgroup: needs root");
        }
        std::string error;
        const std::optional<MemoryHierarchy> hierarchy = findMemoryHierarchy(defaultCgroupRoot, &error);
        if (!hierarchy) {
            QSKIP(error.c_str());
        }
        // A 64 MiB group: the pinned file (1 MiB) and a reader of 192 MiB.
        const std::string hog = m_dir + "/hog";
        TestUtil::makeColdFile(hog, 192ull << 20);
        const std::optional<std::string> cgroup = makeLimitedCgroup(*hierarchy, nextRunCgroupName(*hierarchy, 0), 64ull << 20, &error);
        QVERIFY2(cgroup, error.c_str());
        const TestUtil::ChildResult child = TestUtil::runInChild([&]() -> QByteArray {
            std::string why;
            if (!moveIntoCgroup(*cgroup, int(getpid()), &why)) {
                return QByteArray("join: ") + why.c_str();
            }
            const PinResult pinned = pinFiles({{m_file}});
            if (!pinned.ok()) {
                return QByteArray("pin: ") + pinned.error.c_str();
            }
            // Read the hog three times over: the group must reclaim all the while.
            std::vector<char> buffer(1 << 20);
            for (int round = 0; round < 3; ++round) {
                const int fd = open(hog.c_str(), O_RDONLY | O_CLOEXEC);
                while (read(fd, buffer.data(), buffer.size()) > 0) { }
                close(fd);
            }
            return QByteArray::number(qulonglong(TestUtil::pagesNow(m_file).resident)) + ' ' + QByteArray::number(qulonglong(TestUtil::pagesNow(hog).resident));
        });
        const bool removed = removeCgroup(*cgroup, &error);
        // The parent too, unless another run uses it (EBUSY leaves it).
        (void)rmdir(hierarchy->parent().c_str());
        QVERIFY2(child.ok, qPrintable(child.failure + QString::fromUtf8(child.output)));
        QVERIFY2(removed, error.c_str());
        const QList<QByteArray> figures = child.output.split(' ');
        QCOMPARE(figures.value(0).toULongLong(), qulonglong(256));
        // The pressure was real: most of the hog did not fit.
        QVERIFY2(figures.value(1).toULongLong() * page < (64ull << 20), child.output.constData());
    }

    void daemonHoldsUntilTerminated()
    {
        const std::string pidFile = m_dir + "/lock.pid";
        const auto run = TestUtil::run(TestUtil::cliPath(),
                                       {QStringLiteral("lock"),
                                        QStringLiteral("--daemon"),
                                        QStringLiteral("--pid-file"),
                                        QString::fromStdString(pidFile),
                                        QString::fromStdString(m_file)});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.out.contains("1 file, 1.0 MiB locked in memory (256 of 256 pages resident)"), run.out.constData());
        std::ifstream pidText(pidFile);
        pid_t pid = 0;
        pidText >> pid;
        QVERIFY(pid > 1);
        QVERIFY(kill(pid, 0) == 0);
        TestUtil::adviseDontNeed(m_file);
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(256));
        QCOMPARE(kill(pid, SIGTERM), 0);
        QTRY_VERIFY_WITH_TIMEOUT(access(pidFile.c_str(), F_OK) != 0, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(kill(pid, 0) != 0, 10000);
        TestUtil::adviseDontNeed(m_file);
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(0));
    }

    void cliRefusesPartLists()
    {
        // One missing path: nothing locked, no process left holding anything.
        const auto run =
            TestUtil::run(TestUtil::cliPath(),
                          {QStringLiteral("lock"), QStringLiteral("--daemon"), QString::fromStdString(m_file), QString::fromStdString(m_dir + "/nothing")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("nothing locked"), run.err.constData());
        QVERIFY2(run.err.contains("/nothing: No such file or directory"), run.err.constData());
        TestUtil::adviseDontNeed(m_file);
        QCOMPARE(TestUtil::pagesNow(m_file).resident, uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(LockTest)
#include "locktest.moc"
