// SPDX-License-Identifier: GPL-2.0
/*
 * Enabled sets at work: admitting faulting pages, and the task_work that
 * has the pages they displace protected (evict.c) before the thread runs
 * user code again; the same task_work adds a followed child's or an exec'd
 * process's address space as a target (the sched probes, here), and
 * protects again the ranges the kernel mapped back (the stale-range entry
 * points; get_user_pages()'s calls are kept in gup_calls.c's table).
 *
 * The fault probe runs with interrupts off, before the fault is handled: it
 * may not take mmap_lock, a PTE lock (whose holder may be waiting for this
 * CPU to answer a TLB-flush IPI) or flush a TLB. So it only admits the page
 * to the set and, when the set holds more than it may, queues a task_work
 * on the faulting thread. The work runs when the thread next returns to
 * user space, after the fault is handled and before the faulting
 * instruction is retried, in process context: it takes
 * mmap_read_lock, protects the victims under their PTE locks, flushes their
 * TLB entries on every CPU that may hold them, and only then writes their
 * EVICT records. So when a thread runs user code again, its address space
 * has no more enabled pages than the set allows (and the current run's).
 *
 * A fault taken in kernel mode (a system call copying to or from the page)
 * queues no task_work: its thread may sleep in the call for long, or be the
 * very thread that stops tracing (rmmod copying the module's name), and
 * stop waits for every queued work. The stale work (evict.c) evicts for such
 * faults instead, from a worker, and the system-call exit probe queues the
 * task_work then, when the eviction is still to do or under way
 * (vmt_admit_sys_exit()). So the rule above holds for system calls too;
 * after a fault in kernel mode elsewhere (a signal frame written, a thread's
 * exit clearing its tid), the eviction is made by the worker, soon after.
 * Evictions of an address space are serialized by its evict_lock, so that a
 * thread's work returns only once no victim is left unprotected.
 *
 * The task_works come from a preallocated pool: nothing is allocated on the
 * fault path. A slot belongs to one thread from the fault that queues it
 * until its work starts; a thread with a slot queues nothing more, its work
 * evicts for every fault since. If no slot is free, the eviction waits for
 * the thread's next fault and is counted as deferred.
 *
 * task_work cannot be cancelled from a module, so stopping waits until every
 * queued work has run (vmt_admit_quiesce()). Works are queued only on the
 * way back to user space (a user-mode fault, exec, a child's first run), so
 * the wait is short; threads that sleep there anyway (a fault handler
 * waiting for I/O) are woken the way a signal would.
 */
#include <linux/bits.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>
#include <linux/sched/mm.h>
#include <linux/wait.h>
#include <asm/syscall.h>

#include "base/hooks.h"
#include "base/session.h"
#include "protect/admit.h"
#include "protect/evict.h"
#include "protect/gup_calls.h"
#include "protect/targets.h"

#define VMT_TWORK_BITS		8
#define VMT_TWORKS		BIT(VMT_TWORK_BITS)
#define VMT_TWORK_PROBES	8	/* slots a thread may use, from its hash */

/*
 * @stale_start and @stale_end: a range the owner's faults marked stale (a
 * large folio the fault maps back whole), which its work marks again
 * before it evicts: the fault maps the folio back after the probe, and a
 * stale work running in between would take the range while its entries
 * are still protnone. Only the owner writes and reads them.
 */
struct vmt_twork {
	struct callback_head cb;
	struct task_struct *owner;	/* NULL: free; see vmt_twork_lock */
	unsigned long stale_start, stale_end;
};

static struct vmt_twork vmt_tworks[VMT_TWORKS];
/*
 * Taken when a work releases its slot and when stop wakes the slots' owners:
 * an owner seen under it has not finished exiting (exit runs its pending
 * works, and so releases the slot, first).
 */
static DEFINE_SPINLOCK(vmt_twork_lock);
static atomic_t vmt_tworks_pending = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(vmt_tworks_idle);
/* Evictions put off because no slot was free, since start. */
static atomic64_t vmt_admit_deferred;

static void vmt_twork_run(struct callback_head *cb);

/*
 * Called by the probes, interrupts off, for the faulting or exec'ing thread
 * or for a child that has not run yet.
 */
static struct vmt_twork *vmt_twork_queue(struct task_struct *task)
{
	u32 h = hash_ptr(task, VMT_TWORK_BITS);
	struct vmt_twork *w;
	u32 i;

