#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `vmtrace faults` (bpf/faults.bpf.c) counts a command's user page faults: a
# python3 run that writes N more fresh pages than a baseline run faults N more
# times, all of them writes to pages that were not present.
. /opt/vmtrace/tests/vm/lib.sh

# Huge pages would serve 512 pages with one fault.
echo never >/sys/kernel/mm/transparent_hugepage/enabled

touch_pages() {
	vmtrace faults -- python3 -c "
import mmap, sys
n = int(sys.argv[1])
m = mmap.mmap(-1, max(n, 1) * 4096)
for i in range(n):
    m[i * 4096] = 1
" "$1"
}
count() { sed -n "s/^pid [0-9]*: \([0-9]*\) user page faults (\([0-9]*\) writes, [0-9]* instruction fetches, \([0-9]*\) not present)$/\\$2/p" <<<"$1"; }

base=$(touch_pages 0)
more=$(touch_pages 4000)
echo "baseline: $base"
echo "4000 pages more: $more"
diff=$(($(count "$more" 1) - $(count "$base" 1)))
writes=$(($(count "$more" 2) - $(count "$base" 2)))
absent=$(($(count "$more" 3) - $(count "$base" 3)))
echo "difference: $diff faults, $writes writes, $absent not present"
# Each new page is written once; the interpreter's own faults (reads and
# instruction fetches, mostly) vary by some tens between runs.
[ "$writes" -ge 3990 ] && [ "$writes" -le 4050 ] ||
	fail "expected about 4000 more write faults, got $writes"
[ "$diff" -ge 3900 ] && [ "$diff" -le 4100 ] || fail "expected about 4000 more faults, got $diff"
[ "$absent" -ge 3900 ] || fail "expected about 4000 more not-present faults, got $absent"

# The command's exit status passes through; -a counts other processes too.
rc=0
vmtrace faults -- sh -c 'exit 7' >/dev/null || rc=$?
expect_eq "$rc" 7 "exit status through vmtrace faults"
out=$(vmtrace faults -a -- python3 -c 'pass')
echo "$out" | head -3
[ "$(grep -c '^pid ' <<<"$out")" -ge 1 ] || fail "-a counted no process"
echo "bpf-faults: ok"
