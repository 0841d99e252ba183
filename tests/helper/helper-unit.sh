#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# The helper's systemd unit and D-Bus activation file, checked without running
# systemd (the build root has systemd-analyze but no systemd as init):
#   - systemd-analyze verify accepts the unit (the copy whose ExecStart= is the
#     helper just built: verify checks that the program exists);
#   - systemd-analyze security --offline=true rates its exposure at most
#     MAX_EXPOSURE (a number like 4.2; systemd's scale is 0.0 to 10.0);
#   - the installed unit starts the binary the D-Bus file's Exec= names, as
#     root, and is a Type=dbus service for org.kde.cachescope.Helper1;
#   - the D-Bus activation file has SystemdService= (a bus with systemd
#     activation starts the unit) and keeps Exec= and User=root (a bus without
#     it starts the helper directly).
#
# Usage: helper-unit.sh UNIT_FOR_TESTS INSTALLED_UNIT DBUS_SERVICE_FILE MAX_EXPOSURE
set -euo pipefail

unit_for_tests=$1
installed_unit=$2
dbus_service=$3
max_exposure=$4

failures=0
fail() {
    printf 'helper-unit: FAIL: %s\n' "$*" >&2
    failures=$((failures + 1))
}
pass() { printf 'helper-unit: ok: %s\n' "$*"; }

# One key's value in an INI-style file; the last one counts, as for systemd.
value_of() { # FILE KEY
    awk -v key="$2" 'index($0, key "=") == 1 { value = substr($0, length(key) + 2) } END { print value }' "$1"
}

# --- systemd-analyze verify ------------------------------------------------------
# --man=no: the unit names no man page. Any output is a complaint (an unknown
# or misspelt setting is only a warning, with exit status 0), so output fails
# the test too.
verify_output=$(systemd-analyze verify --man=no "$unit_for_tests" 2>&1) && verify_status=0 || verify_status=$?
if [ "$verify_status" != 0 ] || [ -n "$verify_output" ]; then
    fail "systemd-analyze verify (status $verify_status): $verify_output"
else
    pass "systemd-analyze verify"
fi

# --- systemd-analyze security ----------------------------------------------------
security_output=$(systemd-analyze security --offline=true --no-pager "$unit_for_tests" 2>&1) || true
printf '%s\n' "$security_output"
exposure=$(printf '%s\n' "$security_output" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9][0-9]*\.[0-9]\).*/\1/p' | tail -n 1)
if [ -z "$exposure" ]; then
    fail "no overall exposure level in systemd-analyze security's output"
elif awk -v e="$exposure" -v m="$max_exposure" 'BEGIN { exit !(e + 0 > m + 0) }'; then
    fail "exposure $exposure is above $max_exposure: a sandboxing line was lost or weakened"
else
    pass "exposure $exposure (at most $max_exposure)"
fi

# --- The installed unit and the D-Bus activation file agree ---------------------
[ "$(value_of "$installed_unit" Type)" = dbus ] || fail "$installed_unit: Type= is not dbus"
[ "$(value_of "$installed_unit" BusName)" = org.kde.cachescope.Helper1 ] || fail "$installed_unit: BusName= is not org.kde.cachescope.Helper1"
[ "$(value_of "$installed_unit" User)" = root ] || fail "$installed_unit: User= is not root"
grep -q '^ProtectHome=read-only$' "$installed_unit" || fail "$installed_unit: home is not read-only"
grep -q '^PrivateNetwork=yes$' "$installed_unit" || fail "$installed_unit: the network is not private"
grep -q '^CapabilityBoundingSet=' "$installed_unit" || fail "$installed_unit: no capability bounding set"

[ "$(value_of "$dbus_service" Name)" = org.kde.cachescope.Helper1 ] || fail "$dbus_service: Name= is not org.kde.cachescope.Helper1"
[ "$(value_of "$dbus_service" SystemdService)" = cachescope-helper.service ] ||
    fail "$dbus_service: SystemdService=cachescope-helper.service is missing (a systemd bus would start the helper unsandboxed)"
[ "$(value_of "$dbus_service" User)" = root ] || fail "$dbus_service: User=root is missing (a bus without systemd could not start the helper)"
exec_path=$(value_of "$dbus_service" Exec)
case "$exec_path" in
/*/cachescope-helper) ;;
*) fail "$dbus_service: Exec= is not an absolute path to cachescope-helper: '$exec_path'" ;;
esac
[ "$(value_of "$installed_unit" ExecStart)" = "$exec_path" ] ||
    fail "the unit's ExecStart= ($(value_of "$installed_unit" ExecStart)) is not the D-Bus file's Exec= ($exec_path)"
[ "$failures" = 0 ] && pass "the unit and $dbus_service agree (SystemdService=, Exec=, User=root)"

exit $((failures > 0))
