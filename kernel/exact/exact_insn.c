// SPDX-License-Identifier: GPL-2.0
/*
 * Exact mode's x86-64 decoder, in the spirit of mmiotrace's pf_in.c: it
 * finds the instruction's length and its data memory operand, and gives the
 * bytes that operand accesses (not the operand size the kernel's decoder
 * reports: movdqa is 16 bytes, not 2).
 *
 * Layout of an instruction, and where each part is parsed:
 *
 *   [legacy prefixes][REX | VEX] opcode [ModRM [SIB] [disp]] [imm]
 *   vmt_decode_prefixes()  vmt_decode_map*()  vmt_decode_modrm()  vmt_decode()
 *
 * Each map function knows, per opcode, whether a ModRM byte follows, the
 * immediate's width, and the access and size of the memory operand. A ModRM
 * with mod 3 names a register: the instruction is then VMT_INSN_OTHER.
 * Everything unknown is -EINVAL: the caller logs the access with size 0.
 */
#include "exact/exact_insn.h"

struct vmt_dec {
	const u8 *code;
	unsigned int avail;
	unsigned int pos;
	struct vmt_insn *insn;
	u8 rex;			/* 0x40-0x4f, or 0 */
	u8 pp;			/* mandatory prefix: 0 none, 1 66, 2 f3, 3 f2 */
	bool p66, rep, repne, lock;
	bool vex;		/* VEX or EVEX */
	bool evex;
	bool vex_w;
	u8 vl;			/* VEX/EVEX vector bytes: 16, 32 or 64 */
	u8 mod;			/* 0-3; 3 also when there is no ModRM */
	u8 reg;			/* ModRM reg, 0-7, without REX.R */
	unsigned int imm;	/* immediate bytes after ModRM/disp */
};

static int vmt_dec_byte(struct vmt_dec *d, u8 *b)
{
	if (d->pos >= d->avail || d->pos >= VMT_INSN_MAX_LEN)
		return -EINVAL;
	*b = d->code[d->pos++];
	return 0;
}

static int vmt_dec_signed(struct vmt_dec *d, unsigned int bytes, s64 *val)
{
	u64 v = 0;
	unsigned int i;
	u8 b;

	for (i = 0; i < bytes; i++) {
		if (vmt_dec_byte(d, &b))
			return -EINVAL;
		v |= (u64)b << (8 * i);
	}
	if (bytes == 1)
		*val = (s8)v;
	else if (bytes == 4)
		*val = (s32)v;
	else
		*val = (s64)v;
	return 0;
}

static bool vmt_rex_w(const struct vmt_dec *d)
{
	return d->vex ? d->vex_w : d->rex & 8;
}

/* Operand size of a general-purpose instruction: 2, 4 or 8. */
static unsigned int vmt_osize(const struct vmt_dec *d)
{
	if (vmt_rex_w(d))
		return 8;
	return d->p66 ? 2 : 4;
}

/* Stack operations default to 64 bits; 66 makes them 16. */
static unsigned int vmt_ssize(const struct vmt_dec *d)
{
	return d->p66 ? 2 : 8;
}

/* An iz immediate: 2 bytes with 66, else 4 (sign-extended under REX.W). */
static unsigned int vmt_izsize(const struct vmt_dec *d)
{
	return vmt_osize(d) == 2 ? 2 : 4;
}

/* ModRM, SIB and displacement; fills the operand of d->insn. */
static int vmt_decode_modrm(struct vmt_dec *d)
{
	struct vmt_insn *insn = d->insn;
	unsigned int rm, disp_bytes = 0;
	u8 modrm, sib;

	if (vmt_dec_byte(d, &modrm))
		return -EINVAL;
	d->mod = modrm >> 6;
	d->reg = (modrm >> 3) & 7;
	insn->reg = d->reg | ((d->rex & 4) << 1);
	if (d->mod == 3)
		return 0;
	rm = modrm & 7;
	if (d->mod == 1)
		disp_bytes = 1;
	else if (d->mod == 2)
		disp_bytes = 4;
	if (rm == 4) {
		if (vmt_dec_byte(d, &sib))
			return -EINVAL;
		insn->scale = 1 << (sib >> 6);
		insn->index = ((sib >> 3) & 7) | ((d->rex & 2) << 2);
		if (insn->index == VMT_INSN_RSP)
			insn->index = VMT_INSN_NOREG;
		if ((sib & 7) == 5 && d->mod == 0) {
			insn->base = VMT_INSN_NOREG;
			disp_bytes = 4;
		} else {
			insn->base = (sib & 7) | ((d->rex & 1) << 3);
		}
	} else if (rm == 5 && d->mod == 0) {
		insn->base = VMT_INSN_RIP;
		disp_bytes = 4;
	} else {
		insn->base = rm | ((d->rex & 1) << 3);
	}
	if (disp_bytes)
		return vmt_dec_signed(d, disp_bytes, &insn->disp);
	return 0;
}

/*
 * The memory operand of a ModRM instruction; with mod 3 there is none.
 * Called after vmt_decode_modrm().
 */
static int vmt_mem(struct vmt_dec *d, u8 access, unsigned int size)
{
	struct vmt_insn *insn = d->insn;

	if (d->mod == 3) {
		insn->kind = VMT_INSN_OTHER;
		insn->access = 0;
		insn->size = 0;
		insn->flags &= ~(VMT_INSN_LOCK | VMT_INSN_BITOFF | VMT_INSN_STACK_PUSH |
				 VMT_INSN_STACK_POP);
		return 0;
	}
	insn->kind = VMT_INSN_MODRM;
	insn->access = access;
	insn->size = size;
	if (d->lock && access == VMT_INSN_RW)
		insn->flags |= VMT_INSN_LOCK;
	return 0;
}

/* ModRM, then its memory operand. */
static int vmt_modrm_mem(struct vmt_dec *d, u8 access, unsigned int size)
{
	if (vmt_decode_modrm(d))
		return -EINVAL;
	return vmt_mem(d, access, size);
}

static int vmt_stack(struct vmt_dec *d, u8 kind, unsigned int size)
{
	d->insn->kind = kind;
	d->insn->access = kind == VMT_INSN_PUSH ? VMT_INSN_W : VMT_INSN_R;
	d->insn->size = size;
	return 0;
}

static int vmt_string(struct vmt_dec *d, u8 op, unsigned int size)
{
	struct vmt_insn *insn = d->insn;

	insn->kind = VMT_INSN_STRING;
	insn->string_op = op;
	insn->size = size;
	if (op == VMT_INSN_MOVS)
		insn->access = VMT_INSN_RW;
	else if (op == VMT_INSN_STOS)
		insn->access = VMT_INSN_W;
	else
		insn->access = VMT_INSN_R;
	if (d->rep)
		insn->flags |= VMT_INSN_REP;
	if (d->repne)
		insn->flags |= VMT_INSN_REPNE;
	return 0;
}

