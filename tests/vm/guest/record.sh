#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtrace record end to end: a real workload (python3 and sqlite3, pages
# protected) recorded into a trace file reads back record for record as the
# raw records drained from the rings (--tee-raw); stats and report agree
# with it; and a collector killed with SIGKILL mid-trace leaves a file whose
# complete frames all read back after verify --repair.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"

cat >work.py <<'PY'
import sqlite3
db = sqlite3.connect(":memory:")
db.execute("create table t (k integer primary key, v text)")
db.executemany("insert into t values (?, ?)", ((i, str(i) * 8) for i in range(20000)))
print(db.execute("select count(*), sum(length(v)) from t").fetchone())
PY
# Small frames, so that the trace has many of them.
vmtrace record -o work.vmt --tee-raw work.raw --frame-bytes 65536 -j 2 \
	--protect -n 512 -- python3 work.py 2>summary.txt
cat summary.txt
vmtrace dump work.vmt >from-vmt.txt
vmtrace dump-raw work.raw >from-raw.txt
records=$(wc -l <from-raw.txt)
[ "$records" -ge 2000 ] || fail "only $records records from a protected python3"
cmp -s from-vmt.txt from-raw.txt || {
	diff from-vmt.txt from-raw.txt | head -5
	fail "dump of the trace file differs from dump-raw of the raw records"
}
echo "round trip: $records records, dump == dump-raw"
grep -q "wrote .* work.vmt ($records records," summary.txt || fail "summary does not say $records records"
vmtrace verify work.vmt
frames=$(vmtrace info work.vmt | sed -n '1s/.* \([0-9]*\) frames$/\1/p')
[ "${frames:-0}" -ge 10 ] || fail "only '${frames}' frames with 64 KiB frames"
vmtrace stats work.vmt >stats.txt
expect_eq "$(sed -n 's/^records: //p' stats.txt)" "$records" "stats: records"
refs=$(grep -c ' ref ' from-raw.txt)
expect_eq "$(awk '$1 == "reference" { print $2 }' stats.txt)" "$refs" "stats: references"
pid=$(awk '$2 == "ref" { sub("pid=", "", $4); n[$4]++ } END { for (p in n) if (n[p] > best) { best = n[p]; pid = p } print pid }' from-raw.txt)
vmtrace report --top 5 work.vmt >report.txt
head -8 report.txt
pages=$(awk -v pid="pid=$pid" '$2 == "ref" && $4 == pid { sub("addr=0x", "", $6); p[substr($6, 1, length($6) - 3)] = 1 } END { print length(p) }' from-raw.txt)
grep -Eq "^  $pid +[^ ]+ +[0-9]+ +[0-9]+ +[0-9]+ +$pages pages" report.txt ||
	fail "report: pid $pid's footprint is not $pages pages"
echo "stats and report: $refs references, pid $pid's footprint $pages pages"

# SIGKILL mid-trace: protect a loop that never ends, kill the collector once
# some frames are in the file.
cat >loop.py <<'PY'
b = bytearray(4 << 20)
while True:
    for i in range(0, len(b), 4096):
        b[i] = (b[i] + 1) & 0xff
PY
vmtrace record -q -o killed.vmt --frame-bytes 16384 --protect -n 16 -- python3 loop.py &
rec=$!
size_over() { [ "$(stat -c %s killed.vmt 2>/dev/null || echo 0)" -gt "$1" ]; }
wait_for "frames in killed.vmt" size_over 100000
child=$(cat "/proc/$rec/task/$rec/children")
kill -9 "$rec"
wait "$rec" 2>/dev/null && fail "the collector survived SIGKILL"
[ -z "$child" ] || kill -9 $child
vmtrace verify killed.vmt >/dev/null 2>&1 && fail "verify passed a file without a directory"
vmtrace verify --repair killed.vmt | tee repair.txt
kept=$(sed -n 's/.*repaired: kept \([0-9]*\) frames.*/\1/p' repair.txt)
decoded=$(sed -n 's/.*ok: \([0-9]*\) frames decoded.*/\1/p' repair.txt)
[ "${kept:-0}" -ge 5 ] || fail "only '${kept}' frames kept"
expect_eq "$decoded" "$kept" "frames decoded after repair"
n=$(vmtrace dump killed.vmt | wc -l)
expect_eq "$n" "$(vmtrace stats killed.vmt | sed -n 's/^records: //p')" "records read back"
echo "kill -9: $kept frames kept and decoded, $n records read back"
rmmod vmtrace
echo "record: ok"
