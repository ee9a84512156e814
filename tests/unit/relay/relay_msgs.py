#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The relay protocol's messages (docs/RELAY.md), written independently of
the C code for tests/unit/relay.sh and its fuzzer: a trace file's blocks,
message headers, hellos, and a keyed session's proof and MACs.

  relay_msgs.py corpus TRACE OUT   OUT: a hello and TRACE's blocks as messages
                                   (a seed for tests/fuzz/fuzz_relay_msg)
"""
import hashlib
import hmac
import socket
import struct
import sys

HEADER = 24
TYPES = dict(HELLO=1, CHALLENGE=2, PROOF=3, WELCOME=4, REFUSE=5, BLOCK=6, ACK=7, END=8,
             DONE=9)


def blocks_of(path):
    """A trace file's stream blocks and frames, in file order, each whole."""
    data = open(path, "rb").read()
    at, end = 64, len(data)
    if data[-32:-28] == b"VMTE":
        end = struct.unpack_from("<Q", data, len(data) - 24)[0]
    out = []
    while at < end:
        magic = data[at:at + 4]
        if magic == b"VMTS":
            size = 64
        elif magic == b"VMTF":
            size = 64 + struct.unpack_from("<I", data, at + 52)[0]
        else:
            break
        if at + size > end:
            break
        out.append(data[at:at + size])
        at += size
    return out


def message(mtype, seq=0, payload=b"", flags=0, reserved=0, length=None):
    n = len(payload) if length is None else length
    return b"VMTR" + struct.pack("<HHIIQ", mtype, flags, n, reserved, seq) + payload


def hello(host, session, sender=b"\x11" * 16, flags=0, protocol=1, fmt=3, nonce=b"\0" * 32,
          raw_names=False):
    def field(name):
        b = name if isinstance(name, bytes) else name.encode()
        return b if raw_names else b[:63].ljust(64, b"\0")
    body = struct.pack("<IIII", protocol, fmt, flags, 0) + sender + field(host) + \
        field(session) + nonce
    return body


def proof(key, hello_body, relay_nonce):
    """The sender's PROOF: HMAC-SHA256(key, label, hello, relay nonce)."""
    return hmac.new(key, b"vmtrace relay proof" + hello_body + relay_nonce,
                    hashlib.sha256).digest()


def session_key(key, sender_nonce, relay_nonce):
    return hmac.new(key, b"vmtrace relay session" + sender_nonce + relay_nonce,
                    hashlib.sha256).digest()


def with_mac(skey, counter, msg):
    """@msg (header and payload) with its flag set and its MAC after it."""
    msg = msg[:6] + struct.pack("<H", 1) + msg[8:]
    return msg + hmac.new(skey, struct.pack("<Q", counter) + msg, hashlib.sha256).digest()


def recv_msg(s, mac=False):
    """One message: (type, seq, payload); None when the relay closed."""
    def exact(n):
        b = b""
        while len(b) < n:
            more = s.recv(n - len(b))
            if not more:
                return None
            b += more
        return b
    head = exact(24)
    if head is None:
        return None
    mtype, flags, n, _, seq = struct.unpack("<HHIIQ", head[4:24])
    body = exact(n + (32 if flags & 1 else 0))
    return None if body is None else (mtype, seq, body[:n])


def keyed_session(port, key, host, session, sender=b"K" * 16):
    """A socket past HELLO, CHALLENGE, PROOF and WELCOME, and the session key."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    nonce = bytes(range(32))
    body = hello(host, session, sender, flags=1, nonce=nonce)
    s.sendall(message(TYPES["HELLO"], 0, body))
    mtype, _, relay_nonce = recv_msg(s)
    assert mtype == TYPES["CHALLENGE"], mtype
    s.sendall(message(TYPES["PROOF"], 0, proof(key, body, relay_nonce)))
    skey = session_key(key, nonce, relay_nonce)
    got = recv_msg(s)
    assert got and got[0] == TYPES["WELCOME"], got
    return s, skey


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "corpus":
        out = message(TYPES["HELLO"], 0, hello("fuzz", "seed"))
        for i, b in enumerate(blocks_of(sys.argv[2])):
            out += message(TYPES["BLOCK"], i, b)
        out += message(TYPES["END"], len(blocks_of(sys.argv[2])), bytes(16))
        open(sys.argv[3], "wb").write(out)
    else:
        sys.exit(__doc__)
