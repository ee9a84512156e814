// SPDX-License-Identifier: GPL-2.0
/*
 * The ring sets, one a session (base/session.h): a ring per possible CPU,
 * each in its own vmalloc'ed memory, laid out in one mmap space that the
 * session's readers map ring by ring:
 *
 *   offset 0                  PAGE_SIZE              stride      2 * stride
 *   | CPU 0 control page     | CPU 0 records ...    | CPU 1 control page | ...
 *
 * Rings outlive stop, so a reader can drain them; start empties them.
 * Changing their size frees and reallocates them, which is refused while
 * any is mapped. Readers poll() the device: they are woken when a ring holds
 * a quarter of its records (its watermark) and when tracing stops.
 *
 * Which lock publishes what:
 *
 * - A set's ->lock publishes it: ->cpus and ->stride change only under
 *   it, and only to a set whose every ring is already laid out
 *   (vmt_rings_lay_out()); a published set's rings are emptied again only
 *   under it. poll, mmap and geometry, which run without the session's
 *   lock, read the set under it alone.
 * - The session's lock serializes the writers (configure, start, stop) and
 *   is held around the swap too, so that status and the lost counts, which
 *   take it, see one set throughout.
 * - The producers (probes, event sources, markers; emit.c) read ->cpus with
 *   no lock: they write only while tracing is on, and a set is emptied or
 *   replaced only while it is off and the session has waited for every
 *   writer that saw it on.
 * - A set is freed only once it is unpublished (no new reader reaches it),
 *   unmapped (->mappings, checked under the lock, which mmap takes to count
 *   a new mapping) and its wakeups are over (vmt_rings_release()).
 */
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "base/compat.h"
#include "base/session.h"
#include "ring/rings.h"

/* Each session's set: vmt_sessions[i].rings is &vmt_ring_sets[i]. */
static struct vmt_ring_set vmt_ring_sets[VMT_MAX_SESSIONS];

/* At load, before any session is configured: each session's set. */
void vmt_rings_init(void)
{
	int i;

	for (i = 0; i < VMT_MAX_SESSIONS; i++) {
		mutex_init(&vmt_ring_sets[i].lock);
		init_waitqueue_head(&vmt_ring_sets[i].readers);
		vmt_sessions[i].rings = &vmt_ring_sets[i];
	}
}

static size_t vmt_rings_stride(u32 ring_records)
{
	return PAGE_ALIGN(vmt_ring_bytes(ring_records));
}

/* Records a ring holds before its readers are woken: a quarter of it. */
static u64 vmt_ring_watermark(const struct vmt_ring *ring)
{
	return (ring->mask + 1) / 4;
}

static void vmt_rings_wake_fn(struct irq_work *work)
{
	struct vmt_cpu_ring *cr = container_of(work, struct vmt_cpu_ring, wakeup);

	wake_up_all(&cr->set->readers);
}

/**
 * vmt_rings_wakeup() - wake the readers if @cr holds its watermark's worth
 * @cr:		the ring just written to
 *
 * Context: the producer, interrupts off. Waking a wait queue from here could
 * deadlock on the scheduler's locks (a fault taken with them held), so an
 * irq_work does it; it is queued once until it has run.
 */
void vmt_rings_wakeup(struct vmt_cpu_ring *cr)
{
	/* tail comes from the reader: it only decides whether to wake it. */
	u64 unread = cr->ring.head - READ_ONCE(cr->ring.meta->tail);

	if (unread >= vmt_ring_watermark(&cr->ring) && wq_has_sleeper(&cr->set->readers))
		irq_work_queue(&cr->wakeup);
}

/* Tracing stopped: readers drain what is left and see the end. */
void vmt_rings_wake_readers(struct vmt_ring_set *set)
{
	wake_up_all(&set->readers);
}

/* Free a set nobody reaches any more (see the top of this file). */
static void vmt_rings_release(struct vmt_cpu_ring **cpus)
{
	int cpu;

	if (!cpus)
		return;
	for_each_possible_cpu(cpu) {
		if (!cpus[cpu])
			continue;
		irq_work_sync(&cpus[cpu]->wakeup);
		vfree(cpus[cpu]->mem);
		kfree(cpus[cpu]);
	}
	kfree(cpus);
}

static struct vmt_cpu_ring **vmt_rings_alloc(struct vmt_ring_set *set, size_t stride)
{
	struct vmt_cpu_ring **cpus;
	int cpu;

	cpus = kcalloc(nr_cpu_ids, sizeof(*cpus), GFP_KERNEL);
	if (!cpus)
		return NULL;
	for_each_possible_cpu(cpu) {
		cpus[cpu] = kzalloc(sizeof(*cpus[cpu]), GFP_KERNEL);
		if (!cpus[cpu])
			goto out_free;
		cpus[cpu]->set = set;
		init_irq_work(&cpus[cpu]->wakeup, vmt_rings_wake_fn);
		/* Zeroed, and marked VM_USERMAP for remap_vmalloc_range(). */
		cpus[cpu]->mem = vmalloc_user(stride);
		if (!cpus[cpu]->mem)
			goto out_free;
	}
	return cpus;

out_free:
	vmt_rings_release(cpus);
	return NULL;
}

