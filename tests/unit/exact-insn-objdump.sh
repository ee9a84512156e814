#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/exact-insn-objdump.sh ORACLE: kernel/exact/exact_insn.c against objdump
# on real code, the C library and libm (gcc's output and glibc's hand-written
# SSE, AVX2 and AVX-512 string functions): every instruction objdump decodes
# must decode to objdump's length or be refused, have a memory operand exactly
# when objdump's operands show one (lea, nop, prefetch and clflush aside), and
# the displacement objdump prints (EVEX's disp8 scaled by N). What is refused
# is listed by mnemonic, and not a failure (FMA4 and XOP in libm, for one).
set -euo pipefail
oracle=${1:?usage: exact-insn-objdump.sh ORACLE}
rc=0
for lib in libc.so.6 libm.so.6; do
	path=$(gcc -print-file-name=$lib)
	[ -e "$path" ] || { echo "exact-insn-objdump: no $lib" >&2; exit 1; }
	objdump -d --insn-width=16 "$path" | "$oracle" objdump $lib || rc=1
done
exit $rc
