#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/jobs.sh VMTRACE SYNTH: every command that reads a trace prints
# the same bytes (and writes the same files) whatever the threads that decode
# its frames: -j 1 against -j 2 and -j 3. The traces have many small frames,
# so that frames are decoded ahead while others are read: refs and evictions
# through the model codec (one stream, read through a time view), the same
# through zstd (a time-sorted stream per record type, merged), and exact
# accesses from a din trace.
set -uo pipefail
bin=$1
synth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "jobs: FAIL: $*"; failed=$((failed + 1)); }

"$synth" mixed 30000 7 >"$tmp/mixed.raw"
"$bin" convert "$tmp/mixed.raw" -o "$tmp/model.vmt" --frame-bytes 65536 >/dev/null 2>&1 ||
	fail "convert model"
"$bin" convert "$tmp/mixed.raw" -o "$tmp/zstd.vmt" --codec zstd --frame-bytes 16384 \
	>/dev/null 2>&1 || fail "convert zstd"
# din: a program of three loops over arrays and a random walk, 40000 accesses.
"$(dirname "$0")/exact-din.py" 40000 "$tmp/exact.din"
"$bin" convert --from din "$tmp/exact.din" -o "$tmp/exact.vmt" --frame-bytes 65536 \
	>/dev/null 2>&1 || fail "convert din"
# Frames enough to decode ahead: info's first line ends "..., N frames".
for t in model zstd exact; do
	n=$("$bin" info "$tmp/$t.vmt" | head -1 | awk '{ print $(NF - 1) }')
	[ "${n:-0}" -ge 8 ] || fail "$t.vmt: $n frames, not 8 or more"
done

# same NAME TRACE CMD...: CMD's output (and its -o file or folder, written to
# @OUT@) byte for byte the same at -j 1, 2 and 3.
same() {
	local name=$1 trace=$2 j out=$tmp/out
	shift 2
	rm -rf "$tmp"/file.* "$out"
	for j in 1 2 3; do
		"$bin" "${@//@OUT@/$out}" -j "$j" "$trace" >"$tmp/stdout.$j" 2>"$tmp/stderr.$j"
		echo "exit $?" >>"$tmp/stdout.$j"
		[ -e "$out" ] && mv "$out" "$tmp/file.$j"
	done
	if ! grep -q "^exit 0$" "$tmp/stdout.1" ||
	   { [ "$(wc -l <"$tmp/stdout.1")" -lt 2 ] && [ ! -s "$tmp/file.1" ]; }; then
		fail "$name: did not run ($(head -c 300 "$tmp/stderr.1"))"
		return
	fi
	for j in 2 3; do
		if ! cmp -s "$tmp/stdout.1" "$tmp/stdout.$j"; then
			fail "$name: -j $j prints otherwise than -j 1"
			diff "$tmp/stdout.1" "$tmp/stdout.$j" | head -5
			return
		fi
		if [ -e "$tmp/file.1" ] && ! diff -r -q "$tmp/file.1" "$tmp/file.$j" >/dev/null; then
			fail "$name: -j $j writes another file than -j 1"
			return
		fi
	done
	passed=$((passed + 1))
}

for t in model zstd; do
	tr=$tmp/$t.vmt
	same "dump $t" "$tr" dump
	same "dump --from --to $t" "$tr" dump --from 1000500000 --to 1002000000
	same "export raw $t" "$tr" export --format raw -o @OUT@
	same "export csv $t" "$tr" export --format csv -o @OUT@
	same "stats $t" "$tr" stats
	same "mrc $t" "$tr" mrc
	same "mrc fifo,clock $t" "$tr" mrc --policy fifo,clock --sizes 10,100,1000
	same "mrc --sample $t" "$tr" mrc --sample 0.1
	same "reuse $t" "$tr" reuse
	same "wss $t" "$tr" wss --window 1ms
	same "heatmap $t" "$tr" heatmap --csv
	same "hmtt $t" "$tr" hmtt
	same "reduce $t" "$tr" reduce --sad 100 -o @OUT@
done
tr=$tmp/exact.vmt
same "dump exact" "$tr" dump
same "stats exact" "$tr" stats
same "cachesim exact" "$tr" cachesim --preset cachegrind
same "cachesim --per-thread exact" "$tr" cachesim --cache L1=4k:2:64 --cache L2=64k:8:64
same "export din exact" "$tr" export --format din -o @OUT@

# -j's bad values are refused by name.
for bad in 0 x 257; do
	if "$bin" stats -j "$bad" "$tmp/model.vmt" >/dev/null 2>"$tmp/err" ||
	   ! grep -q -- "-j" "$tmp/err"; then
		fail "stats -j $bad: not refused by name ($(cat "$tmp/err"))"
	else
		passed=$((passed + 1))
	fi
done

echo "jobs: $passed passed, $failed failed"
[ "$failed" = 0 ]
