// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-exact: a known sequence of loads and stores to a buffer of 3 pages
 * mapped at EXACT_BASE (0x10000000000), for exact mode's tests
 * (tests/vm/guest/exact.sh): every size (1, 2, 4, 8, 16 and, with AVX, 32
 * bytes), unaligned, across a page end, locked read-modify-writes, rep
 * movsb, and push, pop, pushf and popf on a stack inside the buffer. Each
 * access is one instruction of inline assembly, so the compiler adds or
 * merges none.
 *
 * Then it reads a word of each of 16 pages of a file it maps at
 * FILE_BASE (0x10000100000), /tmp/vmt-exact.file, after the kernel-mode
 * copy of a read(2).
 *
 * The buffer is mapped with MAP_POPULATE (its pages zero-filled by the
 * kernel, which no fault of the program's shows) after tracing started.
 * Prints each access it makes, in order, as `vmtrace dump` prints an exact
 * record's fields: "addr=0x... size=N access=R|W|RW value=...": the value
 * a little-endian number up to 8 bytes, hex bytes in memory order beyond;
 * an access across a page end as its two pages' parts.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prog.h"

#define EXACT_BASE	0x10000000000UL
#define FILE_BASE	0x10000100000UL	/* FILE_PAGES pages of a file */
#define FILE_PAGES	16
#define CODE_BASE	0x10000200000UL	/* a page of code */
#define PAGE		4096UL

static unsigned char *buf;

static void show(void *p, unsigned int size, const char *access, const void *value)
{
	const unsigned char *v = value;
	uint64_t n = 0;

	printf("addr=0x%lx size=%u access=%s value=", (unsigned long)p, size, access);
	if (!size) {
		printf("-\n");
	} else if (size <= 8) {
		for (unsigned int i = size; i-- > 0;)
			n = n << 8 | v[i];
		printf("0x%llx\n", (unsigned long long)n);
	} else {
		for (unsigned int i = 0; i < size; i++)
			printf("%02x", v[i]);
		printf("\n");
	}
}

/* An access of @size bytes at @p, split where it crosses a page end. */
static void show_split(void *p, unsigned int size, const char *access, const void *value)
{
	unsigned long first = PAGE - ((unsigned long)p & (PAGE - 1));

	if (size <= first) {
		show(p, size, access, value);
		return;
	}
	show(p, first, access, value);
	show((char *)p + first, size - first, access, (const char *)value + first);
}

static void stores_and_loads(void)
{
	uint8_t b = 0x11, rb;
	uint16_t w = 0x2233, rw;
	uint32_t d = 0x44556677, rd;
	uint64_t q = 0x8899aabbccddeeffULL, rq, across = 0x0102030405060708ULL;
	unsigned char x[16], rx[16];

	for (int i = 0; i < 16; i++)
		x[i] = (unsigned char)(0xa0 + i);
	__asm__ volatile("movb %1, %0" : "=m"(buf[1]) : "q"(b));
	show(buf + 1, 1, "W", &b);
	__asm__ volatile("movw %1, %0" : "=m"(*(uint16_t *)(buf + 3)) : "r"(w));
	show(buf + 3, 2, "W", &w);
	__asm__ volatile("movl %1, %0" : "=m"(*(uint32_t *)(buf + 9)) : "r"(d));
	show(buf + 9, 4, "W", &d);
	__asm__ volatile("movq %1, %0" : "=m"(*(uint64_t *)(buf + 17)) : "r"(q));
	show(buf + 17, 8, "W", &q);
	__asm__ volatile("movdqu %1, %%xmm0\n\tmovdqu %%xmm0, %0"
		     : "=m"(*(unsigned char (*)[16])(buf + 33)) : "m"(x) : "xmm0");
	show(buf + 33, 16, "W", x);

	__asm__ volatile("movb %1, %0" : "=q"(rb) : "m"(buf[1]));
	show(buf + 1, 1, "R", &rb);
	__asm__ volatile("movzwl %1, %k0" : "=r"(rd) : "m"(*(uint16_t *)(buf + 3)));
	rw = (uint16_t)rd;
	show(buf + 3, 2, "R", &rw);
	__asm__ volatile("movl %1, %0" : "=r"(rd) : "m"(*(uint32_t *)(buf + 9)));
	show(buf + 9, 4, "R", &rd);
	__asm__ volatile("movq %1, %0" : "=r"(rq) : "m"(*(uint64_t *)(buf + 17)));
	show(buf + 17, 8, "R", &rq);
	__asm__ volatile("movdqu %1, %%xmm1\n\tmovdqu %%xmm1, %0"
		     : "=m"(rx) : "m"(*(unsigned char (*)[16])(buf + 33)) : "xmm1");
	show(buf + 33, 16, "R", rx);

	/* 8 bytes across the end of the first page. */
	__asm__ volatile("movq %1, %0" : "=m"(*(uint64_t *)(buf + PAGE - 4)) : "r"(across));
	show_split(buf + PAGE - 4, 8, "W", &across);
	__asm__ volatile("movq %1, %0" : "=r"(rq) : "m"(*(uint64_t *)(buf + PAGE - 4)));
	show_split(buf + PAGE - 4, 8, "R", &rq);
}

static void avx(void)
{
	const char *want = getenv("VMT_EXACT_AVX");
	unsigned char y[32], ry[32];

	/* VMT_EXACT_AVX=0: as on a CPU without AVX (valgrind's, in some guests). */
	if (!__builtin_cpu_supports("avx") || (want && !atoi(want)))
		return;
	for (int i = 0; i < 32; i++)
		y[i] = (unsigned char)(0x40 + i);
	__asm__ volatile("vmovdqu %1, %%ymm0\n\tvmovdqu %%ymm0, %0\n\tvzeroupper"
		     : "=m"(*(unsigned char (*)[32])(buf + 70)) : "m"(y) : "xmm0");
	show(buf + 70, 32, "W", y);
	__asm__ volatile("vmovdqu %1, %%ymm1\n\tvmovdqu %%ymm1, %0\n\tvzeroupper"
		     : "=m"(ry) : "m"(*(unsigned char (*)[32])(buf + 70)) : "xmm1");
	show(buf + 70, 32, "R", ry);
}

static void locked(void)
{
	uint32_t *a = (uint32_t *)(buf + 128);
	uint64_t *x = (uint64_t *)(buf + 136), add = 5, old;
	uint32_t expect, v;

	__asm__ volatile("lock addl $7, %0" : "+m"(*a));
	v = 7;
	show(a, 4, "RW", &v);
	__asm__ volatile("lock xaddq %0, %1" : "+r"(add), "+m"(*x));
	old = 5;
	show(x, 8, "RW", &old);
	expect = 7;
	v = 0x1234;
	__asm__ volatile("lock cmpxchgl %2, %1" : "+a"(expect), "+m"(*a) : "r"(v));
	show(a, 4, "RW", &v);
}

static void string_move(void)
{
	unsigned char *src = buf + 256, *dst = buf + 512;
	uint64_t value = 0x1122334455667788ULL;
	const unsigned char *bytes = (const unsigned char *)&value;
	unsigned long n = 8;
	void *s = src, *d = dst;

	__asm__ volatile("movq %1, %0" : "=m"(*(uint64_t *)src) : "r"(value));
	show(src, 8, "W", &value);
	__asm__ volatile("cld\n\trep movsb" : "+S"(s), "+D"(d), "+c"(n) : : "memory");
	/* The program's own reads of the buffer would be traced: values from @value. */
	for (int i = 0; i < 8; i++) {
		show(src + i, 1, "R", bytes + i);
		show(dst + i, 1, "W", bytes + i);
	}
}

/* push, pop, pushf and popf with the stack pointer inside the buffer. */
static void stack(void)
{
	uint64_t top = EXACT_BASE + 3 * PAGE - 64, value = 0x5566778899aabbccULL;
	uint64_t popped, flags, flags_popped;

	__asm__ volatile("movq %%rsp, %%r12\n\t"
		     "movq %4, %%rsp\n\t"
		     "pushq %3\n\t"
		     "popq %0\n\t"
		     "pushfq\n\t"
		     "popq %1\n\t"
		     "pushq %1\n\t"
		     "popfq\n\t"
		     "movq %1, %2\n\t"
		     "movq %%r12, %%rsp"
		     : "=&r"(popped), "=&r"(flags), "=&r"(flags_popped)
		     : "r"(value), "r"(top) : "r12", "memory", "cc");
	show((void *)(top - 8), 8, "W", &value);
	show((void *)(top - 8), 8, "R", &popped);
	show((void *)(top - 8), 8, "W", &flags);
	show((void *)(top - 8), 8, "R", &flags);
	show((void *)(top - 8), 8, "W", &flags);
	show((void *)(top - 8), 8, "R", &flags_popped);
	if (flags & 0x100)
		die("pushf saw the trap flag");
}

/*
 * The kernel's access: read(2) from a pipe into the buffer. Its copy is
 * logged at its first fault, without a size (kernel mode is not stepped).
 */
static void kernel_copy(void)
{
	char text[16] = "from the kernel";
	int fds[2];

	if (pipe(fds) || write(fds[1], text, sizeof(text)) != sizeof(text))
		die("pipe");
	if (read(fds[0], buf + 1024, sizeof(text)) != sizeof(text))
		die("read into the buffer");
	show(buf + 1024, 0, "W", text);
	close(fds[0]);
	close(fds[1]);
}

/*
 * A file's pages at FILE_BASE, read one word a page: each read faults once,
 * though the kernel maps a read fault's neighbours in the page cache along
 * (fault-around), which the module protects again.
 */
static void file_reads(void)
{
	static const char path[] = "/tmp/vmt-exact.file";
	uint64_t words[FILE_PAGES * PAGE / 8];
	volatile uint64_t *f;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	for (unsigned long i = 0; i < sizeof(words) / 8; i++)
		words[i] = 0xf11e000000000000ULL | i;
	if (fd < 0 || write(fd, words, sizeof(words)) != (ssize_t)sizeof(words))
		die("the file");
	f = mmap((void *)FILE_BASE, sizeof(words), PROT_READ, MAP_PRIVATE | MAP_FIXED_NOREPLACE,
		 fd, 0);
	if (f != (void *)FILE_BASE)
		die("mmap of the file at FILE_BASE");
	for (unsigned long pg = 0; pg < FILE_PAGES; pg++) {
		uint64_t v;

		__asm__ volatile("movq %1, %0" : "=r"(v) : "m"(f[pg * PAGE / 8]));
		show((void *)(f + pg * PAGE / 8), 8, "R", &v);
	}
	munmap((void *)f, sizeof(words));
	close(fd);
	unlink(path);
}

/*
 * Code on an exact page: a function of three instructions copied to
 * CODE_BASE, called twice. Each instruction's fetch is logged (access X),
 * its bytes as the value.
 */
static void code_fetches(void)
{
	static const unsigned char fn[] = {
		0x48, 0x89, 0xf8,		/* mov %rdi, %rax */
		0x48, 0x83, 0xc0, 0x01,		/* add $1, %rax */
		0xc3,				/* ret */
	};
	static const unsigned int lens[] = { 3, 4, 1 };
	unsigned char *code = mmap((void *)CODE_BASE, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	long (*f)(long);
	int mem = open("/proc/self/mem", O_RDWR);

	if (code != (void *)CODE_BASE || mem < 0)
		die("mmap at CODE_BASE");
	/* Written by the kernel, so that no store of the program's is in the trace. */
	if (pwrite(mem, fn, sizeof(fn), (off_t)CODE_BASE) != (ssize_t)sizeof(fn))
		die("writing the code through /proc/self/mem");
	close(mem);
	f = (long (*)(long))(void *)code;
	for (int call = 0; call < 2; call++) {
		if (f(call) != call + 1)
			die("the copied function");
		for (unsigned int i = 0, off = 0; i < 3; off += lens[i++])
			show(code + off, lens[i], "X", fn + off);
	}
}

int main(void)
{
	buf = mmap((void *)EXACT_BASE, 3 * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_POPULATE, -1, 0);
	if (buf != (void *)EXACT_BASE)
		die("mmap at EXACT_BASE");
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	stores_and_loads();
	avx();
	locked();
	string_move();
	stack();
	kernel_copy();
	file_reads();
	code_fetches();
	return 0;
}
