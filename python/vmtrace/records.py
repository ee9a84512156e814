# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
"""Records as numpy structured arrays: RECORD_DTYPE, each record type's
layout (view()), the record types' names and numbers (TYPES), and the words
some fields' codes print as (field_names()).

Every dtype is derived from the ctypes mirrors of include/uapi/linux/vmtrace.h
in _lib.py: the same field names, offsets and sizes as the C structs.
"""
import ctypes

import numpy as np

from . import _lib

HEADER_SIZE = ctypes.sizeof(_lib.RecordHeader)      # 24
PAYLOAD_SIZE = _lib.RECORD_SIZE - HEADER_SIZE       # 40


def _numpy_format(ctype):
    """The numpy format of a ctypes field: char arrays as bytes ('S16')."""
    if issubclass(ctype, ctypes.Array) and ctype._type_ is ctypes.c_char:
        return f'S{ctype._length_}'
    return np.dtype(ctype)


def _fields(struct, base=0, skip_reserved=False):
    """(name, format, offset) of each field of a ctypes struct, offsets plus @base."""
    out = []
    for name, ctype in struct._fields_:
        if skip_reserved and name.startswith('reserved'):
            continue
        out.append((name, _numpy_format(ctype), base + getattr(struct, name).offset))
    return out


def _dtype(fields):
    names, formats, offsets = zip(*fields)
    return np.dtype({'names': list(names), 'formats': list(formats), 'offsets': list(offsets),
                     'itemsize': _lib.RECORD_SIZE})


_HEADER = _fields(_lib.RecordHeader)

#: struct vmt_record: the header's fields (time_ns, pid, tid, type, cpu,
#: data_len, where struct vmt_record_header has them), then the 40 bytes of
#: the payload, uninterpreted; 64 bytes a record. view() gives the payload's
#: fields for one record type.
RECORD_DTYPE = _dtype(_HEADER + [('payload', np.dtype(('u1', PAYLOAD_SIZE)), HEADER_SIZE)])


def _type_names():
    names = {}
    for t in range(32):
        name = _lib.lib.vmt_record_type_name(t)
        if name:
            names[name.decode()] = t
    return names


#: Record type numbers by the names `vmtrace dump` prints (from libvmtrace's
#: vmt_record_type_name()): {'none': 0, 'lost': 1, 'ref': 2, ...}.
TYPES = _type_names()
TYPE_NAMES = {t: name for name, t in TYPES.items()}

#: Each record type's dtype: the header's fields, then its payload struct's
#: (struct vmt_reference for ref and evict, struct vmt_exact for exact...),
#: reserved fields left out.
TYPE_DTYPES = {name: _dtype(_HEADER + _fields(struct, HEADER_SIZE, skip_reserved=True))
               for name, struct in _lib.PAYLOADS.items()}


def type_number(t):
    """A record type's number from its name as dump prints it (ref, evict,
    exact...; also "reference") or its number (0..31)."""
    if isinstance(t, (int, np.integer)) and not isinstance(t, bool):
        if 0 <= t < 32:
            return int(t)
        raise ValueError(f'record type {t} is not in 0..31')
    if t == 'reference':
        t = 'ref'
    if isinstance(t, str) and t in TYPES:
        return TYPES[t]
    if isinstance(t, str) and t.isdigit():
        return type_number(int(t))
    raise ValueError(f'unknown record type {t!r} (a name dump prints, such as '
                     f'{", ".join(sorted(TYPES))}, or 0..31)')


def view(records, type, check=True):
    """The same memory as @records (an array of RECORD_DTYPE, or of any
    64-byte record dtype) with the fields of record type @type's layout:
    view(a, 'exact')['addr'], view(a, 'vma')['start']. No copy.

    With @check, every record must be of that type (ValueError otherwise):
    select them first, a[a['type'] == vmtrace.TYPES['exact']], or read them
    with records(types='exact').
    """
    records = np.asanyarray(records)
    name = TYPE_NAMES.get(type_number(type))
    if name not in TYPE_DTYPES:
        raise ValueError(f'no layout for record type {type!r}')
    if records.dtype.itemsize != _lib.RECORD_SIZE or records.dtype.names is None \
            or 'type' not in records.dtype.names:
        raise ValueError('not an array of records (64-byte structured dtype)')
    if check:
        other = np.count_nonzero(records['type'] != TYPES[name])
        if other:
            raise ValueError(f'{other} of the {records.size} records are not of type {name}')
    return records.view(TYPE_DTYPES[name])


def field_names(field):
    """The words of a field's codes, code i's at [i] ("?" for a code without
    one), from libvmtrace's vmt_field_names(): field_names(vmtrace._lib.NAMES_ACCESS)
    is ['?', 'R', 'W', 'RW', 'X']."""
    count = ctypes.c_uint()
    names = _lib.lib.vmt_field_names(field, ctypes.byref(count))
    return [names[i].decode() for i in range(count.value)]
