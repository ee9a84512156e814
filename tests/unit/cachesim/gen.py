#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/unit/cachesim/gen.py: access streams and cache configurations for
`vmtrace cachesim` and its model (model.py), as raw records (64 bytes each:
the 24-byte header <QIIHHI time, pid, tid, type, cpu, data_len and a 40-byte
payload), which `vmtrace convert F.raw -o F.vmt` reads.

    gen.py case SEED DIR     a random stream DIR/trace.raw and a random
                             configuration for it (DIR/h.conf when it needs
                             one); prints cachesim's arguments, one line
    gen.py list FILE         the records of stdin's lines, one access a line:
                               R|W|RW|X ADDR [SIZE] [pid=P] [tid=T] [cpu=C] [kernel]
                               ref R|W|X ADDR [huge] [pid=P] [tid=T] [cpu=C]
                               marker
                             (SIZE 1 by default; an exact access across a page
                             end is written as its two split records)

Streams are small caches' food: addresses in few lines (a pool of slots,
some at page ends), reads, writes, read-modify-writes and fetches of 0 to 16
bytes (straddling lines, split across pages), two or three processes with a
few threads on four CPUs, references with the huge flag, markers, and records
the simulator passes over (evictions, switches). Time strictly increases.
"""
import os
import random
import struct
import sys

EXACT, REFERENCE, EVICT, MARKER, SWITCH = 15, 2, 3, 4, 6
ACCESS = {'R': 1, 'W': 2, 'RW': 3, 'X': 4}
SPLIT, STRING, STACK = 0x2, 0x1, 0x4


class Writer:
    def __init__(self):
        self.out = bytearray()
        self.t = 1000

    def rec(self, typ, pid, tid, cpu, payload):
        self.t += 7
        assert len(payload) == 40
        self.out += struct.pack('<QIIHHI', self.t, pid, tid, typ, cpu, 0) + payload

    def exact(self, kind, addr, size, pid, tid, cpu, kernel=0, flags=0):
        """One access; across a page end, its two parts (first, then the rest)."""
        first = 4096 - addr % 4096
        ip = addr if kind == 'X' else 0x401000 + (addr * 7) % 0x800
        if kernel:
            ip = 0
        parts = [(addr, size, flags)]
        if size > first:
            parts = [(addr, first, flags | SPLIT), (addr + first, size - first, flags | SPLIT)]
        for a, s, fl in parts:
            value = bytes((a + j) & 0xff for j in range(min(s, 16))).ljust(16, b'\0')
            self.rec(EXACT, pid, tid, cpu, struct.pack('<QQHBBB3s16s', a, ip, s, ACCESS[kind],
                                                       kernel, fl, b'', value))

    def ref(self, kind, addr, pid, tid, cpu, huge=False):
        self.rec(REFERENCE, pid, tid, cpu, struct.pack('<QQQIBBBBII', addr, 0x1234 + addr // 4096,
                                                       0x401000, 4 if kind == 'W' else 0,
                                                       ACCESS[kind], 0, 0, 0, int(huge), 0))

    def marker(self, pid, tid, cpu, ident):
        self.rec(MARKER, pid, tid, cpu, struct.pack('<II24sQ', ident, 0, b'', 0))

    def evict(self, addr, pid, tid, cpu):
        self.rec(EVICT, pid, tid, cpu, struct.pack('<QQQIBBBBII', addr & ~4095, 0x99, 0, 0, 0,
                                                   0, 0, 3, 0, 0))

    def switch(self, pid, tid, cpu, npid, ntid):
        self.rec(SWITCH, pid, tid, cpu, struct.pack('<IIII24s', npid, ntid, 0, 1, b''))

    def save(self, path):
        with open(path, 'wb') as f:
            f.write(self.out)


def from_list(path):
    w = Writer()
    for line in sys.stdin:
        words = line.split('#', 1)[0].split()
        if not words:
            continue
        kv = {k: int(v, 0) for k, _, v in (x.partition('=') for x in words if '=' in x)}
        pid, tid, cpu = kv.get('pid', 7), kv.get('tid', kv.get('pid', 7)), kv.get('cpu', 0)
        plain = [x for x in words if '=' not in x]
        if plain[0] == 'marker':
            w.marker(pid, tid, cpu, 1)
        elif plain[0] == 'ref':
            w.ref(plain[1], int(plain[2], 0), pid, tid, cpu, 'huge' in plain)
        else:
            size = int(plain[2], 0) if len(plain) > 2 and plain[2] != 'kernel' else 1
            w.exact(plain[0], int(plain[1], 0), size, pid, tid, cpu, int('kernel' in plain))
    w.save(path)


# ---- random streams ----

DATA_BASE = 0x10000
CODE_BASE = 0x400000
HUGE_BASE = 0x40000000


class Stream:
    """The knobs of one random stream."""

    def __init__(self, rnd):
        self.n = rnd.choice([300, 600, 1000, 1500])
        self.fetch = rnd.random() < 0.5
        self.refs = rnd.random() < 0.3       # some references among exact records
        self.refs_only = False
        self.huge = rnd.random() < 0.5
        self.markers = rnd.random() < 0.3
        self.pids = rnd.choice([[100], [100], [100, 200], [100, 200, 300]])
        self.threads = rnd.choice([1, 1, 2, 3])
        self.cpus = rnd.choice([1, 2, 4])
        self.slots = rnd.randint(6, 40)      # distinct places the data accesses go to
        self.pages = rnd.randint(1, 4)
        self.write_share = rnd.choice([0.1, 0.3, 0.5])


def make_stream(rnd, st, path):
    w = Writer()
    # Data slots: line-ish places in a few pages, some at a page end (split
    # accesses); code slots in two pages; huge-page slots in two 2 MiB pages.
    dslots = []
    for _ in range(st.slots):
        page = rnd.randrange(st.pages)
        if rnd.random() < 0.15:
            off = 4096 - rnd.randint(1, 15)
        else:
            off = rnd.randrange(0, 512, 8)
        dslots.append(DATA_BASE + page * 4096 + off)
    cslots = [CODE_BASE + rnd.randrange(2) * 4096 + (4096 - rnd.randint(1, 12) if rnd.random() <
                                                       0.1 else rnd.randrange(0, 256))
              for _ in range(rnd.randint(4, 16))]
    hslots = [HUGE_BASE + rnd.randrange(2) * (2 << 20) + rnd.randrange(6) * 4096 +
              rnd.randrange(0, 256, 16) for _ in range(8)]
    threads = [(p, p + k) for p in st.pids for k in range(st.threads)]
    where = {t: rnd.randrange(st.cpus) for t in threads}
    hot = rnd.sample(dslots, min(4, len(dslots)))
    seen = []
    recent = []
    for i in range(st.n):
        if rnd.random() < 0.1:
            th = rnd.choice(threads)
            if rnd.random() < 0.3:   # a thread moves to another CPU
                where[th] = rnd.randrange(st.cpus)
        else:
            th = threads[i % len(threads)] if rnd.random() < 0.3 else rnd.choice(threads)
        pid, tid = th
        cpu = where[th]
        if th not in seen:
            seen.append(th)
        r = rnd.random()
        if st.markers and r < 0.02 and seen:
            mp, mt = rnd.choice(seen)
            w.marker(mp, mt, where[(mp, mt)], i)
            continue
        if r < 0.04:
            if rnd.random() < 0.5:
                w.evict(rnd.choice(dslots), pid, tid, cpu)
            else:
                o = rnd.choice(threads)
                w.switch(pid, tid, cpu, o[0], o[1])
            continue
        if st.refs_only or (st.refs and rnd.random() < 0.3):
            kind = rnd.choice(['R', 'R', 'W', 'X'] if st.fetch else ['R', 'R', 'W'])
            if st.huge and rnd.random() < 0.4:
                w.ref(kind, rnd.choice(hslots) + rnd.randrange(16), pid, tid, cpu, True)
            elif kind == 'X':
                w.ref(kind, rnd.choice(cslots), pid, tid, cpu)
            else:
                w.ref(kind, rnd.choice(dslots) + rnd.randrange(8), pid, tid, cpu)
            continue
        if st.fetch and rnd.random() < 0.25:
            w.exact('X', rnd.choice(cslots), rnd.randint(1, 15), pid, tid, cpu)
            continue
        x = rnd.random()
        kind = 'W' if x < st.write_share else ('RW' if x < st.write_share + 0.1 else 'R')
        x = rnd.random()
        if x < 0.35 and recent:
            base = rnd.choice(recent[-6:])      # temporal locality: hits
        elif x < 0.6:
            base = rnd.choice(hot)
        else:
            base = rnd.choice(dslots)
        recent.append(base)
        addr = base + rnd.choice([0, 0, 0, rnd.randrange(16)])
        size = rnd.choice([1, 2, 4, 8, 8, 8, 16, rnd.randint(1, 16)])
        kernel = 0
        if rnd.random() < 0.02:
            size, kernel = 0, 1                 # the kernel's access: size 0, one byte
        elif rnd.random() < 0.01:
            size = 0                            # an instruction not decoded
        w.exact(kind, addr, size, pid, tid, cpu, kernel,
                rnd.choice([0, 0, 0, STRING, STACK]))
    w.save(path)


# ---- random configurations ----

POLICIES = ['lru', 'fifo', 'random', 'plru', 'srrip']


def pow2(n):
    return n & (n - 1) == 0


def geometry(rnd, line, small=True):
    """(size, assoc text, ways) for a small cache of @line-byte lines."""
    sets = rnd.choice([1, 2, 2, 3, 4, 4, 5, 6, 8] if small else [4, 8, 12, 16])
    ways = rnd.choice([1, 2, 2, 3, 4, 4, 8])
    if rnd.random() < 0.1:
        return line * ways, 'full', ways
    return sets * ways * line, str(ways), ways


def policy_for(rnd, ways):
    p = rnd.choice(POLICIES)
    while p == 'plru' and not pow2(ways):
        p = rnd.choice(POLICIES)
    return p


def size_text(n):
    if n % (1 << 20) == 0:
        return '%dM' % (n >> 20)
    if n % 1024 == 0:
        return '%dk' % (n >> 10)
    return str(n)


def random_hierarchy(rnd, name, nlevels, cores, tlbs, questions, l1=None):
    """The lines of a config file's hierarchy, and its level 1 (line size,
    settings, the instruction half's, or None unified) for another to have the
    same: @l1, one such, makes this one's level 1 the same as that one's."""
    out = ['hierarchy %s' % name]
    line = rnd.choice([8, 16, 16, 32, 32, 64, 64])   # 8: a 16-byte access in three lines
    same_line = rnd.random() < 0.7 or not questions
    split = rnd.random() < 0.3
    if l1 is not None:
        line = l1[0]
    prev_size = 0
    mine = None
    for lvl in range(1, nlevels + 1):
        if lvl > 1 and not same_line:
            line = rnd.choice([16, 32, 64])
        size, assoc, ways = geometry(rnd, line)
        if lvl > 1:
            # Outer levels are larger, most of the time.
            for _ in range(4):
                if size >= 2 * prev_size or rnd.random() < 0.1:
                    break
                size, assoc, ways = geometry(rnd, line, small=False)
        prev_size = size
        settings = ['size %s' % size_text(size), 'assoc %s' % assoc, 'line %d' % line,
                    'policy %s' % policy_for(rnd, ways)]
        if lvl > 1:
            r = rnd.random()
            if r < 0.25:
                settings.append('inclusion inclusive')
            elif r < 0.4 and lvl == 2 and same_line:
                settings.append('inclusion exclusive')
        if lvl == 1 or questions:
            if rnd.random() < 0.25:
                settings.append('write through')
            else:
                settings.append('write back')
        if rnd.random() < 0.2 and 'inclusion exclusive' not in settings and (
                questions or 'write through' not in settings):
            settings.append('prefetch next-line')     # not with write-through: Q11
        if cores > 1 and lvl == 2:
            settings.append('sharing %s' % rnd.choice(['private', 'shared']))
        if lvl == 1:
            # The instruction half of an I/D pair: the data half's settings, or
            # a geometry and policy of its own.
            ins = list(settings) if split else None
            if split and rnd.random() < 0.5:
                isize, iassoc, iways = geometry(rnd, line)
                ins[:4] = ['size %s' % size_text(isize), 'assoc %s' % iassoc,
                           'line %d' % line, 'policy %s' % policy_for(rnd, iways)]
            if l1 is not None:
                settings, ins = list(l1[1]), l1[2] and list(l1[2])
            mine = (line, settings, ins)
        if lvl == 1 and mine[2] is not None:
            out += ['cache %sI' % name[:4], '  kind instruction'] + ['  ' + s for s in mine[2]]
            out += ['cache %sD' % name[:4], '  kind data'] + ['  ' + s for s in settings]
        else:
            out += ['cache %s%d' % (name[:4], lvl)] + ['  ' + s for s in settings]
    for t in range(1, tlbs + 1):
        ways = rnd.choice([1, 2, 3, 4])
        entries = ways * rnd.choice([1, 2, 3, 4]) * t
        if rnd.random() < 0.15:
            assoc, ways = 'full', entries
        else:
            assoc = str(ways)
        out += ['tlb %sT%d' % (name[:4], t), '  entries %d' % entries,
                '  assoc %s' % assoc, '  policy %s' % policy_for(rnd, ways)]
    return out, mine


def case(seed, d):
    rnd = random.Random(seed)
    st = Stream(rnd)
    questions = os.environ.get('CACHESIM_QUESTIONS') == '1'
    family = seed % 6
    args = []
    cores = 1
    if family == 0:
        # --cache specs (and --tlb): one to three levels, one core.
        line = rnd.choice([16, 32, 64])
        for lvl in range(1, rnd.randint(1, 3) + 1):
            size, assoc, ways = geometry(rnd, line, small=lvl == 1)
            args += ['--cache', 'C%d=%s:%s:%d:%s' % (lvl, size_text(size), assoc, line,
                                                     policy_for(rnd, ways))]
        for t in range(rnd.randint(0, 2)):
            ways = rnd.choice([1, 2, 4])
            args += ['--tlb', 'T%d=%d:%d' % (t + 1, ways * rnd.choice([1, 2, 3]) * (t + 1), ways)]
            if rnd.random() < 0.5:
                args[-1] += ':' + policy_for(rnd, ways)
    elif family in (1, 2, 3, 4):
        # A config file of two or three hierarchies: every setting.
        cores = {1: rnd.choice([1, 2]), 2: rnd.choice([2, 4]), 3: 1, 4: rnd.choice([1, 2, 4])}[family]
        conf = []
        # Half the time, the later hierarchies have the first one's level 1:
        # the engine simulates such a cache once (one core, no inclusive or
        # exclusive level), the others follow it.
        same_l1 = rnd.random() < 0.5
        first = None
        for k in range(rnd.randint(2, 3)):
            nlevels = rnd.choice([1, 2, 2, 3])
            tl = rnd.choice([0, 1, 2]) if family != 3 else rnd.choice([1, 2])
            lines, l1 = random_hierarchy(rnd, 'h%d' % k, nlevels, cores, tl, questions,
                                         first if same_l1 else None)
            first = first or l1
            conf += lines
        with open(os.path.join(d, 'h.conf'), 'w') as f:
            f.write('# gen.py case %d\n' % seed + '\n'.join(conf) + '\n')
        args += ['--config', os.path.join(d, 'h.conf')]
        if family == 2:
            st.write_share = 0.5
            st.threads = rnd.choice([2, 3])
            st.cpus = 4
        if family == 3:
            st.refs = True
            st.huge = True
            st.refs_only = rnd.random() < 0.5
    else:
        # The presets: large caches, few misses but compulsory ones.
        args += ['--preset', rnd.choice(['cachegrind', 'skylake', 'drcachesim', 'psnap3',
                                         'psnap5', 'psnap9', 'psnap10', 'psnap2', 'psnap'])]
        st.n = 300
    if cores > 1:
        args += ['--cores', str(cores), '--core-by', rnd.choice(['cpu', 'thread'])]
    group = rnd.choice([None, None, '--per-thread', '--per-process', '--by-marker'])
    if group == '--by-marker':
        st.markers = True
    if group:
        args.append(group)
    if rnd.random() < 0.5:
        args += ['--seed', str(rnd.randint(0, 1000))]
    make_stream(rnd, st, os.path.join(d, 'trace.raw'))
    print(' '.join(args))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'case':
        case(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == 'list':
        from_list(sys.argv[2])
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)


if __name__ == '__main__':
    main()
