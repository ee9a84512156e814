#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# timeout: 300
# Loop compression (vmtrace loops, issue 32) of irregular exact traces recorded
# here: a real program, sqlite3 (an in-memory table filled, indexed and
# queried, traced with --exact '[heap]': its parser's and B-trees' memory,
# page cache and malloc's chunks), and vmt-loops's pointer chase at 2 sizes
# (--exact over its data), each made a loop file:
# - lossless: the loop file made with --keep times,values gives the trace's
#   records back byte for byte (export --format raw: every record, every field,
#   in written order, wide values' DATA records included), and the loop file
#   made without (times and values dropped, loops's default) has the same
#   descriptors: every field but time, value and data_len;
# - answers unchanged: cachesim --preset cachegrind prints the same rows;
# - no more than 1.1x the model codec on the same records (issue 32): the loop
#   file's size over that of a model-codec file (vmtrace convert's default
#   codec) of the loop file's own records, exported raw: the same records
#   (exact ones with times and values 0 and no data, the VMA records and the
#   page-protection references as recorded), one written each way.
# Printed, a row each: exact accesses; bytes of the recorded trace (model
# codec, times and values kept), of the loop file made with --keep
# times,values (its match), of the loop file (without them); the loop
# descriptors before zstd and as stored (frame headers included); the model
# codec's file of the same records, and its exact stream as stored; xz -9 of
# those records raw (export --format raw: 64 bytes each), given "xz" (30 s of
# xz a trace under TCG: not in make check); loops / model.
# On 6.1 only, for make check's time (exact mode steps every access): 41 s,
# most of it sqlite3's 215,000 accesses, recorded and read 6 times.
# loops-real.sh [SIZES [xz]]: the chase's N (default "4096 65536"); xz: the
# xz -9 column too.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
sizes=${1:-4096 65536}
xz=${2:-}

# stored FILE NAME-REGEX...: for each pair, the bytes FILE's streams of those
# names take (their stream blocks, frame headers and payloads), read from the
# blocks (docs/FORMAT.md: a file header, then stream blocks VMTS and frames VMTF).
stored() {
	python3 - "$@" <<-'EOF'
		import re, struct, sys
		for path, regex in zip(sys.argv[1::2], sys.argv[2::2]):
		    b = open(path, 'rb').read()
		    off, names, size = 64, {}, {}
		    while off + 64 <= len(b) and b[off:off + 4] in (b'VMTS', b'VMTF'):
		        sid, = struct.unpack_from('<I', b, off + 4)
		        if b[off:off + 4] == b'VMTS':
		            names[sid], size[sid] = b[off + 32:off + 56].rstrip(b'\0').decode(), 64
		            off += 64
		        else:
		            n = 64 + struct.unpack_from('<I', b, off + 52)[0]
		            size[sid] += n
		            off += n
		    print(sum(size[s] for s in names if re.fullmatch(regex, names[s])))
	EOF
}
# loop_streams FILE: "ID NAME" of each of FILE's loop (kind 4) streams.
loop_streams() { vmtrace info "$1" | awk '$3 == "loops" { print $1, $2 }'; }
printf '%-14s %8s %9s %9s %8s %9s %8s %9s %8s %8s %6s\n' program accesses trace kept loops \
	"desc raw" desc model "model ex" "xz -9" ratio