/*
 * Empties every ring of @cpus and lays it out for the VMT_CONFIG_* @flags:
 * a fresh start for counts and readers alike. A set nobody can reach yet
 * needs no lock; the published one is emptied under set->lock.
 */
static void vmt_rings_lay_out(struct vmt_cpu_ring **cpus, size_t stride, u32 flags)
{
	u32 ring_flags = (flags & VMT_CONFIG_OVERWRITE) ? VMT_RING_OVERWRITE : 0;
	u32 records = (stride - PAGE_SIZE) / VMT_RECORD_SIZE;
	struct vmt_ring_meta *meta;
	struct vmt_cpu_ring *cr;
	int cpu;

	for_each_possible_cpu(cpu) {
		cr = cpus[cpu];
		meta = cr->mem;
		/*
		 * A reader may have the control page mapped: its constant
		 * fields are written again below with the same values, never
		 * cleared, so that it never reads them zero. From head to the end
		 * (through a char pointer: the fields after head, not head alone,
		 * which FORTIFY_SOURCE would take the memset for).
		 */
		memset((char *)meta + offsetof(struct vmt_ring_meta, head), 0,
		       sizeof(*meta) - offsetof(struct vmt_ring_meta, head));
		memset(cr->mem + PAGE_SIZE, 0, stride - PAGE_SIZE);
		cr->faults = 0;
		/* Geometry was checked by vmt_settings_check(): cannot fail. */
		WARN_ON(vmt_ring_init(&cr->ring, cr->mem, records, cpu, ring_flags));
	}
}

/**
 * vmt_rings_reset() - empty the published set, laid out for @flags
 * @set:	the session's set
 * @flags:	VMT_CONFIG_* (overwrite or not)
 *
 * Context: the session's lock held, tracing off and its writers gone.
 */
void vmt_rings_reset(struct vmt_ring_set *set, u32 flags)
{
	mutex_lock(&set->lock);
	vmt_rings_lay_out(set->cpus, set->stride, flags);
	mutex_unlock(&set->lock);
}

/*
 * Make @cpus, whole, the published set (see the top of this file).
 * Return: 0, or -EBUSY while the old set is mapped (@cpus is then the
 * caller's still).
 */
static int vmt_rings_publish(struct vmt_ring_set *set, struct vmt_cpu_ring **cpus,
			     size_t stride)
{
	struct vmt_cpu_ring **old;

	mutex_lock(&set->lock);
	if (atomic_read(&set->mappings)) {
		mutex_unlock(&set->lock);
		return -EBUSY;
	}
	old = set->cpus;
	set->cpus = cpus;
	set->stride = stride;
	mutex_unlock(&set->lock);
	vmt_rings_release(old);
	return 0;
}

/**
 * vmt_rings_configure() - rings of @ring_records records, empty, laid out
 * @set:	the session's set
 * for @flags: allocated anew when their size changes, so that readers can
 * map them before tracing starts
 * @ring_records: records a ring holds, a checked power of two
 * @flags:	VMT_CONFIG_*
 *
 * Context: the session's lock held, tracing off.
 * Return: 0; -EBUSY while a ring of another size is mapped, -ENOMEM. The
 * set is unchanged on error.
 */
int vmt_rings_configure(struct vmt_ring_set *set, u32 ring_records, u32 flags)
{
	size_t stride = vmt_rings_stride(ring_records);
	struct vmt_cpu_ring **cpus;
	int err;

	if (set->cpus && stride == set->stride) {
		vmt_rings_reset(set, flags);
		return 0;
	}
	cpus = vmt_rings_alloc(set, stride);
	if (!cpus)
		return -ENOMEM;
	/* Whole before any reader can reach it. */
	vmt_rings_lay_out(cpus, stride, flags);
	err = vmt_rings_publish(set, cpus, stride);
	if (err)
		vmt_rings_release(cpus);
	return err;
}

/**
 * vmt_rings_free() - free the set, at unload
 * @set:	the session's set
 *
 * Context: nothing maps the rings any more (the device holds the module).
 */
void vmt_rings_free(struct vmt_ring_set *set)
{
	vmt_rings_release(set->cpus);
	set->cpus = NULL;
}

/**
 * vmt_rings_count() - add every ring's faults, records and lost records to
 * @set:	the session's set
 * @status
 * @status:	the counts so far
 *
 * Counters of other CPUs are read while they may change: each value is a
 * consistent 64-bit load, the sum a snapshot.
 *
 * Context: the session's lock held.
 */
void vmt_rings_count(struct vmt_ring_set *set, struct vmt_status *status)
{
	struct vmt_cpu_ring *cr;
	int cpu;

	if (!set->cpus)
		return;
	for_each_possible_cpu(cpu) {
		cr = set->cpus[cpu];
		status->faults += READ_ONCE(cr->faults);
		status->records += READ_ONCE(cr->ring.written);
		status->lost += READ_ONCE(cr->ring.lost);
	}
}

