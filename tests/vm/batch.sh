#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/batch.sh DIR TEST:SECONDS...: run guest tests (tests/vm/guest/
# TEST.sh) one after another in this guest, which scripts/run-vm-tests booted
# for them. For each test:
#
# - the test runs in a process group of its own (timeout's), with its output
#   in DIR/TEST.log, and is killed, group and all, after SECONDS;
# - the module is unloaded if the test left it loaded, and the guest is put
#   back to a clean slate: every CPU online; nothing running but this runner;
#   no swap; KSM stopped; no huge pages reserved; the transparent huge page
#   settings of the boot; ftrace's events off, tracing on, its clock and
#   buffer size the kernel's defaults; a fresh /tmp (the first test gets
#   one too);
# - then the kernel log the test and its clean-up made is read: a report
#   (tests/vm/reports.sh) fails the test and is appended to its log.
#
# Every step between tests is a shell builtin where one will do: on the debug
# kernel a fork and exec takes 0.4 s.
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

# The boot's transparent huge page settings, put back after every test.
THP=/sys/kernel/mm/transparent_hugepage
thp_setting() { sed -n 's/.*\[\(.*\)\].*/\1/p' "$THP/$1"; }
thp_enabled=$(thp_setting enabled)
thp_defrag=$(thp_setting defrag)
thp_max_ptes_none=$(cat $THP/khugepaged/max_ptes_none)
ksm_pages_to_scan=$(cat /sys/kernel/mm/ksm/pages_to_scan)

# Every process but PID 1, this runner and the kernel's threads (kthreadd's
# children): what a test started with setsid escapes its group's kill.
kill_leftovers() {
	local stat line pid ppid pids=()
	for stat in /proc/[0-9]*/stat; do
		{ read -r line <"$stat"; } 2>/dev/null || continue	# gone already
		pid=${line%% *}
		line=${line##*) }	# after the command's name: state, ppid, ...
		ppid=${line#* } ppid=${ppid%% *}
		[ "$pid" = 1 ] || [ "$pid" = 2 ] || [ "$ppid" = 2 ] || [ "$pid" = $$ ] ||
			pids+=("$pid")
	done
	[ ${#pids[@]} -gt 0 ] || return 0
	kill -KILL "${pids[@]}" 2>/dev/null
	sleep 0.1
}

vmtrace_loaded() {
	local mod rest
	while read -r mod rest; do
		[ "$mod" != vmtrace ] || return 0
	done </proc/modules
	return 1
}

clean_slate() {
	local c on swaps T=/sys/kernel/tracing
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ ! -e "$c" ] || { read -r on <"$c" && [ "$on" = 1 ]; } || echo 1 >"$c"
	done
	kill_leftovers
	mapfile -t swaps </proc/swaps	# a header line, then a line a swap
	[ ${#swaps[@]} -le 1 ] || swapoff -a
	[ ! -e /vmt-swapfile ] || rm -f /vmt-swapfile
	echo 2 >/sys/kernel/mm/ksm/run	# unmerge, then stop
	echo 0 >/sys/kernel/mm/ksm/run
	echo "$ksm_pages_to_scan" >/sys/kernel/mm/ksm/pages_to_scan
	echo 0 >/proc/sys/vm/nr_hugepages
	echo "$thp_enabled" >$THP/enabled
	echo "$thp_defrag" >$THP/defrag
	echo "$thp_max_ptes_none" >$THP/khugepaged/max_ptes_none
	if [ -e $T/tracing_on ]; then
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
}

# kernel_log_since: the kernel log records written since the last call, a
# line each (tests/vm/progs/kmsg.c).
kernel_log_since() { vmt-kmsg "$kmsg_seq" | drop_oom_reports; }

# report_in LOG: the report lines of a kernel log, with their context.
report_in() {
	grep -E -B3 -A40 "$REPORT_RE" "$1" | head -200
}

log=/run/vmt-batch.kernel
# The boot's log, and that of the first clean slate.
clean_slate || { echo "boot-unclean" >>"$results"; exit 0; }
kernel_log_since >$log
if grep -Eq "$REPORT_RE" $log; then
	{ echo "the guest kernel logged a report while booting:"; report_in $log; } >"$dir/boot.log"
	echo "boot-report" >>"$results"
	exit 0
fi

for spec in "$@"; do
	name=${spec%:*} seconds=${spec##*:}
	echo "start $name $(printf '%(%s)T' -1)" >>"$results"
	echo "batch: $name starts" >/dev/kmsg	# in the console log, between tests
	start=$SECONDS
	# timeout leads a process group of its own, and signals it all at the
	# end: TERM, then KILL 10 s later (status 137) if anything is left.
	timeout -k 10 "$seconds" "/opt/vmtrace/tests/vm/guest/$name.sh" >"$dir/$name.log" 2>&1 </dev/null
	status=$?
	[ $status -ne 137 ] || [ $((SECONDS - start)) -lt "$seconds" ] || status=124
	[ $status -ne 124 ] || echo "batch: killed after ${seconds}s: timed out" >>"$dir/$name.log"
	kill_leftovers
	untrusted=0
	if vmtrace_loaded && ! rmmod vmtrace; then
		echo "batch: the test left vmtrace loaded, and rmmod failed" >>"$dir/$name.log"
		[ $status -ne 0 ] || status=1
		untrusted=1
	fi
	if ! clean_slate; then
		echo "batch: the guest could not be put back to a clean slate after the test" >>"$dir/$name.log"
		[ $status -ne 0 ] || status=1
		untrusted=1
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
