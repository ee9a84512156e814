#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/mpi.sh VMTRACE SYNTH: the analyses under MPI on this machine
# (Open MPI's mpirun, TCP on loopback only): `mpirun -np K vmtrace CMD`
# prints byte for byte what `vmtrace CMD` prints, for K = 2 and 3, for stats
# (summaries merged), mrc's exact LRU and reuse (PARDA's merge of LRU stack
# distances), heatmap (the grids of the parts' counts added), cachesim
# (hierarchies dealt out) and wss
# (split by units, each process reading every reference); what needs one
# pass (FIFO, CLOCK, OPT, samples, hmtt) runs whole in process 0; on a
# trace through the model codec (one unsorted stream, read by time) and one
# through zstd (a sorted stream a record type), whole and through filters,
# one that leaves every process's part empty, per process and by lines. A command that does not
# split its work refuses to run under mpirun, and vmtrace without
# vmtrace-mpi beside it says what is missing. scripts/setup installs Open
# MPI, and the Makefile builds vmtrace-mpi where it finds mpicc: without
# them this test fails.
set -uo pipefail
bin=$1
synth=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "mpi: FAIL: $*"; failed=$((failed + 1)); }

if ! command -v mpirun >/dev/null || [ ! -x "$(dirname "$bin")/vmtrace-mpi" ]; then
	echo "mpi: FAIL: no mpirun or no $(dirname "$bin")/vmtrace-mpi (scripts/setup installs openmpi-bin and libopenmpi-dev; make tools then builds it)"
	exit 1
fi
# Root may run it here (the test machines run as root). The processes talk
# over TCP, as on a cluster, on the loopback interface alone.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi() {
	mpirun -np "$1" --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include lo \
		--mca oob_tcp_if_include lo "${@:2}"
}

"$synth" mixed 40000 11 >"$tmp/mixed.raw"
"$bin" convert "$tmp/mixed.raw" -o "$tmp/model.vmt" --frame-bytes 65536 >/dev/null 2>&1 ||
	fail "convert model"
"$bin" convert "$tmp/mixed.raw" -o "$tmp/zstd.vmt" --codec zstd --frame-bytes 16384 \
	>/dev/null 2>&1 || fail "convert zstd"

# Exact accesses for cachesim: a din trace of loops over arrays and a random walk.
"$(dirname "$0")/exact-din.py" 30000 "$tmp/exact.din"
"$bin" convert --from din "$tmp/exact.din" -o "$tmp/exact.vmt" >/dev/null 2>&1 || fail "convert din"

# same NAME CMD...: the output of CMD alone and under 2 processes (NP: other
# counts; each MPI start takes half a second).
same() {
	local name=$1 np
	shift
	# Standard output and error apart: mpirun forwards them on two paths,
	# whose lines may reach us in either order.
	"$bin" "$@" >"$tmp/alone" 2>"$tmp/alone.err"
	echo "exit $?" >>"$tmp/alone"
	if ! grep -q "^exit 0$" "$tmp/alone" || [ "$(wc -l <"$tmp/alone")" -lt 3 ]; then
		fail "$name: alone: $(head -c 300 "$tmp/alone" "$tmp/alone.err")"
		return
	fi
	for np in ${NP:-2}; do
		mpi "$np" "$bin" "$@" >"$tmp/ranks" 2>"$tmp/ranks.err"
		echo "exit $?" >>"$tmp/ranks"
		if ! cmp -s "$tmp/alone" "$tmp/ranks" || ! cmp -s "$tmp/alone.err" "$tmp/ranks.err"; then
			fail "$name: $np processes print otherwise than one"
			diff "$tmp/alone" "$tmp/ranks" | head -6
			diff "$tmp/alone.err" "$tmp/ranks.err" | head -4
			return
		fi
	done
	passed=$((passed + 1))
}

