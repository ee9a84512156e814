#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/relay.sh VMTRACE SYNTH: vmtrace relay and its senders on
# loopback (docs/RELAY.md), with traces vmt-synth and convert make. The
# oracle is the local file the same convert writes with -o beside --relay:
# the relay's copy must be that file byte for byte (and so dump the same and
# verify clean), or, when the spool dropped frames, hold the local records
# less exactly the dropped ones, which a LOST record counts.
#
# - Two senders at once, each stored as DIR/HOST/SESSION.vmt.
# - The relay killed (SIGKILL) mid-trace and restarted: the sender spools,
#   reconnects, resumes after the blocks the relay holds; 0 dropped.
# - A relay that comes only after the trace is done: everything spooled
#   (memory, then the spool file), nothing dropped; with too small a spool,
#   frames dropped, counted in the summary and in the trace.
# - Keys: the right key accepted, a wrong one, none, and one the relay does
#   not have, refused; relay_msgs.py's own keyed session (the proof and the
#   MACs as docs/RELAY.md says them) taken, and a block changed after its
#   MAC, a message replayed or one without a MAC refused; the fuzzer, its
#   sessions past the proof, crashes nothing.
# - Names: bad host and session names refused by the sender and, sent raw,
#   by the relay, nothing made outside DIR; a session that another sender
#   owns refused, its owner resumes it, even while its old connection seems
#   alive, and ends it; asking again, it is told the session is done.
# - Limits: --max-bytes, --max-sessions and --idle refuse with a message; --list
#   shows each session's state.
# - verify --repair of the relay's file cut mid-frame keeps its complete
#   frames.
# - dump --follow of the relay's file while it is sent (the relay killed
#   and restarted meanwhile) prints records before the end, and in all the
#   lines dump prints of the finished file; stats --follow says how many
#   records came so far, then prints what stats prints of the finished file.
# - A seeded protocol fuzzer (relay/relay_fuzz.py, RELAY_FUZZ_COUNT
#   connections) crashes nothing and changes no other session's file.
NAME=relay
. "$(dirname "$0")/rewrite/lib.sh"
bin=$1
synth=$2
# relay/*.py import relay_msgs.py: no __pycache__ left in the tree.
export PYTHONDONTWRITEBYTECODE=1
relay_pid=
CLEANUP='[ -n "$relay_pid" ] && kill -9 $relay_pid 2>/dev/null; wait 2>/dev/null'
dir=$tmp/dir
mkdir -p "$dir"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
addr=127.0.0.1:$port

# start_relay LOG [OPTIONS]: a relay on $addr storing in $dir, once it listens.
start_relay() {
	local log=$1
	shift
	"$bin" relay --listen "$addr" --dir "$dir" "$@" >"$log" 2>&1 &
	relay_pid=$!
	for _ in $(seq 100); do
		grep -q listening "$log" 2>/dev/null && return 0
		kill -0 $relay_pid 2>/dev/null || break
		sleep 0.05
	done
	fail "the relay did not start: $(cat "$log")"
	return 1
}
stop_relay() {
	kill $relay_pid 2>/dev/null
	wait $relay_pid 2>/dev/null
	relay_pid=
}
# same_file WHAT A B: byte for byte, and verify clean.
same_file() {
	if cmp -s "$2" "$3" && "$bin" verify "$3" >/dev/null 2>&1; then
		ok
	else
		fail "$1: $3 is not $2 ($(cmp "$2" "$3" 2>&1); $("$bin" verify "$3" 2>&1))"
	fi
}
# field WHAT FILE: the number before WHAT in the relay's summary line in FILE.
field() { grep -oE "[0-9]+ $1" "$2" | head -1 | cut -d' ' -f1; }
records() { "$bin" stats "$1" | awk '/^records:/ { print $2 }'; }
# listed PATTERN: a line of relay --list matches (its whole output read first:
# grep -q stopping at its match would cut the pipe, and pipefail fail it).
listed() { "$bin" relay --list --dir "$dir" >"$tmp/listed" && grep -q "$1" "$tmp/listed"; }
lost() { "$bin" stats "$1" | awk '/^lost:/ { print $2 }'; }

