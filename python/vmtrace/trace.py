# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""A trace file open for reading: vmtrace.open(path) -> Trace."""
import ctypes
import errno
import os

import numpy as np

from . import _lib
from .records import RECORD_DTYPE, TYPE_NAMES, TYPES, type_number

lib = _lib.lib

#: records() raises LimitError past this many records (64 bytes each: 2 GiB)
#: unless given another max_records (None: no bound).
DEFAULT_MAX_RECORDS = 1 << 25
# records(): the most it allocates before any record is read (1 GiB), and
# reads in one call of the library (for Ctrl-C to be seen between them).
_FIRST_ALLOCATION = 1 << 24
_READ_AT_ONCE = 1 << 22


class TraceError(Exception):
    """What libvmtrace said of a trace it could not open or read: a missing
    or damaged file, a frame that does not decode... @errno is the error
    number the library returned (errno.EBADMSG, errno.ENOENT...)."""

    def __init__(self, message, errno=None, path=None):
        super().__init__(message)
        self.errno = errno
        self.path = path


class LimitError(Exception):
    """records() would return more than max_records records."""


def _message(ret, text):
    text = text.decode(errors='backslashreplace') if text else ''
    return text or os.strerror(-ret)


def _ids(values, what, limit):
    """A ctypes uint32 array of @values (an int or an iterable of ints)."""
    if isinstance(values, (int, np.integer)):
        values = [values]
    values = [int(v) for v in values]
    if not values:
        raise ValueError(f'{what}: an empty list passes no record (None passes every one)')
    for v in values:
        if not 0 <= v <= limit:
            raise ValueError(f'{what}: {v} is not in 0..{limit}')
    return (ctypes.c_uint32 * len(values))(*values)


def _ranges(values, what):
    """A ctypes array of struct vmt_trace_range from (start, end) pairs: [start, end)."""
    if len(values) == 2 and all(isinstance(v, (int, np.integer)) for v in values):
        values = [values]
    values = [(int(s), int(e)) for s, e in values]
    if not values:
        raise ValueError(f'{what}: an empty list passes no record (None passes every one)')
    for s, e in values:
        if not 0 <= s < e <= 1 << 64:
            raise ValueError(f'{what}: [{s:#x}, {e:#x}) is empty or out of range')
    return (_lib.Range * len(values))(*[_lib.Range(s, min(e, (1 << 64) - 1)) for s, e in values])


def _types(types):
    if isinstance(types, str):
        types = types.split(',')
    elif isinstance(types, (int, np.integer)):
        types = [types]
    mask = 0
    for t in types:
        mask |= 1 << type_number(t)
    if not mask:
        raise ValueError('types: an empty list passes no record (None passes every one)')
    return mask


def _phases(phases):
    """struct vmt_trace_phase[] of (pid, start, end) tuples (Trace.marker_phases()'s),
    sorted by pid and start, as the library wants them (it checks the rest)."""
    try:
        items = sorted((int(p), int(s), int(e)) for p, s, e in phases)
    except (TypeError, ValueError):
        raise ValueError('phases: (pid, start, end) tuples, as marker_phases() gives') from None
    if not items:
        raise ValueError('phases: none (marker_phases() found none?)')
    out = (_lib.Phase * len(items))()
    for i, (pid, start, end) in enumerate(items):
        if not (0 <= pid < 1 << 32 and 0 <= start < end < 1 << 64):
            raise ValueError(f'phases: ({pid}, {start}, {end}) is not a pid and a time range')
        out[i].pid, out[i].start, out[i].end = pid, start, end
    return out


def _filter(types=None, pids=None, cpus=None, start=None, end=None, addrs=None, ips=None,
            phases=None):
    """A struct vmt_trace_filter of `vmtrace dump`'s options (--type, --pid,
    --cpu, --from, --to, --addr, --ip; phases: --marker's and
    --between-markers', from Trace.marker_phases()), and the arrays it points
    to (to keep alive), or (None, None) when every argument is None."""
    args = (types, pids, cpus, start, end, addrs, ips, phases)
    if all(a is None for a in args):
        return None, None
    f, keep = _lib.Filter(), []
    if types is not None:
        f.types = _types(types)
    if pids is not None:
        keep.append(_ids(pids, 'pids', 0xffffffff))
        f.nr_pids, f.pids = len(keep[-1]), keep[-1]
    if cpus is not None:
        keep.append(_ids(cpus, 'cpus', 0xffff))
        f.nr_cpus, f.cpus = len(keep[-1]), keep[-1]
    if start is not None or end is not None:
        f.time_range = 1
        f.from_time = 0 if start is None else int(start)
        f.to_time = (1 << 64) - 1 if end is None else int(end)
        if f.from_time > f.to_time or min(f.from_time, f.to_time) < 0:
            raise ValueError(f'start {start} is after end {end}')
    if addrs is not None:
        keep.append(_ranges(addrs, 'addrs'))
        f.nr_addrs, f.addrs = len(keep[-1]), keep[-1]
    if ips is not None:
        keep.append(_ranges(ips, 'ips'))
        f.nr_ips, f.ips = len(keep[-1]), keep[-1]
    if phases is not None:
        keep.append(_phases(phases))
        f.nr_phases, f.phases = len(keep[-1]), keep[-1]
    return f, keep


