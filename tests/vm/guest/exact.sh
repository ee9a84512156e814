#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12 debug
# Exact mode: vmt-exact makes a known sequence of loads and stores (every
# size, unaligned, across a page end, locked read-modify-writes, rep movsb,
# push, pop, pushf and popf) to a buffer it maps after tracing started,
# inside an --exact range, then reads a word of each of 16 pages of a file
# (whose read faults map their neighbours too: fault-around) inside another,
# then runs three instructions from a page of code in a third (their fetches):
# the trace's exact records are that sequence,
# with sizes and values, in order, and nothing else; pushf never saw the
# trap flag; no step was missed, cancelled or left undecoded.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"

vmtrace record -o exact.vmt --exact 10000000000-10000003000 --exact 10000100000-10000110000 \
	--exact 10000200000-10000201000 \
	-- /opt/vmtrace/bin/vmt-exact \
	>expected.txt 2>record.txt || { cat record.txt; fail "vmtrace record --exact"; }
cat record.txt
vmtrace dump exact.vmt >dump.txt
grep ' exact ' dump.txt >exact.txt || fail "no exact record"
sed 's/.* \(addr=[^ ]* size=[^ ]* access=[^ ]* value=[^ ]*\) .*/\1/' exact.txt >got.txt
if ! diff expected.txt got.txt >diff.txt; then
	head -40 diff.txt
	fail "the exact records are not the program's accesses"
fi
pid=$(awk '{ sub("pid=", "", $4); print $4; exit }' exact.txt)
[ "$(grep -vc " pid=$pid " exact.txt)" = 0 ] || fail "exact records of another process"
# read(2)'s copy into the buffer: kernel mode, no ip, before the file's reads.
[ "$(grep -c ' ip=0x0 mode=kernel' exact.txt)" = 1 ] && tail -23 exact.txt | head -1 | grep -q 'mode=kernel' ||
	fail "read(2)'s copy is not the one kernel-mode record"
grep -q '\[ exact: .* 0 not decoded, 1 from the kernel, 0 steps cancelled, 0 missed, 0 unpinned' \
	record.txt || fail "exact mode's counters: $(grep -m1 '\[ exact:' record.txt)"
echo "exact: $(wc -l <got.txt) accesses as the program made them"

# babeltrace2's events and the CSV export carry the same fields.
babeltrace2 --plugin-path "$VMT_LIB/babeltrace2" exact.vmt | grep ' vmtrace:exact: ' >bt.txt ||
	fail "babeltrace2 printed no exact event"
vmtrace export --format csv --type exact exact.vmt -o exact.csv || fail "export --format csv"
python3 - <<'PY' || fail "babeltrace2 or CSV differ from dump"
import csv, re
def norm(addr, size, access, value_hex):
    """dump's form: the value as a little-endian number up to 8 bytes."""
    size = int(size)
    if size == 0:
        value = "-"
    elif size <= 8:
        value = hex(int.from_bytes(bytes.fromhex(value_hex), "little"))
    else:
        value = value_hex
    return "addr=%#x size=%d access=%s value=%s" % (addr, size, access, value)
dump = [l.strip() for l in open("got.txt")]
bt = []
for line in open("bt.txt"):
    payload = line.split("}, {", 1)[1]
    f = {k: a or b or c for k, a, b, c in
         re.findall(r'(\w+) = (?:\( "(\w+)"|"([0-9a-f]*|[-?])"|(0x[0-9A-F]+|\d+))', payload)}
    bt.append(norm(int(f["addr"], 0), f["size"], f["access"], f["value"]))
rows = list(csv.DictReader(open("exact.csv")))
cs = [norm(int(r["addr"]), r["size"], r["access"], r["value"]) for r in rows]
assert bt == dump, "babeltrace2: %s" % next((b, d) for b, d in zip(bt + [None] * len(dump), dump) if b != d)
assert cs == dump, "csv: %s" % next((c, d) for c, d in zip(cs + [None] * len(dump), dump) if c != d)
print("babeltrace2 and csv: %d exact records with dump's fields" % len(dump))
PY

