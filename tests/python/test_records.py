# SPDX-License-Identifier: GPL-2.0
"""Every field of every record the package reads is what `vmtrace dump`
prints of it, on every test trace; the streams and counts are what
`vmtrace info` says."""
import re

import numpy as np
import pytest

import vmtrace
from conftest import run
from dumptext import lines

ALL = ['format1-1ebf73a', 'format2-3cd2bb1', 'format3-a2d8da3', 'synth', 'hand-model',
       'hand-zstd', 'hand-xz', 'hand-none', 'hand-loops', 'lackey', 'lackey-loops']


@pytest.mark.parametrize('name', ALL)
def test_records_are_dumps(traces, name):
    path = traces[name]
    with vmtrace.open(path) as t:
        for order in ('written', 'time'):
            a = t.records(order=order)
            assert a.dtype == vmtrace.RECORD_DTYPE
            want = run('dump', '--order', order, path).splitlines()
            assert len(a) == len(want) == len(t)
            got = lines(t, a)
            bad = [(g, w) for g, w in zip(got, want) if g != w]
            assert not bad, f'{len(bad)} records differ; first: {bad[0]}'


@pytest.mark.parametrize('name', ['synth', 'hand-model', 'hand-loops', 'lackey-loops'])
def test_batches_are_records(traces, name):
    with vmtrace.open(traces[name]) as t:
        whole = t.records(order='time')
        parts = list(t.batches(97, order='time'))
        assert all(len(p) == 97 for p in parts[:-1]) and 0 < len(parts[-1]) <= 97
        assert np.array_equal(np.concatenate(parts).view('V64'), whole.view('V64'))
        assert sum(len(b) for b in t.batches(1 << 20, types='ref')) == np.count_nonzero(
            whole['type'] == vmtrace.TYPES['ref'])


@pytest.mark.parametrize('name', ['synth', 'hand-model', 'lackey'])
def test_iteration_by_frame(traces, name):
    with vmtrace.open(traces[name]) as t:
        parts = list(t)
        n = t.frame_records()
        assert n >= 1 and all(len(p) == n for p in parts[:-1]) and 0 < len(parts[-1]) <= n
        assert np.array_equal(np.concatenate(parts).view('V64'), t.records().view('V64'))


@pytest.mark.parametrize('name', ALL)
def test_time_span(traces, name):
    """The least first time and greatest last time of info's time column."""
    spans = [(int(a), int(b)) for a, b in
             re.findall(r'^\d+ .* (\d+)\.\.(\d+)$', run('info', traces[name]), re.M)]
    with vmtrace.open(traces[name]) as t:
        want = (min(a for a, _ in spans), max(b for _, b in spans)) if spans else None
        assert t.time_span == want


@pytest.mark.parametrize('name', ALL)
def test_info(traces, name):
    text = run('info', traces[name])
    with vmtrace.open(traces[name]) as t:
        info = t.info()
        assert info['records'] == int(re.search(r'^records: (\d+)$', text, re.M)[1])
        assert info['format_version'] == int(re.search(r'format version (\d+)', text)[1])
        assert info['frames'] == int(re.search(r'(\d+) frames$', text, re.M)[1])
        rows = re.findall(r'^(\d+) +(\S+) +(\S+) +(\d+) +(\d+) +(\d+)', text, re.M)
        assert [(str(s['id']), s['name'], s['kind'], str(s['entry_size']), str(s['entries']),
                 str(s['frames'])) for s in t.streams] == rows
        assert (t.session is None) == ('settings not recorded' in text)
        assert len(t.loops()) == text.count('\nloops: stream')


