#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# boot: own
# (In a guest that had run the other tests first, 6.1's allocator sat in
# clear_page for minutes under stress-ng's MAP_POPULATE of huge pages, soft
# lockups and RCU stalls, in 2 of 2 runs, one of them with no other guest
# running; in a guest of its own, as every test had before batches, it was
# not seen.)
# Integrity under load: stress-ng's memory stressors check what they wrote
# (--verify) while every page they use is protected, evicted and faulted
# back, transparent huge pages included, and while they fork, mmap, munmap,
# mremap, mprotect and madvise, and while the kernel compacts memory (page
# migration) in a loop beside them. Once for one traced process tree
# (--follow, a small enabled set so that evictions never stop), once
# system-wide. stress-ng fails on any difference; vm-run fails on any kernel
# warning (on the debug kernel: KASAN, lockdep, DEBUG_VM).
# Each stressor runs a fixed number of bogo operations, not a fixed time,
# and the test checks that each finished them: a stressor that made no
# progress would check no data and still pass. The timeout is a hang guard.
# The debug kernel runs these stressors 8 to 40 times slower (an mmap
# operation on 2 MiB took 10 s there; one on 8 MiB takes about 5 s on 6.1),
# so it gets smaller buffers and fewer operations.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo always >/sys/kernel/mm/transparent_hugepage/enabled
# Under TCG, beside another guest, compaction (the loop below) cleared the
# pages it freed (Debian's init_on_alloc) for 22 s in one go on 6.12:
# clear_page_erms under compact_node, a soft lockup report, and the test
# failed (1 make check in 6). The lockup and stall detectors stay on, with
# 60 s for TCG's slowness instead of 20: this guest is this test's alone.
[ ! -w /proc/sys/kernel/watchdog_thresh ] || echo 30 >/proc/sys/kernel/watchdog_thresh
stall=/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
[ ! -w $stall ] || echo 60 >$stall

# stress.sh long: the sizes of before make check's time was cut (4 times
# the vm operations; on 6.1 and 6.12 4 times the madvise operations and
# twice the mmap bytes), for long runs (make fuzz).
long=0
[ "${1:-}" != long ] || long=1
if debug_kernel; then
	vm_bytes=4M vm_ops=$((125 << (2 * long))) mmap_bytes=256K mremap_bytes=1M madvise_ops=1
else
	# A quarter of the vm and madvise operations and half the mmap bytes
	# of stress.sh long: the same checks. With those of long, make check
	# took 191 s on 6.1, of which the madvise stressor's 8 operations were
	# 88 s a run (120 s of system time), twice.
	vm_bytes=16M vm_ops=$((500 << (2 * long))) mmap_bytes=$((2 << long))M mremap_bytes=4M
	madvise_ops=$((2 << (2 * long)))
fi
# stress-ng 0.15 gives an --X-ops option to the stressor named last before
# it, so each follows its own stressor.
stress=(stress-ng --vm 1 --vm-ops "$vm_ops" --vm-bytes "$vm_bytes" --vm-method all
	--mmap 1 --mmap-ops 2 --mmap-bytes "$mmap_bytes" --mmap-mprotect
	--mremap 1 --mremap-ops 20 --mremap-bytes "$mremap_bytes"
	--madvise 1 --madvise-ops "$madvise_ops" --fork 1 --fork-ops 50
	--verify --timeout 1000 --metrics-brief)
ops=()  # STRESSOR:OPS, from the command above
for ((i = 0; i < ${#stress[@]}; i++)); do
	o=${stress[i]}
	if [[ $o == --*-ops ]]; then
		ops+=("${o:2:${#o}-6}:${stress[i + 1]}")
	fi
done
[ ${#ops[@]} -eq 5 ] || fail "the stressors' ops: ${ops[*]}"
# The stressors run as nobody: as root, the madvise stressor also poisons
# pages (MADV_HWPOISON) and soft-offlines them, and now and then dies of the
# SIGBUS an access to a poisoned page raises, untraced as well: on 6.12 at
# once (its threads block SIGBUS), on 6.1 in 2 of 40 untraced runs.
# Compaction migrates movable pages, protected ones among them.
(while [ ! -e compact.stop ]; do echo 1 >/proc/sys/vm/compact_memory; sleep 0.5; done) &
compactor=$!
run() {  # run NAME -- record-raw options
	local name=$1 o n
	shift
	vmtrace record-raw "$@" -o "$name.raw" -- "${NOBODY[@]}" "${stress[@]}" >"$name.out" 2>&1 ||
		{ cat "$name.out"; fail "$name: stress-ng or record-raw failed"; }
	grep -E 'stress-ng|vmtrace|protection|enabled' "$name.out"
	! grep -qiE 'fail|verif.*error' "$name.out" || fail "$name: stress-ng reported a failure"
	# metrc lines: "stress-ng: metrc: [pid] STRESSOR BOGO-OPS REAL-TIME ..."
	for o in "${ops[@]}"; do
		n=$(awk -v s="${o%:*}" '$2 == "metrc:" && $4 == s &&
			$6 ~ /^[0-9.]+$/ { print $5; exit }' "$name.out")
		if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt "${o#*:}" ]; then
			fail "$name: stressor ${o%:*} finished ${n:-no} bogo ops of ${o#*:}"
		fi
	done
	echo "$name: $(cat /sys/kernel/vmtrace/faults) faults, $(cat /sys/kernel/vmtrace/evictions) evictions, $(cat /sys/kernel/vmtrace/protected) PTEs and $(cat /sys/kernel/vmtrace/huge_pmds) THPs protected at start, $(cat /sys/kernel/vmtrace/reprotections) protected again, $(cat /sys/kernel/vmtrace/missed) address spaces not traced"
	[ "$(cat /sys/kernel/vmtrace/evictions)" -gt 0 ] || fail "$name: no evictions"
	rm -f "$name.raw"
}
run per-process --protect --follow -n 64 --reprotect-ms 500
run system-wide -a --protect -n 256 --policy clock
touch compact.stop
wait $compactor
rmmod vmtrace
echo "stress: ok"
