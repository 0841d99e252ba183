// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "procfs.h"
#include "testutil.h"

#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

using namespace Cachescope;

namespace
{

constexpr quint64 KiB = 1024;
constexpr quint64 MiB = 1024 * KiB;

// Keeps embedded NUL bytes, which QByteArray(const char *) would stop at.
template<size_t N>
QByteArray bytes(const char (&literal)[N])
{
    return QByteArray(literal, qsizetype(N - 1));
}

std::string fixtureRoot(const QString &kernel)
{
    return std::string(CACHESCOPE_FIXTURES) + "/proc/" + kernel.toStdString();
}

void writeFile(const std::string &path, std::string_view contents)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), std::streamsize(contents.size()));
    QVERIFY2(out.good(), path.c_str());
}

// "name=value;name=value" so that a whole parse result fits one data column.
QString describe(const FieldList &list)
{
    QStringList parts;
    for (const auto &[name, value] : list.fields) {
        parts << QString::fromStdString(name) + QLatin1Char('=') + QString::number(quint64(value));
    }
    return parts.join(QLatin1Char(';'));
}

QString describe(const std::vector<SwapArea> &areas)
{
    QStringList parts;
    for (const SwapArea &area : areas) {
        parts << QStringList{QString::fromStdString(area.filename),
                             QString::fromStdString(area.type),
                             QString::number(quint64(area.sizeBytes)),
                             QString::number(quint64(area.usedBytes)),
                             QString::number(area.priority)}
                     .join(QLatin1Char('|'));
    }
    return parts.join(QLatin1Char(';'));
}

// The numbers of free's "Mem:" and "Swap:" lines, in the order printed.
struct FreeOutput {
    QList<quint64> mem;
    QList<quint64> swap;
};

std::optional<FreeOutput> parseFreeOutput(const QByteArray &out)
{
    FreeOutput parsed;
    for (const QByteArray &line : out.split('\n')) {
        const QList<QByteArray> words = line.simplified().split(' ');
        if (words.isEmpty() || (words.first() != "Mem:" && words.first() != "Swap:")) {
            continue;
        }
        QList<quint64> &numbers = words.first() == "Mem:" ? parsed.mem : parsed.swap;
        for (qsizetype i = 1; i < words.size(); ++i) {
            bool ok = false;
            numbers << words[i].toULongLong(&ok);
            if (!ok) {
                return std::nullopt;
            }
        }
    }
    return parsed;
}

} // namespace

class ProcfsTest : public QObject
{
    Q_OBJECT

private:
    std::string m_scratch;

private Q_SLOTS:
    void initTestCase()
    {
        // free's headers are translated; its numbers are what we compare.
        qputenv("LC_ALL", "C");
        m_scratch = TestUtil::scratchDir("procfstest");
    }

    void memInfoFixtures_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("fieldCount");
        QTest::addColumn<QString>("lastField");
        QTest::addColumn<quint64>("memTotal");
        QTest::addColumn<quint64>("cached");
        QTest::addColumn<bool>("hasMemAvailable");
        QTest::addColumn<bool>("hasKReclaimable");
        QTest::addColumn<quint64>("hugePagesTotal");
        QTest::addColumn<quint64>("hugetlb");

