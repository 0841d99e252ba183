// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "walker.h"

#include <cstddef>
#include <string>
#include <vector>

namespace Cachescope
{

struct TopEntry {
    std::string path;
    uint64_t size = 0;
    uint64_t pages = 0;
    uint64_t resident = 0;
    uint64_t dirty = 0;
};

struct TopResult {
    std::vector<TopEntry> entries; // most resident pages first
    WalkResult walk; // totals; hidden files are counted there, never ranked
};

// The n files with the most resident pages under the roots. Memory is O(n) a thread.
[[nodiscard]] TopResult topCached(const std::vector<std::string> &roots, size_t n, WalkOptions options = {}, Walker::ProblemCallback problems = {});

} // namespace Cachescope
