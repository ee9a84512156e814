#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/unit/cachesim/model.py: a brute-force model of `vmtrace cachesim`,
written from docs/analysis/cachesim.md alone, as an oracle for the C engine.

    model.py [the options of vmtrace cachesim]... TRACE.raw
    model.py ... TRACE.raw --compare ENGINE.csv [--out MODEL.csv]
                                    # exit 1 and the differences, row by row
    model.py --diff WANT.csv GOT.csv  # the same comparison of two files

It reads the raw record stream (64-byte records, tests/unit/cachesim/gen.py's
output, the input of `vmtrace convert`), not a trace file, and prints what
`vmtrace cachesim --csv` should print. Nothing clever: a set is a list of ways,
each way a record of its own (valid, tag, dirty, last use, fill time, RRPV),
every lookup a linear scan, every choice spelled out. Where the spec is silent
the choice made is in QUESTIONS.md, numbered; the code cites the number (Qn).
"""
import os
import re
import struct
import sys
from collections import OrderedDict

MASK64 = (1 << 64) - 1
READ, WRITE, RMW, FETCH = 'R', 'W', 'RW', 'X'
FIELDS = ['accesses', 'hits', 'misses', 'miss_ratio', 'read_misses', 'write_misses',
          'fetch_misses', 'compulsory', 'capacity', 'conflict', 'writebacks', 'writebacks_in',
          'invalidations', 'back_invalidations', 'prefetches', 'mpki']
COUNTERS = [f for f in FIELDS if f not in ('hits', 'miss_ratio', 'mpki')]
HEADER = 'hierarchy,level,' + ','.join(FIELDS)
POLICIES = ('lru', 'fifo', 'random', 'plru', 'srrip')
PAGE_SHIFT, HUGE_SHIFT = 12, 21


class ModelError(Exception):
    """A configuration the spec's "Errors" section refuses (exit 2)."""


# ---- splitmix64, exactly as the spec gives it ----

class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9e3779b97f4a7c15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & MASK64
        return z ^ (z >> 31)


# ---- one set-associative array: a cache instance's or a TLB's ----

class Way:
    def __init__(self):
        self.valid = False
        self.tag = None
        self.dirty = False
        self.last_use = 0     # lru: the tick of the last access (hit or fill)
        self.filled = 0       # fifo: the tick of the fill
        self.rrpv = 0         # srrip: 0..3


class Array:
    def __init__(self, nsets, ways, policy, seed):
        self.nsets, self.nways, self.policy = nsets, ways, policy
        self.sets = {}        # set index -> list of Way, made on first use
        self.plru_bits = {}   # set index -> list of ways - 1 bits, all 0 at first
        self.rng = SplitMix64(seed)   # each array its own generator (Q10)
        self.tick = 0

    def ways(self, s):
        if s not in self.sets:
            self.sets[s] = [Way() for _ in range(self.nways)]
            self.plru_bits[s] = [0] * (self.nways - 1)
        return self.sets[s]

    def find(self, s, tag):
        for i, w in enumerate(self.ways(s)):
            if w.valid and w.tag == tag:
                return i
        return None

    def way(self, s, i):
        return self.ways(s)[i]

    def plru_touch(self, s, i):
        # Way i is leaf node nways - 1 + i; each node on its path up to the
        # root is set to point away from the child the path came through.
        bits = self.plru_bits[s]
        node = self.nways - 1 + i
        while node > 0:
            parent = (node - 1) // 2
            if node == 2 * parent + 1:   # came from the left: point right
                bits[parent] = 1
            else:                        # came from the right: point left
                bits[parent] = 0
            node = parent

    def touch(self, s, i):
        """An access that hits way i."""
        w = self.way(s, i)
        if self.policy == 'lru':
            self.tick += 1
            w.last_use = self.tick
        elif self.policy == 'plru':
            self.plru_touch(s, i)
        elif self.policy == 'srrip':
            w.rrpv = 0
        # fifo, random: a hit changes nothing

    def victim(self, s):
        ways = self.ways(s)
        # The ticks are unique: no ties.
        if self.policy == 'lru':      # used least recently
            return min(range(len(ways)), key=lambda i: ways[i].last_use)
        if self.policy == 'fifo':     # filled first
            return min(range(len(ways)), key=lambda i: ways[i].filled)
        if self.policy == 'random':
            return self.rng.next() % self.nways
        if self.policy == 'plru':
            bits = self.plru_bits[s]
            node = 0
            while node < self.nways - 1:
                node = 2 * node + 1 + bits[node]   # 0: left child, 1: right
            return node - (self.nways - 1)
        if self.policy == 'srrip':
            while True:
                for i in range(len(ways)):
                    if ways[i].rrpv == 3:
                        return i
                for w in ways:
                    w.rrpv += 1
        raise AssertionError(self.policy)

    def fill(self, s, tag, dirty):
        """Put tag in set s: the lowest empty way, else the policy's victim.
        Returns the victim's (tag, dirty), or None."""
        ways = self.ways(s)
        assert self.find(s, tag) is None, 'fill of a line already present'
        i = None
        for j in range(len(ways)):
            if not ways[j].valid:
                i = j
                break
        out = None
        if i is None:
            i = self.victim(s)
            out = (ways[i].tag, ways[i].dirty)
        w = ways[i]
        w.valid, w.tag, w.dirty = True, tag, dirty
        self.tick += 1
        w.last_use = self.tick
        w.filled = self.tick
        w.rrpv = 2
        if self.policy == 'plru':
            self.plru_touch(s, i)
        return out

    def remove(self, s, i):
        w = self.way(s, i)
        dirty = w.dirty
        w.valid, w.tag, w.dirty = False, None, False
        return dirty


