/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring set: one record ring per possible CPU (ring.c), the memory it
 * lives in, which readers map, and the wait queue that wakes them.
 */
#ifndef _VMTRACE_RINGS_H
#define _VMTRACE_RINGS_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <uapi/linux/vmtrace.h>

#include "ring/ring.h"

struct vmt_ring_set;

/* One CPU's ring and the memory it lives in (mapped by readers). */
struct vmt_cpu_ring {
	struct vmt_ring ring;
	void *mem;
	u64 faults;		/* target faults the probes saw on this CPU */
	struct vmt_ring_set *set;	/* the set it is in */
	struct irq_work wakeup;	/* wakes the readers: see vmt_rings_wakeup() */
};

/*
 * struct vmt_ring_set - a session's rings, one a CPU
 * @lock:	publishes @cpus and @stride (see vmt_rings_publish()), for
 *		poll and mmap; mmap runs with the reader's mmap_lock held:
 *		it must not need the session's lock (lock order: session
 *		lock -> mmap_lock -> @lock)
 * @cpus:	nr_cpu_ids pointers, NULL for impossible CPUs; allocated by
 *		configure, freed by the next geometry change or unload
 * @stride:	bytes between two rings in the mmap space
 * @mappings:	live mappings of any ring; rings cannot be freed while > 0
 * @readers:	poll()ers of the device, woken when a ring reaches its
 *		watermark and when tracing stops
 */
struct vmt_ring_set {
	struct mutex lock;	/* see above */
	struct vmt_cpu_ring **cpus;
	size_t stride;
	atomic_t mappings;
	wait_queue_head_t readers;
};

struct vm_area_struct;

void vmt_rings_init(void);
int vmt_rings_configure(struct vmt_ring_set *set, u32 ring_records, u32 config_flags);
void vmt_rings_reset(struct vmt_ring_set *set, u32 config_flags);
void vmt_rings_free(struct vmt_ring_set *set);
void vmt_rings_count(struct vmt_ring_set *set, struct vmt_status *status);
u32 vmt_rings_lost_per_cpu(struct vmt_ring_set *set, u64 *lost, u32 max);
__poll_t vmt_rings_poll(struct vmt_ring_set *set, struct file *file, poll_table *wait,
			bool off);
void vmt_rings_wakeup(struct vmt_cpu_ring *cr);
void vmt_rings_wake_readers(struct vmt_ring_set *set);
int vmt_rings_geometry(struct vmt_ring_set *set, struct vmt_geometry *geometry);
int vmt_rings_mmap(struct vmt_ring_set *set, struct vm_area_struct *vma);

#endif /* _VMTRACE_RINGS_H */
