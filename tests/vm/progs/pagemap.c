// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-pagemap DIR NPAGES: page frames to compare with a trace's.
 *
 * Maps NPAGES anonymous pages and writes each (present before tracing
 * starts), writes the buffer's address to DIR/base, creates DIR/ready and
 * waits for SIGUSR1. Then it reads each page once (with the pages
 * protected, each read is logged with its frame), reads its own
 * /proc/self/pagemap for them and writes "ADDRESS PFN" lines (hex) to
 * DIR/pagemap, unmaps the buffer and exits.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "prog.h"

static FILE *open_in(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		die(path);
	return f;
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[2]) : 0;
	volatile char *buf;
	uint64_t entry;
	char text[64];
	sigset_t set;
	int fd;
	FILE *f;

	if (n <= 0) {
		fprintf(stderr, "usage: vmt-pagemap DIR NPAGES\n");
		return 2;
	}
	buf = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	for (long i = 0; i < n; i++)
		buf[i * 4096] = (char)i;
	block_usr1(&set);
	snprintf(text, sizeof(text), "%p\n", (void *)buf);
	put(argv[1], "base", text);
	put(argv[1], "ready", "");
	wait_usr1(&set);

	for (long i = 0; i < n; i++)
		if (buf[i * 4096] != (char)i)
			die("page contents");
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		die("/proc/self/pagemap");
	f = open_in(argv[1], "pagemap");
	for (long i = 0; i < n; i++) {
		uintptr_t addr = (uintptr_t)buf + i * 4096;

		if (pread(fd, &entry, 8, (off_t)(addr / 4096 * 8)) != 8)
			die("pagemap read");
		/* Bit 63: present; bits 0-54: the frame (root sees it). */
		fprintf(f, "0x%lx 0x%llx\n", (unsigned long)addr,
			(entry >> 63) ? (unsigned long long)(entry & ((1ULL << 55) - 1)) : 0ULL);
	}
	fclose(f);
	close(fd);
	if (munmap((void *)buf, n * 4096))
		die("munmap");
	return 0;
}
