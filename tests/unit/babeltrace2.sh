#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/babeltrace2.sh VMTRACE VMT-SYNTH PLUGIN_DIR: the babeltrace2 plugin
# (source.vmtrace.trace) read by babeltrace2 itself, on a trace of vmt-synth's
# references and evictions plus hand-made records of every other type a trace file holds
# (exact accesses with each of their flags, the bus view's among them):
# - babeltrace2 finds the plugin for the .vmt file by itself and prints one
#   event a record: as many as `vmtrace stats` counts, of each type as many as
#   `vmtrace dump` prints, each with dump's time and field values;
# - sink.ctf.fs writes CTF that babeltrace2 reads back to the same events;
# - --begin/--end keep the records dump has in that range;
# - muxed with src.text.dmesg and with a second vmtrace trace, events come
#   in time order, none lost;
# - make install puts the plugin in the directory babeltrace2 loads its own from.
set -uo pipefail
vmtrace=$1 synth=$2 plugdir=$3
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "babeltrace2: FAIL: $*"; failed=$((failed + 1)); }
command -v babeltrace2 >/dev/null ||
	{ echo "babeltrace2: FAIL: babeltrace2 is not installed: run make setup"; exit 1; }
bt() { babeltrace2 --plugin-path "$plugdir" --clock-cycles "$@"; }

# Raw records of every type but reference and evict, some with data in DATA
# records after them (linux/vmtrace.h), at times after vmt-synth's.
gen_records() {
	python3 - <<'PY'
import struct, sys
out = sys.stdout.buffer
def rec(t, typ, cpu, pid, tid, payload, data=b""):
    out.write(struct.pack("<QIIHHI", t, pid, tid, typ, cpu, len(data)) + payload.ljust(40, b"\0"))
    for off in range(0, len(data), 40):
        chunk = data[off:off + 40]
        out.write(struct.pack("<QIIHHI", t, pid, tid, 5, cpu, len(chunk)) + chunk.ljust(40, b"\0"))
t = 5_000_000_000
for i in range(3):
    c = i % 2
    rec(t + 1, 1, c, 0, 0, struct.pack("<Q", 7 + i))
    rec(t + 2, 6, c, 10, 11, struct.pack("<IIII", 20, 21, 1, 1))
    rec(t + 3, 7, c, 10, 11, struct.pack("<IIQ", 30, 31, 0x11200))
    rec(t + 4, 8, c, 30, 31, struct.pack("<II24x", 31, 0), b"/usr/bin/prog%d" % i)
    rec(t + 5, 9, c, 30, 31, struct.pack("<II", 256, 1))
    rec(t + 6, 10, c, 30, 31, b"worker%d" % i)
    rec(t + 7, 12, c, 40, 41, b"task%d".ljust(16, b"\0") % i + struct.pack("<II8x", 1, 0),
        b"/opt/a/very/long/path/to/an/executable/named/app%d" % i)
    rec(t + 8, 11, c, 40, 41, struct.pack("<QQQBBBBI", 0x400000, 0x401000, 0x1000, 1, 2, 5, 1, 0),
        b"/usr/lib/libc.so.6")
    rec(t + 9, 13, c, 40, 41, struct.pack("<QQIBBBBHHI", 0xfee00000, 0x12345000, 4096, 2, 1, 1, 0,
                                          1, 3, 0), b"nvme0n1")
    rec(t + 10, 14, c, 40, 41, struct.pack("<QQBBHI", 0x7f0000001000, 0x4242, 1, 0, 0, 3))
    rec(t + 11, 4, c, 40, 41, struct.pack("<II24x", 42 + i, 0), b"phase %d" % i)
    rec(t + 12, 3, c, 40, 41, struct.pack("<QQQIBBBBI", 0x7f0000002000, 0x77, 0, 0, 0, 0, 0, 3, 1))
    # exact accesses: a program's, a string instruction's, and the bus view's
    # (cachesim --emit) fill, write-back and prefetch
    for j, flags in enumerate((0, 0x1 | 0x4, 0x8, 0x10, 0x20)):
        rec(t + 13 + j, 15, c, 40, 41,
            struct.pack("<QQHBBB3x", 0x600000 + 64 * j, 0x401000 + j, 8, 1 + j % 2, j == 1,
                        flags) + bytes([0xab, 0xcd, j, 0xef, 0, 0, 0, 0xfa]).ljust(16, b"\0"))
    t += 1000
PY
}

