// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-exact-all: a program whose own accesses are known, for exact mode's
 * "all" (tests/vm/guest/exact-all.sh, and exact mode against lackey):
 *
 *   vmt-exact-all          execs itself as "vmt-exact-all run", which
 *   vmt-exact-all run      maps an array at ARRAY (mmap), runs the loop
 *                          below over it PASSES times, moves it (mremap)
 *                          and runs the loop once over its new place, runs
 *                          the loop over a block brk gave (sbrk), unmaps
 *                          the array, asks the clock through the vDSO, and
 *                          walks WALK_STEPS pseudo-random steps over a
 *                          256 KiB table at WALK (a load and a store each),
 *                          and forks a child that exits at once (exit
 *                          status 1 unless it exits 0).
 *
 * The loop is 6 instructions an element: a load and a store of it (8
 * bytes each: the load reads the pass number, the store writes one more).
 * The array and the table are at fixed addresses, so that --exact can name
 * them before the program runs, and traces of two runs (vmtrace's and
 * valgrind's) compare address for address; the program's own code runs
 * the same instructions in both (it reads no file whose length differs).
 * With VMT_EXACT_ALL_CHECK=1 it also prints, after each mapping change,
 * whether /sys/kernel/vmtrace/exact lists a range of this process over it,
 * and where the vDSO is. Prints KEY VALUE lines: the loop's bounds, the
 * program's own code, the counts and addresses.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "prog.h"

#define ARRAY		0x10000000000UL
#define ELEMENTS	1000	/* 8,000 bytes: across two pages */
#define PASSES		3
#define HEAP_ELEMENTS	500
#define WALK		0x10000100000UL
#define WALK_BYTES	(256 * 1024)
#define WALK_STEPS	20000

/* exact_loop(a, n): a[i] += 1 for i < n, an instruction an element at a time. */
void exact_loop(uint64_t *a, uint64_t n);
extern const char exact_loop_body[], exact_loop_end[];
__asm__(".text\n"
	".globl exact_loop\n"
	".type exact_loop, @function\n"
	"exact_loop:\n"
	"	xor %ecx, %ecx\n"
	".globl exact_loop_body\n"
	"exact_loop_body:\n"
	"	mov (%rdi,%rcx,8), %rax\n"
	"	add $1, %rax\n"
	"	mov %rax, (%rdi,%rcx,8)\n"
	"	inc %rcx\n"
	"	cmp %rsi, %rcx\n"
	"	jb exact_loop_body\n"
	".globl exact_loop_end\n"
	"exact_loop_end:\n"
	"	ret\n"
	".size exact_loop, . - exact_loop\n");

static int check;
/* The program's own code, as the linker lays it out: from its first byte to its text's end. */
extern const char __executable_start[], etext[];

/* Whether the module lists a range of this process over @addr. */
static void covered(const char *what, const void *addr)
{
	unsigned long a = (unsigned long)addr, start, end;
	char line[512];
	int pid, yes = 0;
	FILE *f;

	if (!check)
		return;
	f = fopen("/sys/kernel/vmtrace/exact", "r");
	if (!f)
		die("/sys/kernel/vmtrace/exact");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %lx-%lx", &pid, &start, &end) == 3 && pid == getpid() &&
		    start <= a && a < end)
			yes = 1;
	fclose(f);
	printf("covered-%s %d\n", what, yes);
}

/* The first address of the mapping /proc/self/maps names @name, or 0. */
static unsigned long mapping(const char *name, unsigned long *end)
{
	unsigned long start = 0, s, e;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		die("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, name) && sscanf(line, "%lx-%lx", &s, &e) == 2 && !start) {
			start = s;
			*end = e;
		}
	fclose(f);
	return start;
}

/*
 * WALK_STEPS steps over the table, each a load and a store of the word a
 * linear congruential generator picks: misses in small caches, hits in
 * large ones.
 */
