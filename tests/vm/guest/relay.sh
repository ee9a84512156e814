#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# vmtrace relay with real collectors (issue 37, docs/RELAY.md): a relay and
# `vmtrace record --relay 127.0.0.1:PORT -o NAME.vmt` in one guest, on
# loopback. The oracle is the local file the same record writes with -o:
# the relay's copy, DIR/HOST/NAME.vmt (HOST the guest's host name, NAME -o's
# name without .vmt: the defaults of --relay-host and --relay-session), must
# be that file byte for byte, dump as it does and verify clean; or, when the
# spool dropped frames, hold its records less exactly the dropped ones,
# which its LOST record and the summary count.
#
# Its collectors protect pages (--protect), which runs alone (kernel/base/
# session.h): the test checks that a second `record --relay` is refused
# while the first traces, then runs its collectors one after another, and one
# collector tracing two workloads (-p twice); sessions.sh runs two plain
# collectors at once:
# - vmt-pages, its shell followed; `dump --follow` of the relay's file prints
#   records while the workload waits, before its end marker exists;
# - vmt-loops (stencil) with task and vma events; two vmt-pages by -p;
# - the relay killed (SIGKILL) mid-run, started again 5 s later on the same
#   port and DIR: the collector spools, reconnects, resumes; 0 frames
#   dropped, the stored trace the local one; the summary says what was
#   sent, acknowledged, spooled and dropped;
# - the same with a spool too small for the outage (--relay-spool 64k
#   --relay-spool-file 0): frames dropped, counted in the summary and as
#   the stored trace's lost records (stats), every stored record the
#   local file's;
# - a relay with --key: a collector without the key refused (exit status 1,
#   a message, no file), one with it accepted.
# A collector the module refuses (busy) connects to no relay: the relay has
# no file of its session, and its log no line.
# The protocol fuzzer (issue 37's acceptance): tests/unit/relay/relay_fuzz.py
# (seed 37) sends the relay random, cut and mutated messages for 60 s while
# the first sections' collectors (vmt-pages, vmt-loops, the two workloads)
# stream their sessions to it; the later sections (the relay killed, the
# small spool, the key) meanwhile use relays of their own (another port
# and DIR), and then a last collector, `during`, whose workload loops until
# the fuzzer ends, streams to the fuzzed relay. Then: the relay lives; each of those
# sessions' files, and a victim session's stored before the fuzzer, is its
# local file byte for byte and verifies, `during`'s counts of records of
# each type the local file's; and no path outside the relays' DIRs (and the
# test's own folder) is new since the fuzzer's start.
# (the relay and its collectors are user space; 6.1 alone, for make check's time.)
. /opt/vmtrace/tests/vm/lib.sh
work=/tmp/relay-work
rm -rf "$work"
mkdir -p "$work"
cd "$work"
insmod "$VMT_LIB/vmtrace.ko"
B=/opt/vmtrace/bin
FUZZ=/opt/vmtrace/tests/unit/relay/relay_fuzz.py
FUZZ_SECONDS=60
# relay_fuzz.py imports relay_msgs.py: no __pycache__ made in /opt.
export PYTHONDONTWRITEBYTECODE=1
host=$(hostname)
rdir=/tmp/relay-dir
rdir2=/tmp/relay-dir2	# the later sections' relays'
rm -rf "$rdir" "$rdir2"
mkdir -p "$rdir" "$rdir2"
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}
port=$(free_port)
addr=127.0.0.1:$port
relay=
fuzz=
fuzz_relay=
trap 'for p in $relay $fuzz_relay; do kill -9 $p; done 2>/dev/null
[ -z "$fuzz" ] || kill $fuzz 2>/dev/null' EXIT

