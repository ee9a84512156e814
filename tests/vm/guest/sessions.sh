#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1 6.12 debug
# Sessions at once (kernel/base/session.h, kernel/core.c): up to four
# collectors trace, each its own processes into its own rings.
# - The ioctls: four device files take four sessions, a fifth is refused
#   (EBUSY) until one is closed; each has its own rings (geometry) and
#   state; what must run alone (page protection) is refused beside another
#   session and keeps the others from starting while it traces; a session
#   but 0 stops when its file is closed.
# - The sessions file (/sys/kernel/vmtrace/sessions) and `vmtrace status`:
#   a line each, with its state, collector, ring size; a collector's records
#   and faults at least its program's own count of faults so far.
# - Two collectors at once, streaming to one relay (issue 37): two `vmtrace
#   record --relay ADDR -o NAME.vmt`, each of its own vmt-fault-loop runs
#   (two, gated, so that both trace at once and `dump --follow` of the
#   relay's file prints records while they run). The oracles: each program's
#   own count (vmt-fault-loop N takes N first-touch faults: its process has
#   N references or more, and fewer than N + 1000), the other collector's
#   processes absent from each trace, and the local file each record writes
#   with -o, which the relay's copy must be byte for byte (verify clean).
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
B=/opt/vmtrace/bin

# ---- The ioctls -------------------------------------------------------------
python3 - <<'PY'
import ctypes, errno, fcntl, os, struct, sys
sys.path.insert(0, "/opt/vmtrace/tests/vm")
from vmt_abi import CONFIG_FMT, CONFIGURE, START, STOP, PROTECT, fails, status, geometry

pids = (ctypes.c_uint32 * 1)(os.getpid())

def config(ring=1024, flags=0):
    return struct.pack(CONFIG_FMT, ring, flags, 1, 0, ctypes.addressof(pids), 0, 0, 0, 0,
                       0, 0, 0, 0)

def state(fd):
    return status(fd)[0]

def ring_records(fd):
    return geometry(fd)[1]

def sysfs_state():
    return open("/sys/kernel/vmtrace/state").read().strip()

dev = lambda: os.open("/dev/vmtrace", os.O_RDWR)
fds = [dev() for _ in range(5)]
for i in range(4):
    fcntl.ioctl(fds[i], CONFIGURE, config(ring=1024 << i))
fails(errno.EBUSY, fds[4], CONFIGURE, config())          # four sessions held
for i in range(4):
    assert ring_records(fds[i]) == 1024 << i, (i, ring_records(fds[i]))
fails(errno.EBUSY, fds[1], CONFIGURE, config(flags=PROTECT))   # only session 0 protects
fcntl.ioctl(fds[0], START)
fcntl.ioctl(fds[1], START)
assert [state(fd) for fd in fds[:4]] == [1, 1, 0, 0], [state(fd) for fd in fds[:4]]
assert sysfs_state() == "on"                             # sysfs shows session 0
# The sessions file: a line each, as this process configured them.
lines = open("/sys/kernel/vmtrace/sessions").read().splitlines()
want = ["%d %s collector=%d processes=%d ring_records=%d" % (i, "on" if i < 2 else "off",
        os.getpid(), 1 if i < 2 else 0, 1024 << i) for i in range(4)]
assert [" ".join(l.split()[:5]) for l in lines] == want, (lines, want)
fails(errno.EBUSY, fds[1], START)
os.close(fds[3])                                         # its session is free again
fcntl.ioctl(fds[4], CONFIGURE, config(ring=2048))
assert ring_records(fds[4]) == 2048 and state(fds[4]) == 0
os.close(fds[1])                                         # on: stopped and let go
late = dev()
fcntl.ioctl(late, CONFIGURE, config(ring=4096))
assert state(late) == 0 and ring_records(late) == 4096, "the closed file's session"
fcntl.ioctl(fds[0], STOP)
assert sysfs_state() == "off"
for fd in (fds[0], fds[2], fds[4], late):
    os.close(fd)

# Page protection runs alone, as session 0.
p, q = dev(), dev()
fcntl.ioctl(p, CONFIGURE, config(flags=PROTECT))
fcntl.ioctl(p, START)
fcntl.ioctl(q, CONFIGURE, config())
fails(errno.EBUSY, q, START)
fcntl.ioctl(p, STOP)
fcntl.ioctl(q, START)
fails(errno.EBUSY, p, START)
fcntl.ioctl(q, STOP)
fcntl.ioctl(p, START)
fcntl.ioctl(p, STOP)
os.close(q)
os.close(p)
print("sessions: the ioctls: ok")
PY

# ---- Two collectors at once, to one relay -----------------------------------
[ -e /sys/kernel/mm/transparent_hugepage/enabled ] &&
	echo never >/sys/kernel/mm/transparent_hugepage/enabled
host=$(hostname)
rdir=/tmp/sessions-relay
rm -rf "$rdir" go
mkdir -p "$rdir"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
addr=127.0.0.1:$port
vmtrace relay --listen "$addr" --dir "$rdir" >relay.log 2>&1 &
relay=$!
trap 'kill -9 $relay 2>/dev/null' EXIT
wait_for "the relay to listen" grep -q "listening on $addr" relay.log

