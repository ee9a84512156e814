#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Page protection: a running process's 64 written pages are protected at
# start; reading them back logs exactly 64 protection faults, in order, with
# their physical frames; the data is intact; stop leaves no protnone PTE
# behind (a second, unprotected session sees no fault on those pages).
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo never >/sys/kernel/mm/transparent_hugepage/enabled

cat >pages.py <<'PY'
import ctypes, mmap, os, time
def wait_for(name):
    while not os.path.exists(name):
        time.sleep(0.01)
n = 64
m = mmap.mmap(-1, n * 4096)
base = ctypes.addressof(ctypes.c_char.from_buffer(m))
for i in range(n):
    m[i * 4096 + i * 8] = (i % 250) + 1
with open("base.txt", "w") as f:
    f.write(f"{base:#x}\n")
open("ready", "w").close()
for phase in ("go1", "go2"):
    wait_for(phase)
    ok = all(m[i * 4096 + i * 8] == (i % 250) + 1 for i in range(n))   # reads, in order
    open(phase + ".done" if ok else phase + ".corrupt", "w").close()
PY
python3 pages.py &
pid=$!
wait_for "the process to be ready" test -e ready
base=$(cat base.txt)

trace_phase() {  # trace_phase NAME [--protect]: trace $pid while it reads its pages once
	local name=$1
	shift
	vmtrace record-raw -p "$pid" "$@" -o "$name.raw" 2>"$name.summary" &
	local rec=$!
	wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
	touch "$name"
	wait_for "the process to read its pages" test -e "$name.done" -o -e "$name.corrupt"
	[ -e "$name.done" ] || fail "$name: the process read back different data"
	# record-raw ends on SIGINT or when the process exits (it does after go2).
	kill -INT "$rec" 2>/dev/null || true
	wait "$rec" || fail "$name: record-raw failed: $(cat "$name.summary")"
	cat "$name.summary"
	vmtrace dump-raw "$name.raw" >"$name.txt"
}
refs_in_buffer() {
	python3 - "$base" "$1" <<'PY'
import sys
base, path = int(sys.argv[1], 16), sys.argv[2]
for line in open(path):
    w = line.split()
    if w[1] != "ref":
        continue
    f = dict(kv.split("=", 1) for kv in w[2:])
    if base <= int(f["addr"], 16) < base + 64 * 4096:
        print(w[0], f["addr"], f["access"], f["cause"], f["pfn"] if "pfn" in f else "-")
PY
}

trace_phase go1 --protect
refs_in_buffer go1.txt | sort -n >go1.refs
python3 - "$base" <<'PY'
import sys
base = int(sys.argv[1], 16)
refs = [l.split() for l in open("go1.refs")]
assert len(refs) == 64, f"{len(refs)} references to the buffer, not 64"
for i, (t, addr, access, cause, pfn) in enumerate(refs):
    assert int(addr, 16) == base + i * 4096 + i * 8, (i, addr)
    assert access == "R" and cause == "protection", (i, access, cause)
    assert int(pfn, 16) != 0, (i, pfn)
assert len({r[4] for r in refs}) == 64, "frames repeat"
print("64 protection faults, in order, 64 distinct frames")
PY
protected=$(sed -n 's/^\[ protection: \([0-9]*\) PTEs and .*/\1/p' go1.summary)
restored=$(sed -n 's/.* \([0-9]*\) restored at stop.*/\1/p' go1.summary)
prot_faults=$(grep -c 'cause=protection' go1.txt)
echo "protected $protected, protection faults $prot_faults, restored $restored"
[ "$protected" -ge 64 ] || fail "only $protected PTEs protected"
[ "$prot_faults" -ge 64 ] && [ "$restored" -gt 0 ] || fail "no faults or nothing restored"

trace_phase go2
[ -z "$(refs_in_buffer go2.txt)" ] || fail "pages still protected after stop: $(refs_in_buffer go2.txt | head -3)"
wait "$pid"
rmmod vmtrace
echo "protect: ok"
