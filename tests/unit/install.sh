#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/install.sh: `make install DESTDIR=TMP PREFIX=/usr` puts
# - vmtrace into TMP/usr/bin, and it runs;
# - vmtrace(1) into TMP/usr/share/man/man1, where `man vmtrace` finds it
#   (MANPATH=TMP/usr/share/man) and renders, for every command the installed
#   `vmtrace help` lists, a section of that name holding each line of the
#   command's --help;
# - vmtrace_marker.h and the <linux/vmtrace.h> it includes into
#   TMP/usr/include, where a program that calls vmt_marker() compiles;
# - libvmtrace into TMP/usr/lib (libvmtrace.so.0, its soname, libvmtrace.so,
#   libvmtrace.a, pkgconfig/libvmtrace.pc) and its headers: a program built
#   with `pkg-config --cflags --libs [--static] libvmtrace` against TMP reads
#   a trace, and its number of records and sum of their times are python3's
#   from the raw records the trace was converted from; `nm -D` of the shared
#   library lists exactly the functions the installed public headers declare
#   (as gcc -aux-info lists them), no internal one;
# - the Python package into TMP/usr/lib/python3/dist-packages/vmtrace, where
#   python3 (one with numpy: tests/unit/python.sh's choice) imports it with
#   PYTHONPATH and LD_LIBRARY_PATH alone, loads TMP/usr/lib's libvmtrace.so.0
#   and reads the trace's records and times as the programs do.
# Runs make from the tree's top; MAKE names it (make check-unit sets it).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "install: FAIL: $*"; failed=$((failed + 1)); }

root=$tmp/root
if ! ${MAKE:-make} -s -C "$top" install DESTDIR="$root" PREFIX=/usr >"$tmp/make.log" 2>&1; then
	cat "$tmp/make.log"
	echo "install: FAIL: make install DESTDIR=$root PREFIX=/usr"
	exit 1
fi
bin=$root/usr/bin/vmtrace
page=$root/usr/share/man/man1/vmtrace.1

"$bin" help >"$tmp/help" 2>&1 || fail "$bin help: $(cat "$tmp/help")"
mapfile -t commands < <(sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p' "$tmp/help" |
			grep -vx help)
