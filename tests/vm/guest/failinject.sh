#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: debug
# timeout: 1500
# Allocations that fail: the kernel's fault injection (failslab and
# fail_page_alloc, sleeping allocations included) fails the allocations of
# chosen tasks (/proc/PID/make-it-fail, task-filter) at random, ROUNDS times
# (4; failinject.sh N for more) through each path of a session: configure
# (the sysfs settings), start, tracing (a target faulting under protection,
# and in exact mode, with the events on), and stop. Every injected failure
# must end as an error code (a write to sysfs that fails, the state left
# off) or a counted loss, never an oops, a leak (kmemleak after rmmod), a
# hang (the test's timeout) or a page left protected or wrong (the target's
# own check of its data, to the end). The failures are those of the tasks
# that take each path (the shell that writes to sysfs, the target), the
# module's allocations among them: the stack-trace filter that would keep to
# the module's alone is not built on x86-64. The closing line counts them
# per path.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
ROUNDS=${1:-4}
D=/sys/kernel/debug
mountpoint -q $D || mount -t debugfs nodev $D
[ -d $D/failslab ] && [ -d $D/fail_page_alloc ] || fail "the kernel has no failslab or fail_page_alloc"
echo never >/sys/kernel/mm/transparent_hugepage/enabled
kmemleak_forget

for f in failslab fail_page_alloc; do
	echo Y >$D/$f/task-filter
	echo N >$D/$f/ignore-gfp-wait
	echo 0 >$D/$f/verbose
	echo 0 >$D/$f/space
	echo 1 >$D/$f/interval
	echo 0 >$D/$f/probability
done
echo N >$D/fail_page_alloc/ignore-gfp-highmem
echo 0 >$D/fail_page_alloc/min-order
declare -A injected
# failing PERCENT CMD...: CMD in a task whose allocations fail with
# PERCENT% probability, at most 1000 times; adds the failures injected to
# injected[$phase]. Its status is CMD's.
LIMIT=1000
failing() {
	local pct=$1 rc=0 f left
	shift
	for f in failslab fail_page_alloc; do
		echo "$pct" >$D/$f/probability
		echo $LIMIT >$D/$f/times
	done
	sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' sh "$@" || rc=$?
	for f in failslab fail_page_alloc; do
		left=$(cat $D/$f/times)
		injected[$phase]=$((${injected[$phase]:-0} + LIMIT - left))
		echo 0 >$D/$f/probability
	done
	return $rc
}

cat >target.py <<'PY'
import ctypes, mmap, os, sys
n = 96
m = mmap.mmap(-1, n * 4096)
for i in range(n):
    m[i * 4096 + 8] = i + 1
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
open(sys.argv[1] + ".base", "w").write("%x-%x\n" % (base, base + 2 * 4096))
open(sys.argv[1] + ".ready", "w").close()
while not os.path.exists(sys.argv[1] + ".stop"):
    for i in range(n):
        if m[i * 4096 + 8] != i + 1:
            open(sys.argv[1] + ".corrupt", "w").close()
        m[i * 4096 + 16] = (m[i * 4096 + 16] + 1) % 256
open(sys.argv[1] + ".done", "w").close()
PY

for r in $(seq "$ROUNDS"); do
	rm -f t.*
	python3 target.py t &
	pid=$!
	wait_for "the target" test -e t.ready
	insmod "$VMT_LIB/vmtrace.ko"
	pct=$((10 + RANDOM % 40))
	phase=configure
	failing $pct sh -c "echo $pid >/sys/kernel/vmtrace/targets; echo 1 >/sys/kernel/vmtrace/protect
		echo 8 >/sys/kernel/vmtrace/enabled_pages; echo all >/sys/kernel/vmtrace/events
		echo 'add $pid $(cat t.base)' >/sys/kernel/vmtrace/exact" 2>/dev/null || true
	# What configure took is staged; a failed write left the setting as it was.
	echo "$pid" >/sys/kernel/vmtrace/targets
	echo 1 >/sys/kernel/vmtrace/protect
	phase=start
	started=0
	for try in 1 2 3; do
		if failing $pct sh -c 'echo on >/sys/kernel/vmtrace/state' 2>/dev/null; then
			started=1
			break
		fi
		expect_eq "$(cat /sys/kernel/vmtrace/state)" off "round $r: state after a failed start"
	done
	# After failed starts, one without failures must work.
	[ $started = 1 ] || echo on >/sys/kernel/vmtrace/state || fail "round $r: no start after failed ones"
	phase=tracing
	echo 1 >/proc/$pid/make-it-fail
	for f in failslab fail_page_alloc; do
		echo $pct >$D/$f/probability
		echo $LIMIT >$D/$f/times
	done
	sleep 1
	for f in failslab fail_page_alloc; do
		injected[$phase]=$((${injected[$phase]:-0} + LIMIT - $(cat $D/$f/times)))
		echo 0 >$D/$f/probability
	done
	echo 0 >/proc/$pid/make-it-fail
	phase=stop
	failing $pct sh -c 'echo off >/sys/kernel/vmtrace/state' 2>/dev/null || true
	rmmod vmtrace
	touch t.stop
	wait "$pid" || fail "round $r: the target failed"
	[ -e t.done ] && [ ! -e t.corrupt ] || fail "round $r: the target saw different data"
done
kmemleak_check "$ROUNDS rounds of injected allocation failures"
total=0
for p in configure start tracing stop; do
	total=$((total + ${injected[$p]:-0}))
done
echo "failures injected: configure ${injected[configure]:-0}, start ${injected[start]:-0}, tracing ${injected[tracing]:-0}, stop ${injected[stop]:-0}; $total in all"
for p in configure start tracing stop; do
	[ "${injected[$p]:-0}" -gt 0 ] || fail "no failure was injected on the $p path"
done
echo "failinject: ok"
