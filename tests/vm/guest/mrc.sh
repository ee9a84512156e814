#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# (On 6.1 alone: its oracles are the analyses' answers against brute force;
# what the kernel records under N = 0 is enabled-set.sh's, on every kernel.)
# What a trace answers, against the program's own sequence: a program whose
# page references are known (tests/vm/progs/touch-pages.c) is traced with
# N=0, where every access to another page than the one before faults
# (enabled-set.sh checks that record by record). Folding repeats of the last
# page changes no LRU, FIFO or OPT fault count at any memory size, so the
# curves `vmtrace mrc` computes from the trace, for the program's buffer
# (--addr), must be those of the program's sequence, computed here by brute
# force at every size from 1 page to past the footprint. And on the whole
# trace (code, stack and libc pages too) the curves must be a brute-force
# simulation's of the references `vmtrace dump` prints, and those of the
# trace `vmtrace reduce --sad 8` makes, at 8 pages and more, the same.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo never >/sys/kernel/mm/transparent_hugepage/enabled

pages=48
# A loop over 20 pages, then random pages with a hot one and repeats.
seq=$(python3 -c '
import random
random.seed(7)
out = [p for _ in range(30) for p in range(20)]
for _ in range(1500):
    p = random.randrange(48) if random.random() < 0.7 else 3
    out += [p] * (2 if random.random() < 0.2 else 1)
print(",".join("%d%s" % (p, "w" if random.random() < 0.3 else "r") for p in out))')
dir=/tmp/mrc
mkdir -p $dir
vmt-touch-pages $dir $pages "$seq" &
pid=$!
wait_for "the program to be ready" test -e $dir/ready
vmtrace record -q -p $pid --protect -n 0 -o $dir/n0.vmt &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
kill -USR1 $pid
wait $pid || fail "the program failed"
wait $rec || fail "record failed"
base=$(cat $dir/base)
end=$(printf '%#x' $((base + pages * 4096)))
sizes=$(seq -s, 1 $((pages + 2)))

vmtrace mrc $dir/n0.vmt --pid $pid --addr "$base-$end" --policy lru,fifo,opt \
	--sizes "$sizes" --csv >$dir/buffer.csv || fail "mrc of the buffer failed"
vmtrace mrc $dir/n0.vmt --policy lru,fifo,opt --sizes 1,2,3,4,6,8,12,16,24,32,48,64,96,128 \
	--csv >$dir/all.csv || fail "mrc of the whole trace failed"
vmtrace dump --order time $dir/n0.vmt >$dir/dump.txt

python3 - "$seq" $dir/buffer.csv $dir/all.csv $dir/dump.txt <<'PY' || fail "mrc differs from brute force"
import csv, re, sys
from collections import OrderedDict, deque

def lru(seq, m):
    od, f = OrderedDict(), 0
    for p in seq:
        if p in od:
            od.move_to_end(p)
            continue
        f += 1
        od[p] = 1
        if len(od) > m:
            od.popitem(last=False)
    return f

def fifo(seq, m):
    q, s, f = deque(), set(), 0
    for p in seq:
        if p in s:
            continue
        f += 1
        q.append(p)
        s.add(p)
        if len(q) > m:
            s.discard(q.popleft())
    return f

def opt(seq, m):
    nxt, last = [0] * len(seq), {}
    for i in range(len(seq) - 1, -1, -1):
        nxt[i] = last.get(seq[i], len(seq) + i)
        last[seq[i]] = i
    cur, f = {}, 0
    for i, p in enumerate(seq):
        if p not in cur:
            f += 1
            if len(cur) == m:
                del cur[max(cur, key=cur.get)]
        cur[p] = nxt[i]
    return f

sim = {"lru": lru, "fifo": fifo, "opt": opt}
def check(path, seq, what):
    rows = list(csv.DictReader(open(path)))
    assert rows, path + ": no rows"
    bad = 0
    for r in rows:
        want = sim[r["policy"]](seq, int(r["pages"]))
        if int(r["faults"]) != want:
            bad += 1
            print("%s: %s at %s pages: mrc says %s faults, brute force %d"
                  % (what, r["policy"], r["pages"], r["faults"], want))
    print("%s: %d rows, %d differ" % (what, len(rows), bad))
    return bad

program = [int(a[:-1]) for a in sys.argv[1].split(",")]
bad = check(sys.argv[2], program, "the buffer against the program's sequence")
refs = []
for line in open(sys.argv[4]):
    m = re.search(r" ref .*pid=(\d+) .*addr=0x([0-9a-f]+)", line)
    if m:
        refs.append((int(m.group(1)), int(m.group(2), 16) >> 12))
bad += check(sys.argv[3], refs, "the whole trace against its dump")
sys.exit(1 if bad else 0)
PY
# SAD: the trace reduced for memories of 8 pages or more keeps LRU's
# faults at every such size.
vmtrace reduce --sad 8 $dir/n0.vmt -o $dir/sad8.vmt >/dev/null || fail "reduce failed"
lru() { vmtrace mrc "$1" --policy lru --sizes "$(seq -s, 8 96)" --csv | cut -d, -f2,4; }
expect_eq "$(lru $dir/sad8.vmt)" "$(lru $dir/n0.vmt)" "LRU faults of the SAD-reduced trace at 8 to 96 pages"
echo "reduce --sad 8: $(vmtrace stats $dir/sad8.vmt | awk '$1 == "reference" { print $2 }') of" \
	"$(vmtrace stats $dir/n0.vmt | awk '$1 == "reference" { print $2 }') references kept"
rmmod vmtrace
echo "mrc: ok"
