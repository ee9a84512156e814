#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# record-workloads.sh: the guest side of scripts/bench-codec. Records four
# real workloads with `vmtrace record --protect -n 64` (64 enabled pages, so
# that a trace holds many references; one to two million records each under
# TCG, most of them the programs' start: their text is protected too) into
# /mnt/share/NAME.vmt:
#   python3    building and sorting a list and a dict of 4,000 small objects
#   sqlite3    the sqlite3 shell: a 4,000-row table, an index, a query
#   xz         xz -1 compressing 0.5 MB of text (at -6, the 94 MiB it sets up
#              for the match finder alone made 5 to 9 million records)
#   stress-ng  its vm stressor (--follow: the worker it forks) over 32 MiB
# and two under CLOCK (--policy clock), for the model codec's replay of it:
#   sqlite3-clock  the sqlite3 run above
#   mt-clock       python3, four threads each sorting 20,000 numbers
set -euo pipefail
# insmod and rmmod of vmtrace.ko with one CPU online (see lib.sh).
. /opt/vmtrace/tests/vm/lib.sh
insmod /opt/vmtrace/lib/vmtrace.ko
cd /tmp
out=/mnt/share

record() {
	local name=$1
	shift
	vmtrace record -q -o "$out/$name.vmt" --protect -n 64 "$@" >/dev/null
	echo "$name: $(vmtrace info "$out/$name.vmt" | sed -n 's/^records: //p') records," \
		"$(stat -c %s "$out/$name.vmt") bytes"
}

record python3 -- python3 -c '
import random
rng = random.Random(1)
xs = [rng.random() for _ in range(4000)]
d = {i: str(x) for i, x in enumerate(xs)}
xs.sort()
print(len(d), xs[0])'

sql='
create table t (k integer primary key, v text, n integer);
with recursive c(x) as (select 1 union all select x + 1 from c where x < 4000)
insert into t select x, hex(randomblob(16)), abs(random()) % 1000 from c;
create index tn on t (n);
select n, count(*), max(v) from t group by n order by 2 desc limit 3;'
record sqlite3 -- sqlite3 :memory: "$sql"

seq 1 20000 | sed 's/$/ the quick brown fox/' >text
record xz -- xz -1 -T1 -k -c text

record stress-ng --follow -- stress-ng --vm 1 --vm-bytes 32M --vm-method inc-nybble \
	--vm-ops 20 --timeout 60s --quiet

record sqlite3-clock --policy clock -- sqlite3 :memory: "$sql"

record mt-clock --policy clock -- python3 -c '
import random, threading
def work(seed):
    rng = random.Random(seed)
    xs = [rng.random() for _ in range(20000)]
    xs.sort()
ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in ts: t.start()
for t in ts: t.join()'
rmmod vmtrace