/**
 * vmt_rings_lost_per_cpu() - records each ring dropped since the last start
 * @set:	the session's set
 * @lost:	filled in, one count per possible CPU in CPU order
 * @max:	room in @lost
 *
 * Context: the session's lock held.
 * Return: the number of counts filled in; 0 before the first configure.
 */
u32 vmt_rings_lost_per_cpu(struct vmt_ring_set *set, u64 *lost, u32 max)
{
	u32 n = 0;
	int cpu;

	if (set->cpus)
		for_each_possible_cpu(cpu)
			if (n < max)
				lost[n++] = READ_ONCE(set->cpus[cpu]->ring.lost);
	return n;
}

/**
 * vmt_rings_geometry() - where the rings are in the mmap space
 * @set:	the session's set
 * @geometry:	filled in
 *
 * Return: 0, or -ENODEV before the first configure.
 */
int vmt_rings_geometry(struct vmt_ring_set *set, struct vmt_geometry *geometry)
{
	int err = 0;

	memset(geometry, 0, sizeof(*geometry));
	mutex_lock(&set->lock);
	if (set->cpus) {
		geometry->nr_rings = nr_cpu_ids;
		geometry->ring_records = (set->stride - PAGE_SIZE) / VMT_RECORD_SIZE;
		geometry->records_offset = PAGE_SIZE;
		geometry->ring_stride = set->stride;
	} else {
		err = -ENODEV;
	}
	mutex_unlock(&set->lock);
	return err;
}

/* A mapping's set is its vm_private_data. */
static void vmt_rings_vma_open(struct vm_area_struct *vma)
{
	struct vmt_ring_set *set = vma->vm_private_data;

	atomic_inc(&set->mappings);
}

static void vmt_rings_vma_close(struct vm_area_struct *vma)
{
	struct vmt_ring_set *set = vma->vm_private_data;

	atomic_dec(&set->mappings);
}

static const struct vm_operations_struct vmt_rings_vm_ops = {
	.open = vmt_rings_vma_open,
	.close = vmt_rings_vma_close,
};

/**
 * vmt_rings_mmap() - map one ring's control page or its records
 * @set:	the session's set
 * @vma:	offset c * stride: ring c's control page, one page, any
 *		protection; offset c * stride + PAGE_SIZE: its records, all
 *		of them, read-only
 *
 * Return: 0; -ENODEV before the first configure; -EINVAL for an offset or
 * length that is neither; -EPERM for writable records.
 */
int vmt_rings_mmap(struct vmt_ring_set *set, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 cpu, within, stride;
	int err = -EINVAL;

	mutex_lock(&set->lock);
	if (!set->cpus) {
		err = -ENODEV;
		goto out_unlock;
	}
	stride = set->stride;
	cpu = div64_u64_rem(offset, stride, &within);
	if (cpu >= nr_cpu_ids || !set->cpus[cpu])
		goto out_unlock;
	if (within == 0) {
		if (len != PAGE_SIZE)
			goto out_unlock;
	} else if (within == PAGE_SIZE) {
		if (len != stride - PAGE_SIZE)
			goto out_unlock;
		if (vma->vm_flags & VM_WRITE) {
			err = -EPERM;
			goto out_unlock;
		}
		vmt_vma_clear_flags(vma, VM_MAYWRITE);
	} else {
		goto out_unlock;
	}
	err = remap_vmalloc_range(vma, set->cpus[cpu]->mem, within >> PAGE_SHIFT);
	if (err)
		goto out_unlock;
	vma->vm_ops = &vmt_rings_vm_ops;
	vma->vm_private_data = set;
	atomic_inc(&set->mappings);
out_unlock:
	mutex_unlock(&set->lock);
	return err;
}

/**
 * vmt_rings_poll() - readable when a ring holds a quarter of its records
 * @set:	the session's set
 * @file:	the device
 * @wait:	the poll table
 * @off:	tracing is off
 *
 * Return: EPOLLIN when some ring reached its watermark, or tracing is off
 * and some ring has records left; EPOLLHUP when tracing is off.
 */
__poll_t vmt_rings_poll(struct vmt_ring_set *set, struct file *file, poll_table *wait,
			bool off)
{
	__poll_t mask = off ? EPOLLHUP : 0;
	int cpu;

	poll_wait(file, &set->readers, wait);
	mutex_lock(&set->lock);
	if (set->cpus) {
		for_each_possible_cpu(cpu) {
			struct vmt_ring *ring = &set->cpus[cpu]->ring;
			/* Readers' view: the published head, their own tail. */
			u64 unread = smp_load_acquire(&ring->meta->head) -
				     READ_ONCE(ring->meta->tail);

			if (unread && (off || unread >= vmt_ring_watermark(ring)))
				mask |= EPOLLIN | EPOLLRDNORM;
		}
	}
	mutex_unlock(&set->lock);
	return mask;
}