/* x87 memory forms (d8-df), by opcode and ModRM reg: bytes and access. */
static int vmt_decode_x87(struct vmt_dec *d, u8 op)
{
	static const u8 size[8][8] = {
		{ 4, 4, 4, 4, 4, 4, 4, 4 },	/* d8: fadd..fdivr m32fp */
		{ 4, 0, 4, 4, 28, 2, 28, 2 },	/* d9: fld, fst, fstp, fldenv, fldcw, ... */
		{ 4, 4, 4, 4, 4, 4, 4, 4 },	/* da: m32int arithmetic */
		{ 4, 4, 4, 4, 0, 10, 0, 10 },	/* db: fild, fisttp, fist, fistp, fld/fstp m80 */
		{ 8, 8, 8, 8, 8, 8, 8, 8 },	/* dc: m64fp arithmetic */
		{ 8, 8, 8, 8, 108, 0, 108, 2 },	/* dd: fld, fisttp, fst, fstp, frstor, fsave */
		{ 2, 2, 2, 2, 2, 2, 2, 2 },	/* de: m16int arithmetic */
		{ 2, 2, 2, 2, 10, 8, 10, 8 },	/* df: fild, ..., fbld, fild m64, fbstp, fistp */
	};
	/* Which (opcode, reg) store: bit reg of store[op & 7]. */
	static const u8 store[8] = { 0x00, 0xcc, 0x00, 0x8e, 0x00, 0xce, 0x00, 0xce };
	unsigned int n;

	if (vmt_decode_modrm(d))
		return -EINVAL;
	if (d->mod == 3)
		return vmt_mem(d, 0, 0);
	n = size[op & 7][d->reg];
	if (!n)
		return -EINVAL;
	return vmt_mem(d, store[op & 7] & (1 << d->reg) ? VMT_INSN_W : VMT_INSN_R, n);
}

/* The one-byte opcode map. */
static int vmt_decode_map1(struct vmt_dec *d, u8 op)
{
	unsigned int osz = vmt_osize(d);
	struct vmt_insn *insn = d->insn;
	s64 moffs;

	if (op < 0x40) {
		bool cmp = (op >> 3) == 7;

		switch (op & 7) {
		case 0:
			return vmt_modrm_mem(d, cmp ? VMT_INSN_R : VMT_INSN_RW, 1);
		case 1:
			return vmt_modrm_mem(d, cmp ? VMT_INSN_R : VMT_INSN_RW, osz);
		case 2:
			return vmt_modrm_mem(d, VMT_INSN_R, 1);
		case 3:
			return vmt_modrm_mem(d, VMT_INSN_R, osz);
		case 4:
			d->imm = 1;
			return 0;
		case 5:
			d->imm = vmt_izsize(d);
			return 0;
		}
		return -EINVAL;	/* push/pop es..ds, daa..aas: invalid in 64-bit mode */
	}
	if (op >= 0x50 && op <= 0x57)
		return vmt_stack(d, VMT_INSN_PUSH, vmt_ssize(d));
	if (op >= 0x58 && op <= 0x5f)
		return vmt_stack(d, VMT_INSN_POP, vmt_ssize(d));
	if (op >= 0x70 && op <= 0x7f) {
		d->imm = 1;
		return 0;
	}
	if ((op >= 0x90 && op <= 0x99) || op == 0x9b || op == 0x9e || op == 0x9f ||
	    (op >= 0xf4 && op <= 0xf5) || (op >= 0xf8 && op <= 0xfd) || op == 0xcc ||
	    op == 0xf1 || (op >= 0xec && op <= 0xef))
		return 0;	/* xchg/nop, cbw, cwd, sahf, hlt, clc..std, int3, in/out dx */
	if (op >= 0xb0 && op <= 0xb7) {
		d->imm = 1;
		return 0;
	}
	if (op >= 0xb8 && op <= 0xbf) {
		d->imm = osz;
		return 0;
	}
	if (op >= 0xd8 && op <= 0xdf)
		return vmt_decode_x87(d, op);
	if (op >= 0xa4 && op <= 0xaf && (op & 0xfe) != 0xa8) {
		static const u8 string_op[6] = {
			VMT_INSN_MOVS, VMT_INSN_CMPS, 0, VMT_INSN_STOS, VMT_INSN_LODS, VMT_INSN_SCAS
		};

		return vmt_string(d, string_op[(op - 0xa4) >> 1], op & 1 ? osz : 1);
	}

	switch (op) {
	case 0x63:	/* movsxd */
		return vmt_modrm_mem(d, VMT_INSN_R, d->p66 && !vmt_rex_w(d) ? 2 : 4);
	case 0x68:
		d->imm = d->p66 ? 2 : 4;
		return vmt_stack(d, VMT_INSN_PUSH, vmt_ssize(d));
	case 0x6a:
		d->imm = 1;
		return vmt_stack(d, VMT_INSN_PUSH, vmt_ssize(d));
	case 0x69:
		d->imm = vmt_izsize(d);
		return vmt_modrm_mem(d, VMT_INSN_R, osz);
	case 0x6b:
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_R, osz);
	case 0x80:
	case 0x81:
	case 0x83:
		d->imm = op == 0x81 ? vmt_izsize(d) : 1;
		if (vmt_decode_modrm(d))
			return -EINVAL;
		return vmt_mem(d, d->reg == 7 ? VMT_INSN_R : VMT_INSN_RW, op == 0x80 ? 1 : osz);
	case 0x84:
		return vmt_modrm_mem(d, VMT_INSN_R, 1);
	case 0x85:
		return vmt_modrm_mem(d, VMT_INSN_R, osz);
	case 0x86:
	case 0x87:	/* xchg with memory is locked whatever the prefixes */
		if (vmt_modrm_mem(d, VMT_INSN_RW, op == 0x86 ? 1 : osz))
			return -EINVAL;
		if (insn->kind == VMT_INSN_MODRM)
			insn->flags |= VMT_INSN_LOCK;
		return 0;
	case 0x88:
		return vmt_modrm_mem(d, VMT_INSN_W, 1);
	case 0x89:
		return vmt_modrm_mem(d, VMT_INSN_W, osz);
	case 0x8a:
		return vmt_modrm_mem(d, VMT_INSN_R, 1);
	case 0x8b:
		return vmt_modrm_mem(d, VMT_INSN_R, osz);
	case 0x8c:	/* mov m16, sreg */
		return vmt_modrm_mem(d, VMT_INSN_W, 2);
	case 0x8d:	/* lea: no access */
		return vmt_decode_modrm(d);
	case 0x8e:
		return vmt_modrm_mem(d, VMT_INSN_R, 2);
	case 0x8f:	/* pop Ev; 8f with reg != 0 is XOP */
		if (vmt_decode_modrm(d) || d->reg)
			return -EINVAL;
		insn->flags |= VMT_INSN_STACK_POP;
		return vmt_mem(d, VMT_INSN_W, vmt_ssize(d));
	case 0x9c:
		insn->flags |= VMT_INSN_PUSHF;
		return vmt_stack(d, VMT_INSN_PUSH, vmt_ssize(d));
	case 0x9d:
		insn->flags |= VMT_INSN_POPF;
		return vmt_stack(d, VMT_INSN_POP, vmt_ssize(d));
	case 0xa0:
	case 0xa1:
	case 0xa2:
	case 0xa3:	/* mov with a moffs: an absolute address as wide as addresses */
		if (vmt_dec_signed(d, insn->addr_size, &moffs))
			return -EINVAL;
		insn->disp = insn->addr_size == 4 ? (s64)(u32)moffs : moffs;
		insn->kind = VMT_INSN_MODRM;
		insn->access = op < 0xa2 ? VMT_INSN_R : VMT_INSN_W;
		insn->size = op & 1 ? osz : 1;
		return 0;
	case 0xa8:
		d->imm = 1;
		return 0;
	case 0xa9:
		d->imm = vmt_izsize(d);
		return 0;
	case 0xc0:
	case 0xc1:
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_RW, op & 1 ? osz : 1);
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
		return vmt_modrm_mem(d, VMT_INSN_RW, op & 1 ? osz : 1);
	case 0xc2:
		d->imm = 2;
		return vmt_stack(d, VMT_INSN_POP, vmt_ssize(d));
	case 0xc3:
		return vmt_stack(d, VMT_INSN_POP, vmt_ssize(d));
	case 0xc6:
	case 0xc7:	/* mov Ev, imm; xabort/xbegin with reg 7 and mod 3 */
		if (vmt_decode_modrm(d))
			return -EINVAL;
		if (d->reg == 7 && d->mod == 3) {
			d->imm = op == 0xc6 ? 1 : 4;
			return 0;
		}
		if (d->reg)
			return -EINVAL;
		d->imm = op == 0xc6 ? 1 : vmt_izsize(d);
		return vmt_mem(d, VMT_INSN_W, op == 0xc6 ? 1 : osz);
	case 0xc8:	/* enter: the push of rbp (nesting levels not traced) */
		d->imm = 3;
		return vmt_stack(d, VMT_INSN_PUSH, vmt_ssize(d));
	case 0xc9:
		insn->flags |= VMT_INSN_LEAVE;
		return vmt_stack(d, VMT_INSN_POP, vmt_ssize(d));
	case 0xcd:
	case 0xe4:
	case 0xe5:
	case 0xe6:
	case 0xe7:
	case 0xe0:
	case 0xe1:
	case 0xe2:
	case 0xe3:
	case 0xeb:
		d->imm = 1;
		return 0;
	case 0xe8:
		d->imm = 4;
		return vmt_stack(d, VMT_INSN_PUSH, 8);
	case 0xe9:
		d->imm = 4;
		return 0;
	case 0xf6:
	case 0xf7:
		if (vmt_decode_modrm(d))
			return -EINVAL;
		if (d->reg < 2) {	/* test Ev, imm */
			d->imm = op == 0xf6 ? 1 : vmt_izsize(d);
			return vmt_mem(d, VMT_INSN_R, op == 0xf6 ? 1 : osz);
		}
		/* not, neg write; mul, imul, div, idiv read */
		return vmt_mem(d, d->reg < 4 ? VMT_INSN_RW : VMT_INSN_R, op == 0xf6 ? 1 : osz);
	case 0xfe:
		if (vmt_decode_modrm(d) || d->reg > 1)
			return -EINVAL;
		return vmt_mem(d, VMT_INSN_RW, 1);
	case 0xff:
		if (vmt_decode_modrm(d))
			return -EINVAL;
		switch (d->reg) {
		case 0:
		case 1:		/* inc, dec */
			return vmt_mem(d, VMT_INSN_RW, osz);
		case 2:		/* call Ev: reads the target, pushes the return address */
			insn->flags |= VMT_INSN_STACK_PUSH;
			return vmt_mem(d, VMT_INSN_R, 8);
		case 4:		/* jmp Ev */
			return vmt_mem(d, VMT_INSN_R, 8);
		case 6:		/* push Ev */
			insn->flags |= VMT_INSN_STACK_PUSH;
			return vmt_mem(d, VMT_INSN_R, vmt_ssize(d));
		}
		return -EINVAL;	/* far call/jmp, reserved */
	}
	/* ins/outs, far transfers, iret, xlat, invalid opcodes */
	return -EINVAL;
}

