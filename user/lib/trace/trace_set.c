// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Trace set files. A set file is text: its first line is "vmtrace trace
 * set", and each further line names one trace, a path taken as it is (a
 * relative one from the set file's folder, so that a folder of runs and
 * its set move together); blank lines and lines that begin with '#' are
 * passed over. The traces are read as one, in the order listed
 * (vmt_trace_open_set()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmtrace/trace.h"
#include "trace/trace_set.h"

/* A set file is a short list: anything longer is not one. */
#define MAX_SET_FILE	(4u << 20)

bool vmt_trace_set_file_is(const void *head, size_t len)
{
	size_t magic = strlen(VMT_TRACE_SET_MAGIC);

	return len >= magic && !memcmp(head, VMT_TRACE_SET_MAGIC, magic);
}

void vmt_trace_set_paths_free(char **paths, unsigned int n)
{
	for (unsigned int i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
}

/* @line as a path: as it is when absolute, else under @path's folder. */
static char *member_path(const char *path, const char *line)
{
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	char *out;

	if (line[0] == '/')
		dir = 0;
	out = malloc(dir + strlen(line) + 1);
	if (out) {
		memcpy(out, path, dir);
		strcpy(out + dir, line);
	}
	return out;
}

static int read_all(int fd, const char *path, char **text, size_t *len, char *why,
		    size_t why_len)
{
	struct stat st;
	size_t done = 0;
	char *buf;

	if (fstat(fd, &st)) {
		snprintf(why, why_len, "cannot read %s: %s", path, strerror(errno));
		return -errno;
	}
	if ((uint64_t)st.st_size > MAX_SET_FILE) {
		snprintf(why, why_len, "%s: a set file of %lld bytes (at most %u)", path,
			 (long long)st.st_size, MAX_SET_FILE);
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(why, why_len, "out of memory");
		return -ENOMEM;
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + done, (size_t)st.st_size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(why, why_len, "cannot read %s: %s", path,
				 n < 0 ? strerror(errno) : "file shrank");
			free(buf);
			return n < 0 ? -errno : -EIO;
		}
		done += (size_t)n;
	}
	buf[done] = '\0';
	*text = buf;
	*len = done;
	return 0;
}

int vmt_trace_set_file_read(int fd, const char *path, char ***paths, unsigned int *n,
			    char *why, size_t why_len)
{
	char *text = NULL, *line, *next, **list = NULL;
	unsigned int count = 0, line_no = 1;
	size_t len = 0;
	int err;

	*paths = NULL;
	*n = 0;
	err = read_all(fd, path, &text, &len, why, why_len);
	if (err)
		return err;
	/* Read again, it may have changed since it was found to be a set file. */
	if (!vmt_trace_set_file_is(text, len)) {
		snprintf(why, why_len, "%s: not a set file any more", path);
		free(text);
		return -EBADMSG;
	}
	if (memchr(text, '\0', len)) {
		snprintf(why, why_len, "%s: a NUL byte in a set file", path);
		free(text);
		return -EBADMSG;
	}
	for (line = text + strlen(VMT_TRACE_SET_MAGIC); *line; line = next) {
		char **grown;

		line_no++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (!*line || *line == '#')
			continue;
		if (count == VMT_TRACE_MAX_SET) {
			snprintf(why, why_len, "%s, line %u: more than %u traces in a set", path,
				 line_no, VMT_TRACE_MAX_SET);
			err = -E2BIG;
			break;
		}
		grown = realloc(list, (count + 1) * sizeof(*list));
		if (grown)
			list = grown;
		if (!grown || !(list[count] = member_path(path, line))) {
			snprintf(why, why_len, "out of memory");
			err = -ENOMEM;
			break;
		}
		count++;
	}
	free(text);
	if (!err && !count) {
		snprintf(why, why_len, "%s: a trace set that names no trace", path);
		err = -EINVAL;
	}
	if (err) {
		vmt_trace_set_paths_free(list, count);
		return err;
	}
	*paths = list;
	*n = count;
	return 0;
}
