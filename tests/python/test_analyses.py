# SPDX-License-Identifier: GPL-2.0
"""The analyses as calls (Trace.mrc, reuse, wss, heatmap, hmtt, cachesim)
give what `vmtrace mrc|reuse|wss|heatmap|hmtt|cachesim --csv` prints, cell
for cell (floats as the command rounds them), with the same options; the
summaries are what their text output says; bad arguments raise."""
import csv
import io
import re

import numpy as np
import pytest

import vmtrace
from conftest import run


def cell(value, want):
    """@value (the DataFrame's) as the CSV writes it, @want being the CSV's cell."""
    if isinstance(value, str) or value is None:
        return '' if value is None else value
    if '.' in want:
        return f'{float(value):.{len(want.split(".")[1])}f}'
    return str(int(value))


def same(df, text, name):
    """DataFrame @df is the CSV @text (header and rows)."""
    rows = list(csv.reader(io.StringIO(text)))
    assert list(df.columns) == rows[0], name
    assert len(df) == len(rows) - 1, name
    for i, (got, want) in enumerate(zip(df.itertuples(index=False), rows[1:])):
        assert [cell(g, w) for g, w in zip(got, want)] == want, f'{name}: row {i}'


def test_mrc(traces):
    path = traces['format3-a2d8da3']
    with vmtrace.open(path) as t:
        for kwargs, options in [
                ({}, []),
                ({'policies': 'lru,fifo,clock,opt', 'sizes': [1, 3, 8, 20, 100, 5000]},
                 ['--policy', 'lru,fifo,clock,opt', '--sizes', '1,3,8,20,100,5000']),
                ({'policies': ['lru'], 'sample': 0.5, 'unit': 'line'},
                 ['--sample', '0.5', '--unit', 'line']),
                ({'policies': 'fifo', 'per_process': True, 'space': 'physical'},
                 ['--policy', 'fifo', '--per-process', '--space', 'physical']),
                ({'pids': 4000, 'start': 2000000, 'types': 'ref'},
                 ['--pid', '4000', '--from', '2000000', '--type', 'ref'])]:
            df = t.mrc(**kwargs)
            same(df, run('mrc', '--csv', *options, path), f'mrc {options}')
            text = run('mrc', *options, path)
            assert f'footprint {df.attrs["footprint"]:,} ' in text


def test_mrc_synth_per_process(traces):
    path = traces['synth']
    with vmtrace.open(path) as t:
        df = t.mrc('lru,opt', per_process=True, addr=(0x7f0000000000, 1 << 47))
        same(df, run('mrc', '--csv', '--policy', 'lru,opt', '--per-process', '--addr',
                     f'0x7f0000000000-{1 << 47:#x}', path), 'mrc synth')
        assert df['pid'][0] == 'all' and len(set(df['pid'])) > 1


def test_reuse(traces):
    for name, kwargs, options in [
            ('format3-a2d8da3', {}, []),
            ('format3-a2d8da3', {'top': 3, 'unit': 'line', 'per_process': True},
             ['--top', '3', '--unit', 'line', '--per-process']),
            ('hand-model', {'space': 'physical', 'cpus': [1]},
             ['--space', 'physical', '--cpu', '1'])]:
        path = traces[name]
        with vmtrace.open(path) as t:
            df = t.reuse(**kwargs)
            same(df, run('reuse', '--csv', *options, path), f'reuse {options}')
            text = run('reuse', *options, path)
            s = df.attrs['summary'].iloc[0]
            assert (f'all: {s.references:,} references, {s.footprint:,} units, '
                    f'{s.reuses:,} reuses') in text
            assert (f'reuse distance mean: {s.distance_mean:.2f}, median: '
                    f'{s.distance_median:,}, max: {s.distance_max:,}') in text
            assert f'reuse time mean: {s.time_mean:.2f}, median: {s.time_median:,}' in text
            top = df.attrs['top']
            rows = re.findall(r'^ +(0x[0-9a-f]+|0) +(\d+) +([\d,]+) +([\d,]+)$', text, re.M)
            assert [(f'{a:#x}' if a else '0', str(p), f'{r:,}', f'{d:,}') for a, p, r, d in
                    top.itertuples(index=False)] == rows[:len(top)]


