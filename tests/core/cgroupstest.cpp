// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The memory cgroup readers: on captured fixtures of v1 and v2
// (tests/fixtures/cgroup/README.md), on bad files, and on the real v1
// hierarchy of this machine, with a cgroup of the test's own whose page
// cache is made by a child process.

#include "cgroups/applications.h"
#include "cgroups/cgroupfs.h"
#include "cgrouptree.h"
#include "testutil.h"

#include <QProcess>
#include <QTest>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

using namespace Cachescope;
using namespace Cachescope::Cgroups;
using CgroupTree::readText;
using CgroupTree::writeText;

Q_DECLARE_METATYPE(Cachescope::Cgroups::Version)

namespace
{

constexpr quint64 MiB = 1024 * 1024;
constexpr quint64 noValue = ~quint64(0); // a figure the fixture does not have

std::string fixture(const char *relative)
{
    return std::string(CACHESCOPE_FIXTURES) + "/cgroup/" + relative;
}

quint64 orNoValue(const std::optional<uint64_t> &value)
{
    return value ? quint64(*value) : noValue;
}

// The v1 hierarchy a test made visible (mounted in its own mount namespace),
// and the cgroup it made under its own: both removed at the end.
struct LiveV1 {
    std::string mountPoint; // where this test mounted it; empty when the host's is used
    std::string hierarchy;
    std::string testCgroup;
};

} // namespace

class CgroupsTest : public QObject
{
    Q_OBJECT

private:
    std::string m_scratch;
    LiveV1 m_live;
    QString m_liveSkip;

    // The v1 memory hierarchy: the host's where it is visible (on the host;
    // in tools/dev's root once it binds /sys/fs/cgroup), or mounted here in a
    // mount namespace of this process's own when root may (tools/dev's root
    // has an empty /sys/fs/cgroup). Empty with m_liveSkip saying why.
    void findLiveHierarchy()
    {
        std::string error;
        for (const Hierarchy &hierarchy : memoryHierarchies("/proc", &error)) {
            if (hierarchy.version == Version::V1) {
                m_live.hierarchy = hierarchy.mountPoint;
                return;
            }
        }
        if (geteuid() != 0) {
            m_liveSkip = QStringLiteral("no v1 memory hierarchy is mounted and only root may mount one: ") + QString::fromStdString(error);
            return;
        }
        // The main thread's own mount namespace, private, so that nothing
        // mounted here reaches the machine; it ends with this process.
        if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
            m_liveSkip = QStringLiteral("cannot make a private mount namespace: ") + QString::fromLocal8Bit(strerror(errno));
            return;
        }
        const std::string mountPoint = m_scratch + "/memory";
        mkdir(mountPoint.c_str(), 0755);
        if (mount("cgroup", mountPoint.c_str(), "cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC, "memory") != 0) {
            m_liveSkip = QStringLiteral("this kernel has no v1 memory controller to mount: ") + QString::fromLocal8Bit(strerror(errno));
            return;
        }
        m_live.mountPoint = mountPoint;
        m_live.hierarchy = mountPoint;
    }

