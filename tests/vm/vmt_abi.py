# SPDX-License-Identifier: GPL-2.0
"""The ioctls of /dev/vmtrace for the guest tests written in Python, from
include/uapi/linux/vmtrace.h: their numbers, the layouts of their structs
(struct module formats) and the flags the tests use. A test imports it with
sys.path.insert(0, "/opt/vmtrace/tests/vm")."""
import errno
import fcntl
import struct


def ioc(direction, nr, size):
    """_IOC(direction, 0xB7, nr, size): 0 none, 1 write, 2 read."""
    return (direction << 30) | (size << 16) | (0xB7 << 8) | nr


CONFIG_FMT = "<IIIIQIIII4Q"      # struct vmt_config
STATUS_FMT = "<II11Q4Q"          # struct vmt_status
GEOMETRY_FMT = "<IIIIQ4Q"        # struct vmt_geometry
assert struct.calcsize(CONFIG_FMT) == 72 and struct.calcsize(GEOMETRY_FMT) == 56
CONFIGURE = ioc(1, 0x01, struct.calcsize(CONFIG_FMT))
START, STOP = ioc(0, 0x02, 0), ioc(0, 0x03, 0)
STATUS = ioc(2, 0x04, struct.calcsize(STATUS_FMT))
GEOMETRY = ioc(2, 0x05, struct.calcsize(GEOMETRY_FMT))
SYSTEM_WIDE, OVERWRITE, PROTECT = 0x1, 0x2, 0x4


def fails(err, fd, cmd, arg=None):
    """ioctl(fd, cmd, arg) must fail with errno err."""
    try:
        fcntl.ioctl(fd, cmd, arg) if arg is not None else fcntl.ioctl(fd, cmd)
    except OSError as e:
        assert e.errno == err, f"{cmd:#x}: {errno.errorcode[e.errno]}, not {errno.errorcode[err]}"
        return
    raise AssertionError(f"{cmd:#x} succeeded, expected {errno.errorcode[err]}")


def status(fd):
    """struct vmt_status of fd's session, as a tuple (state first)."""
    return struct.unpack(STATUS_FMT, fcntl.ioctl(fd, STATUS, bytes(struct.calcsize(STATUS_FMT))))


def geometry(fd):
    """struct vmt_geometry of fd's session, as a tuple (nr_rings, ring_records, ...)."""
    return struct.unpack(GEOMETRY_FMT, fcntl.ioctl(fd, GEOMETRY, bytes(56)))
