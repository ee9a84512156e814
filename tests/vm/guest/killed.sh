#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.12 debug
# timeout: 900
# Traced processes that die by force: ROUNDS times (8; 3 on the debug kernel)
# a process under `vmtrace record -e task -p PID` is killed with SIGKILL at a
# random moment (0 to 400 ms into tracing): with protection (a loop over 128
# pages and an enabled set of 16), and in exact mode (vmt-exact-busy, its two
# pages stepped access by access). Then the OOM killer: a process traced with
# protection from its start allocates past its memory cgroup's 48 MiB. Each
# time the collector ends by itself with the process's exit, its exit record
# (code SIGKILL) in a trace that verifies; the module's state is off, and no
# page stays pinned (/proc/vmstat: every FOLL_PIN acquired since the test
# began released), and the module unloads.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
ROUNDS=${1:-8}
debug_kernel && [ $# -eq 0 ] && ROUNDS=3
insmod "$VMT_LIB/vmtrace.ko"
pins() { awk '$1 == "nr_foll_pin_acquired" { a = $2 } $1 == "nr_foll_pin_released" { r = $2 }
	END { print a - r }' /proc/vmstat; }
pinned_before=$(pins)

# traced_then_killed WHAT PID RECORD-PID: kill PID at a random moment of its
# tracing; the collector must end with its exit in the trace.
traced_then_killed() {
	local what=$1 pid=$2 rec=$3 rc=0
	wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
	sleep "0.$(printf '%03d' $((RANDOM % 400)))"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true	# killed: 137
	wait "$rec" || rc=$?
	[ $rc -eq 0 ] || fail "$what: record exited $rc: $(cat summary.txt)"
	vmtrace verify k.vmt >/dev/null || fail "$what: verify: $(vmtrace verify k.vmt 2>&1)"
	vmtrace dump --type exit --pid "$pid" k.vmt | grep -q ' code=9 group_dead=1' ||
		fail "$what: no exit record of $pid (code 9, SIGKILL) in the trace"
	expect_eq "$(cat /sys/kernel/vmtrace/state)" off "$what: the module's state"
}

cat >loop.py <<'PY'
import mmap
m = mmap.mmap(-1, 128 * 4096)
while True:
    for i in range(128):
        m[i * 4096] = (m[i * 4096] + 1) % 256
PY
for i in $(seq "$ROUNDS"); do
	python3 loop.py &
	pid=$!
	vmtrace record -e task --protect -n 16 -p "$pid" -o k.vmt 2>summary.txt &
	traced_then_killed "protection, round $i" "$pid" $!

	rm -rf busy && mkdir busy
	vmt-exact-busy busy &
	pid=$!
	wait_for "the exact-mode program" test -e busy/ready
	vmtrace record -e task --exact 10000000000-10000002000 -p "$pid" -o k.vmt 2>summary.txt &
	traced_then_killed "exact mode, round $i" "$pid" $!
	[ "$(cat /sys/kernel/vmtrace/exact_accesses)" -gt 0 ] || echo "exact mode, round $i: killed before its first access"
done
echo "$ROUNDS rounds: killed while traced with protection, and in exact mode"

# The OOM killer, in a memory cgroup of 48 MiB without swap.
mountpoint -q /sys/fs/cgroup || mount -t cgroup2 none /sys/fs/cgroup
echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
mkdir -p /sys/fs/cgroup/vmt-oom
echo 48M >/sys/fs/cgroup/vmt-oom/memory.max
echo 0 >/sys/fs/cgroup/vmt-oom/memory.swap.max 2>/dev/null || true
rc=0
vmtrace record -e task --protect -n 64 -o k.vmt -- sh -c \
	'echo $$ >/sys/fs/cgroup/vmt-oom/cgroup.procs && exec python3 -c "
a = []
while True:
    a.append(bytearray(1 << 20))"' 2>summary.txt || rc=$?
expect_eq "$rc" 137 "the OOM-killed command's status, through record"
expect_log "Memory cgroup out of memory: Killed process"
vmtrace verify k.vmt >/dev/null || fail "OOM: verify: $(vmtrace verify k.vmt 2>&1)"
vmtrace dump --type exit k.vmt | grep -q ' code=9 group_dead=1' ||
	fail "OOM: no exit record with code 9 (SIGKILL) in the trace: $(vmtrace dump --type exit k.vmt)"
rmdir /sys/fs/cgroup/vmt-oom
echo "OOM killer: the traced process killed in its cgroup, the trace whole"

expect_eq "$(cat /sys/kernel/vmtrace/state)" off "the module's state"
rmmod vmtrace
expect_eq "$(pins)" "$pinned_before" "pages pinned (FOLL_PIN acquired - released)"
echo "killed: ok"
