#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtrace start, stop and status: start returns once tracing is on and the
# collector runs on in the background; status shows the module's state and
# the collector's pid, file and progress; stop makes it finalize the file,
# waits for it and prints its summary; the file reads back. And the errors:
# start while one runs, stop with none, a stale pid file (SIGKILL).
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
export VMTRACE_RUNDIR=/tmp/vmt-run
insmod "$VMT_LIB/vmtrace.ko"

cat >loop.py <<'PY'
import time
b = bytearray(2 << 20)
while True:
    for i in range(0, len(b), 4096):
        b[i] = (b[i] + 1) & 0xff
    time.sleep(0.01)
PY
python3 loop.py &
target=$!

vmtrace status >status0.txt && fail "status said a collector runs before start"
grep -q '^collector: none running' status0.txt || fail "status without a collector: $(cat status0.txt)"
vmtrace stop 2>stop0.txt && fail "stop without a collector succeeded"
grep -q 'no collector is running' stop0.txt || fail "stop without a collector: $(cat stop0.txt)"

vmtrace start -o bg.vmt --protect -n 16 -p "$target" 2>start.txt
cat start.txt
grep -q "collector [0-9]* tracing into /tmp/bg.vmt" start.txt || fail "start did not say it traces"
collector=$(cat "$VMTRACE_RUNDIR/collector.pid")
kill -0 "$collector" || fail "collector $collector is not running after start"
expect_eq "$(cat /sys/kernel/vmtrace/state)" "on" "module state after start"

vmtrace start -o other.vmt -p "$target" 2>again.txt && fail "a second start succeeded"
grep -q "already running (pid $collector" again.txt || fail "second start: $(cat again.txt)"
[ ! -e other.vmt ] || fail "a refused start created its file"

progressed() { vmtrace status >status1.txt; awk '/^progress:/ { exit !($4 > 0) }' status1.txt; }
wait_for "progress in status" progressed
cat status1.txt
grep -q "^collector: pid $collector, tracing, writing /tmp/bg.vmt" status1.txt ||
	fail "status: $(cat status1.txt)"
grep -q "^module: state=on" status1.txt || fail "status lacks the module's state"

vmtrace stop 2>stop1.txt
cat stop1.txt
grep -q "\[ vmtrace record: wrote .* /tmp/bg.vmt (" stop1.txt || fail "stop did not print the summary"
kill -0 "$collector" 2>/dev/null && fail "collector $collector still runs after stop"
[ ! -e "$VMTRACE_RUNDIR/collector.pid" ] || fail "the pid file outlived the collector"
expect_eq "$(cat /sys/kernel/vmtrace/state)" "off" "module state after stop"
vmtrace verify bg.vmt
records=$(sed -n 's/.*(\([0-9]*\) records,.*/\1/p' stop1.txt)
expect_eq "$(vmtrace dump bg.vmt | wc -l)" "$records" "records read back"
vmtrace status >status2.txt && fail "status said a collector runs after stop"
grep -q "the last one (pid $collector) finished /tmp/bg.vmt, exit status 0, $records records" status2.txt ||
	fail "status after stop: $(cat status2.txt)"
echo "start/status/stop: $records records"

# A collector killed with SIGKILL leaves a stale pid file.
vmtrace start -q -o killed.vmt --protect -n 16 -p "$target"
collector=$(cat "$VMTRACE_RUNDIR/collector.pid")
kill -9 "$collector"
while kill -0 "$collector" 2>/dev/null; do sleep 0.01; done
vmtrace status >status3.txt && fail "status said a killed collector runs"
grep -q "stale pid file: collector $collector died" status3.txt || fail "status: $(cat status3.txt)"
vmtrace stop 2>stop3.txt && fail "stop of a dead collector succeeded"
grep -q "stale .*collector $collector died without finishing /tmp/killed.vmt" stop3.txt ||
	fail "stop with a stale pid file: $(cat stop3.txt)"
[ ! -e "$VMTRACE_RUNDIR/collector.pid" ] || fail "stop left the stale pid file"
kill "$target"
rmmod vmtrace
echo "daemon: ok"
