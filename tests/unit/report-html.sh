#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/report-html.sh VMTRACE VMT-SYNTH: `vmtrace report --html` in a
# real browser. A trace made here (vmt-synth's, with a process whose name and
# executable hold HTML's special characters, a mapping, DMA records and a
# process without references) is written as a page, and Debian's headless
# Chromium loads it: no console message (checked against a page that has
# one: the check can fail), a screenshot of some size, and the DOM it dumps,
# read by python3's html.parser: a picture (<svg>) for each analysis, the
# trace's strings as text and never as markup, and each number the page
# shows equal to the one `vmtrace report` prints for the same trace; its
# figures of hmtt's sections are those `vmtrace hmtt --plot` draws. The
# page is self-contained: no http(s):// in it, nothing loaded from a file.
set -uo pipefail
bin=$1 synth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "report-html: FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

# Debian's chromium (scripts/setup installs it; as root, so does this).
if ! command -v chromium >/dev/null && [ "$(id -u)" -eq 0 ]; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends chromium >/dev/null
fi
command -v chromium >/dev/null || { echo "report-html: FAIL: no chromium (scripts/setup)"; exit 1; }

# browse URL ARGS...: headless Chromium on URL, its log in $tmp/log.
browse() {
	local url=$1
	shift
	timeout 120 chromium --headless=new --no-sandbox --disable-gpu --enable-logging=stderr \
		--v=0 --virtual-time-budget=5000 --user-data-dir="$tmp/profile" "$@" "$url" \
		2>"$tmp/log"
}
console() { grep -E 'CONSOLE|Uncaught' "$tmp/log"; }

"$synth" mixed 20000 1 >"$tmp/t.raw" &&
	python3 - "$tmp/t.raw" <<'PY' &&
import struct, sys
# After vmt-synth's records (times 1.000 to 1.040 s, pids 4000, 4017, 4034 on
# CPUs 0 and 1), these on CPU 2, in time order.
CPU = 2
def rec(t, pid, typ, payload, data_len=0):
    return struct.pack("<QIIHHI", t, pid, pid, typ, CPU, data_len) + payload.ljust(40, b"\0")
def with_data(t, pid, typ, payload, text):
    out = rec(t, pid, typ, payload, len(text))
    for off in range(0, len(text), 40):
        chunk = text[off:off + 40]
        out += rec(t, pid, 5, chunk, len(chunk))
    return out
out = bytearray()
# pid 4000's references at 0x7f0000000000.. fall in a file's mapping
out += with_data(1000000000, 4000, 11, struct.pack("<QQQBBBBIQ", 0x7f0000000000,
                 0x7f0100000000, 0, 1, 0, 5, 1, 0, 0), b"/lib/x<y>&z'.so")
# pid 4000's name and executable, from a task record of the state dump
out += with_data(1000000001, 4000, 12, struct.pack("<16sIIQQ", b"<i>&\"'x", 1, 0, 0, 0),
                 b"/opt/a<b>&c\"d/prog")
# DMA: to device, from device, a bidirectional scatter-gather segment
for t, op, d, size in ((1005000000, 0, 1, 65536), (1020000000, 0, 2, 131072),
                       (1030000000, 2, 0, 8192)):
    out += rec(t, 0, 13, struct.pack("<QQIBBBBHHIQ", 0, 0, size, op, d, 1, 0, 0, 1, 0, 0))
# pid 999 switched out, which has no reference
out += rec(1035000000, 999, 6, struct.pack("<IIII", 999, 999, 0, 0))
open(sys.argv[1], "ab").write(out)
PY
	"$bin" convert -o "$tmp/t.vmt" "$tmp/t.raw" >/dev/null 2>&1 ||
	{ echo "report-html: FAIL: cannot make the trace"; exit 1; }
"$bin" report "$tmp/t.vmt" >"$tmp/report" || { echo "report-html: FAIL: report failed"; exit 1; }
"$bin" report --html "$tmp/page.html" "$tmp/t.vmt" 2>"$tmp/page.err" ||
	{ echo "report-html: FAIL: report --html failed"; exit 1; }

