#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# timeout: 300
# PSnAP profiles (vmtrace profile, synth and compare, issue 33) of exact
# traces recorded here: vmt-loops's matmul, stencil, triad, nbody and chase
# (--exact over their data, a fixed address) and sqlite3 (loops-real.sh's
# statements, --exact '[heap]'), each profiled, a synthetic trace made of its
# profile (seed 1, as many accesses) and the two compared at PSnAP's ten
# cache hierarchies:
# - small: the profile at most 1% of the accesses as 64-byte records (raw)
#   and at most 1/50 of the recorded trace file;
# - accurate: per level (L1, L2, L3), the mean |B - A| of hit rates over the
#   hierarchies at most 1.0 point and the worst at most 3.5 (the issue's bar);
# - flat: triad at 2N (2x the accesses, "triad-2x") gives a profile at most
#   1.2x triad's at N.
# The real programs: xz (-0, of 3000 bytes, its dictionary in [heap]) is
# held to the size bar, and its L2 mean under 2 points (below); sqlite3 falls
# short of the size bar, and both may of the accuracy bar at L2 (xz came within
# it in six recordings of six): their rows say by how much (the lines "short:"), not as a
# failure, and docs/BENCHMARKS.md ("Profiles") and docs/analysis/profile.md
# ("What it loses") say why (L2's hit rates are over their few L1 misses,
# 0.3% to 1% of the accesses, and the synthetic traces have more, conflict
# misses mostly: where a data-indexed instruction's runs begin, and when
# instructions run, are what the profile does not keep; sqlite3 is a short
# run of much code, 35 accesses an instruction, whose profile of its
# instructions is no small share of its trace). Their
# profiles, synthesis and comparison must still run, and every other check
# hold.
# Printed, a row each: accesses; bytes of the recorded trace, of its accesses
# raw (64 each) and of the profile; the profile's share of raw and the trace
# over the profile; per level the mean and worst |B - A| (points). Then the
# flat ratio. The size and accuracy checks are all made and counted, and the
# test fails at the end if any did not hold (one run gives every row); a
# program whose record or vmtrace command fails is counted too, and skipped.
# On 6.1 only, for make check's time (exact mode steps every access).
# profile.sh [SIZES [keep]]: SIZES is matmul's N, stencil's N, triad's N,
# nbody's N, chase's N (3 rounds: its lines' reuse) and sqlite3's rows (0:
# no sqlite3) (default "40 64 4096 96 8192 0": 41,000 to 532,000 accesses a
# program, matmul's and stencil's data past a 32 KiB L1, the chase's 512 KiB
# past every L1 and as large as some L2s; about 50 s under TCG, sqlite3
# left to the docs' table, as loops-real.sh traces it in make check;
# scripts/bench-profile's: "64 128 16384 192 65536 200", 228,000 to 541,000
# accesses a program).
# keep: with --share, every recorded trace copied to /mnt/share/NAME.vmt.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
range=0x10000000000-0x10004000000
read -r n_matmul n_stencil n_triad n_nbody n_chase n_rows <<<"${1:-40 64 4096 96 8192 0}"
[ -n "$n_rows" ] || fail "SIZES: matmul's, stencil's, triad's, nbody's and chase's N and sqlite3's rows"
keep=
if [ "${2:-}" = keep ]; then
	if mountpoint -q /mnt/share && [ -w /mnt/share ]; then keep=1
	else echo "profile: keep: /mnt/share is not a writable share; the traces are not kept"; fi
fi
bad=0 short=
# bad KIND MESSAGE: a check of KIND (accuracy or size) that did not hold,
# counted; the test fails at the end; for a program allowed to fall short
# there ($short: "accuracy", or "accuracy size"), printed as "short:".
bad() {
	local kind=$1
	shift
	if [[ " $short " == *" $kind "* ]]; then echo "short: $*"; else broken "$*"; fi
}
# broken MESSAGE: a step that did not work, counted whatever the program.
broken() { echo "FAIL: $*" >&2; bad=$((bad + 1)); }

printf '%-10s %8s %9s %10s %8s %7s %6s %12s %12s %12s %5s\n' program accesses trace raw profile \
	"%raw" trace/p "L1 mean/max" "L2 mean/max" "L3 mean/max" time

