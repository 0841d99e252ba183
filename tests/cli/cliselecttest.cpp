// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// What vmtouch and pagers users expect of cachescope-cli, end to end on real
// files: --include, --exclude and --max-size on status, evict, load, top and
// lock (a file left out is neither listed nor touched), paths from --from
// FILE or standard input (-0 for NUL-separated names), load of only the
// missing pages with the ranges it loaded, and the bad input of each.

#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTest>

#include <fstream>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace
{
const uint64_t P = uint64_t(sysconf(_SC_PAGESIZE));

QString q(const std::string &text)
{
    return QString::fromStdString(text);
}

TestUtil::RunResult cli(const QStringList &arguments)
{
    return TestUtil::run(TestUtil::cliPath(), arguments, 60000);
}

// The paths of a JSON list's objects, relative to base.
QSet<QString> pathsIn(const QJsonArray &rows, const std::string &base)
{
    QSet<QString> paths;
    for (const QJsonValue &row : rows) {
        QString path = row.toObject().value(QLatin1String("path")).toString();
        if (path.startsWith(q(base + '/'))) {
            path = path.mid(int(base.size()) + 1);
        }
        paths.insert(path);
    }
    return paths;
}

QSet<QString> setOf(const QStringList &list)
{
    return QSet<QString>(list.begin(), list.end());
}
} // namespace

class CliSelectTest : public QObject
{
    Q_OBJECT

    std::string m_dir;
    // name -> pages
    const std::vector<std::pair<std::string, uint64_t>> m_files = {
        {"a.so", 8},
        {"b.txt", 4},
        {"big.so", 64},
        {"skip/c.so", 2},
        {"sub/d.so", 2},
    };

    [[nodiscard]] std::string path(const std::string &name) const
    {
        return m_dir + '/' + name;
    }

    [[nodiscard]] uint64_t pagesOf(const std::string &name) const
    {
        for (const auto &[file, pages] : m_files) {
            if (file == name) {
                return pages;
            }
        }
        return 0;
    }

    void makeTree(bool warm)
    {
        for (const auto &[name, pages] : m_files) {
            TestUtil::makeColdFile(path(name), pages * P);
            if (warm) {
                TestUtil::readRange(path(name), 0, pages * P);
            }
        }
    }

    void removeLookUpCases()
    {
        for (const char *name : {"/link-to-sub", "/link-to-a", "/fifo"}) {
            QFile::remove(q(m_dir + name));
        }
    }

private Q_SLOTS:
    void cleanup()
    {
        removeLookUpCases();
    }

    void initTestCase()
    {
        m_dir = TestUtil::scratchDir("cliselect");
        QVERIFY(QDir().mkpath(q(m_dir + "/skip")));
        QVERIFY(QDir().mkpath(q(m_dir + "/sub")));
        makeTree(false);
    }

    // The files status lists and the files left out, for each filter.
    void statusFilters_data()
    {
        QTest::addColumn<QStringList>("filter");
        QTest::addColumn<bool>("namedFiles"); // the files named one by one instead of the folder
        QTest::addColumn<QStringList>("listed");
        QTest::addColumn<int>("leftOut");
        const QStringList all{u"a.so"_s, u"b.txt"_s, u"big.so"_s, u"skip/c.so"_s, u"sub/d.so"_s};
        QTest::newRow("none") << QStringList{} << false << all << 0;
        QTest::newRow("include *.so") << QStringList{u"--include"_s, u"*.so"_s} << false << QStringList{u"a.so"_s, u"big.so"_s, u"skip/c.so"_s, u"sub/d.so"_s}
                                      << 1;
        QTest::newRow("two includes") << QStringList{u"--include"_s, u"a.*"_s, u"--include"_s, u"*.txt"_s} << false << QStringList{u"a.so"_s, u"b.txt"_s} << 3;
        QTest::newRow("exclude a folder") << QStringList{u"--exclude"_s, u"skip"_s} << false << QStringList{u"a.so"_s, u"b.txt"_s, u"big.so"_s, u"sub/d.so"_s}
                                          << 0;
        QTest::newRow("exclude a path") << QStringList{u"--exclude"_s, u"*/sub/*"_s} << false << QStringList{u"a.so"_s, u"b.txt"_s, u"big.so"_s, u"skip/c.so"_s}
                                        << 1;
        QTest::newRow("max-size 64K") << QStringList{u"--max-size"_s, QString::number(16 * P)} << false
                                      << QStringList{u"a.so"_s, u"b.txt"_s, u"skip/c.so"_s, u"sub/d.so"_s} << 1;
        QTest::newRow("include and exclude") << QStringList{u"--include"_s, u"*.so"_s, u"--exclude"_s, u"big*"_s} << false
                                             << QStringList{u"a.so"_s, u"skip/c.so"_s, u"sub/d.so"_s} << 2;
        QTest::newRow("named, include") << QStringList{u"--include"_s, u"*.txt"_s} << true << QStringList{u"b.txt"_s} << 4;
        QTest::newRow("named, max-size") << QStringList{u"--max-size"_s, QString::number(4 * P)} << true
                                         << QStringList{u"b.txt"_s, u"skip/c.so"_s, u"sub/d.so"_s} << 2;
    }