/* Packed, or scalar single (f3) and double (f2): the SSE arithmetic rule. */
static unsigned int vmt_sse_size(const struct vmt_dec *d, unsigned int packed)
{
	if (d->pp == 2)
		return 4;
	if (d->pp == 3)
		return 8;
	return packed;
}

/* MMX without a prefix (8 bytes), SSE2 with 66 (16). */
static unsigned int vmt_mmx_size(const struct vmt_dec *d)
{
	return d->pp == 1 ? 16 : 8;
}

/* The 0f map, legacy (not VEX) encodings. */
static int vmt_decode_map0f(struct vmt_dec *d, u8 op)
{
	unsigned int osz = vmt_osize(d);
	struct vmt_insn *insn = d->insn;

	if (op >= 0x40 && op <= 0x4f)	/* cmovcc: reads whatever the condition */
		return vmt_modrm_mem(d, VMT_INSN_R, osz);
	if (op >= 0x80 && op <= 0x8f) {	/* jcc rel32 */
		d->imm = 4;
		return 0;
	}
	if (op >= 0x90 && op <= 0x9f)	/* setcc */
		return vmt_modrm_mem(d, VMT_INSN_W, 1);
	if (op >= 0xc8 && op <= 0xcf)	/* bswap */
		return 0;
	if (op >= 0x18 && op <= 0x1f)	/* prefetch hints, nop Ev, endbr: no access */
		return vmt_decode_modrm(d);
	if ((op >= 0x51 && op <= 0x5f && op != 0x5a && op != 0x5b) ||
	    op == 0x14 || op == 0x15 || op == 0x7c || op == 0x7d || op == 0xd0) {
		/* arithmetic, logic, unpck, hadd/hsub, addsub */
		if (op >= 0x54 && op <= 0x57)
			return vmt_modrm_mem(d, VMT_INSN_R, 16);
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_sse_size(d, 16));
	}
	if ((op >= 0x60 && op <= 0x6d) || (op >= 0x74 && op <= 0x76) ||
	    (op >= 0xd1 && op <= 0xfe && op != 0xd6 && op != 0xd7 && op != 0xe6 &&
	     op != 0xe7 && op != 0xf0 && op != 0xf7)) {
		/* MMX/SSE2 integer arithmetic; punpckl* of an MMX register reads 4 */
		if (op <= 0x62 && d->pp == 0)
			return vmt_modrm_mem(d, VMT_INSN_R, 4);
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_mmx_size(d));
	}

	switch (op) {
	case 0x00:	/* sldt, str store 2; lldt, ltr, verr, verw read 2 */
		if (vmt_decode_modrm(d) || d->reg > 5)
			return -EINVAL;
		return vmt_mem(d, d->reg < 2 ? VMT_INSN_W : VMT_INSN_R, 2);
	case 0x01:
		if (vmt_decode_modrm(d))
			return -EINVAL;
		if (d->mod == 3)	/* swapgs, rdtscp, xgetbv, ...: no memory */
			return 0;
		switch (d->reg) {
		case 0:
		case 1:
			return vmt_mem(d, VMT_INSN_W, 10);	/* sgdt, sidt */
		case 2:
		case 3:
			return vmt_mem(d, VMT_INSN_R, 10);
		case 4:
			return vmt_mem(d, VMT_INSN_W, 2);	/* smsw */
		case 6:
			return vmt_mem(d, VMT_INSN_R, 2);
		case 7:
			return 0;				/* invlpg */
		}
		return -EINVAL;
	case 0x05:	/* syscall */
	case 0x0b:	/* ud2 */
	case 0x31:	/* rdtsc */
	case 0xa2:	/* cpuid */
	case 0x77:	/* emms */
		return 0;
	case 0x0d:	/* prefetchw */
		return vmt_decode_modrm(d);
	case 0x10:
	case 0x11:	/* movups, movupd, movss, movsd */
		return vmt_modrm_mem(d, op & 1 ? VMT_INSN_W : VMT_INSN_R, vmt_sse_size(d, 16));
	case 0x12:
	case 0x16:	/* movlps/movhps/movlpd/movhpd 8; movsldup/movshdup 16; movddup 8 */
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp == 2 ? 16 : 8);
	case 0x13:
	case 0x17:
		return vmt_modrm_mem(d, VMT_INSN_W, 8);
	case 0x28:
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	case 0x29:
	case 0x2b:	/* movaps, movntps */
		return vmt_modrm_mem(d, VMT_INSN_W, 16);
	case 0x2a:	/* cvtpi2ps m64; cvtsi2ss/sd r/m32/64 */
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp >= 2 ? (vmt_rex_w(d) ? 8 : 4) : 8);
	case 0x2c:
	case 0x2d:	/* cvt(t)ps2pi m64, cvt(t)ss2si m32, cvt(t)sd2si m64 */
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp == 2 ? 4 : 8);
	case 0x2e:
	case 0x2f:	/* (u)comiss 4, (u)comisd 8 */
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp == 1 ? 8 : 4);
	case 0x5a:	/* cvtps2pd m64, cvtpd2ps m128, cvtss2sd m32, cvtsd2ss m64 */
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp == 1 ? 16 : vmt_sse_size(d, 8));
	case 0x5b:
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	case 0x6e:	/* movd/movq from r/m */
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_rex_w(d) ? 8 : 4);
	case 0x6f:	/* movq mm, movdqa, movdqu */
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp ? 16 : 8);
	case 0x7e:	/* movd/movq to r/m; f3: movq xmm, m64 */
		if (d->pp == 2)
			return vmt_modrm_mem(d, VMT_INSN_R, 8);
		return vmt_modrm_mem(d, VMT_INSN_W, vmt_rex_w(d) ? 8 : 4);
	case 0x7f:
		return vmt_modrm_mem(d, VMT_INSN_W, d->pp ? 16 : 8);
	case 0x70:	/* pshufw/pshufd/pshufhw/pshuflw */
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp ? 16 : 8);
	case 0x71:
	case 0x72:
	case 0x73:	/* shifts by an immediate: registers only */
	case 0xc5:	/* pextrw to a register */
		d->imm = 1;
		return vmt_decode_modrm(d);
	case 0x50:	/* movmskps */
	case 0xd7:	/* pmovmskb */
		return vmt_decode_modrm(d);
	case 0xa0:
	case 0xa8:	/* push fs/gs */
		return vmt_stack(d, VMT_INSN_PUSH, vmt_ssize(d));
	case 0xa1:
	case 0xa9:
		return vmt_stack(d, VMT_INSN_POP, vmt_ssize(d));
	case 0xa3:	/* bt Ev, Gv: the register's bit offset moves the address */
		insn->flags |= VMT_INSN_BITOFF;
		return vmt_modrm_mem(d, VMT_INSN_R, osz);
	case 0xab:
	case 0xb3:
	case 0xbb:	/* bts, btr, btc Ev, Gv */
		insn->flags |= VMT_INSN_BITOFF;
		return vmt_modrm_mem(d, VMT_INSN_RW, osz);
	case 0xa4:
	case 0xac:	/* shld, shrd with an immediate */
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_RW, osz);
	case 0xa5:
	case 0xad:
		return vmt_modrm_mem(d, VMT_INSN_RW, osz);
	case 0xae:
		if (vmt_decode_modrm(d))
			return -EINVAL;
		if (d->mod == 3)	/* fences, rd/wrfsbase */
			return 0;
		switch (d->reg) {
		case 0:
			return vmt_mem(d, VMT_INSN_W, 512);	/* fxsave */
		case 1:
			return vmt_mem(d, VMT_INSN_R, 512);	/* fxrstor */
		case 2:
			return vmt_mem(d, VMT_INSN_R, 4);	/* ldmxcsr */
		case 3:
			return vmt_mem(d, VMT_INSN_W, 4);	/* stmxcsr */
		case 6:
			return d->pp == 1 ? 0 : -EINVAL;	/* clwb */
		case 7:
			return 0;				/* clflush(opt) */
		}
		return -EINVAL;	/* xsave family: size depends on XCR0 */
	case 0xaf:
		return vmt_modrm_mem(d, VMT_INSN_R, osz);
	case 0xb0:
	case 0xb1:	/* cmpxchg: writes even when the comparison fails */
		return vmt_modrm_mem(d, VMT_INSN_RW, op & 1 ? osz : 1);
	case 0xc0:
	case 0xc1:	/* xadd */
		return vmt_modrm_mem(d, VMT_INSN_RW, op & 1 ? osz : 1);
	case 0xb6:
	case 0xbe:	/* movzx, movsx from 8 bits */
		return vmt_modrm_mem(d, VMT_INSN_R, 1);
	case 0xb7:
	case 0xbf:
		return vmt_modrm_mem(d, VMT_INSN_R, 2);
	case 0xb8:	/* popcnt (jmpe without f3) */
		if (d->pp != 2)
			return -EINVAL;
		return vmt_modrm_mem(d, VMT_INSN_R, osz);
	case 0xba:	/* bt, bts, btr, btc Ev, ib: the offset is taken modulo the size */
		d->imm = 1;
		if (vmt_decode_modrm(d) || d->reg < 4)
			return -EINVAL;
		return vmt_mem(d, d->reg == 4 ? VMT_INSN_R : VMT_INSN_RW, osz);
	case 0xbc:
	case 0xbd:	/* bsf/tzcnt, bsr/lzcnt */
		return vmt_modrm_mem(d, VMT_INSN_R, osz);
	case 0xc2:	/* cmpps, cmppd, cmpss, cmpsd */
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_sse_size(d, 16));
	case 0xc3:	/* movnti */
		return vmt_modrm_mem(d, VMT_INSN_W, vmt_rex_w(d) ? 8 : 4);
	case 0xc4:	/* pinsrw */
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_R, 2);
	case 0xc6:	/* shufps, shufpd */
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	case 0xc7:	/* cmpxchg8b/16b; rdrand, rdseed, rdpid on registers */
		if (vmt_decode_modrm(d))
			return -EINVAL;
		if (d->mod == 3)
			return d->reg >= 6 ? 0 : -EINVAL;
		if (d->reg != 1)
			return -EINVAL;
		return vmt_mem(d, VMT_INSN_RW, vmt_rex_w(d) ? 16 : 8);
	case 0xd6:	/* movq xmm/m64, xmm */
		if (d->pp != 1)
			return -EINVAL;
		return vmt_modrm_mem(d, VMT_INSN_W, 8);
	case 0xe6:	/* cvtdq2pd m64; cvttpd2dq, cvtpd2dq m128 */
		if (!d->pp)
			return -EINVAL;
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp == 2 ? 8 : 16);
	case 0xe7:	/* movntq, movntdq */
		return vmt_modrm_mem(d, VMT_INSN_W, d->pp ? 16 : 8);
	case 0xf0:	/* lddqu */
		if (d->pp != 3)
			return -EINVAL;
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	}
	return -EINVAL;
}

