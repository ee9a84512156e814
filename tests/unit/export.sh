#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/export.sh VMTRACE VMT-SYNTH: vmtrace export's csv, din and
# perfetto formats on a synthetic trace and on one of hand-made records of
# every type (tests/unit/export/records.py), each read back by python3's csv
# and json modules and checked against stats and dump
# (tests/unit/export/check.py); raw still the records; and bad input: an
# unknown format, -o left out where it is needed, a filter passing nothing.
set -uo pipefail
bin=$1 synth=$2
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "export: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

"$synth" mixed 20000 7 >"$tmp/synth.raw" &&
	"$bin" convert -o "$tmp/synth.vmt" "$tmp/synth.raw" >/dev/null 2>&1 &&
	python3 "$here/export/records.py" --exact >"$tmp/hand.raw" &&
	"$bin" convert -o "$tmp/hand.vmt" "$tmp/hand.raw" >/dev/null 2>&1 ||
	{ echo "export: FAIL: cannot make the traces"; exit 1; }

for t in synth hand; do
	python3 "$here/export/check.py" "$bin" "$tmp/$t.vmt" "$tmp/$t" && ok || fail "$t.vmt's exports"
done

# raw is the records, in written order (data and the round trip through
# convert: export-raw.sh)
"$bin" export --format raw "$tmp/synth.vmt" -o "$tmp/back.raw" &&
	cmp -s <("$bin" dump-raw "$tmp/back.raw") <("$bin" dump "$tmp/synth.vmt") && ok ||
	fail "export --format raw, dump-raw: not dump's lines"

# expect STATUS MESSAGE-PATTERN ARGS...: the exit status and a message on stderr
expect() {
	local status=$1 pattern=$2 got
	shift 2
	"$bin" export "$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$status" ] || ! grep -Eq "$pattern" "$tmp/err"; then
		fail "export $*: exit $got, want $status and /$pattern/; stderr: $(head -c 300 "$tmp/err")"
	else
		ok
	fi
}
h=$tmp/hand.vmt
expect 2 "unknown format 'xml'" --format xml "$h"
expect 2 "usage" "$h" -o "$tmp/x"
expect 2 "raw needs -o" --format raw "$h"
expect 2 "csv writes a file a record type" --format csv "$h"
expect 2 "csv writes a file a record type" --format csv --type ref,switch "$h"
expect 2 "din writes references and exact accesses alone" --format din --type switch "$h"
expect 2 "perfetto's" --format csv --bucket 1ms "$h" -o "$tmp/c"
expect 2 "perfetto's" --format din --max-references 3 "$h"
expect 2 "not a duration" --format perfetto --bucket soon "$h"
expect 2 "stream goes with --format raw" --format csv --stream 0 "$h" -o "$tmp/c"
expect 1 "no record of .* passes the filter" --format csv --pid 4242 "$h" -o "$tmp/c"
expect 1 "no record of .* passes the filter" --format din --pid 4242 "$h"
expect 1 "no record of .* passes the filter" --format perfetto --from 999999999 "$h"
expect 1 "no record of .* passes the filter" --format csv --type lost --cpu 0 "$h"
expect 1 "cannot make the directory" --format csv "$h" -o "$tmp/no/such/dir"
expect 1 "cannot write" --format din "$h" -o "$tmp/no/such/file"
expect 1 "writing /dev/full" --format perfetto "$h" -o /dev/full
expect 1 "no-such.vmt" --format din "$tmp/no-such.vmt"
# an empty selection still leaves the reader something it can read
"$bin" export --format csv --type lost --cpu 0 "$h" -o "$tmp/empty.csv" 2>/dev/null
python3 -c 'import csv, sys; r = list(csv.reader(open(sys.argv[1]))); sys.exit(not (len(r) == 1 and r[0][:4] == ["time", "cpu", "pid", "tid"]))' \
	"$tmp/empty.csv" && ok || fail "an empty csv selection: not a header alone"
"$bin" export --format perfetto --pid 4242 "$h" -o "$tmp/empty.json" 2>/dev/null
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/empty.json" && ok ||
	fail "an empty perfetto selection: not JSON"

echo "export: $passed checks passed, $failed failures"
[ "$failed" -eq 0 ]
