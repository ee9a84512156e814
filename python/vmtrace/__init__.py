# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""vmtrace trace files (.vmt) from Python, through libvmtrace.

    import vmtrace
    with vmtrace.open('run.vmt') as t:
        refs = t.records(types='ref', pids=1234)        # a numpy structured array
        r = vmtrace.view(refs, 'ref')                   # struct vmt_reference's fields
        pages = np.unique(r['vaddr'] >> 12)
        df = t.to_pandas('vma')                         # export --format csv's columns

Records come as numpy arrays of RECORD_DTYPE, 64 bytes a record laid out as
struct vmt_record (include/uapi/linux/vmtrace.h): the header's fields
(time_ns, pid, tid, type, cpu, data_len) and the payload's 40 bytes;
view(array, type) gives the same memory with one record type's fields. The
library's cursor copies batches of records straight into the arrays
(vmt_trace_cursor_read()), with `vmtrace dump`'s filters applied in C; no
Python code runs a record. The analysis commands are calls returning
DataFrames (t.mrc(), reuse(), wss(), heatmap(), hmtt(), cachesim(): the
library's analyses, vmtrace.analyses), and vmtrace.write(path, records,
data) writes a trace file (vmtrace.writer). docs/python.md shows more.

The package is plain Python over the shared library with ctypes (its ABI),
not a compiled extension: Debian's python3 and python3-numpy (and
python3-pandas for to_pandas()) are all it needs, and installing it builds
nothing. It loads libvmtrace.so.0 from VMTRACE_LIBRARY (a path) if set, else
where the dynamic loader finds it, else from the build tree of the clone it
runs from (_lib.load()).
"""
from .records import RECORD_DTYPE, TYPE_DTYPES, TYPES, field_names, view
from .trace import DEFAULT_MAX_RECORDS, LimitError, Trace, TraceError, open
from .analyses import NoReferences, presets
from .writer import CODECS, write

__all__ = ['open', 'write', 'Trace', 'TraceError', 'LimitError', 'NoReferences', 'view',
           'field_names', 'presets', 'RECORD_DTYPE', 'TYPE_DTYPES', 'TYPES', 'CODECS',
           'DEFAULT_MAX_RECORDS']
