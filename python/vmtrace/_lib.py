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
    NAMES_DMA_OP, NAMES_DMA_DIR, NAMES_PAGEMAP_OP = range(9)  # enum vmt_field_names


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


class Filter(ctypes.Structure):
    """struct vmt_trace_filter"""
    _fields_ = [('types', u32), ('nr_pids', u32), ('pids', ctypes.POINTER(u32)),
                ('nr_cpus', u32), ('cpus', ctypes.POINTER(u32)), ('time_range', ctypes.c_int),
                ('from_time', u64), ('to_time', u64), ('nr_addrs', u32),
                ('addrs', ctypes.POINTER(Range)), ('nr_ips', u32),
                ('ips', ctypes.POINTER(Range))]


class LoopsThread(ctypes.Structure):
    """struct vmt_trace_loops_thread"""
    _fields_ = [('stream_id', u32), ('side_stream_id', u32), ('pid', u32), ('tid', u32),
                ('records', u64), ('keep', u32), ('window', u32)]


P = ctypes.c_void_p             # struct vmt_trace *, struct vmt_trace_cursor *: opaque

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
    'vmt_trace_record_data': (ctypes.c_int, [P, P, P, ctypes.c_size_t]),
    'vmt_trace_session': (ctypes.c_int, [P, ctypes.POINTER(Session)]),
    'vmt_trace_check': (ctypes.c_int, [P]),
    'vmt_trace_loops': (ctypes.c_int, [P, ctypes.POINTER(ctypes.POINTER(LoopsThread)),
                                       ctypes.POINTER(u32)]),
    'vmt_trace_set_filter': (ctypes.c_int, [P, ctypes.POINTER(Filter)]),
    'vmt_trace_cursor_create': (ctypes.c_int, [P, ctypes.c_int, ctypes.POINTER(P)]),
    'vmt_trace_cursor_read': (ctypes.c_int, [P, P, P, ctypes.c_size_t]),
    'vmt_trace_cursor_free': (None, [P]),
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