{ "$synth" mixed 3000 3 && gen_records; } >"$tmp/t.raw" &&
	"$vmtrace" convert "$tmp/t.raw" -o "$tmp/t.vmt" >/dev/null 2>&1 &&
	"$synth" random 2000 9 >"$tmp/u.raw" &&
	"$vmtrace" convert "$tmp/u.raw" -o "$tmp/u.vmt" >/dev/null 2>&1 ||
	{ echo "babeltrace2: FAIL: making the traces"; exit 1; }
"$vmtrace" dump "$tmp/t.vmt" >"$tmp/dump" || fail "vmtrace dump"
records=$("$vmtrace" stats "$tmp/t.vmt" | sed -n 's/^records: //p')

# Found by the support-info query alone: no --component.
bt "$tmp/t.vmt" >"$tmp/bt" 2>"$tmp/err" || fail "babeltrace2 t.vmt: $(head -3 "$tmp/err")"
[ "$(wc -l <"$tmp/bt")" = "$records" ] ||
	fail "babeltrace2 printed $(wc -l <"$tmp/bt") events, vmtrace stats counts $records records"

# Each event against dump's line of the same time and type: the types' counts,
# then every field dump prints.
python3 - "$tmp/dump" "$tmp/bt" <<'PY' || fail "babeltrace2's events differ from vmtrace dump's records"
import collections, re, sys
FIELD = re.compile(r'(\w+) = (\( "([^"]*)" : container = \d+ \)|"((?:[^"\\]|\\.)*)"|[^,]+)(?:, |$)')
LINE = re.compile(r'^\[(\d+)\] \([^)]*\) vmtrace:(\w+): \{ (.*) \}, \{ (.*) \}$')
def value(v):
    try:
        return int(v, 0)
    except ValueError:
        return v
def fields(text):
    out = {}
    for m in FIELD.finditer(text):
        out[m.group(1)] = m.group(3) if m.group(3) is not None else \
            m.group(4) if m.group(4) is not None else value(m.group(2))
    return out
bt = collections.defaultdict(list)
for line in open(sys.argv[2]):
    m = LINE.match(line.rstrip("\n"))
    if not m:
        sys.exit("not an event line: " + line)
    f = fields(m.group(3))
    f.update(fields(m.group(4)))
    bt[(int(m.group(1)), m.group(2))].append(f)
dump = collections.defaultdict(list)
for line in open(sys.argv[1]):
    time, typ, rest = line.rstrip("\n").split(" ", 2)
    f = {}
    for m in re.finditer(r'(\w+)=("((?:[^"\\]|\\.)*)"|\S+)', rest):
        f[m.group(1)] = m.group(3) if m.group(3) is not None else value(m.group(2))
    if "seg" in f:
        f["index"], f["count"] = map(int, f.pop("seg").split("/"))
    f["cpu_id"] = f.pop("cpu")
    if typ == "exact":
        # an exact access's value: dump's number (up to 8 bytes), babeltrace2's
        # bytes in memory order; both say "-" for none
        v = f["value"]
        f["value"] = v.to_bytes(f["size"], "little").hex() if isinstance(v, int) else v
    dump[(int(time), typ)].append(f)
types = lambda d: collections.Counter(k[1] for k, v in d.items() for _ in v)
if types(bt) != types(dump):
    sys.exit("types: babeltrace2 %s, dump %s" % (types(bt), types(dump)))
# every type but DATA, whose bytes a trace file keeps in its data stream
if len(types(dump)) != 14:
    sys.exit("the trace has %d record types, not 14" % len(types(dump)))
if not {"fill", "writeback", "prefetch"} <= {f.get("bus") for k in dump if k[1] == "exact"
                                             for f in dump[k]}:
    sys.exit("the exact records lack a bus record of each kind")
