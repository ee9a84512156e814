# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""libvmtrace through ctypes: where the library is, the C structs the package
passes to it or reads from it, and its functions' prototypes.

The structs mirror include/uapi/linux/vmtrace.h (the records) and
user/lib/include/vmtrace/trace.h (the reader's API) field for field, with the
C names; ctypes lays them out as the C compiler does, and
tests/python/test_layout.py checks every offset against a program compiled
with the headers.
"""
import ctypes
import ctypes.util
import glob
import os

# The Makefile's SONAME: libvmtrace.so.0.
SONAME = 'libvmtrace.so.0'

u8, u16, u32, u64, s64 = (ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32,
                          ctypes.c_uint64, ctypes.c_int64)

# ---- include/uapi/linux/vmtrace.h: the records -----------------------------

RECORD_SIZE = 64                # VMT_RECORD_SIZE
MAX_DATA_LEN = 4096             # VMT_MAX_DATA_LEN
COMM_LEN = 16                   # VMT_COMM_LEN

# Flag bits the tables of to_pandas() take apart.
REF_HUGE = 0x1                  # VMT_REF_HUGE
EVICT_DIRTY = 0x1               # VMT_EVICT_DIRTY
EVICT_ACCESSED = 0x2            # VMT_EVICT_ACCESSED
DATA_DROPPED = 0x80000000       # VMT_DATA_DROPPED
EXACT_STRING = 0x1              # VMT_EXACT_STRING
EXACT_SPLIT = 0x2               # VMT_EXACT_SPLIT
EXACT_STACK = 0x4               # VMT_EXACT_STACK
EXACT_BUS_SHIFT = 3             # VMT_EXACT_BUS_CODE(): VMT_EXACT_BUS_FILL, _WRITEBACK, _PREFETCH
PROT_READ, PROT_WRITE, PROT_EXEC, PROT_SHARED = 0x1, 0x2, 0x4, 0x8  # VMT_PROT_*


class RecordHeader(ctypes.Structure):
    _fields_ = [('time_ns', u64), ('pid', u32), ('tid', u32), ('type', u16),
                ('cpu', u16), ('data_len', u32)]


class Lost(ctypes.Structure):
    _fields_ = [('count', u64), ('reserved', u64 * 4)]


class Reference(ctypes.Structure):
    _fields_ = [('vaddr', u64), ('pfn', u64), ('ip', u64), ('error_code', u32),
                ('access', u8), ('kernel_mode', u8), ('cause', u8), ('evict_flags', u8),
                ('flags', u32), ('reserved', u32)]


class Data(ctypes.Structure):
    _fields_ = [('bytes', u8 * 40)]


class Switch(ctypes.Structure):
    _fields_ = [('next_pid', u32), ('next_tid', u32), ('prev_state', u32), ('preempt', u32),
                ('reserved', u64 * 3)]


class Fork(ctypes.Structure):
    _fields_ = [('child_pid', u32), ('child_tid', u32), ('clone_flags', u64),
                ('reserved', u64 * 3)]


class Exec(ctypes.Structure):
    _fields_ = [('old_tid', u32), ('flags', u32), ('reserved', u64 * 3), ('data_off', u64)]


class Exit(ctypes.Structure):
    _fields_ = [('exit_code', u32), ('group_dead', u32), ('reserved', u64 * 4)]


class Comm(ctypes.Structure):
    _fields_ = [('comm', ctypes.c_char * COMM_LEN), ('reserved', u64 * 3)]


class Task(ctypes.Structure):
    _fields_ = [('comm', ctypes.c_char * COMM_LEN), ('ppid', u32), ('flags', u32),
                ('reserved', u64), ('data_off', u64)]


class Vma(ctypes.Structure):
    _fields_ = [('start', u64), ('end', u64), ('offset', u64), ('op', u8), ('cause', u8),
                ('prot', u8), ('kind', u8), ('flags', u32), ('data_off', u64)]


class Dma(ctypes.Structure):
    _fields_ = [('dma_addr', u64), ('phys_addr', u64), ('size', u32), ('op', u8), ('dir', u8),
                ('in_task', u8), ('reserved0', u8), ('index', u16), ('count', u16),
                ('flags', u32), ('data_off', u64)]


class Pagemap(ctypes.Structure):
    _fields_ = [('vaddr', u64), ('pfn', u64), ('op', u8), ('huge', u8), ('reserved0', u16),
                ('notify_event', u32), ('reserved', u64 * 2)]


class Marker(ctypes.Structure):
    _fields_ = [('id', u32), ('reserved0', u32), ('reserved', u64 * 3), ('data_off', u64)]


class Exact(ctypes.Structure):
    _fields_ = [('addr', u64), ('ip', u64), ('size', u16), ('access', u8),
                ('kernel_mode', u8), ('flags', u8), ('reserved', u8 * 3), ('value', u8 * 16)]


# struct vmt_record: the header, then a 40-byte payload (the union).
class Record(ctypes.Structure):
    _fields_ = [('hdr', RecordHeader), ('raw', u64 * 5)]


# The payload struct of each record type's union member, by the type's name.
PAYLOADS = {
    'lost': Lost, 'ref': Reference, 'evict': Reference, 'marker': Marker, 'data': Data,
    'switch': Switch, 'fork': Fork, 'exec': Exec, 'exit': Exit, 'comm': Comm, 'vma': Vma,
    'task': Task, 'dma': Dma, 'pagemap': Pagemap, 'exact': Exact,
}


class Session(ctypes.Structure):
    """struct vmt_trace_session"""
    _fields_ = [('size', u32), ('flags', u32), ('enabled_pages', u32), ('policy', u32),
                ('events', u32), ('ring_records', u32), ('reprotect_ms', u32),
                ('nr_pids', u32), ('start_time_ns', u64), ('session_flags', u32),
                ('reserved0', u32), ('realtime_offset_ns', s64), ('reserved', u64 * 5)]


# ---- user/lib/include/vmtrace/trace.h: the reader ---------------------------

NO_TIME = 0xffffffff            # VMT_TRACE_NO_TIME
ANY_CPU = 0xffffffff            # VMT_TRACE_ANY_CPU
ANY_TYPE = 0xffffffff           # VMT_TRACE_ANY_TYPE
ORDER_WRITTEN, ORDER_TIME = 0, 1  # enum vmt_trace_order
STREAM_KINDS = ('opaque', 'records', 'order', 'data', 'loops', 'loopset')  # enum vmt_stream_kind
STREAM_RECORDS = 1
NAMES_ACCESS, NAMES_CAUSE, NAMES_MODE, NAMES_VMA_OP, NAMES_VMA_CAUSE, NAMES_VMA_KIND, \
    NAMES_DMA_OP, NAMES_DMA_DIR, NAMES_PAGEMAP_OP, NAMES_EXACT_BUS = range(10)  # enum vmt_field_names


class Error(ctypes.Structure):
    """struct vmt_trace_error"""
    _fields_ = [('message', ctypes.c_char * 256)]


class StreamInfo(ctypes.Structure):
    """struct vmt_trace_stream_info"""
    _fields_ = [('id', u32), ('entry_size', u32), ('kind', u32), ('record_type', u32),
                ('cpu', u32), ('time_offset', u32), ('name', ctypes.c_char * 24)]


class StreamStats(ctypes.Structure):
    """struct vmt_trace_stream_stats"""
    _fields_ = [('entries', u64), ('frames', u64), ('first_time', u64), ('last_time', u64),
                ('time_sorted', ctypes.c_int)]


class Range(ctypes.Structure):
    """struct vmt_trace_range: [start, end)"""
    _fields_ = [('start', u64), ('end', u64)]


class Phase(ctypes.Structure):
    """struct vmt_trace_phase"""
    _fields_ = [('pid', u32), ('reserved', u32), ('start', u64), ('end', u64)]


class Filter(ctypes.Structure):
    """struct vmt_trace_filter"""
    _fields_ = [('types', u32), ('nr_pids', u32), ('pids', ctypes.POINTER(u32)),
                ('nr_cpus', u32), ('cpus', ctypes.POINTER(u32)), ('time_range', ctypes.c_int),
                ('from_time', u64), ('to_time', u64), ('nr_addrs', u32),
                ('addrs', ctypes.POINTER(Range)), ('nr_ips', u32),
                ('ips', ctypes.POINTER(Range)), ('nr_phases', u32),
                ('phases', ctypes.POINTER(Phase))]


class LoopsThread(ctypes.Structure):
    """struct vmt_trace_loops_thread"""
    _fields_ = [('stream_id', u32), ('side_stream_id', u32), ('pid', u32), ('tid', u32),
                ('records', u64), ('keep', u32), ('window', u32)]



# ---- user/lib/include/vmtrace/analysis.h: the analyses ----------------------

REF_VIRTUAL, REF_PHYSICAL = 0, 1        # enum vmt_ref_space
REF_PAGE, REF_LINE = 0, 1               # enum vmt_ref_unit
REF_FAULTS, REF_EXACT = 0, 1            # enum vmt_ref_source
MRC_POLICIES = ('lru', 'fifo', 'clock', 'opt')  # enum vmt_mrc_policy, by vmt_mrc_policy_name()
REUSE_BUCKETS = 16 + 64 - 4             # VMT_REUSE_BUCKETS
REUSE_DISTANT = 64                      # VMT_REUSE_DISTANT
WSS_MAX_PERCENTILES = 16                # VMT_WSS_MAX_PERCENTILES
HEATMAP_MAX_ROWS = HEATMAP_MAX_COLS = 4096
DMA_SIZE_BUCKETS = 33                   # VMT_DMA_SIZE_BUCKETS
SCR_MIN_WINDOW, SCR_MAX_WINDOW = 3, 1024
DRAM_NR_FIELDS, DRAM_MAX_FIELD_BITS = 6, 64  # VMT_DRAM_NR_FIELDS (ch, rank, bg, bank, row, col)
DRAM_MIN_WINDOW, DRAM_MAX_WINDOW = 2, 65536
SCR_STRIDE_BUCKETS = 75                 # VMT_SCR_STRIDE_BUCKETS
SCR_RINGS_SPACE, SCR_RINGS_PROCESS, SCR_RINGS_MERGED = 0, 1, 2  # enum vmt_scr_rings
PREFETCH_CONFIRM, PREFETCH_MAX_TRACKERS, PREFETCH_MAX_DEGREE = 3, 1024, 64


class RefOptions(ctypes.Structure):
    """struct vmt_ref_options"""
    _fields_ = [('space', ctypes.c_int), ('unit', ctypes.c_int), ('addr_lo', u64),
                ('addr_hi', u64), ('source', ctypes.c_int)]


class AnalyzeStats(ctypes.Structure):
    """struct vmt_analyze_stats"""
    _fields_ = [('records', u64), ('references', u64), ('no_frame', u64),
                ('out_of_range', u64), ('first_ns', u64), ('last_ns', u64),
                ('analysis_error', ctypes.c_bool)]


class MrcOptions(ctypes.Structure):
    """struct vmt_mrc_options"""
    _fields_ = [('policies', ctypes.c_uint), ('sizes', ctypes.POINTER(u64)),
                ('nr_sizes', ctypes.c_uint), ('sample_rate', ctypes.c_double),
                ('sample_size', u64)]


class ReuseBucket(ctypes.Structure):
    """struct vmt_reuse_histogram's buckets[]"""
    _fields_ = [('low', u64), ('high', u64), ('count', u64)]


class ReuseHistogram(ctypes.Structure):
    """struct vmt_reuse_histogram"""
    _fields_ = [('count', u64), ('mean', ctypes.c_double), ('median', u64), ('max', u64),
                ('nr_buckets', ctypes.c_uint), ('buckets', ReuseBucket * REUSE_BUCKETS)]


class ReuseUnit(ctypes.Structure):
    """struct vmt_reuse_unit"""
    _fields_ = [('key', u64), ('addr', u64), ('pid', u32), ('references', u64),
                ('distant', u64)]


class WssWindow(ctypes.Structure):
    """struct vmt_wss_window"""
    _fields_ = [('start_ns', u64), ('units', u64), ('bytes', u64), ('references', u64)]


class WssSummary(ctypes.Structure):
    """struct vmt_wss_summary"""
    _fields_ = [('windows', u64), ('empty_windows', u64), ('window_ns', u64),
                ('mean_units', ctypes.c_double), ('mean_bytes', ctypes.c_double),
                ('nr_percentiles', ctypes.c_uint),
                ('percent', ctypes.c_uint * WSS_MAX_PERCENTILES),
                ('units', u64 * WSS_MAX_PERCENTILES), ('bytes', u64 * WSS_MAX_PERCENTILES)]


class HeatmapOptions(ctypes.Structure):
    """struct vmt_heatmap_options"""
    _fields_ = [('rows', ctypes.c_uint), ('cols', ctypes.c_uint)]


class HeatmapSegment(ctypes.Structure):
    """struct vmt_heatmap_segment"""
    _fields_ = [('start', u64), ('end', u64), ('gap_before', u64), ('first_row', ctypes.c_uint),
                ('nr_rows', ctypes.c_uint)]


class HeatmapRow(ctypes.Structure):
    """struct vmt_heatmap_row"""
    _fields_ = [('start', u64), ('end', u64), ('segment', ctypes.c_uint)]


class HistBucket(ctypes.Structure):
    """struct vmt_hist_bucket"""
    _fields_ = [('lo', u64), ('hi', u64), ('count', u64)]


class DmaInterval(ctypes.Structure):
    """struct vmt_dma_interval"""
    _fields_ = [('start_ns', u64), ('read_bytes', u64), ('write_bytes', u64),
                ('bidirectional_bytes', u64), ('coherent_bytes', u64), ('maps', u64),
                ('references', u64), ('cpu_bytes', u64)]


class DmaSizeBucket(ctypes.Structure):
    """struct vmt_dma_size_bucket"""
    _fields_ = [('lo', u64), ('hi', u64), ('map_page', u64), ('map_sg', u64), ('alloc', u64)]


class DmaDevice(ctypes.Structure):
    """struct vmt_dma_device"""
    _fields_ = [('name', ctypes.c_char_p), ('dir', u8), ('requests', u64), ('segments', u64),
                ('bytes', u64), ('sizes', u64 * DMA_SIZE_BUCKETS)]


TRAFFIC_KINDS = 4                       # VMT_TRAFFIC_KINDS: cpu_read, cpu_write, dma_read, dma_write


class TrafficInterval(ctypes.Structure):
    """struct vmt_traffic_interval"""
    _fields_ = [('start_ns', u64), ('duration_ns', u64), ('bytes', u64 * TRAFFIC_KINDS)]


class TrafficMode(ctypes.Structure):
    """struct vmt_traffic_mode"""
    _fields_ = [(n, u64) for n in ('references', 'reads', 'writes', 'read_bytes', 'write_bytes')]


class TrafficResult(ctypes.Structure):
    """struct vmt_traffic_result"""
    _fields_ = [('count', u64 * TRAFFIC_KINDS), ('bytes', u64 * TRAFFIC_KINDS),
                ('basis', ctypes.c_int * TRAFFIC_KINDS), ('fault_references', u64),
                ('exact_accesses', u64), ('bus_records', u64), ('mode', TrafficMode * 2),
                ('cpu_references', u64), ('cpu_untranslatable', u64), ('dma_lines', u64),
                ('dma_untranslatable', u64), ('dma_no_phys', u64), ('start_ns', u64),
                ('end_ns', u64)]


class V2pResult(ctypes.Structure):
    """struct vmt_v2p_result"""
    _fields_ = [(n, u64) for n in ('sightings', 'unmaps', 'pages', 'frames', 'page_mappings',
                                   'frame_mappings', 'remapped_pages', 'remapped_frames',
                                   'adjacent_pairs', 'contiguous_pairs')]


class InterleaveResult(ctypes.Structure):
    """struct vmt_interleave_result"""
    _fields_ = [('references', u64), ('runs', u64), ('switches', u64), ('processes', u64),
                ('longest', u64), ('median', u64), ('mean', ctypes.c_double)]


class InterleaveProcess(ctypes.Structure):
    """struct vmt_interleave_process"""
    _fields_ = [('pid', u32), ('references', u64), ('runs', u64), ('longest', u64),
                ('median', u64), ('short_runs', u64), ('mean', ctypes.c_double),
                ('comm', ctypes.c_char * (COMM_LEN + 1))]


class InterleaveLength(ctypes.Structure):
    """struct vmt_interleave_length"""
    _fields_ = [('length', u64), ('runs', u64)]


INTERLEAVE_SHORT_RUN = 40       # VMT_INTERLEAVE_SHORT_RUN


class ScrResult(ctypes.Structure):
    """struct vmt_scr_result"""
    _fields_ = [('references', u64), ('covered', u64), ('completing', u64)]


class ScrStrideBucket(ctypes.Structure):
    """struct vmt_scr_stride_bucket"""
    _fields_ = [('lo', u64), ('hi', u64), ('forward', u64), ('backward', u64)]


class PrefetchConfig(ctypes.Structure):
    """struct vmt_prefetch_config"""
    _fields_ = [('trackers', ctypes.c_uint), ('degree', ctypes.c_uint),
                ('per_process', ctypes.c_bool)]


class PrefetchResult(ctypes.Structure):
    """struct vmt_prefetch_result"""
    _fields_ = [('accesses', u64), ('no_frame', u64), ('repeats', u64), ('served', u64),
                ('demand', u64), ('prefetches', u64), ('streams', u64), ('tables', u64)]


class DramMap(ctypes.Structure):
    """struct vmt_dram_map"""
    _fields_ = [('nr_bits', ctypes.c_uint * DRAM_NR_FIELDS),
                ('masks', (u64 * DRAM_MAX_FIELD_BITS) * DRAM_NR_FIELDS)]


class DramResult(ctypes.Structure):
    """struct vmt_dram_result"""
    _fields_ = [('references', u64), ('no_frame', u64), ('hits', u64), ('misses', u64),
                ('conflicts', u64), ('banks', u64), ('banks_touched', u64),
                ('window', ctypes.c_uint), ('windows', u64), ('window_banks', u64),
                ('max_banks', u64), ('pairs', u64), ('flips', u64 * 64)]


# ---- user/lib/include/vmtrace/cachesim.h: the cache simulator ----------------

CACHE_NAME_MAX, CACHES_MAX, TLBS_MAX, HIERARCHY_NAME_MAX = 16, 8, 4, 32
CACHE_MAX_CORES = 256
CACHESIM_ALL = 0xffffffff               # VMT_CACHESIM_ALL
CACHE_UNIFIED = 0                       # enum vmt_cache_kind
CACHE_INCLUSIVE, CACHE_EXCLUSIVE = 1, 2  # enum vmt_cache_inclusion
CACHE_WRITE_THROUGH = 1                 # enum vmt_cache_write


class CacheConfig(ctypes.Structure):
    """struct vmt_cache_config"""
    _fields_ = [('name', ctypes.c_char * CACHE_NAME_MAX), ('size', u64), ('assoc', u32),
                ('line', u32), ('level', u8), ('kind', u8), ('policy', u8), ('inclusion', u8),
                ('write', u8), ('shared', ctypes.c_bool), ('prefetch', ctypes.c_bool)]


class TlbConfig(ctypes.Structure):
    """struct vmt_tlb_config"""
    _fields_ = [('name', ctypes.c_char * CACHE_NAME_MAX), ('entries', u32), ('assoc', u32),
                ('level', u8), ('policy', u8)]


class HierarchyConfig(ctypes.Structure):
    """struct vmt_hierarchy_config"""
    _fields_ = [('name', ctypes.c_char * HIERARCHY_NAME_MAX), ('nr_caches', ctypes.c_uint),
                ('caches', CacheConfig * CACHES_MAX), ('nr_tlbs', ctypes.c_uint),
                ('tlbs', TlbConfig * TLBS_MAX)]


class CachesimOptions(ctypes.Structure):
    """struct vmt_cachesim_options"""
    _fields_ = [('cores', ctypes.c_uint), ('core_by_thread', ctypes.c_bool), ('seed', u64),
                ('per_thread', ctypes.c_bool), ('per_process', ctypes.c_bool),
                ('top', ctypes.c_uint), ('by_marker', ctypes.c_bool),
                ('physical', ctypes.c_bool), ('addr_lo', u64), ('addr_hi', u64),
                ('no_classify', ctypes.c_bool), ('threads', ctypes.c_uint),
                ('batch', ctypes.c_uint)]


CACHE_COUNTS = ('accesses', 'hits', 'misses', 'read_misses', 'write_misses', 'fetch_misses',
                'compulsory', 'capacity', 'conflict', 'writebacks', 'writebacks_in',
                'invalidations', 'back_invalidations', 'prefetches')


class CacheCounts(ctypes.Structure):
    """struct vmt_cache_counts"""
    _fields_ = [(n, u64) for n in CACHE_COUNTS]


class CachesimTotals(ctypes.Structure):
    """struct vmt_cachesim_totals"""
    _fields_ = [(n, u64) for n in ('accesses', 'reads', 'writes', 'rmws', 'fetches',
                                   'exact_records', 'reference_records', 'merged_splits',
                                   'no_frame', 'out_of_range', 'phases')]


class CachesimRow(ctypes.Structure):
    """struct vmt_cachesim_row"""
    _fields_ = [('hierarchy', ctypes.c_uint), ('level', ctypes.c_char * (CACHE_NAME_MAX + 1)),
                ('tlb', ctypes.c_bool), ('fetch', ctypes.c_bool), ('id', u32), ('phase', u32),
                ('counts', CacheCounts)]


class CachesimTop(ctypes.Structure):
    """struct vmt_cachesim_top"""
    _fields_ = [('ip', u64), ('pid', u32), ('misses', u64), ('l1_misses', u64)]


# ---- user/lib/include/vmtrace/trace.h: the writer ----------------------------

class WriterOptions(ctypes.Structure):
    """struct vmt_trace_writer_options"""
    _fields_ = [('frame_bytes', u32), ('codec', ctypes.c_uint), ('stage2', ctypes.c_uint),
                ('level', ctypes.c_int), ('workers', ctypes.c_uint),
                ('max_queued', ctypes.c_uint), ('caller_compresses', ctypes.c_uint),
                ('loops_window', u32),
                ('loops_keep', ctypes.c_uint)]


class WriterStats(ctypes.Structure):
    """struct vmt_trace_writer_stats"""
    _fields_ = [(n, u64) for n in ('frames', 'bytes', 'raw_bytes', 'stalls', 'data_bytes',
                                   'orphan_data', 'cut_data')]


P = ctypes.c_void_p             # struct vmt_trace *, struct vmt_trace_cursor *: opaque

# vmt_analysis_create_fn: int (*)(void *ctx, uint32_t pid, struct vmt_analysis **analysis)
CREATE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, u32, ctypes.POINTER(P))

