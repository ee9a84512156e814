#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/trace-set.sh VMTRACE SYNTH: several trace files read as one
# input (a set file: docs/FORMAT.md, "Trace sets").
#
# - The oracle is the whole: a trace cut by time into three files (export
#   --format raw --from/--to, then convert), named by a set file, prints what
#   the whole prints (the name aside) for every analysis command, dump in
#   written and in time order and export csv; refs and evictions through the
#   model codec, and exact accesses (cachesim).
# - Every analysis command prints the same bytes (reduce writes the same
#   trace) at -j 1, -j 2 and as 2 MPI processes, on the set, on a set of the
#   test traces of formats 1 to 3 and on traces of the bench's kinds
#   (vmt-synth mixed, random and sweep, smaller).
# - Files whose times overlap (a trace named twice) are read one after
#   another: info says by how much the second moved, and stats counts each
#   record twice.
# - A bad set is refused, naming the set and the file: a missing file, a set
#   naming none, a set within a set, a file that is not a trace, a loop file;
#   verify refuses a set (its files are verified one by one).
set -uo pipefail
bin=$1
synth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "trace-set: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

if ! command -v mpirun >/dev/null || [ ! -x "$(dirname "$bin")/vmtrace-mpi" ]; then
	echo "trace-set: FAIL: no mpirun or no $(dirname "$bin")/vmtrace-mpi (scripts/setup installs openmpi-bin and libopenmpi-dev)"
	exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi() {
	mpirun -np 2 --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include lo \
		--mca oob_tcp_if_include lo "$@"
}

# cut NAME WHOLE T1 T2: WHOLE cut at times T1 and T2 into $tmp/NAME/{1,2,3}.vmt,
# named in that order by $tmp/NAME/set.vmts.
cut() {
	local name=$1 whole=$2 dir=$tmp/$1 i
	mkdir -p "$dir"
	"$bin" export --format raw --to "$3" "$whole" -o "$dir/1.raw" &&
		"$bin" export --format raw --from $(($3 + 1)) --to "$4" "$whole" -o "$dir/2.raw" &&
		"$bin" export --format raw --from $(($4 + 1)) "$whole" -o "$dir/3.raw" ||
		fail "$name: cutting"
	for i in 1 2 3; do
		"$bin" convert "$dir/$i.raw" -o "$dir/$i.vmt" --frame-bytes 16384 >/dev/null 2>&1 ||
			fail "$name: convert part $i"
		rm -f "$dir/$i.raw"
	done
	printf 'vmtrace trace set\n# %s cut in three by time\n1.vmt\n\n2.vmt\n3.vmt\n' "$name" \
		>"$dir/set.vmts"
}

"$synth" mixed 30000 7 >"$tmp/mixed.raw"
"$bin" convert "$tmp/mixed.raw" -o "$tmp/mixed.vmt" --frame-bytes 65536 >/dev/null 2>&1 ||
	fail "convert mixed"
cut mixed "$tmp/mixed.vmt" 1020000000 1040000000
# Exact accesses, for cachesim: din's times are the accesses' numbers.
"$(dirname "$0")/exact-din.py" 30000 "$tmp/exact.din"
"$bin" convert --from din "$tmp/exact.din" -o "$tmp/exact.vmt" >/dev/null 2>&1 ||
	fail "convert din"
cut exact "$tmp/exact.vmt" 9999 19999

# whole NAME WHOLE SET CMD...: CMD prints for SET what it prints for WHOLE.
whole() {
	local name=$1 w=$2 s=$3
	shift 3
	"$bin" "$@" "$w" 2>&1 | sed "s|$w|TRACE|g" >"$tmp/w.out"
	"$bin" "$@" "$s" 2>&1 | sed "s|$s|TRACE|g" >"$tmp/s.out"
	if [ "$(wc -l <"$tmp/w.out")" -lt 2 ]; then
		fail "$name: $(head -c 300 "$tmp/w.out")"
	elif cmp -s "$tmp/w.out" "$tmp/s.out"; then ok; else
		fail "$name: the set prints otherwise than the whole"
		diff "$tmp/w.out" "$tmp/s.out" | head -5
	fi
}
w=$tmp/mixed.vmt s=$tmp/mixed/set.vmts
whole "dump" "$w" "$s" dump
whole "dump --order time" "$w" "$s" dump --order time
whole "dump --from --to" "$w" "$s" dump --from 1015000000 --to 1045000000
whole "export csv" "$w" "$s" export --format csv --type ref
whole "stats" "$w" "$s" stats
whole "mrc" "$w" "$s" mrc
whole "mrc fifo,clock,opt --sample" "$w" "$s" mrc --policy lru,fifo,clock,opt --sample 0.5
whole "reuse --per-process" "$w" "$s" reuse --per-process
whole "wss" "$w" "$s" wss --window 1ms --series
whole "heatmap" "$w" "$s" heatmap --csv
whole "hmtt" "$w" "$s" hmtt
whole "cachesim" "$tmp/exact.vmt" "$tmp/exact/set.vmts" cachesim --preset psnap --top 2

