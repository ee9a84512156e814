#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/analysis-wss.sh VMTRACE: `vmtrace wss` and `vmtrace heatmap` on
# traces made here (raw records written by python3, then `vmtrace convert`):
# known answers, and bad input refused with a message and a non-zero exit.
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "analysis-wss: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

# Records: 64 bytes, a 24-byte header (time, pid, tid, type, cpu, data_len).
python3 - "$tmp" <<'PY'
import struct, sys
def rec(t, pid, typ, payload):
    return struct.pack('<QIIHHI', t, pid, pid, typ, 0, 0) + payload.ljust(40, b'\0')
def ref(t, pid, vaddr):
    return rec(t, pid, 2, struct.pack('<QQQIBBBBII', vaddr, 0, 0, 0, 1, 0, 0, 0, 0, 0))
# wss: window w of 1 ms touches w % 4 + 1 pages, three references each.
out = b''
for w in range(8):
    k = w % 4 + 1
    for i in range(3 * k):
        out += ref(1000000 + w * 1000000 + i * 1000, 10, 0x400000 + (i % k) * 4096)
open(sys.argv[1] + '/wss.raw', 'wb').write(out)
# heatmap: pid 20 over 16 pages at 4 MiB and 256 pages 127 TiB up; pid 30 a little.
out = b''
for i in range(2000):
    a = 0x400000 + (i % 16) * 4096 if i % 3 else 0x7f0000000000 + (i % 256) * 4096
    out += ref(1000 + i * 1000, 20, a)
for i in range(10):
    out += ref(5000 + i * 1000, 30, 0x1000)
open(sys.argv[1] + '/heat.raw', 'wb').write(out)
# no references: an EVICT record alone
open(sys.argv[1] + '/none.raw', 'wb').write(rec(1, 1, 3, b''))
PY
for f in wss heat none; do
	"$bin" convert "$tmp/$f.raw" -o "$tmp/$f.vmt" >/dev/null 2>&1 || fail "convert $f"
done

# expect STATUS PATTERN ARGS...: exit STATUS, and PATTERN on stdout+stderr.
expect() {
	local want=$1 pattern=$2 rc
	shift 2
	"$bin" "$@" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -ne "$want" ]; then
		fail "vmtrace $*: exit $rc, not $want"
	elif ! grep -Eq -- "$pattern" "$tmp/out"; then
		fail "vmtrace $*: no '$pattern' in: $(head -3 "$tmp/out")"
	else
		ok
	fi
}

# The windows hold 1, 2, 3, 4, 1, 2, 3, 4 pages: nearest-rank percentiles.
expect 0 '^ 50 +2 +8.00 KiB' wss --window 1ms "$tmp/wss.vmt"
expect 0 '^  0 +1 +4.00 KiB' wss --window 1ms "$tmp/wss.vmt"
expect 0 '^100 +4 +16.0 KiB' wss --window 1000us "$tmp/wss.vmt"
expect 0 '# avr: 2.5 pages' wss --window 0.001s "$tmp/wss.vmt"
expect 0 '^0.003000000,4,16384$' wss --window 1000000ns --csv "$tmp/wss.vmt"
[ "$(wc -l <"$tmp/out")" -eq 9 ] && ok || fail "wss --csv: not a header and 8 windows"
expect 0 '^all,0.000000000,1,4096$' wss --window 1ms --csv --per-process "$tmp/wss.vmt"
for w in 0 0ms 10x ms 1 -1ms 1e30s 1msx; do
	expect 2 "--window '$w'" wss --window "$w" "$tmp/wss.vmt"
done
expect 2 'window T is needed' wss "$tmp/wss.vmt"
expect 1 'no references pass the filters' wss --window 1ms --pid 99 "$tmp/wss.vmt"
expect 1 'no references in the trace' wss --window 1ms "$tmp/none.vmt"

expect 0 'pid 20: the process with the most references of 2' heatmap "$tmp/heat.vmt"
expect 0 '~~ 127 TiB unused ~~' heatmap --resolution 10x40 "$tmp/heat.vmt"
expect 0 '^0x0000000000400000  [0-9]{40}$' heatmap --resolution 10x40 "$tmp/heat.vmt"
expect 0 '^0.000000000,4096,1$' heatmap --pid 30 --csv "$tmp/heat.vmt"
# --raw: the counts add up to the references.
"$bin" heatmap --raw --resolution 7x9 "$tmp/heat.vmt" >"$tmp/raw" 2>&1
[ "$(awk '!/^#/ { n += $3 } END { print n }' "$tmp/raw")" = 2000 ] && ok ||
	fail "heatmap --raw: counts do not add up to 2000"
expect 0 'pid 30: 10 references' heatmap --per-process "$tmp/heat.vmt"
for r in 10x 0x5 5x0 abc x5 10x5x 99999x5; do
	expect 2 "--resolution '$r'" heatmap --resolution "$r" "$tmp/heat.vmt"
done
expect 1 'no references pass the filters' heatmap --pid 99 "$tmp/heat.vmt"
expect 1 'no references in the trace' heatmap "$tmp/none.vmt"
if command -v gnuplot >/dev/null; then
	expect 0 '' heatmap --plot "$tmp/h.svg" "$tmp/heat.vmt"
	grep -q '<svg' "$tmp/h.svg" && ok || fail "heatmap --plot: no SVG"
	expect 0 '' wss --window 1ms --plot "$tmp/w.png" "$tmp/wss.vmt"
	[ -s "$tmp/w.png" ] && ok || fail "wss --plot: no PNG"
fi
echo "analysis-wss: $passed checks passed, $failed failures"
[ $failed -eq 0 ]