"$synth" mixed 60000 1 >"$tmp/a.raw" && "$synth" random 50000 2 >"$tmp/b.raw" ||
	{ echo "relay: FAIL: no source"; exit 1; }
conv() { "$bin" convert --codec zstd --frame-bytes 16384 "$@"; }

# ---- Two senders at once -------------------------------------------------
start_relay "$tmp/relay1.log" || finish
conv "$tmp/a.raw" -o "$tmp/a.vmt" --relay "$addr" --relay-host hosta --relay-session one \
	>"$tmp/ca.log" 2>&1 &
pa=$!
conv "$tmp/b.raw" -o "$tmp/b.vmt" --relay "$addr" --relay-host hostb --relay-session two \
	>"$tmp/cb.log" 2>&1 &
pb=$!
wait $pa && wait $pb || fail "two senders: $(cat "$tmp/ca.log" "$tmp/cb.log")"
same_file "two senders, a" "$tmp/a.vmt" "$dir/hosta/one.vmt"
same_file "two senders, b" "$tmp/b.vmt" "$dir/hostb/two.vmt"
if cmp -s <("$bin" dump "$tmp/a.vmt") <("$bin" dump "$dir/hosta/one.vmt") &&
   [ "$(field 'frames dropped' "$tmp/ca.log")" = 0 ] &&
   [ "$(field acknowledged "$tmp/ca.log")" = "$(field 'blocks \(' "$tmp/ca.log")" ]; then
	ok
else
	fail "two senders: dump or summary: $(cat "$tmp/ca.log")"
fi

# ---- Names ----------------------------------------------------------------
for bad in ../x a/b .hidden "a b" "$(printf 'a\001b')" ""; do
	if conv "$tmp/a.raw" --relay "$addr" --relay-host h --relay-session "$bad" \
		>"$tmp/err" 2>&1; then
		fail "session '$bad' taken by the sender"
	elif [ $? -eq 2 ] && grep -q -- "--relay-session" "$tmp/err"; then
		ok
	else
		fail "session '$bad': $(cat "$tmp/err")"
	fi
done
# raw_hello HOST SESSION [SENDER]: the relay's answer to a hello sent raw
raw_hello() {
	python3 - "$port" "$@" <<'EOF'
import os, socket, struct, sys
sys.path.insert(0, os.environ["RELAY_PY"])
from relay_msgs import hello, message
port, host, session = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3].encode()
sender = (sys.argv[4] if len(sys.argv) > 4 else "s").encode().ljust(16, b"\0")
s = socket.create_connection(("127.0.0.1", port), timeout=5)
body = struct.pack("<IIII", 1, 3, 0, 0) + sender + host.ljust(64, b"\0")[:64] + \
    session.ljust(64, b"\0")[:64] + b"\0" * 32
s.sendall(message(1, 0, body))
head = b""
while len(head) < 24:
    got = s.recv(24 - len(head))
    if not got:
        break
    head += got
mtype, flags, n, _, seq = struct.unpack("<HHIIQ", head[4:24])
body = b""
while len(body) < n:
    body += s.recv(n - len(body))
print(mtype, seq, body.decode(errors="replace") if mtype == 5 else len(body))
EOF
}
export RELAY_PY="$here/relay"
for bad in .. ../etc a/b "$(printf 'x\033y')" .x; do
	reply=$(raw_hello "$bad" s)
	if [[ $reply == "5 "*"name"* ]]; then ok; else fail "raw host '$bad': $reply"; fi
	reply=$(raw_hello h "$bad")
	if [[ $reply == "5 "*"name"* ]]; then ok; else fail "raw session '$bad': $reply"; fi
