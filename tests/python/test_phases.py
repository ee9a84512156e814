# SPDX-License-Identifier: GPL-2.0
"""Phases between markers from Python: Trace.marker_phases() finds what
`--between-markers` and `--marker` find, and the filters' phases= pass the
records `dump --between-markers` passes, to records() and the analyses
(`mrc --csv --between-markers`) alike; bad ids raise."""
import struct

import numpy as np
import pytest

import vmtrace
from conftest import run
from test_analyses import same


def marked(tmp_path):
    """Two processes referencing pages, one marking phases 1..2 twice (the
    second left open), the other once; a third with no marker."""
    recs = []
    for i in range(3000):
        pid = (10, 20, 30)[i % 3]
        recs.append((1000 + i, pid, 2, struct.pack('<QQQIBBBBII', 0x400000 + (i * 7 % 50) * 4096,
                                                    0, 0x401000, 4, 1, 0, 0, 0, 0, 0)))
    for t, pid, mid in [(1300, 10, 1), (1900, 10, 2), (2500, 10, 1), (1600, 20, 1),
                        (2200, 20, 2), (1000, 20, 2)]:
        recs.append((t, pid, 4, struct.pack('<IIQQQQ', mid, 0, 0, 0, 0, 0)))
    recs.sort(key=lambda r: r[0])
    raw, path = tmp_path / 'm.raw', tmp_path / 'm.vmt'
    raw.write_bytes(b''.join(struct.pack('<QIIHHI', t, pid, pid, typ, 0, 0) + payload
                             for t, pid, typ, payload in recs))
    run('convert', raw, '-o', path)
    return path


def test_phases(tmp_path):
    path = marked(tmp_path)
    with vmtrace.open(path) as t:
        end = (1 << 64) - 1
        assert t.marker_phases(1, 2) == [(10, 1300, 1900), (10, 2500, end), (20, 1600, 2200)]
        assert t.marker_phases(1) == [(10, 1300, 1900), (10, 2500, end), (20, 1600, 2200)]
        for phase, option in [(t.marker_phases(1, 2), ['--between-markers', '1,2']),
                              (t.marker_phases(2), ['--marker', '2'])]:
            got = t.records(phases=phase)
            want = run('dump', *option, path).splitlines()
            assert len(got) == len(want) > 100
            assert [int(line.split()[0]) for line in want] == list(got['time_ns'])
            same(t.mrc(phases=phase), run('mrc', '--csv', *option, path), 'mrc')
            assert np.array_equal(np.concatenate(list(t.batches(100, phases=phase))), got)
        with pytest.raises(ValueError, match='no marker 7'):
            t.marker_phases(7)
        with pytest.raises(ValueError):
            t.marker_phases(-1)
        with pytest.raises(ValueError):
            t.records(phases=[(10, 5, 5)])
        with pytest.raises(vmtrace.TraceError):
            t.records(phases=[(10, 1, 50), (10, 20, 60)])   # overlapping
