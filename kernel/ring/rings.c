// SPDX-License-Identifier: GPL-2.0
/*
 * The ring set: a ring per possible CPU, each in its own vmalloc'ed memory,
 * laid out in one mmap space that readers map ring by ring:
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
 * - vmt_rings.lock publishes the set: ->cpus and ->stride change only under
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
#include "ring/rings.h"

struct vmt_ring_set vmt_rings = {
	.lock = __MUTEX_INITIALIZER(vmt_rings.lock),
	.readers = __WAIT_QUEUE_HEAD_INITIALIZER(vmt_rings.readers),
};

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
	wake_up_all(&vmt_rings.readers);
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

	if (unread >= vmt_ring_watermark(&cr->ring) && wq_has_sleeper(&vmt_rings.readers))
		irq_work_queue(&cr->wakeup);
}

/* Tracing stopped: readers drain what is left and see the end. */
void vmt_rings_wake_readers(void)
{
	wake_up_all(&vmt_rings.readers);
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

static struct vmt_cpu_ring **vmt_rings_alloc(size_t stride)
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
 * needs no lock; the published one is emptied under vmt_rings.lock.
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
 * @flags:	VMT_CONFIG_* (overwrite or not)
 *
 * Context: the session's lock held, tracing off and its writers gone.
 */
void vmt_rings_reset(u32 flags)
{
	mutex_lock(&vmt_rings.lock);
	vmt_rings_lay_out(vmt_rings.cpus, vmt_rings.stride, flags);
	mutex_unlock(&vmt_rings.lock);
}

/*
 * Make @cpus, whole, the published set (see the top of this file).
 * Return: 0, or -EBUSY while the old set is mapped (@cpus is then the
 * caller's still).
 */
static int vmt_rings_publish(struct vmt_cpu_ring **cpus, size_t stride)
{
	struct vmt_cpu_ring **old;

	mutex_lock(&vmt_rings.lock);
	if (atomic_read(&vmt_rings.mappings)) {
		mutex_unlock(&vmt_rings.lock);
		return -EBUSY;
	}
	old = vmt_rings.cpus;
	vmt_rings.cpus = cpus;
	vmt_rings.stride = stride;
	mutex_unlock(&vmt_rings.lock);
	vmt_rings_release(old);
	return 0;
}

/**
 * vmt_rings_configure() - rings of @ring_records records, empty, laid out
 * for @flags: allocated anew when their size changes, so that readers can
 * map them before tracing starts
 * @ring_records: records a ring holds, a checked power of two
 * @flags:	VMT_CONFIG_*
 *
 * Context: the session's lock held, tracing off.
 * Return: 0; -EBUSY while a ring of another size is mapped, -ENOMEM. The
 * set is unchanged on error.
 */
int vmt_rings_configure(u32 ring_records, u32 flags)
{
	size_t stride = vmt_rings_stride(ring_records);
	struct vmt_cpu_ring **cpus;
	int err;

	if (vmt_rings.cpus && stride == vmt_rings.stride) {
		vmt_rings_reset(flags);
		return 0;
	}
	cpus = vmt_rings_alloc(stride);
	if (!cpus)
		return -ENOMEM;
	/* Whole before any reader can reach it. */
	vmt_rings_lay_out(cpus, stride, flags);
	err = vmt_rings_publish(cpus, stride);
	if (err)
		vmt_rings_release(cpus);
	return err;
}

/**
 * vmt_rings_free() - free the set, at unload
 *
 * Context: nothing maps the rings any more (the device holds the module).
 */
void vmt_rings_free(void)
{
	vmt_rings_release(vmt_rings.cpus);
	vmt_rings.cpus = NULL;
}

/**
 * vmt_rings_count() - add every ring's faults, records and lost records to
 * @status
 * @status:	the counts so far
 *
 * Counters of other CPUs are read while they may change: each value is a
 * consistent 64-bit load, the sum a snapshot.
 *
 * Context: the session's lock held.
 */
void vmt_rings_count(struct vmt_status *status)
{
	struct vmt_cpu_ring *cr;
	int cpu;

	if (!vmt_rings.cpus)
		return;
	for_each_possible_cpu(cpu) {
		cr = vmt_rings.cpus[cpu];
		status->faults += READ_ONCE(cr->faults);
		status->records += READ_ONCE(cr->ring.written);
		status->lost += READ_ONCE(cr->ring.lost);
	}
}

/**
 * vmt_rings_lost_per_cpu() - records each ring dropped since the last start
 * @lost:	filled in, one count per possible CPU in CPU order
 * @max:	room in @lost
 *
 * Context: the session's lock held.
 * Return: the number of counts filled in; 0 before the first configure.
 */
u32 vmt_rings_lost_per_cpu(u64 *lost, u32 max)
{
	u32 n = 0;
	int cpu;

	if (vmt_rings.cpus)
		for_each_possible_cpu(cpu)
			if (n < max)
				lost[n++] = READ_ONCE(vmt_rings.cpus[cpu]->ring.lost);
	return n;
}

/**
 * vmt_rings_geometry() - where the rings are in the mmap space
 * @geometry:	filled in
 *
 * Return: 0, or -ENODEV before the first configure.
 */
int vmt_rings_geometry(struct vmt_geometry *geometry)
{
	int err = 0;

	memset(geometry, 0, sizeof(*geometry));
	mutex_lock(&vmt_rings.lock);
	if (vmt_rings.cpus) {
		geometry->nr_rings = nr_cpu_ids;
		geometry->ring_records = (vmt_rings.stride - PAGE_SIZE) / VMT_RECORD_SIZE;
		geometry->records_offset = PAGE_SIZE;
		geometry->ring_stride = vmt_rings.stride;
	} else {
		err = -ENODEV;
	}
	mutex_unlock(&vmt_rings.lock);
	return err;
}

static void vmt_rings_vma_open(struct vm_area_struct *vma)
{
	atomic_inc(&vmt_rings.mappings);
}

static void vmt_rings_vma_close(struct vm_area_struct *vma)
{
	atomic_dec(&vmt_rings.mappings);
}

static const struct vm_operations_struct vmt_rings_vm_ops = {
	.open = vmt_rings_vma_open,
	.close = vmt_rings_vma_close,
};

/**
 * vmt_rings_mmap() - map one ring's control page or its records
 * @vma:	offset c * stride: ring c's control page, one page, any
 *		protection; offset c * stride + PAGE_SIZE: its records, all
 *		of them, read-only
 *
 * Return: 0; -ENODEV before the first configure; -EINVAL for an offset or
 * length that is neither; -EPERM for writable records.
 */
int vmt_rings_mmap(struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 cpu, within, stride;
	int err = -EINVAL;

	mutex_lock(&vmt_rings.lock);
	if (!vmt_rings.cpus) {
		err = -ENODEV;
		goto out_unlock;
	}
	stride = vmt_rings.stride;
	cpu = div64_u64_rem(offset, stride, &within);
	if (cpu >= nr_cpu_ids || !vmt_rings.cpus[cpu])
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
	err = remap_vmalloc_range(vma, vmt_rings.cpus[cpu]->mem, within >> PAGE_SHIFT);
	if (err)
		goto out_unlock;
	vma->vm_ops = &vmt_rings_vm_ops;
	atomic_inc(&vmt_rings.mappings);
out_unlock:
	mutex_unlock(&vmt_rings.lock);
	return err;
}

/**
 * vmt_rings_poll() - readable when a ring holds a quarter of its records
 * @file:	the device
 * @wait:	the poll table
 * @off:	tracing is off
 *
 * Return: EPOLLIN when some ring reached its watermark, or tracing is off
 * and some ring has records left; EPOLLHUP when tracing is off.
 */
__poll_t vmt_rings_poll(struct file *file, poll_table *wait, bool off)
{
	__poll_t mask = off ? EPOLLHUP : 0;
	int cpu;

	poll_wait(file, &vmt_rings.readers, wait);
	mutex_lock(&vmt_rings.lock);
	if (vmt_rings.cpus) {
		for_each_possible_cpu(cpu) {
			struct vmt_ring *ring = &vmt_rings.cpus[cpu]->ring;
			/* Readers' view: the published head, their own tail. */
			u64 unread = smp_load_acquire(&ring->meta->head) -
				     READ_ONCE(ring->meta->tail);

			if (unread && (off || unread >= vmt_ring_watermark(ring)))
				mask |= EPOLLIN | EPOLLRDNORM;
		}
	}
	mutex_unlock(&vmt_rings.lock);
	return mask;
}
