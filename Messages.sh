#! /usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# Extracts the translatable strings of the window, the privileged helper's
# client and the forms into $podir/cachescope.pot. KDE's translation
# infrastructure runs it from the top folder with $EXTRACTRC, $XGETTEXT and
# $podir set; tests/project/i18n-extraction.sh runs it the same way in CI. The
# command-line tool and the core library are not translated (scripts read
# their output).
set -e
: "${EXTRACTRC:=$(dirname "$0")/tools/i18n/extractrc}"
rc=$(mktemp --suffix=.cpp)
trap 'rm -f "$rc"' EXIT
$EXTRACTRC $(find ui resources src/app -name '*.ui' -o -name '*.rc' -o -name '*.kcfg' | sort) >"$rc"
$XGETTEXT $(find src/app src/privileged -name '*.cpp' -o -name '*.h' 2>/dev/null | sort) "$rc" -o "$podir/cachescope.pot"
