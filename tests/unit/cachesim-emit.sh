#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/cachesim-emit.sh VMTRACE: `vmtrace cachesim --emit FILE`, the
# bus view, on an exact trace (tests/unit/exact-din.py's 30,000 accesses
# through convert --from din), read back by dump and stats: as many fills
# (reads) as the last level's misses cachesim prints, as many write-backs
# (writes) as its write-backs, as many prefetches more with --prefetch;
# every record a whole line, line-aligned, exact, of the one process and
# thread, times never going back; the file the same at -j 1, -j 2 and
# (when vmtrace-mpi and mpirun are here) in 2 MPI processes, and with
# another codec the same records; mrc --unit line and hmtt's interleaving
# read each of its records as an exact access; and the bad uses refused: two hierarchies
# (exit 2), a missing folder, the input itself, writer options without --emit.
set -uo pipefail
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "cachesim-emit: FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

"$here/exact-din.py" 30000 "$tmp/exact.din"
"$bin" convert --from din "$tmp/exact.din" -o "$tmp/exact.vmt" >/dev/null 2>&1 ||
	{ echo "cachesim-emit: FAIL: convert --from din"; exit 1; }

# The last level's column @2 (misses 5, writebacks 13, prefetches 17) in cachesim --csv's output @1.
ll() { awk -F, -v col="$2" '$2 == "LL" { print $col }' "$1"; }

