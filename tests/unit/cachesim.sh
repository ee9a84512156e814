#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/cachesim.sh VMTRACE [SEED...]: `vmtrace cachesim` against an
# independent brute-force model written from docs/analysis/cachesim.md alone
# (tests/unit/cachesim/model.py; its answers to what the spec leaves open are
# tests/unit/cachesim/QUESTIONS.md):
# - hand-worked cases, each with a picture of the sets, asserted literally of
#   the model and field by field of the engine: LRU, FIFO, random, PLRU and
#   SRRIP victims, the three Cs, straddling and split accesses, write-back and
#   write-through traffic, inclusive and exclusive levels, the prefetcher, TLBs
#   with huge pages, the I/D split and MPKI, two cores' coherence, core by
#   thread, per-thread and per-marker rows, a config file's default name;
# - CACHESIM_SEEDS (default 40) random cases (tests/unit/cachesim/gen.py): a
#   stream of reads, writes, read-modify-writes and fetches of 0 to 16 bytes
#   over few lines (straddles, page-end splits, references with huge pages,
#   markers, three processes, four CPUs) and a configuration, by seed: --cache
#   and --tlb specs, or a config file of two or three hierarchies with every
#   policy, inclusion, write policy, prefetcher, sharing, I/D pairs,
#   non-power-of-two and fully associative sets, TLB levels, on 1, 2 or 4
#   cores by CPU or by thread, or a preset; all, per-thread, per-process or
#   per-marker rows; every CSV field of every row compared with the model's;
# - the spec's errors: status 2, the problem (and the config line) named on
#   stderr, nothing on stdout (geometry, policy, preset, key, value, a key
#   twice, words after a value, a wrong next, a line too long, a level
#   missing); a trace with no access: status 1.
# With SEED arguments, just those random cases, every difference shown;
# tests/unit/cachesim/shrink.py VMTRACE SEED cuts a failing one down to the
# few records and the hierarchy that still differ.
# CACHESIM_QUESTIONS=1 generates configurations QUESTIONS.md calls "avoided".
set -uo pipefail
bin=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
gen=$here/cachesim/gen.py
model=$here/cachesim/model.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
comparisons=0 failures=0 first=1

fail() {
	echo "cachesim: FAIL: $*"
	failures=$((failures + 1))
}

# The rerun of a random case, as one command.
rerun() {
	echo "    rerun: ${CACHESIM_QUESTIONS:+CACHESIM_QUESTIONS=1 }tests/unit/cachesim.sh $bin $1"
	echo "    smallest case: ${CACHESIM_QUESTIONS:+CACHESIM_QUESTIONS=1 }tests/unit/cachesim/shrink.py $bin $1"
}

# random SEED [verbose]: one random case, compared.
random_case() {
	local seed=$1 verbose=${2:-} d=$tmp/$1 args rows
	mkdir -p "$d"
	if ! args=$(python3 "$gen" case "$seed" "$d"); then
		fail "seed $seed: gen.py failed"
		return
	fi
	if ! "$bin" convert "$d/trace.raw" -o "$d/trace.vmt" >/dev/null 2>"$d/convert.err"; then
		fail "seed $seed: convert: $(head -3 "$d/convert.err")"
		return
	fi
	# shellcheck disable=SC2086 # the arguments are words
	"$bin" cachesim $args --csv "$d/trace.vmt" >"$d/engine.csv" 2>"$d/engine.err"
	local rc=$?
	# shellcheck disable=SC2086
	python3 "$model" $args --csv "$d/trace.raw" --out "$d/model.csv" \
		--compare "$d/engine.csv" >"$d/diff" 2>&1
	local mrc=$?
	rows=$(($(wc -l <"$d/model.csv" 2>/dev/null || echo 1) - 1))
	comparisons=$((comparisons + rows))
	if [ $rc -eq 0 ] && [ $mrc -eq 0 ]; then
		[ -n "$verbose" ] && echo "cachesim: seed $seed: $rows rows equal: $args"
		return
	fi
	failures=$((failures + 1))
	if [ $rc -ne 0 ]; then
		echo "cachesim: FAIL: seed $seed: vmtrace cachesim exited $rc: $(head -3 "$d/engine.err")"
	else
		echo "cachesim: FAIL: seed $seed: $(head -1 "$d/diff" | sed 's/^ *//')"
	fi
	echo "    vmtrace cachesim $args --csv TRACE"
	if [ -n "$first$verbose" ]; then
		[ $rc -eq 0 ] && tail -n +2 "$d/diff"
		if [ -f "$d/h.conf" ]; then
			echo "    $d/h.conf:"
			sed 's/^/      /' "$d/h.conf"
		fi
		first=
	fi
	rerun "$seed"
}

