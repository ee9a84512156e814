#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/notebook.sh VMTRACE [VMT-SYNTH]: the worked example
# examples/explore.ipynb (docs/python.md) executed headless, as a user runs it:
# `jupyter nbconvert --to notebook --execute`, with Debian's python3 and the
# build tree's libvmtrace.so (VMTRACE's ../lib/libvmtrace.so.0.*), into a
# scratch directory (nothing is left in the tree), MPLBACKEND=Agg.
# - on a trace of `vmt-synth mixed 30000 7` with a marker record (and its
#   text) before each phase of 5,000 references: no cell fails, four
#   figures (rate, MRC, heatmap, the phases' MRCs), the references the
#   notebook counts are `vmtrace stats`', its LRU miss ratios are `vmtrace
#   mrc --csv`'s at every size mrc shows, and its table of phases has each
#   marker's text with 5,000 references;
# - as a user of the installed package runs it: `make install-python` into a
#   scratch root as Debian lays it out (ROOT/usr/lib/python3/dist-packages,
#   found through PYTHONPATH alone), the notebook copied out of the tree (so
#   that it cannot take the clone's package), on its default trace
#   (tests/unit/data/format3-*.vmt, two markers): no cell fails, four
#   figures, and the package it imported is the installed one.
set -uo pipefail
bin=$(realpath "${1:?usage: notebook.sh VMTRACE [VMT-SYNTH]}")
synth=$(realpath "${2:-$(dirname "$bin")/vmt-synth}")
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "notebook: FAIL: $*"; failed=$((failed + 1)); }
start=$(date +%s.%N)

libs=("$(dirname "$bin")"/../lib/libvmtrace.so.0.*)
lib=${libs[0]}
[ -f "$lib" ] || { echo "notebook: FAIL: no libvmtrace.so.0.* beside $bin (make lib)"; exit 1; }
# Debian's python3: the kernel Debian's python3-ipykernel registers runs it.
python=/usr/bin/python3
"$python" -c 'import nbconvert, ipykernel, matplotlib, numpy, pandas' 2>/dev/null || {
	echo "notebook: FAIL: /usr/bin/python3 lacks nbconvert, ipykernel, matplotlib, numpy or pandas (make setup: jupyter-nbconvert, python3-ipykernel, python3-matplotlib)"
	exit 1
}

# The trace: vmt-synth's phases, each opened by a marker (id K, text
# "phase K: sweep|random|hot set", then its DATA record) 1 ns before its
# first reference, as vmt_marker() in the traced program would put it.
"$synth" mixed 30000 7 | "$python" -c '
import struct, sys
raw, out, refs = sys.stdin.buffer.read(), sys.stdout.buffer, 0
for off in range(0, len(raw), 64):
    rec = raw[off:off + 64]
    time, pid, tid, typ, cpu = struct.unpack_from("<QIIHH", rec)
    if typ == 2 and refs % 5000 == 0:
        k = refs // 5000
        text = b"phase %d: %s" % (k, (b"sweep", b"random", b"hot set")[k % 3])
        out.write(struct.pack("<QIIHHII36x", time - 1, pid, tid, 4, cpu, len(text), k))
        out.write(struct.pack("<QIIHHI", time - 1, pid, tid, 5, cpu, len(text)) + text.ljust(40, b"\0"))
    refs += typ == 2
    out.write(rec)
' >"$tmp/t.raw" && "$bin" convert "$tmp/t.raw" -o "$tmp/t.vmt" >/dev/null 2>&1 ||
	{ echo "notebook: FAIL: making the trace (vmt-synth, convert)"; exit 1; }
[ "$("$bin" dump --type marker "$tmp/t.vmt" | wc -l)" -eq 6 ] || fail "the trace has not 6 markers"

# run NAME NOTEBOOK PACKAGE-DIR [VAR=VALUE...]: NOTEBOOK executed into
# $tmp/NAME.ipynb with the package found in PACKAGE-DIR; jupyter's, IPython's
# and matplotlib's files in $tmp; no .pyc in the tree.
run() {
	local name=$1 nb=$2 pydir=$3
	shift 3
	mkdir -p "$tmp/home"
	(cd "$tmp" && env HOME="$tmp/home" JUPYTER_RUNTIME_DIR="$tmp/home/runtime" \
		IPYTHONDIR="$tmp/home/ipython" MPLCONFIGDIR="$tmp/home/mpl" MPLBACKEND=Agg \
		PYTHONDONTWRITEBYTECODE=1 PYDEVD_DISABLE_FILE_VALIDATION=1 \
		PYTHONPATH="$pydir" VMTRACE_LIBRARY="$(realpath "$lib")" "$@" \
		timeout 300 "$python" -m nbconvert --to notebook --execute \
		--ExecutePreprocessor.timeout=120 --output-dir "$tmp" --output "$name" \
		"$nb") >"$tmp/$name.log" 2>&1 ||
		{ fail "$name: nbconvert --execute: $(grep -v 'Debugger\|frozen\|Debugging' "$tmp/$name.log" | tail -25)"; return 1; }
}

