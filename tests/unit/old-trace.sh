#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/old-trace.sh VMTRACE VMT-SYNTH: traces written before this
# tree's format changes still read: tests/unit/data/format1-1ebf73a.vmt
# (`vmtrace convert` of commit 1ebf73a, version 1, before the session,
# reduction and ref_index streams) and tests/unit/data/format2-3cd2bb1.vmt
# (commit 3cd2bb1's convert --codec model, version 2: one mem.cpuN stream a
# CPU) and tests/unit/data/format3-a2d8da3.vmt (commit a2d8da3's convert
# --codec model, version 3, before loop streams, kind 4) give the same
# records, data and analyses as a trace this tree's
# convert writes from the same raw records (export/records.py, then
# `vmt-synth mixed 3000 7`), with the vpc codec and with the model codec
# (version 3: one "mem" stream of every CPU); `verify` finds every frame
# whole, and `info` says which version each is and that the old ones record
# no settings. tests/unit/data/format3-loops-0aaee9e.vmt (`vmtrace loops` of
# commit 0aaee9e, before loop sets, kind 5: three threads of the same loops
# at other bases, a loop stream each) dumps as that commit's vmtrace dumped
# it (format3-loops-0aaee9e.dump), verifies, and this tree's `vmtrace loops`
# makes it one loop set that dumps the same. tests/unit/data/format3-exact-c4edf38.vmt
# (commit c4edf38's convert --codec model, version 3, of 4,000 exact records of
# sqlite3 and nbody recorded in the VM: its frames of mode 2, before mode 3 coded exact
# records by their instruction) dumps as that commit dumped it (the SHA-256 of its
# dump, below), verifies, and written again by this tree (version 5, mode 4) dumps
# the same. tests/unit/data/format4-exact-6ecd4e6.vmt (the same records, commit
# 6ecd4e6's convert --codec model, version 4: frames of mode 3, before mode 4 kept
# the values in a stream of their own) dumps the same too, verifies, and gives
# the same profile as the version 5 file, which `profile` reads without values.
set -uo pipefail
bin=$1 synth=$2
here=$(dirname "$0")
old1=$here/data/format1-1ebf73a.vmt old2=$here/data/format2-3cd2bb1.vmt
old3=$here/data/format3-a2d8da3.vmt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
new= old=
check() {  # check WHAT CMD...: CMD's output on the old trace and on the new one ($new)
	local what=$1
	shift
	"$@" "$old" >"$tmp/old.out" 2>&1 && "$@" "$new" >"$tmp/new.out" 2>&1 &&
		diff -u <(sed "s|$old|TRACE|g" "$tmp/old.out") <(sed "s|$new|TRACE|g" "$tmp/new.out") \
			>"$tmp/diff" && { passed=$((passed + 1)); return; }
	echo "old-trace: FAIL: $what (${old##*/} against ${new##*/}): $(head -20 "$tmp/diff" "$tmp/old.out")"
	failed=$((failed + 1))
}

{ python3 "$here/export/records.py" && "$synth" mixed 3000 7; } >"$tmp/t.raw" &&
	"$bin" convert "$tmp/t.raw" -o "$tmp/new.vmt" --frame-bytes 16384 --codec vpc >/dev/null 2>&1 &&
	"$bin" convert "$tmp/t.raw" -o "$tmp/model.vmt" --frame-bytes 16384 --codec model \
		>/dev/null 2>&1 ||
	{ echo "old-trace: FAIL: cannot make the new traces"; exit 1; }
