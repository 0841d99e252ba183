#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# The Debian package end to end, as a Debian 13 user gets it:
#   1. `tools/dev package` builds it from this checkout; lintian finds no error;
#   2. a fresh, clean trixie root (mmdebstrap minbase plus Xvfb to look at the
#      window: no build dependencies) gets it with `apt install ./cachescope_*.deb`,
#      which pulls its dependencies from the Debian mirror;
#   3. the installed files work: `--version`, the window maps on Xvfb, the
#      handbook and its images are where help:/cachescope looks, Dolphin's
#      service menu is in share/kio/servicemenus/ and names installed
#      commands, and the helper runs through the installed D-Bus, polkit and
#      activation files on a real system bus with polkitd: an allowed user
#      drops the page cache (a file's pages go), a refused one is refused;
#   4. `apt purge` leaves none of the package's files and nothing named
#      cachescope under /etc, /usr, /var or /opt;
#   5. the host's kernel settings are the same before and after.
#
# Installing into a root in a PID namespace can touch the host: procps'
# trigger runs `sysctl --system` unless `ischroot` sees a chroot or PID 1
# says it is a container. Here PID 1 of the namespace stays outside the test
# root (so ischroot sees the chroot), carries container= in its environment,
# policy-rc.d starts no daemon, and /proc/sys is read-only in the test root
# except vm/drop_caches, which the helper test needs. tools/sysctl-snapshot
# compares the host's settings before and after.
#
# The base root is cached, keyed on its recipe (CACHESCOPE_PACKAGE_TEST_CACHE,
# default /var/cache/cachescope-package-test, with the .debs apt fetched);
# each run installs into a fresh overlay on it, removed at the end, in a
# mount and PID namespace of its own, so mounts and daemons end with it.
#
# Usage: package-test.sh CHECKOUT BUILD_DIR
# Exit 77 (skipped) where it cannot run: not root, no mmdebstrap, apt or
# lintian. In CI (CI=true) as root it must run, and fails instead.
set -euo pipefail

checkout=$1
build=$2

say() { printf 'package-test: %s\n' "$*" >&2; }
fail() { say "FAIL: $*"; exit 1; }
skip() {
    if [ "${CI:-}" = true ] && [ "$(id -u)" = 0 ]; then
        say "ERROR: cannot run in CI as root: $*"
        exit 1
    fi
    say "skipped: $*"
    exit 77
}

work="$build/test-scratch/package-test"
root="$work/root"
cache=${CACHESCOPE_PACKAGE_TEST_CACHE:-/var/cache/cachescope-package-test}
# Test tools only: a display to map the window on, and what looks at it.
base_packages=xvfb,xauth,x11-utils
base_recipe="trixie minbase $base_packages recipe 1"
base="$cache/base-$(printf '%s' "$base_recipe" | sha256sum | cut -c1-16)"

