// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

#include <cstdint>
#include <memory>
#include <string>

struct stat;

namespace Cachescope
{

// Why pages stayed after posix_fadvise(DONTNEED).
enum class RemainReason : uint8_t {
    None, // nothing stayed
    Dirty, // dirty pages go to writeback first: flush (fsync) and evict again
    Mapped, // mapped by a running process: the kernel keeps those pages
    Shmem, // tmpfs / shared memory: there is no disk to drop them to
    Hidden, // the kernel hides this file's residency from us
    Unknown, // pages stayed and none of the above explains it (racing readers)
};

[[nodiscard]] const char *remainReasonName(RemainReason reason); // "dirty", "mapped", ...
[[nodiscard]] std::string remainReasonText(RemainReason reason); // a sentence for people

// The (device, inode) pairs that live processes map, from /proc/*/maps.
class MappedFiles
{
public:
    [[nodiscard]] static std::shared_ptr<const MappedFiles> scan(const std::string &procRoot = "/proc");
    [[nodiscard]] bool contains(uint64_t device, uint64_t inode) const;
    [[nodiscard]] size_t size() const;
    ~MappedFiles();

private:
    MappedFiles();
    struct Private;
    std::unique_ptr<Private> d;
};

struct EvictOptions {
    // fdatasync first, so that dirty pages become clean and can be dropped.
    bool flushDirtyFirst = false;
    // Byte range; length 0 means to the end of the file.
    uint64_t offset = 0;
    uint64_t length = 0;
};

struct EvictReport {
    uint64_t pages = 0;
    uint64_t before = 0; // resident pages before
    uint64_t after = 0; // resident pages after
    uint64_t dirtyAfter = 0;
    bool hidden = false; // counts unknown: the kernel hides them (eviction still ran)
    RemainReason reason = RemainReason::None;
    int error = 0;
    std::string errorText;
    [[nodiscard]] uint64_t freedPages() const
    {
        return before > after ? before - after : 0;
    }
};

// posix_fadvise(DONTNEED) as the user, on a descriptor the user opened (read-only
// is enough). mapped may be null: then a mapped file is reported as Unknown.
[[nodiscard]] EvictReport evictDescriptor(int fd, const struct stat &st, const EvictOptions &options, const MappedFiles *mapped);

// True for tmpfs, ramfs and other memory-only filesystems whose pages fadvise cannot drop.
[[nodiscard]] bool isMemoryBackedFilesystem(int fd);

} // namespace Cachescope
