#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Periodic re-protection: a process touching the same 4 pages over and over
# is logged once per page with a large enabled set, and again after every
# sweep with --reprotect-ms; the sweeps are counted.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
cat >loop.py <<'PY'
import ctypes, mmap, os, time
m = mmap.mmap(-1, 4 * 4096)
for i in range(4):
    m[i * 4096] = 1
open("base", "w").write(f"{ctypes.addressof(ctypes.c_char.from_buffer(m)):#x}\n")
while not os.path.exists("stop"):
    for i in range(4):
        m[i * 4096 + 8] = (m[i * 4096 + 8] + 1) % 256
    time.sleep(0.01)
PY
trace() {  # trace NAME OPTIONS...: trace loop.py until the sweeps reprotected $want PTEs
	local name=$1 want=$2
	shift 2
	rm -f stop base
	python3 loop.py &
	local pid=$!
	wait_for "the loop" test -e base
	vmtrace record-raw -p "$pid" --protect "$@" -o "$name.raw" 2>"$name.summary" &
	local rec=$!
	wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
	wait_for "the loop's pages to fault" at_least faults 9
	wait_for "$want re-protected PTEs" at_least reprotections "$want"
	kill -INT "$rec"
	wait "$rec" || fail "$name: record-raw failed"
	touch stop
	wait "$pid"
	cat "$name.summary"
	vmtrace dump-raw "$name.raw" | python3 -c '
import sys
base = int(sys.argv[1], 16)
n = [0] * 4
for line in sys.stdin:
    w = line.split()
    if w[1] == "ref":
        a = int(dict(kv.split("=", 1) for kv in w[2:])["addr"], 16)
        if base <= a < base + 4 * 4096:
            n[(a - base) // 4096] += 1
print(" ".join(map(str, n)))' "$(cat base)" >"$name.counts"
	echo "$name: references to each page: $(cat "$name.counts")"
}
trace once 0
for n in $(cat once.counts); do expect_eq "$n" 1 "references to a page without re-protection"; done
# Each sweep protects every present page again: the loop's pages included.
trace swept 1000 --reprotect-ms 200
for n in $(cat swept.counts); do
	[ "$n" -ge 2 ] || fail "a page was logged $n times across the sweeps"
done
rmmod vmtrace
echo "reprotect: ok"
