#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fault-cost.sh [RUNS [WORKLOAD-RUNS]]: the guest side of `make bench`, all
# in one boot. Prints "KEY VALUE" lines; times are in seconds, the median of
# RUNS (5) runs, or of WORKLOAD-RUNS (3) for the real workloads:
# - fault-*: the same stream of 50,000 first-touch faults (vmt-fault-loop,
#   THP off) untraced, counted by BPF (vmtrace faults), recorded by perf
#   (exceptions:page_fault_user) and traced by vmtrace (record-raw, record);
#   -events and -records: what the tracer wrote (one run), -lost: what it
#   lost (all runs);
# - python3-*, sqlite3-*: two small real workloads, untraced and under
#   vmtrace record-raw --protect --follow with enabled sets of 512, 64 and 0
#   pages, and at 512 with the introspection events of -e all;
# - ring-*: the ring's write path (tests/kmod/vmt_bench_ring.c).
set -euo pipefail
cd /tmp
insmod /opt/vmtrace/lib/vmtrace.ko
echo never >/sys/kernel/mm/transparent_hugepage/enabled
RUNS=${1:-5}
WORKLOAD_RUNS=${2:-3}
PAGES=50000
echo "pages $PAGES"
echo "runs $RUNS"
echo "workload-runs $WORKLOAD_RUNS"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# run_once NAME CMD...: one run of CMD, which prints its own time as a line
# of its stdout holding just that number (a tracer may print other lines);
# the time goes to /tmp/NAME.times, stdout and stderr to /tmp/NAME.I.out and
# .err. A run that fails or takes over $RUN_LIMIT seconds is said on stderr
# and marks NAME failed ("over" when out of time): it is not run again. CMD
# may be an exported function.
RUN_LIMIT=90
run_once() {
	local name=$1 i=0
	shift
	[ -e "/tmp/$name.failed" ] && return 0
	[ -e "/tmp/$name.times" ] && i=$(wc -l <"/tmp/$name.times")
	local rc=0 pid
	timeout $RUN_LIMIT bash -c '"$@"' bash "$@" >"/tmp/$name.$i.out" 2>"/tmp/$name.$i.err" ||
		rc=$?
	if [ $rc -ne 0 ]; then
		echo "$name: run $i: exit status $rc (124: over ${RUN_LIMIT}s):" >&2
		tail -3 "/tmp/$name.$i.err" >&2
		[ $rc -eq 124 ] && echo over >"/tmp/$name.failed" || echo failed >"/tmp/$name.failed"
		# The command vmtrace started may outlive it: end it, by its pid.
		pid=$(sed -n 's/^vmtrace [a-z-]*: tracing command \([0-9]*\)$/\1/p' "/tmp/$name.$i.err")
		[ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null || true
		return 0
	fi
	grep -E '^[0-9]+\.[0-9]+$' "/tmp/$name.$i.out" | tail -1 >>"/tmp/$name.times"
}
# result NAME: "NAME SECONDS", the median of its runs, or "NAME failed" or
# "NAME over" (the limit, in "run-limit").
echo "run-limit $RUN_LIMIT"
result() {
	if [ -e "/tmp/$1.failed" ]; then
		echo "$1 $(cat "/tmp/$1.failed")"
	else
		echo "$1 $(median <"/tmp/$1.times")"
	fi
}
# vmtrace_counts NAME: "NAME-records R" (first run) and "NAME-lost L" (all
# runs) from the summary lines record-raw and record write to stderr.
vmtrace_counts() {
	local name=$1
	echo "$name-records $(sed -n 's/.*(\([0-9]*\) records.*/\1/p' "/tmp/$name.0.err" | tail -1)"
	echo "$name-lost $(cat /tmp/"$name".*.err | sed -n 's/.* \([0-9]*\) lost.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }')"
}

# ---- The same fault stream under each tracer ----------------------------
# perf gets a 4 MiB buffer (-m 1024 pages), as big as one of vmtrace's rings
# (65536 records of 64 bytes); each run's lost count is read from its file.
export PAGES
perf_run() {
	rm -f /tmp/perf.data
	perf record -q -m 1024 -e exceptions:page_fault_user -o /tmp/perf.data \
		-- vmt-fault-loop $PAGES || return
	perf report -i /tmp/perf.data --stats 2>/dev/null >>/tmp/perf.stats
}
export -f perf_run
# The configurations take turns, run after run, so that a change in the
# host's load (other VMs share its cores) falls on all of them alike.
: >/tmp/perf.stats
for ((i = 0; i < RUNS; i++)); do
	run_once fault-untraced vmt-fault-loop $PAGES
	run_once fault-bpf vmtrace faults -- vmt-fault-loop $PAGES
	run_once fault-perf perf_run
	run_once fault-vmtrace-raw vmtrace record-raw -o /tmp/b.raw -- vmt-fault-loop $PAGES
	run_once fault-vmtrace-record vmtrace record -o /tmp/b.vmt -- vmt-fault-loop $PAGES
done
result fault-untraced
result fault-bpf
echo "fault-bpf-events $(sed -n 's/^pid [0-9]*: \([0-9]*\) user page faults.*/\1/p' /tmp/fault-bpf.0.out)"
result fault-perf
# perf report --stats ends with the event's own section, "exceptions:
# page_fault_user stats:", whose SAMPLE and LOST_SAMPLES lines count the
# samples written and lost (the aggregated lines above it count records).
perf_stat() {
	awk -v k="$1" '/^exceptions:page_fault_user stats:/ { in_event = 1; next }
		/stats:$/ { in_event = 0 }
		in_event && $1 == k && $2 == "events:" { last = $3; sum += $3 }
		END { print (k == "SAMPLE" ? last : sum) + 0 }' /tmp/perf.stats
}
echo "fault-perf-events $(perf_stat SAMPLE)"
echo "fault-perf-lost $(perf_stat LOST_SAMPLES)"
result fault-vmtrace-raw
vmtrace_counts fault-vmtrace-raw
result fault-vmtrace-record
vmtrace_counts fault-vmtrace-record

# ---- Real workloads with protection ---------------------------------------
cat >work.py <<'PY'
import random, time
t = time.perf_counter()
random.seed(1)
d = {}
for i in range(20000):
    d[random.randrange(1 << 30)] = str(i) * 3
s = sorted(d.items())
total = sum(len(v) for _, v in s[::7])
print(f"{time.perf_counter() - t:.6f}")
PY
cat >work.sql <<'SQL'
.timer on
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000)
INSERT INTO t SELECT i, (i * 7919) % 10007, printf('row %d', i) FROM c;
CREATE INDEX tk ON t(k);
SELECT count(*), sum(length(v)) FROM t WHERE k BETWEEN 100 AND 5000;
SELECT k, count(*) FROM t GROUP BY k ORDER BY 2 DESC LIMIT 3;
SQL
# The statements' own time, summed from sqlite3's timer.
sql() { sqlite3 :memory: <work.sql | awk '/^Run Time:/ { s += $4 } END { printf "%.6f\n", s }'; }
export -f sql
# record-raw writes to /dev/null: at N = 0 a run makes millions of records,
# more than the guest's disk holds, and the cost measured is the tracer's.
for w in python3 sqlite3; do
	case $w in
	python3) cmd=(python3 work.py) ;;
	sqlite3) cmd=(bash -c sql) ;;
	esac
	for ((i = 0; i < WORKLOAD_RUNS; i++)); do
		run_once "$w-untraced" "${cmd[@]}"
		for n in 512 64 0; do
			run_once "$w-n$n" vmtrace record-raw --protect --follow -n $n \
				-o /dev/null -- "${cmd[@]}"
		done
		run_once "$w-n512-events" vmtrace record-raw -e all --protect --follow -n 512 \
			-o /dev/null -- "${cmd[@]}"
	done
	result "$w-untraced"
	for c in n512 n64 n0 n512-events; do
		result "$w-$c"
		vmtrace_counts "$w-$c"
	done
