// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-remap DIR split|migrate: pages the kernel maps anew behind the
 * tracer's back.
 *
 * split: a transparent huge page (2 MiB, written whole before tracing);
 * MADV_DONTNEED on its first 4 KiB splits it into 512 PTEs, present.
 * migrate: 64 pages (no THP); MADV_SOFT_OFFLINE on the first 32 moves them
 * to other frames (page migration), mapped back present.
 *
 * Writes the buffer's address to DIR/base, creates DIR/ready and waits for
 * SIGUSR1 (tracing is on); makes the change, creates DIR/changed and waits
 * for SIGUSR1 again; then reads every page (checking its contents; the
 * first page of split is zero now) and exits.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prog.h"

#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE 101
#endif
#define HUGE (2UL << 20)

/* Whether this process has anonymous huge pages. */
static int has_thp(void)
{
	char line[256];
	long kb = 0;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		die("smaps_rollup");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb > 0;
}

int main(int argc, char **argv)
{
	int split = argc == 3 && !strcmp(argv[2], "split");
	long pages = split ? HUGE / 4096 : 64;
	char text[64], *raw;
	volatile char *buf;
	sigset_t set;

	if (argc != 3 || (!split && strcmp(argv[2], "migrate"))) {
		fprintf(stderr, "usage: vmt-remap DIR split|migrate\n");
		return 2;
	}
	raw = mmap(NULL, 2 * HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		die("mmap");
	buf = (char *)(((unsigned long)raw + HUGE - 1) & ~(HUGE - 1));
	if (madvise((void *)buf, HUGE, split ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		die("madvise");
	for (long i = 0; i < pages; i++)
		buf[i * 4096] = (char)(i + 1);
	if (split && !has_thp()) {
		fprintf(stderr, "vmt-remap: no transparent huge page\n");
		return 1;
	}
	block_usr1(&set);
	snprintf(text, sizeof(text), "%p\n", (void *)buf);
	put(argv[1], "base", text);
	put(argv[1], "ready", "");
	wait_usr1(&set);

	if (split ? madvise((void *)buf, 4096, MADV_DONTNEED) :
		    madvise((void *)buf, 32 * 4096, MADV_SOFT_OFFLINE))
		die(split ? "MADV_DONTNEED" : "MADV_SOFT_OFFLINE");
	put(argv[1], "changed", "");
	wait_usr1(&set);

	for (long i = 0; i < pages; i++)
		if (buf[i * 4096] != (split && !i ? 0 : (char)(i + 1)))
			die("page contents");
	return 0;
}
