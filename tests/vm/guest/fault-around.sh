#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fault-around: a read fault on a file page the page cache holds maps its
# cached neighbours too (up to 16 pages by default), without a fault of
# their own. The tracer protects them before the thread returns to user
# space, so that the first read of every page of a cached file is logged
# (a demand fault for the page that faults it in, a protection fault for a
# neighbour mapped with it), and only the enabled set stays unprotected.
# On 6.1, 6.12 and debug.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
pages=64 dir=/tmp/fa
mkdir -p $dir
head -c $((pages * 4096)) /dev/urandom >$dir/file
cat $dir/file >/dev/null
# A private, writable mapping (ctypes needs a writable buffer for its
# address); it is only read, so every fault is a read fault.
python3 - $dir $pages <<'PY' &
import ctypes, mmap, os, signal, sys
d, n = sys.argv[1], int(sys.argv[2])
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
with open(f"{d}/file", "rb") as f:
    m = mmap.mmap(f.fileno(), n * 4096, access=mmap.ACCESS_COPY)
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
open(f"{d}/base", "w").write(f"{base:#x}\n")
open(f"{d}/ready", "w").close()
signal.sigwait({signal.SIGUSR1})
total = sum(m[i * 4096] for i in range(n))
open(f"{d}/sum", "w").write(f"{total}\n")
PY
pid=$!
trace_program $pid $dir fa "the program failed" --protect
want=$(od -An -tu1 -w4096 -v $dir/file | awk '{ s += $1 } END { print s }')
expect_eq "$(cat $dir/sum)" "$want" "the sum of the pages' first bytes"
vmtrace dump-raw fa.raw >fa.txt
python3 - "$(cat $dir/base)" $pages fa.txt $pid <<'PY' || fail "first reads of a cached file's pages went unlogged"
import sys
sys.path.insert(0, "/opt/vmtrace/tests/vm")
from passes import refs
base, n, pid = int(sys.argv[1], 16), int(sys.argv[2]), sys.argv[4]
first = {}
for _, page, f in refs(sys.argv[3], pid, base, n):
    first.setdefault(page, f["cause"])
missing = sorted(set(range(n)) - set(first))
if missing:
    sys.exit(f"FAIL: the first reads of pages {missing} were not logged")
causes = sorted(set(first.values()))
print(f"fault-around: the first read of each of {n} pages logged ({', '.join(causes)})")
PY
rmmod vmtrace
echo "fault-around: ok"
