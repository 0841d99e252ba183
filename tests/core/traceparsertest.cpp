// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The tracefs line and stats parsers on lines captured from the real kernel
// (tests/fixtures/trace/README.md), and on those lines cut or changed into
// what the parser must refuse.

#include "trace/traceparser.h"

#include <QFile>
#include <QTest>

using namespace Cachescope::Trace;

Q_DECLARE_METATYPE(Cachescope::Trace::EventKind)

namespace
{

constexpr uint64_t pageBytes = 4096;

QByteArray fixture(const char *name)
{
    QFile file(QStringLiteral(CACHESCOPE_FIXTURES "/trace/") + QLatin1String(name));
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    return file.readAll();
}

// The fixture's line that contains `needle`, so that a row names the line it reads.
QByteArray fixtureLine(const char *name, const char *needle)
{
    const QList<QByteArray> lines = fixture(name).split('\n');
    for (const QByteArray &line : lines) {
        if (line.contains(needle)) {
            return line;
        }
    }
    return {};
}

// Each "== <path>" section of a captured stats file.
QList<QByteArray> statsSections(const char *name)
{
    QList<QByteArray> sections;
    const QList<QByteArray> lines = fixture(name).split('\n');
    for (const QByteArray &line : lines) {
        if (line.startsWith("== ")) {
            sections.append(QByteArray());
        } else if (!sections.isEmpty()) {
            sections.back() += line + '\n';
        }
    }
    return sections;
}

} // namespace

class TraceParserTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesCapturedLines_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<Cachescope::Trace::EventKind>("kind");
        QTest::addColumn<quint64>("timeNs");
        QTest::addColumn<int>("pid");
        QTest::addColumn<uint>("major");
        QTest::addColumn<uint>("minor");
        QTest::addColumn<quint64>("inode");
        QTest::addColumn<quint64>("firstPage");
        QTest::addColumn<quint64>("pageCount");
        QTest::addColumn<quint64>("sector");
        QTest::addColumn<uint>("bytes");
        QTest::addColumn<QByteArray>("rwbs");

        const char *trace = "dd-and-mmap.trace";
        QTest::newRow("add, a large folio of order 1") << fixtureLine(trace, "8502.297740") << EventKind::Added << quint64(8502297740000) << 24121 << 254u << 0u
                                                       << quint64(0x510005) << quint64(0) << quint64(2) << quint64(0) << 0u << QByteArray();
        QTest::newRow("add, one page at 16 KiB") << fixtureLine(trace, "8502.297815") << EventKind::Added << quint64(8502297815000) << 24121 << 254u << 0u
                                                 << quint64(0x510005) << quint64(4) << quint64(1) << quint64(0) << 0u << QByteArray();
        QTest::newRow("add, the block device's own inode (metadata)")
            << fixtureLine(trace, "8502.333711") << EventKind::Added << quint64(8502333711000) << 23137 << 0u << 3u << quint64(0xfe00000)
            << quint64(163477245952 / 4096) << quint64(1) << quint64(0) << 0u << QByteArray();
        QTest::newRow("delete, order 1, interrupts off") << fixtureLine(trace, "8502.373244") << EventKind::Deleted << quint64(8502373244000) << 24123 << 254u
                                                         << 0u << quint64(0x510005) << quint64(0) << quint64(2) << quint64(0) << 0u << QByteArray();
        QTest::newRow("delete, order 0") << fixtureLine(trace, "8502.373247") << EventKind::Deleted << quint64(8502373247000) << 24123 << 254u << 0u
                                         << quint64(0x510005) << quint64(3) << quint64(1) << quint64(0) << 0u << QByteArray();
        QTest::newRow("get_pages, one page") << fixtureLine(trace, "8502.372278") << EventKind::GetPages << quint64(8502372278000) << 24123 << 254u << 0u
                                             << quint64(0x4f8cb) << quint64(0) << quint64(1) << quint64(0) << 0u << QByteArray();
        QTest::newRow("map_pages, 16 pages") << fixtureLine(trace, "8502.372078") << EventKind::MapPages << quint64(8502372078000) << 24123 << 254u << 0u
                                             << quint64(0x4fa7d) << quint64(851968 / 4096) << quint64(16) << quint64(0) << 0u << QByteArray();
        QTest::newRow("fault, one page") << fixtureLine(trace, "8502.372388") << EventKind::Fault << quint64(8502372388000) << 24123 << 254u << 0u
                                         << quint64(0x3c529) << quint64(86016 / 4096) << quint64(1) << quint64(0) << 0u << QByteArray();
        QTest::newRow("block request, readahead") << fixtureLine(trace, "8502.334485") << EventKind::BlockIssue << quint64(8502334485000) << 58 << 254u << 0u
                                                  << quint64(0) << quint64(0) << quint64(0) << quint64(321126432) << 8192u << QByteArray("RA");
        QTest::newRow("block request, metadata") << fixtureLine(trace, "8502.333769") << EventKind::BlockIssue << quint64(8502333769000) << 58 << 254u << 0u
                                                 << quint64(0) << quint64(0) << quint64(0) << quint64(319291496) << 4096u << QByteArray("RM");
        QTest::newRow("block request, a flush of 0 bytes") << fixtureLine(trace, "8502.365007") << EventKind::BlockIssue << quint64(8502365007000) << 58 << 254u
                                                           << 0u << quint64(0) << quint64(0) << quint64(0) << quint64(0) << 0u << QByteArray("FF");
        QTest::newRow("trace_pipe line after a loss") << fixtureLine("trace-pipe-lost.trace", "8539.584922") << EventKind::GetPages << quint64(8539584922000)
                                                      << 25736 << 254u << 0u << quint64(0x3c899) << quint64(0) << quint64(32) << quint64(0) << 0u
                                                      << QByteArray();
        // Task names may hold spaces, dashes and brackets (a thread may name
        // itself anything): the prefix is read from the right.
        QTest::newRow("task name with space, dash and bracket")
            << QByteArray("  Web Co-n [x]t-4242   [001] .....  8502.372266: mm_filemap_get_pages: dev=254:0 ino=3c529 ofs=8192-20479") << EventKind::GetPages
            << quint64(8502372266000) << 4242 << 254u << 0u << quint64(0x3c529) << quint64(2) << quint64(3) << quint64(0) << 0u << QByteArray();
        // Kernels before large folios print neither order nor always pfn=.
        QTest::newRow("add without order (older kernels)")
            << QByteArray("  cat-77 [000] .... 12.5: mm_filemap_add_to_page_cache: dev 8:1 ino 2a page=00000000deadbeef pfn=0x1234 ofs=8192")
            << EventKind::Added << quint64(12500000000) << 77 << 8u << 1u << quint64(0x2a) << quint64(2) << quint64(1) << quint64(0) << 0u << QByteArray();
        QTest::newRow("block request without I/O priority (older kernels)")
            << QByteArray("  kworker/0:1H-58 [000] ..... 1.000001: block_rq_issue: 8,0 R 4096 () 2048 + 8 [kworker/0:1H]") << EventKind::BlockIssue
            << quint64(1000001000) << 58 << 8u << 0u << quint64(0) << quint64(0) << quint64(0) << quint64(2048) << 4096u << QByteArray("R");
    }

    void parsesCapturedLines()
    {
        QFETCH(QByteArray, line);
        QFETCH(Cachescope::Trace::EventKind, kind);
        QVERIFY2(!line.isEmpty(), "the fixture line is missing");
        const std::optional<RawEvent> event = parseTraceLine(std::string_view(line.constData(), size_t(line.size())), pageBytes);
        QVERIFY2(event, line.constData());
        QCOMPARE(event->kind, kind);
        QTEST(quint64(event->timeNs), "timeNs");
        QTEST(int(event->pid), "pid");
        QTEST(uint(event->major), "major");
        QTEST(uint(event->minor), "minor");
        QTEST(quint64(event->inode), "inode");
        QTEST(quint64(event->firstPage), "firstPage");
        QTEST(quint64(event->pageCount), "pageCount");
        QTEST(quint64(event->sector), "sector");
        QTEST(uint(event->bytes), "bytes");
        QTEST(QByteArray::fromStdString(event->rwbs), "rwbs");
    }

    void refusesOtherLines_data()
    {
        QTest::addColumn<QByteArray>("line");
        const char *trace = "dd-and-mmap.trace";
        const QByteArray add = fixtureLine(trace, "8502.297740");
        const QByteArray range = fixtureLine(trace, "8502.372078");
        const QByteArray block = fixtureLine(trace, "8502.334485");
        QTest::newRow("header comment") << fixtureLine(trace, "# tracer: nop");
        QTest::newRow("column comment") << fixtureLine(trace, "TASK-PID");
        QTest::newRow("the kernel's lost-events line") << fixtureLine("trace-pipe-lost.trace", "LOST 63296");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("spaces") << QByteArray("   \t ");
        QTest::newRow("another event") << QByteArray("  dd-24123 [001] ..... 8502.372266: block_rq_complete: 254,0 RA () 321126432 + 16 be,0,4 [0]");
        QTest::newRow("an event whose name starts alike")
            << QByteArray("  dd-24123 [001] ..... 8502.372266: mm_filemap_get_pages_extra: dev=254:0 ino=3c529 ofs=0-4095");
        QTest::newRow("cut after the event name") << add.left(add.indexOf("dev "));
        QTest::newRow("cut inside the inode") << add.left(add.indexOf(" pfn"));
        QTest::newRow("cut before ofs") << add.left(add.indexOf(" ofs="));
        QTest::newRow("ofs not a number") << QByteArray(add).replace("ofs=0", "ofs=zero");
        QTest::newRow("ofs not on a page") << QByteArray(add).replace("ofs=0", "ofs=100");
        QTest::newRow("order out of range") << QByteArray(add).replace("order=1", "order=64");
        QTest::newRow("inode not hex") << QByteArray(add).replace("ino 510005", "ino 51g005");
        QTest::newRow("device without minor") << QByteArray(add).replace("dev 254:0", "dev 254");
        QTest::newRow("timestamp without decimals") << QByteArray(add).replace("8502.297740", "8502297740");
        QTest::newRow("timestamp with ten decimals") << QByteArray(add).replace("8502.297740", "8502.2977400000");
        QTest::newRow("pid not a number") << QByteArray(add).replace("head-24121", "head-24x21");
        QTest::newRow("no cpu column") << QByteArray(add).replace("[000]", "000");
        QTest::newRow("range reversed") << QByteArray(range).replace("851968-917503", "917503-851968");
        QTest::newRow("range without end") << QByteArray(range).replace("851968-917503", "851968-");
        QTest::newRow("range with extra words") << range + " extra";
        QTest::newRow("range cut") << range.left(range.indexOf(" ofs"));
        QTest::newRow("fault with a range") << QByteArray(fixtureLine(trace, "8502.372388")).replace("ofs=86016", "ofs=86016-90111");
        QTest::newRow("block request cut before the sector") << block.left(block.indexOf(" 321126432"));
        QTest::newRow("block request, bytes not a number") << QByteArray(block).replace(" 8192 ", " 8k ");
        QTest::newRow("block request, no command parentheses") << QByteArray(block).replace(" () ", " ");
        QTest::newRow("block request, device with a colon") << QByteArray(block).replace("254,0", "254:0");
    }

    void refusesOtherLines()
    {
        QFETCH(QByteArray, line);
        const std::optional<RawEvent> event = parseTraceLine(std::string_view(line.constData(), size_t(line.size())), pageBytes);
        QVERIFY2(!event, line.constData());
    }

    void pageSizeIsTheParsersUnit()
    {
        // The same captured line in 16 KiB pages: 64 KiB are 4 pages.
        const QByteArray line = fixtureLine("dd-and-mmap.trace", "8502.372078");
        const std::optional<RawEvent> event = parseTraceLine(std::string_view(line.constData(), size_t(line.size())), 16384);
        QVERIFY(event);
        QCOMPARE(event->firstPage, uint64_t(851968 / 16384));
        QCOMPARE(event->pageCount, uint64_t(4));
        QVERIFY(!parseTraceLine(std::string_view(line.constData(), size_t(line.size())), 3000));
        // The one-argument form uses this machine's page size.
        QVERIFY(parseTraceLine(std::string_view(line.constData(), size_t(line.size()))));
    }

    void readsEveryLineOfTheCapture()
    {
        // Every event line of the capture parses; only the header does not.
        const QList<QByteArray> lines = fixture("dd-and-mmap.trace").split('\n');
        int events = 0;
        for (const QByteArray &line : lines) {
            const bool parsed = parseTraceLine(std::string_view(line.constData(), size_t(line.size())), pageBytes).has_value();
            QVERIFY2(parsed == (!line.trimmed().isEmpty() && !line.startsWith('#')), line.constData());
            events += parsed ? 1 : 0;
        }
        QCOMPARE(events, 28);
    }

    void readsBufferStats_data()
    {
        QTest::addColumn<QByteArray>("stats");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<quint64>("lost");
        const QList<QByteArray> clean = statsSections("per-cpu-stats.txt");
        const QList<QByteArray> overrun = statsSections("per-cpu-stats-overrun.txt");
        QTest::newRow("captured, cpu0, no loss") << clean.value(0) << true << quint64(0);
        QTest::newRow("captured, cpu1, no loss") << clean.value(1) << true << quint64(0);
        // The same numbers as trace_pipe's "CPU:0 [LOST 63296 EVENTS]".
        QTest::newRow("captured, cpu0, overrun") << overrun.value(0) << true << quint64(63296);
        QTest::newRow("captured, cpu1, overrun") << overrun.value(1) << true << quint64(26404);
        QTest::newRow("all three counted") << QByteArray("entries: 1\noverrun: 5\ncommit overrun: 2\ndropped events: 7\n") << true << quint64(14);
        QTest::newRow("older kernel: overrun only") << QByteArray("entries: 1\noverrun: 9\n") << true << quint64(9);
        QTest::newRow("empty") << QByteArray() << false << quint64(0);
        QTest::newRow("no overrun line") << QByteArray("entries: 1\ndropped events: 3\n") << false << quint64(0);
        QTest::newRow("overrun not a number") << QByteArray(overrun.value(0)).replace("overrun: 63296", "overrun: lots") << false << quint64(0);
        QTest::newRow("dropped negative") << QByteArray(clean.value(0)).replace("dropped events: 0", "dropped events: -1") << false << quint64(0);
    }

    void readsBufferStats()
    {
        QFETCH(QByteArray, stats);
        QFETCH(bool, valid);
        const std::optional<BufferLosses> losses = parseBufferStats(std::string_view(stats.constData(), size_t(stats.size())));
        QCOMPARE(losses.has_value(), valid);
        if (valid) {
            QTEST(quint64(losses->lost()), "lost");
        }
    }
};

QTEST_GUILESS_MAIN(TraceParserTest)

#include "traceparsertest.moc"
