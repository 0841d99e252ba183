// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The window's Cache Map against `cachescope-cli status -r` of the same
// folder, in interleaved rounds of one run: issue 14 asks for the whole map
// of / within the time of `status -r /`, the first picture within 3 s and no
// event-loop stall over 100 ms. Each round runs the CLI (from its start to
// its exit, its output thrown away) and maps the folder in a shown window
// (from the click to the whole map drawn), the CLI first in odd rounds and
// the window first in even ones, each after 300 ms of quiet. The window's
// first walk, made when it is first shown, warms both and is not timed.
//
//   cachemap-window-bench [--rounds N] [--kernel-file-systems] --cli PATH FOLDER
//
// The tab does not enter file systems that keep no page cache (/proc, /sys)
// below the folder, where status -r walks them; --kernel-file-systems makes
// the tab walk them too, and so walk the same tree as status.
//
// Prints a line a round (with the CPU seconds of the CLI and of the whole
// window process, walk threads included), then one line of medians:
//   medians status S window W ratio R first-picture F stall-max G folders N bytes B
// (seconds; R is status over window: 1.00 or more when the window is within
// the time of status), then the rounds' differences:
//   paired window-minus-status mean M standard-error E rounds N
// Needs a display: tools/bench/run starts it under Xvfb.

#include "cachemap/cachemapview.h"
#include "cachemap/cachemapwidget.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QProcess>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <vector>

#include <sys/resource.h>

using namespace Cachescope::App;

