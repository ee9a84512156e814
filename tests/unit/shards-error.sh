#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/shards-error.sh VMTRACE VMT-SYNTH: `vmtrace mrc --sample-size N`
# (SHARDS with a fixed size) from the command line: bad values and
# combinations refused with a message and exit status 2; a sample no smaller
# than the footprint is the exact curve; and on `vmt-synth mixed 200000`
# (127,583 pages), --sample 0.01 and --sample-size 8192 within 0.01 of the
# exact miss ratio on average over the exact curve's sizes of 100 pages or
# more (docs/analysis/mrc-reuse.md has the numbers: 0.0017 and 0.0031;
# VERBOSE=1 prints them).
set -uo pipefail
bin=$1
synth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "shards-error: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

"$synth" mixed 200000 >"$tmp/m.raw" && "$bin" convert "$tmp/m.raw" -o "$tmp/m.vmt" >/dev/null 2>&1 ||
	{ echo "shards-error: FAIL: making the trace"; exit 1; }
rm -f "$tmp/m.raw"

# refuse ARGS... WORDS: exit status 2 and WORDS in the message.
refuse() {
	local words=${*: -1} out status
	out=$("$bin" mrc "${@:1:$#-1}" "$tmp/m.vmt" 2>&1 >/dev/null)
	status=$?
	if [ "$status" -eq 2 ] && grep -q -- "$words" <<<"$out"; then ok; else
		fail "mrc ${*:1:$#-1}: status $status, '$out' (wanted 2 and '$words')"; fi
}
refuse --sample-size 0 "bad --sample-size '0'"
refuse --sample-size abc "bad --sample-size 'abc'"
refuse --sample-size -5 "bad --sample-size '-5'"
refuse --sample-size 8k "bad --sample-size '8k'"
refuse --sample-size 2000000000 "bad --sample-size"
refuse --sample-size 100 --policy fifo,clock "--policy must include lru"
grep -q -- '--sample-size N' <<<"$("$bin" mrc --help)" && ok || fail "--help: no --sample-size line"

# csv SIZES ARGS...: "size faults references" lines.
csv() { local sizes=$1; shift; "$bin" mrc --csv "$@" --sizes "$sizes" "$tmp/m.vmt" | awk -F, 'NR > 1 { print $2, $4, $3 }'; }
"$bin" mrc --csv "$tmp/m.vmt" | awk -F, 'NR > 1 { print $2, $4, $3 }' >"$tmp/exact"
sizes=$(awk '{ printf "%s%s", s, $1; s = "," }' "$tmp/exact")
footprint=$(tail -1 "$tmp/exact" | cut -d' ' -f1)

# At least the footprint: rate 1 throughout, the exact faults at every size.
csv "$sizes" --sample-size "$footprint" >"$tmp/whole"
cmp -s "$tmp/exact" "$tmp/whole" && ok || fail "--sample-size $footprint: not the exact curve"
out=$("$bin" mrc --sample-size 8192 --sample 0.5 "$tmp/m.vmt")
grep -q '^# LRU sampled (SHARDS, fixed size): at most 8192 units, from a rate of 0.5' <<<"$out" &&
	grep -q 'estimated from the sample' <<<"$out" && ok || fail "no fixed-size header: $out"

for run in "--sample 0.01" "--sample-size 8192"; do
	# shellcheck disable=SC2086
	csv "$sizes" $run >"$tmp/sampled"
	mae=$(awk 'NR == FNR { e[$1] = $2; next }
		($1 in e) && $1 >= 100 { d = ($2 - e[$1]) / $3; s += d < 0 ? -d : d; n++ }
		END { printf "%.4f", n ? s / n : 1 }' "$tmp/exact" "$tmp/sampled")
	[ -n "${VERBOSE:-}" ] && echo "shards-error: $run: mean absolute error $mae"
	if awk -v m="$mae" 'BEGIN { exit !(m < 0.01) }'; then ok; else fail "$run: mean error $mae"; fi
done

echo "shards-error: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
