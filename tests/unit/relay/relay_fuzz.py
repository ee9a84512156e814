#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""relay_fuzz.py PORT TRACE SEED COUNT [SECONDS [KEYFILE]]: a seeded protocol
fuzzer against `vmtrace relay` on 127.0.0.1:PORT (loopback only). With
KEYFILE (the relay's --key), the sessions of its own prove the key and MAC
their messages (relay_msgs.py), so that the mutations reach the relay past
the proof, each either before or after its MAC is computed.

COUNT connections (or fewer, if SECONDS pass first), each one of:
  - random bytes;
  - a header of a random type, flags, reserved bytes and length, then fewer
    bytes than it says;
  - a hello with a bad name ('..', '/', control bytes, no NUL, too long,
    empty), an unknown protocol or format version, unknown flags;
  - a good hello for a session of its own (fuzz-N/s), then TRACE's blocks
    as messages with one of: a flipped byte, a cut, a wrong block number, a
    block before its stream, an END with a wrong count, an unknown type, a
    MAC flag, a declared length past the limit; then it closes, mid-message
    or not;
  - a good hello naming the victim session (victim/v), which another sender
    owns: it must be refused.
Every relay answer is read and ignored. Exits 0 having printed its seed, the
connections made and the messages sent, of each kind; connection errors are
not failures (the relay refuses and closes), but the relay having gone away
(no connection accepted) is.
"""
import os
import random
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_msgs import TYPES, blocks_of, hello, keyed_session, message, with_mac  # noqa: E402

port, trace, seed, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 600.0
key = open(sys.argv[6], "rb").read() if len(sys.argv) > 6 else None
rng = random.Random(seed)
blocks = blocks_of(trace)
KINDS = ("random bytes", "cut headers", "bad hellos", "session messages", "victim hellos")
sent = dict.fromkeys(KINDS, 0)
sent_bytes = 0


def bad_name():
    return rng.choice([b"..", b".", b"a/b", b"/etc", b"x\x01y", b"\x7f", b"", b"a" * 64,
                       b"../../x", b"a b", b"\xff\xfe", b".hidden", b"a\nb"])


def scenario(n):
    global kind  # the scenario's, which tally() counts its messages under
    kind = rng.randrange(5)
    if kind == 0:
        return [bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 600)))]
    if kind == 1:
        mtype = rng.randrange(0, 12)
        length = rng.choice([0, 1, 24, 192, 65536, 0xffffffff, rng.getrandbits(32)])
        head = message(mtype, rng.getrandbits(64), b"", rng.getrandbits(16),
                       rng.choice([0, 0, rng.getrandbits(32)]), length)
        if rng.random() < 0.3:
            head = bytes([head[0] ^ 1]) + head[1:]
        return [head + bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 64)))]
    if kind == 2:
        which = rng.randrange(4)
        if which == 0:
            body = hello(bad_name(), "s", raw_names=False) if rng.random() < 0.5 else \
                hello("h", bad_name())
        elif which == 1:
            body = hello(b"x" * 64, b"y" * 64, raw_names=True)
        elif which == 2:
            body = hello("h%d" % n, "s", protocol=rng.choice([0, 2, 99]))
        else:
            body = hello("h%d" % n, "s", flags=rng.choice([2, 4, 0x80000000]),
                         fmt=rng.choice([3, 4, 1000]))
        return [message(TYPES["HELLO"], 0, body)]
    if kind == 3:
        sender = struct.pack("<QQ", seed, n)
        msgs = [] if key else [message(TYPES["HELLO"], 0, hello("fuzz-%d" % n, "s", sender))]
        cut = rng.randrange(len(blocks) + 1)
        for i, b in enumerate(blocks[:cut]):
            msgs.append(message(TYPES["BLOCK"], i, b))
        if not msgs:
            return ("keyed", sender, msgs)
        i = rng.randrange(len(msgs))
        m = bytearray(msgs[i])
        how = rng.randrange(8)
        if how == 0 and len(m) > 1:
            m[rng.randrange(len(m))] ^= 1 << rng.randrange(8)
        elif how == 1:
            m = m[:rng.randrange(len(m))]
        elif how == 2:
            struct.pack_into("<Q", m, 16, rng.getrandbits(64))
        elif how == 3:
            m[4:6] = struct.pack("<H", rng.randrange(0, 12))
        elif how == 4:
            m[6:8] = struct.pack("<H", 1)
        elif how == 5:
            m[8:12] = struct.pack("<I", 0x7fffffff)
        elif how == 6 and blocks:
            m = bytearray(message(TYPES["BLOCK"], i, blocks[-1]))
        if msgs:
            msgs[i] = bytes(m)
        if rng.random() < 0.5:
            msgs.append(message(TYPES["END"], rng.choice([cut, cut + 1, 0]),
                                rng.choice([bytes(16), bytes(rng.getrandbits(8) for _ in range(16)), bytes(8)])))
        return ("keyed", sender, msgs) if key else msgs
    return [message(TYPES["HELLO"], 0, hello("victim", "v", struct.pack("<QQ", seed, n)))]


def tally(m):
    global sent_bytes
    sent[KINDS[kind]] += 1
    sent_bytes += len(m)


def run(msgs):
    if isinstance(msgs, tuple):
        run_keyed(*msgs[1:])
        return
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        for m in msgs:
            s.sendall(m)
            tally(m)
        s.shutdown(socket.SHUT_WR)
        s.settimeout(2)
        while s.recv(65536):
            pass
    except OSError:
        pass
    finally:
        s.close()


def run_keyed(sender, msgs):
    """Past the proof: each message MACed before its mutation or after it."""
    n = struct.unpack("<Q", sender[8:])[0]
    try:
        s, skey = keyed_session(port, key, "fuzz-%d" % n, "k", sender)
    except (OSError, AssertionError, TypeError):
        return
    try:
        for counter, m in enumerate(msgs):
            if rng.random() < 0.8:
                m = with_mac(skey, counter, m)
            if rng.random() < 0.05 and len(m) > 1:
                flip = rng.randrange(len(m))
                m = m[:flip] + bytes([m[flip] ^ 1]) + m[flip + 1:]
            s.sendall(m)
            tally(m)
        s.shutdown(socket.SHUT_WR)
        s.settimeout(2)
        while s.recv(65536):
            pass
    except OSError:
        pass
    finally:
        s.close()


start = time.monotonic()
done = 0
for n in range(count):
    if time.monotonic() - start > seconds:
        break
    msgs = scenario(n)
    try:
        run(msgs)
    except ConnectionRefusedError:
        sys.exit("relay_fuzz: the relay is gone after %d connections" % done)
    except OSError:
        pass
    done += 1
print("relay_fuzz: seed %d, %d connections, %d messages (%d bytes) sent: %s" %
      (seed, done, sum(sent.values()), sent_bytes,
       ", ".join("%d %s" % (sent[k], k) for k in KINDS)))
