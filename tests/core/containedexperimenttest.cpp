// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The experiments that run in a memory cgroup, for real: the folder-eviction
// lesson and the contained memory pressure, on the real kernel in a real
// cgroup that the privileged client makes in process as root (the helper's
// contain action), at small sizes. Without a way to make the cgroup both are
// skipped with the reason; cancel leaves no file, no child and no cgroup.

#include "testutil.h"

#include "experiments/engines.h"
#include "privileged.h"
#include "residency.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <dirent.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace Cachescope::Experiments;

namespace
{

std::vector<std::string> filesIn(const std::string &folder)
{
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(folder)) {
        names.push_back(entry.path().filename().string());
    }
    return names;
}

// Our own children, from /proc: after an engine returns there must be none.
int childrenOfThisProcess()
{
    int children = 0;
    const std::string self = std::to_string(::getpid());
    DIR *proc = ::opendir("/proc");
    if (!proc) {
        return 0;
    }
    while (const dirent *entry = ::readdir(proc)) {
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9') {
            continue;
        }
        std::ifstream stream(std::string("/proc/") + entry->d_name + "/status");
        std::stringstream text;
        text << stream.rdbuf();
        const std::string status = text.str();
        const size_t at = status.find("\nPPid:\t");
        if (at != std::string::npos && status.compare(at + 7, self.size() + 1, self + '\n') == 0) {
            ++children;
        }
    }
    ::closedir(proc);
    return children;
}

bool exists(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

// Mount points and swap areas of ours: after the shmem lesson there must be none.
std::string mountsOfShmemLesson()
{
    std::ifstream stream("/proc/self/mountinfo");
    std::string line;
    std::string found;
    while (std::getline(stream, line)) {
        if (line.find("cachescope-shmem") != std::string::npos) {
            found += line + '\n';
        }
    }
    return found;
}

int swapAreas()
{
    std::ifstream stream("/proc/swaps");
    std::string line;
    int areas = -1; // the header
    while (std::getline(stream, line)) {
        ++areas;
    }
    return areas;
}

// /proc/meminfo's field in bytes, and free's column of the same moment.
uint64_t memInfoBytes(const char *field)
{
    std::ifstream stream("/proc/meminfo");
    std::string line;
    const std::string prefix = std::string(field) + ':';
    while (std::getline(stream, line)) {
        if (line.rfind(prefix, 0) == 0) {
            return std::stoull(line.substr(prefix.size())) * 1024;
        }
    }
    return 0;
}

double mean(const VariantResult *variant, const char *measurement)
{
    const Measurement *m = variant ? variant->find(measurement) : nullptr;
    return m ? m->statistics.mean : -1;
}

} // namespace

class ContainedExperimentTest : public QObject
{
    Q_OBJECT

private:
    const std::atomic<bool> m_noCancel{false};
    // The cgroups the steps made, to check that each is gone.
    std::vector<std::string> m_groups;

    // The real contain step: the privileged client, which as root runs the
    // helper's action in process.
    PrivilegedSteps containSteps()
    {
        PrivilegedSteps steps;
        steps.contain = [this](int pid, uint64_t limitBytes, ContainedGroup &group, std::string &error) {
            const Cachescope::Privileged::ContainResult result = Cachescope::Privileged::contain(pid, qint64(limitBytes));
            if (!result.ok()) {
                error = result.message.toStdString();
                return false;
            }
            group = {result.cgroupPath.toStdString(), result.version, uint64_t(result.limitBytes), result.how.toStdString()};
            m_groups.push_back(group.path);
            return true;
        };
        return steps;
    }

    // The shmem lesson's steps: the cgroup, drop_caches and the experiment
    // swap file, all through the privileged client (as root, in process).
    PrivilegedSteps shmemSteps()
    {
        PrivilegedSteps steps = containSteps();
        steps.dropCaches = [](std::string &error) {
            const auto result = Cachescope::Privileged::dropCaches(3);
            error = result.message.toStdString();
            return result.ok();
        };
        steps.swapFileOn = [](uint64_t bytes, std::string &error) {
            const auto result = Cachescope::Privileged::createExperimentSwapFile(qint64(bytes));
            error = result.message.toStdString();
            return result.ok();
        };
        steps.swapFileOff = [](std::string &error) {
            const auto result = Cachescope::Privileged::removeExperimentSwapFile();
            error = result.message.toStdString();
            return result.ok();
        };
        return steps;
    }

    // A contain step for bad input, which must never reach it: asked says
    // whether it was.
    static PrivilegedSteps neverAskedSteps(bool &asked)
    {
        PrivilegedSteps steps;
        steps.contain = [&asked](int, uint64_t, ContainedGroup &, std::string &error) {
            asked = true;
            error = "should not be asked";
            return false;
        };
        return steps;
    }

    void requireRoot()
    {
        if (::geteuid() != 0) {
            QSKIP("making a memory cgroup in process needs root (tools/dev runs the tests as root)");
        }
    }

    // Every cgroup made is removed once its worker is gone (polled: the
    // watcher looks every quarter of a second).
    void checkGroupsGone()
    {
        for (const std::string &group : m_groups) {
            QTRY_VERIFY2_WITH_TIMEOUT(!exists(group), group.c_str(), 5000);
        }
        m_groups.clear();
    }

private Q_SLOTS:
    void cleanup()
    {
        QCOMPARE(childrenOfThisProcess(), 0);
        checkGroupsGone();
    }

    // ------------------------------------------------ drop-behind

