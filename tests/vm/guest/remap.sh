#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pages the kernel maps anew behind the tracer's back are protected again
# (kernel/protect/notify.c), so that the accesses after are logged: a protected THP
# split by MADV_DONTNEED on one of its pages (511 PTEs come back present),
# and 32 protected pages migrated by MADV_SOFT_OFFLINE (mapped back present
# on other frames). The test waits until the module counts the pages
# protected again (the window before is documented, not tested), then every
# page's read must be logged, and the data must be intact.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo always >/sys/kernel/mm/transparent_hugepage/enabled
# khugepaged would collapse the split range (511 PTEs and one none) back into
# a THP, now and then, while the pages are read: a fault then enables the
# whole 2 MiB, and the reads after it are rightly not logged (2 runs in 10 on
# 6.12, thp_collapse_alloc +1 in /proc/vmstat). No none PTE allowed, it
# leaves the range alone.
echo 0 >/sys/kernel/mm/transparent_hugepage/khugepaged/max_ptes_none

run() {  # run MODE PAGES REPROTECTED FIRST: pages FIRST.. must be logged
	local mode=$1 pages=$2 want=$3 first=$4 dir=/tmp/$1 pid rec
	mkdir -p $dir
	vmt-remap $dir $mode &
	pid=$!
	wait_for "the program to be ready" test -e $dir/ready
	vmtrace record-raw -p $pid --protect -n 8 -o $dir/raw 2>$dir/summary &
	rec=$!
	wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
	kill -USR1 $pid
	wait_for "the change" test -e $dir/changed
	wait_for "$want pages protected again" at_least reprotections "$want"
	kill -USR1 $pid
	wait $pid || fail "$mode: vmt-remap failed (its data did not survive)"
	wait $rec || { cat $dir/summary; fail "$mode: record-raw failed"; }
	cat $dir/summary
	vmtrace dump-raw $dir/raw >$dir/txt
	python3 - "$(cat $dir/base)" "$pages" "$first" $dir/txt $pid $mode <<'PY' ||
import sys
base, n, first, pid, mode = int(sys.argv[1], 16), int(sys.argv[2]), int(sys.argv[3]), sys.argv[5], sys.argv[6]
seen = set()
for line in open(sys.argv[4]):
    w = line.split()
    if w[1] != "ref":
        continue
    f = dict(kv.split("=", 1) for kv in w[2:] if "=" in kv)
    a = int(f["addr"], 16)
    if f["pid"] == pid and base <= a < base + n * 4096 and f["cause"] == "protection":
        seen.add((a - base) // 4096)
missing = sorted(set(range(first, n)) - seen)
if missing:
    raise SystemExit(f"{mode}: reads of {len(missing)} pages went unlogged, first {missing[:8]}")
print(f"{mode}: the reads of pages {first}..{n - 1} were all logged")
PY
		fail "$mode: accesses after the kernel remapped protected pages went unlogged"
}

run split 512 511 1
run migrate 64 32 0
echo "remap: ok"
