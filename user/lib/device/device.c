// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Talking to /dev/vmtrace: its ioctls. Mapping its rings is ring.c's. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "vmtrace/device.h"

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

static int vmt_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

int vmt_device_configure(int fd, const struct vmt_config *config)
{
	return vmt_ioctl(fd, VMT_IOC_CONFIGURE, (void *)config);
}

int vmt_device_start(int fd)
{
	return vmt_ioctl(fd, VMT_IOC_START, NULL);
}

int vmt_device_stop(int fd)
{
	return vmt_ioctl(fd, VMT_IOC_STOP, NULL);
}

int vmt_device_status(int fd, struct vmt_status *status)
{
	return vmt_ioctl(fd, VMT_IOC_STATUS, status);
}

int vmt_device_geometry(int fd, struct vmt_geometry *geometry)
{
	return vmt_ioctl(fd, VMT_IOC_GEOMETRY, geometry);
}

int vmt_device_exact(int fd, struct vmt_exact_arg *arg)
{
	return vmt_ioctl(fd, VMT_IOC_EXACT, arg);
}
