// SPDX-License-Identifier: GPL-2.0-or-later
// SPDX-FileCopyrightText: 2026 Cachescope developers

// How the cache's activity is added up (activity/activity.h), on events
// made up here: which removals are reclaim, what a dirtied folio counts,
// what lost events do to reclaim under way, the top lists and the others,
// the bounds, and a run's totals. The kernel's own events are in
// tests/helper/activityhelpertest.cpp.

#include "activity/activity.h"

#include <QTest>

using namespace Cachescope;
using namespace Cachescope::Activity;

namespace
{

Event makeEvent(EventKind kind, int32_t pid, uint64_t inode = 0, uint64_t pages = 1, uint64_t index = 0)
{
    Event e;
    e.kind = kind;
    e.pid = pid;
    e.device = 0x801;
    e.inode = inode;
    e.pages = pages;
    e.index = index;
    return e;
}

const ProcessActivity *processOf(const Interval &interval, int32_t pid)
{
    for (const ProcessActivity &process : interval.processes) {
        if (process.pid == pid) {
            return &process;
        }
    }
    return nullptr;
}

const FileActivity *fileOf(const Interval &interval, uint64_t inode)
{
    for (const FileActivity &file : interval.files) {
        if (file.key.inode == inode) {
            return &file;
        }
    }
    return nullptr;
}

} // namespace

