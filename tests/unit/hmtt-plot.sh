#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/hmtt-plot.sh VMTRACE: `vmtrace hmtt --plot` and interleaving a
# process on traces made here (raw records written by python3, then
# `vmtrace convert`, as hmtt.sh makes them): the SVGs' legends name each
# process, each process has as many points as it has pages (v2p) or
# references in the slice (interleave), counted in the SVG gnuplot wrote;
# v2p's sample past 20,000 pages; the table a process and its CDF in CSV
# against counts worked by hand; bad input answered with a message and an
# exit status. The figures of the tables (scr, strides, runs, prefetch,
# dma-sizes, traffic): the data gnuplot was given (a gnuplot ahead in PATH
# keeps each figure's script and data) against the CSV's rows, the SVG's
# points and labels against them, the images stderr names, and a trace
# without DMA records or frames drawing the rest.
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

# A gnuplot that keeps OUT.gp, its script, and OUT.data, its data, for each
# image OUT, then hands the script to the real one.
mkdir "$tmp/gp"
cat >"$tmp/gp/gnuplot" <<'SH'
#!/bin/sh
script=$(cat)
out=$(printf '%s\n' "$script" | sed -n "s/^set output '\(.*\)'$/\1/p")
data=$(printf '%s\n' "$script" | sed -n "s/^DATA = '\(.*\)'$/\1/p")
cp "$data" "$out.data"
printf '%s\n' "$script" >"$out.gp"
printf '%s\n' "$script" | exec "$REAL_GNUPLOT"
SH
chmod +x "$tmp/gp/gnuplot"
REAL_GNUPLOT=$(command -v gnuplot)
export REAL_GNUPLOT PATH="$tmp/gp:$PATH"

# raw FILE SPEC...: records, each "ref TIME PID VPN PFN", "comm TIME PID NAME" or
# "task TIME PID NAME" (a name without spaces; '_' stands for one),
# "pages PID N": N references of PID, pages 0x1000.. at frames 0x80000.., or
# "dma TIME CPU OP DIR SIZE PHYS INDEX COUNT DEVICE" or "exact TIME PID ADDR"
# (as hmtt.sh's).
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
    elif f[0] == "exact":
        t, pid, addr = int(f[1]), int(f[2]), int(f[3], 0)
        out += struct.pack("<QIIHHI", t, pid, pid, 15, 0, 0)
        out += struct.pack("<QQHBBB3x16s", addr, 0, 8, 1, 0, 0, b"")
    elif f[0] == "dma":
        t = int(f[1])
        cpu, op, d, size, phys, i, n = (int(x, 0) for x in f[2:9])
        name = f[9].encode()
        out += struct.pack("<QIIHHI", t, 0, 0, 13, cpu, len(name))
        out += struct.pack("<QQIBBBBHHIQ", 0, phys, size, op, d, 1, 0, i, n, 0, 0)
        out += struct.pack("<QIIHHI", t, 0, 0, 5, cpu, len(name)) + name.ljust(40, b"\0")
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
expect 2 "no section asked for has a figure" --section dram --plot "$tmp/x.svg" "$tmp/two.vmt"
expect 2 "only with --plot" --plot-slice 10 "$tmp/two.vmt"
for bad in 0 abc 3: :4 1:0 -3 1048577; do
	expect 2 "bad slice '$bad'" --plot "$tmp/x.svg" --plot-slice "$bad" "$tmp/two.vmt"
done
expect 0 "the slice starts at reference 100, past the 9 references: no figure" \
	--plot "$tmp/past.svg" --plot-slice 100:5 "$tmp/two.vmt"
[ -s "$tmp/past-v2p.svg" ] && pass || fail "a slice past the end: no v2p figure"

# ---- The figures of the tables ----