    // A plain read and a plain write leave the big file cached and push the
    // desktop's files out of the cgroup; fadvise and O_DIRECT leave almost
    // nothing of the file and keep the desktop's; RWF_DONTCACHE does the
    // same or says why it cannot run here.
    void dropBehindLesson()
    {
        requireRoot();
        const std::string folder = TestUtil::scratchDir("contained-drop-behind");
        DropBehindParameters p;
        p.folder = folder;
        p.size = 64ULL << 20;
        const Result result = makeDropBehindExperiment(p, containSteps())->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.variants.size(), size_t(8));
        for (const char *operation : {"read", "write"}) {
            for (const char *method : dropBehindMethods) {
                const std::string name = dropBehindVariantName(std::string(operation) == "write", method);
                const VariantResult *v = result.variant(name);
                QVERIFY2(v, name.c_str());
                QCOMPARE(v->details.value(QStringLiteral("method")).toString(), QString::fromLatin1(method));
                if (v->skipped) {
                    // Only RWF_DONTCACHE may be missing (kernel or file system), and it says so.
                    QVERIFY2(std::string(method) == "dontcache", (name + ": " + v->skipReason).c_str());
                    QVERIFY2(v->skipReason.find("not supported by this kernel or file system") == 0, v->skipReason.c_str());
                    continue;
                }
                const double left = mean(v, "cache_left_percent");
                const double kept = mean(v, "desktop_kept_percent");
                qInfo("%s: %.0f MiB/s, %.1f %% of the file left cached, %.1f %% of the desktop's pages kept", name.c_str(), mean(v, "throughput"), left, kept);
                if (std::string(method) == "plain") {
                    QVERIFY2(left >= 75, qPrintable(QString::number(left)));
                    QVERIFY2(kept <= 50, qPrintable(QString::number(kept)));
                } else if (name == "write, dontcache") {
                    // Its pages go once written back, and they wait for the
                    // flusher dirty: the desktop's pages give way meanwhile,
                    // fewer than to a plain write (67 % kept against 38 % here).
                    QVERIFY2(left < 5, qPrintable(QString::number(left)));
                    QVERIFY2(kept > mean(result.variant("write, plain"), "desktop_kept_percent"), qPrintable(QString::number(kept)));
                } else {
                    QVERIFY2(left < 5, qPrintable(QString::number(left)));
                    QVERIFY2(kept >= 90, qPrintable(QString::number(kept)));
                }
                QCOMPARE(uint64_t(v->runs.first().toObject().value(QStringLiteral("bytes")).toDouble()), p.size);
            }
        }
        const QJsonObject group = result.details.value(QStringLiteral("cgroup")).toObject();
        QCOMPARE(uint64_t(group.value(QStringLiteral("limit")).toDouble()), dropBehindDefaultLimit(p.size));
        QVERIFY(result.details.value(QStringLiteral("cgroup_removed")).toBool());
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void dropBehindWithoutContainIsSkipped()
    {
        const std::string folder = TestUtil::scratchDir("contained-drop-behind-skipped");
        DropBehindParameters p;
        p.folder = folder;
        p.writes = false;
        const Result result = makeDropBehindExperiment(p)->run({}, m_noCancel);
        QVERIFY(result.error.empty());
        QCOMPARE(result.variants.size(), size_t(4));
        for (const VariantResult &v : result.variants) {
            QVERIFY(v.skipped);
            QVERIFY2(v.skipReason.find("never runs unconfined") != std::string::npos, v.skipReason.c_str());
        }
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void dropBehindBadInput_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("tiny file") << QStringLiteral("tiny file") << QStringLiteral("from 16 MiB to 64 GiB");
        QTest::newRow("odd size") << QStringLiteral("odd size") << QStringLiteral("whole MiB");
        QTest::newRow("tiny desktop") << QStringLiteral("tiny desktop") << QStringLiteral("desktop's files must be from 4 MiB");
        QTest::newRow("tiny limit") << QStringLiteral("tiny limit") << QStringLiteral("at least 16 MiB");
        QTest::newRow("nothing to do") << QStringLiteral("nothing to do") << QStringLiteral("neither reads nor writes");
        QTest::newRow("missing folder") << QStringLiteral("missing folder") << QStringLiteral("/nonexistent/cachescope: No such file");
    }

    void dropBehindBadInput()
    {
        QFETCH(QString, what);
        QFETCH(QString, message);
        DropBehindParameters p;
        p.folder = TestUtil::scratchDir("contained-drop-behind-bad");
        if (what == QLatin1String("tiny file")) {
            p.size = 1 << 20;
        } else if (what == QLatin1String("odd size")) {
            p.size = (64ULL << 20) + 4096;
        } else if (what == QLatin1String("tiny desktop")) {
            p.desktopSize = 4096;
        } else if (what == QLatin1String("tiny limit")) {
            p.limit = 1 << 20;
        } else if (what == QLatin1String("nothing to do")) {
            p.reads = false;
            p.writes = false;
        } else if (what == QLatin1String("missing folder")) {
            p.folder = "/nonexistent/cachescope";
        }
        bool asked = false;
        const PrivilegedSteps steps = neverAskedSteps(asked);
        const Result result = makeDropBehindExperiment(p, steps)->run({}, m_noCancel);
        QVERIFY2(QString::fromStdString(result.error).contains(message), result.error.c_str());
        QVERIFY(!asked);
        QVERIFY(result.variants.empty());
    }

