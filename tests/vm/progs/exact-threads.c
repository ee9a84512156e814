// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-exact-threads THREADS ACCESSES [SIGNALS]: THREADS threads each make
 * ACCESSES accesses (stores and loads in turn, 8 bytes) to two shared
 * pages mapped at EXACT_BASE (0x10000000000), for exact mode's thread test
 * (tests/vm/guest/exact-threads.sh). With SIGNALS, the main thread sends
 * SIGUSR1 to the workers, one after another, until they are done, and the
 * handler makes one store to the pages too. Prints, per thread, its kernel
 * thread id and the accesses it made, handler included: "tid T accesses N".
 *
 * With VMT_EXACT_HUGE=1 in the environment, the buffer is instead a 2 MiB
 * transparent huge page (madvise(MADV_HUGEPAGE), then MADV_POPULATE_WRITE:
 * the kernel's faults, not the program's), the accesses spread over it;
 * the program fails unless /proc/self/smaps shows it huge.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "prog.h"

#define EXACT_BASE	0x10000000000UL
#define PAGE		4096UL
#define MAX_THREADS	16
#define HUGE		(2UL << 20)

static volatile uint64_t *buf;
static uint64_t words = 2 * PAGE / 8;	/* in the buffer */
static long accesses;
static atomic_int running;
static _Thread_local long handled;
static sigset_t usr1;

struct worker {
	pthread_t thread;
	pid_t tid;
	long made;
	unsigned int index;
};

static void on_usr1(int sig)
{
	(void)sig;
	buf[words - 1] = 0xfeed;
	handled++;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t sum = 0;

	w->tid = gettid();
	for (long i = 0; i < accesses; i++) {
		volatile uint64_t *p = buf + (w->index * 64 + (uint64_t)i * 7 * 64) % (words - 1);

		if (i & 1)
			sum += *p;
		else
			*p = (uint64_t)w->index << 32 | (uint64_t)i;
	}
	/* A signal still to come would make an access not counted: none now. */
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	w->made = accesses + handled + (long)(sum & 0);
	atomic_fetch_sub(&running, 1);
	return NULL;
}

/* Whether the page at @addr is part of a transparent huge page (pagemap, kpageflags: root). */
static bool thp_at(unsigned long addr)
{
	uint64_t entry = 0, flags = 0;
	int pm = open("/proc/self/pagemap", O_RDONLY), kf = open("/proc/kpageflags", O_RDONLY);
	bool huge = pm >= 0 && kf >= 0 &&
		    pread(pm, &entry, 8, (off_t)(addr / PAGE * 8)) == 8 && (entry >> 63) &&
		    pread(kf, &flags, 8, (off_t)((entry & ((1ULL << 55) - 1)) * 8)) == 8 &&
		    (flags >> 22 & 1);	/* KPF_THP */

	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return huge;
}

/*
 * A 2 MiB transparent huge page at EXACT_BASE (2 MiB-aligned), populated by
 * the kernel. (smaps does not count a huge page mapped protnone, as exact
 * mode maps it between accesses: kpageflags says what it is.)
 */
static void map_huge(void)
{
	words = HUGE / 8;
	buf = mmap((void *)EXACT_BASE, HUGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (buf != (void *)EXACT_BASE || madvise((void *)buf, HUGE, MADV_HUGEPAGE) ||
	    madvise((void *)buf, HUGE, MADV_POPULATE_WRITE))
		die("a huge page at EXACT_BASE");
	if (!thp_at(EXACT_BASE) || !thp_at(EXACT_BASE + HUGE - PAGE)) {
		fprintf(stderr, "vmt-exact-threads: the buffer is not a transparent huge page\n");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	unsigned int n = argc > 1 ? (unsigned int)atoi(argv[1]) : 4;
	bool signals = argc > 3 && atoi(argv[3]);
	struct timespec pause = { 0, 200000 };

	accesses = argc > 2 ? atol(argv[2]) : 100000;
	if (n < 1 || n > MAX_THREADS || accesses < 1)
		die("usage: vmt-exact-threads THREADS ACCESSES [SIGNALS]");
	if (getenv("VMT_EXACT_HUGE"))
		map_huge();
	else
		buf = mmap((void *)EXACT_BASE, 2 * PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE | MAP_POPULATE, -1, 0);
	if (buf != (void *)EXACT_BASE)
		die("mmap at EXACT_BASE");
	signal(SIGUSR1, on_usr1);
	/* Only the workers take SIGUSR1; the main thread sends it. */
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	atomic_store(&running, (int)n);
	for (unsigned int i = 0; i < n; i++) {
		w[i] = (struct worker){ .index = i };
		if (pthread_create(&w[i].thread, NULL, work, &w[i]))
			die("pthread_create");
	}
	pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	for (unsigned int k = 0; signals && atomic_load(&running) > 0; k++) {
		pthread_kill(w[k % n].thread, SIGUSR1);
		nanosleep(&pause, NULL);
	}
	for (unsigned int i = 0; i < n; i++)
		pthread_join(w[i].thread, NULL);
	for (unsigned int i = 0; i < n; i++)
		printf("tid %d accesses %ld\n", w[i].tid, w[i].made);
	return 0;
}
