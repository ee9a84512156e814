#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/analysis-cli.sh VMTRACE: mrc and reuse from the command line,
# on traces made here (raw records through `vmtrace convert`):
# - a loop over 4 pages, 3 times: LRU faults 12 below 4 pages and 4 at 4 or
#   more, in --csv's rows; reuse's distances all 3;
# - bad input says what is wrong and exits non-zero, without a crash: a
#   trace with no references, a filter that selects nothing, garbage or 0
#   in --sizes, an unknown --policy, a rate outside (0, 1], a bad --top.
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "analysis-cli: FAIL: $*"; failed=$((failed + 1)); }

# raw FILE TYPE:PID:PAGE...: 64-byte records, a microsecond apart.
raw() {
	local out=$1
	shift
	python3 - "$out" "$@" <<'PY'
import struct, sys
with open(sys.argv[1], 'wb') as f:
    for i, spec in enumerate(sys.argv[2:]):
        rtype, pid, page = (int(x) for x in spec.split(':'))
        hdr = struct.pack('<QIIHHI', 1000 * (i + 1), pid, pid, rtype, 0, 0)
        body = struct.pack('<QQQIBBBBII', page * 4096, 0, 0x400000, 4, 1, 0, 0, 0, 0, 0)
        f.write(hdr + body)
PY
}

# expect WANT_STATUS MESSAGE ARGS...: exit status and a line of stderr.
expect() {
	local want=$1 msg=$2 rc
	shift 2
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne "$want" ]; then
		fail "vmtrace $*: exit $rc, not $want"
	elif ! grep -q -- "$msg" "$tmp/err"; then
		fail "vmtrace $*: no '$msg' in: $(head -3 "$tmp/err")"
	elif [ $rc -ge 128 ]; then
		fail "vmtrace $*: killed by a signal"
	else
		passed=$((passed + 1))
	fi
}

refs=()
for round in 1 2 3; do for page in 0 1 2 3; do refs+=("2:7:$page"); done; done
raw "$tmp/loop.raw" "${refs[@]}"
raw "$tmp/none.raw" 6:7:0 1:0:0
for t in loop none; do
	"$bin" convert "$tmp/$t.raw" -o "$tmp/$t.vmt" >/dev/null 2>&1 || fail "convert $t"
done

if "$bin" mrc --csv --sizes 3,4,5 --policy lru,fifo,clock,opt "$tmp/loop.vmt" >"$tmp/out" 2>"$tmp/err"; then
	want="policy,pages,references,faults,miss_ratio
lru,3,12,12,1.000000
lru,4,12,4,0.333333
lru,5,12,4,0.333333
fifo,3,12,12,1.000000
fifo,4,12,4,0.333333
fifo,5,12,4,0.333333
clock,3,12,12,1.000000
clock,4,12,4,0.333333
clock,5,12,4,0.333333
opt,3,12,6,0.500000
opt,4,12,4,0.333333
opt,5,12,4,0.333333"
	# OPT, 3 pages: 0 1 2 3 fault (out goes 2), then 2 (out 1) and 1 (out 0): 6.
	if [ "$(cat "$tmp/out")" = "$want" ]; then passed=$((passed + 1)); else
		fail "mrc --csv on the loop:"; diff <(echo "$want") "$tmp/out"; fi
else
	fail "mrc --csv on the loop: $(cat "$tmp/err")"
fi
if "$bin" mrc "$tmp/loop.vmt" >"$tmp/out" 2>&1 &&
   grep -Eq '^lru +4 +12 +4 +0\.3333$' "$tmp/out"; then
	passed=$((passed + 1))
else
	fail "mrc's table on the loop: $(cat "$tmp/out")"
fi
if "$bin" reuse --csv "$tmp/loop.vmt" >"$tmp/out" 2>&1 &&
   grep -qx 'distance,3,3,8,100.0000,100.0000' "$tmp/out" &&
   grep -qx 'time,3,3,8,100.0000,100.0000' "$tmp/out"; then
	passed=$((passed + 1))
else
	fail "reuse --csv on the loop: $(cat "$tmp/out")"
fi

for c in mrc reuse; do
	expect 1 "no references in the trace" $c "$tmp/none.vmt"
	expect 1 "no references pass the filters" $c --pid 99 "$tmp/loop.vmt"
	expect 1 "" $c "$tmp/no-such-file.vmt"
done
expect 2 "bad size 'x'" mrc --sizes 4,x "$tmp/loop.vmt"
expect 2 "bad size '0'" mrc --sizes 0 "$tmp/loop.vmt"
expect 2 "no size" mrc --sizes , "$tmp/loop.vmt"
expect 2 "unknown policy 'lfu'" mrc --policy lru,lfu "$tmp/loop.vmt"
expect 2 "no policy" mrc --policy , "$tmp/loop.vmt"
for rate in 0 1.5 -0.1 abc; do
	expect 2 "bad rate '$rate'" mrc --sample "$rate" "$tmp/loop.vmt"
done
expect 2 "bad --top" reuse --top -1 "$tmp/loop.vmt"
expect 2 "neither .svg nor .png" mrc --plot "$tmp/x.pdf" "$tmp/loop.vmt"

echo "analysis-cli: $passed checks of mrc and reuse passed, $failed failures"
[ $failed -eq 0 ]
