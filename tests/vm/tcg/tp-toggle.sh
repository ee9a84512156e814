#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tp-toggle.sh [CYCLES]: not a test of vmtrace; tests/vm/host/tcg-patching.sh
# runs it on 6.12 under both of QEMU's TCG threading modes.
# Reproduces, without vmtrace, the guest hang its module loads and unloads
# meet under QEMU's TCG (tests/vm/guest/lifecycle.sh): switches the
# tracepoints vmtrace attaches to on and off through tracefs, CYCLES (400)
# times, while processes fault on both vCPUs. Each switch patches the
# tracepoints' call sites (text_poke_bp()). Run it with
#   scripts/vm-run --kernel debug [--cpus 1] -- /opt/vmtrace/tests/vm/tcg/tp-toggle.sh
set -euo pipefail
cycles=${1:-400}
mount -t tracefs none /sys/kernel/tracing 2>/dev/null || true
T=/sys/kernel/tracing/events
echo 0 >/sys/kernel/tracing/tracing_on
events="sched/sched_switch sched/sched_process_fork sched/sched_process_exec
	sched/sched_wakeup_new sched/sched_process_exit sched/sched_process_free
	task/task_rename raw_syscalls/sys_exit exceptions/page_fault_user
	exceptions/page_fault_kernel"
fault() { python3 -c 'import mmap; m = mmap.mmap(-1, 1 << 22); m[::4096] = b"x" * 1024'; }
for cpu in $(seq 0 $(($(nproc) - 1))); do
	( while :; do taskset -c "$cpu" bash -c "$(declare -f fault); fault"; done ) &
done
for i in $(seq "$cycles"); do
	for on in 1 0; do
		for e in $events; do
			echo $on >"$T/$e/enable"
		done
	done
	[ $((i % 20)) -ne 0 ] || echo "cycle $i"
done
echo "tp-toggle: $cycles cycles on $(nproc) CPUs"
kill $(jobs -p) 2>/dev/null || true
