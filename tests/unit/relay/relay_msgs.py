#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The relay protocol's messages (docs/RELAY.md), written independently of
the C code for tests/unit/relay.sh and its fuzzer: a trace file's blocks,
message headers and hellos.

  relay_msgs.py corpus TRACE OUT   OUT: a hello and TRACE's blocks as messages
                                   (a seed for tests/fuzz/fuzz_relay_msg)
"""
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


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "corpus":
        out = message(TYPES["HELLO"], 0, hello("fuzz", "seed"))
        for i, b in enumerate(blocks_of(sys.argv[2])):
            out += message(TYPES["BLOCK"], i, b)
        out += message(TYPES["END"], len(blocks_of(sys.argv[2])))
        open(sys.argv[3], "wb").write(out)
    else:
        sys.exit(__doc__)
