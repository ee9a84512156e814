#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/unit/cachesim/shrink.py VMTRACE SEED: the smallest case of a random
case that still tells `vmtrace cachesim` from the model (delta debugging):
hierarchies of its config file left out one at a time, then its records
(a page-end split's two records together), while a difference stays. Prints
the case left as gen.py list's lines, the config and both rows that differ;
leaves it in /tmp/cachesim-shrink-SEED/ (trace.raw, h.conf, args).
"""
import os
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen    # noqa: E402
import model  # noqa: E402


def units(data):
    """The records, in units that stay together: a split access's two records."""
    recs = [data[i:i + 64] for i in range(0, len(data), 64)]
    out = []
    for r in recs:
        typ = int.from_bytes(r[16:18], 'little')
        flags = r[24 + 20] if typ == 15 else 0
        if out and typ == 15 and flags & 0x2 and len(out[-1]) == 1 and \
                int.from_bytes(out[-1][0][16:18], 'little') == 15 and out[-1][0][24 + 20] & 0x2:
            addr = int.from_bytes(r[24:32], 'little')
            if addr % 4096 == 0:
                out[-1].append(r)
                continue
        out.append([r])
    return out


class Case:
    def __init__(self, vmtrace, seed):
        self.vmtrace = vmtrace
        self.dir = '/tmp/cachesim-shrink-%s' % seed
        os.makedirs(self.dir, exist_ok=True)
        old = sys.stdout
        sys.stdout = open(os.path.join(self.dir, 'args'), 'w')
        gen.case(int(seed), self.dir)
        sys.stdout.close()
        sys.stdout = old
        with open(os.path.join(self.dir, 'args')) as f:
            self.args = shlex.split(f.read())
        self.conf = os.path.join(self.dir, 'h.conf')
        self.blocks = []
        if os.path.exists(self.conf):
            with open(self.conf) as f:
                text = f.read()
            for line in text.split('\n'):
                if line.startswith('hierarchy '):
                    self.blocks.append([])
                if self.blocks and line:
                    self.blocks[-1].append(line)
        with open(os.path.join(self.dir, 'trace.raw'), 'rb') as f:
            self.units = units(f.read())
        self.last = None

    def differs(self, blocks, us):
        raw = os.path.join(self.dir, 'try.raw')
        vmt = os.path.join(self.dir, 'try.vmt')
        with open(raw, 'wb') as f:
            f.write(b''.join(r for u in us for r in u))
        args = list(self.args)
        if self.blocks:
            conf = os.path.join(self.dir, 'try.conf')
            with open(conf, 'w') as f:
                f.write('\n'.join(l for b in blocks for l in b) + '\n')
            args[args.index(self.conf)] = conf
        if subprocess.run([self.vmtrace, 'convert', raw, '-o', vmt], capture_output=True).returncode:
            return False
        eng = subprocess.run([self.vmtrace, 'cachesim'] + args + ['--csv', vmt],
                             capture_output=True, text=True)
        try:
            out, _, _ = model.run(args + ['--csv', raw])
        except model.ModelError:
            return False
        if out is None or eng.returncode != 0:
            return False
        problems = model.compare_text(out, eng.stdout)
        if problems:
            self.last = (args, problems)
        return bool(problems)

    def shrink(self):
        blocks, us = list(self.blocks), list(self.units)
        if not self.differs(blocks, us):
            sys.exit('shrink: no difference to begin with')
        i = 0
        while i < len(blocks) and len(blocks) > 1:
            if self.differs(blocks[:i] + blocks[i + 1:], us):
                blocks = blocks[:i] + blocks[i + 1:]
            else:
                i += 1
        n = 2
        while len(us) >= 2:
            chunk = max(1, len(us) // n)
            removed = False
            for start in range(0, len(us), chunk):
                trial = us[:start] + us[start + chunk:]
                if trial and self.differs(blocks, trial):
                    us = trial
                    removed = True
                    break
            if removed:
                n = max(n - 1, 2)
            elif chunk == 1:
                break
            else:
                n = min(n * 2, len(us))
        self.differs(blocks, us)
        return blocks, us


def show(us):
    names = {1: 'R', 2: 'W', 3: 'RW', 4: 'X'}
    for u in us:
        r = b''.join(u)
        t, pid, tid, typ, cpu = int.from_bytes(r[0:8], 'little'), int.from_bytes(r[8:12], 'little'), \
            int.from_bytes(r[12:16], 'little'), int.from_bytes(r[16:18], 'little'), \
            int.from_bytes(r[18:20], 'little')
        who = 'pid=%d tid=%d cpu=%d' % (pid, tid, cpu)
        body = r[24:64]
        addr = int.from_bytes(body[0:8], 'little')
        if typ == 15:
            size = sum(int.from_bytes(x[24 + 16:24 + 18], 'little') for x in u)
            kernel = ' kernel' if body[19] else ''
            print('%s %#x %d %s%s' % (names[body[18]], addr, size, who, kernel))
        elif typ == 2:
            print('ref %s %#x %s%s' % (names[body[28]], addr, who, ' huge' if body[32] & 1 else ''))
        elif typ == 4:
            print('marker %s' % who)
        else:
            print('# record type %d %s' % (typ, who))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    c = Case(sys.argv[1], sys.argv[2])
    blocks, us = c.shrink()
    args, problems = c.last
    with open(os.path.join(c.dir, 'trace.raw'), 'wb') as f:
        f.write(b''.join(r for u in us for r in u))
    if blocks:
        with open(c.conf, 'w') as f:
            f.write('\n'.join(l for b in blocks for l in b) + '\n')
        args = [c.conf if a.endswith('try.conf') else a for a in args]
    with open(os.path.join(c.dir, 'args'), 'w') as f:
        f.write(' '.join(args) + '\n')
    print('# vmtrace cachesim %s --csv %s/trace.vmt' % (' '.join(args), c.dir))
    for b in blocks:
        print('\n'.join('#   ' + l for l in b))
    show(us)
    for p in problems:
        print(p)


if __name__ == '__main__':
    main()
