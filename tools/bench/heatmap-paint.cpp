// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// How long the detail heatmap takes to paint, for a small, a 1 GiB and a 1 TiB
// sparse file: the goal is under 16 ms a paint for any file size. It also
// reports how long setFile() and refresh() take (reading the residency).
//
//   heatmap-paint-bench [--paints N] [--screenshot PNG] DIR
//
// DIR must be on a disk (not tmpfs): the files are made there and removed
// afterwards. With --screenshot it saves a half-resident 64 MiB file's heatmap
// (with some dirty pages) instead, plus -zoomed and -hidden variants.

#include "heatmap/heatmapwidget.h"
#include "residency.h"
#include "uniquefd.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QVBoxLayout>

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace Cachescope::App;

namespace
{

constexpr uint64_t kib = 1024;
constexpr uint64_t mib = 1024 * kib;
constexpr uint64_t gib = 1024 * mib;

bool makeFile(const std::string &path, uint64_t size, bool writeData)
{
    Cachescope::UniqueFd fd(open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd.isValid()) {
        std::perror(path.c_str());
        return false;
    }
    bool ok = ftruncate(fd.get(), off_t(size)) == 0;
    if (ok && writeData) {
        std::vector<char> block(mib);
        for (size_t i = 0; i < block.size(); ++i) {
            block[i] = char('a' + i % 26);
        }
        for (uint64_t done = 0; ok && done < size; done += block.size()) {
            ok = pwrite(fd.get(), block.data(), size_t(std::min<uint64_t>(block.size(), size - done)), off_t(done)) > 0;
        }
        ok = ok && fdatasync(fd.get()) == 0;
    }
    // Nothing resident to begin with; the caller reads what it wants in.
    posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
    fd.reset();
    if (!ok) {
        std::perror(path.c_str());
    }
    return ok;
}

// Exactly these pages into the cache (readahead off).
void readRange(const std::string &path, uint64_t offset, uint64_t length)
{
    Cachescope::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.isValid()) {
        return;
    }
    posix_fadvise(fd.get(), 0, 0, POSIX_FADV_RANDOM);
    std::vector<char> buffer(mib);
    for (uint64_t done = 0; done < length;) {
        const ssize_t n = pread(fd.get(), buffer.data(), size_t(std::min<uint64_t>(buffer.size(), length - done)), off_t(offset + done));
        if (n <= 0) {
            break;
        }
        done += uint64_t(n);
    }
}

void writeDirty(const std::string &path, uint64_t offset, uint64_t length)
{
    Cachescope::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd.isValid()) {
        return;
    }
    const std::string data(length, 'x');
    if (pwrite(fd.get(), data.data(), data.size(), off_t(offset)) < 0) {
        std::perror(path.c_str());
    }
}

struct Timing {
    double mean = 0;
    double max = 0;
    double p99 = 0;
    double first = 0;
};

