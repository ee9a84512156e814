#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/old-trace.sh VMTRACE VMT-SYNTH: a trace written before this
# tree's format changes (tests/unit/data/format1-1ebf73a.vmt: `vmtrace
# convert` of commit 1ebf73a, before the session, reduction and ref_index
# streams) still reads: the same records, data and analyses as a trace this
# tree's convert writes from the same raw records (export/records.py, then
# `vmt-synth mixed 3000 7`), with the default codec and with the model codec
# (format version 2), `verify` finds every frame whole, and `info` says it
# records no settings and is of version 1.
set -uo pipefail
bin=$1 synth=$2
here=$(dirname "$0")
old=$here/data/format1-1ebf73a.vmt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
new=
check() {  # check WHAT CMD...: CMD's output on the old trace and on the new one ($new)
	local what=$1
	shift
	"$@" "$old" >"$tmp/old.out" 2>&1 && "$@" "$new" >"$tmp/new.out" 2>&1 &&
		diff -u <(sed "s|$old|TRACE|g" "$tmp/old.out") <(sed "s|$new|TRACE|g" "$tmp/new.out") \
			>"$tmp/diff" && { passed=$((passed + 1)); return; }
	echo "old-trace: FAIL: $what (${new##*/}): $(head -20 "$tmp/diff" "$tmp/old.out")"
	failed=$((failed + 1))
}

{ python3 "$here/export/records.py" && "$synth" mixed 3000 7; } >"$tmp/t.raw" &&
	"$bin" convert "$tmp/t.raw" -o "$tmp/new.vmt" --frame-bytes 16384 >/dev/null 2>&1 &&
	"$bin" convert "$tmp/t.raw" -o "$tmp/model.vmt" --frame-bytes 16384 --codec model \
		>/dev/null 2>&1 ||
	{ echo "old-trace: FAIL: cannot make the new traces"; exit 1; }
for new in "$tmp/new.vmt" "$tmp/model.vmt"; do
	check "dump" "$bin" dump
	check "dump --order time" "$bin" dump --order time
	check "stats" "$bin" stats
	check "report" "$bin" report
	check "mrc" "$bin" mrc --policy lru,fifo,opt --sizes 1,4,16,64,256 --csv
	check "export --format csv" "$bin" export --format csv --type vma
done
for v in "1 $old" "2 $tmp/model.vmt"; do
	if "$bin" info "${v#* }" | head -1 | grep -q "format version ${v%% *},"; then
		passed=$((passed + 1))
	else
		echo "old-trace: FAIL: info does not say ${v#* } is of format version ${v%% *}"
		failed=$((failed + 1))
	fi
done
if "$bin" verify "$old" >"$tmp/verify" 2>&1; then
	passed=$((passed + 1))
else
	echo "old-trace: FAIL: verify: $(cat "$tmp/verify")"
	failed=$((failed + 1))
fi
if "$bin" info "$old" | grep -qx 'session: settings not recorded (a converted or older trace)'; then
	passed=$((passed + 1))
else
	echo "old-trace: FAIL: info does not say the old trace records no settings"
	failed=$((failed + 1))
fi
echo "old-trace: $passed checks passed, $failed failures"
[ "$failed" -eq 0 ]
