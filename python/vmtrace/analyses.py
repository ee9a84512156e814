# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""The analysis commands as calls: Trace.mrc(), reuse(), wss(), heatmap(),
hmtt() and cachesim() give the numbers `vmtrace mrc|reuse|wss|heatmap|hmtt|
cachesim` print, as pandas DataFrames (the columns of their --csv output)
and numpy arrays.

Each runs the library's analyses (user/lib/include/vmtrace/analysis.h,
cachesim.h) as the command does: the analysis objects made by their
constructors, one pass of vmt_analyze() over the trace through its filter
(vmt_trace_set_filter(), the commands' --pid, --cpu, --type, --from, --to),
the results read with their accessors. No record passes through Python.

The arguments mirror the commands' options: space='virtual'|'physical'
(--space), unit='page'|'line' (--unit), addr=(start, end) (--addr: only
references in [start, end)), per_process=True (--per-process), and the
filters types, pids, cpus, start, end. A pass that finds no reference
raises NoReferences (a ValueError), where the command says "no references".
"""
import ctypes
import errno
import os
import re

import numpy as np
import pandas as pd

from . import _lib
from .trace import TraceError, _filter

lib = _lib.lib


class NoReferences(ValueError):
    """No reference (for cachesim: no access) passes the filters."""


# ---- arguments ------------------------------------------------------------------

def duration_ns(value, what='window', bare_ns=True):
    """A time span in ns from an int (ns) or a string with a unit, as the
    commands' --window takes it: '100ms', '500us', '2s', '10ns' (and a bare
    number of ns where @bare_ns)."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        n = float(value)
    elif isinstance(value, str):
        m = re.fullmatch(r'([0-9][0-9.eE+-]*)(ns|us|ms|s)?', value)
        if not m or (m[2] is None and not bare_ns):
            raise ValueError(f'{what}: {value!r} is not a number and a unit (ns, us, ms, s)')
        try:
            n = float(m[1]) * {'ns': 1, 'us': 1e3, 'ms': 1e6, 's': 1e9, None: 1}[m[2]]
        except ValueError:
            raise ValueError(f'{what}: {value!r} is not a number and a unit') from None
    else:
        raise TypeError(f'{what}: ns as an int, or a string such as "100ms"')
    if not 1 <= n <= 1e18:
        raise ValueError(f'{what}: {value!r}: from 1 ns to 1e9 s')
    return int(n)


def _default_source(trace):
    """`--source`'s default, as the commands choose it: exact accesses on a
    trace that holds some and no reference record (a stream of mixed types,
    the model codec's, holds references and evictions)."""
    exact = refs = False
    for s in trace.streams:
        if not s['entries']:
            continue
        if s['kind'] == 'loops' or (s['kind'] == 'records' and s['record_type'] == 'exact'):
            exact = True
        if s['kind'] == 'records' and s['record_type'] in ('ref', None):
            refs = True
    return 'exact' if exact and not refs else 'faults'


def _ref_options(trace, space, unit, addr, filters):
    """struct vmt_ref_options; filters' 'source' ('faults' or 'exact', the
    commands' --source; None or left out: their default) taken out of it."""
    source = filters.pop('source', None) or _default_source(trace)
    sources = {'faults': _lib.REF_FAULTS, 'exact': _lib.REF_EXACT}
    if source not in sources:
        raise ValueError(f"source: 'faults' or 'exact', not {source!r}")
    spaces = {'virtual': _lib.REF_VIRTUAL, 'physical': _lib.REF_PHYSICAL}
    units = {'page': _lib.REF_PAGE, 'line': _lib.REF_LINE}
    if space not in spaces:
        raise ValueError(f"space: 'virtual' or 'physical', not {space!r}")
    if unit not in units:
        raise ValueError(f"unit: 'page' or 'line', not {unit!r}")
    lo = hi = 0
    if addr is not None:
        lo, hi = (int(a) for a in addr)
        if not 0 <= lo < hi < 1 << 64:
            raise ValueError(f'addr: [{lo:#x}, {hi:#x}) is empty or out of range')
    return _lib.RefOptions(spaces[space], units[unit], lo, hi, sources[source])


class _Analyses:
    """Analysis objects made for one pass, destroyed together."""

    def __init__(self):
        self.list = []
        self._keep = []

    def add(self, make):
        """The analysis vmt_*_create() makes: @make(pointer to the handle) -> 0 or -errno."""
        a = _lib.P()
        ret = make(ctypes.byref(a))
        if ret:
            raise ValueError(f'the analysis refused its options: {os.strerror(-ret)}')
        self.list.append(a.value)
        return a.value

    def per_process(self, make, source=_lib.REF_FAULTS):
        """vmt_per_process_create(): @make(pointer) for each process, made at
        its first reference of the pass's @source."""
        def create(ctx, pid, out):
            try:
                return make(out)
            except Exception:           # never through C
                return -errno.ENOMEM
        fn = _lib.CREATE_FN(create)
        self._keep.append(fn)
        a = _lib.P()
        ret = lib.vmt_per_process_create(ctypes.byref(a), fn, None)
        if ret:
            raise MemoryError(os.strerror(-ret))
        self.list.append(a.value)
        lib.vmt_per_process_set_source(a.value, source)
        return a.value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for a in self.list:
            lib.vmt_analysis_destroy(a)
        self.list = []


def _processes(pp):
    """(pid, analysis) of a per-process analysis, in the order of first reference."""
    out = []
    for i in range(lib.vmt_per_process_count(pp)):
        pid = ctypes.c_uint32()
        a = lib.vmt_per_process_get(pp, i, ctypes.byref(pid))
        out.append((pid.value, a))
    return out


def _run(trace, analyses, ref, filters, what='references'):
    """One vmt_analyze() pass of @analyses over @trace through @filters
    (records()'s types, pids, cpus, start, end): its struct
    vmt_analyze_stats. NoReferences when none passed, as the commands say."""
    t = trace._handle()
    filt, keep = _filter(**filters)
    ret = lib.vmt_trace_set_filter(t, ctypes.byref(filt) if filt else None)
    if ret:
        raise trace._error(ret)
    stats = _lib.AnalyzeStats()
    array = (_lib.P * len(analyses))(*analyses)
    try:
        ret = lib.vmt_analyze(t, ctypes.byref(ref), array, len(analyses), ctypes.byref(stats))
        if ret:
            if stats.analysis_error or ret == -errno.ENOMEM:
                raise TraceError(os.strerror(-ret), -ret, trace.path)
            raise trace._error(ret)
    finally:
        lib.vmt_trace_set_filter(t, None)
    del keep
    if what == 'references' and not stats.references:
        filtered = filt is not None or ref.addr_lo or ref.addr_hi
        raise NoReferences(f'{trace.path}: no references' +
                           (' pass the filters' if filtered else ' in the trace') +
                           (' (none with a frame: space physical)' if stats.no_frame else ''))
    return stats