# one NAME RANGE COMMAND...: COMMAND traced with --exact RANGE, made a loop
# file, checked, and its row printed.
one() {
	local name=$1 range=$2 n desc desc_st model model_ex xz9 ratio
	shift 2
	vmtrace record -o "$name.vmt" -e vma --exact "$range" -- "$@" \
		>"$name.out" 2>"$name.rec" || { cat "$name.rec"; fail "$name: record"; }
	grep -q '\[ exact: .* 0 missed' "$name.rec" && grep -q ', 0 lost' "$name.rec" ||
		{ cat "$name.rec"; fail "$name: accesses missed or records lost"; }
	vmtrace loops "$name.vmt" -o "$name.loops.vmt" >"$name.loops" 2>&1 ||
		{ cat "$name.loops"; fail "$name: vmtrace loops"; }
	vmtrace loops --keep times,values "$name.vmt" -o "$name.kept.vmt" >"$name.kept" 2>&1 ||
		{ cat "$name.kept"; fail "$name: vmtrace loops --keep times,values"; }
	n=$(vmtrace info "$name.vmt" | awk '$2 ~ /^exact\./ { s += $5 } END { print s + 0 }')
	[ "$n" -gt 0 ] || fail "$name: no exact record"
	# Lossless, compared in raw records (loops.sh's dumps through sed take a
	# minute for sqlite3 under TCG): the loop file with times and values kept
	# gives the trace's records back byte for byte; the one without them has
	# the same descriptors, which give every field but time, value and
	# data_len (docs/FORMAT.md, "Loop descriptors").
	vmtrace export --format raw "$name.vmt" -o "$name.raw"
	vmtrace export --format raw "$name.kept.vmt" -o "$name.kept.raw"
	cmp "$name.raw" "$name.kept.raw" >"$name.cmp" ||
		fail "$name: the loop file (--keep times,values) gives other records back: $(cat "$name.cmp")"
	rm "$name.raw" "$name.kept.raw"
	[ "$(loop_streams "$name.loops.vmt")" = "$(loop_streams "$name.kept.vmt")" ] ||
		fail "$name: the loop files' loop streams differ: $(loop_streams "$name.loops.vmt")"
	while read -r id stream; do
		vmtrace export --format raw --stream "$id" "$name.loops.vmt" -o "$name.desc"
		vmtrace export --format raw --stream "$id" "$name.kept.vmt" -o "$name.kept.desc"
		cmp -s "$name.desc" "$name.kept.desc" ||
			fail "$name: $stream's descriptors differ with times and values kept"
	done < <(loop_streams "$name.loops.vmt")
	cmp -s <(vmtrace cachesim --preset cachegrind "$name.vmt" | grep -v '^# vmtrace cachesim: ') \
		<(vmtrace cachesim --preset cachegrind "$name.loops.vmt" | grep -v '^# vmtrace cachesim: ') ||
		fail "$name: cachesim --preset cachegrind differs"
	# The model codec on the same records: the loop file's, exported raw.
	vmtrace export --format raw "$name.loops.vmt" -o "$name.same.raw"
	vmtrace convert "$name.same.raw" -o "$name.model.vmt" >/dev/null 2>&1
	desc=$(vmtrace info "$name.loops.vmt" | awk '$3 == "loops" { s += $5 } END { print s + 0 }')
	[ "$desc" -gt 0 ] || fail "$name: no loop descriptors"
	{ read -r desc_st; read -r model_ex; } < <(stored "$name.loops.vmt" 'loops\..*' "$name.model.vmt" 'exact\..*')
	model=$(stat -c %s "$name.model.vmt")
	xz9=-
	[ -z "$xz" ] || xz9=$(xz -9 -T1 -c "$name.same.raw" | wc -c)
	rm "$name.same.raw"
	ratio=$(awk -v a="$(stat -c %s "$name.loops.vmt")" -v b="$model" 'BEGIN { printf "%.3f", a / b }')
	printf '%-14s %8d %9d %9d %8d %9d %8d %9d %8d %8s %6s\n' "$name" "$n" "$(stat -c %s "$name.vmt")" \
		"$(stat -c %s "$name.kept.vmt")" "$(stat -c %s "$name.loops.vmt")" "$desc" "$desc_st" \
		"$model" "$model_ex" "$xz9" "$ratio"
	awk -v r="$ratio" 'BEGIN { exit !(r <= 1.1) }' ||
		fail "$name: the loop file is ${ratio}x the model codec's on the same records (more than 1.1x)"
}

# sqlite3: 50 rows of pseudo-random keys (a multiplicative hash: the same every
# run), an index on them, a grouping sorted: 215,000 accesses, most of them
# parsing and building the schema.
sql=$(sqlite3_workload 50)
one sqlite3 '[heap]' sqlite3 :memory: "$sql"
grep -q "^50|" sqlite3.out || { cat sqlite3.out; fail "sqlite3: wrong answer"; }
for n in $sizes; do
	one "chase-$n" 0x10000000000-0x10004000000 /opt/vmtrace/bin/vmt-loops chase "$n"
done
rmmod vmtrace
echo "loops-real: ok"
