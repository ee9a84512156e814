#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The enabled set, exactly: a program touching its pages in a known order is
# traced with N=0, with N=12 under FIFO and CLOCK, and with N=64 under FIFO
# (which evicts in batches of two: 96 pages streamed past twice, written on
# the second pass). Every reference and every eviction (with its dirty flag)
# must be what a model of the set predicts (tests/vm/eset_check.py), the
# policies must differ where the sequence makes them.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo never >/sys/kernel/mm/transparent_hugepage/enabled

pages=12
# Page 0 is hot (every other access); pages 1-11 stream past twice.
seq=0r,1r,0r,2r,0w,3r,0r,4w,0r,5r,0w,6r,0r,7r,0r,8w,0w,9r,0r,10r,0r,11r,0r,1r,0r,2r,0w,3w,0r,4r,0r,5r,0w,6r,0r,7w,0r,8r,0w,9r,0r,10r,0r,11w
run() {  # run NAME -- record-raw options
	local name=$1 dir pid
	shift
	dir=/tmp/$name
	mkdir -p "$dir"
	vmt-touch-pages "$dir" "$pages" "$seq" &
	pid=$!
	wait_for "the program to be ready" test -e "$dir/ready"
	vmtrace record-raw -p "$pid" --protect "$@" -o "$dir/raw" 2>"$dir/summary" &
	local rec=$!
	wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
	kill -USR1 "$pid"
	wait "$pid" || fail "$name: the program failed"
	wait "$rec" || { cat "$dir/summary"; fail "$name: record-raw failed"; }
	cat "$dir/summary"
	grep -q ' 0 lost' "$dir/summary" || fail "$name: records lost"
	vmtrace dump-raw "$dir/raw" >"$dir/txt"
	python3 /opt/vmtrace/tests/vm/eset_check.py "$dir/txt" "$(cat "$dir/base")" "$pages" \
		"$seq" "$N" "$policy" "$pid" >"$dir/check" 2>&1 ||
		{ cat "$dir/check"; fail "$name: trace differs from the model"; }
	cat "$dir/check"
}

N=0 policy=fifo run zero -n 0
N=12 policy=fifo run fifo -n 12 --policy fifo
N=12 policy=clock run clock -n 12 --policy clock
stream=$(seq -s, -f %gr 0 95),$(seq -s, -f %gw 0 95)
pages=96 seq=$stream N=64 policy=fifo run batch -n 64 --policy fifo

logged() { sed -n 's/^logged-pages //p' "/tmp/$1/check"; }
# N=0: every access to another page than the one before is logged.
expected=$(python3 -c '
import sys
prev = None
out = []
for a in sys.argv[1].split(","):
    if a[:-1] != prev:
        out.append(a[:-1])
    prev = a[:-1]
print(" ".join(out))' "$seq")
expect_eq "$(logged zero)" "$expected" "pages logged with N=0"
# The hot page: CLOCK keeps it (its Accessed bit is always set when the hand
# comes), FIFO lets it go and it faults again.
hot() { logged "$1" | tr ' ' '\n' | grep -cx 0; }
echo "page 0 logged: $(hot fifo) times under FIFO, $(hot clock) under CLOCK"
expect_eq "$(hot clock)" 1 "page 0 references logged under CLOCK"
[ "$(hot fifo)" -gt 1 ] || fail "FIFO kept the hot page"
evictions=$(cat /sys/kernel/vmtrace/evictions)
[ "$evictions" -gt 0 ] || fail "sysfs says no evictions"
expect_eq "$(cat /sys/kernel/vmtrace/overflows)" 0 "enabled-set overflows"
rmmod vmtrace
echo "enabled-set: ok"
