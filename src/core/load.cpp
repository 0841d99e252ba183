// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "load.h"

#include "format.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace Cachescope
{

namespace
{
// Progress and cancellation happen once per chunk.
constexpr uint64_t progressChunk = 2 << 20;
// The kernel caps one readahead(2) call at max(io_pages, ra_pages) of the
// device (often 128 KiB) and silently reads no more; smaller calls stay under
// that cap on every common device. Each chunk is verified afterwards anyway.
constexpr uint64_t readaheadStep = 128 << 10;
// The window pageMapOfDescriptor is asked for at once: bounded memory.
constexpr uint64_t pageMapWindow = 1 << 18;

uint64_t fileSize(const struct stat &st)
{
    return uint64_t(std::max<off_t>(st.st_size, 0));
}

struct ByteRange {
    uint64_t start = 0;
    uint64_t end = 0;
};

// The requested bytes clipped to the file (length 0: to the end).
ByteRange clipRange(uint64_t size, uint64_t offset, uint64_t length)
{
    const uint64_t start = std::min(offset, size);
    const uint64_t end = (length == 0 || length > size - start) ? size : start + length;
    return {start, end};
}

// Reads [start, end) with pread into buffer; returns the bytes read (less at
// EOF) or -errno.
int64_t readBytes(int fd, uint64_t start, uint64_t end, std::vector<char> &buffer)
{
    uint64_t position = start;
    while (position < end) {
        const size_t want = size_t(std::min<uint64_t>(buffer.size(), end - position));
        const ssize_t n = pread(fd, buffer.data(), want, off_t(position));
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -int64_t(errno);
        }
        if (n == 0) {
            break;
        }
        position += uint64_t(n);
    }
    return int64_t(position - start);
}

// readahead(2) over [start, end) in steps under the kernel's cap. Returns 0 or an errno.
int readaheadBytes(int fd, uint64_t start, uint64_t end)
{
    for (uint64_t position = start; position < end; position += readaheadStep) {
        const uint64_t length = std::min(readaheadStep, end - position);
        if (readahead(fd, off64_t(position), size_t(length)) != 0) {
            return errno;
        }
    }
    return 0;
}
} // namespace

RangeResidency residencyOfPageRange(int fd, const struct stat &st, uint64_t firstPage, uint64_t pageCount)
{
    RangeResidency result;
    result.pages = pageCount;
    const std::string hiddenReason = hiddenReasonFor(st, fd);
    if (!hiddenReason.empty()) {
        result.hidden = true;
        result.hiddenReason = hiddenReason;
        return result;
    }
    if (pageCount == 0) {
        return result;
    }
    const uint64_t page = pageSize();
    if (cachestatAvailable() && !cachestatBlindTo(fd, st)) {
        CachestatCounts counts;
        const int error = cachestatRange(fd, firstPage * page, pageCount * page, counts);
        if (error == 0) {
            takeCachestatCounts(result, counts);
            return result;
        }
        if (error == EPERM) {
            result.method = ResidencyMethod::Cachestat;
            result.hidden = true;
            result.hiddenReason = "the kernel refused cachestat (EPERM)";
            return result;
        }
        // Anything else: mincore below may still answer.
    }
    result.method = ResidencyMethod::Mincore;
    // Pages past the end of the file are never resident: do not map them.
    const uint64_t filePages = pagesFor(fileSize(st));
    const uint64_t last = std::min(firstPage + pageCount, filePages);
    for (uint64_t first = firstPage; first < last; first += pageMapWindow) {
        const PageMap map = pageMapOfDescriptor(fd, st, first, std::min(pageMapWindow, last - first), ResidencyOptions{.forceMincore = true});
        if (!map.ok() || map.hidden) {
            static_cast<ResidencyStatus &>(result) = map;
            return result;
        }
        result.resident += uint64_t(std::count_if(map.flags.begin(), map.flags.end(), [](uint8_t flags) {
            return flags & PageResident;
        }));
    }
    return result;
}

