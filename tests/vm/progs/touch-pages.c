// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-touch-pages DIR NPAGES SEQUENCE: a process whose references are known.
 *
 * Maps NPAGES anonymous pages and writes each (so they are present before
 * tracing starts), writes the buffer's address to DIR/base, creates
 * DIR/ready and waits for SIGUSR1. Then it makes the accesses SEQUENCE lists,
 * in order, and exits. SEQUENCE is comma-separated PAGE(r|w) items, e.g.
 * "0r,1w,0r": access k reads or writes the byte at PAGE * 4096 + 8 * (k % 512).
 *
 * All accesses go through one instruction in one function that sits alone on
 * its page, so the only other pages the access loop needs are that one, the
 * loop's and the stack.
 *
 * With VMT_TOUCH_HUGE=1 in the environment, the buffer starts on a 2 MiB
 * boundary and is madvise(MADV_HUGEPAGE)d, so that with THP enabled it is
 * made of transparent huge pages; the program fails if it is not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_ACCESSES 4096
#define HUGE_SIZE (2UL << 20)

struct access {
	uint32_t page;
	uint32_t write;
};

static struct access accesses[MAX_ACCESSES];
static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

__attribute__((noinline, aligned(4096)))
static void touch(volatile uint64_t *p, uint32_t write)
{
	if (write)
		*p = (uint64_t)(uintptr_t)p;
	else
		(void)*p;
}

static int parse(const char *seq, uint32_t npages)
{
	int n = 0;

	while (*seq) {
		char *end;
		unsigned long page = strtoul(seq, &end, 10);

		if (end == seq || page >= npages || (*end != 'r' && *end != 'w') ||
		    n == MAX_ACCESSES)
			return -1;
		accesses[n].page = (uint32_t)page;
		accesses[n].write = *end == 'w';
		n++;
		seq = end + 1;
		if (*seq == ',')
			seq++;
		else if (*seq)
			return -1;
	}
	return n;
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* Whether /proc/self/smaps says the mapping at @buf is all AnonHugePages. */
static bool all_huge(const char *buf, size_t size)
{
	char line[256];
	unsigned long start, end, kb;
	bool in = false, ok = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2) {
			in = start <= (uintptr_t)buf && (uintptr_t)buf < end;
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			ok = kb * 1024 >= size;
	}
	fclose(f);
	return ok;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigset_t block, old;
	uint32_t npages;
	char text[64];
	bool huge;
	char *buf;
	int n;

	if (argc != 4) {
		fprintf(stderr, "usage: vmt-touch-pages DIR NPAGES SEQUENCE\n");
		return 2;
	}
	npages = (uint32_t)strtoul(argv[2], NULL, 10);
	n = npages ? parse(argv[3], npages) : -1;
	if (n < 0) {
		fprintf(stderr, "vmt-touch-pages: bad page count or sequence\n");
		return 2;
	}
	huge = getenv("VMT_TOUCH_HUGE") && !strcmp(getenv("VMT_TOUCH_HUGE"), "1");
	buf = mmap(NULL, (size_t)npages * 4096 + (huge ? HUGE_SIZE : 0),
		   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("vmt-touch-pages: mmap");
		return 1;
	}
	if (huge) {
		buf = (char *)(((uintptr_t)buf + HUGE_SIZE - 1) & ~(HUGE_SIZE - 1));
		if (madvise(buf, (size_t)npages * 4096, MADV_HUGEPAGE)) {
			perror("vmt-touch-pages: madvise(MADV_HUGEPAGE)");
			return 1;
		}
	}
	for (uint32_t i = 0; i < npages; i++)
		memset(buf + (size_t)i * 4096, 0x5a, 4096);
	if (huge && !all_huge(buf, (size_t)npages * 4096)) {
		fprintf(stderr, "vmt-touch-pages: the buffer is not all transparent huge pages\n");
		return 1;
	}

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGUSR1, &sa, NULL);
	snprintf(text, sizeof(text), "%#lx\n", (unsigned long)(uintptr_t)buf);
	if (write_file(argv[1], "base", text) || write_file(argv[1], "ready", "")) {
		perror("vmt-touch-pages: writing to DIR");
		return 1;
	}
	while (!go)
		sigsuspend(&old);

	for (int k = 0; k < n; k++)
		touch((volatile uint64_t *)(buf + (size_t)accesses[k].page * 4096 +
					    8 * (size_t)(k % 512)),
		      accesses[k].write);
	return 0;
}
