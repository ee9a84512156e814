// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-markers: two page touches with markers between and around them, so
 * that a test can check each marker lands between the references around it.
 *
 * Maps two fresh anonymous pages and prints their addresses ("page0 0x...",
 * "page1 0x..."), then: marker 1 "before", write page 0, marker 2 "between"
 * (through the ioctl), write page 1, marker 3 "after" (through write() on
 * the device: the id, then the text).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <vmtrace_marker.h>

static void marker_by_write(uint32_t id, const char *text)
{
	char buf[4 + VMT_MAX_MARKER_LEN];
	size_t len = strlen(text);
	int fd = open("/dev/vmtrace", O_WRONLY | O_CLOEXEC);

	memcpy(buf, &id, 4);
	memcpy(buf + 4, text, len);
	if (fd < 0 || write(fd, buf, 4 + len) != (ssize_t)(4 + len)) {
		perror("vmt-markers: write marker");
		exit(1);
	}
	close(fd);
}

int main(void)
{
	volatile char *pages = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int err;

	if (pages == MAP_FAILED) {
		perror("vmt-markers: mmap");
		return 1;
	}
	printf("page0 %p\npage1 %p\n", (void *)pages, (void *)(pages + 4096));
	fflush(stdout);
	err = vmt_marker(1, "before");
	pages[0] = 1;
	err = err ? err : vmt_marker(2, "between");
	pages[4096] = 2;
	if (err) {
		fprintf(stderr, "vmt-markers: vmt_marker: %s\n", strerror(-err));
		return 1;
	}
	marker_by_write(3, "after");
	return 0;
}
