#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# System-wide protection: `record-raw -a --protect` protects every user
# process but the collector.
# - two processes running before tracing starts have their written pages
#   protected: each page they read is logged once, as a protection fault;
# - the command the collector starts is traced from its exec (its buffer's
#   first touches are logged as demand faults);
# - the collector itself is never logged;
# - stop maps every page back: a process that was protected sees no fault
#   in a later, unprotected session.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo never >/sys/kernel/mm/transparent_hugepage/enabled

pages=8
seq=0r,1r,2r,3r,4r,5r,6r,7r,0r,7r
declare -A pids
for name in a b d; do
	mkdir -p "/tmp/$name"
	vmt-touch-pages "/tmp/$name" "$pages" "$seq" &
	pids[$name]=$!
	wait_for "program $name to be ready" test -e "/tmp/$name/ready"
done
mkdir -p /tmp/c
vmtrace record-raw -a --protect -o sw.raw -- vmt-touch-pages /tmp/c "$pages" "$seq" 2>sw.summary &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
wait_for "program c to be ready" test -e /tmp/c/ready
protected=$(cat /sys/kernel/vmtrace/protected)
[ "$protected" -ge $((3 * pages)) ] || fail "only $protected PTEs protected"
for name in a b; do
	kill -USR1 "${pids[$name]}"
	wait "${pids[$name]}" || fail "program $name failed"
done
pkill -USR1 -f "^vmt-touch-pages /tmp/c " || fail "program c is gone"
wait "$rec" || { cat sw.summary; fail "record-raw failed"; }
cat sw.summary
grep -q ' 0 lost' sw.summary || fail "records lost"
expect_eq "$(cat /sys/kernel/vmtrace/missed)" 0 "address spaces missed"
vmtrace dump-raw sw.raw >sw.txt
echo "$(wc -l <sw.txt) records from $(awk '{print $4}' sw.txt | sort -u | wc -l) processes"

# refs DIR: the buffer references of the process whose buffer DIR describes
refs() {
	python3 - "$(cat "$1/base")" "$pages" sw.txt <<'PY'
import sys
base, n = int(sys.argv[1], 16), int(sys.argv[2])
for line in open(sys.argv[3]):
    w = line.split()
    if w[1] != "ref":
        continue
    f = dict(kv.split("=", 1) for kv in w[2:])
    a = int(f["addr"], 16)
    if base <= a < base + n * 4096:
        print(f["pid"], (a - base) // 4096, f["access"], f["cause"])
PY
}
for name in a b; do
	want=$(for p in 0 1 2 3 4 5 6 7; do echo "${pids[$name]} $p R protection"; done)
	expect_eq "$(refs "/tmp/$name")" "$want" "program $name's buffer references"
done
c_pid=$(refs /tmp/c | awk 'NR == 1 {print $1}')
[ -n "$c_pid" ] || fail "no reference of the collector's command"
expect_eq "$(refs /tmp/c | grep -c ' W demand$')" "$pages" \
	"first touches of the command's buffer"
grep -q " pid=$rec " sw.txt && fail "the collector itself was traced"
echo "processes running before start: each page logged once; the new command traced"

# Stop restored every page: d, protected all along, reads its pages untraced.
vmtrace record-raw -p "${pids[d]}" -o d.raw 2>d.summary &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
kill -USR1 "${pids[d]}"
wait "${pids[d]}" || fail "program d failed"
wait "$rec" || fail "record-raw failed"
vmtrace dump-raw d.raw >sw.txt
expect_eq "$(refs /tmp/d | wc -l)" 0 "faults in d's buffer after stop"
rmmod vmtrace
echo "system-wide: ok"