# check NOTEBOOK [MRC-CSV REFERENCES MARKERS]: the executed notebook's outputs.
check() {
	"$python" - "$@" <<'PY'
import json, re, sys
nb = json.load(open(sys.argv[1]))
outs = [o for c in nb['cells'] if c['cell_type'] == 'code' for o in c.get('outputs', [])]
text = '\n'.join(''.join(o.get('text', '')) + ''.join(o.get('data', {}).get('text/plain', ''))
               for o in outs)
bad = []
errors = [o for o in outs if o['output_type'] == 'error']
if errors:
    bad.append(f'{len(errors)} cells raised: {errors[0]["ename"]}: {errors[0]["evalue"]}')
pngs = sum('image/png' in o.get('data', {}) for o in outs)
if pngs != 4:
    bad.append(f'{pngs} figures, not 4')
if len(sys.argv) > 2:
    got = {int(p): float(r) for p, r in re.findall(r'^ *(\d+) pages: miss ratio ([0-9.]+)$', text, re.M)}
    want = {int(l.split(',')[1]): float(l.split(',')[4])
            for l in open(sys.argv[2]).read().split('\n')[1:] if l}
    if set(got) != set(want) or any(abs(got[s] - want[s]) > 2e-6 for s in want):
        bad.append(f'miss ratios {got}, vmtrace mrc says {want}')
    refs = re.search(r'^([0-9,]+) references by', text, re.M)
    if not refs or int(refs[1].replace(',', '')) != int(sys.argv[3]):
        bad.append(f'references: {refs and refs[1]}, vmtrace stats says {sys.argv[3]}')
    for marker in open(sys.argv[4]).read().split('\n'):
        if marker and not re.search(re.escape(marker) + r' +\d+ +5000 ', text):
            bad.append(f'no phase "{marker}" of 5000 references in the table')
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
}

"$bin" mrc --csv "$tmp/t.vmt" >"$tmp/mrc.csv" || fail "vmtrace mrc"
refs=$("$bin" stats "$tmp/t.vmt" | sed -n 's/^ *reference *//p')
"$bin" dump --type marker "$tmp/t.vmt" | sed 's/.*text="\(.*\)"$/\1/' >"$tmp/markers"
if run synth "$top/examples/explore.ipynb" "$top/python" VMTRACE_TRACE="$tmp/t.vmt"; then
	out=$(check "$tmp/synth.ipynb" "$tmp/mrc.csv" "$refs" "$tmp/markers") ||
		fail "the synthetic trace: $out"
fi
pydir=/usr/lib/python3/dist-packages
make -s -C "$top" install-python DESTDIR="$tmp/root" PYTHONDIR=$pydir >"$tmp/install.log" 2>&1 &&
	[ -f "$tmp/root$pydir/vmtrace/__init__.py" ] ||
	fail "make install-python into a scratch root: $(tail -5 "$tmp/install.log")"
mkdir -p "$tmp/user"
# The copy prints where its package came from after it runs.
"$python" - "$top/examples/explore.ipynb" "$tmp/user/explore.ipynb" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
nb['cells'].append({'cell_type': 'code', 'execution_count': None, 'id': 'where', 'metadata': {},
                    'outputs': [], 'source': ['print("package:", vmtrace.__file__)']})
json.dump(nb, open(sys.argv[2], 'w'))
PY
defaults=("$top"/tests/unit/data/format3-*.vmt)
if run installed "$tmp/user/explore.ipynb" "$tmp/root$pydir" VMTRACE_TRACE="${defaults[0]}"; then
	out=$(check "$tmp/installed.ipynb") || fail "the installed package, the default trace: $out"
	grep -q "package: $tmp/root$pydir/vmtrace/__init__.py" "$tmp/installed.ipynb" ||
		fail "the notebook out of the tree did not import the installed package: $(grep -o 'package: [^"\\]*' "$tmp/installed.ipynb")"
fi
# No bytecode or checkpoints left beside the notebook or the package.
extra=$(cd "$top" && git status --porcelain --ignored --untracked-files=all -- examples python 2>/dev/null |
	grep -E '^[?!].*(__pycache__|\.pyc$|\.ipynb_checkpoints)')
[ -z "$extra" ] || fail "left in the tree: $extra"

secs=$(echo "$(date +%s.%N) - $start" | bc)
echo "notebook: examples/explore.ipynb executed on vmt-synth's trace ($refs references, 6 markers: MRC as vmtrace mrc's) and, with the package installed in a scratch root, on its default trace ($(printf '%.1f' "$secs") s); $failed failures"
[ $failed -eq 0 ]
