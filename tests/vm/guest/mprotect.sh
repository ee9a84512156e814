#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mprotect() on protected pages: the kernel rebuilds their entries present
# from the new protection; the tracer protects them again before the thread
# returns to user space, so that the reads and writes after it are logged,
# page by page, and the data stays intact. On 6.1, 6.12 and debug.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo never >/sys/kernel/mm/transparent_hugepage/enabled
pages=32 dir=/tmp/mp
mkdir -p $dir
vmt-mprotect $dir $pages &
pid=$!
trace_program $pid $dir mp "vmt-mprotect failed (its data did not survive)" --protect -n 4
vmtrace dump-raw mp.raw >mp.txt
base=$(cat $dir/base)
# Every page of the buffer is read, then written, after the mprotect calls:
# with 4 pages enabled, each access is a logged protection fault.
python3 - "$base" $pages mp.txt $pid <<'PY' || fail "accesses after mprotect went unlogged"
import sys
base, n, pid = int(sys.argv[1], 16), int(sys.argv[2]), sys.argv[4]
reads, writes = set(), set()
for line in open(sys.argv[3]):
    f = dict(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv)
    if line.split()[1] != "ref" or f["pid"] != pid:
        continue
    a = int(f["addr"], 16)
    if base <= a < base + n * 4096 and f["cause"] == "protection":
        (writes if f["access"] == "W" else reads).add((a - base) // 4096)
missing = sorted(set(range(n)) - reads)
if missing:
    raise SystemExit(f"reads of pages {missing} after mprotect were not logged")
print(f"mprotect: all {n} pages' reads logged after mprotect, {len(writes)} pages' writes")
if len(writes) < n - 4:
    raise SystemExit(f"only {len(writes)} pages' writes logged with 4 pages enabled")
PY
grep -q 'PTEs re-protected' mp.summary || fail "the summary does not count the re-protected PTEs"
