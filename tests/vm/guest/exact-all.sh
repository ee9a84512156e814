#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.12 debug
# timeout: 1200
# (Not on 6.1 in make check, for its time, 117 s: exact-lackey.sh runs
# --exact all there, against lackey; scripts/vm-run --kernel 6.1 -- this.)
# Exact mode over a whole program (--exact all): vmt-exact-all execs itself,
# maps an array after that (mmap), runs a loop of 6 instructions an element
# over it 3 times, moves it (mremap) and runs the loop over its new place,
# runs it over a block brk gave, unmaps the array, reads the clock through
# the vDSO, walks a table (a load and a store a step), and forks a child
# that must exit 0 (a stepped fork's child with the module's trap flag
# would die of SIGTRAP: the program then fails). The trace has
# - every instruction of the loop: an X record an instruction an element,
#   with the instruction's length and bytes;
# - every load and store of the array at each place, and of the heap block,
#   with their values (the pass number read, one more written), and the
#   walk's;
# - code of the vDSO;
# and the module's ranges followed the mappings: a range over the new
# mapping, the moved array, the heap; none over the array's old place, the
# unmapped array, [vvar], a mapping mremap replaced with an untraced
# (PROT_NONE) one, or memfd_secret()'s memory (where the kernel has it). The trace verifies; no step was missed. Then the
# cap: a cap of 64 pages cuts the program's ranges, the pages left out are
# counted, and the program still runs to its end. Last, vmtrace start
# --exact all on a running process: its loop's instructions and accesses.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
prog=/opt/vmtrace/bin/vmt-exact-all

VMT_EXACT_ALL_CHECK=1 vmtrace record -o all.vmt -r 1048576 --exact all -- "$prog" \
	>out.txt 2>record.txt || { cat record.txt; fail "vmtrace record --exact all"; }
cat record.txt out.txt
vmtrace verify all.vmt >verify.txt || { cat verify.txt; fail "the trace does not verify"; }
grep -q '\[ exact: .* 0 missed, 0 unpinned, 0 unsafe switches' record.txt ||
	fail "exact mode's counters: $(grep -m1 '\[ exact:' record.txt)"
grep -q ', 0 lost' record.txt || fail "records lost"
# The records of the ranges the checks look at (dump --addr): the loop's
# code and the vDSO's, the array at each place, the heap block, the walk's
# table. Of the whole trace, the processes with exact records (stats).
ranges=$(sed -n 's/^\(loop\|vdso\|array\|moved\|heap\|walk\) \(0x\)\{0,1\}\([0-9a-f]*\)-\(0x\)\{0,1\}\([0-9a-f]*\)$/0x\3-0x\5/p' out.txt | paste -sd,)
[ "$(tr , '\n' <<<"$ranges" | wc -l)" = 6 ] || fail "the program's ranges: '$ranges'"
vmtrace dump --addr "$ranges" all.vmt >dump.txt || fail "dump --addr $ranges"
vmtrace stats --type exact all.vmt >stats.txt || fail "stats"
python3 - out.txt dump.txt stats.txt <<'PY' || fail "--exact all"
import re, sys
out = dict(l.split(None, 1) for l in open(sys.argv[1]) if " " in l)
rng = lambda k: tuple(int(x, 16) for x in out[k].split("-"))
num = lambda k: int(out[k])
for k, want in (("mmap", 1), ("mremap-old", 0), ("mremap-new", 1), ("mremap-victim", 1),
                ("mremap-replaced", 0), ("brk", 1), ("munmap", 0), ("secret", 0),
                ("vdso", 1), ("vvar", 0)):
    assert num("covered-" + k) == want, "a range over %s: %s, not %s" % (k, out["covered-" + k], want)
lo, hi = rng("loop")
e, p, h, per = num("elements"), num("passes"), num("heap-elements"), num("loop-insns")
places = {"array": (rng("array"), p), "moved": (rng("moved"), 1), "heap": (rng("heap"), 1),
          "walk": (rng("walk"), None)}
vdso = rng("vdso")
fetch, data, vdso_fetch, pids, sizes = 0, {k: [] for k in places}, 0, set(), {}
for line in open(sys.argv[2]):
    w = line.split()
    if len(w) < 2 or w[1] != "exact":
        continue
    f = dict(kv.split("=", 1) for kv in w[2:] if "=" in kv)
    pids.add(f["pid"])
    addr, ip = int(f["addr"], 16), int(f["ip"], 16)
    if f["access"] == "X":
        if lo <= ip < hi:
            fetch += 1
            sizes[ip] = int(f["size"])
        if vdso[0] <= ip < vdso[1]:
            vdso_fetch += 1
        continue
    for k, ((s, t), _) in places.items():
        if s <= addr < t and f["mode"] == "user":
            data[k].append((f["access"], int(f["size"]), int(f["value"], 16), addr))
