// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "snapshot.h"
#include "residency.h"
#include "testutil.h"

#include <QTest>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <mutex>
#include <vector>

using namespace Cachescope;

namespace
{
const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));

using Ranges = std::vector<PageRange>;

struct Planned {
    std::string name;
    uint64_t pages;
    Ranges resident;
};

// A name that is not UTF-8 rides along to prove it survives JSON.
const std::string badName = std::string("bad\xff\xfe-name");

std::vector<Planned> plannedFiles()
{
    return {
        {"alpha", 32, {{0, 4}, {10, 6}}},
        {"beta", 16, {{0, 16}}},
        {"gamma", 20, {}},
        {badName, 12, {{2, 3}}},
    };
}

// Resident pages as ranges, read through mincore (pageMap), not the code under test.
Ranges residentRanges(const std::string &path)
{
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
        return {};
    }
    const PageMap map = pageMapOfPath(path, 0, pagesFor(uint64_t(st.st_size)), ResidencyOptions{.forceMincore = true});
    Ranges ranges;
    for (uint64_t i = 0; i < map.flags.size(); ++i) {
        if (!(map.flags[i] & PageResident)) {
            continue;
        }
        if (!ranges.empty() && ranges.back().first + ranges.back().count == i) {
            ++ranges.back().count;
        } else {
            ranges.push_back({i, 1});
        }
    }
    return ranges;
}

// Loaded pages arrive a moment after readahead(2) queued them: poll, at most 10 s.
Ranges settledRanges(const std::string &path, const Ranges &expected)
{
    Ranges ranges = residentRanges(path);
    for (int attempt = 0; attempt < 1000 && ranges != expected; ++attempt) {
        usleep(10000);
        ranges = residentRanges(path);
    }
    return ranges;
}

const SnapshotFile *findFile(const Snapshot &snapshot, const std::string &path)
{
    for (const SnapshotFile &file : snapshot.files) {
        if (file.path == path) {
            return &file;
        }
    }
    return nullptr;
}

QString describe(const Ranges &ranges)
{
    QStringList parts;
    for (const PageRange &range : ranges) {
        parts << QStringLiteral("[%1,%2]").arg(range.first).arg(range.count);
    }
    return parts.join(QLatin1Char(' '));
}
} // namespace

class SnapshotTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;
    // Each file's read pages stay mapped until the test evicts that file (see
    // evict()): the kernel here pages out idle unmapped file pages at any
    // moment (see HeldPages), and one page gone changes a file's ranges.
    std::map<std::string, std::vector<std::unique_ptr<TestUtil::HeldPages>>> m_held;

    std::string pathFor(const std::string &name) const
    {
        return m_dir + '/' + name;
    }

    void makeTree()
    {
        m_held.clear();
        m_dir = TestUtil::scratchDir("snapshot");
        for (const Planned &file : plannedFiles()) {
            TestUtil::makeColdFile(pathFor(file.name), file.pages * page);
            for (const PageRange &range : file.resident) {
                hold(file.name, range.first, range.count);
            }
        }
    }

    void hold(const std::string &name, uint64_t firstPage, uint64_t pages)
    {
        m_held[name].push_back(std::make_unique<TestUtil::HeldPages>(pathFor(name), firstPage * page, pages * page));
    }

    // A mapped page is not evicted: let go of the file's pages first.
    void evict(const std::string &name)
    {
        m_held.erase(name);
        TestUtil::evictRaw(pathFor(name));
    }

    Snapshot snapshotWithoutProblems()
    {
        std::mutex mutex;
        QStringList problems;
        Snapshot snapshot = takeSnapshot({m_dir}, {}, [&](const WalkProblem &problem) {
            std::lock_guard lock(mutex);
            problems << QString::fromStdString(toDisplayPath(problem.path) + ": " + problem.reason);
        });
        if (!problems.isEmpty()) {
            qWarning("%s", qPrintable(problems.join(QLatin1Char('\n'))));
        }
        return snapshot;
    }

    static std::string toDisplayPath(const std::string &path)
    {
        return QString::fromUtf8(path.data(), qsizetype(path.size())).toStdString();
    }

