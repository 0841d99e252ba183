#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# The window through the accessibility bus (AT-SPI), as a screen reader
# reads it: atspiprobe.py starts Cachescope on a session bus of its own
# (where the accessibility bus is started on demand, as at a desktop login),
# with a home, configuration and runtime folder of its own, on the display
# it is given (run-under-xvfb.sh).
#   tests/app/atspi-test.sh CACHESCOPE SCRATCH_FOLDER
set -euo pipefail

app=$1
scratch=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

command -v dbus-run-session >/dev/null || { echo "atspi-test: no dbus-run-session" >&2; exit 1; }
[ -e /usr/share/dbus-1/services/org.a11y.Bus.service ] || { echo "atspi-test: no AT-SPI bus (at-spi2-core)" >&2; exit 1; }

rm -rf "$scratch"
mkdir -p "$scratch/home" "$scratch/runtime" "$scratch/files"
chmod 0700 "$scratch/runtime"
export HOME=$scratch/home XDG_CONFIG_HOME=$scratch/home/.config XDG_DATA_HOME=$scratch/home/.local/share \
    XDG_CACHE_HOME=$scratch/home/.cache XDG_RUNTIME_DIR=$scratch/runtime LANG=C.UTF-8 LC_ALL=C.UTF-8
unset AT_SPI_BUS_ADDRESS DBUS_SESSION_BUS_ADDRESS
exec dbus-run-session -- python3 "$here/atspiprobe.py" "$app" "$scratch/files/probe.bin"
