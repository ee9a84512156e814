// SPDX-License-Identifier: GPL-2.0
/* Small helpers the commands share (cmd_util.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cmd_util.h"

long long parse_number(const char *cmd, const char *what, const char *text,
		       long long min, long long max)
{
	long long n;
	char *end;

	errno = 0;
	n = strtoll(text, &end, 0);
	if (errno || *end || !*text || n < min || n > max) {
		fprintf(stderr, "vmtrace %s: bad %s '%s' (%lld..%lld)\n", cmd, what, text, min, max);
		return -1;
	}
	return n;
}

long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long long)st.st_size;
}

struct vmt_trace *open_or_say(const char *cmd, const char *path, unsigned int flags)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;

	if (vmt_trace_open(&t, path, flags, &err)) {
		fprintf(stderr, "vmtrace %s: %s\n", cmd, err.message);
		return NULL;
	}
	return t;
}
