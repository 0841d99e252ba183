// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// Pinning files in memory (vmtouch -l, pagers lock): map them and mlock(2)
// the mappings, so that neither eviction nor memory pressure takes their
// pages while the pins live. Everything is checked before anything is
// locked (each path, each range, the whole size against RLIMIT_MEMLOCK and
// against the memory available), and a failure part way unlocks what was
// locked: pins hold all their files or none.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace Cachescope
{

struct PinRequest {
    std::string path;
    uint64_t offset = 0; // rounded down to a page
    uint64_t length = 0; // 0: to the end of the file; rounded up to a page
};

struct PinnedRange {
    std::string path;
    uint64_t offset = 0; // bytes, page-aligned
    uint64_t length = 0; // bytes, up to the end of the file
    uint64_t pages = 0;
};

// What the limits allow, for the refusal's numbers.
struct LockLimits {
    bool unlimited = false; // CAP_IPC_LOCK (root) or RLIMIT_MEMLOCK infinity
    uint64_t limit = 0; // RLIMIT_MEMLOCK, bytes
    uint64_t alreadyLocked = 0; // VmLck of this process, bytes
    uint64_t available = 0; // MemAvailable, bytes (0: unknown)
};
[[nodiscard]] LockLimits currentLockLimits();

struct PinResult;
[[nodiscard]] PinResult pinFiles(const std::vector<PinRequest> &requests);

// Locked mappings; destruction unlocks and unmaps them.
class Pins
{
public:
    ~Pins();
    Pins(const Pins &) = delete;
    Pins &operator=(const Pins &) = delete;

    [[nodiscard]] const std::vector<PinnedRange> &ranges() const
    {
        return m_ranges;
    }
    [[nodiscard]] uint64_t bytes() const;
    [[nodiscard]] uint64_t pages() const;
    // Resident pages of the pinned ranges now (mincore on the mappings).
    [[nodiscard]] uint64_t residentPages() const;

private:
    friend PinResult pinFiles(const std::vector<PinRequest> &requests);
    Pins() = default;
    struct Mapping {
        void *address = nullptr;
        size_t length = 0;
    };
    std::vector<Mapping> m_mappings;
    std::vector<PinnedRange> m_ranges;
};

struct PinResult {
    std::unique_ptr<Pins> pins; // null when refused or failed
    std::string error; // "PATH: reason" or the limit's numbers; empty on success
    uint64_t bytes = 0; // what the request needs (also when refused)
    LockLimits limits;

    [[nodiscard]] bool ok() const
    {
        return pins != nullptr;
    }
};

// Checks every request, then the total against the limits, then maps and
// locks (which reads the missing pages in). All or nothing.
[[nodiscard]] PinResult pinFiles(const std::vector<PinRequest> &requests);

} // namespace Cachescope
