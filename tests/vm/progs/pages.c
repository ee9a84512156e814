// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-pages [PAGES [ACCESSES]]: a deterministic workload over a buffer of
 * PAGES pages (default 2048: 8 MiB), in three phases, for the measurements
 * of what a trace answers (tests/vm/bench/answers.sh):
 *   - loops: 5 sweeps over the first half of the buffer, page by page;
 *   - a hot set: ACCESSES accesses (default 100,000), 80% to 128 pages, the
 *     rest anywhere, drawn from a fixed-seed generator;
 *   - strides: every third page, 3 times over.
 * Each access writes a byte of its page, so the only pages touched besides
 * the buffer's are the program's own code, stack and libc.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "prog.h"

#define PAGE 4096UL

int main(int argc, char **argv)
{
	unsigned long pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 2048;
	unsigned long accesses = argc > 2 ? strtoul(argv[2], NULL, 0) : 100000;
	volatile unsigned char *buf;
	unsigned long i, r, p;

	if (pages < 256) {
		fprintf(stderr, "vmt-pages: at least 256 pages\n");
		return 2;
	}
	buf = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (buf == MAP_FAILED) {
		perror("vmt-pages: mmap");
		return 1;
	}
	for (r = 0; r < 5; r++)
		for (p = 0; p < pages / 2; p++)
			buf[p * PAGE]++;
	for (i = 0; i < accesses; i++) {
		uint64_t x = prog_random();

		p = x % 10 < 8 ? (x >> 8) % 128 : (x >> 8) % pages;
		buf[p * PAGE + (i % 64) * 64]++;
	}
	for (r = 0; r < 3; r++)
		for (p = 0; p < pages; p += 3)
			buf[p * PAGE]++;
	printf("vmt-pages: %lu pages, %lu accesses\n", pages,
	       5 * (pages / 2) + accesses + 3 * ((pages + 2) / 3));
	return 0;
}
