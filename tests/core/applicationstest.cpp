// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// Cache by application: unit names to desktop file ids, and the rows of a
// systemd desktop's v2 tree and of a v1 tree without systemd, made in a
// temporary folder from the fixtures' files (a parser fixture, not a live
// hierarchy: that one is in cgroupstest). Refault rates from two samples.

#include "cgroups/applications.h"
#include "cgrouptree.h"
#include "testutil.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <csignal>

using namespace Cachescope::Cgroups;

namespace
{
using namespace CgroupTree;
constexpr uint64_t MiB = 1024 * 1024;
} // namespace

class ApplicationsTest : public QObject
{
    Q_OBJECT

private:
    std::string m_scratch;
    std::string m_desktop; // a systemd desktop's v2 tree
    std::string m_v1; // a v1 tree without systemd
    std::string m_proc; // meminfo for the accounting

private Q_SLOTS:
    void initTestCase()
    {
        m_scratch = TestUtil::scratchDir("applicationstest");
        m_desktop = m_scratch + "/desktop";
        makeDesktopTree(m_desktop);

        m_v1 = m_scratch + "/v1";
        makeV1Tree(m_v1);
        m_proc = m_scratch + "/proc";
        makeMemInfo(m_proc);
    }

    void desktopFileIds_data()
    {
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QString>("id"); // empty: none

        QTest::newRow("KDE scope") << QStringLiteral("app-org.kde.dolphin-1234.scope") << QStringLiteral("org.kde.dolphin");
        QTest::newRow("KDE service") << QStringLiteral("app-org.kde.kate@a1b2c3.service") << QStringLiteral("org.kde.kate");
        QTest::newRow("service without instance") << QStringLiteral("app-org.kde.kalendarac.service") << QStringLiteral("org.kde.kalendarac");
        QTest::newRow("GNOME launcher") << QStringLiteral("app-gnome-org.gnome.Terminal-5678.scope") << QStringLiteral("org.gnome.Terminal");
        QTest::newRow("escaped dash") << QStringLiteral("app-flatpak-org.x\\x2dy@12.service") << QStringLiteral("org.x-y");
        QTest::newRow("escaped, scope") << QStringLiteral("app-my\\x2dtool-9.scope") << QStringLiteral("my-tool");
        QTest::newRow("not an app") << QStringLiteral("dbus.service") << QString();
        QTest::newRow("app prefix only") << QStringLiteral("app-.scope") << QString();
        QTest::newRow("slice") << QStringLiteral("app-org.kde.x.slice") << QString();
        QTest::newRow("scope without number") << QStringLiteral("app-dolphin.scope") << QString();
    }

    void desktopFileIds()
    {
        QFETCH(QString, unit);
        QFETCH(QString, id);
        QCOMPARE(QString::fromStdString(desktopFileIdFromUnit(unit.toStdString()).value_or(std::string())), id);
    }

    void systemdDesktop_data()
    {
        QTest::addColumn<QString>("path"); // under the root
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("desktopFileId");
        QTest::addColumn<quint64>("file");

        const QString apps = QString::fromStdString(userManager) + QStringLiteral("/app.slice/");
        QTest::newRow("firefox (flatpak launcher)") << apps + QStringLiteral("app-flatpak-org.mozilla.firefox-9.scope") << int(GroupKind::Application)
                                                    << QStringLiteral("app-flatpak-org.mozilla.firefox-9.scope") << QStringLiteral("org.mozilla.firefox")
                                                    << quint64(300 * MiB);
        QTest::newRow("dolphin") << apps + QStringLiteral("app-org.kde.dolphin@b1c2.service") << int(GroupKind::Application)
                                 << QStringLiteral("app-org.kde.dolphin@b1c2.service") << QStringLiteral("org.kde.dolphin") << quint64(120 * MiB);
        QTest::newRow("escaped id") << apps + QStringLiteral("app-gnome-org.gnome.Terminal\\x2dPreview-77.scope") << int(GroupKind::Application)
                                    << QStringLiteral("app-gnome-org.gnome.Terminal-Preview-77.scope") << QStringLiteral("org.gnome.Terminal-Preview")
                                    << quint64(5 * MiB);
        QTest::newRow("dbus in app.slice") << apps + QStringLiteral("dbus.service") << int(GroupKind::UserService) << QStringLiteral("dbus.service")
                                           << QString() << quint64(1 * MiB);
        QTest::newRow("plasmashell") << QString::fromStdString(userManager) + QStringLiteral("/session.slice/plasma-plasmashell.service")
                                     << int(GroupKind::UserService) << QStringLiteral("plasma-plasmashell.service") << QString() << quint64(60 * MiB);
        QTest::newRow("user manager") << QString::fromStdString(userManager) + QStringLiteral("/init.scope") << int(GroupKind::UserService)
                                      << QStringLiteral("user@1000.service") << QString() << quint64(1 * MiB);
        QTest::newRow("session") << QStringLiteral("/user.slice/user-1000.slice/session-2.scope") << int(GroupKind::Session)
                                 << QStringLiteral("session-2.scope") << QString() << quint64(2 * MiB);
        QTest::newRow("system service") << QStringLiteral("/system.slice/cups.service") << int(GroupKind::SystemService) << QStringLiteral("cups.service")
                                        << QString() << quint64(3 * MiB);
        QTest::newRow("the rest, by top cgroup") << QStringLiteral("/machine.slice") << int(GroupKind::Other) << QStringLiteral("machine.slice") << QString()
                                                 << quint64(7 * MiB);
    }

