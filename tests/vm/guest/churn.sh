#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Processes come and go by the thousand in a long trace: a target that
# exits is dropped, and its room (VMT_MAX_TARGETS = 1024 processes and
# address spaces at once) serves the next ones: 560 short-lived children,
# followed (1120 address spaces, more than that room, each protected), then
# one whose protection faults must be in the trace. Nothing may be counted as missed. The debug
# kernel (KASAN, lockdep) runs 150 children: the dropping and the reuse of
# slots are the same, 560 would take it a quarter of an hour under TCG.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
S=/sys/kernel/vmtrace
n=560
if debug_kernel; then n=150; fi

# Each /bin/true is a new process, and two address spaces (fork, exec).
vmtrace record-raw --protect --follow -o follow.raw -- bash -c '
	for ((i = 0; i < '"$n"'; i++)); do /bin/true; done
	sh -c "echo \$\$ >last.pid; exec /bin/true"
	:' 2>follow.summary ||
	fail "record-raw failed: $(cat follow.summary)"
cat follow.summary
expect_eq "$(cat $S/missed)" 0 "processes or address spaces missed (--follow)"
last=$(cat last.pid)
vmtrace dump-raw follow.raw >follow.txt
python3 - "$last" "$n" <<'PY'
import sys
last, n = sys.argv[1], int(sys.argv[2])
pids, prot = set(), 0
for line in open("follow.txt"):
    w = line.split()
    if w[1] != "ref":
        continue
    f = dict(kv.split("=", 1) for kv in w[2:] if "=" in kv)
    if "pid" not in f:
        continue
    pids.add(f["pid"])
    if f["pid"] == last and f["cause"] == "protection":
        prot += 1
if len(pids) != n + 2:
    sys.exit(f"FAIL: references of {len(pids)} processes, not {n + 2}")
if prot == 0:
    sys.exit(f"FAIL: the last process ({last}) has no protection fault in the trace")
print(f"--follow: references of {len(pids)} processes; the last one, after {n} "
      f"exited, {prot} protection faults")
PY

rmmod vmtrace
echo "churn: ok"
