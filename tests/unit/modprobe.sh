#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/modprobe.sh VMTRACE: without /dev/vmtrace, `vmtrace record`,
# `record-raw` and `start` run `modprobe vmtrace` themselves and say what
# failed when it does. A fake modprobe first on PATH (a script) logs its
# arguments and fails, or succeeds without making the device, or is absent;
# each time the command must call it as `modprobe vmtrace` (or say it could
# not), exit 1 (no crash), say which way it failed, pass modprobe's own
# message through and write no trace. Skipped where /dev/vmtrace exists
# (a machine with the module loaded: nothing to load).
set -uo pipefail
vmtrace=$(realpath "$1")
if [ -e /dev/vmtrace ]; then
	echo "modprobe: SKIP: /dev/vmtrace exists here"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "modprobe: FAIL: $*"; failed=$((failed + 1)); }

mkdir -p "$tmp/fails" "$tmp/quiet" "$tmp/none"
cat >"$tmp/fails/modprobe" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/called"
echo "modprobe: FATAL: Module vmtrace not found in directory /lib/modules/test" >&2
exit 1
EOF
cat >"$tmp/quiet/modprobe" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/called"
exit 0
EOF
chmod +x "$tmp/fails/modprobe" "$tmp/quiet/modprobe"
# Only the fake directory and what the shell scripts need: no real modprobe.
ln -s "$(command -v sh)" "$tmp/none/sh"

# check NAME DIR WANT COMMAND...: run COMMAND with PATH=DIR; WANT is a
# fixed string its stderr must hold.
check() {
	local name=$1 dir=$2 want=$3 status
	shift 3
	rm -f "$tmp/called" "$tmp/out.vmt"
	(cd "$tmp" && PATH=$dir VMTRACE_RUNDIR=$tmp/run "$@" >"$tmp/stdout" 2>"$tmp/stderr")
	status=$?
	if [ $status -ne 1 ]; then
		fail "$name: exit status $status, not 1: $(cat "$tmp/stderr")"
		return
	fi
	if [ "$dir" != "$tmp/none" ] && [ "$(cat "$tmp/called" 2>/dev/null)" != vmtrace ]; then
		fail "$name: modprobe called with '$(cat "$tmp/called" 2>/dev/null)', not 'vmtrace'"
		return
	fi
	if ! grep -qF "$want" "$tmp/stderr"; then
		fail "$name: no '$want' in: $(cat "$tmp/stderr")"
		return
	fi
	if [ -e "$tmp/out.vmt" ]; then
		fail "$name: wrote a trace"
		return
	fi
	passed=$((passed + 1))
}

for cmd in record record-raw start; do
	check "$cmd, modprobe fails" "$tmp/fails" \
		"/dev/vmtrace is missing and 'modprobe vmtrace' failed (exit status 1)" \
		"$vmtrace" "$cmd" -o out.vmt -- true
	grep -qF "Module vmtrace not found in directory /lib/modules/test" "$tmp/stderr" ||
		fail "$cmd: modprobe's own message is not passed through"
	check "$cmd, modprobe makes no device" "$tmp/quiet" \
		"'modprobe vmtrace' succeeded but /dev/vmtrace did not appear" \
		"$vmtrace" "$cmd" -o out.vmt -- true
	check "$cmd, no modprobe" "$tmp/none" \
		"'modprobe vmtrace' cannot run: No such file or directory (no modprobe on PATH" \
		"$vmtrace" "$cmd" -o out.vmt -- true
done

echo "modprobe: $passed of 9 cases say what failed when the module cannot be loaded, $failed failures"
[ $failed -eq 0 ]
