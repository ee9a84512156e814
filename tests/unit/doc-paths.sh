#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/doc-paths.sh: every file of the tree that README.md and docs/
# name in backquotes (`user/...`, `kernel/...`, `tests/...`, `scripts/...`
# ...) is there, so that a file moved between layers leaves no page naming
# its old place. A name may end in a line (`file.c:42`) or be a folder; the
# few names that are not the tree's (the packages' staging folders that
# `make deb` makes, headers named as installed) are listed below.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
not_ours='^(debian/python3-vmtrace|debian/vmtrace-dkms|include/vmtrace/)$'
failed=0 checked=0
while read -r name; do
	path=${name%%:*}
	grep -Eq "$not_ours" <<<"$path" && continue
	checked=$((checked + 1))
	if ! compgen -G "$path*" >/dev/null; then
		echo "doc-paths: FAIL: $(grep -rlF "\`$name" README.md docs | xargs) name $path, not in the tree"
		failed=$((failed + 1))
	fi
done < <(grep -rhoE '`(user|kernel|tests|scripts|module|include|bpf|python|debian|examples)/[A-Za-z0-9_./:-]+`' \
		README.md docs | tr -d '`' | sort -u)
echo "doc-paths: $checked names of files and folders, $failed not in the tree"
[ "$failed" -eq 0 ] && [ "$checked" -gt 50 ]
