// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Talking to /dev/vmtrace. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "vmtrace/vmtrace.h"

int vmt_device_open(void)
{
	int fd = open(VMT_DEVICE_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

int vmt_device_version(int fd, struct vmt_version *v)
{
	memset(v, 0, sizeof(*v));
	if (ioctl(fd, VMT_IOC_VERSION, v) < 0)
		return -errno;
	return 0;
}