static void walk(void)
{
	volatile uint64_t *t = mmap((void *)WALK, WALK_BYTES, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	uint64_t x = 1;

	if (t != (void *)WALK)
		die("mmap at WALK");
	for (int i = 0; i < WALK_STEPS; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		t[(x >> 33) % (WALK_BYTES / sizeof(uint64_t))] += 1;
	}
}

/*
 * mremap over a mapping (MREMAP_FIXED) unmaps it: its range goes, and a
 * PROT_NONE mapping moved there, which "all" does not trace, has none.
 */
static void replace(void)
{
	size_t map = 2 * 4096;
	void *victim = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *none = mmap(NULL, map, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (victim == MAP_FAILED || none == MAP_FAILED)
		die("mmap");
	covered("mremap-victim", victim);
	if (mremap(none, map, map, MREMAP_MAYMOVE | MREMAP_FIXED, victim) != victim)
		die("mremap over a mapping");
	covered("mremap-replaced", victim);
	if (munmap(victim, map))
		die("munmap");
}

/*
 * A page of memfd_secret(): not in the kernel's direct map, so not one
 * "all" traces (the module would read it through that map). Prints
 * covered-secret 0 where the kernel offers no such memory (6.1 without
 * secretmem.enable=1).
 */
static void secret(void)
{
	long fd = syscall(SYS_memfd_secret, 0);
	volatile char *p;

	if (fd < 0) {
		printf("covered-secret 0\nsecret none\n");
		return;
	}
	if (ftruncate(fd, 4096))
		die("ftruncate");
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		die("mmap of secret memory");
	p[0] = 1;
	covered("secret", (void *)p);
	if (p[0] != 1 || munmap((void *)p, 4096) || close(fd))
		die("secret memory");
}

static int run(void)
{
	size_t size = ELEMENTS * sizeof(uint64_t), map = 4 * 4096;
	unsigned long vdso_end = 0, vvar_end = 0, vdso = 0, vvar = 0;
	uint64_t *a, *b, *h;
	struct timespec ts;
	int status = 0;
	pid_t child;
	void *hole;

	a = mmap((void *)ARRAY, map, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (a != (void *)ARRAY)
		die("mmap at ARRAY");
	covered("mmap", a);
	for (int p = 0; p < PASSES; p++)
		exact_loop(a, ELEMENTS);
	/* A place for the array's move: reserved, then taken over by mremap. */
	hole = mmap(NULL, 2 * map, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED)
		die("mmap");
	b = mremap(a, map, 2 * map, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	if (b == MAP_FAILED)
		die("mremap");
	covered("mremap-old", a);
	covered("mremap-new", b);
	if (check)
		replace();
	exact_loop(b, ELEMENTS);
	h = sbrk(HEAP_ELEMENTS * sizeof(uint64_t));
	if (h == (void *)-1)
		die("sbrk");
	covered("brk", h);
	exact_loop(h, HEAP_ELEMENTS);
	if (munmap(b, 2 * map))
		die("munmap");
	covered("munmap", b);
	if (check)
		secret();
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die("clock_gettime");
	if (check) {
		vdso = mapping("[vdso]", &vdso_end);
		vvar = mapping("[vvar]", &vvar_end);
		covered("vdso", (void *)vdso);
		covered("vvar", (void *)vvar);
	}
	walk();
	/* A stepped fork's child with the module's trap flag would die of SIGTRAP. */
	child = fork();
	if (child < 0)
		die("fork");
	if (!child)
		_exit(0);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "vmt-exact-all: the forked child ended with status %#x\n", status);
		exit(1);
	}
	printf("loop %p-%p\n", (void *)exact_loop_body, (void *)exact_loop_end);
	printf("loop-insns 6\n");
	printf("elements %d\n", ELEMENTS);
	printf("passes %d\n", PASSES);
	printf("heap-elements %d\n", HEAP_ELEMENTS);
	printf("array %p-%p\n", (void *)a, (void *)((char *)a + size));
	printf("moved %p-%p\n", (void *)b, (void *)((char *)b + size));
	printf("heap %p-%p\n", (void *)h, (void *)(h + HEAP_ELEMENTS));
	printf("walk %lx-%lx\n", WALK, WALK + WALK_BYTES);
	printf("walk-steps %d\n", WALK_STEPS);
	printf("text %p-%p\n", (void *)__executable_start, (void *)etext);
	if (check) {
		printf("vdso %lx-%lx\n", vdso, vdso_end);
		printf("vvar %lx-%lx\n", vvar, vvar_end);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *again[] = { argv[0], "run", NULL };
	const char *c = getenv("VMT_EXACT_ALL_CHECK");

	check = c && *c == '1';
	if (argc > 1 && !strcmp(argv[1], "run"))
		return run();
	execv("/proc/self/exe", again);
	die("execv");
}
