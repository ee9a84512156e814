// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-fault-loop PAGES: a stream of PAGES first-touch page faults, timed.
 *
 * Maps PAGES fresh anonymous pages (THP is left to the caller to turn off),
 * writes one byte to each, in order, and prints the seconds that took; the
 * mapping and the exit are not timed. For `make bench`: the same fault
 * stream, untraced and under each tracer.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long pages;
	volatile char *buf;
	char *end;
	double t;

	if (argc != 2) {
		fprintf(stderr, "usage: vmt-fault-loop PAGES\n");
		return 2;
	}
	pages = strtoul(argv[1], &end, 10);
	if (*end || !pages || pages > (1UL << 24)) {
		fprintf(stderr, "vmt-fault-loop: bad page count '%s'\n", argv[1]);
		return 2;
	}
	buf = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("vmt-fault-loop: mmap");
		return 1;
	}
	t = now();
	for (unsigned long i = 0; i < pages; i++)
		buf[i * 4096] = 1;
	printf("%.6f\n", now() - t);
	return 0;
}