    void statusFilters()
    {
        QFETCH(QStringList, filter);
        QFETCH(bool, namedFiles);
        QFETCH(QStringList, listed);
        QFETCH(int, leftOut);
        QStringList arguments{u"status"_s, u"--json"_s, u"-rv"_s};
        arguments += filter;
        if (namedFiles) {
            for (const auto &[name, pages] : m_files) {
                arguments += q(path(name));
            }
        } else {
            arguments += q(m_dir);
        }
        const TestUtil::RunResult result = cli(arguments);
        QVERIFY2(result.exitCode == 0, result.err.constData());
        const QJsonObject json = TestUtil::jsonObjectOf(result);
        QCOMPARE(pathsIn(json.value(QLatin1String("files")).toArray(), m_dir), setOf(listed));
        const QJsonObject total = json.value(QLatin1String("total")).toObject();
        QCOMPARE(total.value(QLatin1String("left_out")).toInt(0), leftOut);
        uint64_t pages = 0;
        for (const QString &name : listed) {
            pages += pagesOf(name.toStdString());
        }
        QCOMPARE(quint64(total.value(QLatin1String("pages")).toDouble()), quint64(pages));
        if (leftOut > 0) {
            QVERIFY2(result.err.contains(QByteArray(QByteArray::number(leftOut) + (leftOut == 1 ? " file left out" : " files left out"))),
                     result.err.constData());
        } else {
            QVERIFY2(!result.err.contains("left out"), result.err.constData());
        }
    }

    // evict leaves the excluded files' pages alone; load reads only what is included.
    void evictAndLoadLeaveOutWhatIsFilteredOut()
    {
        makeTree(true);
        const TestUtil::RunResult evict = cli({u"evict"_s, u"--exclude"_s, u"*.txt"_s, u"--exclude"_s, u"skip"_s, q(m_dir)});
        QVERIFY2(evict.exitCode == 0, evict.err.constData());
        // Evicted: no page and no shadow left. Left out: every page still resident or reclaimed by the kernel.
        QCOMPARE(TestUtil::pagesNow(path("a.so")).residentOrReclaimed(), uint64_t(0));
        QCOMPARE(TestUtil::pagesNow(path("sub/d.so")).residentOrReclaimed(), uint64_t(0));
        QCOMPARE(TestUtil::pagesNow(path("b.txt")).residentOrReclaimed(), pagesOf("b.txt"));
        QCOMPARE(TestUtil::pagesNow(path("skip/c.so")).residentOrReclaimed(), pagesOf("skip/c.so"));

        makeTree(false);
        const TestUtil::RunResult load = cli({u"load"_s, u"--include"_s, u"*.so"_s, u"--max-size"_s, QString::number(8 * P), q(m_dir)});
        QVERIFY2(load.exitCode == 0, load.err.constData());
        QCOMPARE(TestUtil::pagesNow(path("a.so")).residentOrReclaimed(), pagesOf("a.so"));
        QCOMPARE(TestUtil::pagesNow(path("sub/d.so")).residentOrReclaimed(), pagesOf("sub/d.so"));
        QCOMPARE(TestUtil::pagesNow(path("b.txt")).residentOrReclaimed(), uint64_t(0));
        QCOMPARE(TestUtil::pagesNow(path("big.so")).residentOrReclaimed(), uint64_t(0));
        QVERIFY2(load.err.contains("2 files left out"), load.err.constData());
        makeTree(false);
    }

