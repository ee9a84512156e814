# SPDX-License-Identifier: GPL-2.0
"""vmtrace.write() makes trace files the commands read: a trace's records
and data written back under each codec read back identical, `vmtrace dump`
of the copy is the source's dump, the analyses see the same trace, and bad
input raises."""
import numpy as np
import pytest

import vmtrace
from conftest import run
from dumptext import lines

CASES = [('hand-model', 'model'), ('hand-zstd', 'zstd'), ('hand-xz', 'xz'),
         ('hand-loops', 'none'), ('synth', 'model'), ('lackey', 'zstd'),
         ('format3-a2d8da3', 'model'), ('format1-1ebf73a', 'xz')]


def contents(path):
    with vmtrace.open(path) as t:
        a = t.records()
        return a, [t.data(r) for r in a], t.session


@pytest.mark.parametrize('name,codec', CASES)
def test_write_reads_back(traces, tmp_path, name, codec):
    a, data, session = contents(traces[name])
    out = tmp_path / f'{name}.vmt'
    assert vmtrace.write(out, a, data, codec=codec, session=session) == len(a)
    b, data2, session2 = contents(out)
    assert np.array_equal(a.view('V64'), b.view('V64'))
    assert data == data2 and session == session2
    assert run('dump', out) == run('dump', traces[name])
    run('verify', out)
    if name == 'format3-a2d8da3':
        for cmd in (['mrc', '--csv', '--policy', 'lru,fifo'], ['reuse', '--csv'],
                    ['stats']):
            assert run(*cmd, out).replace(str(out), 'T') == \
                run(*cmd, traces[name]).replace(traces[name], 'T')


def test_write_views_and_parts(traces, tmp_path):
    """A typed view, a slice and a selection of one type are written as they are."""
    a, data, _ = contents(traces['hand-model'])
    refs = vmtrace.view(a[a['type'] == vmtrace.TYPES['ref']], 'ref')
    vmtrace.write(tmp_path / 'refs.vmt', refs, codec='zstd', level=3, frame_bytes=4096)
    assert run('dump', tmp_path / 'refs.vmt') == run('dump', '--type', 'ref', traces['hand-model'])
    part = slice(100, 300)
    vmtrace.write(tmp_path / 'part.vmt', a[part], data[part], workers=2)
    b, d2, session = contents(tmp_path / 'part.vmt')
    assert d2 == data[part] and session is None
    with vmtrace.open(traces['hand-model']) as t:      # the data's offsets are the copy's own
        assert run('dump', tmp_path / 'part.vmt').splitlines() == lines(t, a[part])
    vmtrace.write(tmp_path / 'empty.vmt', a[:0])
    assert run('info', tmp_path / 'empty.vmt').count('records: 0') == 1


def test_write_bad_input(traces, tmp_path):
    a, data, _ = contents(traces['hand-model'])
    with_data = int(np.flatnonzero(a['data_len'])[0])
    out = tmp_path / 'bad.vmt'
    data_record = a[:1].copy()
    data_record['type'] = vmtrace.TYPES['data']
    for args, kwargs in [
            ((np.zeros(3, np.uint64),), {}),                    # not records
            ((a.reshape(1, -1),), {}),                          # not one-dimensional
            ((a, data[:-1]), {}),                               # data of another length
            ((a,), {}),                                         # data_len without data
            ((a, [None] * len(a)), {}),
            ((a, data[:with_data] + [b'x'] + data[with_data + 1:]), {}),   # wrong length
            ((a[:1], [b'extra']), {}) if not a['data_len'][0] else ((a[:0],), {'codec': 'lz4'}),
            ((data_record, [None]), {}),                        # a DATA record
            ((a, data), {'codec': 'lz4'}),
            ((a, data), {'stage2': 'none'}),
            ((a, data), {'session': {'nope': 1}})]:
        with pytest.raises(ValueError):
            vmtrace.write(out, *args, **kwargs)
        assert not out.exists()
    with pytest.raises(vmtrace.TraceError):
        vmtrace.write(tmp_path / 'no' / 'such' / 'dir.vmt', a, data)
