// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "evict.h"
#include "load.h"
#include "residency.h"
#include "testutil.h"
#include "walker.h"

#include <QTest>

#include <fcntl.h>
#include <grp.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <vector>

using namespace Cachescope;

namespace
{
const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));

// An open descriptor and its fstat, closed on scope exit.
struct OpenFile {
    int fd = -1;
    struct stat st{};
    explicit OpenFile(const std::string &path, int flags = O_RDONLY, mode_t mode = 0600)
    {
        fd = open(path.c_str(), flags | O_CLOEXEC, mode);
        if (fd >= 0) {
            fstat(fd, &st);
        }
    }
    ~OpenFile()
    {
        if (fd >= 0) {
            close(fd);
        }
    }
};

uint64_t residentPages(const std::string &path)
{
    const Residency residency = residencyOfPath(path);
    return residency.known() ? residency.resident : ~uint64_t(0);
}

// Whether the file's pages in the cache are the `count` pages from `first`
// and no other (inside), or every page but those (!inside). A page the kernel
// reclaimed since counts as in the cache: these machines page out idle file
// pages at any moment (DAMON pageout), even pages read a second ago, and
// reclaim leaves a shadow entry that cachestat(2) counts, where fadvise
// (DONTNEED), the way our code and makeColdFile evict, leaves none. So a page
// our code wrongly read or evicted shows, a page DAMON took does not. Pages
// whose reads are still under way count too (cachestat counts them, mincore
// not yet). Empty when so, else the counts.
QString cachedExactly(const std::string &path, uint64_t filePages, uint64_t first, uint64_t count, bool inside = true)
{
    first = std::min(first, filePages);
    const uint64_t end = std::min(first + count, filePages);
    const auto cachedOf = [&path](uint64_t from, uint64_t pages) -> uint64_t {
        return pages ? TestUtil::pagesNow(path, from * page, pages * page).residentOrReclaimed() : 0;
    };
    const uint64_t before = cachedOf(0, first);
    const uint64_t within = cachedOf(first, end - first);
    const uint64_t after = cachedOf(end, filePages - end);
    const uint64_t wantBefore = inside ? 0 : first;
    const uint64_t wantWithin = inside ? end - first : 0;
    const uint64_t wantAfter = inside ? 0 : filePages - end;
    if (before == wantBefore && within == wantWithin && after == wantAfter) {
        return {};
    }
    return QStringLiteral("pages in the cache or reclaimed: %1 before page %2 (want %3), %4 in pages %2 to %5 (want %6), %7 after (want %8)")
        .arg(before)
        .arg(first)
        .arg(wantBefore)
        .arg(within)
        .arg(end)
        .arg(wantWithin)
        .arg(after)
        .arg(wantAfter);
}

// readahead(2) returns once the reads are queued: cachestat counts those pages
// at once, mincore (and so a peer such as fincore) only once their data has
// arrived. Waits until no read of the file is under way, at most 10 s.
void waitForPendingReads(const std::string &path)
{
    const auto pending = [&path] {
        const TestUtil::PagesNow cached = TestUtil::pagesNow(path);
        const Residency byMincore = residencyOfPath(path, ResidencyOptions{.forceMincore = true});
        return byMincore.known() && byMincore.resident < cached.resident;
    };
    for (int attempt = 0; attempt < 1000 && pending(); ++attempt) {
        usleep(10000);
    }
}

// Waits for one byte on fd, at most timeoutMs.
bool waitReadable(int fd, int timeoutMs)
{
    pollfd pfd{fd, POLLIN, 0};
    return poll(&pfd, 1, timeoutMs) == 1;
}
} // namespace

class EvictloadTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;

    std::string pathFor(const char *name) const
    {
        return m_dir + '/' + name;
    }

