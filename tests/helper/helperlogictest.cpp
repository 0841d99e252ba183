// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The privileged helper's pure decisions on fixture figures: the swapoff
// will-it-fit rule, matching areas by identity, the state file, the
// filesystems an experiment swap file may live on, and the generated polkit
// policy's defaults (docs/helper-security.md rule 7).

#include "helperlogic.h"
#include "accountanswer.h"
#include "format.h"
#include "helperprotocol.h"
#include "procfs.h"

#include <QFile>
#include <QTest>
#include <QXmlStreamReader>

#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>

using namespace Cachescope;
using namespace Cachescope::Helper;

namespace
{
constexpr quint64 KiB = 1024;
constexpr quint64 MiB = 1024 * KiB;
constexpr quint64 GiB = 1024 * MiB;

MemInfo memInfo(quint64 total, std::optional<quint64> available, quint64 free)
{
    MemInfo info;
    info.fields.emplace_back("MemTotal", total);
    info.fields.emplace_back("MemFree", free);
    if (available) {
        info.fields.emplace_back("MemAvailable", *available);
    }
    return info;
}

std::string fixtureRoot(const char *kernel)
{
    return std::string(CACHESCOPE_FIXTURES) + "/proc/" + kernel;
}
} // namespace

class HelperLogicTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void swapOffFit_data()
    {
        QTest::addColumn<quint64>("swapUsed");
        QTest::addColumn<quint64>("memTotal");
        QTest::addColumn<qint64>("memAvailable"); // -1: the kernel has no MemAvailable
        QTest::addColumn<quint64>("memFree");
        QTest::addColumn<bool>("fits");
        QTest::addColumn<quint64>("missing");

        // Margin: max(128 MiB, MemTotal / 20).
        QTest::newRow("nothing swapped out, no memory") << quint64(0) << 1 * GiB << qint64(0) << quint64(0) << true << quint64(0);
        QTest::newRow("plenty") << 1 * GiB << 16 * GiB << qint64(8 * GiB) << 1 * GiB << true << quint64(0);
        // 16 GiB total: margin 819.2 MiB. 2 GiB used + margin = 2867.2 MiB > 2 GiB available.
        QTest::newRow("short by the margin and more") << 2 * GiB << 16 * GiB << qint64(2 * GiB) << 1 * GiB << false << quint64(16 * GiB / 20);
        // Exactly enough: used + margin == available.
        QTest::newRow("exactly enough") << 1 * GiB << 1 * GiB << qint64(1 * GiB + 128 * MiB) << 0ULL << true << quint64(0);
        QTest::newRow("one byte short") << 1 * GiB << 1 * GiB << qint64(1 * GiB + 128 * MiB - 1) << 0ULL << false << quint64(1);
        // Old kernels (3.10): MemFree stands in for MemAvailable.
        QTest::newRow("no MemAvailable, MemFree too small")
            << 512 * MiB << 4 * GiB << qint64(-1) << 600 * MiB << false << quint64(512 * MiB + 4 * GiB / 20 - 600 * MiB);
        QTest::newRow("no MemAvailable, MemFree enough") << 100 * MiB << 4 * GiB << qint64(-1) << 2 * GiB << true << quint64(0);
    }
    void swapOffFit()
    {
        QFETCH(quint64, swapUsed);
        QFETCH(quint64, memTotal);
        QFETCH(qint64, memAvailable);
        QFETCH(quint64, memFree);
        QFETCH(bool, fits);
        QFETCH(quint64, missing);
        const SwapOffFit fit = Helper::swapOffFit(swapUsed, memInfo(memTotal, memAvailable < 0 ? std::nullopt : std::optional<quint64>(memAvailable), memFree));
        QCOMPARE(fit.fits, fits);
        QCOMPARE(fit.missingBytes, missing);
        if (!fits) {
            const QString message = describeSwapOffMisfit(fit);
            QVERIFY2(message.contains(QLatin1String("is missing")), qPrintable(message));
            QVERIFY2(message.contains(formatBytes(missing, ByteStyle::Exact)), qPrintable(message));
        }
    }

    // The captured and reconstructed /proc files of procfstest, read as the helper reads them.
    void swapOffFitOnProcFixtures_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<bool>("fits");
        QTest::newRow("linux-6.18: 0 used") << QStringLiteral("linux-6.18") << true;
        QTest::newRow("linux-5.15: 112 MiB used, 11 GiB available") << QStringLiteral("linux-5.15") << true;
        QTest::newRow("linux-4.19: 126 MiB used, 5.6 GiB available") << QStringLiteral("linux-4.19") << true;
        // No MemAvailable: 210 MiB MemFree < 45 MiB + 190 MiB margin. Cautious, so refused.
        QTest::newRow("linux-3.10: 45 MiB used, MemFree only") << QStringLiteral("linux-3.10") << false;
    }
    void swapOffFitOnProcFixtures()
    {
        QFETCH(QString, kernel);
        QFETCH(bool, fits);
        const std::string root = fixtureRoot(kernel.toLatin1().constData());
        const std::optional<MemInfo> mem = readMemInfo(root);
        const std::optional<std::vector<SwapArea>> swaps = readSwaps(root);
        QVERIFY(mem && swaps);
        uint64_t used = 0;
        for (const SwapArea &area : *swaps) {
            used += area.usedBytes;
        }
        QCOMPARE(used, mem->value("SwapTotal") - mem->value("SwapFree"));
        QCOMPARE(Helper::swapOffFit(used, *mem).fits, fits);
        // The same machine with 64 times as much swapped out would not manage.
        if (used > 0) {
            QVERIFY(!Helper::swapOffFit(used * 64, *mem).fits || mem->value("MemAvailable") > used * 64);
        }
    }

    void findArea()
    {
        struct stat file{};
        file.st_mode = S_IFREG | 0600;
        file.st_dev = makedev(8, 3);
        file.st_ino = 1234;
        struct stat block{};
        block.st_mode = S_IFBLK | 0660;
        block.st_rdev = makedev(253, 1);
        block.st_dev = makedev(0, 5);
        block.st_ino = 99;
        struct stat link{};
        link.st_mode = S_IFLNK | 0777;
        struct stat fifo{};
        fifo.st_mode = S_IFIFO | 0600;
        QVERIFY(!areaIdentity(link));
        QVERIFY(!areaIdentity(fifo));
        const AreaIdentity fileId = *areaIdentity(file);
        const AreaIdentity blockId = *areaIdentity(block);
        QVERIFY(blockId.blockDevice);
        QCOMPARE(blockId.device, uint64_t(makedev(253, 1)));

        const std::vector<std::optional<AreaIdentity>> active{std::nullopt, blockId, fileId};
        QCOMPARE(Helper::findArea(fileId, active), std::optional<size_t>(2));
        QCOMPARE(Helper::findArea(blockId, active), std::optional<size_t>(1));
        // Same inode number on another device, same device with another inode: no match.
        AreaIdentity other = fileId;
        other.device = makedev(8, 4);
        QVERIFY(!Helper::findArea(other, active));
        other = fileId;
        other.inode = 1235;
        QVERIFY(!Helper::findArea(other, active));
        // A file whose inode number equals a device number is still not that device.
        AreaIdentity confusing;
        confusing.device = makedev(253, 1);
        confusing.inode = 0;
        QVERIFY(!Helper::findArea(confusing, active));
    }

    void stateRoundTrip()
    {
        const std::vector<SwapRecord> records{
            SwapRecord{"/dev/sda3", AreaIdentity{true, makedev(8, 3), 0}, -2},
            SwapRecord{"/var/swap file%with\nnewline", AreaIdentity{false, makedev(8, 1), 4242}, 7},
        };
        const std::string text = formatSwapState(records);
        QVERIFY(text.starts_with("cachescope-swap-state 1\n"));
        QVERIFY2(text.find("file 2049 4242 7 /var/swap%20file%25with%0Anewline\n") != std::string::npos, text.c_str());
        QString error;
        const std::optional<std::vector<SwapRecord>> parsed = parseSwapState(text, &error);
        QVERIFY2(parsed, qPrintable(error));
        QVERIFY(*parsed == records);
        // Empty list: only the header.
        QCOMPARE(formatSwapState({}), std::string("cachescope-swap-state 1\n"));
        QVERIFY(parseSwapState(formatSwapState({}), &error)->empty());
    }

    void stateMalformed_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("wrong header") << QByteArray("cachescope-swap-state 2\n");
        QTest::newRow("no newline at end") << QByteArray("cachescope-swap-state 1\nfile 1 2 3 /x");
        QTest::newRow("unknown kind") << QByteArray("cachescope-swap-state 1\npipe 1 2 3 /x\n");
        QTest::newRow("missing field") << QByteArray("cachescope-swap-state 1\nfile 1 2 /x\n");
        QTest::newRow("extra field") << QByteArray("cachescope-swap-state 1\nfile 1 2 3 /x y\n");
        QTest::newRow("negative device") << QByteArray("cachescope-swap-state 1\nfile -1 2 3 /x\n");
        QTest::newRow("relative path") << QByteArray("cachescope-swap-state 1\nfile 1 2 3 x\n");
        QTest::newRow("block with inode") << QByteArray("cachescope-swap-state 1\nblock 1 2 3 /dev/x\n");
        QTest::newRow("file without inode") << QByteArray("cachescope-swap-state 1\nfile 1 0 3 /x\n");
        QTest::newRow("priority not a number") << QByteArray("cachescope-swap-state 1\nfile 1 2 high /x\n");
    }
    void stateMalformed()
    {
        QFETCH(QByteArray, text);
        QString error;
        QVERIFY(!parseSwapState(std::string_view(text.constData(), size_t(text.size())), &error));
        QVERIFY(!error.isEmpty());
    }

    void swapOnFlags()
    {
        QCOMPARE(Helper::swapOnFlags(-2), 0);
        QCOMPARE(Helper::swapOnFlags(-1), 0);
        QCOMPARE(Helper::swapOnFlags(0), SWAP_FLAG_PREFER);
        QCOMPARE(Helper::swapOnFlags(7), SWAP_FLAG_PREFER | 7);
        QCOMPARE(Helper::swapOnFlags(1 << 20), SWAP_FLAG_PREFER | SWAP_FLAG_PRIO_MASK);
    }

    void swapFilesystem_data()
    {
        QTest::addColumn<qlonglong>("type");
        QTest::addColumn<QString>("problem"); // empty: fine
        QTest::newRow("ext4") << qlonglong(0xEF53) << QString();
        QTest::newRow("xfs") << qlonglong(0x58465342) << QString();
        QTest::newRow("tmpfs") << qlonglong(0x01021994) << QStringLiteral("tmpfs");
        QTest::newRow("btrfs") << qlonglong(0x9123683E) << QStringLiteral("btrfs");
        QTest::newRow("overlay") << qlonglong(0x794c7630) << QStringLiteral("overlay");
        QTest::newRow("nfs") << qlonglong(0x6969) << QStringLiteral("network");
        QTest::newRow("unknown") << qlonglong(0x12345678) << QStringLiteral("0x12345678");
    }
    void swapFilesystem()
    {
        QFETCH(qlonglong, type);
        QFETCH(QString, problem);
        const std::optional<QString> got = swapFilesystemProblem(type);
        if (problem.isEmpty()) {
            QVERIFY(!got);
        } else {
            QVERIFY(got);
            QVERIFY2(got->contains(problem), qPrintable(*got));
        }
    }

    void experimentSize()
    {
        const long long max = HelperProtocol::maxExperimentSwapBytes;
        QVERIFY(!experimentSizeProblem(64 << 20, max, 10 * GiB));
        QVERIFY(experimentSizeProblem(1 << 20, max, 10 * GiB)->contains(QLatin1String("between 16 MiB and 4 GiB")));
        QVERIFY(experimentSizeProblem(max + 1, max, 100 * GiB));
        QVERIFY(experimentSizeProblem(-1, max, 100 * GiB));
        QVERIFY(experimentSizeProblem(1 * GiB, max, 1 * GiB)->contains(QLatin1String("free disk space")));
    }

    void swapHeader()
    {
        std::vector<char> page(4096, 'x');
        writeSwapHeader(page.data(), page.size(), 8192);
        QCOMPARE(QByteArray(page.data() + 4086, 10), QByteArray("SWAPSPACE2"));
        uint32_t version = 0;
        uint32_t lastPage = 0;
        memcpy(&version, page.data() + 1024, 4);
        memcpy(&lastPage, page.data() + 1028, 4);
        QCOMPARE(version, 1u);
        QCOMPARE(lastPage, 8191u);
        QCOMPARE(page[0], '\0');
    }

    void pathArguments_data()
    {
        QTest::addColumn<QVariant>("value");
        QTest::addColumn<QString>("error"); // empty: accepted
        QTest::newRow("plain") << QVariant(QStringLiteral("/dev/sda3")) << QString();
        QTest::newRow("dotdot") << QVariant(QStringLiteral("/dev/../etc/shadow")) << QStringLiteral("'..'");
        QTest::newRow("trailing dotdot") << QVariant(QStringLiteral("/dev/..")) << QStringLiteral("'..'");
        QTest::newRow("dot") << QVariant(QStringLiteral("/./swap")) << QStringLiteral("plain path");
        QTest::newRow("double slash") << QVariant(QStringLiteral("//swap")) << QStringLiteral("plain path");
        QTest::newRow("trailing slash") << QVariant(QStringLiteral("/swap/")) << QStringLiteral("plain path");
        QTest::newRow("relative") << QVariant(QStringLiteral("swap")) << QStringLiteral("absolute");
        QTest::newRow("bytes") << QVariant(QByteArray("/swap")) << QStringLiteral("must be a path");
        QTest::newRow("4095 bytes") << QVariant(QLatin1Char('/') + QString(4094, QLatin1Char('a'))) << QString();
        QTest::newRow("4096 bytes") << QVariant(QLatin1Char('/') + QString(4095, QLatin1Char('a'))) << QStringLiteral("too long");
        QTest::newRow("multibyte over the limit") << QVariant(QLatin1Char('/') + QString(2048, QChar(0x00e9))) << QStringLiteral("too long");
    }
    void pathArguments()
    {
        QFETCH(QVariant, value);
        QFETCH(QString, error);
        QString got;
        const std::optional<std::string> path = pathArgument({{QStringLiteral("area"), value}}, QStringLiteral("area"), &got);
        if (error.isEmpty()) {
            QVERIFY2(path, qPrintable(got));
        } else {
            QVERIFY(!path);
            QVERIFY2(got.contains(error), qPrintable(got));
        }
    }

    void quoting()
    {
        QCOMPARE(quoteForMessage(QStringLiteral("a\nb\x01")), QStringLiteral("'a?b?'"));
        QCOMPARE(quoteForMessage(QString(100, QLatin1Char('k'))), QLatin1Char('\'') + QString(40, QLatin1Char('k')) + QStringLiteral("...'"));
    }

    // docs/helper-security.md rule 7 on the policy: allow_any absent or no, allow_inactive
    // no, auth_admin_keep for dropcaches, contain, reclaim and trace, auth_admin otherwise
    // (residency: each query reveals what others read, so each is asked for; account: it
    // names every user's files), never auth_self or yes; every
    // action has a message.
    // docs/helper-security.md rule 18: however many parts a user makes
    // (each deleted file held, each memfd) and however long their names,
    // the account's answer stays far below what a bus carries, adds up to
    // the same bytes, and parses; an answer past the limits does not.
    void accountAnswerStaysSmall()
    {
        using namespace Cachescope::HelperProtocol;
        CacheAccount account;
        account.cached = 1ULL << 40;
        uint64_t bytes = 0;
        for (int i = 0; i < 20000; ++i) {
            AccountPart part;
            part.kind = i % 2 ? AccountKind::Memfd : AccountKind::DeletedFile;
            part.path = std::string(6000, 'p') + std::to_string(i);
            part.name = std::string(1000, 'n');
            part.bytes = uint64_t(i % 7) * 4096; // some hold nothing
            part.hidden = i % 97 == 0;
            part.bytes = part.hidden ? 0 : part.bytes;
            for (size_t j = 0; j < AccountPart::maxProcessesNamed; ++j) {
                part.processes.push_back({int(j + 1), std::string(200, 'c')});
            }
            part.processCount = 100;
            bytes += part.bytes;
            account.parts.push_back(std::move(part));
        }
        boundAccount(account);
        QVERIFY(account.parts.size() <= size_t(maxAccountParts));
        QCOMPARE(account.partsBytes(), bytes);
        const QByteArray answer = serializeAccount(account);
        QVERIFY2(answer.size() < maxAccountAnswerBytes, qPrintable(QString::number(answer.size())));
        const std::optional<CacheAccount> parsed = parseAccount(answer);
        QVERIFY(parsed);
        QCOMPARE(parsed->parts.size(), account.parts.size());
        QCOMPARE(parsed->partsBytes(), bytes);
        // Unbounded, it is refused whole.
        CacheAccount tooMany;
        tooMany.parts.resize(size_t(maxAccountParts) + 1);
        QVERIFY(!parseAccount(serializeAccount(tooMany)));
        CacheAccount tooLong;
        tooLong.parts.resize(1);
        tooLong.parts[0].path = std::string(size_t(maxAccountPathBytes) + 1, 'x');
        QVERIFY(!parseAccount(serializeAccount(tooLong)));
        QVERIFY(!parseAccount(answer.left(answer.size() - 1)));
    }

    void policyDefaults()
    {
        QFile file(QStringLiteral(CACHESCOPE_POLICY_FILE));
        QVERIFY2(file.open(QIODevice::ReadOnly), CACHESCOPE_POLICY_FILE);
        QXmlStreamReader xml(&file);
        QMap<QString, QMap<QString, QString>> actions;
        QString current;
        while (!xml.atEnd()) {
            xml.readNext();
            if (xml.isStartElement()) {
                const QString name = xml.name().toString();
                if (name == QLatin1String("action")) {
                    current = xml.attributes().value(QLatin1String("id")).toString();
                } else if (!current.isEmpty() && name != QLatin1String("defaults")) {
                    actions[current][name] = xml.readElementText();
                }
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        const QMap<QString, QString> expected{
            {QStringLiteral("org.kde.cachescope.dropcaches"), QStringLiteral("auth_admin_keep")},
            {QStringLiteral("org.kde.cachescope.residency"), QStringLiteral("auth_admin")},
            {QStringLiteral("org.kde.cachescope.swapoff"), QStringLiteral("auth_admin")},
            {QStringLiteral("org.kde.cachescope.swapon"), QStringLiteral("auth_admin")},
            {QStringLiteral("org.kde.cachescope.swapfilecreate"), QStringLiteral("auth_admin")},
            {QStringLiteral("org.kde.cachescope.swapfileremove"), QStringLiteral("auth_admin")},
            {QStringLiteral("org.kde.cachescope.trace"), QStringLiteral("auth_admin_keep")},
            {QStringLiteral("org.kde.cachescope.contain"), QStringLiteral("auth_admin_keep")},
            {QStringLiteral("org.kde.cachescope.reclaim"), QStringLiteral("auth_admin_keep")},
            {QStringLiteral("org.kde.cachescope.account"), QStringLiteral("auth_admin")},
            {QStringLiteral("org.kde.cachescope.activity"), QStringLiteral("auth_admin")},
        };
        QCOMPARE(actions.keys(), expected.keys());
        for (auto it = expected.cbegin(); it != expected.cend(); ++it) {
            const QMap<QString, QString> &action = actions[it.key()];
            QCOMPARE(action.value(QStringLiteral("allow_active")), it.value());
            QCOMPARE(action.value(QStringLiteral("allow_inactive")), QStringLiteral("no"));
            QVERIFY(action.value(QStringLiteral("allow_any"), QStringLiteral("no")) == QLatin1String("no"));
            QVERIFY2(action.value(QStringLiteral("message")).size() > 40, qPrintable(it.key()));
        }
        // The residency message says what an answer reveals; swapon promises nothing from /etc/fstab.
        const QString residencyMessage = actions[QStringLiteral("org.kde.cachescope.residency")].value(QStringLiteral("message"));
        QVERIFY2(residencyMessage.contains(QLatin1String("inode")) && residencyMessage.contains(QLatin1String("recently read")), qPrintable(residencyMessage));
        QVERIFY(!actions[QStringLiteral("org.kde.cachescope.swapon")].value(QStringLiteral("message")).contains(QLatin1String("fstab")));
        // The trace message says it is the caller's own program and what is recorded.
        const QString traceMessage = actions[QStringLiteral("org.kde.cachescope.trace")].value(QStringLiteral("message"));
        QVERIFY2(traceMessage.contains(QLatin1String("your own programs")) && traceMessage.contains(QLatin1String("which parts of which files")),
                 qPrintable(traceMessage));
    }
};

QTEST_GUILESS_MAIN(HelperLogicTest)
#include "helperlogictest.moc"