def test_wss(traces):
    for name, kwargs, options in [
            ('format3-a2d8da3', {'window': '1ms'}, ['--window', '1ms']),
            ('synth', {'window': 250000, 'per_process': True, 'unit': 'line'},
             ['--window', '250us', '--per-process', '--unit', 'line']),
            ('hand-model', {'window': '2us', 'space': 'physical', 'end': 8000},
             ['--window', '2us', '--space', 'physical', '--to', '8000'])]:
        path = traces[name]
        with vmtrace.open(path) as t:
            df = t.wss(**kwargs)
            csv_df = df.drop(columns='references')
            same(csv_df, run('wss', '--csv', *options, path), f'wss {options}')
            text = run('wss', *options, path)
            for s in df.attrs['summary'].itertuples(index=False):
                who = 'all' if s.pid == 'all' else f'pid {s.pid}'
                assert (f'# {who}: {s.windows:,} windows, {s.empty_windows:,} of them without '
                        f'a reference\n# avr: {s.mean_units:.1f} pages') in text
                table = re.search(rf'^# {who}: .*\n.*\n.*\n((?:.*\n){{7}})', text, re.M)[1]
                assert [int(r.split()[1].replace(',', '')) for r in table.splitlines()] == \
                    [getattr(s, f'p{p}') for p in (0, 25, 50, 75, 90, 99, 100)]


def heatmap_cells(df):
    grid = df.to_numpy()
    return [[f'{df.columns[c]:.9f}', str(df.index[r]), str(grid[r, c])]
            for r, c in zip(*np.nonzero(grid))]


def test_heatmap(traces):
    for name, kwargs, options in [
            ('format3-a2d8da3', {}, []),
            ('synth', {'rows': 7, 'cols': 11, 'pids': 4017}, ['--resolution', '7x11', '--pid', '4017']),
            ('hand-model', {'rows': 5, 'cols': 9, 'space': 'physical'},
             ['--resolution', '5x9', '--space', 'physical'])]:
        path = traces[name]
        with vmtrace.open(path) as t:
            df = t.heatmap(**kwargs)
            text = run('heatmap', '--csv', *options, path)
            rows = list(csv.reader(line for line in text.splitlines() if not line.startswith('#')))
            assert rows[0] == ['time_s', 'address', 'count']
            assert heatmap_cells(df) == rows[1:], f'heatmap {options}'
            assert df.shape == (len(df.attrs['row_end']), kwargs.get('cols', 80))
            assert int(df.to_numpy().sum()) == df.attrs['references']
            if df.attrs['pid'] is not None:
                assert f'# pid {df.attrs["pid"]}: the process with the most' in text
    with vmtrace.open(traces['synth']) as t:
        each = t.heatmap(6, 10, per_process=True)
        text = run('heatmap', '--csv', '--resolution', '6x10', '--per-process', traces['synth'])
        blocks = re.split(r'^time_s,address,count\n', text, flags=re.M)[1:]
        assert len(blocks) == len(each) == 2
        for df, block in zip(each.values(), blocks):
            assert heatmap_cells(df) == list(csv.reader(
                line for line in block.splitlines() if line and not line.startswith('#')))


HMTT_TABLES = {'start_s,duration_s': 'traffic_bandwidth', 'start_s': 'dma', 'size_lo': 'dma_sizes',
               'pages': 'v2p', 'references,processes': 'interleave', 'run_length_lo': 'runs',
               'space,window,stride_lo': 'scr_strides', 'space,accesses': 'dram',
               'space,window': 'scr', 'window': 'scr_lost', 'view': 'prefetch',
               'bit': 'dram_bits', 'pid,name': 'interleave_processes',
               'pid,run_length': 'run_cdf', 'device,direction,requests': 'dma_devices',
               'device,direction,size_lo': 'dma_device_sizes', 'kind': 'traffic',
               'mode': 'traffic_modes', 'traffic': 'traffic_untranslatable'}


def hmtt_tables(text):
    """hmtt --csv's tables by the names hmtt() gives them: {who: {name: text}}."""
    out, who = {}, 'all'
    for block in text.strip('\n').split('\n\n'):
        header = block.split('\n', 1)[0]
        if header == 'pid':
            who = int(block.split('\n')[1])
            continue
        tables = out.setdefault(who, {})
        if header.startswith('mappings_lo'):
            name = 'v2p_frames' if 'v2p_pages' in tables else 'v2p_pages'
        else:
            name = next(n for h, n in HMTT_TABLES.items() if header.startswith(h + ','))
        if name in ('dma', 'traffic_bandwidth') and '\nall,' in block:
            block, total = block.split('\nall,')
            tables[name + '_total'] = header.split(',', 1)[1] + '\n' + total + '\n'
        tables[name] = block + '\n'
    return out


