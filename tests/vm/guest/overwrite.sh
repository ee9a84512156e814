#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Flight-recorder rings (VMT_CONFIG_OVERWRITE): a 64-record ring that no one
# reads while a process takes 1000 demand faults drops nothing, and holds
# the newest 64 records, in order, the last page touched among them and the
# first long overwritten.
. /opt/vmtrace/tests/vm/lib.sh
insmod "$VMT_LIB/vmtrace.ko"
python3 - <<'PY'
import fcntl, mmap, os, struct, ctypes, sys
sys.path.insert(0, "/opt/vmtrace/tests/vm")
from vmt_abi import CONFIG_FMT, GEOMETRY_FMT, CONFIGURE, START, STOP, GEOMETRY, OVERWRITE

RECORD_FMT = "<QIIHHI5Q"         # struct vmt_record: header, then the reference's first words
REFERENCE = 2

os.sched_setaffinity(0, {0})
fd = os.open("/dev/vmtrace", os.O_RDWR)
pids = (ctypes.c_uint32 * 1)(os.getpid())
fcntl.ioctl(fd, CONFIGURE, struct.pack(CONFIG_FMT, 64, OVERWRITE, 1, 0, ctypes.addressof(pids),
                                       0, 0, 0, 0, 0, 0, 0, 0))
g = struct.unpack(GEOMETRY_FMT, fcntl.ioctl(fd, GEOMETRY, bytes(56)))
nr, stride = g[1], g[4]
buf = mmap.mmap(-1, 1000 * 4096)
fcntl.ioctl(fd, START)
for i in range(1000):
    buf[i * 4096] = 1
fcntl.ioctl(fd, STOP)
base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
meta = mmap.mmap(fd, 4096, offset=0)
records = mmap.mmap(fd, stride - 4096, prot=mmap.PROT_READ, offset=4096)
flags = struct.unpack_from("<I", meta, 20)[0]
head, tail, lost, written = struct.unpack_from("<4Q", meta, 32)
assert flags == 1, flags   # VMT_RING_OVERWRITE
assert lost == 0 and head == written and head >= 1000, (head, lost, written)
recs = [struct.unpack_from(RECORD_FMT, records, (n % nr) * 64) for n in range(head - nr, head)]
assert all(r[3] == REFERENCE for r in recs), "a record that is not a reference"
times = [r[0] for r in recs]
assert times == sorted(times), "the newest records are not in order"
addrs = {r[6] & ~4095 for r in recs}
assert base + 999 * 4096 in addrs, "the last page touched is not among the newest records"
assert base not in addrs, "the first page touched was not overwritten"
print(f"overwrite: {head} records through a {nr}-record ring, 0 lost, the newest {nr} in order")
PY
