#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/export-raw.sh VMTRACE VMT-SYNTH: `vmtrace export --format raw`
# writes records as the kernel's rings carry them, variable-size data
# included (a record with data, then the VMT_REC_DATA records that hold its
# bytes), so `export | convert | export` gives back the same bytes. On a trace
# with events (tests/unit/export/records.py's records of every type, markers
# and an exec whose data takes 1 to 4096 bytes, then `vmt-synth mixed 3000 7`)
# and on one without (`vmt-synth mixed 20000 7`): the first export is the raw
# file convert was given, the second the first, and dump and stats of the
# converted trace are the original's (names included); dump-raw of the export
# prints what dump prints; a --type filter keeps each record's data with it;
# data the trace cannot give back is an error.
set -uo pipefail
bin=$1 synth=$2
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "export-raw: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

# Records with data across VMT_DATA_CHUNK's (40 bytes) boundaries, up to
# VMT_MAX_DATA_LEN, every byte value among them, on three CPUs.
long_data() {
	python3 - <<'EOF'
import struct, sys
out = sys.stdout.buffer
def rec(t, typ, pid, cpu, payload, data):
    out.write(struct.pack('<QIIHHI', t, pid, pid, typ, cpu, len(data)) + payload.ljust(40, b'\0'))
    for off in range(0, len(data), 40):
        chunk = data[off:off + 40]
        out.write(struct.pack('<QIIHHI', t, pid, pid, 5, cpu, len(chunk)) + chunk.ljust(40, b'\0'))
every = bytes(range(256)) * 16
for i, n in enumerate([1, 39, 40, 41, 80, 81, 1000, 4095, 4096]):
    rec(20000 + i, 4, 50, i % 3, struct.pack('<I', 100 + i), every[i:i + n])
rec(20100, 8, 51, 2, struct.pack('<II', 51, 0), b'/opt/' + b'a-long-directory/' * 200 + b'prog')
EOF
}

# count_data RAW: "RECORDS records, DATA DATA records, BYTES bytes of data"
count_data() {
	python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], 'rb').read()
recs = [b[i:i + 64] for i in range(0, len(b), 64)]
data = [r for r in recs if struct.unpack_from('<H', r, 16)[0] == 5]
print(len(recs), 'records,', len(data), 'DATA records,',
      sum(struct.unpack_from('<I', r, 20)[0] for r in data), 'bytes of data')
EOF
}

# same WHAT CMD...: CMD's output on a.vmt and on b.vmt, the path left out
same() {
	local what=$1
	shift
	if "$@" "$tmp/a.vmt" >"$tmp/a.out" 2>&1 && "$@" "$tmp/b.vmt" >"$tmp/b.out" 2>&1 &&
		diff -u <(sed "s|$tmp/a.vmt|TRACE|g" "$tmp/a.out") \
			<(sed "s|$tmp/b.vmt|TRACE|g" "$tmp/b.out") >"$tmp/diff"; then
		ok
	else
		fail "$name: $what of the converted trace is not the original's: $(head -20 "$tmp/diff" "$tmp/a.out")"
	fi
}

# round_trip NAME: r0.raw -> a.vmt -> e1.raw -> b.vmt -> e2.raw, compared
round_trip() {
	name=$1
	"$bin" convert "$tmp/r0.raw" -o "$tmp/a.vmt" >/dev/null 2>&1 &&
		"$bin" export --format raw "$tmp/a.vmt" -o "$tmp/e1.raw" &&
		"$bin" convert "$tmp/e1.raw" -o "$tmp/b.vmt" >/dev/null 2>&1 &&
		"$bin" export --format raw "$tmp/b.vmt" -o "$tmp/e2.raw" ||
		{ fail "$name: convert, export, convert, export failed"; return; }
	echo "export-raw: $name: raw input: $(count_data "$tmp/r0.raw")"
	echo "export-raw: $name: export:    $(count_data "$tmp/e1.raw")"
	cmp "$tmp/e1.raw" "$tmp/e2.raw" && ok || fail "$name: export | convert | export: not the same bytes"
	cmp "$tmp/r0.raw" "$tmp/e1.raw" && ok || fail "$name: export: not the raw records convert was given"
	same "dump" "$bin" dump
	same "dump --order time" "$bin" dump --order time
	same "stats" "$bin" stats
	cmp -s <("$bin" dump-raw "$tmp/e1.raw") <("$bin" dump "$tmp/a.vmt") && ok ||
		fail "$name: dump-raw of the export is not dump of the trace"
}

{ python3 "$here/export/records.py" && long_data && "$synth" mixed 3000 7; } >"$tmp/r0.raw" ||
	{ echo "export-raw: FAIL: cannot make the raw records"; exit 1; }
round_trip events
same "export --format csv --type marker" "$bin" export --format csv --type marker
# the names are there to compare: the records' data made it into the trace
"$bin" dump "$tmp/b.vmt" >"$tmp/b.dump"
for text in 'exe="/usr/bin/make"' 'text="phase \"2\", go\x0a"' '/opt/a-long-directory/' \
	'\xfe\xff\x00\x01'; do
	grep -qF "$text" "$tmp/b.dump" && ok || fail "events: dump of the converted trace lacks $text"
done
# a filter passes each record with its data, and the filtered export converts
"$bin" export --format raw --type marker,exec "$tmp/a.vmt" -o "$tmp/f.raw" &&
	cmp -s <("$bin" dump-raw "$tmp/f.raw") <("$bin" dump --type marker,exec "$tmp/a.vmt") && ok ||
	fail "export --format raw --type marker,exec: dump-raw is not dump --type marker,exec"
"$bin" convert "$tmp/f.raw" -o "$tmp/f.vmt" >/dev/null 2>&1 &&
	cmp -s <("$bin" dump "$tmp/f.vmt") <("$bin" dump --type marker,exec "$tmp/a.vmt") && ok ||
	fail "convert of the filtered export: dump is not dump --type marker,exec"
# data the trace cannot give back (a byte of the data stream's frame
# flipped) is an error that says which record's, not a record without it
python3 - "$tmp/a.vmt" "$tmp/bad.vmt" "$("$bin" info "$tmp/a.vmt" | awk '$2 == "data" { print $1 }')" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.index(b'VMTF')
while struct.unpack_from('<I', b, i + 4)[0] != int(sys.argv[3]):
    i = b.index(b'VMTF', i + 4)
b[i + 64 + 2] ^= 0xff
open(sys.argv[2], 'wb').write(b)
EOF
"$bin" export --format raw "$tmp/bad.vmt" -o "$tmp/bad.raw" 2>"$tmp/err"
status=$?
if [ "$status" -eq 1 ] &&
	grep -q 'the task record (type 12) at 100 ns on CPU 0: its 13 bytes of data at offset 0: .*checksum' "$tmp/err"; then
	ok
else
	fail "export of a trace whose data frame is damaged: exit $status, $(cat "$tmp/err")"
fi

"$synth" mixed 20000 7 >"$tmp/r0.raw" || { echo "export-raw: FAIL: vmt-synth"; exit 1; }
round_trip "no events"

echo "export-raw: $passed checks passed, $failed failures"
[ "$failed" -eq 0 ]