	/*
	 * Only the thread itself (or its parent, before it first runs) claims
	 * a slot for it, and only its work releases it: no race here.
	 */
	for (i = 0; i < VMT_TWORK_PROBES; i++) {
		w = &vmt_tworks[(h + i) % VMT_TWORKS];
		if (READ_ONCE(w->owner) == task)
			return w;
	}
	for (i = 0; i < VMT_TWORK_PROBES; i++) {
		w = &vmt_tworks[(h + i) % VMT_TWORKS];
		if (!READ_ONCE(w->owner) && !cmpxchg(&w->owner, NULL, task))
			goto claimed;
	}
	atomic64_inc(&vmt_admit_deferred);
	return NULL;

claimed:
	w->stale_start = 0;
	w->stale_end = 0;
	atomic_inc(&vmt_tworks_pending);
	init_task_work(&w->cb, vmt_twork_run);
	/* Fails only when the thread is exiting: it returns to no user code. */
	if (task_work_add(task, &w->cb, TWA_RESUME)) {
		WRITE_ONCE(w->owner, NULL);
		if (atomic_dec_and_test(&vmt_tworks_pending))
			wake_up_all(&vmt_tworks_idle);
		return NULL;
	}
	return w;
}

static void vmt_twork_run(struct callback_head *cb)
{
	struct vmt_twork *w = container_of(cb, struct vmt_twork, cb);
	unsigned long stale_start = w->stale_start, stale_end = w->stale_end;
	struct vmt_target *t;

	spin_lock(&vmt_twork_lock);
	WRITE_ONCE(w->owner, NULL);
	spin_unlock(&vmt_twork_lock);
	/* Calls ended outside a system call's exit (see vmt_target_stale_in_call()). */
	vmt_gup_calls_done(current);

	/*
	 * An exiting thread (its mm gone) has nothing to evict. A traced
	 * process in an address space that is not a target yet (a child, or
	 * after exec) gets it protected before it runs user code.
	 */
	if (current->mm && !(current->flags & PF_EXITING)) {
		t = vmt_target_lookup(current->mm);
		if (!t && vmt_session_of(current))
			t = vmt_target_add(current->mm, task_tgid_nr(current));
		if (t && stale_start < stale_end)
			vmt_target_mark_stale(t, stale_start, stale_end);
		if (t)
			vmt_target_evict(t);
	}

	/*
	 * Stop may go on, and the module go away, once this is zero: nothing
	 * of the module may run after it but the return. (A module cannot
	 * close that window completely; it is a few instructions.) Only a
	 * stop waits: most works take no wait-queue lock (wq_has_sleeper()'s
	 * barrier pairs with the waiter's, between its enqueue and its check).
	 */
	if (atomic_dec_and_test(&vmt_tworks_pending) && wq_has_sleeper(&vmt_tworks_idle))
		wake_up_all(&vmt_tworks_idle);
}

/**
 * vmt_target_admit() - a target's thread faulted on @addr
 * @t:		its address space
 * @addr:	the faulting address
 * @ip:		the faulting instruction
 * @kernel_mode: the fault came from kernel mode
 * @stale_start: the start of a range the fault will map back present, to
 *		protect again (empty when @stale_start >= @stale_end)
 * @stale_end:	its end
 *
 * Work is queued only when there is some: the set holds more than it may,
 * or a stale range. Faults that fill the set, and those between two
 * evictions of a batch, queue nothing.
 *
 * Context: the fault probe: interrupts off, current is the faulting thread.
 */
void vmt_target_admit(struct vmt_target *t, unsigned long addr, unsigned long ip,
		      bool kernel_mode, unsigned long stale_start, unsigned long stale_end)
{
	bool stale = stale_start < stale_end, work;
	struct vmt_twork *w;

	raw_spin_lock(&t->lock);
	vmt_eset_admit(&t->set, addr, task_pid_nr(current), ip, kernel_mode);
	if (stale)
		vmt_range_add(&t->stale_start, &t->stale_end, stale_start, stale_end);
	work = stale || vmt_eset_over(&t->set);
	if (work && kernel_mode)
		__vmt_target_want_evict(t);
	raw_spin_unlock(&t->lock);
	if (!work)
		return;
	/*
	 * See the top of this file for why kernel mode queues no task_work.
	 * There the stale work may take the range before the fault maps it
	 * back: a window, as for the kernel's own changes (notify.c).
	 */
	if (kernel_mode) {
		vmt_stale_work_queue();
		return;
	}
	w = vmt_twork_queue(current);
	if (w && stale)
		vmt_range_add(&w->stale_start, &w->stale_end, stale_start, stale_end);
}

/*
 * current returns from a system call: protect
 * again the pages its get_user_pages() faulted in; if they were its own, or
 * a fault from kernel mode left its address space an eviction to make, or
 * one is under way, have it made or waited for before user code runs.
 * Context: the system-call exit probe; may not sleep.
 */