def _stats(stats):
    return {name: getattr(stats, name) for name, _ in stats._fields_}


def _frame(rows, columns):
    return pd.DataFrame(rows, columns=columns) if rows else pd.DataFrame(
        {c: [] for c in columns})


def _with_pid(frames, column='pid'):
    """Per-process rows after all's, a @column first: 'all', then each pid (the CSV's)."""
    out = []
    for who, df in frames:
        df = df.copy()
        df.insert(0, column, who)
        out.append(df)
    return pd.concat(out, ignore_index=True)


# ---- mrc ------------------------------------------------------------------------

def mrc(trace, policies='lru', sizes=None, sample=None, space='virtual', unit='page',
        addr=None, per_process=False, **filters):
    """`vmtrace mrc --csv`: a DataFrame of policy, pages (lines with
    unit='line'), references, faults, miss_ratio, a row a policy and size
    (with per_process a pid column first, 'all' then each process).
    @policies: 'lru,fifo' or a list of lru, fifo, clock, opt (--policy);
    @sizes: memory sizes in units, or None: powers of two and the footprint
    (--sizes); @sample: LRU from a spatial sample at this rate, in (0, 1]
    (--sample). attrs: footprint (all's, in units), stats (the pass's)."""
    if isinstance(policies, str):
        policies = policies.split(',')
    mask = 0
    for p in policies:
        if p not in _lib.MRC_POLICIES:
            raise ValueError(f'unknown policy {p!r} (lru, fifo, clock, opt)')
        mask |= 1 << _lib.MRC_POLICIES.index(p)
    if not mask:
        raise ValueError('policies: none given')
    opts = _lib.MrcOptions(policies=mask, sample_rate=1.0)
    keep = None
    if sizes is not None:
        sizes = [int(s) for s in np.atleast_1d(sizes)]
        if not sizes or len(sizes) > 256 or min(sizes) < 1 or max(sizes) > 0xffffffff:
            raise ValueError('sizes: 1 to 256 sizes, each 1 to 2^32 - 1')
        keep = (ctypes.c_uint64 * len(sizes))(*sizes)
        opts.sizes, opts.nr_sizes = keep, len(sizes)
    if sample is not None:
        if not 0 < float(sample) <= 1:
            raise ValueError(f'sample: a rate in (0, 1], not {sample}')
        opts.sample_rate = float(sample)
    ref = _ref_options(trace, space, unit, addr, filters)
    col = 'lines' if unit == 'line' else 'pages'
    with _Analyses() as a:
        make = lambda out: lib.vmt_mrc_create(out, ctypes.byref(opts))  # noqa: E731
        whole = a.add(make)
        pp = a.per_process(make, ref.source) if per_process else None
        stats = _run(trace, a.list, ref, filters)

        def curves(h):
            refs, faults, rows = lib.vmt_mrc_references(h), ctypes.c_uint64(), []
            for p, name in enumerate(_lib.MRC_POLICIES):
                i = 0
                while not lib.vmt_mrc_faults(h, p, i, ctypes.byref(faults)):
                    rows.append((name, lib.vmt_mrc_size(h, i), refs, faults.value,
                                 faults.value / refs if refs else 0.0))
                    i += 1
            return _frame(rows, ['policy', col, 'references', 'faults', 'miss_ratio'])

        df = curves(whole)
        footprint = lib.vmt_mrc_footprint(whole)
        if pp is not None:
            df = _with_pid([('all', df)] + [(pid, curves(h)) for pid, h in _processes(pp)])
    df.attrs.update(footprint=footprint, stats=_stats(stats))
    return df


# ---- reuse ----------------------------------------------------------------------

def _histogram(name, h):
    rows, cumulative = [], 0.0
    for b in h.buckets[:h.nr_buckets]:
        percent = 100.0 * b.count / h.count if h.count else 0.0
        cumulative += percent
        rows.append((name, b.low, b.high, b.count, percent, cumulative))
    return rows


def reuse(trace, top=10, space='virtual', unit='page', addr=None, per_process=False,
          **filters):
    """`vmtrace reuse --csv`: a DataFrame of histogram ('distance' or
    'time'), low, high, count, percent, cumulative (with per_process a pid
    column first). attrs: summary (a DataFrame, a row for all and each
    process: references, footprint, reuses, and the mean, median and max
    of distances and times, as reuse's text prints them), top (the @top
    units referenced most: addr, pid, references, distant), stats."""
    if not 0 <= int(top) <= 1000000:
        raise ValueError('top: 0 to 1000000')
    ref = _ref_options(trace, space, unit, addr, filters)
    columns = ['histogram', 'low', 'high', 'count', 'percent', 'cumulative']
    with _Analyses() as a:
        make = lambda out: lib.vmt_reuse_create(out, int(top))  # noqa: E731
        whole = a.add(make)
        pp = a.per_process(make, ref.source) if per_process else None
        stats = _run(trace, a.list, ref, filters)
        who = [('all', whole)] + (_processes(pp) if pp is not None else [])
        frames, summary = [], []
        for pid, h in who:
            d, t = lib.vmt_reuse_distances(h).contents, lib.vmt_reuse_times(h).contents
            frames.append((pid, _frame(_histogram('distance', d) + _histogram('time', t),
                                       columns)))
            summary.append((pid, lib.vmt_reuse_references(h), lib.vmt_reuse_footprint(h),
                            d.count, d.mean, d.median, d.max, t.mean, t.median, t.max))
        n = ctypes.c_uint()
        units = lib.vmt_reuse_top(whole, ctypes.byref(n))
        top_rows = [(units[i].addr, units[i].pid, units[i].references, units[i].distant)
                    for i in range(n.value)]
    df = _with_pid(frames) if per_process else frames[0][1]
    df.attrs.update(
        summary=_frame(summary, ['pid', 'references', 'footprint', 'reuses', 'distance_mean',
                                 'distance_median', 'distance_max', 'time_mean', 'time_median',
                                 'time_max']),
        top=_frame(top_rows, ['addr', 'pid', 'references', 'distant']), stats=_stats(stats))
    return df


# ---- wss ------------------------------------------------------------------------

WSS_PERCENTS = (0, 25, 50, 75, 90, 99, 100)