    void systemdDesktop()
    {
        QFETCH(QString, path);
        const ApplicationsReport report = scanApplications(m_desktop, Version::V2);
        QVERIFY(report.found);
        QVERIFY(report.applicationsNamed);
        QVERIFY(report.reason.empty());
        QVERIFY2(report.problems.empty(), report.problems.empty() ? "" : report.problems.front().c_str());
        QCOMPARE(report.rows.size(), size_t(12));
        const auto row = std::find_if(report.rows.begin(), report.rows.end(), [&](const ApplicationCache &r) {
            return r.cgroupPath == path.toStdString();
        });
        QVERIFY2(row != report.rows.end(), qPrintable(path));
        QTEST(int(row->kind), "kind");
        QTEST(QString::fromStdString(row->name), "name");
        QTEST(QString::fromStdString(row->desktopFileId), "desktopFileId");
        QTEST(quint64(row->stats.file.value_or(0)), "file");
        QCOMPARE(row->folder, m_desktop + path.toStdString());
        QCOMPARE(row->uid, path.startsWith(QLatin1String("/user.slice")) ? 1000 : -1);
    }

    void systemdDesktopTotals()
    {
        ApplicationsSampler sampler(m_proc, m_desktop);
        const ApplicationsReport report = sampler.sample(10.0);
        // Most cache first.
        QCOMPARE(report.rows.front().desktopFileId, std::string("org.mozilla.firefox"));
        for (size_t i = 1; i < report.rows.size(); ++i) {
            QVERIFY(report.rows[i - 1].stats.file >= report.rows[i].stats.file);
        }
        const CacheAccounting &a = report.accounting;
        QCOMPARE(a.rowsFile, uint64_t(541 * MiB));
        QCOMPARE(a.hierarchyFile.value_or(0), uint64_t(600 * MiB));
        // The root's 600 MiB minus its children's (4 + 529 + 1 + 7).
        QCOMPARE(a.rootOwnFile.value_or(0), uint64_t(59 * MiB));
        QCOMPARE(a.dyingCgroups.value_or(0), uint64_t(3));
        QCOMPARE(a.meminfoCached.value_or(0), uint64_t(700 * MiB));
        QCOMPARE(a.elsewhere().value_or(0), int64_t(159 * MiB));
        const std::string text = chargedElsewhereText(a);
        for (const char *part : {"700.0 MiB Cached",
                                 "159.0 MiB are charged elsewhere",
                                 "59.0 MiB to the root cgroup itself",
                                 "3 removed cgroups",
                                 "10.0 MiB of shmem and tmpfs",
                                 "Buffers: 2.0 MiB"}) {
            QVERIFY2(text.find(part) != std::string::npos, (text + " lacks " + part).c_str());
        }
    }

    void refaultRates()
    {
        const std::string konsole = m_desktop + userManager + "/app.slice/app-org.kde.konsole-4242.scope";
        ApplicationsSampler sampler(m_proc, m_desktop, Version::V2);
        const ApplicationsReport first = sampler.sample(100.0);
        for (const ApplicationCache &row : first.rows) {
            QVERIFY(!row.refaultsPerSecond); // one sample: unknown, not 0
        }
        writeText(konsole + "/memory.stat", v2Stat(40 * MiB, 1500));
        const ApplicationsReport second = sampler.sample(102.0);
        const auto find = [](const ApplicationsReport &report, const std::string &id) {
            return std::find_if(report.rows.begin(), report.rows.end(), [&](const ApplicationCache &r) {
                return r.desktopFileId == id;
            });
        };
        QCOMPARE(find(second, "org.kde.konsole")->refaultsPerSecond.value_or(-1), 250.0);
        QCOMPARE(find(second, "org.kde.dolphin")->refaultsPerSecond.value_or(-1), 0.0);
        // A counter that went back (a new cgroup of the same name): 0, not a wrap.
        writeText(konsole + "/memory.stat", v2Stat(40 * MiB, 10));
        const ApplicationsReport third = sampler.sample(103.0);
        QCOMPARE(find(third, "org.kde.konsole")->refaultsPerSecond.value_or(-1), 0.0);
        sampler.reset();
        QVERIFY(!find(sampler.sample(104.0), "org.kde.konsole")->refaultsPerSecond);
        writeText(konsole + "/memory.stat", v2Stat(40 * MiB, 1000));
    }

