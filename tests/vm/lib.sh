# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest-side tests: small assertions that say what failed.
set -euo pipefail
VMT_LIB=/opt/vmtrace/lib

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
expect_log() { grep -q -- "$1" <<<"$(dmesg)" || fail "kernel log lacks '$1'"; }
# wait_for DESCRIPTION CMD...: run CMD until it succeeds; a hang guard only
# (300 s of wall time), never a timing check. CMD is run anew each time, so
# anything it reads must be read inside it (see at_least), not expanded here.
wait_for() {
	local what=$1 deadline=$((SECONDS + 300))
	shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || fail "gave up waiting for $what"
		sleep 0.01
	done
}
# trace_program PID DIR NAME WHAT [OPTION...]: once the program PID (started
# in the background) has made DIR/ready, trace it with `vmtrace record-raw -p
# PID OPTION... -o NAME.raw` (its summary in NAME.summary), let it go with
# SIGUSR1 and wait for both; print the summary. Fails with WHAT when the
# program fails.
trace_program() {
	local pid=$1 dir=$2 name=$3 what=$4 rec
	shift 4
	wait_for "the program to be ready" test -e "$dir/ready"
	vmtrace record-raw -p "$pid" "$@" -o "$name.raw" 2>"$name.summary" &
	rec=$!
	wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
	kill -USR1 "$pid"
	wait "$pid" || fail "$what"
	wait "$rec" || { cat "$name.summary"; fail "record-raw failed"; }
	cat "$name.summary"
}
# nobody CMD...: run CMD as user nobody, without capabilities. NOBODY is the
# same as a command prefix, for commands that another one runs.
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
nobody() { "${NOBODY[@]}" "$@"; }
# at_least COUNTER N: /sys/kernel/vmtrace/COUNTER holds N or more.
at_least() { [ "$(cat "/sys/kernel/vmtrace/$1")" -ge "$2" ]; }
# debug_kernel: true on the KASAN test kernel, where everything runs ~3x slower
# (its release names it: scripts/debug-kernel.config's LOCALVERSION).
debug_kernel() { [[ "$(uname -r)" == *-vmtrace-debug ]]; }
# Loading and unloading the module switches tracepoints on and off, and the
# kernel patches their call sites (text_poke_bp()). Under QEMU's TCG that
# hangs the guest now and then while another vCPU runs the code being
# patched, without vmtrace too (see lifecycle.sh and tests/vm/tcg/): a
# debug-kernel run of `make check` hung in thp.sh's closing rmmod, another in
# the KUnit run's rmmod. So every insmod and rmmod of the guest tests, and
# every switch of an ftrace event, runs with the other CPUs offline.
on_one_cpu() {
	local c off=() rc=0
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -e "$c" ] && [ "$(cat "$c")" = 1 ] || continue
		echo 0 >"$c"
		off+=("$c")
	done
	"$@" || rc=$?
	for c in "${off[@]}"; do
		echo 1 >"$c"
	done
	return $rc
}
insmod() { on_one_cpu command insmod "$@"; }
rmmod() { on_one_cpu command rmmod "$@"; }
# kmemleak_forget: on the debug kernel, forget what leaked before the test
# (not vmtrace's). kmemleak_check WHAT: after rmmod, scan (twice: objects
# freed within a scan's minimum age are not reported) and fail on any leak.
# Elsewhere both do nothing.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_forget() {
	debug_kernel || return 0
	mountpoint -q /sys/kernel/debug || mount -t debugfs nodev /sys/kernel/debug
	[ -e $KMEMLEAK ] || fail "the debug kernel has no $KMEMLEAK"
	echo scan >$KMEMLEAK
	echo clear >$KMEMLEAK
}
kmemleak_check() {
	local leaks
	debug_kernel || return 0
	echo scan >$KMEMLEAK
	sleep 6
	echo scan >$KMEMLEAK
	leaks=$(grep -c '^unreferenced object' $KMEMLEAK || true)
	[ "$leaks" = 0 ] || { head -40 $KMEMLEAK; fail "kmemleak: $leaks leaks after $1"; }
	echo "kmemleak: no leak after $1"
}
# For the benchmarks (tests/vm/bench/): the median of the numbers on stdin,
# and timed_run NAME CMD...: one run of CMD, its output in NAME.out and
# NAME.err, its wall time appended to NAME.wall.
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
timed_run() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	"$@" >"$name.out" 2>"$name.err" || { cat "$name.err" >&2; echo "$name failed" >&2; return 1; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$name.wall"
}
# The sqlite3 workload of the exact-mode tests and benchmarks (loops-real.sh,
# profile.sh, bench/record-real-programs.sh): ROWS rows of pseudo-random
# keys, an index on them, a grouping sorted. sqlite3_workload ROWS prints
# the statements; the first answer line begins "ROWS|".
sqlite3_workload() {
	cat <<SQL
create table t(a integer primary key, b text, c integer);
with recursive s(x) as (select 1 union all select x + 1 from s where x < $1)
insert into t(b, c) select printf('%08x', (x * 2654435761) % 4294967296), x % 7 from s;
create index tb on t(b);
select count(*), min(b), max(b), sum(c) from t;
select c, count(*), max(b) from t group by c order by 3;
SQL
}
