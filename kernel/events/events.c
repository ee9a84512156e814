// SPDX-License-Identifier: GPL-2.0
/*
 * Introspection events beside the references: context switches, the
 * targets' task lifecycle (fork, exec, exit, comm changes), user markers,
 * and the state dump at start. The address-space events are in vma.c, DMA
 * in dma.c.
 *
 * Every probe here runs from a tracepoint, with preemption off, and may not
 * sleep: it checks that tracing is on and that the event is asked for,
 * builds a record and hands it to vmt_emit*(). They are attached from load
 * to unload like the fault probes (hooks.c).
 */
#include <linux/binfmts.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "base/hooks.h"
#include "base/session.h"
#include "events/events.h"
#include "events/vma.h"
#include "exact/exact_ranges.h"
#include "ring/emit.h"

/* Processes the state dump covers at most; the others are counted missed. */
#define VMT_DUMP_MAX	65536

/* sched:sched_switch, in the scheduler with its run-queue lock held. */
static void vmt_events_probe_switch(void *data, bool preempt, struct task_struct *prev,
				    struct task_struct *next, unsigned int prev_state)
{
	struct vmt_session *s;
	struct vmt_record rec;

	if (!vmt_session_event_on(VMT_EVENT_SWITCH | VMT_EVENT_SWITCH_ALL))
		return;
	/* Every switch runs alone, as session 0; else the session of prev or next. */
	s = vmt_session_alone();
	if (!(vmt_session_is_tracing(s) && vmt_session_wants(s, VMT_EVENT_SWITCH_ALL))) {
		s = vmt_session_of(prev);
		if (!s)
			s = vmt_session_of(next);
		if (!vmt_session_wants(s, VMT_EVENT_SWITCH))
			return;
	}
	memset(&rec, 0, sizeof(rec));
	rec.sw.next_pid = task_tgid_nr(next);
	rec.sw.next_tid = task_pid_nr(next);
	rec.sw.prev_state = preempt ? 0 : prev_state;
	rec.sw.preempt = preempt;
	/* prev is current: the switch has not happened yet. */
	vmt_emit(s, &rec, VMT_REC_SWITCH);
}

/* task:task_newtask, in the parent, once the child has its ids. */
static void vmt_events_probe_newtask(void *data, struct task_struct *task,
				     unsigned long clone_flags)
{
	struct vmt_session *s;
	struct vmt_record rec;

	if (!vmt_session_event_on(VMT_EVENT_TASK))
		return;
	s = vmt_session_of(current);
	if (!vmt_session_wants(s, VMT_EVENT_TASK))
		return;
	memset(&rec, 0, sizeof(rec));
	rec.fork.child_pid = task_tgid_nr(task);
	rec.fork.child_tid = task_pid_nr(task);
	rec.fork.clone_flags = clone_flags;
	vmt_emit(s, &rec, VMT_REC_FORK);
}

/*
 * sched:sched_process_exec, in the exec'ing task, once its new address
 * space is complete: the file name, then (with VMA events) the new map.
 */
static void vmt_events_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
				  struct linux_binprm *bprm)
{
	struct vmt_session *s;
	struct vmt_record rec;
	u32 len;

	s = vmt_session_of(p);
	if (!s)
		return;
	if (vmt_session_wants(s, VMT_EVENT_TASK)) {
		memset(&rec, 0, sizeof(rec));
		rec.exec.old_tid = old_pid;
		len = strnlen(bprm->filename, VMT_MAX_DATA_LEN + 1);
		if (len > VMT_MAX_DATA_LEN) {
			rec.exec.flags |= VMT_DATA_DROPPED;
			vmt_emit_count_dropped(s);
			len = 0;
		}
		vmt_emit_data(s, &rec, VMT_REC_EXEC, bprm->filename, len);
	}
	/*
	 * The new address space's lock is free unless another task reads the
	 * map (/proc/PID/maps, ptrace): a trylock because this context may not
	 * sleep, and a task_work that waits for it otherwise. Exact mode's
	 * ranges made of the old address space's mappings go either way.
	 */
	if (vmt_session_wants(s, VMT_EVENT_VMA)) {
		vmt_exact_unmapped(task_tgid_nr(p), 0, ULONG_MAX);
		if (mmap_read_trylock(p->mm)) {
			vmt_vma_emit_all(s, p->mm, task_tgid_nr(p), VMT_VMA_EXEC);
			mmap_read_unlock(p->mm);
		} else {
			vmt_vma_exec_missed(s);
		}
	}
}

/*
 * sched:sched_process_exit, in the exiting thread, after it has let go of
 * its address space: the process is recognized by its thread group id.
 */
static void vmt_events_probe_exit(void *data, struct task_struct *p)
{
	struct vmt_session *s;
	struct vmt_record rec;

	if (!vmt_session_event_on(VMT_EVENT_TASK))
		return;
	s = vmt_session_of_process(p);
	if (!vmt_session_wants(s, VMT_EVENT_TASK))
		return;
	memset(&rec, 0, sizeof(rec));
	rec.exit.exit_code = p->exit_code;
	/* do_exit() counted this thread out before it got here. */
	rec.exit.group_dead = atomic_read(&p->signal->live) == 0;
	vmt_emit(s, &rec, VMT_REC_EXIT);
}

