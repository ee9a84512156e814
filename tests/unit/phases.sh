#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/phases.sh VMTRACE: --marker ID and --between-markers A,B (each
# process's records from its marker A to its next marker B, or any marker,
# or its end: HMTT's I-Code events) against a brute-force model. A trace of
# three processes, two of them marking phases (one with a phase left open,
# a marker B before any A, a marker A inside a phase, two markers at one
# time), is made by python3 with the phases worked out by its own code; the
# records it keeps are converted into a trace of their own, and every
# command run with the option on the whole trace prints what it prints with
# none on the kept records (the file's name aside): stats, dump, mrc, reuse,
# wss, heatmap, hmtt, cachesim and report (its processes and top pages: its
# time slices span the whole trace, and their counts add up); the same at -j 2 and as 2 MPI processes;
# bad values refused.
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "phases: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

# make A B OUT-ALL OUT-KEPT: the whole trace's raw records, and those the
# phases from marker A to marker B (B "any": the next marker) keep.
make() {
	python3 - "$@" <<'PY'
import random
import struct
import sys

first, last, whole, kept = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
last = None if last == 'any' else int(last)
r = random.Random(11)
recs = []     # (time, pid, type, payload)
t = 1000
for i in range(6000):
    t += r.randrange(1, 4)
    pid = (10, 20, 30)[i % 3]
    page = r.randrange(64) if pid != 30 else 200 + r.randrange(400)
    recs.append((t, pid, 2, struct.pack('<QQQIBBBBII', (0x400000 + page * 4096), 0,
                                         0x401000 + (i % 7) * 16, 4, 1, 0, 0, 0, 0, 0)))
# Markers (time, pid, id): B before any A; A inside a phase; an open phase;
# two markers at one time (an empty phase).
marks = [(1500, 10, 2), (3000, 10, 1), (4200, 10, 1), (6000, 10, 2), (9000, 10, 1),
         (2500, 20, 1), (5000, 20, 3), (7000, 20, 2), (7000, 20, 1), (7000, 20, 2)]
for n, (mt, pid, mid) in enumerate(marks):
    recs.append((mt, pid, 4, struct.pack('<IIQQQQ', mid, 0, 0, 0, 0, 0)))
recs.sort(key=lambda x: x[0])   # stable: a marker after the references of its time

# The phases, by their definition: open at A when none is open, close at the
# next B (or any marker), the closing marker outside; open ones end with the trace.
phases, open_at = [], {}
for mt, pid, typ, payload in recs:
    if typ != 4:
        continue
    mid = struct.unpack_from('<I', payload)[0]
    if pid in open_at and (last is None or mid == last):
        if mt > open_at[pid]:
            phases.append((pid, open_at[pid], mt))
        del open_at[pid]
    if pid not in open_at and mid == first:
        open_at[pid] = mt
phases += [(pid, s, 1 << 64) for pid, s in open_at.items()]


def inside(tm, pid):
    return any(p == pid and s <= tm < e for p, s, e in phases)


def write(path, keep):
    with open(path, 'wb') as f:
        for tm, pid, typ, payload in recs:
            if keep(tm, pid):
                f.write(struct.pack('<QIIHHI', tm, pid, pid, typ, 0, 0) + payload)


write(whole, lambda tm, pid: True)
write(kept, inside)
print(sum(1 for tm, pid, typ, _ in recs if typ == 2 and inside(tm, pid)))
PY
}

# same NAME ARGS...: CMD ARGS on the whole trace with the phase option
# ($phase) prints what CMD ARGS prints on the kept records alone.
same() {
	local name=$1
	shift
	# shellcheck disable=SC2086
	"$bin" "$@" $phase "$tmp/all.vmt" 2>&1 | sed "s|$tmp/all.vmt|TRACE|g" >"$tmp/a"
	"$bin" "$@" "$tmp/kept.vmt" 2>&1 | sed "s|$tmp/kept.vmt|TRACE|g" >"$tmp/k"
	if [ "$(wc -l <"$tmp/k")" -lt 2 ]; then
		fail "$name: $(head -c 300 "$tmp/k")"
	elif cmp -s "$tmp/a" "$tmp/k"; then ok; else
		fail "$name ($phase): otherwise than the kept records"
		diff "$tmp/a" "$tmp/k" | head -6
	fi
}