/* pmovsx/pmovzx (0f38 20-25, 30-35): bytes read, as a shift of the vector size. */
static unsigned int vmt_pmovx_size(u8 op, unsigned int vl)
{
	static const u8 shift[6] = { 1, 2, 3, 1, 2, 1 };

	return vl >> shift[op & 7];
}

/* The 0f38 map, legacy encodings: SSSE3, SSE4, movbe, crc32, adcx/adox, AES, SHA. */
static int vmt_decode_map0f38(struct vmt_dec *d, u8 op)
{
	unsigned int osz = vmt_osize(d);

	if (op <= 0x0b || (op >= 0x1c && op <= 0x1e))	/* pshufb..psignd, pabs* */
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_mmx_size(d));
	if (op >= 0xc8 && op <= 0xcd)			/* sha */
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	if (op == 0xf0 || op == 0xf1) {
		if (d->pp == 3)		/* crc32 Gd, Eb / Ev */
			return vmt_modrm_mem(d, VMT_INSN_R, op == 0xf0 ? 1 : osz);
		/* movbe */
		return vmt_modrm_mem(d, op == 0xf0 ? VMT_INSN_R : VMT_INSN_W, osz);
	}
	if (op == 0xf6 && (d->pp == 1 || d->pp == 2))	/* adcx, adox */
		return vmt_modrm_mem(d, VMT_INSN_R, osz);
	if (d->pp != 1)
		return -EINVAL;
	if (op == 0x10 || op == 0x14 || op == 0x15 || op == 0x17 ||
	    (op >= 0x28 && op <= 0x2b) || (op >= 0x37 && op <= 0x41) ||
	    (op >= 0xdb && op <= 0xdf))
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	if ((op >= 0x20 && op <= 0x25) || (op >= 0x30 && op <= 0x35))
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_pmovx_size(op, 16));
	return -EINVAL;
}

