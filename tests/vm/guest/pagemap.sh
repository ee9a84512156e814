#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Page-mapping events against /proc/PID/pagemap: a process whose pages are
# protected reads each once, then reads its own pagemap; every page has one
# MAP record with the frame pagemap gives, and one UNMAP record of that
# frame when the process unmaps them.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo never >/sys/kernel/mm/transparent_hugepage/enabled
pages=64 dir=/tmp/pm
mkdir -p $dir
vmt-pagemap $dir $pages &
pid=$!
wait_for "the program to be ready" test -e $dir/ready
vmtrace record -q -p $pid --protect -n 8 -e pagemap -o pm.vmt 2>pm.summary &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
kill -USR1 $pid
wait $pid || fail "the program failed"
wait $rec || { cat pm.summary; fail "record failed"; }
vmtrace dump --order time pm.vmt | grep " pagemap .* pid=$pid " >pm.txt || fail "no pagemap records"
base=$(cat $dir/base)
python3 - "$base" $pages $dir/pagemap pm.txt <<'PY' || fail "page-mapping records differ from /proc/PID/pagemap"
import sys
base, n = int(sys.argv[1], 16), int(sys.argv[2])
want = {}
for line in open(sys.argv[3]):
    a, f = line.split()
    want[int(a, 16)] = int(f, 16)
assert len(want) == n and all(want.values()), "pagemap gave no frame for some page"
maps, unmaps = {}, {}
for line in open(sys.argv[4]):
    f = dict(kv.split("=", 1) for kv in line.split()[2:])
    a = int(f["addr"], 16)
    if not base <= a < base + n * 4096:
        continue
    d = maps if f["op"] == "map" else unmaps
    assert a not in d, f"two {f['op']} records for 0x{a:x}"
    d[a] = int(f["pfn"], 16)
for a, frame in want.items():
    if maps.get(a) != frame:
        raise SystemExit(f"0x{a:x}: pagemap says frame 0x{frame:x}, trace {maps.get(a)}")
    if unmaps.get(a) != frame:
        raise SystemExit(f"0x{a:x}: no unmap of frame 0x{frame:x} (got {unmaps.get(a)})")
print(f"pagemap: {n} pages, each mapped and unmapped with the frame /proc/PID/pagemap gives")
PY
