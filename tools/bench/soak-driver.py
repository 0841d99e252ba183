#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# The soak's driver (tools/bench/soak starts it; see there). Over the window's
# D-Bus it shows the tabs in turn and maps / every few minutes; every second it
# times actionIsEnabled("view_refresh"), answered on the window's main thread
# (an event-loop probe); every few seconds it samples RSS, open descriptors,
# threads and CPU of each process from /proc. At the end it prints a Markdown
# table with the goals of issue 29, and exits 1 when the window went away.
import argparse
import csv
import os
import re
import statistics
import sys
import time

import dbus

TABS = ["view_show_applications", "view_show_activity", "view_show_memory"]
PROBE_GOAL_MS = 100.0
RSS_GOAL_PERCENT = 5.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def say(message):
    print("soak-driver: " + message, file=sys.stderr, flush=True)


def read_process(pid):
    """(rss KiB, descriptors, threads, CPU ticks) of a process, or None when it is gone."""
    try:
        with open("/proc/%d/status" % pid) as status:
            text = status.read()
        rss = int(re.search(r"^VmRSS:\s+(\d+)", text, re.M).group(1))
        threads = int(re.search(r"^Threads:\s+(\d+)", text, re.M).group(1))
        descriptors = len(os.listdir("/proc/%d/fd" % pid))
        with open("/proc/%d/stat" % pid) as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime
        return rss, descriptors, threads, ticks
    except (OSError, AttributeError, IndexError, ValueError):
        return None