done
if [ "$(ls -A "$tmp" | grep -v -e '\.raw$' -e '\.vmt$' -e '\.log$' -e '^dir$' -e '^err$' | wc -l)" = 0 ] &&
   [ ! -e "$dir/h" ] && [ ! -e "$tmp/etc" ]; then
	ok
else
	fail "bad names made something: $(ls -A "$tmp" "$dir")"
fi
# A session another sender owns: refused; its owner resumes it.
python3 - "$port" "$tmp/a.vmt" <<'EOF' || fail "an unfinished session could not be made"
import os, socket, sys
sys.path.insert(0, os.environ["RELAY_PY"])
from relay_msgs import blocks_of, hello, message
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(message(1, 0, hello("owned", "s", b"A" * 16)))
for i, b in enumerate(blocks_of(sys.argv[2])[:3]):
    s.sendall(message(6, i, b))
got = b""
while len(got) < 24 * 4:   # the welcome, then acks up to 3
    more = s.recv(4096)
    if not more:
        sys.exit(1)
    got += more
    if got.endswith(b"VMTR" + bytes([7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) + bytes([3]) + b"\0" * 7):
        break
s.close()
EOF
for _ in $(seq 100); do listed "^owned .*unfinished" && break; sleep 0.05; done
reply=$(raw_hello owned s BBBBBBBBBBBBBBBB)
if [[ $reply == "5 "*"belongs to another sender"* ]]; then ok; else fail "another's session: $reply"; fi
reply=$(raw_hello owned s AAAAAAAAAAAAAAAA)
if [[ $reply == "4 3 "* ]]; then ok; else fail "the owner's resumption: $reply"; fi

# Its owner ends it; the owner's hello again (its DONE lost) gets DONE, another's is refused.
python3 - "$port" <<'EOF' || fail "the owner could not end its session"
import os, socket, struct, sys
sys.path.insert(0, os.environ["RELAY_PY"])
from relay_msgs import hello, message
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(message(1, 0, hello("owned", "s", b"A" * 16)) + message(8, 3, bytes(16)))
got = b""
while True:
    more = s.recv(4096)
    if not more:
        break
    got += more
sys.exit(0 if b"VMTR" + struct.pack("<HHIIQ", 9, 0, 0, 0, 3) in got else 1)
EOF
reply=$(raw_hello owned s AAAAAAAAAAAAAAAA)
if [[ $reply == "9 3 "* ]] && "$bin" verify "$dir/owned/s.vmt" >/dev/null 2>&1; then ok; else
	fail "the owner of a complete session: $reply"
fi
reply=$(raw_hello owned s BBBBBBBBBBBBBBBB)
if [[ $reply == "5 "*"belongs to another sender"* ]]; then ok; else fail "another's complete session: $reply"; fi

# A session receiving: another sender refused; its own sender, reconnecting
# before the relay saw the old connection die, takes it over where it was.
python3 - "$port" "$tmp/a.vmt" <<'EOF' &
import os, socket, sys, time
sys.path.insert(0, os.environ["RELAY_PY"])
from relay_msgs import blocks_of, hello, message
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(message(1, 0, hello("held", "s", b"A" * 16)))
for i, b in enumerate(blocks_of(sys.argv[2])[:2]):
    s.sendall(message(6, i, b))
time.sleep(30)
EOF
holder=$!
for _ in $(seq 100); do listed "^held .*receiving" && break; sleep 0.05; done
for _ in $(seq 100); do [ "$(stat -c %s "$dir/held/s.vmt" 2>/dev/null || echo 0)" -gt 128 ] && break; sleep 0.05; done
reply=$(raw_hello held s BBBBBBBBBBBBBBBB)
if [[ $reply == "5 "*"receiving from another sender"* ]]; then ok; else fail "a receiving session: $reply"; fi
reply=$(raw_hello held s AAAAAAAAAAAAAAAA)
if [[ $reply == "4 2 "* ]]; then ok; else fail "its sender reconnecting: $reply"; fi
kill $holder 2>/dev/null
wait $holder 2>/dev/null

# ---- --list ---------------------------------------------------------------
"$bin" relay --list --dir "$dir" >"$tmp/list"
if grep -q "^hosta  *one  *$(stat -c %s "$dir/hosta/one.vmt")  *complete" "$tmp/list" &&
   grep -q "^owned  *s  .*complete" "$tmp/list"; then
	ok
else
	fail "--list: $(cat "$tmp/list")"
fi

# ---- Limits ---------------------------------------------------------------
stop_relay
start_relay "$tmp/relay2.log" --max-bytes 100k || finish
if conv "$tmp/a.raw" --relay "$addr" --relay-host lim --relay-session big --relay-wait 5 \
	>"$tmp/err" 2>&1; then
	fail "--max-bytes: taken"
elif grep -q "limit of 102400 bytes" "$tmp/err" &&
     [ "$(stat -c %s "$dir/lim/big.vmt")" -le 102400 ] &&
     "$bin" verify --repair "$dir/lim/big.vmt" >/dev/null 2>&1 &&
     "$bin" verify "$dir/lim/big.vmt" >/dev/null 2>&1; then
	ok
else
	fail "--max-bytes: $(cat "$tmp/err")"
fi
stop_relay
start_relay "$tmp/relay3.log" --max-sessions 1 || finish
python3 - "$port" <<'EOF' &
import os, socket, sys, time
sys.path.insert(0, os.environ["RELAY_PY"])
from relay_msgs import hello, message
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(message(1, 0, hello("busy", "s", b"C" * 16)))
s.recv(64)
sys.stdout.write("")
sys.stdout.flush()
time.sleep(30)
EOF
holder=$!
for _ in $(seq 100); do listed "^busy .*receiving" && break; sleep 0.05; done
if conv "$tmp/b.raw" --relay "$addr" --relay-host other --relay-session s >"$tmp/err" 2>&1; then
	fail "--max-sessions: taken"
elif grep -q "receives 1 sessions already" "$tmp/err"; then
	ok
else
	fail "--max-sessions: $(cat "$tmp/err")"
fi
kill $holder 2>/dev/null
wait $holder 2>/dev/null
stop_relay
start_relay "$tmp/relay-idle.log" --idle 1 || finish
reply=$(python3 - "$port" <<'EOF'
import os, socket, sys
sys.path.insert(0, os.environ["RELAY_PY"])
from relay_msgs import hello, message, recv_msg
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(message(1, 0, hello("idle", "s", b"I" * 16)))
last = None
while True:
    got = recv_msg(s)
    if got is None:
        break
    last = got
print(last[0], last[2].decode(errors="replace"))
EOF
)
if [[ $reply == "5 silent for 1 s (--idle)" ]] && listed "^idle  *s .*unfinished"; then ok; else
	fail "--idle: $reply"
fi
stop_relay

# ---- Keys -----------------------------------------------------------------
head -c 32 /dev/urandom >"$tmp/key"
head -c 32 /dev/urandom >"$tmp/other.key"
start_relay "$tmp/relay4.log" --key "$tmp/key" || finish
conv "$tmp/b.raw" -o "$tmp/b2.vmt" --relay "$addr" --relay-host keyed --relay-session ok \
	--relay-key "$tmp/key" >"$tmp/err" 2>&1 || fail "the right key: $(cat "$tmp/err")"
same_file "the right key" "$tmp/b2.vmt" "$dir/keyed/ok.vmt"
for what in wrong none; do
	if [ $what = wrong ]; then k=(--relay-key "$tmp/other.key"); else k=(); fi
	if conv "$tmp/b.raw" --relay "$addr" --relay-host keyed --relay-session $what "${k[@]}" \
		>"$tmp/err" 2>&1; then
		fail "key $what: taken"
	elif [ $what = wrong ] && grep -q "wrong key" "$tmp/err" && [ ! -e "$dir/keyed/wrong.vmt" ]; then
		ok
	elif [ $what = none ] && grep -q "only senders with its key" "$tmp/err" &&
	     [ ! -e "$dir/keyed/none.vmt" ]; then
		ok
	else
		fail "key $what: $(cat "$tmp/err")"
	fi
done
# Every message MACed: a keyed session written by relay_msgs.py (the protocol
# as docs/RELAY.md says it, apart from the C code) is taken; a block whose
# payload was changed after its MAC, a message replayed, and one without a
# MAC are each refused.
for how in good changed replayed bare; do
	reply=$(python3 - "$port" "$tmp/key" "$tmp/b.vmt" $how <<'EOF'
import os, sys
sys.path.insert(0, os.environ["RELAY_PY"])
from relay_msgs import blocks_of, keyed_session, message, recv_msg, with_mac
port, key, how = int(sys.argv[1]), open(sys.argv[2], "rb").read(), sys.argv[4]
blocks = blocks_of(sys.argv[3])
s, skey = keyed_session(port, key, "mac", how)
for i, b in enumerate(blocks[:3]):
    m = with_mac(skey, i, message(6, i, b))
    if i == 2 and how == "changed":
        m = m[:30] + bytes([m[30] ^ 1]) + m[31:]
    if i == 2 and how == "replayed":
        m = with_mac(skey, 1, message(6, 2, b))
    if i == 2 and how == "bare":
        m = message(6, i, b)
    s.sendall(m)
if how == "good":
    s.sendall(with_mac(skey, 3, message(8, 3, bytes(16))))
last = None
while True:
    got = recv_msg(s)
    if got is None:
        break
    last = got
print(last[0], last[1], last[2].decode(errors="replace"))
EOF
)
	case $how in
	good) want="9 3 " ;;
	bare) want="5 0 message type 6 without a MAC" ;;
	*) want="5 0 message type 6: wrong MAC" ;;
	esac
	if [[ $reply == "$want"* ]]; then ok; else fail "MACs, $how: $reply"; fi
