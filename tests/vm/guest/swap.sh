#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Swap-out and swap-in of traced pages: reclaim unmaps a page whatever its
# PTE (protnone or enabled), and the access that brings it back faults, so a
# swapped page is traced in, and stays traced after (kernel/protect/protect.c).
#
# vmt-swap's 64 pages, traced with --protect -n 8 (FIFO), are read once
# (pass 0), swapped out by MADV_PAGEOUT into a swap file on the root file
# system (the guest has no swap of its own), read twice (passes 1 and 2),
# written (pass 3), swapped out again and read (pass 4); the program checks
# the data. /proc/PID/pagemap must show every page swapped out before each
# pass that swaps them in, so that the test cannot pass without swapping.
# The references to the buffer, in time order, are five passes from the
# first page to the last:
#   0: one read a page, cause=protection (all protected at start);
#   1: one read a page, cause=other (a swap entry: neither protnone nor none);
#   2: one read a page, cause=protection: each page was admitted when it was
#      swapped in, and 63 pages were admitted after it, more than the 8 the
#      set keeps: it was protected again, swapped-in page or not;
#   3: writes only, the first a page cause=protection (the rest, if any, the
#      write fault on the read-only entry do_numa_page maps on 6.1);
#   4: as 1: the written pages, swapped out dirty, come back with the data.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"

# /tmp is a tmpfs, which cannot hold a swap file: the root file system (a
# throwaway snapshot) can.
swapfile=/vmt-swapfile
dd if=/dev/zero of=$swapfile bs=1M count=32 status=none
chmod 600 $swapfile
mkswap $swapfile >/dev/null
swapon $swapfile
grep -q "^$swapfile " /proc/swaps || fail "swapon: $swapfile is not in /proc/swaps"

# swapped PID BASE: fail unless all 64 pages from BASE are swapped out
# (pagemap bit 62); print the count and the process's VmSwap.
swapped() {
	python3 - "$1" "$2" <<'PY' || fail "the traced pages were not swapped out"
import struct, sys
pid, base = sys.argv[1], int(sys.argv[2], 16)
with open(f"/proc/{pid}/pagemap", "rb") as f:
    f.seek(base // 4096 * 8)
    e = struct.unpack("64Q", f.read(64 * 8))
n = sum(x >> 62 & 1 for x in e)
vmswap = [l.split()[1] for l in open(f"/proc/{pid}/status") if l.startswith("VmSwap:")][0]
print(f"swap: pagemap: {n} of 64 pages swapped out; VmSwap {vmswap} kB")
if n != 64:
    raise SystemExit(f"only {n} of 64 pages are swapped out")
PY
}

dir=/tmp/swap
mkdir -p $dir
vmt-swap $dir &
pid=$!
wait_for "the program to be ready" test -e $dir/ready
vmtrace record-raw -p $pid --protect -n 8 --policy fifo -o $dir/raw 2>$dir/summary &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
kill -USR1 $pid
wait_for "the first swap-out" test -e $dir/paged1
echo "swap: vmt-swap: $(cat $dir/paged1.txt)"
swapped $pid "$(cat $dir/base)"
kill -USR1 $pid
wait_for "the second swap-out" test -e $dir/paged2
echo "swap: vmt-swap: $(cat $dir/paged2.txt)"
swapped $pid "$(cat $dir/base)"
kill -USR1 $pid
wait $pid || fail "vmt-swap failed (its data did not survive swapping)"
wait $rec || { cat $dir/summary; fail "record-raw failed"; }
cat $dir/summary
expect_eq "$(cat /sys/kernel/vmtrace/lost)" 0 "records lost"
vmtrace dump-raw $dir/raw >$dir/txt
python3 - "$(cat $dir/base)" $dir/txt $pid <<'PY' || fail "accesses to swapped pages went unlogged"
import sys
sys.path.insert(0, "/opt/vmtrace/tests/vm")
from passes import passes as buffer_passes, describe
base, pid = int(sys.argv[1], 16), sys.argv[3]
passes = buffer_passes(sys.argv[2], pid, base, 64)
for i, p in enumerate(passes):
    describe("swap: ", i, p)
if len(passes) != 5:
    raise SystemExit(f"{sum(map(len, passes))} references to the buffer make "
                     f"{len(passes)} passes, not 5")
once = {0: "protection", 1: "other", 2: "protection", 4: "other"}
for i, cause in once.items():
    want = [(page, cause, "R") for page in range(64)]
    if passes[i] != want:
        bad = [p for p in range(64) if [r for r in passes[i] if r[0] == p] != [want[p]]]
        raise SystemExit(f"pass {i}: pages {bad[:8]} ({len(bad)} in all) were not read once, "
                         f"logged with cause={cause}: {[r for r in passes[i] if r[0] in bad[:4]]}")
first = {}
for page, cause, access in passes[3]:
    first.setdefault(page, (cause, access))
    if access != "W":
        raise SystemExit(f"pass 3: a reference to page {page} that is not a write")
if first != {page: ("protection", "W") for page in range(64)}:
    raise SystemExit(f"pass 3: pages whose first write was not logged as a protection fault: "
                     f"{sorted(p for p in range(64) if first.get(p) != ('protection', 'W'))}")
print("swap: every page's accesses after each swap-in were logged, and after eviction again")
PY
swapoff $swapfile
rmmod vmtrace
echo "swap: ok"