# An independent tracer: valgrind's lackey runs the same program; its loads
# (L), stores (S) and modifies (M) inside the range are our R, W and RW
# records, in order, once an access across a page end (two records here,
# one line there) is joined and the kernel's copy (which lackey cannot see)
# left out. --vex-iropt-level=0 keeps loads whose value is unused.
valgrind --tool=lackey --trace-mem=yes --vex-iropt-level=0 --log-file=lackey.txt \
	/opt/vmtrace/bin/vmt-exact >lackey.out || fail "vmt-exact under valgrind"
diff expected.txt lackey.out || echo "(under valgrind, the values above differ: lackey compares addresses, sizes and kinds)"
# Where valgrind's CPU has no AVX (its CPUID in the 6.12 guest, whose QEMU
# CPU lacks CMPXCHG16B: see vm-run), the program skips its AVX part under
# valgrind: lackey is compared with a trace of a run that skips it too.
ours=exact.txt
if ! grep -q ' size=32 ' lackey.out; then
	VMT_EXACT_AVX=0 vmtrace record -q -o noavx.vmt --exact 10000000000-10000003000 -- \
		/opt/vmtrace/bin/vmt-exact >/dev/null || fail "vmtrace record of vmt-exact without AVX"
	vmtrace dump noavx.vmt | grep ' exact ' >noavx.txt
	ours=noavx.txt
	echo "lackey: valgrind has no AVX here: compared with a run without the AVX part"
fi
python3 - "$ours" lackey.txt <<'PY' || fail "the exact records differ from lackey's accesses"
import re, sys
lo, hi = 0x10000000000, 0x10000003000
ours, kinds = [], {"R": "L", "W": "S", "RW": "M"}
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv)
    if f["mode"] == "kernel" or f["access"] == "X" or not lo <= int(f["addr"], 16) < hi:
        continue
    addr, size, kind = int(f["addr"], 16), int(f["size"]), kinds[f["access"]]
    # The second page's part of an access across a page end joins the first.
    if f.get("split") and ours and ours[-1][3] and ours[-1][0] + ours[-1][1] == addr and ours[-1][2] == kind:
        ours[-1] = (ours[-1][0], ours[-1][1] + size, kind, False)
    else:
        ours.append((addr, size, kind, bool(f.get("split"))))
ours = [(a, s, k) for a, s, k, _ in ours]
# Lackey's accesses, an instruction's ("I" lines start one) together: a
# load and a store (or modify) of the same bytes by one instruction is its
# read-modify-write (without IR optimisation, a locked add is a load and a
# compare-and-swap).
theirs, insn = [], []
def flush():
    for i, (a, n, k) in enumerate(insn):
        if k == "L" and any(b == a and m == n and l in "SM" for b, m, l in insn[i + 1:]):
            continue
        if k == "S" and any(b == a and m == n and l == "L" for b, m, l in insn[:i]):
            k = "M"
        theirs.append((a, n, k))
    insn.clear()
for line in open(sys.argv[2]):
    if line.startswith("I"):
        flush()
    m = re.match(r"^ ?([LSM]) ([0-9a-f]+),(\d+)$", line.rstrip())
    if m and lo <= int(m.group(2), 16) < hi:
        insn.append((int(m.group(2), 16), int(m.group(3)), m.group(1)))
flush()
if ours != theirs:
    for i, (a, b) in enumerate(zip(ours + [None] * len(theirs), theirs + [None] * len(ours))):
        if a != b:
            sys.exit("access %d: ours %s, lackey's %s" % (i, a, b))
print("lackey: %d accesses in the range, the same addresses, sizes and kinds in the same order" % len(ours))
PY

