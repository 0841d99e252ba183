// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The trace's data: the trace file's JSON (round trip, bad input refused
// with a sentence) and the analysis of kernel events built in code (folios,
// extents, asked-for against readahead, the file system's metadata, unnamed
// inodes, the fallback's residency difference). The trace engine on the
// real kernel is traceenginetest's.

#include "residency.h"
#include "testutil.h"
#include "trace/traceanalysis.h"
#include "trace/tracereport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

using namespace Cachescope;
using namespace Cachescope::Trace;

namespace
{
RawEvent filemapEvent(EventKind kind, uint64_t timeUs, const struct stat &st, uint64_t firstPage, uint64_t pageCount)
{
    RawEvent event;
    event.kind = kind;
    event.timeNs = timeUs * 1000;
    event.major = ::major(st.st_dev);
    event.minor = ::minor(st.st_dev);
    event.inode = st.st_ino;
    event.firstPage = firstPage;
    event.pageCount = pageCount;
    return event;
}

// A folio of 2^order pages, as the parser hands it on.
RawEvent added(uint64_t timeUs, const struct stat &st, uint64_t firstPage, int order = 0)
{
    return filemapEvent(EventKind::Added, timeUs, st, firstPage, 1ULL << order);
}

struct stat statOf(const std::string &path)
{
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0) {
        qFatal("cannot stat %s", path.c_str());
    }
    return st;
}
} // namespace

class TraceTest : public QObject
{
    Q_OBJECT

private:
    static Report sampleReport()
    {
        Report report;
        report.method = Method::Tracefs;
        report.command = {"/bin/cat", "a file"};
        report.durationSeconds = 0.25;
        report.exitStatus = 0;
        report.usageKnown = true;
        report.lostEvents = 3;
        report.endReason = "exited";
        File named;
        named.path = std::string("/srv/caf\xe9", 9); // not UTF-8: survives through path_base64
        named.major = 254;
        named.inode = 0x3c529;
        named.sizeBytes = 1 << 20;
        named.modifiedNs = 1795432512123456789; // beyond a double's exact integers
        named.pagesAdded = 22;
        named.pagesAsked = 16;
        File metadata;
        metadata.path = "/dev/vda";
        metadata.minor = 3;
        metadata.inode = 254ULL << 20;
        metadata.metadata = true;
        metadata.pagesAdded = 1;
        File unnamed;
        unnamed.major = 254;
        unnamed.inode = 77;
        unnamed.pagesAdded = 2;
        report.files = {named, metadata, unnamed};
        report.extents = {{1, 1092, 1, 0.001, 0.001, 0}, {0, 0, 4, 0.002, 0.002, 4}, {0, 4, 18, 0.003, 0.004, 12}, {2, 0, 2, 0.005, 0.005, 2}};
        report.requests = {{0.0021, 254, 0, 12580504, 16384, "RA"}};
        report.notes = {"a note"};
        return report;
    }

    static QJsonObject sampleJson()
    {
        return reportToJson(sampleReport());
    }

