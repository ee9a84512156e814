// SPDX-License-Identifier: GPL-2.0
/*
 * Writing records: every probe and event source ends here. A record is
 * stamped (time, pid, tid, CPU) and written, with its variable-size data, to
 * the ring of the CPU it is written on, in the rings of the session it is
 * for (the caller found it: base/session.h), with interrupts off: each ring has
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

#include "base/session.h"
#include "ring/emit.h"
#include "ring/rings.h"

static char *vmt_path_bufs;	/* nr_cpu_ids buffers of PATH_MAX bytes */

/**
 * vmt_emit_as() - stamp a record and write it to this CPU's ring of @s
 * @s:		the session, tracing (its rings exist)
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
int vmt_emit_as(struct vmt_session *s, struct vmt_record *rec, u16 type, pid_t pid,
		pid_t tid, const void *data, u32 len)
{
	struct vmt_cpu_ring *cr;
	unsigned long flags;
	int cpu, err;

	local_irq_save(flags);
	cpu = smp_processor_id();
	cr = s->rings->cpus[cpu];
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
int vmt_emit_data(struct vmt_session *s, struct vmt_record *rec, u16 type,
		  const void *data, u32 len)
{
	return vmt_emit_as(s, rec, type, task_tgid_nr(current), task_pid_nr(current), data, len);
}

/* A record about current. */
int vmt_emit(struct vmt_session *s, struct vmt_record *rec, u16 type)
{
	return vmt_emit_data(s, rec, type, NULL, 0);
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

/* Count data left out of a record of @s (its VMT_DATA_DROPPED flag set). */
void vmt_emit_count_dropped(struct vmt_session *s)
{
	atomic64_inc(&s->dropped);
}

/* Count an introspection event of @s that could not be written whole. */
void vmt_emit_count_missed(struct vmt_session *s)
{
	atomic64_inc(&s->events_missed);
}