class FullyAssociativeLRU:
    """The three Cs' yardstick: an LRU cache of `lines` lines, one set (Q7)."""

    def __init__(self, lines):
        self.lines = lines
        self.stack = OrderedDict()

    def access(self, tag):
        hit = tag in self.stack
        if hit:
            self.stack.move_to_end(tag)
        else:
            self.stack[tag] = True
            if len(self.stack) > self.lines:
                self.stack.popitem(last=False)
        return hit


# ---- configurations: --cache, --tlb, --config, --preset ----

class CacheCfg:
    def __init__(self, name):
        self.name = name
        self.size = self.assoc = self.line = None
        self.policy = 'lru'
        self.kind = 'unified'
        self.shared = None         # None: the level's default
        self.inclusion = 'non-inclusive'
        self.write = 'back'
        self.prefetch = False
        self.level = None
        self.next = None
        self.next_where = ''
        self.where = ''            # "FILE:LINE: " for messages


class TlbCfg:
    def __init__(self, name):
        self.name = name
        self.entries = self.assoc = None
        self.policy = 'lru'
        self.level = None
        self.where = ''


class HierCfg:
    def __init__(self, name):
        self.name = name
        self.caches = []
        self.tlbs = []


def parse_size(text, where, what='size'):
    m = re.fullmatch(r'(\d+)([kMG]?)', text)
    if not m:
        raise ModelError('%sbad %s %r' % (where, what, text))
    return int(m.group(1)) << {'': 0, 'k': 10, 'M': 20, 'G': 30}[m.group(2)]


def parse_assoc(text, where):
    if text == 'full':
        return 0
    if not re.fullmatch(r'\d+', text) or int(text) == 0:
        raise ModelError('%sbad associativity %r' % (where, text))
    return int(text)


def parse_policy(text, where):
    if text not in POLICIES:
        raise ModelError('%sunknown policy %r' % (where, text))
    return text


def cache_spec(h, spec):
    """NAME=SIZE:ASSOC:LINE[:POLICY], a level outward of h's caches."""
    name, eq, rest = spec.partition('=')
    parts = rest.split(':')
    if not eq or not name or len(parts) not in (3, 4):
        raise ModelError('bad cache %r: NAME=SIZE:ASSOC:LINE[:POLICY]' % spec)
    c = CacheCfg(name)
    c.size = parse_size(parts[0], '')
    c.assoc = parse_assoc(parts[1], '')
    c.line = parse_size(parts[2], '', 'line')
    if len(parts) == 4:
        c.policy = parse_policy(parts[3], '')
    c.level = max([x.level for x in h.caches], default=0) + 1
    h.caches.append(c)


def tlb_spec(h, spec):
    name, eq, rest = spec.partition('=')
    parts = rest.split(':')
    if not eq or not name or len(parts) not in (2, 3):
        raise ModelError('bad TLB %r: NAME=ENTRIES:ASSOC[:POLICY]' % spec)
    t = TlbCfg(name)
    t.entries = parse_size(parts[0], '', 'entries')
    t.assoc = parse_assoc(parts[1], '')
    if len(parts) == 3:
        t.policy = parse_policy(parts[2], '')
    t.level = len(h.tlbs) + 1
    h.tlbs.append(t)


CACHE_KEYS = {'size', 'assoc', 'line', 'policy', 'kind', 'sharing', 'inclusion', 'write',
              'prefetch', 'level', 'next'}
TLB_KEYS = {'entries', 'assoc', 'policy', 'level'}
CHOICES = {
    'kind': ('unified', 'data', 'instruction'),
    'sharing': ('private', 'shared'),
    'inclusion': ('non-inclusive', 'inclusive', 'exclusive'),
    'write': ('back', 'through'),
    'prefetch': ('none', 'next-line'),
}


