#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: own
# cpus: 4
# kernels: 6.12 debug
# timeout: 900
# CPUs going offline and online while every process is traced with
# protection: stress-ng's vm and mmap stressors, checking their own memory
# (--verify), run under `vmtrace record -a --protect -n 64` while CPUs 1-3 go
# offline and online again, CYCLES times (12; 4 on the debug kernel). The
# stressors pass, nothing is lost, the trace verifies, and it holds every
# record the module wrote (sysfs records after the stop, against the file's):
# a ring of an offline CPU stays, with its records, until the collector has
# drained it (docs/DESIGN.md, "Rings"). Each of CPUs 1-3 wrote records that
# are in the file.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
CYCLES=${1:-12}
debug_kernel && [ $# -eq 0 ] && CYCLES=4
[ "$(nproc)" -ge 4 ] || fail "needs four CPUs, has $(nproc)"
insmod "$VMT_LIB/vmtrace.ko"

vmtrace record -a --protect -n 64 -o hp.vmt -- sh -c 'stress-ng --vm 2 --vm-bytes 16M \
	--mmap 2 --mmap-bytes 8M --verify --timeout 3600s --metrics-brief >stress.out 2>&1
	echo $? >stress.status' 2>summary.txt &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
for i in $(seq "$CYCLES"); do
	for c in 1 2 3; do
		echo 0 >/sys/devices/system/cpu/cpu$c/online
	done
	sleep 0.3
	for c in 1 2 3; do
		echo 1 >/sys/devices/system/cpu/cpu$c/online
	done
	sleep 0.3
done
echo "$CYCLES times CPUs 1-3 offline and online again"
# On SIGINT stress-ng stops its stressors, reports and exits 0 (or 2 when a
# stressor's --verify failed).
pkill -INT -o -x stress-ng || fail "stress-ng is not running any more"
wait "$rec" || fail "record failed: $(cat summary.txt)"
expect_eq "$(cat stress.status)" 0 "stress-ng's exit status ($(cat stress.out))"
tail -1 summary.txt
records=$(sed -n 's/.*(\([0-9]*\) records,.*/\1/p' summary.txt)
[ -n "$records" ] || fail "no summary: $(cat summary.txt)"
grep -q ' 0 lost' summary.txt || fail "records lost: $(tail -1 summary.txt)"
expect_eq "$(cat /sys/kernel/vmtrace/lost)" 0 "sysfs lost"
vmtrace verify hp.vmt >/dev/null || fail "verify: $(vmtrace verify hp.vmt 2>&1)"
expect_eq "$(vmtrace stats hp.vmt | sed -n 's/^records: //p')" "$records" "records in the file"
expect_eq "$(cat /sys/kernel/vmtrace/records)" "$records" "records the module wrote, against the file's"
for c in 1 2 3; do
	n=$(vmtrace dump --cpu $c --type ref hp.vmt | wc -l)
	[ "$n" -gt 0 ] || fail "no reference from CPU $c in the trace"
	echo "CPU $c: $n references"
done
rmmod vmtrace
echo "hotplug: ok"
