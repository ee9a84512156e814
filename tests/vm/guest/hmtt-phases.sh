#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# Analyses by phase on a recorded trace (issue 35, HMTT's I-Code events): a
# program marks two phases of different behaviour (vmt-two-phases: PASSES
# sweeps over PAGES pages in order between markers 1 and 2, as many writes
# in a random order between markers 3 and 4), traced with --protect -n 0
# and -e marker, so that each write is a reference. `hmtt --between-markers`
# of each phase, over the buffer's pages (--addr: the loop's code and stack
# pages, referenced between the writes, are left out):
# - holds that phase's references alone: the program's writes, counted by
#   dump between the same markers;
# - shows the difference: the sequential phase's stream coverage rate
#   (virtual, a window of 32) is above 95%, the random phase's below 50%;
#   and, over the same line stream, the DRAM row-buffer hits of the
#   sequential phase outnumber the random phase's.
# (the analyses are user space; 6.1 alone, for make check's time.)
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
echo never >/sys/kernel/mm/transparent_hugepage/enabled
pages=2048 passes=4
vmtrace record -q -o p.vmt --protect -n 0 -e marker -- vmt-two-phases $pages $passes >p.out ||
	fail "vmtrace record of vmt-two-phases"
expect_eq "$(sed -n 2p p.out)" "pages $pages passes $passes" "the program's run"
range=$(sed -n 's/^buffer \(0x[0-9a-f]*-0x[0-9a-f]*\)$/\1/p' p.out)
[ -n "$range" ] || fail "the program printed no buffer range: $(head -1 p.out)"
lo=$((${range%-*})) hi=$((${range#*-}))
pid=$(vmtrace dump --type marker p.vmt | awk '{ sub(/.*pid=/, ""); sub(/ .*/, ""); print; exit }')
[ -n "$pid" ] || fail "no marker in the trace"

# The buffer's writes between two markers, from dump: the program's
# references whose address is in the buffer.
refs_between() {
	vmtrace dump --order time --pid "$pid" --type ref,marker p.vmt |
		awk -v a="$1" -v b="$2" -v lo="$lo" -v hi="$hi" '
		function hex(s,   i, v) {	# mawk has no strtonum()
			v = 0
			for (i = 3; i <= length(s); i++)
				v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		/ marker / { id = $0; sub(/.* id=/, "", id); sub(/ .*/, "", id)
			if (id == a) on = 1; else if (id == b) on = 0; next }
		on { addr = $0; sub(/.* addr=/, "", addr); sub(/ .*/, "", addr)
			addr = hex(addr); if (addr >= lo && addr < hi) n++ }
		END { print n + 0 }'
}
seq_refs=$(refs_between 1 2)
rnd_refs=$(refs_between 3 4)
[ "$seq_refs" -eq $((pages * passes)) ] ||
	fail "sequential phase: $seq_refs references in dump, the program wrote $((pages * passes)) pages"
[ "$rnd_refs" -eq $((pages * passes)) ] ||
	fail "random phase: $rnd_refs references in dump, the program wrote $((pages * passes)) pages"

# scr's first row (virtual, window 32) and dram's hits, of one phase
phase() {
	vmtrace hmtt --csv --section scr,dram --space virtual --addr "$range" \
		--between-markers "$1" p.vmt >"h$1.csv" ||
		fail "hmtt --between-markers $1"
	awk -F, 'NR == 2 { print $3, $4, $5 }' "h$1.csv"
}
read -r s_refs s_cov s_scr < <(phase 1,2)
read -r r_refs r_cov r_scr < <(phase 3,4)
expect_eq "$s_refs" "$seq_refs" "hmtt's references between markers 1 and 2 against dump's"
expect_eq "$r_refs" "$rnd_refs" "hmtt's references between markers 3 and 4 against dump's"
awk -v s="$s_scr" 'BEGIN { exit !(s > 95) }' || fail "sequential phase: SCR $s_scr%, not above 95%"
# A random order still makes streams by chance: with 2,048 pages and 465
# pairs before each reference in a window of 32, about one in five completes
# one (1 - (1 - 1/2048)^465), and each covers three references: near 30%.
awk -v r="$r_scr" 'BEGIN { exit !(r < 50) }' || fail "random phase: SCR $r_scr%, not below 50%"
hits() { awk -F, '$1 == "space" && $2 == "accesses" { getline; print $4; exit }' "h$1.csv"; }
s_hits=$(hits 1,2) r_hits=$(hits 3,4)
[ "$s_hits" -gt "$r_hits" ] ||
	fail "DRAM row hits: sequential phase $s_hits, not more than the random phase's $r_hits"
echo "hmtt-phases: sequential phase $s_refs references, SCR $s_scr%, $s_hits row hits;" \
	"random phase $r_refs references, SCR $r_scr%, $r_hits row hits"
rmmod vmtrace
