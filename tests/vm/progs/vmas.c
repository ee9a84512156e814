// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-vmas DIR [hugetlb]: mappings page protection must pass over.
 *
 * Maps 4 anonymous pages and writes them; maps 4 more, writes them and
 * makes them inaccessible (mprotect PROT_NONE); with "hugetlb", maps one
 * 2 MiB hugetlb page and writes it. Creates DIR/ready and waits for SIGUSR1
 * (tracing was started and stopped meanwhile). Then checks every byte it
 * wrote where it may read, and that reading the PROT_NONE pages still
 * faults (SIGSEGV): stop must not have mapped them back.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prog.h"

static sigjmp_buf env;

static void on_segv(int sig)
{
	siglongjmp(env, sig);
}

static char *map_written(size_t len, int flags, char value)
{
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags,
		       -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	memset(p, value, len);
	return p;
}

static void check(const char *p, size_t len, char value, const char *what)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != value) {
			fprintf(stderr, "vmt-vmas: %s changed at byte %zu\n", what, i);
			exit(1);
		}
}

int main(int argc, char **argv)
{
	int hugetlb = argc == 3 && !strcmp(argv[2], "hugetlb");
	char *plain, *none, *huge = NULL;
	volatile char c;
	sigset_t set;

	if (argc < 2) {
		fprintf(stderr, "usage: vmt-vmas DIR [hugetlb]\n");
		return 2;
	}
	plain = map_written(4 * 4096, 0, 'p');
	none = map_written(4 * 4096, 0, 'n');
	if (mprotect(none, 4 * 4096, PROT_NONE))
		die("mprotect");
	if (hugetlb)
		huge = map_written(2 << 20, MAP_HUGETLB, 'h');
	block_usr1(&set);
	put(argv[1], "ready", "");
	wait_usr1(&set);

	check(plain, 4 * 4096, 'p', "a plain page");
	if (huge)
		check(huge, 2 << 20, 'h', "the hugetlb page");
	signal(SIGSEGV, on_segv);
	if (!sigsetjmp(env, 1)) {
		c = none[0];
		fprintf(stderr, "vmt-vmas: the PROT_NONE page could be read after tracing\n");
		return 1;
	}
	(void)c;
	printf("vmas: data intact; the PROT_NONE page still faults\n");
	return 0;
}
