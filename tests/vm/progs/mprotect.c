// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-mprotect DIR NPAGES: protection changes on traced pages.
 *
 * Maps NPAGES anonymous pages and writes each (present before tracing
 * starts), writes the buffer's address to DIR/base, creates DIR/ready and
 * waits for SIGUSR1. Then it makes the buffer read-only and read-write again
 * with mprotect(), reads every page (checking what it wrote), writes every
 * page, and exits. Under page protection, each of those reads and writes
 * outside the enabled set must be logged: mprotect must not leave the
 * tracer's protected pages mapped back unseen.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prog.h"

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[2]) : 0;
	char text[64];
	volatile char *buf;
	sigset_t set;

	if (n <= 0) {
		fprintf(stderr, "usage: vmt-mprotect DIR NPAGES\n");
		return 2;
	}
	buf = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	for (long i = 0; i < n; i++)
		buf[i * 4096] = (char)(i + 1);
	block_usr1(&set);
	snprintf(text, sizeof(text), "%p\n", (void *)buf);
	put(argv[1], "base", text);
	put(argv[1], "ready", "");
	wait_usr1(&set);

	if (mprotect((void *)buf, n * 4096, PROT_READ) ||
	    mprotect((void *)buf, n * 4096, PROT_READ | PROT_WRITE))
		die("mprotect");
	for (long i = 0; i < n; i++)
		if (buf[i * 4096] != (char)(i + 1))
			die("page contents after mprotect");
	for (long i = 0; i < n; i++)
		buf[i * 4096] = 0;
	return 0;
}
