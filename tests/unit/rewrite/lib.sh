# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/unit/rewrite.sh and disk-full.sh, with NAME set: a
# temporary folder removed at exit (after CLEANUP, a command, if set), and
# the count of checks passed and failed, which finish prints as the closing
# line and returns.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) && [ -d "$tmp" ] || { echo "$NAME: FAIL: no temporary folder"; exit 1; }
trap 'eval "${CLEANUP:-:}"; rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "$NAME: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }
finish() {
	echo "$NAME: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
