#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# record-real-programs.sh: the guest side of scripts/profile-real. Records
# real programs with `vmtrace record --exact '[heap]'` (every load and store
# to their heap; a malloc() threshold past their tables keeps glibc from
# mmap()ing them apart) into /mnt/share/NAME.vmt, for the table of
# docs/analysis/profile.md ("Runs anchored where their kind's last began"):
#   xz0-1..3  xz -0 of 3,000 bytes (three recordings: they differ)
#   xz0-12k   xz -0 of 12,000 bytes, and xz0-48k of 48,000: the same program's
#             longer runs, the first 3,000 bytes the same
#   xz6       xz -6 of 6,000 bytes
#   bzip2     bzip2 -1 of the same 6,000 bytes
#   zstd      zstd -3 of them
#   perl      a hash of 3,000 keys
#   python3   a dict of 3,000 keys, sorted
#   awk       counting the words of 20,000 bytes
#   sort      sorting them
#   sqlite3   200 rows, an index, a grouping (tests/vm/guest/profile.sh's)
# The inputs are vmtrace's own files (tests/vm/lib.sh, then tests/vm/guest/*.sh).
# A recording that fails, or misses accesses or loses records, fails the run.
set -euo pipefail
. /opt/vmtrace/tests/vm/lib.sh
insmod /opt/vmtrace/lib/vmtrace.ko
cd /tmp
out=/mnt/share
head -c 3000 /opt/vmtrace/tests/vm/lib.sh >in3k.txt
cat /opt/vmtrace/tests/vm/lib.sh /opt/vmtrace/tests/vm/guest/*.sh >all.txt
head -c 12000 all.txt >in12k.txt
head -c 48000 all.txt >in48k.txt
head -c 6000 /opt/vmtrace/tests/vm/lib.sh >in6k.txt
head -c 20000 /opt/vmtrace/tests/vm/lib.sh >in20k.txt

record() {
	local name=$1
	shift
	GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432 \
		vmtrace record -o "$out/$name.vmt" --exact '[heap]' -- "$@" >"$name.out" 2>"$name.rec" ||
		{ cat "$name.rec"; fail "$name: vmtrace record"; }
	grep -q '\[ exact: .* 0 missed' "$name.rec" && grep -q ', 0 lost' "$name.rec" ||
		{ cat "$name.rec"; fail "$name: accesses missed or records lost"; }
	echo "$name: $(grep -o 'exact: [0-9]* accesses' "$name.rec")"
}

for i in 1 2 3; do
	record xz0-$i xz -0 -c in3k.txt
done
record xz0-12k xz -0 -c in12k.txt
record xz0-48k xz -0 -c in48k.txt
record xz6 xz -6 -c in6k.txt
record bzip2 bzip2 -1 -c in6k.txt
record zstd zstd -3 -c in6k.txt
record perl perl -e 'my %h; $h{($_ * 7919) % 10007} = $_ for 1..3000; print scalar(keys %h), "\n"'
record python3 python3 -c 'd = {}
for i in range(3000): d[(i * 7919) % 10007] = str(i)
print(sum(len(v) for k, v in sorted(d.items())))'
record awk awk '{ n[$1]++ } END { for (k in n) s += n[k]; print s }' in20k.txt
record sort sort in20k.txt
sql=$(sqlite3_workload 200)
record sqlite3 sqlite3 :memory: "$sql"
