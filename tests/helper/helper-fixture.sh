#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# The privileged helper end to end: a private system D-Bus and polkitd, the
# helper installed, a rules file that allows cachescope-user and not
# cachescope-other, swap files to play with. Then helperbustest runs as each
# user. Everything lives in this script's own mount and PID namespace:
#   - the install touches only tmpfs overlays on the few folders it needs, so
#     the cached root is never changed;
#   - /run is a fresh tmpfs (a private /run/dbus, the helper's state file);
#   - /var/lib/cachescope is a disk-backed folder of the build (swapon refuses
#     tmpfs and overlayfs);
#   - the EXIT trap turns off every swap area under our folders and removes
#     them; when PID 1 of the namespace (this script) exits, the kernel kills
#     the daemons and the mounts go with the namespace.
#
# Usage: helper-fixture.sh BUILD_DIR TEST_BINARY RULES_FILE [FUSE_DAEMON [ATTACK_BINARY]]
# FUSE_DAEMON (tests/helper/fuse-never-answers.c) is mounted under the scratch folder
# for the hang test; without it that test is skipped (in CI: a failure).
# Exit 77 (ctest: skipped) where it cannot run: not root, tools missing. In CI
# (CI=true) as root it must run: a fixture that cannot start there fails
# (exit 1), so that the bus test never passes by skipping.
set -euo pipefail

build=$1
test_binary=$2
rules=$3
fuse_daemon=${4:-}
attack_binary=${5:-}

say() { printf 'helper-fixture: %s\n' "$*" >&2; }
skip() {
    if [ "${CI:-}" = true ] && [ "$(id -u)" = 0 ]; then
        say "ERROR: cannot start in CI as root: $*"
        exit 1
    fi
    say "skipped: $*"
    exit 77
}

[ "$(id -u)" = 0 ] || skip "needs root (run inside tools/dev)"
for tool in dbus-daemon dbus-send runuser unshare mkswap swapon swapoff timeout cmake; do
    command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -x /usr/lib/polkit-1/polkitd ] || skip "polkitd is not installed"
id cachescope-user >/dev/null 2>&1 && id cachescope-other >/dev/null 2>&1 || skip "test users cachescope-user / cachescope-other missing"

if [ -z "${CACHESCOPE_HELPER_FIXTURE_INSIDE:-}" ]; then
    # Re-run inside our own namespaces. --pid --fork: this script becomes PID 1
    # there, and every daemon dies with it.
    # Inside a chroot (tools/dev) / is no mount point and "private" cannot be
    # set on it; tools/dev's own namespace is private already, so the copy is.
    propagation=private
    unshare --mount --propagation private true 2>/dev/null || propagation=unchanged
    exec env CACHESCOPE_HELPER_FIXTURE_INSIDE=1 unshare --mount --pid --fork --propagation "$propagation" -- "$0" "$@"
fi
# Refuse to mount anything that would be seen outside: no shared mounts here.
if grep -q ' shared:' /proc/self/mountinfo; then
    skip "the mounts here propagate to other namespaces; run inside tools/dev"
fi

scratch="$build/test-scratch/helper-fixture"
dbus_pid=
polkit_pid=
fuse_pid=
holder_pid=
fuse_dir=
monitor_pid=

