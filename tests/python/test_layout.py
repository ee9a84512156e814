# SPDX-License-Identifier: GPL-2.0
"""The package's structs and dtypes are the C headers': every field's offset
and size, every struct's size and the constants, as a program compiled with
include/uapi/linux/vmtrace.h and user/lib/include/vmtrace/trace.h prints them."""
import ctypes
import os
import subprocess

import pytest

import vmtrace
from vmtrace import _lib
from conftest import TOP

STRUCTS = {
    _lib.RecordHeader: 'vmt_record_header', _lib.Lost: 'vmt_lost',
    _lib.Reference: 'vmt_reference', _lib.Data: 'vmt_data', _lib.Switch: 'vmt_switch',
    _lib.Fork: 'vmt_fork', _lib.Exec: 'vmt_exec', _lib.Exit: 'vmt_exit', _lib.Comm: 'vmt_comm',
    _lib.Task: 'vmt_task', _lib.Vma: 'vmt_vma', _lib.Dma: 'vmt_dma',
    _lib.Pagemap: 'vmt_pagemap', _lib.Marker: 'vmt_marker', _lib.Exact: 'vmt_exact',
    _lib.Record: 'vmt_record', _lib.Session: 'vmt_trace_session', _lib.Error: 'vmt_trace_error',
    _lib.StreamInfo: 'vmt_trace_stream_info', _lib.StreamStats: 'vmt_trace_stream_stats',
    _lib.Range: 'vmt_trace_range', _lib.Filter: 'vmt_trace_filter',
    _lib.LoopsThread: 'vmt_trace_loops_thread',
    # analysis.h, cachesim.h and the writer's (vmtrace.analyses, vmtrace.writer)
    _lib.RefOptions: 'vmt_ref_options', _lib.AnalyzeStats: 'vmt_analyze_stats',
    _lib.MrcOptions: 'vmt_mrc_options', _lib.ReuseHistogram: 'vmt_reuse_histogram',
    _lib.ReuseUnit: 'vmt_reuse_unit', _lib.WssWindow: 'vmt_wss_window',
    _lib.WssSummary: 'vmt_wss_summary', _lib.HeatmapOptions: 'vmt_heatmap_options',
    _lib.HeatmapSegment: 'vmt_heatmap_segment', _lib.HeatmapRow: 'vmt_heatmap_row',
    _lib.HistBucket: 'vmt_hist_bucket', _lib.DmaInterval: 'vmt_dma_interval',
    _lib.DmaSizeBucket: 'vmt_dma_size_bucket', _lib.V2pResult: 'vmt_v2p_result',
    _lib.InterleaveResult: 'vmt_interleave_result', _lib.ScrResult: 'vmt_scr_result',
    _lib.DramMap: 'vmt_dram_map', _lib.DramResult: 'vmt_dram_result',
    _lib.InterleaveProcess: 'vmt_interleave_process',
    _lib.InterleaveLength: 'vmt_interleave_length',
    _lib.ScrStrideBucket: 'vmt_scr_stride_bucket', _lib.PrefetchConfig: 'vmt_prefetch_config',
    _lib.PrefetchResult: 'vmt_prefetch_result',
    _lib.CacheConfig: 'vmt_cache_config', _lib.TlbConfig: 'vmt_tlb_config',
    _lib.HierarchyConfig: 'vmt_hierarchy_config', _lib.CachesimOptions: 'vmt_cachesim_options',
    _lib.CacheCounts: 'vmt_cache_counts', _lib.CachesimTotals: 'vmt_cachesim_totals',
    _lib.CachesimRow: 'vmt_cachesim_row', _lib.CachesimTop: 'vmt_cachesim_top',
    _lib.WriterOptions: 'vmt_trace_writer_options',
}
# struct vmt_record's union member of each record type
MEMBERS = {'lost': 'lost', 'ref': 'ref', 'evict': 'ref', 'marker': 'marker', 'data': 'data',
           'switch': 'sw', 'fork': 'fork', 'exec': 'exec', 'exit': 'exit', 'comm': 'comm',
           'vma': 'vma', 'task': 'task', 'dma': 'dma', 'pagemap': 'pagemap', 'exact': 'exact'}
