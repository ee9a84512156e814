#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# drain.sh [RUNS [CONFIGS]]: the guest side of scripts/bench-drain and
# scripts/bench-relay-drain. The collector's drain rate, in one boot:
# `vmtrace record -a` traces the whole system while two `vmt-fault-loop
# 100000` processes, one pinned to each CPU, fault as fast as they can; the
# loops are not the collector's children (it waits on a FIFO), so that
# bash's `times` gives the collector's own CPU time, its compression threads
# included. CONFIGS (default "model vpc") says how it records: `model` and
# `vpc`, `--codec C -o drain.vmt`, a local file; `relay`, the model codec
# with `--relay` alone to a `vmtrace relay` in this guest, on loopback
# (started once, storing in /tmp/relay-dir; its CPU time over each run from
# /proc/PID/stat). Prints "KEY VALUE" lines: for each configuration, the
# records drained and lost (the rings' losses, and for relay those the
# sender's spool dropped too) and the runs that lost any, the seconds from the loops' start to the
# collector's exit, records a second, the collector's CPU seconds and the
# file's bytes (the relay's stored file for relay, which is also counted
# and verified: relay-stored-records), medians of RUNS (3) runs taken in
# turns.
set -euo pipefail
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
RUNS=${1:-3}
CONFIGS=${2:-"model vpc"}
PAGES=100000
echo "pages $PAGES"
echo "runs $RUNS"
echo never >/sys/kernel/mm/transparent_hugepage/enabled
insmod /opt/vmtrace/lib/vmtrace.ko

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# seconds M S: bash's "XmY.ZZZs" as seconds
seconds() { awk -v t="$1" 'BEGIN { split(t, a, "m"); sub("s", "", a[2]); print a[1] * 60 + a[2] }'; }
tracing() { [ "$(cat /sys/kernel/vmtrace/state)" = on ]; }
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

relay=
rdir=/tmp/relay-dir
if [[ " $CONFIGS " == *" relay "* ]]; then
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
	rm -rf "$rdir"
	mkdir -p "$rdir"
	vmtrace relay --listen "127.0.0.1:$port" --dir "$rdir" -q >relay.log 2>&1 &
	relay=$!
	trap 'kill $relay 2>/dev/null' EXIT
	wait_for "the relay to listen" python3 -c \
		"import socket; socket.create_connection(('127.0.0.1', $port)).close()"
fi

for run in $(seq "$RUNS"); do
	for config in $CONFIGS; do
		rm -f go drain.vmt
		mkfifo go
		out=(--codec "$config" -o drain.vmt)
		file=drain.vmt
		if [ "$config" = relay ]; then
			out=(--relay "127.0.0.1:$port" --relay-session "run$run")
			file=$rdir/$(hostname)/run$run.vmt
			cpu0=$(ticks $relay)
		fi
		(
			vmtrace record -a "${out[@]}" -- sh -c 'read x <go' 2>summary.$config
			times >times.$config
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
		drained=$(sed -n 's/.*(\([0-9]*\) records,.*/\1/p' summary.$config)
		[ -n "$drained" ] || fail "$config: no summary: $(cat summary.$config)"
		lost=$(sed -n 's/.* \([0-9]*\) lost[),].*/\1/p' summary.$config)
		# times: the subshell's line, then its children's (the collector's).
		read -r u s < <(sed -n 2p times.$config)
		cpu=$(awk -v u="$(seconds "$u")" -v s="$(seconds "$s")" 'BEGIN { printf "%.3f", u + s }')
		secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
		if [ "$config" = relay ]; then
			dropped=$(sed -n 's/.* frames dropped (\([0-9]*\) records).*/\1/p' summary.$config)
			[ -n "$dropped" ] || fail "relay: no relay summary: $(cat summary.$config)"
			lost=$((lost + dropped))
			relay_cpu=$(awk -v a="$cpu0" -v b="$(ticks $relay)" -v t="$(getconf CLK_TCK)" \
				'BEGIN { printf "%.3f", (b - a) / t }')
			vmtrace verify "$file" >/dev/null || fail "relay: the stored $file does not verify"
			stored=$(vmtrace stats "$file" | sed -n 's/^records: //p')
			echo "$stored $relay_cpu" >>stored.relay
		fi
		echo "$config $drained $lost $secs $cpu $(stat -c %s "$file")" >>runs.$config
		cat summary.$config >&2
	done
done
for config in $CONFIGS; do
	echo "drain-$config-records $(awk '{ print $2 }' runs.$config | median)"
	echo "drain-$config-lost $(awk '{ s += $3 } END { print s }' runs.$config)"
	echo "drain-$config-lossy-runs $(awk '$3 > 0' runs.$config | wc -l)"
	echo "drain-$config-seconds $(awk '{ print $4 }' runs.$config | median)"
	echo "drain-$config-rate $(awk '{ printf "%.0f\n", $2 / $4 }' runs.$config | median)"
	echo "drain-$config-cpu $(awk '{ print $5 }' runs.$config | median)"
	echo "drain-$config-cpu-per-record $(awk '{ printf "%.2f\n", $5 / $2 * 1e6 }' runs.$config | median)"
	echo "drain-$config-bytes $(awk '{ print $6 }' runs.$config | median)"
done
if [ -e stored.relay ]; then
	# Records stored less drained, summed over the runs: 0 when nothing was dropped.
	echo "relay-stored-less-drained $(paste -d' ' stored.relay runs.relay |
		awk '{ s += $1 - $4 } END { print s }')"
	echo "relay-cpu $(awk '{ print $2 }' stored.relay | median)"
	kill $relay
	wait $relay 2>/dev/null || true
	trap - EXIT
fi
rm -f drain.vmt go
rmmod vmtrace
