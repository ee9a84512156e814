#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/report.sh VMTRACE VMT-SYNTH: report's line from each analysis
# says what the analysis's own command says on the same trace (the commands
# are checked against brute force in test_analysis_*.c): LRU's faults at each
# size report names, the footprint, the median and mean reuse distance, the
# count of reuses. And report names no process without references in its
# table.
set -uo pipefail
bin=$1 synth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
check() {  # check WHAT GOT WANT
	if [ "$2" = "$3" ]; then
		passed=$((passed + 1))
	else
		echo "report: FAIL: $1: report says '$2', the analysis '$3'"
		failed=$((failed + 1))
	fi
}

"$synth" mixed 20000 1 >"$tmp/t.raw" &&
	# and a context switch of pid 999, which has no reference
	python3 -c 'import struct, sys; sys.stdout.buffer.write(struct.pack("<QIIHHI40x", 5, 999, 999, 6, 0, 0))' >>"$tmp/t.raw" &&
	"$bin" convert -o "$tmp/t.vmt" "$tmp/t.raw" >/dev/null 2>&1 ||
	{ echo "report: FAIL: cannot make the trace"; exit 1; }
"$bin" report "$tmp/t.vmt" >"$tmp/report" || { echo "report: FAIL: report failed"; exit 1; }
nums() { tr -d , | grep -Eo '[0-9]+(\.[0-9]+)?'; }

lru=$(grep '^  LRU faults:' "$tmp/report")
for size in $(sed 's/ pages/\n/g' <<<"$lru" | sed -n 's/.* at \([0-9]*\)$/\1/p'); do
	got=$(grep -Eo "[0-9,]+ at $size pages" <<<"$lru" | cut -d' ' -f1 | tr -d ,)
	want=$("$bin" mrc "$tmp/t.vmt" --policy lru --sizes "$size" --csv | awk -F, 'NR == 2 { print $4 }')
	check "LRU faults at $size pages" "$got" "$want"
done
check "footprint" "$(sed -n 's/.*; \([0-9,]*\) pages referenced$/\1/p' <<<"$lru" | tr -d ,)" \
	"$("$bin" reuse "$tmp/t.vmt" | sed -n 's/^all: .* references, \([0-9,]*\) units.*/\1/p' | tr -d ,)"
line=$(grep '^  reuse distance:' "$tmp/report" | nums | tr '\n' ' ')
want=$("$bin" reuse "$tmp/t.vmt" | grep -E '^all: |^reuse distance mean' | nums | tr '\n' ' ')
# report: median, mean, reuses; reuse: references, units, reuses, mean, median, max.
read -r median mean reuses <<<"$line"
read -r _ _ w_reuses w_mean w_median _ <<<"$want"
check "median reuse distance" "$median" "$w_median"
check "mean reuse distance" "$mean" "$(printf '%.1f' "$w_mean")"
check "reuses" "$reuses" "$w_reuses"

# pid 999 has records but no reference: counted, not listed.
if grep -Eq '^  999 ' "$tmp/report" ||
	! grep -q '^  and 1 processes without references (1 records)$' "$tmp/report"; then
	echo "report: FAIL: pid 999, without references, is listed or not counted"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi
echo "report: $passed checks passed, $failed failures"
[ "$failed" -eq 0 ]
