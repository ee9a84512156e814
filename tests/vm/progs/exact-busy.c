// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-exact-busy DIR: a process that keeps checking its data, for exact
 * mode's stop and rmmod test (tests/vm/guest/exact-lifecycle.sh). Maps two
 * pages at EXACT_BASE (0x10000000000), fills them with a pattern, creates
 * DIR/ready, then loops until DIR/stop exists: each pass checks the
 * pattern (DIR/corrupt when it differs), bumps a counter in each page, and
 * pushes and pops the flags (pushf, popf) with the trap flag checked.
 * Ends with DIR/done. A trap flag the module left behind kills it with
 * SIGTRAP.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prog.h"

#define EXACT_BASE	0x10000000000UL
#define WORDS		(2 * 4096 / 8)

int main(int argc, char **argv)
{
	volatile uint64_t *p;
	char stop[4096];
	uint64_t flags;

	if (argc != 2)
		die("usage: vmt-exact-busy DIR");
	p = mmap((void *)EXACT_BASE, 2 * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (void *)EXACT_BASE)
		die("mmap at EXACT_BASE");
	for (unsigned int i = 0; i < WORDS; i += 2)
		p[i] = 0x5a5a0000u + i;
	snprintf(stop, sizeof(stop), "%s/stop", argv[1]);
	put(argv[1], "ready", "");
	while (access(stop, F_OK)) {
		for (unsigned int i = 0; i < WORDS; i += 64)
			if (p[i] != 0x5a5a0000u + i)
				put(argv[1], "corrupt", "");
		p[1]++;
		p[WORDS - 1]++;
		__asm__ volatile("pushfq\n\tpopq %0\n\tpushq %0\n\tpopfq" : "=&r"(flags) : : "cc");
		if (flags & 0x100)
			put(argv[1], "corrupt", "");
	}
	put(argv[1], "done", "");
	return 0;
}
