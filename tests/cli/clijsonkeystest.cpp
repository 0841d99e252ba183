// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The JSON schemas of cachescope-cli, pinned: every command runs with --json
// on real files in a disk-backed folder, and the key paths of what it prints
// (files[].path, total.resident, ...) with their JSON types, its exit status
// and the kind of its stdout are compared with a fixture in
// tests/fixtures/cli-json-keys/. A refactoring of the CLI that changes a
// schema fails here. Values are not compared: clitest does that.
//
// Fixture lines: "exit N", "stdout json|json-lines|text|empty", then one
// "PATH TYPE" a line ("files[].size number"; "[]" stands for every element of
// an array, several types are joined with '|'). A line ending in " ?" may be
// missing from a run (a field only some runs produce, such as an experiment's
// optional sample field). Lines starting with '#' are comments.
//
// CACHESCOPE_UPDATE_FIXTURES=1 writes the fixtures from this run instead of
// comparing (keeping the optional marks and optional lines already there).
// CACHESCOPE_CLI names another cachescope-cli to run (with its
// cachescope-cli-privileged next to it): to record the fixtures from an older build.

#include "cgrouptree.h"
#include "testutil.h"

#include "trace/tracereport.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <set>
#include <string>

namespace
{
const uint64_t P = uint64_t(sysconf(_SC_PAGESIZE));

QString fixtureFolder()
{
    return QStringLiteral(CACHESCOPE_FIXTURES "/cli-json-keys");
}

QString typeName(const QJsonValue &value)
{
    switch (value.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("bool");
    case QJsonValue::Double:
        return QStringLiteral("number");
    case QJsonValue::String:
        return QStringLiteral("string");
    case QJsonValue::Array:
        return QStringLiteral("array");
    case QJsonValue::Object:
        return QStringLiteral("object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("undefined");
}

using KeyTypes = std::map<QString, std::set<QString>>;

void collectKeys(const QJsonValue &value, const QString &path, KeyTypes &keys)
{
    if (!path.isEmpty()) {
        keys[path].insert(typeName(value));
    }
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            collectKeys(it.value(), path.isEmpty() ? it.key() : path + QLatin1Char('.') + it.key(), keys);
        }
    } else if (value.isArray()) {
        for (const QJsonValue &element : value.toArray()) {
            collectKeys(element, path + QStringLiteral("[]"), keys);
        }
    }
}

struct Fixture {
    std::map<QString, bool> lines; // line -> optional
};

Fixture readFixture(const QString &path)
{
    Fixture fixture;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return fixture;
    }
    for (const QByteArray &raw : file.readAll().split('\n')) {
        QString line = QString::fromUtf8(raw).trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) {
            continue;
        }
        const bool optional = line.endsWith(QStringLiteral(" ?"));
        if (optional) {
            line.chop(2);
        }
        fixture.lines[line] = optional;
    }
    return fixture;
}

void writeFixture(const QString &path, const QString &title, const std::set<QString> &seen, const Fixture &old)
{
    std::map<QString, bool> lines;
    for (const QString &line : seen) {
        const auto it = old.lines.find(line);
        lines[line] = it != old.lines.end() && it->second;
    }
    for (const auto &[line, optional] : old.lines) {
        if (optional) {
            lines[line] = true;
        }
    }
    QFile file(path);
    QVERIFY2(file.open(QIODevice::WriteOnly | QIODevice::Truncate), qPrintable(path));
    QByteArray text =
        "# SPDX-License-Identifier: GPL-2.0-or-later\n"
        "# SPDX-FileCopyrightText: 2026 Cachescope developers\n"
        "# cachescope-cli "
        + title.toUtf8() + "\n";
    // exit and stdout first, then the keys in order.
    std::vector<QString> ordered;
    for (const auto &[line, optional] : lines) {
        if (line.startsWith(QStringLiteral("exit ")) || line.startsWith(QStringLiteral("stdout "))) {
            ordered.push_back(line);
        }
    }
    for (const auto &[line, optional] : lines) {
        if (!line.startsWith(QStringLiteral("exit ")) && !line.startsWith(QStringLiteral("stdout "))) {
            ordered.push_back(line);
        }
    }
    for (const QString &line : ordered) {
        text += line.toUtf8() + (lines[line] ? " ?" : "") + '\n';
    }
    file.write(text);
}