done
[ "$(stat -c %s "$dir/mac/changed.vmt")" = "$(stat -c %s "$dir/mac/replayed.vmt")" ] &&
	"$bin" verify --repair "$dir/mac/changed.vmt" >/dev/null 2>&1 &&
	[ "$("$bin" info "$dir/mac/changed.vmt" | grep -c .)" -gt 0 ] &&
	"$bin" verify "$dir/mac/good.vmt" >/dev/null 2>&1 && ok ||
	fail "MACs: the files"
# The fuzzer past the proof: its sessions MAC their mutated messages.
if python3 "$here/relay/relay_fuzz.py" "$port" "$tmp/b.vmt" "${RELAY_FUZZ_SEED:-37}" \
	"${RELAY_FUZZ_KEYED_COUNT:-300}" "${RELAY_FUZZ_SECONDS:-600}" "$tmp/key" >"$tmp/fuzz.log" 2>&1 &&
   kill -0 $relay_pid 2>/dev/null && "$bin" verify "$dir/keyed/ok.vmt" >/dev/null 2>&1; then
	ok
	echo "$(cat "$tmp/fuzz.log") (keyed)"
else
	fail "keyed fuzzer: $(cat "$tmp/fuzz.log"); relay: $(tail -5 "$tmp/relay4.log")"
