#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make bench`: the cost of first-touch page faults, untraced,
# counted by the BPF program (vmtrace faults), and logged by vmtrace
# (record-raw, demand faults only), on the same workload in the same boot.
# Prints one line per configuration: name, median seconds of 5 runs.
set -euo pipefail
cd /tmp
insmod /opt/vmtrace/lib/vmtrace.ko
echo never >/sys/kernel/mm/transparent_hugepage/enabled
cat >touch.py <<'PY'
import mmap, time
n = 20000
t = time.perf_counter()
m = mmap.mmap(-1, n * 4096)
for i in range(0, n * 4096, 4096):
    m[i] = 1
print(f"{time.perf_counter() - t:.6f}")
PY
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
run5() { for _ in 1 2 3 4 5; do "$@" 2>/dev/null | tail -1; done | median; }
echo "untraced $(run5 python3 touch.py)"
echo "bpf-count $(for _ in 1 2 3 4 5; do vmtrace faults -- python3 touch.py 2>/dev/null | head -1; done | median)"
echo "vmtrace $(for _ in 1 2 3 4 5; do vmtrace record-raw -o /tmp/b.raw -- python3 touch.py 2>/dev/null | tail -1; done | median)"
rmmod vmtrace
