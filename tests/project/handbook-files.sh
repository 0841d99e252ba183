#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# The handbook's images and its installed form:
#   - every image index.docbook names is a PNG in docs/handbook/, and every
#     PNG there is named (no stale screenshot ships);
#   - every one is written by a screenshot test (those listed in
#     docs/handbook/screenshot-tests), so that `tools/dev
#     handbook-screenshots` can make it again: none is made by hand;
#   - installed (cmake --install into a scratch folder), the handbook is
#     where help:/cachescope looks, share/doc/HTML/en/cachescope/, with its
#     index.cache.bz2 (made by meinproc6) showing every image, and the images
#     beside it; and as HTML pages with the images, for the window's own
#     viewer where no help viewer is installed, in share/cachescope/handbook/.
# Usage: handbook-files.sh SOURCE_DIR BUILD_DIR
set -euo pipefail

source_dir=$1
build=$2
handbook=$source_dir/docs/handbook
status=0
fail() {
    printf 'handbook-files: FAIL: %s\n' "$*" >&2
    status=1
}

mapfile -t shot_sources < <(awk '!/^#/ && NF { print $3 }' "$handbook/screenshot-tests" | sed "s|^|$source_dir/tests/|")
[ "${#shot_sources[@]}" -gt 0 ] || fail "docs/handbook/screenshot-tests names no screenshot test"
for source in "${shot_sources[@]}"; do
    [ -f "$source" ] || fail "docs/handbook/screenshot-tests names $source, which does not exist"
done
mapfile -t images < <(grep -o 'fileref="[^"]*"' "$handbook/index.docbook" | cut -d'"' -f2 | sort -u)
[ "${#images[@]}" -gt 0 ] || fail "index.docbook names no image"
png_magic=$(printf '\211PNG\r\n\032\n' | od -An -tx1)
for image in "${images[@]}"; do
    if [ ! -f "$handbook/$image" ]; then
        fail "index.docbook names $image, which is not in docs/handbook/ (run tools/dev handbook-screenshots)"
        continue
    fi
    [ "$(head -c 8 "$handbook/$image" | od -An -tx1)" = "$png_magic" ] || fail "docs/handbook/$image is not a PNG"
    # The test that writes it: the name itself, or experiment-NAME.png from runAndShoot("NAME").
    name=${image%.png}
    if ! grep -qF "\"$image\"" "${shot_sources[@]}" &&
        ! { [[ "$name" == experiment-* ]] && grep -qF "runAndShoot(QStringLiteral(\"${name#experiment-}\")" "$source_dir/tests/app/experimentshots.cpp"; }; then
        fail "no screenshot test writes $image: it could only have been made by hand"
    fi
done
for file in "$handbook"/*.png; do
    [ -e "$file" ] || continue
    printf '%s\n' "${images[@]}" | grep -qx "$(basename "$file")" || fail "docs/handbook/$(basename "$file") is not named by index.docbook"
done

stage=$build/test-scratch/handbook-install
rm -rf "$stage"
DESTDIR=$stage cmake --install "$build" >/dev/null
installed=$stage/usr/share/doc/HTML/en/cachescope
for file in index.docbook index.cache.bz2; do
    [ -f "$installed/$file" ] || fail "the install has no share/doc/HTML/en/cachescope/$file"
done
if [ -f "$installed/index.cache.bz2" ]; then
    html=$(bzcat "$installed/index.cache.bz2")
    for image in "${images[@]}"; do
        [ -f "$installed/$image" ] || fail "the install has no share/doc/HTML/en/cachescope/$image"
        grep -qF "$image" <<<"$html" || fail "index.cache.bz2 does not show $image"
    done
fi
pages=$stage/usr/share/cachescope/handbook
[ -f "$pages/index.html" ] || fail "the install has no share/cachescope/handbook/index.html (the window's own viewer shows it)"
for image in "${images[@]}"; do
    [ -f "$pages/$image" ] || fail "the install has no share/cachescope/handbook/$image"
    grep -qF "\"$image\"" "$pages"/*.html || fail "no page in share/cachescope/handbook/ shows $image"
done
rm -rf "$stage"
[ "$status" = 0 ] && printf 'handbook-files: %d images, each made by a test, installed with the handbook\n' "${#images[@]}" >&2
exit "$status"
