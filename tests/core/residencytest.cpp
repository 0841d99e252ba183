// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "residency.h"
#include "testutil.h"

#include <QTest>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <numeric>
#include <thread>

using namespace Cachescope;

namespace
{
const quint64 P = quint64(sysconf(_SC_PAGESIZE));

struct Opened {
    int fd = -1;
    struct stat st{};
    explicit Opened(const std::string &path)
    {
        fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            fstat(fd, &st);
        }
    }
    ~Opened()
    {
        if (fd >= 0) {
            close(fd);
        }
    }
};

// The pages of [offset, offset + length) of a file of `size` bytes.
std::vector<bool> expectedPages(uint64_t size, uint64_t offset, uint64_t length)
{
    std::vector<bool> pages(size_t(pagesFor(size)), false);
    if (length > 0) {
        for (uint64_t p = offset / P; p <= (offset + length - 1) / P && p < pages.size(); ++p) {
            pages[size_t(p)] = true;
        }
    }
    return pages;
}

// What a child running as another user saw, sent back through a pipe.
struct SeenAs {
    int error = 0;
    bool hidden = false;
    bool hiddenMincore = false;
    uint64_t resident = 0;
    uint64_t residentMincore = 0;
};

SeenAs residencyAsUser(const std::string &path, uid_t uid)
{
    QString failure;
    const std::optional<SeenAs> seen = TestUtil::valueFromChild<SeenAs>(
        [&path] {
            const Residency r = residencyOfPath(path);
            const Residency m = residencyOfPath(path, {.forceMincore = true});
            return SeenAs{r.error ? r.error : m.error, r.hidden, m.hidden, r.resident, m.resident};
        },
        uid,
        &failure);
    if (!seen) {
        qWarning("residency as uid %u: %s", unsigned(uid), qPrintable(failure));
        return SeenAs{EIO, false, false, 0, 0};
    }
    return *seen;
}
} // namespace

class ResidencyTest : public QObject
{
    Q_OBJECT