def test_layout_against_a_dumped_record(traces):
    """A few offsets of the dtypes, by the bytes of a record dump describes."""
    assert vmtrace.RECORD_DTYPE.itemsize == 64
    assert all(d.itemsize == 64 for d in vmtrace.TYPE_DTYPES.values())
    with vmtrace.open(traces['hand-none']) as t:
        a = t.records(types='exact')
        raw = a.view(np.uint8).reshape(len(a), 64)
        first = run('dump', '--type', 'exact', traces['hand-none']).splitlines()[1]
        m = re.match(r'(\d+) exact cpu=(\d+) pid=(\d+) tid=(\d+) addr=(\S+) size=(\d+) '
                     r'access=RW? value=(\S+) ip=(\S+)', first)
        rec = raw[1]
        assert int(m[1]) == int.from_bytes(rec[0:8], 'little')          # time_ns at 0
        assert int(m[3]) == int.from_bytes(rec[8:12], 'little')         # pid at 8
        assert int(m[4]) == int.from_bytes(rec[12:16], 'little')        # tid at 12
        assert int.from_bytes(rec[16:18], 'little') == 15               # type at 16
        assert int(m[2]) == int.from_bytes(rec[18:20], 'little')        # cpu at 18
        assert int(m[5], 16) == int.from_bytes(rec[24:32], 'little')    # exact.addr at 24
        assert int(m[8], 16) == int.from_bytes(rec[32:40], 'little')    # exact.ip at 32
        assert int(m[6]) == int.from_bytes(rec[40:42], 'little')        # exact.size at 40
        e = vmtrace.view(a, 'exact')
        assert e.dtype.fields['value'][1] == 48 and e.dtype.fields['size'][1] == 40
        assert int(m[7], 16) == int.from_bytes(bytes(e['value'][1][:e['size'][1]]), 'little')
        r = vmtrace.view(t.records(types='ref'), 'ref')
        assert r.dtype.fields['vaddr'][1] == 24 and r.dtype.fields['access'][1] == 52


def test_data(traces):
    with vmtrace.open(traces['hand-zstd']) as t:
        m = t.records(types='marker')
        assert t.data(m[0]).startswith(b'phase "2", go\n\t') and len(t.data(m[0])) == 95
        assert t.data(m[1]) is None and t.text(m[1]) is None
        assert t.text(m[2]) == 'end'
        e = t.records(types='exec')
        assert t.text(e[0]) == '/bin/my "prog",x\\y \u20ac \\xc3'
        wide = vmtrace.view(t.records(types='exact'), 'exact')
        wide = wide[wide['size'] > 16]
        assert len(wide) and all(len(t.data(w)) == w['size'] for w in wide)
        with pytest.raises(ValueError):
            t.data(b'short')


def test_view(traces):
    with vmtrace.open(traces['hand-model']) as t:
        a = t.records()
        with pytest.raises(ValueError, match='not of type exact'):
            vmtrace.view(a, 'exact')
        refs = a[a['type'] == vmtrace.TYPES['ref']]
        v = vmtrace.view(refs, 'reference')
        assert np.shares_memory(v, refs)
        assert vmtrace.view(a, 'ref', check=False).shape == a.shape
        with pytest.raises(ValueError, match='unknown record type'):
            vmtrace.view(refs, 'nope')
        with pytest.raises(ValueError, match='not an array of records'):
            vmtrace.view(np.zeros(3, np.uint64), 'ref')


def test_records_grow(traces, monkeypatch):
    """records() with a first allocation smaller than the result (a
    directory that undercounts) grows its array, reads in pieces, and
    returns the same records; max_records bounds it all the same."""
    with vmtrace.open(traces['synth']) as t:
        whole = t.records(order='time')
        monkeypatch.setattr(vmtrace.trace, '_FIRST_ALLOCATION', 7)
        monkeypatch.setattr(vmtrace.trace, '_READ_AT_ONCE', 5)
        for kwargs in ({}, {'types': 'evict'}, {'pids': 4000, 'start': int(whole['time_ns'][99])}):
            want = run('dump', '--order', 'time', *sum(
                ([{'types': '--type', 'pids': '--pid', 'start': '--from'}[k], str(v)]
                 for k, v in kwargs.items()), []), traces['synth']).splitlines()
            got = t.records(order='time', **kwargs)
            assert got.flags.owndata and got.flags.c_contiguous
            assert len(got) == len(want) and lines(t, got[:50]) == want[:50]
        assert np.array_equal(t.records(order='time').view('V64'), whole.view('V64'))
        with pytest.raises(vmtrace.LimitError):
            t.records(max_records=len(whole) - 1)
        assert len(t.records(max_records=len(whole))) == len(whole)
