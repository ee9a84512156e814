#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# drain.sh [RUNS]: the guest side of scripts/bench-drain. The collector's
# drain rate with each codec, in one boot: `vmtrace record -a --codec C`
# traces the whole system while two `vmt-fault-loop 100000` processes, one
# pinned to each CPU, fault as fast as they can; the loops are not the
# collector's children (it waits on a FIFO), so that bash's `times` gives
# the collector's own CPU time, its compression threads included. Prints
# "KEY VALUE" lines: for each codec, the records drained and lost, the
# seconds from the loops' start to the collector's exit, records a second,
# the collector's CPU seconds and the file's bytes, medians of RUNS (3)
# runs taken in turns.
set -euo pipefail
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
RUNS=${1:-3}
PAGES=100000
CODECS="model vpc"
echo "pages $PAGES"
echo "runs $RUNS"
echo never >/sys/kernel/mm/transparent_hugepage/enabled
insmod /opt/vmtrace/lib/vmtrace.ko

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# seconds M S: bash's "XmY.ZZZs" as seconds
seconds() { awk -v t="$1" 'BEGIN { split(t, a, "m"); sub("s", "", a[2]); print a[1] * 60 + a[2] }'; }
tracing() { [ "$(cat /sys/kernel/vmtrace/state)" = on ]; }

for run in $(seq "$RUNS"); do
	for codec in $CODECS; do
		rm -f go drain.vmt
		mkfifo go
		(
			vmtrace record -a --codec "$codec" -o drain.vmt -- sh -c 'read x <go' \
				2>summary.$codec
			times >times.$codec
		) &
		collector=$!
		wait_for "tracing on" tracing
		t0=$(date +%s%N)
		taskset -c 0 vmt-fault-loop $PAGES >/dev/null &
		loop=$!
		taskset -c 1 vmt-fault-loop $PAGES >/dev/null
		wait $loop
		echo >go
		wait $collector
		t1=$(date +%s%N)
		drained=$(sed -n 's/.*(\([0-9]*\) records,.*/\1/p' summary.$codec)
		[ -n "$drained" ] || fail "$codec: no summary: $(cat summary.$codec)"
		# times: the subshell's line, then its children's (the collector's).
		read -r u s < <(sed -n 2p times.$codec)
		cpu=$(awk -v u="$(seconds "$u")" -v s="$(seconds "$s")" 'BEGIN { printf "%.3f", u + s }')
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
		echo "$codec $drained $(sed -n 's/.* \([0-9]*\) lost[),].*/\1/p' summary.$codec) $secs $cpu $(stat -c %s drain.vmt)" >>runs.$codec
		cat summary.$codec >&2
	done
done
for codec in $CODECS; do
	echo "drain-$codec-records $(awk '{ print $2 }' runs.$codec | median)"
	echo "drain-$codec-lost $(awk '{ s += $3 } END { print s }' runs.$codec)"
	echo "drain-$codec-seconds $(awk '{ print $4 }' runs.$codec | median)"
	echo "drain-$codec-rate $(awk '{ printf "%.0f\n", $2 / $4 }' runs.$codec | median)"
	echo "drain-$codec-cpu $(awk '{ print $5 }' runs.$codec | median)"
	echo "drain-$codec-cpu-per-record $(awk '{ printf "%.2f\n", $5 / $2 * 1e6 }' runs.$codec | median)"
	echo "drain-$codec-bytes $(awk '{ print $6 }' runs.$codec | median)"
done
rm -f drain.vmt go
rmmod vmtrace
