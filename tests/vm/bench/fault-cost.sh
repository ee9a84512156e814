#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# fault-cost.sh [--faults-only] [RUNS [WORKLOAD-RUNS [SLOW-RUNS]]]: the guest
# side of `make bench`, all in one boot (--faults-only: the fault stream
# alone). Prints "KEY VALUE" lines; times are in seconds, the median of RUNS
# (15) runs, or of WORKLOAD-RUNS (11) for the real workloads, SLOW-RUNS (3)
# for their configurations whose runs take seconds to minutes (N = 64, 0):
# - clocksource: the guest kernel's, which every timestamp of vmtrace's reads;
# - fault-*: the same stream of 100,000 first-touch faults (vmt-fault-loop,
#   THP off) untraced, counted by BPF (vmtrace faults), recorded by perf
#   (exceptions:page_fault_user) and traced by vmtrace (record-raw, record);
#   -events and -records: what the tracer wrote (one run), -lost: what it
#   lost (all runs);
# - python3-*, sqlite3-*: two small real workloads, untraced and under
#   vmtrace record-raw -p PID --protect with enabled sets of 512 (FIFO
#   and CLOCK) and 64 pages, and at 512 with the introspection events of
#   -e all; -small-*: a smaller input of each, untraced and at 512, 64 and
#   0 pages; -faults: the references of a traced run;
# - ring-*: the ring's write path (tests/kmod/vmt_bench_ring.c).
set -euo pipefail
faults_only=0
[ "${1:-}" != --faults-only ] || { faults_only=1; shift; }
cd /tmp
# insmod and rmmod of vmtrace.ko with one CPU online (see lib.sh).
. /opt/vmtrace/tests/vm/lib.sh
insmod /opt/vmtrace/lib/vmtrace.ko
echo never >/sys/kernel/mm/transparent_hugepage/enabled
echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
RUNS=${1:-15}
WORKLOAD_RUNS=${2:-11}
SLOW_RUNS=${3:-3}
PAGES=100000
echo "pages $PAGES"
echo "runs $RUNS"
echo "workload-runs $WORKLOAD_RUNS"
echo "workload-slow-runs $SLOW_RUNS"

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
# result NAME: "NAME SECONDS", the median of its runs, and "NAME-min" and
# "NAME-max", its fastest and slowest; or "NAME failed" or "NAME over" (the
# limit, in "run-limit").
echo "run-limit $RUN_LIMIT"
result() {
	if [ -e "/tmp/$1.failed" ]; then
		echo "$1 $(cat "/tmp/$1.failed")"
	else
		echo "$1 $(median <"/tmp/$1.times")"
		echo "$1-min $(sort -n "/tmp/$1.times" | head -1)"
		echo "$1-max $(sort -n "/tmp/$1.times" | tail -1)"
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
if [ $faults_only -eq 1 ]; then
	rm -f /tmp/b.raw /tmp/b.vmt /tmp/perf.data
	rmmod vmtrace
	exit 0
fi

# ---- Real workloads with protection ---------------------------------------
# Each workload starts, loads, and waits on its standard input (a pipe) before
# its timed part; the tracer attaches to it (-p, --protect) and it is let go.
# When the timed part is done it says "done" and waits again: the tracer
# stops, restoring every PTE, before the workload is let go to exit. So each
# configuration traces the timed part alone: at N = 0 python3's start and
# exit, untimed, make millions of faults, minutes under TCG.
cat >work.py <<'PY'
import random, sys, time
n = int(sys.argv[1])
sys.stdin.readline()
t = time.perf_counter()
random.seed(1)
d = {}
for i in range(n):
    d[random.randrange(1 << 30)] = str(i) * 3
s = sorted(d.items())
total = sum(len(v) for _, v in s[::7])
print(f"{time.perf_counter() - t:.6f}")
print("done", flush=True)
sys.stdin.readline()
PY
# work-ROWS.sql: the sqlite3 workload on a table of ROWS rows.
sql_work() {
	cat >"work-$1.sql" <<SQL
.timer on
CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $1)
INSERT INTO t SELECT i, (i * 7919) % 10007, printf('row %d', i) FROM c;
CREATE INDEX tk ON t(k);
SELECT count(*), sum(length(v)) FROM t WHERE k BETWEEN 100 AND 5000;
SELECT k, count(*) FROM t GROUP BY k ORDER BY 2 DESC LIMIT 3;
.timer off
.print done
SQL
}
# The sizes: python3's keys and sqlite3's rows. The small ones are the only
# ones run at N = 0, where every access to another page than the last faults:
# python3's 2,000 keys took 221 s there in a trial, so 20,000 would take
# over half an hour a run.
PY_FULL=20000 PY_SMALL=200 SQL_FULL=10000 SQL_SMALL=100
sql_work $SQL_FULL
sql_work $SQL_SMALL
# reading_stdin PID: the process is blocked in read(0, ...).
reading_stdin() { [[ "$(cat "/proc/$1/syscall" 2>/dev/null)" == "0 0x0 "* ]]; }
# workload W SIZE [OPTIONS...]: one run of workload W (python3 or sqlite3) at
# SIZE, traced by `vmtrace record-raw -p PID OPTIONS -o /dev/null` when
# OPTIONS are given; prints the time of the timed part (sqlite3's is the sum
# of its statements' times).
workload() {
	local w=$1 size=$2 pid rec=""
	shift 2
	rm -f /tmp/wl.go /tmp/wl.out
	mkfifo /tmp/wl.go
	# The feeder holds the FIFO open read-write from the start: each of its
	# reads waits for a line. (Opened anew for each read, a reopen could
	# still meet the first writer, read its end of file at once and leave
	# the second writer blocked for want of a reader: two runs hung so.)
	case $w in
	python3)
		{ exec 3<>/tmp/wl.go; read -r _ <&3; echo; read -r _ <&3; } |
			python3 work.py "$size" >/tmp/wl.out &
		;;
	sqlite3)
		# Line-buffered, so that "done" shows when it is printed.
		{ exec 3<>/tmp/wl.go; read -r _ <&3; cat "work-$size.sql"; read -r _ <&3; } |
			stdbuf -oL sqlite3 :memory: >/tmp/wl.out &
		;;
	esac
	pid=$!
	# run_once's time limit: stop the tracer (it restores the PTEs), end the workload.
	trap '[ -z "$rec" ] || kill -INT $rec; kill -KILL $pid; wait; exit 1' TERM
	until reading_stdin "$pid"; do sleep 0.01; done
	if [ $# -gt 0 ]; then
		vmtrace record-raw -p "$pid" "$@" -o /dev/null &
		rec=$!
		until grep -qx on /sys/kernel/vmtrace/state; do sleep 0.01; done
	fi
	echo >/tmp/wl.go
	until grep -qx done /tmp/wl.out; do sleep 0.01; done
	if [ -n "$rec" ]; then
		kill -INT "$rec"
		wait "$rec"
		# The references, faults on the target's pages, of the session.
		echo "vmtrace faults $(cat /sys/kernel/vmtrace/faults)" >&2
	fi
	echo >/tmp/wl.go
	wait "$pid"
	case $w in
	python3) grep -E '^[0-9]+\.[0-9]+$' /tmp/wl.out ;;
	sqlite3) awk '/^Run Time:/ { s += $4 } END { printf "%.6f\n", s }' /tmp/wl.out ;;
	esac
}
export -f workload reading_stdin
# The configurations: NAME-SUFFIX SIZE RUNS OPTIONS (none: untraced). A run
# at N = 512 takes a fraction of a second, and its ratio to untraced is the
# one with a target: they get the most runs.
configs() {
	local full=$1 small=$2 w=$WORKLOAD_RUNS s=$SLOW_RUNS
	echo "untraced $full $w"
	echo "n512 $full $w --protect -n 512"
	echo "n512-clock $full $w --protect -n 512 --policy clock"
	echo "n64 $full $s --protect -n 64"
	echo "n512-events $full $w -e all --protect -n 512"
	echo "small-untraced $small $w"
	echo "small-n512 $small $w --protect -n 512"
	echo "small-n512-clock $small $w --protect -n 512 --policy clock"
	echo "small-n64 $small $s --protect -n 64"
	echo "small-n0 $small $s --protect -n 0"
}
for w in python3 sqlite3; do
	case $w in
	python3) configs $PY_FULL $PY_SMALL >/tmp/configs ;;
	sqlite3) configs $SQL_FULL $SQL_SMALL >/tmp/configs ;;
	esac
	for ((i = 0; i < (WORKLOAD_RUNS > SLOW_RUNS ? WORKLOAD_RUNS : SLOW_RUNS); i++)); do
		while read -r c size runs opts; do
			[ "$i" -lt "$runs" ] || continue
			# shellcheck disable=SC2086 # the options are words
			run_once "$w-$c" workload "$w" "$size" $opts </dev/null
		done </tmp/configs
	done
	echo "$w-size $(awk '$1 == "untraced" { print $2 }' /tmp/configs)"
	echo "$w-small-size $(awk '$1 == "small-untraced" { print $2 }' /tmp/configs)"
	while read -r c _; do
		result "$w-$c"
		[[ $c == *untraced ]] || {
			vmtrace_counts "$w-$c"
			echo "$w-$c-faults $(sed -n 's/^vmtrace faults //p' "/tmp/$w-$c.0.err")"
		}
	done </tmp/configs
done
rm -f /tmp/b.raw /tmp/b.vmt /tmp/perf.data
rmmod vmtrace

# ---- The ring's write path ----------------------------------------------------
# One CPU writes, a kthread on the other drains (see the module's comment).
# Its writer and drainer need two CPUs; it switches no tracepoint.
command insmod /opt/vmtrace/lib/vmt_bench_ring.ko
command rmmod vmt_bench_ring
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
