#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Transparent huge pages are traced at PMD level: a program whose buffer is
# two THPs is protected (huge_pmds counts them), and
# - with the default enabled set, the first access to each THP is logged,
#   once, as a huge protection fault with the frame /proc/PID/pagemap gives;
# - with N=0 every access is logged (the program's code faults in between,
#   so each THP leaves the set), and every THP that leaves it is re-protected
#   whole: an EVICT record at its first page, dirty only after a write;
# - stop maps the huge PMDs back: a later unprotected session sees no fault
#   in the buffer.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo always >/sys/kernel/mm/transparent_hugepage/enabled
echo madvise >/sys/kernel/mm/transparent_hugepage/defrag

pages=1024
# Each THP first touched past its first page (5, 600): a record that named the
# faulting page's frame for the THP's would show it.
seq=5r,1r,511r,600r,0r,512w,1023r,5w,700r
export VMT_TOUCH_HUGE=1

start_program() {  # start_program DIR: vmt-touch-pages, ready and waiting
	rm -rf "$1"
	mkdir -p "$1"
	vmt-touch-pages "$1" "$pages" "$seq" &
	pid=$!
	wait_for "the program to be ready" test -e "$1/ready"
}
# pfns DIR: the frames of the buffer's pages, page by page (root reads PFNs)
pfns() {
	python3 - "$pid" "$(cat "$1/base")" "$pages" >"$1/pfns" <<'PY'
import struct, sys
pid, base, n = int(sys.argv[1]), int(sys.argv[2], 16), int(sys.argv[3])
with open(f"/proc/{pid}/pagemap", "rb") as f:
    for i in range(n):
        f.seek((base // 4096 + i) * 8)
        e = struct.unpack("<Q", f.read(8))[0]
        assert e >> 63, f"page {i} not present"
        print(f"{e & ((1 << 55) - 1):#x}")
PY
}
# check DIR N: the buffer's references and evictions against the sequence
check() {
	vmtrace dump-raw "$1/raw" >"$1/txt"
	python3 - "$1" "$N" "$(cat "$1/base")" "$seq" "${PAGEMAP:-0}" <<'PY'
import sys
d, n, base, seq = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 16), sys.argv[4].split(",")
pagemap = sys.argv[5] == "1"
HUGE, PAGE = 2 << 20, 4096
pfns = [int(l, 16) for l in open(f"{d}/pfns")]
refs, evicts, maps, lines = [], [], [], []
# In time order: dump-raw gives each CPU's records in turn, and an eviction
# may be made on another CPU than the fault's (by the stale work, tid 0).
for line in sorted(open(f"{d}/txt"), key=lambda l: int(l.split()[0])):
    w = line.split()
    f = dict(kv.split("=", 1) for kv in w[2:])
    a = int(f["addr"], 16)
    if not base <= a < base + len(pfns) * PAGE:
        continue
    lines.append(line)
    if w[1] == "ref":
        refs.append(f)
    elif w[1] == "evict":
        evicts.append(f)
    elif w[1] == "pagemap":
        maps.append(f)
def fail(msg):
    # The buffer's records, then the message last, where a log's tail shows it.
    print("".join(lines), end="")
    print(f"FAIL: {msg} (whole trace: {d}/txt)", flush=True)
    sys.exit(1)
# The accesses that must be logged: with the default set, the first of each
# THP; with N=0, every one.
want, seen = [], set()
for k, a in enumerate(seq):
    page, access = int(a[:-1]), a[-1].upper()
    thp = page * PAGE // HUGE
    if n == 0 or thp not in seen:
        want.append((base + page * PAGE + 8 * (k % 512), access, page))
    seen.add(thp)
if len(refs) != len(want):
    fail(f"{len(refs)} references in the buffer, expected {len(want)}")
for f, (addr, access, page) in zip(refs, want):
    got = (int(f["addr"], 16), f["access"], f["cause"], f.get("huge"), int(f["pfn"], 16))
    exp = (addr, access, "protection", "1", pfns[page])
    if got != exp:
        fail(f"reference {got} expected {exp}")
# Every eviction is of a whole THP, at its first page; dirty when the THP
# was written between the fault that enabled it and the eviction.
for e in evicts:
    a = int(e["addr"], 16)
    if a % HUGE or e.get("huge") != "1":
        fail(f"eviction {e} is not of a whole THP")
    if int(e["pfn"], 16) != pfns[(a - base) // PAGE]:
        fail(f"eviction {e}: frame differs from pagemap's")
if n == 0:
    if len(evicts) < len(want) - 1:
        fail(f"{len(evicts)} evictions, expected at least {len(want) - 1}")
    # The i-th eviction follows the i-th reference: dirty after a write.
    for e, (addr, access, _) in zip(evicts, want):
        if int(e["addr"], 16) != addr & ~(HUGE - 1):
            fail(f"eviction {e} after an access at {addr:#x}")
        if e["dirty"] != ("1" if access == "W" else "0"):
            fail(f"eviction {e} after a {access}")
# -e pagemap: each THP's pair logged once, as a whole: its first page and
# its first frame (HMTT's page-table record: the page at that frame), as
# /proc/PID/pagemap gives it, not the frame of the address that faulted.
# The unmaps at the program's exit name the same pairs.
if pagemap:
    mapped = {m["addr"] for m in maps if m["op"] == "map"}
    if len(mapped) != len({(base + int(a[:-1]) * PAGE) // HUGE for a in seq}):
        fail(f"{len(mapped)} THPs in pagemap map records, expected each THP touched")
    for m in maps:
        a = int(m["addr"], 16)
        if a % HUGE or m.get("huge") != "1":
            fail(f"pagemap record {m} is not a whole THP's")
        if int(m["pfn"], 16) != pfns[(a - base) // PAGE]:
            fail(f"pagemap record {m}: frame differs from pagemap's {pfns[(a - base) // PAGE]:#x}")
elif maps:
    fail(f"{len(maps)} pagemap records without -e pagemap")
print(f"{len(refs)} huge references, {len(evicts)} huge evictions and {len(maps)} pagemap"
      " records as expected")
PY
}
run() {  # run NAME -- record-raw options
	local dir=/tmp/$1
	shift
	start_program "$dir"
	pfns "$dir"
	vmtrace record-raw -p "$pid" --protect "$@" -o "$dir/raw" 2>"$dir/summary" &
	local rec=$!
	wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
	huge=$(cat /sys/kernel/vmtrace/huge_pmds)
	[ "$huge" -ge 2 ] || fail "$huge huge PMDs protected, expected the buffer's 2 at least"
	kill -USR1 "$pid"
	wait "$pid" || fail "the program failed"
	wait "$rec" || fail "record-raw failed"
	cat "$dir/summary"
	grep -q ' 0 lost' "$dir/summary" || fail "records lost"
	check "$dir" || fail "$dir: trace differs from the sequence"
}

N=512 run default
N=0 PAGEMAP=1 run zero -n 0 -e pagemap

# Stop restores the huge PMDs: protect, stop, then trace without protection.
start_program /tmp/restore
vmtrace record-raw -p "$pid" --protect -o /tmp/restore/protected.raw 2>/dev/null &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
[ "$(cat /sys/kernel/vmtrace/huge_pmds)" -ge 2 ] || fail "the buffer's THPs were not protected"
kill -INT "$rec"
wait "$rec" || fail "record-raw failed"
restored=$(cat /sys/kernel/vmtrace/restored)
vmtrace record-raw -p "$pid" -o /tmp/restore/raw 2>/tmp/restore/summary &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
kill -USR1 "$pid"
wait "$pid" || fail "the program failed"
wait "$rec" || fail "record-raw failed"
base=$(cat /tmp/restore/base)
left=$(vmtrace dump-raw /tmp/restore/raw | python3 -c '
import sys
base = int(sys.argv[1], 16)
print(sum(1 for l in sys.stdin if l.split()[1] == "ref" and
          base <= int(dict(kv.split("=", 1) for kv in l.split()[2:])["addr"], 16) < base + (4 << 20)))' "$base")
expect_eq "$left" 0 "faults in the buffer after stop (restored: $restored)"
echo "stop restored the huge PMDs: $restored entries mapped back, no fault after"
rmmod vmtrace
echo "thp: ok"