// What one run printed, as fixture lines.
std::set<QString> linesOf(const TestUtil::RunResult &result, QString &problem)
{
    std::set<QString> lines;
    lines.insert(QStringLiteral("exit %1").arg(result.exitCode));
    KeyTypes keys;
    const QByteArray out = result.out.trimmed();
    if (out.isEmpty()) {
        lines.insert(QStringLiteral("stdout empty"));
        return lines;
    }
    QJsonParseError error;
    const QJsonDocument whole = QJsonDocument::fromJson(out, &error);
    if (error.error == QJsonParseError::NoError && whole.isObject()) {
        lines.insert(QStringLiteral("stdout json"));
        collectKeys(whole.object(), QString(), keys);
    } else if (out.startsWith('{')) {
        lines.insert(QStringLiteral("stdout json-lines"));
        for (const QByteArray &line : out.split('\n')) {
            const QJsonDocument document = QJsonDocument::fromJson(line, &error);
            if (error.error != QJsonParseError::NoError || !document.isObject()) {
                problem = QStringLiteral("a line that is not one JSON object: ") + QString::fromUtf8(line);
                return lines;
            }
            collectKeys(document.object(), QString(), keys);
        }
    } else {
        lines.insert(QStringLiteral("stdout text"));
    }
    for (const auto &[path, types] : keys) {
        QStringList names(types.begin(), types.end());
        lines.insert(path + QLatin1Char(' ') + names.join(QLatin1Char('|')));
    }
    return lines;
}

enum class RunAs {
    Self,
    TestUser, // the unprivileged user of tools/dev: residency hidden from it
};

enum class Needs {
    Nothing,
    NoSystemBus, // runs cachescope-cli-privileged, which must find no helper
    Root, // runs cachescope-cli-privileged as root, which acts without the helper
};
} // namespace

Q_DECLARE_METATYPE(RunAs)
Q_DECLARE_METATYPE(Needs)

class CliJsonKeysTest : public QObject
{
    Q_OBJECT

    std::string m_dir;
    std::map<QString, QString> m_placeholders;
    std::vector<std::unique_ptr<TestUtil::HeldPages>> m_held;

    QStringList expand(const QStringList &arguments) const
    {
        QStringList expanded;
        for (QString argument : arguments) {
            for (const auto &[name, value] : m_placeholders) {
                argument.replace(name, value);
            }
            expanded.append(argument);
        }
        return expanded;
    }

    static QString cliPath()
    {
        return qEnvironmentVariable("CACHESCOPE_CLI", TestUtil::cliPath());
    }

