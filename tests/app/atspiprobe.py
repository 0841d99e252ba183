#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# The window as a screen reader sees it, through the accessibility bus
# (AT-SPI), as Orca reads it: run by atspi-test.sh on a private session bus
# and X display. Starts Cachescope on FILE with the first half of FILE held in
# the page cache, then
#   - finds the heatmap (role "list", named after FILE) and its cells (role
#     "list item", named by their page range) and reads their figures: the
#     first cell all cached, the last none;
#   - gives a cell the focus through its SetFocus action: it says it is focused;
#   - opens the Cache Map tab through its page tab's action, finds the boxes
#     of the map of / (role "list item", named by their folder) and reads the
#     figure of the box of FILE's top folder: at least the half of FILE held;
#   - focuses that box and presses it: the map shows that folder.
# Usage: atspiprobe.py CACHESCOPE FILE
import mmap
import os
import re
import subprocess
import sys

import dbus

# The checkout stays as it is: no __pycache__ beside the module.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import atspi  # noqa: E402  (tests/support: the accessibility bus as a screen reader reads it)
from atspi import ACCESSIBLE  # noqa: E402

WAIT_SECONDS = 90
ACTION = "org.a11y.atspi.Action"
STATE_FOCUSED = 12  # ATSPI_STATE_FOCUSED

app_path = sys.argv[1]
path = os.path.abspath(sys.argv[2])
name = os.path.basename(path)
page = os.sysconf("SC_PAGE_SIZE")
app = None


def fail(message):
    print("atspiprobe: FAILED: " + message, file=sys.stderr)
    if app:
        app.terminate()
    sys.exit(1)


def note(message):
    print("atspiprobe: " + message, file=sys.stderr)


def poll(what, attempt, seconds=WAIT_SECONDS):
    """Calls attempt() until it returns something other than None."""
    return atspi.poll(what, attempt, seconds, lambda: app.poll() is None, fail)


# --- The file: half of it in the page cache, held mapped ---------------------
size = 32 * 1024 * 1024
with open(path, "wb") as out:
    out.write(os.urandom(size))
    out.flush()
    os.fsync(out.fileno())