# figdata CSV PREFIX FIGURE...: each FIGURE's data, PREFIX-FIGURE.svg.data, against
# what the CSV's tables say it is; a line a figure, "FIGURE ok", or what differs.
figdata() {
	python3 - "$@" <<'PY'
import csv, io, os, shlex, sys
text, prefix = open(sys.argv[1]).read(), sys.argv[2]
tables = {}
for chunk in text.strip("\n").split("\n\n"):
    rows = list(csv.reader(io.StringIO(chunk)))
    tables.setdefault(",".join(rows[0]), rows[1:])
def t(header):
    return tables[header]
VIEWS = ["virtual", "physical-process", "physical"]
def scr():
    rows = t("space,window,references,covered,scr_pct")
    out = []
    for v in VIEWS:
        r = sorted((x for x in rows if x[0] == v), key=lambda x: int(x[1]))
        if r and r[0][2] != "0":
            out.append((v, [[x[1], x[4]] for x in r]))
    return out
def strides():
    rows = t("space,window,stride_lo,stride_hi,count,forward,backward,percent,cumulative_percent")
    out = []
    for v in VIEWS:
        r = [[str(int(x[3]) + 1), x[8]] for x in rows if x[0] == v]
        if r:
            out.append((v, r))
    return out
def runs():
    procs = t("pid,name,references,runs,mean,median,longest,short_runs,short_pct")
    cdf = t("pid,run_length,runs,cumulative_runs,cumulative_pct")
    procs = sorted(procs, key=lambda x: (-int(x[2]), int(x[0])))[:12]
    return [("pid %s %s" % (p[0], p[1]), [[x[1], x[4]] for x in cdf if x[0] == p[0]])
            for p in procs]
def prefetch():
    rows = t("view,space,trackers,degree,accesses,no_frame,repeats,served,demand,prefetches,"
             "dram_accesses,streams,prefetch_rate_pct,accuracy_pct,coverage_pct")
    return [(None, [[str(i), x[0], x[12], "%.2f%%" % float(x[12])] for i, x in enumerate(rows)])]
def dma_sizes():
    devs = t("device,direction,requests,segments,bytes,requests_pct,bytes_pct,avg_bytes")
    sizes = t("device,direction,size_lo,size_hi,requests,percent,cumulative_pct")
    order = sorted(range(len(devs)), key=lambda i: (-int(devs[i][2]), i))[:12]
    return [("%s %s" % (devs[i][0], devs[i][1]),
             [[str(int(x[3]) + 1), x[6]] for x in sizes if x[:2] == devs[i][:2]])
            for i in order]
def traffic():
    rows = t("kind,count,bytes,share_pct,basis")
    return [(None, [[str(i), x[0], x[4], x[3], "%.2f%%" % float(x[3])] for i, x in enumerate(rows)])]
def data(path):
    blocks = []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("# "):
            blocks.append((line[2:], []))
        elif line:
            if not blocks:
                blocks.append((None, []))
            blocks[-1][1].append(shlex.split(line))
    return blocks
for fig in sys.argv[3:]:
    want = {"scr": scr, "strides": strides, "runs": runs, "prefetch": prefetch,
            "dma-sizes": dma_sizes, "traffic": traffic}[fig]()
    path = "%s-%s.svg.data" % (prefix, fig)
    got = data(path) if os.path.exists(path) else "no data"
    print("%s ok" % fig if got == want else "%s: got %s, want %s" % (fig, got, want))
PY
}

# figpoints DATA: a line a block of gnuplot's data, "KEY ROWS" (as points() prints).
figpoints() {
	awk '/^# / { if (key != "") print key, n; key = substr($0, 3); n = 0; next }
		NF { n++ } END { if (key != "") print key, n }' "$1"
}

# Two named processes and two devices. 101 (alpha): pages 0x10..0x17 at frames
# 0x500..0x507; 202 (beta prog): 0x40, 0x42, 0x44, 0x46 at 0x900, 0x7, 0x300,
# 0x905; merged 101 101 202 101 101 202 101 202 101 101 202 101. DMA: "eth,0"
# sends 1042 bytes twice and 64 once (to_device: 1 of 3 below 128 bytes, all
# below 2048); nvme0 reads 8192 by a map_sg of two segments and 512 by a
# map_page (from_device: 1 of 2 below 1024, both below 16384).
trace fig "comm 0 101 alpha" "task 1 202 beta_prog" \
	"ref 10 101 0x10 0x500" "ref 20 101 0x11 0x501" "ref 30 202 0x40 0x900" \
	"ref 40 101 0x12 0x502" "ref 50 101 0x13 0x503" "ref 60 202 0x42 0x7" \
	"ref 70 101 0x14 0x504" "ref 80 202 0x44 0x300" "ref 90 101 0x15 0x505" \
	"ref 100 101 0x16 0x506" "ref 110 202 0x46 0x905" "ref 120 101 0x17 0x507" \
	"dma 200 0 2 2 4096 0x100000 0 2 nvme0" "dma 300 0 2 2 4096 0x200000 1 2 nvme0" \
	"dma 310 0 0 2 512 0x300000 0 1 nvme0" "dma 400 1 0 1 1042 0x101000 0 1 eth,0" \
	"dma 500 1 0 1 1042 0x102000 0 1 eth,0" "dma 600 1 0 1 64 0x103000 0 1 eth,0"
