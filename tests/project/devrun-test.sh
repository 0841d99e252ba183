#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# `tools/dev run` end to end, from the host (.ci/run runs it after
# `tools/dev test`; it cannot run inside the root, where it would have to
# make the root's namespaces again):
#   - a file in a fresh folder under the host's /var/tmp, outside the
#     checkout, is named on the command line;
#   - the window runs as cachescope-user on a private Xvfb inside the root,
#     with the build installed, a system bus, polkitd and the helper;
#   - tests/project/devrun-probe.py checks that Drop Caches, Swap and the experiment
#     swap file are enabled and that the window's row for the file follows
#     its residency (half held: about 50%; all held: 100%);
#   - a file of root's, whose residency the kernel hides from that user, says
#     "hidden", and "Show with Administrator Rights" gets it from the helper;
#   - afterwards nothing of it is left on the host: no process inside the
#     root, the same mounts, the same swap areas.
# Exit 77 (skipped) where it cannot run: not root (in CI as root it must run).
set -euo pipefail

checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
say() { printf 'devrun-test: %s\n' "$*" >&2; }
if [ "$(id -u)" != 0 ]; then
    [ "${CI:-}" = true ] && { say "ERROR: CI must run this as root"; exit 1; }
    say "skipped: needs root (tools/dev makes namespaces)"
    exit 77
fi

folder=$(mktemp -d /var/tmp/cachescope-devrun.XXXXXX)
cleanup() { rm -rf "$folder"; }
trap cleanup EXIT
case "$(stat -f -c %T "$folder")" in
tmpfs | ramfs) say "ERROR: $folder is on $(stat -f -c %T "$folder"): its pages cannot be evicted; the probe needs a disk"; exit 1 ;;
esac
chmod 0755 "$folder"
file=$folder/host-file.bin
dd if=/dev/urandom of="$file" bs=1M count=16 status=none
chmod 0644 "$file"
# Owned by the window's user: the kernel shows a file's residency to its owner
# (and to writers); a root-owned file would say "hidden" (mincore, cachestat).
chown 4201:4201 "$file"
# Root's file, readable by all: the kernel hides its residency from
# cachescope-user, and "Show with Administrator Rights" asks the helper.
roots_file=$folder/roots-file.bin
dd if=/dev/urandom of="$roots_file" bs=1M count=8 status=none
chmod 0644 "$roots_file"
# Dirty pages are not evicted: the probe's "half held" needs them written.
sync "$file" "$roots_file"

# The host as it is before (mounts and swap are global; processes inside the
# root show by their root directory).
processes_in_roots() {
    local pid
    for pid in /proc/[0-9]*; do
        readlink "$pid/root" 2>/dev/null | grep -q '/root-[0-9a-f]*$' && printf '%s ' "${pid#/proc/}"
    done
    return 0
}
mounts_before=$(wc -l </proc/self/mountinfo)
swaps_before=$(cat /proc/swaps)

status=0
for probed in "$file" "$roots_file"; do
    "$checkout/tools/dev" run --headless --user cachescope-user --probe "$checkout/tests/project/devrun-probe.py" "$probed" || status=1
done

mounts_after=$(wc -l </proc/self/mountinfo)
if [ "$mounts_before" != "$mounts_after" ]; then
    say "ERROR: the host had $mounts_before mounts before and $mounts_after after"
    status=1
fi
if [ "$swaps_before" != "$(cat /proc/swaps)" ]; then
    say "ERROR: the swap areas changed:"
    cat /proc/swaps >&2
    status=1
fi
# Other tools/dev commands (other checkouts) may run in their roots now; ours
# ran as cachescope-user, whom no other command uses as the window's user.
left=$(processes_in_roots)
for pid in $left; do
    if [ "$(stat -c %u "/proc/$pid" 2>/dev/null)" = 4201 ]; then
        say "ERROR: a process of the session is still running: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
        status=1
    fi
done
if [ $status = 0 ]; then say "passed"; else say "FAILED"; fi
exit $status