namespace
{

[[nodiscard]] double median(std::vector<double> values)
{
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

[[nodiscard]] double cpuSecondsOf(int who)
{
    rusage usage{};
    getrusage(who, &usage);
    const auto seconds = [](const timeval &t) {
        return double(t.tv_sec) + double(t.tv_usec) / 1e6;
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Seconds from the CLI's start to its exit; negative when it failed.
[[nodiscard]] double timeStatus(const QString &cli, const QString &folder)
{
    QProcess process;
    process.setStandardOutputFile(QProcess::nullDevice());
    process.setStandardErrorFile(QProcess::nullDevice());
    QElapsedTimer clock;
    clock.start();
    process.start(cli, {QStringLiteral("status"), QStringLiteral("-r"), folder});
    if (!process.waitForFinished(600000) || process.exitStatus() != QProcess::NormalExit) {
        return -1;
    }
    const double seconds = double(clock.nsecsElapsed()) / 1e9;
    // status exits 1 when some entries could not be read (as / has): still a whole walk.
    return process.exitCode() <= 1 ? seconds : -1;
}

constexpr int settleMs = 300;

struct MapTiming {
    double whole = 0; // seconds from mapFolder() to the whole map
    double firstPicture = -1; // seconds to the first box drawn (an early snapshot's, or the whole map's)
    double worstStall = 0; // the longest gap of a 10 ms timer, in seconds
    double guiCpu = 0; // CPU seconds of the window's own thread meanwhile
    double cpu = 0; // CPU seconds of the whole process (walk threads too) meanwhile
};

// Lets the window finish what a map leaves for later (the previous map is
// freed, pending events run) and the kernel what an exited process leaves,
// so that each measurement starts from a quiet machine, not in the other's wake.
void settle()
{
    QEventLoop quiet;
    QTimer::singleShot(settleMs, &quiet, &QEventLoop::quit);
    quiet.exec();
}

[[nodiscard]] double threadCpuSeconds()
{
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return double(now.tv_sec) + double(now.tv_nsec) / 1e9;
}

// Waits in the event loop, as the window does, until the map is whole.
[[nodiscard]] MapTiming timeMap(CacheMapView &view, const QString &folder)
{
    MapTiming timing;
    QEventLoop loop;
    QObject::connect(&view, &CacheMapView::mappingChanged, &loop, [&loop](bool mapping) {
        if (!mapping) {
            loop.quit();
        }
    });
    QElapsedTimer clock;
    qint64 last = 0;
    QTimer tick;
    tick.setInterval(10);
    QObject::connect(&tick, &QTimer::timeout, &loop, [&] {
        const qint64 now = clock.nsecsElapsed();
        timing.worstStall = std::max(timing.worstStall, double(now - last) / 1e9);
        last = now;
        if (timing.firstPicture < 0 && !view.mapWidget()->boxes().empty()) {
            timing.firstPicture = double(now) / 1e9;
        }
    });
    const double cpuBefore = threadCpuSeconds();
    const double processCpuBefore = cpuSecondsOf(RUSAGE_SELF);
    clock.start();
    tick.start();
    view.mapFolder(folder);
    if (view.isMapping()) {
        loop.exec();
    }
    // The whole map is there when it is drawn: its first paint counts.
    view.repaint();
    timing.whole = double(clock.nsecsElapsed()) / 1e9;
    // A walk shorter than the first snapshot's delay shows the whole map first.
    if (timing.firstPicture < 0 && !view.mapWidget()->boxes().empty()) {
        timing.firstPicture = timing.whole;
    }
    timing.guiCpu = threadCpuSeconds() - cpuBefore;
    timing.cpu = cpuSecondsOf(RUSAGE_SELF) - processCpuBefore;
    return timing;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("The Cache Map tab against cachescope-cli status -r, interleaved."));
    parser.addHelpOption();
    const QCommandLineOption roundsOption(QStringLiteral("rounds"), QStringLiteral("Interleaved rounds (5)."), QStringLiteral("N"), QStringLiteral("5"));
    const QCommandLineOption cliOption(QStringLiteral("cli"), QStringLiteral("The cachescope-cli to time."), QStringLiteral("PATH"));
    const QCommandLineOption kernelOption(QStringLiteral("kernel-file-systems"),
                                          QStringLiteral("Let the tab walk file systems that keep no page cache, as status -r does."));
    parser.addOption(kernelOption);
    parser.addOption(roundsOption);
    parser.addOption(cliOption);
    parser.addPositionalArgument(QStringLiteral("FOLDER"), QStringLiteral("The folder to map."));
    parser.process(app);
    bool roundsOk = false;
    const int rounds = parser.value(roundsOption).toInt(&roundsOk);
    if (parser.positionalArguments().size() != 1 || !parser.isSet(cliOption) || !roundsOk || rounds < 1) {
        std::fprintf(stderr, "usage: cachemap-window-bench [--rounds N] [--kernel-file-systems] --cli PATH FOLDER\n");
        return 2;
    }
    const QString folder = parser.positionalArguments().constFirst();
    const QString cli = parser.value(cliOption);

    CacheMapView view;
    view.resize(1100, 700);
    view.setWalkKernelFileSystems(parser.isSet(kernelOption));
    // Shown with no folder, the tab maps /: set the folder first, so that the
    // untimed first walk is of the folder measured.
    view.mapFolder(folder);
    view.show();
    QEventLoop warming;
    QObject::connect(&view, &CacheMapView::mappingChanged, &warming, &QEventLoop::quit);
    if (view.isMapping()) {
        warming.exec();
    }
    if (!view.isComplete()) {
        std::fprintf(stderr, "cachemap-window-bench: the map of %s did not complete\n", qPrintable(folder));
        return 1;
    }

    std::vector<double> status, window, first, stalls;
    for (int round = 0; round < rounds; ++round) {
        // Status first in odd rounds, the tab first in even ones: neither
        // always runs in the wake of the other.
        double seconds = 0;
        double statusCpu = 0;
        const auto runStatus = [&] {
            settle();
            const double childCpuBefore = cpuSecondsOf(RUSAGE_CHILDREN);
            seconds = timeStatus(cli, folder);
            statusCpu = cpuSecondsOf(RUSAGE_CHILDREN) - childCpuBefore;
        };
        MapTiming map;
        const auto runMap = [&] {
            settle();
            map = timeMap(view, folder);
        };
        if (round % 2 == 0) {
            runStatus();
            runMap();
        } else {
            runMap();
            runStatus();
        }
        if (seconds < 0) {
            std::fprintf(stderr, "cachemap-window-bench: %s status -r %s failed\n", qPrintable(cli), qPrintable(folder));
            return 1;
        }
        if (!view.isComplete()) {
            std::fprintf(stderr, "cachemap-window-bench: the map of %s did not complete\n", qPrintable(folder));
            return 1;
        }
        status.push_back(seconds);
        window.push_back(map.whole);
        first.push_back(map.firstPicture);
        stalls.push_back(map.worstStall);
        std::printf("round %d status %.3f window %.3f first-picture %.3f stall %.3f gui-cpu %.3f cpu status %.3f window %.3f\n",
                    round + 1,
                    seconds,
                    map.whole,
                    map.firstPicture,
                    map.worstStall,
                    map.guiCpu,
                    statusCpu,
                    map.cpu);
        std::fflush(stdout);
    }
    const double statusMedian = median(status);
    const double windowMedian = median(window);
    std::printf("medians status %.3f window %.3f ratio %.2f first-picture %.3f stall-max %.3f folders %zu bytes %zu\n",
                statusMedian,
                windowMedian,
                windowMedian > 0 ? statusMedian / windowMedian : 0.0,
                median(first),
                *std::max_element(stalls.begin(), stalls.end()),
                view.mapWidget()->tree()->folders.size(),
                view.mapMemoryBytes());
    // Round by round: how much longer the tab took than status, on average,
    // and the standard error of that mean (the rounds vary more than the pairs).
    double sum = 0;
    for (size_t i = 0; i < window.size(); ++i) {
        sum += window[i] - status[i];
    }
    const double mean = sum / double(window.size());
    double squares = 0;
    for (size_t i = 0; i < window.size(); ++i) {
        squares += (window[i] - status[i] - mean) * (window[i] - status[i] - mean);
    }
    const double standardError = window.size() > 1 ? std::sqrt(squares / double(window.size() - 1) / double(window.size())) : 0.0;
    std::printf("paired window-minus-status mean %.4f standard-error %.4f rounds %zu\n", mean, standardError, window.size());
    return 0;
}