def parse_config(path):
    """The hierarchies of a config file (the spec's "The config file")."""
    base = os.path.basename(path)
    default_name = base.rsplit('.', 1)[0] if '.' in base[1:] else base   # Q16
    hiers = []
    block = None       # the CacheCfg or TlbCfg the settings go to
    seen_keys = set()

    def finish_block():
        if block is None:
            return
        need = ('size', 'assoc', 'line') if isinstance(block, CacheCfg) else ('entries', 'assoc')
        for k in need:
            if k not in seen_keys:
                raise ModelError('%s%s %s has no %s' % (block.where, 'cache' if isinstance(
                    block, CacheCfg) else 'tlb', block.name, k))

    with open(path) as f:
        lines = f.read().split('\n')
    for no, raw in enumerate(lines, 1):
        where = '%s:%d: ' % (path, no)
        if len(raw) > 1024:
            raise ModelError('%sa line longer than 1024 characters' % where)
        text = raw.split('#', 1)[0].strip()
        if not text:
            continue
        words = text.split()
        key = words[0]
        if key in ('hierarchy', 'cache', 'tlb'):
            if len(words) != 2:
                raise ModelError('%s%s takes a name' % (where, key))
            finish_block()
            block, seen_keys = None, set()
            if key == 'hierarchy':
                hiers.append(HierCfg(words[1]))
                continue
            if not hiers:
                hiers.append(HierCfg(default_name))
            h = hiers[-1]
            if key == 'cache':
                block = CacheCfg(words[1])
                h.caches.append(block)
            else:
                block = TlbCfg(words[1])
                h.tlbs.append(block)
            block.where = where
            continue
        if block is None:
            raise ModelError('%s%s outside a cache or tlb block' % (where, key))
        keys = CACHE_KEYS if isinstance(block, CacheCfg) else TLB_KEYS
        if key not in keys:
            raise ModelError('%sunknown key %r' % (where, key))
        if len(words) != 2:
            raise ModelError('%s%s takes one value: %r after it' % (where, key,
                                                                  ' '.join(words[2:])))
        val = words[1]
        if key in seen_keys:
            raise ModelError('%s%s given twice' % (where, key))
        seen_keys.add(key)
        if key == 'size':
            block.size = parse_size(val, where)
        elif key == 'entries':
            block.entries = parse_size(val, where, 'entries')
        elif key == 'line':
            block.line = parse_size(val, where, 'line')
            if not pow2(block.line):        # on its own line, as the spec's example (Q32)
                raise ModelError('%sline %d is not a power of two' % (where, block.line))
        elif key == 'assoc':
            block.assoc = parse_assoc(val, where)
        elif key == 'policy':
            block.policy = parse_policy(val, where)
        elif key == 'level':
            if not re.fullmatch(r'[1-4]', val):
                raise ModelError('%sbad level %r' % (where, val))
            block.level = int(val)
        elif key == 'next':
            block.next, block.next_where = val, where
        else:
            if val not in CHOICES[key]:
                raise ModelError('%sbad %s %r' % (where, key, val))
            if key == 'kind':
                block.kind = val
            elif key == 'sharing':
                block.shared = val == 'shared'
            elif key == 'inclusion':
                block.inclusion = val
            elif key == 'write':
                block.write = val
            elif key == 'prefetch':
                block.prefetch = val == 'next-line'
    finish_block()
    # Default levels: one more than the block before's, an I/D pair one.
    for h in hiers:
        prev = None
        for c in h.caches:
            if c.level is None:
                if prev is None:
                    c.level = 1
                elif {prev.kind, c.kind} == {'instruction', 'data'}:
                    c.level = prev.level
                else:
                    c.level = prev.level + 1
            prev = c
        prev = None
        for t in h.tlbs:
            if t.level is None:
                t.level = 1 if prev is None else prev.level + 1
            prev = t
    return hiers


PSNAP = {   # id: [(KB, line, ways)...] from the spec's table
    1: [(32, 128, 2), (1024, 128, 8)],
    2: [(256, 128, 8), (9216, 128, 12)],
    3: [(64, 64, 2), (512, 64, 16)],
    4: [(32, 32, 4), (128, 64, 2)],
    5: [(64, 64, 2), (512, 64, 16), (341 * 48 * 64 / 1024, 64, 48)],   # 341 sets (Q33)
    6: [(64, 128, 8), (4096, 128, 8), (16384, 128, 16)],
    7: [(64, 64, 2), (512, 64, 8)],
    8: [(64, 64, 2), (512, 64, 32)],
    9: [(64, 64, 2), (512, 32, 16)],
    10: [(64, 64, 2), (512, 128, 16)],
}


def mkcache(name, size, assoc, line, level, kind='unified', **kw):
    c = CacheCfg(name)
    c.size, c.assoc, c.line, c.level, c.kind = size, assoc, line, level, kind
    for k, v in kw.items():
        setattr(c, k, v)
    return c


def mktlb(name, entries, assoc, level):
    t = TlbCfg(name)
    t.entries, t.assoc, t.level = entries, assoc, level
    return t


