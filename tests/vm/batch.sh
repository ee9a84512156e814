#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/batch.sh DIR TEST:SECONDS...: run guest tests (tests/vm/guest/
# TEST.sh) one after another in this guest, which scripts/run-vm-tests booted
# for them. For each test:
#
# - a clean slate first: every CPU online; nothing running but this runner;
#   no swap; KSM stopped; no huge pages reserved; the transparent huge page
#   settings of the boot; ftrace's events off, tracing on, its clock and
#   buffer size the kernel's defaults; a fresh /tmp; vmtrace not loaded;
# - the test runs in a process group of its own (timeout's), with its output
#   in DIR/TEST.log, and is killed, group and all, after SECONDS;
# - the module is unloaded if the test left it loaded, and the kernel log
#   the test made is read: a report (tests/vm/reports.sh) fails the test and
#   is appended to its log.
#
# DIR/results gets 'start TEST EPOCH' as a test starts and 'done TEST STATUS
# SECONDS' when it is over: STATUS is the test's exit status, 124 when it was
# killed at its timeout, 125 when the kernel logged a report during it. After
# a report, a timeout or a module that will not unload the guest is not
# trusted any more: the runner ends there, and scripts/run-vm-tests boots a
# fresh guest for the tests left. A report before the first test (the boot's)
# is written as 'boot-report' and ends the run the same way.
set -uo pipefail
. /opt/vmtrace/tests/vm/lib.sh
. /opt/vmtrace/tests/vm/reports.sh
set +e
dir=$1
shift
results=$dir/results
kmsg_seq=/run/vmt-batch.kmsg

# The boot's transparent huge page settings, put back before every test.
THP=/sys/kernel/mm/transparent_hugepage
thp_setting() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$THP/$1"; }
thp_enabled=$(thp_setting enabled)
thp_defrag=$(thp_setting defrag)
thp_max_ptes_none=$(cat $THP/khugepaged/max_ptes_none)
ksm_pages_to_scan=$(cat /sys/kernel/mm/ksm/pages_to_scan)

# Every process but PID 1, this runner and the kernel's threads (kthreadd's
# children): what a test started with setsid escapes its group's kill.
kill_leftovers() {
	local pids
	pids=$(ps -e -o pid=,ppid= | awk -v me=$$ '$1 != 1 && $1 != 2 && $2 != 2 && $1 != me { print $1 }')
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
	sleep 0.1
}

clean_slate() {
	local c T=/sys/kernel/tracing
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ ! -e "$c" ] || [ "$(cat "$c")" = 1 ] || echo 1 >"$c"
	done
	kill_leftovers
	swapoff -a 2>/dev/null
	rm -f /vmt-swapfile
	echo 2 >/sys/kernel/mm/ksm/run	# unmerge, then stop
	echo 0 >/sys/kernel/mm/ksm/run
	echo "$ksm_pages_to_scan" >/sys/kernel/mm/ksm/pages_to_scan
	echo 0 >/proc/sys/vm/nr_hugepages
	echo "$thp_enabled" >$THP/enabled
	echo "$thp_defrag" >$THP/defrag
	echo "$thp_max_ptes_none" >$THP/khugepaged/max_ptes_none
	if mountpoint -q $T; then
		echo 0 >$T/events/enable
		echo 1 >$T/tracing_on
		echo local >$T/trace_clock
		# The kernel's default (TRACE_BUF_SIZE_DEFAULT, 1441792 bytes a CPU).
		echo 1408 >$T/buffer_size_kb
		: >$T/trace
	fi
	umount -l /tmp
	mount -t tmpfs -o mode=1777 tmpfs /tmp
	cd /root || return 1
	! grep -q '^vmtrace ' /proc/modules || rmmod vmtrace
}

# kernel_log_since: the kernel log records written since the last call, a
# line each (from /dev/kmsg, whose sequence numbers survive the buffer
# wrapping around, unlike `dmesg` line counts).
kernel_log_since() {
	python3 - "$kmsg_seq" <<'PY'
import os, sys
path = sys.argv[1]
try:
    last = int(open(path).read())
except (OSError, ValueError):
    last = -1
fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
while True:
    try:
        rec = os.read(fd, 16384)
    except BlockingIOError:
        break
    except BrokenPipeError:     # records overwritten before they were read
        continue
    head, _, text = rec.decode(errors="replace").partition(";")
    seq = int(head.split(",")[1])
    if seq > last:
        last = seq
        print(text.split("\n", 1)[0])
open(path, "w").write(str(last))
PY
}

# report_in LOG: the report lines of a kernel log, with their context.
report_in() {
	grep -E -B3 -A40 "$REPORT_RE" "$1" | head -200
}

log=/run/vmt-batch.kernel
kernel_log_since >$log
if grep -Eq "$REPORT_RE" $log; then
	{ echo "the guest kernel logged a report while booting:"; report_in $log; } >"$dir/boot.log"
	echo "boot-report" >>"$results"
	exit 0
fi

for spec in "$@"; do
	name=${spec%:*} seconds=${spec##*:}
	clean_slate || { echo "boot-unclean $name" >>"$results"; exit 0; }
	kernel_log_since >/dev/null
	echo "start $name $(date +%s)" >>"$results"
	echo "batch: $name starts" >/dev/kmsg	# in the console log, between tests
	start=$SECONDS
	# timeout leads a process group of its own, and signals it all at the
	# end: TERM, then KILL 10 s later (status 137) if anything is left.
	timeout -k 10 "$seconds" "/opt/vmtrace/tests/vm/guest/$name.sh" >"$dir/$name.log" 2>&1 </dev/null
	status=$?
	[ $status -ne 137 ] || [ $((SECONDS - start)) -lt "$seconds" ] || status=124
	[ $status -ne 124 ] || echo "batch: killed after ${seconds}s: timed out" >>"$dir/$name.log"
	kill_leftovers
	if grep -q '^vmtrace ' /proc/modules && ! rmmod vmtrace; then
		echo "batch: the test left vmtrace loaded, and rmmod failed" >>"$dir/$name.log"
		[ $status -ne 0 ] || status=1
		untrusted=1
	else
		untrusted=0
	fi
	kernel_log_since >$log
	if grep -Eq "$REPORT_RE" $log; then
		{ echo "batch: the guest kernel logged a report during $name:"; report_in $log; } \
			>>"$dir/$name.log"
		status=125
	fi
	echo "done $name $status $((SECONDS - start))" >>"$results"
	[ $status -ne 124 ] && [ $status -ne 125 ] && [ $untrusted -eq 0 ] || exit 0
done
exit 0