# start_relay LOG [OPTION...]: a relay on $addr storing in $rdir, once it listens.
relay_listens() {
	grep -q "listening on $addr" "$1" && return 0
	kill -0 "$relay" 2>/dev/null || fail "the relay did not start: $(cat "$1")"
	return 1
}
start_relay() {
	local log=$1
	shift
	vmtrace relay --listen "$addr" --dir "$rdir" "$@" >"$log" 2>&1 &
	relay=$!
	wait_for "the relay to listen" relay_listens "$log"
}
stop_relay() {
	kill "$relay"
	wait "$relay" || true
	relay=
}
# field WHAT FILE: the number before WHAT in the relay summary line in FILE.
field() { grep "relay $addr" "$2" | grep -oE "[0-9]+ $1" | head -1 | cut -d' ' -f1; }
size_over() { [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt "$2" ]; }
stat_of() { vmtrace stats "$2" | sed -n "s/^$1: //p"; }
# summary_ok NAME CONNECTIONS: NAME.summary's relay line: everything spooled
# acknowledged, nothing dropped, at least CONNECTIONS connections.
summary_ok() {
	local s=$1.summary spooled acked
	grep "relay $addr, $host/$1: " "$s" || fail "$1: no relay summary line: $(cat "$s")"
	acked=$(field 'acknowledged of' "$s")
	spooled=$(grep "relay $addr" "$s" | sed -n 's/.* acknowledged of \([0-9]*\),.*/\1/p')
	[ "${spooled:-0}" -gt 0 ] && [ "$acked" = "$spooled" ] ||
		fail "$1: $acked blocks acknowledged of '$spooled'"
	[ "$(field 'blocks \(' "$s")" -ge "$spooled" ] || fail "$1: fewer blocks sent than spooled"
	expect_eq "$(field 'frames dropped' "$s")" 0 "$1: frames dropped"
	[ "$(field connections "$s")" -ge "$2" ] || fail "$1: fewer than $2 connections"
}
# same_trace NAME MIN: the relay's NAME.vmt verifies, dumps as the local
# NAME.vmt (MIN records or more) and is it byte for byte; the rings lost
# nothing meanwhile.
same_trace() {
	local name=$1 stored=$rdir/$host/$1.vmt n
	vmtrace verify "$stored" >"$name.verify" 2>&1 || fail "$name: verify: $(cat "$name.verify")"
	vmtrace dump "$name.vmt" >"$name.local.txt"
	vmtrace dump "$stored" >"$name.stored.txt"
	n=$(wc -l <"$name.local.txt")
	[ "$n" -ge "$2" ] || fail "$name: only $n records"
	cmp -s "$name.local.txt" "$name.stored.txt" || {
		diff "$name.local.txt" "$name.stored.txt" | head -5
		fail "$name: the relay's file does not dump as the local file"
	}
	cmp "$name.vmt" "$stored" || fail "$name: the relay's file is not the local file"
	expect_eq "$(stat_of lost "$name.vmt")" 0 "$name: records the rings lost"
	echo "$name: $n records; the relay's $host/$name.vmt is the local file, verifies"
}
# gated ARGS1 ARGS2 TAG: a shell script that runs vmt-pages ARGS1, makes
# TAG.half, waits for TAG.go, runs vmt-pages ARGS2 and makes TAG.end.
gated() {
	rm -f "$3.half" "$3.go" "$3.end"
	echo "$B/vmt-pages $1 >/dev/null; touch $3.half; until [ -e $3.go ]; do sleep 0.05; done;" \
		"$B/vmt-pages $2 >/dev/null; touch $3.end"
}

start_relay relay1.log

# ---- The fuzzer starts; the collectors below stream meanwhile -----------
# A victim session, complete before the fuzzer, which says hello for it
# with other sender ids; the fuzzer's own sessions send its blocks.
vmt-synth random 20000 37 >victim.raw
vmtrace convert victim.raw -o victim.vmt --relay "$addr" --relay-host victim --relay-session v \
	>victim.log 2>&1 || fail "the victim session: $(cat victim.log)"
cmp victim.vmt "$rdir/victim/v.vmt" || fail "the victim session: not the local file"
# paths: every path but those of /proc, /sys, /dev, /run, /mnt/share, the
# relays' DIRs and this folder.
paths() {
	find / \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /mnt/share \
		-o -path "$rdir" -o -path "$rdir2" -o -path "$work" \) -prune -o -print | sort
}
paths >paths.before
python3 "$FUZZ" "$port" victim.vmt 37 1000000 "$FUZZ_SECONDS" >fuzz.log 2>&1 &
fuzz=$!

# ---- vmt-pages, dump --follow, and a second collector ------------------
vmtrace record --relay "$addr" -o pages.vmt --frame-bytes 16384 --protect -n 64 --follow -- \
	sh -c "$(gated "1024 20000" "512 5000" pages)" 2>pages.summary &
rec=$!
stored=$rdir/$host/pages.vmt
wait_for "the relay's file" size_over "$stored" 4096
vmtrace dump --follow "$stored" >follow.txt 2>follow.err &
fol=$!
wait_for "dump --follow to print a record" test -s follow.txt
[ ! -e pages.end ] || fail "the workload ended before dump --follow printed"
early=$(wc -l <follow.txt)
# A second collector while the first traces with protection, which runs alone.
grep -qx on /sys/kernel/vmtrace/state || fail "the first collector is not tracing"
if vmtrace record --relay "$addr" -o second.vmt -- true >second.err 2>&1; then
	fail "a second collector traced beside the first: run the collectors at once"
