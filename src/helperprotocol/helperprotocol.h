// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers
#pragma once

// What the client (src/privileged, runs as the user) and the root helper
// (src/helper) agree on: the helper id, one action per privileged task, every
// argument and reply key, the limits and the error codes. Both sides spell a
// key only through these constants, so that they cannot drift apart.
//
// This header has a folder of its own (an INTERFACE library,
// cachescopehelperprotocol) rather than living with either side: the client
// must not see the root code's headers on its include path, and the helper
// must not see the client's; each links this folder and nothing of the other.

#include <QLatin1StringView>
#include <QString>

#include <array>

namespace Cachescope::HelperProtocol
{

// The prefix of every polkit action (the service's bus name is busName,
// below).
inline constexpr QLatin1StringView helperId{"org.kde.cachescope"};

// docs/helper-security.md rule 1: each of these is its own polkit action in
// polkit/org.kde.cachescope.policy and its own method (or pair of methods:
// one area, or all) of the service. There is no generic "run" or "write"
// action.
inline constexpr QLatin1StringView actionDropCaches{"org.kde.cachescope.dropcaches"};
inline constexpr QLatin1StringView actionSwapOff{"org.kde.cachescope.swapoff"};
inline constexpr QLatin1StringView actionSwapOn{"org.kde.cachescope.swapon"};
inline constexpr QLatin1StringView actionSwapFileCreate{"org.kde.cachescope.swapfilecreate"};
inline constexpr QLatin1StringView actionSwapFileRemove{"org.kde.cachescope.swapfileremove"};
inline constexpr QLatin1StringView actionResidency{"org.kde.cachescope.residency"};
inline constexpr QLatin1StringView actionTrace{"org.kde.cachescope.trace"};
inline constexpr QLatin1StringView actionContain{"org.kde.cachescope.contain"};
inline constexpr QLatin1StringView actionReclaim{"org.kde.cachescope.reclaim"};
inline constexpr QLatin1StringView actionAccount{"org.kde.cachescope.account"};
inline constexpr QLatin1StringView actionActivity{"org.kde.cachescope.activity"};

// --- Argument keys ------------------------------------------------------------
inline constexpr QLatin1StringView keyLevel{"level"}; // dropcaches: int 1, 2 or 3
inline constexpr QLatin1StringView keyArea{"area"}; // swapoff/swapon: absolute path of one area
inline constexpr QLatin1StringView keyAll{"all"}; // swapoff/swapon: bool true = every area
inline constexpr QLatin1StringView keySizeBytes{"sizeBytes"}; // swapfilecreate: qint64, a multiple of the page size
inline constexpr QLatin1StringView keyCount{"count"}; // residency: number of paths, 1 to maxPathsPerCall
inline constexpr QLatin1StringView keyBuckets{"buckets"}; // residency: histogram buckets
// trace: the caller's own process (int, as the caller's PID namespace
// numbers it) and the longest it is traced (int, 1 to maxTraceSeconds).
inline constexpr QLatin1StringView keyPid{"pid"};
inline constexpr QLatin1StringView keySeconds{"seconds"};
// activity: how long (keySeconds, 1 to maxActivitySeconds) and how often it
// reports, in milliseconds (minActivityIntervalMs to maxActivityIntervalMs).
inline constexpr QLatin1StringView keyIntervalMs{"intervalMs"};
// contain: the caller's own process (keyPid) and the memory limit of the
// cgroup it is moved into (qint64 bytes, minCacheLimitBytes to MemTotal).
inline constexpr QLatin1StringView keyLimitBytes{"limitBytes"};
// reclaim: one cgroup, as /proc/<pid>/cgroup names it ("/user.slice/...":
// a QString, absolute within the memory hierarchy).
inline constexpr QLatin1StringView keyCgroup{"cgroup"};

// residency: the paths are "path0", "path1", ... (QByteArray: the file
// name's bytes as the kernel takes them, absolute; no descriptor is ever
// passed over D-Bus, docs/helper-security.md rule 9).
[[nodiscard]] inline QString pathKey(int index)
{
    return QStringLiteral("path%1").arg(index);
}

// --- Reply keys -----------------------------------------------------------------
// dropcaches: keyLevel (int), and the memory figures before and after (maps
// of the memory figure keys below to bytes).
inline constexpr QLatin1StringView replyBefore{"before"};
inline constexpr QLatin1StringView replyAfter{"after"};
// swapoff: the kernel's names of the areas turned off (QStringList), their
// priorities (QVariantList of int) and the swap in use before and after.
inline constexpr QLatin1StringView replyTurnedOff{"turnedOff"};
inline constexpr QLatin1StringView replyTurnedOn{"turnedOn"}; // swapon, as turnedOff
inline constexpr QLatin1StringView replyPriorities{"priorities"};
inline constexpr QLatin1StringView replySwapUsedBefore{"swapUsedBefore"};
inline constexpr QLatin1StringView replySwapUsedAfter{"swapUsedAfter"};
// swapon: besides turnedOn and priorities (the areas now on), every area it
// looked at, in the order of the state file: a QVariantList of QVariantMaps
// with the keys below. Outcomes: on (turned on now), alreadyOn and gone (the
// record was dropped: the area is active, or its file is gone or was
// replaced), failed (the record is kept; message says why).
inline constexpr QLatin1StringView replyAreas{"areas"};
inline constexpr QLatin1StringView areaName{"name"};
inline constexpr QLatin1StringView areaOutcome{"outcome"};
inline constexpr QLatin1StringView areaPriority{"priority"};
inline constexpr QLatin1StringView areaMessage{"message"};
inline constexpr QLatin1StringView outcomeOn{"on"};
inline constexpr QLatin1StringView outcomeAlreadyOn{"alreadyOn"};
inline constexpr QLatin1StringView outcomeGone{"gone"};
inline constexpr QLatin1StringView outcomeFailed{"failed"};
// swapfilecreate: path and sizeBytes; swapfileremove: path and wasActive.
inline constexpr QLatin1StringView replyPath{"path"};
inline constexpr QLatin1StringView replySizeBytes{"sizeBytes"};
inline constexpr QLatin1StringView replyWasActive{"wasActive"};
// residency: the answers, as residencyanswer.h's serializeFileResults()
// writes them; trace: the capture, as tracecapture.h's serializeCapture()
// writes it. Both stay inside the service (and the client's in-process path
// as root): on the bus they travel as the typed arrays of the Job1 signals,
// to the caller alone.
inline constexpr QLatin1StringView replyFiles{"files"};
inline constexpr QLatin1StringView replyCapture{"capture"};
// account: the account of Cached, as accountanswer.h's serializeAccount() writes it.
inline constexpr QLatin1StringView replyAccount{"account"};
// activity: the run's totals, as activityanswer.h's serializeActivity()
// writes them, and what ended it ("deadline", "cancelled", "failed").
inline constexpr QLatin1StringView replyActivity{"activity"};
inline constexpr QLatin1StringView replyEndReason{"endReason"};

// contain: the cgroup made (its folder: no secret), its version (1 or 2) and
// limit (bytes, as keyLimitBytes).
inline constexpr QLatin1StringView replyCgroupPath{"cgroupPath"};
inline constexpr QLatin1StringView replyCgroupVersion{"cgroupVersion"};
// reclaim: the cgroup's page cache before and after (bytes).
inline constexpr QLatin1StringView replyFileBytesBefore{"fileBytesBefore"};
inline constexpr QLatin1StringView replyFileBytesAfter{"fileBytesAfter"};
// reclaim: true when the kernel was still reclaiming at the helper's
// deadline (reclaimDeadlineSeconds) and was stopped there; the figures say
// what it had done by then.
inline constexpr QLatin1StringView replyStoppedAtDeadline{"stoppedAtDeadline"};

// The memory figures of the dropcaches reply, named as in /proc/meminfo.
inline constexpr QLatin1StringView memTotal{"MemTotal"};
inline constexpr QLatin1StringView memFree{"MemFree"};
inline constexpr QLatin1StringView memAvailable{"MemAvailable"};
inline constexpr QLatin1StringView memBuffers{"Buffers"};
inline constexpr QLatin1StringView memCached{"Cached"};
inline constexpr QLatin1StringView memSReclaimable{"SReclaimable"};
inline constexpr QLatin1StringView memDirty{"Dirty"};
inline constexpr QLatin1StringView memSwapTotal{"SwapTotal"};
inline constexpr QLatin1StringView memSwapFree{"SwapFree"};
inline constexpr std::array<QLatin1StringView, 9>
    memoryFigureKeys{memTotal, memFree, memAvailable, memBuffers, memCached, memSReclaimable, memDirty, memSwapTotal, memSwapFree};

// Progress data while swapoff runs: the area (its kernel name) and the swap
// still in use, in bytes.
inline constexpr QLatin1StringView progressArea{"area"};
inline constexpr QLatin1StringView progressSwapUsedBytes{"swapUsedBytes"};
// Progress data of trace: true once the events are being recorded (the
// client then lets its held process go on).
inline constexpr QLatin1StringView progressTracing{"tracing"};
// Progress data of activity: one interval, as serializeActivity() writes it.
inline constexpr QLatin1StringView progressActivity{"activity"};

// --- Limits the helper enforces on untrusted input ------------------------------
// residency: paths a call (the client sends more in chunks), and how long
// the helper waits for the children that read them (docs/helper-security.md
// rule 9 and 14).
inline constexpr int maxPathsPerCall = 16;
inline constexpr int residencyDeadlineSeconds = 10;
// residency without cachestat(2): mincore(2) is asked about at most this
// many pages a file (1 TiB of 4 KiB pages); larger files get an error
// instead of hours of work.
inline constexpr unsigned long long maxMincorePages = 1ULL << 28;
inline constexpr int maxBuckets = 4096;
inline constexpr int maxPathBytes = 4095;
inline constexpr int maxArguments = 70;
// account: how long the helper waits for its account child (a walk of /
// and of every process), and the most bytes it reads from it.
inline constexpr int accountDeadlineSeconds = 300;
inline constexpr qsizetype maxAccountAnswerBytes = qsizetype(16) * 1024 * 1024;
// trace (docs/helper-security.md rules 14 and 16): a trace holds the helper
// at most this long; at most this many events are kept (more count as
// lost); the ring buffer of the helper's instance has this many KiB a CPU.
inline constexpr int maxTraceSeconds = 30;
// activity (docs/helper-security.md rule 19): a run holds the helper at
// most an hour (the window starts another while it shows the view), reports
// at most five times a second, and names at most this many processes and
// files each time; its instance's ring buffer has this many KiB a CPU.
inline constexpr int maxActivitySeconds = 3600;
inline constexpr int minActivityIntervalMs = 200;
inline constexpr int maxActivityIntervalMs = 60000;
inline constexpr int maxActivityEntries = 50;
inline constexpr unsigned activityBufferKiBPerCpu = 4096;
inline constexpr int maxTraceEvents = 262144;
inline constexpr unsigned traceBufferKiBPerCpu = 8192;

// contain and reclaim (docs/helper-security.md rule 17): the lowest limit
// (less leaves a command hardly room to start), how many run cgroups a
// caller may have at once, how long a cgroup path may be and how many
// cgroups a reclaimed subtree may hold.
inline constexpr long long minCacheLimitBytes = 16LL << 20;
inline constexpr int maxRunCgroupsPerCaller = 4;
inline constexpr int maxCgroupPathBytes = 4095;
inline constexpr int maxReclaimCgroups = 4096;
// reclaim: the kernel's reclaim call runs in a child the helper kills after
// this long (docs/helper-security.md rule 14), so that no group, however
// busy, holds the helper for others.
inline constexpr int reclaimDeadlineSeconds = 10;

// The experiment swap file: a fixed path the helper chooses
// (docs/helper-security.md rule 5). The client names it in its dialogs.
inline constexpr const char *experimentSwapDir = "/var/lib/cachescope";
inline constexpr const char *experimentSwapName = "experiment.swap";
inline constexpr const char *experimentSwapPath = "/var/lib/cachescope/experiment.swap";
inline constexpr long long minExperimentSwapBytes = 16LL << 20;
inline constexpr long long maxExperimentSwapBytes = 4LL << 30;

// ActionReply::error() of a HelperError reply. errorDescription() always
// carries a sentence for people; the client maps the code to a category.
// On the bus each is the D-Bus error org.kde.cachescope.Helper1.Error.<Name>
// (errorName()). The numbers start at 101 for history's sake.
enum HelperError : int {
    InvalidArgument = 101, // wrong type, missing key, unknown key, out of range
    NotPermitted = 102, // well formed, but the helper refuses it (not a known area, ...)
    NotEnoughMemory = 103, // swapoff would not fit in RAM, or the kernel said ENOMEM
    Unsupported = 104, // the filesystem cannot hold swap, the kernel lacks a feature
    SystemFailure = 105, // a syscall failed for another reason
    AlreadyDone = 106, // nothing to do (no such swap active, the experiment file exists)
    CallerUnknown = 107, // the caller's uid could not be learnt from D-Bus: fail closed
    NotAuthorized = 108, // polkit said no, or the authentication dialog was dismissed
    Busy = 109, // the caller's user, or the whole service, has too many operations under way
    Timeout = 110, // the operation reached its deadline
    Cancelled = 111, // the job was cancelled by its caller (or the caller left)
};

// The D-Bus error name of a HelperError: "org.kde.cachescope.Helper1.Error."
// and the enumerator's name; nullptr for a number that is none.
[[nodiscard]] constexpr const char *errorName(int code)
{
    switch (code) {
    case InvalidArgument:
        return "org.kde.cachescope.Helper1.Error.InvalidArgument";
    case NotPermitted:
        return "org.kde.cachescope.Helper1.Error.NotPermitted";
    case NotEnoughMemory:
        return "org.kde.cachescope.Helper1.Error.NotEnoughMemory";
    case Unsupported:
        return "org.kde.cachescope.Helper1.Error.Unsupported";
    case SystemFailure:
        return "org.kde.cachescope.Helper1.Error.SystemFailure";
    case AlreadyDone:
        return "org.kde.cachescope.Helper1.Error.AlreadyDone";
    case CallerUnknown:
        return "org.kde.cachescope.Helper1.Error.CallerUnknown";
    case NotAuthorized:
        return "org.kde.cachescope.Helper1.Error.NotAuthorized";
    case Busy:
        return "org.kde.cachescope.Helper1.Error.Busy";
    case Timeout:
        return "org.kde.cachescope.Helper1.Error.Timeout";
    case Cancelled:
        return "org.kde.cachescope.Helper1.Error.Cancelled";
    default:
        return nullptr;
    }
}

// --- The D-Bus service (org.kde.cachescope.Helper1.xml) ---------------------
// The names of the contract in org.kde.cachescope.Helper1.xml, which says
// what each method takes and answers. Both sides spell them only here.
inline constexpr QLatin1StringView busName{"org.kde.cachescope.Helper1"};
inline constexpr QLatin1StringView busObjectPath{"/org/kde/cachescope/Helper1"};
inline constexpr QLatin1StringView busInterface{"org.kde.cachescope.Helper1"};
// A job: busJobPathPrefix followed by its number.
inline constexpr QLatin1StringView busJobInterface{"org.kde.cachescope.Job1"};
inline constexpr QLatin1StringView busJobPathPrefix{"/org/kde/cachescope/Helper1/job/"};

// The methods of busInterface.
inline constexpr QLatin1StringView methodDropCaches{"DropCaches"};
inline constexpr QLatin1StringView methodSwapOff{"SwapOff"};
inline constexpr QLatin1StringView methodSwapOffAll{"SwapOffAll"};
inline constexpr QLatin1StringView methodSwapOn{"SwapOn"};
inline constexpr QLatin1StringView methodSwapOnAll{"SwapOnAll"};
inline constexpr QLatin1StringView methodCreateExperimentSwapFile{"CreateExperimentSwapFile"};
inline constexpr QLatin1StringView methodRemoveExperimentSwapFile{"RemoveExperimentSwapFile"};
inline constexpr QLatin1StringView methodReadResidency{"ReadResidency"};
inline constexpr QLatin1StringView methodTrace{"Trace"};
inline constexpr QLatin1StringView methodContain{"Contain"};
inline constexpr QLatin1StringView methodReclaim{"Reclaim"};
inline constexpr QLatin1StringView methodAccount{"Account"};
inline constexpr QLatin1StringView methodActivity{"Activity"};

// The method and the signals of busJobInterface, each signal with its
// D-Bus signature.
inline constexpr QLatin1StringView methodJobCancel{"Cancel"};
inline constexpr QLatin1StringView signalJobFailed{"Failed"};
inline constexpr QLatin1StringView signatureJobFailed{"ss"};
inline constexpr QLatin1StringView signalSwapOffProgress{"SwapOffProgress"};
inline constexpr QLatin1StringView signatureSwapOffProgress{"ayt"};
inline constexpr QLatin1StringView signalSwapOffCompleted{"SwapOffCompleted"};
inline constexpr QLatin1StringView signatureSwapOffCompleted{"aayaitt"};
inline constexpr QLatin1StringView signalResidencyCompleted{"ResidencyCompleted"};
inline constexpr QLatin1StringView signatureResidencyCompleted{"a(sbtttttsbttat)"};
inline constexpr QLatin1StringView signalTracing{"Tracing"};
inline constexpr QLatin1StringView signatureTracing{""};
inline constexpr QLatin1StringView signalTraceCompleted{"TraceCompleted"};
inline constexpr QLatin1StringView signatureTraceCompleted{"a(ytiuuttttus)tbbs"};
inline constexpr QLatin1StringView signalReclaimCompleted{"ReclaimCompleted"};
inline constexpr QLatin1StringView signatureReclaimCompleted{"ttb"};
inline constexpr QLatin1StringView signalAccountCompleted{"AccountCompleted"};
inline constexpr QLatin1StringView signatureAccountCompleted{"a{st}a(yayaytttttsbsa(iay)t)(tttt)a(aytbs)bbd"};
inline constexpr QLatin1StringView signalActivityInterval{"ActivityInterval"};
inline constexpr QLatin1StringView signatureActivityInterval{"da(iayxayayb(tttt)a(ttt))a(ttayayi(tttt))(tttt)(tttt)(tttt)tt"};
inline constexpr QLatin1StringView signalActivityCompleted{"ActivityCompleted"};
inline constexpr QLatin1StringView signatureActivityCompleted{"da(iayxayayb(tttt)a(ttt))a(ttayayi(tttt))(tttt)(tttt)(tttt)tts"};

// The D-Bus errors of the service: errorPrefix followed by the name.
inline constexpr QLatin1StringView errorPrefix{"org.kde.cachescope.Helper1.Error."};
inline constexpr QLatin1StringView errorInvalidArgument{"org.kde.cachescope.Helper1.Error.InvalidArgument"};
inline constexpr QLatin1StringView errorNotPermitted{"org.kde.cachescope.Helper1.Error.NotPermitted"};
inline constexpr QLatin1StringView errorNotAuthorized{"org.kde.cachescope.Helper1.Error.NotAuthorized"};
inline constexpr QLatin1StringView errorNotEnoughMemory{"org.kde.cachescope.Helper1.Error.NotEnoughMemory"};
inline constexpr QLatin1StringView errorUnsupported{"org.kde.cachescope.Helper1.Error.Unsupported"};
inline constexpr QLatin1StringView errorSystemFailure{"org.kde.cachescope.Helper1.Error.SystemFailure"};
inline constexpr QLatin1StringView errorAlreadyDone{"org.kde.cachescope.Helper1.Error.AlreadyDone"};
inline constexpr QLatin1StringView errorCallerUnknown{"org.kde.cachescope.Helper1.Error.CallerUnknown"};
inline constexpr QLatin1StringView errorBusy{"org.kde.cachescope.Helper1.Error.Busy"};
inline constexpr QLatin1StringView errorCancelled{"org.kde.cachescope.Helper1.Error.Cancelled"};
inline constexpr QLatin1StringView errorTimeout{"org.kde.cachescope.Helper1.Error.Timeout"};
// --- End of the D-Bus service's names -----------------------------------------

} // namespace Cachescope::HelperProtocol
