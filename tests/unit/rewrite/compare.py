# SPDX-License-Identifier: GPL-2.0
# tests/unit/rewrite/compare.py SOURCE.raw REWRITTEN.raw [--subset | --some]:
# compares two files of raw records (export --format raw's, or the ring's),
# field by field: every byte of each record's header and payload, and its
# variable-size data (put back together from its DATA records). Without an
# option the records must be the same, in the same order; --subset: each
# rewritten record is one of the source's, in the source's order (reduce drops
# references, and keeps everything else: every record that is not a reference
# must be there too); --some: each rewritten record is one of the source's, in
# the source's order, and any may be missing (verify --repair keeps each
# stream's complete frames). Prints what differs and exits 1, or prints how
# many records matched.
import struct, sys

NAMES = {1: 'lost', 2: 'ref', 3: 'evict', 4: 'marker', 6: 'switch', 7: 'fork', 8: 'exec',
         9: 'exit', 10: 'comm', 11: 'vma', 12: 'task', 13: 'dma', 14: 'pagemap', 15: 'exact'}


def records(path):
    """(header fields, payload, data) of each record, its DATA records joined."""
    b = open(path, 'rb').read()
    if len(b) % 64:
        sys.exit(f'{path}: {len(b)} bytes, not a whole number of 64-byte records')
    out = []
    for off in range(0, len(b), 64):
        t, pid, tid, typ, cpu, dlen = struct.unpack_from('<QIIHHI', b, off)
        payload = b[off + 24:off + 64]
        if typ == 5:
            if not out:
                sys.exit(f'{path}: a DATA record with no record before it')
            out[-1][2] += payload[:dlen]
            continue
        out.append([(t, pid, tid, typ, cpu, dlen), payload, b''])
    for r in out:
        if r[0][5]:
            # The data's offset is where the file keeps it: not a field.
            r[1] = r[1][:32]
            if len(r[2]) != r[0][5]:
                sys.exit(f'{path}: a record of {r[0][5]} bytes of data has {len(r[2])}')
    return [(h, p, d) for h, p, d in out]


def show(r):
    (t, pid, tid, typ, cpu, dlen), payload, data = r
    return (f'{NAMES.get(typ, typ)} t={t} pid={pid} tid={tid} cpu={cpu} data_len={dlen} '
            f'payload={payload.hex()} data={data[:16].hex()}{"..." if len(data) > 16 else ""}')


def main():
    src, new = records(sys.argv[1]), records(sys.argv[2])
    subset, some = '--subset' in sys.argv, '--some' in sys.argv
    if not subset and not some and len(src) != len(new):
        print(f'FAIL: {len(new)} records, the source has {len(src)}')
    j = 0
    for i, r in enumerate(new):
        if subset or some:
            while j < len(src) and src[j] != r:
                if subset and src[j][0][3] != 2:
                    print(f'FAIL: the source\'s record {j} is not in the rewritten trace:\n  {show(src[j])}')
                    return 1
                j += 1
            if j == len(src):
                print(f'FAIL: record {i} is not one of the source\'s, in order:\n  {show(r)}')
                return 1
            j += 1
        elif i >= len(src) or src[i] != r:
            print(f'FAIL: record {i} differs:\n  source:    {show(src[i]) if i < len(src) else "(none)"}\n  rewritten: {show(r)}')
            return 1
    if subset:
        rest = [s for s in src[j:] if s[0][3] != 2]
        if rest:
            print(f'FAIL: {len(rest)} records after the last kept one are missing:\n  {show(rest[0])}')
            return 1
    elif not some and len(src) != len(new):
        return 1
    types = sorted({NAMES.get(r[0][3], str(r[0][3])) for r in new})
    print(f'{len(new)} records the same field by field ({", ".join(types)})')
    return 0


sys.exit(main())
