// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The replay of a trace on the real kernel, with real files in a disk-backed
// folder: it reads exactly the traced pages (the page cache afterwards equals
// the trace), its disk order follows FIEMAP's fe_physical, and files that
// changed or vanished since the trace are refused or skipped, each named,
// never read. Reports are built here in code for real files (the trace
// engine's own tests make them from the kernel's events).

#include "testutil.h"

#include "experiments/engines.h"
#include "residency.h"
#include "trace/fiemap.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <set>

using namespace Cachescope;
using namespace Cachescope::Experiments;

namespace
{

const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));

// The file as the trace engine records it.
Trace::File tracedFile(const std::string &path)
{
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
        qFatal("stat %s failed", path.c_str());
    }
    Trace::File file;
    file.path = path;
    file.major = major(st.st_dev);
    file.minor = minor(st.st_dev);
    file.inode = st.st_ino;
    file.sizeBytes = uint64_t(st.st_size);
    file.modifiedNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    return file;
}

Trace::Extent extent(int file, uint64_t firstPage, uint64_t pageCount)
{
    Trace::Extent e;
    e.file = file;
    e.firstPage = firstPage;
    e.pageCount = pageCount;
    return e;
}

// Resident pages by mincore, here, not through the code under test.
std::set<uint64_t> residentPagesOf(const std::string &path)
{
    std::set<uint64_t> pages;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_size == 0) {
        if (fd >= 0) {
            ::close(fd);
        }
        return pages;
    }
    void *map = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) {
        return pages;
    }
    std::vector<unsigned char> vector((size_t(st.st_size) + page - 1) / page);
    if (::mincore(map, size_t(st.st_size), vector.data()) == 0) {
        for (size_t i = 0; i < vector.size(); ++i) {
            if (vector[i] & 1) {
                pages.insert(i);
            }
        }
    }
    ::munmap(map, size_t(st.st_size));
    return pages;
}

std::set<uint64_t> pagesOfExtents(const Trace::Report &report, int file)
{
    std::set<uint64_t> pages;
    for (const Trace::Extent &e : report.extents) {
        if (e.file == file) {
            for (uint64_t p = e.firstPage; p < e.firstPage + e.pageCount; ++p) {
                pages.insert(p);
            }
        }
    }
    return pages;
}

// Each page's device byte, from FS_IOC_FIEMAP here (not the code under test).
std::map<uint64_t, uint64_t> physicalOfPages(const std::string &path)
{
    std::map<uint64_t, uint64_t> physical;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    std::vector<char> buffer(sizeof(struct fiemap) + 256 * sizeof(struct fiemap_extent));
    auto *request = reinterpret_cast<struct fiemap *>(buffer.data());
    request->fm_start = 0;
    request->fm_length = FIEMAP_MAX_OFFSET;
    request->fm_flags = FIEMAP_FLAG_SYNC;
    request->fm_extent_count = 256;
    if (fd >= 0 && ::ioctl(fd, FS_IOC_FIEMAP, request) == 0) {
        for (uint32_t i = 0; i < request->fm_mapped_extents; ++i) {
            const struct fiemap_extent &e = request->fm_extents[i];
            for (uint64_t at = 0; at < e.fe_length; at += page) {
                physical[(e.fe_logical + at) / page] = e.fe_physical + at;
            }
        }
    }
    if (fd >= 0) {
        ::close(fd);
    }
    return physical;
}

// Reclaimed pages (cachestat's evicted count) of a file, for checks that come
// a moment after the pages were read.
uint64_t reclaimedPages(const std::string &path)
{
    return TestUtil::pagesNow(path).reclaimed;
}

QJsonObject fileEntry(const Result &result, const std::string &path)
{
    for (const QJsonValue &value : result.details.value(QStringLiteral("traced_files")).toArray()) {
        if (value.toObject().value(QStringLiteral("path")).toString().toStdString() == path) {
            return value.toObject();
        }
    }
    return {};
}

bool anyEventNames(const Result &result, const std::string &what, const std::string &path)
{
    for (const Event &event : result.events) {
        if (event.text.find(path) != std::string::npos && event.text.find(what) != std::string::npos) {
            return true;
        }
    }
    return false;
}