if [ -z "${CACHESCOPE_PACKAGE_TEST_INSIDE:-}" ]; then
    [ "$(id -u)" = 0 ] || skip "needs root (run inside tools/dev)"
    for tool in mmdebstrap lintian unshare dpkg-deb sha256sum; do
        command -v "$tool" >/dev/null || skip "$tool is not installed"
    done
    command -v sysctl >/dev/null || skip "sysctl (procps) is not installed: the host's settings cannot be compared"

    sysctl_before="$build/package-test-sysctl-before.txt"
    "$checkout/tools/sysctl-snapshot" >"$sysctl_before"

    # --- 1. The package and lintian -------------------------------------------
    say "building the package (tools/dev package)"
    CACHESCOPE_DEV_MODE=native CACHESCOPE_BUILD_DIR="$build" "$checkout/tools/dev" package ||
        fail "tools/dev package failed"
    version=$(sed -n 's/^project(cachescope VERSION \([0-9.]*\).*/\1/p' "$checkout/CMakeLists.txt")
    deb="$build/package/cachescope_${version}_$(dpkg --print-architecture).deb"
    [ -e "$deb" ] || fail "no $deb after tools/dev package"
    lintian_log="$build/package/lintian.log"
    lintian --allow-root --fail-on none "$deb" >"$lintian_log" 2>&1 || true
    cat "$lintian_log" >&2
    if grep -q '^E: ' "$lintian_log"; then
        fail "lintian reports errors (E:) in $deb"
    fi
    grep -q '^[A-Z]: cachescope' "$lintian_log" || say "lintian: no tags"

    # --- 2. The cached base root (only the base: installs are fresh) ----------
    mkdir -p "$cache"
    exec 9>"$cache/lock"
    flock 9
    if [ ! -e "$base/.ready" ]; then
        say "making the base root $base (mmdebstrap, once per recipe)"
        rm -rf "$base.tmp"
        # --mode=root inside this namespace: maintainer scripts run in a
        # chroot whose PID 1 is outside it, with a read-only /proc.
        mkdir -p "$work"
        # Without the descriptors this script inherited (ctest's, tools/dev's
        # lock): mmdebstrap hands apt its lowest free descriptor for a hook
        # that dash runs as `cat >&N`, and dash reads no N above 9.
        if ! (
            for fd in /proc/$BASHPID/fd/*; do
                fd=${fd##*/}
                [ "$fd" -gt 2 ] && eval "exec $fd>&-"
            done
            exec mmdebstrap --mode=root --variant=minbase --include="$base_packages" trixie "$base.tmp" >"$work/mmdebstrap.log" 2>&1
        ); then
            grep -v '^I: \|^Get:' "$work/mmdebstrap.log" | tail -40 >&2
            fail "mmdebstrap failed (its log: $work/mmdebstrap.log)"
        fi
        touch "$base.tmp/.ready"
        mv "$base.tmp" "$base"
        for old in "$cache"/base-*; do
            [ "$old" = "$base" ] || rm -rf "$old"
        done
    fi
    flock -u 9
    mkdir -p "$cache/archives/partial"

    rm -rf "$work"
    mkdir -p "$work"
    cp "$deb" "$work/"
    status=0
    # PID 1 of the new namespace is env, then this script: it stays outside
    # the test root, and its environment says container=.
    propagation=private
    unshare --mount --propagation private true 2>/dev/null || propagation=unchanged
    unshare --mount --pid --fork --propagation "$propagation" -- \
        env CACHESCOPE_PACKAGE_TEST_INSIDE=1 container=cachescope-package-test \
        CACHESCOPE_PACKAGE_TEST_BASE="$base" CACHESCOPE_PACKAGE_TEST_DEB="$work/$(basename "$deb")" \
        "$0" "$@" || status=$?

    # --- 5. The host's kernel settings --------------------------------------------
    if ! "$checkout/tools/sysctl-snapshot" --compare "$sysctl_before"; then
        say "FAIL: the host's kernel settings changed during the package test"
        status=1
    fi
    rm -f "$sysctl_before"
    if grep -q " $root" /proc/self/mountinfo; then
        say "FAIL: mounts of the test root outlived its namespace"
        status=1
    fi
    rm -rf "$work"
    [ "$status" = 0 ] && say "passed"
    exit "$status"
fi

# ---------------------------------------------------------------------------
# Inside: PID 1 of a new PID namespace, in a private mount namespace.
base=$CACHESCOPE_PACKAGE_TEST_BASE
deb=$CACHESCOPE_PACKAGE_TEST_DEB
if grep -q ' shared:' /proc/self/mountinfo; then
    fail "the mounts here propagate to other namespaces; run inside tools/dev"
fi

# --- The fresh root: an overlay on the base, on disk -----------------------------
mkdir -p "$work/upper" "$work/overlay-work" "$root"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/overlay-work" "$root"
mount -t proc proc "$root/proc"
# Read-only kernel settings for everything installed or run in the root ...
mount --bind "$root/proc/sys" "$root/proc/sys"
mount -o remount,bind,ro "$root/proc/sys"
# ... except the one the helper's drop caches writes.
mount --bind "$root/proc/sys/vm/drop_caches" "$root/proc/sys/vm/drop_caches"
mount -o remount,bind,rw "$root/proc/sys/vm/drop_caches"
mount -t sysfs -o ro sysfs "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=0755 tmpfs "$root/run"
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
mkdir -p "$root/run/dbus"
[ -e /etc/resolv.conf ] && cp -L /etc/resolv.conf "$root/etc/resolv.conf"
# Downloaded .debs kept between runs; the install itself is fresh.
mount --bind "$cache/archives" "$root/var/cache/apt/archives"
# No service starts at install time (invoke-rc.d asks this first).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 0755 "$root/usr/sbin/policy-rc.d"