    static QString refusal(const QJsonObject &object)
    {
        std::string error;
        const std::optional<Report> report = reportFromJson(object, &error);
        return report ? QString() : QString::fromStdString(error);
    }

private Q_SLOTS:
    void jsonRoundTrip()
    {
        const Report original = sampleReport();
        const QByteArray bytes = QJsonDocument(reportToJson(original)).toJson();
        std::string error;
        const std::optional<Report> back = reportFromJsonBytes(bytes, &error);
        QVERIFY2(back, error.c_str());
        QCOMPARE(back->method, original.method);
        QCOMPARE(back->command, original.command);
        QCOMPARE(back->durationSeconds, original.durationSeconds);
        QCOMPARE(back->exitStatus, original.exitStatus);
        QCOMPARE(back->usageKnown, original.usageKnown);
        QCOMPARE(back->lostEvents, original.lostEvents);
        QCOMPARE(back->endReason, original.endReason);
        QCOMPARE(back->files.size(), original.files.size());
        for (size_t i = 0; i < original.files.size(); ++i) {
            const File &a = original.files[i];
            const File &b = back->files[i];
            QCOMPARE(b.path, a.path);
            QCOMPARE(b.major, a.major);
            QCOMPARE(b.minor, a.minor);
            QCOMPARE(b.inode, a.inode);
            QCOMPARE(b.metadata, a.metadata);
            QCOMPARE(b.sizeBytes, a.sizeBytes);
            QCOMPARE(b.modifiedNs, a.modifiedNs);
            QCOMPARE(b.pagesAdded, a.pagesAdded);
            QCOMPARE(b.pagesAsked, a.pagesAsked);
            QCOMPARE(b.pagesDeleted, a.pagesDeleted);
        }
        QCOMPARE(back->extents.size(), original.extents.size());
        for (size_t i = 0; i < original.extents.size(); ++i) {
            QCOMPARE(back->extents[i].file, original.extents[i].file);
            QCOMPARE(back->extents[i].firstPage, original.extents[i].firstPage);
            QCOMPARE(back->extents[i].pageCount, original.extents[i].pageCount);
            QCOMPARE(back->extents[i].startSeconds, original.extents[i].startSeconds);
            QCOMPARE(back->extents[i].endSeconds, original.extents[i].endSeconds);
            QCOMPARE(back->extents[i].askedPages, original.extents[i].askedPages);
        }
        QCOMPARE(back->requests.size(), size_t(1));
        QCOMPARE(back->requests[0].sector, uint64_t(12580504));
        QCOMPARE(back->requests[0].rwbs, std::string("RA"));
        QCOMPARE(back->notes, original.notes);

        // Totals for people: metadata is read but neither asked for nor readahead.
        const QJsonObject totals = reportToJson(original).value(QStringLiteral("totals")).toObject();
        QCOMPARE(totals.value(QStringLiteral("pages")).toInteger(), 25);
        QCOMPARE(totals.value(QStringLiteral("metadata_pages")).toInteger(), 1);
        QCOMPARE(totals.value(QStringLiteral("readahead_only_pages")).toInteger(), 6);
        QCOMPARE(original.pagesReadaheadOnly(), uint64_t(6));
        QCOMPARE(totals.value(QStringLiteral("readahead_only_share")).toDouble(), 6.0 / 24.0);
    }

    void displayNames()
    {
        const Report report = sampleReport();
        QCOMPARE(report.files[1].displayName(), std::string("metadata of /dev/vda"));
        QCOMPARE(report.files[2].displayName(), std::string("254:0:77"));
        File unnamedMetadata = report.files[1];
        unnamedMetadata.path.clear();
        QCOMPARE(unnamedMetadata.displayName(), std::string("metadata of block device 254:0"));
    }

