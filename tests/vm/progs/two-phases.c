// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-two-phases [PAGES [PASSES]]: two phases of different behaviour, each
 * between two markers, as HMTT's I-Codes marked a program's phases: marker
 * 1, PASSES sweeps over a buffer of PAGES pages (default 2048 and 4) in
 * order, a write to each page; marker 2; marker 3, as many writes to the
 * same pages in a random order (a fixed-seed shuffle, a new one each
 * pass); marker 4. Prints the buffer's range, "buffer 0xSTART-0xEND", and
 * "pages N passes P". Traced with --protect -n 0,
 * each write is a reference: the first phase's pages step by one page, the
 * second's at random (tests/vm/guest/hmtt-phases.sh).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <vmtrace_marker.h>

#include "prog.h"

#define PAGE 4096UL

int main(int argc, char **argv)
{
	unsigned long pages = argc > 1 ? strtoul(argv[1], NULL, 0) : 2048;
	unsigned long passes = argc > 2 ? strtoul(argv[2], NULL, 0) : 4;
	unsigned long *order;
	volatile char *buf;

	if (!pages || !passes)
		die("vmt-two-phases: PAGES and PASSES must be more than 0");
	buf = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	order = calloc(pages, sizeof(*order));
	if (buf == MAP_FAILED || !order)
		die("vmt-two-phases: memory");
	for (unsigned long i = 0; i < pages; i++)
		order[i] = i;
	if (vmt_marker(1, "sequential"))
		die("vmt-two-phases: marker 1");
	for (unsigned long p = 0; p < passes; p++)
		for (unsigned long i = 0; i < pages; i++)
			buf[i * PAGE] = (char)p;
	if (vmt_marker(2, "sequential done") || vmt_marker(3, "random"))
		die("vmt-two-phases: markers 2 and 3");
	for (unsigned long p = 0; p < passes; p++) {
		for (unsigned long i = pages - 1; i > 0; i--) {
			unsigned long j = prog_random() % (i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (unsigned long i = 0; i < pages; i++)
			buf[order[i] * PAGE] = (char)p;
	}
	if (vmt_marker(4, "random done"))
		die("vmt-two-phases: marker 4");
	printf("buffer %p-%p\npages %lu passes %lu\n", (void *)buf, (void *)(buf + pages * PAGE),
	       pages, passes);
	return 0;
}
