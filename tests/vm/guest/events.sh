#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Introspection events, each checked against what really happened:
# - markers land between the references they were written between;
# - context switches (every CPU) are, CPU by CPU, an unbroken run of the
#   switches ftrace's sched:sched_switch saw at the same time;
# - fork, exec and exit of a shell pipeline match the processes that ran;
# - comm changes (prctl) are logged with the new name;
# - the mappings the trace describes (state dump, exec, mmap...) account
#   for at least 99% of a protected python3's references, and the state dump
#   of a process traced mid-run names its threads, executable and mappings;
# - the events file in sysfs takes names and refuses unknown ones.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"

# ---- Markers ------------------------------------------------------------
vmtrace record -q -e marker -o m.vmt -- vmt-markers >m.out
vmtrace dump --order time m.vmt >m.txt
page0=$(awk '$1 == "page0" { print $2 }' m.out)
page1=$(awk '$1 == "page1" { print $2 }' m.out)
# The line numbers of each marker and of the first reference to each page.
order=$(awk -v p0="addr=$page0" -v p1="addr=$page1" '
	$2 == "marker" { for (i = 3; i <= NF; i++) if ($i ~ /^id=/) print substr($i, 4), NR }
	$2 == "ref" && !s0 && index($0, p0 " ") { print "p0", NR; s0 = 1 }
	$2 == "ref" && !s1 && index($0, p1 " ") { print "p1", NR; s1 = 1 }' m.txt |
	sort -k2n | awk '{ printf "%s ", $1 }')
expect_eq "$order" "1 p0 2 p1 3 " "markers and references in time order"
grep -q 'marker .* id=2 text="between"$' m.txt || fail "marker 2's text"
grep -q 'marker .* id=3 text="after"$' m.txt || fail "marker 3's text (write())"
echo "markers: $order"

# ---- Context switches against ftrace --------------------------------------
T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T
echo 8192 >$T/buffer_size_kb
echo >$T/trace
# Switching the event patches its call sites: on one CPU (lib.sh's on_one_cpu).
sched_switch_event() { echo "$1" >$T/events/sched/sched_switch/enable; }
on_one_cpu sched_switch_event 1
vmtrace record -q -a -e switch-all -o s.vmt -- sh -c 'for i in $(seq 40); do sleep 0.01; done' 
on_one_cpu sched_switch_event 0
grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' $T/trace || fail "ftrace overran its buffer"
awk '/sched_switch:/ {
	cpu = $0; sub(/.*\[/, "", cpu); sub(/\].*/, "", cpu); cpu += 0
	prev = $0; sub(/.* prev_pid=/, "", prev); sub(/ .*/, "", prev)
	next_ = $0; sub(/.* next_pid=/, "", next_); sub(/ .*/, "", next_)
	print cpu, prev, next_ }' $T/trace >ftrace-switches.txt
vmtrace dump --order time s.vmt | awk '$2 == "switch" {
	for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	print f["cpu"], f["tid"], f["next_tid"] }' >vmtrace-switches.txt
vmtrace stats s.vmt >s.stats
grep -q '^lost: 0$' s.stats || fail "switch trace lost records"
python3 - <<'PY' || fail "context switches differ from ftrace's"
import collections
def per_cpu(path):
    d = collections.defaultdict(list)
    for line in open(path):
        cpu, prev, nxt = line.split()
        d[int(cpu)].append((int(prev), int(nxt)))
    return d
ft, vt = per_cpu("ftrace-switches.txt"), per_cpu("vmtrace-switches.txt")
total = 0
for cpu, seq in vt.items():
    whole = ft[cpu]
    # vmtrace's switches on this CPU are one unbroken run of ftrace's.
    found = any(whole[i:i + len(seq)] == seq for i in range(len(whole) - len(seq) + 1))
    if not found:
        raise SystemExit(f"cpu {cpu}: {len(seq)} switches are not a run of ftrace's {len(whole)}")
    total += len(seq)
if total < 80:
    raise SystemExit(f"only {total} switches")
print(f"switches: {total} on {len(vt)} CPUs, each an unbroken run of ftrace's")
PY