fi
cat second.err
grep -q busy second.err || fail "the second collector's refusal does not say the module is busy"
# It never told the relay of its session.
[ ! -e "$rdir/$host/second.vmt" ] || fail "the refused collector left a file at the relay"
! grep "$host/second" relay1.log || fail "the refused collector opened a session at the relay"
touch pages.go
wait "$rec" || fail "record of vmt-pages: $(cat pages.summary)"
wait "$fol" || fail "dump --follow: $(cat follow.err)"
summary_ok pages 1
same_trace pages 10000
total=$(wc -l <pages.local.txt)
[ "$early" -lt "$total" ] || fail "dump --follow: $early records before the end, of $total"
cmp -s <(sort follow.txt) <(sort pages.local.txt) ||
	fail "dump --follow: its $(wc -l <follow.txt) lines are not the trace's"
echo "dump --follow: $early records printed before the workload's end, then the rest ($total)"

# ---- vmt-loops, with events ---------------------------------------------
vmtrace record --relay "$addr" -o loops.vmt --frame-bytes 16384 --protect -n 16 -e task,vma -- \
	"$B/vmt-loops" stencil 128 >/dev/null 2>loops.summary ||
	fail "record of vmt-loops: $(cat loops.summary)"
summary_ok loops 1
same_trace loops 500
for t in vma exec exit; do
	[ "$(vmtrace dump --type $t loops.vmt | wc -l)" -gt 0 ] || fail "loops: no $t record"
done

# ---- Two workloads in one collector ------------------------------------
rm -f go2
sh -c "until [ -e go2 ]; do sleep 0.05; done; exec $B/vmt-pages 512 8000 >/dev/null" &
w1=$!
sh -c "until [ -e go2 ]; do sleep 0.05; done; exec $B/vmt-pages 768 4000 >/dev/null" &
w2=$!
vmtrace record --relay "$addr" -o two.vmt --frame-bytes 16384 --protect -n 32 -p $w1 -p $w2 \
	2>two.summary &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
touch go2
wait $w1 && wait $w2 || fail "the two workloads"
wait "$rec" || fail "record -p -p: $(cat two.summary)"
summary_ok two 1
same_trace two 5000
for p in $w1 $w2; do
	n=$(vmtrace stats --pid "$p" "$rdir/$host/two.vmt" | sed -n 's/^records: //p')
	[ "${n:-0}" -ge 1000 ] || fail "two: only '$n' records of pid $p in the relay's file"
	echo "two: pid $p: $n records"
done

# ---- The later sections' relays: a port and DIR of their own -----------
# The fuzzer's relay runs on under the fuzzer while these are killed and
# started again; it takes the last collector, below.
fuzz_relay=$relay fuzz_addr=$addr fuzz_dir=$rdir
relay=
addr=127.0.0.1:$(free_port)
rdir=$rdir2
start_relay relay2.log

# ---- The relay killed mid-run, back 5 s later ---------------------------
# killed_run NAME OPTION...: a gated vmt-pages recorded to the relay with
# OPTIONs; once a few frames are stored, the relay is killed, the workload
# let go, and 5 s later (and the workload done) the relay starts again.
killed_run() {
	local name=$1 rec before
	shift
	vmtrace record --relay "$addr" -o "$name.vmt" --frame-bytes 16384 --protect -n 64 --follow "$@" \
		-- sh -c "$(gated "768 8000" "1024 20000" "$name")" 2>"$name.summary" &
	rec=$!
	wait_for "the workload's first part" test -e "$name.half"
	wait_for "frames at the relay" size_over "$rdir/$host/$name.vmt" 10000
	kill -9 "$relay"
	wait "$relay" 2>/dev/null && fail "the relay survived SIGKILL"
	relay=
	before=$(stat -c %s "$rdir/$host/$name.vmt")
	touch "$name.go"
	sleep 5
	wait_for "the workload's end" test -e "$name.end"
	expect_eq "$(stat -c %s "$rdir/$host/$name.vmt")" "$before" "$name: the file while no relay ran"
	start_relay "relay-$name.log"
	wait "$rec" || fail "$name: record: $(cat "$name.summary")"
	grep "$host/$name: receiving from .*([1-9][0-9]* blocks stored)" "relay-$name.log" ||
		fail "$name: the relay did not resume the session: $(cat "relay-$name.log")"
}
killed_run killed
summary_ok killed 2
[ "$(field 'spooled at most' killed.summary)" -gt 1 ] || fail "killed: nothing spooled"
same_trace killed 10000