def wss(trace, window, space='virtual', unit='page', addr=None, per_process=False,
        percents=WSS_PERCENTS, **filters):
    """`vmtrace wss --window W --csv`: a DataFrame of window_start_s (from
    the first reference), pages (units: lines with unit='line'), bytes, and
    references, a row a window that saw a reference (with per_process a
    process column first). @window: ns, or '100ms'. attrs: summary (a
    DataFrame, a row for all and each process: windows, empty_windows,
    mean_units, mean_bytes, and p<N> and p<N>_bytes at each of @percents:
    wss's table), window_ns, first_ns, stats."""
    window_ns = duration_ns(window, 'window', bare_ns=True)
    ref = _ref_options(trace, space, unit, addr, filters)
    percents = [int(p) for p in percents]
    if len(percents) > _lib.WSS_MAX_PERCENTILES or any(not 0 <= p <= 100 for p in percents):
        raise ValueError('percents: at most 16, each 0 to 100')
    pc = (ctypes.c_uint * len(percents))(*percents)
    with _Analyses() as a:
        make = lambda out: lib.vmt_wss_create(out, window_ns)  # noqa: E731
        whole = a.add(make)
        pp = a.per_process(make, ref.source) if per_process else None
        stats = _run(trace, a.list, ref, filters)
        who = [('all', whole)] + (_processes(pp) if pp is not None else [])
        frames, summary = [], []
        for pid, h in who:
            n = ctypes.c_size_t()
            w = lib.vmt_wss_windows(h, ctypes.byref(n))
            arr = (np.ctypeslib.as_array(ctypes.cast(w, ctypes.POINTER(ctypes.c_uint64)),
                                         (n.value * 4,)).reshape(n.value, 4).copy()
                   if n.value else np.zeros((0, 4), np.uint64))
            frames.append((pid, pd.DataFrame({
                'window_start_s': (arr[:, 0] - stats.first_ns) / 1e9, 'pages': arr[:, 1],
                'bytes': arr[:, 2], 'references': arr[:, 3]})))
            s = _lib.WssSummary()
            if lib.vmt_wss_summarize(h, pc, len(percents), ctypes.byref(s)) == 0:
                row = {'pid': pid, 'windows': s.windows, 'empty_windows': s.empty_windows,
                       'mean_units': s.mean_units, 'mean_bytes': s.mean_bytes}
                for i, p in enumerate(percents):
                    row[f'p{p}'], row[f'p{p}_bytes'] = s.units[i], s.bytes[i]
                summary.append(row)
    df = _with_pid(frames, 'process') if per_process else frames[0][1]
    df.attrs.update(summary=pd.DataFrame(summary), window_ns=window_ns, first_ns=stats.first_ns,
                    stats=_stats(stats))
    return df


# ---- heatmap --------------------------------------------------------------------

def _heatmap_frame(h, pid):
    nr, cols, outside = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint64()
    rows = lib.vmt_heatmap_rows(h, ctypes.byref(nr))
    counts = lib.vmt_heatmap_counts(h, ctypes.byref(cols), ctypes.byref(outside))
    grid = np.ctypeslib.as_array(counts, (nr.value * cols.value,)).reshape(
        nr.value, cols.value).copy()
    first, last = ctypes.c_uint64(), ctypes.c_uint64()
    lib.vmt_heatmap_time(h, ctypes.byref(first), ctypes.byref(last))
    span = last.value - first.value + 1
    times = [span * c / cols.value / 1e9 for c in range(cols.value)]
    starts = [rows[r].start for r in range(nr.value)]
    nseg = ctypes.c_uint()
    segs = lib.vmt_heatmap_segments(h, ctypes.byref(nseg))
    df = pd.DataFrame(grid, index=pd.Index(np.array(starts, np.uint64), name='address'),
                      columns=pd.Index(times, name='time_s'))
    df.attrs.update(
        pid=pid, references=lib.vmt_heatmap_references(h), first_ns=first.value,
        last_ns=last.value, outside=outside.value,
        row_end=np.array([rows[r].end for r in range(nr.value)], np.uint64),
        segments=_frame([(segs[i].start, segs[i].end, segs[i].gap_before, segs[i].first_row,
                          segs[i].nr_rows) for i in range(nseg.value)],
                        ['start', 'end', 'gap_before', 'first_row', 'nr_rows']))
    return df


def heatmap(trace, rows=30, cols=80, space='virtual', unit='page', addr=None,
            per_process=False, **filters):
    """`vmtrace heatmap --resolution ROWSxCOLS`: references over address
    and time, as a DataFrame of counts (uint64), a row an address range
    (the index: its start; attrs['row_end'] the ends) and a column a slice
    of time (its start in s from the first reference); .to_numpy() is the
    grid. Stretches nobody referenced are collapsed (attrs['segments']).
    Virtual space: the process with the most references (pids=... chooses),
    or with per_process a dict {pid: DataFrame} of every process's; physical
    space: all processes' frames. attrs: pid, references, first_ns,
    last_ns, segments, row_end."""
    rows, cols = int(rows), int(cols)
    if not (1 <= rows <= _lib.HEATMAP_MAX_ROWS and 1 <= cols <= _lib.HEATMAP_MAX_COLS):
        raise ValueError(f'rows and cols: 1 to {_lib.HEATMAP_MAX_ROWS}')
    ref = _ref_options(trace, space, unit, addr, filters)
    opts = _lib.HeatmapOptions(rows, cols)
    by_process = per_process or space == 'virtual'
    with _Analyses() as a:
        make = lambda out: lib.vmt_heatmap_create(out, ctypes.byref(opts))  # noqa: E731
        h = a.per_process(make, ref.source) if by_process else a.add(make)
        _run(trace, a.list, ref, filters)               # the survey
        second = dict(filters)
        if by_process and not per_process:
            # The busiest process alone is counted, as the command does.
            procs = _processes(h)
            best = 0
            for i in range(1, len(procs)):
                if lib.vmt_heatmap_references(procs[i][1]) > \
                        lib.vmt_heatmap_references(procs[best][1]):
                    best = i
            chosen = procs[best][0]
            second['pids'] = chosen
        stats = _run(trace, a.list, ref, second)        # the count
        if not by_process:
            df = _heatmap_frame(h, None)
        elif not per_process:
            df = _heatmap_frame(dict(_processes(h))[chosen], chosen)
            df.attrs['processes'] = lib.vmt_per_process_count(h)
        else:
            return {pid: _heatmap_frame(x, pid) for pid, x in _processes(h)}
    df.attrs['stats'] = _stats(stats)
    return df


# ---- hmtt -----------------------------------------------------------------------