fi
stop_relay
start_relay "$tmp/relay5.log" || finish
if conv "$tmp/b.raw" --relay "$addr" --relay-host keyed --relay-session extra \
	--relay-key "$tmp/key" >"$tmp/err" 2>&1; then
	fail "a key the relay does not have: taken"
elif grep -q "this relay has no key" "$tmp/err"; then
	ok
else
	fail "a key the relay does not have: $(cat "$tmp/err")"
fi

# ---- The relay killed mid-trace, restarted --------------------------------
mkfifo "$tmp/fifo"
conv "$tmp/fifo" -o "$tmp/k.vmt" --relay "$addr" --relay-host kill --relay-session k \
	>"$tmp/ck.log" 2>&1 &
pk=$!
exec 8>"$tmp/fifo"
half=$(( $(stat -c %s "$tmp/a.raw") / 128 * 64 ))
head -c $half "$tmp/a.raw" >&8
grown=0
for _ in $(seq 200); do
	size=$(stat -c %s "$dir/kill/k.vmt" 2>/dev/null || echo 0)
	[ "$size" -gt 50000 ] && { grown=1; break; }
	sleep 0.05
done
[ $grown = 1 ] || fail "killed relay: the relay's file did not grow"
# dump --follow on the relay's file while it grows (without the fifo's end).
"$bin" dump --follow "$dir/kill/k.vmt" >"$tmp/follow.txt" 2>"$tmp/follow.err" 8>&- &
pf=$!
"$bin" stats --follow "$dir/kill/k.vmt" >"$tmp/sfollow.txt" 2>"$tmp/sfollow.err" 8>&- &
ps=$!
for _ in $(seq 200); do [ -s "$tmp/follow.txt" ] && break; sleep 0.05; done
early=$(wc -l <"$tmp/follow.txt")
kill -9 $relay_pid
wait $relay_pid 2>/dev/null
relay_pid=
if listed "^kill  *k .*unfinished"; then ok; else
	fail "killed relay: --list: $("$bin" relay --list --dir "$dir")"
