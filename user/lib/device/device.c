// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Talking to /dev/vmtrace. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

int vmt_ring_map(int fd, const struct vmt_geometry *geometry, unsigned int cpu,
		 struct vmt_ring_view *view)
{
	size_t stride = geometry->ring_stride, meta_len = geometry->records_offset;
	off_t offset = (off_t)cpu * (off_t)stride;
	char *base;
	int err;

	if (cpu >= geometry->nr_rings || meta_len == 0 || stride <= meta_len)
		return -EINVAL;
	/* Reserve the whole span, then map both parts over it. */
	base = mmap(NULL, stride, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	if (mmap(base, meta_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		 offset) == MAP_FAILED ||
	    mmap(base + meta_len, stride - meta_len, PROT_READ, MAP_SHARED | MAP_FIXED, fd,
		 offset + (off_t)meta_len) == MAP_FAILED) {
		err = -errno;
		munmap(base, stride);
		return err;
	}
	err = vmt_ring_view_init(view, base, stride);
	if (err)
		munmap(base, stride);
	return err;
}

void vmt_ring_unmap(struct vmt_ring_view *view, const struct vmt_geometry *geometry)
{
	if (view->meta)
		munmap(view->meta, geometry->ring_stride);
	view->meta = NULL;
}