LoadReport loadDescriptor(int fd, const struct stat &st, const LoadOptions &options)
{
    LoadReport report;
    if (!S_ISREG(st.st_mode)) {
        report.error = EINVAL;
        report.errorText = "not a regular file: never loaded";
        return report;
    }
    const uint64_t page = pageSize();
    ByteRange range = clipRange(fileSize(st), options.offset, options.length);
    report.bytesRequested = range.end - range.start;
    const uint64_t firstPage = range.start / page;
    const uint64_t pageCount = range.end > range.start ? (range.end + page - 1) / page - firstPage : 0;
    report.pages = pageCount;

    const RangeResidency before = residencyOfPageRange(fd, st, firstPage, pageCount);
    report.hidden = before.hidden;
    report.before = before.resident;
    // Without cachestat or with residency hidden we cannot check that a
    // readahead chunk really arrived; reading it is the safe way then.
    const bool canVerify = before.known() && before.method == ResidencyMethod::Cachestat;
    LoadMethod method = options.method;

    // Random access: the kernel then reads exactly the pages asked for, with
    // pread as with readahead, instead of growing a readahead window past the
    // range. Set back to normal below.
    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    std::vector<char> buffer;
    const auto ensureBuffer = [&buffer] {
        if (buffer.empty()) {
            buffer.resize(1 << 20);
        }
    };
    const auto noteTruncated = [&](uint64_t newSize) {
        report.truncated = true;
        report.errorText = "the file shrank from " + std::to_string(range.end) + " to " + std::to_string(newSize) + " bytes while it was being loaded";
        range.end = std::max(newSize, range.start);
    };
    const auto noteSpan = [&](uint64_t start, uint64_t end) {
        if (!report.loadedSpans.empty() && report.loadedSpans.back().offset + report.loadedSpans.back().length == start) {
            report.loadedSpans.back().length += end - start;
        } else if (report.loadedSpans.size() < LoadReport::maxSpans) {
            report.loadedSpans.push_back({start, end - start});
        } else {
            ++report.spansOmitted;
        }
    };
    // Where the range has been gone through up to, for progress.
    uint64_t passed = range.start;
    const auto reportPassed = [&](uint64_t position) {
        if (position > passed) {
            passed = position;
            if (options.progress) {
                options.progress(passed - range.start);
            }
        }
    };

    // Loads [start, end) of the range a chunk at a time; false once the load
    // must stop (cancelled, failed, truncated before the span).
    const auto loadSpan = [&](uint64_t start, uint64_t end) {
        uint64_t position = start;
        while (position < std::min(end, range.end)) {
            if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
                report.cancelled = true;
                return false;
            }
            // readahead(2) past the end quietly reads nothing: look at the size first.
            struct stat now;
            if (fstat(fd, &now) == 0 && fileSize(now) < range.end) {
                noteTruncated(fileSize(now));
                if (position >= range.end) {
                    return false;
                }
            }
            const uint64_t chunkEnd = std::min({end, range.end, (position / progressChunk + 1) * progressChunk});
            bool readIt = method == LoadMethod::Read;
            if (!readIt) {
                const int error = readaheadBytes(fd, position, chunkEnd);
                if (error == EINVAL || error == ENOSYS) {
                    // This filesystem has no readahead: read from here on.
                    method = LoadMethod::Read;
                    readIt = true;
                } else if (error != 0) {
                    report.error = error;
                    report.errorText = errnoText("readahead", error) + " at byte " + std::to_string(position);
                    return false;
                } else if (canVerify) {
                    const uint64_t chunkFirst = position / page;
                    const uint64_t chunkPages = (chunkEnd + page - 1) / page - chunkFirst;
                    CachestatCounts counts;
                    if (cachestatRange(fd, chunkFirst * page, chunkPages * page, counts) != 0 || counts.cache < chunkPages) {
                        // The kernel read less than asked (its cap, memory
                        // pressure): read the chunk so that every page is there.
                        readIt = true;
                    }
                }
            }
            if (readIt) {
                ensureBuffer();
                const int64_t n = readBytes(fd, position, chunkEnd, buffer);
                if (n < 0) {
                    report.error = int(-n);
                    report.errorText = errnoText("read", int(-n)) + " at byte " + std::to_string(position);
                    return false;
                }
                if (uint64_t(n) < chunkEnd - position) {
                    // End of file before the end of the range: it was truncated.
                    noteTruncated(position + uint64_t(n));
                    if (n > 0) {
                        report.bytesDone += uint64_t(n);
                        noteSpan(position, position + uint64_t(n));
                    }
                    reportPassed(position + uint64_t(n));
                    return false;
                }
            }
            report.bytesDone += chunkEnd - position;
            noteSpan(position, chunkEnd);
            position = chunkEnd;
            reportPassed(position);
        }
        return position >= start;
    };

    report.spansKnown = before.known() && pageCount > 0;
    if (report.spansKnown && before.resident == pageCount) {
        // All of it is there already: nothing to read.
        reportPassed(range.end);
    } else if (report.spansKnown && before.resident > 0) {
        // Only what is missing: a page map a window at a time (bounded
        // memory), then each run of missing pages.
        bool going = true;
        for (uint64_t windowFirst = firstPage; going && windowFirst < firstPage + pageCount; windowFirst += pageMapWindow) {
            const uint64_t windowPages = std::min(pageMapWindow, firstPage + pageCount - windowFirst);
            const PageMap map = pageMapOfDescriptor(fd, st, windowFirst, windowPages, ResidencyOptions{.forceMincore = true});
            const auto missing = [&map](uint64_t pageIndex) {
                const uint64_t at = pageIndex - map.firstPage;
                // A page the map could not tell about is loaded.
                return !map.ok() || map.hidden || pageIndex < map.firstPage || at >= map.flags.size() || !(map.flags[size_t(at)] & PageResident);
            };
            uint64_t p = windowFirst;
            const uint64_t windowEnd = windowFirst + windowPages;
            while (going && p < windowEnd) {
                if (!missing(p)) {
                    ++p;
                    continue;
                }
                uint64_t q = p + 1;
                while (q < windowEnd && missing(q)) {
                    ++q;
                }
                const uint64_t spanStart = std::max(range.start, p * page);
                const uint64_t spanEnd = std::min(range.end, q * page);
                reportPassed(spanStart);
                going = spanStart >= spanEnd || loadSpan(spanStart, spanEnd);
                p = q;
            }
            if (going) {
                reportPassed(std::min(range.end, windowEnd * page));
            }
        }
    } else {
        // None of it is there, or residency is hidden (no way to tell): the
        // whole range, without the page map.
        (void)loadSpan(range.start, range.end);
    }
    posix_fadvise(fd, 0, 0, POSIX_FADV_NORMAL);

    const RangeResidency after = residencyOfPageRange(fd, st, firstPage, pageCount);
    report.hidden = report.hidden || after.hidden;
    report.after = after.resident;
    if (!after.ok() && report.error == 0) {
        report.error = after.error;
        report.errorText = after.errorText;
    }
    return report;
}

} // namespace Cachescope
