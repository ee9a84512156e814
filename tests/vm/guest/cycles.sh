#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Start/stop cycles within one load, through sysfs, with protection:
# - VMAs protection must pass over are skipped and counted: skipped_vmas is
#   the number of VMAs /proc/PID/smaps flags hugetlb, VM_IO, VM_PFNMAP,
#   VM_MIXEDMAP or shadow stack ([vvar] is VM_IO and VM_PFNMAP), and a
#   hugetlb page adds exactly one to it; pages the program made PROT_NONE
#   itself stay inaccessible after stop; every byte written stays;
# - 20 cycles on a busy process, then rmmod; on the debug kernel a kmemleak
#   scan finds no new leak (vm-run also fails the run on a kmemleak report).
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
kmemleak_forget
insmod "$VMT_LIB/vmtrace.ko"
S=/sys/kernel/vmtrace
echo 4 >/proc/sys/vm/nr_hugepages

skipped() {  # skipped ARGS: skipped_vmas of one start/stop on vmt-vmas ARGS
	local dir pid
	dir=$(mktemp -d)
	vmt-vmas "$dir" "$@" &
	pid=$!
	wait_for "vmt-vmas to be ready" test -e "$dir/ready"
	echo $pid >$S/targets
	echo 1 >$S/protect
	# The VMAs the kernel flags hugetlb (ht), VM_IO (io), VM_PFNMAP (pf),
	# VM_MIXEDMAP (mm) or shadow stack (ss): [vvar] is io and pf.
	local n want
	want=$(awk '/^VmFlags:/ { for (i = 2; i <= NF; i++) if ($i ~ /^(ht|io|pf|mm|ss)$/) { n++; break } }
		END { print n + 0 }' /proc/$pid/smaps)
	echo on >$S/state
	n=$(cat $S/skipped_vmas)
	echo off >$S/state
	kill -USR1 $pid
	wait $pid || fail "vmt-vmas $*: its data or its PROT_NONE page changed"
	expect_eq "$n" "$want" "skipped_vmas against the VMAs smaps flags ht, io, pf, mm or ss"
	echo "$n"
}
plain=$(skipped | tail -1)
huge=$(skipped hugetlb | tail -1)
echo "skipped VMAs: $plain without a hugetlb page ([vvar] and the like: VM_IO, VM_PFNMAP), $huge with one"
[ "$plain" -ge 1 ] || fail "no VM_IO or VM_PFNMAP VMA skipped ([vvar] is both)"
expect_eq "$huge" "$((plain + 1))" "skipped_vmas with a hugetlb mapping"

python3 - <<'PY' &
import mmap, os, time
m = mmap.mmap(-1, 64 * 4096)
for i in range(64):
    m[i * 4096] = i + 1
open("/tmp/busy.ready", "w").close()
while not os.path.exists("/tmp/busy.stop"):
    for i in range(64):
        if m[i * 4096] != i + 1:
            open("/tmp/busy.corrupt", "w").close()
PY
busy=$!
wait_for "the busy process" test -e /tmp/busy.ready
echo $busy >$S/targets
echo 8 >$S/enabled_pages
for i in $(seq 20); do
	echo on >$S/state
	wait_for "faults in cycle $i" at_least faults 1
	echo off >$S/state
done
touch /tmp/busy.stop
wait $busy
[ ! -e /tmp/busy.corrupt ] || fail "the busy process saw different data"
echo "20 start/stop cycles: data intact, $(cat $S/restored) PTEs restored at the last stop"
rmmod vmtrace
kmemleak_check "20 cycles, 2 sessions and rmmod"
echo "cycles: ok"
