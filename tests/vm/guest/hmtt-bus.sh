#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# The bus view of a real program (issue 35): vmt-loops' triad recorded in
# exact mode over its data, then `vmtrace cachesim --emit` (cachegrind's
# hierarchy): the emitted stream holds as many fills as cachesim counts
# last-level misses and as many write-backs as it counts the last level's
# write-backs, and `hmtt` reads it: SCR (lines) and DRAM over exactly those
# records, printed.
# (cachesim and hmtt are user space; 6.1 alone, for make check's time.)
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
vmtrace record -q -o e.vmt -e vma --exact 0x10000000000-0x10004000000 -- \
	/opt/vmtrace/bin/vmt-loops triad 16384 >/dev/null || fail "vmtrace record --exact of triad"
rmmod vmtrace
vmtrace cachesim --csv e.vmt >c.csv || fail "vmtrace cachesim"
# The last level's misses (column 5) and write-backs (13) in cachesim --csv.
misses=$(awk -F, '$2 == "LL" { print $5 }' c.csv)
writebacks=$(awk -F, '$2 == "LL" { print $13 }' c.csv)
[ -n "$misses" ] && [ "$misses" -gt 0 ] || fail "cachesim printed no LL misses: $(head -3 c.csv)"
vmtrace cachesim --emit bus.vmt e.vmt >/dev/null || fail "vmtrace cachesim --emit"
vmtrace dump --type exact bus.vmt >bus.txt
fills=$(grep -c ' bus=fill$' bus.txt)
wbs=$(grep -c ' bus=writeback$' bus.txt)
expect_eq "$fills" "$misses" "the bus view's fills against cachesim's LL misses"
expect_eq "$wbs" "$writebacks" "the bus view's write-backs against cachesim's LL write-backs"
expect_eq "$(wc -l <bus.txt)" $((fills + wbs)) "the bus view's records: fills and write-backs"

vmtrace hmtt --section scr,dram --unit line --csv bus.vmt >h.csv || fail "hmtt of the bus view"
# scr's first row (virtual, W = 32): references, covered, SCR; dram's accesses and hit%
read -r refs covered scr < <(awk -F, 'NR == 2 { print $3, $4, $5 }' h.csv)
read -r accesses hit_pct blp < <(awk -F, '$1 == "space" && $2 == "accesses" { getline
	print $2, $7, $11; exit }' h.csv)
expect_eq "$refs" $((fills + wbs)) "SCR's references: the bus view's records"
expect_eq "$accesses" $((fills + wbs)) "DRAM's accesses: the bus view's records"
awk -v s="$scr" -v h="$hit_pct" 'BEGIN { exit !(s > 0 && s <= 100 && h > 0 && h <= 100) }' ||
	fail "SCR $scr% or DRAM hits $hit_pct% out of (0, 100]"
echo "hmtt-bus: triad's $(grep -c . <(vmtrace dump --type exact e.vmt)) exact accesses:" \
	"$misses LL misses, $fills fills and $wbs write-backs on the bus;" \
	"SCR (lines, W = 32) $scr%, DRAM row hits $hit_pct%, bank parallelism $blp"