HMTT_SECTIONS = ('dma', 'v2p', 'interleave', 'scr', 'prefetch', 'traffic')
SCR_VIEWS = ('virtual', 'physical-process', 'physical')    # hmtt_streams.c's
# asked for by name alone: its figures stand on an assumed DRAM map
HMTT_EXTRA_SECTIONS = ('dram',)
DRAM_FIELDS = ('ch', 'rank', 'bg', 'bank', 'row', 'col')      # enum vmt_dram_field


def _named_presets(preset_name):
    """{name: summary} of a library's presets, listed by @preset_name(i, &summary)
    (vmt_hierarchy_preset_name(), vmt_dram_map_preset_name()) until NULL."""
    out, i = {}, 0
    summary = ctypes.c_char_p()
    while True:
        name = preset_name(i, ctypes.byref(summary))
        if not name:
            return out
        out[name.decode()] = summary.value.decode() if summary.value else ''
        i += 1


def dram_presets():
    """hmtt's DRAM map presets: {name: what memory it stands for}."""
    return _named_presets(lib.vmt_dram_map_preset_name)


def parse_dram_map(spec):
    """A DRAM address map (struct vmt_dram_map) from a preset's name or its
    bits ('ch=6;bank=13,14;row=15-30'), as hmtt --dram-map reads it;
    ValueError saying what is wrong."""
    m = _lib.DramMap()
    if '=' not in spec:
        if lib.vmt_dram_map_preset(spec.encode(), ctypes.byref(m)):
            raise ValueError(f'dram_map: no preset {spec!r} ({", ".join(dram_presets())}; '
                             "or bits, as 'ch=6;bank=13,14;row=15-30;col=0-5,7-12')")
        return m
    err = ctypes.create_string_buffer(160)
    if lib.vmt_dram_map_parse(spec.encode(), ctypes.byref(m), err, len(err)):
        raise ValueError(f'dram_map: {err.value.decode()}')
    return m


def _dram_tables(d, m, space):
    """hmtt --csv's two DRAM tables, 'dram' and 'dram_bits', of analysis @d
    through map @m over @space's addresses ('physical' or 'virtual')."""
    r = lib.vmt_dram_result(d).contents
    pct = lambda part, whole: 100.0 * part / whole if whole else 0.0  # noqa: E731
    top = 47
    bits = [lib.vmt_dram_field_bits(ctypes.byref(m), f) for f in range(_lib.DRAM_NR_FIELDS)]
    for b in bits:
        if b:
            top = max(top, b.bit_length() - 1)
    summary = (space, r.references, r.no_frame, r.hits, r.misses, r.conflicts,
               pct(r.hits, r.references), pct(r.misses, r.references),
               pct(r.conflicts, r.references), r.window, lib.vmt_dram_blp(d), r.max_banks,
               r.banks_touched, r.banks)
    rows = []
    for bit in range(6, top + 1):
        fields = '+'.join(DRAM_FIELDS[f] for f in range(_lib.DRAM_NR_FIELDS)
                          if bits[f] >> bit & 1) or '-'
        rows.append((bit, r.flips[bit], r.pairs, pct(r.flips[bit], r.pairs), fields))
    return {'dram': _frame([summary], ['space', 'accesses', 'no_frame', 'hits', 'misses',
                                       'conflicts', 'hit_pct', 'miss_pct', 'conflict_pct',
                                       'window', 'blp', 'max_banks', 'banks_touched',
                                       'banks']),
            'dram_bits': _frame(rows, ['bit', 'changes', 'pairs', 'change_pct', 'field'])}


DMA_DIRECTIONS = ('bidirectional', 'to_device', 'from_device', 'none')
TRAFFIC_KINDS = ('cpu_read', 'cpu_write', 'dma_read', 'dma_write')
TRAFFIC_BASES = ('observed', 'estimated', 'upper bound')


def _hist(b, n, all_):
    rows, cumulative = [], 0
    for i in range(n):
        cumulative += b[i].count
        rows.append((b[i].lo, b[i].hi, b[i].count, 100.0 * b[i].count / all_ if all_ else 0.0,
                     100.0 * cumulative / all_ if all_ else 0.0))
    return rows


def _escaped(data):
    """A device's name as hmtt --csv's cell holds it, dump's escaping (record_print.c's
    print_escaped()): a backslash doubled, a byte outside printable ASCII as \\xNN."""
    return ''.join('\\\\' if b == 0x5c else chr(b) if 0x20 <= b < 0x7f else f'\\x{b:02x}'
                   for b in data)


def _comm_name(comm):
    """A process's name as hmtt --csv prints it: printable, '_' for a comma, a quote or a
    backslash (and what is not printable), '-' when the trace gave none."""
    name = ''.join(chr(c) if 32 <= c < 127 and chr(c) not in ',\'"\\' else '_' for c in comm)
    return name or '-'


