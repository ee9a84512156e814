#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Targets that fork, exec and exit mid-trace, rmmods mid-trace, and who
# may use the device:
# - with --follow --protect, a child forked by the target is traced (its
#   inherited pages fault as protected ones), and so is the program it
#   execs (a new address space: first touches, then protection faults);
# - stop maps every page back: an unprotected session afterwards sees no
#   fault on pages the target keeps touching;
# - 25 times (15 on the debug kernel), on one CPU: load, protect a process
#   that keeps checking its data, rmmod while tracing; the data stays intact
#   and no page is left protected;
# - a non-root caller gets EACCES from the 0600 node, and EPERM from the
#   driver when the node's mode would let it in.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
echo never >/sys/kernel/mm/transparent_hugepage/enabled
insmod "$VMT_LIB/vmtrace.ko"

# ---- fork, exec, exit ---------------------------------------------------------
mkdir -p /tmp/exec
cat >parent.py <<'PY'
import ctypes, mmap, os, sys, time
n = 16
m = mmap.mmap(-1, n * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
for i in range(n):
    m[i * 4096] = i + 1
open("parent.base", "w").write(f"{base:#x}\n")
while not os.path.exists("go"):
    time.sleep(0.01)
child = os.fork()
if child == 0:
    ok = all(m[i * 4096] == i + 1 for i in range(n))       # inherited pages
    open("child.pid", "w").write(f"{os.getpid()} {int(ok)}\n")
    # Twice over 80 pages with 64 enabled: the second pass faults again.
    os.execv("/opt/vmtrace/bin/vmt-touch-pages",
             ["vmt-touch-pages", "/tmp/exec", "80", ",".join(f"{i % 80}r" for i in range(160))])
_, status = os.waitpid(child, 0)
assert status == 0, status
ok = all(m[i * 4096] == i + 1 for i in range(n))
open("parent.done" if ok else "parent.corrupt", "w").close()
while not os.path.exists("go2"):
    time.sleep(0.01)
ok = all(m[i * 4096] == i + 1 for i in range(n))
open("parent.done2" if ok else "parent.corrupt2", "w").close()
PY
# Attached to once python3 has started and written its pages: traced from its
# exec, python3's start alone made 350,000 faults with 64 pages enabled (4
# minutes beside other guests on 6.12). Its pages are protected at start.
python3 parent.py &
py=$!
wait_for "the parent's pages" test -e parent.base
vmtrace record-raw --protect --follow -n 64 -p "$py" -o life.raw 2>life.summary &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
touch go
wait_for "the exec'd program" test -e /tmp/exec/ready
kill -USR1 "$(cut -d' ' -f1 child.pid)"
wait_for "the parent" test -e parent.done -o -e parent.corrupt
[ -e parent.done ] || fail "the parent read back different data"
kill -INT "$rec"
wait "$rec" || { cat life.summary; fail "record-raw failed"; }
cat life.summary
read -r child child_ok <child.pid
expect_eq "$child_ok" 1 "the child's view of the inherited pages"
vmtrace dump-raw life.raw >life.txt
python3 - "$(cat parent.base)" "$(cat /tmp/exec/base)" "$child" <<'PY'
import sys
pbase, xbase, child = int(sys.argv[1], 16), int(sys.argv[2], 16), int(sys.argv[3])
refs, evicts = [], []
for line in open("life.txt"):
    w = line.split()
    f = dict(kv.split("=", 1) for kv in w[2:])
    if w[1] == "ref":
        refs.append((int(w[0]), int(f["pid"]), int(f["addr"], 16), f["cause"]))
    elif w[1] == "evict":
        evicts.append((int(w[0]), int(f["pid"])))
refs.sort()
def pages(pid, base, n, cause=None):
    return {(a - base) // 4096 for t, p, a, c in refs
            if p == pid and base <= a < base + n * 4096 and (cause is None or c == cause)}
parent = min(p for _, p, _, _ in refs)
inherited = pages(child, pbase, 16, "protection")
assert inherited == set(range(16)), f"child: inherited pages logged {sorted(inherited)}"
first = pages(child, xbase, 80, "demand")
assert first == set(range(80)), f"exec'd program: first touches logged {sorted(first)}"
# After exec the new address space is protected and has an enabled set: the
# program's pages are evicted and fault again (its second pass over 80 pages
# with 64 enabled makes sure of it, whatever else it touches).
start = min(t for t, p, a, c in refs if p == child and xbase <= a < xbase + 80 * 4096)
again = sum(1 for t, p, a, c in refs if p == child and t > start and c == "protection")
evicted = sum(1 for t, p in evicts if p == child and t > start)
assert again > 0 and evicted > 0, f"exec'd program: {again} protection faults, {evicted} evictions"
mine = pages(parent, pbase, 16, "protection")
assert mine == set(range(16)), f"parent: pages logged {sorted(mine)}"
print(f"parent {parent}: 16/16 pages; child {child}: 16/16 inherited, 80/80 first touches "
      f"after exec, then {evicted} evictions and {again} protection faults")
PY
# Stop restored everything: nothing faults on pages the parent touches again.
vmtrace record-raw -p "$py" -o after.raw 2>after.summary &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
touch go2
wait_for "the parent" test -e parent.done2 -o -e parent.corrupt2
[ -e parent.done2 ] || fail "the parent read back different data after stop"
wait "$py" || fail "the parent exited with status $?"
kill -INT "$rec" 2>/dev/null || true
wait "$rec" || fail "record-raw failed"
vmtrace dump-raw after.raw >after.txt
left=$(python3 - "$(cat parent.base)" <<'PY'
import sys
base = int(sys.argv[1], 16)
print(sum(1 for l in open("after.txt") if l.split()[1] == "ref" and
          base <= int(dict(kv.split("=", 1) for kv in l.split()[2:])["addr"], 16) < base + 16 * 4096))
PY
)
expect_eq "$left" 0 "faults on the parent's pages after stop"

# ---- rmmods mid-trace ---------------------------------------------------------
rmmod vmtrace
cat >busy.py <<'PY'
import mmap, os
n = 64
m = mmap.mmap(-1, n * 4096)
for i in range(n):
    m[i * 4096 + 8] = i + 1
open("busy.ready", "w").close()
while not os.path.exists("busy.stop"):
    for i in range(n):
        if m[i * 4096 + 8] != i + 1:
            open("busy.corrupt", "w").close()
        m[i * 4096 + 16] = (m[i * 4096 + 16] + 1) % 256
open("busy.done", "w").close()
PY
# The loop runs with CPU 1 offline. Each insmod and rmmod switches a dozen
# tracepoints on or off, and the kernel patches their call sites
# (text_poke_bp(): an int3, the new bytes, a sync IPI to every CPU). Under
# QEMU's TCG that goes wrong now and then while another vCPU runs the code
# being patched, with or without vmtrace:
# - debug kernel, this loop on two vCPUs: rmmod waited in text_poke_bp()'s
#   IPI for CPU 1, which sat at __schedule's sched_switch site, interrupts
#   off, for minutes (an RCU stall, then the 1200 s timeout);
# - debug kernel, no vmtrace, tests/vm/tcg/tp-toggle.sh switching the same
#   tracepoints through tracefs: the guest hung after 100 cycles (with
#   --cpus 1 it ran 200 and ended);
# - Debian's 6.12: "Oops: int3" in exc_page_fault with vmtrace, and once in
#   enqueue_timer at boot, 1.6 s in, no module loaded.
#
# On the one CPU left, the busy process would take half of it from the loop
# (a cycle took 18 s on the debug kernel, against 7 s with the process
# asleep). At nice 10 it gets about a tenth: it still runs, and faults, in
# every pause of insmod, start and rmmod.
echo 0 >/sys/devices/system/cpu/cpu1/online
nice -n 10 python3 busy.py &
busy=$!
wait_for "the busy process" test -e busy.ready
# 25 cycles; 15 on the debug kernel, where each takes seconds: the same
# paths, each under KASAN and lockdep from the first cycle on (rmmod-stress
# removes the module mid-trace many more times, 200 in make fuzz).
cycles=25
debug_kernel && cycles=15

for i in $(seq $cycles); do
	insmod "$VMT_LIB/vmtrace.ko"
	echo "$busy" >/sys/kernel/vmtrace/targets
	echo 1 >/sys/kernel/vmtrace/protect
	echo 16 >/sys/kernel/vmtrace/enabled_pages
	echo on >/sys/kernel/vmtrace/state
	wait_for "faults" at_least faults 1
	rmmod vmtrace
done
echo 1 >/sys/devices/system/cpu/cpu1/online
[ ! -e busy.corrupt ] || fail "the busy process saw different data"
echo "$cycles rmmods while tracing: data intact"
insmod "$VMT_LIB/vmtrace.ko"
echo "$busy" >/sys/kernel/vmtrace/targets
echo on >/sys/kernel/vmtrace/state
sleep 0.5
echo off >/sys/kernel/vmtrace/state
expect_eq "$(cat /sys/kernel/vmtrace/faults)" 0 "faults of the busy process after the rmmods"
touch busy.stop
wait "$busy"
[ -e busy.done ] && [ ! -e busy.corrupt ] || fail "the busy process failed"

# ---- who may use the device ---------------------------------------------------
python3 - <<'PY'
import errno, os
def open_as_nobody(want):
    """In a child without root, open the device: it must fail with errno @want."""
    pid = os.fork()
    if pid == 0:
        os.setgid(65534)
        os.setuid(65534)
        try:
            os.open("/dev/vmtrace", os.O_RDWR)
            os._exit(1)
        except PermissionError as e:
            os._exit(0 if e.errno == want else 2)
    return os.waitpid(pid, 0)[1]
assert open_as_nobody(errno.EACCES) == 0, "a non-root open of /dev/vmtrace did not fail with EACCES"
os.chmod("/dev/vmtrace", 0o666)
status = open_as_nobody(errno.EPERM)
os.chmod("/dev/vmtrace", 0o600)
assert status == 0, f"a non-root open of a 0666 node did not fail with EPERM ({status:#x})"
print("non-root: EACCES from the 0600 node, EPERM from the driver itself")
PY
rmmod vmtrace
echo "lifecycle: ok"