    TestUtil::RunResult runCli(const QStringList &arguments, RunAs runAs, int timeoutMs)
    {
        if (runAs == RunAs::TestUser) {
            return TestUtil::run(QStringLiteral("runuser"),
                                 QStringList{QStringLiteral("-u"), QLatin1String(TestUtil::testUserName), QStringLiteral("--"), cliPath()} + expand(arguments),
                                 timeoutMs);
        }
        return TestUtil::run(cliPath(), expand(arguments), timeoutMs);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(QFile::exists(cliPath()));
        m_dir = TestUtil::scratchDir("cli-json-keys");
        chmod(m_dir.c_str(), 0755); // the test user must reach the files
        const std::string file = m_dir + "/file";
        TestUtil::makeColdFile(file, 64 * P);
        // Mapped pages stay after an eviction: evict then says why (remain_text).
        m_held.push_back(std::make_unique<TestUtil::HeldPages>(file, 0, 8 * P));

        // A tree with a hard link (first_link), a name that is not UTF-8
        // (path_base64), a FIFO (skipped) and mapped pages.
        const std::string tree = m_dir + "/tree";
        mkdir(tree.c_str(), 0755);
        mkdir((tree + "/sub").c_str(), 0755);
        TestUtil::makeColdFile(tree + "/a", 16 * P);
        TestUtil::makeColdFile(tree + "/sub/b", 8 * P + 1);
        TestUtil::makeColdFile(tree + "/caf\xe9", 4 * P);
        QCOMPARE(link((tree + "/a").c_str(), (tree + "/z-link").c_str()), 0);
        QCOMPARE(mkfifo((tree + "/fifo").c_str(), 0644), 0);
        m_held.push_back(std::make_unique<TestUtil::HeldPages>(tree + "/a", 0, 4 * P));
        m_held.push_back(std::make_unique<TestUtil::HeldPages>(tree + "/sub/b", 0, 8 * P + 1));

        // Root's file, readable by all: its residency is hidden from the test user.
        const std::string rootFile = m_dir + "/root-owned";
        TestUtil::makeColdFile(rootFile, 16 * P);
        m_held.push_back(std::make_unique<TestUtil::HeldPages>(rootFile, 0, 4 * P));
        chmod(rootFile.c_str(), 0644);
        const std::string rootTree = m_dir + "/root-tree";
        mkdir(rootTree.c_str(), 0755);
        TestUtil::makeColdFile(rootTree + "/r", 8 * P);
        chmod((rootTree + "/r").c_str(), 0644);

        // Snapshots for diff and restore (made by the program under test; the
        // cases below pin their JSON, this only needs the files).
        const std::string first = m_dir + "/first.json";
        const std::string second = m_dir + "/second.json";
        QCOMPARE(TestUtil::run(cliPath(), {QStringLiteral("snapshot"), QStringLiteral("save"), QString::fromStdString(first), QString::fromStdString(tree)})
                     .exitCode,
                 0);
        TestUtil::readRange(tree + "/caf\xe9", 0, 4 * P);
        m_held.push_back(std::make_unique<TestUtil::HeldPages>(tree + "/caf\xe9", 0, 4 * P));
        QCOMPARE(TestUtil::run(cliPath(), {QStringLiteral("snapshot"), QStringLiteral("save"), QString::fromStdString(second), QString::fromStdString(tree)})
                     .exitCode,
                 0);
        // A snapshot of a file that changed since: restore skips it (problems).
        const std::string changing = m_dir + "/changing";
        mkdir(changing.c_str(), 0755);
        TestUtil::makeColdFile(changing + "/c", 8 * P);
        m_held.push_back(std::make_unique<TestUtil::HeldPages>(changing + "/c", 0, 2 * P));
        const std::string changed = m_dir + "/changed.json";
        QCOMPARE(
            TestUtil::run(cliPath(), {QStringLiteral("snapshot"), QStringLiteral("save"), QString::fromStdString(changed), QString::fromStdString(changing)})
                .exitCode,
            0);
        TestUtil::makeColdFile(changing + "/c", 9 * P);
        const std::string broken = m_dir + "/broken.json";
        QFile brokenFile(QString::fromStdString(broken));
        QVERIFY(brokenFile.open(QIODevice::WriteOnly));
        brokenFile.write("{ not json");
        brokenFile.close();
        const std::string experiments = m_dir + "/experiments";
        mkdir(experiments.c_str(), 0755);
        // A trace of `cat FILE` for experiment replay, made here in code (the
        // trace command needs root and tracefs).
        const std::string replayed = m_dir + "/replayed";
        TestUtil::makeColdFile(replayed, 64 * P);
        Cachescope::Trace::Report report;
        report.command = {"/bin/cat", replayed};
        {
            struct stat st;
            QCOMPARE(stat(replayed.c_str(), &st), 0);
            Cachescope::Trace::File traced;
            traced.path = replayed;
            traced.major = major(st.st_dev);
            traced.minor = minor(st.st_dev);
            traced.inode = st.st_ino;
            traced.sizeBytes = uint64_t(st.st_size);
            traced.modifiedNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
            traced.pagesAdded = 24;
            report.files.push_back(traced);
            Cachescope::Trace::Extent first;
            first.pageCount = 16;
            Cachescope::Trace::Extent second;
            second.firstPage = 32;
            second.pageCount = 8;
            report.extents = {first, second};
        }
        const std::string trace = m_dir + "/trace.json";
        QFile traceFile(QString::fromStdString(trace));
        QVERIFY(traceFile.open(QIODevice::WriteOnly));
        traceFile.write(QJsonDocument(Cachescope::Trace::reportToJson(report)).toJson());
        traceFile.close();

        // A memory cgroup hierarchy for `apps` (v1, from the captured fixture).
        CgroupTree::makeV1Tree(m_dir + "/cgroups");
        // Where the test user's experiments may make their files.
        const std::string userExperiments = m_dir + "/user-experiments";
        mkdir(userExperiments.c_str(), 0755);
        chmod(userExperiments.c_str(), 01777);

        m_placeholders = {
            {QStringLiteral("{cgroups}"), QString::fromStdString(m_dir + "/cgroups")},
            {QStringLiteral("{dir}"), QString::fromStdString(m_dir)},
            {QStringLiteral("{file}"), QString::fromStdString(file)},
            {QStringLiteral("{tree}"), QString::fromStdString(tree)},
            {QStringLiteral("{missing}"), QString::fromStdString(m_dir + "/no-such-file")},
            {QStringLiteral("{rootfile}"), QString::fromStdString(rootFile)},
            {QStringLiteral("{roottree}"), QString::fromStdString(rootTree)},
            {QStringLiteral("{first}"), QString::fromStdString(first)},
            {QStringLiteral("{second}"), QString::fromStdString(second)},
            {QStringLiteral("{changed}"), QString::fromStdString(changed)},
            {QStringLiteral("{broken}"), QString::fromStdString(broken)},
            {QStringLiteral("{experiments}"), QString::fromStdString(experiments)},
            {QStringLiteral("{trace}"), QString::fromStdString(trace)},
            {QStringLiteral("{userexperiments}"), QString::fromStdString(userExperiments)},
        };
    }

