#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# Runs a command on a private headless Weston compositor (Qt's real Wayland
# platform, as Plasma 6 runs applications by default) and stops Weston
# afterwards, whatever happens.
#   tests/support/run-under-weston.sh COMMAND [ARGS...]
# Where Weston is missing or does not start this fails: it is never skipped.
set -euo pipefail

command -v weston >/dev/null || { echo "run-under-weston: weston is not installed" >&2; exit 1; }

# A runtime folder of our own (Wayland wants it private): the socket, the
# lock file and Weston's log live there and go with it.
runtime=$(mktemp -d)
chmod 0700 "$runtime"
socket=wayland-cachescope-test
weston_pid=
cleanup() {
    if [ -n "$weston_pid" ]; then
        kill "$weston_pid" 2>/dev/null || true
        wait "$weston_pid" 2>/dev/null || true
    fi
    rm -rf "$runtime"
}
trap cleanup EXIT

XDG_RUNTIME_DIR=$runtime weston --backend=headless --renderer=pixman --width=1600 --height=1000 \
    --socket="$socket" --no-config --idle-time=0 >"$runtime/weston.log" 2>&1 &
weston_pid=$!
# Weston creates the socket once it accepts clients.
for _ in $(seq 400); do
    [ -S "$runtime/$socket" ] && break
    if ! kill -0 "$weston_pid" 2>/dev/null; then
        echo "run-under-weston: weston did not start:" >&2
        cat "$runtime/weston.log" >&2
        exit 1
    fi
    sleep 0.05
done
if [ ! -S "$runtime/$socket" ]; then
    echo "run-under-weston: weston made no socket within 20 s:" >&2
    cat "$runtime/weston.log" >&2
    exit 1
fi

export XDG_RUNTIME_DIR=$runtime WAYLAND_DISPLAY=$socket QT_QPA_PLATFORM=wayland
unset DISPLAY
status=0
"$@" || status=$?
if [ "$status" != 0 ]; then
    echo "run-under-weston: the command failed ($status); weston's log:" >&2
    cat "$runtime/weston.log" >&2
fi
exit "$status"
