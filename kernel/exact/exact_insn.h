/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact mode's instruction decoder: for the instruction that faulted on an
 * exact page, how many bytes it is, which data memory it touches, how many
 * bytes and whether it reads, writes or both. The kernel's decoder is not
 * exported to modules, and its operand sizes are not bytes accessed.
 *
 * Pure C on purpose: no kernel API beyond types and errno values, no
 * allocation, no sleeping (it runs in the fault probe and the #DB notifier
 * with interrupts off). The same file builds into a userspace unit test with
 * tests/unit/exact-insn-shim.h.
 */
#ifndef _VMTRACE_EXACT_INSN_H
#define _VMTRACE_EXACT_INSN_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/types.h>
#else
#include "exact-insn-shim.h"
#endif

/* access */
#define VMT_INSN_R	1
#define VMT_INSN_W	2
#define VMT_INSN_RW	3	/* read-modify-write, locked or not */

/* kind */
#define VMT_INSN_OTHER	0	/* decoded, touches no data memory */
#define VMT_INSN_MODRM	1	/* an explicit memory operand (ModRM or moffs) */
#define VMT_INSN_STRING	2	/* movs, stos, lods, cmps, scas */
#define VMT_INSN_PUSH	3	/* writes size bytes below the stack pointer */
#define VMT_INSN_POP	4	/* reads size bytes at the stack pointer */

/* flags */
#define VMT_INSN_REP		0x0001	/* f3 on a string instruction */
#define VMT_INSN_REPNE		0x0002	/* f2 on cmps/scas */
#define VMT_INSN_LOCK		0x0004	/* f0, or xchg with memory */
#define VMT_INSN_PUSHF		0x0008	/* pushf: the word written holds TF */
#define VMT_INSN_POPF		0x0010	/* popf: the word read sets TF */
#define VMT_INSN_STACK_PUSH	0x0020	/* MODRM kind that also pushes size bytes */
#define VMT_INSN_STACK_POP	0x0040	/* MODRM kind that also pops size bytes */
#define VMT_INSN_BITOFF		0x0080	/* bt* Ev,Gv: register reg offsets the address */
#define VMT_INSN_LEAVE		0x0100	/* leave: pops at rbp, not rsp */
#define VMT_INSN_MASKED		0x0200	/* AVX-512 {%kN}: size is the most it accesses */

/* string_op */
#define VMT_INSN_MOVS	1	/* reads [rsi], writes [rdi] */
#define VMT_INSN_STOS	2	/* writes [rdi] */
#define VMT_INSN_LODS	3	/* reads [rsi] */
#define VMT_INSN_CMPS	4	/* reads [rsi] then [rdi] */
#define VMT_INSN_SCAS	5	/* reads [rdi] */

/* seg */
#define VMT_INSN_SEG_FS	1
#define VMT_INSN_SEG_GS	2

/* base */
#define VMT_INSN_NOREG	(-1)
#define VMT_INSN_RIP	(-2)

#define VMT_INSN_MAX_LEN	15

/* Register numbers as the encoding has them: rax 0, rcx 1, ... r15 15. */
#define VMT_INSN_RAX	0
#define VMT_INSN_RCX	1
#define VMT_INSN_RBP	5
#define VMT_INSN_RSP	4
#define VMT_INSN_RSI	6
#define VMT_INSN_RDI	7

struct vmt_insn {
	s64 disp;	/* ModRM displacement, or the moffs (a0-a3) address */
	u16 size;	/* bytes accessed (1 to 512), 0 if unknown */
	u16 flags;
	u8 len;		/* bytes of the instruction, prefixes included */
	u8 access;	/* VMT_INSN_R, _W, _RW, 0 if OTHER; movs, push m: vmt_insn_accesses() */
	u8 kind;
	u8 string_op;
	s8 base;	/* 0-15, VMT_INSN_NOREG or VMT_INSN_RIP */
	s8 index;	/* 0-15 or VMT_INSN_NOREG */
	u8 scale;	/* 1, 2, 4, 8 */
	u8 reg;		/* the ModRM reg field (0-15): VMT_INSN_BITOFF's offset */
	u8 seg;		/* 0, VMT_INSN_SEG_FS or VMT_INSN_SEG_GS */
	u8 addr_size;	/* 8, or 4 with the 67 prefix */
};

/* One data access, in the order the instruction makes them. */
struct vmt_insn_access {
	u64 addr;
	u16 size;
	u8 access;
};

int vmt_insn_decode(const u8 *code, unsigned int avail, struct vmt_insn *insn);
u64 vmt_insn_address(const struct vmt_insn *insn, const unsigned long gpr[16], u64 next_ip,
		     u64 fs_base, u64 gs_base);
int vmt_insn_accesses(const struct vmt_insn *insn, const unsigned long gpr[16], u64 next_ip,
		      u64 fs_base, u64 gs_base, struct vmt_insn_access acc[2]);

#endif /* _VMTRACE_EXACT_INSN_H */
