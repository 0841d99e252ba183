# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# Sourced by tools/bench/window and tools/bench/soak: a display, a session bus
# and a fresh HOME of their own for the window they measure, and the
# generated tree tools/bench/run uses. The caller defines die() and say(),
# and kills $xvfb_pid and $bus_pid when it ends.

# Xvfb on a free display number (it tells it on fd 3); exports DISPLAY.
bench_start_display() { # WORK
    exec 3>"$1/display"
    Xvfb -displayfd 3 -noreset -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
    xvfb_pid=$!
    exec 3>&-
    for _ in $(seq 100); do [ -s "$1/display" ] && break; sleep 0.05; done
    [ -s "$1/display" ] || die "Xvfb did not start"
    export DISPLAY=:$(head -n1 "$1/display")
}

# A session bus (KDBusService needs one); exports DBUS_SESSION_BUS_ADDRESS.
bench_start_bus() {
    local bus_info
    bus_info=$(dbus-daemon --session --fork --nopidfile --print-address=1 --print-pid=1)
    DBUS_SESSION_BUS_ADDRESS=$(sed -n 1p <<<"$bus_info")
    bus_pid=$(sed -n 2p <<<"$bus_info")
    export DBUS_SESSION_BUS_ADDRESS
    [ -n "$DBUS_SESSION_BUS_ADDRESS" ] && [ -n "$bus_pid" ] || die "no session bus"
}

# A fresh HOME under WORK, so that the defaults (1 s sampling) apply.
bench_fresh_home() { # WORK
    export HOME=$1/home XDG_CONFIG_HOME=$1/home/.config XDG_STATE_HOME=$1/home/.local/state XDG_DATA_HOME=$1/home/.local/share
    mkdir -p "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"
}

# BUILD_DIR/bench-tree with FILES files, made by make-tree.c as
# tools/bench/run makes it (once; reused while its stamp matches).
bench_tree() { # BUILD_DIR HERE FILES
    local tree=$1/bench-tree stamp_file=$1/bench-tree.stamp tree_stamp="make-tree v1 files=$3" make_tree=$1/bench-make-tree
    if [ ! -d "$tree" ] || [ "$(cat "$stamp_file" 2>/dev/null)" != "$tree_stamp" ]; then
        if [ ! -x "$make_tree" ] || [ "$2/make-tree.c" -nt "$make_tree" ]; then
            cc -O2 -Wall -Wextra -o "$make_tree" "$2/make-tree.c" || die "cannot compile make-tree.c"
        fi
        rm -rf "$tree" "$stamp_file"
        say "making $3 files under $tree (once; reused by later runs)"
        "$make_tree" "$tree" "$3" || die "could not make the tree"
        sync -f "$tree"
        echo "$tree_stamp" >"$stamp_file"
    fi
}
