// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include "residency.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

struct stat;

namespace Cachescope
{

enum class LoadMethod : uint8_t {
    Readahead, // readahead(2) in chunks: no copy to user space
    Read, // pread(2) into a buffer: what a program reading the file does
};

struct LoadOptions {
    // Byte range; length 0 means to the end of the file.
    uint64_t offset = 0;
    uint64_t length = 0;
    LoadMethod method = LoadMethod::Readahead;
    // Optional: checked between chunks.
    const std::atomic<bool> *cancel = nullptr;
    // Optional: called after each chunk with the bytes of the range gone
    // through so far (loaded, or found resident and skipped).
    std::function<void(uint64_t bytesDone)> progress;
};

// Bytes [offset, offset + length) of a file.
struct ByteSpan {
    uint64_t offset = 0;
    uint64_t length = 0;
    bool operator==(const ByteSpan &) const = default;
};

struct LoadReport {
    // At most this many loaded spans are kept (a file loaded in a million
    // pieces would cost megabytes to report); the rest are counted.
    static constexpr size_t maxSpans = 4096;

    uint64_t pages = 0;
    uint64_t before = 0;
    uint64_t after = 0;
    uint64_t bytesRequested = 0;
    uint64_t bytesDone = 0; // what was read ahead or read: the pages that were missing
    // The spans of the range that were missing and were loaded, in order,
    // clipped to the range; known only where residency is not hidden (the
    // whole range is loaded then).
    bool spansKnown = false;
    std::vector<ByteSpan> loadedSpans;
    uint64_t spansOmitted = 0; // beyond maxSpans
    bool hidden = false;
    bool truncated = false; // the file shrank while it was read
    bool cancelled = false;
    int error = 0;
    std::string errorText;
};

// Loads the pages of the range that are not resident, and only those: it
// counts them first, and only where some are resident and some not takes a
// page map (a window at a time) to find the missing spans; then it reads
// ahead or reads each one. Where residency is hidden it cannot look, and
// loads the whole range.
[[nodiscard]] LoadReport loadDescriptor(int fd, const struct stat &st, const LoadOptions &options);

// Resident (and, with cachestat, dirty and writeback) pages of the pages
// [firstPage, firstPage + pageCount) only. Eviction, loading and restoring
// report on the range they touched, not on the whole file.
struct RangeResidency : ResidencyStatus {
    uint64_t pages = 0;
    uint64_t resident = 0;
    bool detail = false; // dirty and writeback are known (cachestat)
    uint64_t dirty = 0;
    uint64_t writeback = 0;
};
[[nodiscard]] RangeResidency residencyOfPageRange(int fd, const struct stat &st, uint64_t firstPage, uint64_t pageCount);

} // namespace Cachescope
