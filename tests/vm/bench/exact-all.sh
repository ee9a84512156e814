#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Exact mode's cost over a whole program, in one boot (docs/exact.md, "Whole
# programs"): `vmt-exact-all run` (ld.so, libc's start, its own loops:
# about 365,000 instructions and 89,000 data accesses) run
#   - untraced ("native"),
#   - under vmtrace record --exact all ("vmtrace"): every instruction and
#     data access of the process stepped and logged, into rings that hold
#     the whole run (on 6.12 the collector falls behind: no record lost),
#   - under valgrind --tool=lackey --trace-mem=yes ("lackey"), logging the
#     same to /dev/null,
# RUNS times each, in turns. Prints "KEY SECONDS" lines, the median wall
# time of the whole command, and "vmtrace-records N".
#   scripts/vm-run --kernel 6.1 -- /opt/vmtrace/tests/vm/bench/exact-all.sh [RUNS]
. /opt/vmtrace/tests/vm/lib.sh
RUNS=${1:-3}
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo "runs $RUNS"
bin=/opt/vmtrace/bin/vmt-exact-all
rm -f ./*.wall
for _ in $(seq "$RUNS"); do
	timed_run native "$bin" run
	timed_run vmtrace vmtrace record -q -o /tmp/all.vmt -r 524288 --exact all -- "$bin" run
	timed_run lackey valgrind --tool=lackey --trace-mem=yes --log-file=/dev/null "$bin" run
done
for c in native vmtrace lackey; do
	echo "$c $(median <"$c.wall")"
done
echo "vmtrace-records $(vmtrace stats /tmp/all.vmt | awk '$1 == "exact" { print $2 }')"
