#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12 debug
# timeout: 1200
# Exact mode with threads, signals and ptrace: nothing missed.
# - vmt-exact-threads: 4 threads x 50,000 accesses to two shared exact
#   pages, with SIGUSR1 arriving all along (its handler stores to the pages
#   too): each thread's exact records are as many as the accesses it counted;
# - the same on a 2 MiB transparent huge page (stepped at PMD level);
# - vmt-exact-ptrace: a child single-stepped by ptrace (its parent) through
#   200 exact accesses: the parent sees as many traps as when it is not
#   traced, and the trace has the 200 accesses;
# - vmt-exact-tf, which sets its own trap flag: the same SIGTRAPs with exact
#   mode as without, and its 8 accesses in the trace.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
threads=4 accesses=50000
! debug_kernel || accesses=20000	# KASAN and lockdep: 3x slower

vmtrace record -r 262144 -o threads.vmt --exact 10000000000-10000002000 -- \
	/opt/vmtrace/bin/vmt-exact-threads $threads $accesses 1 >counts.txt 2>record.txt ||
	{ cat record.txt; fail "vmtrace record --exact of vmt-exact-threads"; }
cat record.txt counts.txt
grep -q ' 0 lost' record.txt || fail "records were lost"
vmtrace dump threads.vmt | awk '$2 == "exact" { sub("tid=", "", $5); n[$5]++ }
	END { for (t in n) print "tid " t " accesses " n[t] }' | sort >traced.txt
sort counts.txt >counted.txt
diff counted.txt traced.txt || fail "exact records per thread differ from the threads' own counts"
grep -q 'steps cancelled' record.txt || fail "no exact counters"
echo "threads: $(awk '{ s += $4 } END { print s }' counted.txt) accesses of $threads threads, each in the trace"

# A transparent huge page in the range: stepped at PMD level, every access logged.
echo madvise >/sys/kernel/mm/transparent_hugepage/enabled
VMT_EXACT_HUGE=1 vmtrace record -o huge.vmt --exact 10000000000-10000200000 -- \
	/opt/vmtrace/bin/vmt-exact-threads 2 5000 >huge-counts.txt 2>huge-record.txt ||
	{ cat huge-record.txt; fail "vmtrace record --exact of a huge page"; }
vmtrace dump huge.vmt | awk '$2 == "exact" { sub("tid=", "", $5); n[$5]++ }
	END { for (t in n) print "tid " t " accesses " n[t] }' | sort >huge-traced.txt
sort huge-counts.txt | diff - huge-traced.txt || fail "exact records of the huge page's accesses"
echo "huge page: $(awk '{ s += $4 } END { print s }' huge-counts.txt) accesses to a THP, each in the trace"

# ptrace: the traps a tracer sees, with and without exact mode.
steps_of() {
	local dir=$1 pid
	wait_for "the child to stop" test -e "$dir/ready"
	pid=$(cat "$dir/pid")
	echo "$pid"
}
mkdir -p plain traced
/opt/vmtrace/bin/vmt-exact-ptrace plain 200 >plain.out &
tracer=$!
steps_of plain >/dev/null
kill -USR1 $tracer
wait $tracer || fail "vmt-exact-ptrace, untraced"
/opt/vmtrace/bin/vmt-exact-ptrace traced 200 >traced.out &
tracer=$!
child=$(steps_of traced)
vmtrace record -q -o ptrace.vmt --exact 10000000000-10000001000 -p "$child" 2>ptrace-record.txt &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
kill -USR1 $tracer
wait $tracer || { cat ptrace-record.txt; fail "vmt-exact-ptrace, traced"; }
wait $rec || { cat ptrace-record.txt; fail "vmtrace record -p of the stepped child"; }
cat ptrace-record.txt
expect_eq "$(cat traced.out)" "$(cat plain.out)" "the tracer's single steps with exact mode"
expect_eq "$(vmtrace dump ptrace.vmt | grep -c ' exact ')" 200 "exact records of the stepped child"
echo "ptrace: $(cat plain.out) with and without exact mode; 200 exact records"

# A program that single-steps itself (its own trap flag): as many SIGTRAPs
# with exact mode as without, and its 8 accesses in the trace.
/opt/vmtrace/bin/vmt-exact-tf >tf-plain.out || fail "vmt-exact-tf, untraced"
vmtrace record -q -o tf.vmt --exact 10000000000-10000001000 -- /opt/vmtrace/bin/vmt-exact-tf \
	>tf-traced.out || fail "vmt-exact-tf, traced"
expect_eq "$(cat tf-traced.out)" "$(cat tf-plain.out)" "the program's own single steps with exact mode"
expect_eq "$(vmtrace dump tf.vmt | grep -c ' exact ')" 8 "exact records of the self-stepping program"
echo "own trap flag: $(cat tf-plain.out) with and without exact mode; 8 exact records"