# Every swap area under our folders, as this namespace's /proc/swaps names them.
our_swaps() {
    awk 'NR > 1 { print $1 }' /proc/swaps | while read -r name; do
        case "$name" in
        "$scratch"/* | /var/lib/cachescope/*) printf '%s\n' "$name" ;;
        esac
    done
}

cleanup() {
    local status=$?
    set +e
    local area
    while read -r area; do
        [ -n "$area" ] || continue
        say "turning off swap left on $area"
        swapoff "$area" || say "ERROR: swapoff $area failed"
    done < <(our_swaps)
    [ -n "$monitor_pid" ] && kill "$monitor_pid" 2>/dev/null
    [ -n "$holder_pid" ] && kill "$holder_pid" 2>/dev/null
    # The FUSE daemon first: its death ends every request still waiting on
    # it (a reader the helper abandoned), then the mount goes. SIGKILL: on
    # SIGTERM libfuse waits for its worker, which never returns from open.
    [ -n "$fuse_pid" ] && kill -KILL "$fuse_pid" 2>/dev/null && wait "$fuse_pid" 2>/dev/null
    if [ -n "$fuse_dir" ]; then
        umount -l "$fuse_dir" 2>/dev/null || fusermount3 -u -z "$fuse_dir" 2>/dev/null
        if grep -q " $fuse_dir " /proc/self/mountinfo; then
            say "ERROR: $fuse_dir is still mounted"
            status=1
        fi
    fi
    [ -n "$polkit_pid" ] && kill "$polkit_pid" 2>/dev/null
    [ -n "$dbus_pid" ] && kill "$dbus_pid" 2>/dev/null
    if [ -n "$(our_swaps)" ]; then
        say "ERROR: swap is still on: $(our_swaps | tr '\n' ' ')"
        status=1
    fi
    if [ "$(awk 'NR > 1' /proc/swaps | wc -l)" != 0 ]; then
        say "note: other swap areas are active on this machine:"
        cat /proc/swaps >&2
    fi
    rm -rf "$scratch"
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- Namespace: own /proc (polkitd looks up callers by PID), own /run ----------
# The trace action needs a /proc that shows the initial PID namespace at
# /run/host/proc (tracefs takes the initial namespace's pids; this script's
# namespace is a new one): the /proc we were given where it shows it, else
# the one tools/dev put at /run/host/proc. Held aside while /proc and /run
# get their new mounts, then moved into place.
# Kernel threads (kthreadd is pid 2) show only in the initial namespace's
# procfs (process 1's ns/pid link may be closed to us even as root).
shows_kernel_threads() { [ "$(stat -f -c %T "$1" 2>/dev/null)" = proc ] && grep -q "^Name:[[:space:]]*kthreadd$" "$1/2/status" 2>/dev/null; }
host_proc=
if shows_kernel_threads /proc; then
    host_proc=/proc
elif shows_kernel_threads /run/host/proc; then
    host_proc=/run/host/proc
fi
if [ -n "$host_proc" ]; then
    held_proc=$(mktemp -d /tmp/helper-fixture-host-proc.XXXXXX)
    mount --bind -o ro "$host_proc" "$held_proc"
fi
mount -t proc proc /proc
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/dbus /run/fixture
if [ -n "$host_proc" ]; then
    mkdir -p /run/host/proc
    mount --move "$held_proc" /run/host/proc
    rmdir "$held_proc"
else
    say "note: no /proc of the initial PID namespace is visible: the trace tests will see the helper refuse"
fi

# --- Overlays on exactly the folders the install touches ---------------------
overlay() {
    local dir=$1 name
    name=$(printf '%s' "$dir" | tr / _)
    mkdir -p "/run/fixture/$name/upper" "/run/fixture/$name/work"
    chown --reference="$dir" "/run/fixture/$name/upper"
    chmod --reference="$dir" "/run/fixture/$name/upper"
    mount -t overlay overlay -o "lowerdir=$dir,upperdir=/run/fixture/$name/upper,workdir=/run/fixture/$name/work" "$dir"
}
for dir in /usr/lib/x86_64-linux-gnu/libexec /usr/share/dbus-1/system-services /usr/share/dbus-1/system.d \
    /usr/share/polkit-1/actions /etc/polkit-1/rules.d /var/lib; do
    overlay "$dir"
done

# --- Install the helper component (DESTDIR), then copy only its files -----------
stage=/run/fixture/stage
DESTDIR=$stage cmake --install "$build" --component cachescope-helper >/dev/null
install_file() { # SOURCE-IN-STAGE MODE
    [ -f "$stage$1" ] || { say "ERROR: the install did not produce $1"; exit 1; }
    install -m "$2" -o root -g root "$stage$1" "$1"
}
install_file /usr/lib/x86_64-linux-gnu/libexec/cachescope-helper 0755
install_file /usr/share/dbus-1/system.d/org.kde.cachescope.Helper1.conf 0644
install_file /usr/share/dbus-1/system-services/org.kde.cachescope.Helper1.service 0644
install_file /usr/share/polkit-1/actions/org.kde.cachescope.policy 0644
install -m 0644 -o root -g polkitd "$rules" /etc/polkit-1/rules.d/49-cachescope-test.rules

# --- Files to work on --------------------------------------------------------
rm -rf "$scratch"
mkdir -p -m 0755 "$scratch"
mkdir -m 0700 "$scratch/varlib"
mkdir -p /var/lib/cachescope
mount --bind "$scratch/varlib" /var/lib/cachescope
mkdir -m 0755 "$scratch/user" "$scratch/other"
chown cachescope-user: "$scratch/user"
chown cachescope-other: "$scratch/other"
make_swap() { # PATH MiB
    dd if=/dev/zero of="$1" bs=1M count="$2" status=none
    chmod 0600 "$1"
    mkswap -q "$1" >/dev/null
}
make_swap "$scratch/active.swap" 32
make_swap "$scratch/inactive.swap" 16
swapon -p 7 "$scratch/active.swap"
dd if=/dev/urandom of="$scratch/rootfile" bs=1M count=8 status=none
chmod 0644 "$scratch/rootfile"
# A file of root's deleted while root's process still holds it, mapped
# (4 MiB, every page touched): hidden from the users' own account, shown by
# the helper's (docs/helper-security.md rule 18).
dd if=/dev/urandom of="$scratch/root-deleted.bin" bs=1M count=4 status=none
python3 -c '
import mmap, sys, time
f = open(sys.argv[1], "rb"); m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
while True:
    [m[i] for i in range(0, len(m), 4096)]
    time.sleep(5)' "$scratch/root-deleted.bin" &
holder_pid=$!
for _ in $(seq 100); do grep -q "root-deleted.bin" "/proc/$holder_pid/maps" 2>/dev/null && break; sleep 0.1; done
rm "$scratch/root-deleted.bin"
# Root may read it, the allowed user may not: the helper opens paths as the caller.
mkdir -m 0700 "$scratch/private"
printf 'secret\n' >"$scratch/private/secret"
sync

# --- The bus and polkitd -----------------------------------------------------
log=$build/helper-fixture.log
: >"$log"
dbus-daemon --system --nofork --nopidfile >>"$log" 2>&1 &
dbus_pid=$!
for _ in $(seq 100); do [ -S /run/dbus/system_bus_socket ] && break; sleep 0.1; done
[ -S /run/dbus/system_bus_socket ] || { say "ERROR: the system bus did not start (see $log)"; exit 1; }
/usr/lib/polkit-1/polkitd --no-debug >>"$log" 2>&1 &
polkit_pid=$!
name_owned() {
    dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q 'boolean true'
}
for _ in $(seq 100); do name_owned org.freedesktop.PolicyKit1 && break; sleep 0.1; done
name_owned org.freedesktop.PolicyKit1 || { say "ERROR: polkitd did not start (see $log)"; exit 1; }

# --- A FUSE file system whose daemon never answers an open -------------------
if [ -n "$fuse_daemon" ] && [ -x "$fuse_daemon" ] && [ -c /dev/fuse ]; then
    fuse_dir=$scratch/fuse
    mkdir -m 0755 "$fuse_dir"
    "$fuse_daemon" "$fuse_dir" >>"$log" 2>&1 &
    fuse_pid=$!
    for _ in $(seq 100); do grep -q " $fuse_dir " /proc/self/mountinfo && break; sleep 0.1; done
    grep -q " $fuse_dir " /proc/self/mountinfo || { say "ERROR: the FUSE daemon did not mount (see $log)"; exit 1; }
elif [ "${CI:-}" = true ]; then
    say "ERROR: no FUSE daemon or no /dev/fuse: the hang test cannot run in CI"
    exit 1
else
    say "note: no FUSE daemon (libfuse3 not found at build time) or no /dev/fuse: the hang test is skipped"
fi

# --- A third user listens to everything it may while the others work ---------
# docs/helper-security.md rule 12: no reply and no job signal of the helper
# reaches anyone but its caller; a monitor of another user sees none.
listened=$scratch/other-listens.log
runuser -u cachescope-other -- dbus-monitor --system >"$listened" 2>&1 &
monitor_pid=$!
sleep 1 # its match rules in place before the first request

status=0
user_env() { # USER
    echo env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="/home/$1" LANG=C.UTF-8
}

# --- The attacker's view (helperattacktest, raw sd-bus) -------------------------
if [ -n "$attack_binary" ]; then
    attack_as() { # USER ROLE ARGS...
        local user=$1
        shift
        if [ "$user" = root ]; then
            timeout --kill-after=10 300 "$attack_binary" "$@"
        else
            timeout --kill-after=10 300 runuser -u "$user" -- $(user_env "$user") "$attack_binary" "$@"
        fi
    }
    wait_for_file() { # FILE SECONDS
        local end=$((SECONDS + $2))
        while [ "$SECONDS" -lt "$end" ]; do
            [ -s "$1" ] && return 0
            sleep 0.1
        done
        return 1
    }
    if [ -n "$fuse_dir" ]; then
        # A refused user sends descriptors of the FLUSH trap; meanwhile the
        # allowed user's drop-caches is answered within 3 s.
        say "attack: descriptors of a FUSE file that stalls the helper's close"
        rm -f "$scratch/other/attack-ready"
        attack_as cachescope-other attack-descriptor "$fuse_dir/flush-trap" 8 "$scratch/other/attack-ready" &
        attacker=$!
        if wait_for_file "$scratch/other/attack-ready" 20; then
            attack_as cachescope-user drop-caches-within 3000 || status=1
        else
            say "ERROR: the descriptor attacker did not start"
            status=1
        fi
        wait "$attacker" || status=1
    fi
    # Every method refuses bad calls (types, counts, ranges, other users'
    # processes, a set-user-ID program, jobs that are not the caller's).
    say "attack: bad calls of every method"
    bad_calls=$(attack_as cachescope-user bad-inputs /usr/bin/passwd) || status=1
    say "bad calls refused over the bus: ${bad_calls:-none}"
    # A refused user floods the helper with calls; the allowed user's call
    # meanwhile is served, not told the helper is busy.
    say "attack: a flood of calls beside the allowed user's"
    rm -f "$scratch/other/flood-ready"
    attack_as cachescope-other flood-calls 100 "$scratch/other/flood-ready" 8 &
    flooder=$!
    if wait_for_file "$scratch/other/flood-ready" 30; then
        attack_as cachescope-user drop-caches-within 3000 || status=1
    else
        say "ERROR: the flood did not start"
        status=1
    fi
    wait "$flooder" || status=1
    # ... and does not flood the audit log: a bounded number of lines, the
    # rest counted (rule 11).
    flood_lines=$(grep -c '^cachescope-helper: action=dropcaches uid=4202 ' "$log" || true)
    if [ "$flood_lines" -gt 200 ]; then
        say "ERROR: the flood wrote $flood_lines audit lines"
        status=1
    else
        say "the flood wrote $flood_lines audit lines"
    fi
    # A refused user calls Cancel on the allowed user's trace job every 50 ms.
    say "attack: Cancel on another user's trace job every 50 ms"
    install -m 0644 -o cachescope-user "$scratch/rootfile" "$scratch/user/attack-traced.bin"
    rm -f "$scratch/user/job-path" "$scratch/stop-flood"
    attack_as cachescope-other cancel-flood "$scratch/user/job-path" "$scratch/stop-flood" &
    flooder=$!
    attack_as cachescope-user trace-own-child "$scratch/user/attack-traced.bin" "$scratch/user/job-path" || status=1
    touch "$scratch/stop-flood"
    wait "$flooder" || status=1
    if [ -n "$fuse_dir" ]; then
        # Two callers at once: the allowed user's residency of a file that
        # never answers, and root's drop-caches, answered within 1 s.
        say "attack: a residency read that hangs beside a drop-caches"
        rm -f "$scratch/user/residency-started"
        attack_as cachescope-user residency-of-hanging-file "$fuse_dir/file" "$scratch/user/residency-started" &
        hanging=$!
        if wait_for_file "$scratch/user/residency-started" 20; then
            sleep 0.5
            attack_as root drop-caches-within 1000 || status=1
        else
            say "ERROR: the hanging residency read did not start"
            status=1
        fi
        wait "$hanging" || status=1
        # A caller that leaves the bus with its job under way: the job is
        # cancelled and the helper goes on serving others.
        say "attack: a caller leaves the bus during its job"
        attack_as cachescope-user leave-during-job "$fuse_dir/file" || status=1
        sleep 0.5
        attack_as cachescope-user drop-caches-within 3000 || status=1
    fi
fi

# --- The helper killed in the middle of its work ----------------------------------
# docs/helper-security.md rules 4, 16 and 17: kill -9 of the service during a
# trace, a contained run and a swapoff leaves, at its next start, no tracefs
# instance, no run cgroup and no swap area off and forgotten.
if [ -n "$attack_binary" ]; then
    helper_pid() {
        dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
            org.freedesktop.DBus.GetConnectionUnixProcessID string:org.kde.cachescope.Helper1 2>/dev/null | awk '/uint32/ { print $2 }'
    }
    start_helper() {
        dbus-send --system --print-reply --dest=org.kde.cachescope.Helper1 /org/kde/cachescope/Helper1 org.freedesktop.DBus.Peer.Ping >/dev/null
    }
    kill_helper() { # also its children (contain's watcher), as a crash of the whole unit would
        local pid
        pid=$(helper_pid)
        [ -n "$pid" ] || { say "ERROR: no helper to kill"; return 1; }
        pkill -KILL -P "$pid" 2>/dev/null || true
        kill -KILL "$pid"
        local end=$((SECONDS + 10))
        while [ "$SECONDS" -lt "$end" ] && name_owned org.kde.cachescope.Helper1; do sleep 0.1; done
        ! name_owned org.kde.cachescope.Helper1 || { say "ERROR: the killed helper still owns its name"; return 1; }
        echo "$pid"
    }
    tracefs=/sys/kernel/tracing
    say "kill -9: during a trace"
    rm -f "$scratch/user/trace-ready"
    attack_as cachescope-user hold-trace "$scratch/user/trace-ready" 20 &
    holder=$!
    if wait_for_file "$scratch/user/trace-ready" 30; then
        instances=$(ls "$tracefs/instances" 2>/dev/null | grep '^cachescope-' || true)
        [ -n "$instances" ] || { say "ERROR: no tracefs instance during the trace: the test proves nothing"; status=1; }
        kill_helper >/dev/null || status=1
        start_helper
        left=""
        for instance in $instances; do
            [ -e "$tracefs/instances/$instance" ] && left="$left $instance"
        done
        if [ -n "$left" ]; then
            say "ERROR: the killed helper's tracefs instances are still there after the next start:$left"
            status=1
        else
            say "the killed helper's tracefs instance ($(echo $instances)) was removed at the next start"
        fi
    else
        say "ERROR: the trace to kill did not start"
        status=1
    fi
    wait "$holder" || true # its job died with the helper

    say "kill -9: during a contained run"
    rm -f "$scratch/user/contain-ready" "$scratch/stop-contain"
    attack_as cachescope-user hold-contain "$scratch/user/contain-ready" "$scratch/stop-contain" &
    holder=$!
    if wait_for_file "$scratch/user/contain-ready" 30; then
        cgroup=$(head -n 1 "$scratch/user/contain-ready")
        kill_helper >/dev/null || status=1
        touch "$scratch/stop-contain"
        wait "$holder" || status=1
        [ -d "$cgroup" ] || { say "ERROR: the run cgroup $cgroup went before the next start: the test proves nothing"; status=1; }
        start_helper
        end=$((SECONDS + 10))
        while [ "$SECONDS" -lt "$end" ] && [ -d "$cgroup" ]; do sleep 0.1; done
        if [ -d "$cgroup" ]; then
            say "ERROR: the killed helper's run cgroup $cgroup is still there after the next start"
            status=1
        else
            say "the killed helper's run cgroup was removed at the next start"
        fi
    else
        say "ERROR: the contained run to kill did not start"
        touch "$scratch/stop-contain"
        wait "$holder" || true
        status=1
    fi

    # docs/helper-security.md rule 15: SIGTERM (systemd's stop) during a trace
    # cancels it in order: the caller is told, the instance goes at once, the
    # service ends.
    say "SIGTERM: during a trace"
    rm -f "$scratch/user/trace-ready"
    attack_as cachescope-user hold-trace "$scratch/user/trace-ready" 20 &
    holder=$!
    if wait_for_file "$scratch/user/trace-ready" 30; then
        pid=$(helper_pid)
        kill -TERM "$pid"
        end=$((SECONDS + 10))
        while [ "$SECONDS" -lt "$end" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            say "ERROR: the helper did not end within 10 s of SIGTERM during a trace"
            status=1
        elif ls "$tracefs/instances" 2>/dev/null | grep -q '^cachescope-'; then
            say "ERROR: the helper ended at SIGTERM and left its tracefs instance"
            status=1
        else
            say "SIGTERM during a trace: the trace was cancelled, its instance removed, the helper ended"
        fi
    else
        say "ERROR: the trace to stop did not start"
        status=1
    fi
    wait "$holder" || true
    start_helper

    # docs/helper-security.md rule 15: at its idle time the service releases
    # its name first and ends once nothing is under way; calls every 2 ms
    # across that moment are all answered (by it, or by the next instance).
    say "idle exit: no call lost while the service ends"
    kill_helper >/dev/null || status=1
    CACHESCOPE_HELPER_IDLE_SECONDS=2 /usr/lib/x86_64-linux-gnu/libexec/cachescope-helper >>"$log" 2>&1 &
    direct=$!
    end=$((SECONDS + 10))
    while [ "$SECONDS" -lt "$end" ] && ! name_owned org.kde.cachescope.Helper1; do sleep 0.05; done
    attack_as cachescope-user calls-across-exit 5 || status=1
    if kill -0 "$direct" 2>/dev/null; then
        say "ERROR: the helper started with a 2 s idle time still runs"
        kill -KILL "$direct"
        status=1
    fi
    wait "$direct" || true

    say "kill -9: during a swapoff"
    area_bytes=$(printf '%s' "$scratch/active.swap" | od -An -tu1 -v | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
    dbus-send --system --print-reply --dest=org.kde.cachescope.Helper1 /org/kde/cachescope/Helper1 \
        org.kde.cachescope.Helper1.SwapOff "array:byte:$area_bytes" >/dev/null 2>&1 &
    swapoff_call=$!
    sleep 0.05
    kill_helper >/dev/null || status=1
    wait "$swapoff_call" || true
    start_helper
    if awk -v f="$scratch/active.swap" '$1 == f { found = 1 } END { exit !found }' /proc/swaps; then
        say "swap on $scratch/active.swap was still on when the helper died"
    elif grep -qF "$scratch/active.swap" /run/cachescope/swap-state 2>/dev/null || grep -q "active.swap" /run/cachescope/swap-state 2>/dev/null; then
        say "swap on $scratch/active.swap was off and recorded when the helper died; turning it on again"
        dbus-send --system --print-reply --dest=org.kde.cachescope.Helper1 /org/kde/cachescope/Helper1 \
            org.kde.cachescope.Helper1.SwapOnAll >/dev/null || { say "ERROR: swap on again failed"; status=1; }
    else
        say "ERROR: the killed helper left swap on $scratch/active.swap off and unrecorded"
        status=1
    fi
fi

# --- The tests through Cachescope's client, as each user -------------------------
run_as() { # USER ROLE
    timeout --kill-after=10 600 runuser -u "$1" -- $(user_env "$1") \
        QT_QPA_PLATFORM=offscreen CACHESCOPE_HELPER_ROLE="$2" CACHESCOPE_FIXTURE_DIR="$scratch" CACHESCOPE_FUSE_DIR="$fuse_dir" "$test_binary"
}
say "as cachescope-other (refused)"
run_as cachescope-other refused || status=1
say "as cachescope-user (allowed)"
run_as cachescope-user allowed || status=1
kill "$monitor_pid" 2>/dev/null || true
wait "$monitor_pid" 2>/dev/null || true
monitor_pid=
if ! python3 - "$listened" <<'PY'; then
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
messages = re.split(r"\n(?=(?:signal|method call|method return|error) )", text)
problems = []
# The bus's own broadcasts about the name (NameOwnerChanged) are public;
# nothing sent by or to the helper's objects may reach this user.
for message in messages:
    header = message.split("\n", 1)[0]
    if "/org/kde/cachescope" in header or "interface=org.kde.cachescope" in header:
        problems.append("a message of the helper reached another user: " + header)
if len(messages) < 2:
    problems.append("the monitor saw nothing at all (%d messages): the check proves nothing" % len(messages))
for problem in problems[:10]:
    print("helper-fixture: ERROR: " + problem, file=sys.stderr)
print("helper-fixture: another user's monitor saw %d messages, none of the helper's" % len(messages) if not problems else
      "helper-fixture: %d of the helper's messages reached another user" % len(problems), file=sys.stderr)
sys.exit(1 if problems else 0)
PY
    status=1
fi

# The fixture's own checks: the swap area is back with its priority, and the
# helper wrote its fixed-format audit lines.
if ! awk -v f="$scratch/active.swap" '$1 == f && $5 == 7 { found = 1 } END { exit !found }' /proc/swaps; then
    say "ERROR: $scratch/active.swap is not on with priority 7 after the tests"
    cat /proc/swaps >&2
    status=1
fi
if grep -q '^cachescope-helper: action=dropcaches uid=4201 target=level=1 result=ok code=0$' "$log"; then
    say "audit lines found in $log: $(grep -c '^cachescope-helper: action=' "$log")"
else
    say "note: no audit line reached $log (the activated helper's stderr may go elsewhere)"
fi
exit $status