def _hmtt_tables(sections, a, scr_windows, prefetch, dram=None, bounded=False):
    """The tables of one process (or all), as hmtt --csv prints them; @dram:
    the map and the space name of the dram section's."""
    out = {}
    pct = lambda part, whole: 100.0 * part / whole if whole else 0.0  # noqa: E731
    if 'dma' in sections and a.get('dma') and lib.vmt_dma_traffic_records(a['dma']):
        d = a['dma']
        ivs = ctypes.POINTER(_lib.DmaInterval)()
        n = lib.vmt_dma_traffic_intervals(d, ctypes.byref(ivs))
        total = _lib.DmaInterval()
        lib.vmt_dma_traffic_total(d, ctypes.byref(total))

        def row(iv, when):
            r, w = ctypes.c_double(), ctypes.c_double()
            lib.vmt_dma_interval_shares(ctypes.byref(iv), ctypes.byref(r), ctypes.byref(w))
            return (when, iv.references, iv.cpu_bytes, iv.read_bytes, iv.write_bytes,
                    iv.bidirectional_bytes, iv.coherent_bytes, r.value, w.value)
        cols = ['start_s', 'references', 'cpu_bytes', 'dma_read_bytes', 'dma_write_bytes',
                'bidirectional_bytes', 'coherent_bytes', 'read_pct', 'write_pct']
        out['dma'] = _frame([row(ivs[i], (ivs[i].start_ns - total.start_ns) / 1e9)
                             for i in range(n)], cols)
        out['dma_total'] = _frame([row(total, None)[1:]], cols[1:])
        sizes = lib.vmt_dma_traffic_sizes(d)
        buckets = [sizes[i] for i in range(_lib.DMA_SIZE_BUCKETS)]
        requests = sum(b.map_page + b.map_sg + b.alloc for b in buckets)
        out['dma_sizes'] = _frame(
            [(b.lo, b.hi, b.map_page, b.map_sg, b.alloc,
              pct(b.map_page + b.map_sg + b.alloc, requests))
             for b in buckets if b.map_page + b.map_sg + b.alloc],
            ['size_lo', 'size_hi', 'map_page', 'map_sg', 'alloc', 'percent'])
        devs = ctypes.POINTER(_lib.DmaDevice)()
        n = lib.vmt_dma_traffic_devices(d, ctypes.byref(devs))
        if n:
            rows = [devs[i] for i in range(n)]
            name = lambda x: _escaped(x.name) or '-'  # noqa: E731
            way = lambda x: DMA_DIRECTIONS[x.dir] if x.dir < 4 else '?'  # noqa: E731
            requests = sum(x.requests for x in rows)
            nbytes = sum(x.bytes for x in rows)
            out['dma_devices'] = _frame(
                [(name(x), way(x), x.requests, x.segments, x.bytes, pct(x.requests, requests),
                  pct(x.bytes, nbytes), x.bytes / x.requests if x.requests else 0.0)
                 for x in rows],
                ['device', 'direction', 'requests', 'segments', 'bytes', 'requests_pct',
                 'bytes_pct', 'avg_bytes'])
            cdf = []
            for x in rows:
                cumulative = 0
                for b in range(_lib.DMA_SIZE_BUCKETS):
                    if x.sizes[b]:
                        cumulative += x.sizes[b]
                        cdf.append((name(x), way(x), buckets[b].lo, buckets[b].hi, x.sizes[b],
                                    pct(x.sizes[b], x.requests), pct(cumulative, x.requests)))
            out['dma_device_sizes'] = _frame(cdf, ['device', 'direction', 'size_lo', 'size_hi',
                                                   'requests', 'percent', 'cumulative_pct'])
    hist_cols = ['count', 'percent', 'cumulative_percent']
    if 'v2p' in sections:
        v = a['v2p']
        r = lib.vmt_v2p_result(v).contents
        names = ['pages', 'page_mappings', 'remapped_pages', 'frames', 'frame_mappings',
                 'remapped_frames', 'adjacent_pairs', 'contiguous_pairs']
        out['v2p'] = _frame([tuple(getattr(r, k) for k in names) +
                             (lib.vmt_v2p_contiguity(v),)], names + ['contiguous_pct'])
        b = ctypes.POINTER(_lib.HistBucket)()
        n = lib.vmt_v2p_page_histogram(v, ctypes.byref(b))
        out['v2p_pages'] = _frame(_hist(b, n, r.pages),
                                  ['mappings_lo', 'mappings_hi'] + hist_cols)
        n = lib.vmt_v2p_frame_histogram(v, ctypes.byref(b))
        out['v2p_frames'] = _frame(_hist(b, n, r.frames),
                                   ['mappings_lo', 'mappings_hi'] + hist_cols)
    if 'interleave' in sections and a.get('interleave'):
        i = a['interleave']
        r = lib.vmt_interleave_result(i).contents
        out['interleave'] = _frame([(r.references, r.processes, r.runs, r.switches, r.mean,
                                     r.median, r.longest)],
                                   ['references', 'processes', 'runs', 'switches', 'mean',
                                    'median', 'longest'])
        b = ctypes.POINTER(_lib.HistBucket)()
        n = lib.vmt_interleave_histogram(i, ctypes.byref(b))
        out['runs'] = _frame(_hist(b, n, r.runs), ['run_length_lo', 'run_length_hi'] + hist_cols)
        procs = ctypes.POINTER(_lib.InterleaveProcess)()
        n = lib.vmt_interleave_processes(i, ctypes.byref(procs))
        out['interleave_processes'] = _frame(
            [(p.pid, _comm_name(p.comm), p.references, p.runs, p.mean, p.median, p.longest,
              p.short_runs, pct(p.short_runs, p.runs)) for p in (procs[k] for k in range(n))],
            ['pid', 'name', 'references', 'runs', 'mean', 'median', 'longest', 'short_runs',
             'short_pct'])
        rows = []
        for k in range(n):
            lengths = ctypes.POINTER(_lib.InterleaveLength)()
            cumulative = 0
            for j in range(lib.vmt_interleave_process_lengths(i, k, ctypes.byref(lengths))):
                cumulative += lengths[j].runs
                rows.append((procs[k].pid, lengths[j].length, lengths[j].runs, cumulative,
                             pct(cumulative, procs[k].runs)))
        out['run_cdf'] = _frame(rows, ['pid', 'run_length', 'runs', 'cumulative_runs',
                                       'cumulative_pct'])
    if 'scr' in sections:
        rows, lost, strides = [], [], []
        for w in scr_windows:
            rate = {}
            for view in SCR_VIEWS:
                s = a[f'scr_{w}_{view}']
                r = lib.vmt_scr_result(s).contents
                rate[view] = lib.vmt_scr_rate(s)
                rows.append((view, w, r.references, r.covered, rate[view]))
            v, pp, p = (rate[view] for view in SCR_VIEWS)
            lost.append((w, v, pp, p, v - pp, pct(v - pp, v), pp - p, pct(pp - p, pp)))
        out['scr'] = _frame(rows, ['space', 'window', 'references', 'covered', 'scr_pct'])
        # the views count the same references: not under addr=, whose bounds select
        # those of the pass's space alone (hmtt_streams.c's print_scr_lost())
        if lib.vmt_scr_result(a[f'scr_{scr_windows[0]}_physical']).contents.references and \
                not bounded:
            out['scr_lost'] = _frame(lost, ['window', 'virtual_pct', 'physical_process_pct',
                                            'physical_pct', 'lost_vm_points', 'lost_vm_pct',
                                            'lost_interleave_points', 'lost_interleave_pct'])
        for view in SCR_VIEWS:
            s = a[f'scr_{scr_windows[0]}_{view}']
            b = lib.vmt_scr_strides(s)
            completing, cumulative = lib.vmt_scr_result(s).contents.completing, 0
            for i in range(_lib.SCR_STRIDE_BUCKETS):
                n = b[i].forward + b[i].backward
                if n:
                    cumulative += n
                    strides.append((view, scr_windows[0], b[i].lo, b[i].hi, n, b[i].forward,
                                    b[i].backward, pct(n, completing),
                                    pct(cumulative, completing)))
        out['scr_strides'] = _frame(strides, ['space', 'window', 'stride_lo', 'stride_hi',
                                              'count', 'forward', 'backward', 'percent',
                                              'cumulative_percent'])
    if 'prefetch' in sections:
        rows = []
        for view in ('merged', 'per-process'):
            f = a['prefetch_' + view]
            r = lib.vmt_prefetch_result(f).contents
            rows.append((view, prefetch['space'], prefetch['trackers'], prefetch['degree'],
                         r.accesses, r.no_frame, r.repeats, r.served, r.demand, r.prefetches,
                         r.demand + r.prefetches, r.streams, lib.vmt_prefetch_rate(f),
                         pct(r.served, r.prefetches), pct(r.served, r.accesses - r.repeats)))
        out['prefetch'] = _frame(rows, ['view', 'space', 'trackers', 'degree', 'accesses',
                                        'no_frame', 'repeats', 'served', 'demand', 'prefetches',
                                        'dram_accesses', 'streams', 'prefetch_rate_pct',
                                        'accuracy_pct', 'coverage_pct'])
    if 'dram' in sections:
        out.update(_dram_tables(a['dram'], *dram))
    if 'traffic' in sections:
        out.update(_traffic_tables(a['traffic'], pct))
    return out