figs="dma-sizes v2p interleave runs scr strides prefetch traffic"
expect 0 "wrote" --scr-window 4,3,8 --plot "$tmp/f.svg" "$tmp/fig.vmt"
# The images stderr names: each one, in the sections' order, there.
sed -n "s|^vmtrace hmtt: wrote $tmp/f-\\(.*\\)\\.svg$|\\1|p" "$tmp/err" | tr '\n' ' ' >"$tmp/got"
[ "$(cat "$tmp/got")" = "$figs " ] && pass || fail "the figures named: $(cat "$tmp/got")"
for f in $figs; do
	grep -q '</svg>' "$tmp/f-$f.svg" 2>/dev/null && pass || fail "no SVG $tmp/f-$f.svg"
done
"$bin" hmtt --csv --scr-window 4,3,8 "$tmp/fig.vmt" >"$tmp/fig.csv" 2>/dev/null
figdata "$tmp/fig.csv" "$tmp/f" scr strides runs prefetch dma-sizes traffic >"$tmp/got"
# (prefetch: 0% merged and a process at a time, pages 64 lines apart; by hand below)
printf '%s ok\n' scr strides runs prefetch dma-sizes traffic >"$tmp/want"
diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" && pass || fail "figures' data: $(cat "$tmp/diff")"
# By hand: the DMA sizes' CDFs, the most requests first.
printf '# eth,0 to_device\n128 33.3333\n2048 100.0000\n\n\n# nvme0 from_device\n1024 50.0000\n16384 100.0000\n' |
	diff -u - "$tmp/f-dma-sizes.svg.data" >"$tmp/diff" && pass ||
	fail "dma-sizes by hand: $(cat "$tmp/diff")"
# The SVGs: a legend entry a block of the data, as many points as its rows.
for f in scr strides runs dma-sizes; do
	figpoints "$tmp/f-$f.svg.data" >"$tmp/want"
	points "$tmp/f-$f.svg" >"$tmp/got"
	[ -s "$tmp/want" ] && diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" && pass ||
		fail "$f's SVG points against its data: $(cat "$tmp/diff")"
done
grep -q 'with linespoints' "$tmp/f-scr.svg.gp" && pass || fail "scr's windows: not lines"
# Prefetch by hand: two +1 streams of 10 lines, exact accesses, interleaved. A
# tracker a process, each: 10 - 3 + 2 prefetches of 10 + 2 DRAM accesses, 75%;
# one tracker for both, merged: each evicts the other's, nothing prefetched.
specs=()
for i in $(seq 0 9); do
	specs+=("exact $((2 * i)) 1 $((0x10000 + 64 * i))" "exact $((2 * i + 1)) 2 $((0x90000 + 64 * i))")
done
trace pf "${specs[@]}"
expect 0 "wrote $tmp/f-prefetch.svg" --section prefetch --prefetch-trackers 1 --plot "$tmp/f.svg" "$tmp/pf.vmt"
printf '0 merged 0.0000 "0.00%%"\n1 per-process 75.0000 "75.00%%"\n' |
	diff -u - "$tmp/f-prefetch.svg.data" >"$tmp/diff" && pass || fail "prefetch by hand: $(cat "$tmp/diff")"
"$bin" hmtt --csv --section prefetch --prefetch-trackers 1 "$tmp/pf.vmt" >"$tmp/pf.csv" 2>/dev/null
figdata "$tmp/pf.csv" "$tmp/f" prefetch | grep -qx 'prefetch ok' && pass || fail "prefetch's data"
# The bars' labels: each value as the text table prints it (the data's last column).
for f in prefetch traffic; do
	awk '{ print $NF }' "$tmp/f-$f.svg.data" | tr -d '"' >"$tmp/want"
	sed -n 's|.*<text>\([0-9.]*%\)</text>.*|\1|p' "$tmp/f-$f.svg" >"$tmp/got"
	[ "$(wc -l <"$tmp/want")" -ge 2 ] && diff -u "$tmp/want" "$tmp/got" >"$tmp/diff" &&
		pass || fail "$f's labels: $(cat "$tmp/diff")"