static void vmt_admit_sys_exit(void)
{
	bool call = vmt_gup_calls_done(current);
	struct vmt_target *t;

	if (!call && !vmt_evicts_pending())
		return;
	t = vmt_target_lookup(current->mm);
	if (!t)
		return;
	if (call || READ_ONCE(t->evict_pending)) {
		/* With no work slot free, the stale work protects the range. */
		if (!vmt_twork_queue(current) && call)
			vmt_stale_work_queue();
		return;
	}
	/*
	 * An evictor takes evict_lock before it clears evict_pending: seen
	 * clear, the lock is held until its victims are protected, or they are.
	 * Read the flag before the lock, as the evictor wrote them the other
	 * way round (its locked cmpxchg orders the two stores: x86, as the
	 * whole module).
	 */
	smp_rmb();
	if (mutex_is_locked(&t->evict_lock))
		vmt_twork_queue(current);
}

/*
 * raw_syscalls:sys_exit, with protection: pages of targets the call's
 * get_user_pages() faulted in are protected again; in a traced process, the
 * evictions faults from kernel mode in the call left are made before the
 * thread returns to user space (vmt_admit_sys_exit()); and an mprotect()
 * that succeeded rebuilt the range's entries from the new protection,
 * present, protnone ones included: they are protected again before then
 * too, but for the enabled set's pages. Other threads of the process may
 * reach a page of the range in between, unlogged: the window is the rest
 * of the system call's return.
 */
static void vmt_admit_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	unsigned long args[6];
	struct vmt_target *t;

	if (!vmt_session_protecting() || !current->mm)
		return;
	vmt_admit_sys_exit();
	if (syscall_get_nr(current, regs) != __NR_mprotect || in_ia32_syscall() || ret)
		return;
	t = vmt_target_lookup(current->mm);
	if (!t)
		return;
	syscall_get_arguments(current, regs, args);
	vmt_target_mark_stale(t, args[0] & PAGE_MASK, PAGE_ALIGN(args[0] + args[1]));
	vmt_twork_queue(current);
}

/**
 * vmt_target_stale_in_call() - get_user_pages() of current, a user thread,
 * is faulting in [@start, @end) of target @t's address space @mm, in a
 * system call: protect it again when the call returns, but for the enabled
 * set's pages; before current's user code runs if @mm is its own
 * (vmt_admit_sys_exit()), by the stale work soon after otherwise
 * @t:		the target
 * @mm:		its address space
 * @start:	page-aligned
 * @end:	page-aligned
 *
 * Other threads of the process may reach a page of the range in between,
 * unlogged, for as long as the call lasts. With every slot of the table in
 * use, the range is marked stale at once (see gup_calls.c).
 *
 * Context: any but an interrupt; does not sleep.
 */
void vmt_target_stale_in_call(struct vmt_target *t, struct mm_struct *mm,
			      unsigned long start, unsigned long end)
{
	int taken = vmt_gup_call_add(t, mm, start, end);

	if (taken < 0) {
		vmt_target_stale_soon(t, start, end);
		return;
	}
	/*
	 * Outside a system call (a uprobe's), the way back to user space ends
	 * the call. In one, its exit probe does: a work queued there could
	 * keep stop waiting for as long as the call sleeps.
	 */
	if (taken && syscall_get_nr(current, task_pt_regs(current)) < 0)
		vmt_twork_queue(current);
}

/**
 * vmt_target_stale_soon() - protect [@start, @end) of @t again from the
 * stale work, soon: a kernel thread's get_user_pages() faulting it in, or a
 * user thread's with no call slot free (if the work runs before the fault
 * has mapped a page, the page stays unprotected)
 * @t:		a target
 * @start:	page-aligned
 * @end:	page-aligned
 *
 * Context: any but an interrupt; does not sleep.
 */
void vmt_target_stale_soon(struct vmt_target *t, unsigned long start, unsigned long end)
{
	vmt_target_mark_stale(t, start, end);
	vmt_stale_work_queue();
}

/**
 * vmt_target_stale_before_user() - protect [@start, @end) of current's
 * target @t again before current returns to user space, but for the
 * enabled set's pages (exact mode's pages, whose PTE lock was busy)
 * @t:		current's target
 * @start:	page-aligned
 * @end:	page-aligned
 *
 * The work marks the range again when it runs, as for an admission's
 * (a fault maps its pages after the probe that calls this). With no work
 * slot free, the stale work protects the range, soon.
 *
 * Context: any but an interrupt, current a user thread; does not sleep.
 */
void vmt_target_stale_before_user(struct vmt_target *t, unsigned long start, unsigned long end)
{
	struct vmt_twork *w;

	vmt_target_mark_stale(t, start, end);
	w = vmt_twork_queue(current);
	if (w)
		vmt_range_add(&w->stale_start, &w->stale_end, start, end);
	else
		vmt_stale_work_queue();
}