Result replay(const Trace::Report &report, int runs = 1)
{
    ReplayParameters p;
    p.report = report;
    p.runs = runs;
    p.checkColdStart = false;
    std::atomic<bool> cancel{false};
    return makeReplayExperiment(p)->run({}, cancel);
}

} // namespace

class ReplayTest : public QObject
{
    Q_OBJECT

private:
    std::string m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        m_dir = TestUtil::scratchDir("replaytest");
    }

    // The pages cached after the replay are exactly the traced ones: no
    // readahead around them, none missing, in every order; a partial last
    // page included.
    void readsExactlyTheTracedPages()
    {
        const std::string a = m_dir + "/exact-a";
        const std::string b = m_dir + "/exact-b";
        TestUtil::makeColdFile(a, 4 << 20);
        TestUtil::makeColdFile(b, (1 << 20) + 100);
        Trace::Report report;
        report.files = {tracedFile(a), tracedFile(b)};
        report.extents = {extent(0, 0, 4), extent(1, 10, 5), extent(0, 100, 20), extent(0, 200, 1), extent(1, 256, 1), extent(0, 600, 64)};
        const Result result = replay(report, 2);
        // Right away: the kernel pages out idle pages on its own.
        const std::set<uint64_t> residentA = residentPagesOf(a);
        const std::set<uint64_t> residentB = residentPagesOf(b);
        QVERIFY2(result.ok(), result.error.c_str());
        for (const auto &[path, resident, file] : {std::tuple{a, residentA, 0}, std::tuple{b, residentB, 1}}) {
            const std::set<uint64_t> expected = pagesOfExtents(report, file);
            std::vector<uint64_t> extra;
            std::set_difference(resident.begin(), resident.end(), expected.begin(), expected.end(), std::back_inserter(extra));
            std::vector<uint64_t> missing;
            std::set_difference(expected.begin(), expected.end(), resident.begin(), resident.end(), std::back_inserter(missing));
            QVERIFY2(extra.empty(),
                     qPrintable(QStringLiteral("%1: %2 pages cached beyond the trace (readahead?), first %3")
                                    .arg(QString::fromStdString(path))
                                    .arg(extra.size())
                                    .arg(extra.empty() ? 0 : extra.front())));
            QVERIFY2(missing.size() <= reclaimedPages(path),
                     qPrintable(QStringLiteral("%1: %2 traced pages not cached").arg(QString::fromStdString(path)).arg(missing.size())));
        }
        // The engine checks the same after every run of every order.
        for (const char *order : {"recorded order", "file order", "disk order"}) {
            const VariantResult *v = result.variant(order);
            QVERIFY2(v, order);
            QCOMPARE(v->runs.size(), 2);
            QCOMPARE(v->find("seconds")->values.size(), size_t(2));
            QVERIFY(v->find("throughput")->statistics.mean > 0);
            for (const QJsonValue &run : v->runs) {
                QCOMPARE(run.toObject().value(QStringLiteral("pages_outside_trace")).toDouble(), 0.0);
                QCOMPARE(run.toObject().value(QStringLiteral("bytes")).toDouble(), double((4 + 20 + 1 + 64 + 5) * page + 100));
            }
        }
        // Adjacent pages of one file are one read in file order.
        const QJsonArray byFile = result.details.value(QStringLiteral("reads")).toObject().value(QStringLiteral("file_order")).toArray();
        QCOMPARE(byFile.size(), 6);
    }

    // Pages another process maps stay after the eviction: the replay says
    // so (an event naming why, stayed_after_evict) and does not count them
    // as pages it read beyond the trace.
    void mappedPagesStayAndAreSaid()
    {
        const std::string a = m_dir + "/mapped-a";
        TestUtil::makeColdFile(a, 1 << 20);
        TestUtil::HeldPages held(a, 64 * page, 16 * page);
        Trace::Report report;
        report.files = {tracedFile(a)};
        report.extents = {extent(0, 0, 8)};
        const Result result = replay(report);
        const std::set<uint64_t> resident = residentPagesOf(a);
        QVERIFY2(result.ok(), result.error.c_str());
        for (uint64_t p = 64; p < 80; ++p) {
            QVERIFY(resident.count(p));
        }
        const VariantResult *v = result.variant("disk order");
        QVERIFY(v);
        const QJsonObject run = v->runs.at(0).toObject();
        QCOMPARE(run.value(QStringLiteral("stayed_after_evict")).toDouble(), 16.0);
        QCOMPARE(run.value(QStringLiteral("pages_outside_trace")).toDouble(), 0.0);
        QCOMPARE(run.value(QStringLiteral("pages_missing")).toDouble(), 0.0);
        bool said = false;
        for (const Event &event : result.events) {
            said = said || (event.text.find("16 pages stayed") != std::string::npos && event.text.find("16 mapped") != std::string::npos);
        }
        QVERIFY2(said, "no event says that 16 mapped pages stayed");
    }

    // Two files written in turns, page by page: on the disk their pages
    // alternate, so the disk order alternates between the files where the
    // file order reads one, then the other; it follows fe_physical.
    void diskOrderFollowsThePhysicalPosition()
    {
        std::string a;
        std::string b;
        std::map<uint64_t, uint64_t> physicalA;
        std::map<uint64_t, uint64_t> physicalB;
        // The premise: some page of b lies between two pages of a on the
        // disk. ext4 serves small files from a per-CPU preallocation, so the
        // writer keeps to one CPU; a pair the allocator still placed apart
        // (another writer took the space between) is made again, a few times.
        cpu_set_t previousCpus;
        QCOMPARE(sched_getaffinity(0, sizeof previousCpus, &previousCpus), 0);
        cpu_set_t oneCpu;
        CPU_ZERO(&oneCpu);
        CPU_SET(sched_getcpu(), &oneCpu);
        QCOMPARE(sched_setaffinity(0, sizeof oneCpu, &oneCpu), 0);
        bool interleaved = false;
        for (int attempt = 0; attempt < 8 && !interleaved; ++attempt) {
            a = m_dir + "/interleaved-a" + std::to_string(attempt);
            b = m_dir + "/interleaved-b" + std::to_string(attempt);
            const int fa = ::open(a.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            const int fb = ::open(b.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            QVERIFY(fa >= 0 && fb >= 0);
            const std::vector<char> data(page, 'x');
            for (int i = 0; i < 12; ++i) {
                for (int fd : {fa, fb}) {
                    QCOMPARE(::write(fd, data.data(), data.size()), ssize_t(data.size()));
                    QCOMPARE(::fsync(fd), 0);
                }
            }
            ::close(fa);
            ::close(fb);
            TestUtil::evictRaw(a);
            TestUtil::evictRaw(b);
            physicalA = physicalOfPages(a);
            physicalB = physicalOfPages(b);
            QCOMPARE(physicalA.size(), size_t(12));
            QCOMPARE(physicalB.size(), size_t(12));
            for (const auto &[index, position] : physicalB) {
                interleaved = interleaved || (position > physicalA.begin()->second && position < physicalA.rbegin()->second);
            }
        }
        QCOMPARE(sched_setaffinity(0, sizeof previousCpus, &previousCpus), 0);
        QVERIFY2(interleaved, "the file system placed the two files apart eight times: the premise of this test does not hold");

        Trace::Report report;
        report.files = {tracedFile(a), tracedFile(b)};
        report.extents = {extent(1, 0, 12), extent(0, 0, 12)};
        const Result result = replay(report);
        const std::set<uint64_t> residentA = residentPagesOf(a);
        const std::set<uint64_t> residentB = residentPagesOf(b);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(residentA.size() + reclaimedPages(a), size_t(12));
        QCOMPARE(residentB.size() + reclaimedPages(b), size_t(12));
        QVERIFY(result.details.value(QStringLiteral("disk_order_differs")).toBool());

        const QJsonObject reads = result.details.value(QStringLiteral("reads")).toObject();
        const QJsonArray recorded = reads.value(QStringLiteral("recorded_order")).toArray();
        const QJsonArray byFile = reads.value(QStringLiteral("file_order")).toArray();
        const QJsonArray byDisk = reads.value(QStringLiteral("disk_order")).toArray();
        QCOMPARE(recorded.size(), 2); // b, then a: as the trace has them
        QCOMPARE(recorded.at(0).toObject().value(QStringLiteral("file")).toInt(), 1);
        QCOMPARE(byFile.size(), 2); // a, then b
        QCOMPARE(byFile.at(0).toObject().value(QStringLiteral("file")).toInt(), 0);
        QVERIFY2(byDisk.size() > 2, "the disk order should switch between the files");
        double lastPhysical = -1;
        uint64_t bytes = 0;
        for (const QJsonValue &value : byDisk) {
            const QJsonObject read = value.toObject();
            const int file = read.value(QStringLiteral("file")).toInt();
            const uint64_t offset = uint64_t(read.value(QStringLiteral("offset")).toDouble());
            const uint64_t length = uint64_t(read.value(QStringLiteral("length")).toDouble());
            QVERIFY(!read.value(QStringLiteral("physical")).isNull());
            const double physical = read.value(QStringLiteral("physical")).toDouble();
            // Where FIEMAP, asked here, puts the read's first page, and in ascending order.
            QCOMPARE(physical, double((file == 0 ? physicalA : physicalB).at(offset / page)));
            QVERIFY2(physical > lastPhysical, "the disk order is not sorted by physical position");
            lastPhysical = physical;
            bytes += length;
        }
        QCOMPARE(bytes, 24 * page);
    }

    // A file modified or replaced since the trace is refused and a vanished
    // one skipped: each named with its reason, and none of their pages read.
    void changedFilesRefusedVanishedSkipped()
    {
        const std::string good = m_dir + "/changed-good";
        const std::string touched = m_dir + "/changed-touched";
        const std::string replaced = m_dir + "/changed-replaced";
        const std::string vanished = m_dir + "/changed-vanished";
        for (const std::string &path : {good, touched, replaced, vanished}) {
            TestUtil::makeColdFile(path, 256 << 10);
        }
        Trace::Report report;
        report.files = {tracedFile(good), tracedFile(touched), tracedFile(replaced), tracedFile(vanished)};
        for (int i = 0; i < 4; ++i) {
            report.extents.push_back(extent(i, 0, 16));
        }
        // The same size, a later mtime: changed all the same.
        const struct timespec later[2] = {{0, UTIME_OMIT}, {2000000000, 0}};
        QCOMPARE(::utimensat(AT_FDCWD, touched.c_str(), later, 0), 0);
        // Another file under the same name, of the same size.
        TestUtil::makeColdFile(replaced + ".new", 256 << 10);
        QCOMPARE(::rename((replaced + ".new").c_str(), replaced.c_str()), 0);
        QCOMPARE(::unlink(vanished.c_str()), 0);

        const Result result = replay(report);
        const std::set<uint64_t> residentTouched = residentPagesOf(touched);
        const std::set<uint64_t> residentReplaced = residentPagesOf(replaced);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(fileEntry(result, good).value(QStringLiteral("state")).toString(), QStringLiteral("replayed"));
        const QJsonObject touchedEntry = fileEntry(result, touched);
        QCOMPARE(touchedEntry.value(QStringLiteral("state")).toString(), QStringLiteral("refused"));
        QVERIFY2(touchedEntry.value(QStringLiteral("reason")).toString().contains(QStringLiteral("modified")),
                 qPrintable(touchedEntry.value(QStringLiteral("reason")).toString()));
        const QJsonObject replacedEntry = fileEntry(result, replaced);
        QCOMPARE(replacedEntry.value(QStringLiteral("state")).toString(), QStringLiteral("refused"));
        QVERIFY2(replacedEntry.value(QStringLiteral("reason")).toString().contains(QStringLiteral("inode")),
                 qPrintable(replacedEntry.value(QStringLiteral("reason")).toString()));
        const QJsonObject vanishedEntry = fileEntry(result, vanished);
        QCOMPARE(vanishedEntry.value(QStringLiteral("state")).toString(), QStringLiteral("skipped"));
        QVERIFY2(vanishedEntry.value(QStringLiteral("reason")).toString().contains(QStringLiteral("vanished")),
                 qPrintable(vanishedEntry.value(QStringLiteral("reason")).toString()));
        QVERIFY(anyEventNames(result, "refused", touched));
        QVERIFY(anyEventNames(result, "refused", replaced));
        QVERIFY(anyEventNames(result, "skipped", vanished));
        const QJsonObject leftOut = result.details.value(QStringLiteral("pages_left_out")).toObject();
        QCOMPARE(leftOut.value(QStringLiteral("refused")).toDouble(), 32.0);
        QCOMPARE(leftOut.value(QStringLiteral("skipped")).toDouble(), 16.0);
        // Never read wrongly: nothing of the changed files came into the cache.
        QVERIFY2(residentTouched.empty(), "a refused file was read");
        QVERIFY2(residentReplaced.empty(), "a refused file was read");
        // Only the good file's pages are in the plans.
        for (const QJsonValue &read : result.details.value(QStringLiteral("reads")).toObject().value(QStringLiteral("disk_order")).toArray()) {
            QCOMPARE(read.toObject().value(QStringLiteral("file")).toInt(), 0);
        }
    }

    // Nothing left to replay: a clear error, no run.
    void nothingToReplay()
    {
        const std::string gone = m_dir + "/nothing-gone";
        TestUtil::makeColdFile(gone, 64 << 10);
        Trace::Report report;
        report.files = {tracedFile(gone)};
        report.extents = {extent(0, 0, 4)};
        Trace::File metadata;
        metadata.metadata = true;
        metadata.major = 0;
        metadata.minor = 3;
        metadata.inode = 254 << 20;
        report.files.push_back(metadata);
        report.extents.push_back(extent(1, 1000, 8));
        QCOMPARE(::unlink(gone.c_str()), 0);
        const Result result = replay(report);
        QVERIFY(!result.error.empty());
        QVERIFY2(QString::fromStdString(result.error).contains(QStringLiteral("nothing to replay")), result.error.c_str());
        QVERIFY(result.variants.empty());
        QCOMPARE(result.details.value(QStringLiteral("pages_left_out")).toObject().value(QStringLiteral("metadata")).toDouble(), 8.0);
        QVERIFY(anyEventNames(result, "vanished", gone));

        const Result empty = replay(Trace::Report{});
        QVERIFY2(QString::fromStdString(empty.error).contains(QStringLiteral("no extents")), empty.error.c_str());
    }

    // A user the kernel hides the file's residency from (not the owner, may
    // not write it) still replays it, but the check says "hidden" (null),
    // never a number.
    void hiddenResidencyIsNull()
    {
        const std::optional<uint32_t> user = TestUtil::testUserUid();
        if (!user) {
            QSKIP("needs root and the test user of tools/dev (cachescope-user)");
        }
        ::chmod(m_dir.c_str(), 0755);
        const std::string a = m_dir + "/hidden-a";
        TestUtil::makeColdFile(a, 256 << 10);
        QCOMPARE(::chmod(a.c_str(), 0644), 0);
        Trace::Report report;
        report.files = {tracedFile(a)};
        report.extents = {extent(0, 0, 8)};
        const TestUtil::ChildResult child = TestUtil::runInChild(
            [&report] {
                const Result result = replay(report);
                const VariantResult *v = result.variant("disk order");
                return v && result.ok() ? QJsonDocument(v->runs.at(0).toObject()).toJson(QJsonDocument::Compact) : QByteArray(result.error.c_str());
            },
            *user);
        QVERIFY2(child.ok, qPrintable(child.failure));
        const QJsonObject run = QJsonDocument::fromJson(child.output).object();
        QVERIFY2(!run.isEmpty(), child.output.constData());
        QCOMPARE(run.value(QStringLiteral("files_hidden")).toInt(), 1);
        QVERIFY(run.value(QStringLiteral("pages_outside_trace")).isNull());
        QVERIFY(run.value(QStringLiteral("pages_missing")).isNull());
        QVERIFY(run.value(QStringLiteral("stayed_after_evict")).isNull());
        // The reads were made all the same, as the user: exactly the traced pages.
        const std::set<uint64_t> resident = residentPagesOf(a);
        QCOMPARE(resident.size() + reclaimedPages(a), size_t(8));
        QVERIFY(resident.empty() || *resident.rbegin() < 8);
    }

    // drop_caches needs the helper: without one the replay says so and reads nothing.
    void dropCachesWithoutHelperIsRefused()
    {
        const std::string a = m_dir + "/drop-a";
        TestUtil::makeColdFile(a, 64 << 10);
        ReplayParameters p;
        p.report.files = {tracedFile(a)};
        p.report.extents = {extent(0, 0, 4)};
        p.dropCaches = true;
        p.checkColdStart = false;
        std::atomic<bool> cancel{false};
        const Result result = makeReplayExperiment(p)->run({}, cancel);
        QVERIFY2(QString::fromStdString(result.error).contains(QStringLiteral("privileged helper")), result.error.c_str());
        QVERIFY(result.variants.empty());
        QVERIFY(residentPagesOf(a).empty());
    }

    // Cancel during the reads: the engine returns at once, cancelled, with
    // the runs it finished.
    void cancelStopsTheReplay()
    {
        const std::string a = m_dir + "/cancel-a";
        TestUtil::makeColdFile(a, 8 << 20);
        Trace::Report report;
        report.files = {tracedFile(a)};
        report.extents = {extent(0, 0, 2048)};
        ReplayParameters p;
        p.report = report;
        p.runs = 50;
        p.checkColdStart = false;
        std::atomic<bool> cancel{false};
        Progress progress;
        progress.event = [&cancel](const Event &event) {
            if (event.text.find("run 2 of") != std::string::npos) {
                cancel = true;
            }
        };
        const Result result = makeReplayExperiment(p)->run(progress, cancel);
        QVERIFY(result.cancelled);
        // The runs done before the cancel are kept, partial; no further run began.
        QCOMPARE(result.variants.size(), size_t(3));
        for (const VariantResult &v : result.variants) {
            QVERIFY(v.runs.size() <= 2);
        }
        QVERIFY(!result.variant("cold start"));
    }

    // The seed's check: a real cold start of the traced command against the
    // replayed I/O plus its warm start.
    void checksAgainstAColdStart()
    {
        const std::string a = m_dir + "/check-a";
        TestUtil::makeColdFile(a, 1 << 20);
        Trace::Report report;
        report.command = {"cat", a};
        report.files = {tracedFile(a)};
        report.extents = {extent(0, 0, 256)};
        ReplayParameters p;
        p.report = report;
        p.runs = 2;
        std::atomic<bool> cancel{false};
        const Result result = makeReplayExperiment(p)->run({}, cancel);
        QVERIFY2(result.ok(), result.error.c_str());
        const VariantResult *coldStart = result.variant("cold start");
        QVERIFY(coldStart);
        QCOMPARE(coldStart->find("cold_seconds")->values.size(), size_t(2));
        const QJsonObject check = result.details.value(QStringLiteral("check")).toObject();
        for (const char *key : {"cold_seconds", "warm_seconds", "replayed_seconds", "replayed_plus_warm_seconds", "difference_seconds", "difference_percent"}) {
            QVERIFY2(check.contains(QLatin1String(key)), key);
        }
        QCOMPARE(check.value(QStringLiteral("replayed_plus_warm_seconds")).toDouble(),
                 check.value(QStringLiteral("replayed_seconds")).toDouble() + check.value(QStringLiteral("warm_seconds")).toDouble());
    }

    // FIEMAP on tmpfs says it has none, and says so in words.
    void fiemapWhereThereIsNone()
    {
        const int fd = ::open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            QSKIP("/dev/shm is not there");
        }
        const int file = ::openat(fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        ::close(fd);
        QVERIFY(file >= 0);
        QCOMPARE(::write(file, "x", 1), ssize_t(1));
        const Trace::FileMap map = Trace::fileMapOfDescriptor(file);
        ::close(file);
        QVERIFY(!map.supported);
        QVERIFY(map.unsupported);
        QVERIFY2(QString::fromStdString(map.errorText).contains(QStringLiteral("no FIEMAP")), map.errorText.c_str());
        QVERIFY(!map.physicalOf(0));
    }
};

QTEST_GUILESS_MAIN(ReplayTest)

#include "replaytest.moc"
