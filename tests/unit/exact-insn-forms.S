/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory instructions of every form kernel/exact/exact_insn.c decodes, run once
 * natively under ptrace single-step and once under valgrind lackey by
 * tests/unit/exact-insn-lackey.sh. Built -no-pie: code, data and the stack
 * used here (vmt_stack) are at the same addresses in both runs.
 *
 * Registers while the forms run: rbx = vmt_buf, r12 = vmt_buf + 0x1000,
 * rcx = 3, r13 = -2 (r14 an offset for bt*); rsp is in vmt_stack.
 *
 * Left out because valgrind 3.19 reads other bytes than the CPU (the unit
 * test has them): punpcklbw mm, m32 (lackey: 8), vmovddup ymm, m256 (two
 * loads of 8, the qwords it uses), vpsllw ymm, m128 count (8).
 */
	.text
	.globl vmt_forms, vmt_forms_end, vmt_forms_avx, vmt_forms_avx_end

vmt_leaf:
	ret

	.balign 16
vmt_forms:
	mov %rsp, vmt_saved_rsp(%rip)
	lea vmt_stack_top(%rip), %rsp
	push %rbx
	push %rbp
	push %r12
	push %r13
	push %r14
	push %r15
	lea vmt_buf(%rip), %rbx
	lea 0x1000(%rbx), %r12
	mov $3, %ecx
	mov $-2, %r13
	xor %eax, %eax
	xor %edx, %edx

	/* loads and stores, 1 to 8 bytes, unaligned, SIB, negative index */
	mov (%rbx), %al
	mov 1(%rbx), %ax
	mov 3(%rbx), %eax
	mov 5(%rbx), %rax
	mov 0x100(%rbx,%rcx,8), %rdx
	mov -8(%r12,%r13,4), %esi
	mov 0x7f(%r12,%rcx,2), %r9w
	mov 0x12345(%rbx), %r10
	mov (%r12), %r11b
	mov %al, 0x200(%rbx)
	mov %ax, 0x201(%rbx)
	mov %eax, 0x203(%rbx)
	mov %rax, 0x207(%rbx)
	mov %r8, (%r12)
	mov %sil, 1(%r12)
	movb $1, 7(%rbx)
	movw $0x1234, 9(%rbx)
	movl $0x12345678, 11(%rbx)
	movq $-5, 19(%rbx)
	mov %ds, 0x40(%rbx)
	/* across a page end */
	mov 0xffd(%rbx), %rax
	mov %eax, 0xffe(%rbx)
	/* RIP-relative and moffs */
	mov vmt_buf+0x40(%rip), %rax
	mov %eax, vmt_buf+0x44(%rip)
	incl vmt_buf+0x48(%rip)
	movabs vmt_buf+0x30, %al
	movabs vmt_buf+0x30, %eax
	movabs %rax, vmt_buf+0x38
	movabs %ax, vmt_buf+0x38
	/* no data access */
	lea 0x10(%rbx,%rcx,4), %rdx
	add %rax, %rdx
	nop
	nopl 0(%rax,%rax,1)
	xor %edx, %edx

	/* arithmetic: read, read-modify-write */
	add %rax, 0x10(%rbx)
	add 0x10(%rbx), %rax
	adc %eax, 0x10(%rbx)
	sub 0x10(%rbx), %dl
	sbb %ax, 0x12(%rbx)
	and %rax, 0x10(%rbx)
	or %al, 0x11(%rbx)
	xor %eax, 0x13(%rbx)
	addb $1, 0x11(%rbx)
	addl $1000, 0x14(%rbx)
	addq $1, 0x18(%rbx)
	addw $1000, 0x1a(%rbx)
	orw $3, 0x1a(%rbx)
	cmp %rax, 8(%rbx)
	cmp 8(%rbx), %eax
	cmpl $5, 8(%rbx)
	cmpb $5, 8(%rbx)
	test %eax, 8(%rbx)
	testb $1, 8(%rbx)
	testl $0x100, 8(%rbx)
	testw $0x100, 8(%rbx)
	incb 0x20(%rbx)
	incw 0x20(%rbx)
	decl 0x20(%rbx)
	decq 0x20(%rbx)
	negl 0x20(%rbx)
	notq 0x20(%rbx)
	shll 0x24(%rbx)
	shrq $3, 0x24(%rbx)
	sarb %cl, 0x24(%rbx)
	rolw $2, 0x24(%rbx)
	rcrl 0x24(%rbx)
	mull 0x28(%rbx)
	imulq 0x28(%rbx)
	imul 0x28(%rbx), %rax
	imul $3, 0x28(%rbx), %eax
	imul $1000, 0x28(%rbx), %ax
	imul $1000, 0x28(%rbx), %rax
	shld $3, %rax, 0x30(%rbx)
	shrd %cl, %eax, 0x30(%rbx)
	movl $1, 0x28(%rbx)
	xor %edx, %edx
	mov $1000, %eax
	divl 0x28(%rbx)

	/* locked and implicitly locked read-modify-write */
	lock addl $1, 0x40(%rbx)
	lock add %rax, 0x40(%rbx)
	lock incq 0x40(%rbx)
	lock decw 0x40(%rbx)
	lock orb $1, 0x40(%rbx)
	lock and %eax, 0x40(%rbx)
	lock xadd %rax, 0x48(%rbx)
	xadd %eax, 0x48(%rbx)
	lock xadd %al, 0x48(%rbx)
	cmpxchg %rax, 0x48(%rbx)
	lock cmpxchg %ecx, 0x48(%rbx)
	lock cmpxchg %cl, 0x48(%rbx)
	lock btsq $5, 0x48(%rbx)
	xchg %rax, 0x50(%rbx)
	xchg %cl, 0x50(%rbx)
	xchg %dx, 0x50(%rbx)
	mov $3, %ecx
	cmpxchg8b 0x60(%rbx)
	lock cmpxchg8b 0x60(%rbx)
	cmpxchg16b 0x70(%rbx)
	lock cmpxchg16b 0x70(%rbx)
	mov $3, %ecx

	/* widening, conditional, bits */
	movzbl 0x21(%rbx), %eax
	movzwl 0x21(%rbx), %eax
	movzbw 0x21(%rbx), %ax
	movsbq 0x21(%rbx), %rax
	movswq 0x21(%rbx), %rax
	movslq 0x21(%rbx), %rax
	cmp %eax, %eax
	cmovz 0x28(%rbx), %rax
	cmovnz 0x28(%rbx), %eax
	cmovg 0x28(%rbx), %ax
	sete 0x29(%rbx)
	setne 0x2a(%rbx)
	btl $3, 0x28(%rbx)
	btsq $65, 0x28(%rbx)
	btrw $3, 0x28(%rbx)
	btcl $31, 0x28(%rbx)
	bt %rcx, 0x28(%rbx)
	bts %ecx, 0x28(%rbx)
	mov $100, %r14d
	bts %r14, 0x28(%rbx)
	btr %r14d, 0x28(%rbx)
	lock btc %r14w, 0x28(%rbx)
	bt %r13, 0x28(%rbx)
	btc %r13w, 0x28(%rbx)
	mov $-100, %r14
	bt %r14d, 0x48(%rbx)
	popcnt 0x28(%rbx), %rax
	lzcnt 0x28(%rbx), %eax
	tzcnt 0x28(%rbx), %ax
	bsf 0x28(%rbx), %rax
	bsr 0x28(%rbx), %rax
	movbe 0x28(%rbx), %eax
	movbe %rax, 0x30(%rbx)
	crc32b 0x28(%rbx), %eax
	crc32l 0x28(%rbx), %eax
	crc32q 0x28(%rbx), %rax

	/* the stack */
	push %rax
	pop %rax
	push %r15
	pop %r15
	pushw %ax
	popw %ax
	push $5
	push $1000
	pop %rax
	pop %rax
	push 0x80(%rbx)
	pop 0x88(%rbx)
	pushw 0x80(%rbx)
	popw %ax
	push 8(%rsp)
	pop (%rsp)
	pushf
	popf
	call vmt_leaf
	lea vmt_leaf(%rip), %rax
	mov %rax, 0x300(%rbx)
	call *0x300(%rbx)
	call *vmt_leaf_ptr(%rip)
	lea 1f(%rip), %rax
	mov %rax, 0x308(%rbx)
	jmp *0x308(%rbx)