# The check of the console fails on a page that writes to it.
printf '<!DOCTYPE html><p>x</p><script>console.error("e"); nosuch();</script>\n' >"$tmp/bad.html"
browse "file://$tmp/bad.html" --dump-dom >/dev/null
[ "$(console | wc -l)" -ge 2 ] && pass || fail "the console check misses a page's errors: $(cat "$tmp/log")"

browse "file://$tmp/page.html" --dump-dom >"$tmp/dom.html" || fail "chromium --dump-dom failed"
console >"$tmp/console" && fail "console messages: $(head -3 "$tmp/console")" || pass
browse "file://$tmp/page.html" --screenshot="$tmp/shot.png" --window-size=1280,2000 ||
	fail "chromium --screenshot failed"
python3 - "$tmp/shot.png" <<'PY' && pass || fail "the screenshot"
import struct, sys
png = open(sys.argv[1], "rb").read()
assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", png[16:24])
assert (w, h) == (1280, 2000), (w, h)
# a page of tables and pictures compresses to far more than a blank one's few KiB
assert len(png) > 50000, len(png)
PY

if grep -Eiq 'https?://' "$tmp/page.html"; then
	fail "the page names the network: $(grep -Eio 'https?://[^"<> ]*' "$tmp/page.html" | head -3)"
else
	pass
fi

python3 - "$tmp/report" "$tmp/dom.html" "$tmp/page.html" <<'PY'
import re, sys
from html.parser import HTMLParser

text = open(sys.argv[1]).read()
failed = passed = 0
def check(what, got, want):
    global failed, passed
    if got == want:
        passed += 1
    else:
        failed += 1
        print(f"report-html: FAIL: {what}: the page shows {got!r}, report prints {want!r}")

# Elements without text, or without an end tag: not kept.
VOID = {"br", "meta", "img", "use", "path", "rect", "circle", "image", "line"}

# The cells that hold the trace's strings.
STRINGS = {"name", "executable", "mapping"}

class Page(HTMLParser):
    """Each element's text by id, by (data-pid, data-field), (data-slice,
    data-field), (data-rank, data-field) and the mappings' rows; the figures'
    svg elements and marks; elements inside the trace's strings' cells; every
    attribute that could load a file."""
    def __init__(self):
        super().__init__()
        self.ids, self.rows, self.lru, self.mappings = {}, {}, {}, []
        self.figures, self.in_strings, self.links = {}, [], []
        self.stack = []         # (tag, id, field, row key, lru size)
        self.row = None
        self.figure = None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if any(e[2] in STRINGS for e in self.stack):
            self.in_strings.append(tag)
        for k in ("src", "href", "xlink:href", "data"):
            if k in a and not (a[k] or "").startswith(("#", "data:")):
                self.links.append((tag, k, a[k]))
        if tag == "link" or (tag == "script" and "src" in a):
            self.links.append((tag, a))
        if tag == "figure":
            self.figure = a.get("id")
            self.figures[self.figure] = {"svg": 0, "marks": 0}
        elif self.figure and tag == "svg":
            self.figures[self.figure]["svg"] += 1
        elif self.figure and tag in ("path", "rect", "image", "use"):
            self.figures[self.figure]["marks"] += 1
        if tag == "tr":
            for k in ("data-pid", "data-slice", "data-rank"):
                if k in a:
                    self.row = (k, a[k])
        if tag in VOID:
            return
        self.stack.append([tag, a.get("id"), a.get("data-field"), self.row,
                           a.get("data-lru-size"), ""])
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if tag == "figure":
            self.figure = None
        if tag == "tr":
            self.row = None
        while self.stack:
            t, id_, field, row, lru, s = self.stack.pop()
            if id_:
                self.ids[id_] = s
            if field and row:
                self.rows[row + (field,)] = s
            if field and not row and field in ("references", "mapping"):
                self.mappings.append((field, s))
            if lru:
                self.lru[int(lru)] = s
            if self.stack:
                self.stack[-1][5] += s
            if t == tag:
                break
    def handle_data(self, data):
        if self.stack:
            self.stack[-1][5] += data

