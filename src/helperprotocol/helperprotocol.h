// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// What the unprivileged client and the root helper agree on: the helper id,
// one action per privileged task, the argument keys and the error codes.
// Kept in one header so that the two sides cannot drift apart.

#include <QLatin1StringView>

namespace Cachescope::HelperProtocol
{

// The D-Bus name of the helper and the prefix of every polkit action.
inline constexpr QLatin1StringView helperId{"org.kde.cachescope"};

// Rule 1 (one narrow method and one polkit action per operation): each of
// these is its own polkit action in polkit/org.kde.cachescope.actions and its
// own slot in the helper. There is no generic "run" or "write" action.
inline constexpr QLatin1StringView actionDropCaches{"org.kde.cachescope.dropcaches"};
inline constexpr QLatin1StringView actionSwapOff{"org.kde.cachescope.swapoff"};
inline constexpr QLatin1StringView actionSwapOn{"org.kde.cachescope.swapon"};
inline constexpr QLatin1StringView actionSwapFileCreate{"org.kde.cachescope.swapfilecreate"};
inline constexpr QLatin1StringView actionSwapFileRemove{"org.kde.cachescope.swapfileremove"};
inline constexpr QLatin1StringView actionResidency{"org.kde.cachescope.residency"};

// Argument keys.
inline constexpr QLatin1StringView keyLevel{"level"}; // dropcaches: int 1, 2 or 3
inline constexpr QLatin1StringView keyArea{"area"}; // swapoff/swapon: absolute path of one area
inline constexpr QLatin1StringView keyAll{"all"}; // swapoff/swapon: bool true = every area
inline constexpr QLatin1StringView keySizeBytes{"sizeBytes"}; // swapfilecreate: qint64
inline constexpr QLatin1StringView keyCount{"count"}; // residency: number of descriptors
inline constexpr QLatin1StringView keyBuckets{"buckets"}; // residency: histogram buckets
// residency descriptors are "fd0", "fd1", ... (QDBusUnixFileDescriptor values).

// Limits the helper enforces on untrusted input.
inline constexpr int maxDescriptors = 64;
inline constexpr int maxBuckets = 4096;
inline constexpr int maxPathBytes = 4095;
inline constexpr int maxArguments = 70;

// The experiment swap file: a fixed path the helper chooses (rule 5).
inline constexpr const char *experimentSwapDir = "/var/lib/cachescope";
inline constexpr const char *experimentSwapName = "experiment.swap";
inline constexpr long long minExperimentSwapBytes = 16LL << 20;
inline constexpr long long maxExperimentSwapBytes = 4LL << 30;

// The root-owned record of what the helper turned off (rule 4).
inline constexpr const char *stateDir = "/run/cachescope";
inline constexpr const char *stateFile = "/run/cachescope/swap-state";

// ActionReply::error() of a HelperError reply. errorDescription() always
// carries a sentence for people; the client maps the code to a category.
// They start at 100 because KAuth reports its own failures (4: authorization
// denied, 6: helper busy, ...) through the same error() number.
enum HelperError : int {
    InvalidArgument = 101, // wrong type, missing key, unknown key, out of range
    NotPermitted = 102, // well formed, but the helper refuses it (not a known area, ...)
    NotEnoughMemory = 103, // swapoff would not fit in RAM, or the kernel said ENOMEM
    Unsupported = 104, // the filesystem cannot hold swap, the kernel lacks a feature
    SystemFailure = 105, // a syscall failed for another reason
    AlreadyDone = 106, // nothing to do (no such swap active, the experiment file exists)
    CallerUnknown = 107, // the caller's uid could not be learnt from D-Bus: fail closed
};

} // namespace Cachescope::HelperProtocol
