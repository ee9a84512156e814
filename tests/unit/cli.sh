#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/cli.sh VMTRACE: the command line's contract, for every command
# `VMTRACE help` lists:
# - `VMTRACE CMD --help` and `-h` print CMD's usage on stdout, nothing on
#   stderr, and exit 0;
# - a bad option prints the same usage on stderr (after getopt's line saying
#   what was wrong), nothing on stdout, and exits 2;
# and `VMTRACE` alone prints its usage on stderr and exits 2, `VMTRACE help`
# on stdout and exits 0, an unknown command exits 2.
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "cli: FAIL: $*"; failed=$((failed + 1)); }

# run WANT_STATUS ARGS...: run VMTRACE ARGS into $tmp/out and $tmp/err.
run() {
	local want=$1 rc
	shift
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want" ] || { fail "vmtrace $*: exit $rc, not $want"; return 1; }
}

run 0 help && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ] || fail "vmtrace help"
mapfile -t commands < <(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p' "$tmp/out" |
			grep -vx help)
[ ${#commands[@]} -ge 16 ] || fail "vmtrace help lists ${#commands[@]} commands"
run 2 && [ ! -s "$tmp/out" ] && grep -q '^usage: vmtrace <command>' "$tmp/err" ||
	fail "vmtrace with no command"
run 2 no-such-command && grep -q "unknown command 'no-such-command'" "$tmp/err" ||
	fail "vmtrace no-such-command"

for c in "${commands[@]}"; do
	ok=1
	for h in --help -h; do
		if ! run 0 "$c" "$h"; then
			ok=0
		elif ! head -1 "$tmp/out" | grep -q "^usage: vmtrace $c\\b" || [ -s "$tmp/err" ]; then
			fail "vmtrace $c $h: not its usage on stdout alone"
			ok=0
		fi
	done
	cp "$tmp/out" "$tmp/usage"
	if ! run 2 "$c" --no-such-option; then
		ok=0
	elif [ -s "$tmp/out" ] ||
		! diff -q "$tmp/usage" <(grep -Ev "^$c: (unrecognized|invalid) option" "$tmp/err") >/dev/null; then
		fail "vmtrace $c --no-such-option: not its usage on stderr alone"
		ok=0
	fi
	[ $ok -eq 0 ] || passed=$((passed + 1))
done
echo "cli: ${#commands[@]} commands, $passed answer --help, -h and a bad option as they should, $failed failures"
[ $failed -eq 0 ]
