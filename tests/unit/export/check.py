# SPDX-License-Identifier: GPL-2.0
"""tests/unit/export/check.py VMTRACE TRACE OUTDIR: vmtrace export's csv, din
and perfetto outputs of TRACE read back by real readers (python3's csv and
json modules) and checked against what `vmtrace stats` and `vmtrace dump`
say of the same trace. Prints FAIL lines and a summary; exits 1 on a failure.
"""
import csv
import json
import os
import re
import subprocess
import sys

vmtrace, trace, outdir = sys.argv[1:4]
os.makedirs(outdir, exist_ok=True)
name = os.path.basename(trace)
passed = failed = 0


def check(what, ok, detail=''):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f'export: FAIL: {name}: {what} {detail}')


def run(*args):
    return subprocess.run([vmtrace, *args], check=True, capture_output=True,
                          text=True).stdout


# ---- the oracle: stats's counts, dump's lines -------------------------------

STATS_NAMES = {'reference': 'ref'}


def stats_counts(*filters):
    counts, section = {}, None
    for line in run('stats', *filters, trace).splitlines():
        if not line.startswith(' '):
            section = line
        elif section == 'by type:':
            typ, n = line.split()
            counts[STATS_NAMES.get(typ, typ)] = int(n)
    return counts


def unquote_dump(s):
    """dump's quoted data, without the quotes, with \\" as " (\\\\ and \\xNN kept)."""
    out, i = [], 0
    while i < len(s):
        if s[i] == '\\' and s[i + 1] == '"':
            out.append('"')
            i += 2
        elif s[i] == '\\':
            out.append(s[i:i + 2])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return ''.join(out)


FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def dump_records(*args):
    """dump's lines as (type, {key: value}), time cpu pid tid among the keys."""
    recs = []
    for line in run('dump', *args, trace).splitlines():
        time, typ, rest = line.split(' ', 2)
        fields = {'time': time}
        for key, value in FIELD.findall(rest):
            fields[key] = unquote_dump(value[1:-1]) if value.startswith('"') else value
        if 'seg' in fields:
            fields['index'], fields['count'] = fields.pop('seg').split('/')
        recs.append((typ, fields))
    return recs


def same(csv_value, dump_value, key=''):
    """A CSV cell (decimal) and a dump value (hex or decimal or a name)."""
    if key == 'value':
        # an exact access's: CSV's bytes in memory order, dump's number up to 8
        # bytes (little-endian), its bytes beyond; '-' (none) is CSV's empty
        if dump_value == '-':
            return csv_value == ''
        if dump_value.startswith('0x'):
            n = len(csv_value) // 2
            return n <= 8 and csv_value != '' and \
                int.from_bytes(bytes.fromhex(csv_value), 'little') == int(dump_value, 16)
        return csv_value == dump_value
    if re.fullmatch(r'0x[0-9a-f]+', dump_value):
        return csv_value == str(int(dump_value, 16))
    return csv_value == dump_value


# ---- csv ----------------------------------------------------------------------