    // Cgroups "cachescope-test-*" left by a killed run: removed when empty.
    static void removeStaleTestCgroups(const std::string &parent)
    {
        QProcess find;
        find.start(QStringLiteral("find"),
                   {QString::fromStdString(parent),
                    QStringLiteral("-maxdepth"),
                    QStringLiteral("1"),
                    QStringLiteral("-type"),
                    QStringLiteral("d"),
                    QStringLiteral("-name"),
                    QStringLiteral("cachescope-test-*")});
        find.waitForFinished();
        for (const QByteArray &line : find.readAllStandardOutput().split('\n')) {
            if (!line.isEmpty()) {
                rmdir(line.constData());
            }
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_scratch = TestUtil::scratchDir("cgroupstest");
        findLiveHierarchy();
    }

    void cleanupTestCase()
    {
        if (!m_live.testCgroup.empty()) {
            rmdir(m_live.testCgroup.c_str());
        }
        if (!m_live.mountPoint.empty()) {
            QCOMPARE(umount2(m_live.mountPoint.c_str(), MNT_DETACH), 0);
        }
    }

    void mounts_data()
    {
        QTest::addColumn<QByteArray>("mountInfo");
        QTest::addColumn<QStringList>("expected"); // "version mountpoint root"

        QTest::newRow("v1 machine (captured)") << QByteArray::fromStdString(readText(fixture("v1/mountinfo")))
                                               << QStringList{QStringLiteral("1 /sys/fs/cgroup/memory /"), QStringLiteral("2 /sys/fs/cgroup/unified /")};
        QTest::newRow("v2 desktop") << QByteArray::fromStdString(readText(fixture("v2/mountinfo"))) << QStringList{QStringLiteral("2 /sys/fs/cgroup /")};
        QTest::newRow("escaped mount point, bind of a part") << QByteArray("40 31 0:32 /process_api/x /mnt/my\\040cgroups rw - cgroup cgroup rw,memory,cpu\n")
                                                             << QStringList{QStringLiteral("1 /mnt/my cgroups /process_api/x")};
        QTest::newRow("v1 without memory, a folder named cgroup")
            << QByteArray("32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n212 182 254:0 /cgroup /cgroup rw - ext4 /dev/vda rw\n") << QStringList{};
        QTest::newRow("optional fields") << QByteArray("30 23 0:26 / /sys/fs/cgroup rw shared:4 master:1 - cgroup2 cgroup2 rw,nsdelegate\n")
                                         << QStringList{QStringLiteral("2 /sys/fs/cgroup /")};
        QTest::newRow("garbage") << QByteArray("no dash here\n - \n\n- cgroup2\n") << QStringList{};
    }

    void mounts()
    {
        QFETCH(QByteArray, mountInfo);
        QFETCH(QStringList, expected);
        QStringList found;
        for (const Hierarchy &hierarchy : parseCgroupMounts(mountInfo.toStdString())) {
            found << QStringLiteral("%1 %2 %3")
                         .arg(int(hierarchy.version))
                         .arg(QString::fromStdString(hierarchy.mountPoint), QString::fromStdString(hierarchy.root));
        }
        QCOMPARE(found, expected);
    }

    void processCgroups_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("version"); // 0: none
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("folder"); // under the matching fixture's hierarchy

        QTest::newRow("v1 (captured)") << QByteArray::fromStdString(readText(fixture("v1/cgroup"))) << 1
                                       << QStringLiteral("/process_api/d433578d9f31d217eff8e18003326dc4")
                                       << QStringLiteral("/sys/fs/cgroup/memory/process_api/d433578d9f31d217eff8e18003326dc4");
        QTest::newRow("v2") << QByteArray::fromStdString(readText(fixture("v2/cgroup"))) << 2
                            << QStringLiteral("/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.kde.konsole-4242.scope")
                            << QStringLiteral("/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.kde.konsole-4242.scope");
        QTest::newRow("hybrid without memory on v1") << QByteArray("4:cpu:/a\n0::/init.scope\n") << 2 << QStringLiteral("/init.scope")
                                                     << QStringLiteral("/sys/fs/cgroup/init.scope");
        QTest::newRow("root") << QByteArray("0::/\n") << 2 << QStringLiteral("/") << QStringLiteral("/sys/fs/cgroup");
        QTest::newRow("colon in the path") << QByteArray("7:memory,cpu:/a:b\n") << 1 << QStringLiteral("/a:b") << QStringLiteral("/sys/fs/cgroup/memory/a:b");
        QTest::newRow("garbage") << QByteArray("hello\n1:memory:relative\n::\n") << 0 << QString() << QString();
    }

