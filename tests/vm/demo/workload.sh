#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make demo`: load vmtrace, show what it reports, run a real
# workload (python3 building and querying an sqlite3 database) with
# `vmtrace record`, print `vmtrace report` of the trace, unload.
# lib.sh: insmod and rmmod with the other CPUs offline (TCG; see there).
. /opt/vmtrace/tests/vm/lib.sh
echo "== $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ {print int($2/1024)}' /proc/meminfo) MiB"
insmod /opt/vmtrace/lib/vmtrace.ko
echo "== module loaded: /dev/vmtrace $(stat -c %a /dev/vmtrace), ABI $(cat /sys/kernel/vmtrace/abi_version)"
vmtrace version
echo "== workload: python3 + sqlite3, recorded by vmtrace record (pages protected, 512 enabled)"
cat >/tmp/demo.py <<'PY'
import random, sqlite3
db = sqlite3.connect("/tmp/demo.db")
db.execute("create table refs (page integer, cpu integer, kind text)")
rng = random.Random(42)
db.executemany("insert into refs values (?, ?, ?)",
               ((rng.randrange(1 << 20), rng.randrange(2), rng.choice("rwx")) for _ in range(50000)))
db.commit()
for kind, n, pages in db.execute(
        "select kind, count(*), count(distinct page) from refs group by kind order by kind"):
    print(f"   {kind}: {n} rows, {pages} distinct pages")
PY
cd /tmp
/usr/bin/time -f "   %e s, %R minor page faults, %M KiB max RSS" \
	vmtrace record -o demo.vmt --protect -n 512 -- python3 demo.py
echo "== the trace file"
vmtrace info demo.vmt | sed 's/^/   /'
vmtrace verify demo.vmt | sed 's/^/   /'
echo "== vmtrace report demo.vmt"
vmtrace report --buckets 8 --top 5 demo.vmt | sed 's/^/   /'
echo "   first references:"
# To a file first: grep -m3 would end the pipe early, and pipefail take
# vmtrace's SIGPIPE for a failure.
vmtrace dump demo.vmt >demo.txt
grep -m3 ' ref ' demo.txt | sed 's/^/     /'
rmmod vmtrace
echo "== module unloaded; kernel log:"
dmesg | grep 'vmtrace:' | sed 's/^/   /'