# one NAME RANGE COMMAND...: COMMAND traced with --exact RANGE, profiled, a
# trace made of the profile and compared; its row printed, its checks made.
# Sets $prof to the profile's bytes (empty if a step failed).
one() {
	local name=$1 range=$2 n trace raw pct ratio lv mean worst at cols= t0=$SECONDS
	shift 2
	prof=
	vmtrace record -o "$name.vmt" -e vma --exact "$range" -- "$@" \
		>"$name.out" 2>"$name.rec" || { cat "$name.rec"; broken "$name: record: $*"; return 0; }
	grep -q '\[ exact: .* 0 missed' "$name.rec" && grep -q ', 0 lost' "$name.rec" ||
		{ cat "$name.rec"; broken "$name: accesses missed or records lost"; }
	[ -z "$keep" ] || cp "$name.vmt" "/mnt/share/$name.vmt"
	vmtrace profile "$name.vmt" -o "$name.prof" >"$name.profile" 2>&1 ||
		{ cat "$name.profile"; broken "$name: vmtrace profile $name.vmt -o $name.prof"; return 0; }
	vmtrace synth "$name.prof" -o "$name.syn.vmt" --seed 1 >"$name.synth" 2>&1 ||
		{ cat "$name.synth"; broken "$name: vmtrace synth $name.prof -o $name.syn.vmt --seed 1"; return 0; }
	vmtrace compare "$name.vmt" "$name.syn.vmt" >"$name.cmp" 2>&1 ||
		{ cat "$name.cmp"; broken "$name: vmtrace compare $name.vmt $name.syn.vmt"; return 0; }
	n=$(sed -n 's/.*wrote .*: \([0-9,]*\) exact accesses.*/\1/p' "$name.profile" | tr -d ,)
	[ -n "$n" ] && [ "$n" -gt 0 ] || { cat "$name.profile"; broken "$name: no exact access"; return 0; }
	trace=$(stat -c %s "$name.vmt")
	prof=$(stat -c %s "$name.prof")
	raw=$((n * 64))
	pct=$(awk -v p="$prof" -v r="$raw" 'BEGIN { printf "%.3f", 100 * p / r }')
	ratio=$(awk -v t="$trace" -v p="$prof" 'BEGIN { printf "%.0f", t / p }')
	# compare's closing block: "L1    mean   0.34  worst   0.39 (psnap6)".
	for lv in L1 L2 L3; do
		mean='' worst='' at=''
		read -r mean worst at < <(awk -v l="$lv" '$1 == l && $2 == "mean" { print $3, $5, $6 }' "$name.cmp") || true
		if [ -z "$mean" ]; then
			cols+=$(printf ' %12s' -)
			broken "$name: compare printed no $lv mean and worst"
			continue
		fi
		cols+=$(printf ' %5.2f / %5.2f' "$mean" "$worst")
		awk -v m="$mean" 'BEGIN { exit !(m <= 1.0) }' ||
			bad accuracy "$name: $lv: mean |B - A| $mean points, more than 1.0"
		awk -v w="$worst" 'BEGIN { exit !(w <= 3.5) }' ||
			bad accuracy "$name: $lv: worst |B - A| $worst points $at, more than 3.5"
	done
	printf '%-10s %8d %9d %10d %8d %7s %6s%s %4ds\n' "$name" "$n" "$trace" "$raw" "$prof" "$pct" \
		"$ratio" "$cols" $((SECONDS - t0))
	[ $((prof * 100)) -le "$raw" ] ||
		bad size "$name: the profile's $prof bytes are $pct% of the $raw raw, more than 1%"
	[ $((prof * 50)) -le "$trace" ] ||
		bad size "$name: the profile's $prof bytes are 1/$ratio of the trace's $trace, more than 1/50"
}

loops=/opt/vmtrace/bin/vmt-loops
one matmul $range $loops matmul "$n_matmul"
one stencil $range $loops stencil "$n_stencil"
one triad $range $loops triad "$n_triad"
flat=$prof
one nbody $range $loops nbody "$n_nbody"
one chase $range $loops chase "$n_chase" 3
# sqlite3 (loops-real.sh's): rows of pseudo-random keys, an index on them, a
# grouping sorted.
sql=$(sqlite3_workload $n_rows)
short="accuracy size"
[ "$n_rows" -eq 0 ] || one sqlite3 '[heap]' sqlite3 :memory: "$sql"
# xz: its match finder's and range coder's tables, malloc()ed in [heap] (a
# threshold past them keeps glibc from mmap()ing them apart).
head -c 3000 /opt/vmtrace/tests/vm/lib.sh >xz.in
short=accuracy
GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432 one xz '[heap]' xz -0 -c xz.in
short=
# Anchored runs (anchored() in profile_synth.c): with every run a stride from the last
# access, xz's L2 mean |B - A| came to 4.8 to 6.0 points (six recordings), its
# probability trees' and match finder's runs drifting off their lines; with them
# begun where their kind's last began, 0.48 to 0.91. Held under 2 here (a drift
# back fails it); the bar itself, 1.0, is bench-profile's to report.
m=$(awk '$1 == "L2" && $2 == "mean" { print $3 }' xz.cmp 2>/dev/null)
awk -v m="${m:-99}" 'BEGIN { exit !(m < 2.0) }' ||
	broken "xz: L2 mean |B - A| ${m:-not printed} points, 2.0 or more: its runs drift (anchored())"
[ "$n_rows" -eq 0 ] || grep -q "^$n_rows|" sqlite3.out ||
	{ cat sqlite3.out; broken "sqlite3: wrong answer"; }
# Flat: twice the run, hardly more profile.
one triad-2x $range $loops triad $((2 * n_triad))
if [ -n "$flat" ] && [ -n "$prof" ]; then
	ratio=$(awk -v a="$flat" -v b="$prof" 'BEGIN { printf "%.3f", b / a }')
	echo "flat: triad at N = $((2 * n_triad)) (2x the accesses): a profile of $prof bytes, ${ratio}x the $flat at N = $n_triad"
	awk -v r="$ratio" 'BEGIN { exit !(r <= 1.2) }' ||
		broken "flat: triad's profile grew ${ratio}x with twice the accesses (more than 1.2x)"
else
	broken "flat: no profile of triad at N or 2N"
fi
rmmod vmtrace
[ "$bad" -eq 0 ] || fail "$bad checks did not hold"
echo "profile: ok"