assert len(pids) == 1, "exact records of %d processes in the ranges" % len(pids)
assert re.search(r"^by pid:\n +\d+ .*\n(?!  )", open(sys.argv[3]).read(), re.M), \
    "exact records of more than one process:\n" + open(sys.argv[3]).read()
iters = e * p + e + h
assert fetch == per * iters, "the loop's fetches: %d, not %d x %d" % (fetch, per, iters)
assert sorted(sizes.values()) == [2, 3, 3, 4, 4, 4], "the loop's instruction lengths: %s" % sizes
walk = data.pop("walk")
assert len(walk) == 2 * num("walk-steps"), "walk: %d accesses, not %d" % (len(walk), 2 * num("walk-steps"))
assert [a for a, _, _, _ in walk] == ["R", "W"] * num("walk-steps"), "walk: not a load and a store a step"
del places["walk"]
for k, ((s, t), passes) in places.items():
    n = (t - s) // 8
    got = data[k]
    assert len(got) == 2 * n * passes, "%s: %d accesses, not %d" % (k, len(got), 2 * n * passes)
    # The moved array read the values the array had; the heap block was new.
    first = {"array": 0, "moved": p, "heap": 0}[k]
    want = [(a, 8, first + q + (a == "W"), s + 8 * i)
            for q in range(passes) for i in range(n) for a in ("R", "W")]
    assert got == want, "%s: %s, not %s" % (k, next(x for x in zip(got, want) if x[0] != x[1]), "")
assert vdso_fetch > 0, "no instruction of the vDSO"
print("all: the loop's %d fetches, %s accesses, the walk's %d, %d vDSO instructions" %
      (fetch, "+".join(str(len(v)) for v in data.values()), len(walk), vdso_fetch))
PY
# Both programs, the one that execs and the one it execs, ran exact: the
# two execs of vmt-exact-all (the command's, then its own; the mappings of
# each exec are records in a row, whose cause is exec) each have fetches
# after them, before the next (stats --from, --to).
vmtrace dump --type vma all.vmt >vma.txt || fail "dump --type vma"
mapfile -t execs < <(python3 - vma.txt <<'PY'
import sys
prev = None
for line in open(sys.argv[1]):
    w = line.split()
    execmap = "cause=exec" in w and line.rstrip().endswith('vmt-exact-all"')
    if execmap and prev != "exec":
        print(w[0])
    prev = "exec" if execmap else (prev if "cause=exec" in w else None)
PY
)
[ ${#execs[@]} = 2 ] || fail "exec: ${#execs[@]} execs of vmt-exact-all in the trace, not 2"
fetches() { vmtrace stats "$@" all.vmt | sed -n 's/^exact accesses: .* \([0-9]*\) instruction fetches.*/\1/p'; }
first=$(fetches --from "${execs[0]}" --to "$((execs[1] - 1))") second=$(fetches --from "${execs[1]}")
[ "${first:-0}" -gt 0 ] && [ "${second:-0}" -gt 0 ] ||
	fail "exec: fetches after each exec: '$first', '$second'"
echo "exec: $first fetches after the first, $second after the second"

# The cap: the program's mappings past 64 pages are left out, and counted.
vmtrace record -o cap.vmt --exact all --exact-max-pages 64 -- "$prog" run >cap-out.txt \
	2>cap.txt || { cat cap.txt; fail "record --exact all with a cap"; }
cat cap.txt
grep -q '\[ exact: [1-9][0-9]* pages of the ranges left out, over the cap of 64 \]' cap.txt ||
	fail "the cap's count"
grep -q '^heap-elements 500$' cap-out.txt || fail "the program under a cap"

# vmtrace start on a running process: every mapping it has already.
mkdir -p busy
/opt/vmtrace/bin/vmt-exact-busy busy &
busy=$!
wait_for "the busy process" test -e busy/ready
vmtrace start -o st.vmt --exact all -p "$busy" 2>start.txt || { cat start.txt; fail "start --exact all"; }
at_least_exact() { [ "$(cat /sys/kernel/vmtrace/exact_accesses)" -ge "$1" ]; }
wait_for "exact accesses" at_least_exact 2000
vmtrace stop 2>stop.txt || { cat stop.txt; fail "stop"; }
cat stop.txt
touch busy/stop
wait "$busy" || fail "the busy process died"
[ ! -e busy/corrupt ] || fail "the busy process saw its data change"
vmtrace verify st.vmt >/dev/null || fail "the started trace does not verify"
vmtrace dump st.vmt | awk '$2 == "exact" { n[$8 == "access=X"]++;
	if ($8 != "access=X" && $6 ~ /addr=0x1000000/) base++ }
	END { printf "start: %d fetches, %d other accesses, %d to its pages\n", n[1], n[0], base;
	      exit !(n[1] > 0 && base > 0) }' || fail "start --exact all: no fetch or no access to its pages"
