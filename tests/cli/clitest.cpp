// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// cachescope-cli end to end: the real binary on real files, its numbers
// checked against page-cache states set up with raw syscalls (TestUtil) and
// against the peers (fincore, vmtouch). Over 800 lines: every command's
// end-to-end behaviour, sharing the helpers at the top.

#include "testutil.h"
#include "trace/tracereport.h"

#include "trace/tracereport.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTest>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <string>

namespace
{
const uint64_t P = uint64_t(sysconf(_SC_PAGESIZE));

QString q(const std::string &path)
{
    return QString::fromStdString(path);
}

TestUtil::RunResult cli(const QStringList &arguments, int timeoutMs = 60000)
{
    return TestUtil::run(TestUtil::cliPath(), arguments, timeoutMs);
}

quint64 number(const QJsonObject &object, const char *key)
{
    return quint64(object.value(QLatin1String(key)).toDouble(-1));
}

// The last line of a text table whose path column ends with path.
QByteArray rowFor(const QByteArray &out, const QByteArray &path)
{
    const QList<QByteArray> lines = out.split('\n');
    for (const QByteArray &line : lines) {
        if (line.endsWith(path)) {
            return line;
        }
    }
    return {};
}
} // namespace

class CliTest : public QObject
{
    Q_OBJECT