/* The 0f3a map, legacy encodings; every one has an 8-bit immediate. */
static int vmt_decode_map0f3a(struct vmt_dec *d, u8 op)
{
	d->imm = 1;
	if (op == 0x0f)					/* palignr */
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_mmx_size(d));
	if (op == 0xcc)					/* sha1rnds4 */
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	if (d->pp != 1)
		return -EINVAL;
	switch (op) {
	case 0x08:
	case 0x09:
	case 0x0c:
	case 0x0d:
	case 0x0e:
	case 0x40:
	case 0x41:
	case 0x42:
	case 0x44:
	case 0x60:
	case 0x61:
	case 0x62:
	case 0x63:
	case 0xdf:
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	case 0x0a:	/* roundss */
	case 0x21:	/* insertps */
		return vmt_modrm_mem(d, VMT_INSN_R, 4);
	case 0x0b:	/* roundsd */
		return vmt_modrm_mem(d, VMT_INSN_R, 8);
	case 0x14:	/* pextrb */
		return vmt_modrm_mem(d, VMT_INSN_W, 1);
	case 0x15:	/* pextrw */
		return vmt_modrm_mem(d, VMT_INSN_W, 2);
	case 0x16:	/* pextrd/q */
		return vmt_modrm_mem(d, VMT_INSN_W, vmt_rex_w(d) ? 8 : 4);
	case 0x17:	/* extractps */
		return vmt_modrm_mem(d, VMT_INSN_W, 4);
	case 0x20:	/* pinsrb */
		return vmt_modrm_mem(d, VMT_INSN_R, 1);
	case 0x22:	/* pinsrd/q */
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_rex_w(d) ? 8 : 4);
	}
	return -EINVAL;
}

/* VEX 0f map: AVX moves and arithmetic. */
static int vmt_decode_vex0f(struct vmt_dec *d, u8 op)
{
	unsigned int vl = d->vl;
	unsigned int gsz = d->vex_w ? 8 : 4;

	if ((op >= 0x51 && op <= 0x5f && op != 0x5a && op != 0x5b) ||
	    op == 0x14 || op == 0x15 || op == 0x7c || op == 0x7d || op == 0xd0) {
		if (op >= 0x54 && op <= 0x57)
			return vmt_modrm_mem(d, VMT_INSN_R, vl);
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_sse_size(d, vl));
	}
	/* vpsrl/vpsra/vpsll by an xmm/m128 count read 16 bytes whatever L */
	if (op == 0xd1 || op == 0xd2 || op == 0xd3 || op == 0xe1 || op == 0xe2 ||
	    op == 0xf1 || op == 0xf2 || op == 0xf3)
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	if ((op >= 0x60 && op <= 0x6d) || (op >= 0x74 && op <= 0x76) ||
	    (op >= 0xd4 && op <= 0xfe && op != 0xd6 && op != 0xd7 && op != 0xe6 &&
	     op != 0xe7 && op != 0xf0 && op != 0xf7)) {
		if (d->pp != 1)
			return -EINVAL;
		return vmt_modrm_mem(d, VMT_INSN_R, vl);
	}
	switch (op) {
	case 0x10:
	case 0x11:	/* vmovups/upd vl; vmovss 4, vmovsd 8 */
		return vmt_modrm_mem(d, op & 1 ? VMT_INSN_W : VMT_INSN_R, vmt_sse_size(d, vl));
	case 0x12:	/* vmovlps/lpd 8, vmovsldup vl, vmovddup 8 or 32 */
	case 0x16:	/* vmovhps/hpd 8, vmovshdup vl */
		if (d->pp == 2)
			return vmt_modrm_mem(d, VMT_INSN_R, vl);
		if (d->pp == 3)
			return vmt_modrm_mem(d, VMT_INSN_R, d->vl > 16 ? d->vl : 8);
		return vmt_modrm_mem(d, VMT_INSN_R, 8);
	case 0x13:
	case 0x17:
		return vmt_modrm_mem(d, VMT_INSN_W, 8);
	case 0x28:
		return vmt_modrm_mem(d, VMT_INSN_R, vl);
	case 0x29:
	case 0x2b:
	case 0xe7:	/* vmovaps, vmovntps, vmovntdq */
		return vmt_modrm_mem(d, VMT_INSN_W, vl);
	case 0x2a:	/* vcvtsi2ss/sd */
		return vmt_modrm_mem(d, VMT_INSN_R, gsz);
	case 0x2c:
	case 0x2d:
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp == 2 ? 4 : 8);
	case 0x2e:
	case 0x2f:
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp == 1 ? 8 : 4);
	case 0x5a:	/* vcvtps2pd reads half the vector, vcvtpd2ps all of it */
		if (d->pp == 0)
			return vmt_modrm_mem(d, VMT_INSN_R, vl / 2);
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_sse_size(d, vl));
	case 0x5b:
		return vmt_modrm_mem(d, VMT_INSN_R, vl);
	case 0x6e:	/* vmovd/vmovq from r/m */
		return vmt_modrm_mem(d, VMT_INSN_R, gsz);
	case 0x6f:	/* vmovdqa, vmovdqu; EVEX f2: vmovdqu8/16 */
	case 0x7f:
		if (!d->pp || (d->pp == 3 && !d->evex))
			return -EINVAL;
		return vmt_modrm_mem(d, op == 0x6f ? VMT_INSN_R : VMT_INSN_W, vl);
	case 0x90:
	case 0x91:	/* kmovw/b/q/d k, m and m, k */
		if (d->evex || d->pp > 1)
			return -EINVAL;
		return vmt_modrm_mem(d, op == 0x90 ? VMT_INSN_R : VMT_INSN_W,
				     (d->vex_w ? 4 : 1) << (d->pp ? 0 : 1));
	case 0x92:
	case 0x93:	/* kmov between k and general registers */
	case 0x98:
	case 0x99:	/* kortest, ktest */
		return d->evex ? -EINVAL : vmt_decode_modrm(d);
	case 0x7e:	/* vmovd/q to r/m; f3: vmovq xmm, m64 */
		if (d->pp == 2)
			return vmt_modrm_mem(d, VMT_INSN_R, 8);
		return vmt_modrm_mem(d, VMT_INSN_W, gsz);
	case 0xd6:	/* vmovq m64, xmm */
		return vmt_modrm_mem(d, VMT_INSN_W, 8);
	case 0x70:
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_R, vl);
	case 0x71:
	case 0x72:
	case 0x73:
	case 0xc5:
		d->imm = 1;
		return vmt_decode_modrm(d);
	case 0x50:
	case 0xd7:
		return vmt_decode_modrm(d);
	case 0x77:	/* vzeroupper, vzeroall */
		return 0;
	case 0x41:
	case 0x42:
	case 0x44:
	case 0x45:
	case 0x46:
	case 0x47:
	case 0x4a:
	case 0x4b:	/* kand, kandn, knot, kor, kxnor, kxor, kadd, kunpck */
		return d->evex ? -EINVAL : vmt_decode_modrm(d);
	case 0xae:	/* vldmxcsr, vstmxcsr */
		if (vmt_decode_modrm(d) || d->mod == 3 || (d->reg != 2 && d->reg != 3))
			return -EINVAL;
		return vmt_mem(d, d->reg == 2 ? VMT_INSN_R : VMT_INSN_W, 4);
	case 0xc2:
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_sse_size(d, vl));
	case 0xc4:
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_R, 2);
	case 0xc6:
		d->imm = 1;
		return vmt_modrm_mem(d, VMT_INSN_R, vl);
	case 0xe6:	/* vcvtdq2pd reads half; vcvt(t)pd2dq all */
		return vmt_modrm_mem(d, VMT_INSN_R, d->pp == 2 ? vl / 2 : vl);
	case 0xf0:	/* vlddqu */
		return vmt_modrm_mem(d, VMT_INSN_R, vl);
	}
	return -EINVAL;
}

