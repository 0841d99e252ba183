// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Which files a command acts on: --include, --exclude and --max-size, as
// vmtouch's -I/-i/-m and pagers' filters. The walker asks before it opens
// anything, so that a file left out is neither read, evicted, loaded nor
// locked, and is not in any total.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace Cachescope
{

struct PathFilter {
    // Shell globs (fnmatch(3)). A glob without '/' matches a name (the last
    // part of a path); a glob with '/' matches the whole path, '*' across
    // '/' too. include: only files that match one of them (folders are
    // always entered); exclude: neither files nor folders that match one.
    std::vector<std::string> include;
    std::vector<std::string> exclude;
    uint64_t maxSize = 0; // files larger are left out; 0: no limit

    [[nodiscard]] bool active() const;
    // Whether some glob needs the whole path (the walker builds it only then).
    [[nodiscard]] bool needsPath() const;
    // name: the last part, NUL-terminated; path: the whole (may be empty when !needsPath()).
    [[nodiscard]] bool admitsFolder(const char *name, const std::string &path) const;
    [[nodiscard]] bool admitsFile(const char *name, const std::string &path) const;
    [[nodiscard]] bool admitsSize(uint64_t size) const;
    // A path as the user named it: its name, its path and its size.
    [[nodiscard]] bool admitsNamedFile(const std::string &path, uint64_t size) const;
};

} // namespace Cachescope