if [ $# -gt 0 ]; then
	for seed in "$@"; do
		random_case "$seed" verbose
	done
	echo "cachesim: $comparisons comparisons, $failures failures (files in $tmp, kept)"
	trap - EXIT
	[ $failures -eq 0 ]
	exit
fi

# hand NAME 'ARGS' 'WANT' <<RECORDS: the records (gen.py list's lines) of a
# worked case; the model must print WANT to the letter, the engine the same
# fields (rows matched by hierarchy and level, MPKI as a number).
hand() {
	local name=$1 args=$2 want=$3 d=$tmp/hand-$1
	mkdir -p "$d"
	python3 "$gen" list "$d/trace.raw" || { fail "$name: gen.py list"; return; }
	printf '%s\n' "$want" >"$d/want.csv"
	# shellcheck disable=SC2086
	python3 "$model" $args --csv "$d/trace.raw" >"$d/model.csv" 2>&1
	comparisons=$((comparisons + $(wc -l <"$d/want.csv") - 1))
	if ! cmp -s "$d/want.csv" "$d/model.csv"; then
		fail "$name: the model is not the hand's (model.py $args)"
		diff "$d/want.csv" "$d/model.csv" | sed 's/^/    /'
	fi
	if ! "$bin" convert "$d/trace.raw" -o "$d/trace.vmt" >/dev/null 2>"$d/err"; then
		fail "$name: convert: $(head -3 "$d/err")"
		return
	fi
	# shellcheck disable=SC2086
	if ! "$bin" cachesim $args --csv "$d/trace.vmt" >"$d/engine.csv" 2>"$d/err"; then
		fail "$name: vmtrace cachesim $args: exit $?: $(head -3 "$d/err")"
	elif ! python3 "$model" --diff "$d/want.csv" "$d/engine.csv" >"$d/diff"; then
		fail "$name: vmtrace cachesim $args --csv"
		sed 's/^/  /' "$d/diff"
	fi
}

H=hierarchy,level,accesses,hits,misses,miss_ratio,read_misses,write_misses,fetch_misses,compulsory,capacity,conflict,writebacks,writebacks_in,invalidations,back_invalidations,prefetches,mpki

# LRU, 2 sets x 2 ways of 16 bytes (set = line mod 2); the fully associative
# LRU yardstick holds 4 lines. Step: line(s) -> set 0 | set 1 (LRU first).
#  1 R 0x00   0    miss compulsory     [0]     |
#  2 R 0x20   2    miss compulsory     [0 2]   |
#  3 R 0x40   4    miss compulsory     [2 4]   |         0 out
#  4 R 0x00   0    miss conflict       [4 0]   |         FA: 0 2 4, 0 in it
#  5 R 0x10   1    miss compulsory     [4 0]   | [1]
#  6 R 0x08+16 0,1 hit                 [4 0]   | [1]
#  7 R 0x2c+8 2,3  miss: 2 conflict, 3 compulsory: conflict (the first)
#                                      [0 2]   | [1 3]   FA now 0 1 2 3
#  8 R 0x40   4    miss capacity       [2 4]   |         FA lost 4 at 7
#  9 W 0x00   0    miss capacity       [4 0*]  |         write: 0 dirty
# 10 R 0x60   6    miss compulsory     [0* 6]  |
# 11 R 0x20   2    miss capacity       [6 2]   |         0* out: a write-back
hand lru "--cache L1=64:2:16" "$H
custom,L1,11,1,10,0.909091,9,1,0,5,3,2,1,0,0,0,0," <<'EOF'
R 0x00
R 0x20
R 0x40
R 0x00
R 0x10
R 0x08 16
R 0x2c 8
R 0x40
W 0x00
R 0x60
R 0x20
EOF

# Write-backs: L1 2 sets x 1 way, L2 2 sets x 2 ways, 16-byte lines, LRU.
# 1 W 0: L1 miss, L2 write miss (Q5: dirty there too); L1 [0*].
# 2 R 0x20 (line 2, set 0): L1 and L2 miss; L1's 0* out: L1 writebacks 1,
#   L2 writebacks_in 1, 0 there already: dirty, no recency change; L2 [0* 2].
# 3 R 0x40 (4): L1 and L2 miss; L2's LRU is 0* (the write-back did not touch
#   it): L2 writebacks 1; L2 [2 4], L1 [4].
# 4 RW 0: L1 miss (capacity: 2 lines, FA has 2 4), L2 miss (conflict: FA of
#   4 has 0 2 4); L2 drops 2. A read-modify-write's miss is a read's.
hand writeback "--cache L1=32:1:16 --cache L2=64:2:16" "$H
custom,L1,4,0,4,1.000000,3,1,0,3,1,0,1,0,0,0,0,
custom,L2,4,0,4,1.000000,3,1,0,3,0,1,1,1,0,0,0," <<'EOF'
W 0
R 0x20
R 0x40
RW 0
EOF

# Tree PLRU, 1 set x 4 ways: nodes 0 (root), 1 (ways 0-1), 2 (ways 2-3).
# Lines 0 1 2 3 fill ways 0 1 2 3, bits end [0 0 0]; 0 hits: [1 1 0] (root
# and node 1 point right, away from way 0). 4 misses: root 1 -> node 2, bit
# 0 -> way 2: line 2 out (LRU would take line 1), bits [0 1 1]. 1 hits (LRU:
# a miss). 2 misses: [1 0 1] -> node 2 -> way 3: line 3 out; capacity (FA of
# 4: 1 4 0 3). 8 accesses, 6 misses (LRU: 7).
hand plru "--cache L1=64:4:16:plru" "$H
custom,L1,8,2,6,0.750000,6,0,0,5,1,0,0,0,0,0,0," <<'EOF'
R 0
R 0x10
R 0x20
R 0x30
R 0
R 0x40
R 0x10
R 0x20
EOF

# SRRIP, 1 set x 2 ways: 0 and 1 fill at RRPV 2; 0 hits: 0. 2 misses: no 3,
# all age: [1 3]: way 1 (line 1) out, 2 in at 2: [0:1 2:2]. 1 misses: [2 3]:
# line 2 out: [0:2 1:2]. 0 hits (LRU would have lost it). 4 misses of 6
# (LRU: 5); the fourth (line 1; FA of 2 holds 2 0) capacity.
hand srrip "--cache L1=32:2:16:srrip" "$H
custom,L1,6,2,4,0.666667,4,0,0,3,1,0,0,0,0,0,0," <<'EOF'
R 0
R 0x10
R 0
R 0x20
R 0x10
R 0
EOF

# SRRIP, a hit right after the fill: 0 fills at 2 and its hit makes it 0
# (the engine's "last line accessed" shortcut once skipped that); 1 fills at
# 2; 2 misses: [0 2] age to [1 3]: line 1 out; 0 hits. 2 hits (LRU: 2 too,
# SRRIP without the hit's 0: 1).
hand srrip-again "--cache L1=32:2:16:srrip" "$H
custom,L1,5,2,3,0.600000,3,0,0,3,0,0,0,0,0,0,0," <<'EOF'
R 0
R 0
R 0x10
R 0x20
R 0
EOF

# FIFO, 1 set x 2 ways: 0 1 fill; 0 hits (changes nothing); 2 takes way 0
# (filled first); 0 misses, a conflict miss of a fully associative cache: the
# FA LRU of 2 lines holds 2 0.
hand fifo "--cache L1=32:2:16:fifo" "$H
custom,L1,5,1,4,0.800000,4,0,0,3,0,1,0,0,0,0,0," <<'EOF'
R 0
R 0x10
R 0
R 0x20
R 0
EOF

# Random, 1 set x 2 ways, seed 1: splitmix64(1)'s first outputs mod 2 are
# 1 1 0 (0x910a2dec89025cc1...). Lines 0 1 fill; 2 takes way 1 (line 1 out);
# 1 takes way 1 (2 out), conflict (FA of 2: 2 1); 0 hits; 2 takes way 0,
# capacity (FA: 0 1).
hand random "--cache L1=32:2:16:random --seed 1" "$H
custom,L1,6,1,5,0.833333,5,0,0,3,1,1,0,0,0,0,0," <<'EOF'
R 0
R 0x10
R 0x20
R 0x10
R 0
R 0x20
EOF

# Two cores (by CPU), private L1 1 set x 2 ways, shared L2 1 set x 4 ways.
# 1 cpu0 R 0: L1 (core 0) and L2 miss. 2 cpu1 R 0: core 1's L1 miss
# (compulsory: that core never had it), L2 hit. 3 cpu0 W 0: core 1's copy
# invalidated (clean); core 0 hits, dirty. 4 cpu1 R 0: miss, conflict (core
# 1's FA still holds it), L2 hit. 5 cpu1 W 0: core 0's dirty copy
# invalidated and written back (L1 writebacks, L2 writebacks_in); core 1 hits.
cat >"$tmp/mc.conf" <<'EOF'
hierarchy mc
cache L1
  size 32
  assoc 2
  line 16
cache L2        # level 2, shared
  size 64
  assoc 4
  line 16
  sharing shared
EOF
hand cores "--config $tmp/mc.conf --cores 2" "$H
mc,L1,5,2,3,0.600000,3,0,0,2,0,1,1,0,2,0,0,
mc,L2,3,2,1,0.333333,1,0,0,1,0,0,0,1,0,0,0," <<'EOF'
R 0 cpu=0
R 0 cpu=1
W 0 cpu=0
R 0 cpu=1
W 0 cpu=1
EOF

# The same hierarchy by thread, all on CPU 0: threads 7 8 9 get cores 0 1 0.
# 1 t7 R 0: core 0 misses (L2 too). 2 t8: core 1 misses, L2 hits. 3 t9:
# core 0 hits. 4 t8 W 0: core 0's copy invalidated (counted for t8), core 1
# hits. 5 t7 R 0: core 0 misses (conflict), L2 hits. Per thread, each
# thread's own; thread 9 never reached L2.
hand thread "--config $tmp/mc.conf --cores 2 --core-by thread --per-thread" "tid,$H
all,mc,L1,5,2,3,0.600000,3,0,0,2,0,1,0,0,1,0,0,
all,mc,L2,3,2,1,0.333333,1,0,0,1,0,0,0,0,0,0,0,
7,mc,L1,2,0,2,1.000000,2,0,0,1,0,1,0,0,0,0,0,
7,mc,L2,2,1,1,0.500000,1,0,0,1,0,0,0,0,0,0,0,
8,mc,L1,2,1,1,0.500000,1,0,0,1,0,0,0,0,1,0,0,
8,mc,L2,1,1,0,0.000000,0,0,0,0,0,0,0,0,0,0,0,
9,mc,L1,1,1,0,0.000000,0,0,0,0,0,0,0,0,0,0,0,
9,mc,L2,0,0,0,0.000000,0,0,0,0,0,0,0,0,0,0,0," <<'EOF'
R 0 tid=7
R 0 tid=8
R 0 tid=9
W 0 tid=8
R 0 tid=7
EOF

# Inclusive L2 (1 set x 2 ways) over L1 (1 set x 2 ways), LRU.
# 1 R 0, 2 R 1: both miss everywhere. 3 R 0: L1 hit (L2 does not see it).
# 4 R 2: L2's LRU is 0: out of L2 and back-invalidated from L1; L1 fills 2
# in the way 0 left. 5 R 0: L1 miss (conflict), L2 miss (capacity); L2
# drops 1, back-invalidated again.
cat >"$tmp/incl.conf" <<'EOF'
hierarchy incl
cache L1
  size 32
  assoc 2
  line 16
cache L2
  size 32
  assoc 2
  line 16
  inclusion inclusive
EOF
hand inclusive "--config $tmp/incl.conf" "$H
incl,L1,5,1,4,0.800000,4,0,0,3,0,1,0,0,0,2,0,
incl,L2,4,0,4,1.000000,4,0,0,3,1,0,0,0,0,0,0," <<'EOF'
R 0
R 0x10
R 0
R 0x20
R 0
EOF

# Exclusive L2 (a victim cache, 1 set x 2 ways) behind L1 (1 set x 2 ways).
# 1-3 R 0 1 2: L1 and L2 miss, L2 fills nothing; L1's victim 0 goes to L2.
# 4 R 0: L2 hit, 0 leaves L2 for L1; L1's victim 1 into L2's empty way 0.
# 5 W 1: L2 hit, 1 moves in (dirty in L1); L1's victim 2 into L2: [1 2]->[2].
# 6 R 3: misses; L1's victim 0 into L2: [2 0]. 7 R 4: misses; L1's victim
# 1* is a write-back into L2, which drops its LRU, 2 (clean).
sed 's/^hierarchy incl$/hierarchy excl/; s/inclusive$/exclusive/' "$tmp/incl.conf" >"$tmp/excl.conf"
hand exclusive "--config $tmp/excl.conf" "$H
excl,L1,7,0,7,1.000000,6,1,0,5,2,0,1,0,0,0,0,
excl,L2,7,2,5,0.714286,5,0,0,5,0,0,0,1,0,0,0," <<'EOF'
R 0
R 0x10
R 0x20
R 0
W 0x10
R 0x30
R 0x40
EOF

# Next-line prefetcher, 2 sets x 2 ways: 0 misses, 1 prefetched; 1 hits;
# R 0x28+16 (lines 2 and 3): 2 misses and prefetches 3, so 3 hits (Q2); 3 hits.
printf 'hierarchy pf\ncache L1\n  size 64\n  assoc 2\n  line 16\n  prefetch next-line\n' >"$tmp/pf.conf"
hand prefetch "--config $tmp/pf.conf" "$H
pf,L1,4,2,2,0.500000,2,0,0,2,0,0,0,0,0,0,2," <<'EOF'
R 0
R 0x10
R 0x28 16
R 0x30
EOF

# Write-through L1 (2 sets x 1 way) over a write-back L2 (2 sets x 2 ways).
# 1 R 0: misses, both fill. 2 W 0: L1 hit, stays clean; the write goes on:
# L2 hit, dirty. 3 W 0x20: L1 miss, fills nothing; L2 miss, fills dirty.
# 4 R 0: L1 hit. 5 R 0x40: misses; L2 drops its LRU 0*: a write-back; L1
# drops 0, clean.
printf 'hierarchy wt\ncache L1\n  size 32\n  assoc 1\n  line 16\n  write through\ncache L2\n  size 64\n  assoc 2\n  line 16\n' >"$tmp/wt.conf"
hand writethrough "--config $tmp/wt.conf" "$H
wt,L1,5,2,3,0.600000,2,1,0,3,0,0,0,0,0,0,0,
wt,L2,4,1,3,0.750000,2,1,0,3,0,0,1,0,0,0,0," <<'EOF'
R 0
W 0
W 0x20
R 0
R 0x40
EOF

# The yardstick sees every demand line: write-through L1 of 1 set x 2 ways.
# 1 R 0 fills; 2 W 1 misses, fills nothing (the FA LRU of 2 lines: 1 0);
# 3 R 0 hits (FA: 0 1); 4 R 2 fills the empty way (FA: 2 0); 5 R 1 misses:
# capacity, the FA lost it at 4 (an engine that skips the yardstick on a hit
# of the last line it filled has FA 2 1 and says conflict).
printf 'hierarchy wt1\ncache L1\n  size 32\n  assoc 2\n  line 16\n  write through\n' >"$tmp/wt1.conf"
hand shadow "--config $tmp/wt1.conf" "$H
wt1,L1,5,1,4,0.800000,3,1,0,3,1,0,0,0,0,0,0," <<'EOF'
R 0
W 0x10
R 0
R 0x20
R 0x10
EOF

# Coherence through private levels (QUESTIONS.md Q9, open): two cores,
# private L1 and L2 (1 set x 2 ways each), shared L3 (1 set x 4 ways).
# 1 cpu0 W 0: misses everywhere, dirty in L1, L2 (Q5) and L3. 2 cpu1 W 0:
# core 0's L1 copy invalidated, dirty: written back to its L2 (writebacks_in),
# whose copy is invalidated next, dirty: written back to L3, one write-back
# for one line; then core 1 misses in L1 and L2 and hits in L3.
cat >"$tmp/mc3.conf" <<'EOF'
hierarchy mc3
cache L1
  size 32
  assoc 2
  line 16
cache L2
  size 32
  assoc 2
  line 16
cache L3
  size 64
  assoc 4
  line 16
EOF
hand coherence "--config $tmp/mc3.conf --cores 2" "$H
mc3,L1,2,0,2,1.000000,0,2,0,2,0,0,1,0,1,0,0,
mc3,L2,2,0,2,1.000000,0,2,0,2,0,0,1,1,1,0,0,
mc3,L3,2,1,1,0.500000,0,1,0,1,0,0,0,1,0,0,0," <<'EOF'
W 0 cpu=0
W 0 cpu=1
EOF

# Two hierarchies with the same L1 (2 sets x 1 way): the engine simulates it
# once and the second follows; the first has no L2. W 0 dirties line 0; R
# 0x20 (line 2, set 0) evicts it: a write-back, to memory in "one", to L2 in
# "two" (there already from the write's miss: marked dirty). "two"'s numbers
# are those it has alone.
printf 'hierarchy one\ncache L1\n  size 32\n  assoc 1\n  line 16\nhierarchy two\ncache L1\n  size 32\n  assoc 1\n  line 16\ncache L2\n  size 256\n  assoc 4\n  line 16\n' >"$tmp/follow.conf"
hand follower "--config $tmp/follow.conf" "$H
one,L1,2,0,2,1.000000,1,1,0,2,0,0,1,0,0,0,0,
two,L1,2,0,2,1.000000,1,1,0,2,0,0,1,0,0,0,0,
two,L2,2,0,2,1.000000,1,1,0,2,0,0,0,1,0,0,0," <<'EOF'
W 0
R 0x20
EOF

# A TLB of 2 sets x 1 way (set = page number mod 2); references of a byte.
# 2 MiB page 0x200 (set 0) misses, then hits; 4 KiB page 0x40001 (set 1)
# misses: another tag than the huge page that holds it; 2 MiB page 0x201 (set
# 1) takes its place; 0x40001 again: conflict (the FA of 2 holds it). The
# cache (2 sets x 2 ways) sees lines 0x4000000, 0x4000100, 0x4000100,
# 0x4020000, 0x4000100, all in set 0: three compulsory misses.
hand tlb "--cache L1=64:2:16 --tlb T1=2:1" "$H
custom,L1,5,2,3,0.600000,3,0,0,3,0,0,0,0,0,0,0,
custom,T1,5,1,4,0.800000,4,0,0,3,0,1,0,0,0,0,0," <<'EOF'
ref R 0x40000000 huge
ref R 0x40001000 huge
ref R 0x40001000
ref R 0x40200000 huge
ref R 0x40001000
EOF

# Page-end splits are one access: W 0xff8+16 is two records (0xff8+8,
# 0x1000+8), one write miss in lines 0xff and 0x100 and pages 0 and 1. A
# kernel access of size 0 counts one byte (line 0x200, page 2: the TLB of 1
# set x 2 ways drops page 1). R 0x1ffc+8, split: pages 1 (capacity) and 2,
# lines 0x1ff (compulsory) and 0x200.
hand split "--cache L1=64:2:16 --tlb T1=2:2" "$H
custom,L1,5,2,3,0.600000,2,1,0,3,0,0,0,0,0,0,0,
custom,T1,5,2,3,0.600000,2,1,0,2,1,0,0,0,0,0,0," <<'EOF'
W 0xff8 16
R 0x1000 4
R 0xff0 16
R 0x2000 0 kernel
R 0x1ffc 8
EOF

# Fetches split the unified L1 into L1I and L1D of its geometry each: the
# fetch and the read of 0x400000 miss in both halves; L2 hits the second
# time. MPKI: misses per 1,000 of the 2 fetches.
hand fetch "--cache L1=64:2:16 --cache L2=256:4:16" "$H
custom,L1I,2,1,1,0.500000,0,0,1,1,0,0,0,0,0,0,0,500.000000
custom,L1D,2,0,2,1.000000,2,0,0,2,0,0,0,0,0,0,0,1000.000000
custom,L2,3,1,2,0.666667,1,0,1,2,0,0,0,0,0,0,0,1000.000000" <<'EOF'
X 0x400000 4
R 0x400000 4
X 0x400004 4
R 0x10
EOF

# Phases: 0 before the first marker, then 1 and 2 (empty). The cache keeps
# its lines across markers: line 0 hits in phase 1.
hand marker "--cache L1=64:2:16 --by-marker" "phase,$H
0,custom,L1,1,0,1,1.000000,1,0,0,1,0,0,0,0,0,0,0,
1,custom,L1,2,1,1,0.500000,1,0,0,1,0,0,0,0,0,0,0,
2,custom,L1,0,0,0,0.000000,0,0,0,0,0,0,0,0,0,0,0," <<'EOF'
R 0
marker
R 0
R 0x20
marker
EOF

# A config file whose first block comes before any "hierarchy": named after
# the file (Q16); two processes never share a line.
printf 'cache C\n  size 64\n  assoc 2\n  line 16\n' >"$tmp/tiny.conf"
hand filename "--config $tmp/tiny.conf --per-process" "pid,$H
all,tiny,C,4,1,3,0.750000,3,0,0,3,0,0,0,0,0,0,0,
7,tiny,C,2,1,1,0.500000,1,0,0,1,0,0,0,0,0,0,0,
8,tiny,C,2,0,2,1.000000,2,0,0,2,0,0,0,0,0,0,0," <<'EOF'
R 0 pid=7
R 0 pid=8
R 0 pid=7
R 0x10 pid=8
EOF

# The spec's errors: status 2, the problem named, nothing on stdout.
printf 'R 0\n' | python3 "$gen" list "$tmp/one.raw"
"$bin" convert "$tmp/one.raw" -o "$tmp/one.vmt" >/dev/null 2>&1 || fail "convert one.raw"
printf 'marker\n' | python3 "$gen" list "$tmp/none.raw"
"$bin" convert "$tmp/none.raw" -o "$tmp/none.vmt" >/dev/null 2>&1 || fail "convert none.raw"

# expect STATUS REGEX ARGS...: the exit status, REGEX (grep -Ei) on stderr,
# and stdout empty for status 2.
expect() {
	local want=$1 re=$2 rc
	shift 2
	"$bin" cachesim "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	comparisons=$((comparisons + 1))
	if [ $rc -ne "$want" ]; then
		fail "vmtrace cachesim $*: exit $rc, not $want: $(head -2 "$tmp/err")"
	elif ! grep -Eiq -- "$re" "$tmp/err"; then
		fail "vmtrace cachesim $*: no /$re/ in: $(head -3 "$tmp/err")"
	elif [ "$want" -eq 2 ] && [ -s "$tmp/out" ]; then
		fail "vmtrace cachesim $*: stdout not empty: $(head -2 "$tmp/out")"
	fi
}
one=$tmp/one.vmt
expect 2 'set' --cache L1=64:8:16 "$one"                  # 64 < 8 ways x 16: no set
expect 2 'set' --cache L1=96:4:16 "$one"                  # 1.5 sets
expect 2 'line|larger' --cache L1=32:1:64 "$one"          # line larger than the cache
expect 2 'power of two' --cache L1=96:1:48 "$one"
expect 2 'plru' --cache L1=96:3:16:plru "$one"            # 3 ways
expect 2 'lfu' --cache L1=64:2:16:lfu "$one"              # unknown policy
expect 2 'lfu' --tlb T=4:2:lfu "$one"
expect 2 'nosuch' --preset nosuch "$one"
expect 2 'set' --tlb T=6:4 "$one"                         # 1.5 sets of TLB entries
expect 2 'set' --cache L1=64:2:16 --cache L2=64:16:16 "$one"
conf_error() { # LINE REGEX 'TEXT': a config file whose error is on LINE (Q32)
	printf '%s\n' "$3" >"$tmp/bad.conf"
	expect 2 "bad\\.conf:$1:.*($2)" --config "$tmp/bad.conf" "$one"
}
conf_error 7 'power of two' $'hierarchy h\n# a comment\n\ncache L1\n  size 32k\n  assoc 8\n  line 96'
conf_error 3 'bogus' $'hierarchy h\ncache L1\n  bogus 1\n  size 64\n  assoc 2\n  line 16'
conf_error 5 'polic|lfu' $'hierarchy h\ncache L1\n  size 64\n  assoc 2\n  policy lfu\n  line 16'
conf_error '[2-4]' 'set' $'hierarchy h\ncache L1\n  size 96\n  assoc 4   # 1.5 sets\n  line 16'
conf_error '[2-6]' 'plru' $'hierarchy h\ncache L1\n  size 96\n  assoc 3\n  line 16\n  policy plru'
conf_error "(2|5)" 'size|required|missing' $'hierarchy h\ncache L1\n  assoc 2\n  line 16\ncache L2\n  size 1k\n  assoc 2\n  line 16'
conf_error 4 'twice' $'hierarchy h\ncache L1\n  size 64\n  size 128\n  assoc 2\n  line 16'
conf_error 3 'extra' $'hierarchy h\ncache L1\n  size 64 extra\n  assoc 2\n  line 16'
conf_error 6 'sideways' $'hierarchy h\ncache L1\n  size 64\n  assoc 2\n  line 16\n  write sideways'
conf_error 6 'L3' $'hierarchy h\ncache L1\n  size 64\n  assoc 2\n  line 16\n  next L3\ncache L2\n  size 1k\n  assoc 2\n  line 16'
conf_error 2 '1024|long' "$(printf 'hierarchy h\n# %01100d\ncache L1\n  size 64\n  assoc 2\n  line 16' 0)"
expect 2 'level' --config <(printf 'hierarchy h\ncache L1\n size 64\n assoc 2\n line 16\ncache L3\n size 1k\n assoc 2\n line 16\n level 3\n') "$one"
expect 1 'no exact record and no reference in the trace' --cache L1=64:2:16 "$tmp/none.vmt"
expect 1 'none passed the filters' --cache L1=64:2:16 --pid 99999 "$tmp/one.vmt"
expect 1 'none passed the filters' --cache L1=64:2:16 --addr 0x5000-0x6000 "$tmp/one.vmt"

# The random cases.
seeds=${CACHESIM_SEEDS:-40}
for seed in $(seq 1 "$seeds"); do
	random_case "$seed"
done

echo "cachesim: $comparisons comparisons, $failures failures"
[ $failures -eq 0 ]
