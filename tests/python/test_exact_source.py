# SPDX-License-Identifier: GPL-2.0
"""The analyses over exact accesses from Python: on a trace of exact records
alone they read them, as the commands do (`--source exact` by default), and
give what `vmtrace mrc --csv` and `reuse --csv` print; source='faults' finds
no reference there."""
import os
import subprocess

import pytest

import vmtrace
from conftest import run
from test_analyses import same

DIN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'unit',
                   'exact-din.py')


def test_exact_trace(tmp_path):
    din, trace = tmp_path / 'e.din', tmp_path / 'e.vmt'
    subprocess.run(['python3', DIN, '3000', din], check=True)
    run('convert', '--from', 'din', din, '-o', trace)
    with vmtrace.open(trace) as t:
        same(t.mrc(unit='line'), run('mrc', '--csv', '--unit', 'line', trace), 'mrc')
        same(t.mrc(source='exact'), run('mrc', '--csv', '--source', 'exact', trace), 'mrc')
        same(t.reuse(), run('reuse', '--csv', trace), 'reuse')
        with pytest.raises(vmtrace.NoReferences):
            t.mrc(source='faults')
        with pytest.raises(ValueError, match='source'):
            t.mrc(source='fault')
