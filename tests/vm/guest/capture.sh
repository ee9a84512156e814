#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fault capture end to end: a program that writes 64 fresh pages in a known
# order yields exactly those 64 references (address, access, cause) through
# the mapped rings, in order, with records + lost == faults; sysfs alone can
# start and stop tracing; rmmod while tracing is clean.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"

cat >touch.py <<'PY'
import ctypes, mmap, sys
n = 64
m = mmap.mmap(-1, n * 4096)
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
with open(sys.argv[1], "w") as f:
    f.write(f"{base:#x}\n")
for i in range(n):
    m[i * 4096 + i * 8] = 1        # one write to each page, at a known byte
for i in range(n):
    assert m[i * 4096 + i * 8] == 1
PY
vmtrace record-raw -o touch.raw -- python3 touch.py base.txt 2>summary.txt
cat summary.txt
base=$(cat base.txt)
vmtrace dump-raw touch.raw >touch.txt
echo "$(wc -l <touch.txt) records"

python3 - "$base" <<'PY'
import re, sys
base = int(sys.argv[1], 16)
refs = []
for line in open("touch.txt"):
    f = dict(kv.split("=", 1) for kv in line.split()[2:])
    if line.split()[1] == "ref":
        refs.append((int(line.split()[0]), f))
refs.sort(key=lambda r: r[0])
ours = [f for _, f in refs if base <= int(f["addr"], 16) < base + 64 * 4096]
assert len(ours) == 64, f"{len(ours)} references in the buffer, not 64"
for i, f in enumerate(ours):
    want = base + i * 4096 + i * 8
    assert int(f["addr"], 16) == want, f"reference {i}: {f['addr']}, not {want:#x}"
    assert f["access"] == "W" and f["cause"] == "demand" and f["mode"] == "user", f
    assert int(f["ip"], 16) != 0, f
pids = {f["pid"] for _, f in refs}
assert len(pids) == 1, f"records from pids {pids}"
print(f"64 write references in order at base {base:#x}; {len(refs)} references in all")
PY

# Every fault the probe saw is a record read or counted lost.
sed -n 's/.*(\([0-9]*\) records, \([0-9]*\) faults, \([0-9]*\) lost.*/\1 \2 \3/p' summary.txt | {
	read -r records faults lost
	expect_eq "$((records + lost))" "$faults" "records + lost against faults"
	[ "$records" -eq "$(wc -l <touch.txt)" ] || fail "summary and file disagree"
}

# sysfs alone: stage, start, stop.
echo "$$" >/sys/kernel/vmtrace/targets
expect_eq "$(cat /sys/kernel/vmtrace/targets)" "$$" "staged targets"
echo 1024 >/sys/kernel/vmtrace/ring_records
echo on >/sys/kernel/vmtrace/state
expect_eq "$(cat /sys/kernel/vmtrace/state)" on "state after on"
head -c 1000000 /dev/zero >/dev/null   # this shell's children are not targets
python3 -c 'pass'                      # nor is this
echo off >/sys/kernel/vmtrace/state
expect_eq "$(cat /sys/kernel/vmtrace/state)" off "state after off"
echo "sysfs run: $(cat /sys/kernel/vmtrace/faults) faults, $(cat /sys/kernel/vmtrace/records) records, $(cat /sys/kernel/vmtrace/lost) lost"
for bad in "0" "-3" "all 5" "abc"; do
	echo "$bad" >/sys/kernel/vmtrace/targets 2>/dev/null && fail "targets accepted '$bad'"
done
for bad in 3 100 0x2000000; do
	echo "$bad" >/sys/kernel/vmtrace/ring_records 2>/dev/null && fail "ring_records accepted '$bad'"
done
echo bogus >/sys/kernel/vmtrace/state 2>/dev/null && fail "state accepted 'bogus'"

# System-wide with a tiny ring: loss is counted exactly.
echo all >/sys/kernel/vmtrace/targets
echo 64 >/sys/kernel/vmtrace/ring_records
echo on >/sys/kernel/vmtrace/state
python3 -c 'bytearray(1 << 22)'
echo off >/sys/kernel/vmtrace/state
faults=$(cat /sys/kernel/vmtrace/faults) records=$(cat /sys/kernel/vmtrace/records) lost=$(cat /sys/kernel/vmtrace/lost)
echo "system-wide, 64-record rings, nobody reading: $faults faults, $records records, $lost lost"
expect_eq "$((records + lost))" "$faults" "records + lost against faults"
[ "$lost" -gt 0 ] || fail "nothing lost with 64-record rings and no reader"

# rmmod while tracing stops it cleanly.
echo on >/sys/kernel/vmtrace/state
ls / >/dev/null
rmmod vmtrace
expect_log "vmtrace: tracing off"
echo "capture: ok"