def preset(name):
    """The spec's presets (the hierarchy and level names are Q17's)."""
    K, M = 1 << 10, 1 << 20
    if name == 'psnap':
        return [h for i in range(1, 11) for h in preset('psnap%d' % i)]
    m = re.fullmatch(r'psnap(\d+)', name)
    if m and int(m.group(1)) in PSNAP:
        h = HierCfg(name)
        for lvl, (kb, line, ways) in enumerate(PSNAP[int(m.group(1))], 1):
            h.caches.append(mkcache('L%d' % lvl, int(kb * K), ways, line, lvl))
        return [h]
    h = HierCfg(name)
    if name == 'cachegrind':
        h.caches = [mkcache('I1', 64 * K, 2, 64, 1, 'instruction'),
                    mkcache('D1', 64 * K, 2, 64, 1, 'data'),
                    mkcache('LL', 256 * K, 8, 64, 2)]
    elif name == 'drcachesim':
        h.caches = [mkcache('L1I', 32 * K, 8, 64, 1, 'instruction'),
                    mkcache('L1D', 32 * K, 8, 64, 1, 'data', prefetch=True),
                    mkcache('LL', 8 * M, 16, 64, 2)]
    elif name == 'skylake':
        h.caches = [mkcache('L1I', 32 * K, 8, 64, 1, 'instruction'),
                    mkcache('L1D', 32 * K, 8, 64, 1, 'data'),
                    mkcache('L2', 256 * K, 4, 64, 2),
                    mkcache('L3', 8 * M, 16, 64, 3, shared=True, inclusion='inclusive')]
        h.tlbs = [mktlb('DTLB', 64, 4, 1), mktlb('STLB', 1536, 12, 2)]
    else:
        raise ModelError('unknown preset %r' % name)
    return [h]


def pow2(n):
    return n > 0 and n & (n - 1) == 0


def geometry(where, name, size, assoc, line):
    """(sets, ways) or a ModelError: the spec's geometry errors."""
    if not pow2(line):
        raise ModelError('%s%s: line %d is not a power of two' % (where, name, line))
    if line > size:
        raise ModelError('%s%s: line %d is larger than the cache (%d)' % (where, name, line, size))
    ways = assoc if assoc else size // line
    if size % (ways * line):
        raise ModelError('%s%s: size %d is not a whole number of sets of %d ways of %d bytes'
                         % (where, name, size, ways, line))
    sets = size // (ways * line)
    if sets == 0:
        raise ModelError('%s%s: no set (%d bytes < %d ways x %d)' % (where, name, size, ways, line))
    return sets, ways


def check(h):
    """The spec's errors, and the interface's checks, for one hierarchy."""
    if not h.caches and not h.tlbs:
        raise ModelError('hierarchy %s has no cache' % h.name)
    for c in h.caches:
        sets, ways = geometry(c.where, c.name, c.size, c.assoc, c.line)
        if c.policy == 'plru' and not pow2(ways):
            raise ModelError('%s%s: plru needs a power-of-two number of ways, not %d'
                             % (c.where, c.name, ways))
        if c.shared is None:
            c.shared = c.level >= 3
    for t in h.tlbs:
        ways = t.assoc if t.assoc else t.entries
        if t.entries == 0 or t.entries % ways:
            raise ModelError('%s%s: %d entries is not a whole number of sets of %d ways'
                             % (t.where, t.name, t.entries, ways))
        if t.policy == 'plru' and not pow2(ways):
            raise ModelError('%s%s: plru needs a power-of-two number of ways' % (t.where, t.name))
    levels = sorted({c.level for c in h.caches})
    if levels != list(range(1, len(levels) + 1)):
        raise ModelError('%s: a level missing between two (levels %s)' % (h.name, levels))
    tl = [t.level for t in h.tlbs]
    if sorted(tl) != list(range(1, len(tl) + 1)):
        raise ModelError('%s: a TLB level missing or twice (levels %s)' % (h.name, tl))
    for lvl in levels:
        at = [c for c in h.caches if c.level == lvl]
        kinds = sorted(c.kind for c in at)
        if lvl == 1 and kinds not in (['unified'], ['data', 'instruction']):
            raise ModelError('%s: level 1 is one unified cache or an I/D pair' % h.name)
        if lvl > 1 and kinds != ['unified']:
            raise ModelError('%s: one unified cache at level %d' % (h.name, lvl))
    for c in h.caches:
        if c.next is not None:
            nxt = [d.name for d in h.caches if d.level == c.level + 1]
            if nxt != [c.next]:
                raise ModelError('%s%s: next %s is not the level outside it' % (
                    c.next_where, c.name, c.next))
        for d in h.caches:
            if d.level < c.level and d.shared and not c.shared:
                raise ModelError('%s: shared %s inside private %s' % (h.name, d.name, c.name))


# ---- the simulation ----

