#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 Cachescope developers
#
# `reuse lint` over the files of the repository: every file has a licence
# and a copyright, and every licence text is in LICENSES/.
#   reuse-lint.sh SOURCE_DIR
# reuse asks git which files are ignored; the build root has no git, so the
# check runs on a copy that leaves out what .gitignore names (build folders).
set -euo pipefail
source_dir=$1
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
tar -C "$source_dir" --exclude-vcs --exclude='./build*' --exclude='*.configure.log' --exclude='./.cache' -cf - . | tar -C "$copy" -xf -
reuse --root "$copy" lint