# A program that adds its own range around one phase, and removes it: only
# that phase's 20 stores are exact.
vmtrace record -q -o phase.vmt --protect -- /opt/vmtrace/bin/vmt-exact-phase >phase-expected.txt ||
	fail "vmtrace record of vmt-exact-phase"
vmtrace dump phase.vmt | grep ' exact ' |
	sed 's/.* \(addr=[^ ]* size=[^ ]* access=[^ ]* value=[^ ]*\) .*/\1/' >phase-got.txt
diff phase-expected.txt phase-got.txt || fail "the phase's exact records"
echo "phase: the 20 stores between VMT_EXACT_ADD and VMT_EXACT_REMOVE, and only those"

# The cap: a 3-page range under a cap of 1 page is cut to its first page;
# the 2 others are counted and their accesses not exact.
vmtrace record -o cap.vmt --exact 10000000000-10000003000 --exact-max-pages 1 -- \
	/opt/vmtrace/bin/vmt-exact >/dev/null 2>cap.txt || { cat cap.txt; fail "record with a cap"; }
grep -q '\[ exact: 2 pages of the ranges left out, over the cap of 1 \]' cap.txt ||
	{ cat cap.txt; fail "the cap's count"; }
vmtrace dump cap.vmt | awk '$2 == "exact" && $0 !~ / split=1/ { sub("addr=0x", "", $6); if ($6 !~ /^10000000/) bad++; n++ }
	END { exit !(n > 0 && !bad) }' || fail "exact records past the cap's page"
expect_eq "$(cat /sys/kernel/vmtrace/exact_max_pages)" 65536 "the cap record gave back"
echo "cap: 2 pages left out, counted; only the first page exact"

# Ranges by a mapping's name, for a command (whose mappings do not exist
# when tracing starts): its [heap], which brk makes and grows, and a file
# the program maps by path. Each of the program's own accesses is there, in
# order, and no exact record falls outside the named mapping.
vmtrace record -q -o heap.vmt --exact '[heap]' -- /opt/vmtrace/bin/vmt-exact-heap >heap-expected.txt ||
	fail "vmtrace record --exact [heap]"
vmtrace dump heap.vmt >heap-dump.txt
python3 - heap-expected.txt heap-dump.txt <<'PY' || fail "--exact [heap]"
import re, sys
want = [l.strip() for l in open(sys.argv[1])]
exact, heap = [], []
for line in open(sys.argv[2]):
    f = dict(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv)
    if line.split()[1] == "exact":
        exact.append(("addr=%s size=%s access=%s value=%s" % (f["addr"], f["size"], f["access"], f["value"]), int(f["addr"], 16)))
    elif line.split()[1] == "vma" and f.get("op") == "map" and f.get("kind") == "heap":
        heap.append((int(f["start"], 16), int(f["end"], 16)))
assert heap, "no heap mapping in the trace"
outside = [a for _, a in exact if not any(s <= a < e for s, e in heap)]
assert not outside, "exact records outside the heap: %s" % [hex(a) for a in outside[:5]]
it = iter(t for t, _ in exact)
missing = [w for w in want if not any(t == w for t in it)]
assert not missing, "the program's accesses not in the trace, in order: %s" % missing[:3]
print("[heap] of a command: its %d accesses among %d exact records, all in the heap" % (len(want), len(exact)))
PY
vmtrace record -q -o file.vmt --exact /tmp/vmt-exact.file -- /opt/vmtrace/bin/vmt-exact >file-expected.txt ||
	fail "vmtrace record --exact FILE"
grep '^addr=0x100001' file-expected.txt >file-want.txt
vmtrace dump file.vmt | grep ' exact ' | sed 's/.* \(addr=[^ ]* size=[^ ]* access=[^ ]* value=[^ ]*\) .*/\1/' >file-got.txt
diff file-want.txt file-got.txt || fail "--exact FILE: the file's reads, and only those"
echo "file by name: its $(wc -l <file-got.txt) reads, and nothing else"
