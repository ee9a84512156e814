#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/disk-full.sh VMTRACE: the commands that write a trace, on a file
# system that fills (a 256 KiB tmpfs in a mount namespace of this test's own:
# it needs root, as make check does). Each says "No space left on device" and
# exits 1; reduce leaves nothing behind, whether the disk is full from the
# start or fills midway; convert keeps what it wrote, and verify --repair
# makes of it a trace of its complete frames, every record of which is the
# source's (rewrite/compare.py). A relay whose disk fills stops that
# session alone, saying so, keeps its blocks and the other sessions'.
[ "$(id -u)" -eq 0 ] || { echo "disk-full: FAIL: needs root (a tmpfs of its own)"; exit 1; }
if [ -z "${VMT_DISK_FULL_NS:-}" ]; then
	VMT_DISK_FULL_NS=1 exec unshare --mount --propagation private "$0" "$@"
fi
NAME=disk-full
CLEANUP='umount "$tmp/small" 2>/dev/null'
. "$(dirname "$0")/rewrite/lib.sh"
bin=$1
mkdir "$tmp/small"
mount -t tmpfs -o size=256k tmpfs "$tmp/small" || { echo "disk-full: FAIL: no tmpfs"; exit 1; }
small=$tmp/small

python3 "$here/rewrite/records.py" 3 12000 >"$tmp/src.raw" &&
	"$bin" convert --codec none "$tmp/src.raw" -o "$tmp/src.vmt" >/dev/null 2>&1 ||
	{ echo "disk-full: FAIL: no source trace"; exit 1; }

# says WHAT STATUS: the command's status is 1 and its message names the cause.
says() {
	if [ "$2" -eq 1 ] && grep -q "No space left on device" "$tmp/err"; then ok
	else fail "$1: exit $2, stderr: $(cat "$tmp/err")"; fi
}

# Full from the start, then filling midway (64 KiB left).
for left in 0 64; do
	rm -f "$small"/*
	dd if=/dev/zero of="$small/fill" bs=1k count=$((256 - left)) 2>/dev/null
	"$bin" reduce --sad 8 --codec none "$tmp/src.vmt" -o "$small/r.vmt" >/dev/null 2>"$tmp/err"
	says "reduce with $left KiB left" $?
	[ ! -e "$small/r.vmt" ] && ok || fail "reduce with $left KiB left left $(stat -c %s "$small/r.vmt") bytes behind"
done

rm -f "$small"/*
dd if=/dev/zero of="$small/fill" bs=1k count=64 2>/dev/null
"$bin" convert --codec zstd --frame-bytes 16384 "$tmp/src.raw" -o "$small/c.vmt" >/dev/null 2>"$tmp/err"
says "convert filling the disk" $?
if [ -s "$small/c.vmt" ]; then
	ok
	rm "$small/fill"
	if "$bin" verify --repair "$small/c.vmt" >"$tmp/out" 2>&1 &&
	   "$bin" export --format raw "$small/c.vmt" -o "$tmp/c.raw" 2>>"$tmp/out" &&
	   out=$(python3 "$here/rewrite/compare.py" "$tmp/src.raw" "$tmp/c.raw" --some) &&
	   [ -s "$tmp/c.raw" ]; then
		ok
		echo "disk-full: convert's file, repaired: $out"
	else
		fail "convert's file does not repair into the source's records: $(cat "$tmp/out") ${out:-}"
	fi
else
	fail "convert left nothing of what it wrote"
fi

# The relay: a session that fills the disk stops, said, its complete blocks
# kept; the relay and the other sessions go on.
rm -f "$small"/*
mkdir "$small/dir"
dd if=/dev/zero of="$small/fill" bs=1k count=64 2>/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin" relay --listen 127.0.0.1:$port --dir "$small/dir" >"$tmp/relay.log" 2>&1 &
relay=$!
CLEANUP="kill $relay 2>/dev/null; $CLEANUP"
for _ in $(seq 100); do grep -q listening "$tmp/relay.log" 2>/dev/null && break; sleep 0.05; done
head -c 64000 "$tmp/src.raw" >"$tmp/part.raw"
"$bin" convert --codec zstd "$tmp/part.raw" --relay 127.0.0.1:$port --relay-host h \
	--relay-session kept >/dev/null 2>"$tmp/err" || fail "relay: the first session: $(cat "$tmp/err")"
sum=$(sha256sum <"$small/dir/h/kept.vmt")
"$bin" convert --codec none --frame-bytes 16384 "$tmp/src.raw" --relay 127.0.0.1:$port \
	--relay-host h --relay-session big --relay-wait 5 >/dev/null 2>"$tmp/err"
says "relay: a session filling the disk" $?
if kill -0 $relay 2>/dev/null && grep -q "h/big: .*No space left on device.*the session stops" "$tmp/relay.log" &&
   [ "$(sha256sum <"$small/dir/h/kept.vmt")" = "$sum" ] && [ -s "$small/dir/h/big.vmt" ]; then
	ok
else
	fail "relay: disk full: $(cat "$tmp/relay.log")"
fi
rm "$small/fill"
if "$bin" verify --repair "$small/dir/h/big.vmt" >"$tmp/out" 2>&1 &&
   "$bin" verify "$small/dir/h/big.vmt" >>"$tmp/out" 2>&1 &&
   "$bin" verify "$small/dir/h/kept.vmt" >>"$tmp/out" 2>&1 &&
   "$bin" convert --codec zstd "$tmp/part.raw" --relay 127.0.0.1:$port --relay-host h \
	--relay-session after >>"$tmp/out" 2>&1; then
	ok
	echo "disk-full: the relay: the session that filled the disk stopped, the other kept, the relay went on"
else
	fail "relay: after the disk filled: $(cat "$tmp/out")"
fi
kill $relay

finish
