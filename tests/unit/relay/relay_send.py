#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""relay_send.py PORT TRACE HOST SESSION: send TRACE's blocks to `vmtrace
relay` on 127.0.0.1:PORT as fast as the socket takes them (no spool, no
key), then END, and wait for DONE. Prints the seconds from the hello to
DONE and the bytes sent. For scripts/bench-relay: a sender that costs
little, so that the relay's own speed shows."""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from relay_msgs import TYPES, blocks_of, hello, message, recv_msg  # noqa: E402

port, trace, host, session = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
msgs = [message(TYPES["BLOCK"], i, b) for i, b in enumerate(blocks_of(trace))]
sent = sum(len(m) for m in msgs)
s = socket.create_connection(("127.0.0.1", port), timeout=60)
start = time.monotonic()
s.sendall(message(TYPES["HELLO"], 0, hello(host, session, os.urandom(16))))
got = recv_msg(s)
if not got or got[0] != TYPES["WELCOME"] or got[1] != 0:
    sys.exit("relay_send: no welcome: %r" % (got,))
for m in msgs:
    s.sendall(m)
s.sendall(message(TYPES["END"], len(msgs), bytes(16)))
while True:
    got = recv_msg(s)
    if got is None:
        sys.exit("relay_send: the relay closed before DONE")
    if got[0] == TYPES["DONE"]:
        break
    if got[0] != TYPES["ACK"]:
        sys.exit("relay_send: %r" % (got,))
print("%.4f %d" % (time.monotonic() - start, sent))
