# SPDX-License-Identifier: GPL-2.0
# tests/unit/rewrite/records.py SEED COUNT > F.raw: raw records of every
# type, every payload byte random (so every flag of every field is set in some
# records, and any field a command drops or zeroes shows), in time order on
# four CPUs; the types that carry variable-size data (marker, exec, vma, task,
# dma, exact) carry 1 to 600 random bytes in a third of their records, in
# DATA records after them (a record with data gives its payload's last 8
# bytes to the data's offset in a trace file, so those are zero here). Three
# references in four are to four pages again and again: reduce drops some.
import random, struct, sys

seed, count = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)
out = sys.stdout.buffer
DATA_TYPES = {4, 8, 11, 12, 13, 15}
TYPES = [1, 2, 2, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15]
t = 1000
for i in range(count):
    typ = rnd.choice(TYPES)
    t += rnd.randint(1, 5000)
    pid = rnd.choice([10, 11, 12])
    tid = pid + rnd.randint(0, 2)
    cpu = rnd.randint(0, 3)
    payload = bytearray(rnd.getrandbits(8) for _ in range(40))
    if typ == 2 and i % 4:
        # A page seen before: its address, with its own offset and flags.
        struct.pack_into('<Q', payload, 0, 0x7f0000000000 + rnd.randint(0, 3) * 4096 + rnd.randint(0, 4095))
    data = b''
    if typ in DATA_TYPES and rnd.random() < 0.33:
        data = bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 600)))
        payload[32:40] = bytes(8)
    out.write(struct.pack('<QIIHHI', t, pid, tid, typ, cpu, len(data)) + bytes(payload))
    for off in range(0, len(data), 40):
        chunk = data[off:off + 40]
        out.write(struct.pack('<QIIHHI', t, pid, tid, 5, cpu, len(chunk)) + chunk.ljust(40, b'\0'))
