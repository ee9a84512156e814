#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: own
# cpus: 4
# tcg single: 6.12 debug
# kernels: 6.12 debug
# timeout: 900
# CPUs going offline and online while every process is traced with
# protection: stress-ng's vm and mmap stressors, checking their own memory
# (--verify), run under `vmtrace record -a --protect -n 64` while CPUs 1-3 go
# offline and online again, CYCLES times (3; 2 on the debug kernel). The
# stressors pass, nothing is lost, the trace verifies, and it holds every
# record the module wrote (sysfs records after the stop, against the file's):
# a ring of an offline CPU stays, with its records, until the collector has
# drained it (docs/DESIGN.md, "Rings"). Each of CPUs 1-3 wrote records that
# are in the file.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
CYCLES=${1:-3}
debug_kernel && [ $# -eq 0 ] && CYCLES=2
[ "$(nproc)" -ge 4 ] || fail "needs four CPUs, has $(nproc)"
insmod "$VMT_LIB/vmtrace.ko"

# stress-ng runs for a time long enough for the cycles (about 4 s each on
# 6.12 under one TCG thread); a cycle that comes after it is not counted.
seconds=$((CYCLES * 8))
debug_kernel && seconds=$((CYCLES * 20))
vmtrace record -a --protect -n 64 -o hp.vmt -- sh -c "stress-ng --vm 2 --vm-bytes 16M \
	--mmap 2 --mmap-bytes 8M --verify --timeout ${seconds}s --metrics-brief >stress.out 2>&1
	echo \$? >stress.status" 2>summary.txt &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
traced=0
for i in $(seq "$CYCLES"); do
	for c in 1 2 3; do
		echo 0 >/sys/devices/system/cpu/cpu$c/online
	done
	sleep 0.3
	for c in 1 2 3; do
		echo 1 >/sys/devices/system/cpu/cpu$c/online
	done
	sleep 0.3
	[ -e stress.status ] || traced=$((traced + 1))
done
[ "$traced" -gt 0 ] || fail "stress-ng ended before the first cycle"
echo "$traced times CPUs 1-3 offline and online again while traced"
wait "$rec" || fail "record failed: $(cat summary.txt)"
expect_eq "$(cat stress.status)" 0 "stress-ng's exit status ($(cat stress.out))"
grep "^\[ vmtrace record" summary.txt
records=$(sed -n 's/.*(\([0-9]*\) records,.*/\1/p' summary.txt)
[ -n "$records" ] || fail "no summary: $(cat summary.txt)"
grep -q ' 0 lost' summary.txt || fail "records lost: $(tail -1 summary.txt)"
expect_eq "$(cat /sys/kernel/vmtrace/lost)" 0 "sysfs lost"
vmtrace verify hp.vmt >/dev/null || fail "verify: $(vmtrace verify hp.vmt 2>&1)"
vmtrace stats hp.vmt >stats.txt
expect_eq "$(sed -n 's/^records: //p' stats.txt)" "$records" "records in the file"
expect_eq "$(cat /sys/kernel/vmtrace/records)" "$records" "records the module wrote, against the file's"
for c in 1 2 3; do
	n=$(sed -n "s/^  cpu$c  *\([0-9]*\) records.*/\1/p" stats.txt)
	[ "${n:-0}" -gt 0 ] || fail "no record from CPU $c in the trace: $(cat stats.txt)"
	echo "CPU $c: $n records"
done
rmmod vmtrace
echo "hotplug: ok"