private Q_SLOTS:
    void initTestCase()
    {
        m_dir = TestUtil::scratchDir("evictload");
    }

    void evictsWarmCleanFile()
    {
        const std::string path = pathFor("warm");
        TestUtil::makeColdFile(path, 4 << 20);
        TestUtil::readRange(path, 0, 4 << 20);
        QCOMPARE(residentPages(path), uint64_t(4 << 20) / page);

        OpenFile file(path);
        QVERIFY(file.fd >= 0);
        const EvictReport report = evictDescriptor(file.fd, file.st, {}, nullptr);
        QCOMPARE(report.error, 0);
        QCOMPARE(report.pages, uint64_t(4 << 20) / page);
        QCOMPARE(report.before, report.pages);
        QCOMPARE(report.after, uint64_t(0));
        QCOMPARE(report.freedPages(), report.pages);
        QCOMPARE(report.reason, RemainReason::None);
        QVERIFY(!report.hidden);
        QCOMPARE(residentPages(path), uint64_t(0));
        if (const auto fincore = TestUtil::fincoreResidentPages(path)) {
            QCOMPARE(*fincore, uint64_t(0));
        }
    }

    void evictsRange_data()
    {
        QTest::addColumn<qulonglong>("offset");
        QTest::addColumn<qulonglong>("length");
        QTest::addColumn<qulonglong>("firstPage");
        QTest::addColumn<qulonglong>("pageCount");
        // 64 pages plus 100 bytes: 65 pages, the last one partial.
        QTest::newRow("middle") << qulonglong(10 * page) << qulonglong(20 * page) << 10ull << 20ull;
        QTest::newRow("first page") << 0ull << qulonglong(page) << 0ull << 1ull;
        QTest::newRow("unaligned widens to whole pages") << 100ull << qulonglong(page + 50) << 0ull << 2ull;
        QTest::newRow("to the end") << qulonglong(50 * page) << 0ull << 50ull << 15ull;
        QTest::newRow("past the end") << qulonglong(1000 * page) << qulonglong(page) << 0ull << 0ull;
        QTest::newRow("longer than the file") << qulonglong(60 * page) << qulonglong(1000 * page) << 60ull << 5ull;
    }

    void evictsRange()
    {
        QFETCH(qulonglong, offset);
        QFETCH(qulonglong, length);
        QFETCH(qulonglong, firstPage);
        QFETCH(qulonglong, pageCount);
        const std::string path = pathFor("range");
        const uint64_t size = 64 * page + 100;
        TestUtil::makeColdFile(path, size);
        TestUtil::readRange(path, 0, size);
        QCOMPARE(residentPages(path), uint64_t(65));

        OpenFile file(path);
        EvictOptions options;
        options.offset = offset;
        options.length = length;
        const EvictReport report = evictDescriptor(file.fd, file.st, options, nullptr);
        QCOMPARE(report.error, 0);
        QCOMPARE(report.pages, pageCount);
        QCOMPARE(report.before, pageCount);
        QCOMPARE(report.after, uint64_t(0));
        // Exactly the pages of the range went; every other page stayed.
        const QString cached = cachedExactly(path, 65, firstPage, pageCount, false);
        QVERIFY2(cached.isEmpty(), qPrintable(cached));
        if (const auto fincore = TestUtil::fincoreResidentPages(path)) {
            const QString mismatch = TestUtil::residencyFigureMismatch(TestUtil::pagesNow(path), *fincore, 65 - pageCount);
            QVERIFY2(mismatch.isEmpty(), qPrintable(QStringLiteral("fincore: ") + mismatch));
        }
    }

    void dirtyPagesStayUntilFlushed()
    {
        const std::string path = pathFor("dirty");
        constexpr size_t bytes = 16 << 20;
        TestUtil::makeColdFile(path, bytes);
        OpenFile file(path);
        // fadvise(DONTNEED) starts writeback of the dirty pages before it
        // drops the clean ones, and a fast disk (or a sync elsewhere) can
        // finish that for some pages in between: 16 MiB takes longer to
        // write than the drop takes, and a run where every page was written
        // first is tried again (it happened once under AddressSanitizer with
        // 1 MiB).
        EvictReport report;
        for (int attempt = 0; attempt < 3 && report.after == 0; ++attempt) {
            // Written and not synced: every page is dirty.
            OpenFile writer(path, O_WRONLY);
            std::vector<char> data(bytes, char('x' + attempt));
            QCOMPARE(pwrite(writer.fd, data.data(), data.size(), 0), ssize_t(data.size()));
            report = evictDescriptor(file.fd, file.st, {}, nullptr);
            QCOMPARE(report.error, 0);
        }
        QVERIFY2(report.after > 0, "dirty pages must stay");
        QCOMPARE(report.reason, RemainReason::Dirty);
        QVERIFY(remainReasonText(report.reason).find("dirty") != std::string::npos);

        EvictOptions flush;
        flush.flushDirtyFirst = true;
        const EvictReport flushed = evictDescriptor(file.fd, file.st, flush, nullptr);
        QCOMPARE(flushed.error, 0);
        QCOMPARE(flushed.after, uint64_t(0));
        QCOMPARE(flushed.reason, RemainReason::None);
        QCOMPARE(residentPages(path), uint64_t(0));
    }

    void pagesMappedByProcessStay()
    {
        const std::string path = pathFor("mapped");
        const uint64_t size = 256 * page;
        TestUtil::makeColdFile(path, size);

        int ready[2];
        int release[2];
        QCOMPARE(pipe2(ready, O_CLOEXEC), 0);
        QCOMPARE(pipe2(release, O_CLOEXEC), 0);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            // Only async-signal-safe calls in the child of a threaded process.
            close(ready[0]);
            close(release[1]);
            const int fd = open(path.c_str(), O_RDONLY);
            void *map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
            if (map == MAP_FAILED) {
                _exit(2);
            }
            volatile char sum = 0;
            for (uint64_t offset = 0; offset < size; offset += page) {
                sum = char(sum + static_cast<const char *>(map)[offset]);
            }
            const char byte = 1;
            if (write(ready[1], &byte, 1) != 1) {
                _exit(3);
            }
            char done;
            (void)!read(release[0], &done, 1); // returns when the parent closes its end
            _exit(0);
        }
        close(ready[1]);
        close(release[0]);
        const auto reap = qScopeGuard([&] {
            close(release[1]);
            kill(child, SIGKILL);
            waitpid(child, nullptr, 0);
            close(ready[0]);
        });
        QVERIFY2(waitReadable(ready[0], 20000), "the child did not map the file in time");

        OpenFile file(path);
        const std::shared_ptr<const MappedFiles> mapped = MappedFiles::scan();
        QVERIFY(mapped->size() > 0);
        QVERIFY(mapped->contains(uint64_t(file.st.st_dev), uint64_t(file.st.st_ino)));

        const EvictReport report = evictDescriptor(file.fd, file.st, {}, mapped.get());
        QCOMPARE(report.error, 0);
        QCOMPARE(report.before, uint64_t(256));
        QCOMPARE(report.after, uint64_t(256));
        QCOMPARE(report.reason, RemainReason::Mapped);

        // Without the list of mappings the reason cannot be told.
        const EvictReport blind = evictDescriptor(file.fd, file.st, {}, nullptr);
        QCOMPARE(blind.reason, RemainReason::Unknown);
    }

    void mappedFilesSkipsUnreadableProcesses()
    {
        // A fake /proc: one readable process, one whose maps we may not read,
        // one that is gone, and entries that are not processes.
        const std::string proc = TestUtil::scratchDir("evictload-proc");
        QVERIFY(mkdir((proc + "/100").c_str(), 0755) == 0);
        QVERIFY(mkdir((proc + "/200").c_str(), 0755) == 0);
        QVERIFY(mkdir((proc + "/self").c_str(), 0755) == 0);
        FILE *maps = fopen((proc + "/100/maps").c_str(), "w");
        QVERIFY(maps);
        fputs(
            "55d0c0000000-55d0c0001000 r--p 00000000 fd:01 1234567                    /usr/bin/x\n"
            "7f0000000000-7f0000001000 rw-p 00000000 00:00 0 \n"
            "7f0000002000-7f0000003000 r--s 00000000 103:02 42                     /data/file with spaces\n",
            maps);
        fclose(maps);
        const std::shared_ptr<const MappedFiles> mapped = MappedFiles::scan(proc);
        QCOMPARE(mapped->size(), size_t(2));
        QVERIFY(mapped->contains(makedev(0xfd, 0x01), 1234567));
        QVERIFY(mapped->contains(makedev(0x103, 0x02), 42));
        QVERIFY(!mapped->contains(makedev(0xfd, 0x01), 42));
        QVERIFY(!mapped->contains(0, 0));
        QCOMPARE(MappedFiles::scan(proc + "/missing")->size(), size_t(0));
    }

    void tmpfsPagesCannotBeEvicted()
    {
        std::string tmpfsDir;
        for (const char *candidate : {"/dev/shm", "/run"}) {
            struct statfs fs;
            if (statfs(candidate, &fs) == 0 && static_cast<unsigned long>(fs.f_type) == TMPFS_MAGIC && access(candidate, W_OK) == 0) {
                tmpfsDir = candidate;
                break;
            }
        }
        if (tmpfsDir.empty()) {
            QSKIP("no writable tmpfs at /dev/shm or /run");
        }
        const std::string path = tmpfsDir + "/cachescope-evictloadtest-" + std::to_string(getpid());
        const auto cleanup = qScopeGuard([&] {
            unlink(path.c_str());
        });
        {
            OpenFile writer(path, O_WRONLY | O_CREAT | O_TRUNC);
            QVERIFY(writer.fd >= 0);
            std::vector<char> data(16 * page, 'y');
            QCOMPARE(pwrite(writer.fd, data.data(), data.size(), 0), ssize_t(data.size()));
        }
        OpenFile file(path);
        QVERIFY(isMemoryBackedFilesystem(file.fd));
        const EvictReport report = evictDescriptor(file.fd, file.st, {}, nullptr);
        QCOMPARE(report.error, 0);
        QCOMPARE(report.after, uint64_t(16));
        QCOMPARE(report.reason, RemainReason::Shmem);
        QVERIFY(remainReasonText(report.reason).find("tmpfs") != std::string::npos);

        OpenFile onDisk(pathFor("warm"));
        QVERIFY(onDisk.fd >= 0);
        QVERIFY(!isMemoryBackedFilesystem(onDisk.fd));
    }

    void hiddenFileIsStillEvicted()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev");
        }
        // Root's file, readable by all: the test user may evict it but is
        // not told its residency.
        const std::string path = pathFor("hidden");
        TestUtil::makeColdFile(path, 32 * page);
        QCOMPARE(chmod(path.c_str(), 0644), 0);
        TestUtil::readRange(path, 0, 32 * page);
        QCOMPARE(residentPages(path), uint64_t(32));

        struct Answer {
            bool opened;
            bool hidden;
            RemainReason reason;
            int error;
        };
        QString failure;
        const std::optional<Answer> answer = TestUtil::valueFromChild<Answer>(
            [&path] {
                const int fd = open(path.c_str(), O_RDONLY);
                struct stat st;
                if (fd < 0 || fstat(fd, &st) != 0) {
                    return Answer{false, false, RemainReason::None, errno};
                }
                const EvictReport report = evictDescriptor(fd, st, {}, nullptr);
                close(fd);
                return Answer{true, report.hidden, report.reason, report.error};
            },
            *uid,
            &failure,
            20000);
        QVERIFY2(answer, qPrintable(failure));
        QVERIFY(answer->opened);
        QCOMPARE(answer->hidden, true);
        QCOMPARE(answer->reason, RemainReason::Hidden);
        QCOMPARE(answer->error, 0);
        // Root sees the truth: the eviction did run.
        QCOMPARE(residentPages(path), uint64_t(0));
    }

    void loadsExactlyTheRange_data()
    {
        QTest::addColumn<int>("method");
        QTest::addColumn<qulonglong>("offset");
        QTest::addColumn<qulonglong>("length");
        QTest::addColumn<qulonglong>("firstPage");
        QTest::addColumn<qulonglong>("pageCount");
        // A file of 8 MiB plus 1000 bytes: 2049 pages with 4 KiB pages.
        const uint64_t pages = (uint64_t(8 << 20) + 1000 + page - 1) / page;
        for (const auto &[method, name] : {std::pair{LoadMethod::Readahead, "readahead"}, std::pair{LoadMethod::Read, "read"}}) {
            const auto row = [&](const char *what, uint64_t offset, uint64_t length, uint64_t first, uint64_t count) {
                QTest::addRow("%s: %s", name, what) << int(method) << qulonglong(offset) << qulonglong(length) << qulonglong(first) << qulonglong(count);
            };
            row("one page", 7 * page, page, 7, 1);
            row("a few pages", 3 * page, 5 * page, 3, 5);
            row("unaligned", page + 5, 2 * page, 1, 3);
            row("across chunks", 1 << 20, 5 << 20, (1 << 20) / page, (5 << 20) / page);
            row("the tail to the end", 6 << 20, 0, (6 << 20) / page, pages - (6 << 20) / page);
            row("the whole file", 0, 0, 0, pages);
            row("past the end", 9 << 20, page, 0, 0);
        }
    }

    void loadsExactlyTheRange()
    {
        QFETCH(int, method);
        QFETCH(qulonglong, offset);
        QFETCH(qulonglong, length);
        QFETCH(qulonglong, firstPage);
        QFETCH(qulonglong, pageCount);
        const std::string path = pathFor("load");
        const uint64_t size = uint64_t(8 << 20) + 1000;
        const uint64_t pages = (size + page - 1) / page;
        TestUtil::makeColdFile(path, size);
        QCOMPARE(residentPages(path), uint64_t(0));

        OpenFile file(path);
        LoadOptions options;
        options.offset = offset;
        options.length = length;
        options.method = LoadMethod(method);
        uint64_t lastProgress = 0;
        int calls = 0;
        options.progress = [&](uint64_t done) {
            QVERIFY(done > lastProgress);
            lastProgress = done;
            ++calls;
        };
        const LoadReport report = loadDescriptor(file.fd, file.st, options);
        QCOMPARE(report.error, 0);
        QVERIFY(!report.truncated);
        QVERIFY(!report.cancelled);
        QCOMPARE(report.pages, pageCount);
        QCOMPARE(report.before, uint64_t(0));
        QCOMPARE(report.after, pageCount);
        QCOMPARE(report.bytesDone, report.bytesRequested);
        QCOMPARE(lastProgress, report.bytesDone);
        QVERIFY(report.bytesRequested == 0 || calls >= 1);
        // Exactly these pages, not one read ahead.
        const QString cached = cachedExactly(path, pages, firstPage, pageCount);
        QVERIFY2(cached.isEmpty(), qPrintable(cached));
        waitForPendingReads(path);
        if (const auto fincore = TestUtil::fincoreResidentPages(path)) {
            const QString mismatch = TestUtil::residencyFigureMismatch(TestUtil::pagesNow(path), *fincore, pageCount);
            QVERIFY2(mismatch.isEmpty(), qPrintable(QStringLiteral("fincore: ") + mismatch));
        }
    }

    void rawReadaheadReadsWhatItIsAsked()
    {
        // Not our code: records what the kernel's readahead(2) does with one
        // big call, which is why loadDescriptor calls it in small steps and
        // checks each chunk.
        const std::string path = pathFor("raw");
        TestUtil::makeColdFile(path, 4 << 20);
        OpenFile file(path);
        posix_fadvise(file.fd, 0, 0, POSIX_FADV_RANDOM);
        QCOMPARE(readahead(file.fd, page * 3, 5 * page), 0);
        const QString cached = cachedExactly(path, (4 << 20) / page, 3, 5);
        QVERIFY2(cached.isEmpty(), qPrintable(cached));
        TestUtil::evictRaw(path);
        QCOMPARE(readahead(file.fd, 0, 2 << 20), 0);
        qInfo("one readahead(2) call of 2 MiB put %llu of %llu pages in the cache",
              qulonglong(TestUtil::pagesNow(path).residentOrReclaimed()),
              qulonglong((2 << 20) / page));
    }

    void loadCancelsBetweenChunks_data()
    {
        QTest::addColumn<int>("method");
        QTest::newRow("readahead") << int(LoadMethod::Readahead);
        QTest::newRow("read") << int(LoadMethod::Read);
    }

    void loadCancelsBetweenChunks()
    {
        QFETCH(int, method);
        const std::string path = pathFor("cancel");
        TestUtil::makeColdFile(path, 16 << 20);
        OpenFile file(path);
        std::atomic<bool> cancel = false;
        LoadOptions options;
        options.method = LoadMethod(method);
        options.cancel = &cancel;
        options.progress = [&](uint64_t) {
            cancel = true;
        };
        const LoadReport report = loadDescriptor(file.fd, file.st, options);
        QVERIFY(report.cancelled);
        QCOMPARE(report.error, 0);
        QCOMPARE(report.bytesRequested, uint64_t(16 << 20));
        QCOMPARE(report.bytesDone, uint64_t(2 << 20));
        // The first chunk and nothing more.
        QCOMPARE(report.after, uint64_t(2 << 20) / page);
        const QString cached = cachedExactly(path, (16 << 20) / page, 0, (2 << 20) / page);
        QVERIFY2(cached.isEmpty(), qPrintable(cached));

        // Cancelled before it starts: nothing is read.
        TestUtil::evictRaw(path);
        const LoadReport none = loadDescriptor(file.fd, file.st, options);
        QVERIFY(none.cancelled);
        QCOMPARE(none.bytesDone, uint64_t(0));
        QCOMPARE(residentPages(path), uint64_t(0));
    }

    void loadReportsTruncation_data()
    {
        loadCancelsBetweenChunks_data();
    }

    void loadReportsTruncation()
    {
        QFETCH(int, method);
        const std::string path = pathFor("truncate");
        TestUtil::makeColdFile(path, 16 << 20);
        OpenFile file(path);
        LoadOptions options;
        options.method = LoadMethod(method);
        bool truncatedOnce = false;
        options.progress = [&](uint64_t) {
            if (!truncatedOnce) {
                truncatedOnce = true;
                QCOMPARE(truncate(path.c_str(), 3 << 20), 0);
            }
        };
        const LoadReport report = loadDescriptor(file.fd, file.st, options);
        QVERIFY(report.truncated);
        QVERIFY(!report.cancelled);
        QCOMPARE(report.error, 0);
        QVERIFY2(report.errorText.find("shrank") != std::string::npos, report.errorText.c_str());
        QCOMPARE(report.bytesDone, uint64_t(3 << 20));
        QCOMPARE(TestUtil::pagesNow(path).residentOrReclaimed(), uint64_t(3 << 20) / page);
    }

    void evictsFolderThroughWalker()
    {
        const std::string dir = TestUtil::scratchDir("evictload-tree");
        QCOMPARE(mkdir((dir + "/sub").c_str(), 0755), 0);
        const std::vector<std::pair<std::string, uint64_t>> files = {{dir + "/a", 40 * page},
                                                                     {dir + "/b", 3 * page + 7},
                                                                     {dir + "/sub/c", 100 * page},
                                                                     {dir + "/empty", 0}};
        uint64_t total = 0;
        for (const auto &[path, size] : files) {
            TestUtil::makeColdFile(path, size);
            TestUtil::readRange(path, 0, size);
            total += (size + page - 1) / page;
        }
        WalkOptions options;
        options.action = FileAction::Evict;
        Walker walker(options);
        const WalkResult result = walker.walk({dir});
        QCOMPARE(result.total.files, uint64_t(files.size()));
        QCOMPARE(result.total.resident, total);
        QCOMPARE(result.total.residentAfter, uint64_t(0));
        QCOMPARE(result.total.errors, uint64_t(0));
        for (const auto &[path, size] : files) {
            QCOMPARE(residentPages(path), uint64_t(0));
        }
    }
};

QTEST_GUILESS_MAIN(EvictloadTest)
#include "evictloadtest.moc"