fi
tail -c +$((half + 1)) "$tmp/a.raw" >&8
exec 8>&-
start_relay "$tmp/relay6.log" || finish
wait $pk || fail "killed relay: the sender: $(cat "$tmp/ck.log")"
same_file "killed relay" "$tmp/k.vmt" "$dir/kill/k.vmt"
wait $pf || fail "dump --follow: $(cat "$tmp/follow.err")"
if [ "$early" -gt 0 ] && [ "$early" -lt "$(records "$tmp/k.vmt")" ] &&
   cmp -s <(sort "$tmp/follow.txt") <("$bin" dump "$tmp/k.vmt" | sort); then
	ok
	echo "relay: dump --follow: $early records printed while the trace was half sent, then the rest"
else
	fail "dump --follow: $early early; $(wc -l <"$tmp/follow.txt") lines; $(cat "$tmp/follow.err")"
fi
wait $ps || fail "stats --follow: $(cat "$tmp/sfollow.err")"
if cmp -s "$tmp/sfollow.txt" <("$bin" stats "$tmp/k.vmt") &&
   grep -q "records so far" "$tmp/sfollow.err"; then
	ok
else
	fail "stats --follow: $(cat "$tmp/sfollow.txt" "$tmp/sfollow.err")"
fi
if [ "$(field 'frames dropped' "$tmp/ck.log")" = 0 ] && [ "$(field connections "$tmp/ck.log")" -ge 2 ] &&
   grep -q "kill/k: receiving from .*([1-9][0-9]* blocks stored)" "$tmp/relay6.log"; then
	ok
else
	fail "killed relay: $(cat "$tmp/ck.log" "$tmp/relay6.log")"
fi

# ---- A relay that comes late: the spool ------------------------------------
stop_relay
# late TAG SPOOL FILE-SPOOL: convert while no relay listens, then start one.
late() {
	conv "$tmp/a.raw" -o "$tmp/$1.vmt" --relay "$addr" --relay-host late \
		--relay-session "$1" --relay-spool "$2" --relay-spool-file "$3" \
		>"$tmp/c$1.log" 2>&1 &
	local p=$!
	for _ in $(seq 400); do
		"$bin" info "$tmp/$1.vmt" >/dev/null 2>&1 && break
		sleep 0.05
	done
	start_relay "$tmp/relay-$1.log" || return 1
	wait $p || fail "late $1: $(cat "$tmp/c$1.log")"
	stop_relay
}
late filed 64k 100M
same_file "spooled to a file" "$tmp/filed.vmt" "$dir/late/filed.vmt"
if [ "$(field 'frames dropped' "$tmp/cfiled.log")" = 0 ] &&
   [ "$(grep -o '[0-9]* through the spool file' "$tmp/cfiled.log" | cut -d' ' -f1)" -gt 0 ]; then
	ok