done
rm -f /tmp/b.raw /tmp/b.vmt /tmp/perf.data
rmmod vmtrace

# ---- The ring's write path ----------------------------------------------------
# One CPU writes, a kthread on the other drains (see the module's comment).
insmod /opt/vmtrace/lib/vmt_bench_ring.ko
rmmod vmt_bench_ring
dmesg | sed -n 's/.*vmt_bench_ring: \(paced\|free\): \([0-9]*\) records, \([0-9]*\) lost, \([0-9]*\) consumed, \(.*\)$/\1 \2 \3 \4 \5/p' |
	while read -r mode n lost consumed rest; do
		echo "ring-$mode-records $n"
		echo "ring-$mode-lost $lost"
		echo "ring-$mode-consumed $consumed"
		case $mode in
		paced)
			echo "ring-paced-write-rate $(sed -n 's/write path \([0-9]*\) records.*/\1/p' <<<"$rest")"
			echo "ring-paced-sustained-rate $(sed -n 's/.*sustained \([0-9]*\) records.*/\1/p' <<<"$rest")"
			;;
		free) echo "ring-free-rate ${rest%% *}" ;;
		esac
	done

# ---- The collector's drain rate --------------------------------------------------
# Two fault loops, one a CPU, as fast as they fault, all of it traced (-a)
# by vmtrace record into a compressed trace: records drained a second of
# wall time (the collector's start and finish included), and lost.
echo never >/sys/kernel/mm/transparent_hugepage/enabled
insmod /opt/vmtrace/lib/vmtrace.ko
t0=$(date +%s%N)
vmtrace record -a -o /tmp/drain.vmt -- sh -c \
	"taskset -c 0 vmt-fault-loop $PAGES & taskset -c 1 vmt-fault-loop $PAGES; wait" \
	>/dev/null 2>/tmp/drain.summary
t1=$(date +%s%N)
drained=$(sed -n 's/.*(\([0-9]*\) records,.*/\1/p' /tmp/drain.summary)
echo "drain-records $drained"
echo "drain-lost $(sed -n 's/.* \([0-9]*\) lost).*/\1/p' /tmp/drain.summary)"
echo "drain-seconds $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')"
echo "drain-rate $(awk -v n="$drained" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / ((b - a) / 1e9) }')"
rm -f /tmp/drain.vmt
rmmod vmtrace
