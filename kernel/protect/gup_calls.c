// SPDX-License-Identifier: GPL-2.0
/*
 * The calls table: get_user_pages() of a user thread faulting a target's pages in,
 * in a system call of the target's own thread or of another process's
 * (process_vm_readv(), /proc/PID/mem). The ranges join the target's stale
 * range when the calling thread's call returns, once the faults have mapped
 * the pages: marked stale at the fault, the stale work (another CPU), or
 * another thread of the target returning from a call of its own, could take
 * a range before the fault maps it, which then stays unprotected. A slot is
 * the calling thread's, for one target, from its first such fault in a call
 * until the call returns (the system-call exit probe), the thread returns
 * to user space otherwise (get_user_pages() outside a system call, a
 * uprobe's: the task_work queued at the first fault) or exits. (io_uring's
 * task_work, run on the way back from a system call after its exit probe,
 * keeps its slot until the thread's next call.) With every slot in use, the
 * range is marked stale at once, as for a kernel thread's fault: the race
 * above is open again then.
 */
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "protect/evict.h"
#include "protect/gup_calls.h"
#include "protect/targets.h"

#define VMT_CALLS	64

struct vmt_call {
	struct task_struct *caller;	/* NULL: free; compared, never followed */
	struct vmt_target *t;
	struct mm_struct *mm;		/* @t's when the range was added */
	unsigned long start, end;
};

static struct vmt_call vmt_calls[VMT_CALLS];
/*
 * Guards the slots; taken by the kprobe, the exit probes, the task_work and
 * stop, and before a target's lock. Only a thread fills a slot for itself:
 * it may look for its own without the lock.
 */
static DEFINE_RAW_SPINLOCK(vmt_calls_lock);
static atomic_t vmt_calls_used = ATOMIC_INIT(0);

/**
 * vmt_gup_call_add() - add [@start, @end) to current's slot for @t, taking
 * one if need be
 * @t:		the target
 * @mm:		its address space
 * @start:	page-aligned
 * @end:	page-aligned
 *
 * Context: any but an interrupt; does not sleep.
 * Return: 1 when a slot was taken, 0 when current had one for @t already,
 * -ENOSPC when every slot is in use.
 */
int vmt_gup_call_add(struct vmt_target *t, struct mm_struct *mm,
		     unsigned long start, unsigned long end)
{
	struct vmt_call *c, *free = NULL;
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&vmt_calls_lock, flags);
	for (i = 0; i < VMT_CALLS; i++) {
		c = &vmt_calls[i];
		if (c->caller == current && c->t == t && c->mm == mm) {
			vmt_range_add(&c->start, &c->end, start, end);
			raw_spin_unlock_irqrestore(&vmt_calls_lock, flags);
			return 0;
		}
		if (!c->caller && !free)
			free = c;
	}
	if (free) {
		*free = (struct vmt_call){ .caller = current, .t = t, .mm = mm,
					   .start = start, .end = end };
		atomic_inc(&vmt_calls_used);
	}
	raw_spin_unlock_irqrestore(&vmt_calls_lock, flags);
	return free ? 1 : -ENOSPC;
}

/**
 * vmt_gup_calls_done() - @task's system call returned, or it exits:
 * the pages its get_user_pages() faulted in are mapped, protect them again.
 * Other processes' pages, and an exiting thread's own, are protected by
 * the stale work; the caller has current's own protected before it
 * returns to user space.
 * @task:	the thread
 *
 * Context: the system-call exit and task exit probes, the task_work; does
 * not sleep.
 * Return: whether a range of current's own address space was marked stale
 * and is the caller's to protect.
 */
bool vmt_gup_calls_done(struct task_struct *task)
{
	bool queue = false, own = false, mine = false;
	struct vmt_call *c;
	unsigned long flags;
	u32 i;

	if (!atomic_read(&vmt_calls_used))
		return false;
	/* Every system call's exit comes here: the lock only for a slot of its own. */
	for (i = 0; i < VMT_CALLS && !mine; i++)
		mine = READ_ONCE(vmt_calls[i].caller) == task;
	if (!mine)
		return false;
	raw_spin_lock_irqsave(&vmt_calls_lock, flags);
	for (i = 0; i < VMT_CALLS; i++) {
		c = &vmt_calls[i];
		if (c->caller != task)
			continue;
		/* A slot reused for another address space has nothing to protect. */
		if (READ_ONCE(c->t->mm) == c->mm) {
			vmt_target_mark_stale(c->t, c->start, c->end);
			if (c->mm == task->mm && !(task->flags & PF_EXITING))
				own = true;
			else
				queue = true;
		}
		c->caller = NULL;
		atomic_dec(&vmt_calls_used);
	}
	raw_spin_unlock_irqrestore(&vmt_calls_lock, flags);
	if (queue)
		vmt_stale_work_queue();
	return own;
}

/* At stop, once no probe or work runs: every slot free. */
void vmt_gup_calls_clear(void)
{
	raw_spin_lock_irq(&vmt_calls_lock);
	memset(vmt_calls, 0, sizeof(vmt_calls));
	atomic_set(&vmt_calls_used, 0);
	raw_spin_unlock_irq(&vmt_calls_lock);
}
