#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/hmtt-plot.sh VMTRACE: `vmtrace hmtt --plot` and interleaving a
# process on traces made here (raw records written by python3, then
# `vmtrace convert`, as hmtt.sh makes them): the SVGs' legends name each
# process, each process has as many points as it has pages (v2p) or
# references in the slice (interleave), counted in the SVG gnuplot wrote;
# v2p's sample past 20,000 pages; the table a process and its CDF in CSV
# against counts worked by hand; bad input answered with a message and an
# exit status.
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "hmtt-plot: FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

if ! command -v gnuplot >/dev/null; then
	echo "hmtt-plot: SKIP: no gnuplot"
	exit 0
fi

# raw FILE SPEC...: records, each "ref TIME PID VPN PFN", "comm TIME PID NAME" or
# "task TIME PID NAME" (a name without spaces; '_' stands for one), or
# "pages PID N": N references of PID, pages 0x1000.. at frames 0x80000..
raw() {
	python3 - "$@" <<'PY'
import struct, sys
out = bytearray()
def ref(t, pid, vpn, pfn):
    global out
    out += struct.pack("<QIIHHI", t, pid, pid, 2, 0, 0)
    out += struct.pack("<QQQIBBBBII", vpn << 12, pfn, 0, 4, 1, 0, 0, 0, 0, 0)
for spec in sys.argv[2:]:
    f = spec.split()
    if f[0] == "ref":
        ref(int(f[1]), int(f[2]), int(f[3], 0), int(f[4], 0))
    elif f[0] == "pages":
        for i in range(int(f[2])):
            ref(100 + i, int(f[1]), 0x1000 + i, 0x80000 + 7 * i)
    else:
        name = f[3].replace("_", " ").encode()
        kind = 10 if f[0] == "comm" else 12
        out += struct.pack("<QIIHHI", int(f[1]), int(f[2]), int(f[2]), kind, 0, 0)
        out += struct.pack("<16sQQQ", name, 0, 0, 0)
open(sys.argv[1], "wb").write(out)
PY
}

# trace NAME SPEC...: $tmp/NAME.vmt.
trace() {
	local name=$1
	shift
	raw "$tmp/$name.raw" "$@" && "$bin" convert "$tmp/$name.raw" -o "$tmp/$name.vmt" >/dev/null 2>&1 ||
		fail "making $name"
}

# points SVG: a line a legend entry, "TITLE POINTS": each plot's point
# elements (gnuplot's <use> of a point symbol) less the legend's sample.
points() {
	python3 - "$1" <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
for chunk in svg.split('<g id="gnuplot_plot_')[1:]:
    title = re.search(r'<text>([^<]*)</text>', chunk).group(1)
    print(title, chunk.count("<use xlink:href='#gpPt") - 1)
PY
}

# expect STATUS MESSAGE ARGS...: vmtrace hmtt ARGS exits STATUS, saying MESSAGE on stderr.
expect() {
	local want=$1 msg=$2 rc
	shift 2
	"$bin" hmtt "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne "$want" ]; then
		fail "hmtt $*: exit $rc, not $want: $(head -2 "$tmp/err")"
	elif ! grep -q -- "$msg" "$tmp/err"; then
		fail "hmtt $*: no '$msg' on stderr: $(head -2 "$tmp/err")"
	else
		pass
	fi
}

# Two processes: 101 (COMM "alpha") with pages 0x10..0x14, 202 (TASK "beta
# prog") with 0x40..0x42, one page of each at an out-of-line frame; 0x10
# seen twice. The stream: 101 101 202 101 202 202 101 101 101.
trace two "comm 0 101 alpha" "task 1 202 beta_prog" "ref 10 101 0x10 0x500" \
	"ref 20 101 0x11 0x501" "ref 30 202 0x40 0x900" "ref 40 101 0x12 0x7" \
	"ref 50 202 0x41 0x901" "ref 60 202 0x42 0x300" "ref 70 101 0x13 0x503" \
	"ref 80 101 0x14 0x504" "ref 90 101 0x10 0x500"
expect 0 "wrote $tmp/fig-v2p.svg" --section v2p,interleave --plot "$tmp/fig.svg" "$tmp/two.vmt"
grep -q "wrote $tmp/fig-interleave.svg" "$tmp/err" && pass || fail "no word of the interleave figure"
points "$tmp/fig-v2p.svg" >"$tmp/got"
printf 'pid 101 alpha 5\npid 202 beta prog 3\n' >"$tmp/want"
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" && pass || fail "v2p's points: $(cat "$tmp/diff")"
points "$tmp/fig-interleave.svg" >"$tmp/got"
printf 'pid 101 alpha 6\npid 202 beta prog 3\n' >"$tmp/want"
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" && pass || fail "interleave's points: $(cat "$tmp/diff")"
grep -q 'references 0..8 of 9 in the merged stream (--plot-slice 0:2000)' \
	"$tmp/fig-interleave.svg" && pass || fail "interleave's title"

