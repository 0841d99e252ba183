// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The experiment engines against the real kernel, on small sizes, and the
// `cachescope-cli experiment` command. Longer than our usual 800 lines on
// purpose: every case ends with the same checks (no child, no temporary file,
// no swap change left behind) in cleanup(), which QtTest runs only for the
// cases of its own class, and one class is one executable.

#include "testutil.h"

#include "experiments/engines.h"
#include "residency.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace Cachescope::Experiments;

namespace
{

std::string readText(const std::string &path)
{
    std::ifstream stream(path);
    std::stringstream text;
    text << stream.rdbuf();
    return text.str();
}

// Our own children, from /proc: after an engine returns there must be none.
std::vector<int> childrenOfThisProcess()
{
    std::vector<int> children;
    const std::string self = std::to_string(::getpid());
    DIR *proc = ::opendir("/proc");
    if (!proc) {
        return children;
    }
    while (const dirent *entry = ::readdir(proc)) {
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9') {
            continue;
        }
        const std::string status = readText(std::string("/proc/") + entry->d_name + "/status");
        const size_t at = status.find("\nPPid:\t");
        if (at != std::string::npos && status.compare(at + 7, self.size() + 1, self + '\n') == 0) {
            children.push_back(std::atoi(entry->d_name));
        }
    }
    ::closedir(proc);
    return children;
}

std::vector<std::string> filesIn(const std::string &folder)
{
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(folder)) {
        names.push_back(entry.path().filename().string());
    }
    return names;
}

QJsonObject firstRun(const VariantResult &variant)
{
    return variant.runs.isEmpty() ? QJsonObject() : variant.runs.first().toObject();
}

double median(const VariantResult &variant, const std::string &measurement)
{
    const Measurement *m = variant.find(measurement);
    return m ? m->statistics.median : -1;
}

// Runs an engine on another thread and cancels it when trigger says so.
Result runAndCancel(Experiment &experiment, const std::function<bool(const Sample *, const Event *)> &trigger)
{
    std::atomic<bool> cancel{false};
    Progress progress;
    progress.event = [&](const Event &event) {
        if (trigger(nullptr, &event)) {
            cancel = true;
        }
    };
    progress.sample = [&](const Sample &sample) {
        if (trigger(&sample, nullptr)) {
            cancel = true;
        }
    };
    Result result;
    std::thread thread([&] {
        result = experiment.run(progress, cancel);
    });
    thread.join();
    return result;
}

} // namespace

class ExperimentTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        m_swapsBefore = readText("/proc/swaps");
    }

    void cleanup()
    {
        // Whatever a test did, no child of ours may be left.
        QCOMPARE(childrenOfThisProcess(), std::vector<int>());
        QCOMPARE(readText("/proc/swaps"), m_swapsBefore);
    }

    // ------------------------------------------------------- read_ahead_kb

    // The disk's setting for a partition (through the /sys/dev/block link,
    // as on a real system), a whole disk's own, and nothing without either.
    void readAheadOfAFilesDevice()
    {
        namespace fs = std::filesystem;
        const fs::path sys = fs::temp_directory_path() / ("cachescope-sys-" + std::to_string(::getpid()));
        fs::remove_all(sys);
        const std::string file = (sys / "file").string();
        fs::create_directories(sys / "dev/block");
        std::ofstream(file) << "x";
        struct stat st {
        };
        QCOMPARE(::stat(file.c_str(), &st), 0);
        const std::string device = std::to_string(major(st.st_dev)) + ':' + std::to_string(minor(st.st_dev));
        QVERIFY(Cachescope::Experiments::readAheadKiB(file, sys.string()) == std::nullopt);

        fs::create_directories(sys / "devices/disk/part");
        fs::create_directories(sys / "devices/disk/queue");
        std::ofstream((sys / "devices/disk/queue/read_ahead_kb").string()) << "8192\n";
        fs::create_directory_symlink("../../devices/disk/part", sys / "dev/block" / device);
        QVERIFY(Cachescope::Experiments::readAheadKiB(file, sys.string()) == std::optional<uint64_t>(8192));

        fs::create_directories(sys / "devices/disk/part/queue");
        std::ofstream((sys / "devices/disk/part/queue/read_ahead_kb").string()) << "128\n";
        QVERIFY(Cachescope::Experiments::readAheadKiB(file, sys.string()) == std::optional<uint64_t>(128));
        QVERIFY(Cachescope::Experiments::readAheadKiB((sys / "missing").string(), sys.string()) == std::nullopt);
        fs::remove_all(sys);
    }

    // ---------------------------------------------------------- statistics

    void statistics_data()
    {
        QTest::addColumn<QList<double>>("values");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("stddev");
        QTest::addColumn<double>("halfWidth");
        QTest::addColumn<double>("median");
        // sd = sqrt(32/7); t(7) = 2.365
        QTest::newRow("eight values") << QList<double>{2, 4, 4, 4, 5, 5, 7, 9} << 5.0 << std::sqrt(32.0 / 7) << 2.365 * std::sqrt(32.0 / 7) / std::sqrt(8.0)
                                      << 4.5;
        QTest::newRow("one value: no interval") << QList<double>{3.5} << 3.5 << 0.0 << 0.0 << 3.5;
        // sd = sqrt(2); t(1) = 12.706
        QTest::newRow("two values") << QList<double>{1, 3} << 2.0 << std::sqrt(2.0) << 12.706 * std::sqrt(2.0) / std::sqrt(2.0) << 2.0;
        QList<double> many;
        for (int i = 0; i < 40; ++i) {
            many.append(i % 2 ? 11.0 : 9.0);
        }
        // sd = sqrt(40/39); beyond 30 values the normal 1.96
        QTest::newRow("forty values") << many << 10.0 << std::sqrt(40.0 / 39) << 1.96 * std::sqrt(40.0 / 39) / std::sqrt(40.0) << 10.0;
    }

    void statistics()
    {
        QFETCH(QList<double>, values);
        QFETCH(double, mean);
        QFETCH(double, stddev);
        QFETCH(double, halfWidth);
        QFETCH(double, median);
        const Statistics s = computeStatistics(std::vector<double>(values.begin(), values.end()));
        QCOMPARE(s.count, int(values.size()));
        QVERIFY(std::abs(s.mean - mean) < 1e-9);
        QVERIFY(std::abs(s.standardDeviation - stddev) < 1e-9);
        QVERIFY2(std::abs(s.confidenceHalfWidth - halfWidth) < 1e-9, qPrintable(QString::number(s.confidenceHalfWidth)));
        QVERIFY(std::abs(s.confidenceLow() - (mean - halfWidth)) < 1e-9);
        QVERIFY(std::abs(s.median - median) < 1e-9);
    }

    void studentTable()
    {
        QCOMPARE(studentT95(1), 12.706);
        QCOMPARE(studentT95(9), 2.262);
        QCOMPARE(studentT95(29), 2.045);
        QCOMPARE(studentT95(30), 1.96);
        QCOMPARE(studentT95(1000), 1.96);
        QCOMPARE(studentT95(0), 0.0);
    }

    void resultJsonRoundTrip()
    {
        Result result;
        result.experiment = "cold-read";
        result.started = "2026-01-01T00:00:00Z";
        result.parameters.insert(QStringLiteral("runs"), 2);
        VariantResult v;
        v.name = "fadvise";
        v.add("cold_seconds", "s", 1.5);
        v.add("cold_seconds", "s", 2.5);
        v.computeStatistics();
        result.variants.push_back(v);
        VariantResult skipped;
        skipped.name = "drop_caches";
        skipped.skipped = true;
        skipped.skipReason = "needs the helper";
        result.variants.push_back(skipped);
        Sample sample;
        sample.seconds = 0.25;
        sample.cached = 1234;
        sample.fileResident = 7;
        result.samples.push_back(sample);
        result.notes.push_back("a note");

        const QByteArray json = QJsonDocument(resultToJson(result)).toJson();
        const std::optional<Result> back = resultFromJson(QJsonDocument::fromJson(json).object());
        QVERIFY(back);
        QCOMPARE(back->experiment, result.experiment);
        QCOMPARE(back->variants.size(), size_t(2));
        QCOMPARE(back->variants[0].find("cold_seconds")->values, (std::vector<double>{1.5, 2.5}));
        QCOMPARE(back->variants[0].find("cold_seconds")->statistics.mean, 2.0);
        QVERIFY(back->variants[1].skipped);
        QCOMPARE(back->variants[1].skipReason, std::string("needs the helper"));
        QCOMPARE(back->samples.size(), size_t(1));
        QCOMPARE(back->samples[0].cached, std::optional<uint64_t>(1234));
        QCOMPARE(back->samples[0].fileResident, std::optional<uint64_t>(7));
        QVERIFY(!back->samples[0].dirty);
        QCOMPARE(back->notes, result.notes);

        std::string error;
        QVERIFY(!resultFromJson(QJsonObject{{QStringLiteral("hello"), 1}}, &error));
        QVERIFY(error.find("not an experiment result") != std::string::npos);
    }

    // The cold start's file list is typed in the result and keeps its JSON
    // form (details.files, details.files_bytes): unknown residency is null.
    void programFilesJsonRoundTrip()
    {
        Result result;
        result.experiment = "cold-start";
        ProgramFile known;
        known.path = "/usr/bin/true";
        known.size = 10000;
        known.pages = 3;
        known.residentWarm = 3;
        known.residentAfterEvict = 1;
        known.remainReason = "mapped";
        ProgramFile hidden;
        hidden.path = "/usr/lib/libc.so.6";
        hidden.size = 2000;
        hidden.pages = 1;
        hidden.residencyHidden = true;
        hidden.hiddenReason = "not the owner";
        result.programFiles = std::vector<ProgramFile>{known, hidden};

        const QJsonObject json = resultToJson(result);
        const QJsonObject details = json.value(QStringLiteral("details")).toObject();
        QCOMPARE(details.value(QStringLiteral("files_bytes")).toDouble(), 12000.0);
        const QJsonArray files = details.value(QStringLiteral("files")).toArray();
        QCOMPARE(files.size(), 2);
        QCOMPARE(files[0].toObject().value(QStringLiteral("resident_warm")).toDouble(), 3.0);
        QCOMPARE(files[0].toObject().value(QStringLiteral("remain_reason")).toString(), QStringLiteral("mapped"));
        QVERIFY(files[1].toObject().value(QStringLiteral("resident_warm")).isNull());
        QVERIFY(files[1].toObject().value(QStringLiteral("residency_hidden")).toBool());

        const std::optional<Result> back = resultFromJson(json);
        QVERIFY(back && back->programFiles);
        QCOMPARE(back->programFiles->size(), size_t(2));
        QCOMPARE(back->programFiles->at(0).path, known.path);
        QCOMPARE(back->programFiles->at(0).residentAfterEvict, std::optional<uint64_t>(1));
        QVERIFY(back->programFiles->at(1).residencyHidden);
        QVERIFY(!back->programFiles->at(1).residentWarm);
        QVERIFY(!back->details.contains(QStringLiteral("files")));
        QCOMPARE(resultToJson(*back), json);
        // The other experiments have no file list.
        QVERIFY(
            !resultFromJson(QJsonObject{{QStringLiteral("experiment"), QStringLiteral("faults")}, {QStringLiteral("variants"), QJsonArray()}})->programFiles);
    }

    // ---------------------------------------------------------- 1. cold read

    void coldReadColdThenWarm()
    {
        const std::string folder = TestUtil::scratchDir("experiment-coldread");
        ColdReadParameters p;
        p.file.folder = folder;
        p.file.size = 96ULL << 20;
        p.runs = 3;
        const Result result = makeColdReadExperiment(p)->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        const VariantResult *v = result.variant("fadvise");
        QVERIFY(v && !v->skipped);
        QCOMPARE(v->runs.size(), 3);
        const double pages = result.details.value(QStringLiteral("pages")).toDouble();
        QCOMPARE(pages, double(Cachescope::pagesFor(p.file.size)));
        for (const QJsonValue &run : v->runs) {
            // The cold read starts with nothing cached: every byte came from the disk.
            QCOMPARE(run.toObject().value(QStringLiteral("resident_before_cold")).toDouble(), 0.0);
            // ... and leaves everything cached for the warm read, but for pages
            // the kernel reclaimed on its own meanwhile, which it counts.
            QCOMPARE(run.toObject().value(QStringLiteral("resident_before_warm")).toDouble()
                         + run.toObject().value(QStringLiteral("reclaimed_during_cold")).toDouble(),
                     pages);
        }
        // Medians of three: a cold read of 96 MiB goes to the disk, a warm one
        // is a memory copy. On this kind of machine (virtio disk) the gap is
        // large (see the report); this asserts only the direction.
        QVERIFY2(median(*v, "cold_seconds") > median(*v, "warm_seconds"),
                 qPrintable(QStringLiteral("cold %1 s, warm %2 s").arg(median(*v, "cold_seconds")).arg(median(*v, "warm_seconds"))));
        QVERIFY(median(*v, "cold_warm_ratio") > 1);
        QCOMPARE(v->find("cold_seconds")->statistics.count, 3);
        // The sampler saw the file during the cold read.
        const bool sampled = std::any_of(result.samples.begin(), result.samples.end(), [](const Sample &s) {
            return s.phase == "cold read" && s.fileResident.has_value();
        });
        QVERIFY(sampled);
        // The heatmap's histogram: empty when the cold read starts, full after it.
        const auto histogramResident = [](const Sample &s) {
            uint64_t resident = 0;
            for (const uint64_t r : s.fileHistogram->resident) {
                resident += r;
            }
            return resident;
        };
        const Sample *firstCold = nullptr;
        const Sample *lastDone = nullptr;
        for (const Sample &s : result.samples) {
            if (s.phase == "cold read" && !firstCold) {
                firstCold = &s;
            }
            if (s.phase == "warm read done") {
                lastDone = &s;
            }
        }
        QVERIFY(firstCold && firstCold->fileHistogram && lastDone && lastDone->fileHistogram);
        QCOMPARE(firstCold->fileHistogram->buckets(), 256);
        QCOMPARE(firstCold->fileHistogram->pages, uint64_t(pages));
        QCOMPARE(histogramResident(*firstCold), uint64_t(0));
        QCOMPARE(histogramResident(*lastDone), uint64_t(pages));
        // Live only: the stored JSON has no histogram.
        QVERIFY(!sampleToJson(*lastDone).contains(QStringLiteral("file_histogram")));
        // The file it made is gone.
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void coldReadRefusesMemoryFolders()
    {
        struct statfs fs;
        if (::statfs("/tmp", &fs) != 0 || fs.f_type != 0x01021994) {
            QSKIP("/tmp is not tmpfs here");
        }
        ColdReadParameters p;
        p.file.folder = "/tmp";
        p.file.size = 1 << 20;
        const Result result = makeColdReadExperiment(p)->run({}, m_noCancel);
        QVERIFY(!result.ok());
        QVERIFY2(result.error.find("/tmp") != std::string::npos && result.error.find("tmpfs") != std::string::npos, result.error.c_str());
    }

    void coldReadRefusesTooBigFile()
    {
        const std::string folder = TestUtil::scratchDir("experiment-toobig");
        ColdReadParameters p;
        p.file.folder = folder;
        p.file.size = 1ULL << 60;
        const Result result = makeColdReadExperiment(p)->run({}, m_noCancel);
        QVERIFY2(result.error.find("not enough free space") != std::string::npos, result.error.c_str());
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void coldReadDropCachesVariant()
    {
        const std::string folder = TestUtil::scratchDir("experiment-dropcaches");
        const std::string path = folder + "/given";
        TestUtil::makeColdFile(path, 8 << 20);
        ColdReadParameters p;
        p.file.path = path;
        p.runs = 2;
        p.dropCachesVariant = true;
        // Without the helper: skipped, with the reason.
        Result result = makeColdReadExperiment(p)->run({}, m_noCancel);
        QVERIFY(result.ok());
        const VariantResult *skipped = result.variant("drop_caches");
        QVERIFY(skipped && skipped->skipped);
        QVERIFY(skipped->skipReason.find("privileged helper") != std::string::npos);
        QVERIFY(!result.variant("fadvise")->skipped);

        // With a stand-in for the helper (evicting this file only): the
        // variant calls it before every cold read.
        int calls = 0;
        PrivilegedSteps steps;
        steps.dropCaches = [&](std::string &) {
            ++calls;
            TestUtil::evictRaw(path);
            return true;
        };
        p.fadviseVariant = false;
        result = makeColdReadExperiment(p, steps)->run({}, m_noCancel);
        QVERIFY(result.ok());
        QCOMPARE(calls, 2);
        QCOMPARE(firstRun(*result.variant("drop_caches")).value(QStringLiteral("resident_before_cold")).toDouble(), 0.0);
        // A failing helper: skipped with its message.
        steps.dropCaches = [](std::string &error) {
            error = "not authorized";
            return false;
        };
        result = makeColdReadExperiment(p, steps)->run({}, m_noCancel);
        QVERIFY(result.variant("drop_caches")->skipped);
        QVERIFY(result.variant("drop_caches")->skipReason.find("not authorized") != std::string::npos);
        // A file given by the user is never removed.
        QVERIFY(std::filesystem::exists(path));
    }

    // ---------------------------------------------------------- 2. pressure

    void pressureChildRespectsLimit()
    {
        const std::string folder = TestUtil::scratchDir("experiment-pressure");
        PressureParameters p;
        p.file.folder = folder;
        p.file.size = 32ULL << 20;
        p.limit = 256ULL << 20;
        p.step = 32ULL << 20;
        p.contained = false; // the whole machine (containedexperimenttest: in a cgroup)
        p.stepDelayMs = 5;
        p.holdMs = 100;
        const Result result = makePressureExperiment(p)->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        const VariantResult *v = result.variant("with swap");
        QVERIFY(v && !v->skipped);
        const QJsonObject run = firstRun(*v);
        const double allocated = run.value(QStringLiteral("allocated")).toDouble();
        QVERIFY(allocated > 0);
        QVERIFY(allocated <= double(p.limit));
        // Measured from outside, not from the child's word: its anonymous
        // memory never went past the limit plus what fork copied from us.
        const double ourAnonymous = [] {
            const std::string status = readText("/proc/self/status");
            const size_t at = status.find("RssAnon:");
            return at == std::string::npos ? 0.0 : std::strtod(status.c_str() + at + 8, nullptr) * 1024;
        }();
        QVERIFY(run.value(QStringLiteral("child_peak_rss_anon")).toDouble() >= allocated * 0.9);
        QVERIFY(run.value(QStringLiteral("child_peak_rss_anon")).toDouble() <= double(p.limit) + ourAnonymous + (16 << 20));
        // The warm file was fully resident before the pressure, but for pages
        // the kernel reclaimed on its own while it was read, which it counts.
        QCOMPARE(run.value(QStringLiteral("file_resident_before")).toDouble() + run.value(QStringLiteral("file_reclaimed_before")).toDouble(),
                 double(Cachescope::pagesFor(p.file.size)));
        QVERIFY(v->find("warm_file_survived"));
        QVERIFY(result.variant("without swap") == nullptr);
        QCOMPARE(filesIn(folder), std::vector<std::string>());
        // The allocation shows in the samples.
        QVERIFY(std::any_of(result.samples.begin(), result.samples.end(), [&](const Sample &s) {
            return s.allocated && double(*s.allocated) == allocated;
        }));
    }

    void pressureWithoutSwapRestoresSwap()
    {
        const std::string folder = TestUtil::scratchDir("experiment-pressure-swap");
        PressureParameters p;
        p.file.folder = folder;
        p.file.size = 8ULL << 20;
        p.limit = 64ULL << 20;
        p.step = 16ULL << 20;
        p.holdMs = 10;
        p.contained = false;
        p.withSwapVariant = false;
        p.withoutSwapVariant = true;
        // Without the helper: skipped.
        Result result = makePressureExperiment(p)->run({}, m_noCancel);
        QVERIFY(result.variant("without swap")->skipped);
        QVERIFY(result.variant("without swap")->skipReason.find("privileged helper") != std::string::npos);

        // Stand-ins that record the order (the real swap is never touched here).
        std::vector<std::string> calls;
        PrivilegedSteps steps;
        steps.swapOff = [&](std::string &) {
            calls.push_back("off");
            return true;
        };
        steps.swapOn = [&](std::string &) {
            calls.push_back("on");
            return true;
        };
        result = makePressureExperiment(p, steps)->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(calls, (std::vector<std::string>{"off", "on"}));

        // Cancelled while the child allocates: swap still goes back on.
        calls.clear();
        p.stepDelayMs = 50;
        auto experiment = makePressureExperiment(p, steps);
        result = runAndCancel(*experiment, [](const Sample *sample, const Event *) {
            return sample && sample->allocated.value_or(0) > 0;
        });
        QVERIFY(result.cancelled);
        QCOMPARE(calls, (std::vector<std::string>{"off", "on"}));
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    // ---------------------------------------------------------- 3. cold start

    void coldStartFileList_data()
    {
        QTest::addColumn<bool>("maps");
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<QString>("executable");
        if (TestUtil::haveProgram("strace")) {
            QTest::newRow("strace, ls") << false << QStringList{QStringLiteral("ls"), QStringLiteral("/")} << QStringLiteral("/usr/bin/ls");
        }
        // The fallback samples /proc/PID/maps: the program has to live long enough.
        QTest::newRow("maps, sleep") << true << QStringList{QStringLiteral("sleep"), QStringLiteral("0.3")} << QStringLiteral("/usr/bin/sleep");
    }

    void coldStartFileList()
    {
        QFETCH(bool, maps);
        QFETCH(QStringList, command);
        QFETCH(QString, executable);
        const std::string folder = TestUtil::scratchDir("experiment-coldstart");
        ColdStartParameters p;
        for (const QString &argument : command) {
            p.command.push_back(argument.toStdString());
        }
        p.runs = 2;
        p.forceMapsFallback = maps;
        // The strace log goes to a folder of its own in $TMPDIR, whatever
        // the working folder (one nobody may write, here).
        const QByteArray tmpBefore = qgetenv("TMPDIR");
        qputenv("TMPDIR", QByteArray::fromStdString(folder));
        const QString cwdBefore = QDir::currentPath();
        QVERIFY(QDir::setCurrent(QStringLiteral("/proc")));
        const Result result = makeColdStartExperiment(p)->run({}, m_noCancel);
        QVERIFY(QDir::setCurrent(cwdBefore));
        if (tmpBefore.isNull()) {
            qunsetenv("TMPDIR");
        } else {
            qputenv("TMPDIR", tmpBefore);
        }
        QVERIFY2(result.ok(), result.error.c_str());
        QCOMPARE(result.details.value(QStringLiteral("recording_method")).toString(), maps ? QStringLiteral("maps") : QStringLiteral("strace"));
        QStringList paths;
        QVERIFY(result.programFiles);
        for (const ProgramFile &file : *result.programFiles) {
            paths.append(QFile::decodeName(file.path.c_str()));
            QVERIFY(file.size > 0);
        }
        QVERIFY2(paths.contains(executable), qPrintable(paths.join(QLatin1Char(' '))));
        QVERIFY2(std::any_of(paths.begin(),
                             paths.end(),
                             [](const QString &path) {
                                 return path.endsWith(QLatin1String("/libc.so.6"));
                             }),
                 qPrintable(paths.join(QLatin1Char(' '))));
        const VariantResult *v = result.variant("own files (fadvise)");
        QVERIFY(v);
        QCOMPARE(v->find("cold_seconds")->values.size(), size_t(2));
        QCOMPARE(v->find("warm_seconds")->values.size(), size_t(2));
        QCOMPARE(firstRun(*v).value(QStringLiteral("cold_exit_status")).toInt(), 0);
        QCOMPARE(maps, !result.notes.empty());
        // The strace log and its folder are gone.
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void coldStartStraceParser()
    {
        const std::string folder = TestUtil::scratchDir("experiment-strace-parse");
        TestUtil::makeColdFile(folder + "/a file", 10);
        TestUtil::makeColdFile(folder + "/rel", 10);
        const std::string log = "100 execve(\"/usr/bin/ls\", [\"ls\"], 0x7ffd /* 3 vars */) = 0\n"
                                "100 openat(AT_FDCWD, \"/nonexistent\", O_RDONLY) = -1 ENOENT (No such file or directory)\n"
                                "100 openat(AT_FDCWD, \""
            + folder
            + "/a\\40file\", O_RDONLY|O_CLOEXEC) = 3\n"
              "101 openat(AT_FDCWD, \"rel\", O_RDONLY <unfinished ...>\n"
              "100 openat(AT_FDCWD, \"/usr\", O_RDONLY|O_DIRECTORY) = 4\n"
              "101 <... openat resumed>) = 5\n"
              "100 openat(7, \"relative-to-a-descriptor\", O_RDONLY) = 6\n"
              "100 +++ exited with 0 +++\n";
        const std::vector<std::string> files = filesFromStraceLog(log, folder);
        QCOMPARE(files, (std::vector<std::string>{"/usr/bin/ls", folder + "/a file", folder + "/rel"}));
    }

    void coldStartBadCommands()
    {
        ColdStartParameters p;
        p.command = {"/no/such/program"};
        Result result = makeColdStartExperiment(p)->run({}, m_noCancel);
        QVERIFY2(result.error.find("/no/such/program") != std::string::npos && result.error.find("no such program") != std::string::npos, result.error.c_str());
        p.command = {"surely-not-a-program-cachescope"};
        result = makeColdStartExperiment(p)->run({}, m_noCancel);
        QVERIFY2(result.error.find("in PATH") != std::string::npos, result.error.c_str());
        // A command that does not end: killed at the timeout, reported.
        p.command = {"sleep", "30"};
        p.timeoutSeconds = 0.3;
        p.forceMapsFallback = true;
        const auto start = std::chrono::steady_clock::now();
        result = makeColdStartExperiment(p)->run({}, m_noCancel);
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
        QVERIFY2(result.error.find("did not finish within") != std::string::npos, result.error.c_str());
    }

    // ---------------------------------------------------------- 4. writeback

    void writebackDirtyThenDrained()
    {
        if (!Cachescope::cachestatAvailable()) {
            QSKIP("no cachestat(2): the file's own dirty pages are unknown");
        }
        const std::string folder = TestUtil::scratchDir("experiment-writeback");
        WritebackParameters p;
        p.file.folder = folder;
        p.file.size = 32ULL << 20;
        p.step = 4ULL << 20;
        p.waitSeconds = 0.2;
        const Result result = makeWritebackExperiment(p)->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        const QJsonObject run = firstRun(result.variants.front());
        QVERIFY2(run.value(QStringLiteral("file_dirty_peak")).toDouble() > 0, "no dirty page was ever seen");
        QCOMPARE(run.value(QStringLiteral("file_dirty_after_fsync")).toDouble(), 0.0);
        QCOMPARE(run.value(QStringLiteral("file_writeback_after_fsync")).toDouble(), 0.0);
        QVERIFY(run.value(QStringLiteral("fsync_seconds")).toDouble() >= 0);
        QVERIFY(result.details.value(QStringLiteral("vm_settings")).toObject().contains(QStringLiteral("dirty_ratio")));
        QVERIFY(result.details.value(QStringLiteral("vm_settings")).toObject().contains(QStringLiteral("dirty_expire_centisecs")));
        // Written bytes climb in steps in the samples.
        uint64_t lastWritten = 0;
        int steps = 0;
        for (const Sample &s : result.samples) {
            if (s.phase == "writing") {
                QVERIFY(s.written.value_or(0) > lastWritten);
                lastWritten = *s.written;
                ++steps;
            }
        }
        QCOMPARE(steps, 8);
        // The automatic fsync and sync at the end report their times in a sample.
        QVERIFY(std::any_of(result.samples.begin(), result.samples.end(), [](const Sample &s) {
            return s.phase == "after fsync" && s.fsyncSeconds.has_value();
        }));
        QVERIFY(std::any_of(result.samples.begin(), result.samples.end(), [](const Sample &s) {
            return s.phase == "after sync" && s.syncSeconds.has_value();
        }));
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    // The window's fsync and sync buttons: asked for while the experiment
    // waits with dirty pages, either cleans the file at once (long before the
    // kernel's 30 s expiry would), is timed, and gets the credit.
    void writebackCallsOnRequest_data()
    {
        QTest::addColumn<bool>("askFsync");
        QTest::addColumn<QString>("cleanedBy");
        QTest::newRow("fsync and sync") << true << QStringLiteral("fsync");
        QTest::newRow("sync only") << false << QStringLiteral("sync");
    }

    void writebackCallsOnRequest()
    {
        QFETCH(bool, askFsync);
        QFETCH(QString, cleanedBy);
        if (!Cachescope::cachestatAvailable()) {
            QSKIP("no cachestat(2): the file's own dirty pages are unknown");
        }
        const std::string folder = TestUtil::scratchDir("experiment-writeback-asked");
        WritebackParameters p;
        p.file.folder = folder;
        p.file.size = 16ULL << 20;
        p.step = 4ULL << 20;
        p.waitSeconds = 20; // ended by the asked-for call, not by the clock
        p.sampleIntervalMs = 20;
        p.requests = std::make_shared<WritebackRequests>();
        Progress progress;
        std::atomic<bool> asked{false};
        progress.sample = [&](const Sample &s) {
            if (s.phase == "waiting" && s.fileDirty.value_or(0) > 0 && !asked.exchange(true)) {
                p.requests->sync.fetch_add(1);
                if (askFsync) {
                    p.requests->fsync.fetch_add(1);
                }
            }
        };
        QElapsedTimer timer;
        timer.start();
        const Result result = makeWritebackExperiment(p)->run(progress, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        if (!asked.load()) {
            QSKIP("the kernel wrote the file back before the first waiting sample (nothing dirty to ask about)");
        }
        QVERIFY2(timer.elapsed() < 15000, "the wait did not end when the file became clean");
        const QJsonArray calls = firstRun(result.variants.front()).value(QStringLiteral("asked")).toArray();
        QCOMPARE(calls.size(), askFsync ? 2 : 1);
        QCOMPARE(calls.at(calls.size() - 1).toObject().value(QStringLiteral("call")).toString(), QStringLiteral("sync"));
        const char *cleaningPhase = askFsync ? "after fsync (asked)" : "after sync (asked)";
        const auto askedSample = std::find_if(result.samples.begin(), result.samples.end(), [&](const Sample &s) {
            return s.phase == cleaningPhase;
        });
        QVERIFY(askedSample != result.samples.end());
        QVERIFY((askFsync ? askedSample->fsyncSeconds : askedSample->syncSeconds).value_or(-1) >= 0);
        QCOMPARE(askedSample->fileDirty.value_or(1), uint64_t(0));
        const std::string cleaned = "The file is clean after the " + cleanedBy.toStdString() + " you asked for";
        QVERIFY(std::any_of(result.events.begin(), result.events.end(), [&](const Event &e) {
            return e.text == cleaned;
        }));
        // Not credited to the kernel's own writeback.
        QVERIFY(firstRun(result.variants.front()).value(QStringLiteral("drained_by_itself_after")).isNull());
        // Served requests are taken off.
        QCOMPARE(p.requests->fsync.load(), 0);
        QCOMPARE(p.requests->sync.load(), 0);
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    // ---------------------------------------------------------- 5. faults

    void faultsMmapAgainstRead()
    {
        const std::string folder = TestUtil::scratchDir("experiment-faults");
        FaultsParameters p;
        p.file.folder = folder;
        p.file.size = 32ULL << 20;
        const Result result = makeFaultsExperiment(p)->run({}, m_noCancel);
        QVERIFY2(result.ok(), result.error.c_str());
        const double pages = double(Cachescope::pagesFor(p.file.size));
        const auto faults = [&](const char *variant, const char *kind) {
            const VariantResult *v = result.variant(variant);
            return v && !v->skipped ? v->find(kind)->values.front() : -1.0;
        };
        // Warm mmap: a minor fault a page at most; fewer with fault-around
        // (16 pages) and large folios (a whole folio is mapped at once: 423
        // faults for 8192 pages on Linux 6.18 ext4). At least one a 256 KiB.
        QVERIFY2(faults("mmap warm", "minor_faults") >= pages / 64, qPrintable(QString::number(faults("mmap warm", "minor_faults"))));
        QVERIFY(faults("mmap warm", "minor_faults") <= pages * 1.1);
        // No file page is read from the disk. A stray major fault or two can
        // still come from the child's own code: these machines page out idle
        // file pages (libc's, the test's) after about a minute.
        QVERIFY2(faults("mmap warm", "major_faults") <= 2, qPrintable(QString::number(faults("mmap warm", "major_faults"))));
        QVERIFY(faults("mmap warm", "major_faults") < faults("mmap cold", "major_faults"));
        // read() copies from the cache: almost no faults, cold or warm.
        QVERIFY2(faults("read warm", "minor_faults") < 64, qPrintable(QString::number(faults("read warm", "minor_faults"))));
        QVERIFY2(faults("read cold", "minor_faults") + faults("read cold", "major_faults") < 64,
                 qPrintable(QString::number(faults("read cold", "minor_faults"))));
        // Cold mmap faults pages in from the disk.
        QVERIFY(faults("mmap cold", "minor_faults") + faults("mmap cold", "major_faults") > 64);
        QVERIFY(faults("mmap cold", "major_faults") > 0);
        // Cold buffered reads fill the cache with the whole file.
        QVERIFY(result.variant("read cold")->find("cache_bytes_added")->values.front() >= double(p.file.size) * 0.95);
        QVERIFY(result.variant("stdio cold")->find("cache_bytes_added")->values.front() >= double(p.file.size) * 0.95);
        const VariantResult *direct = result.variant("direct cold");
        QVERIFY(direct);
        if (direct->skipped) {
            QVERIFY(direct->skipReason.find("O_DIRECT") != std::string::npos);
        } else {
            // O_DIRECT bypasses the page cache.
            QVERIFY(direct->find("cache_bytes_added")->values.front() < double(p.file.size) * 0.05);
        }
        QCOMPARE(result.variants.size(), size_t(10));
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    // ---------------------------------------------------------- cancel

    void cancelLeavesNothing_data()
    {
        QTest::addColumn<QString>("engine");
        QTest::addColumn<bool>("onSample"); // false: at the first event
        const QStringList engines = {QStringLiteral("cold-read"),
                                     QStringLiteral("pressure"),
                                     QStringLiteral("cold-start"),
                                     QStringLiteral("writeback"),
                                     QStringLiteral("faults")};
        for (const QString &engine : engines) {
            QTest::newRow(qPrintable(engine + QStringLiteral(", first event"))) << engine << false;
            QTest::newRow(qPrintable(engine + QStringLiteral(", first sample"))) << engine << true;
        }
    }

    void cancelLeavesNothing()
    {
        QFETCH(QString, engine);
        QFETCH(bool, onSample);
        const std::string folder = TestUtil::scratchDir("experiment-cancel");
        std::unique_ptr<Experiment> experiment;
        if (engine == QLatin1String("cold-read")) {
            ColdReadParameters p;
            p.file.folder = folder;
            p.file.size = 64ULL << 20;
            experiment = makeColdReadExperiment(p);
        } else if (engine == QLatin1String("pressure")) {
            PressureParameters p;
            p.file.folder = folder;
            p.file.size = 16ULL << 20;
            p.limit = 256ULL << 20;
            p.step = 16ULL << 20;
            p.stepDelayMs = 50;
            p.contained = false;
            experiment = makePressureExperiment(p);
        } else if (engine == QLatin1String("cold-start")) {
            ColdStartParameters p;
            p.command = {"sleep", "1"};
            p.forceMapsFallback = onSample; // both ways of recording
            experiment = makeColdStartExperiment(p);
        } else if (engine == QLatin1String("writeback")) {
            WritebackParameters p;
            p.file.folder = folder;
            p.file.size = 32ULL << 20;
            p.waitSeconds = 5;
            experiment = makeWritebackExperiment(p);
        } else {
            FaultsParameters p;
            p.file.folder = folder;
            p.file.size = 16ULL << 20;
            experiment = makeFaultsExperiment(p);
        }
        // cold-start has no samples: cancel it at its second event instead,
        // while the command runs.
        int events = 0;
        const bool eventsOnly = engine == QLatin1String("cold-start");
        const auto start = std::chrono::steady_clock::now();
        const Result result = runAndCancel(*experiment, [&](const Sample *sample, const Event *event) {
            if (event) {
                ++events;
            }
            if (!onSample) {
                return event != nullptr;
            }
            return eventsOnly ? events >= 2 : sample != nullptr;
        });
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
        QVERIFY(result.cancelled);
        QVERIFY(result.error.empty());
        QCOMPARE(childrenOfThisProcess(), std::vector<int>());
        QCOMPARE(filesIn(folder), std::vector<std::string>());
        QCOMPARE(readText("/proc/swaps"), m_swapsBefore);
    }

    // ---------------------------------------------------------- the CLI

    void cliColdReadJson()
    {
        const std::string folder = TestUtil::scratchDir("experiment-cli");
        const auto r = TestUtil::run(TestUtil::cliPath(),
                                     {QStringLiteral("experiment"),
                                      QStringLiteral("cold-read"),
                                      QStringLiteral("--size"),
                                      QStringLiteral("16M"),
                                      QStringLiteral("--runs"),
                                      QStringLiteral("3"),
                                      QStringLiteral("--folder"),
                                      QString::fromStdString(folder),
                                      QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QJsonParseError error;
        const QJsonObject object = QJsonDocument::fromJson(r.out, &error).object();
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
        QCOMPARE(object.value(QStringLiteral("command")).toString(), QStringLiteral("experiment"));
        QCOMPARE(object.value(QStringLiteral("experiment")).toString(), QStringLiteral("cold-read"));
        const QJsonObject variant = object.value(QStringLiteral("variants")).toArray().first().toObject();
        QCOMPARE(variant.value(QStringLiteral("name")).toString(), QStringLiteral("fadvise"));
        const QJsonObject measurement = variant.value(QStringLiteral("measurements")).toArray().first().toObject();
        QCOMPARE(measurement.value(QStringLiteral("name")).toString(), QStringLiteral("cold_seconds"));
        QCOMPARE(measurement.value(QStringLiteral("values")).toArray().size(), 3);
        QCOMPARE(measurement.value(QStringLiteral("statistics")).toObject().value(QStringLiteral("n")).toInt(), 3);
        QVERIFY(object.value(QStringLiteral("samples")).isArray());
        QVERIFY(object.value(QStringLiteral("problems")).isArray());
        // What --json prints reads back as a result.
        QVERIFY(resultFromJson(object));
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void cliText_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("faults") << QStringList{QStringLiteral("faults"), QStringLiteral("--size"), QStringLiteral("8M"), QStringLiteral("--warm-only")}
                                << QStringLiteral("mmap warm:");
        QTest::newRow("cold-start")
            << QStringList{QStringLiteral("cold-start"), QStringLiteral("--runs"), QStringLiteral("1"), QStringLiteral("--"), QStringLiteral("/usr/bin/true")}
            << QStringLiteral("/usr/bin/true");
        QTest::newRow("writeback")
            << QStringList{QStringLiteral("writeback"), QStringLiteral("--size"), QStringLiteral("8M"), QStringLiteral("--wait"), QStringLiteral("0")}
            << QStringLiteral("fsync_seconds");
        QTest::newRow("pressure") << QStringList{QStringLiteral("pressure"),
                                                 QStringLiteral("--whole-machine"),
                                                 QStringLiteral("--size"),
                                                 QStringLiteral("8M"),
                                                 QStringLiteral("--limit"),
                                                 QStringLiteral("64M")}
                                  << QStringLiteral("cache_reclaimed");
    }

    void cliText()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        const std::string folder = TestUtil::scratchDir("experiment-cli-text");
        // Every experiment but cold-start makes its file there (cold-start's strace log goes to $TMPDIR).
        if (arguments.first() != QLatin1String("cold-start")) {
            arguments.insert(1, QString::fromStdString(folder));
            arguments.insert(1, QStringLiteral("--folder"));
        }
        arguments.prepend(QStringLiteral("experiment"));
        const auto r = TestUtil::run(TestUtil::cliPath(), arguments);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY2(QString::fromUtf8(r.out).contains(expected), r.out.constData());
        QVERIFY(r.out.contains("MEAN"));
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

    void cliUsageErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no name") << QStringList{} << QStringLiteral("missing argument: NAME");
        QTest::newRow("unknown name") << QStringList{QStringLiteral("nosuch")} << QStringLiteral("unknown experiment 'nosuch'");
        QTest::newRow("zero runs") << QStringList{QStringLiteral("cold-read"), QStringLiteral("--runs"), QStringLiteral("0")} << QStringLiteral("--runs: '0'");
        QTest::newRow("bad size") << QStringList{QStringLiteral("cold-read"), QStringLiteral("--size"), QStringLiteral("banana")}
                                  << QStringLiteral("--size: 'banana'");
        QTest::newRow("option of another experiment") << QStringList{QStringLiteral("cold-read"), QStringLiteral("--limit"), QStringLiteral("1G")}
                                                      << QStringLiteral("--limit does not apply to the cold-read experiment");
        QTest::newRow("cold-start without command") << QStringList{QStringLiteral("cold-start")} << QStringLiteral("needs the command");
        QTest::newRow("stray argument") << QStringList{QStringLiteral("faults"), QStringLiteral("extra")} << QStringLiteral("unexpected argument 'extra'");
        QTest::newRow("unknown option") << QStringList{QStringLiteral("faults"), QStringLiteral("--frobnicate")} << QStringLiteral("frobnicate");
        QTest::newRow("cold and warm only") << QStringList{QStringLiteral("faults"), QStringLiteral("--cold-only"), QStringLiteral("--warm-only")}
                                            << QStringLiteral("exclude each other");
        QTest::newRow("bad wait") << QStringList{QStringLiteral("writeback"), QStringLiteral("--wait"), QStringLiteral("-1")} << QStringLiteral("--wait");
    }

    void cliUsageErrors()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        arguments.prepend(QStringLiteral("experiment"));
        const auto r = TestUtil::run(TestUtil::cliPath(), arguments);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }

    void cliRefusesTmpfs()
    {
        struct statfs fs;
        if (::statfs("/tmp", &fs) != 0 || fs.f_type != 0x01021994) {
            QSKIP("/tmp is not tmpfs here");
        }
        const auto r =
            TestUtil::run(TestUtil::cliPath(), {QStringLiteral("experiment"), QStringLiteral("cold-read"), QStringLiteral("--folder"), QStringLiteral("/tmp")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("/tmp") && r.err.contains("tmpfs"), r.err.constData());
    }

    // Where the kernel hides residency from the user (a file not theirs),
    // the experiments print no number: cold-read refuses the file with the
    // path and the reason; cold-start lists the program's files as hidden.
    void cliHiddenResidencyIsNeverANumber()
    {
        const auto uid = TestUtil::testUserUid();
        if (!uid) {
            QSKIP("needs root and the test user of tools/dev (cachescope-user)");
        }
        const std::string folder = TestUtil::scratchDir("experiment-hidden");
        QCOMPARE(chmod(folder.c_str(), 0777), 0); // the user's trace log goes here
        const std::string rootFile = folder + "/root-owned";
        TestUtil::makeColdFile(rootFile, 4 << 20);
        QCOMPARE(chmod(rootFile.c_str(), 0644), 0);
        const auto asUser = [](const QStringList &arguments) {
            return TestUtil::run(QStringLiteral("runuser"),
                                 QStringList{QStringLiteral("-u"), QLatin1String(TestUtil::testUserName), QStringLiteral("--"), TestUtil::cliPath()}
                                     + arguments);
        };

        const auto coldRead = asUser({QStringLiteral("experiment"),
                                      QStringLiteral("cold-read"),
                                      QStringLiteral("--runs"),
                                      QStringLiteral("1"),
                                      QStringLiteral("--file"),
                                      QString::fromStdString(rootFile)});
        QCOMPARE(coldRead.exitCode, 1);
        QVERIFY2(coldRead.err.contains(QByteArray::fromStdString(rootFile)) && coldRead.err.contains("hides which of its pages are cached"),
                 coldRead.err.constData());
        QVERIFY(!coldRead.out.contains("cold_seconds"));

        const auto coldStart = asUser({QStringLiteral("experiment"),
                                       QStringLiteral("cold-start"),
                                       QStringLiteral("--json"),
                                       QStringLiteral("--runs"),
                                       QStringLiteral("1"),
                                       QStringLiteral("--"),
                                       QStringLiteral("/usr/bin/true")});
        QVERIFY2(coldStart.exitCode == 0, coldStart.err.constData());
        const QJsonObject json = QJsonDocument::fromJson(coldStart.out).object();
        const QJsonArray files = json.value(QStringLiteral("details")).toObject().value(QStringLiteral("files")).toArray();
        QVERIFY(!files.isEmpty());
        int hidden = 0;
        for (const QJsonValue &value : files) {
            const QJsonObject file = value.toObject();
            if (file.value(QStringLiteral("residency_hidden")).toBool()) {
                ++hidden;
                QVERIFY(file.value(QStringLiteral("resident_warm")).isNull());
                QVERIFY(file.value(QStringLiteral("resident_after_evict")).isNull());
                QVERIFY(!file.value(QStringLiteral("hidden_reason")).toString().isEmpty());
            } else {
                QVERIFY(file.value(QStringLiteral("resident_warm")).isDouble());
            }
        }
        // /usr/bin/true and libc are root's: hidden from the user.
        QVERIFY(hidden >= 2);
        QVERIFY2(QJsonDocument(json.value(QStringLiteral("notes")).toArray()).toJson().contains("hides the residency"), coldStart.out.constData());

        const auto text = asUser({QStringLiteral("experiment"),
                                  QStringLiteral("cold-start"),
                                  QStringLiteral("--runs"),
                                  QStringLiteral("1"),
                                  QStringLiteral("--"),
                                  QStringLiteral("/usr/bin/true")});
        QVERIFY2(text.exitCode == 0, text.err.constData());
        QVERIFY2(text.out.contains("hidden      hidden"), text.out.constData());
        std::filesystem::remove_all(folder);
    }

    void cliPrivilegedVariantWithoutHelper()
    {
        // No helper runs in the test environment: the variant needs it, and says so.
        if (TestUtil::isRoot()) {
            QSKIP("as root the variant needs no helper: it drops the caches directly");
        }
        const std::string folder = TestUtil::scratchDir("experiment-cli-privileged");
        const auto r = TestUtil::run(TestUtil::cliPath(),
                                     {QStringLiteral("experiment"),
                                      QStringLiteral("cold-read"),
                                      QStringLiteral("--drop-caches"),
                                      QStringLiteral("--size"),
                                      QStringLiteral("4M"),
                                      QStringLiteral("--runs"),
                                      QStringLiteral("1"),
                                      QStringLiteral("--folder"),
                                      QString::fromStdString(folder)});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("privileged helper"), r.err.constData());
        QCOMPARE(filesIn(folder), std::vector<std::string>());
    }

private:
    std::atomic<bool> m_noCancel{false};
    std::string m_swapsBefore;
};

QTEST_GUILESS_MAIN(ExperimentTest)

#include "experimenttest.moc"
