#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/import.sh VMTRACE VMT-SYNTH: `vmtrace convert --from lackey|din`
# (libvmtrace's importer, user/lib/trace/trace_import.c):
# - lackey: a C program built here runs under `valgrind --tool=lackey
#   --trace-mem=yes`; its I, L, S and M lines are, record for record and
#   field by field (time = index, addr, size, access, ip: the I line's before
#   a data access), the exact records dump prints, counted by stats too; the
#   same from standard input;
# - din: export --format din, convert --from din, export again gives the same
#   text, of the lackey trace (exact records, read-modify-writes included)
#   and of a synthetic one (references); din's forms (0x, a size, escapes,
#   flushes, CRLF, blank lines) read as they should;
# - bad input: each bad line exits 2 naming FILE:LINE and what is wrong, and
#   leaves no output file; an input without an access exits 1, leaving none.
set -uo pipefail
bin=$1 synth=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "import: FAIL: $*"; failed=$((failed + 1)); }
ok() { passed=$((passed + 1)); }

if ! command -v valgrind >/dev/null; then
	echo "import: valgrind is not installed (apt-get install valgrind)" >&2
	exit 1
fi

# ---- lackey: a real run -----------------------------------------------------

# Loads, stores and, at -O1, read-modify-writes (add to memory) of several sizes.
cat >"$tmp/prog.c" <<'EOF'
#include <stdint.h>
static volatile uint64_t q[64];
static volatile uint32_t d[64];
static volatile uint8_t b[64];
int main(void)
{
	for (int i = 0; i < 64; i++) {
		q[i] += (uint64_t)i;
		d[i] = (uint32_t)q[i];
		b[i] ^= (uint8_t)d[i];
	}
	return b[3] == 3 ? 0 : 1;
}
EOF
cc -O1 -o "$tmp/prog" "$tmp/prog.c" || { echo "import: FAIL: cannot build the program"; exit 1; }
valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lackey.log" "$tmp/prog" ||
	{ echo "import: FAIL: the program failed under lackey"; exit 1; }

"$bin" convert --from lackey --pid 4321 "$tmp/lackey.log" -o "$tmp/lackey.vmt" 2>"$tmp/err" &&
	grep -q '^\[ vmtrace convert: wrote .* records from .* lines of lackey'"'"'s' "$tmp/err" && ok ||
	fail "convert --from lackey: $(cat "$tmp/err")"

# lackey's lines against dump's records, every field, and the counts against stats.
python3 - "$bin" "$tmp/lackey.log" "$tmp/lackey.vmt" <<'EOF' && ok || fail "lackey's lines are not the trace's records"
import re, subprocess, sys
vmtrace, log, trace = sys.argv[1:4]
ACCESS = {'I': 'X', 'L': 'R', 'S': 'W', 'M': 'RW'}
want, counts, ip = [], {}, 0
for line in open(log):
    if line.startswith('=='):
        continue
    m = re.fullmatch(r'(?:I |  ?([LSM])) ([0-9a-fA-F]+),(\d+)\n', line)
    if not m:
        sys.exit(f'import: a line of lackey\'s this test does not know: {line!r}')
    kind = m.group(1) or 'I'
    addr = int(m.group(2), 16)
    if kind == 'I':
        ip = addr
    counts[kind] = counts.get(kind, 0) + 1
    size = int(m.group(3))
    # dump: a value of up to 8 bytes as a number, up to 16 as bytes, wider ones in data (none)
    value = '0x0' if size <= 8 else '00' * size if size <= 16 else '?'
    want.append(f'{len(want)} exact cpu=0 pid=4321 tid=4321 addr={addr:#x} size={size} '
                f'access={ACCESS[kind]} value={value} ip={ip:#x} mode=user')
got = subprocess.run([vmtrace, 'dump', trace], check=True, capture_output=True,
                     text=True).stdout.splitlines()
bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
if len(got) != len(want) or bad:
    i = bad[0] if bad else min(len(got), len(want))
    sys.exit(f'import: {len(got)} records for {len(want)} accesses; first difference at '
             f'record {i}: {got[i] if i < len(got) else None!r}, want {want[i] if i < len(want) else None!r}')
