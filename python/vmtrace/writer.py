# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Trace files from numpy records: vmtrace.write(path, records, data=...).

Through libvmtrace's writer (vmt_trace_writer_create(),
vmt_trace_writer_append_record_data(), vmt_trace_writer_close()): each
record goes to the stream of its type and CPU, the order stream keeps the
order they came in, and a record's variable-size data (a path, a marker's
text, a wide exact access's value) goes to the data stream. The file is
what `vmtrace convert` would write of the same records: every command reads
it.
"""
import ctypes
import os

import numpy as np

from . import _lib
from .records import RECORD_DTYPE, TYPES
from .trace import TraceError

lib = _lib.lib

#: The codecs by name (vmt_codec_name()).
CODECS = ('none', 'zstd', 'xz', 'vpc', 'model')


def _session(session):
    """struct vmt_trace_session from a dict of its fields (Trace.session's);
    size is the library's to set."""
    s = _lib.Session()
    fields = {name for name, _ in _lib.Session._fields_ if not name.startswith('reserved')}
    for name, value in session.items():
        if name not in fields:
            raise ValueError(f'session: no field {name!r}')
        if name != 'size':
            setattr(s, name, int(value))
    return s


def write(path, records, data=None, codec='model', stage2='zstd', level=0, frame_bytes=0,
          workers=0, session=None):
    """Write @records (an array of RECORD_DTYPE, or of any 64-byte record
    dtype vmtrace.view() gives, as records() returns them) to a new trace
    file @path, in their order.

    @data: None, or a sequence as long as @records of each record's
    variable-size data (bytes, or None for a record without), as
    Trace.data() gives it: a record with hdr.data_len needs its data_len
    bytes there. Data records (type 'data') are not taken: their bytes
    belong in @data. @codec: 'model' (the default, convert's), 'zstd', 'xz',
    'vpc' or 'none'; @stage2 the second stage of vpc and model ('zstd' or
    'xz'); @level the zstd (1..19) or xz (0..9) level, 0 the codec's
    default; @frame_bytes (0: the library's default) and @workers
    (compressing threads, 0: this one). @session: a dict of struct
    vmt_trace_session's fields (as Trace.session gives them), written as
    the trace's settings. Returns the number of records written. ValueError for bad records or arguments,
    TraceError when the library fails (the file is then removed)."""
    a = np.asanyarray(records)
    if a.ndim != 1 or a.dtype.itemsize != _lib.RECORD_SIZE or a.dtype.names is None or \
            'type' not in a.dtype.names:
        raise ValueError('records: a one-dimensional array of 64-byte records (RECORD_DTYPE)')
    a = np.ascontiguousarray(a).view(RECORD_DTYPE)
    n = len(a)
    if data is not None and len(data) != n:
        raise ValueError(f'data: {len(data)} items for {n} records')
    if np.any(a['type'] == TYPES['data']):
        raise ValueError("records: data records (type 'data') are the writer's: give each "
                         "record's data in data=")
    if np.any(a['data_len'] > _lib.MAX_DATA_LEN):
        raise ValueError(f'records: a data_len above {_lib.MAX_DATA_LEN}')
    with_data = np.flatnonzero(a['data_len'])
    blobs = {}
    for i in with_data:
        d = None if data is None else data[i]
        if d is None:
            raise ValueError(f'record {i} has data_len {a["data_len"][i]} and no data '
                             '(data=[...])')
        d = bytes(d)
        if len(d) != a['data_len'][i]:
            raise ValueError(f'record {i}: data_len {a["data_len"][i]}, {len(d)} bytes of data')
        blobs[int(i)] = d
    if data is not None:
        extra = [i for i in range(n) if data[i] is not None and not a['data_len'][i]]
        if extra:
            raise ValueError(f'record {extra[0]} has data but data_len 0')
    names = {c: i for i, c in enumerate(CODECS)}
    if codec not in names:
        raise ValueError(f'codec: one of {", ".join(CODECS)}, not {codec!r}')
    if stage2 not in ('zstd', 'xz'):
        raise ValueError(f"stage2: 'zstd' or 'xz', not {stage2!r}")
    opts = _lib.WriterOptions(frame_bytes=int(frame_bytes),
                              codec=lib.vmt_codec_from_name(codec.encode()),
                              stage2=lib.vmt_codec_from_name(stage2.encode()), level=int(level),
                              workers=int(workers))
    sess = _session(session) if session is not None else None
    path = os.fspath(path)
    w, err = _lib.P(), _lib.Error()
    ret = lib.vmt_trace_writer_create(ctypes.byref(w), os.fsencode(path), ctypes.byref(opts),
                                      ctypes.byref(err))
    if ret:
        raise TraceError(err.message.decode(errors='backslashreplace') or os.strerror(-ret),
                         -ret, path)
    append = lib.vmt_trace_writer_append_record_data
    base, size = a.ctypes.data, _lib.RECORD_SIZE
    try:
        if sess is not None:
            ret = lib.vmt_trace_writer_add_session(w, ctypes.byref(sess))
            if ret:
                raise _writer_error(w, ret, path)
        # One call of the library a record, straight from the array's memory.
        for i in range(n):
            blob = blobs.get(i)
            ret = append(w, base + i * size, blob)
            if ret:
                raise _writer_error(w, ret, path)
    except BaseException:
        lib.vmt_trace_writer_abandon(w)
        try:
            os.unlink(path)
        except OSError:
            pass
        raise
    ret = lib.vmt_trace_writer_close(w, ctypes.byref(err))
    if ret:
        try:
            os.unlink(path)
        except OSError:
            pass
        raise TraceError(err.message.decode(errors='backslashreplace') or os.strerror(-ret),
                         -ret, path)
    return n


def _writer_error(w, ret, path):
    text = lib.vmt_trace_writer_error_message(w)
    text = text.decode(errors='backslashreplace') if text else ''
    return TraceError(text or os.strerror(-ret), -ret, path)
