// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-exact-heap: stores to and loads from 100 words of a block malloc()
 * takes from the heap (brk), for exact mode's ranges given by a mapping's
 * name (tests/vm/guest/exact.sh: --exact '[heap]' of a command, whose heap
 * does not exist when tracing starts). Prints its accesses as vmtrace dump
 * prints an exact record's fields.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "prog.h"

int main(void)
{
	volatile uint64_t *p = malloc(100 * sizeof(uint64_t));
	uint64_t v;

	if (!p)
		die("malloc");
	for (int i = 0; i < 100; i++) {
		__asm__ volatile("movq %1, %0" : "=m"(p[i]) : "r"((uint64_t)0x4ea9000 + i));
		printf("addr=0x%lx size=8 access=W value=0x%llx\n", (unsigned long)(p + i),
		       (unsigned long long)(0x4ea9000 + i));
	}
	for (int i = 0; i < 100; i++) {
		__asm__ volatile("movq %1, %0" : "=r"(v) : "m"(p[i]));
		printf("addr=0x%lx size=8 access=R value=0x%llx\n", (unsigned long)(p + i),
		       (unsigned long long)v);
	}
	return 0;
}