if not all(counts.get(k) for k in 'ILSM'):
    sys.exit(f'import: the program made no line of some kind: {counts}')
by_access = {}
for g in got:
    a = re.search(r' access=(\S+)', g).group(1)
    by_access[a] = by_access.get(a, 0) + 1
if by_access != {ACCESS[k]: n for k, n in counts.items()}:
    sys.exit(f'import: by access {by_access}, lackey\'s lines {counts}')
stats = subprocess.run([vmtrace, 'stats', trace], check=True, capture_output=True,
                       text=True).stdout
exact = re.search(r'^  exact +(\d+)$', stats, re.M)
pid = re.search(r'^  4321 +(\d+) records', stats, re.M)
if not exact or not pid or int(exact.group(1)) != len(want) or int(pid.group(1)) != len(want):
    sys.exit(f'import: stats does not count {len(want)} exact records of pid 4321:\n{stats}')
line = re.search(r'^exact accesses: (\d+) loads, (\d+) stores, (\d+) read-modify-writes, '
                 r'(\d+) instruction fetches, 0 other; 0 of them the kernel\'s$', stats, re.M)
if not line or [int(x) for x in line.groups()] != [counts.get(k, 0) for k in 'LSMI']:
    sys.exit(f'import: stats\'s exact accesses are not lackey\'s lines {counts}:\n{stats}')
# --addr and --ip (dump and stats): lackey's lines of the ranges, counted here.
def rec(w):
    f = dict(kv.split('=', 1) for kv in w.split()[2:])
    return int(f['addr'], 16), int(f['ip'], 16), f['access']
