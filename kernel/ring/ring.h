/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmtrace per-CPU record rings: the producer side lives in the kernel, the
 * consumer side in whoever maps the ring (the collector, or the tests).
 */
#ifndef _VMTRACE_RING_H
#define _VMTRACE_RING_H

#include <linux/types.h>
#include <uapi/linux/vmtrace.h>

/*
 * struct vmt_ring - the producer's view of one ring
 * @meta:	control page shared with the reader
 * @records:	nr_records slots, right after the control page
 * @head:	the producer's own head; meta->head is its published copy
 * @lost:	records dropped because the ring was full
 * @written:	records accepted (LOST records excluded)
 * @pending_lost: records dropped since the last LOST record was written
 * @mask:	nr_records - 1
 * @overwrite:	flight-recorder mode: never drop, overwrite the oldest
 */
struct vmt_ring {
	struct vmt_ring_meta *meta;
	struct vmt_record *records;
	u64 head;
	u64 lost;
	u64 written;
	u64 pending_lost;
	u32 mask;
	u32 cpu;
	bool overwrite;
};

size_t vmt_ring_bytes(u32 nr_records);
int vmt_ring_init(struct vmt_ring *ring, void *mem, u32 nr_records, u32 cpu,
		  u32 flags);
int vmt_ring_write(struct vmt_ring *ring, struct vmt_record *rec);
int vmt_ring_write_data(struct vmt_ring *ring, struct vmt_record *rec,
			const void *data, u32 len);
u32 vmt_ring_consume(struct vmt_ring_meta *meta,
		     const struct vmt_record *records,
		     struct vmt_record *out, u32 max);

#endif /* _VMTRACE_RING_H */