/* FMA (0f38 96-bf): scalar forms are the odd ones from 99 on. */
static bool vmt_fma_scalar(u8 op)
{
	return (op & 1) && (op & 0x0f) >= 9;
}

/* VEX 0f38 map: AVX2 integer, broadcasts, FMA, BMI. */
static int vmt_decode_vex0f38(struct vmt_dec *d, u8 op)
{
	unsigned int vl = d->vl;
	unsigned int gsz = d->vex_w ? 8 : 4;

	/* andn, blsr/blsmsk/blsi, bzhi/pdep/pext, mulx, bextr/shlx/sarx/shrx */
	if (op >= 0xf2 && op <= 0xf7) {
		if (op == 0xf4)
			return -EINVAL;
		return vmt_modrm_mem(d, VMT_INSN_R, gsz);
	}
	if (d->evex && d->pp == 2 && (op == 0x26 || op == 0x27))	/* vptestnm */
		return vmt_modrm_mem(d, VMT_INSN_R, vl);
	if (d->pp != 1)
		return -EINVAL;
	if (d->evex && ((op >= 0x10 && op <= 0x12) || op == 0x1f || op == 0x26 || op == 0x27 ||
			(op >= 0x4c && op <= 0x4f) || (op >= 0x64 && op <= 0x66) ||
			(op >= 0x75 && op <= 0x77) || (op >= 0x7d && op <= 0x7f) ||
			op == 0x8d || op == 0xc4))
		return vmt_modrm_mem(d, VMT_INSN_R, vl);	/* AVX-512 arithmetic */
	if (d->evex && (op == 0x1b || op == 0x5b))	/* vbroadcast[fi]32x8/64x4 */
		return vmt_modrm_mem(d, VMT_INSN_R, 32);
	if (d->evex && op >= 0x7a && op <= 0x7c)	/* vpbroadcast from a register */
		return vmt_decode_modrm(d);
	if (op >= 0x96 && op <= 0xbf)
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_fma_scalar(op) ? gsz : vl);
	if ((op >= 0x20 && op <= 0x25) || (op >= 0x30 && op <= 0x35))
		return vmt_modrm_mem(d, VMT_INSN_R, vmt_pmovx_size(op, vl));
	if (op <= 0x0f || op == 0x16 || op == 0x17 || (op >= 0x1c && op <= 0x1e) ||
	    (op >= 0x28 && op <= 0x2b) || (op >= 0x36 && op <= 0x40) ||
	    (op >= 0x45 && op <= 0x47) || (op >= 0xdc && op <= 0xdf))
		return vmt_modrm_mem(d, VMT_INSN_R, vl);
	switch (op) {
	case 0x13:	/* vcvtph2ps */
		return vmt_modrm_mem(d, VMT_INSN_R, vl / 2);
	case 0x18:
	case 0x58:	/* vbroadcastss, vpbroadcastd */
		return vmt_modrm_mem(d, VMT_INSN_R, 4);
	case 0x19:
	case 0x59:	/* vbroadcastsd, vpbroadcastq */
		return vmt_modrm_mem(d, VMT_INSN_R, 8);
	case 0x1a:
	case 0x5a:	/* vbroadcastf128, vbroadcasti128 */
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	case 0x78:
		return vmt_modrm_mem(d, VMT_INSN_R, 1);
	case 0x79:
		return vmt_modrm_mem(d, VMT_INSN_R, 2);
	case 0x41:
	case 0xdb:
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	}
	/* masked moves (2c-2f, 8c, 8e) and gathers (90-93): bytes depend on the mask */
	return -EINVAL;
}