[ ${#commands[@]} -ge 16 ] || fail "the installed vmtrace help lists ${#commands[@]} commands"

[ -f "$page" ] || fail "no $page"
found=$(MANPATH=$root/usr/share/man man -w vmtrace 2>&1)
[ "$found" = "$page" ] || fail "man -w vmtrace: '$found', not $page"
# Wide enough that the summaries are not broken across lines.
if ! MANPATH=$root/usr/share/man MANWIDTH=200 man vmtrace >"$tmp/page" 2>"$tmp/man.err" ||
	[ -s "$tmp/man.err" ]; then
	fail "man vmtrace: $(cat "$tmp/man.err")"
fi
grep -q '^NAME' "$tmp/page" && grep -q '^SYNOPSIS' "$tmp/page" && grep -q '^EXIT STATUS' "$tmp/page" ||
	fail "man vmtrace: no NAME, SYNOPSIS or EXIT STATUS"

# Each command: a heading of its name, and its --help, line for line, as
# the page's verbatim text (indented 7 columns).
for c in "${commands[@]}"; do
	if ! grep -qx "   $c" "$tmp/page"; then
		fail "man vmtrace: no section '$c'"
		continue
	fi
	missing=$("$bin" "$c" --help | grep . | sed 's/^/       /' | grep -vxFf "$tmp/page" | head -1)
	if [ -n "$missing" ]; then
		fail "man vmtrace: section '$c' lacks its --help line '${missing#       }'"
		continue
	fi
	passed=$((passed + 1))
done

printf '#include <vmtrace_marker.h>\nint main(void) { return vmt_marker(1, "x") ? 1 : 0; }\n' >"$tmp/marker.c"
${CC:-cc} -Wall -Werror -I"$root/usr/include" -o "$tmp/marker" "$tmp/marker.c" 2>"$tmp/cc.err" ||
	fail "a program with the installed vmtrace_marker.h: $(cat "$tmp/cc.err")"

# libvmtrace through pkg-config, on a trace converted from raw records.
libdir=$root/usr/lib
[ -f "$libdir/libvmtrace.so.0" ] && [ -f "$libdir/libvmtrace.a" ] ||
	fail "no libvmtrace.so.0 or libvmtrace.a in $libdir"
readelf -d "$libdir/libvmtrace.so" 2>/dev/null | grep -q 'Library soname: \[libvmtrace.so.0\]' ||
	fail "libvmtrace.so's soname is not libvmtrace.so.0"
"$top/build/bin/vmt-synth" mixed 3000 7 >"$tmp/t.raw" &&
	"$bin" convert "$tmp/t.raw" -o "$tmp/t.vmt" >/dev/null 2>&1 || fail "cannot make a trace"
want=$(python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
t = [struct.unpack_from("<Q", d, o)[0] for o in range(0, len(d), 64)]
print(len(t), sum(t) % (1 << 64))' "$tmp/t.raw")
cat >"$tmp/reader.c" <<'EOF'
#include <inttypes.h>
#include <stdio.h>
#include <vmtrace/trace.h>
int main(int argc, char **argv)
{
	struct vmt_trace *trace;
	struct vmt_trace_error err;
	struct vmt_trace_cursor *cursor;
	const struct vmt_record *r;
	uint32_t stream;
	uint64_t n = 0, sum = 0;
	int ret;

	if (argc != 2 || vmt_trace_open(&trace, argv[1], 0, &err) ||
	    vmt_trace_cursor_create(trace, VMT_ORDER_TIME, &cursor))
		return 1;
	while ((ret = vmt_trace_cursor_next(cursor, &r, &stream)) > 0) {
		n++;
		sum += r->hdr.time_ns;
	}
	printf("%" PRIu64 " %" PRIu64 "\n", n, sum);
	vmt_trace_cursor_free(cursor);
	vmt_trace_close(trace);
	return ret < 0;
}
EOF
export PKG_CONFIG_PATH=$libdir/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
for how in shared static; do
	opt=
	[ $how = static ] && opt=--static
	if ! flags=$(pkg-config --cflags --libs $opt libvmtrace 2>&1); then
		fail "pkg-config libvmtrace: $flags"
		continue
	fi
	[ $how = static ] && flags="-static $flags"
	# shellcheck disable=SC2086
	if ! ${CC:-cc} -std=c11 -Wall -Werror -o "$tmp/reader-$how" "$tmp/reader.c" $flags \
		2>"$tmp/cc.err"; then
		fail "a $how program built with pkg-config libvmtrace: $(cat "$tmp/cc.err")"
		continue
	fi
	got=$(LD_LIBRARY_PATH=$libdir "$tmp/reader-$how" "$tmp/t.vmt" 2>&1) ||
		fail "the $how reader on a trace: $got"
	[ "$got" = "$want" ] || fail "the $how reader got '$got' (records, sum of times), python3 '$want'"
done
# ldd's whole output first: grep -q may stop reading early, and with
# pipefail ldd's SIGPIPE would fail the check now and then.
loads=$(LD_LIBRARY_PATH=$libdir ldd "$tmp/reader-shared" 2>/dev/null)
grep -qF "libvmtrace.so.0 => $libdir/libvmtrace.so.0" <<<"$loads" ||
	fail "the shared reader does not load $libdir/libvmtrace.so.0"

# Exported: exactly the functions the installed public headers declare.
printf '#include <vmtrace/%s.h>\n' trace vmtrace analysis >"$tmp/pub.c"
${CC:-cc} -I"$root/usr/include" -aux-info "$tmp/aux" -fsyntax-only "$tmp/pub.c" ||
	fail "gcc -aux-info on the installed headers"
grep -F "$root/usr/include/vmtrace/" "$tmp/aux" | grep -v ' static ' |
	grep -o '\bvmt_[a-z0-9_]* (' | tr -d ' (' | sort -u >"$tmp/public"
nm -D --defined-only "$libdir/libvmtrace.so" |
	awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$tmp/exported"
leaked=$(comm -13 "$tmp/public" "$tmp/exported" | tr '\n' ' ')
unexported=$(comm -23 "$tmp/public" "$tmp/exported" | tr '\n' ' ')
[ -z "$leaked" ] || fail "libvmtrace.so exports what no public header declares: $leaked"
[ -z "$unexported" ] || fail "libvmtrace.so does not export: $unexported"
[ -s "$tmp/public" ] || fail "no function found in the installed public headers"
# The Python package, loading the installed library by its soname (not the
# build tree's: VMTRACE_LIBRARY unset).
pydir=$root/usr/lib/python3/dist-packages
python=${PYTHON:-}
for p in python3 /usr/bin/python3; do
	[ -z "$python" ] && "$p" -c 'import numpy' 2>/dev/null && python=$p
done
if [ ! -f "$pydir/vmtrace/__init__.py" ]; then
	fail "no Python package in $pydir/vmtrace"
elif [ -z "$python" ]; then
	fail "no python3 with numpy (scripts/setup installs python3-numpy)"
else
	got=$(cd "$tmp" && env -u VMTRACE_LIBRARY PYTHONPATH="$pydir" LD_LIBRARY_PATH="$libdir" \
		PYTHONDONTWRITEBYTECODE=1 "$python" -c 'import sys, vmtrace
with vmtrace.open(sys.argv[1]) as t:
	a = t.records(order="time")
	print(vmtrace.__file__, vmtrace._lib.lib._name)
	print(len(a), int(a["time_ns"].sum(dtype="uint64")))
maps = open("/proc/self/maps").read()
print(" ".join(sorted({l.split()[-1] for l in maps.splitlines() if "libvmtrace" in l})))' \
		"$tmp/t.vmt" 2>&1)
	[ "$(sed -n 1p <<<"$got")" = "$pydir/vmtrace/__init__.py libvmtrace.so.0" ] &&
		[ "$(sed -n 2p <<<"$got")" = "$want" ] &&
		[ "$(sed -n 3p <<<"$got")" = "$(realpath "$libdir/libvmtrace.so.0")" ] ||
		fail "python3 with the installed package: '$got', want the package in $pydir, '$want' and $libdir's libvmtrace.so.0"
fi

echo "install: libvmtrace: $(wc -l <"$tmp/exported") functions exported of $(wc -l <"$tmp/public") public; programs built with pkg-config (shared, static) and the installed Python package read '$want' (records, sum of times) as python3"

echo "install: vmtrace, vmtrace(1) and vmtrace_marker.h installed; man vmtrace has $passed of ${#commands[@]} commands with their --help, $failed failures"
[ $failed -eq 0 ]