# alike NAME TRACE CMD...: CMD at -j 1, -j 2 and as 2 MPI processes, the same.
alike() {
	local name=$1 tr=$2
	shift 2
	# Standard output and error apart (mpirun forwards them on two paths).
	"$bin" "$@" -j 1 "$tr" >"$tmp/j1" 2>"$tmp/j1.err"
	echo "exit $?" >>"$tmp/j1"
	"$bin" "$@" -j 2 "$tr" >"$tmp/j2" 2>"$tmp/j2.err"
	echo "exit $?" >>"$tmp/j2"
	mpi "$bin" "$@" "$tr" >"$tmp/np2" 2>"$tmp/np2.err"
	echo "exit $?" >>"$tmp/np2"
	if ! grep -q '^exit 0$' "$tmp/j1" || [ "$(wc -l <"$tmp/j1")" -lt 3 ]; then
		fail "$name: $(head -c 300 "$tmp/j1" "$tmp/j1.err")"
	elif ! cmp -s "$tmp/j1" "$tmp/j2" || ! cmp -s "$tmp/j1.err" "$tmp/j2.err"; then
		fail "$name: -j 2 prints otherwise than -j 1"
		diff "$tmp/j1" "$tmp/j2" | head -5
	elif ! cmp -s "$tmp/j1" "$tmp/np2" || ! cmp -s "$tmp/j1.err" "$tmp/np2.err"; then
		fail "$name: 2 MPI processes print otherwise than one"
		diff "$tmp/j1" "$tmp/np2" | head -5
	else
		ok
	fi
}
analyses() {
	local name=$1 tr=$2
	alike "stats $name" "$tr" stats
	alike "mrc $name" "$tr" mrc
	alike "mrc fifo,clock $name" "$tr" mrc --policy fifo,clock --sizes 100,1000,10000
	alike "mrc --sample $name" "$tr" mrc --sample 0.01
	alike "reuse $name" "$tr" reuse
	alike "wss $name" "$tr" wss --window 1ms
	alike "heatmap $name" "$tr" heatmap --csv
	alike "hmtt $name" "$tr" hmtt --section v2p,interleave,scr
}
analyses "set" "$tmp/mixed/set.vmts"
# The test traces of formats 1, 2 and 3 as one set (their times overlap).
data=$(cd "$(dirname "$0")/data" && pwd)
printf 'vmtrace trace set\n%s\n%s\n%s\n' "$data/format1-1ebf73a.vmt" "$data/format2-3cd2bb1.vmt" \
	"$data/format3-a2d8da3.vmt" >"$tmp/formats.vmts"
analyses "formats 1-3" "$tmp/formats.vmts"
# reduce writes a trace: the same file and output at -j 1, -j 2 and as 2 processes.
"$bin" reduce --sad 20 -j 1 "$tmp/mixed/set.vmts" -o "$tmp/r1.vmt" >"$tmp/r1" 2>/dev/null
"$bin" reduce --sad 20 -j 2 "$tmp/mixed/set.vmts" -o "$tmp/r2.vmt" >"$tmp/r2" 2>/dev/null
mpi "$bin" reduce --sad 20 "$tmp/mixed/set.vmts" -o "$tmp/r3.vmt" >"$tmp/r3" 2>"$tmp/r3.err"
if [ -s "$tmp/r1.vmt" ] && cmp -s "$tmp/r1.vmt" "$tmp/r2.vmt" && cmp -s "$tmp/r1.vmt" "$tmp/r3.vmt" &&
   cmp -s <(sed 's/r1.vmt/R/' "$tmp/r1") <(sed 's/r2.vmt/R/' "$tmp/r2") &&
   cmp -s <(sed 's/r1.vmt/R/' "$tmp/r1") <(sed 's/r3.vmt/R/' "$tmp/r3"); then ok; else
	fail "reduce set: -j 2 or 2 processes write or print otherwise: $(head -c 300 "$tmp/r3" "$tmp/r3.err")"
