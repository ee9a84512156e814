// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-malloc-phases: three phases half a second apart, for merging a trace
 * of malloc and free (LTTng's libc wrapper) with vmtrace's of the same run
 * (tests/vm/guest/lttng-merge.sh): malloc() of 4 MiB, which glibc maps with
 * mmap(); after 500 ms, a write to each of its pages; after 500 ms more,
 * free(), which unmaps it. Prints the block's address.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "prog.h"

#define SIZE	(4UL << 20)
#define PAGE	4096UL

static void pause_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts))
		;
}

int main(void)
{
	volatile char *block = malloc(SIZE);

	if (!block)
		die("malloc");
	printf("block %p, %lu bytes\n", (void *)block, SIZE);
	fflush(stdout);
	pause_ms(500);
	for (unsigned long off = 0; off < SIZE; off += PAGE)
		block[off] = 1;
	pause_ms(500);
	free((void *)block);
	return 0;
}