Timing paintTimes(HeatmapWidget &widget, int paints)
{
    QImage image(widget.size() * widget.devicePixelRatioF(), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(widget.devicePixelRatioF());
    Timing timing;
    double total = 0;
    std::vector<double> all;
    for (int i = 0; i < paints; ++i) {
        image.fill(Qt::transparent);
        QElapsedTimer timer;
        timer.start();
        widget.render(&image);
        const double ms = double(timer.nsecsElapsed()) / 1e6;
        total += ms;
        timing.max = std::max(timing.max, ms);
        all.push_back(ms);
    }
    timing.first = all.front();
    timing.mean = total / std::max(paints, 1);
    std::sort(all.begin(), all.end());
    timing.p99 = all[std::min(all.size() - 1, all.size() * 99 / 100)];
    return timing;
}

Timing refreshTimes(HeatmapWidget &widget, int refreshes)
{
    Timing timing;
    double total = 0;
    for (int i = 0; i < refreshes; ++i) {
        QElapsedTimer timer;
        timer.start();
        widget.refresh();
        const double ms = double(timer.nsecsElapsed()) / 1e6;
        total += ms;
        timing.max = std::max(timing.max, ms);
    }
    timing.mean = total / std::max(refreshes, 1);
    return timing;
}

void report(const char *name, HeatmapWidget &widget, double setFileMs, int paints)
{
    const Timing paint = paintTimes(widget, paints);
    const Timing refresh = refreshTimes(widget, 100);
    std::printf("| %-34s | %8.2f | %8.3f | %9.3f | %9.3f | %9.3f | %11.3f | %10.3f | %5d |\n",
                name,
                setFileMs,
                paint.first,
                paint.mean,
                paint.p99,
                paint.max,
                refresh.mean,
                refresh.max,
                widget.cellCount());
}

int screenshots(const std::string &dir, const QString &png)
{
    const std::string path = dir + "/heatmap-demo.bin";
    if (!makeFile(path, 64 * mib, true)) {
        return 1;
    }
    readRange(path, 0, 6 * mib);
    readRange(path, 12 * mib, 1 * mib);
    for (uint64_t offset = 20 * mib; offset < 36 * mib; offset += 192 * kib) {
        readRange(path, offset, 64 * kib);
    }
    readRange(path, 44 * mib, 14 * mib);
    writeDirty(path, 50 * mib, 96 * kib);
    writeDirty(path, 62 * mib, 600 * kib);

    // As the files panel holds it: inside a layout, with the style's margins.
    QWidget frame;
    auto *layout = new QVBoxLayout(&frame);
    auto *heatmap = new HeatmapWidget(&frame);
    layout->addWidget(heatmap);
    HeatmapWidget &widget = *heatmap;
    frame.resize(900, 560);
    frame.show();
    widget.setFile(path);
    QApplication::processEvents();
    if (!frame.grab().save(png)) {
        std::fprintf(stderr, "cannot save %s\n", qPrintable(png));
        return 1;
    }
    std::printf("saved %s\n", qPrintable(png));

    QString zoomedPng = png;
    zoomedPng.replace(QLatin1String(".png"), QLatin1String("-zoomed.png"));
    widget.setWindow(50 * mib / Cachescope::pageSize() - 300, 1024);
    QApplication::processEvents();
    frame.grab().save(zoomedPng);
    std::printf("saved %s\n", qPrintable(zoomedPng));

    // Hidden: as an unprivileged user, if we are root and one exists.
    if (geteuid() == 0) {
        if (const passwd *user = getpwnam("cachescope-user")) {
            QWidget hiddenFrame;
            auto *hiddenLayout = new QVBoxLayout(&hiddenFrame);
            auto *hiddenHeatmap = new HeatmapWidget(&hiddenFrame);
            hiddenLayout->addWidget(hiddenHeatmap);
            HeatmapWidget &hidden = *hiddenHeatmap;
            hiddenFrame.resize(900, 560);
            hiddenFrame.show();
            if (seteuid(user->pw_uid) == 0) {
                hidden.setFile(path);
                if (seteuid(0) != 0) {
                    return 1;
                }
                QApplication::processEvents();
                QString hiddenPng = png;
                hiddenPng.replace(QLatin1String(".png"), QLatin1String("-hidden.png"));
                hiddenFrame.grab().save(hiddenPng);
                std::printf("saved %s\n", qPrintable(hiddenPng));
            }
        }
    }
    Cachescope::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.isValid()) {
        fsync(fd.get());
    }
    unlink(path.c_str());
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("paints"), QStringLiteral("Paints per file (default 1000)."), QStringLiteral("N"), QStringLiteral("1000")});
    parser.addOption({QStringLiteral("screenshot"), QStringLiteral("Save a half-resident file's heatmap to PNG instead."), QStringLiteral("PNG")});
    parser.addPositionalArgument(QStringLiteral("DIR"), QStringLiteral("A folder on a disk for the test files."));
    parser.process(app);
    if (parser.positionalArguments().size() != 1) {
        parser.showHelp(2);
    }
    const std::string dir = QFile::encodeName(parser.positionalArguments().constFirst()).toStdString();
    if (parser.isSet(QStringLiteral("screenshot"))) {
        return screenshots(dir, parser.value(QStringLiteral("screenshot")));
    }
    const int paints = std::max(1, parser.value(QStringLiteral("paints")).toInt());

    std::printf("heatmap paint bench: %d paints a file into a %dx%d QImage (%s platform), cachestat %s\n\n",
                paints,
                900,
                560,
                qPrintable(QApplication::platformName()),
                Cachescope::cachestatAvailable() ? "yes" : "no");
    std::printf("times in ms; paint: the first paint, then mean, 99th percentile and maximum of all\n\n");
    std::printf("| %-34s | %8s | %8s | %9s | %9s | %9s | %11s | %10s | %5s |\n",
                "file",
                "setFile",
                "1st paint",
                "paint avg",
                "paint p99",
                "paint max",
                "refresh avg",
                "refresh max",
                "cells");
    std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n",
                "------------------------------------",
                "----------",
                "-----------",
                "-----------",
                "-----------",
                "-----------",
                "-------------",
                "------------",
                "-------");

    const std::string small = dir + "/heatmap-bench-4k.bin";
    const std::string big = dir + "/heatmap-bench-1g.bin";
    const std::string huge = dir + "/heatmap-bench-1t.bin";
    if (!makeFile(small, 4 * kib, true) || !makeFile(big, 1 * gib, false) || !makeFile(huge, 1024 * gib, false)) {
        return 1;
    }
    readRange(small, 0, 4 * kib);
    // Holes read in become zero pages in the cache: a patchy 1 GiB without writing it.
    for (uint64_t offset = 0; offset < 1 * gib; offset += 8 * mib) {
        readRange(big, offset, 2 * mib);
    }
    writeDirty(big, 300 * mib, 1 * mib);
    readRange(huge, 512 * gib, 64 * mib);

    const auto run = [&](const char *name, const std::string &path, auto &&setUp) {
        HeatmapWidget widget;
        widget.resize(900, 560);
        QElapsedTimer timer;
        timer.start();
        widget.setFile(path);
        setUp(widget);
        const double setFileMs = double(timer.nsecsElapsed()) / 1e6;
        // Many cells are counted on a worker: paint what it finds.
        while (widget.isComputing()) {
            QApplication::processEvents();
            usleep(1000);
        }
        report(name, widget, setFileMs, paints);
    };
    const auto nothing = [](HeatmapWidget &) { };
    run("4 KiB, resident", small, nothing);
    run("1 GiB sparse, 1/4 resident, dirty", big, nothing);
    run("1 TiB sparse, 64 MiB resident", huge, nothing);
    run("1 TiB sparse, zoomed to pages", huge, [](HeatmapWidget &widget) {
        widget.setWindow(512 * gib / Cachescope::pageSize() - 100, 1024);
    });
    run("1 GiB, 16,384 cells", big, [](HeatmapWidget &widget) {
        widget.setCells(16384);
    });

    Cachescope::UniqueFd fd(open(big.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.isValid()) {
        fsync(fd.get());
    }
    unlink(small.c_str());
    unlink(big.c_str());
    unlink(huge.c_str());
    return 0;
}
