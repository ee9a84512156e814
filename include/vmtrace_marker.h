/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * vmtrace user markers, header only: one call puts a marker (an id and a
 * short text) into the trace, on this CPU, in order with the references
 * around it (HMTT's software-injected tags):
 *
 *	#include <vmtrace_marker.h>
 *
 *	vmt_marker(1, "phase 2 starts");
 *
 * Needs root (the device is /dev/vmtrace, mode 0600), tracing on with the
 * marker event (vmtrace record -e marker). Returns 0, or a negative errno:
 * -ENODATA when tracing is off or markers are not enabled, -EINVAL for a
 * text over VMT_MAX_MARKER_LEN bytes, -ENOSPC when the ring was full (the
 * marker was counted lost), or open()'s error. The device stays open, on a
 * close-on-exec descriptor, for the next call.
 */
#ifndef VMTRACE_MARKER_H
#define VMTRACE_MARKER_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/vmtrace.h>

static inline int vmt_marker(uint32_t id, const char *text)
{
	static int fd = -1;
	struct vmt_marker_arg m;

	if (fd < 0) {
		fd = open("/dev/vmtrace", O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	memset(&m, 0, sizeof(m));
	m.id = id;
	m.len = (uint32_t)strlen(text);
	m.text_ptr = (uintptr_t)text;
	return ioctl(fd, VMT_IOC_MARKER, &m) ? -errno : 0;
}

#endif /* VMTRACE_MARKER_H */