1:	enter $16, $0
	leave

	/* strings: one iteration each, rep, a zero count, backwards */
	lea 0x400(%rbx), %rsi
	lea 0x500(%rbx), %rdi
	movsb
	movsw
	movsl
	movsq
	mov $5, %ecx
	rep movsb
	mov $3, %ecx
	rep movsq
	mov $0, %ecx
	rep movsb
	stosb
	stosq
	mov $4, %ecx
	rep stosl
	lodsb
	lodsw
	lea 0x400(%rbx), %rsi
	lea 0x400(%rbx), %rdi
	mov $1, %ecx
	repe cmpsq
	mov $4, %ecx
	repe cmpsb
	mov $0, %eax
	scasb
	scasl
	mov $4, %ecx
	mov $0x55, %al
	repne scasb
	std
	movsl
	stosw
	cld
	mov $3, %ecx

	/* SSE moves */
	movups (%rbx), %xmm0
	movups %xmm0, 0x31(%rbx)
	movaps 0x40(%rbx), %xmm1
	movaps %xmm1, 0x60(%rbx)
	movupd 0x3(%rbx), %xmm2
	movapd %xmm2, 0x80(%rbx)
	movdqu 0x5(%rbx), %xmm3
	movdqu %xmm3, 0x7(%rbx)
	movdqa 0x90(%rbx), %xmm4
	movdqa %xmm4, 0xa0(%rbx)
	movdqu 0xff9(%rbx), %xmm5
	movss 0x10(%rbx), %xmm0
	movss %xmm0, 0x14(%rbx)
	movsd 0x18(%rbx), %xmm0
	movsd %xmm0, 0x1c(%rbx)
	movlps 0x20(%rbx), %xmm0
	movlps %xmm0, 0x28(%rbx)
	movhps 0x20(%rbx), %xmm0
	movhps %xmm0, 0x28(%rbx)
	movlpd 0x20(%rbx), %xmm0
	movhpd %xmm0, 0x28(%rbx)
	movd 0x20(%rbx), %xmm1
	movd %xmm1, 0x24(%rbx)
	movq 0x20(%rbx), %xmm1
	movq %xmm1, 0x28(%rbx)
	movq 0x20(%rbx), %r8
	movq %r8, %xmm2
	movq %xmm2, 0x30(%rbx)
	movnti %eax, 0x30(%rbx)
	movnti %rax, 0x38(%rbx)
	movntdq %xmm0, 0xb0(%rbx)
	movntps %xmm0, 0xc0(%rbx)
	lddqu 0x3(%rbx), %xmm0
	movddup 0x3(%rbx), %xmm0
	movshdup 0x10(%rbx), %xmm0
	movsldup 0x10(%rbx), %xmm0
	/* SSE arithmetic with a memory source */
	addps 0x40(%rbx), %xmm0
	addss 0x40(%rbx), %xmm0
	addsd 0x40(%rbx), %xmm0
	mulpd 0x40(%rbx), %xmm0
	sqrtss 0x40(%rbx), %xmm0
	maxsd 0x40(%rbx), %xmm0
	andps 0x40(%rbx), %xmm0
	xorpd 0x40(%rbx), %xmm0
	unpcklps 0x40(%rbx), %xmm0
	pxor 0x40(%rbx), %xmm0
	paddd 0x40(%rbx), %xmm0
	pcmpeqb 0x40(%rbx), %xmm0
	psubusb 0x40(%rbx), %xmm0
	pmaddwd 0x40(%rbx), %xmm0
	pshufd $1, 0x40(%rbx), %xmm0
	pshufb 0x40(%rbx), %xmm0
	palignr $3, 0x40(%rbx), %xmm0
	ptest 0x40(%rbx), %xmm0
	pminud 0x40(%rbx), %xmm0
	pmulld 0x40(%rbx), %xmm0
	cvtsi2sdl 0x40(%rbx), %xmm0
	cvtsi2sdq 0x40(%rbx), %xmm0
	cvtsi2ssl 0x40(%rbx), %xmm0
	cvttsd2si 0x40(%rbx), %eax
	cvtss2si 0x40(%rbx), %rax
	cvtps2pd 0x40(%rbx), %xmm0
	cvtdq2pd 0x40(%rbx), %xmm0
	cvtpd2ps 0x40(%rbx), %xmm0
	cvtss2sd 0x40(%rbx), %xmm0
	cvtdq2ps 0x40(%rbx), %xmm0
	ucomisd 0x40(%rbx), %xmm0
	ucomiss 0x40(%rbx), %xmm0
	comisd 0x40(%rbx), %xmm0
	cmpltps 0x40(%rbx), %xmm0
	cmpeqsd 0x40(%rbx), %xmm0
	shufps $1, 0x40(%rbx), %xmm0
	pinsrw $1, 0x40(%rbx), %xmm0
	pinsrb $1, 0x40(%rbx), %xmm0
	pinsrd $1, 0x40(%rbx), %xmm0
	pinsrq $1, 0x40(%rbx), %xmm0
	insertps $1, 0x40(%rbx), %xmm0
	pextrb $1, %xmm0, 0x50(%rbx)
	pextrw $1, %xmm0, 0x50(%rbx)
	pextrd $1, %xmm0, 0x50(%rbx)
	pextrq $1, %xmm0, 0x50(%rbx)
	extractps $1, %xmm0, 0x50(%rbx)
	pmovzxbw 0x40(%rbx), %xmm0
	pmovsxbd 0x40(%rbx), %xmm0
	pmovzxbq 0x40(%rbx), %xmm0
	pmovsxwd 0x40(%rbx), %xmm0
	pmovzxwq 0x40(%rbx), %xmm0
	pmovsxdq 0x40(%rbx), %xmm0
	roundsd $1, 0x40(%rbx), %xmm0
	roundps $1, 0x40(%rbx), %xmm0
	pabsb 0x40(%rbx), %xmm0
	aesenc 0x40(%rbx), %xmm0
	pclmulqdq $0, 0x40(%rbx), %xmm0
	stmxcsr 0x50(%rbx)
	ldmxcsr 0x50(%rbx)
	/* MMX */
	movq 0x40(%rbx), %mm0
	paddb 0x40(%rbx), %mm0
	pshufw $1, 0x40(%rbx), %mm0
	movq %mm0, 0x58(%rbx)
	movd %mm0, 0x58(%rbx)
	emms
	/* x87 */
	flds 0x40(%rbx)
	fldl 0x40(%rbx)
	fldt 0x40(%rbx)
	fadds 0x40(%rbx)
	fmull 0x40(%rbx)
	fiaddl 0x40(%rbx)
	fstps 0x60(%rbx)
	fstpl 0x60(%rbx)
	fstpt 0x60(%rbx)
	filds 0x40(%rbx)
	fildl 0x40(%rbx)
	fildll 0x40(%rbx)
	fistpl 0x60(%rbx)
	fnstcw 0x60(%rbx)
	fldcw 0x60(%rbx)
	fisttpll 0x60(%rbx)
	fnstsw 0x60(%rbx)

	/* address size, fs */
	mov %ebx, %eax
	mov 0x10(%eax), %edx
	mov %edx, 0x18(%ebx,%ecx,2)
	mov %fs:0, %rax
	mov %fs:0x8(%rcx), %rax

	pop %r15
	pop %r14
	pop %r13
	pop %r12
	pop %rbp
	pop %rbx
