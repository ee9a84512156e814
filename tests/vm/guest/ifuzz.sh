#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.12 debug
# The module's interface fuzzed (tests/vm/progs/ifuzz.c): every bad call
# gets its documented error and changes nothing, then four processes call
# everything at random while a toucher is traced and --protect goes on and
# off; its data must read back whole. Then rmmod and, on the debug kernel, a
# kmemleak scan. vm-run fails the run on any kernel report.
# ifuzz.sh [SECONDS [SEED]]: make check runs 20 s with a new seed (printed
# first, for a rerun); `make fuzz` runs it long.
. /opt/vmtrace/tests/vm/lib.sh
seconds=${1:-20}
seed=${2:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
kmemleak_forget
insmod "$VMT_LIB/vmtrace.ko"
vmt-ifuzz --seed "$seed" --seconds "$seconds" ||
	fail "vmt-ifuzz, seed $seed (rerun: scripts/vm-run --kernel KERNEL -- $0 $seconds $seed)"
rmmod vmtrace
kmemleak_check "fuzzing for $seconds s, seed $seed, and rmmod"
echo "ifuzz: ok (seed $seed)"