/* VEX 0f3a map; every one has an 8-bit immediate. */
static int vmt_decode_vex0f3a(struct vmt_dec *d, u8 op)
{
	unsigned int vl = d->vl;
	unsigned int gsz = d->vex_w ? 8 : 4;

	d->imm = 1;
	if (op == 0xf0)		/* rorx */
		return vmt_modrm_mem(d, VMT_INSN_R, gsz);
	if (d->pp != 1)
		return -EINVAL;
	if (!d->evex && op >= 0x30 && op <= 0x33)	/* kshift */
		return vmt_decode_modrm(d);
	if (d->evex) {
		switch (op) {
		case 0x03:	/* valign */
		case 0x1e:
		case 0x1f:	/* vpcmp[u]d/q */
		case 0x3e:
		case 0x3f:	/* vpcmp[u]b/w */
		case 0x23:
		case 0x43:	/* vshuf[fi]32x4 */
		case 0x25:	/* vpternlog */
		case 0x26:	/* vgetmant */
		case 0x50:	/* vrange */
		case 0x54:	/* vfixupimm */
		case 0x56:	/* vreduce */
		case 0x66:	/* vfpclass */
			return vmt_modrm_mem(d, VMT_INSN_R, vl);
		case 0x1a:
		case 0x3a:	/* vinsert[fi]64x4 */
			return vmt_modrm_mem(d, VMT_INSN_R, 32);
		case 0x1b:
		case 0x3b:	/* vextract[fi]64x4 */
			return vmt_modrm_mem(d, VMT_INSN_W, 32);
		}
	}
	switch (op) {
	case 0x00:
	case 0x01:
	case 0x02:
	case 0x04:
	case 0x05:
	case 0x08:
	case 0x09:
	case 0x0c:
	case 0x0d:
	case 0x0e:
	case 0x0f:
	case 0x40:
	case 0x41:
	case 0x42:
	case 0x44:
	case 0x4a:
	case 0x4b:
	case 0x4c:
		return vmt_modrm_mem(d, VMT_INSN_R, vl);
	case 0x06:
	case 0x46:	/* vperm2f128, vperm2i128 */
		return vmt_modrm_mem(d, VMT_INSN_R, 32);
	case 0x0a:
	case 0x21:
		return vmt_modrm_mem(d, VMT_INSN_R, 4);
	case 0x0b:
		return vmt_modrm_mem(d, VMT_INSN_R, 8);
	case 0x14:
		return vmt_modrm_mem(d, VMT_INSN_W, 1);
	case 0x15:
		return vmt_modrm_mem(d, VMT_INSN_W, 2);
	case 0x16:
		return vmt_modrm_mem(d, VMT_INSN_W, gsz);
	case 0x17:
		return vmt_modrm_mem(d, VMT_INSN_W, 4);
	case 0x18:
	case 0x38:	/* vinsertf128, vinserti128 */
	case 0x60:
	case 0x61:
	case 0x62:
	case 0x63:
	case 0xdf:
		return vmt_modrm_mem(d, VMT_INSN_R, 16);
	case 0x19:
	case 0x39:	/* vextractf128, vextracti128 */
		return vmt_modrm_mem(d, VMT_INSN_W, 16);
	case 0x1d:	/* vcvtps2ph */
		return vmt_modrm_mem(d, VMT_INSN_W, vl / 2);
	case 0x20:
		return vmt_modrm_mem(d, VMT_INSN_R, 1);
	case 0x22:
		return vmt_modrm_mem(d, VMT_INSN_R, gsz);
	}
	return -EINVAL;
}

/*
 * c4 (3-byte) and c5 (2-byte) VEX, 62 EVEX: in 64-bit mode these bytes are
 * always prefixes. EVEX uses the VEX maps with vectors of up to 64 bytes; its
 * disp8 is scaled by N, which for every tuple type the maps decode (gathers
 * and scatters are refused) is the bytes the operand accesses.
 */
static int vmt_decode_vex(struct vmt_dec *d, u8 c)
{
	u8 b1, b2, p2 = 0, op, map = 1;
	int err = -EINVAL;

	/* 66, f2, f3 or REX before VEX is #UD */
	if (d->p66 || d->rep || d->repne || d->rex)
		return -EINVAL;
	if (vmt_dec_byte(d, &b1))
		return -EINVAL;
	d->vex = true;
	if (c == 0xc5) {
		d->rex = 0x40 | (b1 & 0x80 ? 0 : 4);
		b2 = b1;
	} else {
		/* EVEX P0: R X B R' 0 0 m m; maps 5 and 6 (FP16) and APX refused */
		map = b1 & (c == 0x62 ? 0x0f : 0x1f);
		d->rex = 0x40 | ((~b1 >> 5) & 7);
		if (vmt_dec_byte(d, &b2))
			return -EINVAL;
		d->vex_w = b2 & 0x80;
	}
	d->vl = b2 & 4 ? 32 : 16;
	d->pp = b2 & 3;
	if (c == 0x62) {
		/* P1: W vvvv 1 pp; P2: z L'L b V' aaa */
		if (!(b2 & 4) || vmt_dec_byte(d, &p2) || ((p2 >> 5) & 3) == 3)
			return -EINVAL;
		d->evex = true;
		d->vl = 16 << ((p2 >> 5) & 3);
	}
	if (vmt_dec_byte(d, &op))
		return -EINVAL;
	if (map == 1)
		err = vmt_decode_vex0f(d, op);
	else if (map == 2)
		err = vmt_decode_vex0f38(d, op);
	else if (map == 3)
		err = vmt_decode_vex0f3a(d, op);
	if (err || !d->evex || d->insn->kind != VMT_INSN_MODRM)
		return err;
	if (p2 & 0x10)		/* {1toN}: one element, broadcast */
		d->insn->size = d->vex_w ? 8 : 4;
	if (p2 & 7)		/* {%kN}: masked-off elements are not accessed */
		d->insn->flags |= VMT_INSN_MASKED;
	if (d->mod == 1)
		d->insn->disp *= d->insn->size;
	return 0;
}

/* Legacy prefixes and REX; a REX followed by a legacy prefix is ignored, as by the CPU. */
static int vmt_decode_prefixes(struct vmt_dec *d, u8 *op)
{
	for (;;) {
		if (vmt_dec_byte(d, op))
			return -EINVAL;
		switch (*op) {
		case 0xf0:
			d->lock = true;
			break;
		case 0xf2:
			d->repne = true;
			d->rep = false;
			break;
		case 0xf3:
			d->rep = true;
			d->repne = false;
			break;
		case 0x66:
			d->p66 = true;
			break;
		case 0x67:
			d->insn->addr_size = 4;
			break;
		case 0x64:
			d->insn->seg = VMT_INSN_SEG_FS;
			break;
		case 0x65:
			d->insn->seg = VMT_INSN_SEG_GS;
			break;
		case 0x26:
		case 0x2e:
		case 0x36:
		case 0x3e:	/* es, cs, ss, ds: no effect in 64-bit mode */
			break;
		default:
			if ((*op & 0xf0) != 0x40)
				return 0;
			d->rex = *op;
			continue;
		}
		d->rex = 0;
	}
}

/**
 * vmt_insn_decode() - decode one x86-64 user-mode instruction
 * @code: its bytes
 * @avail: how many bytes of @code may be read (never more than these)
 * @insn: the result; zeroed first
 *
 * Return: 0, or -EINVAL for an instruction it cannot decode (or truncated).
 */
