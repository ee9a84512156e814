#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# (On 6.12, under one TCG thread, it took 259 s against 25 s on 6.1, for a
# collector that is the same on both; `scripts/vm-run --kernel 6.12 --
# /opt/vmtrace/tests/vm/guest/disk-full.sh` runs it there by hand.)
# The collector's disk fills: `record` and `start` write a trace into a
# 512 KiB tmpfs while a process that checks its own data runs traced under
# protection. Each time the cause (No space left on device) is said once,
# with the file's name and what it keeps; the command exits 1 (start's
# collector: `status` and `stop` say how it ended); the module's state is
# off; a -p target runs on, its data right (its own check) and its pages
# untraced, while record's own command ends with SIGTERM (as perf record's
# does); and, once there is room, verify --repair makes of the file a trace
# of its complete frames, which dump and stats read whole.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
mkdir small
mount -t tmpfs -o size=512k tmpfs small || fail "no tmpfs"
export VMTRACE_RUNDIR=/tmp/run

# A loop over 1024 pages that checks, each pass, that every page holds the
# pass's number, and counts its passes in passes.txt.
cat >loop.py <<'PY'
import sys
b = bytearray(4 << 20)
n = 0
while True:
    for i in range(0, len(b), 4096):
        if b[i] != n & 0xff:
            sys.exit("page %d holds %d in pass %d" % (i // 4096, b[i], n))
        b[i] = (n + 1) & 0xff
    n += 1
    if n % 16 == 0:
        with open("passes.txt", "w") as f:
            f.write("%d\n" % n)
PY
passes() { cat passes.txt 2>/dev/null || echo 0; }
passes_over() { [ "$(passes)" -gt "$1" ]; }

# filled WHAT STATUS ERRFILE PATH: the command ended as a full disk should
# end it, saying so with the file's PATH.
filled() {
	local what=$1 status=$2 err=$3 path=$4 n
	[ "$status" -eq 1 ] || fail "$what: exit $status, not 1: $(cat "$err")"
	n=$(grep -c "$path: write at byte [0-9]*: No space left on device" "$err")
	expect_eq "$n" 1 "$what: times the cause is said"
	grep -q "tracing stopped" "$err" || fail "$what: does not say tracing stopped: $(cat "$err")"
	grep -qF "$path keeps the frames written before the error; once there is room, 'vmtrace verify --repair $path'" "$err" ||
		fail "$what: does not say what the file keeps: $(cat "$err")"
	expect_eq "$(cat /sys/kernel/vmtrace/state)" off "$what: the module's state"
	[ "$(stat -c %s small/t.vmt)" -ge 262144 ] || fail "$what: the file holds $(stat -c %s small/t.vmt) bytes only"
}

# repaired WHAT: with room, verify --repair keeps the complete frames (at
# least 100 of 16 KiB), and every record of them reads back.
repaired() {
	local what=$1 kept decoded n
	mount -o remount,size=4m small
	vmtrace verify --repair small/t.vmt >repair.txt 2>&1 || fail "$what: verify --repair: $(cat repair.txt)"
	kept=$(sed -n 's/.*repaired: kept \([0-9]*\) frames.*/\1/p' repair.txt)
	decoded=$(sed -n 's/.*ok: \([0-9]*\) frames decoded.*/\1/p' repair.txt)
	[ "${kept:-0}" -ge 100 ] || fail "$what: only '${kept}' frames kept: $(cat repair.txt)"
	expect_eq "$decoded" "$kept" "$what: frames decoded after repair"
	n=$(vmtrace dump small/t.vmt | grep -c ' ref ')
	expect_eq "$(vmtrace stats small/t.vmt | awk '$1 == "reference" { print $2 }')" "$n" "$what: references read back"
	[ "$n" -ge 10000 ] || fail "$what: $n references only"
	echo "disk-full: $what: $kept frames kept, $n references read back"
	rm small/*
	mount -o remount,size=512k small
}

# record -p: the target runs on, untraced, its data right.
python3 loop.py &
pid=$!
wait_for "the loop's first passes" passes_over 0
rc=0
vmtrace record --frame-bytes 16384 --protect -n 16 -p $pid -o small/t.vmt 2>err.txt || rc=$?
filled "record -p" $rc err.txt small/t.vmt
faults=$(cat /sys/kernel/vmtrace/faults)
p=$(passes)
wait_for "the target's next passes" passes_over $((p + 32))
kill -0 $pid || fail "record -p: the target is gone: $(wait $pid; echo "exit $?")"
expect_eq "$(cat /sys/kernel/vmtrace/faults)" "$faults" "record -p: faults after the end"
repaired "record -p"

# record's command ends with SIGTERM.
rc=0
vmtrace record --frame-bytes 16384 --protect -n 16 -o small/t.vmt -- python3 loop.py 2>err.txt || rc=$?
filled "record --" $rc err.txt small/t.vmt
grep -q "tracing stopped, and the command with SIGTERM" err.txt || fail "record --: does not say the command ended: $(cat err.txt)"
pgrep -f "python3 loop.py" | grep -qvx $pid && fail "record --: the command runs on"
repaired "record --"

# start: the collector ends on its own; status and stop say how.
vmtrace start --frame-bytes 16384 --protect -n 16 -p $pid -o small/t.vmt || fail "start failed"
collector_gone() { ! vmtrace status >/dev/null 2>&1; }
wait_for "the collector to end" collector_gone
rc=0
vmtrace status >status.txt 2>&1 || rc=$?
expect_eq $rc 3 "status's exit status after the collector ended"
grep -q "the last one (pid [0-9]*) finished /tmp/small/t.vmt, exit status 1 (its log says why: /tmp/run/collector.log)" status.txt ||
	fail "status does not say how the collector ended: $(cat status.txt)"
rc=0
vmtrace stop >stop.txt 2>&1 || rc=$?
expect_eq $rc 1 "stop's exit status after the collector ended"
grep -q "the last one (pid [0-9]*) ended by itself, exit status 1 (its log: /tmp/run/collector.log)" stop.txt ||
	fail "stop does not say how the collector ended: $(cat stop.txt)"
filled "start" 1 run/collector.log /tmp/small/t.vmt
kill -0 $pid || fail "start: the target is gone"
repaired "start"

kill $pid
wait $pid 2>/dev/null || true
umount small
rmmod vmtrace
echo "disk-full: ok"
