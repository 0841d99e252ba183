#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# Runs a command on a private Xvfb display (Qt's real xcb platform, not
# offscreen) and stops the display afterwards, whatever happens.
#   tests/support/run-under-xvfb.sh COMMAND [ARGS...]
# Exits 77 (skipped) where there is no Xvfb. CACHESCOPE_XVFB_SCREEN sets the
# screen (default 1280x800x24).
set -euo pipefail

command -v Xvfb >/dev/null || { echo "run-under-xvfb: no Xvfb here: skipped" >&2; exit 77; }

display_file=$(mktemp)
xvfb_pid=
cleanup() {
    if [ -n "$xvfb_pid" ]; then
        kill "$xvfb_pid" 2>/dev/null || true
        wait "$xvfb_pid" 2>/dev/null || true
    fi
    rm -f "$display_file"
}
trap cleanup EXIT

# -displayfd: Xvfb picks a free display and writes its number once it accepts clients.
Xvfb -displayfd 3 -screen 0 "${CACHESCOPE_XVFB_SCREEN:-1280x800x24}" -nolisten tcp 3>"$display_file" 2>/dev/null &
xvfb_pid=$!
for _ in $(seq 200); do
    [ -s "$display_file" ] && break
    kill -0 "$xvfb_pid" 2>/dev/null || { echo "run-under-xvfb: Xvfb did not start" >&2; exit 1; }
    sleep 0.05
done
[ -s "$display_file" ] || { echo "run-under-xvfb: Xvfb gave no display within 10 s" >&2; exit 1; }

export DISPLAY=":$(head -n1 "$display_file")"
export QT_QPA_PLATFORM=xcb
"$@"
