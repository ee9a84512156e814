#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.12
# A test of the platform, not of vmtrace: QEMU 7.2's multi-threaded TCG kills
# Debian's 6.12 when the kernel patches live code (text_poke_bp(): static
# keys, kprobes, tracepoints) while another vCPU runs, with no vmtrace module
# loaded; one TCG thread for all vCPUs does not. tests/vm/tcg/tp-toggle.sh
# switches the kernel's own tracepoints on and off through tracefs while both
# vCPUs fault. Under --tcg multi the guest must oops within $MULTI_CYCLES
# cycles, its first oops an int3 (a vCPU met text_poke_bp()'s breakpoint
# after it was gone) or an invalid opcode (a vCPU ran a half-written
# instruction): both are the torn patch; under --tcg single, which vm-run uses on 6.12, it
# must run $SINGLE_CYCLES cycles clean. The day the first part fails, QEMU no
# longer meets the fault and 6.12 may go back to multi-threaded TCG
# (docs/TESTING.md, "Live code patching under QEMU's TCG"). Multi-threaded,
# the guest oopsed 9 s after boot, in the first 20 cycles; single-threaded,
# a cycle takes about 1.7 s (400 cycles ran clean in 12 minutes), so the
# test runs 20: as much patching as the oops needed.
set -uo pipefail
k=$1
vmrun=$(dirname "$0")/../../../scripts/vm-run
fail() { echo "FAIL: $*" >&2; exit 1; }
MULTI_CYCLES=${MULTI_CYCLES:-3000}
SINGLE_CYCLES=${SINGLE_CYCLES:-20}
toggle=/opt/vmtrace/tests/vm/tcg/tp-toggle.sh

start=$(date +%s)
# --console: the whole console, since a guest that oopses on and on
# (19 times in one CI run) wraps its log buffer past the first oops before
# vm-run's final dmesg.
out=$("$vmrun" --kernel "$k" --tcg multi --timeout 900 --console -- "$toggle" "$MULTI_CYCLES" 2>&1)
rc=$?
first=$(grep -m1 -o 'Oops: [a-z0-9 ]*' <<<"$out")
echo "$out" | grep -E -m3 'Oops|RIP:|tp-toggle:'
echo "multi-threaded TCG: exit $rc after $(($(date +%s) - start)) s, first oops: ${first:-none}"
[ $rc -eq 125 ] && grep -Eq '^Oops: (int3|invalid opcode)' <<<"$first" ||
	fail "$k under multi-threaded TCG ran $MULTI_CYCLES tracepoint cycles (exit $rc) and its first oops was '${first:-none}', not 'Oops: int3' or 'Oops: invalid opcode': the platform fault is gone, or has changed"

start=$(date +%s)
out=$("$vmrun" --kernel "$k" --tcg single --timeout 900 -- "$toggle" "$SINGLE_CYCLES" 2>&1)
rc=$?
echo "$out" | grep -E -m3 'Oops|RIP:|tp-toggle:'
echo "single-threaded TCG: exit $rc after $(($(date +%s) - start)) s"
[ $rc -eq 0 ] || fail "$k under single-threaded TCG: exit $rc in $SINGLE_CYCLES tracepoint cycles"
grep -q "tp-toggle: $SINGLE_CYCLES cycles" <<<"$out" || fail "tp-toggle did not finish its cycles"
echo "tcg-patching: ok"