fi
alike "cachesim set" "$tmp/exact/set.vmts" cachesim --preset psnap --top 2
for kind in mixed random sweep; do
	"$synth" "$kind" 100000 3 >"$tmp/$kind.raw" &&
		"$bin" convert "$tmp/$kind.raw" -o "$tmp/b-$kind.vmt" >/dev/null 2>&1 ||
		fail "bench kind $kind"
	rm -f "$tmp/$kind.raw"
	analyses "$kind" "$tmp/b-$kind.vmt"
done

# One trace twice: the second after the first.
printf 'vmtrace trace set\nmixed.vmt\n%s/mixed.vmt\n' "$tmp" >"$tmp/twice.vmts"
once=$("$bin" stats "$tmp/mixed.vmt" | awk '$1 == "records:" { print $2 }')
twice=$("$bin" stats "$tmp/twice.vmts" | awk '$1 == "records:" { print $2 }')
[ -n "$once" ] && [ "$twice" = $((2 * once)) ] && ok || fail "twice: $twice records, not 2 x $once"
"$bin" info "$tmp/twice.vmts" >"$tmp/info" 2>&1
grep -q "trace set of 2 files" "$tmp/info" && grep -q "its times [0-9]* ns later" "$tmp/info" &&
	ok || fail "info of a set: $(head -c 400 "$tmp/info")"
# The second's times follow the first's: dump --order time never goes back.
"$bin" dump --order time "$tmp/twice.vmts" |
	awk '{ t = $1 + 0; if (t < last) { bad = 1 } last = t } END { exit bad }' &&
	ok || fail "twice: times go back"

# A trace whose times reach past 2^63, named three times: the third cannot
# follow the second without passing 2^64 ns, and is refused (no time wraps).
python3 - "$tmp/late.raw" <<'PY'
import struct, sys
with open(sys.argv[1], 'wb') as f:
    for t in (10, 20, (1 << 63) + 5):
        f.write(struct.pack('<QIIHHI', t, 1, 1, 2, 0, 0) +
                struct.pack('<QQQIBBBBII', 0x400000, 0, 0, 4, 1, 0, 0, 0, 0, 0))
PY
"$bin" convert "$tmp/late.raw" -o "$tmp/late.vmt" >/dev/null 2>&1 || fail "convert late"

# refuse NAME PATTERN SETFILE-LINES...: stats of the set fails, saying PATTERN.
refuse() {
	local name=$1 pattern=$2
	shift 2
	printf 'vmtrace trace set\n' >"$tmp/bad.vmts"
	printf '%s\n' "$@" >>"$tmp/bad.vmts"
	if "$bin" stats "$tmp/bad.vmts" >/dev/null 2>"$tmp/err"; then
		fail "$name: not refused"
	elif grep -q -- "$pattern" "$tmp/err"; then ok; else
		fail "$name: '$(cat "$tmp/err")', not '$pattern'"
	fi
}
refuse "a missing file" "bad.vmts: cannot read .*none.vmt" mixed.vmt none.vmt
refuse "no file" "names no trace" "# nothing"
refuse "a set within" "bad.vmts: .*twice.vmts: a trace set within a set" twice.vmts
refuse "itself" "bad.vmts: .*bad.vmts: a trace set within a set" bad.vmts
refuse "times past 2^64" "late.vmt: its times cannot follow the files before it" late.vmt late.vmt late.vmt
refuse "not a trace" "exact.din: not a vmtrace trace file" mixed.vmt exact.din
"$bin" loops "$tmp/exact.vmt" -o "$tmp/loops.vmt" >/dev/null 2>&1 || fail "loops"
refuse "a loop file" "loop streams .* cannot join a trace set" loops.vmt
if "$bin" verify "$tmp/mixed/set.vmts" >/dev/null 2>"$tmp/err" ||
   ! grep -q "verify or repair each file alone" "$tmp/err" || grep -q -- "--repair" "$tmp/err"; then
	fail "verify of a set: $(cat "$tmp/err")"
else
	ok
fi

echo "trace-set: $passed passed, $failed failed"
[ "$failed" = 0 ]