# ---- Fork, exec and exit of a pipeline -------------------------------------
vmtrace record -q -e task --follow -o t.vmt -- sh -c 'echo hello | tr a-z A-Z | wc -c >/dev/null'
vmtrace dump --order time t.vmt >t.txt
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
sh_pid=$(awk '$2 == "fork" { sub("pid=", "", $4); print $4; exit }' t.txt)
children=$(grep ' fork ' t.txt | grep " pid=$sh_pid " | field child_pid | sort -n | tr '\n' ' ')
expect_eq "$(wc -w <<<"$children")" 3 "processes the shell forked"
execs=$(grep ' exec ' t.txt | field file | tr -d '"' | sort | tr '\n' ' ')
grep -q '/tr"' <<<"$(grep ' exec ' t.txt)" || fail "no exec of tr: $execs"
grep -q '/wc"' <<<"$(grep ' exec ' t.txt)" || fail "no exec of wc: $execs"
exited=$(grep ' exit ' t.txt | grep 'group_dead=1' | awk '{ sub("pid=", "", $4); print $4 }' | sort -n | tr '\n' ' ')
want=$(echo "$sh_pid $children" | tr ' ' '\n' | grep . | sort -n | tr '\n' ' ')
expect_eq "$exited" "$want" "processes that exited"
awk '$2 == "exit" && /group_dead=1/ && !/ code=0 / { bad = 1 } END { exit !bad }' t.txt &&
	fail "a process exited non-zero"
echo "pipeline: sh $sh_pid forked $children; exec'd $execs; all exited 0"

# ---- Comm changes --------------------------------------------------------------
vmtrace record -q -e task -o c.vmt -- \
	python3 -c 'import ctypes; ctypes.CDLL(None).prctl(15, b"vmt-renamed", 0, 0, 0)'
vmtrace dump c.vmt >c.txt
grep -q ' comm .* comm="vmt-renamed"$' c.txt || fail "no comm record for prctl"

# ---- State dump of a process traced mid-run ------------------------------------
mkdir -p /tmp/sd
vmt-pagemap /tmp/sd 32 &
pid=$!
wait_for "the program to be ready" test -e /tmp/sd/ready
vmtrace record -q -p $pid --protect -n 8 -e task,vma -o sd.vmt &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
kill -USR1 $pid
wait $pid || fail "vmt-pagemap failed"
wait $rec || fail "record -p failed"
vmtrace dump sd.vmt >sd.txt
grep -q " task .* pid=$pid tid=$pid .* comm=\"vmt-pagemap\" exe=\"/opt/vmtrace/bin/vmt-pagemap\"$" sd.txt ||
	fail "the state dump lacks the task with its comm and executable"
grep -q " vma .* pid=$pid .* cause=dump .*kind=file .* name=\"/opt/vmtrace/bin/vmt-pagemap\"" sd.txt ||
	fail "the state dump lacks the executable's mapping"
grep -q " vma .* pid=$pid .* cause=dump .*kind=stack" sd.txt || fail "the state dump lacks the stack"
grep -q " vma .* pid=$pid .* op=unmap cause=munmap " sd.txt || fail "no munmap record"
vmtrace report sd.vmt >sd.report
line=$(grep '^references by mapping:' sd.report)
echo "state dump: $(grep -c " vma .* cause=dump " sd.txt) mappings; $line"
grep -q '(100.00%)' <<<"$line" || fail "references of a process traced mid-run not all attributed"

# ---- The events file -------------------------------------------------------------
S=/sys/kernel/vmtrace
echo switch,task >$S/events
expect_eq "$(cat $S/events)" "switch,task" "events file"
echo task,bogus >$S/events 2>/dev/null && fail "an unknown event name was taken"
expect_eq "$(cat $S/events)" "switch,task" "events file after a refused write"
echo none >$S/events
expect_eq "$(cat $S/events)" "" "events file after none"

# ---- Attribution of a python3 run, and its round trip ----------------------------
vmtrace record -q -e task,vma,switch,marker --protect -o p.vmt --tee-raw p.raw -- \
	python3 -c 'import json, zlib; d = [str(i) * 5 for i in range(50000)]; zlib.compress(json.dumps(d).encode())'
# Every record, data included, reads back from the trace as the kernel wrote it.
vmtrace dump p.vmt >p.dump
vmtrace dump-raw p.raw >p.dump-raw
cmp -s p.dump p.dump-raw || { diff p.dump p.dump-raw | head -5; fail "dump of the trace differs from dump-raw"; }
echo "round trip with events: $(wc -l <p.dump) records, $(grep -c ' vma ' p.dump) of them VMA records with their paths"
vmtrace report p.vmt >p.txt
line=$(grep '^references by mapping:' p.txt) || fail "report has no attribution"
echo "python3: $line"
sed -n '/^references by mapping:/,$p' p.txt | head -8
read -r got total <<<"$(sed -n 's/.*: \([0-9]*\) of \([0-9]*\) attributed.*/\1 \2/p' <<<"$line")"
[ "$total" -ge 1000 ] || fail "only $total references"
[ $((got * 100)) -ge $((total * 99)) ] || fail "only $got of $total references attributed"
grep -q 'libpython\|/python3' p.txt || fail "no reference attributed to python's binary"
echo "events: ok"
