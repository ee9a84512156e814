#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""exact-din.py N OUT: a din trace (Dinero IV's) of N exact accesses for the
unit tests: three loops over arrays (8-byte steps over 64 KiB, line steps
over 256 KiB, a descending walk) and a random walk over 1 MiB, taken in
turn, 30% of them writes; the same bytes every run."""
import random
import sys

n, out = int(sys.argv[1]), sys.argv[2]
r = random.Random(5)
with open(out, 'w') as f:
    for i in range(n):
        a = [0x100000 + (i * 8) % 65536, 0x200000 + (i * 64) % 262144,
             0x300000 + r.randrange(1 << 20), 0x7ff000 - (i % 512) * 8][i % 4]
        f.write('%d %x 8\n' % (r.random() < 0.3, a))
