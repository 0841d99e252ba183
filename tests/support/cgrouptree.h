// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Memory cgroup trees in a temporary folder, from the files of
// tests/fixtures/cgroup/: fixtures for the "applications" parser and view.

#include <sys/stat.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace CgroupTree
{

inline const std::string userManager = "/user.slice/user-1000.slice/user@1000.service";

inline std::string readText(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline std::string fixtureText(const char *relative)
{
    return readText(std::string(CACHESCOPE_FIXTURES) + "/cgroup/" + relative);
}

inline void writeText(const std::string &path, std::string_view text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), std::streamsize(text.size()));
}

inline void makeFolders(const std::string &path)
{
    for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        mkdir(path.substr(0, slash).c_str(), 0755);
    }
    mkdir(path.c_str(), 0755);
}

// memory.stat of the v2 fixture with its "file" and refault lines replaced,
// and the figures that are parts of file scaled to it.
inline std::string v2Stat(uint64_t file, uint64_t refaults)
{
    const std::pair<const char *, uint64_t> replaced[] = {
        {"file", file},
        {"file_mapped", file / 4 / 4096 * 4096},
        {"file_dirty", file / 64 / 4096 * 4096},
        {"file_writeback", 0},
        {"shmem", 0},
        {"active_file", file / 2 / 4096 * 4096},
        {"inactive_file", file - file / 2 / 4096 * 4096},
        {"workingset_refault_file", refaults},
    };
    std::string text;
    std::istringstream lines(fixtureText("v2/app/memory.stat"));
    for (std::string line; std::getline(lines, line);) {
        for (const auto &[name, value] : replaced) {
            if (line.rfind(std::string(name) + ' ', 0) == 0) {
                line = std::string(name) + ' ' + std::to_string(value);
            }
        }
        text += line + '\n';
    }
    return text;
}

// A v2 cgroup of a systemd desktop: memory.stat and friends.
inline void makeV2Cgroup(const std::string &folder, uint64_t file, uint64_t refaults = 0)
{
    makeFolders(folder);
    writeText(folder + "/memory.stat", v2Stat(file, refaults));
    writeText(folder + "/cgroup.controllers", "memory pids\n");
    writeText(folder + "/memory.max", "max\n");
    writeText(folder + "/memory.high", "max\n");
    writeText(folder + "/memory.current", std::to_string(file + 4096) + "\n");
    writeText(folder + "/memory.pressure", "some avg10=0.50 avg60=0.10 avg300=0.00 total=100\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
}

// A systemd desktop's v2 tree (541 MiB in 12 rows; the root 600 MiB, 59 MiB
// of it its own; 3 dying cgroups).
inline void makeDesktopTree(const std::string &root)
{
    constexpr uint64_t MiB = 1024 * 1024;
    const std::string apps = root + userManager + "/app.slice";
    makeV2Cgroup(root, 0);
    writeText(root + "/cgroup.stat", "nr_descendants 30\nnr_dying_descendants 3\n");
    makeV2Cgroup(root + "/system.slice", 0);
    makeV2Cgroup(root + "/system.slice/cups.service", 3 * MiB);
    makeV2Cgroup(root + "/system.slice/ssh.service", 1 * MiB);
    makeV2Cgroup(root + "/user.slice", 0);
    makeV2Cgroup(root + "/user.slice/user-1000.slice", 0);
    makeV2Cgroup(root + "/user.slice/user-1000.slice/session-2.scope", 2 * MiB);
    makeV2Cgroup(root + userManager, 0);
    makeV2Cgroup(root + userManager + "/init.scope", 1 * MiB);
    makeV2Cgroup(apps + "/app-org.kde.konsole-4242.scope", 40 * MiB, 1000);
    makeV2Cgroup(apps + "/app-org.kde.dolphin@b1c2.service", 120 * MiB, 50);
    makeV2Cgroup(apps + "/app-gnome-org.gnome.Terminal\\x2dPreview-77.scope", 5 * MiB);
    makeV2Cgroup(apps + "/app-flatpak-org.mozilla.firefox-9.scope", 300 * MiB);
    makeV2Cgroup(apps + "/dbus.service", 1 * MiB);
    makeV2Cgroup(root + userManager + "/session.slice/plasma-plasmashell.service", 60 * MiB);
    makeV2Cgroup(root + "/init.scope", 1 * MiB);
    makeV2Cgroup(root + "/machine.slice", 7 * MiB);
    // Descendants counted in their ancestors, as v2 does: the root has all.
    writeText(root + "/memory.stat", v2Stat(600 * MiB, 0));
    writeText(root + "/system.slice/memory.stat", v2Stat(4 * MiB, 0));
    writeText(root + "/user.slice/memory.stat", v2Stat(529 * MiB, 0));
}

// A v1 tree without systemd: /process_api/a and /b with processes (the
// captured leaf's figures, a 512 MiB limit), /empty/c without.
inline void makeV1Tree(const std::string &root)
{
    for (const char *leaf : {"/process_api/a", "/process_api/b", "/empty/c"}) {
        makeFolders(root + leaf);
        writeText(root + leaf + "/memory.stat", fixtureText("v1/leaf/memory.stat"));
        writeText(root + leaf + "/memory.limit_in_bytes", "536870912\n");
        writeText(root + leaf + "/cgroup.procs", std::string(leaf) == "/empty/c" ? "" : "4242\n4243\n");
    }
    writeText(root + "/memory.stat", fixtureText("v1/root/memory.stat"));
    writeText(root + "/memory.limit_in_bytes", fixtureText("v1/root/memory.limit_in_bytes"));
}

// <procRoot>/meminfo: 700 MiB Cached, 10 MiB Shmem, 2 MiB Buffers.
inline void makeMemInfo(const std::string &procRoot)
{
    makeFolders(procRoot);
    writeText(procRoot + "/meminfo",
              "MemTotal: 16000000 kB\nMemFree: 8000000 kB\nMemAvailable: 9000000 kB\nBuffers: 2048 kB\nCached: 716800 kB\nShmem: 10240 kB\n");
}

} // namespace CgroupTree
