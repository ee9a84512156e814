# SPDX-License-Identifier: GPL-2.0
"""A trace set (a set file: docs/FORMAT.md, "Trace sets") reads from Python
as the trace its files were cut from: every record and field in written and
in time order, the analyses; Trace.files names the files and how much each
one's times moved."""
import subprocess

import numpy as np

import vmtrace
from conftest import SYNTH, run


def cut(tmp_path):
    """A synthetic trace, and a set of it cut by time into three files."""
    raw = tmp_path / 'whole.raw'
    with open(raw, 'wb') as f:
        subprocess.run([SYNTH, 'mixed', '20000', '4'], stdout=f, check=True)
    whole = tmp_path / 'whole.vmt'
    run('convert', raw, '-o', whole, '--frame-bytes', 65536)
    bounds = [('--to', 1013000000), ('--from', 1013000001, '--to', 1026000000),
              ('--from', 1026000001)]
    for i, b in enumerate(bounds, 1):
        run('export', '--format', 'raw', *b, whole, '-o', tmp_path / f'{i}.raw')
        run('convert', tmp_path / f'{i}.raw', '-o', tmp_path / f'{i}.vmt', '--frame-bytes', 16384)
    names = tmp_path / 'set.vmts'
    names.write_text('vmtrace trace set\n1.vmt\n2.vmt\n# the last\n3.vmt\n')
    return whole, names


def test_set_reads_as_the_whole(tmp_path):
    whole, names = cut(tmp_path)
    with vmtrace.open(whole) as w, vmtrace.open(names) as s:
        assert w.files == []
        assert s.files == [(str(tmp_path / f'{i}.vmt'), 0) for i in (1, 2, 3)]
        for order in ('written', 'time'):
            a, b = w.records(order=order), s.records(order=order)
            assert len(a) == len(b) > 3 * 10000
            assert np.array_equal(a, b), order
        assert s.mrc().equals(w.mrc())
        assert s.reuse().equals(w.reuse())


def test_set_of_one_trace_twice(tmp_path):
    whole, _ = cut(tmp_path)
    names = tmp_path / 'twice.vmts'
    names.write_text(f'vmtrace trace set\nwhole.vmt\n{whole}\n')
    with vmtrace.open(whole) as w, vmtrace.open(names) as s:
        (first, none), (second, shift) = s.files
        assert (first, none) == (str(whole), 0) and second == str(whole)
        first_time, last_time = w.time_span
        assert shift == last_time + 1 - first_time
        a, b = w.records(order='time'), s.records(order='time')
        assert len(b) == 2 * len(a)
        assert np.array_equal(b[len(a):]['time_ns'], a['time_ns'] + shift)
