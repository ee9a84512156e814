#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Load and unload the module; check the device, sysfs, the version ioctl, the
# permission checks and the kernel log.
. /opt/vmtrace/tests/vm/lib.sh

dmesg -C
insmod "$VMT_LIB/vmtrace.ko"
expect_log "vmtrace: loaded, ABI 1"

[ -c /dev/vmtrace ] || fail "/dev/vmtrace is not a character device"
expect_eq "$(stat -c %a /dev/vmtrace)" 600 "/dev/vmtrace mode"
expect_eq "$(cat /sys/kernel/vmtrace/abi_version)" 1 "sysfs abi_version"

out=$(vmtrace version)
echo "$out"
grep -qx "module: ABI 1, record 64 bytes, control page 128 bytes, $(nproc --all) CPUs" <<<"$out" ||
	fail "vmtrace version printed the wrong geometry"

# Unknown ioctl: ENOTTY.
python3 - <<'PY'
import errno, fcntl, os
fd = os.open("/dev/vmtrace", os.O_RDWR)
try:
    fcntl.ioctl(fd, 0xB7FF)
except OSError as e:
    assert e.errno == errno.ENOTTY, e
else:
    raise SystemExit("unknown ioctl succeeded")
PY

# Non-root: the node's mode stops it first (EACCES); opened up, the capability
# check still does (EPERM).
out=$(nobody vmtrace version 2>&1) && fail "nobody ran vmtrace version: $out"
grep -q "Permission denied" <<<"$out" || fail "nobody: $out"
chmod 666 /dev/vmtrace
out=$(nobody vmtrace version 2>&1) && fail "nobody passed the CAP_SYS_ADMIN check: $out"
grep -q "Operation not permitted" <<<"$out" || fail "nobody, node opened up: $out"

rmmod vmtrace
expect_log "vmtrace: unloaded"
[ ! -e /dev/vmtrace ] || fail "/dev/vmtrace left behind"
[ ! -e /sys/kernel/vmtrace ] || fail "/sys/kernel/vmtrace left behind"
echo "module-load: ok"