# The guards hold: the test root sees itself as a chroot, writes to /proc/sys
# fail, and drop_caches takes writes (0 is refused as invalid, not read-only).
in_root() {
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 HOME=/root \
        DEBIAN_FRONTEND=noninteractive "$@"
}
in_root ischroot || fail "ischroot does not see the test root as a chroot: maintainer scripts would change the host"
if in_root sh -c 'echo 1 > /proc/sys/kernel/sysrq' 2>/dev/null; then
    fail "/proc/sys is writable in the test root"
fi
drop_error=$(in_root sh -c 'echo 0 > /proc/sys/vm/drop_caches' 2>&1 || true)
case "$drop_error" in
*"Read-only"*) fail "vm/drop_caches is read-only in the test root: $drop_error" ;;
esac

# --- 2. apt install ./cachescope_*.deb ------------------------------------------------
apt_log="$work/apt.log"
cp "$deb" "$root/tmp/"
say "apt install ./$(basename "$deb") into a fresh trixie root"
in_root apt-get -q update >"$apt_log" 2>&1 || { tail -n 30 "$apt_log" >&2; fail "apt-get update failed"; }
in_root apt -y -o Binary::apt::APT::Keep-Downloaded-Packages=true install "/tmp/$(basename "$deb")" >>"$apt_log" 2>&1 ||
    { tail -n 40 "$apt_log" >&2; fail "apt install ./$(basename "$deb") failed (log: $apt_log)"; }
rm -f "$root/tmp/$(basename "$deb")"
grep -q 'procps: Applying updated sysctl configuration' "$apt_log" &&
    fail "procps applied sysctl settings during the install (see $apt_log)"
in_root dpkg -L cachescope >"$work/files.txt"
say "installed: $(wc -l <"$work/files.txt") paths"

# --- 3. The installed files ------------------------------------------------------
expect_file() { # PATH
    [ -f "$root$1" ] || fail "the package did not install $1"
}
helper=$(grep -m 1 '/cachescope-helper$' "$work/files.txt" || true)
[ -n "$helper" ] || fail "the package has no cachescope-helper"
for path in /usr/bin/cachescope /usr/bin/cachescope-cli "$helper" \
    /usr/share/dbus-1/system.d/org.kde.cachescope.Helper1.conf \
    /usr/share/dbus-1/system-services/org.kde.cachescope.Helper1.service \
    /usr/share/dbus-1/interfaces/org.kde.cachescope.Helper1.xml \
    /usr/share/polkit-1/actions/org.kde.cachescope.policy \
    /usr/lib/systemd/system/cachescope-helper.service \
    /usr/share/applications/org.kde.cachescope.desktop \
    /usr/share/metainfo/org.kde.cachescope.metainfo.xml \
    /usr/share/icons/hicolor/scalable/apps/org.kde.cachescope.svg \
    /usr/share/kio/servicemenus/cachescope-servicemenu.desktop \
    /usr/share/doc/HTML/en/cachescope/index.docbook \
    /usr/share/doc/HTML/en/cachescope/index.cache.bz2 \
    /usr/share/doc/cachescope/copyright; do
    expect_file "$path"
done
# The bus starts exactly the installed helper.
grep -qx "Exec=$helper" "$root/usr/share/dbus-1/system-services/org.kde.cachescope.Helper1.service" ||
    fail "the D-Bus activation file does not start $helper"
[ -x "$root$helper" ] || fail "$helper is not executable"

