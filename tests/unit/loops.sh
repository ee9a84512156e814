#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/loops.sh VMTRACE: `vmtrace loops` (issue 32: exact accesses as
# ScalaMemTrace's loops, user/lib/codec/loop_codec.c, trace/loop_*.c) on
# real exact traces: programs built here (cachesim-progs/: matmul, jacobi (a
# 5-point stencil), chase (a pointer chase over a random permutation);
# loops-progs/triad.c) run under `valgrind --tool=lackey --trace-mem=yes`, and
# `vmtrace convert --from lackey` makes their exact traces. For each:
# - lossless: dump of the loop file gives the original's exact records,
#   field by field but time and value (dropped by default), in the same
#   order; with --keep times,values every field, times and values included;
# - answers unchanged: cachesim --preset cachegrind prints the same rows;
# - info says what was kept, and verify checks the file;
# - a loop stream cut or with flipped bytes is refused with a message
#   (dump exits 1 naming the loop stream), and nothing hangs.
# Then matmul at N = 16, 32, 64 (LOOPS_SIZES: docs/BENCHMARKS.md's table is
# of 32, 64, 128): its loop descriptors grow at most 1.2x a doubling of N
# (printed against the raw records and the model codec's file), and loops
# --show finds its k loop (N iterations, stride 8).
set -uo pipefail
bin=$(realpath "${1:?usage: loops.sh VMTRACE}")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "loops: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

if ! command -v valgrind >/dev/null; then
	echo "loops: valgrind is not installed (scripts/setup installs it)" >&2
	exit 1
fi

# $1 program, $2 N: its exact trace (model codec) at $tmp/$1-$2.vmt, lackey's log piped.
trace_of() {
	local p=$1 n=$2 src=$here/loops-progs/$1.c
	[ -f "$src" ] || src=$here/cachesim-progs/$1.c
	gcc -O1 ${n:+-DN=$n} -o "$tmp/$p-$n" "$src" || return 1
	valgrind --tool=lackey --trace-mem=yes --log-fd=3 "$tmp/$p-$n" 3>&1 >/dev/null 2>/dev/null |
		"$bin" convert --from lackey - -o "$tmp/$p-$n.vmt" 2>/dev/null
}

# The exact records of a dump, without time and value.
exact_fields() { "$bin" dump --type exact "$1" | sed -E 's/^[0-9]+ //; s/ value=[^ ]*//'; }

for prog in "matmul 32" "jacobi 48" "triad 8192" "chase "; do
	read -r p n <<<"$prog"
	t=$tmp/$p-$n.vmt l=$tmp/$p-$n.loops.vmt k=$tmp/$p-$n.keep.vmt
	if ! trace_of "$p" "$n"; then
		fail "$p: no trace (gcc, lackey or convert failed)"
		continue
	fi
	"$bin" loops "$t" -o "$l" >"$tmp/out" 2>&1 &&
		grep -q "times and values dropped" "$tmp/out" && ok ||
		fail "$p: loops: $(cat "$tmp/out")"
	if cmp -s <(exact_fields "$t") <(exact_fields "$l"); then ok; else
		fail "$p: the loop file's exact records differ: $(diff <(exact_fields "$t") \
			<(exact_fields "$l") | head -4)"
	fi
	[ "$(exact_fields "$t" | wc -l)" -gt 1000 ] && ok || fail "$p: too few exact records"
	"$bin" loops --keep times,values "$t" -o "$k" >/dev/null 2>&1 &&
		cmp -s <("$bin" dump "$t") <("$bin" dump "$k") && ok ||
		fail "$p: --keep times,values: the records differ"
	if cmp -s <("$bin" cachesim --preset cachegrind "$t" | grep -v "^# vmtrace cachesim: ") \
		<("$bin" cachesim --preset cachegrind "$l" | grep -v "^# vmtrace cachesim: "); then ok; else
		fail "$p: cachesim --preset cachegrind differs"
	fi
	"$bin" info "$l" | grep -q "^loops: stream .*times dropped (read as 0), values dropped" &&
		"$bin" info "$k" | grep -q "^loops: stream .*times kept, values kept" && ok ||
		fail "$p: info does not say what was kept"
	"$bin" verify "$l" >/dev/null && ok || fail "$p: verify $l"
done

# Damage: flip bytes of the first loop stream's frames (uncompressed: --codec none).
t=$tmp/matmul-32.vmt
"$bin" loops --codec none "$t" -o "$tmp/plain.vmt" >/dev/null
python3 - "$tmp/plain.vmt" "$tmp/bad.vmt" <<'EOF'
import struct, sys, zlib
data = bytearray(open(sys.argv[1], 'rb').read())
# Every frame of a loops stream: find the stream ids of kind 4 in the stream blocks.
ids = set()
for off in range(0, len(data) - 64):
    if data[off:off + 4] == b'VMTS' and struct.unpack_from('<I', data, off + 12)[0] == 4:
        ids.add(struct.unpack_from('<I', data, off + 4)[0])
