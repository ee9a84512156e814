#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A guest command that makes kernel $1 log a WARNING fails the run (exit 125),
# and vm-run prints the report, even though the command itself succeeded.
set -uo pipefail
k=$1
vmrun=$(dirname "$0")/../../../scripts/vm-run
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$vmrun" --kernel "$k" -- sh -c 'insmod /opt/vmtrace/lib/vmt_test_warn.ko; exit 0' 2>&1)
rc=$?
echo "$out" | tail -30
[ $rc -eq 125 ] || fail "exit status $rc, not 125"
grep -q "logged a report" <<<"$out" || fail "no report header"
grep -q "vmtrace test: deliberate warning" <<<"$out" || fail "the warning was not printed"
grep -q "WARNING:" <<<"$out" || fail "no WARNING line"
echo "vm-run-catches-warn: ok"