vmt_forms_end:
	mov vmt_saved_rsp(%rip), %rsp
	ret

	.balign 16
vmt_forms_avx:
	mov %rsp, vmt_saved_rsp(%rip)
	lea vmt_stack_top(%rip), %rsp
	push %rbx
	push %rbp
	push %r12
	lea vmt_buf(%rip), %rbx
	lea 0x1000(%rbx), %r12
	mov $3, %ecx
	vmovdqu (%rbx), %ymm0
	vmovdqu %ymm0, 0x41(%rbx)
	vmovdqu 0xff0(%rbx), %ymm1
	vmovdqa 0x80(%rbx), %xmm1
	vmovdqa %ymm1, 0xa0(%rbx)
	vmovups 0x3(%rbx), %ymm2
	vmovups %xmm2, 0x3(%rbx)
	vmovaps 0xc0(%rbx), %ymm3
	vmovapd %ymm3, 0xc0(%rbx)
	vmovss 0x10(%rbx), %xmm0
	vmovsd %xmm0, 0x10(%rbx)
	vmovd 0x10(%rbx), %xmm0
	vmovq 0x10(%rbx), %xmm0
	vmovd %xmm0, 0x14(%rbx)
	vmovq %xmm0, 0x18(%rbx)
	vmovq 0x10(%rbx,%rcx,8), %xmm9
	vmovdqu (%r12,%rcx,4), %ymm10
	vmovhps 0x10(%rbx), %xmm0, %xmm0
	vmovntdq %ymm0, 0xe0(%rbx)
	vlddqu 0x3(%rbx), %ymm0
	vmovddup 0x3(%rbx), %xmm0
	vpbroadcastb 0x11(%rbx), %ymm0
	vpbroadcastw 0x11(%rbx), %xmm0
	vpbroadcastd 0x11(%rbx), %ymm0
	vpbroadcastq 0x11(%rbx), %ymm0
	vbroadcastss 0x11(%rbx), %ymm0
	vbroadcastsd 0x11(%rbx), %ymm0
	vbroadcasti128 0x11(%rbx), %ymm0
	vpaddd 0x40(%rbx), %ymm0, %ymm0
	vpaddb 0x40(%rbx), %xmm0, %xmm0
	vpxor 0x40(%rbx), %ymm0, %ymm0
	vaddps 0x40(%rbx), %ymm0, %ymm0
	vaddsd 0x40(%rbx), %xmm0, %xmm0
	vmulss 0x40(%rbx), %xmm0, %xmm0
	vandpd 0x40(%rbx), %ymm0, %ymm0
	vpshufb 0x40(%rbx), %ymm0, %ymm0
	vpshufd $1, 0x40(%rbx), %ymm0
	vfmadd231ps 0x40(%rbx), %ymm1, %ymm0
	vfmadd231sd 0x40(%rbx), %xmm1, %xmm0
	vfmadd213ss 0x40(%rbx), %xmm1, %xmm0
	vpmovzxbd 0x40(%rbx), %ymm0
	vpmovsxwd 0x40(%rbx), %ymm0
	vcvtps2pd 0x40(%rbx), %ymm0
	vcvtdq2pd 0x40(%rbx), %ymm0
	vcvtph2ps 0x40(%rbx), %ymm0
	vinserti128 $1, 0x40(%rbx), %ymm0, %ymm0
	vextracti128 $1, %ymm0, 0x60(%rbx)
	vextractf128 $1, %ymm0, 0x60(%rbx)
	vpermq $1, 0x40(%rbx), %ymm0
	vperm2i128 $1, 0x40(%rbx), %ymm0, %ymm0
	vpextrb $1, %xmm0, 0x70(%rbx)
	vpinsrq $1, 0x40(%rbx), %xmm0, %xmm0
	vptest 0x40(%rbx), %ymm0
	vpcmpeqd 0x40(%rbx), %ymm0, %ymm0
	vblendvps %ymm1, 0x40(%rbx), %ymm0, %ymm0
	vcvtsi2sdq 0x40(%rbx), %xmm0, %xmm0
	vucomiss 0x40(%rbx), %xmm0
	andn 0x40(%rbx), %eax, %edx
	shlx %rax, 0x40(%rbx), %rdx
	rorx $3, 0x40(%rbx), %rdx
	mulx 0x40(%rbx), %rax, %rdx
	vzeroupper
	pop %r12
	pop %rbp
	pop %rbx
vmt_forms_avx_end:
	mov vmt_saved_rsp(%rip), %rsp
	ret

	.data
	.balign 8
vmt_leaf_ptr:
	.quad vmt_leaf

	.bss
	.balign 4096
	.globl vmt_buf
vmt_buf:
	.skip 0x14000
vmt_stack:
	.skip 8192
vmt_stack_top:
	.skip 64
vmt_saved_rsp:
	.skip 8

	.section .note.GNU-stack, "", @progbits
