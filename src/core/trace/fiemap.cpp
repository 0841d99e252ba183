// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

#include "fiemap.h"

#include "format.h"

#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>

namespace Cachescope::Trace
{

bool PhysicalExtent::located() const
{
    return (flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_ENCODED)) == 0;
}

std::optional<uint64_t> FileMap::physicalOf(uint64_t offset) const
{
    // The last extent that starts at or before offset.
    auto after = std::upper_bound(extents.begin(), extents.end(), offset, [](uint64_t value, const PhysicalExtent &extent) {
        return value < extent.logical;
    });
    if (after == extents.begin()) {
        return std::nullopt;
    }
    const PhysicalExtent &extent = *(after - 1);
    if (offset >= extent.logical + extent.length || !extent.located()) {
        return std::nullopt;
    }
    return extent.physical + (offset - extent.logical);
}

FileMap fileMapOfDescriptor(int fd, uint64_t offset, uint64_t length)
{
    FileMap map;
    const uint64_t end = length == 0 || offset + length < offset ? FIEMAP_MAX_OFFSET : offset + length;
    constexpr uint32_t batch = 128;
    const size_t bytes = sizeof(struct fiemap) + batch * sizeof(struct fiemap_extent);
    const std::unique_ptr<struct fiemap, decltype(&std::free)> request(static_cast<struct fiemap *>(std::calloc(1, bytes)), &std::free);
    uint32_t flags = FIEMAP_FLAG_SYNC;
    uint64_t next = offset;
    while (next < end) {
        std::fill_n(reinterpret_cast<char *>(request.get()), bytes, 0);
        request->fm_start = next;
        request->fm_length = end - next;
        request->fm_flags = flags;
        request->fm_extent_count = batch;
        if (::ioctl(fd, FS_IOC_FIEMAP, request.get()) != 0) {
            const int error = errno;
            if (error == EBADR && flags != 0) {
                flags = 0; // the file system refuses the sync flag: ask without it
                continue;
            }
            map.error = error;
            map.unsupported = error == EOPNOTSUPP || error == ENOTTY || error == ENOSYS;
            map.errorText = map.unsupported ? "this file system has no FIEMAP (" + errnoText(error) + "): the positions on the disk are unknown"
                                            : errnoText("FS_IOC_FIEMAP", error);
            map.extents.clear();
            return map;
        }
        if (request->fm_mapped_extents == 0) {
            break;
        }
        bool last = false;
        for (uint32_t i = 0; i < request->fm_mapped_extents; ++i) {
            const struct fiemap_extent &e = request->fm_extents[i];
            map.extents.push_back({e.fe_logical, e.fe_physical, e.fe_length, e.fe_flags});
            last = last || (e.fe_flags & FIEMAP_EXTENT_LAST);
        }
        const PhysicalExtent &tail = map.extents.back();
        if (last || tail.logical + tail.length <= next) {
            break;
        }
        next = tail.logical + tail.length;
    }
    map.supported = true;
    return map;
}

std::vector<PhysicalPiece> physicalPieces(const FileMap &map, uint64_t offset, uint64_t length)
{
    std::vector<PhysicalPiece> pieces;
    const uint64_t end = offset + length;
    uint64_t at = offset;
    const auto add = [&pieces](uint64_t from, uint64_t to, std::optional<uint64_t> physical) {
        if (to > from) {
            pieces.push_back({from, to - from, physical});
        }
    };
    for (const PhysicalExtent &extent : map.extents) {
        if (at >= end) {
            break;
        }
        const uint64_t extentEnd = extent.logical + extent.length;
        if (extentEnd <= at) {
            continue;
        }
        if (extent.logical >= end) {
            break;
        }
        // A hole before this extent: nothing on the disk to place it by.
        add(at, std::min(end, extent.logical), std::nullopt);
        at = std::max(at, extent.logical);
        const uint64_t pieceEnd = std::min(end, extentEnd);
        add(at, pieceEnd, extent.located() ? std::optional<uint64_t>(extent.physical + (at - extent.logical)) : std::nullopt);
        at = pieceEnd;
    }
    add(at, end, std::nullopt);
    return pieces;
}

} // namespace Cachescope::Trace
