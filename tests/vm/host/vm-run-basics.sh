#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/vm-run on kernel $1: it runs the command on that kernel, streams its
# output, and returns its exit status.
set -uo pipefail
k=$1
vmrun=$(dirname "$0")/../../../scripts/vm-run
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$vmrun" --kernel "$k" --cpus 3 --mem 1024 --append vmt_basics=1 -- sh -c '
	uname -r; echo "to stderr" >&2; nproc; grep MemTotal /proc/meminfo
	cat /proc/cmdline; exit 3')
rc=$?
echo "$out"
[ $rc -eq 3 ] || fail "exit status $rc, not 3"
rel=$(echo "$out" | head -1)
case "$k" in
6.1) [[ "$rel" == 6.1.* ]] ;;
6.12) [[ "$rel" == 6.12.* ]] ;;
debug) [[ "$rel" == *-vmtrace-debug ]] ;;
esac || fail "kernel $k booted '$rel'"
grep -qx "to stderr" <<<"$out" || fail "stderr did not reach the output"

grep -qx 3 <<<"$out" || fail "--cpus 3 did not give 3 CPUs: $out"
mem_kb=$(echo "$out" | awk '/MemTotal/ { print $2 }')
[ "$mem_kb" -gt 800000 ] && [ "$mem_kb" -le 1048576 ] || fail "--mem 1024 gave $mem_kb kB"
grep -q " vmt_basics=1$" <<<"$out" || fail "--append did not reach the kernel's command line"

# --console: the guest's console reaches stderr, to its last line (the
# guest's dump of its kernel log, then its exit status), and stdout stays the
# command's alone.
errfile=$(mktemp)
trap 'rm -f "$errfile"' EXIT
out=$("$vmrun" --kernel "$k" --console -- echo to stdout 2>"$errfile") ||
	fail "--console: exit status $?"
err=$(cat "$errfile")
grep -q "Linux version" <<<"$err" || fail "--console: no kernel log on stderr: $(tail -5 <<<"$err")"
grep -q "vmtrace-vm-run: exit 0" <<<"$err" || fail "--console: the console's end is missing"
[ "$out" = "to stdout" ] || fail "--console: stdout is '$out'"

# Timeout: the VM is killed and vm-run says so (booted or not).
out=$("$vmrun" --kernel "$k" --timeout 5 -- sleep 1000 2>&1)
rc=$?
[ $rc -eq 124 ] || fail "timeout exit status $rc, not 124"
grep -q "timed out after 5s" <<<"$out" || fail "no timeout message: $out"

# Bad arguments: a clear error, exit 126, no VM.
out=$("$vmrun" --kernel 5.10 -- true 2>&1)
[ $? -eq 126 ] && grep -q "unknown kernel '5.10'" <<<"$out" || fail "bad --kernel: $out"
out=$("$vmrun" --kernel "$k" --share /nonexistent -- true 2>&1)
[ $? -eq 126 ] && grep -q "not a folder" <<<"$out" || fail "bad --share: $out"
out=$(timeout 60 "$vmrun" --append 2>&1)
[ $? -eq 126 ] && grep -q "usage\|--append ARGS" <<<"$out" || fail "--append without a value: $out"
echo "vm-run-basics: ok"
