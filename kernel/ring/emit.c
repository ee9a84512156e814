// SPDX-License-Identifier: GPL-2.0
/*
 * Writing records: every probe and event source ends here. A record is
 * stamped (time, pid, tid, CPU) and written, with its variable-size data, to
 * the ring of the CPU it is written on, with interrupts off: each ring has
 * one producer, this CPU, and an interrupt writing a record (a DMA
 * completion) must not interleave with the task it interrupted.
 *
 * Paths are built into a per-CPU buffer, used only with interrupts off, so
 * that no probe needs PATH_MAX bytes of stack or an allocation.
 */
#include <linux/atomic.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "ring/emit.h"
#include "ring/rings.h"

static char *vmt_path_bufs;	/* nr_cpu_ids buffers of PATH_MAX bytes */
/*
 * Since start: variable-size data left out because it did not fit, and
 * introspection events that could not be written whole (their sources
 * count them here).
 */
static atomic64_t vmt_emit_dropped;
static atomic64_t vmt_emit_missed;

/**
 * vmt_emit_as() - stamp a record and write it to this CPU's ring
 * @rec:	the record; its header is filled in here
 * @type:	enum vmt_record_type
 * @pid:	the thread group it is about
 * @tid:	the thread
 * @data:	variable-size data written after it (VMT_REC_DATA records)
 * @len:	bytes at @data, at most VMT_MAX_DATA_LEN
 *
 * Context: any, tracing on (the rings exist). Never sleeps.
 * Return: 0, -ENOSPC when the ring was full (the records are counted lost),
 * -EINVAL for a @len too long.
 */
int vmt_emit_as(struct vmt_record *rec, u16 type, pid_t pid, pid_t tid,
		const void *data, u32 len)
{
	struct vmt_cpu_ring *cr;
	unsigned long flags;
	int cpu, err;

	local_irq_save(flags);
	cpu = smp_processor_id();
	cr = vmt_rings.cpus[cpu];
	rec->hdr.time_ns = ktime_get_mono_fast_ns();
	rec->hdr.pid = pid;
	rec->hdr.tid = tid;
	rec->hdr.type = type;
	rec->hdr.cpu = cpu;
	if (type == VMT_REC_REFERENCE)
		cr->faults++;
	err = vmt_ring_write_data(&cr->ring, rec, data, len);
	vmt_rings_wakeup(cr);
	local_irq_restore(flags);
	return err;
}

/* A record about current, with data. */
int vmt_emit_data(struct vmt_record *rec, u16 type, const void *data, u32 len)
{
	return vmt_emit_as(rec, type, task_tgid_nr(current), task_pid_nr(current), data, len);
}

/* A record about current. */
int vmt_emit(struct vmt_record *rec, u16 type)
{
	return vmt_emit_data(rec, type, NULL, 0);
}

/**
 * vmt_path_name() - @path as a name, in this CPU's path buffer
 * @path:	a path the caller keeps alive
 * @len:	set to the name's length
 *
 * Context: interrupts off until the name has been used; d_path() neither
 * sleeps nor allocates.
 * Return: the name (not NUL-terminated for the caller's purposes), or NULL
 * when it does not fit in PATH_MAX bytes.
 */
const char *vmt_path_name(const struct path *path, u32 *len)
{
	char *buf = vmt_path_bufs + (size_t)smp_processor_id() * PATH_MAX;
	char *name;

	lockdep_assert_irqs_disabled();
	name = d_path(path, buf, PATH_MAX);
	if (IS_ERR(name))
		return NULL;
	*len = strlen(name);
	return name;
}

/* At load. Return: 0 or -ENOMEM. */
int vmt_emit_init(void)
{
	vmt_path_bufs = kvmalloc_array(nr_cpu_ids, PATH_MAX, GFP_KERNEL);
	return vmt_path_bufs ? 0 : -ENOMEM;
}

/* At unload, once no probe runs. */
void vmt_emit_exit(void)
{
	kvfree(vmt_path_bufs);
}

/* Count data left out of a record (its VMT_DATA_DROPPED flag set). */
void vmt_emit_count_dropped(void)
{
	atomic64_inc(&vmt_emit_dropped);
}

/* Count an introspection event that could not be written whole. */
void vmt_emit_count_missed(void)
{
	atomic64_inc(&vmt_emit_missed);
}

/* At start, before tracing is on: the counts start from 0. */
void vmt_emit_start(void)
{
	atomic64_set(&vmt_emit_dropped, 0);
	atomic64_set(&vmt_emit_missed, 0);
}

/**
 * vmt_emit_count() - add the data and events left out to @status
 * @status:	its data_dropped and events_missed grow
 */
void vmt_emit_count(struct vmt_status *status)
{
	status->data_dropped += atomic64_read(&vmt_emit_dropped);
	status->events_missed += atomic64_read(&vmt_emit_missed);
}
