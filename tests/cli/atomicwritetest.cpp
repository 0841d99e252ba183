// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The files the CLI writes for people and scripts (snapshots, trace files,
// the lock's pid file) are whole or not there: a writer killed in the
// middle of writing leaves the old file as it was. The kernel kills it
// there for us: under RLIMIT_FSIZE a write past the limit raises SIGXFSZ,
// whose default action ends the process, so the kill comes exactly in the
// middle of the file. The next write removes what the killed one left.

#include "testutil.h"

#include <QProcess>
#include <QTest>

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace
{

std::string readAll(const std::string &path)
{
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

std::vector<std::string> leftovers(const std::string &folder, const std::string &name)
{
    std::vector<std::string> found;
    DIR *directory = ::opendir(folder.c_str());
    if (!directory) {
        return found;
    }
    while (const dirent *entry = ::readdir(directory)) {
        if (std::string(entry->d_name).rfind(name + ".tmp-", 0) == 0) {
            found.push_back(entry->d_name);
        }
    }
    ::closedir(directory);
    return found;
}

struct Run {
    QProcess::ExitStatus status = QProcess::NormalExit;
    int code = 0;
    QByteArray err;
};

// The CLI with its files limited to fileLimit bytes (0: no limit).
Run runCli(const QStringList &arguments, rlim_t fileLimit)
{
    QProcess process;
    process.setChildProcessModifier([fileLimit] {
        ::signal(SIGXFSZ, SIG_DFL);
        const struct rlimit noCore = {0, 0}; // SIGXFSZ dumps core by default
        ::setrlimit(RLIMIT_CORE, &noCore);
        if (fileLimit > 0) {
            const struct rlimit limit = {fileLimit, fileLimit};
            ::setrlimit(RLIMIT_FSIZE, &limit);
        }
    });
    process.start(TestUtil::cliPath(), arguments);
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
    }
    return {process.exitStatus(), process.exitCode(), process.readAllStandardError()};
}

} // namespace

class AtomicWriteTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void snapshotKilledMidWriteLeavesTheOldOne()
    {
        const std::string folder = TestUtil::scratchDir("atomic-snapshot");
        const std::string tree = folder + "/tree";
        QVERIFY(::mkdir(tree.c_str(), 0755) == 0);
        for (int i = 0; i < 200; ++i) {
            std::ofstream(tree + "/file-" + std::to_string(i)) << "some bytes " << i;
        }
        const std::string snapshot = folder + "/cache.json";
        Run run = runCli({QStringLiteral("snapshot"), QStringLiteral("save"), QString::fromStdString(snapshot), QString::fromStdString(tree + "/file-0")}, 0);
        QCOMPARE(run.code, 0);
        const std::string old = readAll(snapshot);
        QVERIFY(old.find("file-0") != std::string::npos);
        struct stat before;
        QCOMPARE(::stat(snapshot.c_str(), &before), 0);
        // A reader that had the old file open goes on reading it, whole.
        std::ifstream reader(snapshot, std::ios::binary);

        // 200 files make a snapshot far larger than 4 KiB: killed in the middle.
        run = runCli({QStringLiteral("snapshot"), QStringLiteral("save"), QString::fromStdString(snapshot), QString::fromStdString(tree)}, 4096);
        QCOMPARE(run.status, QProcess::CrashExit);
        QCOMPARE(run.code, SIGXFSZ);
        QCOMPARE(readAll(snapshot), old);
        QCOMPARE(leftovers(folder, "cache.json").size(), size_t(1)); // the killed writer's

        run = runCli({QStringLiteral("snapshot"), QStringLiteral("save"), QString::fromStdString(snapshot), QString::fromStdString(tree)}, 0);
        QCOMPARE(run.code, 0);
        QVERIFY(readAll(snapshot).find("file-199") != std::string::npos);
        // Not written into: another file took its name (the old one's mode kept).
        struct stat after;
        QCOMPARE(::stat(snapshot.c_str(), &after), 0);
        QVERIFY(after.st_ino != before.st_ino);
        QCOMPARE(after.st_mode, before.st_mode);
        std::stringstream stillOld;
        stillOld << reader.rdbuf();
        QCOMPARE(stillOld.str(), old);
        // The killed writer's temporary file is gone: nobody held it.
        QCOMPARE(leftovers(folder, "cache.json"), std::vector<std::string>());
    }

    void traceFileKilledMidWriteLeavesTheOldOne()
    {
        const std::string folder = TestUtil::scratchDir("atomic-trace");
        const std::string trace = folder + "/start.json";
        std::ofstream(trace) << "the trace before\n";
        // Its working files are small; the trace file of a start is several KiB.
        const Run run =
            runCli({QStringLiteral("trace"), QStringLiteral("--output"), QString::fromStdString(trace), QStringLiteral("--"), QStringLiteral("/usr/bin/true")},
                   1024);
        QCOMPARE(run.status, QProcess::CrashExit);
        QCOMPARE(run.code, SIGXFSZ);
        QCOMPARE(readAll(trace), std::string("the trace before\n"));
        QCOMPARE(leftovers(folder, "start.json").size(), size_t(1));
    }

    // What is not a regular file is written as it is; a link is followed
    // and the file it names replaced.
    void specialFilesAndLinks()
    {
        const std::string folder = TestUtil::scratchDir("atomic-special");
        const std::string target = folder + "/real.json";
        std::ofstream(target) << "before\n";
        const std::string link = folder + "/link.json";
        QCOMPARE(::symlink("real.json", link.c_str()), 0);
        Run run = runCli({QStringLiteral("snapshot"), QStringLiteral("save"), QString::fromStdString(link), QString::fromStdString(target)}, 0);
        QCOMPARE(run.code, 0);
        struct stat st;
        QCOMPARE(::lstat(link.c_str(), &st), 0);
        QVERIFY(S_ISLNK(st.st_mode));
        QVERIFY(readAll(target).find("cachescope-snapshot") != std::string::npos);

        run = runCli({QStringLiteral("snapshot"), QStringLiteral("save"), QStringLiteral("/dev/null"), QString::fromStdString(target)}, 0);
        QCOMPARE(run.code, 0);
        QCOMPARE(::lstat("/dev/null", &st), 0);
        QVERIFY(S_ISCHR(st.st_mode));
    }

    void pidFileKilledMidWriteLeavesTheOldOne()
    {
        const std::string folder = TestUtil::scratchDir("atomic-pid-file");
        const std::string file = folder + "/locked";
        std::ofstream(file) << "locked file\n";
        const std::string pidFile = folder + "/lock.pid";
        std::ofstream(pidFile) << "4242\n";
        const Run run = runCli({QStringLiteral("lock"), QStringLiteral("--pid-file"), QString::fromStdString(pidFile), QString::fromStdString(file)}, 2);
        QCOMPARE(run.status, QProcess::CrashExit);
        QCOMPARE(run.code, SIGXFSZ);
        QCOMPARE(readAll(pidFile), std::string("4242\n"));
        QCOMPARE(leftovers(folder, "lock.pid").size(), size_t(1));
    }
};

QTEST_GUILESS_MAIN(AtomicWriteTest)

#include "atomicwritetest.moc"