off = 64
done = 0
while off < len(data) - 64 and done < 1:
    if data[off:off + 4] == b'VMTF' and struct.unpack_from('<I', data, off + 4)[0] in ids:
        size = struct.unpack_from('<I', data, off + 52)[0]
        for i in range(0, size, 7):
            data[off + 64 + i] ^= 0x5a
        # Keep the checksums right, so that only the descriptors are wrong.
        struct.pack_into('<I', data, off + 56, zlib.crc32(bytes(data[off + 64:off + 64 + size])))
        struct.pack_into('<I', data, off + 60, zlib.crc32(bytes(data[off:off + 60])))
        done += 1
        off += 64 + size
    else:
        off += 1
open(sys.argv[2], 'wb').write(data)
EOF
timeout 60 "$bin" dump "$tmp/bad.vmt" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "loop stream [0-9]*.*: \(loop descriptors: \|the descriptors \)" "$tmp/err" && ok ||
	fail "flipped descriptors: exit $rc, $(cat "$tmp/err")"
# verify replays the loop streams: their frames' checksums are right, their descriptors not.
timeout 60 "$bin" verify "$tmp/bad.vmt" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc = 1 ] && grep -q "loop stream [0-9]*" "$tmp/err" && ok ||
	fail "verify of flipped descriptors: exit $rc, $(cat "$tmp/err")"
timeout 60 "$bin" cachesim --preset cachegrind "$tmp/bad.vmt" >/dev/null 2>&1
[ $? = 1 ] && ok || fail "flipped descriptors: cachesim does not refuse them"

# Sizes: matmul's descriptors against N.
printf '%-8s %12s %14s %14s %14s %12s\n' N accesses "raw bytes" "model file" "loops file" descriptors
prev=
sizes=${LOOPS_SIZES:-16 32 64}
for n in $sizes; do
	[ -f "$tmp/matmul-$n.vmt" ] || trace_of matmul "$n" || { fail "matmul $n: no trace"; continue; }
	"$bin" loops "$tmp/matmul-$n.vmt" -o "$tmp/matmul-$n.loops.vmt" >/dev/null ||
		{ fail "matmul $n: loops failed"; continue; }
	acc=$("$bin" info "$tmp/matmul-$n.loops.vmt" | sed -n 's/^loops: stream .*, \([0-9]*\) exact accesses.*/\1/p')
	desc=$("$bin" info "$tmp/matmul-$n.loops.vmt" |
		awk '$3 == "loops" { s += $5 } END { print s + 0 }')
	printf '%-8s %12s %14s %14s %14s %12s\n' "$n" "$acc" "$((acc * 64))" \
		"$(stat -c %s "$tmp/matmul-$n.vmt")" "$(stat -c %s "$tmp/matmul-$n.loops.vmt")" "$desc"
	if [ -n "$prev" ]; then
		awk -v a="$prev" -v b="$desc" 'BEGIN { exit !(b <= 1.2 * a) }' && ok ||
			fail "matmul $n: descriptors grew from $prev to $desc bytes (more than 1.2x)"
	fi
	prev=$desc
done

# The loop view: the k loop of the largest matmul, N iterations, B walked by rows of 8 N bytes.
n=${sizes##* }
"$bin" loops --show "$tmp/matmul-$n.loops.vmt" >"$tmp/show" 2>&1 &&
	grep -q "^ *loop x$n: " "$tmp/show" && grep -q "stride +8 \|stride +$((8 * n))" "$tmp/show" &&
	grep -q "% of the accesses in loops" "$tmp/show" && ok ||
	fail "loops --show: $(head -20 "$tmp/show")"

# Bad usage.
# A writer that died: the list of loop streams is written at close, so a
# file cut short and repaired says that their accesses cannot be read
# (verify, dump), rather than reading as a trace without them.
# Cut where the list's frame is lost and the loop stream's kept, and where
# the loop stream's frame is lost too (its block kept).
for cut in 400 2000; do
head -c $(($(stat -c %s "$l") - cut)) "$l" >"$tmp/cut.vmt"
"$bin" verify --repair "$tmp/cut.vmt" >"$tmp/out" 2>&1
[ $? = 1 ] && grep -q 'loop streams (the first: loops\.[0-9]*) that the "loops" list does not name: their writer did not finish' "$tmp/out" &&
	grep -q ': repaired: kept' "$tmp/out" && ok ||
	fail "verify --repair of a loops file cut short: $(cat "$tmp/out")"
"$bin" dump "$tmp/cut.vmt" >/dev/null 2>"$tmp/out"
[ $? = 1 ] && grep -q 'their writer did not finish' "$tmp/out" && ok ||
	fail "dump of a repaired loops file: $(cat "$tmp/out")"
done

"$bin" loops "$t" >/dev/null 2>&1; [ $? = 2 ] && ok || fail "loops without -o: not exit 2"
"$bin" loops --keep colour "$t" -o "$tmp/x.vmt" >/dev/null 2>&1; [ $? = 2 ] && ok ||
	fail "--keep colour: not exit 2"
"$bin" loops "$t" -o "$t" >/dev/null 2>&1; [ $? = 1 ] && ok || fail "-o the input: not exit 1"
grep -q "^usage: vmtrace loops" <<<"$("$bin" loops --help)" && ok || fail "loops --help"

echo "loops: $passed passed, $failed failed"
[ $failed = 0 ]