fd = os.open(path, os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
held = mmap.mmap(fd, size, prot=mmap.PROT_READ)
held.madvise(mmap.MADV_RANDOM)
checksum = 0
for offset in range(0, size // 2, page):
    checksum ^= held[offset]

# --- The accessibility bus, then the window on it ----------------------------
a11y = atspi.Bus(dbus.SessionBus())
env = dict(os.environ, QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1")
app_log_path = os.path.join(os.path.dirname(path), "cachescope.log")
app_log = open(app_log_path, "w")
app = subprocess.Popen([app_path, path], env=env, stderr=app_log)
accessible_name = a11y.name
children = a11y.children


def description(ref):
    return str(a11y.property(ref, "Description"))


def role_name(ref):
    return str(a11y.object(ref).GetRoleName(dbus_interface=ACCESSIBLE, timeout=10))


def focused(ref):
    states = a11y.object(ref).GetState(dbus_interface=ACCESSIBLE, timeout=10)
    return bool(states[STATE_FOCUSED // 32] & (1 << (STATE_FOCUSED % 32)))


def do_action(ref, wanted):
    """Runs the action whose name is wanted ("SetFocus", "Press"), in any spelling Qt gives it."""
    names = [str(a[0]) for a in a11y.object(ref).GetActions(dbus_interface=ACTION, timeout=10)]
    for index, action in enumerate(names):
        if action.replace(" ", "").lower() == wanted.lower():
            a11y.object(ref).DoAction(dbus.Int32(index), dbus_interface=ACTION, timeout=10)
            return
    fail("%s has no %s action, only %s" % (accessible_name(ref), wanted, names))


root = poll("Cachescope on the accessibility bus", lambda: (a11y.application_roots() or [None])[0])
note("the window is on the accessibility bus as %s" % root[0])


def find(wanted_role, matches):
    """The first object of that role whose name matches, walking the window
    (but not into lists and tables: their items are what is looked for, or
    thousands of cells)."""
    stack = [root]
    seen = 0
    while stack and seen < 5000:
        node = stack.pop(0)
        seen += 1
        try:
            role = role_name(node)
            if role == wanted_role and matches(accessible_name(node)):
                return node
            if role not in ("list", "table", "tree table", "list item", "table cell"):
                stack.extend(children(node))
        except dbus.DBusException:
            pass
    return None


def items_of(node):
    """The list items of a list: (reference, name) each."""
    found = []
    for kid in children(node):
        if role_name(kid) == "list item":
            found.append((kid, accessible_name(kid)))
    return found


# --- The heatmap's cells -----------------------------------------------------
heatmap = poll("the heatmap of %s (a list)" % name, lambda: find("list", lambda n: n == "Page cache heatmap of " + name))
cells = poll("the heatmap's cells (list items)", lambda: items_of(heatmap) or None)
if len(cells) != 1024:
    fail("the heatmap has %d cells, not 1024" % len(cells))
cells_per_page = size // page // 1024
if cells[0][1] != "Pages 0–%d (%d pages)" % (cells_per_page - 1, cells_per_page):
    fail("the first cell is named %r" % cells[0][1])
first = description(cells[0][0])
last = description(cells[-1][0])
note("cell %r: %r" % (cells[0][1], first))
note("cell %r: %r" % (cells[-1][1], last))
if "Cached: %d of %d pages (100.0%%)" % (cells_per_page, cells_per_page) not in first:
    fail("the first cell, held in the cache, says %r" % first)
if "Cached: 0 of %d pages" % cells_per_page not in last:
    fail("the last cell, not in the cache, says %r" % last)
do_action(cells[3][0], "SetFocus")
poll("the fourth cell focused after its SetFocus action", lambda: True if focused(cells[3][0]) else None, 20)
note("the cell %r has the focus" % cells[3][1])

# --- The Cache Map's boxes ---------------------------------------------------
tab = poll("the Cache Map's page tab", lambda: find("page tab", lambda n: n.replace("&", "") == "Cache Map"))
do_action(tab, "Press")
top = path.strip("/").split("/")[0]
threshold = size // 2


def bytes_of(text):
    match = re.search(r"In the page cache: ([0-9.,]+) (B|KiB|MiB|GiB|TiB)", text)
    if not match:
        return None
    units = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
    return float(match.group(1).replace(",", "")) * units[match.group(2)]


def box_of_top():
    the_map = find("list", lambda n: n == "Cache map of /")
    if not the_map:
        return None
    for ref, box_name in items_of(the_map):
        if box_name == top:
            figures = description(ref)
            amount = bytes_of(figures)
            if amount is not None and amount >= threshold * 0.99:
                return the_map, ref, figures, amount
    return None


the_map, box, figures, amount = poll("the box of /%s in the map of / holding at least %d bytes" % (top, threshold), box_of_top)
note("box %r: %r" % (top, figures))
do_action(box, "SetFocus")
poll("the box of /%s focused after its SetFocus action" % top, lambda: True if focused(box) else None, 20)
do_action(box, "Press")
poll("the map of /%s after pressing its box" % top, lambda: find("list", lambda n: n == "Cache map of /" + top), 30)
note("pressing the box opened /%s" % top)

held.close()
os.close(fd)

# --- Quit as the desktop quits it: cleanly, saying nothing on the way out ----
session = dbus.SessionBus()
session.get_object("org.kde.cachescope", "/MainApplication").quit(dbus_interface="org.qtproject.Qt.QCoreApplication")
try:
    status = app.wait(30)
except subprocess.TimeoutExpired:
    fail("the window did not quit within 30 s of /MainApplication quit")
app_log.close()
with open(app_log_path) as log:
    said = log.read()
if status != 0:
    fail("the window quit with status %d:\n%s" % (status, said))
for line in said.splitlines():
    if line.startswith("QThreadStorage"):
        fail("the window said on quitting: " + line)
note("quit cleanly (status 0, no QThreadStorage line)")
note("passed")