done
grep -q '<text>dma_read</text>' "$tmp/f-traffic.svg" &&
	grep -q '<text>(upper bound)</text>' "$tmp/f-traffic.svg" && pass ||
	fail "traffic's kinds and basis not in its labels"

# One window: points, the title's window; --unit line in the strides' axis.
expect 0 "wrote $tmp/one-strides.svg" --section scr --unit line --plot "$tmp/one.svg" "$tmp/fig.vmt"
grep -q 'with points' "$tmp/one-scr.svg.gp" && ! grep -q linespoints "$tmp/one-scr.svg.gp" &&
	pass || fail "one window: not points"
grep -q '64-byte lines' "$tmp/one-strides.svg" && grep -q 'at the window of 32' "$tmp/one-strides.svg" &&
	pass || fail "strides' window or unit"
"$bin" hmtt --csv --section scr --unit line "$tmp/fig.vmt" >"$tmp/one.csv" 2>/dev/null
figdata "$tmp/one.csv" "$tmp/one" scr strides >"$tmp/got"
printf '%s ok\n' scr strides | diff -u - "$tmp/got" >"$tmp/diff" && pass ||
	fail "one window's data: $(cat "$tmp/diff")"

# 13 processes, pid P with P references in runs of one (pids 1..13 in turn,
# each while it has some left): runs draws the 12 with the most, not pid 1.
specs=() t=0
for round in $(seq 1 13); do
	for pid in $(seq "$round" 13); do
		t=$((t + 1))
		specs+=("ref $t $pid 0x$((pid * 100 + round)) 0x$((pid * 100 + round))")
	done
done
trace thirteen "${specs[@]}"
expect 0 "wrote $tmp/t13-runs.svg" --section interleave --plot "$tmp/t13.svg" "$tmp/thirteen.vmt"
points "$tmp/t13-runs.svg" | awk '{ print $2 }' | tr '\n' ' ' >"$tmp/got"
[ "$(cat "$tmp/got")" = "13 12 11 10 9 8 7 6 5 4 3 2 " ] && pass || fail "runs' 12 keys: $(cat "$tmp/got")"
grep -q 'the 12 processes with the most references, of 13' "$tmp/t13-runs.svg" && pass ||
	fail "runs' title: the processes left out"
"$bin" hmtt --csv --section interleave "$tmp/thirteen.vmt" >"$tmp/t13.csv" 2>/dev/null
figdata "$tmp/t13.csv" "$tmp/t13" runs | grep -qx 'runs ok' && pass || fail "13 processes' runs data"

# No DMA records, no frames: those figures said and left out, the others drawn;
# scr and strides of the virtual view alone, said.
trace bare "comm 0 5 solo" "ref 10 5 0x10 0" "ref 20 5 0x11 0" "ref 30 5 0x12 0" \
	"ref 40 5 0x13 0"
expect 0 "dma-sizes: no DMA records, no figure" --plot "$tmp/b.svg" "$tmp/bare.vmt"
grep -q "prefetch: no reference names a frame, no figure" "$tmp/err" && pass ||
	fail "no frames: prefetch not said: $(cat "$tmp/err")"
for f in dma-sizes v2p prefetch; do
	[ ! -e "$tmp/b-$f.svg" ] && pass || fail "bare: a $f figure"
done
for f in interleave runs scr strides traffic; do
	grep -q "wrote $tmp/b-$f.svg" "$tmp/err" && [ -s "$tmp/b-$f.svg" ] && pass ||
		fail "bare: no $f figure: $(cat "$tmp/err")"
done
[ "$(figpoints "$tmp/b-scr.svg.data")" = "virtual 1" ] &&
	grep -q 'left out, no reference counted: physical-process, physical' "$tmp/b-scr.svg" &&
	pass || fail "bare: scr's views: $(figpoints "$tmp/b-scr.svg.data")"
"$bin" hmtt --csv "$tmp/bare.vmt" >"$tmp/bare.csv" 2>/dev/null
figdata "$tmp/bare.csv" "$tmp/b" scr strides runs traffic >"$tmp/got"
printf '%s ok\n' scr strides runs traffic | diff -u - "$tmp/got" >"$tmp/diff" && pass ||
	fail "bare's data: $(cat "$tmp/diff")"
# A figure with nothing drawn at all: the section alone has no figure.
expect 1 "prefetch: no reference names a frame" --section prefetch --plot "$tmp/b2.svg" "$tmp/bare.vmt"

echo "hmtt-plot: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
