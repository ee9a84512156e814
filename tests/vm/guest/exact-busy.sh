#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# timeout: 900
# Exact mode when a page table's lock is busy: the trap and the scheduler's
# probe only try it (kernel/exact/exact.c, "Locks"). Real contention is too
# rare to test, so the kernel's fault injection makes a quarter of the
# module's tries fail (/sys/kernel/debug/fail_vmtrace_ptl, an injection
# budget whose use is read back). The trap then protects the pages from a
# task_work, the scheduler leaves them present, and a thread of the process
# switched in meanwhile has them covered first (an irq_work that tries
# again). Nothing may be missed:
# - vmt-exact-threads, one worker: as many exact records as it counted;
# - 4 workers with signals arriving all along: each thread's exact records
#   as many as it counted (exact-threads.sh's check), no unsafe switch;
# - 2 workers on a transparent huge page (stepped at PMD level, under the
#   PMD's lock): the same.
# Then every try fails: the irq_work gives up after its 1,000 rounds, each
# time counted as an unsafe switch (a page of a switched-out step left
# present while another thread of the process runs). 2 workers with
# signals: the kernel unharmed (KASAN, lockdep), no record lost, unsafe
# switches counted (what may be missed is then said), each thread with
# exact records, none with more than the accesses it counted.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
D=/sys/kernel/debug
mountpoint -q $D || mount -t debugfs nodev $D
insmod "$VMT_LIB/vmtrace.ko"
F=$D/fail_vmtrace_ptl
[ -d $F ] || fail "no $F: the module's fault-injection point"
budget=100000000
echo 0 >$F/verbose
echo 25 >$F/probability

# record NAME RANGE WORKERS ACCESSES [SIGNALS]: vmt-exact-threads recorded
# under injection, no record lost; its own counts in NAME-counts.txt, its
# exact records per thread in NAME-traced.txt (both by tid), the busy locks
# injected in $injected.
record() {
	local name=$1 range=$2
	shift 2
	echo $budget >$F/times
	vmtrace record -r 262144 -o "$name.vmt" --exact "$range" -- \
		/opt/vmtrace/bin/vmt-exact-threads "$1" "$2" ${3:+"$3"} >"$name-counts.txt" \
		2>"$name-record.txt" || { cat "$name-record.txt"; fail "$name: vmtrace record --exact"; }
	injected=$((budget - $(cat $F/times)))
	cat "$name-record.txt"
	echo "$name: busy locks injected: $injected"
	grep -q ' 0 lost' "$name-record.txt" || fail "$name: records were lost"
	sort -k2,2 -o "$name-counts.txt" "$name-counts.txt"
	vmtrace dump "$name.vmt" | awk '$2 == "exact" { sub("tid=", "", $5); n[$5]++ }
		END { for (t in n) print "tid " t " accesses " n[t] }' | sort -k2,2 >"$name-traced.txt"
}

# run NAME RANGE WORKERS ACCESSES [SIGNALS]: record, and every access traced,
# thread by thread, and the counters all 0.
run() {
	local name=$1
	record "$@"
	[ "$injected" -gt 0 ] || fail "$name: no busy lock was injected"
	diff "$name-counts.txt" "$name-traced.txt" ||
		fail "$name: exact records per thread differ from the threads' own counts"
	grep -q '\[ exact: .* 0 missed, 0 unpinned, 0 unsafe switches' "$name-record.txt" ||
		fail "$name: exact mode's counters: $(grep -m1 '\[ exact:' "$name-record.txt")"
	echo "$name: $(awk '{ s += $4 } END { print s }' "$name-counts.txt") accesses, each in the trace, with $injected busy locks"
}

run one 10000000000-10000002000 1 10000
run four 10000000000-10000002000 4 10000 1
echo madvise >/sys/kernel/mm/transparent_hugepage/enabled
VMT_EXACT_HUGE=1 run huge 10000000000-10000200000 2 5000

# Every try failing, for the first 100,000 tries: the give-up, counted (49
# switches given up in one run), then the run goes on as before. Unbounded, the
# threads crawl: each switch of one spins 1,000 rounds while the other is
# exposed (2,000 accesses took 3 s in one run, 460 s and 39,781 unsafe
# switches in another, on a slower host).
echo 100 >$F/probability
budget=100000 record all 10000000000-10000002000 2 1000 1
echo 0 >$F/probability
unsafe=$(sed -n 's/.*\[ exact: .* \([0-9][0-9]*\) unsafe switches.*/\1/p' all-record.txt)
[ -n "$unsafe" ] || fail "all: no counters: $(grep -m1 '\[ exact:' all-record.txt)"
[ "$unsafe" -gt 0 ] || fail "all: every lock try failed, and no switch was counted unsafe"
join -j 2 -o 1.2,1.4,2.4 all-counts.txt all-traced.txt >all-both.txt
[ "$(wc -l <all-both.txt)" -eq "$(wc -l <all-counts.txt)" ] ||
	{ cat all-counts.txt all-traced.txt; fail "all: a thread with no exact record"; }
while read -r tid counted traced; do
	echo "all: thread $tid: $traced of its $counted accesses traced"
	[ "$traced" -le "$counted" ] || fail "all: thread $tid has more exact records than accesses"
done <all-both.txt
echo "all: $unsafe unsafe switches counted, with every lock try failing"
