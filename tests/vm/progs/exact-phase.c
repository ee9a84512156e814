// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-exact-phase: a program that has exact mode trace one phase of itself,
 * as a marker would mark it (tests/vm/guest/exact.sh): it maps a page at
 * EXACT_BASE (0x10000000000), stores to it 10 times, adds the page as an
 * exact range of its own (VMT_IOC_EXACT on /dev/vmtrace, after keeping
 * itself on one CPU), stores 20 times, removes the range and stores 30
 * times more. Only the 20 are exact. Prints them as vmtrace dump prints an
 * exact record's fields.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/vmtrace.h>

#include "prog.h"

#define EXACT_BASE	0x10000000000UL

static void stores(volatile uint64_t *p, unsigned int n, uint64_t first, int show)
{
	for (unsigned int i = 0; i < n; i++) {
		p[i] = first + i;
		if (show)
			printf("addr=0x%lx size=8 access=W value=0x%llx\n", (unsigned long)(p + i),
			       (unsigned long long)(first + i));
	}
}

static void exact_op(int fd, __u32 op)
{
	struct vmt_exact_arg arg = { .op = op, .pid = (__u32)getpid(), .start = EXACT_BASE,
				     .end = EXACT_BASE + 4096 };

	if (ioctl(fd, VMT_IOC_EXACT, &arg))
		die("VMT_IOC_EXACT");
}

int main(void)
{
	volatile uint64_t *p = mmap((void *)EXACT_BASE, 4096, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE |
				    MAP_POPULATE, -1, 0);
	int fd = open("/dev/vmtrace", O_RDWR);
	cpu_set_t one;

	if (p != (void *)EXACT_BASE || fd < 0)
		die("mmap or /dev/vmtrace");
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		die("sched_setaffinity");
	stores(p, 10, 0x100, 0);
	exact_op(fd, VMT_EXACT_ADD);
	stores(p + 10, 20, 0x200, 1);
	exact_op(fd, VMT_EXACT_REMOVE);
	stores(p + 30, 30, 0x300, 0);
	close(fd);
	return 0;
}