    // Cancel during the fadvise read: the worker is killed, the files and
    // the cgroup are removed.
    void dropBehindCancel()
    {
        requireRoot();
        const std::string folder = TestUtil::scratchDir("contained-drop-behind-cancel");
        DropBehindParameters p;
        p.folder = folder;
        p.size = 64ULL << 20;
        std::atomic<bool> cancel{false};
        Progress progress;
        progress.event = [&cancel](const Event &event) {
            if (event.text.find("read, fadvise: run 1: reading") != std::string::npos) {
                cancel = true;
            }
        };
        const Result result = makeDropBehindExperiment(p, containSteps())->run(progress, cancel);
        QVERIFY(result.cancelled);
        QVERIFY(result.variant("read, plain"));
        QVERIFY(!result.variant("write, plain"));
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    // ------------------------------------------------ the thrashing cliff

    // Below the limit, every pass after the first comes from memory; over
    // it, passes read from the disk again. Asserted on what the kernel
    // counts (refaults on v2, the worker's reads from storage on v1), never
    // on the seconds, which are reported.
    void thrashCliffLesson()
    {
        requireRoot();
        const std::string folder = TestUtil::scratchDir("contained-thrash-cliff");
        ThrashCliffParameters p;
        p.folder = folder;
        p.limit = 32ULL << 20;
        p.fractions = {0.5, 1.5};
        p.passes = 2;
        p.scanResistance = false;
        const Result result = makeThrashCliffExperiment(p, containSteps())->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.variants.size(), size_t(2));
        const VariantResult &below = result.variants.front();
        const VariantResult &above = result.variants.back();
        QCOMPARE(below.details.value(QStringLiteral("side")).toString(), QStringLiteral("below"));
        QCOMPARE(above.details.value(QStringLiteral("side")).toString(), QStringLiteral("above"));
        const bool refaults = result.details.value(QStringLiteral("refaults_method")).toString().startsWith(QLatin1String("memory.stat"));
        const char *figure = refaults ? "refaults" : "read_from_storage";
        const double belowFigure = mean(&below, figure);
        const double aboveFigure = mean(&above, figure);
        const double aboveBytes = above.details.value(QStringLiteral("working_set_bytes")).toDouble();
        const double abovePages = aboveBytes / 4096;
        qInfo("%s a pass: %.0f under the limit, %.0f over it (%.0f pages in the set); a pass %.1f ms against %.1f ms",
              figure,
              belowFigure,
              aboveFigure,
              abovePages,
              mean(&below, "pass_seconds") * 1000,
              mean(&above, "pass_seconds") * 1000);
        const double whole = refaults ? abovePages : aboveBytes;
        // Under: next to nothing again from the disk; over: a good part of the set every pass.
        QVERIFY2(belowFigure < whole * 0.05, qPrintable(QString::number(belowFigure)));
        QVERIFY2(aboveFigure > whole * 0.2, qPrintable(QString::number(aboveFigure)));
        QCOMPARE(below.find("pass_seconds")->values.size(), size_t(2));
        QVERIFY(result.details.contains(QStringLiteral("cliff_ratio")));
        QVERIFY(result.details.value(QStringLiteral("cgroup_removed")).toBool());
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    // Files A read twice survive a stream larger than the cgroup; read once,
    // they are older than the stream and go first. POSIX_FADV_NOREUSE on
    // the stream is measured and reported, never asserted: what it changes
    // for read() differs between kernels and LRUs.
    void scanResistanceLesson()
    {
        requireRoot();
        const std::string folder = TestUtil::scratchDir("contained-scan-resistance");
        ThrashCliffParameters p;
        p.folder = folder;
        p.limit = 32ULL << 20;
        p.fractions = {0.5};
        p.passes = 1;
        const Result result = makeThrashCliffExperiment(p, containSteps())->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.variants.size(), size_t(1 + std::size(thrashCliffScans)));
        const VariantResult *once = result.variant(thrashCliffScanVariantName("once"));
        const VariantResult *twice = result.variant(thrashCliffScanVariantName("twice"));
        const VariantResult *noReuse = result.variant(thrashCliffScanVariantName("noreuse"));
        QVERIFY(once && twice && noReuse);
        QCOMPARE(twice->details.value(QStringLiteral("first_bytes")).toDouble(), double(8ULL << 20));
        QCOMPARE(twice->details.value(QStringLiteral("stream_bytes")).toDouble(), double(40ULL << 20));
        qInfo("A kept: once %.0f %%, twice %.0f %%, NOREUSE %.0f %%; Active(file) before the stream, A twice: %.0f bytes",
              mean(once, "first_kept_percent"),
              mean(twice, "first_kept_percent"),
              mean(noReuse, "first_kept_percent"),
              mean(twice, "active_file_before"));
        QVERIFY(noReuse->find("first_kept_percent"));
        const QString lru = result.details.value(QStringLiteral("lru")).toString();
        QVERIFY(!lru.isEmpty());
        if (lru.startsWith(QLatin1String("two lists"))) {
            QVERIFY2(mean(twice, "first_kept_percent") > 80, qPrintable(QString::number(mean(twice, "first_kept_percent"))));
            QVERIFY2(mean(once, "first_kept_percent") < 20, qPrintable(QString::number(mean(once, "first_kept_percent"))));
            // Read twice, A went to the active list before the stream came.
            QVERIFY(mean(twice, "active_file_before") > double(4ULL << 20));
        } else {
            // The multi-gen LRU protects a tier only once it refaults more
            // than the first: measured and reported, not asserted.
            qInfo("%s: the two-list expectations are not asserted", qPrintable(lru));
        }
        QVERIFY(result.details.value(QStringLiteral("cgroup_removed")).toBool());
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void lruKindFromSysfs()
    {
        const std::string root = TestUtil::scratchDir("lru-kind");
        QVERIFY(lruKind(root).find("not built into this kernel") != std::string::npos);
        QVERIFY(::mkdir((root + "/kernel").c_str(), 0755) == 0 && ::mkdir((root + "/kernel/mm").c_str(), 0755) == 0
                && ::mkdir((root + "/kernel/mm/lru_gen").c_str(), 0755) == 0);
        const auto write = [&root](const char *text) {
            std::ofstream(root + "/kernel/mm/lru_gen/enabled") << text;
        };
        write("0x0007\n");
        QCOMPARE(lruKind(root), std::string("multi-gen LRU (lru_gen/enabled 0x0007)"));
        write("0x0000\n");
        QVERIFY(lruKind(root).find("built in but off") != std::string::npos);
    }

    // ------------------------------------------------ memory that cannot be evicted

    // A tmpfs file is Cached and Shmem, stays through Evict and drop_caches,
    // holds a cgroup at its limit without swap, and goes to swap when paged
    // out with the experiment swap file on. Nothing is left: no mount, no
    // swap area, no file, no cgroup, no child.
    void shmemLesson()
    {
        requireRoot();
        const int swapAtStart = swapAreas();
        ShmemParameters p;
        p.size = 32ULL << 20;
        p.headroom = 16ULL << 20;
        const Result result = makeShmemExperiment(p, shmemSteps())->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        const double size = double(p.size);
        const VariantResult *fill = result.variant(shmemFill);
        const VariantResult *evict = result.variant(shmemEvict);
        const VariantResult *drop = result.variant(shmemDropCaches);
        const VariantResult *pressed = result.variant(shmemWithoutSwap);
        const VariantResult *pagedOut = result.variant(shmemWithSwap);
        QVERIFY(fill && evict && drop && pressed && pagedOut);
        qInfo("Shmem +%.1f MiB, Cached +%.1f MiB; after Evict %.0f %%, after drop_caches %.0f %% in memory; paged out: %.0f %% kept, swap +%.1f MiB",
              mean(fill, "shmem_added") / 1048576,
              mean(fill, "cached_added") / 1048576,
              mean(evict, "file_resident_percent"),
              mean(drop, "file_resident_percent"),
              mean(pagedOut, "shmem_kept_percent"),
              mean(pagedOut, "swap_used") / 1048576);
        // As root the lesson mounts its tmpfs; where it may not (no
        // CAP_SYS_ADMIN in a container) it says so and uses /dev/shm.
        const QString tmpfs = result.details.value(QStringLiteral("tmpfs")).toString();
        QVERIFY2(tmpfs == QLatin1String("mounted") || (tmpfs == QLatin1String("/dev/shm") && !result.notes.empty()), qPrintable(tmpfs));
        // Other processes move Shmem and Cached too: most of the file, not all.
        QVERIFY2(mean(fill, "shmem_added") > size * 0.8, qPrintable(QString::number(mean(fill, "shmem_added"))));
        QVERIFY2(mean(fill, "cached_added") > size * 0.5, qPrintable(QString::number(mean(fill, "cached_added"))));
        QCOMPARE(mean(fill, "file_resident_percent"), 100.0);
        QCOMPARE(mean(evict, "file_resident_percent"), 100.0);
        QCOMPARE(mean(drop, "file_resident_percent"), 100.0);
        if (swapAtStart == 0) {
            QVERIFY2(!pressed->skipped, pressed->skipReason.c_str());
            QCOMPARE(mean(pressed, "limit_hit"), 1.0);
            QCOMPARE(mean(pressed, "shmem_kept_percent"), 100.0);
            QVERIFY(mean(pressed, "allocated") < size);
            QCOMPARE(result.details.value(QStringLiteral("swap")).toString(), QStringLiteral("the experiment swap file"));
        } else {
            QVERIFY(QString::fromStdString(pressed->skipReason).contains(QLatin1String("swap is on")));
        }
        QVERIFY2(!pagedOut->skipped, pagedOut->skipReason.c_str());
        // Shmem and swap used move within madvise; the file's residency
        // depends on the method (the swap cache), so it is reported only.
        QVERIFY2(mean(pagedOut, "shmem_freed") > size * 0.5, qPrintable(QString::number(mean(pagedOut, "shmem_freed"))));
        QVERIFY2(mean(pagedOut, "swap_used") > size * 0.5, qPrintable(QString::number(mean(pagedOut, "swap_used"))));
        // MemAvailable does not count the file, but other processes move it
        // as much on a busy machine: reported, not asserted.
        QVERIFY(fill->find("available_fell"));
        QCOMPARE(mountsOfShmemLesson(), std::string());
        QCOMPARE(swapAreas(), swapAtStart);
        QCOMPARE(childrenOfThisProcess(), 0);
        for (const std::string &group : m_groups) {
            QTRY_VERIFY_WITH_TIMEOUT(!exists(group), 5000);
        }
    }

    // What the lesson calls free's "shared" and "buff/cache" is what free
    // prints: procps's free against /proc/meminfo read around it, with a
    // file of 32 MiB in /dev/shm so that the figures are not all zero.
    void shmemFiguresAgreeWithFree()
    {
        if (!exists("/usr/bin/free")) {
            QSKIP("free (procps) is not installed");
        }
        struct statfs fs;
        if (::statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC) {
            QSKIP("/dev/shm is not a tmpfs here");
        }
        const std::string path = "/dev/shm/cachescope-free-check-" + std::to_string(::getpid());
        const std::unique_ptr<const char, void (*)(const char *)> removeFile(path.c_str(), [](const char *name) {
            ::unlink(name);
        });
        {
            std::ofstream file(path, std::ios::binary);
            const std::string block(1 << 20, 'x');
            for (int i = 0; i < 32; ++i) {
                file << block;
            }
            QVERIFY2(file.flush().good(), path.c_str());
        }
        const uint64_t shmemBefore = memInfoBytes("Shmem");
        const uint64_t buffCacheBefore = memInfoBytes("Buffers") + memInfoBytes("Cached") + memInfoBytes("SReclaimable");
        QProcess free;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
        free.setProcessEnvironment(environment);
        free.start(QStringLiteral("/usr/bin/free"), {QStringLiteral("-b")});
        QVERIFY(free.waitForFinished(10000));
        const uint64_t shmemAfter = memInfoBytes("Shmem");
        const uint64_t buffCacheAfter = memInfoBytes("Buffers") + memInfoBytes("Cached") + memInfoBytes("SReclaimable");
        // "Mem:  total used free shared buff/cache available"
        const QStringList lines = QString::fromLocal8Bit(free.readAllStandardOutput()).split(QLatin1Char('\n'));
        QStringList memory;
        for (const QString &line : lines) {
            if (line.startsWith(QLatin1String("Mem:"))) {
                memory = line.simplified().split(QLatin1Char(' '));
            }
        }
        QCOMPARE(memory.size(), 7);
        const double shared = memory[4].toDouble();
        const double buffCache = memory[5].toDouble();
        const double slack = 8 << 20; // other processes, between the reads
        QVERIFY2(shared >= double(std::min(shmemBefore, shmemAfter)) - slack && shared <= double(std::max(shmemBefore, shmemAfter)) + slack,
                 qPrintable(QStringLiteral("free's shared %1, Shmem %2").arg(shared).arg(shmemAfter)));
        QVERIFY(shared >= double(32 << 20));
        QVERIFY2(std::abs(buffCache - double(buffCacheAfter)) < slack + std::abs(double(buffCacheAfter) - double(buffCacheBefore)),
                 qPrintable(QStringLiteral("free's buff/cache %1, ours %2").arg(buffCache).arg(buffCacheAfter)));
    }

    // Cancel while the cgroup is pressed: the worker killed, the file, the
    // tmpfs, the swap file and the cgroup gone.
    void shmemCancel()
    {
        requireRoot();
        const int swapAtStart = swapAreas();
        ShmemParameters p;
        p.size = 32ULL << 20;
        p.headroom = 16ULL << 20;
        std::atomic<bool> cancel{false};
        Progress progress;
        progress.event = [&cancel](const Event &event) {
            // The cgroup's part, or the first step where it is skipped (swap on).
            if (event.text.find("the worker writes the file") != std::string::npos || event.text.rfind("Wrote ", 0) == 0) {
                cancel = true;
            }
        };
        const Result result = makeShmemExperiment(p, shmemSteps())->run(progress, cancel);
        QVERIFY(result.cancelled);
        QCOMPARE(mountsOfShmemLesson(), std::string());
        QCOMPARE(swapAreas(), swapAtStart);
        QCOMPARE(childrenOfThisProcess(), 0);
        for (const std::string &group : m_groups) {
            QTRY_VERIFY_WITH_TIMEOUT(!exists(group), 5000);
        }
    }

    // A run killed outright leaves its tmpfs mounted: the next run as root
    // unmounts the ones whose process is gone, and says so.
    void shmemRemovesStaleMounts()
    {
        requireRoot();
        const std::string root = TestUtil::scratchDir("shmem-stale");
        const pid_t gone = ::fork();
        if (gone == 0) {
            ::_exit(0);
        }
        QVERIFY(gone > 0);
        int status = 0;
        QCOMPARE(::waitpid(gone, &status, 0), gone);
        const std::string stale = root + "/cachescope-shmem-" + std::to_string(gone) + "-left";
        QVERIFY(::mkdir(stale.c_str(), 0700) == 0);
        QVERIFY2(::mount("cachescope-shmem", stale.c_str(), "tmpfs", 0, "size=1m") == 0, strerror(errno));
        QVERIFY(!mountsOfShmemLesson().empty());
        ShmemParameters p;
        p.size = 16ULL << 20;
        p.mountRoot = root;
        p.pressure = false;
        p.withSwapVariant = false;
        p.dropCachesVariant = false;
        const Result result = makeShmemExperiment(p)->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(mountsOfShmemLesson(), std::string());
        QVERIFY(!exists(stale));
        QVERIFY(std::any_of(result.notes.begin(), result.notes.end(), [](const std::string &note) {
            return note.find("left mounted by an earlier run") != std::string::npos;
        }));

        // Without a mount, the file a killed run left in the tmpfs: removed too.
        const std::string leftFile = "/dev/shm/cachescope-shmem-" + std::to_string(gone);
        std::ofstream(leftFile) << "left";
        QVERIFY(exists(leftFile));
        p.folder = "/dev/shm";
        const Result again = makeShmemExperiment(p)->run({}, m_noCancel);
        QVERIFY2(again.ok(), again.error.c_str());
        QVERIFY(!exists(leftFile));
    }

    void shmemBadInput_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("tiny file") << QStringLiteral("tiny file") << QStringLiteral("from 16 MiB to 4 GiB");
        QTest::newRow("tiny headroom") << QStringLiteral("tiny headroom") << QStringLiteral("headroom must be from 4 MiB");
        QTest::newRow("headroom holds the file") << QStringLiteral("huge headroom") << QStringLiteral("to less than the file's size");
        QTest::newRow("no runs") << QStringLiteral("no runs") << QStringLiteral("at least one run");
        QTest::newRow("missing folder") << QStringLiteral("missing folder") << QStringLiteral("/nonexistent/cachescope: No such file");
        QTest::newRow("disk folder") << QStringLiteral("disk folder") << QStringLiteral("not a tmpfs");
        QTest::newRow("a file") << QStringLiteral("a file") << QStringLiteral("not a folder");
    }

