# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Records as pandas DataFrames: Trace.to_pandas(type).

A DataFrame a record type, with the columns of `vmtrace export --format csv
--type TYPE` (user/cmd/export_csv.c), in its order: time, cpu, pid, tid,
then the type's fields by the names dump gives them. The values are the
CSV's, typed:
- numbers as the C fields' unsigned integers (addr, ip, pfn: uint64);
- codes that print as words (access R/W/RW/X, mode user/kernel, cause, a
  VMA's op, cause and kind, a DMA call's op and dir, prot rw-p) as
  categoricals of those words;
- 0/1 flags (huge, dirty, string, name_dropped...) as booleans;
- texts (paths, names, marker texts, comm) as str, UTF-8 with any other
  byte as \\xNN; None where a record has no data (the CSV's empty cell);
- an exact access's value as its bytes in memory order, in hex ('' when
  not decoded or not had).
Numbers and codes are taken from the records as arrays; only data (paths,
names, texts, values wider than 16 bytes) is fetched a record at a time.
"""
import numpy as np
import pandas as pd

from . import _lib
from .records import RECORD_DTYPE, TYPE_DTYPES, TYPE_NAMES, field_names, type_number


def _words(codes, field):
    """A categorical of the words @field's @codes print as ("?" past the table)."""
    names = field_names(field) + ['?']
    categories = list(dict.fromkeys(names))
    code_of = np.array([categories.index(n) for n in names])
    codes = np.minimum(np.asarray(codes, dtype=np.int64), len(names) - 1)
    return pd.Categorical.from_codes(code_of[codes], categories)


def _either(nonzero, no, yes):
    """A categorical of @yes where @nonzero is nonzero, @no elsewhere (dump's "x ? yes : no")."""
    return pd.Categorical.from_codes((np.asarray(nonzero) != 0).astype(np.int8), [no, yes])


def _prot(prot):
    """rwxs-style protections ("r-xp"), as a categorical of the 16 combinations."""
    words = [''.join([c if p & bit else '-' for c, bit in
                      (('r', _lib.PROT_READ), ('w', _lib.PROT_WRITE), ('x', _lib.PROT_EXEC))]) +
             ('s' if p & _lib.PROT_SHARED else 'p') for p in range(16)]
    return pd.Categorical.from_codes(np.asarray(prot) & 15, words)


def _bit(values, bit):
    return (np.asarray(values) & bit) != 0


def _texts(trace, records):
    """Each record's data as text, None where it has none."""
    out = np.full(len(records), None, dtype=object)
    for i in np.flatnonzero(records['data_len']):
        out[i] = trace.text(records[i])
    return out


def _comm(comms):
    return np.array([c.split(b'\0', 1)[0].decode('utf-8', 'backslashreplace') for c in comms],
                    dtype=object)


_HEX = np.frombuffer(b'0123456789abcdef', dtype=np.uint8)


def _exact_values(trace, v):
    """An exact access's value in hex, its bytes in memory order: value[:size]
    up to 16 bytes, the data beyond (when the data holds them all); '' when
    the size is 0, the data is missing, or it is a bus record (a line moved,
    no value: cachesim --emit's)."""
    n = len(v)
    value = np.ascontiguousarray(v['value']).reshape(n, 16)
    digits = np.empty((n, 32), dtype=np.uint8)
    digits[:, 0::2] = _HEX[value >> 4]
    digits[:, 1::2] = _HEX[value & 15]
    size = v['size'].astype(np.int64)
    size[(v['flags'] >> _lib.EXACT_BUS_SHIFT) & 7 != 0] = 0
    digits[np.arange(32) >= 2 * np.minimum(size, 16)[:, None]] = 0     # NULs: cut there
    out = digits.view('S32').ravel().astype(str).astype(object)
    for i in np.flatnonzero(size > 16):
        data = trace.data(v[i])
        out[i] = data.hex() if data is not None and len(data) >= size[i] else ''
    return out


def _ref(trace, v):
    return {'addr': v['vaddr'], 'ip': v['ip'], 'pfn': v['pfn'],
            'access': _words(v['access'], _lib.NAMES_ACCESS),
            'mode': _either(v['kernel_mode'], 'user', 'kernel'),
            'cause': _words(v['cause'], _lib.NAMES_CAUSE), 'err': v['error_code'],
            'huge': _bit(v['flags'], _lib.REF_HUGE)}


def _evict(trace, v):
    return {'addr': v['vaddr'], 'pfn': v['pfn'],
            'dirty': _bit(v['evict_flags'], _lib.EVICT_DIRTY),
            'accessed': _bit(v['evict_flags'], _lib.EVICT_ACCESSED),
            'huge': _bit(v['flags'], _lib.REF_HUGE)}


