// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Where a file's bytes lie on the disk, from the kernel's FS_IOC_FIEMAP: the
// replay sorts its reads by that position (the seed's "reordered I/O"). Some
// file systems have no FIEMAP (tmpfs, FUSE, NFS, ...): the answer then says
// so instead of inventing a position.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace Cachescope::Trace
{

// One struct fiemap_extent: bytes [logical, logical + length) of the file lie
// at byte physical of the device (fe_logical, fe_physical, fe_length, fe_flags).
struct PhysicalExtent {
    uint64_t logical = 0;
    uint64_t physical = 0;
    uint64_t length = 0;
    uint32_t flags = 0; // FIEMAP_EXTENT_* (linux/fiemap.h)

    // The position is real: not unknown, not delayed allocation, not inline
    // in metadata, not encoded (compressed or encrypted).
    [[nodiscard]] bool located() const;
};

struct FileMap {
    // The file system answers FIEMAP. False: unsupported is true when it has
    // none (EOPNOTSUPP, ENOTTY), else the ioctl failed; errorText says which.
    bool supported = false;
    bool unsupported = false;
    int error = 0;
    std::string errorText;
    std::vector<PhysicalExtent> extents; // ascending logical offsets; holes have none

    // The device byte where the file's byte offset lies; nullopt in a hole,
    // past the last extent, or where the extent has no real position.
    [[nodiscard]] std::optional<uint64_t> physicalOf(uint64_t offset) const;
};

// The extents of bytes [offset, offset + length) of an open file (length 0:
// to the end). Dirty data is written first (FIEMAP_FLAG_SYNC), so that
// freshly written files report their real positions, not delayed allocation.
[[nodiscard]] FileMap fileMapOfDescriptor(int fd, uint64_t offset = 0, uint64_t length = 0);

// A byte range of a file cut where its physical position jumps: each piece is
// contiguous on the disk (physical set) or has no known position (nullopt).
struct PhysicalPiece {
    uint64_t offset = 0;
    uint64_t length = 0;
    std::optional<uint64_t> physical;
};
[[nodiscard]] std::vector<PhysicalPiece> physicalPieces(const FileMap &map, uint64_t offset, uint64_t length);

} // namespace Cachescope::Trace