def _traffic_tables(t, pct):
    """The traffic section's tables, as hmtt --csv prints them."""
    out = {}
    r = lib.vmt_traffic_result(t).contents
    total = sum(r.bytes)
    out['traffic'] = _frame([(TRAFFIC_KINDS[k], r.count[k], r.bytes[k], pct(r.bytes[k], total),
                              TRAFFIC_BASES[r.basis[k]]) for k in range(_lib.TRAFFIC_KINDS)],
                            ['kind', 'count', 'bytes', 'share_pct', 'basis'])
    ivs = ctypes.POINTER(_lib.TrafficInterval)()
    n = lib.vmt_traffic_intervals(t, ctypes.byref(ivs))

    def row(start, duration, nbytes):
        seconds = duration / 1e9
        return ((start, seconds) + tuple(nbytes) +
                tuple(b / seconds if seconds > 0 else 0.0 for b in nbytes))
    cols = ['start_s', 'duration_s'] + [k + '_bytes' for k in TRAFFIC_KINDS] + \
        [k + '_bps' for k in TRAFFIC_KINDS]
    out['traffic_bandwidth'] = _frame(
        [row((ivs[i].start_ns - r.start_ns) / 1e9, ivs[i].duration_ns, list(ivs[i].bytes))
         for i in range(n)], cols)
    sums = [sum(ivs[i].bytes[k] for i in range(n)) for k in range(_lib.TRAFFIC_KINDS)]
    out['traffic_bandwidth_total'] = _frame([row(None, r.end_ns - r.start_ns, sums)[1:]],
                                            cols[1:])
    refs = r.mode[0].references + r.mode[1].references
    out['traffic_modes'] = _frame(
        [(m, x.references, pct(x.references, refs), x.reads, x.writes, x.read_bytes,
          x.write_bytes) for m, x in (('user', r.mode[0]), ('kernel', r.mode[1]))],
        ['mode', 'references', 'share_pct', 'reads', 'writes', 'read_bytes', 'write_bytes'])
    cpu_left = r.fault_references + r.exact_accesses + r.bus_records - r.cpu_references
    rows = [('cpu_references', r.cpu_references, r.cpu_untranslatable, cpu_left),
            ('dma_lines', r.dma_lines, r.dma_untranslatable, r.dma_no_phys),
            ('all', r.cpu_references + r.dma_lines, r.cpu_untranslatable + r.dma_untranslatable,
             cpu_left + r.dma_no_phys)]
    out['traffic_untranslatable'] = _frame(
        [(w, c, b, pct(b, c), left) for w, c, b, left in rows],
        ['traffic', 'count', 'untranslatable', 'untranslatable_pct', 'left_out'])
    return out


