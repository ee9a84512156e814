// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-exact-ptrace DIR ACCESSES: single-steps a child with ptrace through
 * ACCESSES stores and loads to a page mapped at EXACT_BASE
 * (0x10000000000), for exact mode's test that a process single-stepping
 * already keeps its traps exactly (tests/vm/guest/exact-threads.sh).
 *
 * The child stops itself once its page is mapped; the parent writes the
 * child's pid to DIR/pid, creates DIR/ready and waits for SIGUSR1 (the test
 * starts tracing the child meanwhile), then steps the child to its end.
 * Prints "steps N": the single-step traps the parent saw.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog.h"

#define EXACT_BASE	0x10000000000UL

static void child(long accesses)
{
	volatile uint64_t *p = mmap((void *)EXACT_BASE, 4096, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE |
				    MAP_POPULATE, -1, 0);
	uint64_t sum = 0;

	if (p != (void *)EXACT_BASE)
		_exit(2);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(3);
	raise(SIGSTOP);
	for (long i = 0; i < accesses; i++) {
		if (i & 1)
			sum += p[(i - 1) % 512];
		else
			p[i % 512] = (uint64_t)i;
	}
	/* The exit status says the loads ran: their sum of the stores. */
	_exit(sum == (uint64_t)(accesses / 2) * (uint64_t)(accesses / 2 - 1) ? 0 : 4);
}

int main(int argc, char **argv)
{
	long accesses = argc > 2 ? atol(argv[2]) : 1000, steps = 0;
	char pid_text[32];
	sigset_t usr1;
	int status;
	pid_t pid;

	if (argc < 2 || accesses < 2)
		die("usage: vmt-exact-ptrace DIR ACCESSES");
	block_usr1(&usr1);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		child(accesses);
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		die("the child did not stop");
	snprintf(pid_text, sizeof(pid_text), "%d\n", pid);
	put(argv[1], "pid", pid_text);
	put(argv[1], "ready", "");
	wait_usr1(&usr1);
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
			die("PTRACE_SINGLESTEP");
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
			fprintf(stderr, "vmt-exact-ptrace: the child stopped with signal %d\n",
				WIFSTOPPED(status) ? WSTOPSIG(status) : -1);
			return 1;
		}
		steps++;
	}
	printf("steps %ld\n", steps);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "vmt-exact-ptrace: the child ended with status 0x%x\n", status);
		return 1;
	}
	return 0;
}