    void shmemBadInput()
    {
        QFETCH(QString, what);
        QFETCH(QString, message);
        ShmemParameters p;
        const std::string disk = TestUtil::scratchDir("shmem-bad");
        if (what == QLatin1String("tiny file")) {
            p.size = 1 << 20;
        } else if (what == QLatin1String("tiny headroom")) {
            p.headroom = 1 << 20;
        } else if (what == QLatin1String("huge headroom")) {
            p.headroom = p.size;
        } else if (what == QLatin1String("no runs")) {
            p.runs = 0;
        } else if (what == QLatin1String("missing folder")) {
            p.folder = "/nonexistent/cachescope";
        } else if (what == QLatin1String("disk folder")) {
            p.folder = disk;
        } else if (what == QLatin1String("a file")) {
            p.folder = disk + "/plain";
            std::ofstream(p.folder) << "x";
        }
        bool asked = false;
        const PrivilegedSteps steps = neverAskedSteps(asked);
        const Result result = makeShmemExperiment(p, steps)->run({}, m_noCancel);
        QVERIFY2(QString::fromStdString(result.error).contains(message), result.error.c_str());
        if (!p.folder.empty()) {
            QVERIFY2(QString::fromStdString(result.error).contains(QString::fromStdString(p.folder)), result.error.c_str());
        }
        QVERIFY(!asked);
        QVERIFY(result.variants.empty());
        QCOMPARE(mountsOfShmemLesson(), std::string());
    }

