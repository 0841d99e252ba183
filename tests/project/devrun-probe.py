#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# Run by `tools/dev run --probe tests/project/devrun-probe.py FILE` as the window's
# user, on the window's session bus, once the window was started with FILE:
#   - Drop Caches, Swap and the experiment swap file are enabled (the window's
#     actions, asked through KXmlGui's org.kde.KMainWindow interface); as
#     another user than root this means the window reached the helper
#     through the session's system bus and polkitd;
#   - the window shows FILE's residency, and follows it: with half of the file
#     held in the page cache its row says about 50%, with all of it 100%
#     (read from the accessibility tree, AT-SPI, the text a screen reader
#     would speak);
#   - for a FILE of another user (whose residency the kernel hides from this
#     one), the row says "hidden" and "Show with Administrator Rights" is
#     enabled and, triggered, brings the helper's count of the file's pages
#     (all of them, held mapped) into the window.
# Usage: devrun-probe.py APP_PID FILE [...]
import mmap
import os
import re
import subprocess
import sys
import time

import dbus

# The checkout stays as it is: no __pycache__ beside the module.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import atspi  # noqa: E402  (tests/support: the accessibility bus as a screen reader reads it)

ACTIONS = ["memory_drop_caches", "memory_drop_pagecache", "memory_swap", "swap_create_file"]
WAIT_SECONDS = 60


def fail(message):
    print("devrun-probe: FAILED: " + message, file=sys.stderr)
    sys.exit(1)


def note(message):
    print("devrun-probe: " + message, file=sys.stderr)


app_pid = int(sys.argv[1])
path = os.path.abspath(sys.argv[2])
name = os.path.basename(path)


def app_alive():
    try:
        os.kill(app_pid, 0)
        return True
    except ProcessLookupError:
        return False


def poll(what, attempt):
    """Calls attempt() until it returns something other than None."""
    return atspi.poll(what, attempt, WAIT_SECONDS, app_alive, fail)


session = dbus.SessionBus()


# --- The window's actions over D-Bus -----------------------------------------
def find_window():
    owned = [str(n) for n in session.list_names() if str(n).startswith("org.kde.cachescope")]
    if not owned:
        return None
    window = session.get_object(owned[0], "/cachescope/MainWindow_1", introspect=False)
    names = window.actions(dbus_interface="org.kde.KMainWindow")
    return window if "memory_drop_caches" in names else None


window = poll("the window on the session bus (org.kde.cachescope, /cachescope/MainWindow_1)", find_window)
disabled = [a for a in ACTIONS if not window.actionIsEnabled(a, dbus_interface="org.kde.KMainWindow")]
if disabled:
    tip = window.actionToolTip("memory_drop_caches", dbus_interface="org.kde.KMainWindow")
    fail("disabled in the window: %s (tool tip: %s)" % (", ".join(disabled), tip))
note("enabled in the window: " + ", ".join(ACTIONS))

# --- The window's rows through AT-SPI ---------------------------------------------
a11y = atspi.Bus(session)


def accessible_name(bus_name, object_path):
    return a11y.name((bus_name, object_path))


def children(bus_name, object_path):
    return a11y.children((bus_name, object_path))


def application_roots():
    return a11y.application_roots()


def row_of_file():
    """The texts of the row that names the file, or None."""
    roots = application_roots()
    if not roots:
        return None
    stack = list(roots)
    seen = 0
    while stack and seen < 20000:
        node = stack.pop()
        seen += 1
        try:
            kids = children(*node)
        except dbus.DBusException:
            continue
        names = []
        for kid in kids:
            try:
                names.append(accessible_name(*kid))
            except dbus.DBusException:
                names.append("")
        for index, text in enumerate(names):
            if text == name or text.endswith("/" + name):
                try:
                    columns = int(a11y.property(node, "NColumns", "org.a11y.atspi.Table"))
                except dbus.DBusException:
                    columns = 8
                return names[index : index + max(columns, 2)]
        stack.extend(kids)
    return None