CONSTANTS = {
    'VMT_RECORD_SIZE': _lib.RECORD_SIZE, 'VMT_MAX_DATA_LEN': _lib.MAX_DATA_LEN,
    'VMT_COMM_LEN': _lib.COMM_LEN, 'VMT_REF_HUGE': _lib.REF_HUGE,
    'VMT_EVICT_DIRTY': _lib.EVICT_DIRTY, 'VMT_EVICT_ACCESSED': _lib.EVICT_ACCESSED,
    'VMT_DATA_DROPPED': _lib.DATA_DROPPED, 'VMT_EXACT_STRING': _lib.EXACT_STRING,
    'VMT_EXACT_SPLIT': _lib.EXACT_SPLIT, 'VMT_EXACT_STACK': _lib.EXACT_STACK,
    'VMT_PROT_READ': _lib.PROT_READ, 'VMT_PROT_WRITE': _lib.PROT_WRITE,
    'VMT_PROT_EXEC': _lib.PROT_EXEC, 'VMT_PROT_SHARED': _lib.PROT_SHARED,
    'VMT_TRACE_NO_TIME': _lib.NO_TIME, 'VMT_TRACE_ANY_CPU': _lib.ANY_CPU,
    'VMT_TRACE_ANY_TYPE': _lib.ANY_TYPE, 'VMT_ORDER_WRITTEN': _lib.ORDER_WRITTEN,
    'VMT_ORDER_TIME': _lib.ORDER_TIME, 'VMT_STREAM_RECORDS': _lib.STREAM_RECORDS,
    'VMT_NAMES_ACCESS': _lib.NAMES_ACCESS, 'VMT_NAMES_CAUSE': _lib.NAMES_CAUSE,
    'VMT_NAMES_MODE': _lib.NAMES_MODE, 'VMT_NAMES_VMA_OP': _lib.NAMES_VMA_OP,
    'VMT_NAMES_VMA_CAUSE': _lib.NAMES_VMA_CAUSE, 'VMT_NAMES_VMA_KIND': _lib.NAMES_VMA_KIND,
    'VMT_NAMES_DMA_OP': _lib.NAMES_DMA_OP, 'VMT_NAMES_DMA_DIR': _lib.NAMES_DMA_DIR,
    'VMT_NAMES_PAGEMAP_OP': _lib.NAMES_PAGEMAP_OP, 'VMT_NAMES_EXACT_BUS': _lib.NAMES_EXACT_BUS,
    'VMT_EXACT_BUS_SHIFT': _lib.EXACT_BUS_SHIFT,
    'VMT_DRAM_NR_FIELDS': _lib.DRAM_NR_FIELDS,
    'VMT_DRAM_MAX_FIELD_BITS': _lib.DRAM_MAX_FIELD_BITS,
    'VMT_DRAM_MIN_WINDOW': _lib.DRAM_MIN_WINDOW, 'VMT_DRAM_MAX_WINDOW': _lib.DRAM_MAX_WINDOW,
    'VMT_REF_PHYSICAL': _lib.REF_PHYSICAL, 'VMT_REF_LINE': _lib.REF_LINE,
    'VMT_REUSE_BUCKETS': _lib.REUSE_BUCKETS, 'VMT_WSS_MAX_PERCENTILES': _lib.WSS_MAX_PERCENTILES,
    'VMT_HEATMAP_MAX_ROWS': _lib.HEATMAP_MAX_ROWS, 'VMT_HEATMAP_MAX_COLS': _lib.HEATMAP_MAX_COLS,
    'VMT_DMA_SIZE_BUCKETS': _lib.DMA_SIZE_BUCKETS, 'VMT_SCR_MIN_WINDOW': _lib.SCR_MIN_WINDOW,
    'VMT_INTERLEAVE_SHORT_RUN': _lib.INTERLEAVE_SHORT_RUN,
    'VMT_SCR_MAX_WINDOW': _lib.SCR_MAX_WINDOW, 'VMT_CACHE_NAME_MAX': _lib.CACHE_NAME_MAX,
    'VMT_SCR_STRIDE_BUCKETS': _lib.SCR_STRIDE_BUCKETS,
    'VMT_SCR_RINGS_PROCESS': _lib.SCR_RINGS_PROCESS, 'VMT_SCR_RINGS_MERGED': _lib.SCR_RINGS_MERGED,
    'VMT_PREFETCH_CONFIRM': _lib.PREFETCH_CONFIRM,
    'VMT_PREFETCH_MAX_TRACKERS': _lib.PREFETCH_MAX_TRACKERS,
    'VMT_PREFETCH_MAX_DEGREE': _lib.PREFETCH_MAX_DEGREE,
    'VMT_CACHES_MAX': _lib.CACHES_MAX, 'VMT_TLBS_MAX': _lib.TLBS_MAX,
    'VMT_HIERARCHY_NAME_MAX': _lib.HIERARCHY_NAME_MAX,
    'VMT_CACHE_MAX_CORES': _lib.CACHE_MAX_CORES, 'VMT_CACHESIM_ALL': _lib.CACHESIM_ALL,
    'VMT_MRC_NR_POLICIES': len(_lib.MRC_POLICIES),
    **{f'VMT_STREAM_{k.upper()}': i for i, k in enumerate(_lib.STREAM_KINDS)},
    **{f'VMT_REC_{k.upper()}': v for k, v in vmtrace.TYPES.items() if k != 'ref'},
    'VMT_REC_REFERENCE': vmtrace.TYPES['ref'],
}


