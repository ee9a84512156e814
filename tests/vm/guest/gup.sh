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
#      pinned pages of the thread's run).
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
open(f"{d}/sums", "w").write(f"{zeros} {total}\n")
PY
pid=$!
trace_program $pid $dir gup "the program failed" --protect -n $n
want=$(awk -v n=$pages 'BEGIN { for (i = 0; i < n; i++) s += i % 251 + 1; print s }')
expect_eq "$(cat $dir/sums)" "0 $want" "the pages' bytes read back (zeros, then what was written)"
vmtrace dump-raw gup.raw >gup.txt
python3 - "$(cat $dir/base)" $pages $((pages - n - pin)) gup.txt $pid "$(cat $dir/phase2)" <<'PY' ||
import sys
sys.path.insert(0, "/opt/vmtrace/tests/vm")
from passes import refs
base, n, need, pid = int(sys.argv[1], 16), int(sys.argv[2]), int(sys.argv[3]), sys.argv[5]
phase2 = int(sys.argv[6])
recs = refs(sys.argv[4], pid, base, n)
bad = False
for phase, (name, part) in enumerate((("mmap(MAP_POPULATE), reads, writes",
                                       [r for r in recs if r[0] < phase2]),
                                      ("madvise(MADV_POPULATE_READ), reads",
                                       [r for r in recs if r[0] >= phase2]))):
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
