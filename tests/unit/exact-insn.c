// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for exact mode's instruction decoder (kernel/exact/exact_insn.c),
 * built here with tests/unit/exact-insn-shim.h: length, kind, access, bytes
 * accessed and flags of each form in a table (bytes from GNU as, expectations
 * from the Intel SDM), the effective address and the accesses an instruction
 * makes from given registers, -EINVAL for what it does not decode, and never a
 * byte read past `avail` (each case is decoded from a heap copy of exactly
 * avail bytes, under ASan). tests/unit/exact-insn-lackey.sh checks the same
 * decoder against valgrind's lackey on executed instructions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "exact/exact_insn.h"

struct insn_case {
	const char *asm_text;
	const char *code;
	unsigned int len;
	u8 kind;
	u8 access;
	u16 size;
	u16 flags;
	u8 string_op;
};

static const struct insn_case insn_cases[] = {
	{ "mov (%rbx),%al", "\x8a\x03", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "mov %rax,0x8(%rbx)", "\x48\x89\x43\x08", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "mov %ax,(%rbx)", "\x66\x89\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 2, 0, 0 },
	{ "mov %r9d,-0x80(%r13,%r14,2)", "\x47\x89\x4c\x75\x80", 5,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "movb $1,(%rbx)", "\xc6\x03\x01", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 1, 0, 0 },
	{ "movw $0x1234,0x2(%rbx)", "\x66\xc7\x43\x02\x34\x12", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 2, 0, 0 },
	{ "movl $0x12345678,(%rbx)", "\xc7\x03\x78\x56\x34\x12", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "movq $-1,0x12345678(%rbx,%rcx,8)", "\x48\xc7\x84\xcb\x78\x56\x34\x12\xff\xff\xff\xff", 12,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "mov %ds,(%rbx)", "\x8c\x1b", 2,
	  VMT_INSN_MODRM, VMT_INSN_W, 2, 0, 0 },
	{ "mov (%rbx),%es", "\x8e\x03", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "movabs 0x1122334455667788,%al", "\xa0\x88\x77\x66\x55\x44\x33\x22\x11", 9,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "movabs %rax,0x1122334455667788", "\x48\xa3\x88\x77\x66\x55\x44\x33\x22\x11", 10,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "movabs %ax,0x1122334455667788", "\x66\xa3\x88\x77\x66\x55\x44\x33\x22\x11", 10,
	  VMT_INSN_MODRM, VMT_INSN_W, 2, 0, 0 },
	{ "addr32 mov 0x11223344,%eax", "\x67\xa1\x44\x33\x22\x11", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "movabs $0x1122334455667788,%rax", "\x48\xb8\x88\x77\x66\x55\x44\x33\x22\x11", 10,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "mov $0x1234,%ax", "\x66\xb8\x34\x12", 4,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "mov $0x12,%r9b", "\x41\xb1\x12", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "add %rax,(%rbx)", "\x48\x01\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, 0, 0 },
	{ "add (%rbx),%rax", "\x48\x03\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "add %al,(%rbx)", "\x00\x03", 2,
	  VMT_INSN_MODRM, VMT_INSN_RW, 1, 0, 0 },
	{ "sub (%rbx),%cl", "\x2a\x0b", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "addb $1,(%rbx)", "\x80\x03\x01", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 1, 0, 0 },
	{ "addl $1000,(%rbx)", "\x81\x03\xe8\x03\x00\x00", 6,
	  VMT_INSN_MODRM, VMT_INSN_RW, 4, 0, 0 },
	{ "addw $1000,(%rbx)", "\x66\x81\x03\xe8\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_RW, 2, 0, 0 },
	{ "addq $1,(%rbx)", "\x48\x83\x03\x01", 4,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, 0, 0 },
	{ "orq $0x12345678,0x10(%rbx)", "\x48\x81\x4b\x10\x78\x56\x34\x12", 8,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, 0, 0 },
	{ "cmp %rax,(%rbx)", "\x48\x39\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "cmpl $5,(%rbx)", "\x83\x3b\x05", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "cmpw $500,(%rbx)", "\x66\x81\x3b\xf4\x01", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "test %eax,(%rbx)", "\x85\x03", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "testw $0x100,(%rbx)", "\x66\xf7\x03\x00\x01", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "testl $0x100,(%rbx)", "\xf7\x03\x00\x01\x00\x00", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "testb $1,(%rbx)", "\xf6\x03\x01", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "negl (%rbx)", "\xf7\x1b", 2,
	  VMT_INSN_MODRM, VMT_INSN_RW, 4, 0, 0 },
	{ "notb (%rbx)", "\xf6\x13", 2,
	  VMT_INSN_MODRM, VMT_INSN_RW, 1, 0, 0 },
	{ "mull (%rbx)", "\xf7\x23", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "divq (%rbx)", "\x48\xf7\x33", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "incw (%rbx)", "\x66\xff\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 2, 0, 0 },
	{ "decb (%rbx)", "\xfe\x0b", 2,
	  VMT_INSN_MODRM, VMT_INSN_RW, 1, 0, 0 },
	{ "shll $3,(%rbx)", "\xc1\x23\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 4, 0, 0 },
	{ "shrq (%rbx)", "\x48\xd1\x2b", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, 0, 0 },
	{ "sarb %cl,(%rbx)", "\xd2\x3b", 2,
	  VMT_INSN_MODRM, VMT_INSN_RW, 1, 0, 0 },
	{ "imul (%rbx),%rax", "\x48\x0f\xaf\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "imul $1000,(%rbx),%eax", "\x69\x03\xe8\x03\x00\x00", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "imul $3,(%rbx),%ax", "\x66\x6b\x03\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "imul $1000,(%rbx),%ax", "\x66\x69\x03\xe8\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "shld $3,%rax,(%rbx)", "\x48\x0f\xa4\x03\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, 0, 0 },
	{ "shrd %cl,%eax,(%rbx)", "\x0f\xad\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 4, 0, 0 },
	{ "lock addl $1,(%rbx)", "\xf0\x83\x03\x01", 4,
	  VMT_INSN_MODRM, VMT_INSN_RW, 4, VMT_INSN_LOCK, 0 },
	{ "lock xadd %rax,(%rbx)", "\xf0\x48\x0f\xc1\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, VMT_INSN_LOCK, 0 },
	{ "xadd %eax,(%rbx)", "\x0f\xc1\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 4, 0, 0 },
	{ "lock cmpxchg %ecx,(%rbx)", "\xf0\x0f\xb1\x0b", 4,
	  VMT_INSN_MODRM, VMT_INSN_RW, 4, VMT_INSN_LOCK, 0 },
	{ "cmpxchg %cl,(%rbx)", "\x0f\xb0\x0b", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 1, 0, 0 },
	{ "xchg %rax,(%rbx)", "\x48\x87\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, VMT_INSN_LOCK, 0 },
	{ "xchg %cl,(%rbx)", "\x86\x0b", 2,
	  VMT_INSN_MODRM, VMT_INSN_RW, 1, VMT_INSN_LOCK, 0 },
	{ "xchg %rax,%rbx", "\x48\x93", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "lock incq (%rbx)", "\xf0\x48\xff\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, VMT_INSN_LOCK, 0 },
	{ "lock decw (%rbx)", "\x66\xf0\xff\x0b", 4,
	  VMT_INSN_MODRM, VMT_INSN_RW, 2, VMT_INSN_LOCK, 0 },
	{ "lock orb $1,(%rbx)", "\xf0\x80\x0b\x01", 4,
	  VMT_INSN_MODRM, VMT_INSN_RW, 1, VMT_INSN_LOCK, 0 },
	{ "lock and %eax,(%rbx)", "\xf0\x21\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 4, VMT_INSN_LOCK, 0 },
	{ "lock btsq $5,(%rbx)", "\xf0\x48\x0f\xba\x2b\x05", 6,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, VMT_INSN_LOCK, 0 },
	{ "lock bts %rax,(%rbx)", "\xf0\x48\x0f\xab\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, VMT_INSN_LOCK|VMT_INSN_BITOFF, 0 },
	{ "lock negl (%rbx)", "\xf0\xf7\x1b", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 4, VMT_INSN_LOCK, 0 },
	{ "cmpxchg8b (%rbx)", "\x0f\xc7\x0b", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, 0, 0 },
	{ "lock cmpxchg8b (%rbx)", "\xf0\x0f\xc7\x0b", 4,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, VMT_INSN_LOCK, 0 },
	{ "cmpxchg16b (%rbx)", "\x48\x0f\xc7\x0b", 4,
	  VMT_INSN_MODRM, VMT_INSN_RW, 16, 0, 0 },
	{ "lock cmpxchg16b (%rbx)", "\xf0\x48\x0f\xc7\x0b", 5,
	  VMT_INSN_MODRM, VMT_INSN_RW, 16, VMT_INSN_LOCK, 0 },
	{ "movzbl (%rbx),%eax", "\x0f\xb6\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "movzwl (%rbx),%eax", "\x0f\xb7\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "movsbq (%rbx),%rax", "\x48\x0f\xbe\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "movswl (%rbx),%eax", "\x0f\xbf\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "movslq (%rbx),%rax", "\x48\x63\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "cmove (%rbx),%rax", "\x48\x0f\x44\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "cmovne (%rbx),%ax", "\x66\x0f\x45\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "sete (%rbx)", "\x0f\x94\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 1, 0, 0 },
	{ "sete %al", "\x0f\x94\xc0", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "bt %rcx,(%rbx)", "\x48\x0f\xa3\x0b", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, VMT_INSN_BITOFF, 0 },
	{ "btw %cx,(%rbx)", "\x66\x0f\xa3\x0b", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, VMT_INSN_BITOFF, 0 },
	{ "btl $3,(%rbx)", "\x0f\xba\x23\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "btrw $3,(%rbx)", "\x66\x0f\xba\x33\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_RW, 2, 0, 0 },
	{ "btcq $63,(%rbx)", "\x48\x0f\xba\x3b\x3f", 5,
	  VMT_INSN_MODRM, VMT_INSN_RW, 8, 0, 0 },
	{ "btr %ecx,(%rbx)", "\x0f\xb3\x0b", 3,
	  VMT_INSN_MODRM, VMT_INSN_RW, 4, VMT_INSN_BITOFF, 0 },
	{ "popcnt (%rbx),%rax", "\xf3\x48\x0f\xb8\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "lzcnt (%rbx),%eax", "\xf3\x0f\xbd\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "tzcnt (%rbx),%ax", "\x66\xf3\x0f\xbc\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "bsf (%rbx),%rax", "\x48\x0f\xbc\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "movbe (%rbx),%eax", "\x0f\x38\xf0\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "movbe %ax,(%rbx)", "\x66\x0f\x38\xf1\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_W, 2, 0, 0 },
	{ "crc32b (%rbx),%eax", "\xf2\x0f\x38\xf0\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "crc32w (%rbx),%eax", "\x66\xf2\x0f\x38\xf1\x03", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "crc32q (%rbx),%rax", "\xf2\x48\x0f\x38\xf1\x03", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "adcx (%rbx),%rax", "\x66\x48\x0f\x38\xf6\x03", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "push %rax", "\x50", 1,
	  VMT_INSN_PUSH, VMT_INSN_W, 8, 0, 0 },
	{ "push %r12", "\x41\x54", 2,
	  VMT_INSN_PUSH, VMT_INSN_W, 8, 0, 0 },
	{ "pushw %ax", "\x66\x50", 2,
	  VMT_INSN_PUSH, VMT_INSN_W, 2, 0, 0 },
	{ "pop %r12", "\x41\x5c", 2,
	  VMT_INSN_POP, VMT_INSN_R, 8, 0, 0 },
	{ "popw %ax", "\x66\x58", 2,
	  VMT_INSN_POP, VMT_INSN_R, 2, 0, 0 },
	{ "push $5", "\x6a\x05", 2,
	  VMT_INSN_PUSH, VMT_INSN_W, 8, 0, 0 },
	{ "push $1000", "\x68\xe8\x03\x00\x00", 5,
	  VMT_INSN_PUSH, VMT_INSN_W, 8, 0, 0 },
	{ "pushw $1000", "\x66\x68\xe8\x03", 4,
	  VMT_INSN_PUSH, VMT_INSN_W, 2, 0, 0 },
	{ "pushq (%rbx)", "\xff\x33", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, VMT_INSN_STACK_PUSH, 0 },
	{ "pushw (%rbx)", "\x66\xff\x33", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, VMT_INSN_STACK_PUSH, 0 },
	{ "popq (%rbx)", "\x8f\x03", 2,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, VMT_INSN_STACK_POP, 0 },
	{ "pushf", "\x9c", 1,
	  VMT_INSN_PUSH, VMT_INSN_W, 8, VMT_INSN_PUSHF, 0 },
	{ "popf", "\x9d", 1,
	  VMT_INSN_POP, VMT_INSN_R, 8, VMT_INSN_POPF, 0 },
	{ "pushfw", "\x66\x9c", 2,
	  VMT_INSN_PUSH, VMT_INSN_W, 2, VMT_INSN_PUSHF, 0 },
	{ "push %fs", "\x0f\xa0", 2,
	  VMT_INSN_PUSH, VMT_INSN_W, 8, 0, 0 },
	{ "pop %gs", "\x0f\xa9", 2,
	  VMT_INSN_POP, VMT_INSN_R, 8, 0, 0 },
	{ ".byte 0xe8,0,0,0,0", "\xe8\x00\x00\x00\x00", 5,
	  VMT_INSN_PUSH, VMT_INSN_W, 8, 0, 0 },
	{ "call *(%rbx)", "\xff\x13", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, VMT_INSN_STACK_PUSH, 0 },
	{ "call *%rax", "\xff\xd0", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "jmp *(%rbx)", "\xff\x23", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "ret", "\xc3", 1,
	  VMT_INSN_POP, VMT_INSN_R, 8, 0, 0 },
	{ "ret $16", "\xc2\x10\x00", 3,
	  VMT_INSN_POP, VMT_INSN_R, 8, 0, 0 },
	{ "enter $16,$0", "\xc8\x10\x00\x00", 4,
	  VMT_INSN_PUSH, VMT_INSN_W, 8, 0, 0 },
	{ "leave", "\xc9", 1,
	  VMT_INSN_POP, VMT_INSN_R, 8, VMT_INSN_LEAVE, 0 },
	{ "movsb", "\xa4", 1,
	  VMT_INSN_STRING, VMT_INSN_RW, 1, 0, VMT_INSN_MOVS },
	{ "rep movsb", "\xf3\xa4", 2,
	  VMT_INSN_STRING, VMT_INSN_RW, 1, VMT_INSN_REP, VMT_INSN_MOVS },
	{ "movsw", "\x66\xa5", 2,
	  VMT_INSN_STRING, VMT_INSN_RW, 2, 0, VMT_INSN_MOVS },
	{ "rep movsq", "\xf3\x48\xa5", 3,
	  VMT_INSN_STRING, VMT_INSN_RW, 8, VMT_INSN_REP, VMT_INSN_MOVS },
	{ "movsl", "\xa5", 1,
	  VMT_INSN_STRING, VMT_INSN_RW, 4, 0, VMT_INSN_MOVS },
	{ "stosb", "\xaa", 1,
	  VMT_INSN_STRING, VMT_INSN_W, 1, 0, VMT_INSN_STOS },
	{ "rep stosl", "\xf3\xab", 2,
	  VMT_INSN_STRING, VMT_INSN_W, 4, VMT_INSN_REP, VMT_INSN_STOS },
	{ "rep stosq", "\xf3\x48\xab", 3,
	  VMT_INSN_STRING, VMT_INSN_W, 8, VMT_INSN_REP, VMT_INSN_STOS },
	{ "lodsb", "\xac", 1,
	  VMT_INSN_STRING, VMT_INSN_R, 1, 0, VMT_INSN_LODS },
	{ "lodsq", "\x48\xad", 2,
	  VMT_INSN_STRING, VMT_INSN_R, 8, 0, VMT_INSN_LODS },
	{ "cmpsb", "\xa6", 1,
	  VMT_INSN_STRING, VMT_INSN_R, 1, 0, VMT_INSN_CMPS },
	{ "repe cmpsw", "\x66\xf3\xa7", 3,
	  VMT_INSN_STRING, VMT_INSN_R, 2, VMT_INSN_REP, VMT_INSN_CMPS },
	{ "scasl", "\xaf", 1,
	  VMT_INSN_STRING, VMT_INSN_R, 4, 0, VMT_INSN_SCAS },
	{ "repne scasb", "\xf2\xae", 2,
	  VMT_INSN_STRING, VMT_INSN_R, 1, VMT_INSN_REPNE, VMT_INSN_SCAS },
	{ "fs movsb", "\x64\xa4", 2,
	  VMT_INSN_STRING, VMT_INSN_RW, 1, 0, VMT_INSN_MOVS },
	{ "addr32 movsb", "\x67\xa4", 2,
	  VMT_INSN_STRING, VMT_INSN_RW, 1, 0, VMT_INSN_MOVS },
	{ "movups (%rbx),%xmm0", "\x0f\x10\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "movups %xmm0,(%rbx)", "\x0f\x11\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 16, 0, 0 },
	{ "movupd %xmm8,(%r8)", "\x66\x45\x0f\x11\x00", 5,
	  VMT_INSN_MODRM, VMT_INSN_W, 16, 0, 0 },
	{ "movss (%rbx),%xmm0", "\xf3\x0f\x10\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "movss %xmm0,(%rbx)", "\xf3\x0f\x11\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "movsd (%rbx),%xmm0", "\xf2\x0f\x10\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "movsd %xmm15,(%rbx)", "\xf2\x44\x0f\x11\x3b", 5,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "movaps (%rbx),%xmm0", "\x0f\x28\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "movapd %xmm0,(%rbx)", "\x66\x0f\x29\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 16, 0, 0 },
	{ "movdqa (%rbx),%xmm0", "\x66\x0f\x6f\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "movdqu %xmm0,(%rbx)", "\xf3\x0f\x7f\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 16, 0, 0 },
	{ "movdqu (%rbx),%xmm0", "\xf3\x0f\x6f\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "movq (%rbx),%xmm0", "\xf3\x0f\x7e\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "movq %xmm0,(%rbx)", "\x66\x0f\xd6\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "movd (%rbx),%xmm0", "\x66\x0f\x6e\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "movd %xmm0,(%rbx)", "\x66\x0f\x7e\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ ".byte 0x66,0x48,0x0f,0x6e,0x03", "\x66\x48\x0f\x6e\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ ".byte 0x66,0x48,0x0f,0x7e,0x03", "\x66\x48\x0f\x7e\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "movnti %rax,(%rbx)", "\x48\x0f\xc3\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "movnti %eax,(%rbx)", "\x0f\xc3\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "movntdq %xmm0,(%rbx)", "\x66\x0f\xe7\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 16, 0, 0 },
	{ "movntps %xmm0,(%rbx)", "\x0f\x2b\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 16, 0, 0 },
	{ "movntq %mm0,(%rbx)", "\x0f\xe7\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "movlps (%rbx),%xmm0", "\x0f\x12\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "movlps %xmm0,(%rbx)", "\x0f\x13\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "movhpd %xmm0,(%rbx)", "\x66\x0f\x17\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "movhps (%rbx),%xmm0", "\x0f\x16\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "movddup (%rbx),%xmm0", "\xf2\x0f\x12\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "movshdup (%rbx),%xmm0", "\xf3\x0f\x16\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "addps (%rbx),%xmm0", "\x0f\x58\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "addss (%rbx),%xmm0", "\xf3\x0f\x58\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "addsd (%rbx),%xmm0", "\xf2\x0f\x58\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "mulpd (%rbx),%xmm0", "\x66\x0f\x59\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "sqrtsd (%rbx),%xmm0", "\xf2\x0f\x51\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "xorps (%rbx),%xmm0", "\x0f\x57\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "andpd (%rbx),%xmm0", "\x66\x0f\x54\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "cvtps2pd (%rbx),%xmm0", "\x0f\x5a\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "cvtpd2ps (%rbx),%xmm0", "\x66\x0f\x5a\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "cvtss2sd (%rbx),%xmm0", "\xf3\x0f\x5a\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "cvtdq2pd (%rbx),%xmm0", "\xf3\x0f\xe6\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "cvttpd2dq (%rbx),%xmm0", "\x66\x0f\xe6\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "cvtsi2sdq (%rbx),%xmm0", "\xf2\x48\x0f\x2a\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "cvtsi2sdl (%rbx),%xmm0", "\xf2\x0f\x2a\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "cvttsd2si (%rbx),%rax", "\xf2\x48\x0f\x2c\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "cvtss2si (%rbx),%eax", "\xf3\x0f\x2d\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "ucomiss (%rbx),%xmm0", "\x0f\x2e\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "ucomisd (%rbx),%xmm0", "\x66\x0f\x2e\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "cmpltps (%rbx),%xmm0", "\x0f\xc2\x03\x01", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "cmpeqsd (%rbx),%xmm0", "\xf2\x0f\xc2\x03\x00", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "pxor (%rbx),%xmm0", "\x66\x0f\xef\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "pxor (%rbx),%mm0", "\x0f\xef\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "paddd (%rbx),%xmm0", "\x66\x0f\xfe\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "pshufd $1,(%rbx),%xmm0", "\x66\x0f\x70\x03\x01", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "pshufw $1,(%rbx),%mm0", "\x0f\x70\x03\x01", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "pinsrw $1,(%rbx),%xmm0", "\x66\x0f\xc4\x03\x01", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "pinsrb $1,(%rbx),%xmm0", "\x66\x0f\x3a\x20\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "pinsrq $1,(%rbx),%xmm0", "\x66\x48\x0f\x3a\x22\x03\x01", 7,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "pextrd $1,%xmm0,(%rbx)", "\x66\x0f\x3a\x16\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "pextrw $1,%xmm0,(%rbx)", "\x66\x0f\x3a\x15\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 2, 0, 0 },
	{ "extractps $1,%xmm0,(%rbx)", "\x66\x0f\x3a\x17\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "pmovzxbw (%rbx),%xmm0", "\x66\x0f\x38\x30\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "pmovzxbq (%rbx),%xmm0", "\x66\x0f\x38\x32\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "pmovsxbd (%rbx),%xmm0", "\x66\x0f\x38\x21\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "pmovsxdq (%rbx),%xmm0", "\x66\x0f\x38\x25\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "roundsd $1,(%rbx),%xmm0", "\x66\x0f\x3a\x0b\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "roundss $1,(%rbx),%xmm0", "\x66\x0f\x3a\x0a\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "insertps $1,(%rbx),%xmm0", "\x66\x0f\x3a\x21\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "palignr $3,(%rbx),%xmm0", "\x66\x0f\x3a\x0f\x03\x03", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "palignr $3,(%rbx),%mm0", "\x0f\x3a\x0f\x03\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "pshufb (%rbx),%xmm0", "\x66\x0f\x38\x00\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "ptest (%rbx),%xmm0", "\x66\x0f\x38\x17\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "pcmpestri $1,(%rbx),%xmm0", "\x66\x0f\x3a\x61\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "aesenc (%rbx),%xmm0", "\x66\x0f\x38\xdc\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "sha256rnds2 (%rbx),%xmm1", "\x0f\x38\xcb\x0b", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "lddqu (%rbx),%xmm0", "\xf2\x0f\xf0\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "stmxcsr (%rbx)", "\x0f\xae\x1b", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "ldmxcsr (%rbx)", "\x0f\xae\x13", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "fxsave (%rbx)", "\x0f\xae\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 512, 0, 0 },
	{ "fxrstor64 (%rbx)", "\x48\x0f\xae\x0b", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 512, 0, 0 },
	{ "movq (%rbx),%mm0", "\x0f\x6f\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "movq %mm0,(%rbx)", "\x0f\x7f\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "punpcklbw (%rbx),%mm0", "\x0f\x60\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "punpcklbw (%rbx),%xmm0", "\x66\x0f\x60\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vmovdqu (%rbx),%ymm0", "\xc5\xfe\x6f\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vmovdqu %ymm0,(%rbx)", "\xc5\xfe\x7f\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 32, 0, 0 },
	{ "vmovdqu (%r12,%r13,4),%ymm9", "\xc4\x01\x7e\x6f\x0c\xac", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vmovdqa (%rbx),%xmm0", "\xc5\xf9\x6f\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vmovdqa %ymm15,(%r15)", "\xc4\x41\x7d\x7f\x3f", 5,
	  VMT_INSN_MODRM, VMT_INSN_W, 32, 0, 0 },
	{ "vmovups %ymm0,(%rbx)", "\xc5\xfc\x11\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 32, 0, 0 },
	{ "vmovaps (%rbx),%ymm0", "\xc5\xfc\x28\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vmovupd (%rbx),%xmm0", "\xc5\xf9\x10\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vmovss (%rbx),%xmm0", "\xc5\xfa\x10\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vmovsd %xmm0,(%rbx)", "\xc5\xfb\x11\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "vmovd (%rbx),%xmm0", "\xc5\xf9\x6e\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vmovq (%rbx),%xmm0", "\xc5\xfa\x7e\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vmovq %xmm0,(%rbx)", "\xc5\xf9\xd6\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "vmovd %xmm0,(%rbx)", "\xc5\xf9\x7e\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "vmovhps (%rbx),%xmm0,%xmm0", "\xc5\xf8\x16\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vmovntdq %ymm0,(%rbx)", "\xc5\xfd\xe7\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 32, 0, 0 },
	{ "vlddqu (%rbx),%ymm0", "\xc5\xff\xf0\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vmovddup (%rbx),%ymm0", "\xc5\xff\x12\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vmovddup (%rbx),%xmm0", "\xc5\xfb\x12\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vpbroadcastb (%rbx),%ymm0", "\xc4\xe2\x7d\x78\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "vpbroadcastw (%rbx),%xmm0", "\xc4\xe2\x79\x79\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "vpbroadcastd (%rbx),%ymm0", "\xc4\xe2\x7d\x58\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vpbroadcastq (%rbx),%ymm0", "\xc4\xe2\x7d\x59\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vbroadcastss (%rbx),%ymm0", "\xc4\xe2\x7d\x18\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vbroadcastsd (%rbx),%ymm0", "\xc4\xe2\x7d\x19\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vbroadcasti128 (%rbx),%ymm0", "\xc4\xe2\x7d\x5a\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vbroadcastf128 (%rbx),%ymm0", "\xc4\xe2\x7d\x1a\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vpaddd (%rbx),%ymm0,%ymm0", "\xc5\xfd\xfe\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vpaddb (%rbx),%xmm0,%xmm0", "\xc5\xf9\xfc\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vaddps (%rbx),%ymm0,%ymm0", "\xc5\xfc\x58\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vaddsd (%rbx),%xmm0,%xmm0", "\xc5\xfb\x58\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vmulss (%rbx),%xmm0,%xmm0", "\xc5\xfa\x59\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vxorps (%rbx),%ymm0,%ymm0", "\xc5\xfc\x57\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vpshufd $1,(%rbx),%ymm0", "\xc5\xfd\x70\x03\x01", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vfmadd231ps (%rbx),%ymm1,%ymm0", "\xc4\xe2\x75\xb8\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vfmadd231sd (%rbx),%xmm1,%xmm0", "\xc4\xe2\xf1\xb9\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vfmadd213ss (%rbx),%xmm1,%xmm0", "\xc4\xe2\x71\xa9\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vfnmadd132pd (%rbx),%xmm1,%xmm0", "\xc4\xe2\xf1\x9c\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vpmovzxbd (%rbx),%ymm0", "\xc4\xe2\x7d\x31\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vpmovzxbq (%rbx),%ymm0", "\xc4\xe2\x7d\x32\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vpmovsxwd (%rbx),%xmm0", "\xc4\xe2\x79\x23\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vcvtps2pd (%rbx),%ymm0", "\xc5\xfc\x5a\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vcvtdq2pd (%rbx),%ymm0", "\xc5\xfe\xe6\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vcvtph2ps (%rbx),%ymm0", "\xc4\xe2\x7d\x13\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vcvtps2ph $0,%ymm0,(%rbx)", "\xc4\xe3\x7d\x1d\x03\x00", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 16, 0, 0 },
	{ "vinserti128 $1,(%rbx),%ymm0,%ymm0", "\xc4\xe3\x7d\x38\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vextracti128 $1,%ymm0,(%rbx)", "\xc4\xe3\x7d\x39\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 16, 0, 0 },
	{ "vperm2i128 $1,(%rbx),%ymm0,%ymm0", "\xc4\xe3\x7d\x46\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vpermq $1,(%rbx),%ymm0", "\xc4\xe3\xfd\x00\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vpsllw (%rbx),%ymm0,%ymm0", "\xc5\xfd\xf1\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vpextrq $1,%xmm0,(%rbx)", "\xc4\xe3\xf9\x16\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "vpinsrq $1,(%rbx),%xmm0,%xmm0", "\xc4\xe3\xf9\x22\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vpinsrb $1,(%rbx),%xmm0,%xmm0", "\xc4\xe3\x79\x20\x03\x01", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "vptest (%rbx),%ymm0", "\xc4\xe2\x7d\x17\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vblendvps %ymm1,(%rbx),%ymm0,%ymm0", "\xc4\xe3\x7d\x4a\x03\x10", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vcvtsi2sdq (%rbx),%xmm0,%xmm0", "\xc4\xe1\xfb\x2a\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vucomiss (%rbx),%xmm0", "\xc5\xf8\x2e\x03", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vstmxcsr (%rbx)", "\xc5\xf8\xae\x1b", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "andn (%rbx),%eax,%edx", "\xc4\xe2\x78\xf2\x13", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "shlx %rax,(%rbx),%rdx", "\xc4\xe2\xf9\xf7\x13", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "rorx $3,(%rbx),%rdx", "\xc4\xe3\xfb\xf0\x13\x03", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "mulx (%rbx),%rax,%rdx", "\xc4\xe2\xfb\xf6\x13", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "bextr %eax,(%rbx),%edx", "\xc4\xe2\x78\xf7\x13", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vzeroupper", "\xc5\xf8\x77", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "vpaddd %ymm1,%ymm0,%ymm0", "\xc5\xfd\xfe\xc1", 4,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "flds (%rbx)", "\xd9\x03", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "fldl (%rbx)", "\xdd\x03", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "fldt (%rbx)", "\xdb\x2b", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 10, 0, 0 },
	{ "fstps (%rbx)", "\xd9\x1b", 2,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "fstpl (%rbx)", "\xdd\x1b", 2,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "fstpt (%rbx)", "\xdb\x3b", 2,
	  VMT_INSN_MODRM, VMT_INSN_W, 10, 0, 0 },
	{ "fildll (%rbx)", "\xdf\x2b", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "filds (%rbx)", "\xdf\x03", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "fistpll (%rbx)", "\xdf\x3b", 2,
	  VMT_INSN_MODRM, VMT_INSN_W, 8, 0, 0 },
	{ "fistl (%rbx)", "\xdb\x13", 2,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "fisttpl (%rbx)", "\xdb\x0b", 2,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "fnstcw (%rbx)", "\xd9\x3b", 2,
	  VMT_INSN_MODRM, VMT_INSN_W, 2, 0, 0 },
	{ "fldcw (%rbx)", "\xd9\x2b", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "fnstsw (%rbx)", "\xdd\x3b", 2,
	  VMT_INSN_MODRM, VMT_INSN_W, 2, 0, 0 },
	{ "fiaddl (%rbx)", "\xda\x03", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "fmull (%rbx)", "\xdc\x0b", 2,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "fadd %st(1),%st", "\xd8\xc1", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "nop", "\x90", 1,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "nopl 0x0(%rax,%rax,1)", "\x0f\x1f\x04\x00", 4,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "nopw %cs:0x0(%rax,%rax,1)", "\x2e\x66\x0f\x1f\x04\x00", 6,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "pause", "\xf3\x90", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "lea 0x10(%rbx,%rcx,4),%rdx", "\x48\x8d\x54\x8b\x10", 5,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "endbr64", "\xf3\x0f\x1e\xfa", 4,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "syscall", "\x0f\x05", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ ".byte 0xe9,0,0,0,0", "\xe9\x00\x00\x00\x00", 5,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ ".byte 0x75,0", "\x75\x00", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ ".byte 0x0f,0x85,0,0,0,0", "\x0f\x85\x00\x00\x00\x00", 6,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "mov %rax,%rbx", "\x48\x89\xc3", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "add %eax,%ebx", "\x01\xc3", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "rdtsc", "\x0f\x31", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "cpuid", "\x0f\xa2", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "prefetcht0 (%rbx)", "\x0f\x18\x0b", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "clflush (%rbx)", "\x0f\xae\x3b", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "mfence", "\x0f\xae\xf0", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "int $0x80", "\xcd\x80", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "int3", "\xcc", 1,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "cltq", "\x48\x98", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "bswap %eax", "\x0f\xc8", 2,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "rdrand %eax", "\x0f\xc7\xf0", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "xbegin .+6", "\xc7\xf8\x00\x00\x00\x00", 6,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "movsbl %al,%eax", "\x0f\xbe\xc0", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "movaps %xmm1,%xmm0", "\x0f\x28\xc1", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "cmove %rbx,%rax", "\x48\x0f\x44\xc3", 4,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "mov (%rbx),%rax", "\x48\x8b\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "mov 0x2(%rbx),%ax", "\x66\x8b\x43\x02", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "mov (%rbx),%r10d", "\x44\x8b\x13", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "mov %fs:0x28,%rax", "\x64\x48\x8b\x04\x25\x28\x00\x00\x00", 9,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "mov (%ebx),%eax", "\x67\x8b\x03", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vmovdqu64 (%rsi),%zmm16", "\x62\xe1\xfe\x48\x6f\x06", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 64, 0, 0 },
	{ "vmovdqu64 0x40(%rsi),%zmm16", "\x62\xe1\xfe\x48\x6f\x46\x01", 7,
	  VMT_INSN_MODRM, VMT_INSN_R, 64, 0, 0 },
	{ "vmovdqu8 %ymm16,(%rdi){%k1}", "\x62\xe1\x7f\x29\x7f\x07", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 32, VMT_INSN_MASKED, 0 },
	{ "vmovdqu16 (%rdi),%zmm1{%k2}{z}", "\x62\xf1\xff\xca\x6f\x0f", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 64, VMT_INSN_MASKED, 0 },
	{ "vmovdqa64 %xmm16,(%rdi)", "\x62\xe1\xfd\x08\x7f\x07", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 16, 0, 0 },
	{ "vmovdqa32 (%rdi),%ymm20", "\x62\xe1\x7d\x28\x6f\x27", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vmovups %zmm0,(%rdi)", "\x62\xf1\x7c\x48\x11\x07", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 64, 0, 0 },
	{ "vmovntdq %zmm0,(%rdi)", "\x62\xf1\x7d\x48\xe7\x07", 6,
	  VMT_INSN_MODRM, VMT_INSN_W, 64, 0, 0 },
	{ "vpcmpeqb (%rdi),%zmm16,%k1", "\x62\xf1\x7d\x40\x74\x0f", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 64, 0, 0 },
	{ "vpcmpeqd 0x4(%rdi){1to16},%zmm16,%k1", "\x62\xf1\x7d\x50\x76\x4f\x01", 7,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vpxorq (%rdi),%zmm1,%zmm2", "\x62\xf1\xf5\x48\xef\x17", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 64, 0, 0 },
	{ "vpminub (%rdi),%ymm16,%ymm17", "\x62\xe1\x7d\x20\xda\x0f", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vptestmb (%rdi),%zmm16,%k1", "\x62\xf2\x7d\x40\x26\x0f", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 64, 0, 0 },
	{ "vptestnmb (%rdi),%ymm16,%k1", "\x62\xf2\x7e\x20\x26\x0f", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vpcmpub $1,(%rdi),%zmm16,%k1", "\x62\xf3\x7d\x40\x3e\x0f\x01", 7,
	  VMT_INSN_MODRM, VMT_INSN_R, 64, 0, 0 },
	{ "vpternlogd $0xff,(%rdi),%zmm1,%zmm2", "\x62\xf3\x75\x48\x25\x17\xff", 7,
	  VMT_INSN_MODRM, VMT_INSN_R, 64, 0, 0 },
	{ "vmovss (%rdi),%xmm16", "\x62\xe1\x7e\x08\x10\x07", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vmovq (%rdi),%xmm16", "\x62\xe1\xfd\x08\x6e\x07", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vpbroadcastb (%rdi),%zmm16", "\x62\xe2\x7d\x48\x78\x07", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 1, 0, 0 },
	{ "vbroadcasti64x4 (%rdi),%zmm16", "\x62\xe2\xfd\x48\x5b\x07", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vinserti64x4 $1,(%rdi),%zmm1,%zmm2", "\x62\xf3\xf5\x48\x3a\x17\x01", 7,
	  VMT_INSN_MODRM, VMT_INSN_R, 32, 0, 0 },
	{ "vextracti64x4 $1,%zmm1,(%rdi)", "\x62\xf3\xfd\x48\x3b\x0f\x01", 7,
	  VMT_INSN_MODRM, VMT_INSN_W, 32, 0, 0 },
	{ "vextracti32x4 $1,%zmm1,(%rdi)", "\x62\xf3\x7d\x48\x39\x0f\x01", 7,
	  VMT_INSN_MODRM, VMT_INSN_W, 16, 0, 0 },
	{ "vpmovzxbd (%rdi),%zmm16", "\x62\xe2\x7d\x48\x31\x07", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 16, 0, 0 },
	{ "vaddps (%rdi){1to16},%zmm1,%zmm2", "\x62\xf1\x74\x58\x58\x17", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 4, 0, 0 },
	{ "vaddpd (%rdi){1to8},%zmm1,%zmm2", "\x62\xf1\xf5\x58\x58\x17", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "vfmadd231ps (%rdi),%zmm1,%zmm2", "\x62\xf2\x75\x48\xb8\x17", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 64, 0, 0 },
	{ "vpermt2b (%rdi),%zmm1,%zmm2", "\x62\xf2\x75\x48\x7d\x17", 6,
	  VMT_INSN_MODRM, VMT_INSN_R, 64, 0, 0 },
	{ "kmovq (%rdi),%k1", "\xc4\xe1\xf8\x90\x0f", 5,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, 0, 0 },
	{ "kmovd %k1,(%rdi)", "\xc4\xe1\xf9\x91\x0f", 5,
	  VMT_INSN_MODRM, VMT_INSN_W, 4, 0, 0 },
	{ "kmovw (%rdi),%k1", "\xc5\xf8\x90\x0f", 4,
	  VMT_INSN_MODRM, VMT_INSN_R, 2, 0, 0 },
	{ "kmovb %k1,(%rdi)", "\xc5\xf9\x91\x0f", 4,
	  VMT_INSN_MODRM, VMT_INSN_W, 1, 0, 0 },
	{ "kmovd %k1,%eax", "\xc5\xfb\x93\xc1", 4,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "kortestd %k1,%k2", "\xc4\xe1\xf9\x98\xd1", 5,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "kandw %k1,%k2,%k3", "\xc5\xec\x41\xd9", 4,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "vpbroadcastd %eax,%zmm16", "\x62\xe2\x7d\x48\x7c\xc0", 6,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "vpaddd %zmm1,%zmm2,%zmm3", "\x62\xf1\x6d\x48\xfe\xd9", 6,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "repz ret", "\xf3\xc3", 2,
	  VMT_INSN_POP, VMT_INSN_R, 8, 0, 0 },
	{ "notrack jmp *%rax", "\x3e\xff\xe0", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "notrack call *(%rax)", "\x3e\xff\x10", 3,
	  VMT_INSN_MODRM, VMT_INSN_R, 8, VMT_INSN_STACK_PUSH, 0 },
	{ "xabort $1", "\xc6\xf8\x01", 3,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "clwb (%rbx)", "\x66\x0f\xae\x33", 4,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "clflushopt (%rbx)", "\x66\x0f\xae\x3b", 4,
	  VMT_INSN_OTHER, 0, 0, 0, 0 },
	{ "lock cmpxchg %ax,(%rbx)", "\x66\xf0\x0f\xb1\x03", 5,
	  VMT_INSN_MODRM, VMT_INSN_RW, 2, VMT_INSN_LOCK, 0 },
};

/* Decodes from a heap copy of exactly avail bytes: ASan catches a read past it. */
static int decode_copy(const char *code, unsigned int avail, struct vmt_insn *insn)
{
	u8 *copy = malloc(avail ? avail : 1);
	int err;

	assert_non_null(copy);
	memcpy(copy, code, avail);
	err = vmt_insn_decode(copy, avail, insn);
	free(copy);
	return err;
}

static void check_case(const struct insn_case *c, const struct vmt_insn *insn)
{
	if (insn->len != c->len || insn->kind != c->kind || insn->access != c->access ||
	    insn->size != c->size || insn->flags != c->flags || insn->string_op != c->string_op) {
		fail_msg("%s: len %u kind %u access %u size %u flags %#x string_op %u, "
			 "want len %u kind %u access %u size %u flags %#x string_op %u",
			 c->asm_text, insn->len, insn->kind, insn->access, insn->size,
			 insn->flags, insn->string_op, c->len, c->kind, c->access, c->size,
			 c->flags, c->string_op);
	}
}

static void test_table(void **state)
{
	struct vmt_insn insn;
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(insn_cases) / sizeof(insn_cases[0]); i++) {
		const struct insn_case *c = &insn_cases[i];

		if (decode_copy(c->code, c->len, &insn))
			fail_msg("%s: -EINVAL", c->asm_text);
		check_case(c, &insn);
		/* bytes after the instruction change nothing */
		memset(buf, 0x0f, sizeof(buf));
		memcpy(buf, c->code, c->len);
		if (decode_copy(buf, sizeof(buf), &insn))
			fail_msg("%s: -EINVAL with bytes after it", c->asm_text);
		check_case(c, &insn);
	}
	printf("exact-insn: %zu forms decoded as the SDM says\n", i);
}

/* Every shorter prefix of an instruction is -EINVAL, and read within bounds. */
static void test_truncated(void **state)
{
	struct vmt_insn insn;
	unsigned int avail;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(insn_cases) / sizeof(insn_cases[0]); i++)
		for (avail = 0; avail < insn_cases[i].len; avail++)
			if (decode_copy(insn_cases[i].code, avail, &insn) != -EINVAL)
				fail_msg("%s: decoded from %u of %u bytes",
					 insn_cases[i].asm_text, avail, insn_cases[i].len);
}

static void test_undecodable(void **state)
{
	static const struct {
		const char *what, *code;
		unsigned int n;
	} bad[] = {
		{ "EVEX vpgatherdd (%rax,%zmm1,4),%zmm0{%k1}", "\x62\xf2\x7d\x49\x90\x04\x88", 7 },
		{ "EVEX vpcompressd %zmm0,(%rax){%k1}", "\x62\xf2\x7d\x49\x8b\x00", 6 },
		{ "EVEX map 5 (FP16) vaddph (%rax),%zmm1,%zmm0", "\x62\xf5\x74\x48\x58\x00", 6 },
		{ "EVEX with L'L 3", "\x62\xf1\xfe\x68\x6f\x03", 6 },
		{ "insb", "\x6c", 1 },
		{ "outsl", "\x6f", 1 },
		{ "iretq", "\x48\xcf", 2 },
		{ "lcall *(%rbx)", "\xff\x1b", 2 },
		{ "xlat", "\xd7", 1 },
		{ "vmaskmovps (%rbx),%ymm1,%ymm0", "\xc4\xe2\x75\x2c\x03", 5 },
		{ "vpgatherdd", "\xc4\xe2\x75\x90\x04\x8b", 6 },
		{ "xsave (%rbx)", "\x0f\xae\x23", 3 },
		{ "lock mov %eax,(%rbx)", "\xf0\x89\x03", 3 },
		{ "lock add %eax,%ebx", "\xf0\x01\xc3", 3 },
		{ "lock add (%rbx),%eax", "\xf0\x03\x03", 3 },
		{ "66 before VEX", "\x66\xc5\xfe\x6f\x03", 5 },
		{ "a lone prefix", "\x66", 1 },
		{ "push %es (invalid in 64-bit)", "\x06", 1 },
		{ "15 prefixes then nop", "\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66"
					  "\x66\x90", 16 },
		{ "XOP", "\x8f\xe9\x78\xe1\x03", 5 },
		{ "3DNow!", "\x0f\x0f\x03\x9e", 4 },
	};
	struct vmt_insn insn;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (decode_copy(bad[i].code, bad[i].n, &insn) != -EINVAL)
			fail_msg("%s: decoded (len %u)", bad[i].what, insn.len);
	/* 14 prefixes and a one-byte instruction make 15: still decoded */
	assert_int_equal(decode_copy("\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66\x66"
				     "\x90", 15, &insn), 0);
	assert_int_equal(insn.len, 15);
}

#define RBX_VALUE 0x7f0000001000ul

static void regs_init(unsigned long gpr[16])
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		gpr[i] = 0x100000ul * (i + 1);
	gpr[VMT_INSN_RSP] = 0x7ffe0000;
	gpr[3] = RBX_VALUE;
}

static u64 address_of(const char *code, unsigned int n, const unsigned long gpr[16])
{
	struct vmt_insn insn;

	assert_int_equal(vmt_insn_decode((const u8 *)code, n, &insn), 0);
	assert_int_equal(insn.len, n);
	assert_int_equal(insn.kind, VMT_INSN_MODRM);
	return vmt_insn_address(&insn, gpr, 0x400000 + n, 0x7f00aa000000, 0x7f00bb000000);
}

static void test_address(void **state)
{
	unsigned long gpr[16];

	(void)state;
	regs_init(gpr);
	gpr[1] = 2;			/* rcx */
	gpr[13] = (unsigned long)-2;	/* r13 */
	/* mov 0x12345678(%rbx,%rcx,8),%rax */
	assert_int_equal(address_of("\x48\x8b\x84\xcb\x78\x56\x34\x12", 8, gpr),
			 RBX_VALUE + 0x12345678 + 16);
	/* mov -0x8(%rbp),%eax: negative disp8 */
	assert_int_equal(address_of("\x8b\x45\xf8", 3, gpr), gpr[5] - 8);
	/* mov -0x80(%r12,%r13,4),%eax: REX.X and REX.B, negative index */
	assert_int_equal(address_of("\x43\x8b\x44\xac\x80", 5, gpr), gpr[12] - 8 - 0x80);
	/* mov 0x10(%rip),%rax: from the next instruction */
	assert_int_equal(address_of("\x48\x8b\x05\x10\x00\x00\x00", 7, gpr), 0x400007 + 0x10);
	/* mov 0x100(,%rcx,4),%eax: no base */
	assert_int_equal(address_of("\x8b\x04\x8d\x00\x01\x00\x00", 7, gpr), 0x100 + 8);
	/* mov 0x0(%r13),%eax: r13 as a base needs a displacement */
	assert_int_equal(address_of("\x41\x8b\x45\x00", 4, gpr), (u64)-2);
	/* mov (%r12),%eax: r12 as a base needs a SIB */
	assert_int_equal(address_of("\x41\x8b\x04\x24", 4, gpr), gpr[12]);
	/* mov (%rsp),%eax: SIB without index */
	assert_int_equal(address_of("\x8b\x04\x24", 3, gpr), gpr[VMT_INSN_RSP]);
	/* mov (%rbx,%r12,1),%eax: REX.X makes index 12, not "none" */
	assert_int_equal(address_of("\x42\x8b\x04\x23", 4, gpr), RBX_VALUE + gpr[12]);
	/* mov %fs:0x28,%rax */
	assert_int_equal(address_of("\x64\x48\x8b\x04\x25\x28\x00\x00\x00", 9, gpr),
			 0x7f00aa000028);
	/* mov %gs:(%rcx),%rax */
	assert_int_equal(address_of("\x65\x48\x8b\x01", 4, gpr), 0x7f00bb000002);
	/* movabs 0x1122334455667788,%al */
	assert_int_equal(address_of("\xa0\x88\x77\x66\x55\x44\x33\x22\x11", 9, gpr),
			 0x1122334455667788);
	/* addr32 mov 0x88776655,%eax: moffs32, zero-extended */
	assert_int_equal(address_of("\x67\xa1\x55\x66\x77\x88", 6, gpr), 0x88776655);
	/* EVEX disp8 is scaled by the bytes accessed: 64, a broadcast's 4, 1 */
	assert_int_equal(address_of("\x62\xe1\xfe\x48\x6f\x46\xfe", 7, gpr),
			 gpr[VMT_INSN_RSI] - 0x80);
	assert_int_equal(address_of("\x62\xe1\xfe\x48\x6f\x46\x40", 7, gpr),
			 gpr[VMT_INSN_RSI] + 0x1000);
	assert_int_equal(address_of("\x62\xf1\x74\x58\x58\x57\x02", 7, gpr),
			 gpr[VMT_INSN_RDI] + 8);
	assert_int_equal(address_of("\x62\xe2\x7d\x48\x78\x47\x07", 7, gpr),
			 gpr[VMT_INSN_RDI] + 7);
	/* mov 0x10(%ebx),%eax: 32-bit addresses wrap */
	gpr[3] = 0xfffffff8;
	assert_int_equal(address_of("\x67\x8b\x43\x10", 4, gpr), 8);
	gpr[3] = 0xffff000000001000;
	assert_int_equal(address_of("\x67\x8b\x03", 3, gpr), 0x1000);
}

static int accesses_of(const char *code, unsigned int n, const unsigned long gpr[16],
		       struct vmt_insn_access acc[2])
{
	struct vmt_insn insn;

	assert_int_equal(vmt_insn_decode((const u8 *)code, n, &insn), 0);
	assert_int_equal(insn.len, n);
	return vmt_insn_accesses(&insn, gpr, 0x400000 + n, 0x7f00aa000000, 0, acc);
}

static void assert_access(const struct vmt_insn_access *a, u64 addr, u16 size, u8 access)
{
	assert_int_equal(a->addr, addr);
	assert_int_equal(a->size, size);
	assert_int_equal(a->access, access);
}

static void test_accesses(void **state)
{
	struct vmt_insn_access acc[2];
	unsigned long gpr[16];
	u64 rsp;

	(void)state;
	regs_init(gpr);
	rsp = gpr[VMT_INSN_RSP];
	/* push %rax; pushw %ax; pop %rax; pushf; ret */
	assert_int_equal(accesses_of("\x50", 1, gpr, acc), 1);
	assert_access(&acc[0], rsp - 8, 8, VMT_INSN_W);
	assert_int_equal(accesses_of("\x66\x50", 2, gpr, acc), 1);
	assert_access(&acc[0], rsp - 2, 2, VMT_INSN_W);
	assert_int_equal(accesses_of("\x58", 1, gpr, acc), 1);
	assert_access(&acc[0], rsp, 8, VMT_INSN_R);
	assert_int_equal(accesses_of("\x9c", 1, gpr, acc), 1);
	assert_access(&acc[0], rsp - 8, 8, VMT_INSN_W);
	assert_int_equal(accesses_of("\xc3", 1, gpr, acc), 1);
	assert_access(&acc[0], rsp, 8, VMT_INSN_R);
	/* leave: pops at rbp */
	assert_int_equal(accesses_of("\xc9", 1, gpr, acc), 1);
	assert_access(&acc[0], gpr[VMT_INSN_RBP], 8, VMT_INSN_R);
	/* push 0x8(%rsp): reads above, writes below */
	assert_int_equal(accesses_of("\xff\x74\x24\x08", 4, gpr, acc), 2);
	assert_access(&acc[0], rsp + 8, 8, VMT_INSN_R);
	assert_access(&acc[1], rsp - 8, 8, VMT_INSN_W);
	/* pop (%rsp): the address uses rsp after the pop */
	assert_int_equal(accesses_of("\x8f\x04\x24", 3, gpr, acc), 2);
	assert_access(&acc[0], rsp, 8, VMT_INSN_R);
	assert_access(&acc[1], rsp + 8, 8, VMT_INSN_W);
	/* pop 0x10(%rbx) */
	assert_int_equal(accesses_of("\x8f\x43\x10", 3, gpr, acc), 2);
	assert_access(&acc[0], rsp, 8, VMT_INSN_R);
	assert_access(&acc[1], RBX_VALUE + 0x10, 8, VMT_INSN_W);
	/* call *(%rbx) */
	assert_int_equal(accesses_of("\xff\x13", 2, gpr, acc), 2);
	assert_access(&acc[0], RBX_VALUE, 8, VMT_INSN_R);
	assert_access(&acc[1], rsp - 8, 8, VMT_INSN_W);
	/* add %eax,(%rbx): one read-modify-write */
	assert_int_equal(accesses_of("\x01\x03", 2, gpr, acc), 1);
	assert_access(&acc[0], RBX_VALUE, 4, VMT_INSN_RW);
	/* lea: none */
	assert_int_equal(accesses_of("\x48\x8d\x43\x10", 4, gpr, acc), 0);
}

static void test_bit_offset(void **state)
{
	struct vmt_insn_access acc[2];
	unsigned long gpr[16];

	(void)state;
	regs_init(gpr);
	/* bt %rcx,(%rbx): 64-bit units, signed */
	gpr[1] = (unsigned long)-1;
	accesses_of("\x48\x0f\xa3\x0b", 4, gpr, acc);
	assert_access(&acc[0], RBX_VALUE - 8, 8, VMT_INSN_R);
	gpr[1] = 64;
	accesses_of("\x48\x0f\xa3\x0b", 4, gpr, acc);
	assert_access(&acc[0], RBX_VALUE + 8, 8, VMT_INSN_R);
	/* bts %ecx,(%rbx) with 100: dword 3; the upper half of rcx does not count */
	gpr[1] = 0xffffffff00000064;
	accesses_of("\x0f\xab\x0b", 3, gpr, acc);
	assert_access(&acc[0], RBX_VALUE + 12, 4, VMT_INSN_RW);
	/* btw %cx,(%rbx) with -17: word -2 */
	gpr[1] = 0xffef;
	accesses_of("\x66\x0f\xa3\x0b", 4, gpr, acc);
	assert_access(&acc[0], RBX_VALUE - 4, 2, VMT_INSN_R);
	/* btl $100,(%rbx): an immediate offset never moves the address */
	accesses_of("\x0f\xba\x23\x64", 4, gpr, acc);
	assert_access(&acc[0], RBX_VALUE, 4, VMT_INSN_R);
}

static void test_strings(void **state)
{
	struct vmt_insn_access acc[2];
	unsigned long gpr[16];
	u64 rsi, rdi;

	(void)state;
	regs_init(gpr);
	rsi = gpr[VMT_INSN_RSI];
	rdi = gpr[VMT_INSN_RDI];
	/* movsq: [rsi] read, then [rdi] written */
	assert_int_equal(accesses_of("\x48\xa5", 2, gpr, acc), 2);
	assert_access(&acc[0], rsi, 8, VMT_INSN_R);
	assert_access(&acc[1], rdi, 8, VMT_INSN_W);
	/* rep movsb with a count: one iteration */
	assert_int_equal(accesses_of("\xf3\xa4", 2, gpr, acc), 2);
	assert_access(&acc[0], rsi, 1, VMT_INSN_R);
	/* cmpsw: both read */
	assert_int_equal(accesses_of("\x66\xa7", 2, gpr, acc), 2);
	assert_access(&acc[0], rsi, 2, VMT_INSN_R);
	assert_access(&acc[1], rdi, 2, VMT_INSN_R);
	/* stosl writes [rdi], lodsb reads [rsi], scasb reads [rdi] */
	assert_int_equal(accesses_of("\xab", 1, gpr, acc), 1);
	assert_access(&acc[0], rdi, 4, VMT_INSN_W);
	assert_int_equal(accesses_of("\xac", 1, gpr, acc), 1);
	assert_access(&acc[0], rsi, 1, VMT_INSN_R);
	assert_int_equal(accesses_of("\xae", 1, gpr, acc), 1);
	assert_access(&acc[0], rdi, 1, VMT_INSN_R);
	/* fs movsb: the override is on [rsi] alone */
	assert_int_equal(accesses_of("\x64\xa4", 2, gpr, acc), 2);
	assert_access(&acc[0], rsi + 0x7f00aa000000, 1, VMT_INSN_R);
	assert_access(&acc[1], rdi, 1, VMT_INSN_W);
	/* addr32 movsb: esi, edi */
	gpr[VMT_INSN_RSI] = 0xabcd00001000;
	assert_int_equal(accesses_of("\x67\xa4", 2, gpr, acc), 2);
	assert_access(&acc[0], 0x1000, 1, VMT_INSN_R);
	/* rep with a zero count: nothing */
	gpr[VMT_INSN_RCX] = 0;
	assert_int_equal(accesses_of("\xf3\xa4", 2, gpr, acc), 0);
	assert_int_equal(accesses_of("\xf2\xae", 2, gpr, acc), 0);
	/* without rep the count does not matter */
	assert_int_equal(accesses_of("\xa4", 1, gpr, acc), 2);
	/* rep with addr32 counts in ecx */
	gpr[VMT_INSN_RCX] = 0x100000000;
	assert_int_equal(accesses_of("\xf3\x67\xa4", 3, gpr, acc), 0);
}

/* Random bytes: never a read past avail, and a result that holds together. */
static void test_random_bytes(void **state)
{
	unsigned int i, j, decoded = 0, seed = 19;
	struct vmt_insn insn;
	char code[16];

	(void)state;
	for (i = 0; i < 200000; i++) {
		unsigned int avail = i % 17;

		for (j = 0; j < sizeof(code); j++) {
			seed = seed * 1103515245 + 12345;
			code[j] = seed >> 16;
		}
		if (decode_copy(code, avail, &insn))
			continue;
		decoded++;
		assert_true(insn.len >= 1 && insn.len <= avail && insn.len <= 15);
		if (insn.kind == VMT_INSN_OTHER) {
			assert_int_equal(insn.access, 0);
			assert_int_equal(insn.size, 0);
		} else {
			assert_true(insn.access >= VMT_INSN_R && insn.access <= VMT_INSN_RW);
			assert_true(insn.size >= 1 && insn.size <= 512);
		}
		assert_true(insn.base >= VMT_INSN_RIP && insn.base < 16);
		assert_true(insn.index >= VMT_INSN_NOREG && insn.index < 16);
	}
	assert_true(decoded > 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_undecodable),
		cmocka_unit_test(test_address),
		cmocka_unit_test(test_accesses),
		cmocka_unit_test(test_bit_offset),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_random_bytes),
	};

	return cmocka_run_group_tests_name("exact_insn", tests, NULL, NULL);
}