PROTOTYPES = {
    'vmt_record_type_name': (ctypes.c_char_p, [ctypes.c_uint]),
    'vmt_field_names': (ctypes.POINTER(ctypes.c_char_p),
                        [ctypes.c_int, ctypes.POINTER(ctypes.c_uint)]),
    'vmt_trace_open': (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_char_p, ctypes.c_uint,
                                      ctypes.POINTER(Error)]),
    'vmt_trace_close': (None, [P]),
    'vmt_trace_error_message': (ctypes.c_char_p, [P]),
    'vmt_trace_format_version': (u32, [P]),
    'vmt_trace_nr_streams': (u32, [P]),
    'vmt_trace_stream': (ctypes.POINTER(StreamInfo), [P, u32]),
    'vmt_trace_stream_stats': (ctypes.c_int, [P, u32, ctypes.POINTER(StreamStats)]),
    'vmt_trace_nr_frames': (u64, [P]),
    'vmt_trace_set_files': (ctypes.c_uint, [P]),
    'vmt_trace_set_file': (ctypes.c_char_p, [P, ctypes.c_uint, ctypes.POINTER(u64)]),
    'vmt_trace_record_data': (ctypes.c_int, [P, P, P, ctypes.c_size_t]),
    'vmt_trace_session': (ctypes.c_int, [P, ctypes.POINTER(Session)]),
    'vmt_trace_check': (ctypes.c_int, [P]),
    'vmt_trace_loops': (ctypes.c_int, [P, ctypes.POINTER(ctypes.POINTER(LoopsThread)),
                                       ctypes.POINTER(u32)]),
    'vmt_trace_set_filter': (ctypes.c_int, [P, ctypes.POINTER(Filter)]),
    'vmt_trace_marker_phases': (ctypes.c_int, [P, u32, u32, ctypes.POINTER(ctypes.POINTER(Phase)),
                                               ctypes.POINTER(u32)]),
    'vmt_trace_cursor_create': (ctypes.c_int, [P, ctypes.c_int, ctypes.POINTER(P)]),
    'vmt_trace_cursor_read': (ctypes.c_int, [P, P, P, ctypes.c_size_t]),
    'vmt_trace_cursor_free': (None, [P]),
    # analysis.h
    'vmt_analyze': (ctypes.c_int, [P, ctypes.POINTER(RefOptions), ctypes.POINTER(P),
                                   ctypes.c_uint, ctypes.POINTER(AnalyzeStats)]),
    'vmt_analysis_destroy': (None, [P]),
    'vmt_per_process_create': (ctypes.c_int, [ctypes.POINTER(P), CREATE_FN, P]),
    'vmt_per_process_set_source': (None, [P, ctypes.c_int]),
    'vmt_per_process_count': (ctypes.c_uint, [P]),
    'vmt_per_process_get': (P, [P, ctypes.c_uint, ctypes.POINTER(u32)]),
    'vmt_wss_create': (ctypes.c_int, [ctypes.POINTER(P), u64]),
    'vmt_wss_windows': (ctypes.POINTER(WssWindow), [P, ctypes.POINTER(ctypes.c_size_t)]),
    'vmt_wss_summarize': (ctypes.c_int, [P, ctypes.POINTER(ctypes.c_uint), ctypes.c_uint,
                                         ctypes.POINTER(WssSummary)]),
    'vmt_heatmap_create': (ctypes.c_int, [ctypes.POINTER(P), ctypes.POINTER(HeatmapOptions)]),
    'vmt_heatmap_needs_pass': (ctypes.c_bool, [P]),
    'vmt_heatmap_references': (u64, [P]),
    'vmt_heatmap_time': (None, [P, ctypes.POINTER(u64), ctypes.POINTER(u64)]),
    'vmt_heatmap_segments': (ctypes.POINTER(HeatmapSegment), [P, ctypes.POINTER(ctypes.c_uint)]),
    'vmt_heatmap_rows': (ctypes.POINTER(HeatmapRow), [P, ctypes.POINTER(ctypes.c_uint)]),
    'vmt_heatmap_counts': (ctypes.POINTER(u64), [P, ctypes.POINTER(ctypes.c_uint),
                                                 ctypes.POINTER(u64)]),
    'vmt_mrc_create': (ctypes.c_int, [ctypes.POINTER(P), ctypes.POINTER(MrcOptions)]),
    'vmt_mrc_policy_name': (ctypes.c_char_p, [ctypes.c_int]),
    'vmt_mrc_references': (u64, [P]),
    'vmt_mrc_footprint': (u64, [P]),
    'vmt_mrc_nr_sizes': (ctypes.c_uint, [P]),
    'vmt_mrc_size': (u64, [P, ctypes.c_uint]),
    'vmt_mrc_faults': (ctypes.c_int, [P, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(u64)]),
    'vmt_reuse_create': (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_uint]),
    'vmt_reuse_references': (u64, [P]),
    'vmt_reuse_footprint': (u64, [P]),
    'vmt_reuse_distances': (ctypes.POINTER(ReuseHistogram), [P]),
    'vmt_reuse_times': (ctypes.POINTER(ReuseHistogram), [P]),
    'vmt_reuse_top': (ctypes.POINTER(ReuseUnit), [P, ctypes.POINTER(ctypes.c_uint)]),
    'vmt_dma_traffic_create': (ctypes.c_int, [ctypes.POINTER(P), u64]),
    'vmt_dma_traffic_intervals': (ctypes.c_size_t, [P, ctypes.POINTER(ctypes.POINTER(DmaInterval))]),
    'vmt_dma_traffic_total': (None, [P, ctypes.POINTER(DmaInterval)]),
    'vmt_dma_traffic_records': (u64, [P]),
    'vmt_dma_traffic_sizes': (ctypes.POINTER(DmaSizeBucket), [P]),
    'vmt_dma_interval_shares': (None, [ctypes.POINTER(DmaInterval), ctypes.POINTER(ctypes.c_double),
                                       ctypes.POINTER(ctypes.c_double)]),
    'vmt_dma_traffic_set_trace': (None, [P, P]),
    'vmt_dma_traffic_devices': (ctypes.c_size_t, [P, ctypes.POINTER(ctypes.POINTER(DmaDevice))]),
    'vmt_traffic_create': (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_int, u64]),
    'vmt_traffic_result': (ctypes.POINTER(TrafficResult), [P]),
    'vmt_traffic_intervals': (ctypes.c_size_t,
                              [P, ctypes.POINTER(ctypes.POINTER(TrafficInterval))]),
    'vmt_traffic_untranslatable': (ctypes.c_double, [P]),
    'vmt_v2p_create': (ctypes.c_int, [ctypes.POINTER(P)]),
    'vmt_v2p_result': (ctypes.POINTER(V2pResult), [P]),
    'vmt_v2p_page_histogram': (ctypes.c_size_t, [P, ctypes.POINTER(ctypes.POINTER(HistBucket))]),
    'vmt_v2p_frame_histogram': (ctypes.c_size_t, [P, ctypes.POINTER(ctypes.POINTER(HistBucket))]),
    'vmt_v2p_contiguity': (ctypes.c_double, [P]),
    'vmt_interleave_create': (ctypes.c_int, [ctypes.POINTER(P)]),
    'vmt_interleave_result': (ctypes.POINTER(InterleaveResult), [P]),
    'vmt_interleave_histogram': (ctypes.c_size_t, [P, ctypes.POINTER(ctypes.POINTER(HistBucket))]),
    'vmt_interleave_processes': (ctypes.c_size_t,
                                 [P, ctypes.POINTER(ctypes.POINTER(InterleaveProcess))]),
    'vmt_interleave_process_lengths': (ctypes.c_size_t, [P, ctypes.c_size_t, ctypes.POINTER(
        ctypes.POINTER(InterleaveLength))]),
    'vmt_scr_create': (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_int, ctypes.c_int,
                                      ctypes.c_uint]),
    'vmt_scr_create_from': (ctypes.c_int, [ctypes.POINTER(P), ctypes.POINTER(RefOptions),
                                           ctypes.c_uint]),
    'vmt_scr_create_rings': (ctypes.c_int, [ctypes.POINTER(P), ctypes.POINTER(RefOptions),
                                            ctypes.c_uint, ctypes.c_int]),
    'vmt_scr_result': (ctypes.POINTER(ScrResult), [P]),
    'vmt_scr_rate': (ctypes.c_double, [P]),
    'vmt_dram_map_parse': (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(DramMap),
                                          ctypes.c_char_p, ctypes.c_size_t]),
    'vmt_dram_map_preset': (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(DramMap)]),
    'vmt_dram_map_preset_name': (ctypes.c_char_p, [ctypes.c_uint,
                                                   ctypes.POINTER(ctypes.c_char_p)]),
    'vmt_dram_map_format': (ctypes.c_size_t, [ctypes.POINTER(DramMap), ctypes.c_char_p,
                                              ctypes.c_size_t]),
    'vmt_dram_field_bits': (u64, [ctypes.POINTER(DramMap), ctypes.c_int]),
    'vmt_dram_create': (ctypes.c_int, [ctypes.POINTER(P), ctypes.POINTER(RefOptions),
                                       ctypes.POINTER(DramMap), ctypes.c_uint]),
    'vmt_dram_result': (ctypes.POINTER(DramResult), [P]),
    'vmt_dram_blp': (ctypes.c_double, [P]),
    'vmt_scr_strides': (ctypes.POINTER(ScrStrideBucket), [P]),
    'vmt_prefetch_create': (ctypes.c_int, [ctypes.POINTER(P), ctypes.POINTER(RefOptions),
                                           ctypes.POINTER(PrefetchConfig)]),
    'vmt_prefetch_result': (ctypes.POINTER(PrefetchResult), [P]),
    'vmt_prefetch_rate': (ctypes.c_double, [P]),
    # cachesim.h
    'vmt_hierarchy_check': (ctypes.c_int, [ctypes.POINTER(HierarchyConfig), ctypes.POINTER(Error)]),
    'vmt_cache_policy_name': (ctypes.c_char_p, [ctypes.c_uint]),
    'vmt_cachesim_create': (ctypes.c_int, [ctypes.POINTER(P), ctypes.POINTER(HierarchyConfig),
                                           ctypes.c_uint, ctypes.POINTER(CachesimOptions),
                                           ctypes.POINTER(Error)]),
    'vmt_cachesim_destroy': (None, [P]),
    'vmt_cachesim_analysis': (ctypes.c_int, [P, ctypes.POINTER(P)]),
    'vmt_cachesim_totals': (None, [P, ctypes.POINTER(CachesimTotals)]),
    'vmt_cachesim_rows': (ctypes.c_int, [P, ctypes.POINTER(ctypes.POINTER(CachesimRow)),
                                         ctypes.POINTER(ctypes.c_size_t)]),
    'vmt_cachesim_top': (ctypes.c_int, [P, ctypes.c_uint, ctypes.POINTER(ctypes.POINTER(CachesimTop)),
                                        ctypes.POINTER(ctypes.c_size_t)]),
    'vmt_hierarchy_add_cache_spec': (ctypes.c_int, [ctypes.POINTER(HierarchyConfig),
                                                    ctypes.c_char_p, ctypes.POINTER(Error)]),
    'vmt_hierarchy_add_tlb_spec': (ctypes.c_int, [ctypes.POINTER(HierarchyConfig),
                                                  ctypes.c_char_p, ctypes.POINTER(Error)]),
    'vmt_hierarchy_parse': (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t,
                                           ctypes.POINTER(HierarchyConfig), ctypes.c_uint,
                                           ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(Error)]),
    'vmt_hierarchy_preset': (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(HierarchyConfig),
                                            ctypes.c_uint, ctypes.POINTER(ctypes.c_uint)]),
    'vmt_hierarchy_preset_name': (ctypes.c_char_p, [ctypes.c_uint,
                                                    ctypes.POINTER(ctypes.c_char_p)]),
    # trace.h: the writer
    'vmt_codec_from_name': (ctypes.c_int, [ctypes.c_char_p]),
    'vmt_trace_writer_create': (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_char_p,
                                               ctypes.POINTER(WriterOptions),
                                               ctypes.POINTER(Error)]),
    'vmt_trace_writer_append_record_data': (ctypes.c_int, [P, P, P]),
    'vmt_trace_writer_add_session': (ctypes.c_int, [P, ctypes.POINTER(Session)]),
    'vmt_trace_writer_close': (ctypes.c_int, [P, ctypes.POINTER(Error)]),
    'vmt_trace_writer_abandon': (None, [P]),
    'vmt_trace_writer_error_message': (ctypes.c_char_p, [P]),
    'vmt_trace_writer_stats': (None, [P, ctypes.POINTER(WriterStats)]),
}


