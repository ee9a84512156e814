#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12 debug
# Exact mode: vmt-exact makes a known sequence of loads and stores (every
# size, unaligned, across a page end, locked read-modify-writes, rep movsb,
# push, pop, pushf and popf) to a buffer it maps after tracing started,
# inside an --exact range: the trace's exact records are that sequence,
# with sizes and values, in order, and nothing else; pushf never saw the
# trap flag; no step was missed, cancelled or left undecoded.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"

vmtrace record -o exact.vmt --exact 10000000000-10000003000 -- /opt/vmtrace/bin/vmt-exact \
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
[ "$(grep -vc " pid=$pid .* mode=user" exact.txt)" = 0 ] ||
	fail "exact records of another process or of kernel mode"
grep -q '\[ exact: .* 0 not decoded, 0 from the kernel, 0 steps cancelled, 0 missed, 0 unpinned' \
	record.txt || fail "exact mode's counters"
echo "exact: $(wc -l <got.txt) accesses as the program made them"