class Trace:
    """A trace file open for reading, with libvmtrace (vmtrace.open()).

    A context manager; close() frees it, and any cursor still reading it.
    Not for use by several threads at once.
    """

    def __init__(self, path, scan=False):
        handle, err = _lib.P(), _lib.Error()
        self.path = os.fspath(path)
        ret = lib.vmt_trace_open(ctypes.byref(handle), os.fsencode(self.path),
                                 1 if scan else 0, ctypes.byref(err))
        if ret:
            raise TraceError(_message(ret, err.message), -ret, self.path)
        self._t = handle
        self._cursors = set()
        self._len = None
        self._loop_records = None
        self.format_version = lib.vmt_trace_format_version(handle)
        self.streams = [self._stream(i) for i in range(lib.vmt_trace_nr_streams(handle))]
        session = _lib.Session()
        self.session = None
        if lib.vmt_trace_session(handle, ctypes.byref(session)) == 0:
            self.session = {name: getattr(session, name) for name, _ in session._fields_
                            if not name.startswith('reserved')}

    # ---- the handle ----------------------------------------------------------

    def close(self):
        """Free the trace (and its cursors); closing twice is harmless."""
        for cursor in list(self._cursors):
            self._free_cursor(cursor)
        if self._t:
            lib.vmt_trace_close(self._t)
            self._t = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, '_t', None):
            self.close()

    def __repr__(self):
        return f'<vmtrace.Trace {self.path!r}{"" if self._t else " (closed)"}>'

    def _handle(self):
        if not self._t:
            raise ValueError('the trace is closed')
        return self._t

    def _error(self, ret):
        return TraceError(_message(ret, lib.vmt_trace_error_message(self._t)), -ret, self.path)

    # ---- what the trace holds ------------------------------------------------

    def _stream(self, i):
        info, stats = lib.vmt_trace_stream(self._t, i).contents, _lib.StreamStats()
        ret = lib.vmt_trace_stream_stats(self._t, i, ctypes.byref(stats))
        if ret:
            raise self._error(ret)
        kind = _lib.STREAM_KINDS[info.kind] if info.kind < len(_lib.STREAM_KINDS) else info.kind
        s = {'id': info.id, 'name': info.name.decode(errors='backslashreplace'), 'kind': kind,
             'entry_size': info.entry_size, 'entries': stats.entries, 'frames': stats.frames}
        if info.kind == _lib.STREAM_RECORDS:
            s['record_type'] = (None if info.record_type == _lib.ANY_TYPE else
                                TYPE_NAMES.get(info.record_type, info.record_type))
            s['cpu'] = None if info.cpu == _lib.ANY_CPU else info.cpu
        if info.time_offset != _lib.NO_TIME and stats.entries:
            s.update(first_time=stats.first_time, last_time=stats.last_time,
                     time_sorted=bool(stats.time_sorted))
        return s

    def loops(self):
        """The loop-compressed threads (vmtrace loops): a dict each, the
        fields of struct vmt_trace_loops_thread; [] for an ordinary trace."""
        threads, n = ctypes.POINTER(_lib.LoopsThread)(), ctypes.c_uint32()
        ret = lib.vmt_trace_loops(self._handle(), ctypes.byref(threads), ctypes.byref(n))
        if ret:
            raise self._error(ret)
        try:
            return [{name: getattr(threads[i], name) for name, _ in _lib.LoopsThread._fields_}
                    for i in range(n.value)]
        finally:
            _lib.libc_free(ctypes.cast(threads, ctypes.c_void_p))

    def info(self):
        """What `vmtrace info` says of the trace, as a dict: path,
        format_version, size (bytes), streams, frames, records (the record
        streams' entries and the loop streams' records, from the directory
        alone: len() counts what a cursor returns), session (or None)."""
        t = self._handle()
        stored = sum(s['entries'] for s in self.streams if s['kind'] == 'records')
        return {'path': self.path, 'format_version': self.format_version,
                'size': os.path.getsize(self.path), 'streams': len(self.streams),
                'frames': lib.vmt_trace_nr_frames(t),
                'records': stored + sum(th['records'] for th in self.loops()),
                'session': self.session}

    @property
    def files(self):
        """A trace set's files (a set file, docs/FORMAT.md "Trace sets"), in
        the order they are read, each as (path, time_shift): how many ns its
        times were moved later to follow the files before it. [] for a
        trace of one file."""
        t = self._handle()
        out = []
        for k in range(lib.vmt_trace_set_files(t)):
            shift = ctypes.c_uint64()
            path = lib.vmt_trace_set_file(t, k, ctypes.byref(shift))
            out.append((os.fsdecode(path), shift.value))
        return out

    @property
    def time_span(self):
        """(first, last): the least of the streams' first entries' times
        and the greatest of their last entries', in ns, as `vmtrace info`'s
        time column gives them (a stream's first and last entries; in a
        stream whose times do not only rise, others may lie outside), or
        None for a trace without timed entries."""
        timed = [s for s in self.streams if 'first_time' in s]
        if not timed:
            return None
        return (min(s['first_time'] for s in timed), max(s['last_time'] for s in timed))

    def frame_records(self):
        """The records a frame of the trace holds at most: the largest
        entries-per-frame of its record streams (iteration's batch size)."""
        sizes = [-(-s['entries'] // s['frames']) for s in self.streams
                 if s['kind'] == 'records' and s['frames']]
        return max(sizes, default=1 << 16)

    def __iter__(self):
        """The records in written order, a frame's worth at a time
        (frame_records() each, the last fewer): batches() of that size."""
        return iter(self.batches(self.frame_records()))

    def check(self):
        """Decode every frame and check it against the directory (vmtrace
        verify); TraceError names what is wrong."""
        ret = lib.vmt_trace_check(self._handle())
        if ret:
            raise self._error(ret)

    def __len__(self):
        """The number of records a cursor returns (counted once, by reading them)."""
        if self._len is None:
            buf = np.empty(1 << 16, RECORD_DTYPE)
            cursor = self._cursor(None, _lib.ORDER_WRITTEN)
            try:
                count = 0
                while (n := self._read(cursor, buf)):
                    count += n
            finally:
                self._free_cursor(cursor)
            self._len = count
        return self._len

    # ---- records -------------------------------------------------------------

    def _cursor(self, filt, order):
        """A new cursor over the records @filt passes, in @order."""
        t = self._handle()
        order = {'written': _lib.ORDER_WRITTEN, 'time': _lib.ORDER_TIME}.get(order, order)
        if order not in (_lib.ORDER_WRITTEN, _lib.ORDER_TIME):
            raise ValueError(f"order: 'written' or 'time', not {order!r}")
        cursor = _lib.P()
        ret = lib.vmt_trace_set_filter(t, ctypes.byref(filt) if filt else None)
        if ret:
            raise self._error(ret)
        # The cursor keeps its copy of the filter; the trace's is reset at once.
        ret = lib.vmt_trace_cursor_create(t, order, ctypes.byref(cursor))
        lib.vmt_trace_set_filter(t, None)
        if ret:
            raise self._error(ret)
        self._cursors.add(cursor.value)
        return cursor.value

    def _free_cursor(self, cursor):
        if cursor in self._cursors:
            self._cursors.discard(cursor)
            lib.vmt_trace_cursor_free(cursor)

    def _read(self, cursor, buf):
        """The next records into @buf (a C-contiguous RECORD_DTYPE array): their
        count, 0 at the end."""
        if cursor not in self._cursors:
            raise ValueError('the trace is closed')
        n = lib.vmt_trace_cursor_read(cursor, buf.ctypes.data, None, len(buf))
        if n < 0:
            raise self._error(n)
        return n

    def _read_at(self, cursor, buf, at, n):
        """Up to @n next records into @buf[@at:] (C-contiguous RECORD_DTYPE,
        room for them): their count, 0 at the end."""
        if cursor not in self._cursors:
            raise ValueError('the trace is closed')
        got = lib.vmt_trace_cursor_read(cursor, buf.ctypes.data + at * _lib.RECORD_SIZE, None, n)
        if got < 0:
            raise self._error(got)
        return got

    def batches(self, n=65536, types=None, pids=None, cpus=None, start=None, end=None,
                addrs=None, ips=None, order='written', phases=None):
        """The records records() would return, as arrays of up to @n records
        each (a new array each time), read as they are asked for."""
        if n < 1:
            raise ValueError('n must be at least 1')
        if order not in ('written', 'time'):
            raise ValueError(f"order: 'written' or 'time', not {order!r}")
        # Bad filters raise here; the cursor is made at the first batch.
        return self._batches(n, _filter(types, pids, cpus, start, end, addrs, ips, phases),
                             order)

    def _batches(self, n, filt_keep, order):
        cursor = self._cursor(filt_keep[0], order)
        del filt_keep
        try:
            while True:
                buf = np.empty(n, RECORD_DTYPE)
                count = self._read(cursor, buf)
                if not count:
                    return
                yield buf if count == n else buf[:count].copy()
        finally:
            self._free_cursor(cursor)

    def records(self, types=None, pids=None, cpus=None, start=None, end=None, addrs=None,
                ips=None, order='written', max_records=DEFAULT_MAX_RECORDS, phases=None):
        """The records that pass the filters, as one numpy array of RECORD_DTYPE.

        The filters are `vmtrace dump`'s, and pass what dump's options pass:
        types   record types, by name as dump prints them or number: 'ref',
                'ref,evict', ['exact', 'marker'], 15          (--type)
        pids    process ids (thread group ids): 1234 or [1, 2]  (--pid)
        cpus    CPUs                                          (--cpu)
        start   records at or after this time (ns)            (--from)
        end     records at or before this time (ns), inclusive as --to is
        addrs   (start, end) address ranges, [start, end): references',
                evictions' and exact accesses' addresses      (--addr)
        ips     (start, end) instruction ranges               (--ip)
        phases  each process's records within its phases, (pid, start, end)
                tuples: marker_phases()'s (--marker, --between-markers)
        order   'written' (as the writer received them) or 'time' (--order)

        More than @max_records records raise LimitError (None: no bound).
        """
        filt, keep = _filter(types, pids, cpus, start, end, addrs, ips, phases)
        bound = self._bound(filt)
        cursor = self._cursor(filt, order)
        del keep
        # One array, read into in place: sized from the directory (the
        # records the streams the filter reads hold: exact without a
        # filter), grown by realloc() (ndarray.resize) if a damaged
        # directory undercounts, cut to the count at the end. No chunks to
        # concatenate: each record is written once, by the library.
        limit = None if max_records is None else max_records + 1
        size = max(1, bound + 1 if limit is None else min(bound + 1, limit))
        size = min(size, _FIRST_ALLOCATION)
        out = np.empty(size, RECORD_DTYPE)
        total = 0
        try:
            while True:
                room = len(out) - total
                if not room:
                    if limit is not None and total >= limit:
                        break
                    grow = len(out) if limit is None else min(len(out), limit - total)
                    out.resize(len(out) + grow, refcheck=False)
                    room = grow
                count = self._read_at(cursor, out, total, min(room, _READ_AT_ONCE))
                total += count
                if count < min(room, _READ_AT_ONCE):
                    break
        finally:
            self._free_cursor(cursor)
        if max_records is not None and total > max_records:
            raise LimitError(f'{self.path}: more than {max_records} records pass '
                             '(give records() a larger max_records, or read batches())')
        if total != len(out):
            # realloc() in place: glibc shrinks a big (mmap()ed) block with
            # mremap(), a small one where it is.
            out.resize(total, refcheck=False)
        return out

    def _bound(self, filt):
        """At least the records a cursor with @filt returns, from the directory:
        the entries of the record streams of the types and CPUs it passes (all
        of them without a filter), and the loop streams' records."""
        types = filt.types if filt is not None and filt.types else None
        cpus = (set(filt.cpus[i] for i in range(filt.nr_cpus))
                if filt is not None and filt.nr_cpus else None)
        n = 0
        for s in self.streams:
            if s['kind'] != 'records':
                continue
            rt = s['record_type']
            rt = TYPES.get(rt, rt) if isinstance(rt, str) else rt
            if types is not None and rt is not None and not types >> rt & 1:
                continue
            if cpus is not None and s['cpu'] is not None and s['cpu'] not in cpus:
                continue
            n += s['entries']
        if types is None or types >> TYPES['exact'] & 1:
            if self._loop_records is None:
                self._loop_records = sum(th['records'] for th in self.loops())
            n += self._loop_records
        return n

    # ---- variable-size data --------------------------------------------------

    def data(self, record):
        """A record's variable-size data (a path, a name, a marker's text, a
        wide exact access's value) as bytes, from the trace's data stream;
        None when it has none (hdr.data_len 0). @record: one record of an
        array records() or batches() returned (or of a view of one)."""
        raw = np.ascontiguousarray(record).tobytes()
        if len(raw) != _lib.RECORD_SIZE:
            raise ValueError(f'a record is {_lib.RECORD_SIZE} bytes, not {len(raw)}')
        rec = _lib.Record.from_buffer_copy(raw)
        if not rec.hdr.data_len:
            return None
        buf = ctypes.create_string_buffer(_lib.MAX_DATA_LEN)
        ret = lib.vmt_trace_record_data(self._handle(), ctypes.addressof(rec), buf, len(buf))
        if ret < 0:
            raise self._error(ret)
        return buf.raw[:ret]

    def text(self, record):
        """data() decoded as UTF-8, bytes that are not written \\xNN; None
        when the record has no data."""
        data = self.data(record)
        return None if data is None else data.decode('utf-8', 'backslashreplace')

    # ---- the analyses (vmtrace.analyses) -------------------------------------

    def mrc(self, policies='lru', sizes=None, sample=None, **options):
        """`vmtrace mrc`'s miss-ratio curves as a DataFrame (vmtrace.analyses.mrc)."""
        from .analyses import mrc
        return mrc(self, policies, sizes, sample, **options)

    def reuse(self, top=10, **options):
        """`vmtrace reuse`'s histograms as a DataFrame (vmtrace.analyses.reuse)."""
        from .analyses import reuse
        return reuse(self, top, **options)

    def wss(self, window, **options):
        """`vmtrace wss`'s series as a DataFrame (vmtrace.analyses.wss)."""
        from .analyses import wss
        return wss(self, window, **options)

    def heatmap(self, rows=30, cols=80, **options):
        """`vmtrace heatmap`'s grid as a DataFrame (vmtrace.analyses.heatmap)."""
        from .analyses import heatmap
        return heatmap(self, rows, cols, **options)

    def hmtt(self, sections=None, **options):
        """`vmtrace hmtt`'s tables, a dict of DataFrames (vmtrace.analyses.hmtt)."""
        from .analyses import hmtt
        return hmtt(self, sections, **options)

    def cachesim(self, **options):
        """`vmtrace cachesim`'s rows as a DataFrame (vmtrace.analyses.cachesim)."""
        from .analyses import cachesim
        return cachesim(self, **options)

    def marker_phases(self, first, last=None):
        """Each process's phases between its markers, as `--between-markers
        FIRST,LAST` (or, @last None, `--marker FIRST`) finds them: (pid,
        start, end) tuples, end exclusive (2**64 - 1: the trace's end), for
        the filters' phases=. A marker id not in the trace raises ValueError."""
        any_marker = 0xffffffff
        ids = [first] + ([] if last is None else [last])
        if not all(isinstance(i, int) and 0 <= i < any_marker for i in ids):
            raise ValueError(f'marker ids: 0 to {any_marker - 1}, not {ids}')
        out, n = ctypes.POINTER(_lib.Phase)(), ctypes.c_uint32()
        ret = lib.vmt_trace_marker_phases(self._handle(), first,
                                          any_marker if last is None else last,
                                          ctypes.byref(out), ctypes.byref(n))
        if ret == -errno.ENOENT:
            raise ValueError(f'no marker {first} in the trace')
        if ret:
            raise self._error(ret)
        try:
            return [(out[i].pid, out[i].start, out[i].end) for i in range(n.value)]
        finally:
            _lib.libc_free(ctypes.cast(out, ctypes.c_void_p))

    def to_pandas(self, type, **filters):
        """The records of one type as a pandas DataFrame, with the columns of
        `vmtrace export --format csv --type TYPE` (vmtrace.frames)."""
        from .frames import to_pandas
        return to_pandas(self, type, **filters)


def open(path, scan=False):
    """Open a trace file (.vmt): a Trace. With @scan, ignore the directory
    and find the frames by reading every block (vmtrace verify's way).
    TraceError when libvmtrace cannot open it."""
    return Trace(path, scan)