# The handbook: every image the document names is installed beside it, and
# the cached HTML that help:/cachescope serves names them too.
handbook=/usr/share/doc/HTML/en/cachescope
handbook_html=$(bzcat "$root$handbook/index.cache.bz2") || fail "cannot read $handbook/index.cache.bz2"
for image in $(grep -o 'fileref="[^"]*"' "$root$handbook/index.docbook" | cut -d'"' -f2 | sort -u); do
    expect_file "$handbook/$image"
    grep -qF "src=\"$image\"" <<<"$handbook_html" || fail "the handbook's index.cache.bz2 does not show $image"
done

# Dolphin reads service menus from <GenericDataLocation>/kio/servicemenus;
# each action must start a command that the package installed.
menu="$root/usr/share/kio/servicemenus/cachescope-servicemenu.desktop"
grep -q '^MimeType=' "$menu" || fail "the service menu has no MimeType="
grep -qx 'Type=Service' "$menu" && grep -q '^Actions=' "$menu" || fail "the service menu is not a Type=Service file with Actions="
while read -r program; do
    in_root sh -c "command -v '$program'" >/dev/null || fail "the service menu starts $program, which is not installed"
done < <(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$menu" | sort -u)
[ -n "$(sed -n 's/^Exec=//p' "$menu")" ] || fail "the service menu has no Exec= line"

cli_version=$(in_root cachescope-cli --version) || fail "cachescope-cli --version failed"
grep -qF "$(dpkg-deb -f "$deb" Version)" <<<"$cli_version" || fail "cachescope-cli --version does not say the package's version: $cli_version"
in_root cachescope --version >/dev/null 2>&1 || {
    in_root env QT_QPA_PLATFORM=offscreen cachescope --version || fail "cachescope --version failed"
}

in_root useradd --create-home --uid 4201 --shell /bin/bash cachescope-user
in_root useradd --create-home --uid 4202 --shell /bin/bash cachescope-other

# The window, started from the installed files, maps on Xvfb.
say "starting the installed window on Xvfb"
# -displayfd: Xvfb picks a display no one uses and writes its number only
# once it accepts clients. A fixed number raced the server's start, and the
# abstract X socket is shared with the host's network namespace, so a host X
# server on the same number made this one fail.
in_root Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 300); do
    [ -s "$work/display" ] && break
    kill -0 "$xvfb_pid" 2>/dev/null || break
    sleep 0.1
done
[ -s "$work/display" ] || { cat "$work/xvfb.log" >&2; fail "Xvfb gave no display within 30 s"; }
display=":$(head -n1 "$work/display")"
in_root sh -c 'command -v dbus-run-session' >/dev/null || fail "dbus-run-session is not installed: the package's Recommends should bring dbus"
chroot "$root" runuser -u cachescope-user -- env -i PATH=/usr/bin:/bin HOME=/home/cachescope-user LANG=C.UTF-8 DISPLAY="$display" \
    dbus-run-session -- cachescope >"$work/window.log" 2>&1 &
window_pid=$!
# Mapped: a top-level window of class cachescope that X says is viewable.
window_mapped() {
    local id info
    for id in $(in_root env DISPLAY="$display" xwininfo -root -tree 2>/dev/null | grep -i '("cachescope"' | awk '{ print $1 }'); do
        # Whole output first: grep -q would close the pipe early (pipefail).
        info=$(in_root env DISPLAY="$display" xwininfo -id "$id" 2>/dev/null) || continue
        grep -q 'Map State: IsViewable' <<<"$info" && return 0
    done
    return 1
}
mapped=0
for _ in $(seq 300); do
    if window_mapped; then
        mapped=1
        break
    fi
    kill -0 "$window_pid" 2>/dev/null || break
    sleep 0.1
done
[ "$mapped" = 1 ] || { cat "$work/window.log" >&2; fail "the installed window did not map"; }
in_root env DISPLAY="$display" xwininfo -root -tree | grep -i '("cachescope"' | sed -n 1,3p >&2
kill "$window_pid" 2>/dev/null || true
wait "$window_pid" 2>/dev/null || true