    void processCgroups()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, version);
        QFETCH(QString, path);
        QFETCH(QString, folder);
        const std::optional<ProcessCgroup> cgroup = parseProcessCgroup(text.toStdString());
        QCOMPARE(cgroup.has_value(), version != 0);
        if (!cgroup) {
            return;
        }
        QCOMPARE(int(cgroup->version), version);
        QCOMPARE(QString::fromStdString(cgroup->path), path);
        const std::vector<Hierarchy> hierarchies = parseCgroupMounts(readText(fixture(version == 1 ? "v1/mountinfo" : "v2/mountinfo")));
        QCOMPARE(QString::fromStdString(cgroupFolder(hierarchies, *cgroup).value_or("none")), folder);
    }

    void folderUnderBoundPart()
    {
        // A mount showing only /process_api/x: its cgroups are found below
        // it, and a cgroup outside it is nowhere.
        const std::vector<Hierarchy> hierarchies = {{Version::V1, "/mnt/part", "/process_api/x/"}};
        QCOMPARE(cgroupFolder(hierarchies, {Version::V1, "/process_api/x/child"}).value_or("none"), std::string("/mnt/part/child"));
        QCOMPARE(cgroupFolder(hierarchies, {Version::V1, "/process_api/x"}).value_or("none"), std::string("/mnt/part"));
        QCOMPARE(cgroupFolder(hierarchies, {Version::V1, "/process_api/xy"}).value_or("none"), std::string("none"));
        QCOMPARE(cgroupFolder(hierarchies, {Version::V2, "/process_api/x"}).value_or("none"), std::string("none"));
    }

    void limits_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("kind"); // -1: refused
        QTest::addColumn<quint64>("bytes");

        QTest::newRow("max") << QByteArray("max\n") << int(MemoryLimit::Kind::None) << quint64(0);
        QTest::newRow("v1 no limit, 4 KiB pages") << QByteArray("9223372036854771712\n") << int(MemoryLimit::Kind::None) << quint64(0);
        QTest::newRow("v1 no limit, 64 KiB pages") << QByteArray("9223372036854710272\n") << int(MemoryLimit::Kind::None) << quint64(0);
        QTest::newRow("512 MiB") << QByteArray("536870912\n") << int(MemoryLimit::Kind::Bytes) << quint64(512 * MiB);
        QTest::newRow("0") << QByteArray("0\n") << int(MemoryLimit::Kind::Bytes) << quint64(0);
        QTest::newRow("empty") << QByteArray() << -1 << quint64(0);
        QTest::newRow("negative") << QByteArray("-1\n") << -1 << quint64(0);
        QTest::newRow("past 2^64") << QByteArray("18446744073709551616\n") << -1 << quint64(0);
        QTest::newRow("words") << QByteArray("unlimited\n") << -1 << quint64(0);
    }

    void limits()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, kind);
        QFETCH(quint64, bytes);
        const std::optional<MemoryLimit> limit = parseMemoryLimit(text.toStdString());
        QCOMPARE(limit.has_value(), kind >= 0);
        if (limit) {
            QCOMPARE(int(limit->kind), kind);
            QCOMPARE(quint64(limit->bytes), bytes);
        }
    }

    void pressure_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<double>("someAvg10"); // -1: refused
        QTest::addColumn<quint64>("fullTotal");

        QTest::newRow("fixture") << QByteArray::fromStdString(readText(fixture("v2/app/memory.pressure"))) << 1.25 << quint64(1102345);
        QTest::newRow("some only") << QByteArray("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n") << 0.0 << quint64(0);
        QTest::newRow("no some") << QByteArray("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n") << -1.0 << quint64(0);
        QTest::newRow("bad number") << QByteArray("some avg10=x avg60=0.00 avg300=0.00 total=0\n") << -1.0 << quint64(0);
        QTest::newRow("missing field") << QByteArray("some avg10=1.00 avg60=0.00 total=0\n") << -1.0 << quint64(0);
        QTest::newRow("empty") << QByteArray() << -1.0 << quint64(0);
    }

    void pressure()
    {
        QFETCH(QByteArray, text);
        QFETCH(double, someAvg10);
        QFETCH(quint64, fullTotal);
        const std::optional<Pressure> pressure = parsePressure(text.toStdString());
        QCOMPARE(pressure.has_value(), someAvg10 >= 0);
        if (pressure) {
            QCOMPARE(pressure->someAvg10, someAvg10);
            QCOMPARE(quint64(pressure->fullTotalMicroseconds), fullTotal);
        }
    }

    void statFixtures_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<Version>("version");
        QTest::addColumn<quint64>("file");
        QTest::addColumn<quint64>("mapped");
        QTest::addColumn<quint64>("dirty");
        QTest::addColumn<quint64>("writeback");
        QTest::addColumn<quint64>("refaults");
        QTest::addColumn<quint64>("activations");
        QTest::addColumn<quint64>("ownFile");
        QTest::addColumn<quint64>("current");
        QTest::addColumn<int>("limitKind");
        QTest::addColumn<quint64>("limitBytes");
        QTest::addColumn<double>("pressure"); // some avg10; -1: unknown

        const int none = int(MemoryLimit::Kind::None);
        // v1: the total_* figures (the cgroup and its descendants, as v2 counts).
        QTest::newRow("v1 root") << QString::fromStdString(fixture("v1/root")) << Version::V1 << quint64(1592446976) << quint64(84217856) << quint64(133459968)
                                 << quint64(0) << quint64(210911) << noValue << quint64(9363456) << quint64(5763031040) << none << quint64(0) << -1.0;
        QTest::newRow("v1 leaf") << QString::fromStdString(fixture("v1/leaf")) << Version::V1 << quint64(346009600) << quint64(7782400) << quint64(2322432)
                                 << quint64(0) << quint64(815) << noValue << quint64(346009600) << quint64(1713078272) << none << quint64(0) << -1.0;
        QTest::newRow("v2 app, memory.high") << QString::fromStdString(fixture("v2/app")) << Version::V2 << quint64(419430400) << quint64(98566144)
                                             << quint64(1703936) << quint64(262144) << quint64(3120) << quint64(871) << noValue << quint64(480247808)
                                             << int(MemoryLimit::Kind::Bytes) << quint64(512 * MiB) << 1.25;
        QTest::newRow("v2 unlimited") << QString::fromStdString(fixture("v2/unlimited")) << Version::V2 << quint64(12288) << quint64(4096) << quint64(0)
                                      << quint64(0) << quint64(0) << quint64(0) << noValue << quint64(2097152) << none << quint64(0) << 0.0;
    }

    void statFixtures()
    {
        QFETCH(QString, folder);
        QFETCH(Version, version);
        std::string error;
        const std::optional<MemoryStats> stats = readMemoryStats(folder.toStdString(), version, &error);
        QVERIFY2(stats, error.c_str());
        QVERIFY2(stats->problems.empty(), stats->problems.empty() ? "" : stats->problems.front().c_str());
        QTEST(orNoValue(stats->file), "file");
        QTEST(orNoValue(stats->fileMapped), "mapped");
        QTEST(orNoValue(stats->fileDirty), "dirty");
        QTEST(orNoValue(stats->fileWriteback), "writeback");
        QTEST(orNoValue(stats->refaults), "refaults");
        QTEST(orNoValue(stats->activations), "activations");
        QTEST(orNoValue(stats->ownFile), "ownFile");
        QTEST(orNoValue(stats->current), "current");
        QTEST(int(stats->limit().kind), "limitKind");
        QTEST(quint64(stats->limit().bytes), "limitBytes");
        QTEST(stats->pressure ? stats->pressure->someAvg10 : -1.0, "pressure");
        // Whatever the version: the cached pages are at least the mapped,
        // dirty and active ones.
        QVERIFY(*stats->file >= *stats->fileMapped);
        QVERIFY(*stats->file >= *stats->fileDirty);
        QVERIFY(*stats->file >= *stats->activeFile);
    }

    void v1WithoutRefaultCounters()
    {
        // Kernels before 5.9 have no workingset_* lines in v1's memory.stat:
        // unknown, never 0.
        const std::string folder = m_scratch + "/old-v1";
        mkdir(folder.c_str(), 0755);
        writeText(folder + "/memory.stat", "cache 4096\nrss 0\nmapped_file 0\ndirty 0\nwriteback 0\ntotal_cache 8192\n");
        std::string error;
        const std::optional<MemoryStats> stats = readMemoryStats(folder, Version::V1, &error);
        QVERIFY2(stats, error.c_str());
        QCOMPARE(orNoValue(stats->file), quint64(8192));
        QVERIFY(!stats->refaults);
        QVERIFY(!stats->pressure);
        QCOMPARE(int(stats->limit().kind), int(MemoryLimit::Kind::Unknown)); // no memory.limit_in_bytes
        QVERIFY(stats->problems.empty());
    }

    void badFiles_data()
    {
        QTest::addColumn<QString>("folder");
        QTest::addColumn<Version>("version");
        QTest::addColumn<QString>("fatal"); // the error of a cgroup that cannot be read; empty: it is read
        QTest::addColumn<QString>("problem"); // then: the problem it reports

        const QString scratch = QString::fromStdString(m_scratch);
        QTest::newRow("missing folder") << scratch + QStringLiteral("/nowhere") << Version::V2
                                        << scratch + QStringLiteral("/nowhere/memory.stat: No such file or directory") << QString();

        const std::string folderStat = m_scratch + "/stat-is-folder";
        mkdir(folderStat.c_str(), 0755);
        mkdir((folderStat + "/memory.stat").c_str(), 0755);
        QTest::newRow("memory.stat a folder") << QString::fromStdString(folderStat) << Version::V1
                                              << QString::fromStdString(folderStat + "/memory.stat: Is a directory") << QString();

        const std::string fifoStat = m_scratch + "/stat-is-fifo";
        mkdir(fifoStat.c_str(), 0755);
        mkfifo((fifoStat + "/memory.stat").c_str(), 0644);
        QTest::newRow("memory.stat a FIFO (no hang)") << QString::fromStdString(fifoStat) << Version::V2
                                                      << QString::fromStdString(fifoStat + "/memory.stat: not a regular file") << QString();

        const std::string wrongVersion = m_scratch + "/wrong-version";
        mkdir(wrongVersion.c_str(), 0755);
        writeText(wrongVersion + "/memory.stat", readText(fixture("v1/leaf/memory.stat")));
        QTest::newRow("v1 memory.stat read as v2") << QString::fromStdString(
            wrongVersion) << Version::V2 << QString::fromStdString(wrongVersion + "/memory.stat: no \"file\" line: not the memory.stat of a cgroup v2")
                                                   << QString();

        const std::string badMax = m_scratch + "/bad-max";
        mkdir(badMax.c_str(), 0755);
        writeText(badMax + "/memory.stat", readText(fixture("v2/app/memory.stat")));
        writeText(badMax + "/memory.max", "lots\n");
        QTest::newRow("memory.max malformed") << QString::fromStdString(badMax) << Version::V2 << QString()
                                              << QString::fromStdString(badMax + "/memory.max: not \"max\" or a number of bytes: 'lots'");

        const std::string badPressure = m_scratch + "/bad-pressure";
        mkdir(badPressure.c_str(), 0755);
        writeText(badPressure + "/memory.stat", readText(fixture("v2/app/memory.stat")));
        writeText(badPressure + "/memory.pressure", "some\n");
        QTest::newRow("memory.pressure malformed") << QString::fromStdString(badPressure) << Version::V2 << QString()
                                                   << QString::fromStdString(badPressure
                                                                             + "/memory.pressure: no \"some avg10=... avg60=... avg300=... total=...\" line");

        const std::string badUsage = m_scratch + "/bad-usage";
        mkdir(badUsage.c_str(), 0755);
        writeText(badUsage + "/memory.stat", readText(fixture("v1/leaf/memory.stat")));
        mkdir((badUsage + "/memory.usage_in_bytes").c_str(), 0755);
        QTest::newRow("memory.usage_in_bytes a folder")
            << QString::fromStdString(badUsage) << Version::V1 << QString() << QString::fromStdString(badUsage + "/memory.usage_in_bytes: Is a directory");
    }

    void badFiles()
    {
        QFETCH(QString, folder);
        QFETCH(Version, version);
        QFETCH(QString, fatal);
        QFETCH(QString, problem);
        std::string error;
        const std::optional<MemoryStats> stats = readMemoryStats(folder.toStdString(), version, &error);
        if (!fatal.isEmpty()) {
            QVERIFY(!stats);
            QCOMPARE(QString::fromStdString(error), fatal);
            return;
        }
        QVERIFY2(stats, error.c_str());
        QCOMPARE(stats->problems.size(), size_t(1));
        QCOMPARE(QString::fromStdString(stats->problems.front()), problem);
    }

    void noMemoryHierarchy()
    {
        // A proc root whose mountinfo has no memory cgroup: a sentence naming it.
        const std::string proc = m_scratch + "/proc-without-cgroups";
        mkdir(proc.c_str(), 0755);
        mkdir((proc + "/self").c_str(), 0755);
        writeText(proc + "/self/mountinfo", "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n");
        std::string error;
        QVERIFY(memoryHierarchies(proc, &error).empty());
        QCOMPARE(error, proc + "/self/mountinfo: no cgroup hierarchy with the memory controller is mounted");
        // The machine's v2 hierarchy without the memory controller is no memory hierarchy.
        writeText(proc + "/self/mountinfo", "41 31 0:38 / " + m_scratch + "/v2-no-memory rw - cgroup2 cgroup2 rw\n");
        mkdir((m_scratch + "/v2-no-memory").c_str(), 0755);
        writeText(m_scratch + "/v2-no-memory/cgroup.controllers", "cpu hugetlb\n");
        QVERIFY(memoryHierarchies(proc, &error).empty());
        QVERIFY2(QString::fromStdString(error).contains(QStringLiteral("does not list \"memory\"")), error.c_str());
        QVERIFY(memoryHierarchies(m_scratch + "/no-proc-here", &error).empty());
        QCOMPARE(error, m_scratch + "/no-proc-here/self/mountinfo: No such file or directory");
        const ApplicationsReport report = readApplications(proc);
        QVERIFY(!report.found);
        QVERIFY2(QString::fromStdString(report.reason).contains(QStringLiteral("no cgroup hierarchy with the memory controller")), report.reason.c_str());
    }

    // The real v1 hierarchy: this process's cgroup is found and read, and a
    // cgroup made for a child charges the file the child reads.
    void liveV1Hierarchy()
    {
        if (m_live.hierarchy.empty()) {
            QSKIP(qPrintable(m_liveSkip));
        }
        std::string error;
        const std::vector<Hierarchy> hierarchies = memoryHierarchies("/proc", &error);
        QVERIFY2(!hierarchies.empty(), error.c_str());
        const std::optional<ProcessCgroup> own = processCgroup(0, "/proc", &error);
        QVERIFY2(own, error.c_str());
        QCOMPARE(int(own->version), 1);
        const std::optional<std::string> ownFolder = cgroupFolder(hierarchies, *own);
        QVERIFY(ownFolder);
        const std::optional<MemoryStats> ownStats = readMemoryStats(*ownFolder, Version::V1, &error);
        QVERIFY2(ownStats, error.c_str());
        QVERIFY2(ownStats->problems.empty(), ownStats->problems.empty() ? "" : ownStats->problems.front().c_str());
        QVERIFY(ownStats->file && ownStats->current);
        QVERIFY(*ownStats->current > 0);
        QVERIFY(ownStats->max.kind != MemoryLimit::Kind::Unknown);
        QVERIFY(ownStats->activeFile && ownStats->inactiveFile);
        QVERIFY(!ownStats->pressure); // v1 has no memory.pressure
        // v1 has no memory.reclaim: refused with the path and why.
        QVERIFY(!canReclaim(*ownFolder));
        QCOMPARE(int(reclaim(*ownFolder, 4096, true, &error)), int(ReclaimOutcome::Failed));
        QCOMPARE(error, *ownFolder + "/memory.reclaim: no such file: cgroup v1, or a kernel before 5.19, cannot reclaim a cgroup's memory");

        if (geteuid() != 0) {
            QSKIP("making a cgroup for a child needs root");
        }
        removeStaleTestCgroups(*ownFolder);
        m_live.testCgroup = *ownFolder + "/cachescope-test-" + std::to_string(getpid());
        QVERIFY2(mkdir(m_live.testCgroup.c_str(), 0755) == 0, strerror(errno));

        const std::string file = m_scratch + "/charged";
        const uint64_t size = 16 * MiB;
        TestUtil::makeColdFile(file, size);
        // The child waits for a line, by then it is in the cgroup; then it
        // reads the file, and waits again until told to go.
        QProcess child;
        child.start(QStringLiteral("sh"),
                    {QStringLiteral("-c"), QStringLiteral("read go; cat \"$0\" > /dev/null; echo read; read done"), QString::fromStdString(file)});
        QVERIFY(child.waitForStarted());
        writeText(m_live.testCgroup + "/cgroup.procs", std::to_string(child.processId()) + "\n");
        const std::optional<ProcessCgroup> childCgroup = processCgroup(int(child.processId()), "/proc", &error);
        QVERIFY2(childCgroup, error.c_str());
        QCOMPARE(cgroupFolder(hierarchies, *childCgroup).value_or("none"), m_live.testCgroup);
        child.write("go\n");
        QVERIFY(child.waitForReadyRead(30000));
        const std::optional<MemoryStats> charged = readMemoryStats(m_live.testCgroup, Version::V1, &error);
        QVERIFY2(charged, error.c_str());
        const TestUtil::PagesNow pages = TestUtil::pagesNow(file);
        // What the child made resident is charged to its cgroup (the
        // kernel may have paged some out already: those left its charge too).
        QVERIFY2(*charged->file >= pages.resident * uint64_t(sysconf(_SC_PAGESIZE)),
                 qPrintable(QStringLiteral("cgroup cache %1, file resident %2 pages").arg(*charged->file).arg(pages.resident)));
        QVERIFY(pages.residentOrReclaimed() * uint64_t(sysconf(_SC_PAGESIZE)) >= size);
        QVERIFY(*charged->file >= size / 2);
        QCOMPARE(*charged->ownFile, *charged->file); // a leaf: its own pages are all its pages

        // The applications of this v1 hierarchy: the leaf cgroups with
        // processes, the child's among them, and the reason for no names.
        const ApplicationsReport report = scanApplications(m_live.hierarchy, Version::V1);
        QVERIFY(report.found);
        QVERIFY(!report.applicationsNamed);
        QVERIFY2(QString::fromStdString(report.reason).contains(QStringLiteral("cgroup v1")), report.reason.c_str());
        const std::string childPath = own->path + "/cachescope-test-" + std::to_string(getpid());
        const auto row = std::find_if(report.rows.begin(), report.rows.end(), [&](const ApplicationCache &r) {
            return r.cgroupPath == childPath;
        });
        QVERIFY2(row != report.rows.end(), childPath.c_str());
        QCOMPARE(int(row->kind), int(GroupKind::Cgroup));
        QVERIFY(row->stats.file.value_or(0) >= size / 2);
        QVERIFY(report.accounting.hierarchyFile && report.accounting.rootOwnFile);
        QVERIFY(*report.accounting.hierarchyFile >= report.accounting.rowsFile);

        child.closeWriteChannel();
        QVERIFY(child.waitForFinished(30000));
        QCOMPARE(rmdir(m_live.testCgroup.c_str()), 0);
        m_live.testCgroup.clear();
    }
};

QTEST_GUILESS_MAIN(CgroupsTest)

#include "cgroupstest.moc"