    void v1WithoutSystemd()
    {
        ApplicationsSampler sampler(m_proc, m_v1);
        const ApplicationsReport report = sampler.sample(1.0);
        QVERIFY(report.found);
        QCOMPARE(int(report.version), 1);
        QVERIFY(!report.applicationsNamed);
        QCOMPARE(report.reason,
                 "The memory controller is cgroup v1 here (" + m_v1
                     + "), where systemd does not put each application into a memory cgroup of its own: applications cannot be named, so the "
                       "leaf cgroups that have processes are listed instead.");
        // The leaves with processes; /empty/c has none.
        QCOMPARE(report.rows.size(), size_t(2));
        QCOMPARE(report.rows[0].cgroupPath, std::string("/process_api/a"));
        QCOMPARE(report.rows[1].name, std::string("/process_api/b"));
        QCOMPARE(int(report.rows[0].kind), int(GroupKind::Cgroup));
        QCOMPARE(report.rows[0].stats.file.value_or(0), uint64_t(346009600));
        QCOMPARE(report.rows[0].stats.limit().bytes, uint64_t(512 * MiB));
        QVERIFY(!report.rows[0].stats.pressure);
        QCOMPARE(report.accounting.rowsFile, uint64_t(2 * 346009600));
        QCOMPARE(report.accounting.rootOwnFile.value_or(0), uint64_t(9363456));
        QVERIFY(!report.accounting.dyingCgroups);
        QVERIFY(chargedElsewhereText(report.accounting).find("not counted by this kernel's interface") != std::string::npos);
    }

    void missingAndBrokenTrees()
    {
        const ApplicationsReport missing = scanApplications(m_scratch + "/none", Version::V2);
        QVERIFY(!missing.found);
        QCOMPARE(missing.reason, m_scratch + "/none: No such file or directory");

        // A unit whose memory.stat is gone: a problem naming it, the rest read.
        const std::string broken = m_scratch + "/broken";
        makeV2Cgroup(broken + "/system.slice/good.service", MiB);
        makeFolders(broken + "/system.slice/bad.service");
        const ApplicationsReport report = scanApplications(broken, Version::V2);
        QVERIFY(report.found);
        QCOMPARE(report.rows.size(), size_t(1));
        QCOMPARE(report.problems.size(), size_t(1));
        QCOMPARE(report.problems.front(), broken + "/system.slice/bad.service/memory.stat: No such file or directory");

        // More cgroups than allowed: cut, and said.
        const ApplicationsReport cut = scanApplications(m_desktop, Version::V2, 3);
        QCOMPARE(cut.rows.size(), size_t(3));
        QVERIFY(!cut.problems.empty());
        QVERIFY(cut.problems.back().find("more cgroups than Cachescope reads at once") != std::string::npos);
    }

    // cachescope-cli apps on the desktop tree: JSON and text agree with the core.
    void cliOnDesktopTree()
    {
        const QStringList where = {QStringLiteral("--cgroup-root"),
                                   QString::fromStdString(m_desktop),
                                   QStringLiteral("--proc"),
                                   QString::fromStdString(m_proc)};
        const TestUtil::RunResult json = TestUtil::run(TestUtil::cliPath(), QStringList{QStringLiteral("apps"), QStringLiteral("--json")} + where);
        QCOMPARE(json.exitCode, 0);
        const QJsonObject document = QJsonDocument::fromJson(json.out).object();
        QCOMPARE(document.value(QLatin1String("version")).toInt(), 2);
        QVERIFY(document.value(QLatin1String("applications_named")).toBool());
        const QJsonArray rows = document.value(QLatin1String("applications")).toArray();
        QCOMPARE(rows.size(), 12);
        const QJsonObject first = rows.first().toObject();
        QCOMPARE(first.value(QLatin1String("desktop_file_id")).toString(), QStringLiteral("org.mozilla.firefox"));
        QCOMPARE(first.value(QLatin1String("kind")).toString(), QStringLiteral("application"));
        QCOMPARE(first.value(QLatin1String("page_cache")).toDouble(), double(300 * MiB));
        QCOMPARE(first.value(QLatin1String("pressure_some_avg10")).toDouble(), 0.5);
        QVERIFY(first.value(QLatin1String("limit")).isNull());
        QVERIFY(first.value(QLatin1String("refaults_per_second")).isDouble()); // two readings
        const QJsonObject total = document.value(QLatin1String("total")).toObject();
        QCOMPARE(total.value(QLatin1String("page_cache")).toDouble(), double(541 * MiB));
        QCOMPARE(total.value(QLatin1String("elsewhere")).toDouble(), double(159 * MiB));
        QCOMPARE(total.value(QLatin1String("dying_cgroups")).toInt(), 3);

        const TestUtil::RunResult text = TestUtil::run(TestUtil::cliPath(), QStringList{QStringLiteral("apps")} + where);
        QCOMPARE(text.exitCode, 0);
        const QList<QByteArray> lines = text.out.split('\n');
        QVERIFY2(lines.at(0).startsWith("  PAGE CACHE     DIRTY WRITEBACK    MAPPED REFAULTS/S PRESSURE     LIMIT  KIND            NAME"),
                 lines.at(0).constData());
        QVERIFY2(lines.at(1).contains("300.0 MiB") && lines.at(1).endsWith("application     org.mozilla.firefox"), lines.at(1).constData());
        QVERIFY2(lines.at(13).contains("541.0 MiB") && lines.at(13).contains("total of 12 rows"), lines.at(13).constData());
        QVERIFY(text.out.contains("159.0 MiB are"));
    }

