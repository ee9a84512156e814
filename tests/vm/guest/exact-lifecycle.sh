#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12 debug
# timeout: 1500
# Exact mode stopped and unloaded mid-trace, 20 times (through sysfs): a
# process keeps checking its data on two exact pages (and its flags after
# pushf); after each stop or rmmod it still runs (no trap flag left
# behind: that would kill it with SIGTRAP), its data is intact, and once
# the module is gone its accesses take no NUMA-hinting fault (no page left
# protnone); vmt-exact-busy's loop is traced exactly in each cycle.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
# One CPU, as lifecycle.sh does for its rmmods (TCG and text_poke_bp()).
echo 0 >/sys/devices/system/cpu/cpu1/online
mkdir -p busy
nice -n 10 /opt/vmtrace/bin/vmt-exact-busy busy &
busy=$!
wait_for "the busy process" test -e busy/ready
at_least_exact() { [ "$(cat /sys/kernel/vmtrace/exact_accesses)" -ge "$1" ]; }
hint_faults() { awk '$1 == "numa_hint_faults" { print $2 }' /proc/vmstat; }

for i in $(seq 20); do
	insmod "$VMT_LIB/vmtrace.ko"
	echo "$busy" >/sys/kernel/vmtrace/targets
	echo 1 >/sys/kernel/vmtrace/protect
	echo "add $busy 10000000000-10000002000" >/sys/kernel/vmtrace/exact
	echo on >/sys/kernel/vmtrace/state
	wait_for "exact accesses" at_least_exact 100
	# Every other cycle stops first; the others unload while tracing.
	[ $((i % 2)) = 0 ] && echo off >/sys/kernel/vmtrace/state
	rmmod vmtrace
	kill -0 "$busy" || fail "the busy process died in cycle $i"
done
echo 1 >/sys/devices/system/cpu/cpu1/online
before=$(hint_faults)
sleep 0.5
after=$(hint_faults)
touch busy/stop
wait "$busy" || fail "the busy process failed"
[ -e busy/done ] && [ ! -e busy/corrupt ] || fail "the busy process saw different data or flags"
expect_eq "$((after - before))" 0 "NUMA-hinting faults after the rmmods (pages left protnone)"
echo "exact-lifecycle: 20 stops and rmmods mid-trace; data and flags intact, no page left protnone"
