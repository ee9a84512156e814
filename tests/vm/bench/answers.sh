#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# answers.sh: the guest side of scripts/bench-answers. One deterministic
# workload (tests/vm/progs/pages.c: loops, a hot set, strides over 8 MiB)
# traced with `vmtrace record --protect` at N=0 (every access
# to another page than the current run's is logged: the reference), at N=64
# and N=512 under FIFO, and N=64 under CLOCK; then the LRU and FIFO curves
# `vmtrace mrc` computes from each trace, printed as
#   curve TRACE POLICY PAGES REFERENCES FAULTS
# and the N=0 trace reduced by `vmtrace reduce --sad R` for a few R:
#   reduce R REFERENCES KEPT
set -euo pipefail
. /opt/vmtrace/tests/vm/lib.sh
insmod /opt/vmtrace/lib/vmtrace.ko
echo never >/sys/kernel/mm/transparent_hugepage/enabled
cd /tmp
sizes=16,32,64,128,256,512,1024,2048,4096,8192

workload=(vmt-pages 2048 100000)
trace() {  # trace NAME record-options...
	local name=$1 start
	shift
	start=$(date +%s)
	vmtrace record -q -o "$name.vmt" --protect "$@" -- "${workload[@]}" >/dev/null
	echo "traced $name in $(($(date +%s) - start)) s: $(vmtrace info "$name.vmt" |
		sed -n 's/^records: //p') records"
	vmtrace mrc "$name.vmt" --policy lru,fifo --sizes $sizes --csv |
		awk -F, -v t="$name" 'NR > 1 { print "curve", t, $1, $2, $3, $4 }'
}

trace n0 -n 0
refs() { vmtrace stats "$1" | awk '$1 == "reference" { print $2 }'; }
for r in 16 64 256 1024; do
	vmtrace reduce --sad $r n0.vmt -o sad.vmt >/dev/null
	echo "reduce $r $(refs n0.vmt) $(refs sad.vmt)"
done
trace fifo64 -n 64 --policy fifo
trace fifo512 -n 512 --policy fifo
trace clock64 -n 64 --policy clock
rmmod vmtrace