def percent_in(row):
    for text in row[1:]:
        text = text.strip()
        if text.endswith("%"):
            try:
                return float(text[:-1].replace(",", "."))
            except ValueError:
                pass
    return None


def shows_percent(low, high):
    last = []

    def attempt():
        row = row_of_file()
        if row is None:
            return None
        last[:] = [row]
        percent = percent_in(row)
        return row if percent is not None and low <= percent <= high else None

    deadline = time.monotonic() + WAIT_SECONDS
    while time.monotonic() < deadline:
        if not app_alive():
            fail("the window ended")
        try:
            row = attempt()
            if row is not None:
                return row
        except dbus.DBusException:
            pass
        time.sleep(0.5)
    fail("the window's row for %s never showed %g-%g%% cached within %d s; last seen: %s" % (path, low, high, WAIT_SECONDS, last[0] if last else "no row naming the file"))


def all_names():
    """Every accessible name in the window (labels, cells, buttons)."""
    found = []
    stack = application_roots()
    while stack and len(found) < 20000:
        node = stack.pop()
        try:
            found.append(accessible_name(*node))
            stack.extend(children(*node))
        except dbus.DBusException:
            pass
    return found


def privileged_view():
    """A file the user may read but not see the residency of (root's):
    "Show with Administrator Rights" asks the helper, and the window then
    says how much of it the helper saw in the cache."""
    fd = os.open(path, os.O_RDONLY)
    held = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
    for offset in range(0, len(held), os.sysconf("SC_PAGE_SIZE")):
        held[offset]
    row = poll("the row of %s saying hidden" % path, lambda: (lambda r: r if r and "hidden" in r else None)(row_of_file()))
    note("the user's own view: " + " | ".join(row))
    action = "file_show_privileged"
    if not window.actionIsEnabled(action, dbus_interface="org.kde.KMainWindow"):
        fail("%s (Show with Administrator Rights) is disabled for a hidden file: %s" % (action, window.actionToolTip(action, dbus_interface="org.kde.KMainWindow")))
    window.activateAction(action, dbus_interface="org.kde.KMainWindow")
    # The window's message after the helper's answer (English: the session
    # runs with LANG=C.UTF-8): "PATH with administrator rights: X of Y in
    # the page cache."
    pattern = re.compile(re.escape(path) + r" with administrator rights: (.+) of (.+) in the page cache")

    def counted():
        for text in all_names():
            match = pattern.search(text)
            if match and match.group(1) == match.group(2):
                return text
        return None

    try:
        header = poll("the window's message that the helper found every page in the cache", counted)
    except SystemExit:
        print("devrun-probe: the window shows: %s" % [t for t in all_names() if t.strip()], file=sys.stderr)
        raise
    note("through the helper: " + header)
    held.close()
    os.close(fd)


if os.stat(path).st_uid != os.getuid():
    privileged_view()
    note("passed")
    sys.exit(0)

size = os.path.getsize(path)
page = os.sysconf("SC_PAGE_SIZE")
if size < 64 * page:
    fail("%s is too small for the probe (%d bytes)" % (path, size))
fd = os.open(path, os.O_RDONLY)
# Out of the cache first, then the first half held mapped (a mapped page is
# not reclaimed as an idle unmapped one would be), without readahead.
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
held = mmap.mmap(fd, size, prot=mmap.PROT_READ)
held.madvise(mmap.MADV_RANDOM)
half = (size // page // 2) * page
checksum = 0
for offset in range(0, half, page):
    checksum ^= held[offset]
row = shows_percent(40, 60)
note("with half of the file held: %s" % " | ".join(row))
for offset in range(half, size, page):
    checksum ^= held[offset]
row = shows_percent(100, 100)
note("with all of the file held: %s" % " | ".join(row))

shot = os.environ.get("CACHESCOPE_SCREENSHOT")
if shot and os.environ.get("DISPLAY"):
    subprocess.run("xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng > '%s' 2>/dev/null" % shot, shell=True, check=False)
    note("screenshot: " + shot)
held.close()
os.close(fd)
note("passed")