recs = [rec(w) for w in want]
ips = sorted({ip for _, ip, _ in recs})
data = sorted({a for a, _, k in recs if k != 'X'})
ranges = {'--addr': [(data[len(data) // 2], data[len(data) // 2] + 64), (ips[0], ips[0] + 1)],
          '--ip': [(ips[len(ips) // 3], ips[len(ips) // 3] + 200), (ips[-1], ips[-1] + 1)]}
for opt, rs in ranges.items():
    spec = ','.join(f'{s:#x}-{e:#x}' for s, e in rs)
    field = 0 if opt == '--addr' else 1
    mine = [w for w, r in zip(want, recs) if any(s <= r[field] < e for s, e in rs)]
    out = subprocess.run([vmtrace, 'dump', opt, spec, trace], check=True, capture_output=True,
                         text=True).stdout.splitlines()
    if not mine or out != mine:
        sys.exit(f'import: dump {opt} {spec}: {len(out)} records, not lackey\'s {len(mine)}')
    kinds = [sum(r[2] == k for r in recs if any(s <= r[field] < e for s, e in rs))
             for k in ('R', 'W', 'RW', 'X')]
    st = subprocess.run([vmtrace, 'stats', opt, spec, trace], check=True, capture_output=True,
                        text=True).stdout
    if f'exact accesses: {kinds[0]} loads, {kinds[1]} stores, {kinds[2]} read-modify-writes, {kinds[3]} instruction fetches' not in st:
        sys.exit(f'import: stats {opt} {spec}: not {kinds}:\n{st}')
print(f'import: lackey: {len(want)} records, {counts}; --addr and --ip as counted here')
EOF

# standard input: the same trace
"$bin" convert --from lackey --pid 4321 - -o "$tmp/stdin.vmt" <"$tmp/lackey.log" 2>/dev/null &&
	cmp -s <("$bin" dump "$tmp/stdin.vmt") <("$bin" dump "$tmp/lackey.vmt") && ok ||
	fail "convert --from lackey - (standard input): not the same records"

# A message of valgrind's longer than a line may be is skipped all the same.
{ printf '==7== %05000d\n' 0; grep -v '^==' "$tmp/lackey.log" | head -100; } >"$tmp/long.log"
"$bin" convert --from lackey "$tmp/long.log" -o "$tmp/long.vmt" 2>"$tmp/err" &&
	grep -q '(100 records from 101 lines' "$tmp/err" && ok ||
	fail "a 5000-byte line of valgrind's: $(cat "$tmp/err")"

# ---- din ----------------------------------------------------------------------

# round trips: export, convert --from din, export
"$synth" mixed 20000 7 >"$tmp/synth.raw" &&
	"$bin" convert "$tmp/synth.raw" -o "$tmp/synth.vmt" >/dev/null 2>&1 ||
	{ echo "import: FAIL: cannot make the synthetic trace"; exit 1; }
for t in lackey synth; do
	"$bin" export --format din "$tmp/$t.vmt" -o "$tmp/$t.din" &&
		"$bin" convert --from din "$tmp/$t.din" -o "$tmp/$t-din.vmt" 2>/dev/null &&
		"$bin" export --format din "$tmp/$t-din.vmt" -o "$tmp/$t-2.din" ||
		{ fail "$t: export, convert --from din, export failed"; continue; }
	[ -s "$tmp/$t.din" ] && cmp -s "$tmp/$t.din" "$tmp/$t-2.din" && ok ||
		fail "$t: export --format din | convert --from din | export: not the same text"
	# a line a record, its label its access
	"$bin" dump "$tmp/$t-din.vmt" | awk '{ sub(/.* addr=0x/, ""); split($0, f, " ");
		a = f[3]; sub(/access=/, "", a); print (a == "R" ? 0 : a == "W" ? 1 : 2), f[1] }' |
		cmp -s - "$tmp/$t.din" && ok || fail "$t: the din's records are not its lines"
done
# The lackey trace's read-modify-writes: a read line and a write line each.
rmw=$("$bin" dump "$tmp/lackey.vmt" | grep -c ' access=RW ')
records=$("$bin" dump "$tmp/lackey.vmt" | wc -l)
[ "$rmw" -gt 0 ] && [ "$(wc -l <"$tmp/lackey.din")" -eq $((records + rmw)) ] && ok ||
	fail "din of the lackey trace: $(wc -l <"$tmp/lackey.din") lines, want $records + $rmw (RW)"

# din's forms
printf '1 0 10\n1 0x7ffd0010 8\n\n2\t401000  4\r\n3 0\n4 0\n0 ABCDEF 16\n2 0X401004\n0x0 5' >"$tmp/forms.din"
cat >"$tmp/forms.want" <<'EOF'
0 exact cpu=0 pid=9 tid=9 addr=0x0 size=10 access=W value=00000000000000000000 ip=0x0 mode=user
1 exact cpu=0 pid=9 tid=9 addr=0x7ffd0010 size=8 access=W value=0x0 ip=0x0 mode=user
2 exact cpu=0 pid=9 tid=9 addr=0x401000 size=4 access=X value=0x0 ip=0x401000 mode=user
3 exact cpu=0 pid=9 tid=9 addr=0xabcdef size=16 access=R value=00000000000000000000000000000000 ip=0x0 mode=user
4 exact cpu=0 pid=9 tid=9 addr=0x401004 size=4 access=X value=0x0 ip=0x401004 mode=user
5 exact cpu=0 pid=9 tid=9 addr=0x5 size=4 access=R value=0x0 ip=0x0 mode=user
EOF
"$bin" convert --from din --pid 9 "$tmp/forms.din" -o "$tmp/forms.vmt" 2>"$tmp/err" &&
	grep -q '(6 records from 9 lines of din'"'"'s: 2 fetches, 2 reads, 2 writes, 0 modifies; 3 lines skipped, 1 flushes' "$tmp/err" &&
	"$bin" dump "$tmp/forms.vmt" | diff - "$tmp/forms.want" >"$tmp/diff" && ok ||
	fail "din's forms: $(cat "$tmp/err" "$tmp/diff")"

# ---- bad input ------------------------------------------------------------------

# bad FORMAT STATUS MESSAGE-PATTERN TEXT: convert's exit status and message, no output file
bad() {
	local format=$1 status=$2 pattern=$3 got
	printf "$4" >"$tmp/bad.txt"
	touch "$tmp/bad.vmt"
	"$bin" convert --from "$format" "$tmp/bad.txt" -o "$tmp/bad.vmt" >/dev/null 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$status" ] || ! grep -Eq "$pattern" "$tmp/err"; then
		fail "$format $(printf %q "${4:0:40}"): exit $got, want $status and /$pattern/; stderr: $(head -c 300 "$tmp/err")"
	elif [ -e "$tmp/bad.vmt" ]; then
		fail "$format $(printf %q "${4:0:40}"): left $tmp/bad.vmt"
	else
		ok
	fi
}
f='bad\.txt'
bad lackey 2 "$f:2: bad hex digit 'g' in the address" 'I  00400000,3\n L 7ff00g,4\n'
bad lackey 2 "$f:1: want the address \(hex\), found ',4'" ' L ,4\n'
bad lackey 2 "$f:3: size 0" 'I  400000,3\n\n S 10,0\n'
bad lackey 2 "$f:1: size 4097 is over 4096 bytes" ' L 10,4097\n'
bad lackey 2 "$f:1: want a size \(decimal\), found the end of the line" ' L 10,'
bad lackey 2 "$f:1: bad digit 'x' in the size" ' L 10,0x4\n'
bad lackey 2 "$f:1: want ',' after the address, found ' 4'" ' L 10 4\n'
bad lackey 2 "$f:1: text after the size: 'extra'" ' S 10,4 extra\n'
bad lackey 2 "$f:1: the address '12345678901234567' is over 64 bits" ' L 12345678901234567,4\n'
bad lackey 2 "$f:2: not a line of lackey's .*: 'hello from the program'" 'I  400000,3\nhello from the program\n'
bad lackey 2 "$f:1: want a space after 'L'" ' L0,4\n'
bad lackey 2 "$f:1: a line longer than 4096 bytes" "I  $(printf '%05000d' 0),4\n"
bad lackey 1 "$f: no access in 2 lines \(valgrind --tool=lackey needs --trace-mem=yes\)" '==1== Lackey\n==1== \n'
bad lackey 1 "$f: no access in 0 lines" ''
bad din 2 "$f:2: unknown label 5 \(0 read, 1 write, 2 instruction fetch, 3 escape, 4 flush\)" '0 10\n5 10\n'
bad din 2 "$f:1: size 0" '0 10 0\n'
bad din 2 "$f:1: size 5000 is over 4096 bytes" '1 10 5000\n'
bad din 2 "$f:1: bad hex digit 'z' in an address" '0 1z\n'
bad din 2 "$f:1: want an address \(hex\), found the end of the line" '0 0x\n'
bad din 2 "$f:1: want a space after the label, found the end of the line" '2\n'
bad din 2 "$f:1: text after the size: 'comment'" '0 10 4 comment\n'
bad din 2 "$f:1: want a size \(decimal\), found 'read'" '0 10 read\n'
bad din 2 "$f:1: want a label \(hex\), found 'q 10'" 'q 10\n'
bad din 1 "$f: no access in 3 lines" '3 10\n4 0\n\n'
# the usage
"$bin" convert --from xml "$tmp/forms.din" -o "$tmp/x.vmt" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unknown input format 'xml' (raw, lackey or din)" "$tmp/err" && ok ||
	fail "convert --from xml: $(cat "$tmp/err")"
"$bin" convert --pid 3 "$tmp/synth.raw" -o "$tmp/x.vmt" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- '--pid goes with --from lackey or din' "$tmp/err" && ok ||
	fail "convert --pid of raw records: $(cat "$tmp/err")"
"$bin" convert --from din "$tmp/no-such.din" -o "$tmp/x.vmt" 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'cannot read .*no-such.din' "$tmp/err" && ok ||
	fail "convert --from din of a missing file: $(cat "$tmp/err")"

echo "import: $passed checks passed, $failed failures"
[ "$failed" -eq 0 ]
