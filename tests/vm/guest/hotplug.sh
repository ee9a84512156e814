#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: own
# cpus: 4
# kernels: 6.12 debug
# timeout: 900
# CPUs going offline and online while every process is traced with
# protection: stress-ng's vm and mmap stressors, checking their own memory
# (--verify), run under `# stress-ng runs for a time long enough for the cycles (about 4 s each on
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
