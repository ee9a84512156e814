#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# timeout: 900
# Loop compression (vmtrace loops, issue 32) of exact traces recorded here:
# vmt-loops's kernels, traced with --exact over their data (a fixed
# address), each made a loop file:
# - lossless: the loop file's exact records are the trace's, field by field
#   and in order (times and values, which loops drops by default, aside),
#   every thread's: matmul with its rows split among 1, 2, 4 and 8 threads;
# - across threads: at 8 threads the descriptors (loop sets included) are at
#   most 1.5x those at 1, the workers' loops kept once as a loop set;
# - answers unchanged: cachesim --preset cachegrind prints the same rows;
# - loops --show names the loops' instructions by the program's mapping (the
#   VMA records of -e vma);
# - near-constant for regular loops: the descriptors of matmul, stencil and
#   triad grow at most 1.2x a doubling of N, while the accesses grow 2-8x;
# (Irregular traces, the pointer chase and sqlite3: loops-real.sh.)
# On 6.1 only, for make check's time (exact mode steps every access).
# loops.sh [SIZES [table]]: matmul's and stencil's N (default "4 8 16";
# docs/BENCHMARKS.md's table is of "32 64 128", run by hand with --mem 8192),
# triad's 64 times those; the threads at the middle size. "table" adds the
# columns of the same records raw (64 bytes each) and in the model codec
# (the loop file's exact records, exported raw and converted), and with
# --share, writes those raw records to /mnt/share/NAME.raw for xz -9 on the
# host (under TCG, xz -9 of N = 128's 272 MB would take most of an hour).
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
range=0x10000000000-0x10004000000
sizes=${1:-4 8 16}
table=${2:-}

# The exact records of a dump, without time and value.
exact_fields() { vmtrace dump --type exact "$1" | sed -E 's/^[0-9]+ //; s/ value=[^ ]*//'; }
printf '%-22s %9s %12s %12s %12s' kernel accesses "trace bytes" "loops bytes" descriptors
[ -z "$table" ] && echo || printf ' %12s %12s\n' "raw bytes" "model codec"

# one NAME ARGS...: vmt-loops ARGS traced and made a loop file, checked;
# prints its row and sets $desc to its descriptors' bytes.
one() {
	local name=$1 n
	shift
	vmtrace record -o "$name.vmt" -e vma --exact "$range" -- /opt/vmtrace/bin/vmt-loops "$@" \
		>"$name.out" 2>"$name.rec" || { cat "$name.rec"; fail "$name: record"; }
	grep -q '\[ exact: .* 0 missed' "$name.rec" && grep -q ', 0 lost' "$name.rec" ||
		{ cat "$name.rec"; fail "$name: accesses missed or records lost"; }
	vmtrace loops "$name.vmt" -o "$name.loops.vmt" >"$name.loops" 2>&1 ||
		{ cat "$name.loops"; fail "$name: vmtrace loops"; }
	exact_fields "$name.vmt" >"$name.want"
	exact_fields "$name.loops.vmt" >"$name.got"
	n=$(wc -l <"$name.want")
	[ "$n" -gt 0 ] || fail "$name: no exact record"
	cmp -s "$name.want" "$name.got" ||
		fail "$name: the loop file's exact records differ: $(diff "$name.want" "$name.got" | head -4)"
	rm "$name.want" "$name.got"	# N = 128's are 400 MB each
	cmp -s <(vmtrace cachesim --preset cachegrind "$name.vmt" | grep -v '^# vmtrace cachesim: ') \
		<(vmtrace cachesim --preset cachegrind "$name.loops.vmt" | grep -v '^# vmtrace cachesim: ') ||
		fail "$name: cachesim --preset cachegrind differs"
	desc=$(vmtrace info "$name.loops.vmt" |
		awk '$3 == "loops" || $3 == "loopset" { s += $5 } END { print s + 0 }')
	[ "$desc" -gt 0 ] || fail "$name: no loop descriptors"
	printf '%-22s %9d %12d %12d %12d' "$*" "$n" "$(stat -c %s "$name.vmt")" \
		"$(stat -c %s "$name.loops.vmt")" "$desc"
	[ -z "$table" ] && echo && return
	vmtrace export --format raw --type exact "$name.loops.vmt" -o "$name.raw"
	vmtrace convert "$name.raw" -o "$name.model.vmt" >"$name.conv" 2>&1 ||
		{ cat "$name.conv"; fail "$name: convert of its exact records"; }
	printf ' %12d %12d\n' "$(stat -c %s "$name.raw")" "$(stat -c %s "$name.model.vmt")"
	if mountpoint -q /mnt/share; then mv "$name.raw" /mnt/share/; else rm "$name.raw"; fi
}

# grows KERNEL SCALE: the kernel at each size, its descriptors at most 1.2x
# the last size's.
grows() {
	local k=$1 scale=$2 prev= n
	for n in $sizes; do
		one "$k-$n" "$k" $((n * scale))
		[ -z "$prev" ] || awk -v a="$prev" -v b="$desc" 'BEGIN { exit !(b <= 1.2 * a) }' ||
			fail "$k: descriptors grew from $prev to $desc bytes at N = $((n * scale))"
		prev=$desc
	done
}
grows matmul 1
# --show: the multiply's nest, its instructions in the program's mapping.
vmtrace loops --show "matmul-${sizes%% *}.loops.vmt" >show.txt 2>&1 &&
	grep -q "^ *loop x" show.txt && grep -q "ip 0x[0-9a-f]* (/opt/vmtrace/bin/vmt-loops+0x[0-9a-f]*) read 8" show.txt ||
	{ head -20 show.txt; fail "loops --show: no loop, or its instructions not placed in vmt-loops"; }
grows stencil 1
grows triad 64
# Threads at the middle size (the largest's 70,000 accesses take seconds a run).
n=$(awk '{ print $int((NF + 1) / 2) }' <<<"$sizes")
one "matmul-$n-1" matmul "$n" 1
one1=$desc
for t in 2 4 8; do
	one "matmul-$n-$t" matmul "$n" "$t"
	threads=$(vmtrace dump --type exact "matmul-$n-$t.vmt" | awk '{ print $5 }' | sort -u | wc -l)
	[ "$threads" -ge "$t" ] || fail "matmul $n on $t threads: exact records of $threads threads"
	grep -q "\[ vmtrace loops: $t threads in 1 loop set:" "matmul-$n-$t.loops" ||
		fail "matmul $n on $t threads: its workers are not one loop set: $(cat "matmul-$n-$t.loops")"
done
awk -v a="$one1" -v b="$desc" 'BEGIN { exit !(b <= 1.5 * a) }' ||
	fail "matmul $n: descriptors grew from $one1 bytes on 1 thread to $desc on 8"
rmmod vmtrace
echo "loops: ok"
