// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-exact-bench ACCESSES PERCENT: ACCESSES 8-byte accesses (loads and
 * stores in turn: a load reads what the store before wrote), PERCENT of
 * every 100 of them to one page mapped at EXACT_BASE (0x10000000000), the
 * rest spread over a 1 MiB buffer, for exact mode's benchmark against
 * valgrind's lackey (tests/vm/bench/exact.sh).
 * Prints the seconds the accesses took (CLOCK_MONOTONIC) and a checksum.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "prog.h"

#define EXACT_BASE	0x10000000000UL
#define WORDS		(1 << 17)	/* 1 MiB of 8-byte words */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long accesses = argc > 1 ? atol(argv[1]) : 0, percent = argc > 2 ? atol(argv[2]) : -1;
	volatile uint64_t *exact, *plain;
	uint64_t sum = 0;
	double t;

	if (accesses < 1 || percent < 0 || percent > 100)
		die("usage: vmt-exact-bench ACCESSES PERCENT");
	exact = mmap((void *)EXACT_BASE, 4096, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_POPULATE, -1, 0);
	plain = mmap(NULL, WORDS * 8, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (exact != (void *)EXACT_BASE || plain == MAP_FAILED)
		die("mmap");
	t = now();
	for (long i = 0; i < accesses; i++) {
		/* A load reads the word the store before it wrote. */
		long k = i / 2;
		volatile uint64_t *p = k % 100 < percent ? exact + (k * 7) % 512 :
					plain + (k * 4099) % WORDS;

		if (i & 1)
			sum += *p;
		else
			*p = (uint64_t)i;
	}
	t = now() - t;
	printf("%.6f %llu\n", t, (unsigned long long)sum);
	return 0;
}
