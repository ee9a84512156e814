# SPDX-License-Identifier: GPL-2.0
"""The Python package's tests (tests/unit/python.sh runs them): the command
(VMTRACE), vmt-synth (VMT_SYNTH) and the traces the tests read, made once a
session with the command, as the other unit tests make theirs."""
import os
import struct
import subprocess

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VMTRACE = os.environ.get('VMTRACE', os.path.join(TOP, 'build', 'bin', 'vmtrace'))
SYNTH = os.environ.get('VMT_SYNTH', os.path.join(os.path.dirname(VMTRACE), 'vmt-synth'))
DATA = os.path.join(TOP, 'tests', 'unit', 'data')
CORPUS = os.path.join(TOP, 'tests', 'fuzz', 'corpus', 'fuzz_trace_open')


def run(*args, check=True):
    """vmtrace ARGS: its standard output (text, undecodable bytes as \\udcXX)."""
    p = subprocess.run([VMTRACE, *map(str, args)], capture_output=True, check=False)
    if check and p.returncode:
        raise AssertionError(f'vmtrace {" ".join(map(str, args))}: exit {p.returncode}: '
                             f'{p.stderr.decode(errors="replace")}')
    return p.stdout.decode(errors='surrogateescape')


def hand_records():
    """Raw records (ring layout: data in DATA records after each) of every
    type, with data holding quotes, commas, a backslash, a newline and
    non-UTF-8 bytes; exact accesses of every size and flag, wide ones with
    their value as data; a type vmtrace does not know."""
    out = []

    def rec(t, typ, pid, tid, cpu, payload=b'', data=b''):
        assert len(payload) <= 40
        out.append(struct.pack('<QIIHHI', t, pid, tid, typ, cpu, len(data)) +
                   payload.ljust(40, b'\0'))
        for off in range(0, len(data), 40):
            chunk = data[off:off + 40]
            out.append(struct.pack('<QIIHHI', t, pid, tid, 5, cpu, len(chunk)) +
                       chunk.ljust(40, b'\0'))

    def comm(s):
        return s.ljust(16, b'\0')

    rec(100, 12, 10, 10, 0, comm(b'make') + struct.pack('<IIQQ', 1, 0, 0, 0), b'/usr/bin/make')
    rec(101, 12, 10, 11, 0, comm(b'w\xffrker-012345678') + struct.pack('<IIQQ', 1, 0x80000000, 0, 0))
    rec(105, 11, 10, 10, 0, struct.pack('<QQQBBBBIQ', 0x400000, 0x401000, 0x2000, 1, 0, 5, 1, 0, 0),
        b'/lib/libc.so.6')
    rec(106, 11, 10, 10, 1, struct.pack('<QQQBBBBIQ', 0x7f00, 0x8f00, 0, 0, 4, 0, 0, 0, 0))
    rec(107, 11, 10, 10, 1, struct.pack('<QQQBBBBIQ', 0x9000, 0xa000, 0, 1, 9, 0xb, 7, 0, 0),
        b'[v"d,s\\o]')
    rec(110, 6, 0, 0, 0, struct.pack('<IIII', 10, 10, 0, 0))
    rec(130, 7, 10, 10, 0, struct.pack('<IIQ', 30, 30, 0x11))
    rec(150, 8, 20, 20, 1, struct.pack('<II', 20, 0), b'/bin/my "prog",x\\y \xe2\x82\xac \xc3')
    rec(160, 10, 20, 20, 1, comm(b'renamed'))
    rec(171, 6, 0, 0, 1, struct.pack('<IIII', 10, 11, 0x402, 1))
    rec(200, 4, 20, 20, 0, struct.pack('<I', 7), b'phase "2", go\n\t' + bytes(range(120, 200)))
    rec(201, 4, 20, 21, 0, struct.pack('<I', 0xffffffff))
    rec(210, 13, 20, 20, 0, struct.pack('<QQIBBBBHHI', 0x1000, 0x2000, 4096, 0, 1, 1, 0, 0, 1, 0),
        b'nvme0')
    rec(220, 13, 20, 20, 0, struct.pack('<QQIBBBBHHI', 0x3000, 0x4000, 8192, 9, 7, 0, 0, 3, 5, 0))
    rec(240, 14, 10, 10, 0, struct.pack('<QQBBHI', 0x7000, 0x99, 1, 1, 0, 3))
    rec(241, 14, 10, 10, 1, struct.pack('<QQBBHI', 0x8000, 0x9a, 0, 0, 0, 0))
    rec(250, 9, 30, 30, 1, struct.pack('<II', 256, 1))
    rec(260, 1, 0, 0, 1, struct.pack('<Q', 3))
    rec(261, 23, 5, 6, 1, bytes(range(1, 41)))
    rec(262, 0, 5, 6, 1, bytes(range(41, 81)))
    t = 300
    for i in range(400):
        pid, cpu = (10, 0) if i % 3 else (20, 1)
        addr = 0x7f0000000000 + (i * 7 % 40) * 4096 + i
        access = (1, 2, 4, 1, 2, 9)[i % 6]
        rec(t, 2, pid, pid + i % 2, cpu,
            struct.pack('<QQQIBBBBI', addr, 0x100 + i, 0x401000 + i if i % 9 else 0, i * 3,
                        access, i % 7 == 0, i % 5, 0, 1 if i % 50 == 0 else 0))
        t += 37
        if i % 60 == 0:
            rec(t, 3, pid, pid, cpu, struct.pack('<QQQIBBBBI', addr & ~0xfff, 0x100 + i, 0, 0, 0,
                                                 0, 0, i % 4, i % 2))
        if i % 4 == 0:
            size = (0, 1, 2, 4, 8, 10, 16, 32, 64)[i % 9]
            value = bytes((i + k) % 256 for k in range(16))
            data = bytes((3 * i + k) % 256 for k in range(size)) if size > 16 else b''
            if size > 16:
                value = bytes(16)
            else:
                value = value[:size].ljust(16, b'\0')
            rec(t, 15, pid, pid, cpu,
                struct.pack('<QQHBBB3x', 0x600000 + 8 * i, 0x401000 + i if i % 3 else 0, size,
                            (1, 2, 3, 4)[i % 4], i % 5 == 0,
                            i % 8 | (0, 0x8, 0x10, 0x20, 0x18)[i // 8 % 5]) + value, data)
    rec(t + 10, 6, 20, 20, 0, struct.pack('<IIII', 0, 0, 1, 0))
    rec(t + 20, 4, 10, 10, 1, struct.pack('<I', 8), b'end')
    return b''.join(out)


def lackey_text(n=3000):
    """A loop in lackey's text: instruction fetches, loads and stores of a strided walk."""
    lines = []
    for i in range(n):
        lines.append(f'I  {0x401000 + 16 * (i % 3):08x},4')
        lines.append(f' L {0x5000000 + 8 * i:08x},8')
        if i % 3 == 2:
            lines.append(f' S {0x6000000 + 4 * (i % 64):08x},4')
        if i % 500 == 0:
            lines.append(f' M {0x7000000:08x},4')
    return '\n'.join(lines) + '\n'


@pytest.fixture(scope='session')
def traces(tmp_path_factory):
    """{name: path} of the test traces: tests/unit/data/*.vmt, a synthetic
    one, the hand-made records under four codecs, loop-compressed ones."""
    tmp = tmp_path_factory.mktemp('traces')
    found = {f[:-4]: os.path.join(DATA, f) for f in sorted(os.listdir(DATA)) if f.endswith('.vmt')}
    raw = tmp / 'synth.raw'
    with raw.open('wb') as f:
        subprocess.run([SYNTH, 'mixed', '6000', '7'], stdout=f, check=True)
    run('convert', raw, '-o', tmp / 'synth.vmt')
    found['synth'] = str(tmp / 'synth.vmt')
    (tmp / 'hand.raw').write_bytes(hand_records())
    for codec in ('model', 'zstd', 'xz', 'none'):
        run('convert', tmp / 'hand.raw', '--codec', codec, '-o', tmp / f'hand-{codec}.vmt')
        found[f'hand-{codec}'] = str(tmp / f'hand-{codec}.vmt')
    run('loops', found['hand-model'], '-o', tmp / 'hand-loops.vmt', '--keep', 'times,values')
    found['hand-loops'] = str(tmp / 'hand-loops.vmt')
    (tmp / 'lackey.txt').write_text(lackey_text())
    run('convert', '--from', 'lackey', '--pid', '77', tmp / 'lackey.txt', '-o', tmp / 'lackey.vmt')
    run('loops', tmp / 'lackey.vmt', '-o', tmp / 'lackey-loops.vmt')
    found['lackey'] = str(tmp / 'lackey.vmt')
    found['lackey-loops'] = str(tmp / 'lackey-loops.vmt')
    return found
