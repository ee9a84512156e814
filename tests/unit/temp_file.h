/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmocka setup and teardown for tests that write a trace: @path names a
 * fresh empty file in /tmp during each test, removed after it.
 */
#ifndef VMTRACE_TESTS_TEMP_FILE_H
#define VMTRACE_TESTS_TEMP_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/vmt-test-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

#endif