int vmt_insn_decode(const u8 *code, unsigned int avail, struct vmt_insn *insn)
{
	struct vmt_dec d = {
		.code = code,
		.avail = avail,
		.insn = insn,
		.mod = 3,
	};
	s64 skip;
	u8 op;
	int err;

	*insn = (struct vmt_insn){
		.base = VMT_INSN_NOREG,
		.index = VMT_INSN_NOREG,
		.scale = 1,
		.addr_size = 8,
	};
	if (vmt_decode_prefixes(&d, &op))
		return -EINVAL;
	if (d.rep)
		d.pp = 2;
	else if (d.repne)
		d.pp = 3;
	else if (d.p66)
		d.pp = 1;

	if (op == 0xc4 || op == 0xc5 || op == 0x62) {
		err = vmt_decode_vex(&d, op);
	} else if (op != 0x0f) {
		err = vmt_decode_map1(&d, op);
	} else {
		if (vmt_dec_byte(&d, &op))
			return -EINVAL;
		if (op == 0x38)
			err = vmt_dec_byte(&d, &op) ?: vmt_decode_map0f38(&d, op);
		else if (op == 0x3a)
			err = vmt_dec_byte(&d, &op) ?: vmt_decode_map0f3a(&d, op);
		else
			err = vmt_decode_map0f(&d, op);
	}
	if (err)
		return err;
	if (d.imm && vmt_dec_signed(&d, d.imm, &skip))
		return -EINVAL;
	/* a lock prefix on anything but a read-modify-write of memory is #UD */
	if (d.lock && !(insn->flags & VMT_INSN_LOCK))
		return -EINVAL;
	insn->len = d.pos;
	return 0;
}

static u64 vmt_insn_reg(const unsigned long gpr[16], s8 reg)
{
	return reg >= 0 ? gpr[reg & 15] : 0;
}

/**
 * vmt_insn_address() - the effective address of the ModRM (or moffs) operand
 * @insn: as vmt_insn_decode() filled it
 * @gpr: the registers before the instruction, rax 0 ... r15 15
 * @next_ip: the address of the next instruction (RIP-relative base)
 * @fs_base: the FS base, added with an fs prefix
 * @gs_base: likewise for gs
 *
 * Return: the linear address.
 */
u64 vmt_insn_address(const struct vmt_insn *insn, const unsigned long gpr[16], u64 next_ip,
		     u64 fs_base, u64 gs_base)
{
	u64 addr = (u64)insn->disp;

	if (insn->base == VMT_INSN_RIP)
		addr += next_ip;
	else
		addr += vmt_insn_reg(gpr, insn->base);
	addr += vmt_insn_reg(gpr, insn->index) * insn->scale;
	if (insn->addr_size == 4)
		addr = (u32)addr;
	if (insn->seg == VMT_INSN_SEG_FS)
		addr += fs_base;
	else if (insn->seg == VMT_INSN_SEG_GS)
		addr += gs_base;
	return addr;
}

/* The register bit offset of bt* Ev, Gv: signed, in units of the operand size. */
static s64 vmt_insn_bit_bytes(const struct vmt_insn *insn, const unsigned long gpr[16])
{
	u64 v = gpr[insn->reg & 15];
	s64 bits;

	if (insn->size == 2)
		bits = (s16)v;
	else if (insn->size == 4)
		bits = (s32)v;
	else
		bits = (s64)v;
	/* floor(bits / (8 * size)) * size, for negative offsets too */
	return (bits >> (insn->size == 2 ? 4 : insn->size == 4 ? 5 : 6)) * insn->size;
}

/**
 * vmt_insn_accesses() - the data accesses of a decoded instruction, in order
 * @insn: as vmt_insn_decode() filled it
 * @gpr: the registers before the instruction, rax 0 ... r15 15
 * @next_ip: the address of the next instruction
 * @fs_base: FS base
 * @gs_base: GS base
 * @acc: filled with up to two accesses
 *
 * A string instruction gives one iteration's accesses (none when a rep
 * prefix meets a zero count); push Ev, pop Ev and call Ev give the memory
 * operand and the stack slot; enter's nesting levels are not included.
 *
 * Return: the number of accesses, 0 to 2.
 */
int vmt_insn_accesses(const struct vmt_insn *insn, const unsigned long gpr[16], u64 next_ip,
		      u64 fs_base, u64 gs_base, struct vmt_insn_access acc[2])
{
	u64 rsp = gpr[VMT_INSN_RSP], rsi, rdi, count;
	u64 ea;

	switch (insn->kind) {
	case VMT_INSN_MODRM:
		ea = vmt_insn_address(insn, gpr, next_ip, fs_base, gs_base);
		if (insn->flags & VMT_INSN_BITOFF)
			ea += vmt_insn_bit_bytes(insn, gpr);
		if (insn->flags & VMT_INSN_STACK_POP) {
			/* pop Ev: rsp as a base is the value after the pop */
			if (insn->base == VMT_INSN_RSP)
				ea += insn->size;
			acc[0] = (struct vmt_insn_access){ rsp, insn->size, VMT_INSN_R };
			acc[1] = (struct vmt_insn_access){ ea, insn->size, VMT_INSN_W };
			return 2;
		}
		acc[0] = (struct vmt_insn_access){ ea, insn->size, insn->access };
		if (insn->flags & VMT_INSN_STACK_PUSH) {
			acc[1] = (struct vmt_insn_access){ rsp - insn->size, insn->size,
							   VMT_INSN_W };
			return 2;
		}
		return 1;
	case VMT_INSN_PUSH:
		acc[0] = (struct vmt_insn_access){ rsp - insn->size, insn->size, VMT_INSN_W };
		return 1;
	case VMT_INSN_POP:
		if (insn->flags & VMT_INSN_LEAVE)
			rsp = gpr[VMT_INSN_RBP];
		acc[0] = (struct vmt_insn_access){ rsp, insn->size, VMT_INSN_R };
		return 1;
	case VMT_INSN_STRING:
		rsi = gpr[VMT_INSN_RSI];
		rdi = gpr[VMT_INSN_RDI];
		count = gpr[VMT_INSN_RCX];
		if (insn->addr_size == 4) {
			rsi = (u32)rsi;
			rdi = (u32)rdi;
			count = (u32)count;
		}
		if ((insn->flags & (VMT_INSN_REP | VMT_INSN_REPNE)) && !count)
			return 0;
		/* a segment override applies to [rsi] only */
		if (insn->seg == VMT_INSN_SEG_FS)
			rsi += fs_base;
		else if (insn->seg == VMT_INSN_SEG_GS)
			rsi += gs_base;
		switch (insn->string_op) {
		case VMT_INSN_MOVS:
			acc[0] = (struct vmt_insn_access){ rsi, insn->size, VMT_INSN_R };
			acc[1] = (struct vmt_insn_access){ rdi, insn->size, VMT_INSN_W };
			return 2;
		case VMT_INSN_CMPS:
			acc[0] = (struct vmt_insn_access){ rsi, insn->size, VMT_INSN_R };
			acc[1] = (struct vmt_insn_access){ rdi, insn->size, VMT_INSN_R };
			return 2;
		case VMT_INSN_LODS:
			acc[0] = (struct vmt_insn_access){ rsi, insn->size, VMT_INSN_R };
			return 1;
		default:	/* stos, scas */
			acc[0] = (struct vmt_insn_access){ rdi, insn->size, insn->access };
			return 1;
		}
	}
	return 0;
}
