// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// The helper's actions as plain functions: an argument map from an untrusted
// process and the caller's uid (which the KAuth glue takes from D-Bus) in, a
// KAuth reply out. The helper executable only forwards to these, so that the
// tests call them in-process, thousands of times, without a bus.

#include "helperprotocol.h"

#include <KAuth/ActionReply>

#include <QString>
#include <QVariantMap>

#include <functional>
#include <string>

namespace Cachescope::Helper
{

// The calls that change the system. The helper uses SystemCalls; the
// validation tests use a recording stand-in, so that a random argument map
// that happens to be valid does not drop the caches of the test machine.
class SystemCalls
{
public:
    virtual ~SystemCalls();
    virtual void syncAll();
    // docs/helper-security.md rule 2: writes "<level>\n" to the constant
    // /proc/sys/vm/drop_caches; returns errno or 0.
    [[nodiscard]] virtual int dropCaches(int level);
    // docs/helper-security.md rule 3: the syscalls themselves, no tool.
    // Return errno or 0.
    [[nodiscard]] virtual int swapOff(const std::string &path);
    [[nodiscard]] virtual int swapOn(const std::string &path, int flags);
};

struct HelperContext {
    SystemCalls *system = nullptr;
    // Where the helper reads and keeps things. The helper executable keeps
    // these defaults; only in-process tests point them elsewhere.
    std::string procRoot = "/proc";
    // The root-owned record of what the helper turned off (docs/helper-security.md rule 4).
    std::string stateDir = "/run/cachescope";
    std::string stateFile = "/run/cachescope/swap-state";
    std::string fstabPath = "/etc/fstab";
    std::string experimentDir = HelperProtocol::experimentSwapDir;
    long long maxExperimentBytes = HelperProtocol::maxExperimentSwapBytes;
    // docs/helper-security.md rule 10: progress while swapoff runs (SwapUsed
    // falling), and how often.
    std::function<void(const QVariantMap &)> progress;
    int progressIntervalMs = 250;
    // docs/helper-security.md rule 11: the audit line of each operation.
    std::function<void(const QString &)> log;
};

// The fixed-format audit line (docs/helper-security.md rule 11): numbers and helper-chosen words
// only, never a caller string.
// "cachescope-helper: action=<a> uid=<n> target=<t> result=<ok|refused|failed> code=<n>"
[[nodiscard]] QString auditLine(const QString &action, int callerUid, const QString &target, const KAuth::ActionReply &reply);
// Writes it to syslog (authpriv) and stderr.
void writeAuditLine(const QString &line);

// One function per polkit action (docs/helper-security.md rule 1):
// dropcaches and residency in helperactions.cpp, swapoff and swapon in
// swapactions.cpp, the experiment swap file in swapfileactions.cpp.
[[nodiscard]] KAuth::ActionReply dropCachesAction(const QVariantMap &args, int callerUid, HelperContext &context);
[[nodiscard]] KAuth::ActionReply swapOffAction(const QVariantMap &args, int callerUid, HelperContext &context);
[[nodiscard]] KAuth::ActionReply swapOnAction(const QVariantMap &args, int callerUid, HelperContext &context);
[[nodiscard]] KAuth::ActionReply swapFileCreateAction(const QVariantMap &args, int callerUid, HelperContext &context);
[[nodiscard]] KAuth::ActionReply swapFileRemoveAction(const QVariantMap &args, int callerUid, HelperContext &context);
[[nodiscard]] KAuth::ActionReply residencyAction(const QVariantMap &args, int callerUid, HelperContext &context);

} // namespace Cachescope::Helper
