// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-exact-tf: a program that single-steps itself, for exact mode's test
 * that a process's own trap flag keeps its traps (tests/vm/guest/
 * exact-threads.sh). It counts SIGTRAPs while it runs a fixed sequence with
 * the trap flag set (popf), 8 of whose instructions store to and load from a
 * page mapped at EXACT_BASE (0x10000000000), and prints "traps N": the same
 * number with exact mode on that page as without.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>

#include "prog.h"

#define EXACT_BASE	0x10000000000UL

static volatile long traps;

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

int main(void)
{
	volatile uint64_t *p = mmap((void *)EXACT_BASE, 4096, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE |
				    MAP_POPULATE, -1, 0);
	uint64_t v = 0;

	if (p != (void *)EXACT_BASE)
		die("mmap at EXACT_BASE");
	signal(SIGTRAP, on_trap);
	__asm__ volatile("pushfq\n\t"
			 "orq $0x100, (%%rsp)\n\t"
			 "popfq\n\t"
			 "movq $1, (%1)\n\t"
			 "movq (%1), %0\n\t"
			 "movq %0, 8(%1)\n\t"
			 "movq 8(%1), %0\n\t"
			 "movq %0, 16(%1)\n\t"
			 "movq 16(%1), %0\n\t"
			 "movq %0, 24(%1)\n\t"
			 "movq 24(%1), %0\n\t"
			 "pushfq\n\t"
			 "andq $~0x100, (%%rsp)\n\t"
			 "popfq"
			 : "+r"(v) : "r"(p) : "memory", "cc");
	printf("traps %ld value %llu\n", traps, (unsigned long long)v);
	return v == 1 ? 0 : 1;
}
