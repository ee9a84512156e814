# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest-side tests: small assertions that say what failed.
set -euo pipefail
VMT_LIB=/opt/vmtrace/lib

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
expect_log() { grep -q -- "$1" <<<"$(dmesg)" || fail "kernel log lacks '$1'"; }
# wait_for DESCRIPTION CMD...: poll CMD until it succeeds; a hang guard only
# (60 s), never a timing check.
wait_for() {
	local what=$1 i
	shift
	for ((i = 0; i < 6000; i++)); do
		"$@" && return 0
		sleep 0.01
	done
	fail "gave up waiting for $what"
}
