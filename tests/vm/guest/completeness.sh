#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Completeness against the kernel's own tracer: real programs are traced by
# vmtrace with --protect -n 64 while ftrace records the same faults through
# exceptions:page_fault_user and page_fault_kernel: python3 building a dict
# and sqlite3 databases through its sqlite3 module (attached to with -p once
# it has imported them, the window marked in ftrace by the program itself),
# and the sqlite3 shell running SQL on a file (run by record-raw, from its
# exec). Every fault ftrace saw in the window, to the program's exit, is one
# of vmtrace's references, with the same address, ip and error code, in the
# same order: the process's references are exactly the tail of ftrace's
# faults, from a point no later than the window's start (but for kernel
# accesses with page faults disabled, which are not made, and retried:
# see below). Nothing is
# unaccounted for: faults + evictions == records + lost with nothing lost,
# and the file, the summary and sysfs agree on the counts.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T

# ftrace: the same tracepoints vmtrace's probes hang on, and the exec, on the
# clock vmtrace stamps its records with (ktime_get_mono_fast_ns). The buffer
# is large enough for every event; its stats must show that none was lost.
# Enabling and disabling events patches their call sites: on one CPU, as
# lib.sh's on_one_cpu explains.
ftrace_start() { on_one_cpu ftrace_setup; }
ftrace_setup() {
	echo 0 >$T/tracing_on
	echo mono >$T/trace_clock
	echo 65536 >$T/buffer_size_kb
	echo >$T/trace
	echo 1 >$T/events/exceptions/page_fault_user/enable
	echo 1 >$T/events/exceptions/page_fault_kernel/enable
	echo 1 >$T/events/sched/sched_process_exec/enable
	echo 1 >$T/events/task/task_rename/enable
	echo 1 >$T/tracing_on
}
ftrace_events_off() { echo 0 >$T/events/enable; }
ftrace_stop() {  # ftrace_stop FILE: the events, after checking none was dropped
	local cpu stats
	echo 0 >$T/tracing_on
	on_one_cpu ftrace_events_off
	for cpu in $T/per_cpu/cpu*; do
		stats=$(cat "$cpu/stats")
		for field in "overrun" "commit overrun" "dropped events"; do
			[ "$(sed -n "s/^$field: //p" <<<"$stats")" = 0 ] ||
				fail "ftrace lost events on ${cpu##*/}: $(tr '\n' ' ' <<<"$stats")"
		done
	done
	cat $T/trace >"$1"
}

# trace NAME FROM RECORD-RAW-ARGS...: trace a process with record-raw
# --protect -n 64 and with ftrace at once. FROM says where the comparison
# starts: at its exec (record-raw runs the command), or at its rename to
# vmt-go, which it does on finding the file NAME.go (record-raw -p attaches
# to it: the test creates the file once tracing is on). Not a write to
# trace_marker: ftrace copies the text with page faults disabled, and fails
# with EFAULT when the buffer's page is protected.
trace() {
	local name=$1 from=$2 pid records faults lost evictions rec
	shift 2
	ftrace_start
	# 2^20 records a CPU: nothing is lost, so that every fault can be found.
	if [ "$from" = exec ]; then
		vmtrace record-raw --protect -n 64 -r 1048576 -o "$name.raw" "$@" \
			>"$name.out" 2>"$name.summary" ||
			{ cat "$name.summary"; fail "$name: the traced command failed"; }
		pid=$(sed -n 's/^vmtrace record-raw: tracing command \([0-9]*\)$/\1/p' "$name.summary")
	else
		vmtrace record-raw --protect -n 64 -r 1048576 -o "$name.raw" "$@" 2>"$name.summary" &
		rec=$!
		wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
		touch "$name.go"
		# record-raw ends when the process exits.
		wait "$rec" || { cat "$name.summary"; fail "$name: record-raw failed"; }
		pid=$(sed -n 's/^vmtrace record-raw: tracing pid \([0-9]*\)$/\1/p' "$name.summary")
	fi
	ftrace_stop "$name.ftrace"
	cat "$name.summary"
	[ -n "$pid" ] || fail "$name: no pid in record-raw's output"
	vmtrace dump-raw "$name.raw" >"$name.txt"

	# The counts: the summary's, the kernel's (sysfs), the file's.
	read -r records faults lost <<<"$(sed -n \
		's/.*(\([0-9]*\) records, \([0-9]*\) faults, \([0-9]*\) lost.*/\1 \2 \3/p' "$name.summary")"
	evictions=$(sed -n 's/^\[ enabled sets: \([0-9]*\) evictions.*/\1/p' "$name.summary")
	evictions=${evictions:-0}
	expect_eq "$(cat /sys/kernel/vmtrace/faults)" "$faults" "$name: sysfs faults against the summary"
	expect_eq "$(cat /sys/kernel/vmtrace/lost)" "$lost" "$name: sysfs lost against the summary"
	expect_eq "$(cat /sys/kernel/vmtrace/evictions)" "$evictions" "$name: sysfs evictions against the summary"
	expect_eq "$lost" 0 "$name: records lost with 2^20-record rings"
	expect_eq "$(cat /sys/kernel/vmtrace/records)" "$records" "$name: records the kernel wrote against records read"
	expect_eq "$((faults + evictions))" "$((records + lost))" "$name: faults + evictions against records + lost"
	expect_eq "$(($(stat -c %s "$name.raw") / 64))" "$records" "$name: records in the file"
	expect_eq "$(grep -c ' ref ' "$name.txt")" "$faults" "$name: reference records in the file"
	expect_eq "$(grep -c ' evict ' "$name.txt" || true)" "$evictions" "$name: evict records in the file"
	[ "$faults" -gt 0 ] && [ "$evictions" -gt 0 ] || fail "$name: $faults faults, $evictions evictions"

	python3 - "$name" "$pid" "$from" <<'PY' || fail "$name: vmtrace and ftrace disagree"
import sys
from collections import Counter
name, pid, start_at = sys.argv[1:]
# Faults are compared as (tid, mode, address, ip, error code), all as the
# two print them: hex with 0x, no leading zeros; the ip of a kernel-mode
# fault is not compared: vmtrace never hands kernel addresses out, which is
# checked (it must be 0).

# vmtrace (dump-raw): "TIME ref cpu= pid= tid= addr= ip= pfn= access= mode=
# cause= err=". The process's references in time order, file order within
# a CPU.
vmt, prot = [], 0
for n, line in enumerate(open(f"{name}.txt")):
    w = line.split()
    if w[1] != "ref":
        continue
    if w[3] != "pid=" + pid:
        sys.exit(f"a reference of another process: {line.strip()}")
    kernel = w[9] == "mode=kernel"
    if kernel and w[6] != "ip=0x0":
        sys.exit(f"a kernel-mode fault's ip reached the reader: {line.strip()}")
    vmt.append((int(w[0]), n, (w[4][4:], kernel, w[5][5:], "-" if kernel else w[6][3:], w[11][4:])))
    prot += w[10] == "cause=protection"
vmt.sort()
keys = [r[2] for r in vmt]

# ftrace: "COMM-TID [CPU] FLAGS SECS.USECS: EVENT: F1=.. F2=.. F3=..", in
# time order. The workloads start no threads: the process's faults are its
# pid's.
ftr, begin, irq = [], None, 0
for line in open(f"{name}.ftrace"):
    if line.startswith("#"):
        continue
    if " task_rename: " in line:
        if start_at == "rename" and f" pid={pid} " in line and " newcomm=vmt-go " in line:
            begin = len(ftr)
        continue
    w = line.rsplit(None, 7)
    if len(w) != 8 or not w[1].startswith("[") or not w[4].endswith(":"):
        sys.exit(f"unparsed ftrace line: {line.strip()}")
    if w[0].rpartition("-")[2] != pid:
        continue
    event = w[4]
    if event == "sched_process_exec:":
        if start_at == "exec" and w[6] == "pid=" + pid:
            begin = len(ftr)
        continue
    if not w[5].startswith("address=0x") or not w[7].startswith("error_code="):
        sys.exit(f"unexpected ftrace event: {line.strip()}")
    if w[2][2] in "hHszZ":  # interrupt context: vmtrace ignores it by design
        irq += 1
        continue
    addr = w[5][8:]
    if event == "page_fault_kernel:":
        if int(addr, 16) >= 1 << 63:
            continue  # a kernel address: vmtrace logs user memory only
        ftr.append((pid, True, addr, "-", w[7][11:]))
    elif event == "page_fault_user:":
        ftr.append((pid, False, addr, w[6][3:], w[7][11:]))
    else:
        sys.exit(f"unexpected ftrace event: {line.strip()}")

if begin is None:
    sys.exit(f"ftrace saw no {start_at} of pid {pid}")
window = ftr[begin:]
user = sum(1 for k in window if not k[1])
print(f"{name}: pid {pid}: ftrace saw {len(ftr)} faults, {len(window)} from the {start_at} on "
      f"({user} in user mode), {irq} in interrupts; vmtrace logged {len(keys)} "
      f"({prot} protection faults)")
# Matched from the end. A kernel access made with page faults disabled (an
# atomic copy from user memory, as generic_perform_write() makes) that
# faults is not made: the fault is not handled, and vmtrace does not log it
# (kernel/fault.c); the kernel faults the page in and tries again, and that
# fault is logged. ftrace sees both. So a kernel-mode fault that vmtrace
# lacks passes only when the same fault (address, error code) follows it
# within 8 faults, and is matched.
i, j, retried = len(ftr), len(keys), 0
while i > 0 and j > 0:
    if ftr[i - 1] == keys[j - 1]:
        i, j = i - 1, j - 1
    elif ftr[i - 1][1] and ftr[i - 1] in ftr[i:i + 8]:
        i, retried = i - 1, retried + 1
    else:
        break
start = i
if j > 0:
    missing = Counter(window) - Counter(keys)
    extra = Counter(keys) - Counter(ftr)
    print(f"{sum(missing.values())} faults after the {start_at} that vmtrace lacks, e.g. {list(missing)[:5]}")
    print(f"{sum(extra.values())} references ftrace never saw, e.g. {list(extra)[:5]}")
    print(f"counting from the end, ftrace's fault {len(ftr) - i + 1} and vmtrace's reference "
          f"{len(keys) - j + 1} differ: ftrace {ftr[i - 1] if i else None}, vmtrace {keys[j - 1]}")
    print(f"ftrace's faults before and after it: {ftr[max(i - 4, 0):i + 4]}")
    sys.exit(1)
if start > begin:
    sys.exit(f"vmtrace's references start {start - begin} faults after the {start_at}")
if retried:
    print(f"{name}: {retried} kernel accesses with page faults disabled faulted, and were retried")
print(f"{name}: the {len(window)} faults from the {start_at} to the exit, and {begin - start} "
      "before, are vmtrace's references, in order, but for those retried")
PY
}

cat >work.py <<'PY'
import os, sqlite3, sys, time
# Started untraced; the work below is what is compared, from the rename on.
while not os.path.exists("python.go"):
    time.sleep(0.01)
with open("/proc/self/comm", "w") as comm:  # the marker: task:task_rename
    comm.write("vmt-go")
# A dict and a sorted list, then the same rows through a database on disk
# (the kernel copies its pages to and from the file) and one in memory; the
# answers are checked, so the work is real.
N = 80
d = {f"key{i}": (i, str(i) * 3) for i in range(N)}
by_mod = sorted(d.items(), key=lambda kv: (kv[1][0] % 7, kv[0]))
assert by_mod[:2] == [("key0", (0, "000")), ("key14", (14, "141414"))], by_mod[:2]
for path in (sys.argv[1], ":memory:"):
    db = sqlite3.connect(path)
    db.execute("create table t (k text primary key, v integer, s text)")
    db.executemany("insert into t values (?, ?, ?)", ((k, v, s) for k, (v, s) in d.items()))
    db.commit()
    n, total = db.execute("select count(*), sum(v) from t where v % 3 = 0").fetchone()
    assert (n, total) == (27, sum(range(0, N, 3))), (n, total)
    assert db.execute("select k from t where s = '222'").fetchone() == ("key2",)
    db.close()
print("python: ok", flush=True)
os._exit(0)  # no interpreter teardown: it would fault on most of the heap
PY
rm -f work.db python.go
python3 work.py work.db >python.out &
py=$!
trace python rename -p "$py"
wait "$py" || fail "the python workload failed"
expect_eq "$(cat python.out)" "python: ok" "the python workload's output"

# 3000 rows: about 250,000 faults, each compared; 10,000 rows made 820,000
# for the same checks, and most of the test's 5.6 minutes on the debug kernel.
rows=3000
# The same checks on fewer faults on the debug kernel, where each costs ten
# times as much: 1000 rows, about 92,000.
debug_kernel && rows=1000
cat >work.sql <<SQL
create table orders (id integer primary key, customer text, amount integer);
with recursive n(i) as (select 1 union all select i + 1 from n where i < $rows)
insert into orders select i, 'c' || (i % 50), i % 113 from n;
create index orders_customer on orders (customer);
select count(*), sum(amount) from orders;
select customer, count(*) from orders where customer = 'c7' group by customer;
update orders set amount = amount + 1 where id % 2 = 0;
delete from orders where id > $((rows * 4 / 5));
select count(*), sum(amount) from orders;
select customer, sum(amount) from orders group by customer order by 2 desc, 1 limit 1;
SQL
rm -f cli.db
trace sqlite3 exec -- sqlite3 -batch cli.db <work.sql
cat sqlite3.out
expect_eq "$(cat sqlite3.out)" "$(python3 - "$rows" <<'PY'
import sys
n = int(sys.argv[1])
rows = {i: i % 113 for i in range(1, n + 1)}
print(f"{len(rows)}|{sum(rows.values())}")
print(f"c7|{sum(1 for i in rows if i % 50 == 7)}")
rows = {i: a + (i % 2 == 0) for i, a in rows.items() if i <= n * 4 // 5}
print(f"{len(rows)}|{sum(rows.values())}")
by = {}
for i, a in rows.items():
    by[f"c{i % 50}"] = by.get(f"c{i % 50}", 0) + a
best = max(by.values())
print(f"{min(c for c, v in by.items() if v == best)}|{best}")
PY
)" "the sqlite3 shell's answers"

rmmod vmtrace
echo "completeness: ok"
