#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Exact mode's cost, in one boot (scripts/bench-exact): vmt-exact-bench
# makes ACCESSES accesses, PERCENT of them to one exact page, run
#   - untraced ("native-P"),
#   - under vmtrace record --exact on that page ("vmtrace-P"): every access
#     to it single-stepped and logged with its value, the rest of the
#     process traced with page protection (which --exact implies),
#   - under valgrind --tool=lackey --trace-mem=yes ("lackey-P"), which logs
#     every access of the whole program, to /dev/null,
# for P = 1, 10 and 100, RUNS times each, in turns. Prints "KEY SECONDS"
# lines: the median wall time of the whole command, and "KEY-loop SECONDS",
# the median time of the accesses alone (the program's own clock).
. /opt/vmtrace/tests/vm/lib.sh
ACCESSES=${1:-200000}
RUNS=${2:-3}
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo "accesses $ACCESSES"
echo "runs $RUNS"
bin=/opt/vmtrace/bin/vmt-exact-bench
# run NAME CMD...: one run; its wall time and loop time appended to NAME's lists.
run() {
	timed_run "$@" || return 1
	awk 'NR == 1 { print $1 }' "$1.out" >>"$1.loop"
}
for p in 1 10 100; do
	rm -f ./*-"$p".wall ./*-"$p".loop
	for _ in $(seq "$RUNS"); do
		run native-$p "$bin" "$ACCESSES" $p
		run vmtrace-$p vmtrace record -q -o /tmp/exact.vmt --exact 10000000000-10000001000 -- \
			"$bin" "$ACCESSES" $p
		run lackey-$p valgrind --tool=lackey --trace-mem=yes --log-file=/dev/null \
			"$bin" "$ACCESSES" $p
	done
	for c in native vmtrace lackey; do
		echo "$c-$p $(median <"$c-$p.wall")"
		echo "$c-$p-loop $(median <"$c-$p.loop")"
	done
	echo "vmtrace-$p-records $(vmtrace stats /tmp/exact.vmt | awk '$1 == "exact" { print $2 }')"
done
