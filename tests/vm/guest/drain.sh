#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The collector under a fault storm, with each codec: two vmt-fault-loop
# processes, one pinned to each CPU, fault as fast as they can while
# `vmtrace record -a` drains both rings into a trace file, with the model
# codec (record's default: every CPU's records in one "mem" stream) and
# with vpc. Nothing is lost (the summary's count), the file holds every
# record the collector drained (stats) and checks whole (verify), and each
# loop's PAGES first-touch faults are all in it, in its process, each page
# of its mapping once and in time order (the program's own count: the model
# codec's "mem" stream, drained a CPU at a time, read through the cursor's
# time view). How fast is scripts/bench-drain's question, not this test's.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
PAGES=40000
insmod "$VMT_LIB/vmtrace.ko"
echo never >/sys/kernel/mm/transparent_hugepage/enabled

for codec in model vpc; do
	vmtrace record -a --codec "$codec" -o drain.vmt -- sh -c \
		"taskset -c 0 vmt-fault-loop $PAGES >/dev/null & taskset -c 1 vmt-fault-loop $PAGES >/dev/null; wait" \
		2>summary.txt || fail "$codec: record failed: $(cat summary.txt)"
	tail -1 summary.txt
	records=$(sed -n 's/.*(\([0-9]*\) records,.*/\1/p' summary.txt)
	[ -n "$records" ] || fail "$codec: no summary: $(cat summary.txt)"
	grep -q ' 0 lost' summary.txt || fail "$codec: records lost: $(tail -1 summary.txt)"
	vmtrace verify drain.vmt >/dev/null || fail "$codec: verify: $(vmtrace verify drain.vmt 2>&1)"
	expect_eq "$(vmtrace stats drain.vmt | sed -n 's/^records: //p')" "$records" \
		"$codec: records in the file"
	# By time: a loop's first faults (its exec, on the CPU sh ran on) may be
	# drained after its later ones, from the other CPU's ring.
	vmtrace dump --order time drain.vmt >dump.txt
	# Per process, the longest run of consecutive pages written once each, in
	# address order and in time order: a loop's mapping.
	python3 - "$PAGES" <<'PY' >runs.txt || fail "$codec: $(cat runs.txt)"
import collections, re, sys
pages = int(sys.argv[1])
written = collections.defaultdict(list)
for line in open("dump.txt"):
    m = re.search(r" ref .* pid=(\d+) .*addr=0x([0-9a-f]+) .*access=W ", line)
    if m:
        written[m.group(1)].append(int(m.group(2), 16) >> 12)
loops = 0
for pid, seq in written.items():
    count = collections.Counter(seq)
    best = run = 0
    prev = None
    for page in seq:
        run = run + 1 if prev is not None and page == prev + 1 and count[page] == 1 else 1
        best = max(best, run)
        prev = page
    if best >= pages:
        loops += 1
        print("pid %s: %d consecutive pages written once each, in order" % (pid, best))
    elif len(seq) >= pages / 2:
        print("pid %s: %d pages written, %d distinct, the longest run %d" % (pid, len(seq), len(count), best))
if loops != 2:
    sys.exit("%d processes with %d pages written in a run, not 2" % (loops, pages))
PY
	cat runs.txt
	echo "$codec: $records records drained, 0 lost, all in the file; both loops' $PAGES faults each"
	rm -f drain.vmt dump.txt
done
rmmod vmtrace
