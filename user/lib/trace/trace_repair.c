// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Repair: rebuild a trace's directory from its blocks, for a file whose
 * writer was killed (or whose directory was damaged). The blocks up to the
 * first incomplete or corrupt one are kept; the file is cut there and a new
 * directory and trailer are appended.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace/trace_reader.h"

static int write_at(int fd, uint64_t offset, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

int vmt_trace_repair(const char *path, struct vmt_trace_repair_report *report,
		     struct vmt_trace_error *err)
{
	struct vmt_trace_stream_info *streams = NULL;
	struct vmt_frame_ref *frames = NULL;
	struct vmt_buf dir = { 0 };
	uint32_t nr_streams = 0;
	uint64_t nr_frames = 0;
	int fd = -1, ret;

	ret = vmt_trace_scan_for_repair(path, &streams, &nr_streams, &frames, &nr_frames, report,
					err);
	if (ret)
		return ret;
	ret = vmt_directory_encode(streams, nr_streams, frames, nr_frames, report->data_end, &dir);
	if (ret) {
		snprintf(err->message, sizeof(err->message), "%s: directory too large", path);
		goto out;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)report->data_end) ||
	    (ret = write_at(fd, report->data_end, dir.data, dir.size)) || fsync(fd)) {
		ret = ret ? ret : -errno;
		snprintf(err->message, sizeof(err->message), "%s: rewriting the directory: %s",
			 path, strerror(-ret));
	}
	if (fd >= 0 && close(fd) && !ret) {
		ret = -errno;
		snprintf(err->message, sizeof(err->message), "%s: close: %s", path, strerror(errno));
	}
out:
	vmt_buf_free(&dir);
	free(streams);
	free(frames);
	return ret;
}