def test_hmtt(traces):
    for name, kwargs, options in [
            ('hand-model', {}, []),
            ('hand-model', {'window': '3us', 'sections': 'dma,scr', 'scr_window': 5},
             ['--window', '3us', '--section', 'dma,scr', '--scr-window', '5']),
            ('hand-model', {'sections': 'scr,prefetch', 'scr_window': [8, 3, 16],
                            'prefetch_trackers': 1, 'prefetch_degree': 4},
             ['--section', 'scr,prefetch', '--scr-window', '8,3,16', '--prefetch-trackers', '1',
              '--prefetch-degree', '4']),
            ('lackey', {'sections': 'prefetch', 'unit': 'line'},
             ['--section', 'prefetch', '--unit', 'line']),
            ('synth', {'per_process': True, 'unit': 'line'}, ['--per-process', '--unit', 'line']),
            ('format3-a2d8da3', {'sections': ['v2p', 'interleave'], 'space': 'physical'},
             ['--section', 'v2p,interleave', '--space', 'physical']),
            # dram on physical addresses (the default), on virtual ones, through a
            # preset and through bits given, each process too
            ('synth', {'sections': 'dram,scr', 'per_process': True},
             ['--section', 'dram,scr', '--per-process']),
            ('hand-model', {'sections': 'dram', 'space': 'virtual', 'dram_map': 'ddr5-2ch',
                            'dram_window': 7},
             ['--section', 'dram', '--space', 'virtual', '--dram-map', 'ddr5-2ch',
              '--dram-window', '7']),
            ('synth', {'sections': ['dram'], 'dram_map': 'ch=7;bank=13^20,14;row=15-30'},
             ['--section', 'dram', '--dram-map', 'ch=7;bank=13^20,14;row=15-30']),
            ('lackey', {'sections': 'dram'}, ['--section', 'dram'])]:
        path = traces[name]
        with vmtrace.open(path) as t:
            got = t.hmtt(**kwargs)
            want = hmtt_tables(run('hmtt', '--csv', *options, path))
            if not kwargs.get('per_process'):
                got = {'all': got}
            assert list(got) == list(want), name
            for who in want:
                for t in ('dma', 'traffic_bandwidth'):
                    if t in want[who] and t + '_total' not in want[who]:
                        assert len(got[who][t]) == 1    # the total is the one interval's
                        got[who].pop(t + '_total')
                assert sorted(got[who]) == sorted(want[who]), f'{name} {who}'
                for table, text in want[who].items():
                    same(got[who][table], text, f'hmtt {options} {who} {table}')
    with vmtrace.open(traces['synth']) as t, pytest.raises(vmtrace.NoReferences):
        t.hmtt('dma')


def test_hmtt_device_names(tmp_path):
    """Device names with a comma, a quote, a backslash and bytes outside
    printable ASCII: hmtt()'s dma tables hold the command's CSV cells."""
    import struct
    out = bytearray()

    def rec(t, typ, payload, data=b''):
        out.extend(struct.pack('<QIIHHI', t, 1, 1, typ, 0, len(data)) + payload.ljust(40, b'\0'))
        for off in range(0, len(data), 40):
            out.extend(struct.pack('<QIIHHI', t, 1, 1, 5, 0, len(data[off:off + 40])) +
                       data[off:off + 40].ljust(40, b'\0'))
    rec(0, 2, struct.pack('<QQQIBBBBII', 0x10000, 0x100, 0, 4, 1, 0, 0, 0, 0, 0))
    for i, name in enumerate([b'dev\\x\x01\xe9', b'a,"b"', b'plain']):
        rec(10 + i, 13, struct.pack('<QQIBBBBHHIQ', 0, 0x200000, 4096 * (i + 1), 0, 1, 1, 0, 0, 1,
                                    0, 0), name)
    raw = tmp_path / 'names.raw'
    raw.write_bytes(bytes(out))
    path = tmp_path / 'names.vmt'
    run('convert', raw, '-o', path)
    with vmtrace.open(path) as t:
        got = t.hmtt('dma')
    want = hmtt_tables(run('hmtt', '--csv', '--section', 'dma', path))['all']
    for table in ('dma_devices', 'dma_device_sizes'):
        same(got[table], want[table], f'hmtt device names {table}')
    assert 'dev\\\\x\\x01\\xe9' in list(got['dma_devices']['device'])


