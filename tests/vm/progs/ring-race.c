// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-ring-race N: the ring set under readers that do not configure.
 *
 * 1. A child poll()s /dev/vmtrace in a loop while this process configures
 *    N times, the ring size alternating between 1024 and 2048 records, so
 *    that every configure replaces the ring set under the poller. Before
 *    the fix, poll() could find a new set published before its rings were
 *    laid out and read a NULL control page (the oops of issue 22).
 * 2. A child writes markers in a loop (ioctl and write()) while this
 *    process starts, stops and reconfigures N / 4 times with markers on:
 *    a marker either lands (0), finds tracing off (ENODATA) or a full ring
 *    (ENOSPC); it is never written to rings being emptied or freed.
 *
 * After each configure GEOMETRY and the control page of CPU 0 must show the
 * size just configured. Prints the counts; exits 1 on any unexpected result.
 * A kernel report (oops, KASAN) fails the run in vm-run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/vmtrace.h>

#include "prog.h"

/* Shared with the children. */
struct shared {
	volatile int stop;
	volatile unsigned long polls;
	volatile unsigned long markers[3];	/* written, tracing off, ring full */
};

static struct shared *sh;

static void configure(int fd, uint32_t records, uint32_t events)
{
	uint32_t pid = getpid();
	struct vmt_config cfg = {
		.ring_records = records,
		.nr_pids = 1,
		.pids_ptr = (uintptr_t)&pid,
		.events = events,
	};
	struct vmt_geometry g;
	struct vmt_ring_meta *meta;

	if (ioctl(fd, VMT_IOC_CONFIGURE, &cfg))
		die("configure");
	if (ioctl(fd, VMT_IOC_GEOMETRY, &g))
		die("geometry");
	if (g.ring_records != records) {
		fprintf(stderr, "FAIL: configured %u records, geometry says %u\n", records,
			g.ring_records);
		exit(1);
	}
	/* Map, check and unmap: a set stays replaceable only while unmapped. */
	meta = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED)
		die("mmap control page");
	if (meta->nr_records != records || meta->record_size != VMT_RECORD_SIZE ||
	    meta->head || meta->tail) {
		fprintf(stderr, "FAIL: control page: %u records of %u bytes, head %llu, tail %llu\n",
			meta->nr_records, meta->record_size, (unsigned long long)meta->head,
			(unsigned long long)meta->tail);
		exit(1);
	}
	munmap(meta, 4096);
}

static void poller(void)
{
	int fd = open("/dev/vmtrace", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		die("open");
	while (!sh->stop) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 0) < 0)
			die("poll");
		if (p.revents & (POLLERR | POLLNVAL)) {
			fprintf(stderr, "FAIL: poll() returned %#x\n", p.revents);
			exit(1);
		}
		sh->polls++;
	}
	exit(0);
}

static void marker_writer(void)
{
	char buf[4 + 16] = { 0 };
	int fd = open("/dev/vmtrace", O_RDWR | O_CLOEXEC);
	unsigned long i;

	if (fd < 0)
		die("open");
	memcpy(buf + 4, "race", 4);
	for (i = 0; !sh->stop; i++) {
		struct vmt_marker_arg m = { .id = i, .len = 4, .text_ptr = (uintptr_t)"race" };
		int err = 0;

		if (i & 1)
			err = ioctl(fd, VMT_IOC_MARKER, &m) ? errno : 0;
		else if (write(fd, buf, 8) != 8)
			err = errno;
		if (err == 0)
			sh->markers[0]++;
		else if (err == ENODATA)
			sh->markers[1]++;
		else if (err == ENOSPC)
			sh->markers[2]++;
		else {
			fprintf(stderr, "FAIL: marker: %s\n", strerror(err));
			exit(1);
		}
	}
	exit(0);
}

static pid_t spawn(void (*fn)(void))
{
	pid_t pid;

	fflush(stdout);	/* or the child prints it again */
	pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0)
		fn();
	return pid;
}

static void reap(pid_t pid, const char *what)
{
	int status;

	sh->stop = 1;
	if (waitpid(pid, &status, 0) != pid)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "FAIL: the %s failed (status %#x)\n", what, status);
		exit(1);
	}
	sh->stop = 0;
}

int main(int argc, char **argv)
{
	long n = argc == 2 ? atol(argv[1]) : 0;
	int fd = open("/dev/vmtrace", O_RDWR | O_CLOEXEC);
	pid_t child;
	long i;

	if (n < 4) {
		fprintf(stderr, "usage: vmt-ring-race CONFIGURES (at least 4)\n");
		return 2;
	}
	if (fd < 0)
		die("open /dev/vmtrace");
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");

	child = spawn(poller);
	while (!sh->polls)
		;
	for (i = 0; i < n; i++)
		configure(fd, i & 1 ? 2048 : 1024, 0);
	reap(child, "poller");
	printf("poll: %ld configures, %lu polls beside them\n", n, sh->polls);

	child = spawn(marker_writer);
	for (i = 0; i < n / 4; i++) {
		configure(fd, i & 1 ? 2048 : 1024, VMT_EVENT_MARKER);
		if (ioctl(fd, VMT_IOC_START))
			die("start");
		if (ioctl(fd, VMT_IOC_STOP))
			die("stop");
	}
	reap(child, "marker writer");
	printf("markers: %ld sessions, %lu markers written, %lu found tracing off, %lu a full ring\n",
	       n / 4, sh->markers[0], sh->markers[1], sh->markers[2]);
	if (!sh->polls || !(sh->markers[0] + sh->markers[1])) {
		fprintf(stderr, "FAIL: the children did not run beside the configures\n");
		return 1;
	}
	return 0;
}