    void thrashCliffBadInput_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("tiny limit") << QStringLiteral("tiny limit") << QStringLiteral("from 16 MiB to 16 GiB");
        QTest::newRow("no set") << QStringLiteral("no set") << QStringLiteral("no working set");
        QTest::newRow("huge set") << QStringLiteral("huge set") << QStringLiteral("at most 4 times the limit");
        QTest::newRow("no pass") << QStringLiteral("no pass") << QStringLiteral("from 1 to 100 passes");
        QTest::newRow("missing folder") << QStringLiteral("missing folder") << QStringLiteral("/nonexistent/cachescope: No such file");
    }

    void thrashCliffBadInput()
    {
        QFETCH(QString, what);
        QFETCH(QString, message);
        ThrashCliffParameters p;
        p.folder = TestUtil::scratchDir("contained-thrash-cliff-bad");
        if (what == QLatin1String("tiny limit")) {
            p.limit = 1 << 20;
        } else if (what == QLatin1String("no set")) {
            p.fractions.clear();
        } else if (what == QLatin1String("huge set")) {
            p.fractions = {0.5, 9};
        } else if (what == QLatin1String("no pass")) {
            p.passes = 0;
        } else if (what == QLatin1String("missing folder")) {
            p.folder = "/nonexistent/cachescope";
        }
        bool asked = false;
        const PrivilegedSteps steps = neverAskedSteps(asked);
        const Result result = makeThrashCliffExperiment(p, steps)->run({}, m_noCancel);
        QVERIFY2(QString::fromStdString(result.error).contains(message), result.error.c_str());
        QVERIFY(!asked);
        QVERIFY(result.variants.empty());
    }

    // ------------------------------------------------ the folder-eviction lesson

    // The robust signal: with folder 2 evicted first, folder 1 keeps clearly
    // more of its pages cached before the read than without. The read's time
    // is reported, never asserted.
    void folderThrashLesson()
    {
        requireRoot();
        const std::string folder = TestUtil::scratchDir("contained-folder-thrash");
        FolderThrashParameters p;
        p.folder = folder;
        p.fileCounts = {24};
        p.fileSize = 1ULL << 20;
        p.runs = 2;
        const Result result = makeFolderThrashExperiment(p, containSteps())->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.variants.size(), size_t(2));
        const VariantResult *without = result.variant("24 files, without eviction");
        const VariantResult *with = result.variant("24 files, evict folder 2 first");
        QVERIFY(without && !without->skipped);
        QVERIFY(with && !with->skipped);
        const double pages = double(24 * Cachescope::pagesFor(1ULL << 20));
        const double keptWithout = mean(without, "folder1_resident");
        const double keptWith = mean(with, "folder1_resident");
        qInfo("folder 1 cached before the read: %.0f of %.0f pages without eviction, %.0f with folder 2 evicted first; read %.1f ms against %.1f ms",
              keptWithout,
              pages,
              keptWith,
              mean(without, "read_seconds") * 1000,
              mean(with, "read_seconds") * 1000);
        QVERIFY2(keptWith >= keptWithout + pages / 4, qPrintable(QStringLiteral("%1 against %2").arg(keptWith).arg(keptWithout)));
        // Both runs of both variants were measured, and every figure is there.
        QCOMPARE(without->find("read_seconds")->values.size(), size_t(2));
        QCOMPARE(with->find("folder1_cached")->values.size(), size_t(2));
        const QJsonObject group = result.details.value(QStringLiteral("cgroup")).toObject();
        QVERIFY(group.value(QStringLiteral("path")).toString().contains(QLatin1String("cachescope")));
        QCOMPARE(uint64_t(group.value(QStringLiteral("limit")).toDouble()), folderThrashDefaultLimit(p.fileCounts, p.fileSize));
        if (group.value(QStringLiteral("version")).toInt() == 1) {
            // v1 does not count refaults: unknown, never 0.
            QVERIFY(!without->find("cgroup_refaults"));
            QVERIFY(without->runs.first().toObject().value(QStringLiteral("cgroup_refaults")).isNull());
        }
        // The eviction freed folder 2's pages; the walker's figure is in the run.
        QVERIFY(with->runs.first().toObject().value(QStringLiteral("folder2_evicted")).toDouble() > 0);
        QVERIFY(result.details.value(QStringLiteral("cgroup_removed")).toBool());
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void folderThrashWithoutContainIsSkipped()
    {
        const std::string folder = TestUtil::scratchDir("contained-folder-thrash-skipped");
        FolderThrashParameters p;
        p.folder = folder;
        p.fileCounts = {4};
        const Result result = makeFolderThrashExperiment(p)->run({}, m_noCancel);
        QVERIFY(result.error.empty());
        QCOMPARE(result.variants.size(), size_t(2));
        for (const VariantResult &v : result.variants) {
            QVERIFY(v.skipped);
            QVERIFY2(v.skipReason.find("memory cgroup") != std::string::npos, v.skipReason.c_str());
            QVERIFY2(v.skipReason.find("never runs unconfined") != std::string::npos, v.skipReason.c_str());
        }
        // Nothing was made.
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void folderThrashContainFails()
    {
        const std::string folder = TestUtil::scratchDir("contained-folder-thrash-refused");
        FolderThrashParameters p;
        p.folder = folder;
        p.fileCounts = {4};
        PrivilegedSteps steps;
        steps.contain = [](int, uint64_t, ContainedGroup &, std::string &error) {
            error = "not authorized";
            return false;
        };
        const Result result = makeFolderThrashExperiment(p, steps)->run({}, m_noCancel);
        QCOMPARE(result.variants.size(), size_t(2));
        QVERIFY(result.variants.front().skipped);
        QVERIFY2(result.variants.front().skipReason.find("not authorized") != std::string::npos, result.variants.front().skipReason.c_str());
        // The held worker was killed, and the folder it would have used removed.
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void folderThrashBadInput_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("no count") << QStringLiteral("no count") << QStringLiteral("no file count");
        QTest::newRow("count 0") << QStringLiteral("count 0") << QStringLiteral("from 1 to 100000");
        QTest::newRow("tiny files") << QStringLiteral("tiny files") << QStringLiteral("file size must be from 4 KiB");
        QTest::newRow("tiny limit") << QStringLiteral("tiny limit") << QStringLiteral("at least 16 MiB");
        QTest::newRow("no variant") << QStringLiteral("no variant") << QStringLiteral("no variant");
        QTest::newRow("missing folder") << QStringLiteral("missing folder") << QStringLiteral("/nonexistent/cachescope: No such file");
        QTest::newRow("tmpfs") << QStringLiteral("tmpfs") << QStringLiteral("is in memory");
    }

    void folderThrashBadInput()
    {
        QFETCH(QString, what);
        QFETCH(QString, message);
        FolderThrashParameters p;
        p.folder = TestUtil::scratchDir("contained-folder-thrash-bad");
        p.fileCounts = {4};
        if (what == QLatin1String("no count")) {
            p.fileCounts.clear();
        } else if (what == QLatin1String("count 0")) {
            p.fileCounts = {0, 4};
        } else if (what == QLatin1String("tiny files")) {
            p.fileSize = 100;
        } else if (what == QLatin1String("tiny limit")) {
            p.limit = 1 << 20;
        } else if (what == QLatin1String("no variant")) {
            p.withoutEvictionVariant = false;
            p.evictionVariant = false;
        } else if (what == QLatin1String("missing folder")) {
            p.folder = "/nonexistent/cachescope";
        } else if (what == QLatin1String("tmpfs")) {
            p.folder = "/dev/shm";
            if (!exists(p.folder)) {
                QSKIP("no /dev/shm here");
            }
        }
        bool asked = false;
        const PrivilegedSteps steps = neverAskedSteps(asked);
        const Result result = makeFolderThrashExperiment(p, steps)->run({}, m_noCancel);
        QVERIFY2(QString::fromStdString(result.error).contains(message), result.error.c_str());
        QVERIFY(!asked);
        QVERIFY(result.variants.empty());
    }

    // Cancel while folder 3 is copied: the worker is killed, the files and
    // the cgroup are removed.
    void folderThrashCancel()
    {
        requireRoot();
        const std::string folder = TestUtil::scratchDir("contained-folder-thrash-cancel");
        FolderThrashParameters p;
        p.folder = folder;
        p.fileCounts = {24};
        p.fileSize = 1ULL << 20;
        p.runs = 5;
        std::atomic<bool> cancel{false};
        Progress progress;
        progress.event = [&cancel](const Event &event) {
            if (event.text.find("copying folder 3 to 4") != std::string::npos) {
                cancel = true;
            }
        };
        const Result result = makeFolderThrashExperiment(p, containSteps())->run(progress, cancel);
        QVERIFY(result.cancelled);
        QCOMPARE(m_groups.size(), size_t(1));
        QVERIFY(result.error.empty());
        QCOMPARE(filesIn(folder), std::vector<std::string>());
        QCOMPARE(childrenOfThisProcess(), 0);
        // The cgroup is gone with its worker (cleanup() polls for it).
    }

    void folderThrashCli()
    {
        requireRoot();
        const std::string folder = TestUtil::scratchDir("contained-folder-thrash-cli");
        const auto r = TestUtil::run(TestUtil::cliPath(),
                                     {QStringLiteral("experiment"),
                                      QStringLiteral("folder-thrash"),
                                      QStringLiteral("--folder"),
                                      QString::fromStdString(folder),
                                      QStringLiteral("--files"),
                                      QStringLiteral("6,8"),
                                      QStringLiteral("--file-size"),
                                      QStringLiteral("512K"),
                                      QStringLiteral("--runs"),
                                      QStringLiteral("1")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains(QLatin1String("evict folder 2 first")) && out.contains(QLatin1String("without eviction")), r.out.constData());
        QVERIFY2(out.contains(QLatin1String("Cgroup: ")), r.out.constData());
        QCOMPARE(filesIn(folder), std::vector<std::string>());

        // --files takes whole numbers only.
        const auto bad = TestUtil::run(TestUtil::cliPath(),
                                       {QStringLiteral("experiment"), QStringLiteral("folder-thrash"), QStringLiteral("--files"), QStringLiteral("8,x")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--files: 'x'"), bad.err.constData());
    }

    // ------------------------------------------------ the contained pressure

    // In a cgroup of the warm file plus a little, the child's allocation of
    // the file's size takes a clear part of the file's pages, on a machine
    // with gigabytes free (on the whole machine: none).
    void pressureContainedReclaims()
    {
        requireRoot();
        const std::string folder = TestUtil::scratchDir("contained-pressure");
        PressureParameters p;
        p.file.folder = folder;
        p.file.size = 64ULL << 20;
        p.step = 8ULL << 20;
        p.stepDelayMs = 5;
        p.holdMs = 100;
        const Result result = makePressureExperiment(p, containSteps())->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        const VariantResult *v = result.variant("with swap");
        QVERIFY(v && !v->skipped);
        const QJsonObject run = v->runs.first().toObject();
        const double pages = double(Cachescope::pagesFor(p.file.size));
        // The child read the whole file into its cgroup first.
        QVERIFY2(run.value(QStringLiteral("file_resident_before")).toDouble() >= pages * 0.95,
                 qPrintable(QString::number(run.value(QStringLiteral("file_resident_before")).toDouble())));
        // It allocated the file's size, and the cgroup gave up most of the file for it.
        QCOMPARE(run.value(QStringLiteral("allocated")).toDouble(), double(p.file.size));
        const double atPeak = run.value(QStringLiteral("file_resident_at_peak")).toDouble();
        qInfo("warm file: %.0f of %.0f pages cached before, %.0f at the peak (%.1f%% survived), cgroup cache %.1f MiB -> %.1f MiB",
              run.value(QStringLiteral("file_resident_before")).toDouble(),
              pages,
              atPeak,
              mean(v, "warm_file_survived"),
              run.value(QStringLiteral("group_cached_before")).toDouble() / 1048576,
              run.value(QStringLiteral("group_cached_at_peak")).toDouble() / 1048576);
        QVERIFY2(atPeak <= pages / 2, qPrintable(QString::number(atPeak)));
        QVERIFY(mean(v, "cache_reclaimed") >= double(p.file.size) / 2);
        QVERIFY(run.value(QStringLiteral("cgroup")).toObject().value(QStringLiteral("path")).toString().contains(QLatin1String("cachescope")));
        QVERIFY(run.value(QStringLiteral("cgroup_removed")).toBool());
        QVERIFY(result.details.value(QStringLiteral("contained")).toBool());
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void pressureContainedSkippedWithoutContain()
    {
        const std::string folder = TestUtil::scratchDir("contained-pressure-skipped");
        PressureParameters p;
        p.file.folder = folder;
        p.file.size = 4ULL << 20;
        const Result result = makePressureExperiment(p)->run({}, m_noCancel);
        const VariantResult *v = result.variant("with swap");
        QVERIFY(v && v->skipped);
        QVERIFY2(v->skipReason.find("memory cgroup") != std::string::npos && v->skipReason.find("--whole-machine") != std::string::npos, v->skipReason.c_str());
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void pressureContainedCancel()
    {
        requireRoot();
        const std::string folder = TestUtil::scratchDir("contained-pressure-cancel");
        PressureParameters p;
        p.file.folder = folder;
        p.file.size = 32ULL << 20;
        p.step = 4ULL << 20;
        p.stepDelayMs = 100;
        std::atomic<bool> cancel{false};
        Progress progress;
        progress.sample = [&cancel](const Sample &sample) {
            if (sample.allocated.value_or(0) > 0) {
                cancel = true;
            }
        };
        const Result result = makePressureExperiment(p, containSteps())->run(progress, cancel);
        QVERIFY(result.cancelled);
        QCOMPARE(m_groups.size(), size_t(1));
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }
};

QTEST_GUILESS_MAIN(ContainedExperimentTest)
#include "containedexperimenttest.moc"
