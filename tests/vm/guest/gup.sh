#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Faults with no exception: get_user_pages() faults pages in through
# handle_mm_fault() without passing the fault tracepoints (MAP_POPULATE,
# madvise(MADV_POPULATE_*), mlock, O_DIRECT buffers). They are the kernel's
# accesses: nothing is logged, but the tracer protects the pages again when
# the system call returns, so that the program's own accesses to them are
# logged. Untraced, populated pages would stay present and their reads
# unlogged.
# The program, traced with N = 32:
#   1. mmap(MAP_POPULATE) 128 pages, then reads them and writes each a byte:
#      every read is logged;
#   2. madvise(MADV_POPULATE_READ) over the 128 pages (6.1 maps the protected
#      ones back, 6.12 passes over them), then reads them: every read is
#      logged but those of the pages still enabled (at most N and the
#      pinned pages of the thread's run);
#   3. waits while another process reads the 128 pages with
#      process_vm_readv() (6.1 maps the protected ones back; the tracer
#      protects them again from a worker, and the test waits until the
#      module counts as many pages protected again as the kernel counted
#      NUMA-hinting faults in the read), then reads them: the same.
# On 6.1, 6.12 and debug.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
pages=128 n=32 pin=6 dir=/tmp/gup
rm -rf $dir
mkdir -p $dir
python3 - $dir $pages <<'PY' &
import ctypes, mmap, signal, sys, time
d, n = sys.argv[1], int(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
MADV_POPULATE_READ = 22
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
open(f"{d}/ready", "w").close()
signal.sigwait({signal.SIGUSR1})
m = mmap.mmap(-1, n * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE)
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
open(f"{d}/base", "w").write(f"{base:#x}\n")
zeros = sum(m[i * 4096] for i in range(n))
for i in range(n):
    m[i * 4096] = i % 251 + 1
# Records are stamped with CLOCK_MONOTONIC: this splits the phases.
open(f"{d}/phase2", "w").write(f"{time.clock_gettime_ns(time.CLOCK_MONOTONIC)}\n")
if libc.madvise(base, n * 4096, MADV_POPULATE_READ):
    sys.exit(f"madvise(MADV_POPULATE_READ): errno {ctypes.get_errno()}")
total = sum(m[i * 4096] for i in range(n))
open(f"{d}/phase3", "w").write(f"{time.clock_gettime_ns(time.CLOCK_MONOTONIC)}\n")
signal.sigwait({signal.SIGUSR1})
again = sum(m[i * 4096] for i in range(n))
open(f"{d}/sums", "w").write(f"{zeros} {total} {again}\n")
PY
pid=$!
want=$(awk -v n=$pages 'BEGIN { for (i = 0; i < n; i++) s += i % 251 + 1; print s }')
# In rt_sigtimedwait(), system call 128 on x86-64.
in_sigwait() { [[ "$(cat /proc/$pid/syscall)" == "128 "* ]]; }
hint_faults() { awk '$1 == "numa_hint_faults" { print $2 }' /proc/vmstat; }
# Phase 3, from outside: read the pages, wait until the faults the read
# took are undone, let the program go on.
remote() {
	local reprotected hints
	# Should this fail, the program is not left waiting.
	trap 'kill -KILL $pid' EXIT
	wait_for "the program's third phase" test -e $dir/phase3
	# Until it waits for the signal, the program faults on its own pages.
	wait_for "the program to wait" in_sigwait
	reprotected=$(cat /sys/kernel/vmtrace/reprotections)
	hints=$(hint_faults)
	python3 - $pid "$(cat $dir/base)" $pages $want <<'PY' || return 1
import ctypes, sys
pid, base, n, want = int(sys.argv[1]), int(sys.argv[2], 16), int(sys.argv[3]), int(sys.argv[4])
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
libc = ctypes.CDLL(None, use_errno=True)
libc.process_vm_readv.restype = ctypes.c_ssize_t
buf = ctypes.create_string_buffer(n * 4096)
local, remote = iovec(ctypes.addressof(buf), n * 4096), iovec(base, n * 4096)
got = libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
if got != n * 4096:
    sys.exit(f"process_vm_readv: {got} bytes, errno {ctypes.get_errno()}")
total = sum(buf.raw[i * 4096] for i in range(n))
if total != want:
    sys.exit(f"process_vm_readv read {total}, want {want}")
PY
	hints=$(($(hint_faults) - hints))
	echo "process_vm_readv(): $hints pages faulted back in"
	wait_for "$hints pages protected again" at_least reprotections $((reprotected + hints))
	kill -USR1 $pid
	trap - EXIT
}
remote &
helper=$!
trace_program $pid $dir gup "the program failed" --protect -n $n
wait $helper || fail "reading the program's pages from outside failed"
expect_eq "$(cat $dir/sums)" "0 $want $want" "the pages' bytes read back (zeros, then what was written, twice)"
vmtrace dump-raw gup.raw >gup.txt
python3 - "$(cat $dir/base)" $pages $((pages - n - pin)) gup.txt $pid "$(cat $dir/phase2)" "$(cat $dir/phase3)" <<'PY' ||
import sys
sys.path.insert(0, "/opt/vmtrace/tests/vm")
from passes import refs
base, n, need, pid = int(sys.argv[1], 16), int(sys.argv[2]), int(sys.argv[3]), sys.argv[5]
phase2, phase3 = int(sys.argv[6]), int(sys.argv[7])
recs = refs(sys.argv[4], pid, base, n)
bad = False
for phase, (name, part) in enumerate((("mmap(MAP_POPULATE), reads, writes",
                                       [r for r in recs if r[0] < phase2]),
                                      ("madvise(MADV_POPULATE_READ), reads",
                                       [r for r in recs if phase2 <= r[0] < phase3]),
                                      ("another process's process_vm_readv(), reads",
                                       [r for r in recs if r[0] >= phase3]))):
    user = {p for _, p, f in part if f["mode"] == "user" and f["access"] == "R"}
    kernel = sum(1 for _, _, f in part if f["mode"] == "kernel")
    want = n if phase == 0 else need
    print(f"{name}: {len(user)} of {n} pages' reads logged, {kernel} kernel-mode references")
    if len(user) < want:
        print(f"FAIL: {name}: {len(user)} of {n} pages' reads logged, want {want} or more")
        bad = True
sys.exit(1 if bad else 0)
PY
	fail "pages faulted in by the kernel went unlogged"
rmmod vmtrace
echo "gup: ok"
