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
vmtrace dump all.vmt >all.txt
vmtrace dump lackey.vmt >lackey-dump.txt
python3 - all-out.txt all.txt lackey-out.txt lackey-dump.txt <<'PY' || fail "--exact all against lackey"
import collections, sys

def text(out):
    """The program's own code: the executable mapping of its file, as it printed it."""
    for line in open(out):
        if line.startswith("text "):
            return [int(x, 16) for x in line.split()[1].split("-")]

def counts(dump, lo, hi):
    own, whole, by_ip = collections.Counter(), collections.Counter(), collections.Counter()
    for line in open(dump):
        w = line.split()
        if len(w) < 2 or w[1] != "exact":
            continue
        f = dict(kv.split("=", 1) for kv in w[2:] if "=" in kv)
        if f["mode"] == "kernel":
            whole["kernel"] += 1
            continue
        whole[f["access"]] += 1
        if lo <= int(f["ip"], 16) < hi:
            own[f["access"]] += 1
            by_ip[(int(f["ip"], 16) - lo, f["access"])] += 1
    return own, whole, by_ip

ours, our_whole, our_ips = counts(sys.argv[2], *text(sys.argv[1]))
theirs, their_whole, their_ips = counts(sys.argv[4], *text(sys.argv[3]))
for k in sorted(set(our_ips) | set(their_ips)):
    if our_ips[k] != their_ips[k]:
        print("differs: offset %#x %s: vmtrace %d, lackey %d" % (k[0], k[1], our_ips[k], their_ips[k]))
kinds = ("X", "R", "W", "RW")
print("%-28s %10s %10s %10s" % ("", "vmtrace", "lackey", "difference"))
for name, a, b in (("own code", ours, theirs), ("whole program", our_whole, their_whole)):
    for k in kinds + (("kernel",) if name == "whole program" else ()):
        print("%-28s %10d %10d %+10d" % ("%s %s" % (name, k), a[k], b[k], a[k] - b[k]))
assert ours["X"] > 0 and all(ours[k] == theirs[k] for k in kinds), \
    "the program's own code: vmtrace %s, lackey %s" % (dict(ours), dict(theirs))
print("own code: the same %d fetches and %d data accesses as lackey's" %
      (ours["X"], sum(ours[k] for k in kinds[1:])))
PY
