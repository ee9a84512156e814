# SPDX-License-Identifier: GPL-2.0
"""Errors: what libvmtrace says, as TraceError; a damaged file raises it or
reads as dump reads it, and never crashes the interpreter."""
import errno
import json
import os
import random
import subprocess
import sys

import pytest

import vmtrace
from conftest import CORPUS, VMTRACE

# Run in a child interpreter, so that a crash is a failure of the test, not
# the end of the run: each file's records as dump's lines, or the error.
READER = '''
import json, sys
import vmtrace
from dumptext import lines
for path in sys.argv[1:]:
    try:
        with vmtrace.open(path) as t:
            result = {"lines": lines(t, t.records())}
            try:    # raises where a record's data cannot be had (dump prints ?)
                for type in ("ref", "vma", "exact", "marker"):
                    t.to_pandas(type)
            except vmtrace.TraceError as e:
                result["pandas"] = str(e)
    except vmtrace.TraceError as e:
        result = {"error": str(e)}
    print(json.dumps(result), flush=True)
'''


def dump(path):
    p = subprocess.run([VMTRACE, 'dump', path], capture_output=True)
    if p.returncode:
        return None
    return p.stdout.decode(errors='surrogateescape').splitlines()


def read_in_child(paths):
    p = subprocess.run([sys.executable, '-c', READER, *paths], capture_output=True, text=True,
                       errors='surrogateescape', env=os.environ)
    assert p.returncode == 0, f'the reader died: {p.returncode}: {p.stderr[-2000:]}'
    results = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(results) == len(paths)
    return results


def check_like_dump(paths):
    """Each file reads as dump reads it, or raises TraceError where dump fails."""
    read = errors = 0
    for path, result in zip(paths, read_in_child(paths)):
        want = dump(path)
        if want is None:
            assert 'error' in result, f'{path}: dump fails, the package reads it'
            assert result['error'], f'{path}: an empty message'
            errors += 1
        else:
            assert result.get('lines') == want, f'{path}: {result.get("error", "not dump")}'
            read += 1
    return read, errors


def test_fuzz_corpus():
    paths = sorted(os.path.join(CORPUS, f) for f in os.listdir(CORPUS))
    read, errors = check_like_dump(paths)
    assert read and errors


def test_damaged(traces, tmp_path):
    rng = random.Random(36)
    paths = []
    for name in ('synth', 'hand-zstd', 'hand-loops', 'format3-a2d8da3'):
        data = open(traces[name], 'rb').read()
        for i in range(40):
            d = bytearray(data)
            if i < 10:
                del d[rng.randrange(len(d)):]
            else:
                for _ in range(1 + i % 3):
                    d[rng.randrange(len(d))] ^= rng.randrange(1, 256)
            paths.append(str(tmp_path / f'{name}-{i}.vmt'))
            open(paths[-1], 'wb').write(d)
    read, errors = check_like_dump(paths)
    assert errors >= 40


def test_open_errors(tmp_path):
    with pytest.raises(vmtrace.TraceError) as e:
        vmtrace.open(tmp_path / 'no-such.vmt')
    assert e.value.errno == errno.ENOENT and 'no-such.vmt' in str(e.value)
    (tmp_path / 'text.vmt').write_text('not a trace at all, but long enough to have a header\n' * 3)
    with pytest.raises(vmtrace.TraceError) as e:
        vmtrace.open(tmp_path / 'text.vmt')
    assert e.value.errno == errno.EBADMSG and str(e.value)
    (tmp_path / 'empty.vmt').write_bytes(b'')
    with pytest.raises(vmtrace.TraceError):
        vmtrace.open(tmp_path / 'empty.vmt')


def test_frame_error_message(traces, tmp_path):
    """A frame that does not decode: open works, reading raises with the library's message."""
    bad = os.path.join(CORPUS, 'mem-drained-v3.vmt')
    message = subprocess.run([VMTRACE, 'dump', bad],
                             capture_output=True, text=True).stderr
    with vmtrace.open(bad) as t:
        with pytest.raises(vmtrace.TraceError) as e:
            t.records()
        assert str(e.value) in message and e.value.errno
        with pytest.raises(vmtrace.TraceError):
            t.check()
    with vmtrace.open(traces['synth']) as t:
        t.check()


def test_closed(traces):
    t = vmtrace.open(traces['synth'])
    batches = t.batches(100)
    next(batches)
    t.close()
    with pytest.raises(ValueError, match='closed'):
        next(batches)
    with pytest.raises(ValueError, match='closed'):
        t.records()
    t.close()
    assert 'closed' in repr(t)