dom = Page()
dom.feed(open(sys.argv[2]).read())
raw = Page()
raw.feed(open(sys.argv[3]).read())
num = lambda s: s.replace(",", "")

# What the page loads: nothing.
check("files the page loads", raw.links, [])
check("files the loaded page loads", dom.links, [])
# The trace's strings are text: none became an element.
check("elements in the cells of the trace's strings", dom.in_strings, [])

# A picture for each analysis this trace supports, each drawn.
for fig in ("fig-rate", "fig-mrc", "fig-wss", "fig-heatmap", "fig-dma", "fig-scr", "fig-strides",
            "fig-prefetch", "fig-traffic"):
    f = dom.figures.get(fig, {"svg": 0, "marks": 0})
    check(f"{fig}'s svg", f["svg"], 1)
    check(f"{fig} has marks", f["marks"] > 10, True)

# The first line.
m = re.match(r"\S+: (\d+) records over ([\d.]+) s, (\d+) references, (\d+) evictions, (\d+) lost",
             text)
for id_, want in zip(("records", "span-s", "references", "evictions", "lost"), m.groups()):
    check(id_, num(dom.ids.get(id_, "")), want)
m = re.search(r"^  all: (\d+) pages \(([\d.]+) MiB\)$", text, re.M)
check("pages", num(dom.ids.get("pages", "")), m.group(1))
check("pages-mib", dom.ids.get("pages-mib"), m.group(2))

# The processes' table, row by row, and the line for the others.
procs = re.search(r"^processes .*?\n.*?\n(.*?)^  all:", text, re.M | re.S).group(1)
pids = []
for line in procs.splitlines():
    if line.startswith("  and "):
        n, records = re.findall(r"\d+", line)
        check("other processes", dom.ids.get("other-processes"), n)
        check("their records", dom.ids.get("other-records"), records)
        continue
    f = line.split()
    pid = f[0]
    pids.append(pid)
    fields = {"name": f[1], "references": f[2], "writes": f[3], "evictions": f[4],
              "footprint": f[5], "seconds": f[7], "executable": f[8]}
    for k, want in fields.items():
        got = dom.rows.get(("data-pid", pid, k), "")
        check(f"pid {pid}'s {k}", got if k in ("name", "executable") else num(got), want)
check("the processes listed", sorted(k[1] for k in dom.rows if k[0] == "data-pid" and k[2] == "pid"),
      sorted(pids))
check("pid 4000's name, special characters and all", dom.rows.get(("data-pid", "4000", "name")),
      "<i>&\"'x")

# The references over time.
m = re.search(r"^references over time \((\d+) slices", text, re.M)
for i, line in enumerate(re.findall(r"^ +([\d.]+) s +(\d+) +(\d+)/s", text, re.M)):
    for k, want in zip(("start", "references", "rate"), line):
        check(f"slice {i}'s {k}", num(dom.rows.get(("data-slice", str(i), k), "")), want)
check("slices", len([k for k in dom.rows if k[0] == "data-slice" and k[2] == "start"]),
      int(m.group(1)))

# The top pages.
top = re.search(r"^top pages:\n.*?\n(.*?)(?:\n\n|\Z)", text, re.M | re.S).group(1)
for i, line in enumerate(top.splitlines()):
    for k, want in zip(("pid", "page", "references", "writes"), line.split()):
        check(f"top page {i}'s {k}", num(dom.rows.get(("data-rank", str(i), k), "")), want)

# The mappings.
m = re.search(r"^references by mapping: (\d+) of (\d+) attributed \(([\d.]+)%\)\n((?:  .*\n)*)",
              text, re.M)
check("attributed", num(dom.ids.get("attributed", "")), m.group(1))
check("attributable", num(dom.ids.get("attributable", "")), m.group(2))
check("attributed-pct", dom.ids.get("attributed-pct"), m.group(3))
want = []
for line in m.group(4).splitlines():
    n, name = line.split(None, 1)
    want += [("references", n), ("mapping", name)]
check("mappings", [(k, num(v) if k == "references" else v) for k, v in dom.mappings], want)

