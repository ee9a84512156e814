#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/exact-insn-lackey.sh ORACLE: kernel/exact/exact_insn.c against valgrind's
# lackey (an independent decoder: VEX) and objdump (instruction boundaries).
#
# ORACLE (exact-insn-oracle.c linked with exact-insn-forms.S, -no-pie) runs the
# forms under `valgrind --tool=lackey --trace-mem=yes`; then, natively, it
# single-steps the same forms and compares each step's decoded length and
# accesses (load/store/modify, address, size) with lackey's, in order.
#
# Lackey's conventions, as found with valgrind 3.19:
# - a load whose value is dead (overwritten before use) is optimised away:
#   lackey runs here with --vex-iropt-level=0, which keeps every access;
# - L load, S store, M modify (a load and a store of the same bytes by one
#   instruction: add to memory, inc, xadd, cmpxchg locked or not, bts $imm);
#   xchg with memory shows "L" then "M" of the same bytes;
# - every access is one line of its full size: 16 and 32 bytes (AVX ymm) are
#   not split, 10 for fldt/fstpt; lines crossing a page end are one access;
# - push is S of 8 at rsp-8, pop and ret L of 8 at rsp, call S of 8;
#   push m is L then S, pop m is L (stack) then S;
# - rep movs/stos/cmps/scas: one "I" and its accesses per iteration, and one
#   more "I" without access when the count reaches 0 (dropped here);
# - bt/bts/btr/btc with a register bit offset access the byte holding the
#   bit (ea + offset / 8), where the SDM has the CPU access the operand-size
#   unit holding it, which the decoder gives: lackey's byte must be inside it
#   (with -O iropt, lackey shows no access for bt at all);
# - packed FMA with a memory source is one L per element (joined here: the
#   forms have no two accesses of one kind that happen to be contiguous);
# - not every form runs under valgrind 3.19: cmps without rep and popw m16
#   stop it ("unhandled instruction bytes"), so the forms leave them out;
# - fxsave shows overlapping stores (160, 8, then 16-byte pieces): not in the
#   forms; the unit test covers it;
# - valgrind reads other bytes than the CPU in a few forms, left out of the
#   forms (the unit test has them as the SDM says): punpcklbw mm, m32 (lackey
#   8), vmovddup ymm, m256 (two loads of 8, the qwords it uses), vpsll/vpsrl
#   ymm by an m128 count (8).
set -euo pipefail
oracle=${1:?usage: exact-insn-lackey.sh ORACLE}
if ! command -v valgrind >/dev/null; then
	echo "exact-insn-lackey: valgrind is not installed (apt-get install valgrind)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! valgrind --tool=lackey --trace-mem=yes --vex-iropt-level=0 --log-file="$tmp/lackey.log" \
	"$oracle" run >"$tmp/fs_base"; then
	grep -v '^ \?[ILSM] ' "$tmp/lackey.log" | tail -20 >&2
	echo "exact-insn-lackey: the forms failed under lackey" >&2
	exit 1
fi
# objdump -d: "  401136:\t48 8b 03 \tmov ..." -> "401136 3"
objdump -d --insn-width=16 "$oracle" |
	awk -F'\t' '/^ *[0-9a-f]+:\t/ { sub(/:$/, "", $1); n = split($2, b, " "); print $1, n }' \
	>"$tmp/lengths"
"$oracle" check "$tmp/lackey.log" "$(cat "$tmp/fs_base")" "$tmp/lengths"