def test_cachesim(traces, tmp_path):
    config = tmp_path / 'two.conf'
    config.write_text('cache L1\n size 4k\n assoc 2\n line 64\n'
                      'cache L2\n size 64k\n assoc 8\n line 64\n policy srrip\n')
    for name, kwargs, options in [
            ('lackey', {}, []),
            ('lackey', {'cache': ['L1=1k:2:64:fifo', 'L2=8k:4:64'], 'tlb': 'DTLB=16:4',
                        'prefetch': True, 'preset': 'psnap1', 'config': str(config), 'top': 3},
             ['--cache', 'L1=1k:2:64:fifo', '--cache', 'L2=8k:4:64', '--tlb', 'DTLB=16:4',
              '--prefetch', '--config', config, '--preset', 'psnap1', '--top', '3']),
            ('lackey-loops', {'cores': 2, 'core_by': 'thread', 'per_thread': True,
                              'no_classify': True, 'threads': 2, 'batch': 100},
             ['--cores', '2', '--core-by', 'thread', '--per-thread', '--no-classify', '-j', '2',
              '--batch', '100']),
            ('hand-model', {'by_marker': True, 'preset': 'drcachesim', 'seed': 5},
             ['--by-marker', '--preset', 'drcachesim', '--seed', '5']),
            ('format3-a2d8da3', {'per_process': True, 'space': 'physical', 'pids': [4000, 4001]},
             ['--per-process', '--space', 'physical', '--pid', '4000,4001'])]:
        path = traces[name]
        with vmtrace.open(path) as t:
            df = t.cachesim(**kwargs)
            same(df, run('cachesim', '--csv', *options, path), f'cachesim {options}')
            totals = df.attrs['totals']
            text = run('cachesim', *options, path)
            assert f'# {totals["reads"]:,} reads, {totals["writes"]:,} writes' in text
            if kwargs.get('top'):
                rows = re.findall(r'^ +(0x[0-9a-f]+) +(\d+) +(\d+) +(\d+) ', text, re.M)
                assert [(f'{ip:#x}', str(p), str(m), str(l1)) for _, ip, p, m, l1 in
                        df.attrs['top'].itertuples(index=False)] == rows


def test_bad_arguments(traces):
    with vmtrace.open(traces['format3-a2d8da3']) as t:
        for call, kwargs in [
                (t.mrc, {'policies': 'lfu'}), (t.mrc, {'sizes': [0]}), (t.mrc, {'sample': 1.5}),
                (t.mrc, {'space': 'both'}), (t.mrc, {'unit': 'byte'}), (t.mrc, {'addr': (5, 5)}),
                (t.mrc, {'pids': []}), (t.reuse, {'top': -1}), (t.wss, {'window': 0}),
                (t.wss, {'window': '10 parsecs'}), (t.heatmap, {'rows': 0}),
                (t.heatmap, {'cols': 5000}), (t.hmtt, {'sections': 'dma,nope'}),
                (t.hmtt, {'scr_window': 2}), (t.hmtt, {'sections': 'dram', 'dram_window': 1}),
                (t.hmtt, {'sections': 'dram', 'dram_map': 'ddr9'}),
                (t.hmtt, {'sections': 'dram', 'dram_map': 'row=17-64;bank=3'}),
                (t.cachesim, {'cache': 'L1=3k:5:64'}),
                (t.cachesim, {'preset': 'nope'}), (t.cachesim, {'prefetch': True}),
                (t.cachesim, {'per_thread': True, 'per_process': True}),
                (t.cachesim, {'core_by': 'socket'}), (t.cachesim, {'cores': 0})]:
            with pytest.raises(ValueError):
                call(**kwargs)
        with pytest.raises(vmtrace.NoReferences, match='no references pass the filters'):
            t.mrc(pids=12345)
        with pytest.raises(vmtrace.NoReferences):
            t.reuse(addr=(0, 4096))
        # the trace's filter is as it was: every record
        assert len(t.records()) == len(t)
    # A trace of exact accesses alone: they are its references, page faults it has none.
    with vmtrace.open(traces['lackey']) as t:
        assert t.mrc()['references'].iloc[0] > 0
        with pytest.raises(vmtrace.NoReferences):
            t.mrc(source='faults')
    assert 'cachegrind' in vmtrace.presets()
