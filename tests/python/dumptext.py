# SPDX-License-Identifier: GPL-2.0
"""`vmtrace dump`'s line of a record (user/cmd/util/record_print.c), made
from the package's typed views of it: a test that the package reads every
field of every record as dump does compares these lines with dump's."""
import vmtrace
from vmtrace import _lib

NAMES = {f: vmtrace.field_names(f) for f in range(_lib.NAMES_EXACT_BUS + 1)}


def name(field, code):
    names = NAMES[field]
    return names[code] if code < len(names) else '?'


def escaped(data, quote='\\"'):
    out = []
    for b in data:
        if b == 0x22:
            out.append(quote)
        elif b == 0x5c:
            out.append('\\\\')
        elif b < 0x20 or b >= 0x7f:
            out.append(f'\\x{b:02x}')
        else:
            out.append(chr(b))
    return ''.join(out)


def data_field(key, rec, data):
    if not rec['data_len']:
        return ''
    return f' {key}=?' if data is None else f' {key}="{escaped(data)}"'


def comm(c):
    text = escaped(bytes(c).split(b'\0', 1)[0])
    return f' comm="{text}"'


def exact_value(e, data):
    size = int(e['size'])
    value = bytes(e['value'])
    b = data if size > 16 else value
    if not size or e['flags'] & 0x38:    # none decoded, or a bus record's line
        return '-'
    if b is None or (size > 16 and e['data_len'] < size):
        return '?'
    if size <= 8:
        return hex(int.from_bytes(b[:size], 'little'))
    return b[:size].hex()


def line(trace, r):
    """dump's line of record @r (an element of a RECORD_DTYPE array of @trace)."""
    t = int(r['type'])
    tname = vmtrace.records.TYPE_NAMES.get(t)
    s = f'{r["time_ns"]} {tname if tname else f"type={t}"} cpu={r["cpu"]}'
    if t == vmtrace.TYPES['lost']:
        return s + f' count={vmtrace.view(r, "lost")[()]["count"]}'
    s += f' pid={r["pid"]} tid={r["tid"]}'
    data = None
    if r['data_len']:
        try:
            data = trace.data(r)
        except vmtrace.TraceError:      # dump prints KEY=? when the data cannot be had
            pass
    v = vmtrace.view(r, tname)[()] if tname in vmtrace.TYPE_DTYPES else None
    if tname == 'ref':
        s += (f' addr={v["vaddr"]:#x} ip={v["ip"]:#x} pfn={v["pfn"]:#x}'
              f' access={name(_lib.NAMES_ACCESS, v["access"])}'
              f' mode={"kernel" if v["kernel_mode"] else "user"}'
              f' cause={name(_lib.NAMES_CAUSE, v["cause"])} err={v["error_code"]:#x}'
              + (' huge=1' if v['flags'] & _lib.REF_HUGE else ''))
    elif tname == 'evict':
        s += (f' addr={v["vaddr"]:#x} pfn={v["pfn"]:#x}'
              f' dirty={int(bool(v["evict_flags"] & 1))} accessed={int(bool(v["evict_flags"] & 2))}'
              + (' huge=1' if v['flags'] & _lib.REF_HUGE else ''))
    elif tname == 'data':
        s += f' len={r["data_len"]}'
    elif tname == 'switch':
        s += (f' next_pid={v["next_pid"]} next_tid={v["next_tid"]} state={v["prev_state"]:#x}'
              f' preempt={v["preempt"]}')
    elif tname == 'fork':
        s += f' child_pid={v["child_pid"]} child_tid={v["child_tid"]} flags={v["clone_flags"]:#x}'
    elif tname == 'exec':
        s += f' old_tid={v["old_tid"]}' + data_field('file', r, data)
    elif tname == 'exit':
        s += f' code={v["exit_code"]} group_dead={v["group_dead"]}'
    elif tname == 'comm':
        s += comm(v['comm'])
    elif tname == 'task':
        s += f' ppid={v["ppid"]}' + comm(v['comm']) + data_field('exe', r, data)
    elif tname == 'vma':
        s += (f' op={"map" if v["op"] else "unmap"} cause={name(_lib.NAMES_VMA_CAUSE, v["cause"])}'
              f' start={v["start"]:#x} end={v["end"]:#x}')
        if v['op']:
            p = v['prot']
            s += (' prot=' + ('r' if p & 1 else '-') + ('w' if p & 2 else '-') +
                  ('x' if p & 4 else '-') + ('s' if p & 8 else 'p') +
                  f' kind={name(_lib.NAMES_VMA_KIND, v["kind"])}')
            if v['kind'] == 1:
                s += f' offset={v["offset"]:#x}'
            s += data_field('name', r, data)
            if v['flags'] & _lib.DATA_DROPPED:
                s += ' name_dropped=1'
    elif tname == 'dma':
        s += (f' op={name(_lib.NAMES_DMA_OP, v["op"])} dir={name(_lib.NAMES_DMA_DIR, v["dir"])}'
              f' dma={v["dma_addr"]:#x} phys={v["phys_addr"]:#x} size={v["size"]}'
              f' seg={v["index"]}/{v["count"]} in_task={v["in_task"]}' + data_field('dev', r, data))
    elif tname == 'pagemap':
        s += (f' op={"unmap" if v["op"] else "map"} addr={v["vaddr"]:#x} pfn={v["pfn"]:#x}'
              + (' huge=1' if v['huge'] else ''))
        if v['op']:
            s += f' event={v["notify_event"]}'
    elif tname == 'exact':
        s += (f' addr={v["addr"]:#x} size={v["size"]}'
              f' access={name(_lib.NAMES_ACCESS, v["access"])} value={exact_value(v, data)}'
              f' ip={v["ip"]:#x} mode={"kernel" if v["kernel_mode"] else "user"}'
              + (' string=1' if v['flags'] & 1 else '') + (' split=1' if v['flags'] & 2 else '')
              + (' stack=1' if v['flags'] & 4 else '')
              + (f' bus={name(_lib.NAMES_EXACT_BUS, v["flags"] >> 3 & 7)}'
                 if v['flags'] & 0x38 else ''))
    elif tname == 'marker':
        s += f' id={v["id"]}' + data_field('text', r, data)
    return s


def lines(trace, records):
    return [line(trace, r) for r in records]
