// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// The activity action (docs/helper-security.md rule 19): who fills the page
// cache right now, system-wide. A private tracefs instance of the helper's
// (the trace action's ways: fixed events, nothing from the caller, a
// bounded buffer, removed on every way out) records pages added, removed
// and dirtied and direct reclaim; the helper reads every CPU's binary
// buffer, adds the events up per process and per file (core/activity) and
// sends the caller aggregates each interval, never an event. The caller
// chooses only how long and how often.

#include "actionsupport.h"
#include "cachescope_helper_debug.h"
#include "helperactions.h"
#include "helperlogic.h"
#include "helperprotocol.h"
#include "tracefs.h"

#include "activity/activity.h"
#include "activity/rawtrace.h"
#include "activityanswer.h"
#include "format.h"
#include "pidnamespace.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace Cachescope::Helper
{

using namespace HelperProtocol;

namespace
{

// How often the buffers are read: often enough that a CPU's buffer of
// activityBufferKiBPerCpu does not fill at a few hundred thousand events a
// second.
constexpr int readEveryMs = 100;

// Reads what every CPU's buffer has now, page by page, into the aggregator.
struct RawReader {
    std::vector<UniqueFd> &pipes;
    const RawTrace::PageLayout &layout;
    const Activity::Formats &formats;
    Activity::Aggregator &aggregator;
    std::vector<uint8_t> page = std::vector<uint8_t>(size_t(sysconf(_SC_PAGESIZE)));
    uint64_t malformed = 0;

    void drain()
    {
        for (UniqueFd &pipe : pipes) {
            // Bounded: a CPU that writes faster than this reads is read again
            // at the next round, and its losses are counted.
            for (int round = 0; round < 4096; ++round) {
                const ssize_t n = read(pipe.get(), page.data(), page.size());
                if (n < 0 && errno == EINTR) {
                    continue;
                }
                if (n <= 0) {
                    break;
                }
                uint64_t undecoded = 0;
                const RawTrace::PageResult result =
                    RawTrace::parsePage(std::span<const uint8_t>(page.data(), size_t(n)), layout, [&](const RawTrace::Record &record) {
                        if (const std::optional<Activity::Event> event = Activity::decode(record, formats)) {
                            aggregator.take(*event);
                        } else {
                            ++undecoded;
                        }
                    });
                aggregator.addUndecoded(undecoded);
                // Lost events are the buffers' own counts (report()); a
                // page's missed count is the same events again.
                if (result.malformed) {
                    ++malformed;
                    qCDebug(CACHESCOPE_HELPER) << "activity: a malformed trace page:" << QString::fromStdString(result.error);
                }
            }
        }
    }
};

} // namespace

ActionReply activityAction(const QVariantMap &args, const Caller &caller, HelperContext &context)
{
    static const char *action = "activity";
    if (auto refused = refuseUnknownCaller(caller)) {
        return finish(context, action, caller, {}, *refused);
    }
    // docs/helper-security.md rules 9 and 19: how long and how often; nothing else.
    if (auto problem = checkKeys(args, {keySeconds, keyIntervalMs}, {keySeconds, keyIntervalMs})) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, *problem));
    }
    const IntegerArgument seconds = integerArgument(args, keySeconds, 1, maxActivitySeconds);
    if (!seconds.value) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, seconds.error));
    }
    const IntegerArgument intervalMs = integerArgument(args, keyIntervalMs, minActivityIntervalMs, maxActivityIntervalMs);
    if (!intervalMs.value) {
        return finish(context, action, caller, {}, refuse(InvalidArgument, intervalMs.error));
    }
    QString target = QStringLiteral("seconds=%1,interval-ms=%2").arg(*seconds.value).arg(*intervalMs.value);

    announceStart(context);
    // Declared in this order so that they end in the reverse one: the
    // buffers' descriptors are closed, then the instance removed, then
    // tracefs unmounted if this action mounted it.
    TracefsMountGuard mount{context.tracefsPath};
    ActionReply refusal;
    const std::unique_ptr<TraceInstance> instance = newTraceInstance(context, mount, action, &refusal);
    if (!instance) {
        return finish(context, action, caller, target, refusal);
    }
    const std::string initialProc = initialProcRoot(context);
    std::string error;
    std::vector<bool> present;
    if (auto problem = instance->configure(0, std::min(context.activityBufferKiB, activityBufferKiBPerCpu), Activity::eventNames(), false, &present)) {
        return finish(context, action, caller, target, refuse(SystemFailure, QString::fromStdString(*problem)));
    }
    if (present.size() < 2 || !present[0] || !present[1]) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(Unsupported, QStringLiteral("This kernel has no filemap page-cache tracepoints, so the cache's activity cannot be measured.")));
    }
    // The binary layouts, as this kernel describes them.
    const std::optional<std::string> headerText = instance->readText("events/header_page");
    const std::optional<RawTrace::PageLayout> layout = headerText ? RawTrace::parseHeaderPage(*headerText, &error) : std::nullopt;
    if (!layout) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(Unsupported, QStringLiteral("Cannot read the trace buffers' page layout: %1").arg(QString::fromStdString(error))));
    }
    Activity::Formats formats;
    const std::vector<std::optional<RawTrace::EventFormat> *> slots = formats.all();
    for (size_t i = 0; i < Activity::eventNames().size() && i < slots.size(); ++i) {
        if (i < present.size() && present[i]) {
            if (const std::optional<std::string> text = instance->readText("events/" + Activity::eventNames()[i] + "/format")) {
                *slots[i] = RawTrace::parseEventFormat(*text, &error);
            }
        }
    }
    if (!formats.added || !formats.removed) {
        return finish(context,
                      action,
                      caller,
                      target,
                      refuse(Unsupported, QStringLiteral("Cannot read the page-cache events' formats: %1").arg(QString::fromStdString(error))));
    }
    std::vector<UniqueFd> pipes = instance->openRawPipes(&error);
    if (pipes.empty()) {
        return finish(context, action, caller, target, refuse(SystemFailure, QString::fromStdString(error)));
    }
    Activity::Aggregator aggregator(Activity::reclaimThreadPids(initialProc));
    Activity::Namer namer(initialProc);
    RawReader reader{pipes, *layout, formats, aggregator};
    if (!instance->setTracing(true)) {
        return finish(context, action, caller, target, refuse(SystemFailure, QStringLiteral("Cannot turn tracing on: %1").arg(errnoQText(errno))));
    }

    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    const Clock::time_point deadline = start + std::chrono::seconds(*seconds.value);
    Clock::time_point intervalStart = start;
    uint64_t lostBefore = 0;
    Activity::Interval totals;
    std::string endReason = "deadline";
    const auto report = [&](Clock::time_point now) {
        const uint64_t lostNow = instance->lostEvents();
        aggregator.addLost(lostNow - std::min(lostNow, lostBefore));
        lostBefore = lostNow;
        Activity::Interval interval = aggregator.interval(size_t(maxActivityEntries), std::chrono::duration<double>(now - intervalStart).count());
        namer.apply(interval);
        // The next interval names its own (a pid may be another process by then).
        namer.forget();
        aggregator.reset();
        intervalStart = now;
        if (context.progress) {
            context.progress({{QString(progressActivity), serializeActivity(interval)}});
        }
        Activity::addInto(totals, interval, size_t(maxActivityEntries));
    };
    for (;;) {
        poll(nullptr, 0, readEveryMs);
        reader.drain();
        // Named while they are there.
        namer.nameNew(aggregator.takeNewEntries());
        const Clock::time_point now = Clock::now();
        if (context.stopped && context.stopped()) {
            endReason = "cancelled";
            break;
        }
        if (now >= deadline) {
            break;
        }
        if (now - intervalStart >= std::chrono::milliseconds(*intervalMs.value)) {
            report(now);
        }
    }
    (void)instance->setTracing(false);
    reader.drain();
    namer.nameNew(aggregator.takeNewEntries());
    if (Clock::now() > intervalStart) {
        report(Clock::now());
    }
    target += QStringLiteral(",processes=%1,files=%2,lost=%3,malformed-pages=%4,end=%5")
                  .arg(totals.processes.size())
                  .arg(totals.files.size())
                  .arg(totals.lostEvents)
                  .arg(reader.malformed)
                  .arg(QString::fromStdString(endReason));
    qCDebug(CACHESCOPE_HELPER) << action << "uid" << caller.text() << "instance" << QString::fromStdString(instance->name()) << target;
    ActionReply reply = ActionReply::SuccessReply();
    reply.addData(replyActivity, serializeActivity(totals));
    reply.addData(replyEndReason, QString::fromStdString(endReason));
    return finish(context, action, caller, target, reply);
}

} // namespace Cachescope::Helper
