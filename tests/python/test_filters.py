# SPDX-License-Identifier: GPL-2.0
"""records()'s filters pass what `vmtrace dump`'s options pass, in the same
order; bad filters raise ValueError."""
import numpy as np
import pytest

import vmtrace
from conftest import run
from dumptext import lines


def cases(a):
    """(records() arguments, dump options) pairs, with times, pids, CPUs and
    addresses taken from the trace's records @a."""
    time = np.sort(a['time_ns'])
    t1, t2 = int(time[len(time) // 3]), int(time[2 * len(time) // 3])
    pids = np.unique(a['pid'])
    cpus = np.unique(a['cpu'])
    refs = vmtrace.view(a[a['type'] == vmtrace.TYPES['ref']], 'ref')
    exact = vmtrace.view(a[a['type'] == vmtrace.TYPES['exact']], 'exact')
    addr = np.sort(np.concatenate([refs['vaddr'], exact['addr']]))
    ips = np.sort(np.concatenate([refs['ip'], exact['ip']]))
    out = [
        ({'types': 'ref'}, ['--type', 'ref']),
        ({'types': 'reference'}, ['--type', 'reference']),
        ({'types': ['evict', 'marker', 6]}, ['--type', 'evict,marker,6']),
        ({'types': 'exact,vma,23'}, ['--type', 'exact,vma,23']),
        ({'pids': int(pids[0])}, ['--pid', pids[0]]),
        ({'pids': list(map(int, pids[-2:]))}, ['--pid', ','.join(map(str, pids[-2:]))]),
        ({'cpus': int(cpus[-1])}, ['--cpu', cpus[-1]]),
        ({'start': t1}, ['--from', t1]),
        ({'end': t2}, ['--to', t2]),
        ({'start': t1, 'end': t2, 'order': 'time'}, ['--from', t1, '--to', t2, '--order', 'time']),
        ({'start': t1, 'end': t1}, ['--from', t1, '--to', t1]),
        ({'types': 'ref', 'pids': int(pids[-1]), 'start': t1, 'order': 'time'},
         ['--type', 'ref', '--pid', pids[-1], '--from', t1, '--order', 'time']),
    ]
    if len(addr) > 4:
        lo, hi = int(addr[len(addr) // 4]), int(addr[3 * len(addr) // 4])
        out.append(({'addrs': [(lo, hi), (0, 0x1000)]}, ['--addr', f'{lo:#x}-{hi:#x},0x0-0x1000']))
        out.append(({'addrs': (lo, lo + 1)}, ['--addr', f'{lo:#x}-{lo + 1:#x}']))
        lo, hi = int(ips[len(ips) // 4]), int(ips[len(ips) // 2]) + 1
        out.append(({'ips': [(lo, hi)], 'types': 'ref'}, ['--ip', f'{lo:#x}-{hi:#x}', '--type', 'ref']))
    return out


@pytest.mark.parametrize('name', ['format3-a2d8da3', 'synth', 'hand-model', 'hand-loops', 'lackey-loops'])
def test_filters_are_dumps(traces, name):
    path = traces[name]
    with vmtrace.open(path) as t:
        a = t.records()
        # Each record's dump line, made once (test_records checks them all
        # against dump): a filtered array's lines are looked up by the
        # record's bytes, which hold its data's offset too.
        line_of = dict(zip(a.view('V64').tolist(), lines(t, a)))
        for kwargs, options in cases(a):
            want = run('dump', *options, path).splitlines()
            got = t.records(**kwargs)
            assert [line_of[r] for r in got.view('V64').tolist()] == want, \
                f'records({kwargs}) is not dump {options}'
            assert sum(len(b) for b in t.batches(1000, **kwargs)) == len(want)


def test_bad_filters(traces):
    with vmtrace.open(traces['hand-model']) as t:
        for kwargs in ({'types': 'nope'}, {'types': 32}, {'types': []}, {'pids': []},
                       {'cpus': 70000}, {'pids': -1}, {'start': 5, 'end': 4},
                       {'addrs': [(5, 5)]}, {'ips': []}, {'order': 'random'}):
            with pytest.raises(ValueError):
                t.records(**kwargs)
        # the trace's own filter is left as it was: every record
        assert len(t.records()) == len(t)


def test_max_records(traces):
    with vmtrace.open(traces['synth']) as t:
        n = len(t)
        assert len(t.records(max_records=n)) == n
        with pytest.raises(vmtrace.LimitError):
            t.records(max_records=n - 1)
        with pytest.raises(vmtrace.LimitError):
            t.records(max_records=0)
        assert len(t.records(types='lost', max_records=0)) == 0