    void cliBadInput()
    {
        const auto run = [](const QStringList &arguments) {
            return TestUtil::run(TestUtil::cliPath(), QStringList{QStringLiteral("apps")} + arguments);
        };
        const QString missing = QString::fromStdString(m_scratch + "/none");
        TestUtil::RunResult result = run({QStringLiteral("--cgroup-root"), missing});
        QCOMPARE(result.exitCode, 1);
        QCOMPARE(result.err, QByteArray("cachescope-cli: " + missing.toUtf8() + ": No such file or directory\n"));
        result = run({QStringLiteral("--cgroup-root"), QString::fromStdString(m_proc)});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains("not the root of a memory cgroup hierarchy"), result.err.constData());
        result = run({QStringLiteral("--proc"), missing, QStringLiteral("--json")});
        QCOMPARE(result.exitCode, 1);
        QCOMPARE(result.err, QByteArray("cachescope-cli: " + missing.toUtf8() + "/self/mountinfo: No such file or directory\n"));
        for (const QStringList &usage : {QStringList{QStringLiteral("--watch"), QStringLiteral("0")},
                                         QStringList{QStringLiteral("--count"), QStringLiteral("2")},
                                         QStringList{QStringLiteral("--watch"), QStringLiteral("1"), QStringLiteral("--count"), QStringLiteral("-1")},
                                         QStringList{QStringLiteral("extra")}}) {
            QCOMPARE(run(usage).exitCode, 2);
        }
        // A unit that cannot be read: reported with its path, the rest printed.
        const std::string broken = m_scratch + "/cli-broken";
        makeV2Cgroup(broken + "/system.slice/good.service", MiB);
        makeFolders(broken + "/system.slice/bad.service");
        writeText(broken + "/cgroup.controllers", "memory pids\n");
        result = run({QStringLiteral("--cgroup-root"), QString::fromStdString(broken), QStringLiteral("--json")});
        QCOMPARE(result.exitCode, 0);
        QCOMPARE(result.err,
                 QByteArray("cachescope-cli: " + QByteArray::fromStdString(broken) + "/system.slice/bad.service/memory.stat: No such file or directory\n"));
        QCOMPARE(QJsonDocument::fromJson(result.out).object().value(QLatin1String("problems")).toArray().size(), 1);
    }

    // --watch redraws until Ctrl+C, then exits 130 with whole lines.
    void cliWatchInterrupted()
    {
        QProcess process;
        process.start(TestUtil::cliPath(),
                      {QStringLiteral("apps"),
                       QStringLiteral("--watch"),
                       QStringLiteral("0.1"),
                       QStringLiteral("--json"),
                       QStringLiteral("--cgroup-root"),
                       QString::fromStdString(m_v1),
                       QStringLiteral("--proc"),
                       QString::fromStdString(m_proc)});
        QVERIFY(process.waitForStarted());
        QByteArray out;
        QTRY_VERIFY_WITH_TIMEOUT((out += process.readAllStandardOutput()).count('\n') >= 2, 10000);
        QCOMPARE(kill(pid_t(process.processId()), SIGINT), 0);
        QVERIFY(process.waitForFinished(10000));
        out += process.readAllStandardOutput();
        QCOMPARE(process.exitCode(), 130);
        for (const QByteArray &line : out.trimmed().split('\n')) {
            QCOMPARE(QJsonDocument::fromJson(line).object().value(QLatin1String("applications")).toArray().size(), 2);
        }
    }
};

QTEST_GUILESS_MAIN(ApplicationsTest)

#include "applicationstest.moc"
