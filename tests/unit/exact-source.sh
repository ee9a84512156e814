#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/exact-source.sh VMTRACE: the analyses over exact accesses
# (--source exact, the default on a trace of exact records alone): mrc's
# LRU curve by lines and by pages of a din trace (tests/unit/exact-din.py)
# against python3's brute-force LRU stack over the same addresses, each
# access in its first byte's unit; --source faults on it and --source exact
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
