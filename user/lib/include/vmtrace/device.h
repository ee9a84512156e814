/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libvmtrace's device side: /dev/vmtrace's ioctls and the reader's view of
 * a per-CPU ring mapped from it.
 *
 * Functions return 0 or a count on success and a negative errno on failure;
 * they print nothing. Record and control-page layouts come from the ABI
 * header, <linux/vmtrace.h> (include/uapi/ in the source tree).
 */
#ifndef VMTRACE_DEVICE_H
#define VMTRACE_DEVICE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/vmtrace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The device ------------------------------------------------------- */

#define VMT_DEVICE_PATH "/dev/vmtrace"

/* Open /dev/vmtrace read-write; returns the descriptor or -errno. */
int vmt_device_open(void);
/* VMT_IOC_VERSION on an open device; fills @v. */
int vmt_device_version(int fd, struct vmt_version *v);

/* The session ioctls: 0 or -errno. */
int vmt_device_configure(int fd, const struct vmt_config *config);
int vmt_device_start(int fd);
int vmt_device_stop(int fd);
int vmt_device_status(int fd, struct vmt_status *status);
int vmt_device_geometry(int fd, struct vmt_geometry *geometry);
/* VMT_IOC_EXACT: exact mode's ranges; fills in @arg's counters. */
int vmt_device_exact(int fd, struct vmt_exact_arg *arg);

/* ---- Reading one per-CPU ring ---------------------------------------- */

/*
 * A reader's view of one ring mapped from the kernel (or any memory laid out
 * the same way): a struct vmt_ring_meta, then records at meta->records_offset.
 */
struct vmt_ring_view {
	struct vmt_ring_meta *meta;
	const struct vmt_record *records;
	uint32_t nr_records;
	int overwrite;
};

/*
 * Check the control page at @base (@len bytes mapped) and set up @view.
 * Returns 0, -EPROTO for an unknown ABI version or record size, or -EINVAL
 * when the geometry does not fit in @len.
 */
int vmt_ring_view_init(struct vmt_ring_view *view, void *base, size_t len);

/*
 * Copy up to @max of the oldest unread records to @out and release their
 * slots. In overwrite mode, records the producer overwrote before they were
 * read are skipped and added to *@overwritten (which may be NULL otherwise).
 * Returns the number copied, or -EPROTO when head and tail are inconsistent
 * (head behind tail, or more than a ring's worth apart without overwrite).
 */
long vmt_ring_view_read(struct vmt_ring_view *view, struct vmt_record *out,
			size_t max, uint64_t *overwritten);

/*
 * Map ring @cpu of an open device, control page (read-write) and records
 * (read-only) side by side, and set up @view over them. Undo with
 * vmt_ring_unmap(). Returns 0 or -errno.
 */
int vmt_ring_map(int fd, const struct vmt_geometry *geometry, unsigned int cpu,
		 struct vmt_ring_view *view);
void vmt_ring_unmap(struct vmt_ring_view *view, const struct vmt_geometry *geometry);

/* Records published but not read yet. */
uint64_t vmt_ring_view_pending(const struct vmt_ring_view *view);

#ifdef __cplusplus
}
#endif
#endif /* VMTRACE_DEVICE_H */