def find_window(session, deadline):
    while time.monotonic() < deadline:
        for name in session.list_names():
            if str(name).startswith("org.kde.cachescope"):
                try:
                    window = session.get_object(str(name), "/cachescope/MainWindow_1", introspect=False)
                    if "view_show_cache_map" in window.actions(dbus_interface="org.kde.KMainWindow"):
                        return window
                except dbus.DBusException:
                    pass
        time.sleep(0.5)
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--window", type=int, required=True)
    parser.add_argument("--process", action="append", default=[], help="NAME=PID, sampled beside the window")
    parser.add_argument("--minutes", type=float, required=True)
    parser.add_argument("--sample", type=float, default=10)
    parser.add_argument("--warm-up", type=float, default=5)
    parser.add_argument("--map-every", type=float, default=300)
    parser.add_argument("--tab-every", type=float, default=60)
    parser.add_argument("--csv", required=True)
    parser.add_argument("--window-log", required=True)
    args = parser.parse_args()

    processes = [("window", args.window)]
    for entry in args.process:
        name, _, pid = entry.rpartition("=")
        processes.append((name, int(pid)))

    session = dbus.SessionBus()
    window = find_window(session, time.monotonic() + 60)
    if window is None:
        say("the window is not on the session bus (org.kde.cachescope, /cachescope/MainWindow_1) within 60 s")
        return 1
    interface = "org.kde.KMainWindow"

    start = time.monotonic()
    end = start + args.minutes * 60
    next_probe = next_sample = start
    next_map = start + 30  # after the first walks of the trees
    next_tab = start + args.tab_every
    tab = 0
    maps = 0
    probes = []  # (seconds since start, milliseconds)
    interval_probes = []
    rows = []
    previous = {name: None for name, _ in processes}
    previous_time = start
    failures = []

    with open(args.csv, "w", newline="") as out:
        writer = csv.writer(out)
        header = ["seconds", "probe_max_ms", "probe_mean_ms"]
        for name, _ in processes:
            header += [name + " rss_kib", name + " fds", name + " threads", name + " cpu_percent"]
        writer.writerow(header)
        while True:
            now = time.monotonic()
            if now >= end:
                break
            try:
                if now >= next_probe:
                    before = time.monotonic()
                    window.actionIsEnabled("view_refresh", dbus_interface=interface, timeout=30)
                    latency = (time.monotonic() - before) * 1000
                    probes.append((before - start, latency))
                    interval_probes.append(latency)
                    next_probe += 1
                # An action's call is answered on the main thread too, once
                # the action ran: its time counts among the probes.
                if now >= next_map:
                    before = time.monotonic()
                    window.activateAction("view_refresh_cache_map", dbus_interface=interface, timeout=30)
                    probes.append((before - start, (time.monotonic() - before) * 1000))
                    maps += 1
                    next_map += args.map_every
                if now >= next_tab:
                    before = time.monotonic()
                    window.activateAction(TABS[tab % len(TABS)], dbus_interface=interface, timeout=30)
                    probes.append((before - start, (time.monotonic() - before) * 1000))
                    tab += 1
                    next_tab += args.tab_every
            except dbus.DBusException as error:
                failures.append("%.0f s: %s" % (now - start, error))
                if read_process(args.window) is None:
                    say("the window went away at %.0f s" % (now - start))
                    return 1
            if now >= next_sample:
                row = {"seconds": now - start}
                line = ["%.1f" % (now - start), "%.1f" % max(interval_probes, default=0),
                        "%.1f" % (statistics.mean(interval_probes) if interval_probes else 0)]
                for name, pid in processes:
                    reading = read_process(pid)
                    if reading is None:
                        say("%s (%d) went away at %.0f s" % (name, pid, now - start))
                        return 1
                    rss, descriptors, threads, ticks = reading
                    cpu = ""
                    if previous[name] is not None and now > previous_time:
                        cpu = 100.0 * (ticks - previous[name]) / CLOCK_TICKS / (now - previous_time)
                    previous[name] = ticks
                    row[name] = (rss, descriptors, threads, cpu)
                    line += [rss, descriptors, threads, "%.2f" % cpu if cpu != "" else ""]
                previous_time = now
                interval_probes = []
                rows.append(row)
                writer.writerow(line)
                out.flush()
                if len(rows) % 30 == 1:
                    rss, descriptors, threads, _ = row["window"]
                    say("%4.0f s: window RSS %d MiB, %d descriptors, %d threads, slowest answer %.1f ms" %
                        (now - start, rss // 1024, descriptors, threads, max((p[1] for p in probes), default=0)))
                next_sample += args.sample
            time.sleep(max(0.0, min(next_probe, next_sample, next_map, next_tab, end) - time.monotonic()))

    warm = args.warm_up * 60
    after = [r for r in rows if r["seconds"] >= warm]
    if len(after) < 4:
        say("too few samples after the warm-up: %d" % len(after))
        return 1
    # RSS: the median of the first and of the last five minutes after the warm-up.
    span = max(1, int(300 / args.sample))
    table = []

    def figures(name):
        first = after[:span]
        last = after[-span:]
        rss_first = statistics.median(r[name][0] for r in first)
        rss_last = statistics.median(r[name][0] for r in last)
        growth = 100.0 * (rss_last - rss_first) / rss_first
        fds_first = statistics.median(r[name][1] for r in first)
        fds_last = statistics.median(r[name][1] for r in last)
        threads_first = statistics.median(r[name][2] for r in first)
        threads_last = statistics.median(r[name][2] for r in last)
        cpus = [r[name][3] for r in rows if r[name][3] != ""]
        return {
            "rss": (rss_first, rss_last, growth, max(r[name][0] for r in after)),
            "fds": (fds_first, fds_last, min(r[name][1] for r in after), max(r[name][1] for r in after)),
            "threads": (threads_first, threads_last, min(r[name][2] for r in after), max(r[name][2] for r in after)),
            "cpu": statistics.mean(cpus) if cpus else 0.0,
        }

    def yes(met):
        return "yes" if met else "no"

    with open(args.window_log, errors="replace") as log:
        warnings = [line.rstrip() for line in log if line.startswith(("warning ", "critical ", "fatal "))]
    worst = max(probes, key=lambda p: p[1])
    slow = sum(1 for p in probes if p[1] > PROBE_GOAL_MS)
    minutes = rows[-1]["seconds"] / 60
    print("| Measure (%.0f min, a sample each %.0f s, the first %.0f min left out of the growth) | Value | Goal | Met? |" %
          (minutes, args.sample, args.warm_up))
    print("|---|---|---|---|")
    for name, _ in processes:
        f = figures(name)
        rss_first, rss_last, growth, rss_max = f["rss"]
        table.append((name, f))
        print("| %s: RSS, median of the first and the last 5 min after the warm-up (largest sample) | %.1f → %.1f MiB, %+.1f %% (%.1f MiB) | < +%.0f %% | %s |" %
              (name, rss_first / 1024, rss_last / 1024, growth, rss_max / 1024, RSS_GOAL_PERCENT, yes(growth < RSS_GOAL_PERCENT)))
        fds_first, fds_last, fds_min, fds_max = f["fds"]
        print("| %s: open descriptors, the same medians (fewest, most) | %g → %g (%d, %d) | no growth | %s |" %
              (name, fds_first, fds_last, fds_min, fds_max, yes(fds_last <= fds_first)))
        threads_first, threads_last, threads_min, threads_max = f["threads"]
        print("| %s: threads, the same medians (fewest, most) | %g → %g (%d, %d) | no growth | %s |" %
              (name, threads_first, threads_last, threads_min, threads_max, yes(threads_last <= threads_first)))
        print("| %s: CPU, mean of the samples | %.2f %% of one core | — | — |" % (name, f["cpu"]))
    print("| window: slowest answer of %d event-loop probes (actionIsEnabled over D-Bus, once a second; at %.0f s) | %.1f ms, %d over %.0f ms | < %.0f ms all along | %s |" %
          (len(probes), worst[0], worst[1], slow, PROBE_GOAL_MS, PROBE_GOAL_MS, yes(slow == 0)))
    print("| window: warnings and worse in its log (Qt and KF) | %d | none | %s |" % (len(warnings), yes(not warnings)))
    print("| window: maps of / made (View > Refresh Cache Map), tab changes | %d, %d | — | — |" % (maps, tab))
    print("| D-Bus calls that failed | %d | none | %s |" % (len(failures), yes(not failures)))
    for line in warnings[:10]:
        say("window log: " + line)
    for failure in failures[:10]:
        say("D-Bus: " + failure)
    return 0


if __name__ == "__main__":
    sys.exit(main())
