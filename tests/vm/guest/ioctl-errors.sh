#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every bad ioctl argument gets EINVAL (or ENOTTY, EFAULT, EBUSY) and changes
# nothing; the session's order (configure, start, stop) is enforced.
. /opt/vmtrace/tests/vm/lib.sh
insmod "$VMT_LIB/vmtrace.ko"
python3 - <<'PY'
import ctypes, errno, fcntl, os, struct, sys
sys.path.insert(0, "/opt/vmtrace/tests/vm")
from vmt_abi import (ioc, CONFIG_FMT, STATUS_FMT, GEOMETRY_FMT, CONFIGURE, START, STOP, STATUS,
                     GEOMETRY, PROTECT, fails)

fd = os.open("/dev/vmtrace", os.O_RDWR)
pids = (ctypes.c_uint32 * 2)(os.getpid(), 1)
pids_ptr = ctypes.addressof(pids)

def expect(err, cmd, arg=None):
    fails(err, fd, cmd, arg)

def config(ring=0, flags=0, n=1, ptr=pids_ptr, r0=0, enabled=0, policy=0, reprotect=0, r1=0,  # r1: events
           reserved=(0,) * 4):
    return struct.pack(CONFIG_FMT, ring, flags, n, r0, ptr, enabled, policy, reprotect, r1,
                       *reserved)

def status():
    return struct.unpack(STATUS_FMT, fcntl.ioctl(fd, STATUS, bytes(struct.calcsize(STATUS_FMT))))

# Before any configure: no rings, cannot start or stop.
expect(errno.ENODEV, GEOMETRY, bytes(56))
expect(errno.EINVAL, START)
expect(errno.EINVAL, STOP)
try:
    os.close(os.open("/dev/vmtrace", os.O_RDWR)) or None
    import mmap
    mmap.mmap(fd, 4096)
    raise AssertionError("mmap before configure succeeded")
except OSError as e:
    assert e.errno == errno.ENODEV, e

for bad in [config(ring=3), config(ring=32), config(ring=1 << 25), config(flags=0x80),
            config(n=0), config(n=65), config(flags=1, n=1), config(r0=1),
            config(reserved=(0, 0, 0, 1)),
            # events: known bits only; page mappings only with protection
            config(r1=0x80), config(r1=1 << 31), config(r1=0x40),
            # enabled-set settings: only with protection, and in range
            config(enabled=512), config(policy=1), config(reprotect=10),
            config(flags=PROTECT, enabled=65537), config(flags=PROTECT, policy=2),
            config(flags=PROTECT, reprotect=3600001),
            # system-wide follows every process already: no --follow
            config(flags=0x8 | 1, n=0), config(flags=PROTECT | 0x8 | 1, n=0)]:
    expect(errno.EINVAL, CONFIGURE, bad)
expect(errno.EFAULT, CONFIGURE, config(ptr=8))
expect(errno.ENOTTY, ioc(1, 0x7f, 8), bytes(8))
expect(errno.ENOTTY, ioc(1, 0x01, 64), bytes(64))   # wrong size for CONFIGURE
expect(errno.ENODEV, GEOMETRY, bytes(56))            # nothing changed

fcntl.ioctl(fd, CONFIGURE, config(ring=1024, n=2))
g = struct.unpack(GEOMETRY_FMT, fcntl.ioctl(fd, GEOMETRY, bytes(56)))
assert g[0] == os.cpu_count() and g[1] == 1024 and g[2] == 4096 and g[4] == 4096 + 1024 * 64, g

import mmap
# Records are read-only; control page and records must be mapped whole.
try:
    mmap.mmap(fd, g[4] - 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE, offset=4096)
    raise AssertionError("writable records")
except OSError as e:
    assert e.errno == errno.EPERM, e
for length, offset in [(8192, 0), (4096, 8192), (4096, g[4] * g[0])]:
    try:
        mmap.mmap(fd, length, offset=offset)
        raise AssertionError(f"mapped {length} at {offset}")
    except OSError as e:
        assert e.errno == errno.EINVAL, (length, offset, e)
meta = mmap.mmap(fd, 4096, offset=0)
assert struct.unpack_from("<IIII", meta) == (128, 1, 64, 1024), struct.unpack_from("<IIII", meta)

fcntl.ioctl(fd, START)
expect(errno.EBUSY, START)
expect(errno.EBUSY, CONFIGURE, config(ring=1024))
assert status()[0] == 1
fcntl.ioctl(fd, STOP)
expect(errno.EINVAL, STOP)
assert status()[0] == 0
expect(errno.EBUSY, CONFIGURE, config(ring=2048))   # another size while mapped
fcntl.ioctl(fd, CONFIGURE, config(ring=1024, flags=1, n=0))  # same size: fine
meta.close()
fcntl.ioctl(fd, CONFIGURE, config(ring=2048))
# The limits themselves are fine.
fcntl.ioctl(fd, CONFIGURE, config(ring=2048, flags=PROTECT, enabled=65536, policy=1,
                                  reprotect=3600000))
fcntl.ioctl(fd, CONFIGURE, config(ring=2048, flags=PROTECT, enabled=0))
fcntl.ioctl(fd, CONFIGURE, config(ring=2048, flags=PROTECT | 1, n=0))  # system-wide
print("ioctl-errors: ok")
PY
rmmod vmtrace
