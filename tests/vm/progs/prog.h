/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test programs share: failing with a message, the files the
 * guest tests wait for, and the SIGUSR1 steps they are driven by.
 */
#ifndef VMTRACE_TEST_PROG_H
#define VMTRACE_TEST_PROG_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* xorshift64 from a fixed seed: the same sequence on every run. */
static inline uint64_t prog_random(void)
{
	static uint64_t state = 88172645463325252ULL;

	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static inline void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Write @text to DIR/NAME. */
static inline void put(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		die(path);
}

/* Block SIGUSR1, so that wait_usr1() takes it whenever it came. */
static inline void block_usr1(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGUSR1);
	sigprocmask(SIG_BLOCK, set, NULL);
}

static inline void wait_usr1(const sigset_t *set)
{
	int sig;

	if (sigwait(set, &sig))
		die("sigwait");
}

#endif