bad = 0
for key, recs in dump.items():
    for f in recs:
        # one of babeltrace2's events at that time and type has each of dump's fields
        if not any(all(e.get(k) == v for k, v in f.items()) for e in bt[key]):
            if bad < 3:
                print("no event %s with %s among %s" % (key, f, bt[key]), file=sys.stderr)
            bad += 1
sys.exit(1 if bad else 0)
PY

# CTF written by babeltrace2's sink.ctf.fs reads back to the same events.
babeltrace2 --plugin-path "$plugdir" "$tmp/t.vmt" --component=sink.ctf.fs --params="path=\"$tmp/ctf\"" >/dev/null 2>"$tmp/err" ||
	fail "sink.ctf.fs: $(head -3 "$tmp/err")"
babeltrace2 --clock-cycles "$tmp/ctf" >"$tmp/ctf.txt" 2>"$tmp/err" || fail "reading the CTF: $(head -3 "$tmp/err")"
cmp -s <(sed 's/ (+[^)]*)//' "$tmp/bt") <(sed 's/ (+[^)]*)//' "$tmp/ctf.txt") ||
	fail "the CTF trace reads back to $(wc -l <"$tmp/ctf.txt") events, not the $records events read directly"

# --begin/--end: the records dump has in [from, to], the bounds taken from it.
from=$(sed -n '500s/ .*//p' "$tmp/dump") to=$(sed -n '1500s/ .*//p' "$tmp/dump")
want=$(awk -v a="$from" -v b="$to" '$1 >= a && $1 <= b' "$tmp/dump" | wc -l)
secs() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }
got=$(bt "$tmp/t.vmt" --begin="$(secs "$from")" --end="$(secs "$to")" 2>"$tmp/err" | wc -l)
[ "$got" = "$want" ] && [ "$want" -gt 0 ] ||
	fail "--begin $from --end $to: $got events, dump has $want records in the range $(head -1 "$tmp/err")"

# Muxed with dmesg text (its clock counts from boot too) and with a second
# trace: every event once, in time order.
printf '[    1.000600] between references\n[    5.000001] between the hand-made records\n' >"$tmp/dmesg"
urecords=$("$vmtrace" stats "$tmp/u.vmt" | sed -n 's/^records: //p')
bt "$tmp/t.vmt" "$tmp/u.vmt" --component=src.text.dmesg --params="path=\"$tmp/dmesg\"" \
	>"$tmp/mux" 2>"$tmp/err" || fail "muxing: $(head -3 "$tmp/err")"
[ "$(wc -l <"$tmp/mux")" = $((records + urecords + 2)) ] ||
	fail "muxed: $(wc -l <"$tmp/mux") events, not $records + $urecords + 2"
sed 's/^\[\([0-9]*\)\].*/\1/' "$tmp/mux" | sort -c -n 2>/dev/null || fail "muxed events out of time order"
grep -n 'between' "$tmp/mux" | cut -d: -f1 | {
	read -r a; read -r b
	[ "${a:-0}" -gt 1 ] && [ "${b:-0}" -lt "$(wc -l <"$tmp/mux")" ]; } ||
	fail "the dmesg lines are not among the vmtrace events"

# Installed where babeltrace2 loads its own plugins (the text plugin's directory).
sysdir=$(babeltrace2 list-plugins 2>/dev/null | sed -n 's|^ *Path: \(.*\)/babeltrace-plugin-text.so$|\1|p')
if ${MAKE:-make} -s -C "$top" install DESTDIR="$tmp/root" PREFIX=/usr >"$tmp/make.log" 2>&1; then
	[ -n "$sysdir" ] && [ -f "$tmp/root$sysdir/babeltrace-plugin-vmtrace.so" ] ||
		fail "make install did not put the plugin in babeltrace2's plugin directory '$sysdir'"
	bt_installed=$(babeltrace2 --plugin-path "$tmp/root$sysdir" "$tmp/t.vmt" 2>&1 | wc -l)
	[ "$bt_installed" = "$records" ] || fail "the installed plugin printed $bt_installed events"
else
	fail "make install: $(tail -3 "$tmp/make.log")"
fi

echo "babeltrace2: $records events of 14 record types as dump prints them, CTF round trip, trimming, muxing with dmesg and a second trace, install; $failed failures"
[ $failed -eq 0 ]
