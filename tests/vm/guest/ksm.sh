#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# KSM and traced pages: merging replaces the PTEs of the pages it merges by
# present ones to the shared page, and unmerging by present ones to private
# copies; the MMU notifier has the module protect them again, but for the
# pages of the enabled set (kernel/protect/notify.c). The test waits until the
# module counts them protected again (the window before is documented as not
# traced); then every access to a page outside the set must be logged.
#
# vmt-ksm's 64 identical pages are traced with --protect -n 128 (FIFO); the
# program sweeps 160 scratch pages between passes, so that none of them is
# enabled at the next. Two runs: in one the pages are protected when ksmd
# merges them, in the other they are all enabled (the program has read
# them, pass 0, logged). Once merged (the 64 pages map one frame), they are
# read (pass 1: logged when protected, not when enabled), the even ones
# written (pass 2: copy on write), all read (pass 3); KSM unmerges the 32
# odd ones (echo 2 >run: 32 PTEs made anew, protected again) and all are
# read again (pass 4).
#
# Before 6.5 (here 6.1) KSM passes protnone PTEs over: follow_page()
# without FOLL_FORCE does not follow them (gup_can_follow_protnone();
# upstream d74943a2f3cd "mm/gup: reintroduce FOLL_NUMA as
# FOLL_HONOR_NUMA_FAULT" changed that). So ksmd merges no protected page
# (checked; the rest of that run only checks the program's data), and
# unmerging leaves the protected pages merged (echo 2 >run unmerges none of
# them, checked): they stay read-only KSM pages, protnone, the module has
# nothing to protect again, and pass 4 is the same.
#
# The references to the buffer, in time order, are four passes from the
# first page to the last:
#   1 (0 when enabled): one read a page, cause=protection;
#   2: for each even page, a write fault on the protected entry
#      (cause=protection), then one on the read-only entry do_numa_page maps
#      to the KSM page (cause=cow: the copy);
#   3 and 4: one read a page, cause=protection.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
K=/sys/kernel/mm/ksm
[ -e $K/run ] || fail "this kernel has no KSM"
echo 1000 >$K/pages_to_scan
IFS=. read -r major minor _ <<<"$(uname -r)"
follows_protnone=$((major > 6 || (major == 6 && minor >= 5)))

# ksm_pages PID BASE N: fail unless exactly N of the 64 pages from BASE map
# a frame another of them maps too (pagemap), which only KSM does. Not
# /proc/kpageflags: 6.12 sets KPF_KSM on every anonymous page.
ksm_pages() {
	python3 - "$1" "$2" "$3" <<'PY' || fail "the pages are not merged as expected"
import collections, struct, sys
pid, base, want = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3])
with open(f"/proc/{pid}/pagemap", "rb") as f:
    f.seek(base // 4096 * 8)
    e = struct.unpack("64Q", f.read(64 * 8))
if not all(x >> 63 & 1 for x in e):
    raise SystemExit("a page is not present")
frames = collections.Counter(x & ((1 << 55) - 1) for x in e)
n = sum(c for c in frames.values() if c > 1)
print(f"ksm: {n} of 64 pages map a shared frame ({len(frames)} frames)")
if n != want:
    raise SystemExit(f"{n} of 64 pages map a shared frame, not {want}")
PY
}
merging() { [ "$(cat /proc/$1/ksm_merging_pages)" -ge "$2" ]; }
ksm_scans() { [ "$(cat $K/full_scans)" -ge "$1" ]; }