    void badTraceJson_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const auto edited = [](const std::function<void(QJsonObject &)> &edit) {
            QJsonObject object = sampleJson();
            edit(object);
            return QJsonDocument(object).toJson();
        };
        QTest::newRow("not JSON") << QByteArray("{\"version\": 1,") << QStringLiteral("not JSON");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("not JSON");
        QTest::newRow("an array") << QByteArray("[1, 2]") << QStringLiteral("the JSON is not an object");
        QTest::newRow("no version") << edited([](QJsonObject &o) {
            o.remove(QStringLiteral("version"));
        }) << QStringLiteral("missing \"version\"");
        QTest::newRow("unknown version") << edited([](QJsonObject &o) {
            o.insert(QStringLiteral("version"), 2);
        }) << QStringLiteral("unknown version 2");
        QTest::newRow("version a string") << edited([](QJsonObject &o) {
            o.insert(QStringLiteral("version"), QStringLiteral("1"));
        }) << QStringLiteral("\"version\" must be a non-negative integer");
        QTest::newRow("unknown method") << edited([](QJsonObject &o) {
            o.insert(QStringLiteral("method"), QStringLiteral("systemtap"));
        }) << QStringLiteral("unknown method \"systemtap\"");
        QTest::newRow("other page size") << edited([](QJsonObject &o) {
            o.insert(QStringLiteral("page_size"), qint64(pageSize() * 4));
        }) << QStringLiteral("-byte pages, this machine has");
        QTest::newRow("files missing") << edited([](QJsonObject &o) {
            o.remove(QStringLiteral("files"));
        }) << QStringLiteral("missing \"files\"");
        QTest::newRow("files an object") << edited([](QJsonObject &o) {
            o.insert(QStringLiteral("files"), QJsonObject());
        }) << QStringLiteral("\"files\" must be an array");
        QTest::newRow("a file not an object") << edited([](QJsonObject &o) {
            o.insert(QStringLiteral("files"), QJsonArray{42});
        }) << QStringLiteral("\"files[0]\" must be an object");
        QTest::newRow("negative inode") << edited([](QJsonObject &o) {
            QJsonArray files = o.value(QStringLiteral("files")).toArray();
            QJsonObject file = files.at(1).toObject();
            file.insert(QStringLiteral("inode"), -5);
            files.replace(1, file);
            o.insert(QStringLiteral("files"), files);
        }) << QStringLiteral("\"files[1].inode\" must be a non-negative integer");
        QTest::newRow("path missing") << edited([](QJsonObject &o) {
            QJsonArray files = o.value(QStringLiteral("files")).toArray();
            QJsonObject file = files.at(2).toObject();
            file.remove(QStringLiteral("path"));
            files.replace(2, file);
            o.insert(QStringLiteral("files"), files);
        }) << QStringLiteral("missing \"files[2].path\"");
        QTest::newRow("extent of no file") << edited([](QJsonObject &o) {
            QJsonArray extents = o.value(QStringLiteral("extents")).toArray();
            QJsonObject extent = extents.at(0).toObject();
            extent.insert(QStringLiteral("file"), 9);
            extents.replace(0, extent);
            o.insert(QStringLiteral("extents"), extents);
        }) << QStringLiteral("an extent names file 9, but there are 3 files");
        QTest::newRow("pages a fraction") << edited([](QJsonObject &o) {
            QJsonArray extents = o.value(QStringLiteral("extents")).toArray();
            QJsonObject extent = extents.at(1).toObject();
            extent.insert(QStringLiteral("pages"), 1.5);
            extents.replace(1, extent);
            o.insert(QStringLiteral("extents"), extents);
        }) << QStringLiteral("\"extents[1].pages\" must be a non-negative integer");
        QTest::newRow("command not strings") << edited([](QJsonObject &o) {
            o.insert(QStringLiteral("command"), QJsonArray{QStringLiteral("cat"), 3});
        }) << QStringLiteral("\"command[1]\" must be a string");
        QTest::newRow("usage_known a number") << edited([](QJsonObject &o) {
            o.insert(QStringLiteral("usage_known"), 1);
        }) << QStringLiteral("\"usage_known\" must be true or false");
    }

    void badTraceJson()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        std::string error;
        const std::optional<Report> report = reportFromJsonBytes(bytes, &error);
        QVERIFY(!report);
        QVERIFY2(QString::fromStdString(error).contains(expected), error.c_str());
    }

    // The seed's table from events built in code: folios expanded, extents
    // per file in time, asked-for pages from get_pages and fault (not from
    // map_pages), the block device's own pages as metadata, an unknown
    // inode kept, block requests and deletions.
    void analysisOfEvents()
    {
        const std::string folder = TestUtil::scratchDir("trace-analysis");
        const std::string path = folder + "/program";
        const std::string other = folder + "/other";
        TestUtil::makeColdFile(path, 1 << 20);
        TestUtil::makeColdFile(other, 64 << 10);
        const struct stat st = statOf(path);
        const struct stat otherSt = statOf(other);
        struct stat metadataOwner = {};
        metadataOwner.st_dev = ::makedev(0, 3);
        metadataOwner.st_ino = ino_t(kernelDeviceNumber(::major(st.st_dev), ::minor(st.st_dev)));
        struct stat unknown = st;
        unknown.st_ino = 999999999;

        Capture capture;
        capture.usageEvents = true;
        capture.endReason = "exited";
        capture.lostEvents = 2;
        auto &e = capture.events;
        e.push_back(filemapEvent(EventKind::GetPages, 1000, st, 0, 1)); // the ELF header: one page asked
        e.push_back(added(1001, st, 0, 2)); // 16 KiB brought in
        e.push_back(added(1100, metadataOwner, 1092)); // an extent block, between two extents of the file
        e.push_back(added(1200, st, 240, 4)); // 983,040: 16 + 2 pages at the end
        e.push_back(added(1201, st, 256, 1));
        e.push_back(filemapEvent(EventKind::MapPages, 1202, st, 240, 18)); // fault-around: not asked
        e.push_back(filemapEvent(EventKind::Fault, 1203, st, 250, 1)); // the .dynamic page: asked
        e.push_back(filemapEvent(EventKind::GetPages, 2000, st, 0, 16)); // read(64 KiB) at 0
        e.push_back(added(2001, st, 4, 2)); // 16,384: not after 0-3 in time, a new extent
        e.push_back(added(2002, st, 8, 3));
        e.push_back(added(2003, otherSt, 0)); // another file's page in between does not split
        e.push_back(added(2004, st, 16, 4));
        e.push_back(added(2005, st, 32, 5));
        e.push_back(added(2006, unknown, 7));
        e.push_back(filemapEvent(EventKind::GetPages, 3000, st, 128, 16)); // read(64 KiB) at 512 KiB
        e.push_back(added(3001, st, 128, 4));
        e.push_back(filemapEvent(EventKind::Deleted, 3500, st, 250, 1));
        RawEvent request;
        request.kind = EventKind::BlockIssue;
        request.timeNs = 2500 * 1000;
        request.major = 254;
        request.sector = 12580504;
        request.bytes = 16384;
        request.rwbs = "RA";
        e.push_back(request);
        std::swap(e[3], e[4]); // the buffers of two CPUs: stamps decide, not the order

        AnalysisOptions options;
        options.candidates = {path, other, folder + "/gone"};
        options.startNs = 500 * 1000;
        const Report report = analyzeCapture(capture, options);

        QCOMPARE(report.method, Method::Tracefs);
        QVERIFY(report.usageKnown);
        QCOMPARE(report.lostEvents, uint64_t(2));
        QCOMPARE(report.endReason, std::string("exited"));
        QCOMPARE(report.files.size(), size_t(4));
        const File &program = report.files[0];
        QCOMPARE(program.path, path);
        QCOMPARE(program.sizeBytes, uint64_t(1 << 20));
        QCOMPARE(program.modifiedNs, int64_t(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec);
        QCOMPARE(program.pagesAdded, uint64_t(4 + 18 + 4 + 8 + 16 + 32 + 16));
        QCOMPARE(program.pagesDeleted, uint64_t(1));

        const File &metadata = report.files[1];
        QVERIFY(metadata.metadata);
        const std::string disk = blockDeviceName(::major(st.st_dev), ::minor(st.st_dev));
        QVERIFY2(!disk.empty(), "the scratch folder's disk is not listed in /sys/dev/block");
        QCOMPARE(metadata.path, disk);
        QCOMPARE(metadata.displayName(), "metadata of " + disk);

        QCOMPARE(report.files[2].path, other);
        const File &unnamed = report.files[3];
        QVERIFY(unnamed.path.empty());
        QVERIFY(!unnamed.metadata);
        QCOMPARE(unnamed.displayName(), std::to_string(::major(st.st_dev)) + ":" + std::to_string(::minor(st.st_dev)) + ":999999999");
        QCOMPARE(unnamed.pagesAdded, uint64_t(1));

        // The extents, in the order they started: the seed's table.
        struct Expected {
            int file;
            uint64_t first;
            uint64_t count;
            uint64_t asked;
            double start;
        };
        const Expected expected[] = {
            {0, 0, 4, 4, 0.000501}, // asked: the header, then the read of 64 KiB
            {1, 1092, 1, 0, 0.0006},
            {0, 240, 18, 1, 0.0007}, // the fault's page only: fault-around is not asking
            {0, 4, 60, 12, 0.001501}, // the read asked for pages 0-15: 4-15 of these
            {2, 0, 1, 0, 0.001503},
            {3, 7, 1, 0, 0.001506},
            {0, 128, 16, 16, 0.002501},
        };
        QCOMPARE(report.extents.size(), std::size(expected));
        for (size_t i = 0; i < std::size(expected); ++i) {
            const Extent &extent = report.extents[i];
            const QByteArray where = "extent " + QByteArray::number(qulonglong(i));
            QVERIFY2(extent.file == expected[i].file, where.constData());
            QVERIFY2(extent.firstPage == expected[i].first, where.constData());
            QVERIFY2(extent.pageCount == expected[i].count, where.constData());
            QVERIFY2(extent.askedPages == expected[i].asked, where.constData());
            QVERIFY2(std::abs(extent.startSeconds - expected[i].start) < 1e-9, where.constData());
        }
        QCOMPARE(report.extents[3].endSeconds, 0.001505);
        QCOMPARE(program.pagesAsked, uint64_t(4 + 1 + 12 + 16));
        QCOMPARE(report.pagesRead(), uint64_t(98 + 1 + 1 + 1));
        // Metadata is neither asked for nor readahead.
        QCOMPARE(report.pagesReadaheadOnly(), uint64_t(98 - 33 + 1 + 1));

        QCOMPARE(report.requests.size(), size_t(1));
        QCOMPARE(report.requests[0].seconds, 0.002);
        QCOMPARE(report.requests[0].sector, uint64_t(12580504));

        const auto hasNote = [&report](const char *text) {
            for (const std::string &note : report.notes) {
                if (note.find(text) != std::string::npos) {
                    return true;
                }
            }
            return false;
        };
        QVERIFY(hasNote("2 events were lost"));
        QVERIFY(hasNote("1 file could not be named"));
        QVERIFY(!hasNote("cannot be told"));
    }

    void analysisWithoutUsageEvents()
    {
        const std::string folder = TestUtil::scratchDir("trace-no-usage");
        const std::string path = folder + "/file";
        TestUtil::makeColdFile(path, 64 << 10);
        const struct stat st = statOf(path);
        Capture capture;
        capture.usageEvents = false;
        capture.events = {added(10, st, 0, 2), added(11, st, 4, 2)};
        AnalysisOptions options;
        options.candidates = {path};
        const Report report = analyzeCapture(capture, options);
        QVERIFY(!report.usageKnown);
        QCOMPARE(report.extents.size(), size_t(1));
        QCOMPARE(report.extents[0].pageCount, uint64_t(8));
        QCOMPARE(report.extents[0].startSeconds, 0.0); // time 0: the first event
        QCOMPARE(report.pagesReadaheadOnly(), uint64_t(0));
        QCOMPARE(report.notes.size(), size_t(1));
        QVERIFY(report.notes[0].find("cannot be told from those only readahead brought in") != std::string::npos);
        QVERIFY(reportToJson(report).value(QStringLiteral("totals")).toObject().value(QStringLiteral("readahead_only_share")).isNull());
    }

    // A file opened through an overlay (tools/dev run's /usr, a container's
    // root) keeps its pages in the lower file, which the tracepoints name,
    // while stat names the overlay's device: it is named all the same.
    void analysisNamesFilesThroughAnOverlay()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("mounting an overlay needs root");
        }
        const std::string folder = TestUtil::scratchDir("trace-overlay");
        const TestUtil::OverlayFolders overlay = TestUtil::makeOverlayFolders(folder);
        const std::string &lower = overlay.lower;
        // tools/dev run's way: the overlay over its own lower folder, its upper one on a tmpfs.
        const std::string hiddenUpper = folder + "/tmpfs/upper", hiddenWork = folder + "/tmpfs/work";
        QCOMPARE(mkdir((folder + "/tmpfs").c_str(), 0755), 0);
        TestUtil::makeColdFile(lower + "/program", 64 << 10);
        const struct stat real = statOf(lower + "/program");
        struct Seen {
            int error;
            bool overlayDeviceDiffers;
            bool named;
            bool unnamedNote;
            bool namedWhenHidden;
        };
        QString failure;
        const std::optional<Seen> seen = TestUtil::valueThroughOverlay<Seen>(
            overlay,
            [&] {
                Seen result{};
                const std::string throughOverlay = overlay.merged + "/program";
                struct stat st{};
                result.overlayDeviceDiffers = stat(throughOverlay.c_str(), &st) == 0 && st.st_dev != real.st_dev;
                Capture capture;
                capture.usageEvents = false;
                capture.events = {added(10, real, 0, 2)};
                AnalysisOptions analysis;
                analysis.candidates = {throughOverlay};
                const Report report = analyzeCapture(capture, analysis);
                result.named = report.files.size() == 1 && report.files[0].path == throughOverlay && report.files[0].sizeBytes == uint64_t(64 << 10);
                result.unnamedNote = std::any_of(report.notes.begin(), report.notes.end(), [](const std::string &note) {
                    return note.find("could not be named") != std::string::npos;
                });

                const std::string hiding = "lowerdir=" + lower + ",upperdir=" + hiddenUpper + ",workdir=" + hiddenWork;
                if (mount("tmpfs", (folder + "/tmpfs").c_str(), "tmpfs", 0, "size=1m") != 0 || mkdir(hiddenUpper.c_str(), 0755) != 0
                    || mkdir(hiddenWork.c_str(), 0755) != 0 || mount("overlay", lower.c_str(), "overlay", 0, hiding.c_str()) != 0) {
                    result.error = errno;
                    return result;
                }
                analysis.candidates = {lower + "/program"};
                const Report hidden = analyzeCapture(capture, analysis);
                result.namedWhenHidden = hidden.files.size() == 1 && hidden.files[0].path == lower + "/program";
                return result;
            },
            &failure);
        QVERIFY2(seen, qPrintable(failure));
        QVERIFY2(seen->error == 0, strerror(seen->error));
        QVERIFY(seen->overlayDeviceDiffers); // else this test would prove nothing
        QVERIFY(seen->named);
        QVERIFY(!seen->unnamedNote);
        QVERIFY(seen->namedWhenHidden);
    }

    void residencyDiffOfRanges()
    {
        ResidencyChange change;
        change.path = "/srv/a";
        change.before = {{0, 2}, {30, 1}};
        change.after = {{0, 10}, {20, 2}, {30, 1}};
        change.reclaimed = 3;
        ResidencyChange unchanged;
        unchanged.path = "/srv/b";
        unchanged.before = {{0, 4}};
        unchanged.after = {{0, 4}};
        const Report report = residencyDiffReport({change, unchanged});
        QCOMPARE(report.method, Method::ResidencyDiff);
        QVERIFY(!report.usageKnown);
        QCOMPARE(report.files.size(), size_t(1));
        QCOMPARE(report.files[0].pagesAdded, uint64_t(10));
        QCOMPARE(report.files[0].pagesDeleted, uint64_t(3));
        QCOMPARE(report.extents.size(), size_t(2));
        QCOMPARE(report.extents[0].firstPage, uint64_t(2));
        QCOMPARE(report.extents[0].pageCount, uint64_t(8));
        QCOMPARE(report.extents[1].firstPage, uint64_t(20));
        QCOMPARE(report.extents[1].pageCount, uint64_t(2));

        PageRangeSet a;
        a.add(0, 4);
        a.add(10, 2);
        a.add(4, 1); // touches: merged
        PageRangeSet b;
        b.add(2, 10);
        QCOMPARE(a.pages(), uint64_t(7));
        QCOMPARE(a.ranges().size(), size_t(2));
        QCOMPARE(a.pagesNotIn(b), uint64_t(2));
        QCOMPARE(b.pagesNotIn(a), uint64_t(5));
    }

    void jsonWithoutUsageHasNoReadaheadShare()
    {
        Report report = sampleReport();
        report.usageKnown = false;
        const QJsonObject totals = reportToJson(report).value(QStringLiteral("totals")).toObject();
        QVERIFY(totals.value(QStringLiteral("readahead_only_share")).isNull());
        QCOMPARE(report.pagesReadaheadOnly(), uint64_t(0));
        QVERIFY(refusal(reportToJson(report)).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TraceTest)
#include "tracetest.moc"
