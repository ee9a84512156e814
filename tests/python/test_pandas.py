# SPDX-License-Identifier: GPL-2.0
"""to_pandas(TYPE) is `vmtrace export --format csv --type TYPE`: the same
columns, and in each the same values, row for row."""
import csv
import re

import pandas as pd
import pytest

import vmtrace
from vmtrace.frames import columns
from conftest import run

TEXTS = {'name', 'dev', 'file', 'exe', 'text', 'comm'}
TYPES = ['lost', 'ref', 'evict', 'marker', 'switch', 'fork', 'exec', 'exit', 'comm', 'vma',
         'task', 'dma', 'pagemap', 'exact', 'none', 23]


def unescape(cell):
    """The bytes a CSV cell of export's print_escaped() holds, decoded as to_pandas decodes."""
    data = re.sub(rb'\\(\\|x([0-9a-f]{2}))',
                  lambda m: bytes([int(m[2], 16)]) if m[2] else b'\\',
                  cell.encode('utf-8', 'surrogateescape'))
    return data.decode('utf-8', 'backslashreplace')


def text_of(value):
    """A DataFrame cell as export's CSV writes it (texts unescaped)."""
    if value is None:
        return ''
    if isinstance(value, bool) or type(value).__name__ == 'bool_':
        return str(int(value))
    return str(value)


@pytest.mark.parametrize('name', ['format3-a2d8da3', 'synth', 'hand-model', 'hand-loops',
                                  'lackey-loops'])
def test_to_pandas_is_export_csv(traces, name, tmp_path):
    path = traces[name]
    with vmtrace.open(path) as t:
        for type in TYPES:
            out = tmp_path / f'{type}.csv'
            run('export', '--format', 'csv', '--type', type, path, '-o', out, check=False)
            with open(out, newline='', encoding='utf-8', errors='surrogateescape') as f:
                rows = list(csv.reader(f))
            df = t.to_pandas(type)
            assert isinstance(df, pd.DataFrame)
            assert list(df.columns) == rows[0] == columns(type), type
            assert len(df) == len(rows) - 1, type
            for i, column in enumerate(rows[0]):
                want = [r[i] for r in rows[1:]]
                if column in TEXTS:
                    want = [unescape(w) for w in want]
                got = [text_of(v) for v in df[column].tolist()]
                assert got == want, f'{name}: {type}.{column}'


def test_to_pandas_types(traces):
    with vmtrace.open(traces['hand-model']) as t:
        ref = t.to_pandas('ref')
        assert str(ref['addr'].dtype) == 'uint64' and str(ref['access'].dtype) == 'category'
        assert ref['huge'].dtype == bool and set(ref['mode']) == {'user', 'kernel'}
        vma = t.to_pandas('vma', pids=10)
        assert vma['name'].tolist() == ['/lib/libc.so.6', None, '[v"d,s\\o]']
        assert len(t.to_pandas('ref', start=1000, end=2000)) == len(t.records(types='ref',
                                                                           start=1000, end=2000))
        with pytest.raises(TypeError):
            t.to_pandas('ref', types='evict')
