// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-swap DIR: traced pages swapped out and back in.
 *
 * 64 pages (no THP), each filled with words that name its generation, page
 * and offset, written before tracing. The program runs on one CPU, so that
 * the pages it faults in are on that CPU's LRU batch, which MADV_PAGEOUT
 * drains first: every page can be isolated and reclaimed.
 *
 * Writes the buffer's address to DIR/base, creates DIR/ready and waits for
 * SIGUSR1 (tracing is on), then, one pass over the pages at a time, always
 * from the first page to the last:
 *   pass 0: reads every page (checking its contents);
 *   MADV_PAGEOUT on the buffer (again while a page is not swapped out, at
 *   most 20 times), writes how many are to DIR/paged1.txt, creates
 *   DIR/paged1, waits for SIGUSR1;
 *   pass 1: reads every page (swapped in), pass 2: reads them again;
 *   pass 3: writes every page with the next generation;
 *   MADV_PAGEOUT again, DIR/paged2.txt and DIR/paged2, waits for SIGUSR1;
 *   pass 4: reads every page (swapped in), and exits.
 * Each pass's first access to a page is at its first byte.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prog.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#define PAGES 64
#define WORDS (4096 / sizeof(uint64_t))

static uint64_t word(int gen, long page, size_t i)
{
	return (uint64_t)gen << 48 | (uint64_t)page << 16 | i;
}

static void fill(volatile uint64_t *buf, int gen)
{
	for (long p = 0; p < PAGES; p++)
		for (size_t i = 0; i < WORDS; i++)
			buf[p * WORDS + i] = word(gen, p, i);
}

static void check(volatile uint64_t *buf, int gen)
{
	for (long p = 0; p < PAGES; p++)
		for (size_t i = 0; i < WORDS; i++)
			if (buf[p * WORDS + i] != word(gen, p, i)) {
				fprintf(stderr, "vmt-swap: page %ld word %zu: 0x%llx, not 0x%llx\n",
					p, i, (unsigned long long)buf[p * WORDS + i],
					(unsigned long long)word(gen, p, i));
				exit(1);
			}
}

/* How many of the pages /proc/self/pagemap says are swapped out (bit 62). */
static int swapped(volatile uint64_t *buf)
{
	uint64_t e[PAGES];
	int fd = open("/proc/self/pagemap", O_RDONLY), n = 0;
	off_t off = (off_t)((uintptr_t)buf / 4096) * 8;

	if (fd < 0 || pread(fd, e, sizeof(e), off) != sizeof(e))
		die("/proc/self/pagemap");
	close(fd);
	for (int p = 0; p < PAGES; p++)
		n += (e[p] >> 62) & 1;
	return n;
}

/* Page the buffer out; write DIR/NAME.txt, saying how it went, then DIR/NAME. */
static void pageout(volatile uint64_t *buf, const char *dir, const char *name)
{
	char text[64], info[64];
	int tries = 0;

	do {
		if (madvise((void *)buf, PAGES * 4096, MADV_PAGEOUT))
			die("MADV_PAGEOUT");
	} while (++tries < 20 && swapped(buf) < PAGES);
	snprintf(text, sizeof(text), "%d swapped after %d MADV_PAGEOUT\n", swapped(buf), tries);
	snprintf(info, sizeof(info), "%s.txt", name);
	put(dir, info, text);
	put(dir, name, "");
}

int main(int argc, char **argv)
{
	volatile uint64_t *buf;
	char text[64];
	cpu_set_t cpus;
	sigset_t set;
	int cpu;

	if (argc != 2) {
		fprintf(stderr, "usage: vmt-swap DIR\n");
		return 2;
	}
	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		die("sched_getaffinity");
	for (cpu = 0; !CPU_ISSET(cpu, &cpus); cpu++)
		;
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		die("sched_setaffinity");

	buf = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	if (madvise((void *)buf, PAGES * 4096, MADV_NOHUGEPAGE))
		die("madvise");
	fill(buf, 1);
	block_usr1(&set);
	snprintf(text, sizeof(text), "%p\n", (void *)buf);
	put(argv[1], "base", text);
	put(argv[1], "ready", "");
	wait_usr1(&set);

	check(buf, 1);
	pageout(buf, argv[1], "paged1");
	wait_usr1(&set);
	check(buf, 1);
	check(buf, 1);
	fill(buf, 2);
	pageout(buf, argv[1], "paged2");
	wait_usr1(&set);
	check(buf, 2);
	return 0;
}