/**
 * vmt_admit_quiesce() - wait until no eviction work is queued or running,
 * and forget the calls under way
 *
 * Context: process context; the probes are detached, so no work is queued
 * any more. Threads that sleep in a system call with a work queued are
 * woken as by a signal (TIF_NOTIFY_SIGNAL: an interrupted call is
 * restarted), so that stop does not wait for their sleep to end.
 */
void vmt_admit_quiesce(void)
{
	u32 i;

	while (!wait_event_timeout(vmt_tworks_idle, !atomic_read(&vmt_tworks_pending),
				   HZ / 10)) {
		spin_lock(&vmt_twork_lock);
		for (i = 0; i < VMT_TWORKS; i++) {
			struct task_struct *owner = READ_ONCE(vmt_tworks[i].owner);

			if (!owner)
				continue;
			set_tsk_thread_flag(owner, TIF_NOTIFY_SIGNAL);
			wake_up_process(owner);
		}
		spin_unlock(&vmt_twork_lock);
	}
	vmt_gup_calls_clear();
}

/*
 * Trace @task's address space from its next return to user space: its
 * task_work adds it as a target and protects it, unless it is one already.
 * @task is current, after exec, or a new child that has not run yet.
 */
static void vmt_target_add_task_later(struct task_struct *task)
{
	vmt_twork_queue(task);
}

/*
 * sched:sched_process_fork, in the parent before the child first runs. A
 * thread is its process's target already; a new process is followed when
 * asked (system-wide, always), and with protection its task_work protects
 * its address space before it runs user code.
 */
static void vmt_admit_probe_fork(void *data, struct task_struct *parent,
				 struct task_struct *child)
{
	struct vmt_session *s = vmt_session_alone();

	if (!vmt_session_tracing() || child->tgid == parent->tgid)
		return;
	if (vmt_session_is_tracing(s) && (s->settings.flags & VMT_CONFIG_SYSTEM_WIDE)) {
		if ((s->settings.flags & VMT_CONFIG_PROTECT) && vmt_session_of(child))
			vmt_target_add_task_later(child);
		return;
	}
	s = vmt_session_of(parent);
	if (!s || !(s->settings.flags & VMT_CONFIG_FOLLOW))
		return;
	vmt_session_follow(s, child);
	if (s->settings.flags & VMT_CONFIG_PROTECT)
		vmt_target_add_task_later(child);
}

/*
 * sched:sched_process_free, once a task is released, from RCU: when the
 * leader of a process is, every thread of the process has exited (and
 * had its exit event written), and a followed process is one no more. Its
 * pid (task_tgid_nr() is 0 by now) may be in use again already, by a
 * process followed since: one entry only goes.
 */
static void vmt_admit_probe_free(void *data, struct task_struct *p)
{
	if (vmt_session_tracing() && p->pid == p->tgid)
		vmt_session_unfollow(p->tgid);
}

/* sched:sched_process_exec: a target's new address space is traced too. */
static void vmt_admit_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
				 struct linux_binprm *bprm)
{
	if (vmt_session_protecting() && vmt_session_of(p))
		vmt_target_add_task_later(p);
}

static struct vmt_tracepoint_probe vmt_admit_sched_probes[] = {
	{ "sched_process_fork", vmt_admit_probe_fork },
	{ "sched_process_exec", vmt_admit_probe_exec },
	{ "sched_process_free", vmt_admit_probe_free },
};

/*
 * Attached apart from vmt_admit_hooks, second in core.c's table as they were
 * in targets.c: the probes of one tracepoint (sched_process_exec) run in the
 * order they were attached, these before the events' probes.
 */
struct vmt_hooks vmt_admit_sched_hooks = {
	.name = "targets",
	VMT_HOOKS_PROBES(vmt_admit_sched_probes),
};

/*
 * sched:sched_process_exit, in the exiting thread: one that faulted a
 * target's pages in and dies in the call has them protected again here.
 */
static void vmt_admit_probe_exit(void *data, struct task_struct *p)
{
	if (vmt_session_tracing())
		vmt_gup_calls_done(p);
}

static struct vmt_tracepoint_probe vmt_admit_probes[] = {
	/*
	 * While a probe is attached here every task's system calls take the
	 * slow exit path; it returns at once while nothing is protected.
	 */
	{ "sys_exit", vmt_admit_probe_sys_exit },
	{ "sched_process_exit", vmt_admit_probe_exit },
};

struct vmt_hooks vmt_admit_hooks = {
	.name = "admit",
	VMT_HOOKS_PROBES(vmt_admit_probes),
};

/* At start, before tracing is on: the count starts from 0. */
void vmt_admit_start(void)
{
	atomic64_set(&vmt_admit_deferred, 0);
}

/**
 * vmt_admit_count() - the evictions put off, into @status
 * @status:	its deferred is set
 */
void vmt_admit_count(struct vmt_status *status)
{
	status->deferred = atomic64_read(&vmt_admit_deferred);
}