def hmtt(trace, sections=None, window=None, scr_window=32, space=None, unit='page',
         addr=None, per_process=False, prefetch_trackers=8, prefetch_degree=2,
         dram_map='ddr4-2ch', dram_window=32, **filters):
    """`vmtrace hmtt --csv`: HMTT's analyses as a dict of DataFrames, the
    command's tables: 'dma' (an interval a row, start_s from the first),
    'dma_total' (its 'all' row), 'dma_sizes', 'dma_devices' and
    'dma_device_sizes' (when a device mapped), 'v2p', 'v2p_pages',
    'v2p_frames', 'interleave', 'runs' (all the processes'),
    'interleave_processes' (a process a row: its runs, the short ones, name),
    'run_cdf' (each process's run lengths, cumulative), 'scr', 'scr_lost'
    (left out without frames), 'scr_strides', 'prefetch', 'traffic',
    'traffic_bandwidth', 'traffic_bandwidth_total' (its 'all' row),
    'traffic_modes', 'traffic_untranslatable', 'dram', 'dram_bits'.
    @sections: 'dma,v2p' or a list (--section; None: all but dram, as the
    command's default); @window: dma's and traffic's intervals, ns or '10ms'
    (None: one); @scr_window: 3..1024, or a list of up to 8 (--scr-window
    8,32); @prefetch_trackers, @prefetch_degree: --prefetch-trackers,
    --prefetch-degree; @dram_map: a preset's name or bits (--dram-map),
    @dram_window: 2..65536. @space: 'virtual' (None: the same, but prefetch
    and dram read physical addresses unless the references are exact
    accesses, as the command without --space) or 'physical'. The DMA tables
    are left out when no DMA record passes (an error when dma is the one
    section asked). With per_process, a dict {'all': tables, pid: tables...},
    the processes' without interleave."""
    if sections is None:
        sections = HMTT_SECTIONS
    elif isinstance(sections, str):
        sections = sections.split(',')
    sections = list(sections)
    for s in sections:
        if s not in HMTT_SECTIONS + HMTT_EXTRA_SECTIONS:
            raise ValueError(f'unknown section {s!r} (dma, v2p, interleave, scr, prefetch, '
                             'traffic, dram)')
    if not sections:
        raise ValueError('sections: none given')
    window_ns = 0 if window is None else duration_ns(window, 'window', bare_ns=True)
    scr_windows = [int(w) for w in (scr_window if isinstance(scr_window, (list, tuple))
                                    else [scr_window])]
    if not 1 <= len(scr_windows) <= 8 or len(set(scr_windows)) != len(scr_windows) or \
            not all(_lib.SCR_MIN_WINDOW <= w <= _lib.SCR_MAX_WINDOW for w in scr_windows):
        raise ValueError('scr_window: 3 to 1024, or a list of up to 8 of them, each once')
    if not 1 <= int(prefetch_trackers) <= _lib.PREFETCH_MAX_TRACKERS:
        raise ValueError('prefetch_trackers: 1 to 1024')
    if not 1 <= int(prefetch_degree) <= _lib.PREFETCH_MAX_DEGREE:
        raise ValueError('prefetch_degree: 1 to 64')
    if not _lib.DRAM_MIN_WINDOW <= int(dram_window) <= _lib.DRAM_MAX_WINDOW:
        raise ValueError(f'dram_window: {_lib.DRAM_MIN_WINDOW} to {_lib.DRAM_MAX_WINDOW}')
    dmap = parse_dram_map(dram_map) if isinstance(dram_map, str) else dram_map
    ref = _ref_options(trace, space or 'virtual', unit, addr, filters)
    # prefetch's and dram's addresses: physical unless asked for virtual
    # ones, or there are none (exact accesses).
    pf_space = _lib.REF_VIRTUAL if ref.source == _lib.REF_EXACT or space == 'virtual' else \
        _lib.REF_PHYSICAL
    pf = {'space': 'physical' if pf_space == _lib.REF_PHYSICAL else 'virtual',
          'trackers': int(prefetch_trackers), 'degree': int(prefetch_degree)}
    makers = {}
    if 'dma' in sections:
        def make_dma(out):
            ret = lib.vmt_dma_traffic_create(out, window_ns)
            if not ret:
                # @out: a byref() (all's) or a pointer (a process's, from C)
                made = out._obj.value if hasattr(out, '_obj') else out[0]
                lib.vmt_dma_traffic_set_trace(made, trace._handle())
            return ret
        makers['dma'] = make_dma
    if 'traffic' in sections:
        makers['traffic'] = lambda out: lib.vmt_traffic_create(out, ref.source, window_ns)
    if 'v2p' in sections:
        makers['v2p'] = lib.vmt_v2p_create
    if 'interleave' in sections:
        makers['interleave'] = lib.vmt_interleave_create
    # --addr bounds the stream analyses of the pass's space alone.
    bounds = lambda code: (ref.addr_lo, ref.addr_hi) if code == ref.space else (0, 0)  # noqa: E731
    if 'scr' in sections:
        views = ((_lib.REF_VIRTUAL, _lib.SCR_RINGS_PROCESS),
                 (_lib.REF_PHYSICAL, _lib.SCR_RINGS_PROCESS),
                 (_lib.REF_PHYSICAL, _lib.SCR_RINGS_MERGED))
        for w in scr_windows:
            for view, (code, rings) in zip(SCR_VIEWS, views):
                scr_ref = _lib.RefOptions(code, ref.unit, *bounds(code), ref.source)
                makers[f'scr_{w}_{view}'] = (lambda o, w, rings: lambda out:
                                             lib.vmt_scr_create_rings(out, ctypes.byref(o), w,
                                                                      rings))(scr_ref, w, rings)
    if 'prefetch' in sections:
        pf_ref = _lib.RefOptions(pf_space, _lib.REF_LINE, *bounds(pf_space), ref.source)
        for view in ('merged', 'per-process'):
            config = _lib.PrefetchConfig(pf['trackers'], pf['degree'], view == 'per-process')
            makers['prefetch_' + view] = (lambda o, c: lambda out: lib.vmt_prefetch_create(
                out, ctypes.byref(o), ctypes.byref(c)))(pf_ref, config)
    if 'dram' in sections:
        dram_ref = _lib.RefOptions(pf_space, _lib.REF_LINE, *bounds(pf_space), ref.source)
        makers['dram'] = lambda out: lib.vmt_dram_create(out, ctypes.byref(dram_ref),
                                                         ctypes.byref(dmap), int(dram_window))
    dram = (dmap, pf['space'])
    with _Analyses() as a:
        whole, per = {}, {}
        for k, make in makers.items():
            whole[k] = a.add(make)
            if per_process and k != 'interleave':
                per[k] = a.per_process(make, ref.source)
        _run(trace, a.list, ref, filters)
        if 'dma' in whole and not lib.vmt_dma_traffic_records(whole['dma']) and \
                sections == ['dma']:
            raise NoReferences(f'{trace.path}: no DMA records' +
                               (' pass the filters' if any(v is not None for v in
                                                           filters.values()) else
                                ' in the trace'))
        bounded = addr is not None
        tables = _hmtt_tables(sections, whole, scr_windows, pf, dram, bounded)
        if not per_process:
            return tables
        out = {'all': tables}
        any_pp = next(iter(per.values()), None)
        for i in range(lib.vmt_per_process_count(any_pp) if any_pp else 0):
            pid = ctypes.c_uint32()
            mine = {k: lib.vmt_per_process_get(pp, i, ctypes.byref(pid)) for k, pp in per.items()}
            out[pid.value] = _hmtt_tables([s for s in sections if s != 'interleave'], mine,
                                          scr_windows, pf, dram, bounded)
        return out


# ---- cachesim -------------------------------------------------------------------

def presets():
    """cachesim's presets: {name: what it is}."""
    return _named_presets(lib.vmt_hierarchy_preset_name)


def _error(err):
    return err.message.decode(errors='backslashreplace')


def _hierarchies(cache, tlb, config, preset, prefetch):
    """The hierarchies of --cache/--tlb ("custom"), --config files and
    --preset names, as cachesim's options make them (cachegrind's preset
    when none)."""
    listed = lambda v: [] if v is None else [v] if isinstance(v, (str, os.PathLike)) else list(v)  # noqa: E731
    cache, tlb, config, preset = listed(cache), listed(tlb), listed(config), listed(preset)
    hs = (_lib.HierarchyConfig * 64)()
    n = 0
    err = _lib.Error()
    if cache or tlb:
        hs[0].name = b'custom'
        n = 1
        for spec in cache:
            if lib.vmt_hierarchy_add_cache_spec(ctypes.byref(hs[0]), spec.encode(),
                                                ctypes.byref(err)):
                raise ValueError(f'cache {spec}: {_error(err)}')
        for spec in tlb:
            if lib.vmt_hierarchy_add_tlb_spec(ctypes.byref(hs[0]), spec.encode(),
                                              ctypes.byref(err)):
                raise ValueError(f'tlb {spec}: {_error(err)}')
        if prefetch:
            for k in range(hs[0].nr_caches):
                hs[0].caches[k].prefetch = True
    elif prefetch:
        raise ValueError("prefetch is for the cache levels (a config file says "
                         "'prefetch next-line')")
    for path in config:
        text = open(path, 'rb').read()
        got = ctypes.c_uint()
        ret = lib.vmt_hierarchy_parse(text, len(text), ctypes.byref(hs[n]), 64 - n,
                                      ctypes.byref(got), ctypes.byref(err))
        if ret:
            raise ValueError(f'{path}: ' + ('more hierarchies than 64' if ret == -errno.ENOSPC
                                            else _error(err)))
        base = os.path.basename(os.fspath(path)).split('.')[0].encode()[:31]
        for i in range(n, n + got.value):
            if hs[i].name == b'config':
                hs[i].name = base
        n += got.value
    for name in preset:
        got = ctypes.c_uint()
        ret = lib.vmt_hierarchy_preset(name.encode(), ctypes.byref(hs[n]), 64 - n,
                                       ctypes.byref(got))
        if ret:
            raise ValueError(f'preset {name}: ' + ('no such preset' if ret == -errno.ENOENT
                                                   else 'more hierarchies than 64'))
        n += got.value
    if not n:
        got = ctypes.c_uint()
        lib.vmt_hierarchy_preset(b'cachegrind', hs, 64, ctypes.byref(got))
        n = got.value
    for i in range(n):
        if lib.vmt_hierarchy_check(ctypes.byref(hs[i]), ctypes.byref(err)):
            raise ValueError(f'{hs[i].name.decode()}: {_error(err)}')
    return hs, n


