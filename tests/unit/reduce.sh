#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/reduce.sh VMTRACE SYNTH: `vmtrace reduce` on a synthetic trace
# (vmt-synth, converted): the reduced trace opens with info, dump and stats,
# says what it is; bad input gets a message and a non-zero exit.
set -uo pipefail
bin=$1 synth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "reduce: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

"$synth" mixed 20000 >"$tmp/raw" && "$bin" convert "$tmp/raw" -o "$tmp/t.vmt" >/dev/null 2>&1 ||
	{ echo "reduce: FAIL: no input trace"; exit 1; }
"$bin" info "$tmp/t.vmt" | grep -qx 'session: settings not recorded (a converted or older trace)' && ok ||
	fail "info of a converted trace: no 'settings not recorded' line"

for pp in "" --per-process; do
	if "$bin" reduce --sad 64 $pp "$tmp/t.vmt" -o "$tmp/r.vmt" >"$tmp/out" 2>"$tmp/err" &&
	   grep -q 'references kept, reduction ratio [0-9.]*x' "$tmp/out" &&
	   grep -q '^# settings not recorded (a converted or older trace)' "$tmp/out"; then ok
	else fail "reduce --sad 64 $pp: $(cat "$tmp/err" "$tmp/out")"; fi
	"$bin" info "$tmp/r.vmt" | grep -q "^reduction: SAD-reduced with R=64${pp:+ (per process)}:" &&
		ok || fail "info $pp: no reduction line"
	"$bin" dump "$tmp/r.vmt" >"$tmp/dump" 2>&1 && [ -s "$tmp/dump" ] && ok || fail "dump $pp"
	"$bin" stats "$tmp/r.vmt" >/dev/null 2>&1 && ok || fail "stats $pp"
	"$bin" verify "$tmp/r.vmt" >/dev/null 2>&1 && ok || fail "verify $pp"
done

# bad input: WANT_STATUS PATTERN ARGS...
bad() {
	local want=$1 pattern=$2 rc
	shift 2
	"$bin" reduce "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq "$want" ] && grep -q -- "$pattern" "$tmp/err"; then ok
	else fail "reduce $*: exit $rc (want $want), stderr: $(cat "$tmp/err")"; fi
}
bad 2 "bad R" --sad 0 "$tmp/t.vmt" -o "$tmp/x.vmt"
bad 2 "bad R" --sad 12abc "$tmp/t.vmt" -o "$tmp/x.vmt"
bad 2 "say where: -o OUT" --sad 8 "$tmp/t.vmt"
bad 2 "say how: --sad R" "$tmp/t.vmt" -o "$tmp/x.vmt"
bad 1 "is the input itself" --sad 8 "$tmp/t.vmt" -o "$tmp/t.vmt"
bad 1 "no references pass the filters" --sad 8 --pid 4242424 "$tmp/t.vmt" -o "$tmp/x.vmt"
[ ! -e "$tmp/x.vmt" ] && ok || fail "a failed reduction left its output behind"
head -c 1000 /dev/urandom >"$tmp/garbage"
bad 1 "" --sad 8 "$tmp/garbage" -o "$tmp/x.vmt"
bad 1 "" --sad 8 "$tmp/missing.vmt" -o "$tmp/x.vmt"
"$bin" info "$tmp/t.vmt" | grep -q '^records: ' && ok || fail "the input survived"

echo "reduce: $passed passed, $failed failed"
[ $failed -eq 0 ]