def check_csv():
    d = os.path.join(outdir, 'csv')
    subprocess.run([vmtrace, 'export', '--format', 'csv', trace, '-o', d], check=True)
    counts = stats_counts()
    files = {f[:-4] for f in os.listdir(d) if f.endswith('.csv')}
    check('csv: a file a record type stats counts', files == set(counts),
          f'{sorted(files)} against {sorted(counts)}')
    dump = dump_records()
    for typ in sorted(files & set(counts)):
        with open(os.path.join(d, typ + '.csv'), newline='') as f:
            rows = list(csv.DictReader(f))
        check(f'csv: {typ}.csv rows', len(rows) == counts[typ],
              f'{len(rows)}, stats {counts[typ]}')
        want = [fields for t, fields in dump if t == typ]
        # every row of a small trace, some 200 of a large one
        step = max(1, len(want) // 200)
        for i in range(0, min(len(rows), len(want)), step):
            missing = set(want[i]) - set(rows[i])
            check(f'csv: {typ}.csv names every field dump prints', not missing,
                  f'{sorted(missing)}')
            wrong = {k: (rows[i][k], v) for k, v in want[i].items()
                     if k in rows[i] and not same(rows[i][k], v, k)}
            check(f'csv: {typ}.csv row {i} holds dump\'s values', not wrong,
                  f'{wrong}')
    # one type alone: the same table, to standard output
    if 'ref' in counts:
        one = run('export', '--format', 'csv', '--type', 'ref', trace)
        with open(os.path.join(d, 'ref.csv')) as f:
            check('csv: --type ref alone is ref.csv', one == f.read())


# ---- din ----------------------------------------------------------------------

# A read-modify-write (exact records) is a read line, then a write line.
LABELS = {'R': ['0'], 'W': ['1'], 'X': ['2'], 'RW': ['0', '1']}


def check_din(*filters):
    got = run('export', '--format', 'din', *filters, trace).splitlines()
    want = [f'{label} {int(fields["addr"], 16):x}'
            for _, fields in dump_records('--order', 'time', '--type', 'ref,exact', *filters)
            for label in LABELS[fields['access']]]
    check(f'din {" ".join(filters)}: a line an access', len(got) == len(want),
          f'{len(got)} lines, {len(want)} accesses')
    diff = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    check(f'din {" ".join(filters)}: line for line the accesses', not diff,
          f'first difference at line {diff[0] + 1}: {got[diff[0]]!r}, want {want[diff[0]]!r}'
          if diff else '')
    for line in got:
        label, addr = line.split(' ')
        int(addr, 16)  # a hex number, or the test stops here


# ---- perfetto ---------------------------------------------------------------

def well_formed(e):
    """What the Trace Event Format requires of an event of each phase we write."""
    if not all(k in e for k in ('name', 'ph', 'ts', 'pid', 'tid')):
        return 'a required field missing'
    if not isinstance(e['ts'], (int, float)) or not isinstance(e['name'], str):
        return 'ts not a number or name not a string'
    if not isinstance(e['pid'], int) or not isinstance(e['tid'], int):
        return 'pid or tid not an integer'
    ph = e['ph']
    if ph == 'M':
        if e['name'] in ('process_name', 'thread_name'):
            return None if isinstance(e.get('args', {}).get('name'), str) else 'no args.name'
        if e['name'] in ('process_sort_index', 'thread_sort_index'):
            return None if isinstance(e.get('args', {}).get('sort_index'), int) else 'no sort_index'
        return 'unknown metadata'
    if ph == 'X':
        return None if isinstance(e.get('dur'), (int, float)) and e['dur'] >= 0 else 'no dur'
    if ph == 'i':
        return None if e.get('s', 't') in ('g', 'p', 't') else 'bad scope'
    if ph == 'C':
        args = e.get('args')
        ok = isinstance(args, dict) and args and all(
            isinstance(v, (int, float)) for v in args.values())
        return None if ok else 'counter args not numbers'
    return f'phase {ph} not one export writes'


def perfetto(*args):
    text = run('export', '--format', 'perfetto', *args, trace)
    doc = json.loads(text)
    return doc, doc['traceEvents']


def check_perfetto():
    doc, events = perfetto()
    bad = [(e, why) for e in events for why in [well_formed(e)] if why]
    check('perfetto: every event well formed', not bad, f'{bad[:3]}')
    dump = dump_records('--order', 'time')
    refs = [f for t, f in dump if t == 'ref']
    counts = stats_counts()
    totals_pid = [e['pid'] for e in events
                  if e['ph'] == 'M' and e['name'] == 'process_name'
                  and e['args']['name'] == 'vmtrace totals']
    check('perfetto: a totals process', len(totals_pid) == 1)
    totals = totals_pid[0] if totals_pid else -1
    counter = [e for e in events if e['ph'] == 'C' and e['name'] == 'references']
    total = sum(e['args']['count'] for e in counter if e['pid'] == totals)
    check('perfetto: the references counters sum to the references', total ==
          counts.get('ref', 0), f'{total}, stats {counts.get("ref", 0)}')
    by_pid = {}
    for f in refs:
        by_pid[int(f['pid'])] = by_pid.get(int(f['pid']), 0) + 1
    got = {}
    for e in counter:
        if e['pid'] != totals:
            got[e['pid']] = got.get(e['pid'], 0) + e['args']['count']
    got = {k: v for k, v in got.items() if v}
    check('perfetto: each process\'s counters sum to its references', got == by_pid,
          f'{got} against {by_pid}')
    check('perfetto: no reference events by default',
          not any(e['ph'] == 'i' and e['name'].startswith('ref ') for e in events))

    # one bucket: its working set is the distinct pages of the trace
    bucket = int(refs[-1]['time']) - int(refs[0]['time']) + 1 if refs else 1
    _, one = perfetto('--bucket', str(10 * bucket))
    pages = len({(f['pid'], int(f['addr'], 16) >> 12) for f in refs})
    ws = [e['args']['pages'] for e in one if e['ph'] == 'C' and e['name'] == 'working set'
          and e['pid'] == totals and e['args']['pages']]
    check('perfetto: one bucket\'s working set is the distinct pages', ws == [pages] or
          (not refs and not ws), f'{ws}, dump {pages}')

    # --max-references N: the first N references in time order, no more
    n = min(5, len(refs))
    _, some = perfetto('--max-references', '5')
    ev = [e for e in some if e['ph'] == 'i' and e['name'].startswith('ref ')]
    check('perfetto: --max-references 5', [(e['pid'], e['args']['addr'], round(e['ts'] * 1000))
                                          for e in ev] ==
          [(int(f['pid']), f['addr'], int(f['time'])) for f in refs[:n]], f'{ev}')

    # markers: instant events at their time (us), on their thread, named by their text
    markers = [(int(f['time']), int(f['pid']), int(f['tid']), f.get('text'))
               for t, f in dump if t == 'marker']
    got = [(round(e['ts'] * 1000), e['pid'], e['tid'],
            e['name'].encode('latin-1').decode('latin-1'))
           for e in events if e['ph'] == 'i' and not e['name'].startswith('ref ')]
    want = [(t, p, tid, text.replace('\\x0a', '\n') if text else f'marker') for t, p, tid, text
            in markers]
    check('perfetto: markers as instant events, ts in us', got == want, f'{got} against {want}')

    # slices: a task switched in runs until the next switch on its CPU (or the end)
    last = int(dump[-1][1]['time']) if dump else 0
    want, open_ = [], {}
    for t, f in dump:
        if t != 'switch':
            continue
        cpu, time = int(f['cpu']), int(f['time'])
        if cpu in open_:
            start, pid, tid = open_.pop(cpu)
            want.append((cpu, start, time - start, pid, tid))
        if f['next_tid'] != '0':
            open_[cpu] = (time, int(f['next_pid']), int(f['next_tid']))
    for cpu, (start, pid, tid) in open_.items():
        want.append((cpu, start, last - start, pid, tid))
    cpu_of = {e['tid']: int(e['args']['name'].split()[1]) for e in events
              if e['ph'] == 'M' and e['name'] == 'thread_name'
              and e['args']['name'].startswith('CPU ')}
    got = [(cpu_of.get(e['tid']), round(e['ts'] * 1000), round(e['dur'] * 1000),
            e['args']['pid'], e['args']['tid']) for e in events if e['ph'] == 'X']
    check('perfetto: a slice a task switched in, on its CPU\'s track', sorted(got) ==
          sorted(want), f'{sorted(got)} against {sorted(want)}')

    # names: the last process_name and thread_name of each
    names = {}
    for e in events:
        if e['ph'] == 'M' and e['name'] in ('process_name', 'thread_name'):
            names[(e['name'], e['pid'], e['tid'])] = e['args']['name']
    want = {}
    for t, f in dump:
        pid, tid = int(f.get('pid', 0)), int(f.get('tid', 0))
        new = {'task': f.get('comm'), 'comm': f.get('comm'),
               'exec': f.get('file', '').rsplit('/', 1)[-1]}.get(t)
        if t == 'fork':
            pid, tid = int(f['child_pid']), int(f['child_tid'])
            new = want.get(('thread_name', int(f['pid']), int(f['tid'])))
        if new:
            want[('thread_name', pid, tid)] = new
            if pid == tid:
                want[('process_name', pid, pid)] = new
    got = {k: v for k, v in names.items() if k[1] < 1 << 29}
    check('perfetto: processes and threads named from task, exec, comm and fork',
          got == want, f'{got} against {want}')

    # DMA bytes mapped, by direction
    dma = {}
    for t, f in dump:
        if t == 'dma' and f['op'] in ('map_page', 'map_sg', 'alloc'):
            dma[f['dir']] = dma.get(f['dir'], 0) + int(f['size'])
    got = {}
    for e in events:
        if e['ph'] == 'C' and e['name'] == 'DMA bytes':
            for k, v in e['args'].items():
                got[k] = got.get(k, 0) + v
    got = {k: v for k, v in got.items() if v}
    check('perfetto: DMA counters sum to the bytes mapped', got == dma, f'{got} against {dma}')


check_csv()
check_din()
first_pid = [f['pid'] for t, f in dump_records('--type', 'ref')[:1]]
check_din('--pid', first_pid[0] if first_pid else '1', '--from', '200')
check_perfetto()
print(f'export: {name}: {passed} checks passed, {failed} failures')
sys.exit(1 if failed else 0)
