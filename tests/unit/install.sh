#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/install.sh: `make install DESTDIR=TMP PREFIX=/usr` puts
# - vmtrace into TMP/usr/bin, and it runs;
# - vmtrace(1) into TMP/usr/share/man/man1, where `man vmtrace` finds it
#   (MANPATH=TMP/usr/share/man) and renders, for every command the installed
#   `vmtrace help` lists, a section of that name holding each line of the
#   command's --help;
# - vmtrace_marker.h and the <linux/vmtrace.h> it includes into
#   TMP/usr/include, where a program that calls vmt_marker() compiles.
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

echo "install: vmtrace, vmtrace(1) and vmtrace_marker.h installed; man vmtrace has $passed of ${#commands[@]} commands with their --help, $failed failures"
[ $failed -eq 0 ]