tr=$tmp/model.vmt
NP="2 3" same "stats model" stats "$tr"
same "stats --from --to --pid model" stats --from 1000400000 --to 1001000000 --pid 4001 "$tr"
# Past the last record: every process's part is empty.
same "stats --from past the end model" stats --from 999999999999 "$tr"
same "mrc model" mrc "$tr"
NP=3 same "mrc --per-process --sizes model" mrc --per-process --sizes 10,100,1000,5000 "$tr"
same "reuse model" reuse "$tr"
same "reuse --per-process --to model" reuse --per-process --to 1001000000 "$tr"
NP=3 same "wss --per-process --series model" wss --window 1ms --per-process --series "$tr"
same "heatmap --per-process --from model" heatmap --per-process --from 1000400000 "$tr"
# What needs every reference in one pass runs whole in process 0: FIFO,
# CLOCK and OPT, sampled curves, hmtt.
same "mrc --policy lru,fifo,clock,opt model" mrc --policy lru,fifo,clock,opt "$tr"
same "mrc --sample 0.1 model" mrc --sample 0.1 "$tr"
NP=3 same "mrc --sample-size --per-process model" mrc --sample-size 500 --per-process "$tr"
same "hmtt model" hmtt "$tr"
same "hmtt --per-process --csv model" hmtt --per-process --csv --section scr,v2p "$tr"
# cachesim: ten hierarchies dealt out among 3 processes (one with 3, two with 4)
NP=3 same "cachesim --preset psnap --top 3" cachesim --preset psnap --top 3 "$tmp/exact.vmt"
# Phases between markers, and two hierarchies among 3 processes (one with none).
NP=3 same "cachesim --by-marker" cachesim --preset skylake --preset cachegrind --by-marker \
	"$top/tests/unit/data/format3-a2d8da3.vmt"
tr=$tmp/zstd.vmt
same "stats --type --from zstd" stats --type evict --from 1000400000 "$tr"
NP=3 same "reuse --unit line zstd" reuse --unit line "$tr"

# fails NAME COUNT PATTERN CMD...: CMD under 2 processes fails, and prints
# a line matching PATTERN COUNT times (0: any number, at least one).
fails() {
	local name=$1 count=$2 pattern=$3 status n
	shift 3
	mpi 2 "$@" >"$tmp/out" 2>&1
	status=$?
	n=$(grep -c -- "$pattern" "$tmp/out")
	if [ $status = 0 ] || [ "$n" = 0 ] || { [ "$count" != 0 ] && [ "$n" != "$count" ]; }; then
		fail "$name: exit $status, $(head -c 300 "$tmp/out")"
	else
		passed=$((passed + 1))
	fi
}
# reduce: process 0 writes the one trace, the trace one process writes.
"$bin" reduce --sad 50 "$tmp/model.vmt" -o "$tmp/alone.vmt" >"$tmp/alone" 2>"$tmp/alone.err"
mpi 2 "$bin" reduce --sad 50 "$tmp/model.vmt" -o "$tmp/ranks.vmt" >"$tmp/ranks" 2>"$tmp/ranks.err"
if [ -s "$tmp/alone.vmt" ] && cmp -s "$tmp/alone.vmt" "$tmp/ranks.vmt" &&
   cmp -s <(sed 's/alone.vmt/OUT/' "$tmp/alone") <(sed 's/ranks.vmt/OUT/' "$tmp/ranks") &&
   cmp -s "$tmp/alone.err" "$tmp/ranks.err"; then
	passed=$((passed + 1))
else
	fail "reduce: 2 processes write or print otherwise than one: $(head -c 300 "$tmp/ranks")"
fi
# A command that does not split refuses, once.
fails "dump under mpirun" 1 "does not split its work" "$bin" dump "$tmp/model.vmt"
# vmtrace alone in a folder: under mpirun it names what it misses.
mkdir "$tmp/lone" && cp "$bin" "$tmp/lone/vmtrace"
fails "vmtrace without vmtrace-mpi" 0 "lone/vmtrace-mpi: No such file" \
	"$tmp/lone/vmtrace" stats "$tmp/model.vmt"
# A trace one process cannot open (a file on one machine alone): the job
# fails, whichever process it is, and none waits for ever.
for cmd in hmtt heatmap "reduce --sad 4 -o $tmp/r.vmt" mrc; do
	for order in "$tmp/model.vmt $tmp/none.vmt" "$tmp/none.vmt $tmp/model.vmt"; do
		set -- $order
		# shellcheck disable=SC2086
		timeout 120 mpirun --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include lo \
			--mca oob_tcp_if_include lo -np 1 "$bin" $cmd "$1" : -np 1 "$bin" $cmd "$2" \
			>/dev/null 2>&1
		status=$?
		if [ $status = 0 ] || [ $status = 124 ]; then
			fail "$cmd, one trace missing ($(basename "$1") first): exit $status"
		else
			passed=$((passed + 1))
		fi
	done
done
# A missing trace: the processes say so, and the job fails.
fails "a missing trace" 0 "none.vmt" "$bin" stats "$tmp/none.vmt"

echo "mpi: $passed passed, $failed failed"
[ "$failed" = 0 ]