    void topLeavesOutWhatIsFilteredOut()
    {
        std::vector<std::unique_ptr<TestUtil::HeldPages>> held;
        for (const auto &[name, pages] : m_files) {
            TestUtil::makeColdFile(path(name), pages * P);
            held.push_back(std::make_unique<TestUtil::HeldPages>(path(name), 0, pages * P));
        }
        const TestUtil::RunResult top = cli({u"top"_s, u"--json"_s, u"--exclude"_s, u"big*"_s, u"--exclude"_s, u"*.txt"_s, q(m_dir)});
        QVERIFY2(top.exitCode == 0, top.err.constData());
        const QJsonObject json = TestUtil::jsonObjectOf(top);
        QCOMPARE(pathsIn(json.value(QLatin1String("entries")).toArray(), m_dir), setOf({u"a.so"_s, u"skip/c.so"_s, u"sub/d.so"_s}));
        QCOMPARE(json.value(QLatin1String("total")).toObject().value(QLatin1String("left_out")).toInt(), 2);
        held.clear();
        makeTree(false);
    }

    void lockLocksOnlyWhatIsIncluded()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("locking more than 64 KiB needs root here (RLIMIT_MEMLOCK); locktest covers the limit");
        }
        const std::string pidFile = m_dir + "/../cliselect-lock.pid";
        const TestUtil::RunResult lock =
            cli({u"lock"_s, u"--json"_s, u"--daemon"_s, u"--pid-file"_s, q(pidFile), u"--include"_s, u"*.txt"_s, u"--include"_s, u"a.*"_s, q(m_dir)});
        QVERIFY2(lock.exitCode == 0, lock.err.constData());
        QCOMPARE(pathsIn(TestUtil::jsonObjectOf(lock).value(QLatin1String("files")).toArray(), m_dir), setOf({u"a.so"_s, u"b.txt"_s}));
        std::ifstream pidText(pidFile);
        pid_t pid = 0;
        pidText >> pid;
        QVERIFY(pid > 1);
        for (const auto &[name, pages] : m_files) {
            TestUtil::adviseDontNeed(path(name));
        }
        QCOMPARE(TestUtil::pagesNow(path("a.so")).resident, pagesOf("a.so"));
        QCOMPARE(TestUtil::pagesNow(path("b.txt")).resident, pagesOf("b.txt"));
        QCOMPARE(TestUtil::pagesNow(path("big.so")).resident, uint64_t(0));
        QCOMPARE(kill(pid, SIGTERM), 0);
        QTRY_VERIFY_WITH_TIMEOUT(kill(pid, 0) != 0, 10000);
        makeTree(false);
    }

    // --from: a list file (newline), standard input with -0 (a name with a
    // newline in it survives), together with PATHs and a filter.
    void pathsFromAList()
    {
        const std::string odd = m_dir + "/line\nbreak.so";
        TestUtil::makeColdFile(odd, P);
        const std::string list = m_dir + "/../cliselect-list.txt";
        {
            std::ofstream out(list);
            out << path("a.so") << "\n\n" << path("b.txt") << "\n" << path("sub/d.so"); // an empty line, no newline at the end
        }
        const TestUtil::RunResult fromFile = cli({u"status"_s, u"--json"_s, u"--from"_s, q(list), q(path("big.so"))});
        QVERIFY2(fromFile.exitCode == 0, fromFile.err.constData());
        QCOMPARE(pathsIn(TestUtil::jsonObjectOf(fromFile).value(QLatin1String("files")).toArray(), m_dir),
                 setOf({u"a.so"_s, u"b.txt"_s, u"sub/d.so"_s, u"big.so"_s}));

        QProcess process;
        process.start(TestUtil::cliPath(), {u"status"_s, u"--json"_s, u"--from"_s, u"-"_s, u"-0"_s, u"--exclude"_s, u"*.txt"_s});
        QVERIFY(process.waitForStarted());
        const QByteArray names =
            QByteArray::fromStdString(path("a.so")) + '\0' + QByteArray::fromStdString(odd) + '\0' + QByteArray::fromStdString(path("b.txt")) + '\0';
        process.write(names);
        process.closeWriteChannel();
        QVERIFY(process.waitForFinished(60000));
        const QByteArray err = process.readAllStandardError();
        QVERIFY2(process.exitCode() == 0, err.constData());
        const TestUtil::RunResult fromStdin{process.exitCode(), false, process.readAllStandardOutput(), err};
        QCOMPARE(pathsIn(TestUtil::jsonObjectOf(fromStdin).value(QLatin1String("files")).toArray(), m_dir), setOf({u"a.so"_s, u"line\nbreak.so"_s}));
        QVERIFY2(err.contains("1 file left out"), err.constData());

        // An empty list is nothing to do, not an error (as `xargs -r`).
        QProcess empty;
        empty.start(TestUtil::cliPath(), {u"status"_s, u"--from"_s, u"-"_s});
        QVERIFY(empty.waitForStarted());
        empty.closeWriteChannel();
        QVERIFY(empty.waitForFinished(60000));
        QCOMPARE(empty.exitCode(), 0);
        QVERIFY(unlink(odd.c_str()) == 0);
    }

    // A named file is looked up in its folder, which stays open while the
    // next names are in it too (a list from find): the same answer as a
    // look-up of the whole path, for every kind of path. Each case comes
    // between two files of the test's folder, so that the folder kept is
    // used, left and taken again.
    void namedFilesAreLookedUpInTheirFolder_data()
    {
        QTest::addColumn<QString>("listed"); // as written in the list (relative: from the test's folder)
        QTest::addColumn<QString>("problem"); // empty: answered with a row
        const QString base = q(m_dir);
        QTest::newRow("another folder") << base + u"/sub/d.so"_s << QString();
        QTest::newRow("through ..") << base + u"/sub/../a.so"_s << QString();
        QTest::newRow("through a symlink to a folder") << base + u"/link-to-sub/d.so"_s << QString();
        QTest::newRow("a symlink to a file") << base + u"/link-to-a"_s << QString();
        QTest::newRow("relative, no folder") << u"a.so"_s << QString();
        QTest::newRow("relative, in a folder") << u"sub/d.so"_s << QString();
        QTest::newRow("at /") << u"/"_s << u"is a folder: use -r"_s;
        QTest::newRow("folder missing") << base + u"/nofolder/x"_s << u"No such file or directory"_s;
        QTest::newRow("a file as folder") << base + u"/a.so/x"_s << u"Not a directory"_s;
        QTest::newRow("file missing") << base + u"/gone"_s << u"No such file or directory"_s;
        QTest::newRow("trailing slash") << base + u"/sub/"_s << u"is a folder: use -r"_s;
        QTest::newRow("a FIFO") << base + u"/fifo"_s << u"FIFO: skipped, never opened"_s;
    }

    void namedFilesAreLookedUpInTheirFolder()
    {
        QFETCH(QString, listed);
        QFETCH(QString, problem);
        const QString base = q(m_dir);
        // Made for each row, and removed at its end and by cleanup(): other tests walk this folder.
        removeLookUpCases();
        QFile::link(base + u"/sub"_s, base + u"/link-to-sub"_s);
        QFile::link(base + u"/a.so"_s, base + u"/link-to-a"_s);
        mkfifo((m_dir + "/fifo").c_str(), 0644);
        QProcess process;
        process.setWorkingDirectory(base);
        process.start(TestUtil::cliPath(), {u"status"_s, u"--json"_s, u"--from"_s, u"-"_s});
        QVERIFY(process.waitForStarted());
        process.write((base + u"/b.txt\n"_s + listed + u"\n"_s + base + u"/big.so\n"_s).toUtf8());
        process.closeWriteChannel();
        QVERIFY(process.waitForFinished(60000));
        const QByteArray err = process.readAllStandardError();
        const TestUtil::RunResult result{process.exitCode(), false, process.readAllStandardOutput(), err};
        const QJsonObject report = TestUtil::jsonObjectOf(result);
        QStringList rows;
        for (const QJsonValue &row : report.value(QLatin1String("files")).toArray()) {
            rows << row.toObject().value(QLatin1String("path")).toString();
        }
        if (problem.isEmpty()) {
            QCOMPARE(rows, (QStringList{base + u"/b.txt"_s, listed, base + u"/big.so"_s}));
            QVERIFY2(err.isEmpty(), err.constData());
        } else {
            QCOMPARE(rows, (QStringList{base + u"/b.txt"_s, base + u"/big.so"_s}));
            QVERIFY2(err.contains((listed + u": "_s + problem).toUtf8()), err.constData());
        }
        removeLookUpCases();
    }

    // status reads --from as it comes: the first paths are answered (and
    // their rows written) while the list's writer has not finished, as with a
    // `find` still running.
    void statusAnswersTheListAsItComes()
    {
        QProcess process;
        process.start(TestUtil::cliPath(), {u"status"_s, u"--from"_s, u"-"_s});
        QVERIFY(process.waitForStarted());
        process.write(QByteArray::fromStdString(path("a.so")) + '\n');
        QByteArray out;
        // Polled: the row comes while standard input is still open.
        QTRY_VERIFY_WITH_TIMEOUT((out += process.readAllStandardOutput()).contains(QByteArray::fromStdString(path("a.so"))), 10000);
        QCOMPARE(process.state(), QProcess::Running);
        QVERIFY2(!out.contains(QByteArray::fromStdString(path("b.txt"))), out.constData());
        process.write(QByteArray::fromStdString(path("b.txt")) + '\n');
        process.closeWriteChannel();
        QVERIFY(process.waitForFinished(60000));
        out += process.readAllStandardOutput();
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        QVERIFY2(out.contains(QByteArray::fromStdString(path("b.txt"))), out.constData());
        QCOMPARE(out.count("RESIDENT"), 1); // one header for the rows of both reads
    }

    // A list longer than one of status's batches (4096 paths, each batch's
    // rows printed and dropped before the next): every row once, in the
    // order of the list, the header once, the totals of all, and the bad
    // entries named wherever they are in it.
    void aListLongerThanABatch()
    {
        const std::string folder = m_dir + "/../cliselect-many";
        QVERIFY(QDir().mkpath(q(folder)));
        constexpr int count = 9000;
        QStringList listed;
        for (int i = count; i-- > 0;) { // reversed: not the order a walk would give
            const std::string name = folder + "/f" + std::to_string(i);
            std::ofstream(name) << 'x';
            listed << q(name);
        }
        const QString missing = q(folder + "/missing");
        listed.insert(5000, missing);
        listed.insert(100, q(m_dir + "/sub")); // a folder, without -r
        const std::string list = folder + ".list";
        {
            std::ofstream out(list);
            for (const QString &path : std::as_const(listed)) {
                out << path.toStdString() << '\n';
            }
        }
        const TestUtil::RunResult json = cli({u"status"_s, u"--json"_s, u"--from"_s, q(list)});
        QCOMPARE(json.exitCode, 1);
        QVERIFY2(json.err.contains(QByteArray(missing.toUtf8() + ": No such file or directory")), json.err.constData());
        QVERIFY2(json.err.contains("is a folder: use -r"), json.err.constData());
        const QJsonObject report = TestUtil::jsonObjectOf(json);
        const QJsonArray rows = report.value(QLatin1String("files")).toArray();
        QCOMPARE(rows.size(), count);
        QStringList expected = listed;
        expected.removeAt(5001); // missing, after the folder put before it
        expected.removeAt(100);
        for (int i = 0; i < count; ++i) {
            QCOMPARE(rows.at(i).toObject().value(QLatin1String("path")).toString(), expected.at(i));
        }
        QCOMPARE(report.value(QLatin1String("total")).toObject().value(QLatin1String("files")).toInteger(), count);
        QCOMPARE(report.value(QLatin1String("cancelled")).toBool(true), false);

        const TestUtil::RunResult text = cli({u"status"_s, u"--from"_s, q(list)});
        QCOMPARE(text.exitCode, 1);
        const QList<QByteArray> lines = text.out.trimmed().split('\n');
        QCOMPARE(lines.size(), count + 1);
        QVERIFY2(lines.first().contains("RESIDENT"), lines.first().constData());
        QVERIFY(lines.at(1).endsWith(QByteArray::fromStdString(folder + "/f8999")));
        QVERIFY(lines.last().endsWith(QByteArray::fromStdString(folder + "/f0")));
        QDir(q(folder)).removeRecursively();
        QFile::remove(q(list));
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing list") << QStringList{u"status"_s, u"--from"_s, u"/nonexistent/list"_s} << 1
                                      << u"status: --from '/nonexistent/list': No such file or directory"_s;
        QTest::newRow("list is a folder") << QStringList{u"evict"_s, u"--from"_s, u"/usr"_s} << 1
                                          << u"evict: --from '/usr': is a folder, not a list of paths"_s;
        QTest::newRow("-0 alone") << QStringList{u"load"_s, u"-0"_s, u"/usr/bin/env"_s} << 2 << u"-0 (--null) goes with --from FILE"_s;
        // A list that opens and then fails to read (offset 0 of a process's
        // memory is not mapped): status, which reads as it goes, says the rest
        // was not read; evict reads it whole first and does nothing.
        QTest::newRow("list unreadable, status") << QStringList{u"status"_s, u"--from"_s, u"/proc/self/mem"_s} << 1
                                                 << u"--from '/proc/self/mem': Input/output error: the rest of the list was not read"_s;
        QTest::newRow("list unreadable, evict") << QStringList{u"evict"_s, u"--from"_s, u"/proc/self/mem"_s} << 1
                                                << u"evict: --from '/proc/self/mem': Input/output error"_s;
        QTest::newRow("max-size 0") << QStringList{u"top"_s, u"--max-size"_s, u"0"_s, u"/usr"_s} << 2 << u"--max-size: '0' is not a byte count of at least 1"_s;
        QTest::newRow("max-size lots") << QStringList{u"status"_s, u"--max-size"_s, u"lots"_s, u"/usr/bin/env"_s} << 2
                                       << u"--max-size: 'lots' is not a byte count"_s;
        QTest::newRow("empty include") << QStringList{u"lock"_s, u"--include"_s, u""_s, u"/usr/bin/env"_s} << 2
                                       << u"--include: an empty GLOB matches nothing"_s;
        QTest::newRow("empty exclude") << QStringList{u"status"_s, u"--exclude="_s, u"/usr/bin/env"_s} << 2 << u"--exclude: an empty GLOB matches nothing"_s;
        QTest::newRow("no path and no list") << QStringList{u"status"_s} << 2 << u"missing argument: PATH..."_s;
        QTest::newRow("not on map") << QStringList{u"map"_s, u"--include"_s, u"*"_s, u"/usr"_s} << 2 << u"unknown option '--include'"_s;
    }

    void badInput()
    {
        QFETCH(QStringList, arguments);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const TestUtil::RunResult result = cli(arguments);
        QVERIFY(!result.timedOut);
        QCOMPARE(result.exitCode, exitCode);
        QVERIFY2(QString::fromUtf8(result.err).contains(message), result.err.constData());
        QVERIFY2(result.out.isEmpty(), result.out.constData());
    }

    // A listed path that is not there is named with its reason; the others are answered.
    void aMissingListedPathIsNamed()
    {
        const std::string list = m_dir + "/../cliselect-missing.txt";
        {
            std::ofstream out(list);
            out << path("a.so") << '\n' << path("gone.so") << '\n';
        }
        const TestUtil::RunResult result = cli({u"status"_s, u"--json"_s, u"--from"_s, q(list)});
        QCOMPARE(result.exitCode, 1);
        QVERIFY2(result.err.contains(QByteArray(QByteArray::fromStdString(path("gone.so")) + ": No such file or directory")), result.err.constData());
        QCOMPARE(pathsIn(TestUtil::jsonObjectOf(result).value(QLatin1String("files")).toArray(), m_dir), setOf({u"a.so"_s}));
    }

    // load reads only the pages that are missing and says which, as ranges.
    void loadReadsOnlyWhatIsMissing_data()
    {
        QTest::addColumn<QStringList>("range");
        QTest::addColumn<QList<quint64>>("loaded"); // in pages: first, count, first, count, ...
        using Ranges = QList<quint64>;
        QTest::newRow("whole file") << QStringList{} << Ranges{0, 8, 16, 24, 48, 16};
        QTest::newRow("a range") << QStringList{u"--offset"_s, QString::number(4 * P), u"--length"_s, QString::number(16 * P)} << Ranges{4, 4, 16, 4};
        QTest::newRow("resident only") << QStringList{u"--offset"_s, QString::number(8 * P), u"--length"_s, QString::number(8 * P)} << Ranges{};
    }

    void loadReadsOnlyWhatIsMissing()
    {
        QFETCH(QStringList, range);
        QFETCH(QList<quint64>, loaded);
        const std::string file = path("ranges.bin");
        TestUtil::makeColdFile(file, 64 * P);
        {
            // Held (mapped), so that they are still resident when load looks.
            const TestUtil::HeldPages first(file, 8 * P, 8 * P);
            const TestUtil::HeldPages second(file, 40 * P, 8 * P);
            QStringList arguments{u"load"_s, u"--json"_s};
            arguments += range;
            arguments += q(file);
            const TestUtil::RunResult result = cli(arguments);
            QVERIFY2(result.exitCode == 0, result.err.constData());
            const QJsonObject row = TestUtil::jsonObjectOf(result).value(QLatin1String("files")).toArray().at(0).toObject();
            const QJsonArray ranges = row.value(QLatin1String("loaded_ranges")).toArray();
            QCOMPARE(qsizetype(ranges.size()), loaded.size() / 2);
            quint64 bytes = 0;
            for (int i = 0; i < ranges.size(); ++i) {
                const QJsonObject span = ranges.at(i).toObject();
                QCOMPARE(quint64(span.value(QLatin1String("offset")).toDouble()), loaded[2 * i] * P);
                QCOMPARE(quint64(span.value(QLatin1String("length")).toDouble()), loaded[2 * i + 1] * P);
                bytes += loaded[2 * i + 1] * P;
            }
            QCOMPARE(quint64(row.value(QLatin1String("bytes_done")).toDouble()), bytes);
            QCOMPARE(row.value(QLatin1String("loaded_ranges_omitted")).toInt(-1), 0);
            // Every page of the range is resident now: the missing ones were loaded.
            QCOMPARE(quint64(row.value(QLatin1String("after")).toDouble()), quint64(row.value(QLatin1String("bytes_requested")).toDouble()) / P);
        }

        // In text: the ranges under the row, or that nothing was missing.
        TestUtil::makeColdFile(file, 64 * P);
        const TestUtil::HeldPages again(file, 8 * P, 8 * P);
        QStringList textArguments{u"load"_s};
        textArguments += range;
        textArguments += q(file);
        const TestUtil::RunResult text = cli(textArguments);
        QVERIFY2(text.exitCode == 0, text.err.constData());
        if (range.isEmpty()) {
            QVERIFY2(text.out.contains(
                         QByteArray("loaded only what was missing, 2 ranges: at 0 +" + QByteArray::number(8 * P) + ", at " + QByteArray::number(16 * P))),
                     text.out.constData());
        } else if (loaded.isEmpty()) {
            QVERIFY2(text.out.contains("nothing was missing: nothing read"), text.out.constData());
        }
    }

    void cleanupTestCase()
    {
        unlink((m_dir + "/../cliselect-lock.pid").c_str());
        unlink((m_dir + "/../cliselect-list.txt").c_str());
        unlink((m_dir + "/../cliselect-missing.txt").c_str());
    }
};

QTEST_GUILESS_MAIN(CliSelectTest)
#include "cliselecttest.moc"