for pair in "$old1 $tmp/new.vmt" "$old1 $tmp/model.vmt" "$old2 $tmp/model.vmt" "$old3 $tmp/model.vmt"; do
	old=${pair% *} new=${pair#* }
	check "dump" "$bin" dump
	check "dump --order time" "$bin" dump --order time
	check "stats" "$bin" stats
	check "report" "$bin" report
	check "mrc" "$bin" mrc --policy lru,fifo,opt --sizes 1,4,16,64,256 --csv
	check "export --format csv" "$bin" export --format csv --type vma
done
for v in "1 $old1" "2 $old2" "3 $old3" "5 $tmp/model.vmt"; do
	if "$bin" info "${v#* }" | head -1 | grep -q "format version ${v%% *},"; then
		passed=$((passed + 1))
	else
		echo "old-trace: FAIL: info does not say ${v#* } is of format version ${v%% *}"
		failed=$((failed + 1))
	fi
done
for old in "$old1" "$old2" "$old3"; do
	if "$bin" verify "$old" >"$tmp/verify" 2>&1; then
		passed=$((passed + 1))
	else
		echo "old-trace: FAIL: verify: $(cat "$tmp/verify")"
		failed=$((failed + 1))
	fi
	if "$bin" info "$old" | grep -qx 'session: settings not recorded (a converted or older trace)'; then
		passed=$((passed + 1))
	else
		echo "old-trace: FAIL: info does not say ${old##*/} records no settings"
		failed=$((failed + 1))
	fi
done
oldloops=$here/data/format3-loops-0aaee9e.vmt
if "$bin" dump "$oldloops" >"$tmp/loops.dump" 2>&1 &&
	cmp -s "$tmp/loops.dump" "$here/data/format3-loops-0aaee9e.dump" && "$bin" verify "$oldloops" >/dev/null 2>&1; then
	passed=$((passed + 1))
else
	echo "old-trace: FAIL: ${oldloops##*/} does not dump as 0aaee9e dumped it, or does not verify: $(diff "$tmp/loops.dump" "$here/data/format3-loops-0aaee9e.dump" | head -4)"
	failed=$((failed + 1))
fi
if "$bin" loops "$oldloops" -o "$tmp/set.vmt" >"$tmp/set.out" 2>&1 &&
	grep -q '3 threads in 1 loop set' "$tmp/set.out" &&
	"$bin" dump "$tmp/set.vmt" | cmp -s - "$here/data/format3-loops-0aaee9e.dump"; then
	passed=$((passed + 1))
else
	echo "old-trace: FAIL: ${oldloops##*/} made again with loop sets: $(cat "$tmp/set.out")"
	failed=$((failed + 1))
fi
oldexact=$here/data/format3-exact-c4edf38.vmt
exact_sum=9696b8133ccf2068d7a01277fc7573bcd26fb826e37b227fb6f7a522bbf99b07
sum=$("$bin" dump "$oldexact" 2>&1 | sha256sum | cut -d' ' -f1)
if [ "$sum" = "$exact_sum" ] && "$bin" verify "$oldexact" >/dev/null 2>&1 &&
	"$bin" info "$oldexact" | head -1 | grep -q "format version 3,"; then
	passed=$((passed + 1))
else
	echo "old-trace: FAIL: ${oldexact##*/} does not dump as c4edf38 dumped it (SHA-256 $sum), does not verify, or is not of version 3"
	failed=$((failed + 1))
fi
if "$bin" export --format raw "$oldexact" -o "$tmp/exact.raw" >/dev/null 2>&1 &&
	"$bin" convert "$tmp/exact.raw" -o "$tmp/exact.vmt" --codec model >/dev/null 2>&1 &&
	[ "$("$bin" dump "$tmp/exact.vmt" | sha256sum | cut -d' ' -f1)" = "$exact_sum" ] &&
	"$bin" info "$tmp/exact.vmt" | head -1 | grep -q "format version 5,"; then
	passed=$((passed + 1))
else
	echo "old-trace: FAIL: ${oldexact##*/} written again (version 5) does not dump the same"
	failed=$((failed + 1))
fi
old4=$here/data/format4-exact-6ecd4e6.vmt
if [ "$("$bin" dump "$old4" 2>&1 | sha256sum | cut -d' ' -f1)" = "$exact_sum" ] &&
	"$bin" verify "$old4" >/dev/null 2>&1 &&
	"$bin" info "$old4" | head -1 | grep -q "format version 4," &&
	"$bin" profile "$old4" -o "$tmp/old4.prof" >/dev/null 2>&1 &&
	"$bin" profile "$tmp/exact.vmt" -o "$tmp/exact.prof" >/dev/null 2>&1 &&
	cmp -s "$tmp/old4.prof" "$tmp/exact.prof"; then
	passed=$((passed + 1))
else
	echo "old-trace: FAIL: ${old4##*/} does not dump as 6ecd4e6 dumped it, does not verify, is not of version 4, or does not profile as the same records in version 5"
	failed=$((failed + 1))
fi
echo "old-trace: $passed checks passed, $failed failures"
[ "$failed" -eq 0 ]