def _vma(trace, v):
    return {'op': _either(v['op'], 'unmap', 'map'),
            'cause': _words(v['cause'], _lib.NAMES_VMA_CAUSE), 'start': v['start'],
            'end': v['end'], 'prot': _prot(v['prot']),
            'kind': _words(v['kind'], _lib.NAMES_VMA_KIND), 'offset': v['offset'],
            'name': _texts(trace, v), 'name_dropped': _bit(v['flags'], _lib.DATA_DROPPED)}


def _dma(trace, v):
    return {'op': _words(v['op'], _lib.NAMES_DMA_OP), 'dir': _words(v['dir'], _lib.NAMES_DMA_DIR),
            'dma': v['dma_addr'], 'phys': v['phys_addr'], 'size': v['size'],
            'index': v['index'], 'count': v['count'], 'in_task': v['in_task'],
            'dev': _texts(trace, v), 'dev_dropped': _bit(v['flags'], _lib.DATA_DROPPED)}


def _exact(trace, v):
    return {'addr': v['addr'], 'size': v['size'],
            'access': _words(v['access'], _lib.NAMES_ACCESS), 'value': _exact_values(trace, v),
            'ip': v['ip'], 'mode': _either(v['kernel_mode'], 'user', 'kernel'),
            'string': _bit(v['flags'], _lib.EXACT_STRING),
            'split': _bit(v['flags'], _lib.EXACT_SPLIT),
            'stack': _bit(v['flags'], _lib.EXACT_STACK),
            'bus': _words((np.asarray(v['flags']) >> _lib.EXACT_BUS_SHIFT) & 7,
                          _lib.NAMES_EXACT_BUS)}


def _other(trace, records):
    """A type vmtrace does not know (or none): its number and payload, as 64-bit words."""
    words = np.ascontiguousarray(records['payload']).view('<u8').reshape(len(records), 5)
    return {'type': records['type'], **{f'raw{i}': words[:, i] for i in range(5)}}


# Each type's columns after time, cpu, pid, tid: export_csv.c's tables[];
# every other type (and none) has _other's.
_TABLES = {
    'lost': lambda t, v: {'count': v['count']},
    'ref': _ref,
    'evict': _evict,
    'marker': lambda t, v: {'id': v['id'], 'text': _texts(t, v)},
    'data': lambda t, v: {'len': v['data_len']},
    'switch': lambda t, v: {'next_pid': v['next_pid'], 'next_tid': v['next_tid'],
                            'state': v['prev_state'], 'preempt': v['preempt']},
    'fork': lambda t, v: {'child_pid': v['child_pid'], 'child_tid': v['child_tid'],
                          'flags': v['clone_flags']},
    'exec': lambda t, v: {'old_tid': v['old_tid'], 'file': _texts(t, v),
                          'file_dropped': _bit(v['flags'], _lib.DATA_DROPPED)},
    'exit': lambda t, v: {'code': v['exit_code'], 'group_dead': v['group_dead']},
    'comm': lambda t, v: {'comm': _comm(v['comm'])},
    'vma': _vma,
    'task': lambda t, v: {'ppid': v['ppid'], 'comm': _comm(v['comm']), 'exe': _texts(t, v),
                          'exe_dropped': _bit(v['flags'], _lib.DATA_DROPPED)},
    'dma': _dma,
    'pagemap': lambda t, v: {'op': _either(v['op'], 'map', 'unmap'), 'addr': v['vaddr'],
                             'pfn': v['pfn'], 'huge': v['huge'], 'event': v['notify_event']},
    'exact': _exact,
}


def _table(type):
    """A record type's number, the dtype to view its records with, and its columns' maker."""
    number = type_number(type)
    name = TYPE_NAMES.get(number)
    if name in _TABLES:
        return number, TYPE_DTYPES[name], _TABLES[name]
    return number, RECORD_DTYPE, _other


def columns(type):
    """The DataFrame's columns for a record type (export's CSV header)."""
    _, dtype, table = _table(type)
    return ['time', 'cpu', 'pid', 'tid'] + list(table(None, np.zeros(0, dtype)))


def to_pandas(trace, type, **filters):
    """The records of @type (a name as dump prints it, or a number: a type
    without a table of its own, 0 or past exact, gets export's "other" one:
    type, raw0..raw4, its payload as 64-bit words) that pass
    @filters (records()'s: pids, cpus, start, end, addrs, ips, order,
    max_records) as a DataFrame with export --format csv's columns."""
    number, dtype, table = _table(type)
    if 'types' in filters:
        raise TypeError('to_pandas() takes one type, its first argument')
    v = trace.records(types=number, **filters).view(dtype)
    head = {'time': v['time_ns'], 'cpu': v['cpu'], 'pid': v['pid'], 'tid': v['tid']}
    cols = {k: (np.ascontiguousarray(c) if isinstance(c, np.ndarray) else c)
            for k, c in {**head, **table(trace, v)}.items()}
    return pd.DataFrame(cols)