run() {  # run protected|enabled
	local mode=$1 dir=/tmp/ksm-$1 pid rec r0 r1 base sharing scans
	mkdir -p $dir
	vmt-ksm $dir $mode &
	pid=$!
	wait_for "the program to be ready" test -e $dir/ready
	base=$(cat $dir/base)
	vmtrace record-raw -p $pid --protect -n 128 --policy fifo -o $dir/raw 2>$dir/summary &
	rec=$!
	wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
	kill -USR1 $pid
	wait_for "the program's first reads" test -e $dir/read

	r0=$(cat /sys/kernel/vmtrace/reprotections)
	if [ $mode = protected ] && [ $follows_protnone = 0 ]; then
		# Two full scans merge identical pages that did not change.
		scans=$(($(cat $K/full_scans) + 3))
		echo 1 >$K/run
		wait_for "3 full scans of KSM" ksm_scans $scans
		echo 0 >$K/run
		expect_eq "$(cat /proc/$pid/ksm_merging_pages)" 0 "$mode: pages merged by KSM"
		ksm_pages $pid "$base" 0
		echo "ksm: $mode: $(uname -r): ksmd merged none of the protected pages"
		kill -USR1 $pid
		wait_for "the writes" test -e $dir/written
		kill -USR1 $pid
		wait $pid || fail "$mode: vmt-ksm failed (its data did not survive)"
		wait $rec || { cat $dir/summary; fail "$mode: record-raw failed"; }
		return
	fi
	echo 1 >$K/run
	wait_for "KSM to merge the 64 pages" merging $pid 64
	echo 0 >$K/run
	sharing=$(cat $K/pages_sharing)
	echo "ksm: $mode: merged: pages_shared $(cat $K/pages_shared), pages_sharing $sharing"
	ksm_pages $pid "$base" 64
	if [ $mode = protected ]; then
		# Each page but one per KSM page was mapped anew, pages_sharing of
		# them, to be protected again. (Enabled: the set keeps its pages,
		# none is.)
		wait_for "$sharing merged pages protected again" at_least reprotections $((r0 + sharing))
	fi
	echo "ksm: $mode: $(($(cat /sys/kernel/vmtrace/reprotections) - r0)) PTEs protected again after merging"
	kill -USR1 $pid

	wait_for "the writes" test -e $dir/written
	ksm_pages $pid "$base" 32
	r1=$(cat /sys/kernel/vmtrace/reprotections)
	echo 2 >$K/run  # unmerges every page before it returns
	if [ $follows_protnone = 1 ]; then
		ksm_pages $pid "$base" 0
		wait_for "32 unmerged pages protected again" at_least reprotections $((r1 + 32))
		echo "ksm: $mode: $(($(cat /sys/kernel/vmtrace/reprotections) - r1)) PTEs protected again after unmerging"
	else
		ksm_pages $pid "$base" 32
		echo "ksm: $mode: $(uname -r): KSM left the 32 protected pages merged"
	fi
	kill -USR1 $pid

	wait $pid || fail "$mode: vmt-ksm failed (its data did not survive)"
	wait $rec || { cat $dir/summary; fail "$mode: record-raw failed"; }
	cat $dir/summary
	expect_eq "$(cat /sys/kernel/vmtrace/lost)" 0 "$mode: records lost"
	vmtrace dump-raw $dir/raw >$dir/txt
	python3 - "$base" $dir/txt $pid $mode <<'PY' || fail "$mode: accesses to KSM pages went unlogged"
import sys
sys.path.insert(0, "/opt/vmtrace/tests/vm")
from passes import passes as buffer_passes, describe
base, pid, mode = int(sys.argv[1], 16), sys.argv[3], sys.argv[4]
passes = buffer_passes(sys.argv[2], pid, base, 64)
names = [1, 2, 3, 4] if mode == "protected" else [0, 2, 3, 4]
for i, p in enumerate(passes):
    describe(f"ksm: {mode}: ", names[i] if i < 4 else "?", p)
if len(passes) != 4:
    raise SystemExit(f"{mode}: {sum(map(len, passes))} references to the buffer make "
                     f"{len(passes)} passes, not 4")
reads = [(page, "protection", "R") for page in range(64)]
writes = [r for page in range(0, 64, 2) for r in ((page, "protection", "W"), (page, "cow", "W"))]
for name, got, want in zip(names, passes, [reads, writes, reads, reads]):
    if got != want:
        pages = sorted({r[0] for r in want + got})
        bad = [p for p in pages if [r for r in got if r[0] == p] != [r for r in want if r[0] == p]]
        raise SystemExit(f"{mode}: pass {name}: pages {bad[:8]} ({len(bad)} in all) were not "
                         f"logged as expected: got {[r for r in got if r[0] in bad[:3]]}, "
                         f"expected {[r for r in want if r[0] in bad[:3]]}")
print(f"ksm: {mode}: every access to the merged, copied and unmerged pages was logged")
PY
}

run protected
run enabled
rmmod vmtrace
echo "ksm: ok"
