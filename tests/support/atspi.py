# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# The window as a screen reader reads it, through the accessibility bus
# (AT-SPI), for the probes that check what it says: tests/app/atspiprobe.py
# and tests/project/devrun-probe.py. An object is a (bus name, object path)
# pair; python3-dbus is all it needs.
import time

import dbus
import dbus.bus

ACCESSIBLE = "org.a11y.atspi.Accessible"
PROPERTIES = "org.freedesktop.DBus.Properties"
ROOT_PATH = "/org/a11y/atspi/accessible/root"


def poll(what, attempt, seconds, alive, fail):
    """Calls attempt() until it returns something other than None, for at
    most seconds; a D-Bus error is one more try. fail(message) ends the
    probe when the time is up or alive() says the window has gone."""
    deadline = time.monotonic() + seconds
    last_error = None
    while time.monotonic() < deadline:
        if not alive():
            fail("the window ended while waiting for " + what)
        try:
            value = attempt()
            if value is not None:
                return value
        except dbus.DBusException as error:
            last_error = error
        time.sleep(0.3)
    fail("%s: not within %d s%s" % (what, seconds, " (last error: %s)" % last_error if last_error else ""))


class Bus:
    """The accessibility bus of a session (asking for its address starts it,
    as a desktop session does at login)."""

    def __init__(self, session):
        address = session.get_object("org.a11y.Bus", "/org/a11y/bus", introspect=False).GetAddress(dbus_interface="org.a11y.Bus")
        self.connection = dbus.bus.BusConnection(str(address))

    def object(self, ref):
        return self.connection.get_object(ref[0], ref[1], introspect=False)

    def property(self, ref, name, interface=ACCESSIBLE):
        return self.object(ref).Get(interface, name, dbus_interface=PROPERTIES, timeout=5)

    def name(self, ref):
        return str(self.property(ref, "Name"))

    def children(self, ref):
        return [(str(b), str(p)) for b, p in self.object(ref).GetChildren(dbus_interface=ACCESSIBLE, timeout=5)]

    def application_roots(self, prefix="cachescope"):
        """The root object of each application on the bus whose name starts with prefix."""
        roots = []
        for bus_name in self.connection.list_names():
            bus_name = str(bus_name)
            if not bus_name.startswith(":"):
                continue
            try:
                if self.name((bus_name, ROOT_PATH)).lower().startswith(prefix):
                    roots.append((bus_name, ROOT_PATH))
            except dbus.DBusException:
                pass
        return roots