    std::string m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        m_dir = TestUtil::scratchDir("residency");
        chmod(m_dir.c_str(), 0755);
        QVERIFY(cachestatAvailable()); // Linux 6.5+: every machine we run on
    }

    void exactCounts_data()
    {
        QTest::addColumn<quint64>("size");
        QTest::addColumn<quint64>("offset");
        QTest::addColumn<quint64>("length");
        QTest::newRow("empty file") << quint64(0) << quint64(0) << quint64(0);
        QTest::newRow("one byte, read") << quint64(1) << quint64(0) << quint64(1);
        QTest::newRow("cold") << 64 * P << quint64(0) << quint64(0);
        QTest::newRow("first half") << 64 * P << quint64(0) << 32 * P;
        QTest::newRow("middle eight pages") << 64 * P << 16 * P << 8 * P;
        QTest::newRow("unaligned range") << 64 * P << quint64(100) << 2 * P + 1;
        QTest::newRow("partial last page") << 10 * P + 100 << 10 * P << quint64(100);
        QTest::newRow("whole 300 pages") << 300 * P << quint64(0) << 300 * P;
        QTest::newRow("every other stretch") << 4096 * P << 1000 * P << 7 * P;
    }

    void exactCounts()
    {
        QFETCH(quint64, size);
        QFETCH(quint64, offset);
        QFETCH(quint64, length);
        const std::string path = m_dir + "/exact";
        TestUtil::makeColdFile(path, size);
        TestUtil::readRange(path, offset, length);
        const std::vector<bool> expected = expectedPages(size, offset, length);
        const uint64_t expectedResident = uint64_t(std::count(expected.begin(), expected.end(), true));

        // Everything is asserted right after the set-up: idle pages get paged out.
        Opened file(path);
        QVERIFY(file.fd >= 0);
        const Residency viaCachestat = residencyOfDescriptor(file.fd, file.st);
        const Residency viaMincore = residencyOfDescriptor(file.fd, file.st, {.forceMincore = true});
        const PageMap map = pageMapOfDescriptor(file.fd, file.st, 0, ~uint64_t(0));
        const Histogram histogram = histogramOfDescriptor(file.fd, file.st, 16);
        const Histogram histogramMincore = histogramOfDescriptor(file.fd, file.st, 16, {.forceMincore = true});
        const ResidentRanges ranges = residentRangesOfDescriptor(file.fd, file.st);
        const auto fincore = TestUtil::fincoreResidentPages(path);
        const auto vmtouch = TestUtil::vmtouchResidentPages(path);

        QVERIFY2(viaCachestat.known(), viaCachestat.errorText.c_str());
        QCOMPARE(viaCachestat.method, ResidencyMethod::Cachestat);
        QCOMPARE(viaCachestat.pages, pagesFor(size));
        QCOMPARE(viaCachestat.sizeBytes, size);
        QCOMPARE(viaCachestat.resident, expectedResident);
        QCOMPARE(viaCachestat.dirty, quint64(0));
        QVERIFY(viaMincore.known());
        QCOMPARE(viaMincore.method, ResidencyMethod::Mincore);
        QCOMPARE(viaMincore.resident, expectedResident);

        // The peers agree.
        QVERIFY2(fincore.has_value(), "fincore (util-linux) is needed to cross-check");
        QCOMPARE(*fincore, expectedResident);
        if (size > 0) { // vmtouch prints no summary line for an empty file
            QVERIFY2(vmtouch.has_value(), "vmtouch is needed to cross-check");
            QCOMPARE(*vmtouch, expectedResident);
        }

        // The page map says exactly which pages.
        QVERIFY(map.known());
        QCOMPARE(map.flags.size(), expected.size());
        for (size_t p = 0; p < expected.size(); ++p) {
            QCOMPARE(bool(map.flags[p] & PageResident), bool(expected[p]));
        }

        // Histogram buckets hold the pages of their stretch, by both methods.
        QCOMPARE(histogram.buckets(), int(std::min<uint64_t>(16, pagesFor(size))));
        QCOMPARE(histogramMincore.resident, histogram.resident);
        uint64_t sum = 0;
        for (int b = 0; b < histogram.buckets(); ++b) {
            uint64_t want = 0;
            for (uint64_t p = histogram.firstPage(b); p < histogram.firstPage(b + 1); ++p) {
                want += expected[size_t(p)];
            }
            QCOMPARE(histogram.resident[size_t(b)], want);
            sum += histogram.resident[size_t(b)];
        }
        QCOMPARE(histogram.firstPage(histogram.buckets()), pagesFor(size));
        QCOMPARE(sum, expectedResident);

        // Resident ranges are the runs of the page map.
        std::vector<PageRange> want;
        for (uint64_t p = 0; p < expected.size(); ++p) {
            if (expected[size_t(p)]) {
                if (!want.empty() && want.back().first + want.back().count == p) {
                    ++want.back().count;
                } else {
                    want.push_back({p, 1});
                }
            }
        }
        QVERIFY(ranges.known());
        QVERIFY(ranges.ranges == want);
    }

    void pageMapWindow()
    {
        const std::string path = m_dir + "/window";
        TestUtil::makeColdFile(path, 100 * P);
        TestUtil::readRange(path, 40 * P, 3 * P);
        const PageMap map = pageMapOfPath(path, 38, 10);
        QVERIFY(map.known());
        QCOMPARE(map.firstPage, quint64(38));
        QCOMPARE(map.flags.size(), size_t(10));
        const std::vector<uint8_t> want{0, 0, 1, 1, 1, 0, 0, 0, 0, 0};
        for (size_t i = 0; i < want.size(); ++i) {
            QCOMPARE(map.flags[i] & PageResident, want[i]);
        }
        // A window past the end is clipped, never out of bounds.
        const PageMap tail = pageMapOfPath(path, 95, 1000);
        QCOMPARE(tail.flags.size(), size_t(5));
        QCOMPARE(pageMapOfPath(path, 5000, 10).flags.size(), size_t(0));
    }

    // Zoom: a histogram over a window counts only that window, by both methods.
    void histogramWindow()
    {
        const std::string path = m_dir + "/zoom";
        TestUtil::makeColdFile(path, 1000 * P);
        TestUtil::readRange(path, 500 * P, 10 * P); // pages 500..509
        Opened file(path);
        const Histogram window = histogramOfWindow(file.fd, file.st, 495, 20, 4);
        const Histogram windowMincore = histogramOfWindow(file.fd, file.st, 495, 20, 4, {.forceMincore = true});
        QVERIFY(window.known());
        QCOMPARE(window.windowFirst, quint64(495));
        QCOMPARE(window.pages, quint64(20));
        // Buckets of five pages: 495-499, 500-504, 505-509, 510-514.
        const std::vector<uint64_t> want{0, 5, 5, 0};
        QVERIFY(window.resident == want);
        QVERIFY(windowMincore.resident == want);
        // Clipped at the end of the file.
        const Histogram tail = histogramOfWindow(file.fd, file.st, 990, 100, 50);
        QCOMPARE(tail.pages, quint64(10));
        QCOMPARE(tail.buckets(), 10);
    }

    void dirtyPages()
    {
        const std::string path = m_dir + "/dirty";
        TestUtil::makeColdFile(path, 64 * P);
        const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
        QVERIFY(fd >= 0);
        const std::string block(3 * P, 'x');
        QCOMPARE(pwrite(fd, block.data(), block.size(), off_t(10 * P)), ssize_t(block.size()));
        struct stat st;
        fstat(fd, &st);
        const Residency r = residencyOfDescriptor(fd, st);
        const PageMap map = pageMapOfDescriptor(fd, st, 0, 64);
        const Histogram histogram = histogramOfDescriptor(fd, st, 8);
        // Writeback may already have begun: a written page is dirty or under writeback.
        QCOMPARE(r.resident, quint64(3));
        QCOMPARE(r.dirty + r.writeback, quint64(3));
        QVERIFY(map.detail);
        for (uint64_t p = 0; p < 64; ++p) {
            const bool written = p >= 10 && p < 13;
            QCOMPARE(bool(map.flags[p] & (PageDirty | PageWriteback)), written);
        }
        QCOMPARE(histogram.dirty[1] + histogram.writeback[1], quint64(3)); // pages 8..15
        QCOMPARE(fdatasync(fd), 0);
        QCOMPARE(residencyOfDescriptor(fd, st).dirty, quint64(0));
        close(fd);
    }

    // A 1 TiB sparse file: answers in bounded memory, the page in the right cell.
    void terabyteSparseFile()
    {
        const std::string path = m_dir + "/sparse";
        const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        QVERIFY(fd >= 0);
        const uint64_t tib = uint64_t(1) << 40;
        QCOMPARE(ftruncate(fd, off_t(tib)), 0);
        close(fd);
        TestUtil::readRange(path, tib / 2, 1);
        const uint64_t middle = tib / 2 / P;

        Opened file(path);
        const Residency r = residencyOfDescriptor(file.fd, file.st);
        const Histogram histogram = histogramOfDescriptor(file.fd, file.st, 1000);
        const PageMap map = pageMapOfDescriptor(file.fd, file.st, middle - 2, 5);
        const ResidentRanges ranges = residentRangesOfDescriptor(file.fd, file.st);
        QCOMPARE(r.pages, tib / P);
        QCOMPARE(r.resident, quint64(1));
        QCOMPARE(histogram.resident.size(), size_t(1000));
        QCOMPARE(histogram.resident[500], quint64(1));
        QCOMPARE(std::accumulate(histogram.resident.begin(), histogram.resident.end(), quint64(0)), quint64(1));
        QCOMPARE(map.flags.size(), size_t(5));
        QCOMPARE(map.flags[2] & PageResident, PageResident);
        QCOMPARE(map.flags[1] & PageResident, 0);
        QVERIFY((ranges.ranges == std::vector<PageRange>{{middle, 1}}));
        unlink(path.c_str());
    }

    // Where the kernel would lie (mincore) or refuse (cachestat), we say "hidden".
    void hiddenFromOtherUsers()
    {
        const std::string foreign = m_dir + "/foreign";
        TestUtil::makeColdFile(foreign, 8 * P);
        TestUtil::readRange(foreign, 0, 2 * P);
        chmod(foreign.c_str(), 0644);
        if (!TestUtil::isRoot()) {
            // Not root: any root-owned file we cannot write is hidden from us.
            const Residency r = residencyOfPath("/usr/bin/env");
            QVERIFY(r.hidden);
            QVERIFY(!r.hiddenReason.empty());
            QVERIFY(residencyOfPath("/usr/bin/env", {.forceMincore = true}).hidden);
            return;
        }
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("no unprivileged test user (tools/dev makes cachescope-user in its root)");
        }
        const SeenAs other = residencyAsUser(foreign, *uid);
        QCOMPARE(other.error, 0);
        QVERIFY(other.hidden);
        QVERIFY(other.hiddenMincore); // mincore would have said 8 of 8
        QCOMPARE(other.resident, quint64(0));

        const std::string owned = m_dir + "/owned";
        TestUtil::makeColdFile(owned, 8 * P);
        TestUtil::readRange(owned, 0, 2 * P);
        QCOMPARE(chown(owned.c_str(), *uid, *uid), 0);
        const SeenAs owner = residencyAsUser(owned, *uid);
        QCOMPARE(owner.error, 0);
        QVERIFY(!owner.hidden);
        QVERIFY(!owner.hiddenMincore);
        QCOMPARE(owner.resident, quint64(2));
        QCOMPARE(owner.residentMincore, quint64(2));
    }

    // A file read through an overlay mount has its pages in the layer's file:
    // cachestat through the overlay sees none of them, mincore sees them all.
    // residency says what mincore sees (it used to say 0 %, for every file of
    // a container's root or of tools/dev run's /usr).
    void overlayFilesShowTheirLayersPages()
    {
        if (!TestUtil::isRoot()) {
            QSKIP("only root may mount an overlay");
        }
        const TestUtil::OverlayFolders overlay = TestUtil::makeOverlayFolders(TestUtil::scratchDir("residency-overlay"));
        const std::string &lower = overlay.lower;
        TestUtil::makeColdFile(lower + "/file", 64 * P);
        struct Seen {
            int error;
            uint64_t cachestatThroughOverlay;
            uint64_t resident;
            uint64_t pages;
            ResidencyMethod method;
            uint64_t lowerResident;
        };
        QString failure;
        const std::optional<Seen> seen = TestUtil::valueThroughOverlay<Seen>(
            overlay,
            [&] {
                Seen result{};
                const std::string file = overlay.merged + "/file";
                TestUtil::readRange(file, 0, 32 * P); // through the overlay: the lower file's cache fills
                const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
                struct stat st{};
                CachestatCounts counts;
                if (fd < 0 || fstat(fd, &st) != 0 || cachestatRange(fd, 0, 0, counts) != 0) {
                    result.error = errno ? errno : EIO;
                    return result;
                }
                result.cachestatThroughOverlay = counts.cache;
                const Residency r = residencyOfDescriptor(fd, st);
                close(fd);
                result.error = r.error;
                result.resident = r.resident;
                result.pages = r.pages;
                result.method = r.method;
                result.lowerResident = residencyOfPath(lower + "/file").resident;
                return result;
            },
            &failure);
        QVERIFY2(seen, qPrintable(failure));
        QVERIFY2(seen->error == 0, strerror(seen->error));
        QCOMPARE(seen->lowerResident, quint64(32)); // where the pages are
        QCOMPARE(seen->cachestatThroughOverlay, quint64(0)); // the kernel's blind spot
        QCOMPARE(seen->pages, quint64(64));
        QCOMPARE(seen->resident, quint64(32));
        QCOMPARE(int(seen->method), int(ResidencyMethod::Mincore));
    }

    void fileSystemsWithoutPageCache_data()
    {
        QTest::addColumn<qlonglong>("type"); // statfs's f_type
        QTest::addColumn<bool>("none");
        QTest::newRow("proc") << qlonglong(0x9fa0) << true;
        QTest::newRow("sysfs") << qlonglong(0x62656572) << true;
        QTest::newRow("cgroup") << qlonglong(0x27e0eb) << true;
        QTest::newRow("cgroup2") << qlonglong(0x63677270) << true;
        QTest::newRow("debugfs") << qlonglong(0x64626720) << true;
        QTest::newRow("tracefs") << qlonglong(0x74726163) << true;
        QTest::newRow("configfs") << qlonglong(0x62656570) << true;
        // Their files live in the page cache: they must still be read.
        QTest::newRow("ext4") << qlonglong(0xef53) << false;
        QTest::newRow("xfs") << qlonglong(0x58465342) << false;
        QTest::newRow("btrfs") << qlonglong(0x9123683e) << false;
        QTest::newRow("tmpfs") << qlonglong(0x01021994) << false;
        QTest::newRow("ramfs") << qlonglong(0x858458f6) << false;
        QTest::newRow("hugetlbfs") << qlonglong(0x958458f6) << false;
        QTest::newRow("fuse") << qlonglong(0x65735546) << false;
        QTest::newRow("nfs") << qlonglong(0x6969) << false;
    }

    void fileSystemsWithoutPageCache()
    {
        QFETCH(qlonglong, type);
        QFETCH(bool, none);
        QCOMPARE(fileSystemKeepsNoPageCache(type), none);
    }

    void refusesWhatIsNotARegularFile_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("error");
        QTest::addColumn<QString>("reason");
        QTest::newRow("FIFO") << QStringLiteral("fifo") << EINVAL << QStringLiteral("FIFO");
        QTest::newRow("socket") << QStringLiteral("socket") << EINVAL << QStringLiteral("socket");
        QTest::newRow("folder") << QStringLiteral("folder") << EISDIR << QStringLiteral("folder");
        QTest::newRow("missing") << QStringLiteral("missing") << ENOENT << QStringLiteral("No such file");
        QTest::newRow("dangling link") << QStringLiteral("dangling") << ENOENT << QStringLiteral("No such file");
    }

    void refusesWhatIsNotARegularFile()
    {
        QFETCH(QString, name);
        QFETCH(int, error);
        QFETCH(QString, reason);
        const std::string dir = TestUtil::scratchDir("residency-bad");
        QCOMPARE(mkfifo((dir + "/fifo").c_str(), 0644), 0);
        QCOMPARE(mkdir((dir + "/folder").c_str(), 0755), 0);
        QCOMPARE(symlink("nowhere", (dir + "/dangling").c_str()), 0);
        const int sock = socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const std::string socketPath = dir + "/socket";
        QVERIFY(socketPath.size() < sizeof address.sun_path);
        strcpy(address.sun_path, socketPath.c_str());
        QCOMPARE(bind(sock, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);

        // On a thread, so that a regression that blocks on the FIFO fails here
        // instead of hanging the suite.
        const std::string path = dir + "/" + name.toStdString();
        auto result = std::make_shared<Residency>();
        auto done = std::make_shared<std::atomic<bool>>(false);
        std::thread([path, result, done] {
            *result = residencyOfPath(path);
            *done = true;
        }).detach();
        QTRY_VERIFY_WITH_TIMEOUT(done->load(), 10000);
        close(sock);
        QCOMPARE(result->error, error);
        QVERIFY2(QString::fromStdString(result->errorText).contains(reason), result->errorText.c_str());
    }
};

QTEST_GUILESS_MAIN(ResidencyTest)
#include "residencytest.moc"