class Level:
    """A cache of the hierarchy as simulated (a unified L1 split in two is
    two of these): its config, its output name, an instance a core (or one
    shared), the level outside it."""

    def __init__(self, cfg, name, kind, ncores, seed):
        self.cfg, self.name, self.kind = cfg, name, kind
        self.number = cfg.level
        self.line = cfg.line
        self.sets, self.ways = geometry('', name, cfg.size, cfg.assoc, cfg.line)
        self.shared = cfg.shared
        self.insts = [Instance(self, seed) for _ in range(1 if self.shared else ncores)]
        self.next = None
        self.inner = []            # the levels inside, every one

    def inst(self, core):
        return self.insts[0 if self.shared else core]

    def lines(self, lo, hi):
        return range(lo // self.line, (hi - 1) // self.line + 1)


class Instance:
    def __init__(self, level, seed):
        self.array = Array(level.sets, level.ways, level.cfg.policy, seed)
        self.seen = set()          # lines a demand access ever touched here (compulsory)
        self.fa = FullyAssociativeLRU(level.sets * level.ways)


class TlbLevel:
    def __init__(self, cfg, ncores, seed):
        self.cfg, self.name = cfg, cfg.name
        ways = cfg.assoc if cfg.assoc else cfg.entries
        self.sets, self.ways = cfg.entries // ways, ways
        self.insts = [Instance(self, seed) for _ in range(ncores)]
        self.next = None


class Access:
    __slots__ = ('addr', 'size', 'pid', 'tid', 'cpu', 'kind', 'huge', 'phase')


class Sim:
    """One hierarchy."""

    def __init__(self, h, ncores, seed, has_fetch):
        self.h, self.ncores = h, ncores
        self.levels = []           # output order: caches outward, L1 I before D
        for c in sorted(h.caches, key=lambda c: c.level):   # stable: file order within a level
            if c.level == 1 and c.kind == 'unified' and has_fetch:
                self.levels.append(Level(c, c.name + 'I', 'instruction', ncores, seed))
                self.levels.append(Level(c, c.name + 'D', 'data', ncores, seed))
            else:
                self.levels.append(Level(c, c.name, c.kind, ncores, seed))
        for L in self.levels:
            outer = [M for M in self.levels if M.number == L.number + 1]
            L.next = outer[0] if outer else None
            L.inner = [M for M in self.levels if M.number < L.number]
        self.l1 = {k: L for L in self.levels if L.number == 1 for k in [L.kind]}
        self.tlbs = [TlbLevel(t, ncores, seed) for t in sorted(h.tlbs, key=lambda t: t.level)]
        for a, b in zip(self.tlbs, self.tlbs[1:]):
            a.next = b
        self.private = [L for L in self.levels if not L.shared]   # inner to outer
        self.counts = {}           # level name -> group -> counter -> n
        self.groups = ()

    # -- counting: every group the current access belongs to --
    def cnt(self, L, field, n=1):
        per = self.counts.setdefault(L.name, {})
        for g in self.groups:
            d = per.setdefault(g, {})
            d[field] = d.get(field, 0) + n

    def count_miss(self, L, kind, classes):
        self.cnt(L, 'misses')
        # A read-modify-write's miss is a read's, as cachegrind counts a modify.
        self.cnt(L, {READ: 'read_misses', WRITE: 'write_misses', RMW: 'read_misses',
                     FETCH: 'fetch_misses'}[kind])
        # A straddling access that missed is classified by its first line that missed.
        self.cnt(L, classes[0])

    # -- a cache's events --
    def classify(self, inst, tag):
        """Bookkeeping for the three Cs on every demand line (before the lookup)."""
        compulsory = tag not in inst.seen
        inst.seen.add(tag)
        fa_hit = inst.fa.access(tag)
        return 'compulsory' if compulsory else ('conflict' if fa_hit else 'capacity')

    def demand(self, L, core, pid, lo, hi, kind):
        """A demand access of the bytes [lo, hi) at level L. Returns True when an
        exclusive level gave up a dirty line for it (the dirt moves inside)."""
        inst = L.inst(core)
        arr = inst.array
        cfg = L.cfg
        self.cnt(L, 'accesses')
        is_write = kind in (WRITE, RMW)
        through = cfg.write == 'through'
        exclusive = cfg.inclusion == 'exclusive'
        classes = []
        carried = False
        for n in L.lines(lo, hi):          # one line after the other (Q2)
            tag = (pid, n)
            s = n % arr.nsets
            cls = self.classify(inst, tag)
            i = arr.find(s, tag)
            if i is not None:
                if exclusive:
                    # A hit moves the line inside: it leaves this level.
                    carried |= arr.remove(s, i)
                    continue
                arr.touch(s, i)
                if is_write and not through:
                    arr.way(s, i).dirty = True
                if is_write and through and L.next is not None:
                    self.demand(L.next, core, pid, n * L.line, (n + 1) * L.line, kind)
                continue
            classes.append(cls)
            if is_write and through:
                # No write-allocate. Every line of a write goes on, hit or
                # miss, each a demand access of its own (Q4).
                if L.next is not None:
                    self.demand(L.next, core, pid, n * L.line, (n + 1) * L.line, kind)
            else:
                inner_dirt = False
                if L.next is not None:      # outward first, then the fill here (Q3)
                    inner_dirt = self.demand(L.next, core, pid, n * L.line, (n + 1) * L.line,
                                             kind)
                if exclusive:
                    carried |= inner_dirt   # a miss fills the levels inside only
                else:
                    self.fill(L, core, pid, n, (is_write and not through) or inner_dirt)
            if cfg.prefetch:
                self.prefetch(L, core, pid, n + 1)
        if classes:
            self.count_miss(L, kind, classes)
        return carried

    def fill(self, L, core, pid, n, dirty):
        arr = L.inst(core).array
        out = arr.fill(n % arr.nsets, (pid, n), dirty)
        if out is not None:
            self.evicted(L, core, out[0], out[1])

    def prefetch(self, L, core, pid, n):
        arr = L.inst(core).array
        if arr.find(n % arr.nsets, (pid, n)) is None:
            self.cnt(L, 'prefetches')
            self.fill(L, core, pid, n, False)       # into this cache alone (Q11)

    def inner_instances(self, L, core):
        """The instances inside L's instance of @core: every core's for a
        shared L, the core's own for a private one."""
        out = []
        for M in L.inner:
            if L.shared:
                out += [(M, c) for c in range(len(M.insts))]
            else:
                out.append((M, core))
        return out

    def evicted(self, L, core, tag, dirty):
        """L's instance of @core let go of line @tag (a policy's victim)."""
        pid, n = tag
        lo, hi = n * L.line, (n + 1) * L.line
        if L.cfg.inclusion == 'inclusive':
            for M, c in self.inner_instances(L, core):
                arr = M.insts[c].array
                for m in M.lines(lo, hi):
                    i = arr.find(m % arr.nsets, (pid, m))
                    if i is not None:
                        dirty |= arr.remove(m % arr.nsets, i)   # written back with it (Q12)
                        self.cnt(M, 'back_invalidations')
        if dirty:
            self.cnt(L, 'writebacks')
        nxt = L.next
        if nxt is not None and nxt.cfg.inclusion == 'exclusive':
            # A victim cache takes every line the level inside evicts, clean or
            # dirty, whatever its write policy (Q13): a dirty one is a write-back.
            if dirty:
                self.cnt(nxt, 'writebacks_in')
            arr = nxt.inst(core).array
            for m in nxt.lines(lo, hi):
                i = arr.find(m % arr.nsets, (pid, m))
                if i is not None:
                    arr.way(m % arr.nsets, i).dirty |= dirty     # no recency change
                else:
                    self.fill(nxt, core, pid, m, dirty)
        elif dirty and nxt is not None:
            self.writeback(nxt, core, pid, lo, hi)

    def writeback(self, L, core, pid, lo, hi):
        """A dirty line from inside arrives at L (Q5, Q14)."""
        self.cnt(L, 'writebacks_in')
        arr = L.inst(core).array
        for m in L.lines(lo, hi):
            if L.cfg.write == 'through':
                # A write-through level keeps nothing dirty: each of its lines
                # goes on outward as a write-back (Q14).
                if L.next is not None:
                    self.writeback(L.next, core, pid, m * L.line, (m + 1) * L.line)
                continue
            i = arr.find(m % arr.nsets, (pid, m))
            if i is not None:
                arr.way(m % arr.nsets, i).dirty = True   # no recency change
            else:
                self.fill(L, core, pid, m, True)         # a fill, no demand miss

    def coherence(self, core, pid, lo, hi):
        """A write by @core takes the line from every other core's private caches,
        inside out (Q9)."""
        for c in range(self.ncores):
            if c == core:
                continue
            for L in self.private:
                arr = L.insts[c].array
                for m in L.lines(lo, hi):
                    i = arr.find(m % arr.nsets, (pid, m))
                    if i is None:
                        continue
                    dirty = arr.remove(m % arr.nsets, i)
                    self.cnt(L, 'invalidations')
                    if dirty:
                        self.cnt(L, 'writebacks')
                        if L.next is not None:
                            self.writeback(L.next, c, pid, m * L.line, (m + 1) * L.line)

    def tlb(self, T, core, pid, pages, huge, kind):
        inst = T.insts[core]
        arr = inst.array
        self.cnt(T, 'accesses')
        classes = []
        for p in pages:
            tag = (pid, p, huge)
            s = p % arr.nsets
            cls = self.classify(inst, tag)
            i = arr.find(s, tag)
            if i is not None:
                arr.touch(s, i)
                continue
            classes.append(cls)
            if T.next is not None:
                self.tlb(T.next, core, pid, [p], huge, kind)
            arr.fill(s, tag, False)
        if classes:
            self.count_miss(T, kind, classes)

    def access(self, a, core, groups):
        self.groups = groups
        lo, hi = a.addr, a.addr + a.size
        if a.kind in (WRITE, RMW) and self.ncores > 1:
            self.coherence(core, a.pid, lo, hi)     # before the write's own lookup (Q9)
        if self.levels:
            if a.kind == FETCH and 'instruction' in self.l1:
                L1 = self.l1['instruction']
            elif 'data' in self.l1:
                L1 = self.l1['data']
            else:
                L1 = self.l1['unified']
            self.demand(L1, core, a.pid, lo, hi, a.kind)
        if self.tlbs:
            shift = HUGE_SHIFT if a.huge else PAGE_SHIFT
            pages = list(range(lo >> shift, ((hi - 1) >> shift) + 1))   # Q15
            self.tlb(self.tlbs[0], core, a.pid, pages, a.huge, a.kind)

    def rows(self):
        return [L.name for L in self.levels] + [T.name for T in self.tlbs]


# ---- the trace ----

def read_raw(path):
    """The accesses of a raw record stream, with the marker phases, and the
    number of accesses that are instruction fetches."""
    with open(path, 'rb') as f:
        data = f.read()
    recs = []
    for off in range(0, len(data) - len(data) % 64, 64):
        t, pid, tid, typ, cpu, dlen = struct.unpack_from('<QIIHHI', data, off)
        recs.append((typ, pid, tid, cpu, data[off + 24:off + 64]))
    accesses = []
    phase = 0
    pending = None   # the first part of an access split at a page end
    for typ, pid, tid, cpu, body in recs:
        if typ == 4:
            phase += 1
            continue
        a = None
        if typ == 15:
            addr, ip, size, acc, kmode, flags = struct.unpack_from('<QQHBBB', body)
            kind = {1: READ, 2: WRITE, 3: RMW, 4: FETCH}.get(acc)
            if kind is None:
                continue
            size = size or 1                       # undecoded: one byte
            if flags & 0x2:                        # VMT_EXACT_SPLIT
                if (pending is not None and pending.tid == tid and pending.kind == kind and
                        pending.addr + pending.size == addr):
                    pending.size += size           # the rest: one access with the first part
                    accesses.append(pending)
                    pending = None
                    continue
                if pending is not None:
                    accesses.append(pending)       # a first part alone (Q1)
                    pending = None
                if (addr + size) % 4096 == 0:
                    a = Access()
                    a.addr, a.size, a.pid, a.tid, a.cpu = addr, size, pid, tid, cpu
                    a.kind, a.huge, a.phase = kind, False, phase
                    pending = a
                    continue
            a = Access()
            a.addr, a.size, a.kind, a.huge = addr, size, kind, False
        elif typ == 2:
            vaddr, pfn, ip, err, acc, kmode, cause, ef, rflags = struct.unpack_from(
                '<QQQIBBBBI', body)
            kind = FETCH if acc & 4 else WRITE if acc & 2 else READ   # Q18
            a = Access()
            a.addr, a.size, a.kind, a.huge = vaddr, 1, kind, bool(rflags & 1)
        else:
            continue
        if pending is not None:
            accesses.append(pending)
            pending = None
        a.pid, a.tid, a.cpu, a.phase = pid, tid, cpu, phase
        accesses.append(a)
    if pending is not None:
        accesses.append(pending)
    return accesses, phase


# ---- the command ----

def usage():
    sys.stderr.write(__doc__)
    sys.exit(2)


def main(argv):
    if argv[:1] == ['--diff'] and len(argv) == 3:
        with open(argv[1]) as f, open(argv[2]) as g:
            return report(compare_text(f.read(), g.read()))
    out, compare, out_path = run(argv)
    if out is None:
        return 1
    if out_path is not None:
        with open(out_path, 'w') as f:
            f.write(out)
    if compare is not None:
        with open(compare) as f:
            return report(compare_text(out, f.read()))
    sys.stdout.write(out)
    return 0


def run(argv):
    """The model's CSV for vmtrace cachesim's arguments @argv (None: no access),
    with --compare's and --out's files."""
    args = list(argv)
    hier_order = []    # ('custom', None) | ('config', path) | ('preset', name)
    custom = HierCfg('custom')
    opts = {'cores': 1, 'core_by': 'cpu', 'seed': 1, 'group': None, 'csv': False}
    compare = out_path = None
    trace = None
    i = 0

    def val():
        nonlocal i
        i += 1
        if i >= len(args):
            raise ModelError('%s needs a value' % args[i - 1])
        return args[i]

    while i < len(args):
        a = args[i]
        if a == '--cache':
            cache_spec(custom, val())
            if ('custom', None) not in hier_order:
                hier_order.append(('custom', None))
        elif a == '--tlb':
            tlb_spec(custom, val())
            if ('custom', None) not in hier_order:
                hier_order.append(('custom', None))
        elif a == '--config':
            hier_order.append(('config', val()))
        elif a == '--preset':
            hier_order.append(('preset', val()))
        elif a == '--cores':
            opts['cores'] = int(val())
        elif a == '--core-by':
            opts['core_by'] = val()
            if opts['core_by'] not in ('thread', 'cpu'):
                raise ModelError('--core-by thread or cpu')
        elif a == '--seed':
            opts['seed'] = int(val(), 0) or 1
        elif a == '--per-thread':
            opts['group'] = 'tid'
        elif a == '--per-process':
            opts['group'] = 'pid'
        elif a == '--by-marker':
            opts['group'] = 'phase'
        elif a == '--csv':
            opts['csv'] = True
        elif a == '--compare':
            compare = val()
        elif a == '--out':
            out_path = val()
        elif a.startswith('-'):
            usage()
        else:
            trace = a
        i += 1
    if trace is None:
        usage()
    hiers = []
    for what, arg in hier_order:
        if what == 'custom':
            hiers.append(custom)
        elif what == 'config':
            hiers += parse_config(arg)
        else:
            hiers += preset(arg)
    if not hiers:
        raise ModelError('no hierarchy: --cache, --tlb, --config or --preset')
    for h in hiers:
        check(h)
    accesses, markers = read_raw(trace)
    if not accesses:
        sys.stderr.write('model: no access to simulate in %s\n' % trace)
        return None, compare, out_path
    return simulate(hiers, accesses, markers, opts), compare, out_path


def simulate(hiers, accesses, markers, opts):
    ncores = opts['cores']
    has_fetch = any(a.kind == FETCH for a in accesses)      # the pre-pass
    sims = [Sim(h, ncores, opts['seed'], has_fetch) for h in hiers]
    thread_core = {}
    fetches = {}
    group = opts['group']
    for a in accesses:
        if opts['core_by'] == 'thread':
            if a.tid not in thread_core:
                thread_core[a.tid] = len(thread_core) % ncores
            core = thread_core[a.tid]
        else:
            core = a.cpu % ncores
        if group is None:
            groups = ('all',)
        elif group == 'phase':
            groups = (a.phase,)                                # no "all" row set (Q19)
        else:
            groups = ('all', getattr(a, group))
        for g in groups:
            fetches[g] = fetches.get(g, 0) + (a.kind == FETCH)
        for sim in sims:
            sim.access(a, core, groups)
    if group is None:
        keys = ['all']
    elif group == 'phase':
        keys = list(range(markers + 1))
    else:
        keys = ['all'] + sorted({getattr(a, group) for a in accesses})
    lines = [('' if group is None else group + ',') + HEADER]
    for g in keys:
        for sim in sims:
            for name in sim.rows():
                c = sim.counts.get(name, {}).get(g, {})
                v = {f: c.get(f, 0) for f in COUNTERS}
                v['hits'] = v['accesses'] - v['misses']
                v['miss_ratio'] = '%.6f' % (v['misses'] / v['accesses'] if v['accesses'] else 0)
                if not has_fetch:
                    v['mpki'] = ''                                        # Q20
                elif not fetches.get(g):
                    v['mpki'] = '%.6f' % 0
                else:
                    v['mpki'] = '%.6f' % (v['misses'] * 1000.0 / fetches[g])
                row = [sim.h.name, name] + [str(v[f]) for f in FIELDS]
                if group is not None:
                    row.insert(0, str(g))
                lines.append(','.join(row))
    return '\n'.join(lines) + '\n'


def compare_text(model_out, engine_out):
    """Every field of every row, rows matched by (group, hierarchy, level): the
    differences, as lines."""
    engine = [l for l in engine_out.split('\n') if l != '']
    model = [l for l in model_out.split('\n') if l != '']
    problems = []
    if not engine or engine[0] != model[0]:
        problems.append('header: engine %r, model %r' % (engine[0] if engine else '', model[0]))
        return problems
    head = model[0].split(',')
    nkey = head.index('level') + 1

    def keyed(rows, who):
        d = OrderedDict()
        for r in rows[1:]:
            f = r.split(',')
            if len(f) != len(head):
                problems.append('%s row with %d fields, not %d: %s' % (who, len(f), len(head), r))
                continue
            k = tuple(f[:nkey])
            if k in d:
                problems.append('%s row twice: %s' % (who, ','.join(k)))
            d[k] = f
        return d
    e, m = keyed(engine, 'engine'), keyed(model, 'model')
    for k in m:
        if k not in e:
            problems.append('row %s: missing from the engine' % ','.join(k))
            continue
        diffs = []
        for name, ev, mv in zip(head, e[k], m[k]):
            if name == 'mpki' and ev != mv:
                # Only the value is the spec's, not its digits (Q20): equal within
                # the engine's rounding.
                try:
                    digits = len(ev.split('.')[1]) if '.' in ev else 0
                    if mv != '' and abs(float(ev) - float(mv)) <= 0.5 * 10 ** -digits + 1e-9:
                        continue
                except ValueError:
                    pass
            if ev != mv:
                diffs.append('%s: engine %s, model %s' % (name, ev or '(empty)', mv or '(empty)'))
        if diffs:
            problems.append('row %s:\n      engine %s\n      model  %s\n      %s' % (
                ','.join(k), ','.join(e[k]), ','.join(m[k]), '\n      '.join(diffs)))
    for k in e:
        if k not in m:
            problems.append('row %s: the engine\'s alone: %s' % (','.join(k), ','.join(e[k])))
    return problems


def report(problems):
    if not problems:
        return 0
    print('%d row(s) differ' % len(problems))
    for p in problems[:6]:
        print('    ' + p)
    if len(problems) > 6:
        print('    ... and %d more' % (len(problems) - 6))
    return 1


if __name__ == '__main__':
    try:
        sys.exit(main(sys.argv[1:]))
    except ModelError as e:
        sys.stderr.write('model: %s\n' % e)
        sys.exit(2)