def cachesim(trace, cache=None, tlb=None, config=None, preset=None, prefetch=False, cores=1,
             core_by='cpu', seed=1, per_thread=False, per_process=False, by_marker=False,
             top=0, no_classify=False, threads=None, batch=0, space='virtual', addr=None,
             **filters):
    """`vmtrace cachesim --csv`: the trace's accesses through simulated
    caches and TLBs, a DataFrame of [phase,] [tid|pid,] hierarchy, level,
    accesses, hits, misses, miss_ratio, read_misses, write_misses,
    fetch_misses, compulsory, capacity, conflict, writebacks,
    writebacks_in, invalidations, back_invalidations, prefetches, mpki
    (None when the trace fetches no instruction). The options are cachesim's:
    @cache ['L1=32k:8:64', 'L2=1M:16:64:srrip'] and @tlb specs (the
    "custom" hierarchy), @config files, @preset names (a name or a list;
    none of the three: cachegrind), the hierarchies in that order, @prefetch, @cores, @core_by ('cpu' or
    'thread'), @seed, @per_thread or @per_process, @by_marker, @top,
    @no_classify, @threads (None: one a CPU; the counts are the same),
    @batch, @space, @addr. attrs: totals (struct vmt_cachesim_totals),
    top (with @top: hierarchy, ip, pid, misses, l1_misses)."""
    if per_thread and per_process:
        raise ValueError('per_thread or per_process, not both')
    if by_marker and (per_thread or per_process):
        raise ValueError('by_marker goes with neither per_thread nor per_process')
    if core_by not in ('cpu', 'thread'):
        raise ValueError(f"core_by: 'cpu' or 'thread', not {core_by!r}")
    if not 1 <= int(cores) <= _lib.CACHE_MAX_CORES:
        raise ValueError('cores: 1 to 256')
    hs, n = _hierarchies(cache, tlb, config, preset, prefetch)
    ref = _ref_options(trace, space, 'page', addr, filters)
    so = _lib.CachesimOptions(
        cores=int(cores), core_by_thread=core_by == 'thread', seed=int(seed),
        per_thread=bool(per_thread), per_process=bool(per_process), top=int(top),
        by_marker=bool(by_marker), physical=space == 'physical', addr_lo=ref.addr_lo,
        addr_hi=ref.addr_hi, no_classify=bool(no_classify),
        threads=(os.cpu_count() or 1) if threads is None else int(threads), batch=int(batch))
    sim, err = _lib.P(), _lib.Error()
    ret = lib.vmt_cachesim_create(ctypes.byref(sim), hs, n, ctypes.byref(so), ctypes.byref(err))
    if ret:
        raise ValueError(_error(err))
    try:
        with _Analyses() as a:
            a.add(lambda out: lib.vmt_cachesim_analysis(sim, out))
            _run(trace, a.list, ref, filters, what='accesses')
        tot = _lib.CachesimTotals()
        lib.vmt_cachesim_totals(sim, ctypes.byref(tot))
        if not tot.accesses:
            raise NoReferences(f'{trace.path}: no accesses to simulate')
        rows_p, nrows = ctypes.POINTER(_lib.CachesimRow)(), ctypes.c_size_t()
        if lib.vmt_cachesim_rows(sim, ctypes.byref(rows_p), ctypes.byref(nrows)):
            raise MemoryError('cachesim rows')
        try:
            rows = [rows_p[i] for i in range(nrows.value)]
            df = _cachesim_frame(rows, hs, tot, per_thread, per_process, by_marker)
        finally:
            _lib.libc_free(ctypes.cast(rows_p, ctypes.c_void_p))
        tops = []
        for h in range(n if top else 0):
            tp, nt = ctypes.POINTER(_lib.CachesimTop)(), ctypes.c_size_t()
            if lib.vmt_cachesim_top(sim, h, ctypes.byref(tp), ctypes.byref(nt)):
                continue
            tops += [(hs[h].name.decode(), tp[i].ip, tp[i].pid, tp[i].misses, tp[i].l1_misses)
                     for i in range(nt.value)]
            _lib.libc_free(ctypes.cast(tp, ctypes.c_void_p))
    finally:
        lib.vmt_cachesim_destroy(sim)
    df.attrs.update(totals=_stats(tot), top=_frame(tops, ['hierarchy', 'ip', 'pid', 'misses',
                                                          'l1_misses']))
    return df


def _cachesim_frame(rows, hs, tot, per_thread, per_process, by_marker):
    out, insns, first = [], 0, 0
    for i, r in enumerate(rows):
        f = rows[first]
        if i == 0 or (r.hierarchy, r.id, r.phase) != (f.hierarchy, f.id, f.phase):
            first, insns = i, 0
            for k in range(i, len(rows)):
                if (rows[k].hierarchy, rows[k].id, rows[k].phase) != (r.hierarchy, r.id, r.phase):
                    break
                if rows[k].fetch:
                    insns = rows[k].counts.accesses
                    break
        c = r.counts
        row = {}
        if by_marker:
            row['phase'] = r.phase
        if per_thread or per_process:
            row['tid' if per_thread else 'pid'] = 'all' if r.id == _lib.CACHESIM_ALL else r.id
        row.update(hierarchy=hs[r.hierarchy].name.decode(), level=r.level.decode(),
                   accesses=c.accesses, hits=c.hits, misses=c.misses,
                   miss_ratio=c.misses / c.accesses if c.accesses else 0.0)
        for k in _lib.CACHE_COUNTS[3:]:
            row[k] = getattr(c, k)
        # misses a thousand instructions; None when the trace fetches none (an empty cell)
        row['mpki'] = (1000.0 * c.misses / insns if insns else 0.0) if tot.fetches else None
        out.append(row)
    return pd.DataFrame(out)