# A slice: references 2..5 are 202 101 202 202.
expect 0 "wrote" --section interleave --plot-slice 2:4 --plot "$tmp/s.svg" "$tmp/two.vmt"
points "$tmp/s-interleave.svg" >"$tmp/got"
printf 'pid 202 beta prog 3\npid 101 alpha 1\n' >"$tmp/want"
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" && pass || fail "the slice's points: $(cat "$tmp/diff")"
grep -q '2 switches in the slice' "$tmp/s-interleave.svg" && pass || fail "the slice's switches"
[ ! -e "$tmp/s-v2p.svg" ] && pass || fail "a v2p figure not asked for"

# PNG, by its extension.
expect 0 "wrote $tmp/p-v2p.png" --plot "$tmp/p.png" "$tmp/two.vmt"
[ "$(head -c 4 "$tmp/p-interleave.png" | tail -c 3)" = PNG ] && pass || fail "not a PNG"

# 20,001 pages: a sample of every 2nd page in the order first seen, 10,001.
trace many "pages 7 20001"
expect 0 "wrote" --section v2p --plot "$tmp/m.svg" "$tmp/many.vmt"
[ "$(points "$tmp/m-v2p.svg")" = "pid 7 - 10001" ] && pass ||
	fail "v2p's sample: $(points "$tmp/m-v2p.svg")"
grep -q 'every 2nd page in the order first seen, of 20,001' "$tmp/m-v2p.svg" && pass ||
	fail "v2p's sample not in its title"

# Interleaving a process, by hand: runs 101: 2, 1, 3; 202: 1, 2.
"$bin" hmtt --csv --section interleave "$tmp/two.vmt" 2>"$tmp/err" |
	sed -n '/^pid,name/,$p' >"$tmp/got"
cat >"$tmp/want" <<'CSV'
pid,name,references,runs,mean,median,longest,short_runs,short_pct
101,alpha,6,3,2.0000,2,3,3,100.0000
202,beta prog,3,2,1.5000,1,2,2,100.0000

pid,run_length,runs,cumulative_runs,cumulative_pct
101,1,1,1,33.3333
101,2,1,2,66.6667
101,3,1,3,100.0000
202,1,1,1,50.0000
202,2,1,2,100.0000
CSV
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" && pass || fail "interleave a process: $(cat "$tmp/diff")"
"$bin" hmtt --section interleave "$tmp/two.vmt" >"$tmp/out" 2>&1
grep -Eq '^ +202 beta prog +3 +2 +1.50 +1 +2 +100.00%$' "$tmp/out" && pass ||
	fail "the table a process: $(grep -A3 'by process' "$tmp/out")"

# No frame: no v2p figure (said), the interleave one drawn; v2p alone: nothing to draw.
trace noframe "ref 10 1 0x10 0" "ref 20 2 0x20 0" "ref 30 1 0x11 0"
expect 0 "v2p: no page seen with a frame, no figure" --plot "$tmp/n.svg" "$tmp/noframe.vmt"
[ -s "$tmp/n-interleave.svg" ] && [ ! -e "$tmp/n-v2p.svg" ] && pass ||
	fail "no frame: $(ls "$tmp")"
expect 1 "no figure drawn" --section v2p --plot "$tmp/n2.svg" "$tmp/noframe.vmt"

# Bad input.
expect 2 "cannot write in $tmp/none" --plot "$tmp/none/x.svg" "$tmp/two.vmt"
expect 2 "ends in neither .svg nor .png" --plot "$tmp/x.jpg" "$tmp/two.vmt"
expect 2 "ends in neither .svg nor .png" --plot "$tmp/svg" "$tmp/two.vmt"
expect 2 "no section asked for has a figure" --section scr --plot "$tmp/x.svg" "$tmp/two.vmt"
expect 2 "only with --plot" --plot-slice 10 "$tmp/two.vmt"
for bad in 0 abc 3: :4 1:0 -3 1048577; do
	expect 2 "bad slice '$bad'" --plot "$tmp/x.svg" --plot-slice "$bad" "$tmp/two.vmt"
done
expect 0 "the slice starts at reference 100, past the 9 references: no figure" \
	--plot "$tmp/past.svg" --plot-slice 100:5 "$tmp/two.vmt"
[ -s "$tmp/past-v2p.svg" ] && pass || fail "a slice past the end: no v2p figure"

echo "hmtt-plot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