# dump's records of @1: fills, write-backs, the rest; and the checks of each record.
check_dump() {
	"$bin" dump "$1" | awk -v line="$2" '
		function hex(s,  v, i) {
			v = 0
			for (i = 3; i <= length(s); i++)
				v = (v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1) % 65536
			return v
		}
		{ t = $1 + 0; if (NR > 1 && t < last) bad = bad " time " t " after " last; last = t }
		$2 != "exact" { bad = bad " type " $2; next }
		{ for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
		f["size"] != line { bad = bad " size " f["size"] }
		hex(f["addr"]) % line { bad = bad " addr " f["addr"] }
		f["pid"] != 1 || f["tid"] != 1 { bad = bad " pid " f["pid"] " tid " f["tid"] }
		f["access"] == "R" { r++ } f["access"] == "W" { w++ }
		f["access"] != "R" && f["access"] != "W" { bad = bad " access " f["access"] }
		END { printf "%d %d %s\n", r, w, substr(bad, 1, 200) }'
}

# The default hierarchy (cachegrind's: I1, D1, LL).
if "$bin" cachesim --csv --emit "$tmp/bus.vmt" "$tmp/exact.vmt" >"$tmp/cs.csv" 2>"$tmp/err"; then
	misses=$(ll "$tmp/cs.csv" 5) wbs=$(ll "$tmp/cs.csv" 13)
	read -r r w bad < <(check_dump "$tmp/bus.vmt" 64)
	if [ -n "$bad" ]; then
		fail "dump of the bus view:$bad"
	elif [ "$r" != "$misses" ] || [ "$w" != "$wbs" ] || [ "$misses" -lt 1000 ]; then
		fail "$r fills and $w write-backs, the last level $misses misses and $wbs write-backs"
	else
		pass
	fi
	records=$("$bin" stats "$tmp/bus.vmt" | awk '$1 == "records:" { print $2 }')
	loads=$("$bin" stats "$tmp/bus.vmt" | awk '$1 == "exact" && $2 == "accesses:" { print $3 }')
	[ "$records" = $((misses + wbs)) ] && [ "$loads" = "$misses" ] && pass ||
		fail "stats: $records records, $loads loads; want $((misses + wbs)), $misses"
else
	fail "cachesim --emit: $(head -c 300 "$tmp/err")"
fi

# The table says the same, and the CSV's counts are those of a run without --emit.
"$bin" cachesim --csv "$tmp/exact.vmt" >"$tmp/plain.csv" 2>/dev/null
cmp -s "$tmp/plain.csv" "$tmp/cs.csv" && pass || fail "--emit changed cachesim's counts"
"$bin" cachesim --emit "$tmp/bus2.vmt" "$tmp/exact.vmt" 2>/dev/null |
	grep -q "^# bus view in $tmp/bus2.vmt: $(echo "$misses" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') fills" &&
	pass || fail "the table's header line of the bus view"

# -j 1 and -j 2 (and batches of 100) write the same file, byte for byte.
for j in 1 2; do
	"$bin" cachesim -j $j --batch 100 --emit "$tmp/j$j.vmt" "$tmp/exact.vmt" >/dev/null 2>&1 ||
		fail "cachesim -j $j --emit"
done
cmp -s "$tmp/j1.vmt" "$tmp/j2.vmt" && cmp -s "$tmp/j1.vmt" "$tmp/bus.vmt" && pass ||
	fail "-j 1, -j 2 and the default wrote different files"

# Another codec: another file, the same records.
"$bin" cachesim --emit "$tmp/zstd.vmt" --codec zstd "$tmp/exact.vmt" >/dev/null 2>&1 &&
	cmp -s <("$bin" dump "$tmp/zstd.vmt") <("$bin" dump "$tmp/bus.vmt") && pass ||
	fail "--codec zstd: not the same records"

# Under MPI, process 0 alone simulates the one hierarchy and writes it.
if command -v mpirun >/dev/null && [ -x "$(dirname "$bin")/vmtrace-mpi" ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	mpirun -np 2 --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include lo \
		--mca oob_tcp_if_include lo "$(dirname "$bin")/vmtrace-mpi" cachesim \
		--emit "$tmp/mpi.vmt" "$tmp/exact.vmt" >/dev/null 2>&1 &&
		cmp -s "$tmp/mpi.vmt" "$tmp/bus.vmt" && pass || fail "2 MPI processes: another file"
fi

# A next-line prefetcher at the last level: its prefetches are reads too.
"$bin" cachesim --csv --cache L1=32k:8:64 --cache LL=256k:8:64 --prefetch \
	--emit "$tmp/pf.vmt" "$tmp/exact.vmt" >"$tmp/pf.csv" 2>/dev/null || fail "cachesim --prefetch --emit"
misses=$(ll "$tmp/pf.csv" 5) wbs=$(ll "$tmp/pf.csv" 13) pfs=$(ll "$tmp/pf.csv" 17)
read -r r w bad < <(check_dump "$tmp/pf.vmt" 64)
[ -z "$bad" ] && [ "$r" = $((misses + pfs)) ] && [ "$w" = "$wbs" ] && [ "${pfs:-0}" -gt 100 ] &&
	pass || fail "--prefetch: $r reads, $w writes; the last level $misses misses, $pfs prefetches, $wbs write-backs$bad"

# A last level of 128-byte lines: 128-byte records, aligned.
"$bin" cachesim --csv --cache L1=16k:4:64 --cache LL=128k:16:128 \
	--emit "$tmp/wide.vmt" "$tmp/exact.vmt" >"$tmp/wide.csv" 2>/dev/null || fail "cachesim 128-byte lines"
read -r r w bad < <(check_dump "$tmp/wide.vmt" 128)
[ -z "$bad" ] && [ "$r" = "$(ll "$tmp/wide.csv" 5)" ] && [ "$w" = "$(ll "$tmp/wide.csv" 13)" ] &&
	pass || fail "128-byte lines: $r fills, $w write-backs$bad"

# The analyses read the bus view's records as exact accesses (their
# default on a trace of exact records alone): mrc --unit line and hmtt's
# interleaving count every one of them.
n=$("$bin" stats "$tmp/bus.vmt" | awk '$1 == "exact" { print $2; exit }')
# The count as vmtrace prints it: 21,187.
c=$(sed ':a; s/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta' <<<"${n:-0}")
"$bin" mrc --unit line "$tmp/bus.vmt" >"$tmp/bus.out" 2>&1 &&
	grep -q "^# $tmp/bus.vmt: $c exact accesses" "$tmp/bus.out" &&
	[ "${n:-0}" -gt 1000 ] && pass || fail "mrc --unit line of the bus view ($n records): $(head -c 200 "$tmp/bus.out")"
"$bin" hmtt --section interleave "$tmp/bus.vmt" >"$tmp/bus.out" 2>&1 &&
	grep -q "  $c references of 1 processes" "$tmp/bus.out" &&
	pass || fail "hmtt of the bus view: $(head -c 300 "$tmp/bus.out")"

# Bad uses.
refused() {	# @1 the exit status wanted ('' any but 0), @2 what stderr says, then the command
	local want=$1 says=$2 st
	shift 2
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ $st = 0 ] || { [ -n "$want" ] && [ $st != "$want" ]; } || ! grep -q -- "$says" "$tmp/err"; then
		fail "$* exited $st: $(head -c 200 "$tmp/err")"
	else
		pass
	fi
}
refused 2 "one hierarchy's bus view, and 10 are given" cachesim --preset psnap --emit "$tmp/x.vmt" "$tmp/exact.vmt"
refused 2 "and 2 are given" cachesim --preset psnap1 --cache L1=32k:8:64 --emit "$tmp/x.vmt" "$tmp/exact.vmt"
[ ! -e "$tmp/x.vmt" ] && pass || fail "a refused --emit left a file"
refused 1 "No such file or directory" cachesim --emit "$tmp/none/x.vmt" "$tmp/exact.vmt"
refused 2 "the input itself" cachesim --emit "$tmp/exact.vmt" "$tmp/exact.vmt"
refused 2 "are for --emit's trace" cachesim --codec zstd "$tmp/exact.vmt"
refused 2 "unknown codec" cachesim --emit "$tmp/x.vmt" --codec nope "$tmp/exact.vmt"
# Whole first: grep -q ending early would cut --help's pipe (pipefail).
grep -q -- "--emit FILE" <<<"$("$bin" cachesim --help)" && pass || fail "--help says nothing of --emit"

echo "cachesim-emit: $passed passed, $failed failed"
[ $failed = 0 ]