    void keys_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<RunAs>("runAs");
        QTest::addColumn<Needs>("needs");
        QTest::addColumn<int>("timeoutMs");
        const auto add = [](const char *name, const QString &arguments, RunAs runAs = RunAs::Self, Needs needs = Needs::Nothing, int timeoutMs = 60000) {
            QTest::newRow(name) << arguments.split(QLatin1Char(' '), Qt::SkipEmptyParts) << runAs << needs << timeoutMs;
        };
        // status
        add("status-files", QStringLiteral("status --json {file} {missing} {tree}/fifo {tree}"));
        add("status-pages", QStringLiteral("status --json --pages 8 {file}"));
        add("status-mincore", QStringLiteral("status --json --mincore --pages 4 {file} -r {tree}"));
        add("status-recursive", QStringLiteral("status -r --json {tree} {file}"));
        add("status-recursive-verbose", QStringLiteral("status -rv --pages 4 --json {tree}"));
        add("status-hidden", QStringLiteral("status --json --pages 4 {rootfile} -r {roottree}"), RunAs::TestUser);
        add("status-hidden-verbose", QStringLiteral("status --json -rv {roottree}"), RunAs::TestUser);
        add("status-privileged", QStringLiteral("status --json --privileged {file}"), RunAs::Self, Needs::NoSystemBus);
        add("status-filtered", QStringLiteral("status -rv --json --exclude fifo* --max-size 1 {tree} {file}"));
        // evict and load
        add("evict", QStringLiteral("evict --json {file} {missing} {tree}"));
        add("evict-verbose", QStringLiteral("evict -v --json --flush {tree}"));
        add("evict-hidden", QStringLiteral("evict --json {rootfile} {roottree}"), RunAs::TestUser);
        add("load", QStringLiteral("load --json --offset 4K --length 8K {file} {tree}"));
        add("load-verbose", QStringLiteral("load -v --json --method read {tree} {missing}"));
        add("load-hidden", QStringLiteral("load --json -v {rootfile} {roottree}"), RunAs::TestUser);
        // top
        add("top", QStringLiteral("top --json -n 3 {tree} {file}"));
        add("top-missing", QStringLiteral("top --json {missing} {tree}"));
        add("top-hidden", QStringLiteral("top --json {roottree}"), RunAs::TestUser);
        add("top-filtered", QStringLiteral("top --json --include *.none {tree}"));
        // map
        add("map", QStringLiteral("map --json -d 3 {tree}"));
        add("account", QStringLiteral("account --json"));
        add("map-file", QStringLiteral("map --json {file} {tree}"));
        add("map-hidden", QStringLiteral("map --json {roottree}"), RunAs::TestUser);
        // lock (refused: a lock that succeeds holds until killed)
        add("lock-missing", QStringLiteral("lock --json {file} {missing}"));
        // apps
        add("apps", QStringLiteral("apps --json --cgroup-root {cgroups}"));
        add("apps-watch", QStringLiteral("apps --json --watch 0.1 --count 2 --cgroup-root {cgroups}"));
        add("apps-missing", QStringLiteral("apps --json --cgroup-root {missing}"));
        // meminfo
        add("meminfo", QStringLiteral("meminfo --json"));
        add("meminfo-watch", QStringLiteral("meminfo --json --watch 0.1 --count 2"));
        add("meminfo-bad-proc", QStringLiteral("meminfo --json --proc {missing}"));
        // snapshot
        add("snapshot-save", QStringLiteral("snapshot save --json {dir}/saved.json {tree} {missing}"));
        add("snapshot-save-nothing", QStringLiteral("snapshot save --json {dir}/nothing.json {missing}"));
        add("snapshot-diff", QStringLiteral("snapshot diff --json {first} {second}"));
        add("snapshot-restore", QStringLiteral("snapshot restore --json {first}"));
        add("snapshot-restore-changed", QStringLiteral("snapshot restore --json {changed}"));
        add("snapshot-restore-broken", QStringLiteral("snapshot restore --json {broken}"));
        // experiments, small
        add("experiment-cold-read",
            QStringLiteral("experiment cold-read --json --folder {experiments} --size 256K --runs 2 --buffer 64K"),
            RunAs::Self,
            Needs::Nothing,
            120000);
        add("experiment-pressure",
            QStringLiteral("experiment pressure --json --whole-machine --folder {experiments} --size 256K --limit 8M --step 4M"),
            RunAs::Self,
            Needs::Nothing,
            120000);
        add("experiment-cold-start",
            QStringLiteral("experiment cold-start --json --runs 2 -- /bin/cat {file}"),
            RunAs::Self,
            Needs::Nothing,
            120000);
        add("experiment-writeback",
            QStringLiteral("experiment writeback --json --folder {experiments} --size 256K --step 64K --wait 0.2"),
            RunAs::Self,
            Needs::Nothing,
            120000);
        add("experiment-faults",
            QStringLiteral("experiment faults --json --folder {experiments} --size 256K --cold-only"),
            RunAs::Self,
            Needs::Nothing,
            120000);
        add("experiment-drop-caches",
            QStringLiteral("experiment cold-read --json --folder {experiments} --size 256K --runs 1 --drop-caches --no-fadvise"),
            RunAs::Self,
            Needs::NoSystemBus,
            120000);
        add("experiment-replay",
            QStringLiteral("experiment replay --json --runs 1 --trace {trace}"),
            RunAs::Self,
            Needs::Nothing,
            120000);
        add("experiment-replay-broken", QStringLiteral("experiment replay --json --trace {broken}"));
        // a user without a memory cgroup (no helper here): skipped with the reason
        add("experiment-folder-thrash",
            QStringLiteral("experiment folder-thrash --json --folder {userexperiments} --files 4 --file-size 1M --runs 1"),
            RunAs::TestUser,
            Needs::Nothing,
            120000);
        add("experiment-bad-folder", QStringLiteral("experiment cold-read --json --folder {missing} --size 256K --runs 1"));
        // the trace, the fallback's way (tracefs needs the helper)
        add("trace", QStringLiteral("trace --json --runs 2 --folder {experiments} -- /bin/cat {file}"), RunAs::Self, Needs::Nothing, 120000);
        add("trace-lesson", QStringLiteral("trace --json --lesson --folder {experiments}"), RunAs::Self, Needs::Nothing, 120000);
        add("trace-missing", QStringLiteral("trace --json -- {missing}"));
        add("trace-privileged-root", QStringLiteral("trace --json --privileged --lesson --folder {experiments}"), RunAs::Self, Needs::Root, 120000);
        add("usage-trace", QStringLiteral("trace --json --runs 0 -- /bin/true"));
        // the commands of the privileged helper, without one
        add("drop-caches", QStringLiteral("drop-caches --json 1"), RunAs::Self, Needs::NoSystemBus);
        add("swap-off", QStringLiteral("swap off --json"), RunAs::Self, Needs::NoSystemBus);
        // usage errors, help and the version: nothing or text on stdout
        add("usage-no-command", QStringLiteral("--json"));
        add("usage-unknown-command", QStringLiteral("--json frobnicate"));
        add("usage-status", QStringLiteral("status --json --pages 0 {file}"));
        add("usage-status-privileged", QStringLiteral("status --json --privileged -r {tree}"));
        add("usage-evict", QStringLiteral("evict --json --offset 12Q {file}"));
        add("usage-load", QStringLiteral("load --json --method mmap {file}"));
        add("usage-top", QStringLiteral("top --json -n many {tree}"));
        add("usage-meminfo", QStringLiteral("meminfo --json --count 3"));
        add("usage-apps", QStringLiteral("apps --json --watch 0"));
        add("usage-snapshot", QStringLiteral("snapshot --json"));
        add("usage-snapshot-diff", QStringLiteral("snapshot diff --json {first}"));
        add("usage-experiment", QStringLiteral("experiment --json frob"));
        add("usage-experiment-option", QStringLiteral("experiment cold-read --json --limit 1G"));
        add("usage-experiment-files", QStringLiteral("experiment folder-thrash --json --files 4,0"));
        add("usage-drop-caches", QStringLiteral("drop-caches --json 7"));
        add("help", QStringLiteral("status --json --help"));
        add("version", QStringLiteral("--json --version"));
        // the commands of the privileged helper as root, which needs none
        // (docs/helper-security.md rule 15); last, as they drop caches
        add("status-privileged-root", QStringLiteral("status --json --privileged {file}"), RunAs::Self, Needs::Root);
        // in a memory cgroup, which root makes in process
        add("experiment-pressure-contained-root",
            QStringLiteral("experiment pressure --json --folder {experiments} --size 8M --step 4M"),
            RunAs::Self,
            Needs::Root,
            120000);
        add("experiment-folder-thrash-root",
            QStringLiteral("experiment folder-thrash --json --folder {experiments} --files 4,6 --file-size 1M --runs 2"),
            RunAs::Self,
            Needs::Root,
            120000);
        add("experiment-thrash-cliff-root",
            QStringLiteral("experiment thrash-cliff --json --folder {experiments} --limit 16M"),
            RunAs::Self,
            Needs::Root,
            120000);
        add("experiment-shmem-root", QStringLiteral("experiment shmem --json --size 16M"), RunAs::Self, Needs::Root, 120000);
        add("drop-caches-root", QStringLiteral("drop-caches --json 1"), RunAs::Self, Needs::Root, 600000);
        add("activity-root", QStringLiteral("activity --json --duration 1 --interval 0.5"), RunAs::Self, Needs::Root, 60000);
    }

    void keys()
    {
        QFETCH(QStringList, arguments);
        QFETCH(RunAs, runAs);
        QFETCH(Needs, needs);
        QFETCH(int, timeoutMs);
        if (runAs == RunAs::TestUser && !TestUtil::testUserUid()) {
            QSKIP("needs root and the test user of tools/dev (cachescope-user)");
        }
        if (needs == Needs::NoSystemBus && QFile::exists(QStringLiteral("/run/dbus/system_bus_socket"))) {
            QSKIP("a system bus runs here: the privileged commands would reach a helper");
        }
        if (needs == Needs::Root && !TestUtil::isRoot()) {
            QSKIP("needs root: as a user the command goes to the helper (tests/helper/helperbustest.cpp)");
        }
        if (needs == Needs::NoSystemBus && TestUtil::isRoot()) {
            QSKIP("as root the privileged commands act directly, without a helper: the *-root rows and clitest cover them");
        }
        const QString name = QString::fromLatin1(QTest::currentDataTag());
        const TestUtil::RunResult result = runCli(arguments, runAs, timeoutMs);
        QVERIFY2(!result.timedOut, result.err.constData());
        QString problem;
        const std::set<QString> seen = linesOf(result, problem);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));

        const QString path = fixtureFolder() + QLatin1Char('/') + name + QStringLiteral(".txt");
        const Fixture fixture = readFixture(path);
        if (qEnvironmentVariableIntValue("CACHESCOPE_UPDATE_FIXTURES") == 1) {
            writeFixture(path, arguments.join(QLatin1Char(' ')), seen, fixture);
            return;
        }
        QVERIFY2(!fixture.lines.empty(), qPrintable(path + QStringLiteral(": no fixture (CACHESCOPE_UPDATE_FIXTURES=1 makes it)")));
        QStringList differences;
        for (const QString &line : seen) {
            if (!fixture.lines.contains(line)) {
                differences.append(QStringLiteral("+ ") + line);
            }
        }
        for (const auto &[line, optional] : fixture.lines) {
            if (!optional && !seen.contains(line)) {
                differences.append(QStringLiteral("- ") + line);
            }
        }
        QVERIFY2(differences.isEmpty(),
                 qPrintable(QStringLiteral("%1 differs from %2 (+ printed, not in the fixture; - in the fixture, not printed):\n%3\nstderr: %4")
                                .arg(arguments.join(QLatin1Char(' ')), path, differences.join(QLatin1Char('\n')), QString::fromUtf8(result.err))));
    }

    void cleanupTestCase()
    {
        m_held.clear();
    }
};

QTEST_GUILESS_MAIN(CliJsonKeysTest)
#include "clijsonkeystest.moc"