def _candidates():
    """Where to look for libvmtrace, in order (see load())."""
    path = os.environ.get('VMTRACE_LIBRARY')
    if path:
        return [path]
    found = [SONAME]
    name = ctypes.util.find_library('vmtrace')
    if name and name != SONAME:
        found.append(name)
    # Run from a clone: python/vmtrace/ -> build/lib/libvmtrace.so.0.*
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    found += sorted(glob.glob(os.path.join(top, 'build', 'lib', SONAME + '.*')))
    return found


def load():
    """libvmtrace as a ctypes.CDLL with its prototypes set.

    The library named by the environment variable VMTRACE_LIBRARY (a path)
    if set; else the installed one by its soname (LD_LIBRARY_PATH, the
    loader's cache); else, run from a clone of the repository, the build
    tree's (make lib).
    """
    tried = []
    for name in _candidates():
        try:
            lib = ctypes.CDLL(name)
        except OSError as e:
            tried.append(str(e))
            continue
        for fn, (restype, argtypes) in PROTOTYPES.items():
            try:
                f = getattr(lib, fn)
            except AttributeError:
                raise ImportError(f'vmtrace: {name} has no {fn}(): a libvmtrace older than '
                                  'this package') from None
            f.restype, f.argtypes = restype, argtypes
        return lib
    raise ImportError('vmtrace: cannot load libvmtrace (set VMTRACE_LIBRARY to its path, '
                      'or install it: make install): ' + '; '.join(tried))


lib = load()
# free() for what the library allocates for the caller (vmt_trace_loops()).
libc_free = ctypes.CDLL(None).free
libc_free.restype, libc_free.argtypes = None, [ctypes.c_void_p]
