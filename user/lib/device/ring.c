// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The reader's side of a vmtrace ring (see include/uapi/linux/vmtrace.h for
 * the memory-ordering rule, and kernel/ring/ring.c for the producer), and the
 * mapping of a device's ring into it.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "vmtrace/device.h"

static int is_power_of_2(uint32_t n)
{
	return n && !(n & (n - 1));
}

int vmt_ring_view_init(struct vmt_ring_view *view, void *base, size_t len)
{
	struct vmt_ring_meta *meta = base;
	uint64_t end;

	if (!base || len < sizeof(*meta))
		return -EINVAL;
	if (meta->abi_version != VMT_ABI_VERSION ||
	    meta->record_size != sizeof(struct vmt_record) ||
	    meta->meta_size < sizeof(*meta))
		return -EPROTO;
	if (!is_power_of_2(meta->nr_records) || meta->nr_records < 2 ||
	    meta->records_offset < sizeof(*meta) ||
	    meta->records_offset % sizeof(uint64_t))
		return -EINVAL;
	end = meta->records_offset + (uint64_t)meta->nr_records * sizeof(struct vmt_record);
	if (end > len)
		return -EINVAL;

	view->meta = meta;
	view->records = (const struct vmt_record *)((char *)base + meta->records_offset);
	view->nr_records = meta->nr_records;
	view->overwrite = !!(meta->flags & VMT_RING_OVERWRITE);
	return 0;
}

uint64_t vmt_ring_view_pending(const struct vmt_ring_view *view)
{
	uint64_t head = __atomic_load_n(&view->meta->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&view->meta->tail, __ATOMIC_RELAXED);

	return head - tail;
}

long vmt_ring_view_read(struct vmt_ring_view *view, struct vmt_record *out,
			size_t max, uint64_t *overwritten)
{
	struct vmt_ring_meta *meta = view->meta;
	uint64_t mask = view->nr_records - 1;
	/* Pairs with the producer's release of head: records are visible. */
	uint64_t head = __atomic_load_n(&meta->head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&meta->tail, __ATOMIC_RELAXED);
	uint64_t avail, n, i;

	if (head < tail)
		return -EPROTO;
	avail = head - tail;
	if (avail > view->nr_records) {
		if (!view->overwrite)
			return -EPROTO;
		if (overwritten)
			*overwritten += avail - view->nr_records;
		tail = head - view->nr_records;
		avail = view->nr_records;
	}
	n = avail < max ? avail : max;
	for (i = 0; i < n; i++)
		out[i] = view->records[(tail + i) & mask];
	/*
	 * A flight recorder may have overwritten what was just copied: those
	 * copies are torn, so drop them and count them as overwritten.
	 */
	if (view->overwrite) {
		uint64_t now = __atomic_load_n(&meta->head, __ATOMIC_ACQUIRE);

		if (now - tail > view->nr_records) {
			uint64_t torn = now - tail - view->nr_records;

			if (torn > n)
				torn = n;
			memmove(out, out + torn, (n - torn) * sizeof(*out));
			if (overwritten)
				*overwritten += torn;
			n -= torn;
			tail += torn;
		}
	}
	/* Pairs with the producer's acquire of tail: our copies are done. */
	__atomic_store_n(&meta->tail, tail + n, __ATOMIC_RELEASE);
	return (long)n;
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
