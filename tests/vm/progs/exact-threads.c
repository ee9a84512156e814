// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-exact-threads THREADS ACCESSES [SIGNALS]: THREADS threads each make
 * ACCESSES accesses (stores and loads in turn, 8 bytes) to two shared
 * pages mapped at EXACT_BASE (0x10000000000), for exact mode's thread test
 * (tests/vm/guest/exact-threads.sh). With SIGNALS, the main thread sends
 * SIGUSR1 to the workers, one after another, until they are done, and the
 * handler makes one store to the pages too. Prints, per thread, its kernel
 * thread id and the accesses it made, handler included: "tid T accesses N".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "prog.h"

#define EXACT_BASE	0x10000000000UL
#define PAGE		4096UL
#define MAX_THREADS	16

static volatile uint64_t *buf;
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
	buf[2 * PAGE / 8 - 1] = 0xfeed;
	handled++;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t sum = 0;

	w->tid = gettid();
	for (long i = 0; i < accesses; i++) {
		volatile uint64_t *p = buf + (w->index * 64 + (uint64_t)i * 7) % (2 * PAGE / 8 - 1);

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

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	unsigned int n = argc > 1 ? (unsigned int)atoi(argv[1]) : 4;
	bool signals = argc > 3 && atoi(argv[3]);
	struct timespec pause = { 0, 200000 };

	accesses = argc > 2 ? atol(argv[2]) : 100000;
	if (n < 1 || n > MAX_THREADS || accesses < 1)
		die("usage: vmt-exact-threads THREADS ACCESSES [SIGNALS]");
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
