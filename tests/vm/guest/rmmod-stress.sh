#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: own
# tcg single: 6.12 debug
# kernels: 6.1 6.12 debug
# The module removed while it traces, at varied moments, with both CPUs
# faulting: ROUNDS times (6; 3 on the debug kernel; `make fuzz` runs 200),
# load the module, trace two processes whose loops write and check 64 pages
# each (one pinned to each CPU) with protection and a small enabled set, and
# rmmod: before tracing starts, right after it started, after a random pause
# (0 to 300 ms) of faults, or while a stop runs. Every removal must succeed,
# the processes keep their data and run on, no page stays protected (after
# the rounds, a fresh session sees none of their faults), and the kernel logs
# no report (vm-run checks it). Unlike the other tests, the module is loaded
# and removed with the other CPU online (not lib.sh's on_one_cpu): that is
# the point. The kernels whose live code patching QEMU's multi-threaded TCG
# breaks run it under one TCG thread ('tcg single' above; docs/TESTING.md).
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
ROUNDS=${1:-6}
debug_kernel && [ $# -eq 0 ] && ROUNDS=3
echo never >/sys/kernel/mm/transparent_hugepage/enabled
[ "$(nproc)" -ge 2 ] || fail "needs two CPUs, has $(nproc)"

cat >loop.py <<'PY'
import mmap, os, sys
name, n = sys.argv[1], 64
m = mmap.mmap(-1, n * 4096)
for i in range(n):
    m[i * 4096 + 8] = i + 1
open(name + ".ready", "w").close()
while not os.path.exists("stop"):
    for i in range(n):
        if m[i * 4096 + 8] != i + 1:
            open(name + ".corrupt", "w").close()
        m[i * 4096 + 16] = (m[i * 4096 + 16] + 1) % 256
open(name + ".done", "w").close()
PY
rm -f stop ./*.ready ./*.corrupt ./*.done
taskset -c 0 python3 loop.py a &
a=$!
taskset -c 1 python3 loop.py b &
b=$!
wait_for "the loops" test -e a.ready -a -e b.ready

start_tracing() {
	echo "$a $b" >/sys/kernel/vmtrace/targets
	echo 1 >/sys/kernel/vmtrace/protect
	echo 8 >/sys/kernel/vmtrace/enabled_pages
	echo on >/sys/kernel/vmtrace/state
}
for i in $(seq "$ROUNDS"); do
	stopper=
	command insmod "$VMT_LIB/vmtrace.ko"
	case $((i % 4)) in
	0)	echo "$a $b" >/sys/kernel/vmtrace/targets ;;	# staged, never started
	1)	start_tracing ;;				# removed at once
	2)	start_tracing
		sleep "0.$(printf '%03d' $((RANDOM % 300)))" ;;
	3)	start_tracing
		wait_for "faults" at_least faults 1
		echo off >/sys/kernel/vmtrace/state &		# a stop under way
		stopper=$! ;;
	esac
	# A stop running in the background holds the module for a moment.
	until command rmmod vmtrace 2>/dev/null; do
		[ -e /sys/module/vmtrace ] || break
		sleep 0.01
	done
	[ -z "$stopper" ] || wait "$stopper" || true	# its write may meet the removal
	[ ! -e /sys/module/vmtrace ] || fail "round $i: the module is still loaded"
	kill -0 "$a" && kill -0 "$b" || fail "round $i: a loop died"
done
echo "$ROUNDS removals mid-trace with both CPUs faulting"

# No page left protected: a session that only logs faults sees none.
command insmod "$VMT_LIB/vmtrace.ko"
echo "$a $b" >/sys/kernel/vmtrace/targets
echo on >/sys/kernel/vmtrace/state
sleep 0.5
echo off >/sys/kernel/vmtrace/state
expect_eq "$(cat /sys/kernel/vmtrace/faults)" 0 "faults of the loops after the removals"
command rmmod vmtrace
touch stop
wait "$a" "$b" || fail "a loop failed"
[ -e a.done ] && [ -e b.done ] || fail "a loop did not finish"
[ ! -e a.corrupt ] && [ ! -e b.corrupt ] || fail "a loop saw different data"
echo "rmmod-stress: ok"
