// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Where a program's pages came from: the kernel's page-cache events for one
// command and its children (tracefs, through the privileged helper), or the
// residency difference of its files (the unprivileged fallback), and what
// Cachescope makes of them: files, extents (the seed's "offset, length"
// table), which pages the program asked for and which only readahead brought
// in, the file system's own metadata, and the block requests.
//
// The types are shared by the helper (which captures raw events), the trace
// engine (which turns them into a Report), the replay engine (which reads a
// Report's extents back), the CLI and the window. A Report round-trips
// through JSON: that JSON is the trace file of `cachescope-cli trace
// --output FILE` and `cachescope-cli experiment replay --trace FILE`.

#include <QByteArray>
#include <QJsonObject>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace Cachescope::Trace
{

// One tracepoint hit, as the kernel reported it.
enum class EventKind : uint8_t {
    Added, // filemap:mm_filemap_add_to_page_cache (a folio: pageCount = 1 << order)
    Deleted, // filemap:mm_filemap_delete_from_page_cache
    GetPages, // filemap:mm_filemap_get_pages (read(): pages the program asked for)
    MapPages, // filemap:mm_filemap_map_pages (fault-around: pages mapped in)
    Fault, // filemap:mm_filemap_fault (the page a fault asked for)
    BlockIssue, // block:block_rq_issue (a request sent to the disk)
};

struct RawEvent {
    uint64_t timeNs = 0; // the trace clock (CLOCK_MONOTONIC: "mono")
    EventKind kind = EventKind::Added;
    int32_t pid = 0; // as the initial PID namespace numbers it
    // Filemap events: the file's device as the kernel prints it (major:minor
    // of the superblock; the block device's own inode for metadata), inode,
    // and pages [firstPage, firstPage + pageCount).
    uint32_t major = 0;
    uint32_t minor = 0;
    uint64_t inode = 0;
    uint64_t firstPage = 0;
    uint64_t pageCount = 0;
    // BlockIssue only: the disk (major, minor above), the request.
    uint64_t sector = 0; // 512-byte sectors
    uint32_t bytes = 0;
    std::string rwbs; // "R", "RA", "W", "RM", ... as the kernel spells it
};

// What the helper (or the root client in process) hands back for one traced
// command.
struct Capture {
    std::vector<RawEvent> events;
    uint64_t lostEvents = 0; // ring-buffer overruns and drops, plus events past the cap
    bool usageEvents = false; // the kernel has get_pages/map_pages/fault
    bool blockEvents = false; // block_rq_issue was recorded
    std::string endReason; // "exited", "deadline", "cancelled", "event limit"
};

enum class Method {
    Tracefs, // the kernel's tracepoints, through the helper
    ResidencyDiff, // evict, run, diff residency: exact pages, no order, no time
};

struct File {
    std::string path; // bytes as the kernel has them; empty when it could not be named
    uint32_t major = 0;
    uint32_t minor = 0;
    uint64_t inode = 0;
    bool metadata = false; // the block device's own pages: inode tables, extent blocks
    uint64_t sizeBytes = 0; // at the time of the trace (0 when unnamed)
    int64_t modifiedNs = 0; // st_mtim at the time of the trace, to refuse a replay of a changed file
    uint64_t pagesAdded = 0; // pages the trace saw come into the cache
    uint64_t pagesAsked = 0; // of those, pages the program used (read, mapped, faulted)
    uint64_t pagesDeleted = 0; // pages evicted while the command ran
    // "dev:inode" when the path is empty, else the path (for people).
    [[nodiscard]] std::string displayName() const;
};

// Consecutive pages of one file, brought in one after another.
struct Extent {
    int file = 0; // index into Report::files
    uint64_t firstPage = 0;
    uint64_t pageCount = 0;
    double startSeconds = 0; // since the command started (0 without time)
    double endSeconds = 0;
    uint64_t askedPages = 0; // pages of it the program used; the rest only readahead brought
};

struct BlockRequest {
    double seconds = 0;
    uint32_t major = 0;
    uint32_t minor = 0;
    uint64_t sector = 0;
    uint32_t bytes = 0;
    std::string rwbs;
};

struct Report {
    Method method = Method::Tracefs;
    std::vector<std::string> command;
    double durationSeconds = 0;
    int exitStatus = -1; // the command's exit code; -1 when killed or not started
    bool usageKnown = false; // asked-for vs readahead could be told (newer tracepoints)
    uint64_t lostEvents = 0;
    std::string endReason;
    std::vector<File> files; // in the order their first page came in
    std::vector<Extent> extents; // in the order they happened
    std::vector<BlockRequest> requests;
    std::vector<std::string> notes; // caveats (no usage tracepoints, fallback, ...)

    [[nodiscard]] uint64_t pagesRead() const;
    [[nodiscard]] uint64_t pagesReadaheadOnly() const; // 0 when !usageKnown
};

[[nodiscard]] const char *methodName(Method method); // "tracefs" or "residency-diff"

// The trace file (docs/cli.md: "Trace file").
[[nodiscard]] QJsonObject reportToJson(const Report &report);
[[nodiscard]] std::optional<Report> reportFromJson(const QJsonObject &object, std::string *error);
// The trace file's bytes: refuses text that is not JSON or not an object, then as reportFromJson.
[[nodiscard]] std::optional<Report> reportFromJsonBytes(const QByteArray &bytes, std::string *error);

} // namespace Cachescope::Trace