# ---- A spool too small for the outage ----------------------------------
killed_run small --codec none --relay-spool 64k --relay-spool-file 0
grep "relay $addr" small.summary
frames=$(field 'frames dropped' small.summary)
dropped=$(grep "relay $addr" small.summary |
	sed -n 's/.* frames dropped (\([0-9]*\) records).*/\1/p')
[ "${frames:-0}" -gt 0 ] && [ "${dropped:-0}" -gt 0 ] || fail "small: nothing dropped"
stored=$rdir/$host/small.vmt
vmtrace verify "$stored" >small.verify 2>&1 || fail "small: verify: $(cat small.verify)"
expect_eq "$(stat_of lost "$stored")" "$dropped" "small: the relay's file's lost records"
expect_eq "$(stat_of lost small.vmt)" 0 "small: the local file's lost records"
rl=$(stat_of records "$stored")
ll=$(stat_of records small.vmt)
expect_eq "$((rl - 1 + dropped))" "$ll" "small: stored records less the LOST one, plus the dropped"
vmtrace dump "$stored" | awk '$2 != "lost"' | sort >small.stored.txt
vmtrace dump small.vmt | sort >small.local.txt
[ -z "$(comm -23 small.stored.txt small.local.txt | head -3)" ] ||
	fail "small: the relay's file has records the local file has not"
echo "small spool: $frames frames, $dropped records dropped and counted; $rl of $ll records stored"
stop_relay

# ---- A key --------------------------------------------------------------
head -c 32 /dev/urandom >relay.key
chmod 600 relay.key
start_relay relay-key.log --key relay.key
rc=0
vmtrace record --relay "$addr" -o nokey.vmt --protect -n 16 -- "$B/vmt-pages" 256 1000 \
	>/dev/null 2>nokey.summary || rc=$?
cat nokey.summary
expect_eq "$rc" 1 "a collector without the key: exit status"
grep -q "only senders with its key" nokey.summary ||
	fail "a collector without the key: no reason said"
[ ! -e "$rdir/$host/nokey.vmt" ] || fail "a collector without the key: the relay made its file"
vmtrace record --relay "$addr" --relay-key relay.key -o keyed.vmt --protect -n 16 -- \
	"$B/vmt-pages" 256 1000 >/dev/null 2>keyed.summary ||
	fail "a collector with the key: $(cat keyed.summary)"
summary_ok keyed 1
same_trace keyed 500
stop_relay

# ---- One more collector while the fuzzer runs; the fuzzer's end ---------
relay=$fuzz_relay addr=$fuzz_addr rdir=$fuzz_dir
fuzz_relay=
# types FILE: each record type of the dump FILE and its count.
types() { awk '{ n[$2]++ } END { for (t in n) print t, n[t] }' "$1" | sort; }
rm -f fuzz.done
vmtrace record --relay "$addr" -o during.vmt --frame-bytes 16384 --protect -n 32 -- \
	sh -c "until $B/vmt-pages 256 2000 >/dev/null; [ -e fuzz.done ]; do :; done" \
	2>during.summary &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
wait "$fuzz" || fail "the fuzzer: $(cat fuzz.log); the relay: $(tail -5 relay1.log)"
fuzz=
cat fuzz.log
grep -q "seed 37, [1-9][0-9]* connections, [1-9][0-9]* messages" fuzz.log ||
	fail "the fuzzer's counts: $(cat fuzz.log)"
touch fuzz.done
wait "$rec" || fail "record during the fuzzer: $(cat during.summary)"
kill -0 "$relay" || fail "the relay died under the fuzzer: $(tail -5 relay1.log)"
summary_ok during 1
same_trace during 1000
types during.local.txt >during.types.local
types during.stored.txt >during.types.stored
cmp -s during.types.local during.types.stored ||
	fail "during: records of each type: local $(cat during.types.local)," \
		"stored $(cat during.types.stored)"
echo "during: records of each type, local and stored:" $(cat during.types.local)
for name in pages loops two during; do
	cmp "$name.vmt" "$rdir/$host/$name.vmt" || fail "$name: the relay's file changed after the fuzzer"
done
cmp victim.vmt "$rdir/victim/v.vmt" || fail "the victim session's file changed under the fuzzer"
vmtrace verify "$rdir/victim/v.vmt" >/dev/null || fail "the victim session's file does not verify"
# Nothing made outside DIR and this folder (the fuzzer's names have '..', '/').
paths | comm -13 paths.before - >outside.txt
[ ! -s outside.txt ] || fail "files made outside the relay's DIR: $(head -20 outside.txt)"
echo "fuzzer: the relay lives; pages, loops, two, during and victim/v intact;" \
	"$(ls "$rdir" | wc -l) host folders in DIR, nothing outside"

stop_relay
rmmod vmtrace
echo "relay: ok"
