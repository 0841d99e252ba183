#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# static-analysis.sh SOURCE_DIR BUILD_DIR [FILE...]
#
# clang-tidy's bugprone and performance checks (SOURCE_DIR/.clang-tidy) and
# clazy's checks of levels 0 and 1 (KDE's, the list below) over every
# translation unit of SOURCE_DIR/src in BUILD_DIR/compile_commands.json,
# with the project's own headers and none of Qt's, KF's or the generated
# ones. Passes with zero warnings; a warning fails it, printed once each
# with its check's name. The few checks that are wrong for Cachescope are
# switched off by name, each with its reason (here and in .clang-tidy).
# Skips (exit 77) where clang-tidy-19 or clazy-standalone is missing.
# FILE...: only these translation units (absolute paths), while fixing.
set -euo pipefail
src=$(cd "$1" && pwd -P)
build=$(cd "$2" && pwd -P)
shift 2
for tool in clang-tidy-19 clazy-standalone python3; do
    command -v $tool >/dev/null || { echo "static-analysis: $tool is missing (tools/dev-packages.txt puts it in the root)"; exit 77; }
done
[ -f "$build/compile_commands.json" ] || { echo "static-analysis: no $build/compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS)"; exit 1; }

# clazy: levels 0 and 1, without
# - non-pod-global-static: it asks for Q_GLOBAL_STATIC, so that a library's
#   loading does not run constructors; ours are file-local constants of
#   programs (a QString, the CLI's interrupt state), made once at start.
clazy_checks=level0,level1,no-non-pod-global-static

files=$(mktemp)
out=$(mktemp -d)
trap 'rm -rf "$files" "$out"' EXIT
if [ $# -gt 0 ]; then
    printf '%s\n' "$@" >"$files"
else
    python3 - "$build/compile_commands.json" "$src/src/" >"$files" <<'EOF'
import json, sys
seen = set()
for entry in json.load(open(sys.argv[1])):
    path = entry["file"]
    if path.startswith(sys.argv[2]) and path not in seen:
        seen.add(path)
        print(path)
EOF
fi
count=$(wc -l <"$files")
[ "$count" -gt 0 ] || { echo "static-analysis: no translation unit of $src/src in $build/compile_commands.json"; exit 1; }
jobs=$(nproc)
echo "static-analysis: $count translation units, $jobs at a time"

# The project's headers (src/ and tests/ of the checkout), not the build's
# generated ones (ui_*.h, moc) nor Qt's and KF's.
header_filter="^$src/(src|tests)/"
started=$SECONDS
# -Wno-unknown-warning-option: the build's flags are GCC's (-Wlogical-op).
# A tool that fails (a file it cannot parse, a crash) is a failure too:
# no warning from it would prove nothing.
xargs -a "$files" -P "$jobs" -n 4 sh -c '
    out=$1 build=$2 filter=$3 checks=$4; shift 4
    clang-tidy-19 -p "$build" --quiet -header-filter="$filter" -extra-arg=-Wno-unknown-warning-option "$@" >>"$out/tidy.$$" 2>>"$out/tidy-errors.$$" ||
        echo "clang-tidy-19 failed (exit $?) on: $*" >>"$out/failed.$$"
    CLAZY_IGNORE_DIRS="^$build/.*" CLAZY_HEADER_FILTER="$filter" \
        clazy-standalone -p "$build" -checks="$checks" -extra-arg=-Wno-unknown-warning-option "$@" >>"$out/clazy.$$" 2>&1 ||
        echo "clazy-standalone failed (exit $?) on: $*" >>"$out/failed.$$"
    true
' analysis "$out" "$build" "$header_filter" "$clazy_checks"
echo "static-analysis: done in $((SECONDS - started)) s"
if cat "$out"/failed.* >"$out/failed" 2>/dev/null && [ -s "$out/failed" ]; then
    echo "static-analysis: a tool failed:"
    cat "$out/failed"
    grep -hE '(fatal error|error):' "$out"/tidy-errors.* "$out"/clazy.* 2>/dev/null | sort -u | head -20
    exit 1
fi

# Each warning once (a header's is reported by every file that includes it).
cat "$out"/tidy.* "$out"/clazy.* 2>/dev/null | grep -E '^/.*: (warning|error|fatal error): ' | sort -u >"$out/warnings" || true
if [ -s "$out/warnings" ]; then
    echo "static-analysis: $(wc -l <"$out/warnings") warnings:"
    cat "$out/warnings"
    echo "static-analysis: by check:"
    grep -oE '\[[-a-zA-Z0-9,.]+\]$' "$out/warnings" | sort | uniq -c | sort -rn
    exit 1
fi
echo "static-analysis: no warning from clang-tidy (bugprone, performance) or clazy (level 0 and 1)"