# gated NAME N1 N2: vmt-fault-loop N1, NAME.half, wait for go, vmt-fault-loop
# N2, NAME.end; each loop's pid in NAME.pid1 and NAME.pid2.
gated() {
	rm -f "$1".half "$1".end
	echo "$B/vmt-fault-loop $2 >/dev/null & echo \$! >$1.pid1; wait \$!; touch $1.half;" \
		"until [ -e go ]; do sleep 0.05; done;" \
		"$B/vmt-fault-loop $3 >/dev/null & echo \$! >$1.pid2; wait \$!; touch $1.end"
}
vmtrace record --relay "$addr" -o one.vmt --frame-bytes 16384 --follow -e task,vma -- \
	sh -c "$(gated one 1500 2500)" 2>one.summary &
r1=$!
vmtrace record --relay "$addr" -o two.vmt --frame-bytes 16384 --follow -- \
	sh -c "$(gated two 2000 3000)" 2>two.summary &
r2=$!
wait_for "both first halves" test -e one.half -a -e two.half
# Each collector's session, in the sessions file and in `vmtrace status`:
# on, held by it, and its records and faults at least its first loop's
# faults (vmt-fault-loop N takes N first-touch faults).
sessions=$(cat /sys/kernel/vmtrace/sessions)
for c in "$r1 1500" "$r2 2000"; do
	read -r pid n <<<"$c"
	line=$(grep " on collector=$pid " <<<"$sessions") || fail "no session on for collector $pid: $sessions"
	recs=$(sed -n 's/.* records=\([0-9]*\) .*/\1/p' <<<"$line")
	faults=$(sed -n 's/.* faults=\([0-9]*\)$/\1/p' <<<"$line")
	[ "${recs:-0}" -ge "$n" ] && [ "${faults:-0}" -ge "$n" ] ||
		fail "collector $pid's session: $recs records, $faults faults, not at least $n: $line"
done
[ "$(vmtrace status | grep -c '^session [0-9] on collector=')" -eq 2 ] ||
	fail "vmtrace status does not show the two sessions: $(vmtrace status)"
echo "sessions: the sessions file and status show each collector's session: $(tr '\n' ';' <<<"$sessions")"
size_over() { [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt "$2" ]; }
wait_for "the relay's file" size_over "$rdir/$host/two.vmt" 4096
vmtrace dump --follow "$rdir/$host/two.vmt" >follow.txt 2>follow.err &
fol=$!
wait_for "dump --follow to print a record" test -s follow.txt
early=$(wc -l <follow.txt)
touch go
wait "$r1" || fail "record one: $(cat one.summary)"
wait "$r2" || fail "record two: $(cat two.summary)"
wait "$fol" || fail "dump --follow: $(cat follow.err)"
kill "$relay"
wait "$relay" || true
trap - EXIT

# refs PID FILE: PID's references in FILE (stats' "by pid" line), or 0.
refs() {
	vmtrace stats "$2" | sed -n "s/^  $1 \+[0-9]* records: \([0-9]*\) references.*/\1/p" |
		grep . || echo 0
}
pids() { vmtrace stats "$1" | sed -n '/^by pid:/,$ s/^  \([0-9]\+\) .*/\1/p' | sort; }
for name in one two; do
	stored=$rdir/$host/$name.vmt
	grep "relay $addr, $host/$name: " "$name.summary" || fail "$name: no relay summary"
	grep -q " 0 frames dropped" "$name.summary" || fail "$name: frames dropped"
	vmtrace verify "$stored" >"$name.verify" 2>&1 || fail "$name: verify: $(cat "$name.verify")"
	cmp "$name.vmt" "$stored" || fail "$name: the relay's file is not the local file"
	expect_eq "$(vmtrace stats "$name.vmt" | sed -n 's/^lost: //p')" 0 "$name: records lost"
done
for name in one two; do
	other=$([ $name = one ] && echo two || echo one)
	for k in 1 2; do
		pid=$(cat "$name.pid$k")
		n=$(refs "$pid" "$name.vmt")
		case $name$k in one1) want=1500 ;; one2) want=2500 ;; two1) want=2000 ;; two2) want=3000 ;; esac
		[ "$n" -ge "$want" ] && [ "$n" -lt $((want + 1000)) ] ||
			fail "$name: vmt-fault-loop $want (pid $pid): $n references"
		expect_eq "$(refs "$pid" "$other.vmt")" 0 "$other: references of $name's pid $pid"
		echo "$name: vmt-fault-loop $want, pid $pid: $n references; none in $other.vmt"
	done
done
common=$(comm -12 <(pids one.vmt) <(pids two.vmt) | grep -vx 0 || true)
[ -z "$common" ] || fail "processes in both traces: $common"
[ "$(vmtrace dump --type exec one.vmt | wc -l)" -ge 2 ] || fail "one: its exec events"
[ "$(vmtrace dump --type exec two.vmt | wc -l)" -eq 0 ] || fail "two: events it did not ask for"
total=$(wc -l < <(vmtrace dump two.vmt))
[ "$early" -lt "$total" ] || fail "dump --follow: $early records before the end, of $total"
cmp -s <(sort follow.txt) <(vmtrace dump two.vmt | sort) ||
	fail "dump --follow: its lines are not the trace's"
echo "sessions: two collectors at once: relay copies are the local files; dump --follow printed $early of $total records while they ran"
rmmod vmtrace
