#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/cachesim-threads.sh VMTRACE: `vmtrace cachesim -j N` (the
# hierarchies dealt out to N threads, accesses handed over in batches)
# prints what -j 1 prints, byte for byte (every CSV field of every row; the
# top instructions), for N = 2 in batches of 100 (600 batches: the groups
# dealt again by their times at the 8th, 256th and 512th), N = 3 in batches
# of 4096 and N = 8 in one, on a stream of 60,000 accesses by 40 threads of 8 processes, new ones
# arriving throughout, so that per-thread counts grow while a batch is in
# flight; markers, straddles, page-end splits, references): PSnAP's ten
# (five groups of hierarchies that follow one another's level 1), the same
# per thread, per process, and per marker phase with the top 5; and three
# hierarchies of two cores each (coherence, inclusive and exclusive levels:
# groups of one), per thread.
set -uo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "cachesim-threads: FAIL: $*"; failed=$((failed + 1)); }

python3 - >"$tmp/list" <<'PY'
import random
r = random.Random(7)
kinds = ['R', 'W', 'RW', 'X']
for i in range(60000):
    if i % 7000 == 6999:
        print('marker')
        continue
    t = r.randrange(min(40, 2 + i // 1500))
    who = 'pid=%d tid=%d cpu=%d' % (100 + t % 8, 1000 + t, r.randrange(4))
    base = (t % 8) << 32
    if r.random() < 0.3:
        addr = base + 0x10000 + r.randrange(64) * 64       # hot
    elif r.random() < 0.05:
        addr = base + r.randrange(1, 64) * 4096 - r.randrange(1, 8)  # page end
    else:
        addr = base + r.randrange(1 << 24)
    if r.random() < 0.02:
        print('ref %s 0x%x %s%s' % (r.choice('RWX'), addr, 'huge ' if r.random() < 0.3 else '', who))
    else:
        print('%s 0x%x %d %s' % (r.choice(kinds), addr, r.choice([1, 2, 4, 8, 16]), who))
PY
python3 "$here/cachesim/gen.py" list "$tmp/t.raw" <"$tmp/list" &&
	"$bin" convert "$tmp/t.raw" -o "$tmp/t.vmt" >/dev/null 2>&1 || {
	echo "cachesim-threads: FAIL: no trace"
	exit 1
}
cat >"$tmp/two.conf" <<'CONF'
hierarchy a
cache L1
  size 32k
  assoc 8
  line 64
cache L2
  size 256k
  assoc 8
  line 64
  sharing shared
  inclusion inclusive
hierarchy b
cache L1
  size 16k
  assoc 4
  line 64
  policy plru
cache L2
  size 1M
  assoc 16
  line 64
  policy srrip
  sharing shared
  inclusion exclusive
hierarchy c
cache L1
  size 32k
  assoc 8
  line 64
  policy random
  write through
cache L2
  size 512k
  assoc 8
  line 64
  policy fifo
CONF

same() {
	local what=$1 n
	shift
	"$bin" cachesim -j 1 "$@" "$tmp/t.vmt" >"$tmp/one" 2>&1 || { fail "$what: -j 1: $(head -3 "$tmp/one")"; return; }
	for n in "2 --batch 100" "3 --batch 4096" 8; do
		# shellcheck disable=SC2086
		"$bin" cachesim -j $n "$@" "$tmp/t.vmt" >"$tmp/many" 2>&1 ||
			{ fail "$what: -j $n: $(head -3 "$tmp/many")"; continue; }
		if cmp -s "$tmp/one" "$tmp/many"; then
			passed=$((passed + 1))
		else
			fail "$what: -j $n differs from -j 1: $(diff "$tmp/one" "$tmp/many" | head -4)"
		fi
	done
	echo "cachesim-threads: $what: $(wc -l <"$tmp/one") lines the same at -j 1, 2, 3, 8"
}
same "psnap" --preset psnap --csv
same "psnap per thread" --preset psnap --per-thread --csv
same "psnap per process" --preset psnap --per-process --csv
same "psnap by marker, top 5" --preset psnap --by-marker --top 5
same "two cores, three hierarchies" --config "$tmp/two.conf" --cores 2 --core-by thread --per-thread --csv
echo "cachesim-threads: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
