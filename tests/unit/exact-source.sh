#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/exact-source.sh VMTRACE: the analyses over exact accesses
# (--source exact, the default on a trace of exact records alone): mrc's
# LRU curve by lines and by pages of a din trace (tests/unit/exact-din.py)
# against python3's brute-force LRU stack over the same addresses, each
# access in its first byte's unit, and hmtt's SCR against its definition; --source faults on it and --source exact
# on a trace of references find nothing, and say which.
set -uo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "exact-source: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

"$here/exact-din.py" 4000 "$tmp/e.din"
"$bin" convert --from din "$tmp/e.din" -o "$tmp/e.vmt" >/dev/null 2>&1 || fail "convert din"

for unit in line page; do
	"$bin" mrc --csv --unit $unit "$tmp/e.vmt" >"$tmp/got.csv" 2>"$tmp/err" ||
		fail "mrc --unit $unit: $(cat "$tmp/err")"
	python3 - "$tmp/e.din" $unit "$tmp/got.csv" <<'PY' && ok || fail "mrc --unit $unit: not the brute-force curve"
import csv
import sys

din, unit, got = sys.argv[1], sys.argv[2], sys.argv[3]
shift = 6 if unit == 'line' else 12
stack, dist = [], []
for line in open(din):
    u = int(line.split()[1], 16) >> shift
    if u in stack:
        d = len(stack) - stack.index(u)     # 1: the most recent
        stack.remove(u)
    else:
        d = None
    stack.append(u)
    dist.append(d)
rows = [r for r in csv.DictReader(open(got)) if r['policy'] == 'lru']
assert rows, 'no rows'
for r in rows:
    size = int(r[unit + 's'])
    faults = sum(1 for d in dist if d is None or d > size)
    assert int(r['references']) == len(dist), (r, len(dist))
    assert int(r['faults']) == faults, (size, r['faults'], faults)
print('exact-source: %s: %d sizes, the brute-force faults at each' % (unit, len(rows)))
PY
done

# hmtt's SCR over the exact accesses (virtual: they have no frame) against
# its definition (docs/analysis/hmtt.md), brute force: j < k < i within a
# window of 32 whose pages step by one stride not 0 are all three covered.
"$bin" hmtt --csv --section scr "$tmp/e.vmt" >"$tmp/scr.csv" 2>"$tmp/err" || fail "hmtt: $(cat "$tmp/err")"
python3 - "$tmp/e.din" "$tmp/scr.csv" <<'PY' && ok || fail "hmtt's SCR: not the brute-force count"
import csv
import sys

a = [int(line.split()[1], 16) >> 12 for line in open(sys.argv[1])]
covered, w = set(), 32
for i in range(len(a)):
    for k in range(max(0, i - w + 1), i):
        for j in range(max(0, i - w + 1), k):
            if a[i] - a[k] == a[k] - a[j] != 0:
                covered.update((i, j, k))
# The first table (the others: SCR lost, strides).
rows = {r['space']: r for r in csv.DictReader(open(sys.argv[2]).read().split('\n\n')[0].splitlines())}
assert rows['virtual']['window'] == '32', rows
assert int(rows['virtual']['references']) == len(a), rows
assert int(rows['virtual']['covered']) == len(covered), (rows['virtual'], len(covered))
assert int(rows['physical']['references']) == 0, rows
print('exact-source: SCR: %d of %d accesses covered, as counted by brute force' % (len(covered), len(a)))
PY

# Per process, a process's first access reaches the analyses that read
# records (scr): one process's counts are all the processes' counts.
"$bin" hmtt --csv --section scr --per-process "$tmp/e.vmt" >"$tmp/pp.csv" 2>"$tmp/err"
[ "$(grep -c '^virtual,32,4000,' "$tmp/pp.csv")" = 2 ] && ok ||
	fail "hmtt --per-process: $(cat "$tmp/pp.csv" "$tmp/err")"
# An address of 2^48 or more does not fit a unit's key: left out, and said.
printf '0 1000\n0 4000000001000\n0 1000\n' >"$tmp/hi.din"
"$bin" convert --from din "$tmp/hi.din" -o "$tmp/hi.vmt" >/dev/null 2>&1 || fail "convert hi.din"
"$bin" mrc --unit line "$tmp/hi.vmt" >"$tmp/hi" 2>&1 &&
	grep -q '^# 1 exact accesses at 2^48 or above left out' "$tmp/hi" &&
	grep -q '^all: footprint 1 lines' "$tmp/hi" && ok || fail "2^48: $(cat "$tmp/hi")"

# Each source finds nothing where there is none of it, and says so.
if ! "$bin" mrc --source faults "$tmp/e.vmt" >/dev/null 2>"$tmp/err" &&
   grep -q "no references in the trace" "$tmp/err"; then ok; else fail "--source faults: $(cat "$tmp/err")"; fi
# vmt-synth lives beside vmtrace.
"$(dirname "$bin")/vmt-synth" mixed 2000 >"$tmp/m.raw" && "$bin" convert "$tmp/m.raw" -o "$tmp/m.vmt" >/dev/null 2>&1 ||
	fail "vmt-synth"
if ! "$bin" mrc --source exact "$tmp/m.vmt" >/dev/null 2>"$tmp/err" &&
   grep -q "no exact accesses in the trace" "$tmp/err"; then ok; else fail "--source exact: $(cat "$tmp/err")"; fi
"$bin" mrc --source fault "$tmp/m.vmt" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "'fault' is neither faults nor exact" "$tmp/err" && ok || fail "--source fault: $(cat "$tmp/err")"

echo "exact-source: $passed passed, $failed failed"
[ "$failed" = 0 ]