@pytest.fixture(scope='module')
def c_layout(tmp_path_factory):
    """{"struct.field": (offset, size)}, {"struct": size} and {"CONSTANT": value}, from C."""
    tmp = tmp_path_factory.mktemp('layout')
    body = []
    for struct, c in STRUCTS.items():
        body.append(f'printf("size {c} %zu\\n", sizeof(struct {c}));')
        for field, _ in struct._fields_:
            body.append(f'printf("field {c}.{field} %zu %zu\\n", offsetof(struct {c}, {field}), '
                        f'sizeof(((struct {c} *)0)->{field}));')
    for name, member in MEMBERS.items():
        for field, _ in _lib.PAYLOADS[name]._fields_:
            body.append(f'printf("record {name}.{field} %zu\\n", '
                        f'offsetof(struct vmt_record, {member}.{field}));')
    for name in CONSTANTS:
        body.append(f'printf("constant {name} %llu\\n", (unsigned long long)({name}));')
    src = tmp / 'layout.c'
    src.write_text('#include <stddef.h>\n#include <stdio.h>\n#include <vmtrace/cachesim.h>\n'
                   'int main(void)\n{\n\t' + '\n\t'.join(body) + '\n\treturn 0;\n}\n')
    cc = os.environ.get('CC', 'cc')
    subprocess.run([cc, '-I', os.path.join(TOP, 'include', 'uapi'),
                    '-I', os.path.join(TOP, 'user', 'lib', 'include'), '-o', tmp / 'layout', src],
                   check=True)
    out = subprocess.run([tmp / 'layout'], check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        kind, key, *values = line.split()
        found[kind, key] = tuple(map(int, values))
    return found


def test_structs(c_layout):
    for struct, c in STRUCTS.items():
        assert ctypes.sizeof(struct) == c_layout['size', c][0], c
        for field, ctype in struct._fields_:
            assert (getattr(struct, field).offset, ctypes.sizeof(ctype)) == \
                c_layout['field', f'{c}.{field}'], f'{c}.{field}'


def test_dtypes(c_layout):
    assert vmtrace.RECORD_DTYPE.itemsize == 64
    for field, (dtype, offset) in vmtrace.RECORD_DTYPE.fields.items():
        if field != 'payload':
            assert (offset, dtype.itemsize) == c_layout['field', f'vmt_record_header.{field}']
    assert vmtrace.RECORD_DTYPE.fields['payload'][1:] == (24,)
    for name, dtype in vmtrace.TYPE_DTYPES.items():
        assert dtype.itemsize == 64
        c = STRUCTS[_lib.PAYLOADS[name]]
        for field, (ftype, offset) in dtype.fields.items():
            if field in vmtrace.RECORD_DTYPE.fields:
                assert offset == vmtrace.RECORD_DTYPE.fields[field][1]
                continue
            assert offset == c_layout['record', f'{name}.{field}'][0], f'{name}.{field}'
            assert ftype.itemsize == c_layout['field', f'{c}.{field}'][1], f'{name}.{field}'


def test_constants(c_layout):
    for name, value in CONSTANTS.items():
        assert c_layout['constant', name] == (value,), name