private Q_SLOTS:
    void cleanup()
    {
        m_held.clear();
    }

    void takesSavesDiffsAndRestores()
    {
        makeTree();
        const Snapshot first = snapshotWithoutProblems();
        QCOMPARE(first.pageSize, page);
        QVERIFY(!first.created.isEmpty());
        QCOMPARE(first.files.size(), plannedFiles().size());
        for (const Planned &planned : plannedFiles()) {
            const SnapshotFile *file = findFile(first, pathFor(planned.name));
            QVERIFY2(file, planned.name.c_str());
            QCOMPARE(file->size, planned.pages * page);
            QCOMPARE(describe(file->ranges), describe(planned.resident));
            struct stat st;
            QCOMPARE(stat(file->path.c_str(), &st), 0);
            QCOMPARE(file->mtimeNs, int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec);
        }

        // JSON round trip, the non-UTF-8 name included (once, in base64).
        const QByteArray json = snapshotToJson(first);
        QCOMPARE(json.count("\"path_base64\""), 1);
        QVERIFY(json.contains("\"format\":\"cachescope-snapshot\""));
        QString error;
        const std::optional<Snapshot> read = snapshotFromJson(json, &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(read->pageSize, first.pageSize);
        QCOMPARE(read->created, first.created);
        QCOMPARE(read->files.size(), first.files.size());
        for (size_t i = 0; i < first.files.size(); ++i) {
            QCOMPARE(read->files[i].path, first.files[i].path);
            QCOMPARE(read->files[i].size, first.files[i].size);
            QCOMPARE(read->files[i].mtimeNs, first.files[i].mtimeNs);
            QCOMPARE(describe(read->files[i].ranges), describe(first.files[i].ranges));
        }
        QVERIFY(findFile(*read, pathFor(badName)));

        // Evict alpha, load two pages of gamma: the diff says exactly that.
        evict("alpha");
        hold("gamma", 5, 2);
        const Snapshot second = snapshotWithoutProblems();
        const SnapshotDiff diff = diffSnapshots(*read, second);
        QCOMPARE(diff.files.size(), size_t(2));
        QCOMPARE(diff.evictedPages, uint64_t(10));
        QCOMPARE(diff.loadedPages, uint64_t(2));
        for (const SnapshotFileDiff &file : diff.files) {
            QVERIFY(!file.onlyInFirst && !file.onlyInSecond);
            if (file.path == pathFor("alpha")) {
                QCOMPARE(describe(file.evicted), describe({{0, 4}, {10, 6}}));
                QVERIFY(file.loaded.empty());
            } else {
                QCOMPARE(file.path, pathFor("gamma"));
                QCOMPARE(describe(file.loaded), describe({{5, 2}}));
                QVERIFY(file.evicted.empty());
            }
        }

        // Restore brings back exactly the recorded pages and no others.
        evict("beta");
        evict(badName);
        const RestoreReport restored = restoreSnapshot(*read);
        QVERIFY(restored.skipped.empty());
        QVERIFY(!restored.cancelled);
        QCOMPARE(restored.filesRestored, uint64_t(3));
        QCOMPARE(restored.pagesRequested, uint64_t(10 + 16 + 3));
        QCOMPARE(restored.pagesResidentAfter, restored.pagesRequested);
        for (const Planned &planned : plannedFiles()) {
            // gamma keeps what it had: restoring loads, it never evicts.
            const Ranges expected = planned.name == "gamma" ? Ranges{{5, 2}} : planned.resident;
            QCOMPARE(describe(settledRanges(pathFor(planned.name), expected)), describe(expected));
        }
    }

    void diffOfFilesInOneSnapshotOnly()
    {
        Snapshot first;
        first.pageSize = page;
        first.files = {{"/a", 10 * page, 1, {{0, 2}}}, {"/both", 10 * page, 1, {{0, 5}}}};
        Snapshot second;
        second.pageSize = page;
        second.files = {{"/b", 10 * page, 1, {{1, 3}}}, {"/both", 10 * page, 1, {{2, 2}, {6, 1}}}};
        const SnapshotDiff diff = diffSnapshots(first, second);
        QCOMPARE(diff.files.size(), size_t(3));
        QCOMPARE(diff.files[0].path, std::string("/a"));
        QVERIFY(diff.files[0].onlyInFirst);
        QCOMPARE(diff.files[0].evictedPages(), uint64_t(2));
        QCOMPARE(diff.files[1].path, std::string("/b"));
        QVERIFY(diff.files[1].onlyInSecond);
        QCOMPARE(diff.files[1].loadedPages(), uint64_t(3));
        QCOMPARE(describe(diff.files[2].evicted), describe({{0, 2}, {4, 1}}));
        QCOMPARE(describe(diff.files[2].loaded), describe({{6, 1}}));
        QCOMPARE(diff.evictedPages, uint64_t(2 + 3));
        QCOMPARE(diff.loadedPages, uint64_t(3 + 1));
        QVERIFY(diffSnapshots(first, first).files.empty());
    }

    void restoreSkipsChangedAndMissingFiles()
    {
        makeTree();
        const Snapshot snapshot = snapshotWithoutProblems();
        evict("alpha");
        evict("beta");
        // beta gets new data after the snapshot, badName disappears.
        {
            const int fd = open(pathFor("beta").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
            QVERIFY(fd >= 0);
            QCOMPARE(write(fd, "x", 1), ssize_t(1));
            fdatasync(fd);
            close(fd);
            evict("beta");
        }
        QCOMPARE(unlink(pathFor(badName).c_str()), 0);

        const RestoreReport report = restoreSnapshot(snapshot);
        QCOMPARE(report.filesRestored, uint64_t(1));
        QCOMPARE(report.pagesRequested, uint64_t(10));
        QCOMPARE(report.pagesResidentAfter, uint64_t(10));
        QCOMPARE(report.skipped.size(), size_t(2));
        for (const RestoreProblem &problem : report.skipped) {
            if (problem.path == pathFor("beta")) {
                QCOMPARE(problem.reason, std::string("changed since the snapshot (size or mtime)"));
            } else {
                QCOMPARE(problem.path, pathFor(badName));
                QCOMPARE(problem.reason, std::string(strerror(ENOENT)));
            }
        }
        QVERIFY(residentRanges(pathFor("beta")).empty());
    }

    void restoreCancels()
    {
        makeTree();
        const Snapshot snapshot = snapshotWithoutProblems();
        evict("alpha");
        std::atomic<bool> cancel = true;
        const RestoreReport report = restoreSnapshot(snapshot, &cancel);
        QVERIFY(report.cancelled);
        QCOMPARE(report.filesRestored, uint64_t(0));
        QVERIFY(residentRanges(pathFor("alpha")).empty());
    }

    void restoreReportsProgress()
    {
        makeTree();
        const Snapshot snapshot = snapshotWithoutProblems();
        evict("alpha");
        RestoreProgress progress;
        const RestoreReport report = restoreSnapshot(snapshot, nullptr, &progress);
        QVERIFY(report.skipped.empty());
        QCOMPARE(recordedBytes(snapshot), (10 + 16 + 3) * page);
        QCOMPARE(progress.bytesDone.load(), recordedBytes(snapshot));
        QCOMPARE(progress.filesDone.load(), uint64_t(snapshot.files.size()));
    }

    // A control follows the walk, and a cancel before it starts walks nothing.
    void controlCountsAndCancels()
    {
        makeTree();
        SnapshotControl control;
        const Snapshot whole = takeSnapshot({m_dir}, {}, {}, &control);
        QVERIFY(!control.isCancelled());
        QCOMPARE(whole.files.size(), plannedFiles().size());
        QVERIFY2(control.entriesSeen() >= plannedFiles().size(), qPrintable(QString::number(control.entriesSeen())));
        QVERIFY2(control.bytesSeen() >= (32 + 16 + 20 + 12) * page, qPrintable(QString::number(control.bytesSeen())));
        QCOMPARE(whole.residentPages(), uint64_t(10 + 16 + 3));
        QVERIFY(whole.find(pathFor("beta")));
        QCOMPARE(whole.find(pathFor("beta"))->residentPages(), uint64_t(16));
        QVERIFY(!whole.find(pathFor("delta")));

        SnapshotControl cancelled;
        cancelled.cancel();
        const Snapshot none = takeSnapshot({m_dir}, {}, {}, &cancelled);
        QVERIFY(cancelled.isCancelled());
        QVERIFY(none.files.empty());
    }

    // Files: a round trip, and each failure named with its reason.
    void readsAndWritesFiles()
    {
        makeTree();
        const Snapshot snapshot = snapshotWithoutProblems();
        const std::string file = m_dir + "-saved.json";
        std::string error;
        QVERIFY2(writeSnapshotFile(file, snapshot, &error), error.c_str());
        const std::optional<Snapshot> read = readSnapshotFile(file, &error);
        QVERIFY2(read, error.c_str());
        QCOMPARE(snapshotToJson(*read), snapshotToJson(snapshot));

        QVERIFY(!readSnapshotFile(m_dir + "/no-such.json", &error));
        QCOMPARE(error, std::string(strerror(ENOENT)));
        QVERIFY(!readSnapshotFile(m_dir, &error));
        QCOMPARE(error, std::string("not a regular file"));
        QVERIFY(!readSnapshotFile(pathFor("alpha"), &error));
        QVERIFY2(error.starts_with("not a Cachescope snapshot: not valid JSON"), error.c_str());

        QVERIFY(!writeSnapshotFile(m_dir + "/no-such-folder/x.json", snapshot, &error));
        QCOMPARE(error, "cannot make its temporary file: " + std::string(strerror(ENOENT)));
        QCOMPARE(unlink(file.c_str()), 0);
    }

    void hiddenFilesAreLeftOut()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev");
        }
        makeTree();
        // The test user reads root's files but is not told their residency:
        // each is reported and none is stored.
        struct Answer {
            uint64_t stored, hidden;
        };
        QString failure;
        const std::optional<Answer> answer = TestUtil::valueFromChild<Answer>(
            [this] {
                std::atomic<uint64_t> hidden = 0;
                const Snapshot snapshot = takeSnapshot({m_dir}, {}, [&](const WalkProblem &problem) {
                    if (problem.reason == "residency hidden by the kernel: not stored") {
                        ++hidden;
                    }
                });
                return Answer{snapshot.files.size(), hidden.load()};
            },
            *uid,
            &failure,
            30000);
        QVERIFY2(answer, qPrintable(failure));
        QCOMPARE(answer->stored, uint64_t(0));
        QCOMPARE(answer->hidden, uint64_t(plannedFiles().size()));
    }

    void rejectsMalformedJson_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expectedError");
        const auto doc = [](const char *files,
                            const char *head =
                                R"("format":"cachescope-snapshot","version":1,"page_size":4096,"created":"2026-01-01T00:00:00Z")") -> QByteArray {
            return QByteArray("{") + head + ",\"files\":" + files + "}";
        };
        const auto file = [&doc](const char *fields) -> QByteArray {
            return doc(QByteArray(QByteArray("[{") + fields + "}]").constData());
        };
        QTest::newRow("not JSON") << QByteArray("{\"format\":") << QStringLiteral("not valid JSON");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("not valid JSON");
        QTest::newRow("an array") << QByteArray("[]") << QStringLiteral("not a JSON object");
        QTest::newRow("wrong format") << doc("[]", R"("format":"vmtouch","version":1,"page_size":4096,"created":"x")") << QStringLiteral("\"format\"");
        QTest::newRow("wrong version") << doc("[]", R"("format":"cachescope-snapshot","version":2,"page_size":4096,"created":"x")")
                                       << QStringLiteral("unsupported snapshot version 2");
        QTest::newRow("version as text") << doc("[]", R"("format":"cachescope-snapshot","version":"1","page_size":4096,"created":"x")")
                                         << QStringLiteral("\"version\" is missing or not an integer");
        QTest::newRow("bad page size") << doc("[]", R"("format":"cachescope-snapshot","version":1,"page_size":3000,"created":"x")")
                                       << QStringLiteral("\"page_size\"");
        QTest::newRow("no created") << doc("[]", R"("format":"cachescope-snapshot","version":1,"page_size":4096)") << QStringLiteral("\"created\"");
        QTest::newRow("files not an array") << doc("{}") << QStringLiteral("\"files\" is missing or not an array");
        QTest::newRow("file not an object") << doc("[1]") << QStringLiteral("files[0]: not an object");
        QTest::newRow("no path") << file(R"("size":1,"mtime_ns":1,"ranges":[])") << QStringLiteral("files[0]: \"path\"");
        QTest::newRow("bad base64") << file(R"("path":"x","path_base64":"!!!","size":1,"mtime_ns":1,"ranges":[])")
                                    << QStringLiteral("\"path_base64\" is not valid base64");
        QTest::newRow("negative size") << file(R"("path":"/x","size":-1,"mtime_ns":1,"ranges":[])")
                                       << QStringLiteral("files[0] (\"/x\"): \"size\" must be a non-negative integer");
        QTest::newRow("fractional size") << file(R"("path":"/x","size":1.5,"mtime_ns":1,"ranges":[])")
                                         << QStringLiteral("\"size\" must be a non-negative integer");
        QTest::newRow("mtime as text") << file(R"("path":"/x","size":1,"mtime_ns":"now","ranges":[])") << QStringLiteral("\"mtime_ns\" must be an integer");
        QTest::newRow("no ranges") << file(R"("path":"/x","size":1,"mtime_ns":1)") << QStringLiteral("\"ranges\" is missing or not an array");
        QTest::newRow("range not a pair") << file(R"("path":"/x","size":40960,"mtime_ns":1,"ranges":[[1]])")
                                          << QStringLiteral("range 0 is not a [first, count] pair");
        QTest::newRow("negative count") << file(R"("path":"/x","size":40960,"mtime_ns":1,"ranges":[[1,-2]])")
                                        << QStringLiteral("range 0: the page count must be a positive integer");
        QTest::newRow("zero count") << file(R"("path":"/x","size":40960,"mtime_ns":1,"ranges":[[1,0]])")
                                    << QStringLiteral("the page count must be a positive integer");
        QTest::newRow("negative first") << file(R"("path":"/x","size":40960,"mtime_ns":1,"ranges":[[-1,2]])")
                                        << QStringLiteral("the first page must be a non-negative integer");
        QTest::newRow("overlapping ranges") << file(R"("path":"/x","size":40960,"mtime_ns":1,"ranges":[[0,5],[3,2]])")
                                            << QStringLiteral("range 1 overlaps the range before it");
        QTest::newRow("out of order") << file(R"("path":"/x","size":40960,"mtime_ns":1,"ranges":[[6,1],[0,2]])")
                                      << QStringLiteral("range 1 overlaps the range before it or is out of order");
        QTest::newRow("past the end") << file(R"("path":"/x","size":40960,"mtime_ns":1,"ranges":[[8,3]])")
                                      << QStringLiteral("range 0 goes past the end of the file (10 pages)");
        QTest::newRow("listed twice") << doc(R"([{"path":"/x","size":1,"mtime_ns":1,"ranges":[]},{"path":"/x","size":1,"mtime_ns":1,"ranges":[]}])")
                                      << QStringLiteral("the file \"/x\" is listed twice");
    }

    void rejectsMalformedJson()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expectedError);
        QString error;
        const std::optional<Snapshot> snapshot = snapshotFromJson(json, &error);
        QVERIFY(!snapshot);
        QVERIFY2(error.contains(expectedError), qPrintable(error));
    }

    void acceptsMinimalSnapshot()
    {
        const QByteArray json = R"({"format":"cachescope-snapshot","version":1,"page_size":4096,"created":"2026-01-01T00:00:00Z",
            "files":[{"path":"/z","size":40960,"mtime_ns":-5,"ranges":[[0,2],[9,1]]},{"path":"/y","size":0,"mtime_ns":0,"ranges":[]}]})";
        QString error;
        const std::optional<Snapshot> snapshot = snapshotFromJson(json, &error);
        QVERIFY2(snapshot, qPrintable(error));
        QCOMPARE(snapshot->files.size(), size_t(2));
        QCOMPARE(snapshot->files[0].path, std::string("/y")); // sorted by path
        QCOMPARE(snapshot->files[1].mtimeNs, int64_t(-5));
        QCOMPARE(describe(snapshot->files[1].ranges), describe({{0, 2}, {9, 1}}));
    }
};

QTEST_GUILESS_MAIN(SnapshotTest)
#include "snapshottest.moc"