# The helper through the installed bus, polkit and activation files.
say "the helper on a real system bus with polkitd"
in_root dbus-daemon --system --nofork --nopidfile >"$work/bus.log" 2>&1 &
for _ in $(seq 100); do [ -S "$root/run/dbus/system_bus_socket" ] && break; sleep 0.1; done
[ -S "$root/run/dbus/system_bus_socket" ] || fail "the system bus did not start (log: $work/bus.log)"
[ -x "$root/usr/lib/polkit-1/polkitd" ] || fail "polkitd is not installed: the package's Recommends should bring it"
install -m 0644 -o root -g "$(stat -c %g "$root/etc/polkit-1/rules.d")" "$checkout/tests/helper/helper-test.rules" \
    "$root/etc/polkit-1/rules.d/49-cachescope-test.rules"
in_root /usr/lib/polkit-1/polkitd --no-debug >"$work/polkit.log" 2>&1 &
for _ in $(seq 100); do
    in_root dbus-send --system --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.PolicyKit1 2>/dev/null | grep -q 'boolean true' && break
    sleep 0.1
done
as_user() { # USER COMMAND...
    local user=$1
    shift
    chroot "$root" runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="/home/$user" LANG=C.UTF-8 "$@"
}
# A file of the allowed user's in the cache, on the build's disk itself: not
# tmpfs (its pages never drop), not the overlay (whose files have no page
# cache of their own for cachestat to see).
mkdir -p "$work/probe" "$root/srv/probe"
mount --bind "$work/probe" "$root/srv/probe"
chown 4201:4201 "$work/probe"
probe=/srv/probe/probe.bin
as_user cachescope-user dd if=/dev/urandom of="$probe" bs=1M count=8 status=none
in_root sync
resident() { as_user cachescope-user cachescope-cli status --json "$probe" | grep -o '"resident": *[0-9]*' | sed -n 1p | grep -o '[0-9]*$'; }
as_user cachescope-user cat "$probe" >/dev/null
before=$(resident)
[ -n "$before" ] && [ "$before" -gt 0 ] || fail "the probe file is not in the cache after reading it (resident pages: '$before')"
if as_user cachescope-other cachescope-cli drop-caches 1 >"$work/refused.log" 2>&1; then
    fail "cachescope-other (no polkit grant) dropped the caches"
fi
cat "$work/refused.log" >&2
grep -qi 'not authori\|refused\|denied\|administrator' "$work/refused.log" ||
    fail "the refused user's message does not say why: $(cat "$work/refused.log")"
as_user cachescope-user cachescope-cli drop-caches 1 >"$work/allowed.log" 2>&1 ||
    { cat "$work/allowed.log" "$work/bus.log" >&2; fail "cachescope-user (allowed by polkit) could not drop the caches"; }
after=$(resident)
[ "$after" = 0 ] || fail "after drop-caches the probe file still has $after of $before pages cached"
say "drop-caches through the installed helper: $before pages -> 0; refused for cachescope-other"
in_root rm -f "$probe" /etc/polkit-1/rules.d/49-cachescope-test.rules
umount "$root/srv/probe"
rmdir "$root/srv/probe"

# --- 4. apt purge leaves nothing ------------------------------------------------
say "apt purge cachescope"
in_root apt -y purge cachescope >>"$apt_log" 2>&1 || { tail -n 30 "$apt_log" >&2; fail "apt purge cachescope failed"; }
left=0
while read -r path; do
    [ -n "$path" ] && [ -e "$root$path" ] || continue
    # Folders others share (/usr/bin, /usr/share/doc) stay; files and folders of ours go.
    if [ ! -d "$root$path" ] || [[ "$path" == *cachescope* ]]; then
        say "left after purge: $path"
        left=1
    fi
done <"$work/files.txt"
# Anything else of ours (state, configuration, logs), except in the users'
# homes (the window's settings: Debian never removes user data).
while read -r path; do
    say "left after purge: ${path#"$root"}"
    left=1
done < <(find "$root/etc" "$root/usr" "$root/var" "$root/opt" -xdev -iname '*cachescope*' \
    -not -path "$root/var/cache/apt/archives/*" 2>/dev/null)
[ "$left" = 0 ] || fail "apt purge left files of the package"
say "nothing of the package left after apt purge"