else
	fail "spooled to a file: $(cat "$tmp/cfiled.log")"
fi
late small 64k 0
dropped=$(grep -o '([0-9]* records)' "$tmp/csmall.log" | tr -dc 0-9)
frames=$(field 'frames dropped' "$tmp/csmall.log")
rl=$(records "$dir/late/small.vmt")
ll=$(records "$tmp/small.vmt")
# The relay's records, less its LOST record, and the dropped ones are the
# local file's, which lost nothing and says so.
if [ "${frames:-0}" -gt 0 ] && [ "$(lost "$dir/late/small.vmt")" = "$dropped" ] &&
   [ "$(lost "$tmp/small.vmt")" = 0 ] && [ $((rl - 1 + dropped)) = "$ll" ] &&
   "$bin" verify "$dir/late/small.vmt" >/dev/null 2>&1 &&
   "$bin" info "$dir/late/small.vmt" | grep -c "lost.relay" >/dev/null; then
	ok
	echo "relay: a small spool: $frames frames, $dropped records dropped and counted; $rl of $ll records stored"
else
	fail "a small spool: $frames frames, $dropped dropped, $rl and $ll records, lost $(lost "$dir/late/small.vmt"): $(cat "$tmp/csmall.log")"
fi

# ---- verify --repair of the relay's file cut mid-frame --------------------
size=$(stat -c %s "$dir/hosta/one.vmt")
head -c $((size * 2 / 3)) "$dir/hosta/one.vmt" >"$tmp/cut.vmt"
if "$bin" verify --repair "$tmp/cut.vmt" >/dev/null 2>&1 && "$bin" verify "$tmp/cut.vmt" >/dev/null 2>&1 &&
   [ "$(records "$tmp/cut.vmt")" -gt 0 ] &&
   [ "$(records "$tmp/cut.vmt")" -lt "$(records "$tmp/a.vmt")" ] &&
   [ -z "$(comm -23 <("$bin" dump "$tmp/cut.vmt" | sort) <("$bin" dump "$tmp/a.vmt" | sort))" ]; then
	ok
else
	fail "verify --repair of a cut relay file"
fi

# ---- The protocol fuzzer --------------------------------------------------
start_relay "$tmp/relay7.log" --idle 5 || finish
conv "$tmp/b.raw" --relay "$addr" --relay-host victim --relay-session v >/dev/null 2>&1 ||
	fail "the victim session"
sums() { (cd "$dir" && find . -name '*.vmt' ! -path './fuzz-*' | sort | xargs sha256sum); }
sums >"$tmp/before"
if python3 "$here/relay/relay_fuzz.py" "$port" "$tmp/b.vmt" "${RELAY_FUZZ_SEED:-37}" \
	"${RELAY_FUZZ_COUNT:-600}" "${RELAY_FUZZ_SECONDS:-600}" >"$tmp/fuzz.log" 2>&1 &&
   kill -0 $relay_pid 2>/dev/null; then
	ok
	cat "$tmp/fuzz.log"
else
	fail "fuzzer: $(cat "$tmp/fuzz.log"); relay: $(tail -5 "$tmp/relay7.log")"
fi
if (cd "$dir" && sha256sum --quiet -c "$tmp/before" >"$tmp/err" 2>&1); then ok; else
	fail "fuzzer: another session's file changed: $(cat "$tmp/err")"
fi
conv "$tmp/b.raw" -o "$tmp/after.vmt" --relay "$addr" --relay-host after --relay-session s \
	>"$tmp/err" 2>&1 || fail "after the fuzzer: $(cat "$tmp/err")"
same_file "after the fuzzer" "$tmp/after.vmt" "$dir/after/s.vmt"
stop_relay
finish