        QTest::newRow("3.10") << QStringLiteral("linux-3.10") << 42 << QStringLiteral("DirectMap2M") << 3882456 * KiB << 2456720 * KiB << false << false
                              << quint64(0) << quint64(0);
        QTest::newRow("4.19") << QStringLiteral("linux-4.19") << 47 << QStringLiteral("DirectMap2M") << 8167848 * KiB << 4327756 * KiB << true << false
                              << quint64(0) << quint64(0);
        QTest::newRow("5.15") << QStringLiteral("linux-5.15") << 51 << QStringLiteral("DirectMap1G") << 16273496 * KiB << 9114328 * KiB << true << true
                              << quint64(64) << 131072 * KiB;
        QTest::newRow("6.18") << QStringLiteral("linux-6.18") << 54 << QStringLiteral("DirectMap1G") << 24684096 * KiB << 1117516 * KiB << true << true
                              << quint64(0) << quint64(0);
    }

    void memInfoFixtures()
    {
        QFETCH(QString, kernel);
        QFETCH(int, fieldCount);
        QFETCH(QString, lastField);
        QFETCH(quint64, memTotal);
        QFETCH(quint64, cached);
        QFETCH(bool, hasMemAvailable);
        QFETCH(bool, hasKReclaimable);
        QFETCH(quint64, hugePagesTotal);
        QFETCH(quint64, hugetlb);

        std::string error;
        const std::optional<MemInfo> info = readMemInfo(fixtureRoot(kernel), &error);
        QVERIFY2(info, error.c_str());
        QCOMPARE(int(info->fields.size()), fieldCount);
        QCOMPARE(info->fields.front().first, std::string("MemTotal"));
        QCOMPARE(QString::fromStdString(info->fields.back().first), lastField);
        QCOMPARE(quint64(info->value("MemTotal")), memTotal);
        QCOMPARE(quint64(info->value("Cached")), cached);
        QCOMPARE(info->has("MemAvailable"), hasMemAvailable);
        QCOMPARE(info->has("KReclaimable"), hasKReclaimable);
        // Lines without a unit are counts, not KiB.
        QCOMPARE(info->find("HugePages_Total"), std::optional<uint64_t>(hugePagesTotal));
        QCOMPARE(quint64(info->value("Hugetlb")), hugetlb);
        QCOMPARE(quint64(info->value("Hugepagesize")), 2 * MiB);
        // 34359738367 kB: the largest value in every x86-64 meminfo, times 1024 without overflow.
        QCOMPARE(quint64(info->value("VmallocTotal")), 34359738367ULL * KiB);
        QCOMPARE(quint64(info->value("NoSuchField", 77)), quint64(77));
        QVERIFY(!info->find("NoSuchField"));
    }

    void vmStatFixtures_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<int>("fieldCount");
        QTest::addColumn<quint64>("pgpgin");
        QTest::addColumn<quint64>("pgpgout");
        QTest::addColumn<quint64>("pgfault");
        QTest::addColumn<quint64>("pgmajfault");
        QTest::addColumn<quint64>("nrDirty");
        QTest::addColumn<quint64>("nrWriteback");
        QTest::addColumn<QString>("refaultName"); // empty: the kernel has none
        QTest::addColumn<quint64>("refaults");
        QTest::addColumn<quint64>("activations");

        QTest::newRow("3.10") << QStringLiteral("linux-3.10") << 107 << quint64(18342117) << quint64(40211984) << quint64(1284437021) << quint64(41877)
                              << quint64(311) << quint64(0) << QString() << quint64(0) << quint64(0);
        QTest::newRow("4.19") << QStringLiteral("linux-4.19") << 134 << quint64(52233180) << quint64(71044312) << quint64(903331842) << quint64(120334)
                              << quint64(247) << quint64(0) << QStringLiteral("workingset_refault") << quint64(1587220) << quint64(402318);
        QTest::newRow("5.15") << QStringLiteral("linux-5.15") << 164 << quint64(88213344) << quint64(120377016) << quint64(2316478590) << quint64(90117)
                              << quint64(1178) << quint64(32) << QStringLiteral("workingset_refault_file") << quint64(2210457) << quint64(731206);
        QTest::newRow("6.18") << QStringLiteral("linux-6.18") << 192 << quint64(1305877) << quint64(8155400) << quint64(10677559) << quint64(1072)
                              << quint64(35) << quint64(0) << QStringLiteral("workingset_refault_file") << quint64(138172) << quint64(77214);
    }

    void vmStatFixtures()
    {
        QFETCH(QString, kernel);
        QFETCH(int, fieldCount);
        QFETCH(quint64, pgpgin);
        QFETCH(quint64, pgpgout);
        QFETCH(quint64, pgfault);
        QFETCH(quint64, pgmajfault);
        QFETCH(quint64, nrDirty);
        QFETCH(quint64, nrWriteback);
        QFETCH(QString, refaultName);
        QFETCH(quint64, refaults);
        QFETCH(quint64, activations);

        std::string error;
        const std::optional<VmStat> stat = readVmStat(fixtureRoot(kernel), &error);
        QVERIFY2(stat, error.c_str());
        QCOMPARE(int(stat->fields.size()), fieldCount);
        QCOMPARE(stat->fields.front().first, std::string("nr_free_pages"));
        QCOMPARE(quint64(stat->value("pgpgin")), pgpgin);
        QCOMPARE(quint64(stat->value("pgpgout")), pgpgout);
        QCOMPARE(quint64(stat->value("pgfault")), pgfault);
        QCOMPARE(quint64(stat->value("pgmajfault")), pgmajfault);
        QCOMPARE(stat->find("nr_dirty"), std::optional<uint64_t>(nrDirty));
        QCOMPARE(stat->find("nr_writeback"), std::optional<uint64_t>(nrWriteback));

        if (refaultName.isEmpty()) {
            QVERIFY(!stat->has("workingset_refault"));
            QVERIFY(!stat->has("workingset_refault_file"));
            QVERIFY(!fileRefaults(*stat));
            QVERIFY(!fileActivations(*stat));
        } else {
            QCOMPARE(stat->find(refaultName.toStdString()), std::optional<uint64_t>(refaults));
            QCOMPARE(fileRefaults(*stat), std::optional<uint64_t>(refaults));
            QCOMPARE(fileActivations(*stat), std::optional<uint64_t>(activations));
        }
        // Only the name this kernel uses is present: nothing is invented.
        QCOMPARE(stat->has("workingset_refault"), refaultName == QLatin1String("workingset_refault"));
        QCOMPARE(stat->has("workingset_refault_file"), refaultName == QLatin1String("workingset_refault_file"));
    }

    void swapsFixtures_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("expected"); // filename|type|size bytes|used bytes|priority;...

        QTest::newRow("3.10") << QStringLiteral("linux-3.10") << QStringLiteral("/dev/dm-1|partition|%1|%2|-1").arg(2097148 * KiB).arg(46144 * KiB);
        QTest::newRow("4.19") << QStringLiteral("linux-4.19") << QStringLiteral("/dev/sda3|partition|%1|%2|-2").arg(8388604 * KiB).arg(129536 * KiB);
        QTest::newRow("5.15") << QStringLiteral("linux-5.15")
                              << QStringLiteral("/dev/disk/by-partlabel/linux swap|partition|%1|%2|-2;/var/swap/swap\\file|file|%3|0|-3")
                                     .arg(4194300 * KiB)
                                     .arg(114688 * KiB)
                                     .arg(2097152 * KiB);
        QTest::newRow("6.18") << QStringLiteral("linux-6.18") << QStringLiteral("/work/main/build-procfs/capture/swap file|file|%1|0|5").arg(16380 * KiB);
    }

    void swapsFixtures()
    {
        QFETCH(QString, kernel);
        QFETCH(QString, expected);

        std::string error;
        const std::optional<std::vector<SwapArea>> areas = readSwaps(fixtureRoot(kernel), &error);
        QVERIFY2(areas, error.c_str());
        QCOMPARE(describe(*areas), expected);
    }

    // The figures `free` would print for each fixture, worked out by hand
    // from the fixture's meminfo (all in KiB).
    void freeFiguresFixtures_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QList<quint64>>("mem"); // total used free shared buffers cache available
        QTest::addColumn<QList<quint64>>("swap"); // total used free

        // No MemAvailable before 3.14: procps 4 takes MemFree, so used = total - free.
        QTest::newRow("3.10") << QStringLiteral("linux-3.10") << QList<quint64>{3882456, 3882456 - 215432, 215432, 39572, 104288, 2456720 + 268608, 215432}
                              << QList<quint64>{2097148, 2097148 - 2051004, 2051004};
        QTest::newRow("4.19") << QStringLiteral("linux-4.19") << QList<quint64>{8167848, 8167848 - 5912076, 1353140, 86316, 298432, 4327756 + 271940, 5912076}
                              << QList<quint64>{8388604, 8388604 - 8259068, 8259068};
        QTest::newRow("5.15") << QStringLiteral("linux-5.15")
                              << QList<quint64>{16273496, 16273496 - 11820164, 2104432, 376468, 412680, 9114328 + 586412, 11820164}
                              << QList<quint64>{6291452, 6291452 - 6176764, 6176764};
        QTest::newRow("6.18") << QStringLiteral("linux-6.18")
                              << QList<quint64>{24684096, 24684096 - 24234848, 23032248, 8788, 61456, 1117516 + 341152, 24234848}
                              << QList<quint64>{16380, 0, 16380};
    }

    void freeFiguresFixtures()
    {
        QFETCH(QString, kernel);
        QFETCH(QList<quint64>, mem);
        QFETCH(QList<quint64>, swap);

        const std::optional<MemInfo> info = readMemInfo(fixtureRoot(kernel));
        QVERIFY(info);
        const FreeFigures figures = freeFigures(*info);
        QCOMPARE(quint64(figures.total), mem[0] * KiB);
        QCOMPARE(quint64(figures.used), mem[1] * KiB);
        QCOMPARE(quint64(figures.free), mem[2] * KiB);
        QCOMPARE(quint64(figures.shared), mem[3] * KiB);
        QCOMPARE(quint64(figures.buffers), mem[4] * KiB);
        QCOMPARE(quint64(figures.cache), mem[5] * KiB);
        QCOMPARE(quint64(figures.buffCache), (mem[4] + mem[5]) * KiB);
        QCOMPARE(quint64(figures.available), mem[6] * KiB);
        QCOMPARE(quint64(figures.swapTotal), swap[0] * KiB);
        QCOMPARE(quint64(figures.swapUsed), swap[1] * KiB);
        QCOMPARE(quint64(figures.swapFree), swap[2] * KiB);
    }

    void freeFiguresEdgeCases_data()
    {
        QTest::addColumn<QString>("meminfo");
        QTest::addColumn<QList<quint64>>("mem"); // total used free shared buffers cache available (KiB)
        QTest::addColumn<QList<quint64>>("swap");

        // Containers (lxcfs) can show a MemAvailable above MemTotal: procps then uses MemFree.
        QTest::newRow("available above total") << QStringLiteral(
            "MemTotal: 1000 kB\nMemFree: 300 kB\nMemAvailable: 5000 kB\nSwapTotal: 10 kB\nSwapFree: 4 kB\n")
                                               << QList<quint64>{1000, 700, 300, 0, 0, 0, 300} << QList<quint64>{10, 6, 4};
        QTest::newRow("available present but 0") << QStringLiteral("MemTotal: 1000 kB\nMemFree: 300 kB\nMemAvailable: 0 kB\n")
                                                 << QList<quint64>{1000, 700, 300, 0, 0, 0, 300} << QList<quint64>{0, 0, 0};
        QTest::newRow("swap free above total") << QStringLiteral(
            "MemTotal: 1000 kB\nMemFree: 300 kB\nMemAvailable: 600 kB\nSwapTotal: 10 kB\nSwapFree: 20 kB\n")
                                               << QList<quint64>{1000, 400, 300, 0, 0, 0, 600} << QList<quint64>{10, 0, 20};
        QTest::newRow("cache without SReclaimable") << QStringLiteral(
            "MemTotal: 1000 kB\nMemFree: 300 kB\nMemAvailable: 600 kB\nBuffers: 7 kB\nCached: 50 kB\nShmem: 3 kB\n")
                                                    << QList<quint64>{1000, 400, 300, 3, 7, 50, 600} << QList<quint64>{0, 0, 0};
    }

    // The same figures from text written here, and below, against procps itself.
    void freeFiguresEdgeCases()
    {
        QFETCH(QString, meminfo);
        QFETCH(QList<quint64>, mem);
        QFETCH(QList<quint64>, swap);

        const FreeFigures figures = freeFigures(parseMemInfo(meminfo.toStdString()));
        const QList<quint64> gotMem{figures.total, figures.used, figures.free, figures.shared, figures.buffers, figures.cache, figures.available};
        const QList<quint64> gotSwap{figures.swapTotal, figures.swapUsed, figures.swapFree};
        QList<quint64> wantMem;
        for (quint64 kib : mem) {
            wantMem << kib * KiB;
        }
        QList<quint64> wantSwap;
        for (quint64 kib : swap) {
            wantSwap << kib * KiB;
        }
        QCOMPARE(gotMem, wantMem);
        QCOMPARE(gotSwap, wantSwap);
    }

    // Runs the real procps `free` on each fixture's meminfo, bind-mounted over
    // /proc/meminfo in a private mount namespace that dies with the command.
    void freeMatchesProcpsOnFixtures_data()
    {
        QTest::addColumn<QString>("root");
        for (const char *kernel : {"linux-3.10", "linux-4.19", "linux-5.15", "linux-6.18"}) {
            QTest::newRow(kernel) << QString::fromStdString(fixtureRoot(QLatin1String(kernel)));
        }
        // The edge cases of freeFiguresEdgeCases, as files.
        const std::pair<const char *, const char *> synthetic[] = {
            {"available above total", "MemTotal: 1000 kB\nMemFree: 300 kB\nMemAvailable: 5000 kB\nSwapTotal: 10 kB\nSwapFree: 4 kB\n"},
            {"available present but 0", "MemTotal: 1000 kB\nMemFree: 300 kB\nMemAvailable: 0 kB\n"},
            {"swap free above total", "MemTotal: 1000 kB\nMemFree: 300 kB\nMemAvailable: 600 kB\nSwapTotal: 10 kB\nSwapFree: 20 kB\n"},
        };
        int index = 0;
        for (const auto &[name, text] : synthetic) {
            const std::string dir = m_scratch + "/synthetic-" + std::to_string(index++);
            mkdir(dir.c_str(), 0755);
            writeFile(dir + "/meminfo", text);
            QTest::newRow(name) << QString::fromStdString(dir);
        }
    }

    void freeMatchesProcpsOnFixtures()
    {
        QFETCH(QString, root);
        if (!TestUtil::haveProgram("free") || !TestUtil::haveProgram("unshare")) {
            QSKIP("needs procps free and util-linux unshare");
        }
        if (!TestUtil::isRoot()) {
            QSKIP("bind-mounting over /proc/meminfo needs root");
        }
        // make-rprivate first, so that the bind cannot propagate out of the
        // new namespace even where / is a shared mount.
        const QString script = QStringLiteral("mount --make-rprivate /proc && mount --bind \"$1\" /proc/meminfo && exec free -b -w");
        const TestUtil::RunResult result = TestUtil::run(QStringLiteral("unshare"),
                                                         {QStringLiteral("--mount"),
                                                          QStringLiteral("--propagation"),
                                                          QStringLiteral("unchanged"),
                                                          QStringLiteral("sh"),
                                                          QStringLiteral("-c"),
                                                          script,
                                                          QStringLiteral("sh"),
                                                          root + QStringLiteral("/meminfo")});
        if (result.exitCode != 0 && result.err.contains("mount")) {
            QSKIP(qPrintable(QStringLiteral("cannot bind-mount here: ") + QString::fromUtf8(result.err.trimmed())));
        }
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const std::optional<FreeOutput> printed = parseFreeOutput(result.out);
        QVERIFY2(printed && printed->mem.size() == 7 && printed->swap.size() == 3, result.out.constData());

        const std::optional<MemInfo> info = readMemInfo(root.toStdString());
        QVERIFY(info);
        const FreeFigures figures = freeFigures(*info);
        const QList<quint64> ours{figures.total, figures.used, figures.free, figures.shared, figures.buffers, figures.cache, figures.available};
        QCOMPARE(ours, printed->mem);
        QCOMPARE((QList<quint64>{figures.swapTotal, figures.swapUsed, figures.swapFree}), printed->swap);
    }

    void missingOrBadProcRoot_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("root");
        QTest::addColumn<QString>("reason");

        for (const char *file : {"meminfo", "vmstat", "swaps"}) {
            const QString name = QLatin1String(file);
            QTest::addRow("%s missing root", file) << name << QStringLiteral("/nonexistent-cachescope-proc") << QStringLiteral("No such file or directory");
            QTest::addRow("%s trailing slash", file) << name << QStringLiteral("/nonexistent-cachescope-proc/") << QStringLiteral("No such file or directory");
        }
        // A folder, a FIFO (must not block the open), a device and an endless
        // file where the proc file belongs: each refused with the reason.
        const std::string dirCase = m_scratch + "/dir-case";
        mkdir(dirCase.c_str(), 0755);
        mkdir((dirCase + "/meminfo").c_str(), 0755);
        QTest::newRow("meminfo is a folder") << QStringLiteral("meminfo") << QString::fromStdString(dirCase) << QStringLiteral("Is a directory");

        const std::string fifoCase = m_scratch + "/fifo-case";
        mkdir(fifoCase.c_str(), 0755);
        mkfifo((fifoCase + "/vmstat").c_str(), 0644);
        QTest::newRow("vmstat is a FIFO") << QStringLiteral("vmstat") << QString::fromStdString(fifoCase) << QStringLiteral("not a regular file");

        const std::string deviceCase = m_scratch + "/device-case";
        mkdir(deviceCase.c_str(), 0755);
        unlink((deviceCase + "/swaps").c_str()); // from an earlier call of this function
        QCOMPARE(symlink("/dev/zero", (deviceCase + "/swaps").c_str()), 0);
        QTest::newRow("swaps is /dev/zero") << QStringLiteral("swaps") << QString::fromStdString(deviceCase) << QStringLiteral("not a regular file");

        const std::string hugeCase = m_scratch + "/huge-case";
        mkdir(hugeCase.c_str(), 0755);
        const std::string hugeFile = hugeCase + "/meminfo";
        const int fd = open(hugeFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        QVERIFY2(fd >= 0, hugeFile.c_str());
        QVERIFY2(ftruncate(fd, 17 * MiB) == 0, hugeFile.c_str());
        close(fd);
        QTest::newRow("meminfo over 16 MiB") << QStringLiteral("meminfo") << QString::fromStdString(hugeCase)
                                             << QStringLiteral("larger than 16 MiB, not a proc file");
    }

    void missingOrBadProcRoot()
    {
        QFETCH(QString, what);
        QFETCH(QString, root);
        QFETCH(QString, reason);

        const std::string rootPath = root.toStdString();
        std::string error;
        bool failed = false;
        if (what == QLatin1String("meminfo")) {
            failed = !readMemInfo(rootPath, &error);
        } else if (what == QLatin1String("vmstat")) {
            failed = !readVmStat(rootPath, &error);
        } else {
            failed = !readSwaps(rootPath, &error);
        }
        QVERIFY(failed);
        QString expectedRoot = root;
        while (expectedRoot.endsWith(QLatin1Char('/'))) {
            expectedRoot.chop(1);
        }
        QCOMPARE(QString::fromStdString(error), expectedRoot + QLatin1Char('/') + what + QStringLiteral(": ") + reason);
        // And without an error pointer: still nullopt, no crash.
        QVERIFY(!readMemInfo(rootPath + "/no-such-sub-folder"));
    }

    void malformedMemInfo_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");

        QTest::newRow("empty") << QByteArray() << QString();
        QTest::newRow("only newlines") << QByteArray("\n\n\n") << QString();
        QTest::newRow("binary garbage") << bytes("\x01\xff\xfe:\x00\x80 kB\n\x7f\x7f") << QString();
        QTest::newRow("missing colon") << QByteArray("MemTotal 1000 kB\nMemFree: 2 kB\n") << QStringLiteral("MemFree=2048");
        QTest::newRow("no value") << QByteArray("MemTotal:\nMemFree:   kB\nBuffers: 1 kB") << QStringLiteral("Buffers=1024");
        QTest::newRow("not a number") << QByteArray("MemTotal: 12x kB\nMemFree: -5 kB\nCached: 0x10 kB\n") << QString();
        QTest::newRow("empty name") << QByteArray(": 5 kB\n  : 6\nA B: 7\n") << QString();
        QTest::newRow("unknown unit") << QByteArray("MemTotal: 5 MB\nMemFree: 6 kB\n") << QStringLiteral("MemFree=6144");
        QTest::newRow("trailing junk") << QByteArray("MemTotal: 5 kB extra\nMemFree: 6 7\n") << QString();
        QTest::newRow("overflows uint64") << QByteArray("MemTotal: 18446744073709551616\nMemFree: 99999999999999999999999 kB\n") << QString();
        QTest::newRow("kB overflows on * 1024") << QByteArray("MemTotal: 18014398509481984 kB\nMemFree: 18014398509481983 kB\n")
                                                << QStringLiteral("MemFree=18446744073709550592");
        QTest::newRow("max count kept") << QByteArray("HugePages_Total: 18446744073709551615\n") << QStringLiteral("HugePages_Total=18446744073709551615");
        QTest::newRow("CRLF and tabs") << QByteArray("MemTotal:\t5 kB\r\nMemFree:\t\t6\t kB \r\n") << QStringLiteral("MemTotal=5120;MemFree=6144");
        QTest::newRow("NUL inside") << bytes("MemTotal: 5\0 kB\nMemFree: 1 kB\n") << QStringLiteral("MemFree=1024");
        QTest::newRow("no final newline") << QByteArray("MemTotal: 5 kB") << QStringLiteral("MemTotal=5120");
    }

    void malformedMemInfo()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QCOMPARE(describe(parseMemInfo(std::string_view(text.constData(), size_t(text.size())))), expected);
    }

    void malformedVmStat_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");

        QTest::newRow("empty") << QByteArray() << QString();
        QTest::newRow("binary garbage") << bytes("\x01\xff\xfe\x00\x80\n\x7f") << QString();
        QTest::newRow("name only") << QByteArray("pgpgin\npgpgout 5\n") << QStringLiteral("pgpgout=5");
        QTest::newRow("negative") << QByteArray("nr_dirty -3\n") << QString();
        QTest::newRow("three words") << QByteArray("pgfault 1 2\n") << QString();
        QTest::newRow("overflow") << QByteArray("pgfault 18446744073709551616\npgmajfault 18446744073709551615\n")
                                  << QStringLiteral("pgmajfault=18446744073709551615");
        QTest::newRow("meminfo style") << QByteArray("MemTotal: 5 kB\n") << QString();
        QTest::newRow("blank lines and CRLF") << QByteArray("\n  \npgpgin 7\r\n\n") << QStringLiteral("pgpgin=7");
    }

    void malformedVmStat()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QCOMPARE(describe(parseVmStat(std::string_view(text.constData(), size_t(text.size())))), expected);
    }

    // proc(5)'s example line, an overlay's, escapes, optional fields, and
    // lines that are not of the form (dropped, never half read).
    void mountInfoLines()
    {
        const std::string text =
            "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue\n"
            "40 36 0:60 / /var/lib/with\\040space rw shared:7 master:2 - overlay overlay rw,lowerdir=/l:/m,upperdir=/u,workdir=/w\n"
            "41 36 259:3 / /boot rw - vfat /dev/nvme0n1p3 rw\n"
            "x 36 8:1 / /bad rw - ext4 /dev/sda1 rw\n"
            "42 36 8 / /no-minor rw - ext4 /dev/sda1 rw\n"
            "43 36 8:1 / /no-separator rw ext4 /dev/sda1 rw\n"
            "44 36 8:1 / /no-type rw - \n";
        const std::vector<MountInfoEntry> mounts = parseMountInfo(text);
        QCOMPARE(mounts.size(), size_t(3));
        QCOMPARE(mounts[0].id, 36u);
        QCOMPARE(mounts[0].parentId, 35u);
        QCOMPARE(mounts[0].device, uint64_t(makedev(98, 0)));
        QCOMPARE(mounts[0].root, std::string("/mnt1"));
        QCOMPARE(mounts[0].mountPoint, std::string("/mnt2"));
        QCOMPARE(mounts[0].fsType, std::string("ext3"));
        QCOMPARE(mounts[0].source, std::string("/dev/root"));
        QCOMPARE(mounts[0].superOptions, std::string("rw,errors=continue"));
        QCOMPARE(mounts[1].mountPoint, std::string("/var/lib/with space"));
        QCOMPARE(mounts[1].fsType, std::string("overlay"));
        QCOMPARE(mounts[1].superOptions, std::string("rw,lowerdir=/l:/m,upperdir=/u,workdir=/w"));
        QCOMPARE(mounts[2].device, uint64_t(makedev(259, 3)));
        // This process's own: "/" is there, wherever it runs.
        const std::optional<std::vector<MountInfoEntry>> own = readMountInfo();
        QVERIFY(own);
        QVERIFY(std::any_of(own->begin(), own->end(), [](const MountInfoEntry &mount) {
            return !mount.mountPoint.empty() && mount.mountPoint.front() == '/';
        }));
        std::string error;
        QVERIFY(!readMountInfo(TestUtil::scratchDir("procfs-no-mountinfo"), &error));
        QVERIFY2(error.find("self/mountinfo") != std::string::npos, error.c_str());
    }

    void swapsParsing_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");

        QTest::newRow("empty") << QByteArray() << QString();
        QTest::newRow("header only") << QByteArray("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n") << QString();
        QTest::newRow("garbage") << bytes("\x01\xff\xfe\x00\x80\n\\\\\\\n") << QString();
        QTest::newRow("too few fields") << QByteArray("/swap file 100 0\n") << QString();
        QTest::newRow("too many fields") << QByteArray("/swap file 100 0 -2 9\n") << QString();
        QTest::newRow("priority out of int range") << QByteArray("/swap file 100 0 2147483648\n/s2 file 1 0 -2147483648\n")
                                                   << QStringLiteral("/s2|file|1024|0|-2147483648");
        QTest::newRow("size overflows") << QByteArray("/swap file 18014398509481984 0 1\n") << QString();
        QTest::newRow("space") << QByteArray("/a\\040b partition 4 1 -2\n") << QStringLiteral("/a b|partition|4096|1024|-2");
        QTest::newRow("tab newline backslash") << QByteArray("/a\\011b\\012c\\134d file 4 1 0\n") << QStringLiteral("/a\tb\nc\\d|file|4096|1024|0");
        // Not an escape the kernel writes: kept byte for byte.
        QTest::newRow("not escapes") << QByteArray("/a\\400\\9x\\04 file 4 1 0\n") << QStringLiteral("/a\\400\\9x\\04|file|4096|1024|0");
        QTest::newRow("escape at the end") << QByteArray("/swap\\040 file 4 1 0\n") << QStringLiteral("/swap |file|4096|1024|0");
    }

    void swapsParsing()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        QCOMPARE(describe(parseSwaps(std::string_view(text.constData(), size_t(text.size())))), expected);
    }

    // The running kernel: every required counter is there and the files parse whole.
    void liveProcFiles()
    {
        std::string error;
        const std::optional<VmStat> stat = readVmStat("/proc", &error);
        QVERIFY2(stat, error.c_str());
        for (const char *name :
             {"pgpgin", "pgpgout", "pgfault", "pgmajfault", "workingset_refault_file", "workingset_activate_file", "nr_dirty", "nr_writeback"}) {
            QVERIFY2(stat->has(name), name);
        }
        QVERIFY(fileRefaults(*stat));

        const std::optional<MemInfo> info = readMemInfo("/proc", &error);
        QVERIFY2(info, error.c_str());
        std::ifstream file("/proc/meminfo");
        const auto lines = std::count(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>(), '\n');
        QCOMPARE(qsizetype(info->fields.size()), qsizetype(lines));

        const std::optional<std::vector<SwapArea>> swaps = readSwaps("/proc", &error);
        QVERIFY2(swaps, error.c_str());
        uint64_t swapSize = 0;
        for (const SwapArea &area : *swaps) {
            swapSize += area.sizeBytes;
        }
        // /proc/swaps and SwapTotal describe the same areas (zram too).
        QCOMPARE(quint64(swapSize), quint64(info->value("SwapTotal")));
    }

    // Against the `free` on this machine. Memory moves between our read and
    // free's, so read before and after and accept what lies between.
    void liveMatchesFree_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("free -b") << QStringList{QStringLiteral("-b")};
        QTest::newRow("free -b -w") << QStringList{QStringLiteral("-b"), QStringLiteral("-w")};
    }

    void liveMatchesFree()
    {
        QFETCH(QStringList, arguments);
        if (!TestUtil::haveProgram("free")) {
            QSKIP("procps free is not installed");
        }
        const std::optional<MemInfo> before = readMemInfo("/proc");
        const TestUtil::RunResult result = TestUtil::run(QStringLiteral("free"), arguments);
        const std::optional<MemInfo> after = readMemInfo("/proc");
        QVERIFY(before && after);
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const std::optional<FreeOutput> printed = parseFreeOutput(result.out);
        const bool wide = arguments.contains(QStringLiteral("-w"));
        QVERIFY2(printed && printed->mem.size() == (wide ? 7 : 6) && printed->swap.size() == 3, result.out.constData());

        const FreeFigures a = freeFigures(*before);
        const FreeFigures b = freeFigures(*after);
        const auto check = [](const char *name, quint64 printedValue, quint64 first, quint64 second) {
            const quint64 low = std::min(first, second);
            const quint64 high = std::max(first, second);
            const quint64 tolerance = MiB + high / 100;
            const quint64 lowBound = low > tolerance ? low - tolerance : 0;
            if (printedValue < lowBound || printedValue > high + tolerance) {
                qWarning("%s: free printed %llu, we read %llu before and %llu after", name, printedValue, first, second);
                return false;
            }
            return true;
        };

        QCOMPARE(quint64(a.total), quint64(b.total));
        QCOMPARE(printed->mem[0], quint64(a.total));
        QVERIFY(check("used", printed->mem[1], a.used, b.used));
        QVERIFY(check("free", printed->mem[2], a.free, b.free));
        QVERIFY(check("shared", printed->mem[3], a.shared, b.shared));
        if (wide) {
            QVERIFY(check("buffers", printed->mem[4], a.buffers, b.buffers));
            QVERIFY(check("cache", printed->mem[5], a.cache, b.cache));
            QVERIFY(check("available", printed->mem[6], a.available, b.available));
        } else {
            QVERIFY(check("buff/cache", printed->mem[4], a.buffCache, b.buffCache));
            QVERIFY(check("available", printed->mem[5], a.available, b.available));
        }
        QCOMPARE(quint64(a.swapTotal), quint64(b.swapTotal));
        QCOMPARE(printed->swap[0], quint64(a.swapTotal));
        QVERIFY(check("swap used", printed->swap[1], a.swapUsed, b.swapUsed));
        QVERIFY(check("swap free", printed->swap[2], a.swapFree, b.swapFree));
    }
};

QTEST_GUILESS_MAIN(ProcfsTest)
#include "procfstest.moc"
