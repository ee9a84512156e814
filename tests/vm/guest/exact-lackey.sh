#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12
# timeout: 1500
# Exact mode against valgrind's lackey, in the same guest, on the same
# program (vmt-exact-all run: a loop over an array at a fixed address, a
# pseudo-random walk over a 256 KiB table at another):
# - vmtrace record --exact over the array and the table, and lackey's
#   --trace-mem=yes log made a trace (vmtrace convert --from lackey): the
#   same vmtrace cachesim --csv results over each range, at three
#   hierarchies (PSnAP's 1 and 5, cachegrind's);
# - vmtrace record --exact all: as many instruction fetches, loads, stores
#   and modifies as lackey's in the program's own code (the executable
#   mapping of its file), kind by kind. The whole program's counts are
#   printed beside lackey's: ld.so and libc run differently under valgrind
#   (docs/exact.md, "Whole programs").
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
prog=/opt/vmtrace/bin/vmt-exact-all
array=0x10000000000-0x10000002000 table=0x10000100000-0x10000140000

# A log a process: lackey follows the child the program forks, which vmtrace
# (without --follow) does not trace. valgrind runs as the process it starts.
valgrind --tool=lackey --trace-mem=yes --log-file=lackey.%p.txt "$prog" run >lackey-out.txt &
valgrind=$!
wait "$valgrind" || fail "vmt-exact-all under lackey"
vmtrace convert --from lackey "lackey.$valgrind.txt" -o lackey.vmt || fail "convert --from lackey"
vmtrace record -o range.vmt --exact "$array" --exact "$table" -- "$prog" run >range-out.txt \
	2>range-record.txt || { cat range-record.txt; fail "vmtrace record --exact RANGE"; }
grep -q ', 0 lost' range-record.txt || { cat range-record.txt; fail "records lost"; }
for r in "$array" "$table"; do
	for t in range lackey; do
		vmtrace cachesim --csv --addr "$r" --preset psnap1 --preset psnap5 \
			--preset cachegrind "$t.vmt" >"$t-$r.csv" || fail "cachesim of $t.vmt over $r"
	done
	diff "range-$r.csv" "lackey-$r.csv" || fail "cachesim over $r: vmtrace's and lackey's differ"
	echo "cachesim over $r: the same $(($(wc -l <"range-$r.csv") - 1)) rows from vmtrace's and lackey's traces"
done
cut -d, -f1-8 "range-$table.csv"

# Rings that hold the whole run: on 6.12 both vCPUs share one host thread,
# and the collector falls behind.
vmtrace record -o all.vmt -r 524288 --exact all -- "$prog" run >all-out.txt 2>all-record.txt ||
	{ cat all-record.txt; fail "vmtrace record --exact all"; }
grep "^\[" all-record.txt
grep -q ', 0 lost' all-record.txt || fail "records lost"
# The counts by kind: vmtrace stats, the own code's through --ip (the
# executable mapping of the program's file, as it printed it).
text_of() { sed -n 's/^text \(0x[0-9a-f]*-0x[0-9a-f]*\)$/\1/p' "$1"; }
our_text=$(text_of all-out.txt) their_text=$(text_of lackey-out.txt)
[ -n "$our_text" ] && [ -n "$their_text" ] || fail "the program printed no text range"
vmtrace stats --type exact all.vmt >our-whole.txt &&
	vmtrace stats --ip "$our_text" all.vmt >our-own.txt &&
	vmtrace stats --type exact lackey.vmt >their-whole.txt &&
	vmtrace stats --ip "$their_text" lackey.vmt >their-own.txt || fail "vmtrace stats"
python3 - our-own.txt their-own.txt our-whole.txt their-whole.txt <<'PY' && exit 0
import re, sys
def kinds(path):
    m = re.search(r"^exact accesses: (\d+) loads, (\d+) stores, (\d+) read-modify-writes, "
                  r"(\d+) instruction fetches, (\d+) other; (\d+) of them the kernel's$",
                  open(path).read(), re.M)
    return dict(zip(("R", "W", "RW", "X", "other", "kernel"), map(int, m.groups()))) if m else {}
ours, theirs, our_whole, their_whole = map(kinds, sys.argv[1:5])
print("%-28s %10s %10s %10s" % ("", "vmtrace", "lackey", "difference"))
for name, a, b in (("own code", ours, theirs), ("whole program", our_whole, their_whole)):
    # The whole program's loads and stores count the kernel's (system calls' copies) too.
    for k in ("X", "R", "W", "RW") + (("kernel",) if name == "whole program" else ()):
        print("%-28s %10d %10d %+10d" % ("%s %s" % (name, k), a.get(k, 0), b.get(k, 0),
                                          a.get(k, 0) - b.get(k, 0)))
if ours.get("X", 0) > 0 and ours == theirs:
    print("own code: the same %d fetches and %d data accesses as lackey's" %
          (ours["X"], ours["R"] + ours["W"] + ours["RW"]))
    sys.exit(0)
sys.exit(1)
PY
# They differ: where, instruction by instruction (offsets in the program's code).
vmtrace dump --ip "$our_text" all.vmt >our-own-dump.txt
vmtrace dump --ip "$their_text" lackey.vmt >their-own-dump.txt
python3 - "$our_text" our-own-dump.txt "$their_text" their-own-dump.txt <<'PY'
import collections, sys
def by_ip(text, dump):
    lo = int(text.split("-")[0], 16)
    n = collections.Counter()
    for line in open(dump):
        f = dict(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv)
        n[(int(f["ip"], 16) - lo, f["access"])] += 1
    return n
ours, theirs = by_ip(*sys.argv[1:3]), by_ip(*sys.argv[3:5])
for k in sorted(set(ours) | set(theirs)):
    if ours[k] != theirs[k]:
        print("differs: offset %#x %s: vmtrace %d, lackey %d" % (k[0], k[1], ours[k], theirs[k]))
PY
fail "--exact all against lackey: the program's own code"
