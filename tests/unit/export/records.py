# SPDX-License-Identifier: GPL-2.0
# tests/unit/export/records.py [--exact] > F.raw: raw records of every type export
# writes something for (task, exec, comm, fork, switch, marker, dma, vma,
# pagemap, exit, lost, evict, ref; with --exact, exact: the bus view's too), variable-size
# data with quotes, commas, a backslash and a newline, on two CPUs; convert
# makes a trace of them.
import struct, sys
out = sys.stdout.buffer
def rec(t, typ, pid, tid, cpu, payload=b'', data=b''):
    payload = payload.ljust(40, b'\0')
    out.write(struct.pack('<QIIHHI', t, pid, tid, typ, cpu, len(data)) + payload)
    for off in range(0, len(data), 40):
        chunk = data[off:off + 40]
        out.write(struct.pack('<QIIHHI', t, pid, tid, 5, cpu, len(chunk)) + chunk.ljust(40, b'\0'))
def comm(s): return s.encode().ljust(16, b'\0')
rec(100, 12, 10, 10, 0, comm('make') + struct.pack('<IIQQ', 1, 0, 0, 0), b'/usr/bin/make')
rec(101, 12, 10, 11, 0, comm('make-worker') + struct.pack('<IIQQ', 1, 0, 0, 0), b'/usr/bin/make')
rec(105, 11, 10, 10, 0, struct.pack('<QQQBBBBIQ', 0x400000, 0x401000, 0x2000, 1, 0, 5, 1, 0, 0), b'/lib/libc.so.6')
rec(110, 6, 0, 0, 0, struct.pack('<IIII', 10, 10, 0, 0))
rec(130, 7, 10, 10, 0, struct.pack('<IIQ', 30, 30, 0x11))
rec(150, 8, 20, 20, 1, struct.pack('<II', 20, 0), b'/bin/my "prog",x\\y')
rec(160, 10, 20, 20, 1, comm('renamed'))
rec(170, 6, 10, 10, 0, struct.pack('<IIII', 20, 20, 1, 0))
rec(171, 6, 0, 0, 1, struct.pack('<IIII', 10, 11, 0, 1))
rec(200, 4, 20, 20, 0, struct.pack('<I', 7), b'phase "2", go\n')
rec(210, 13, 20, 20, 0, struct.pack('<QQIBBBBHHI', 0x1000, 0x2000, 4096, 0, 1, 1, 0, 0, 1, 0), b'nvme0')
rec(220, 13, 20, 20, 0, struct.pack('<QQIBBBBHHI', 0x3000, 0x4000, 8192, 2, 2, 1, 0, 0, 2, 0), b'nvme0')
rec(225, 13, 20, 20, 1, struct.pack('<QQIBBBBHHI', 0x5000, 0x6000, 512, 4, 0, 0, 0, 0, 0, 0), b'nvme0')
rec(230, 13, 20, 20, 0, struct.pack('<QQIBBBBHHI', 0x1000, 0, 4096, 1, 1, 1, 0, 0, 0, 0), b'nvme0')
rec(240, 14, 10, 10, 0, struct.pack('<QQBBHI', 0x7000, 0x99, 1, 0, 0, 3))
rec(250, 9, 30, 30, 1, struct.pack('<II', 256, 1))
rec(260, 1, 0, 0, 1, struct.pack('<Q', 3))
t = 300
acc = [1, 2, 4, 1, 2]
for i in range(300):
    pid, cpu = (10, 0) if i % 3 else (20, 1)
    addr = 0x7f0000000000 + (i * 7 % 40) * 4096 + i
    rec(t, 2, pid, pid + (i % 2 if pid == 10 else 0), cpu,
        struct.pack('<QQQIBBBBI', addr, 0x100 + i, 0x401000 + i, 4 | (2 if acc[i % 5] == 2 else 0), acc[i % 5], i % 7 == 0, i % 4, 0, 1 if i % 50 == 0 else 0))
    t += 37
    if i % 60 == 0:
        rec(t, 3, pid, pid, cpu, struct.pack('<QQQIBBBBI', addr & ~0xfff, 0x100 + i, 0, 0, 0, 0, 0, 3, 0))
# --exact: exact accesses too: a load, a string store, an RMW in the kernel, and
# the bus view's (cachesim --emit) fill, write-back and prefetch (not by default:
# old-trace.sh compares with traces of the records before them)
if '--exact' in sys.argv[1:]:
    for j, (access, flags) in enumerate(((1, 0), (2, 0x1), (3, 0x4), (1, 0x8), (2, 0x10),
                                         (1, 0x20))):
        rec(t + 1 + j, 15, 10, 10, 0, struct.pack('<QQHBBB3x', 0x600000 + 64 * j, 0x401000 + j,
                                                  8, access, access == 3, flags)
            + bytes([0xab, 0xcd, j, 0xef, 1, 2, 3, 0xfa]).ljust(16, b'\0'))
rec(t + 10, 6, 20, 20, 0, struct.pack('<IIII', 0, 0, 1, 0))
rec(t + 20, 4, 10, 10, 1, struct.pack('<I', 8), b'end')