# The analyses' lines.
lru = re.search(r"^  LRU faults: (.*); ([\d,]+) pages referenced$", text, re.M)
want = {int(size): num(n) for n, size in re.findall(r"([\d,]+) at (\d+) pages", lru.group(1))}
check("LRU faults", {k: num(v) for k, v in dom.lru.items()}, want)
check("footprint", num(dom.ids.get("footprint", "")), num(lru.group(2)))
m = re.search(r"^  reuse distance: median ([\d,]+) pages, mean ([\d.]+), of ([\d,]+) reuses$",
              text, re.M)
for id_, want in zip(("reuse-median", "reuse-mean", "reuses"), m.groups()):
    check(id_, num(dom.ids.get(id_, "")), num(want))
m = re.search(r"^  working set: peak ([\d,]+) pages \(([\d.]+) MiB\) in a slice of ([\d.]+) s, "
              r"mean ([\d.]+)$", text, re.M)
for id_, want in zip(("wss-peak", "wss-peak-mib", "wss-slice-s", "wss-mean"), m.groups()):
    check(id_, num(dom.ids.get(id_, "")), num(want))
m = re.search(r"^  DMA: ([\d.]+)% of the memory traffic", text, re.M)
check("dma-share", dom.ids.get("dma-share"), m.group(1))
print(f"report-html: the page against report: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
[ $? -eq 0 ] && pass || fail "the page's numbers (above)"

# hmtt's figures on the page: those `vmtrace hmtt --plot` draws of the same
# sections (scr's two, prefetch, traffic), no other; said nothing on stderr
# (hmtt --plot says "wrote" for each).
# hmtt_figs TRACE PAGE: "same" when they agree, else what each has.
hmtt_figs() {
	rm -rf "$tmp/h" && mkdir "$tmp/h" &&
		"$bin" hmtt --section scr,prefetch,traffic --plot "$tmp/h/f.svg" "$1" >/dev/null 2>&1
	local want got
	want=$(cd "$tmp/h" && ls f-*.svg 2>/dev/null | sed 's/^f-//; s/\.svg$//' | sort | xargs)
	got=$(grep -o 'figure id="fig-[a-z]*"' "$2" | sed 's/.*fig-//; s/"//' |
		grep -xE 'scr|strides|prefetch|traffic' | sort | xargs)
	[ -n "$want" ] && [ "$want" = "$got" ] && echo same || echo "hmtt drew '$want', the page has '$got'"
}
r=$(hmtt_figs "$tmp/t.vmt" "$tmp/page.html")
[ "$r" = same ] && pass || fail "hmtt's figures: $r"
if grep -q "wrote\|no figure" "$tmp/page.err"; then
	fail "report --html said: $(cat "$tmp/page.err")"
else
	pass
fi

# A trace without DMA or VMA records: no DMA picture, no mappings.
"$bin" convert -o "$tmp/plain.vmt" <("$synth" mixed 2000 2) >/dev/null 2>&1 &&
	"$bin" report --html "$tmp/plain.html" "$tmp/plain.vmt" || fail "report --html of a plain trace"
if grep -q 'id="fig-mrc"' "$tmp/plain.html" && ! grep -Eq 'id="(fig-dma|mappings)"' "$tmp/plain.html"; then
	pass
else
	fail "the plain trace's page: a DMA picture or mappings, or no miss-ratio curve"
fi
r=$(hmtt_figs "$tmp/plain.vmt" "$tmp/plain.html")
[ "$r" = same ] && pass || fail "the plain trace's hmtt figures: $r"

# A page that cannot be written: said, and a non-zero exit.
if "$bin" report --html "$tmp/no/such/dir/p.html" "$tmp/t.vmt" 2>"$tmp/err"; then
	fail "report --html into a missing folder succeeded"
elif grep -q "no/such/dir/p.html: No such file or directory" "$tmp/err"; then
	pass
else
	fail "report --html into a missing folder: $(cat "$tmp/err")"
fi

echo "report-html: $passed checks passed, $failed failures"
[ "$failed" -eq 0 ]