for spec in "1 2" "1 any"; do
	set -- $spec
	refs=$(make "$1" "$2" "$tmp/all.raw" "$tmp/kept.raw")
	"$bin" convert "$tmp/all.raw" -o "$tmp/all.vmt" --frame-bytes 8192 >/dev/null 2>&1 &&
		"$bin" convert "$tmp/kept.raw" -o "$tmp/kept.vmt" --frame-bytes 8192 >/dev/null 2>&1 ||
		fail "convert $spec"
	if [ "$2" = any ]; then phase="--marker $1"; else phase="--between-markers $1,$2"; fi
	# The model's count of references kept, and stats' count.
	# shellcheck disable=SC2086
	got=$("$bin" stats $phase "$tmp/all.vmt" | awk '$1 == "reference" { print $2 }')
	[ -n "$refs" ] && [ "$refs" -gt 100 ] && [ "$got" = "$refs" ] && ok ||
		fail "$phase: stats counts $got references, the model $refs"
	same "stats" stats
	same "dump" dump
	same "mrc" mrc --policy lru,fifo
	same "reuse --per-process" reuse --per-process
	same "wss" wss --window 1us
	same "heatmap" heatmap --csv
	same "hmtt" hmtt --section interleave,scr
	same "cachesim" cachesim --cache L1=1k:2:64
	# report's time slices (and the working set's window, a slice) span the
	# whole trace's time, the kept records' theirs: its processes and top
	# pages, and the slices' sum.
	# shellcheck disable=SC2086
	"$bin" report $phase "$tmp/all.vmt" >"$tmp/ra" 2>&1
	"$bin" report "$tmp/kept.vmt" >"$tmp/rk" 2>&1
	slices() { awk '/^references over time/ { on = 1; next } on && NF == 0 { on = 0 } on' "$1"; }
	rest() {
		awk '/^references over time/ { skip = 1 } /^top pages/ { skip = 0; top = 1 }
		     top && NF == 0 { exit } !skip' "$1" | sed "s|$tmp/[a-z]*.vmt|TRACE|"
	}
	if cmp -s <(rest "$tmp/ra") <(rest "$tmp/rk") &&
	   [ "$(slices "$tmp/ra" | awk '{ n += $3 } END { print n }')" = "$refs" ]; then ok; else
		fail "report ($phase): otherwise than the kept records"
		diff <(rest "$tmp/ra") <(rest "$tmp/rk") | head -6
	fi
	# The same at -j 2 and as 2 MPI processes.
	# shellcheck disable=SC2086
	"$bin" mrc -j 1 $phase "$tmp/all.vmt" >"$tmp/j1" 2>/dev/null
	# shellcheck disable=SC2086
	"$bin" mrc -j 2 $phase "$tmp/all.vmt" >"$tmp/j2" 2>/dev/null
	[ "$(wc -l <"$tmp/j1")" -gt 3 ] && cmp -s "$tmp/j1" "$tmp/j2" && ok ||
		fail "$phase: -j 2 otherwise than -j 1 ($(wc -l <"$tmp/j1") lines)"
	if command -v mpirun >/dev/null && [ -x "$(dirname "$bin")/vmtrace-mpi" ]; then
		# shellcheck disable=SC2086
		OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe \
			--mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo \
			"$bin" mrc $phase "$tmp/all.vmt" >"$tmp/np2" 2>/dev/null
		cmp -s "$tmp/j1" "$tmp/np2" && ok || fail "$phase: 2 MPI processes otherwise than one"
	fi
done

# refuse WORDS ARGS...: exit status 2 (a bad value) or 1 (no such marker), saying WORDS.
refuse() {
	local words=$1 status
	shift
	"$bin" stats "$@" "$tmp/all.vmt" >/dev/null 2>"$tmp/err"
	status=$?
	if [ "$status" != 0 ] && grep -q -- "$words" "$tmp/err"; then ok; else
		fail "stats $*: status $status, '$(cat "$tmp/err")'"
	fi
}
refuse "no marker 99 in the trace" --marker 99
refuse "bad --between-markers '1'" --between-markers 1
refuse "bad --marker '1,2'" --marker 1,2
refuse "bad --between-markers" --between-markers 1,x
refuse "one --marker or --between-markers" --marker 1 --between-markers 1,2
refuse "bad --marker" --marker 4294967295

echo "phases: $passed passed, $failed failed"
[ "$failed" = 0 ]
