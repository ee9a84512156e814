// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-ksm DIR protected|enabled: traced pages merged by KSM, written (copy
 * on write breaks the sharing) and unmerged.
 *
 * 64 identical pages (no THP), MADV_MERGEABLE, then 160 scratch pages of
 * their own, not mergeable, all written before tracing. Reading the scratch
 * pages (a sweep) admits 160 pages to the enabled set: with a FIFO set of
 * fewer, none of the buffer's pages is enabled after.
 *
 * Writes the buffer's address to DIR/base, creates DIR/ready and waits for
 * SIGUSR1 (tracing is on). enabled: reads every page (pass 0), so that the
 * pages are in the enabled set when KSM merges them; protected: touches
 * none, so that they are protected. Then creates DIR/read and waits for
 * SIGUSR1 (KSM has merged the pages), then, one pass over the pages at a
 * time, always from the first page to the last:
 *   pass 1: reads every page (checking its contents); sweeps;
 *   pass 2: writes the first word of every even page; sweeps;
 *   pass 3: reads every page (checking its contents); sweeps;
 *   creates DIR/written and waits for SIGUSR1 (KSM has unmerged the pages);
 *   pass 4: reads every page (checking its contents), and exits.
 * Each pass's first access to a page is at its first byte.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prog.h"

#define PAGES 64
#define SCRATCH 160
#define WORDS (4096 / sizeof(uint64_t))

static volatile uint64_t *buf, *scratch;

/* The same in every page; the first word of an even page once written. */
static uint64_t word(size_t i)
{
	return 0x6b736d00000000ULL | i;
}

static uint64_t written(long page)
{
	return 0x636f7700000000ULL | (uint64_t)page;
}

static void check(int wrote)
{
	for (long p = 0; p < PAGES; p++)
		for (size_t i = 0; i < WORDS; i++) {
			uint64_t want = wrote && !(p % 2) && !i ? written(p) : word(i);

			if (buf[p * WORDS + i] != want) {
				fprintf(stderr, "vmt-ksm: page %ld word %zu: 0x%llx, not 0x%llx\n",
					p, i, (unsigned long long)buf[p * WORDS + i],
					(unsigned long long)want);
				exit(1);
			}
		}
}

static void sweep(void)
{
	for (long p = 0; p < SCRATCH; p++)
		if (scratch[p * WORDS] != (uint64_t)p + 1) {
			fprintf(stderr, "vmt-ksm: scratch page %ld\n", p);
			exit(1);
		}
}

int main(int argc, char **argv)
{
	char text[64];
	sigset_t set;

	if (argc != 3 || (strcmp(argv[2], "protected") && strcmp(argv[2], "enabled"))) {
		fprintf(stderr, "usage: vmt-ksm DIR protected|enabled\n");
		return 2;
	}
	buf = mmap(NULL, (PAGES + SCRATCH) * 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	scratch = buf + PAGES * WORDS;
	if (madvise((void *)buf, (PAGES + SCRATCH) * 4096, MADV_NOHUGEPAGE) ||
	    madvise((void *)buf, PAGES * 4096, MADV_MERGEABLE))
		die("madvise");
	for (long p = 0; p < PAGES; p++)
		for (size_t i = 0; i < WORDS; i++)
			buf[p * WORDS + i] = word(i);
	for (long p = 0; p < SCRATCH; p++)
		scratch[p * WORDS] = p + 1;
	block_usr1(&set);
	snprintf(text, sizeof(text), "%p\n", (void *)buf);
	put(argv[1], "base", text);
	put(argv[1], "ready", "");
	wait_usr1(&set);

	if (!strcmp(argv[2], "enabled"))
		check(0);
	put(argv[1], "read", "");
	wait_usr1(&set);
	check(0);
	sweep();
	for (long p = 0; p < PAGES; p += 2)
		buf[p * WORDS] = written(p);
	sweep();
	check(1);
	sweep();
	put(argv[1], "written", "");
	wait_usr1(&set);
	check(1);
	return 0;
}
