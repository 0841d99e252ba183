// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The helper's pure decisions, apart from any syscall that changes the
// system, so that each is unit-tested on fixture figures: argument checks,
// the swapoff will-it-fit rule, matching areas by device and inode, the
// state file, which filesystems may hold the experiment swap file.

#include "procfs.h"

#include <QString>
#include <QVariant>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct stat;

namespace Cachescope::Helper
{

// A caller-supplied key or string as it may appear in an error message: only
// printable ASCII, at most 40 characters, quoted. Raw caller strings never
// reach a message or the log unfiltered (docs/helper-security.md rule 11).
[[nodiscard]] QString quoteForMessage(const QString &text);

// docs/helper-security.md rule 9: the argument map comes from an untrusted process. Returns an error
// sentence when the map has more keys than any action takes, a key outside
// `allowed` or misses one of `required`; nullopt when the keys are fine.
[[nodiscard]] std::optional<QString> checkKeys(const QVariantMap &args, const std::vector<QString> &allowed, const std::vector<QString> &required);

// An integer argument: only integer types (int, uint, qlonglong, qulonglong)
// within [min, max]. Strings ("3", "3; reboot"), doubles, bools and lists are
// refused, so that no conversion guesses what the caller meant.
struct IntegerArgument {
    std::optional<long long> value;
    QString error; // set when value is empty
};
[[nodiscard]] IntegerArgument integerArgument(const QVariantMap &args, const QString &key, long long min, long long max);

// A bool argument that must be exactly `true` (for "all").
[[nodiscard]] std::optional<QString> checkTrueFlag(const QVariantMap &args, const QString &key);

// An absolute path argument: a QString, not empty, at most maxPathBytes
// bytes of UTF-8, starting with '/', no NUL, no "." or ".." component, no
// empty component. Returns the bytes, or the reason in *error.
[[nodiscard]] std::optional<std::string> pathArgument(const QVariantMap &args, const QString &key, QString *error);

// --- Swapoff: will it fit? (docs/helper-security.md rule 10) ---------------

struct SwapOffFit {
    bool fits = false;
    uint64_t swapUsedBytes = 0;
    uint64_t availableBytes = 0; // MemAvailable, or MemFree on kernels without it
    uint64_t marginBytes = 0;
    uint64_t missingBytes = 0; // swapUsed + margin - available when it does not fit
};

// The margin keeps the machine usable while the pages come back: the larger
// of 128 MiB and 5 % of MemTotal.
[[nodiscard]] uint64_t swapOffMargin(uint64_t memTotalBytes);
[[nodiscard]] SwapOffFit swapOffFit(uint64_t swapUsedBytes, const MemInfo &memInfo);
// "Turning swap off would bring back 3.0 GiB, but only 2.0 GiB of memory is
// available (keeping 512 MiB spare): 1.5 GiB is missing. Close programs ..."
[[nodiscard]] QString describeSwapOffMisfit(const SwapOffFit &fit);

// --- Which area is meant: device number or inode, never the name -------------
// (docs/helper-security.md rule 4)

struct AreaIdentity {
    bool blockDevice = false;
    uint64_t device = 0; // st_rdev for a block device, st_dev for a file
    uint64_t inode = 0; // 0 for a block device
    friend bool operator==(const AreaIdentity &, const AreaIdentity &) = default;
};

// Only a regular file or a block device can be a swap area; anything else
// (a symlink, since callers lstat, a FIFO, a directory) gives nullopt.
[[nodiscard]] std::optional<AreaIdentity> areaIdentity(const struct stat &st);

// Index in `candidates` of the entry with the same identity; nullopt if none.
// Candidates without an identity (the file vanished) never match.
[[nodiscard]] std::optional<size_t> findArea(const AreaIdentity &target, const std::vector<std::optional<AreaIdentity>> &candidates);

// --- The state file: what the helper turned off --------------------------------

struct SwapRecord {
    std::string path; // the kernel's name from /proc/swaps
    AreaIdentity identity;
    int priority = -1; // as /proc/swaps showed it
    friend bool operator==(const SwapRecord &, const SwapRecord &) = default;
};

// Line 1 "cachescope-swap-state 1"; then one line per area:
// "<file|block> <device> <inode> <priority> <path, percent-encoded>".
[[nodiscard]] std::string formatSwapState(const std::vector<SwapRecord> &records);
// nullopt (and *error) for anything that is not exactly that format.
[[nodiscard]] std::optional<std::vector<SwapRecord>> parseSwapState(std::string_view text, QString *error);

// swapon(2) flags that restore a priority: a priority >= 0 was set by someone
// and is given back with SWAP_FLAG_PREFER; a negative one was the kernel's
// own choice and is left to the kernel again.
[[nodiscard]] int swapOnFlags(int priority);

// --- The experiment swap file (docs/helper-security.md rule 5) ----------------

// nullopt when a filesystem of this statfs f_type can hold a swap file made by
// writing zeros (ext2/3/4, XFS, F2FS); otherwise the reason for people.
[[nodiscard]] std::optional<QString> swapFilesystemProblem(long long filesystemType);

// nullopt when size is within the bounds and leaves enough free space.
[[nodiscard]] std::optional<QString> experimentSizeProblem(long long sizeBytes, long long maxBytes, uint64_t freeBytes);

// Fills the first page of a swap area (version 1 header, "SWAPSPACE2" at its
// end), as mkswap does, for an area of `pages` pages of `pageSize` bytes.
void writeSwapHeader(char *firstPage, size_t pageSize, uint64_t pages);

} // namespace Cachescope::Helper