class ActivityTest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // kswapd's removals and those between a task's reclaim begin and end
    // are reclaimed; the same task's removals after its end are dropped;
    // the reclaimer's pushed-out list names the file.
    void removalsAreReclaimOnlyWhileReclaiming()
    {
        Aggregator aggregator({7});
        aggregator.take(makeEvent(EventKind::Removed, 7, 100, 4)); // kswapd
        aggregator.take(makeEvent(EventKind::ReclaimBegin, 42));
        aggregator.take(makeEvent(EventKind::Removed, 42, 200, 8));
        aggregator.take(makeEvent(EventKind::ReclaimEnd, 42));
        aggregator.take(makeEvent(EventKind::Removed, 42, 200, 2)); // fadvise, truncation
        const Interval interval = aggregator.interval(50, 1.0);
        const ProcessActivity *kswapd = processOf(interval, 7);
        const ProcessActivity *task = processOf(interval, 42);
        QVERIFY(kswapd && task);
        QVERIFY(kswapd->reclaimThread);
        QCOMPARE(kswapd->figures.reclaimedPages, uint64_t(4));
        QCOMPARE(task->figures.reclaimedPages, uint64_t(8));
        QCOMPARE(task->figures.droppedPages, uint64_t(2));
        QCOMPARE(task->pushedOut.size(), size_t(1));
        QCOMPARE(task->pushedOut.front().first.inode, uint64_t(200));
        QCOMPARE(task->pushedOut.front().second, uint64_t(8));
        const FileActivity *file = fileOf(interval, 200);
        QVERIFY(file);
        QCOMPARE(file->figures.evictedPages(), uint64_t(10));
        QCOMPARE(interval.all.evictedPages(), uint64_t(14));
    }

    // Lost events may hold a reclaim's end: nobody is in reclaim after them.
    void lostEventsEndReclaimUnderWay()
    {
        Aggregator aggregator;
        aggregator.take(makeEvent(EventKind::ReclaimBegin, 42));
        aggregator.addLost(3);
        aggregator.take(makeEvent(EventKind::Removed, 42, 200, 5));
        const Interval interval = aggregator.interval(50, 1.0);
        QCOMPARE(interval.lostEvents, uint64_t(3));
        QCOMPARE(processOf(interval, 42)->figures.droppedPages, uint64_t(5));
        QCOMPARE(processOf(interval, 42)->figures.reclaimedPages, uint64_t(0));
    }

    // A dirtied folio counts the pages of the large folio added at its
    // index this interval; one page where none was (the event has no size).
    void aDirtiedFolioCountsItsPages()
    {
        Aggregator aggregator;
        aggregator.take(makeEvent(EventKind::Added, 9, 300, 512, 1024));
        aggregator.take(makeEvent(EventKind::Dirtied, 9, 300, 1, 1024));
        aggregator.take(makeEvent(EventKind::Dirtied, 9, 300, 1, 4096)); // added long ago
        const Interval interval = aggregator.interval(50, 1.0);
        QCOMPARE(fileOf(interval, 300)->figures.dirtiedPages, uint64_t(513));
        QCOMPARE(fileOf(interval, 300)->topAdder, 9);
        aggregator.reset();
        aggregator.take(makeEvent(EventKind::Dirtied, 9, 300, 1, 1024)); // the next interval
        QCOMPARE(fileOf(aggregator.interval(50, 1.0), 300)->figures.dirtiedPages, uint64_t(1));
    }

    // The top lists hold the most active by total and by each figure; the
    // rest adds up to others, and shown plus others is all.
    void topListsAndOthers()
    {
        Aggregator aggregator;
        for (int32_t pid = 1; pid <= 20; ++pid) {
            aggregator.take(makeEvent(EventKind::Added, pid, uint64_t(pid), uint64_t(pid)));
        }
        aggregator.take(makeEvent(EventKind::Dirtied, 1, 1, 1)); // pid 1: least added, only dirtier
        const Interval interval = aggregator.interval(3, 1.0);
        QVERIFY(processOf(interval, 20) && processOf(interval, 19) && processOf(interval, 18));
        QVERIFY2(processOf(interval, 1), "the top dirtier is kept though its total is small");
        QVERIFY(!processOf(interval, 10));
        uint64_t shown = 0;
        for (const ProcessActivity &process : interval.processes) {
            shown += process.figures.addedPages;
        }
        QCOMPARE(shown + interval.otherProcesses.addedPages, interval.all.addedPages);
        QCOMPARE(interval.all.addedPages, uint64_t(210));
        for (size_t i = 1; i < interval.processes.size(); ++i) {
            QVERIFY(interval.processes[i - 1].figures.total() >= interval.processes[i].figures.total());
        }
    }

    // Past maxTracked processes, new ones count as others, never grow it.
    void boundedProcesses()
    {
        Aggregator aggregator;
        const int32_t count = int32_t(Aggregator::maxTracked) + 10;
        for (int32_t pid = 1; pid <= count; ++pid) {
            aggregator.take(makeEvent(EventKind::Added, pid, 1, 1));
        }
        const Interval interval = aggregator.interval(50, 1.0);
        QCOMPARE(interval.all.addedPages, uint64_t(count));
        QCOMPARE(
            interval.otherProcesses.addedPages +
                [&] {
                    uint64_t shown = 0;
                    for (const ProcessActivity &process : interval.processes) {
                        shown += process.figures.addedPages;
                    }
                    return shown;
                }(),
            uint64_t(count));
        QCOMPARE(aggregator.takeNewEntries().pids.size(), size_t(Aggregator::maxTracked));
    }

    // A run's totals add the intervals up by pid and by file, keep the
    // latest names and stay within the limit.
    void totalsOfARun()
    {
        Interval first;
        first.seconds = 1;
        ProcessActivity process;
        process.pid = 5;
        process.command = "cachescope-cli"; // before its exec
        process.figures.addedPages = 10;
        first.processes.push_back(process);
        first.all.addedPages = 10;
        Interval second = first;
        second.processes.front().command = "dd";
        second.processes.front().figures.addedPages = 30;
        second.all.addedPages = 30;
        Interval totals;
        addInto(totals, first, 50);
        addInto(totals, second, 50);
        QCOMPARE(totals.seconds, 2.0);
        QCOMPARE(totals.processes.size(), size_t(1));
        QCOMPARE(totals.processes.front().figures.addedPages, uint64_t(40));
        QCOMPARE(QString::fromStdString(totals.processes.front().command), QStringLiteral("dd"));
        QCOMPARE(totals.otherProcesses.addedPages, uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(ActivityTest)

#include "activitytest.moc"