/* task:task_rename, with the task's lock held: @task may not be current. */
static void vmt_events_probe_rename(void *data, struct task_struct *task,
				    const char *comm)
{
	struct vmt_session *s;
	struct vmt_record rec;

	if (!vmt_session_event_on(VMT_EVENT_TASK))
		return;
	s = vmt_session_of(task);
	if (!vmt_session_wants(s, VMT_EVENT_TASK))
		return;
	memset(&rec, 0, sizeof(rec));
	strscpy_pad(rec.comm.comm, comm, sizeof(rec.comm.comm));
	vmt_emit_as(s, &rec, VMT_REC_COMM, task_tgid_nr(task), task_pid_nr(task), NULL, 0);
}

/**
 * vmt_marker_emit() - write a user marker for current in @s
 * @s:		the session of the device file it came through
 * @id:		the marker's id
 * @text:	its text, in kernel memory
 * @len:	bytes at @text, at most VMT_MAX_MARKER_LEN
 *
 * Context: process context (the device's ioctl and write).
 * Return: 0, -ENODATA when tracing is off or markers are not asked for,
 * -ENOSPC when the ring was full (the marker is counted lost).
 */
int vmt_marker_emit(struct vmt_session *s, u32 id, const void *text, u32 len)
{
	struct vmt_record rec;
	int err = -ENODATA;

	memset(&rec, 0, sizeof(rec));
	rec.marker.id = id;
	/*
	 * Unlike the probes, a marker is written from plain process context:
	 * the read-side section keeps stop's grace period waiting until it
	 * is in the ring, so that no marker is written to rings being
	 * emptied or freed (see rings.c).
	 */
	rcu_read_lock();
	if (vmt_session_is_tracing(s) && vmt_session_wants(s, VMT_EVENT_MARKER))
		err = vmt_emit_data(s, &rec, VMT_REC_MARKER, text, len);
	rcu_read_unlock();
	return err;
}

/* One TASK record a thread of @p, with the executable's path as data, in @s. */
static void vmt_dump_threads(struct vmt_session *s, struct task_struct *p, struct mm_struct *mm)
{
	struct vmt_record rec;
	struct task_struct *t;
	struct file *exe;
	unsigned long flags;
	const char *name;
	u32 len;

	rcu_read_lock();
	/* Under mmap_lock, which PR_SET_MM_EXE_FILE takes for writing. */
	exe = rcu_dereference_raw(mm->exe_file);
	for_each_thread(p, t) {
		memset(&rec, 0, sizeof(rec));
		strscpy_pad(rec.task.comm, t->comm, sizeof(rec.task.comm));
		rec.task.ppid = task_tgid_nr(rcu_dereference(p->real_parent));
		name = NULL;
		len = 0;
		/* The path buffer is this CPU's while interrupts are off. */
		local_irq_save(flags);
		if (exe) {
			name = vmt_path_name(&exe->f_path, &len);
			if (!name) {
				rec.task.flags |= VMT_DATA_DROPPED;
				vmt_emit_count_dropped(s);
				len = 0;
			}
		}
		vmt_emit_as(s, &rec, VMT_REC_TASK, task_tgid_nr(t), task_pid_nr(t), name, len);
		local_irq_restore(flags);
	}
	rcu_read_unlock();
}

/* The TASK and VMA records of process @tgid in @s, if it still has an address space. */
static void vmt_dump_process(struct vmt_session *s, pid_t tgid)
{
	struct task_struct *p;
	struct mm_struct *mm;

	rcu_read_lock();
	p = pid_task(find_pid_ns(tgid, &init_pid_ns), PIDTYPE_TGID);
	if (p)
		get_task_struct(p);
	rcu_read_unlock();
	if (!p)
		return;
	mm = get_task_mm(p);
	if (mm) {
		mmap_read_lock(mm);
		if (vmt_session_wants(s, VMT_EVENT_TASK))
			vmt_dump_threads(s, p, mm);
		if (vmt_session_wants(s, VMT_EVENT_VMA))
			vmt_vma_emit_all(s, mm, tgid, VMT_VMA_DUMP);
		mmap_read_unlock(mm);
		mmput(mm);
	}
	put_task_struct(p);
}

/**
 * vmt_events_dump() - the state dump: every process @s traces, its
 * threads and mappings, once tracing is on
 * @s:		the session starting
 *
 * Processes are listed under RCU, then dumped one by one with their
 * address space's lock held, which may sleep.
 *
 * Context: process context, @s's lock held, @s tracing.
 */
void vmt_events_dump(struct vmt_session *s)
{
	struct task_struct *p;
	pid_t *tgids;
	u32 i, n = 0;

	if (!vmt_session_wants(s, VMT_EVENT_TASK | VMT_EVENT_VMA))
		return;
	tgids = kvmalloc_array(VMT_DUMP_MAX, sizeof(*tgids), GFP_KERNEL);
	if (!tgids) {
		vmt_emit_count_missed(s);
		return;
	}
	rcu_read_lock();
	for_each_process(p) {
		if (n == VMT_DUMP_MAX) {
			vmt_emit_count_missed(s);
			break;
		}
		if (vmt_session_of(p) == s)
			tgids[n++] = task_tgid_nr(p);
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++)
		vmt_dump_process(s, tgids[i]);
	kvfree(tgids);
}

static struct vmt_tracepoint_probe vmt_events_probes[] = {
	{ "sched_process_exec", vmt_events_probe_exec },
	{ "sched_switch", vmt_events_probe_switch },
	{ "task_newtask", vmt_events_probe_newtask },
	{ "sched_process_exit", vmt_events_probe_exit },
	{ "task_rename", vmt_events_probe_rename },
};

struct vmt_hooks vmt_events_hooks = {
	.name = "events",
	VMT_HOOKS_PROBES(vmt_events_probes),
};