    std::string m_dir;

private Q_SLOTS:
    // The commands that need root fail clearly where no helper can be reached
    // (no system bus in the test run), and never hang.
    void privilegedCommandsWithoutHelper_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("drop-caches") << QStringList{QStringLiteral("drop-caches"), QStringLiteral("1")} << 1
                                     << QStringLiteral("drop-caches: the privileged helper is not available");
        QTest::newRow("swap off") << QStringList{QStringLiteral("swap"), QStringLiteral("off")} << 1
                                  << QStringLiteral("swap off: the privileged helper is not available");
        QTest::newRow("status --privileged") << QStringList{QStringLiteral("status"), QStringLiteral("--privileged"), QStringLiteral("/usr/bin/env")} << 1
                                             << QStringLiteral("/usr/bin/env: the privileged helper is not available");
        QTest::newRow("level 7") << QStringList{QStringLiteral("drop-caches"), QStringLiteral("7")} << 2
                                 << QStringLiteral("LEVEL is 1 (pagecache), 2 (slab) or 3 (all)");
        QTest::newRow("level 3; reboot") << QStringList{QStringLiteral("drop-caches"), QStringLiteral("3; reboot")} << 2 << QStringLiteral("not '3; reboot'");
        QTest::newRow("swap without action") << QStringList{QStringLiteral("swap")} << 2
                                             << QStringLiteral("needs an action: off, on, create-file, remove-file");
        QTest::newRow("swap bad size") << QStringList{QStringLiteral("swap"), QStringLiteral("create-file"), QStringLiteral("lots")} << 2
                                       << QStringLiteral("SIZE must be a size");
        QTest::newRow("privileged folder") << QStringList{QStringLiteral("status"),
                                                          QStringLiteral("--privileged"),
                                                          QStringLiteral("-r"),
                                                          QStringLiteral("/usr")}
                                           << 2 << QStringLiteral("--privileged takes files, not folders");
    }

    void privilegedCommandsWithoutHelper()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        if (exitCode == 1 && QFile::exists(QStringLiteral("/run/dbus/system_bus_socket"))) {
            QSKIP("a system bus runs here: tests/helper/helperbustest.cpp covers the helper end to end");
        }
        if (exitCode == 1 && TestUtil::isRoot()) {
            QSKIP("as root the commands act directly, without a helper: the *AsRoot tests cover them");
        }
        const TestUtil::RunResult result = TestUtil::run(TestUtil::cliPath(), arguments, 30000);
        QVERIFY(!result.timedOut);
        QCOMPARE(result.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(result.err).contains(message), result.err.constData());
        QVERIFY(result.out.isEmpty());
    }

    void initTestCase()
    {
        m_dir = TestUtil::scratchDir("cli");
        // The unprivileged test user must reach these files.
        chmod(m_dir.c_str(), 0755);
        QVERIFY(QFile::exists(TestUtil::cliPath()));
    }

    void statusHalfResidentFile()
    {
        const std::string path = m_dir + "/half";
        TestUtil::makeColdFile(path, 64 * P);
        // Held mapped through the programs below: the kernel here reclaims
        // unmapped idle pages at any moment (see HeldPages).
        const TestUtil::HeldPages half(path, 0, 32 * P);

        const auto result = cli({QStringLiteral("status"), QStringLiteral("--json"), q(path)});
        QCOMPARE(result.exitCode, 0);
        const QJsonObject json = TestUtil::jsonObjectOf(result);
        QCOMPARE(json.value(QLatin1String("command")).toString(), QStringLiteral("status"));
        const QJsonArray files = json.value(QLatin1String("files")).toArray();
        QCOMPARE(files.size(), 1);
        const QJsonObject file = files.at(0).toObject();
        QCOMPARE(file.value(QLatin1String("path")).toString(), q(path));
        QCOMPARE(number(file, "size"), quint64(64 * P));
        QCOMPARE(number(file, "pages"), quint64(64));
        QCOMPARE(number(file, "resident"), quint64(32));
        QCOMPARE(number(file, "resident_bytes"), quint64(32 * P));
        QCOMPARE(file.value(QLatin1String("cached_percent")).toDouble(), 50.0);
        QCOMPARE(file.value(QLatin1String("hidden")).toBool(true), false);
        QCOMPARE(file.value(QLatin1String("method")).toString(), QStringLiteral("cachestat"));
        QCOMPARE(number(file, "dirty"), quint64(0));

        // The peers count the same pages.
        if (const auto fincore = TestUtil::fincoreResidentPages(path)) {
            QCOMPARE(*fincore, quint64(32));
        }
        if (const auto vmtouch = TestUtil::vmtouchResidentPages(path)) {
            QCOMPARE(*vmtouch, quint64(32));
        }

        // Text: one row with the exact page counts and the raw path.
        const auto text = cli({QStringLiteral("status"), q(path)});
        QCOMPARE(text.exitCode, 0);
        const QByteArray row = rowFor(text.out, QByteArray::fromStdString(path));
        QVERIFY2(row.contains(" 32/64 "), row.constData());
        QVERIFY2(row.contains("50.0%"), row.constData());
        QVERIFY2(row.contains("128.0 KiB"), row.constData()); // resident: 32 pages of 4 KiB
        // --bytes: raw numbers instead.
        const auto raw = cli({QStringLiteral("status"), QStringLiteral("--bytes"), q(path)});
        QVERIFY(rowFor(raw.out, QByteArray::fromStdString(path)).contains(QByteArray::number(quint64(32 * P))));
    }

    void statusRecursiveTotals()
    {
        const std::string dir = m_dir + "/tree";
        mkdir(dir.c_str(), 0755);
        mkdir((dir + "/sub").c_str(), 0755);
        TestUtil::makeColdFile(dir + "/a", 10 * P);
        TestUtil::makeColdFile(dir + "/sub/b", 20 * P);
        TestUtil::makeColdFile(dir + "/sub/c", 5 * P + 1);
        const TestUtil::HeldPages heldA(dir + "/a", 0, 10 * P);
        const TestUtil::HeldPages heldB(dir + "/sub/b", 4 * P, 3 * P);

        const auto result = cli({QStringLiteral("status"), QStringLiteral("-r"), QStringLiteral("--json"), q(dir)});
        QCOMPARE(result.exitCode, 0);
        const QJsonObject json = TestUtil::jsonObjectOf(result);
        QVERIFY(json.value(QLatin1String("files")).toArray().isEmpty()); // totals only without -v
        const QJsonArray roots = json.value(QLatin1String("roots")).toArray();
        QCOMPARE(roots.size(), 1);
        const QJsonObject root = roots.at(0).toObject();
        QCOMPARE(root.value(QLatin1String("path")).toString(), q(dir));
        QCOMPARE(number(root, "files"), quint64(3));
        QCOMPARE(number(root, "pages"), quint64(10 + 20 + 6));
        QCOMPARE(number(root, "bytes"), quint64(35 * P + 1));
        QCOMPARE(number(root, "resident"), quint64(13));
        QCOMPARE(number(json.value(QLatin1String("total")).toObject(), "resident"), quint64(13));

        // Text: a header and one line for the root.
        const auto text = cli({QStringLiteral("status"), QStringLiteral("-r"), q(dir)});
        QCOMPARE(text.exitCode, 0);
        QCOMPARE(text.out.trimmed().split('\n').size(), 2);
        QVERIFY(rowFor(text.out, QByteArray::fromStdString(dir)).contains("52.0 KiB"));

        // -v lists every file, sorted, each with its own numbers.
        const auto verbose = cli({QStringLiteral("status"), QStringLiteral("-rv"), QStringLiteral("--json"), q(dir)});
        const QJsonArray files = TestUtil::jsonObjectOf(verbose).value(QLatin1String("files")).toArray();
        QCOMPARE(files.size(), 3);
        QCOMPARE(files.at(0).toObject().value(QLatin1String("path")).toString(), q(dir + "/a"));
        QCOMPARE(number(files.at(0).toObject(), "resident"), quint64(10));
        QCOMPARE(number(files.at(1).toObject(), "resident"), quint64(3));
        QCOMPARE(number(files.at(2).toObject(), "resident"), quint64(0));

        // Without -r a folder is an error that says what to do.
        const auto folder = cli({QStringLiteral("status"), q(dir)});
        QCOMPARE(folder.exitCode, 1);
        QVERIFY2(folder.err.contains(QByteArray(QByteArray::fromStdString(dir) + ": is a folder: use -r")), folder.err.constData());
    }

    void heatmapShape()
    {
        const std::string path = m_dir + "/heat";
        TestUtil::makeColdFile(path, 100 * P);
        const TestUtil::HeldPages firstHalf(path, 0, 50 * P);
        const TestUtil::HeldPages partOfLastTenth(path, 95 * P, 2 * P);

        const auto ascii = cli({QStringLiteral("status"), QStringLiteral("--pages"), QStringLiteral("10"), QStringLiteral("--ascii"), q(path)});
        QCOMPARE(ascii.exitCode, 0);
        const QList<QByteArray> lines = ascii.out.split('\n');
        QCOMPARE(lines.size(), 4); // header, row, heatmap, ""
        QCOMPARE(lines.at(2), QByteArray("  |#####    .|"));

        const auto unicode = cli({QStringLiteral("status"), QStringLiteral("--pages"), QStringLiteral("10"), q(path)});
        QCOMPARE(unicode.out.split('\n').at(2), QByteArray("  |\u2588\u2588\u2588\u2588\u2588    \u2591|"));

        const auto json = cli({QStringLiteral("status"), QStringLiteral("--pages"), QStringLiteral("10"), QStringLiteral("--json"), q(path)});
        const QJsonObject histogram =
            TestUtil::jsonObjectOf(json).value(QLatin1String("files")).toArray().at(0).toObject().value(QLatin1String("histogram")).toObject();
        const QJsonArray resident = histogram.value(QLatin1String("resident")).toArray();
        QCOMPARE(resident.size(), 10);
        QCOMPARE(resident.at(0).toInteger(), 10);
        QCOMPARE(resident.at(5).toInteger(), 0);
        QCOMPARE(resident.at(9).toInteger(), 2);
        QCOMPARE(histogram.value(QLatin1String("pages")).toArray().at(9).toInteger(), 10);
    }

    void evictThenStatusShowsNothing()
    {
        const std::string path = m_dir + "/evictme";
        TestUtil::makeColdFile(path, 40 * P);
        TestUtil::readRange(path, 0, 40 * P);

        const auto evict = cli({QStringLiteral("evict"), QStringLiteral("--json"), q(path)});
        QCOMPARE(evict.exitCode, 0);
        const QJsonObject file = TestUtil::jsonObjectOf(evict).value(QLatin1String("files")).toArray().at(0).toObject();
        // Pages cannot be held mapped for an eviction, and the kernel here may
        // reclaim a few on its own while the program starts: at most 40.
        const quint64 before = number(file, "before");
        QVERIFY2(before > 0 && before <= 40, qPrintable(QString::number(before)));
        QCOMPARE(number(file, "after"), quint64(0));
        QCOMPARE(number(file, "freed"), before);
        QCOMPARE(file.value(QLatin1String("remain_reason")).toString(), QStringLiteral("none"));

        const auto status = cli({QStringLiteral("status"), QStringLiteral("--json"), q(path)});
        QCOMPARE(number(TestUtil::jsonObjectOf(status).value(QLatin1String("files")).toArray().at(0).toObject(), "resident"), quint64(0));

        // A folder is evicted recursively, with totals.
        const std::string dir = m_dir + "/evicttree";
        mkdir(dir.c_str(), 0755);
        TestUtil::makeColdFile(dir + "/x", 8 * P);
        TestUtil::readRange(dir + "/x", 0, 8 * P);
        const auto tree = cli({QStringLiteral("evict"), QStringLiteral("--json"), q(dir)});
        QCOMPARE(tree.exitCode, 0);
        const QJsonObject total = TestUtil::jsonObjectOf(tree).value(QLatin1String("total")).toObject();
        QVERIFY(number(total, "resident") > 0 && number(total, "resident") <= 8);
        QCOMPARE(number(total, "resident_after"), quint64(0));
        QCOMPARE(TestUtil::vmtouchResidentPages(dir + "/x").value_or(0), quint64(0));
    }

    void loadByteRange_data()
    {
        QTest::addColumn<QString>("method");
        QTest::newRow("readahead") << QStringLiteral("readahead");
        QTest::newRow("read") << QStringLiteral("read");
    }

    void loadByteRange()
    {
        QFETCH(QString, method);
        const std::string path = m_dir + "/loadme";
        TestUtil::makeColdFile(path, 256 * P);
        const auto load = cli({QStringLiteral("load"),
                               QStringLiteral("--offset"),
                               QString::number(64 * P),
                               QStringLiteral("--length"),
                               QString::number(16 * P),
                               QStringLiteral("--method"),
                               method,
                               QStringLiteral("--json"),
                               q(path)});
        QCOMPARE(load.exitCode, 0);
        const QJsonObject file = TestUtil::jsonObjectOf(load).value(QLatin1String("files")).toArray().at(0).toObject();
        QCOMPARE(number(file, "bytes_done"), quint64(16 * P));
        // Exactly the pages [64, 80) were loaded. The kernel here may have
        // reclaimed some since; it counts those (pagesNow).
        QCOMPARE(TestUtil::pagesNow(path, 64 * P, 16 * P).residentOrReclaimed(), uint64_t(16));
        QCOMPARE(TestUtil::pagesNow(path).residentOrReclaimed(), uint64_t(16));

        const auto status = cli({QStringLiteral("status"), QStringLiteral("--pages"), QStringLiteral("16"), QStringLiteral("--json"), q(path)});
        const TestUtil::PagesNow now = TestUtil::pagesNow(path, 64 * P, 16 * P);
        const QJsonObject after = TestUtil::jsonObjectOf(status).value(QLatin1String("files")).toArray().at(0).toObject();
        CACHESCOPE_VERIFY_RESIDENCY_FIGURE(now, number(after, "resident"), 16);
        // Bucket 4 of 16 buckets of 16 pages holds them all.
        const QJsonArray buckets = after.value(QLatin1String("histogram")).toObject().value(QLatin1String("resident")).toArray();
        CACHESCOPE_VERIFY_RESIDENCY_FIGURE(now, buckets.at(4).toInteger(), 16);
        QCOMPARE(buckets.at(3).toInteger(), 0);
        QCOMPARE(buckets.at(5).toInteger(), 0);
        TestUtil::evictRaw(path);
    }

    void topOrdering()
    {
        const std::string dir = m_dir + "/top";
        mkdir(dir.c_str(), 0755);
        TestUtil::makeColdFile(dir + "/ten", 40 * P);
        TestUtil::makeColdFile(dir + "/thirty", 40 * P);
        TestUtil::makeColdFile(dir + "/twenty", 40 * P);
        const TestUtil::HeldPages ten(dir + "/ten", 0, 10 * P);
        const TestUtil::HeldPages thirty(dir + "/thirty", 0, 30 * P);
        const TestUtil::HeldPages twenty(dir + "/twenty", 0, 20 * P);

        const auto result = cli({QStringLiteral("top"), q(dir), QStringLiteral("-n"), QStringLiteral("2"), QStringLiteral("--json")});
        QCOMPARE(result.exitCode, 0);
        const QJsonArray entries = TestUtil::jsonObjectOf(result).value(QLatin1String("entries")).toArray();
        QCOMPARE(entries.size(), 2);
        QCOMPARE(entries.at(0).toObject().value(QLatin1String("path")).toString(), q(dir + "/thirty"));
        QCOMPARE(number(entries.at(0).toObject(), "resident"), quint64(30));
        QCOMPARE(number(entries.at(0).toObject(), "rank"), quint64(1));
        QCOMPARE(entries.at(1).toObject().value(QLatin1String("path")).toString(), q(dir + "/twenty"));
        QCOMPARE(number(entries.at(1).toObject(), "resident"), quint64(20));

        const auto text = cli({QStringLiteral("top"), QStringLiteral("-n3"), q(dir)});
        const QList<QByteArray> lines = text.out.split('\n');
        QVERIFY(lines.at(1).endsWith("/thirty"));
        QVERIFY(lines.at(2).endsWith("/twenty"));
        QVERIFY(lines.at(3).endsWith("/ten"));
    }

    // top of / as the README shows it: /proc, /sys and the like are not
    // walked (as root, /run/host/proc's unreadable folders printed ten
    // "Permission denied" lines; as a user, /proc/PID gave 1,155).
    void topOfTheWholeSystemLeavesKernelFileSystems()
    {
        const auto result = cli({QStringLiteral("top"), QStringLiteral("-n"), QStringLiteral("10"), QStringLiteral("/")});
        QVERIFY2(result.exitCode == 0 || result.exitCode == 1, result.err.constData());
        for (const QByteArray &line : result.err.split('\n')) {
            QVERIFY2(!line.contains("/proc/") && !line.contains("/sys/"), line.constData());
        }
        QVERIFY2(result.out.contains("no page cache not walked (--kernel-file-systems walks them)"), result.out.constData());
        QCOMPARE(result.out.split('\n').size() > 10, true); // a header and ten files
    }

    // The unknown-command message names every command.
    void unknownCommandListsEveryCommand()
    {
        const auto result = cli({QStringLiteral("frobnicate")});
        QCOMPARE(result.exitCode, 2);
        for (const char *command :
             {"status", "evict", "load", "top", "map", "lock", "meminfo", "snapshot", "drop-caches", "swap", "apps", "run", "trace", "experiment", "help"}) {
            QVERIFY2(result.err.contains(QByteArray(command)),
                     qPrintable(QStringLiteral("%1 missing from: %2").arg(QLatin1String(command), QString::fromUtf8(result.err))));
        }
    }

    void meminfoJson()
    {
        const auto result = cli({QStringLiteral("meminfo"), QStringLiteral("--json")});
        QCOMPARE(result.exitCode, 0);
        const QJsonObject json = TestUtil::jsonObjectOf(result);
        for (const char *key :
             {"total", "used", "free", "shared", "buffers", "cache", "buff_cache", "available", "swap_total", "swap_used", "swap_free", "dirty", "writeback"}) {
            QVERIFY2(json.value(QLatin1String(key)).isDouble(), key);
        }
        // MemTotal never changes: it must match /proc/meminfo exactly.
        QFile meminfo(QStringLiteral("/proc/meminfo"));
        QVERIFY(meminfo.open(QIODevice::ReadOnly));
        const QByteArray first = meminfo.readLine().simplified(); // "MemTotal: 123 kB"
        QCOMPARE(number(json, "total"), first.split(' ').at(1).toULongLong() * 1024);
        // procps-ng 4: used = total - available, so the two add up exactly
        // (used + free need not: free exceeds available when the page cache
        // is nearly empty and the kernel's reserves are larger than it).
        QCOMPARE(number(json, "used") + number(json, "available"), number(json, "total"));
        QVERIFY(number(json, "free") <= number(json, "total"));

        const auto text = cli({QStringLiteral("meminfo")});
        QVERIFY(text.out.startsWith("              total        used        free      shared  buff/cache   available\nMem:"));
    }

    void meminfoWatchCount()
    {
        const auto result = cli({QStringLiteral("meminfo"),
                                 QStringLiteral("--watch"),
                                 QStringLiteral("0.2"),
                                 QStringLiteral("--count"),
                                 QStringLiteral("3"),
                                 QStringLiteral("--json")},
                                10000);
        QCOMPARE(result.exitCode, 0);
        const QList<QByteArray> lines = result.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        for (const QByteArray &line : lines) {
            QVERIFY(QJsonDocument::fromJson(line).object().contains(QLatin1String("time")));
        }
    }

    // Ctrl+C ends a watch cleanly, with whole lines, and exit status 130.
    void meminfoWatchInterrupted()
    {
        QProcess process;
        process.start(TestUtil::cliPath(), {QStringLiteral("meminfo"), QStringLiteral("--watch"), QStringLiteral("0.1"), QStringLiteral("--json")});
        QVERIFY(process.waitForStarted());
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += process.readAllStandardOutput()).count('\n') >= 2, 10000);
        QCOMPARE(kill(pid_t(process.processId()), SIGINT), 0);
        QVERIFY(process.waitForFinished(10000));
        out += process.readAllStandardOutput();
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 130);
        QVERIFY(out.endsWith('\n'));
        for (const QByteArray &line : out.trimmed().split('\n')) {
            QVERIFY(!QJsonDocument::fromJson(line).isNull());
        }
    }

    // The parallel walker keeps many folder descriptors open: main() raises
    // the soft limit of open files to the hard one (the library does not).
    void raisesOpenFileLimit()
    {
        if (!TestUtil::haveProgram("prlimit")) {
            QSKIP("needs prlimit (util-linux)");
        }
        QProcess process;
        process.start(QStringLiteral("prlimit"),
                      {QStringLiteral("--nofile=64:4096"),
                       QStringLiteral("--"),
                       TestUtil::cliPath(),
                       QStringLiteral("meminfo"),
                       QStringLiteral("--watch"),
                       QStringLiteral("0.1"),
                       QStringLiteral("--json")});
        QVERIFY(process.waitForStarted());
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += process.readAllStandardOutput()).contains('\n'), 10000);
        QFile limits(QStringLiteral("/proc/%1/limits").arg(process.processId()));
        QVERIFY(limits.open(QIODevice::ReadOnly));
        QByteArray openFiles;
        for (const QByteArray &line : limits.readAll().split('\n')) {
            if (line.startsWith("Max open files")) {
                openFiles = line.simplified();
            }
        }
        kill(pid_t(process.processId()), SIGINT);
        QVERIFY(process.waitForFinished(10000));
        QCOMPARE(openFiles, QByteArray("Max open files 4096 4096 files"));
    }

    void snapshotRoundTrip()
    {
        const std::string dir = m_dir + "/snap";
        mkdir(dir.c_str(), 0755);
        const std::string file = dir + "/data";
        TestUtil::makeColdFile(file, 64 * P);
        TestUtil::HeldPages held(file, 8 * P, 24 * P);
        const std::string first = m_dir + "/first.json";
        const std::string second = m_dir + "/second.json";

        const auto save = cli({QStringLiteral("snapshot"), QStringLiteral("save"), QStringLiteral("--json"), q(first), q(dir)});
        QCOMPARE(save.exitCode, 0);
        QCOMPARE(number(TestUtil::jsonObjectOf(save), "resident_pages"), quint64(24));
        QVERIFY(QFile::exists(q(first)));

        held.release(); // mapped pages would stay
        TestUtil::evictRaw(file);
        QCOMPARE(cli({QStringLiteral("snapshot"), QStringLiteral("save"), q(second), q(dir)}).exitCode, 0);

        const auto diff = cli({QStringLiteral("snapshot"), QStringLiteral("diff"), QStringLiteral("--json"), q(first), q(second)});
        QCOMPARE(diff.exitCode, 0);
        const QJsonObject diffJson = TestUtil::jsonObjectOf(diff);
        QCOMPARE(number(diffJson, "evicted_pages"), quint64(24));
        QCOMPARE(number(diffJson, "loaded_pages"), quint64(0));
        const QJsonObject fileDiff = diffJson.value(QLatin1String("files")).toArray().at(0).toObject();
        QCOMPARE(fileDiff.value(QLatin1String("path")).toString(), q(file));
        QCOMPARE(fileDiff.value(QLatin1String("evicted")).toArray().at(0).toArray(), (QJsonArray{8, 24}));

        const auto restore = cli({QStringLiteral("snapshot"), QStringLiteral("restore"), QStringLiteral("--json"), q(first)});
        QCOMPARE(restore.exitCode, 0);
        const QJsonObject restored = TestUtil::jsonObjectOf(restore);
        QCOMPARE(number(restored, "files_restored"), quint64(1));
        QCOMPARE(number(restored, "pages_requested"), quint64(24));
        QCOMPARE(number(restored, "pages_resident_after"), quint64(24));
        // Exactly the recorded pages came back (or were reclaimed by the kernel since).
        QCOMPARE(TestUtil::pagesNow(file, 8 * P, 24 * P).residentOrReclaimed(), uint64_t(24));
        QCOMPARE(TestUtil::pagesNow(file).residentOrReclaimed(), uint64_t(24));

        // A damaged snapshot is named with its reason.
        const std::string broken = m_dir + "/broken.json";
        QFile out(q(broken));
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("{ not json");
        out.close();
        const auto bad = cli({QStringLiteral("snapshot"), QStringLiteral("restore"), q(broken)});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QByteArray(QByteArray::fromStdString(broken) + ": not a Cachescope snapshot")), bad.err.constData());
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        const QString s = QStringLiteral("status");
        QTest::newRow("no command") << QStringList{} << QStringLiteral("no command given");
        QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate")} << QStringLiteral("unknown command 'frobnicate'");
        QTest::newRow("unknown option") << QStringList{s, QStringLiteral("--frob"), QStringLiteral("x")} << QStringLiteral("unknown option '--frob'");
        QTest::newRow("unknown short option") << QStringList{s, QStringLiteral("-q"), QStringLiteral("x")} << QStringLiteral("unknown option '-q'");
        QTest::newRow("unknown global option") << QStringList{QStringLiteral("--frob")} << QStringLiteral("unknown option '--frob'");
        QTest::newRow("missing path") << QStringList{s} << QStringLiteral("missing argument: PATH...");
        QTest::newRow("missing value") << QStringList{s, QStringLiteral("x"), QStringLiteral("--pages")} << QStringLiteral("'--pages' needs a value (N)");
        QTest::newRow("negative --pages") << QStringList{s, QStringLiteral("--pages"), QStringLiteral("-3"), QStringLiteral("x")}
                                          << QStringLiteral("--pages: '-3' is not a whole number");
        QTest::newRow("zero --pages") << QStringList{s, QStringLiteral("--pages=0"), QStringLiteral("x")}
                                      << QStringLiteral("--pages: '0' is not a whole number");
        QTest::newRow("non-number -n") << QStringList{QStringLiteral("top"), QStringLiteral("-n"), QStringLiteral("many"), QStringLiteral("x")}
                                       << QStringLiteral("--count: 'many' is not a whole number");
        QTest::newRow("bad -j") << QStringList{s, QStringLiteral("-j0"), QStringLiteral("x")} << QStringLiteral("--threads: '0' is not a whole number");
        QTest::newRow("bad --offset") << QStringList{QStringLiteral("load"), QStringLiteral("--offset"), QStringLiteral("12Q"), QStringLiteral("x")}
                                      << QStringLiteral("--offset: '12Q' is not a byte count");
        QTest::newRow("bad --method") << QStringList{QStringLiteral("load"), QStringLiteral("--method"), QStringLiteral("mmap"), QStringLiteral("x")}
                                      << QStringLiteral("'mmap' is neither 'readahead' nor 'read'");
        QTest::newRow("bad --watch") << QStringList{QStringLiteral("meminfo"), QStringLiteral("--watch"), QStringLiteral("0")}
                                     << QStringLiteral("--watch: '0' is not a number of seconds");
        QTest::newRow("--count without --watch") << QStringList{QStringLiteral("meminfo"), QStringLiteral("--count"), QStringLiteral("3")}
                                                 << QStringLiteral("--count needs --watch");
        QTest::newRow("meminfo argument") << QStringList{QStringLiteral("meminfo"), QStringLiteral("extra")} << QStringLiteral("unexpected argument 'extra'");
        QTest::newRow("flag with value") << QStringList{s, QStringLiteral("--recursive=yes"), QStringLiteral("x")}
                                         << QStringLiteral("'--recursive' takes no value");
        QTest::newRow("snapshot alone") << QStringList{QStringLiteral("snapshot")} << QStringLiteral("needs an action");
        QTest::newRow("snapshot bad action") << QStringList{QStringLiteral("snapshot"), QStringLiteral("take")} << QStringLiteral("unknown action 'take'");
        QTest::newRow("snapshot diff one file") << QStringList{QStringLiteral("snapshot"), QStringLiteral("diff"), QStringLiteral("a")}
                                                << QStringLiteral("missing argument: A B");
        QTest::newRow("help for nothing") << QStringList{QStringLiteral("help"), QStringLiteral("frob")} << QStringLiteral("no such command");
        QTest::newRow("trace without command") << QStringList{QStringLiteral("trace")} << QStringLiteral("the command to trace is missing");
        QTest::newRow("trace lesson and command") << QStringList{QStringLiteral("trace"),
                                                                 QStringLiteral("--lesson"),
                                                                 QStringLiteral("--"),
                                                                 QStringLiteral("ls")}
                                                  << QStringLiteral("--lesson runs its own command");
        QTest::newRow("trace zero runs")
            << QStringList{QStringLiteral("trace"), QStringLiteral("--runs"), QStringLiteral("0"), QStringLiteral("--"), QStringLiteral("ls")}
            << QStringLiteral("--runs: '0' is not a whole number");
        QTest::newRow("activity fractional duration") << QStringList{QStringLiteral("activity"),
                                                                     QStringLiteral("--privileged"),
                                                                     QStringLiteral("--duration"),
                                                                     QStringLiteral("1.5")}
                                                      << QStringLiteral("--duration: '1.5' is not whole seconds");
        QTest::newRow("trace both methods")
            << QStringList{QStringLiteral("trace"), QStringLiteral("--privileged"), QStringLiteral("--fallback"), QStringLiteral("--"), QStringLiteral("ls")}
            << QStringLiteral("--privileged and --fallback exclude each other");
    }

    void usageErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const auto result = cli(arguments);
        // -1 is a crash or a failed start: say which, with what the program printed.
        QVERIFY2(result.exitCode == 2,
                 qPrintable(QStringLiteral("exit code %1%2, stderr: %3")
                                .arg(result.exitCode)
                                .arg(result.timedOut ? QStringLiteral(" (timed out)") : QString())
                                .arg(QString::fromUtf8(result.err))));
        QVERIFY2(result.err.contains(message.toUtf8()), result.err.constData());
        QVERIFY2(result.err.contains("--help'."), result.err.constData());
        QVERIFY(result.out.isEmpty());
    }

    void helpForEveryCommand_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("main") << QStringList{QStringLiteral("--help")} << QStringLiteral("snapshot restore FILE");
        QTest::newRow("help status") << QStringList{QStringLiteral("help"), QStringLiteral("status")} << QStringLiteral("--recursive");
        QTest::newRow("status") << QStringList{QStringLiteral("status"), QStringLiteral("--help")} << QStringLiteral("hidden (<reason>)");
        QTest::newRow("evict") << QStringList{QStringLiteral("evict"), QStringLiteral("-h")} << QStringLiteral("--flush");
        QTest::newRow("load") << QStringList{QStringLiteral("load"), QStringLiteral("--help")} << QStringLiteral("--method METHOD");
        QTest::newRow("top") << QStringList{QStringLiteral("top"), QStringLiteral("--help")} << QStringLiteral("-n, --count N");
        QTest::newRow("meminfo") << QStringList{QStringLiteral("meminfo"), QStringLiteral("--help")} << QStringLiteral("--watch SECONDS");
        QTest::newRow("snapshot") << QStringList{QStringLiteral("snapshot"), QStringLiteral("--help")} << QStringLiteral("snapshot diff A B");
        QTest::newRow("snapshot save") << QStringList{QStringLiteral("snapshot"), QStringLiteral("save"), QStringLiteral("--help")}
                                       << QStringLiteral("Usage: cachescope-cli snapshot save [OPTIONS] FILE PATH...");
    }

    void helpForEveryCommand()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const auto result = cli(arguments);
        QCOMPARE(result.exitCode, 0);
        QVERIFY2(result.out.contains(expected.toUtf8()), result.out.constData());
    }

    // trace of a command that does not exist: a sentence naming it, exit 1,
    // nothing on stdout, and no trace file.
    void traceMissingCommand()
    {
        const std::string output = m_dir + "/missing-trace.json";
        const auto result =
            cli({QStringLiteral("trace"), QStringLiteral("--output"), q(output), QStringLiteral("--"), QStringLiteral("/nonexistent/cachescope-program")});
        QVERIFY(!result.timedOut);
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains("trace: /nonexistent/cachescope-program: no such program (not found or not executable)"), result.err.constData());
        QVERIFY(result.out.isEmpty());
        QVERIFY(!QFile::exists(q(output)));

        // A trace file that cannot be written: named, exit 1, the trace still shown.
        const std::string unwritable = m_dir + "/no-such-folder/trace.json";
        const auto bad = cli({QStringLiteral("trace"),
                              QStringLiteral("--output"),
                              q(unwritable),
                              QStringLiteral("--runs"),
                              QStringLiteral("2"),
                              QStringLiteral("--"),
                              QStringLiteral("true")});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QByteArray::fromStdString(unwritable + ": cannot write the trace file")), bad.err.constData());
        QVERIFY2(bad.out.contains("Runs: "), bad.out.constData());
    }

    // The lesson end to end, the fallback's way: the text, the JSON and the
    // trace file agree, and the file has both reads and readahead beyond them.
    void traceLessonEndToEnd()
    {
        const std::string folder = TestUtil::scratchDir("cli-trace-lesson");
        const std::string output = folder + "/lesson.json";
        const auto json = cli({QStringLiteral("trace"),
                               QStringLiteral("--lesson"),
                               QStringLiteral("--json"),
                               QStringLiteral("--folder"),
                               q(folder),
                               QStringLiteral("--output"),
                               q(output)});
        QVERIFY2(json.exitCode == 0, json.err.constData());
        const QJsonObject document = TestUtil::jsonObjectOf(json);
        QCOMPARE(document.value(QStringLiteral("command")).toString(), QStringLiteral("trace"));
        const QJsonObject details = document.value(QStringLiteral("details")).toObject();
        QCOMPARE(details.value(QStringLiteral("method")).toString(), QStringLiteral("residency-diff"));
        const QJsonObject trace = details.value(QStringLiteral("trace")).toObject();
        QCOMPARE(trace.value(QStringLiteral("version")).toInt(), 1);

        QFile file(q(output));
        QVERIFY(file.open(QIODevice::ReadOnly));
        std::string error;
        const std::optional<Cachescope::Trace::Report> report = Cachescope::Trace::reportFromJsonBytes(file.readAll(), &error);
        QVERIFY2(report, error.c_str());
        QCOMPARE(report->method, Cachescope::Trace::Method::ResidencyDiff);
        const std::string lesson = details.value(QStringLiteral("lesson_file")).toString().toStdString();
        QVERIFY(!QFile::exists(q(lesson))); // removed after
        uint64_t firstRead = 0;
        uint64_t secondRead = 0;
        uint64_t beyond = 0;
        uint64_t reclaimed = 0;
        for (const Cachescope::Trace::Extent &extent : report->extents) {
            const Cachescope::Trace::File &traced = report->files.at(size_t(extent.file));
            if (traced.path != lesson) {
                continue;
            }
            reclaimed = traced.pagesDeleted;
            for (uint64_t page = extent.firstPage; page < extent.firstPage + extent.pageCount; ++page) {
                const uint64_t offset = page * P;
                if (offset < (64 << 10)) {
                    ++firstRead;
                } else if (offset >= (512 << 10) && offset < (576 << 10)) {
                    ++secondRead;
                } else {
                    ++beyond;
                }
            }
        }
        QVERIFY2(firstRead + secondRead + reclaimed >= 2 * (64 << 10) / P, qPrintable(QStringLiteral("%1 + %2 pages read").arg(firstRead).arg(secondRead)));
        QVERIFY2(beyond > 0, "no readahead beyond the two reads");

        const auto text = cli({QStringLiteral("trace"), QStringLiteral("--lesson"), QStringLiteral("--folder"), q(folder)});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY2(text.out.contains("Method: residency-diff"), text.out.constData());
        QVERIFY2(text.out.contains("Extents ("), text.out.constData());
        QVERIFY2(text.out.contains("       OFFSET      LENGTH"), text.out.constData());
        QVERIFY2(text.out.contains("Totals: "), text.out.constData());
        QVERIFY2(text.out.contains("readahead share unknown"), text.out.constData());
        QVERIFY2(text.out.contains("cachescope-lesson-"), text.out.constData());
    }

    // As root, trace --privileged goes through cachescope-cli-privileged,
    // whose client runs the helper's trace action in process: tracefs for real.
    void traceLessonPrivilegedAsRoot()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("as a user this goes to the helper through polkit: tests/helper/helperbustest.cpp covers that");
        }
        const std::string folder = TestUtil::scratchDir("cli-trace-privileged");
        const std::string output = folder + "/lesson.json";
        const auto result = cli({QStringLiteral("trace"),
                                 QStringLiteral("--lesson"),
                                 QStringLiteral("--privileged"),
                                 QStringLiteral("--folder"),
                                 q(folder),
                                 QStringLiteral("--output"),
                                 q(output)});
        QVERIFY2(result.exitCode == 0, result.err.constData());
        QVERIFY2(result.out.contains("Method: tracefs"), result.out.constData());
        QVERIFY2(result.out.contains("only readahead brought in"), result.out.constData());
        QFile file(q(output));
        QVERIFY(file.open(QIODevice::ReadOnly));
        std::string error;
        const std::optional<Cachescope::Trace::Report> report = Cachescope::Trace::reportFromJsonBytes(file.readAll(), &error);
        QVERIFY2(report, error.c_str());
        QCOMPARE(report->method, Cachescope::Trace::Method::Tracefs);
        QVERIFY(report->usageKnown);
        // The second read (64 KiB at 512 KiB) is one extent of the lesson's file, all asked for.
        bool secondRead = false;
        for (const Cachescope::Trace::Extent &extent : report->extents) {
            const std::string &path = report->files.at(size_t(extent.file)).path;
            if (path.find("cachescope-lesson-") != std::string::npos && extent.firstPage * P <= (512 << 10)
                && (extent.firstPage + extent.pageCount) * P >= (576 << 10)) {
                secondRead = extent.askedPages >= (64 << 10) / P;
            }
        }
        QVERIFY2(secondRead, result.out.constData());
    }

    // The fallback as a user: files whose residency the kernel hides (root's
    // program, root's file) are named as hidden, never counted.
    void traceHiddenFilesAsUser()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev (cachescope-user)");
        }
        const std::string folder = TestUtil::scratchDir("cli-trace-hidden");
        const std::string rootFile = folder + "/root-owned";
        TestUtil::makeColdFile(rootFile, 256 << 10);
        QCOMPARE(chmod(rootFile.c_str(), 0644), 0);
        const auto result = TestUtil::run(QStringLiteral("runuser"),
                                          {QStringLiteral("-u"),
                                           QLatin1String(TestUtil::testUserName),
                                           QStringLiteral("--"),
                                           TestUtil::cliPath(),
                                           QStringLiteral("trace"),
                                           QStringLiteral("--json"),
                                           QStringLiteral("--folder"),
                                           q(folder),
                                           QStringLiteral("--"),
                                           QStringLiteral("/bin/cat"),
                                           q(rootFile)});
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const QJsonObject trace = TestUtil::jsonObjectOf(result).value(QStringLiteral("details")).toObject().value(QStringLiteral("trace")).toObject();
        QString hiddenNote;
        for (const QJsonValue &note : trace.value(QStringLiteral("notes")).toArray()) {
            if (note.toString().startsWith(QStringLiteral("hidden: "))) {
                hiddenNote = note.toString();
            }
        }
        QVERIFY2(hiddenNote.contains(q(rootFile)), qPrintable(hiddenNote));
        QVERIFY2(hiddenNote.contains(QStringLiteral("bin/cat")), qPrintable(hiddenNote)); // root's program
        QVERIFY2(hiddenNote.contains(QStringLiteral("(the kernel shows page-cache residency only")), qPrintable(hiddenNote));
        for (const QJsonValue &file : trace.value(QStringLiteral("files")).toArray()) {
            QVERIFY(file.toObject().value(QStringLiteral("path")).toString() != q(rootFile));
        }
    }

    // trace --privileged as a user, against cachescope-fake-helper on a
    // session bus of the user's own: when the helper's trace ends early
    // (cancelled by someone else, a traced process changing credentials, a
    // failure), the CLI falls back to the residency difference and says
    // what ended the better method, on stderr and in details; exit 1.
    void tracePrivilegedFallbackSaysWhy_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("endReason");
        QTest::addColumn<QString>("why");
        QTest::newRow("cancelled at the helper") << QStringLiteral("cancelled") << QStringLiteral("cancelled")
                                                 << QStringLiteral("the helper's trace was cancelled, and not by this program");
        QTest::newRow("credentials") << QStringLiteral("credentials") << QStringLiteral("credentials")
                                     << QStringLiteral("a traced process changed its credentials");
        QTest::newRow("failed in the capture") << QStringLiteral("failed") << QStringLiteral("failed") << QStringLiteral("the helper's trace failed");
        QTest::newRow("a Failed signal") << QStringLiteral("failed-signal") << QStringLiteral("failed")
                                         << QStringLiteral("Another program cancelled the trace");
        QTest::newRow("not early") << QStringLiteral("exited") << QString() << QString();
    }

    void tracePrivilegedFallbackSaysWhy()
    {
#ifndef CACHESCOPE_FAKE_HELPER
        QSKIP("needs cachescope-fake-helper (tests/privileged)");
#else
        QFETCH(QString, mode);
        QFETCH(QString, endReason);
        QFETCH(QString, why);
        if (!TestUtil::testUserUid()) {
            QSKIP("needs root and the test user of tools/dev (cachescope-user): as root the trace runs in process, not over the bus");
        }
        const std::string folder = TestUtil::scratchDir("cli-trace-fallback");
        chmod(folder.c_str(), 0777);
        // The user's own session bus, the fake owning the helper's name on
        // it, and the CLI looking there (the fake sets CACHESCOPE_HELPER_BUS).
        const auto result = TestUtil::run(QStringLiteral("runuser"),
                                          {QStringLiteral("-u"),
                                           QLatin1String(TestUtil::testUserName),
                                           QStringLiteral("--"),
                                           QStringLiteral("dbus-run-session"),
                                           QStringLiteral("--"),
                                           QStringLiteral(CACHESCOPE_FAKE_HELPER),
                                           QStringLiteral("--trace"),
                                           mode,
                                           QStringLiteral("--"),
                                           TestUtil::cliPath(),
                                           QStringLiteral("trace"),
                                           QStringLiteral("--privileged"),
                                           QStringLiteral("--json"),
                                           QStringLiteral("--folder"),
                                           q(folder),
                                           QStringLiteral("--"),
                                           QStringLiteral("/bin/true")},
                                          120000);
        QVERIFY(!result.timedOut);
        const QJsonObject details = TestUtil::jsonObjectOf(result).value(QStringLiteral("details")).toObject();
        if (endReason.isEmpty()) {
            // The fake's trace ended with the command: no fallback.
            QVERIFY2(result.exitCode == 0, result.err.constData());
            QCOMPARE(details.value(QStringLiteral("method")).toString(), QStringLiteral("tracefs"));
            QVERIFY(!details.contains(QStringLiteral("fallback_reason")));
            QVERIFY2(!result.err.contains("falling back"), result.err.constData());
            return;
        }
        QCOMPARE(result.exitCode, 1);
        const QString expected = QStringLiteral("trace: --privileged: the privileged trace ended early (%1: %2").arg(endReason, why);
        QVERIFY2(QString::fromUtf8(result.err).contains(expected), result.err.constData());
        QVERIFY2(result.err.contains("falling back to the residency difference"), result.err.constData());
        QCOMPARE(details.value(QStringLiteral("method")).toString(), QStringLiteral("residency-diff"));
        QCOMPARE(details.value(QStringLiteral("privileged_end_reason")).toString(), endReason);
        const QString reason = details.value(QStringLiteral("fallback_reason")).toString();
        QVERIFY2(reason.startsWith(QStringLiteral("The privileged trace ended early (%1: %2").arg(endReason, why)), qPrintable(reason));
        const QJsonObject trace = details.value(QStringLiteral("trace")).toObject();
        QCOMPARE(trace.value(QStringLiteral("method")).toString(), QStringLiteral("residency-diff"));
        QCOMPARE(trace.value(QStringLiteral("exit_status")).toInt(), 0); // the fallback ran the command to its end
        bool noted = false;
        for (const QJsonValue &note : TestUtil::jsonObjectOf(result).value(QStringLiteral("notes")).toArray()) {
            noted = noted || note.toString().startsWith(reason);
        }
        QVERIFY2(noted, result.out.constData());
#endif
    }

    void nonexistentPathFails()
    {
        const std::string missing = m_dir + "/no-such-file";
        const std::string present = m_dir + "/present";
        TestUtil::makeColdFile(present, 4 * P);
        const auto result = cli({QStringLiteral("status"), QStringLiteral("--json"), q(missing), q(present)});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains(QByteArray("cachescope-cli: " + QByteArray::fromStdString(missing) + ": No such file or directory")),
                 result.err.constData());
        // The good path is still answered, and the JSON names the failure.
        const QJsonObject json = TestUtil::jsonObjectOf(result);
        QCOMPARE(json.value(QLatin1String("files")).toArray().size(), 1);
        const QJsonObject problem = json.value(QLatin1String("problems")).toArray().at(0).toObject();
        QCOMPARE(problem.value(QLatin1String("path")).toString(), q(missing));
        QCOMPARE(problem.value(QLatin1String("skipped")).toBool(true), false);

        for (const char *command : {"evict", "load", "top"}) {
            const auto other = cli({QLatin1String(command), q(missing)});
            QCOMPARE(other.exitCode, 1);
            QVERIFY2(other.err.contains(QByteArray(QByteArray::fromStdString(missing) + ": No such file or directory")), other.err.constData());
        }
    }

    void fifoIsReportedNeverOpened()
    {
        const std::string dir = m_dir + "/withfifo";
        mkdir(dir.c_str(), 0755);
        const std::string fifo = dir + "/fifo";
        QCOMPARE(mkfifo(fifo.c_str(), 0644), 0);
        TestUtil::makeColdFile(dir + "/file", 4 * P);

        // Opening a FIFO for reading would block until a writer comes: the timeout catches a hang.
        for (const char *command : {"status", "evict", "load"}) {
            const auto named = cli({QLatin1String(command), q(fifo)}, 10000);
            QVERIFY(!named.timedOut);
            QCOMPARE(named.exitCode, 0); // skipped is reported, not a failure
            QVERIFY2(named.err.contains(QByteArray(QByteArray::fromStdString(fifo) + ": FIFO: skipped, never opened")), named.err.constData());
        }

        // Met while walking (a walk of / meets hundreds in /dev): counted and
        // in the JSON document's problems, not a line each on stderr.
        const auto walked = cli({QStringLiteral("status"), QStringLiteral("-r"), QStringLiteral("--json"), q(dir)}, 10000);
        QVERIFY(!walked.timedOut);
        QCOMPARE(walked.exitCode, 0);
        QVERIFY2(walked.err.isEmpty(), walked.err.constData());
        const QJsonObject document = TestUtil::jsonObjectOf(walked);
        const QJsonObject root = document.value(QLatin1String("roots")).toArray().at(0).toObject();
        QCOMPARE(number(root, "files"), quint64(1));
        QCOMPARE(number(root, "skipped"), quint64(1));
        QCOMPARE(document.value(QLatin1String("problems")).toArray().size(), qsizetype(1));
        const auto top = cli({QStringLiteral("top"), QStringLiteral("-n"), QStringLiteral("5"), q(dir)}, 10000);
        QCOMPARE(top.exitCode, 0);
        QVERIFY2(top.err.isEmpty(), top.err.constData());
        QVERIFY2(top.out.contains("; 1 special file (devices, FIFOs, sockets) not opened"), top.out.constData());
    }

    void fileSystemWithoutPageCache_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("path");
        QTest::addColumn<bool>("noted"); // stderr says why they add no size (status) or that nothing was done (evict, load)
        const QString folder = QStringLiteral("/sys/kernel/mm");
        const QString file = QStringLiteral("/sys/kernel/mm/transparent_hugepage/enabled");
        QTest::newRow("status -r") << QStringLiteral("status") << folder << true;
        QTest::newRow("evict") << QStringLiteral("evict") << folder << true;
        QTest::newRow("load") << QStringLiteral("load") << folder << true;
        QTest::newRow("status, a named file") << QStringLiteral("status") << file << true;
        QTest::newRow("load, a named file") << QStringLiteral("load") << file << true;
    }

    // sysfs keeps no page cache: its files are counted, none is read, their
    // sizes (4 KiB an attribute) count in no size or pages (they would make
    // the cached share of / a lie), and evict and load say why they did nothing.
    void fileSystemWithoutPageCache()
    {
        QFETCH(QString, command);
        QFETCH(QString, path);
        QFETCH(bool, noted);
        struct statfs fs;
        if (statfs(QFile::encodeName(path).constData(), &fs) != 0 || fs.f_type != 0x62656572) {
            QSKIP(qPrintable(path + QStringLiteral(" is not on sysfs here")));
        }
        const bool folder = QFileInfo(path).isDir();
        QVERIFY(folder || QFileInfo(path).size() > 0); // a size that, counted, would make pages
        QStringList arguments{command, QStringLiteral("--json"), path};
        if (command == QLatin1String("status") && folder) {
            arguments.insert(1, QStringLiteral("-r"));
        }
        const auto run = cli(arguments, 30000);
        QVERIFY(!run.timedOut);
        QCOMPARE(run.exitCode, 0);
        const QJsonObject json = TestUtil::jsonObjectOf(run);
        const QJsonObject total = json.value(QLatin1String("total")).toObject();
        QVERIFY(number(total, "files") > 0);
        QCOMPARE(number(total, "no_page_cache"), number(total, "files"));
        QCOMPARE(number(total, "resident"), quint64(0));
        QCOMPARE(number(total, "bytes"), quint64(0));
        QCOMPARE(number(total, "pages"), quint64(0));
        if (command != QLatin1String("status")) {
            QCOMPARE(number(total, "resident_after"), quint64(0));
        }
        if (!folder) {
            const QJsonArray files = json.value(QLatin1String("files")).toArray();
            QCOMPARE(files.size(), 1);
            const QJsonObject row = files.first().toObject();
            QCOMPARE(row.value(QLatin1String("pages")).toInteger(-1), 0);
            if (command == QLatin1String("status")) {
                QCOMPARE(row.value(QLatin1String("method")).toString(), QStringLiteral("no-page-cache"));
            }
        }
        const QByteArray note = QByteArrayLiteral("keeps no page cache (proc, sysfs, cgroup, ...): ")
            + (command == QLatin1String("status") ? QByteArrayLiteral("counted as files, in no size or pages") : "nothing there to " + command.toLatin1());
        QVERIFY2(run.err.contains(note) == noted, run.err.constData());
    }

    // experiment replay --trace FILE: a trace file that cannot be read or is
    // not a trace is named with the reason; nothing runs, nothing hangs.
    void replayBadTraceFiles()
    {
        const std::string dir = m_dir + "/replay-bad";
        mkdir(dir.c_str(), 0755);
        const auto write = [&dir](const char *name, const QByteArray &bytes) {
            const std::string path = dir + "/" + name;
            QFile file(q(path));
            if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size()) {
                qFatal("cannot write %s", path.c_str());
            }
            return path;
        };
        const std::string notJson = write("not-json.json", "{ this is not JSON");
        const std::string notTrace = write("not-trace.json", R"({"experiment":"cold-read","variants":[]})");
        const std::string fifo = dir + "/fifo.json";
        QCOMPARE(mkfifo(fifo.c_str(), 0644), 0);
        const struct {
            std::string path;
            QByteArray reason;
        } cases[] = {
            {dir + "/missing.json", "cannot read the trace file: No such file or directory"},
            {notJson, "not JSON: "},
            {notTrace, "not a Cachescope trace: "},
            {fifo, "not a Cachescope trace: not a regular file"},
            {dir, "not a Cachescope trace: not a regular file"},
        };
        for (const auto &bad : cases) {
            const auto result =
                cli({QStringLiteral("experiment"), QStringLiteral("replay"), QStringLiteral("--json"), QStringLiteral("--trace"), q(bad.path)}, 20000);
            QVERIFY2(!result.timedOut, bad.path.c_str());
            QCOMPARE(result.exitCode, 1);
            const QByteArray expected = QByteArray("cachescope-cli: " + QByteArray::fromStdString(bad.path) + ": " + bad.reason);
            QVERIFY2(result.err.contains(expected),
                     qPrintable(QStringLiteral("%1\nexpected: %2").arg(QString::fromUtf8(result.err), QString::fromUtf8(expected))));
            QVERIFY(result.out.isEmpty());
        }
        const auto noTrace = cli({QStringLiteral("experiment"), QStringLiteral("replay")});
        QCOMPARE(noTrace.exitCode, 2);
        QVERIFY2(noTrace.err.contains("replay needs --trace FILE"), noTrace.err.constData());
    }

    // A trace naming a file that changed since and one that vanished: the
    // changed one refused (exit 1), the vanished one skipped, both named;
    // the rest is replayed.
    void replayChangedAndVanishedFiles()
    {
        const std::string dir = m_dir + "/replay-changed";
        mkdir(dir.c_str(), 0755);
        const std::string good = dir + "/good";
        const std::string changed = dir + "/changed";
        const std::string vanished = dir + "/vanished";
        Cachescope::Trace::Report report;
        for (const std::string &path : {good, changed, vanished}) {
            TestUtil::makeColdFile(path, 16 * P);
            struct stat st;
            QCOMPARE(::stat(path.c_str(), &st), 0);
            Cachescope::Trace::File file;
            file.path = path;
            file.major = major(st.st_dev);
            file.minor = minor(st.st_dev);
            file.inode = st.st_ino;
            file.sizeBytes = uint64_t(st.st_size);
            file.modifiedNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
            file.pagesAdded = 4;
            Cachescope::Trace::Extent extent;
            extent.file = int(report.files.size());
            extent.pageCount = 4;
            report.files.push_back(file);
            report.extents.push_back(extent);
        }
        const std::string trace = dir + "/trace.json";
        QFile traceFile(q(trace));
        QVERIFY(traceFile.open(QIODevice::WriteOnly));
        traceFile.write(QJsonDocument(Cachescope::Trace::reportToJson(report)).toJson());
        traceFile.close();
        TestUtil::makeColdFile(changed, 17 * P);
        QCOMPARE(::unlink(vanished.c_str()), 0);

        const auto result = cli({QStringLiteral("experiment"),
                                 QStringLiteral("replay"),
                                 QStringLiteral("--json"),
                                 QStringLiteral("--runs"),
                                 QStringLiteral("1"),
                                 QStringLiteral("--trace"),
                                 q(trace)});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains(QByteArray(QByteArray::fromStdString(changed) + ": changed since the trace: ")), result.err.constData());
        QVERIFY2(result.err.contains(QByteArray(QByteArray::fromStdString(vanished) + ": vanished since the trace")), result.err.constData());
        const QJsonObject json = TestUtil::jsonObjectOf(result);
        QCOMPARE(json.value(QLatin1String("experiment")).toString(), QStringLiteral("replay"));
        const QJsonArray files = json.value(QLatin1String("details")).toObject().value(QLatin1String("traced_files")).toArray();
        QCOMPARE(files.size(), 3);
        QCOMPARE(files.at(0).toObject().value(QLatin1String("state")).toString(), QStringLiteral("replayed"));
        QCOMPARE(files.at(1).toObject().value(QLatin1String("state")).toString(), QStringLiteral("refused"));
        QCOMPARE(files.at(2).toObject().value(QLatin1String("state")).toString(), QStringLiteral("skipped"));
        QCOMPARE(json.value(QLatin1String("problems")).toArray().size(), 2);
    }

    void nonUtf8NameSurvives()
    {
        const std::string dir = m_dir + "/latin1";
        mkdir(dir.c_str(), 0755);
        const std::string name = "caf\xe9"; // Latin-1, not UTF-8
        const std::string path = dir + "/" + name;
        TestUtil::makeColdFile(path, 4 * P);
        const TestUtil::HeldPages held(path, 0, P);

        const auto result = cli({QStringLiteral("status"), QStringLiteral("-rv"), QStringLiteral("--json"), q(dir)});
        QCOMPARE(result.exitCode, 0);
        const QJsonObject file = TestUtil::jsonObjectOf(result).value(QLatin1String("files")).toArray().at(0).toObject();
        QCOMPARE(QByteArray::fromBase64(file.value(QLatin1String("path_base64")).toString().toLatin1()), QByteArray::fromStdString(path));
        QCOMPARE(number(file, "resident"), quint64(1));

        // Text output has the exact bytes.
        const auto text = cli({QStringLiteral("status"), QStringLiteral("-rv"), q(dir)});
        QVERIFY(text.out.contains(QByteArray(QByteArray::fromStdString(path) + '\n')));
    }

    // As an unprivileged user: the kernel hides the truth about files the user
    // cannot write, and the CLI says so instead of printing its lie.
    void hiddenForOtherUsers()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev (cachescope-user)");
        }
        const std::string path = m_dir + "/root-owned";
        TestUtil::makeColdFile(path, 16 * P);
        TestUtil::readRange(path, 0, 4 * P);
        QCOMPARE(chmod(path.c_str(), 0644), 0);

        const auto result = TestUtil::run(QStringLiteral("runuser"),
                                          {QStringLiteral("-u"),
                                           QLatin1String(TestUtil::testUserName),
                                           QStringLiteral("--"),
                                           TestUtil::cliPath(),
                                           QStringLiteral("status"),
                                           QStringLiteral("--json"),
                                           q(path)});
        QCOMPARE(result.exitCode, 0);
        const QJsonObject file = TestUtil::jsonObjectOf(result).value(QLatin1String("files")).toArray().at(0).toObject();
        QCOMPARE(file.value(QLatin1String("hidden")).toBool(), true);
        QVERIFY(!file.value(QLatin1String("hidden_reason")).toString().isEmpty());
        QVERIFY(!file.contains(QLatin1String("resident")));

        const auto text = TestUtil::run(
            QStringLiteral("runuser"),
            {QStringLiteral("-u"), QLatin1String(TestUtil::testUserName), QStringLiteral("--"), TestUtil::cliPath(), QStringLiteral("status"), q(path)});
        const QByteArray row = rowFor(text.out, QByteArray::fromStdString(path));
        QVERIFY2(row.contains("hidden ("), row.constData());
        QVERIFY2(!row.contains("4/16") && !row.contains("16/16"), row.constData());
    }

    // Evicting files whose residency the kernel hides: they are evicted, and
    // no figure stands for what that freed, in the totals either.
    void hiddenEvictionShowsNoFigure()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev (cachescope-user)");
        }
        const std::string folder = m_dir + "/hidden-evict";
        mkdir(folder.c_str(), 0755);
        const std::string path = folder + "/root-owned";
        TestUtil::makeColdFile(path, 16 * P);
        QCOMPARE(chmod(path.c_str(), 0644), 0);
        TestUtil::readRange(path, 0, 16 * P);
        const auto asUser = [](const QStringList &arguments) {
            return TestUtil::run(QStringLiteral("runuser"),
                                 QStringList{QStringLiteral("-u"), QLatin1String(TestUtil::testUserName), QStringLiteral("--"), TestUtil::cliPath()}
                                     + arguments);
        };
        const QRegularExpression figure(QStringLiteral("\\d\\s*(B|KiB|MiB|GiB)\\b"));

        const auto named = asUser({QStringLiteral("evict"), q(path)});
        QCOMPARE(named.exitCode, 0);
        const QByteArray row = rowFor(named.out, QByteArray::fromStdString(path));
        QVERIFY2(row.contains("hidden ("), named.out.constData());
        QVERIFY2(row.contains("evicted"), named.out.constData());
        QCOMPARE(TestUtil::pagesNow(path).resident, uint64_t(0));

        TestUtil::readRange(path, 0, 16 * P);
        const auto tree = asUser({QStringLiteral("evict"), q(folder)});
        QCOMPARE(tree.exitCode, 0);
        const QByteArray totals = rowFor(tree.out, QByteArray::fromStdString(folder));
        QVERIFY2(!totals.isEmpty(), tree.out.constData());
        QVERIFY2(totals.contains("hidden"), tree.out.constData());
        // Before, after and freed: no figure (the path comes last).
        const QByteArray figures = totals.left(totals.size() - qsizetype(folder.size()));
        QVERIFY2(!figure.match(QString::fromUtf8(figures)).hasMatch(), tree.out.constData());
        QCOMPARE(TestUtil::pagesNow(path).resident, uint64_t(0));

        // Both at once: the "total" line too.
        TestUtil::readRange(path, 0, 16 * P);
        const auto both = asUser({QStringLiteral("evict"), q(path), q(folder)});
        const QByteArray total = rowFor(both.out, "total");
        QVERIFY2(total.contains("hidden"), both.out.constData());
        QVERIFY2(!figure.match(QString::fromUtf8(total)).hasMatch(), both.out.constData());
    }

    // load says what is resident now, measured after the load, to the page:
    // in a cache limited to 32 MiB a 64 MiB file cannot all stay.
    void loadSaysWhatIsResidentNow()
    {
        if (!TestUtil::isRoot() || !QFile::exists(QStringLiteral("/sys/fs/cgroup/memory"))) {
            QSKIP("a contained run needs root and the memory cgroup hierarchy (tools/dev binds it)");
        }
        // The limit covers the loading process's own memory too: under
        // AddressSanitizer cachescope-cli alone takes about 30 MiB (measured
        // with memory.max_usage_in_bytes), so a 32 MiB limit left it no room
        // and the kernel killed it. 96 MiB leaves room for it and for some of
        // the file's cache, and the file is twice the limit.
        const std::string path = m_dir + "/load-limited";
        const uint64_t pages = 192 * 1024 * 1024 / P;
        TestUtil::makeColdFile(path, pages * P);
        const auto run = cli({QStringLiteral("run"),
                              QStringLiteral("--cache-limit"),
                              QStringLiteral("96M"),
                              QStringLiteral("--"),
                              TestUtil::cliPath(),
                              QStringLiteral("load"),
                              q(path)});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QByteArray row = rowFor(run.out, QByteArray::fromStdString(path));
        const QRegularExpressionMatch counts = QRegularExpression(QStringLiteral("(\\d+)/(\\d+)")).match(QString::fromUtf8(row));
        QVERIFY2(counts.hasMatch(), run.out.constData());
        QCOMPARE(counts.captured(2).toULongLong(), pages);
        QVERIFY2(counts.captured(1).toULongLong() < pages, run.out.constData());
        TestUtil::evictRaw(path);
    }

    void trueNumbersForTheOwner()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev (cachescope-user)");
        }
        const std::string path = m_dir + "/user-owned";
        TestUtil::makeColdFile(path, 16 * P);
        const TestUtil::HeldPages held(path, 0, 4 * P);
        QCOMPARE(chown(path.c_str(), *uid, *uid), 0);

        const auto result = TestUtil::run(QStringLiteral("runuser"),
                                          {QStringLiteral("-u"),
                                           QLatin1String(TestUtil::testUserName),
                                           QStringLiteral("--"),
                                           TestUtil::cliPath(),
                                           QStringLiteral("status"),
                                           QStringLiteral("--json"),
                                           q(path)});
        QCOMPARE(result.exitCode, 0);
        const QJsonObject file = TestUtil::jsonObjectOf(result).value(QLatin1String("files")).toArray().at(0).toObject();
        QCOMPARE(file.value(QLatin1String("hidden")).toBool(true), false);
        QCOMPARE(number(file, "resident"), quint64(4));
        QCOMPARE(number(file, "pages"), quint64(16));

        // A folder the user may not enter is an error: exit 1, named with its reason.
        const std::string locked = m_dir + "/locked";
        mkdir(locked.c_str(), 0700);
        const auto denied = TestUtil::run(QStringLiteral("runuser"),
                                          {QStringLiteral("-u"),
                                           QLatin1String(TestUtil::testUserName),
                                           QStringLiteral("--"),
                                           TestUtil::cliPath(),
                                           QStringLiteral("status"),
                                           QStringLiteral("-r"),
                                           q(m_dir)});
        QCOMPARE(denied.exitCode, 1);
        QVERIFY2(denied.err.contains(QByteArray(QByteArray::fromStdString(locked) + ": Permission denied")), denied.err.constData());
        rmdir(locked.c_str());
    }

    // Root needs no helper (docs/helper-security.md rule 15): the commands
    // run the helper's own actions in the CLI's process, with no bus and no
    // polkit, and work where no system bus runs at all. Last: with the caches
    // dropped, MemFree can exceed MemAvailable for a while, which meminfoJson
    // would see.
    void dropCachesAsRoot()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("needs root: as a user the command goes to the helper (tests/helper/helperbustest.cpp)");
        }
        const std::string path = m_dir + "/dropped-as-root";
        TestUtil::makeColdFile(path, 256 * P);
        // Resident, and not held mapped: drop_caches leaves mapped pages alone.
        TestUtil::readRange(path, 0, 256 * P);
        QVERIFY2(TestUtil::pagesNow(path).residentOrReclaimed() > 0, "the file's pages did not become resident");

        const auto result = cli({QStringLiteral("drop-caches"), QStringLiteral("1")}, 600000);
        QVERIFY(!result.timedOut);
        QVERIFY2(result.exitCode == 0, result.err.constData());
        QVERIFY2(!result.err.contains("not available"), result.err.constData());
        QCOMPARE(TestUtil::pagesNow(path).resident, quint64(0));
        if (const auto fincore = TestUtil::fincoreResidentPages(path)) {
            QCOMPARE(*fincore, quint64(0));
        }
    }

    void swapOnAsRootWithNothingRecorded()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("needs root: as a user the command goes to the helper (tests/helper/helperbustest.cpp)");
        }
        // Only where nothing is recorded: a record would be turned on for real.
        QFile state(QStringLiteral("/run/cachescope/swap-state"));
        if (state.open(QIODevice::ReadOnly)) {
            const QList<QByteArray> lines = state.readAll().split('\n');
            for (const QByteArray &line : lines) {
                if (line.startsWith("block ") || line.startsWith("file ")) {
                    QSKIP("Cachescope has recorded swap areas it turned off here; swap on would turn them on");
                }
            }
        }
        const auto result = cli({QStringLiteral("swap"), QStringLiteral("on")}, 120000);
        QVERIFY(!result.timedOut);
        // The helper's own answer, from its action run in this process: there
        // is nothing to do (which the CLI reports, as it does a helper's, with
        // status 1 and the sentence).
        QVERIFY2(result.err.contains("swap on: Cachescope has not turned off any swap area, so there is nothing to turn on again."), result.err.constData());
        QVERIFY2(!result.err.contains("not available"), result.err.constData());
        QCOMPARE(result.exitCode, 1);
        QVERIFY(result.out.isEmpty());
    }

    void statusPrivilegedAsRoot()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("needs root: as a user the command goes to the helper (tests/helper/helperbustest.cpp)");
        }
        const std::string path = m_dir + "/privileged-status-as-root";
        TestUtil::makeColdFile(path, 64 * P);
        const TestUtil::HeldPages half(path, 0, 32 * P);

        const auto result = cli({QStringLiteral("status"), QStringLiteral("--json"), QStringLiteral("--privileged"), q(path)});
        QVERIFY(!result.timedOut);
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const QJsonObject json = TestUtil::jsonObjectOf(result);
        QCOMPARE(json.value(QLatin1String("privileged")).toBool(false), true);
        const QJsonArray files = json.value(QLatin1String("files")).toArray();
        QCOMPARE(files.size(), 1);
        const QJsonObject file = files.at(0).toObject();
        QCOMPARE(file.value(QLatin1String("path")).toString(), q(path));
        QCOMPARE(number(file, "pages"), quint64(64));
        QCOMPARE(number(file, "resident"), quint64(32));

        // Text: the row with the page counts.
        const auto text = cli({QStringLiteral("status"), QStringLiteral("--privileged"), q(path)});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        const QByteArray row = rowFor(text.out, QByteArray::fromStdString(path));
        QVERIFY2(row.contains(" 32/64 "), row.constData());
    }
};

QTEST_GUILESS_MAIN(CliTest)
#include "clitest.moc"
