#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# record-analysis-traces.sh: the guest side of scripts/bench-analyses.
# Records tests/vm/progs/pages.c (loops, a hot set and strides over 16 MiB)
# with `vmtrace record --protect` into /mnt/share/NAME.vmt, each of about two
# million references: at N=0 (every access to another page than the current
# run's is logged) and at N=64 (FIFO).
set -euo pipefail
. /opt/vmtrace/tests/vm/lib.sh
insmod /opt/vmtrace/lib/vmtrace.ko
echo never >/sys/kernel/mm/transparent_hugepage/enabled
cd /tmp
record() {  # record NAME ACCESSES record-options...
	local name=$1 accesses=$2
	shift 2
	vmtrace record -q -o "/mnt/share/$name.vmt" --protect "$@" -- \
		vmt-pages 4096 "$accesses" >/dev/null
	echo "$name: $(vmtrace stats "/mnt/share/$name.vmt" |
		awk '$1 == "reference" { print $2 }') references"
}
record pages-n0 1000000 -n 0
record pages-n64 2500000 -n 64 --policy fifo
rmmod vmtrace
