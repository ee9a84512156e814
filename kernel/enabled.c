// SPDX-License-Identifier: GPL-2.0
/*
 * Enabled sets at work: admitting faulting pages, and protecting the pages
 * they displace.
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
 * stop waits for every queued work. The stale work (below) evicts for such
 * faults instead, from a worker, and the system-call exit probe queues the
 * task_work then, when the eviction is still to do or under way
 * (vmt_enabled_sys_exit()). So the rule above holds for system calls too;
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
 * queued work has run (vmt_enabled_quiesce()). Works are queued only on the
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

#include "compat.h"
#include "enabled.h"
#include "protect.h"
#include "session.h"

#define VMT_TWORK_BITS		8
#define VMT_TWORKS		BIT(VMT_TWORK_BITS)
#define VMT_TWORK_PROBES	8	/* slots a thread may use, from its hash */
#define VMT_EVICT_BATCH		VMT_ESET_BATCH_MAX	/* a whole batch a round */

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
/* Targets whose evict_pending is set, or whose eviction for it runs. */
static atomic_t vmt_evicts_pending = ATOMIC_INIT(0);

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
	atomic64_inc(&vmt_session.deferred);
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
	/* Calls ended outside a system call's exit (see vmt_call_add()). */
	vmt_enabled_calls_done(current);

	/*
	 * An exiting thread (its mm gone) has nothing to evict. A traced
	 * process in an address space that is not a target yet (a child, or
	 * after exec) gets it protected before it runs user code.
	 */
	if (current->mm && !(current->flags & PF_EXITING)) {
		t = vmt_session_target(current->mm);
		if (!t && vmt_session_traces(current))
			t = vmt_session_add_target(current->mm, task_tgid_nr(current));
		if (t && stale_start < stale_end)
			vmt_enabled_mark_stale(t, stale_start, stale_end);
		if (t)
			vmt_enabled_evict(t);
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

/* Widen [*@lo, *@hi) (empty when *@lo >= *@hi) to cover [@start, @end). */
static void vmt_range_add(unsigned long *lo, unsigned long *hi, unsigned long start,
			  unsigned long end)
{
	if (*lo >= *hi) {
		*lo = start;
		*hi = end;
	} else {
		*lo = min(*lo, start);
		*hi = max(*hi, end);
	}
}

/**
 * vmt_enabled_admit() - a target's thread faulted on @addr
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
void vmt_enabled_admit(struct vmt_target *t, unsigned long addr, unsigned long ip,
		       bool kernel_mode, unsigned long stale_start, unsigned long stale_end)
{
	bool stale = stale_start < stale_end, work;
	struct vmt_twork *w;

	raw_spin_lock(&t->lock);
	vmt_eset_admit(&t->set, addr, task_pid_nr(current), ip, kernel_mode);
	if (stale)
		vmt_range_add(&t->stale_start, &t->stale_end, stale_start, stale_end);
	work = stale || vmt_eset_over(&t->set);
	if (work && kernel_mode && !t->evict_pending) {
		t->evict_pending = true;
		atomic_inc(&vmt_evicts_pending);
	}
	raw_spin_unlock(&t->lock);
	if (!work)
		return;
	/*
	 * See the top of this file for why kernel mode queues no task_work.
	 * There the stale work may take the range before the fault maps it
	 * back: a window, as for the kernel's own changes (notify.c).
	 */
	if (kernel_mode) {
		vmt_enabled_queue_stale();
		return;
	}
	w = vmt_twork_queue(current);
	if (w && stale)
		vmt_range_add(&w->stale_start, &w->stale_end, stale_start, stale_end);
}

/**
 * vmt_enabled_sys_exit() - current returns from a system call: protect
 * again the pages its get_user_pages() faulted in; if they were its own, or
 * a fault from kernel mode left its address space an eviction to make, or
 * one is under way, have it made or waited for before user code runs
 *
 * Context: the system-call exit probe; may not sleep.
 */
void vmt_enabled_sys_exit(void)
{
	bool call = vmt_enabled_calls_done(current);
	struct vmt_target *t;

	if (!call && !atomic_read(&vmt_evicts_pending))
		return;
	t = vmt_session_target(current->mm);
	if (!t)
		return;
	if (call || READ_ONCE(t->evict_pending)) {
		/* With no work slot free, the stale work protects the range. */
		if (!vmt_twork_queue(current) && call)
			vmt_enabled_queue_stale();
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

/**
 * vmt_enabled_stale() - the kernel may have mapped back protected pages in
 * [@start, @end) (mprotect builds present entries from the new protection):
 * protect the range again before current returns to user space
 * @t:		current's target
 * @start:	page-aligned
 * @end:	page-aligned
 *
 * Pages of the range in the enabled set stay enabled. Other threads of the
 * process may reach a page of the range in between, unlogged: the window is
 * the rest of the system call's return.
 *
 * Context: the system-call exit probe; may not sleep.
 */
void vmt_enabled_stale(struct vmt_target *t, unsigned long start, unsigned long end)
{
	vmt_enabled_mark_stale(t, start, end);
	vmt_twork_queue(current);
}

/*
 * Calls: get_user_pages() of a user thread faulting a target's pages in,
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

/* Add [@start, @end) to current's slot for @t, taking one if need be. */
static bool vmt_call_add(struct vmt_target *t, struct mm_struct *mm,
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
			return true;
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
	/*
	 * Outside a system call (a uprobe's), the way back to user space ends
	 * the call. In one, its exit probe does: a work queued there could
	 * keep stop waiting for as long as the call sleeps.
	 */
	if (free && syscall_get_nr(current, task_pt_regs(current)) < 0)
		vmt_twork_queue(current);
	return free;
}

/**
 * vmt_enabled_calls_done() - @task's system call returned, or it exits:
 * the pages its get_user_pages() faulted in are mapped, protect them again
 * @task:	current
 *
 * Other processes' pages, and an exiting thread's own, are protected by
 * the stale work; the caller has current's own protected before it
 * returns to user space.
 *
 * Context: the system-call exit and task exit probes, the task_work; does
 * not sleep.
 * Return: whether a range of current's own address space was marked stale
 * and is the caller's to protect.
 */
bool vmt_enabled_calls_done(struct task_struct *task)
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
			vmt_enabled_mark_stale(c->t, c->start, c->end);
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
		vmt_enabled_queue_stale();
	return own;
}

/**
 * vmt_enabled_stale_in_call() - get_user_pages() of current, a user thread,
 * is faulting in [@start, @end) of target @t's address space @mm, in a
 * system call: protect it again when the call returns, but for the enabled
 * set's pages; before current's user code runs if @mm is its own
 * (vmt_enabled_sys_exit()), by the stale work soon after otherwise
 * @t:		the target
 * @mm:		its address space
 * @start:	page-aligned
 * @end:	page-aligned
 *
 * Other threads of the process may reach a page of the range in between,
 * unlogged, for as long as the call lasts. With every slot of the table in
 * use, the range is marked stale at once (see above).
 *
 * Context: any but an interrupt; does not sleep.
 */
void vmt_enabled_stale_in_call(struct vmt_target *t, struct mm_struct *mm,
			       unsigned long start, unsigned long end)
{
	if (!vmt_call_add(t, mm, start, end))
		vmt_enabled_stale_soon(t, start, end);
}

/**
 * vmt_enabled_stale_soon() - protect [@start, @end) of @t again from the
 * stale work, soon: a kernel thread's get_user_pages() faulting it in, or a
 * user thread's with no call slot free (if the work runs before the fault
 * has mapped a page, the page stays unprotected)
 * @t:		a target
 * @start:	page-aligned
 * @end:	page-aligned
 *
 * Context: any but an interrupt; does not sleep.
 */
void vmt_enabled_stale_soon(struct vmt_target *t, unsigned long start, unsigned long end)
{
	vmt_enabled_mark_stale(t, start, end);
	vmt_enabled_queue_stale();
}

/**
 * vmt_enabled_mark_stale() - add [@start, @end) to @t's stale range
 * @t:		a target
 * @start:	page-aligned
 * @end:	page-aligned
 *
 * Context: any but an interrupt; does not sleep.
 */
void vmt_enabled_mark_stale(struct vmt_target *t, unsigned long start, unsigned long end)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&t->lock, flags);
	vmt_range_add(&t->stale_start, &t->stale_end, start, end);
	raw_spin_unlock_irqrestore(&t->lock, flags);
}

static int vmt_cmp_addr(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Protect @t's stale range again, but for the pages of its enabled set,
 * which stay enabled (present, whatever the kernel rebuilt); mmap_read_lock
 * held. Entries of pages still under migration are passed over and their
 * range kept stale.
 */
static void vmt_enabled_protect_stale(struct vmt_target *t)
{
	struct vmt_protect_counts counts = {};
	unsigned long start, end, from, *pages;
	u32 i, n, room;

	raw_spin_lock_irq(&t->lock);
	start = t->stale_start;
	end = t->stale_end;
	t->stale_start = 0;
	t->stale_end = 0;
	room = t->set.live;
	raw_spin_unlock_irq(&t->lock);
	if (start >= end)
		return;
	pages = kmalloc_array(room + 1, sizeof(*pages), GFP_KERNEL);
	if (!pages) {
		vmt_enabled_mark_stale(t, start, end);
		return;
	}
	raw_spin_lock_irq(&t->lock);
	n = vmt_eset_pages_in(&t->set, start, end, pages, room + 1);
	raw_spin_unlock_irq(&t->lock);
	/*
	 * Pages admitted since room was read, past it, are protected with the
	 * rest: they fault again and are admitted again (logged twice, not lost).
	 */
	n = min(n, room + 1);
	sort(pages, n, sizeof(*pages), vmt_cmp_addr, NULL);
	from = start;
	for (i = 0; i <= n; i++) {
		unsigned long to = i < n ? pages[i] : end;

		if (to > from)
			vmt_protect_range(t->mm, from, to, &counts);
		if (i < n)
			from = max(from, pages[i] + PAGE_SIZE);
	}
	kfree(pages);
	/* THPs protected whole may reach past the range. */
	if (counts.ptes || counts.huge_pmds)
		vmt_flush_tlb_range(t->mm, start & HPAGE_PMD_MASK, ALIGN(end, HPAGE_PMD_SIZE));
	raw_spin_lock_irq(&t->lock);
	t->reprotected += counts.ptes + counts.huge_pmds;
	raw_spin_unlock_irq(&t->lock);
	/* Pages still moving come back present later: keep their range. */
	if (counts.migrating)
		vmt_enabled_mark_stale(t, start, end);
}

/**
 * vmt_target_get_mm() - a reference on @t's address space, if it has one
 * still in use
 * @t:		a target slot
 *
 * A slot's mm is dropped (vmt_session_add_target()) under the slot's lock
 * only: taken under it, the reference is to a live mm_struct.
 *
 * Context: process context; any locks.
 * Return: the mm, mmget() once, or NULL.
 */
struct mm_struct *vmt_target_get_mm(struct vmt_target *t)
{
	struct mm_struct *mm;

	raw_spin_lock_irq(&t->lock);
	mm = READ_ONCE(t->mm);
	if (mm && !mmget_not_zero(mm))
		mm = NULL;
	raw_spin_unlock_irq(&t->lock);
	return mm;
}

/*
 * The stale work: protect again the stale ranges the MMU notifiers marked
 * (notify.c), and evict for the pages faults from kernel mode admitted, in
 * process context, in every target that has either.
 */
static void vmt_stale_work_fn(struct work_struct *work)
{
	struct vmt_session *s = &vmt_session;
	struct vmt_target *t;
	struct mm_struct *mm;
	u32 i;

	/* Pairs with the release in vmt_session_add_target(). */
	for (i = 0; i < smp_load_acquire(&s->nr_targets); i++) {
		t = &s->targets[i];
		/* A reference on the mm is taken under the lock, or none. */
		raw_spin_lock_irq(&t->lock);
		mm = NULL;
		if (t->stale_start < t->stale_end || t->evict_pending) {
			mm = READ_ONCE(t->mm);
			if (mm && !mmget_not_zero(mm)) {
				/* Gone (exec, exit): the system-call exit probe need not look. */
				vmt_enabled_evict_dropped(t);
				mm = NULL;
			}
		}
		raw_spin_unlock_irq(&t->lock);
		if (!mm)
			continue;
		vmt_enabled_evict(t);
		mmput(mm);
	}
}

static DECLARE_WORK(vmt_stale_work, vmt_stale_work_fn);

/**
 * vmt_enabled_queue_stale() - have the stale work run (again) soon
 *
 * Context: any; does not sleep.
 */
void vmt_enabled_queue_stale(void)
{
	queue_work(system_unbound_wq, &vmt_stale_work);
}

/**
 * vmt_enabled_evict_dropped() - @t's address space is gone: nothing evicts
 * for it any more
 * @t:		the target
 *
 * Context: @t's lock held.
 */
void vmt_enabled_evict_dropped(struct vmt_target *t)
{
	if (t->evict_pending)
		atomic_dec(&vmt_evicts_pending);
	t->evict_pending = false;
}

/**
 * vmt_enabled_flush_stale() - cancel the stale work, waiting for a run in
 * progress
 *
 * Context: process context, at stop, once nothing can queue it any more.
 */
void vmt_enabled_flush_stale(void)
{
	cancel_work_sync(&vmt_stale_work);
	/* Nothing evicts any more: what is pending is dropped with the targets. */
	atomic_set(&vmt_evicts_pending, 0);
	raw_spin_lock_irq(&vmt_calls_lock);
	memset(vmt_calls, 0, sizeof(vmt_calls));
	atomic_set(&vmt_calls_used, 0);
	raw_spin_unlock_irq(&vmt_calls_lock);
}

/**
 * vmt_enabled_attach() - trace @task's address space from its next return
 * to user space: protect it, unless it is a target already
 * @task:	current, after exec; or a new child that has not run yet
 *
 * Context: the fork and exec probes; may not sleep.
 */
void vmt_enabled_attach(struct task_struct *task)
{
	vmt_twork_queue(task);
}

struct vmt_young_ctx {
	struct mm_struct *mm;
	bool cleared;		/* some Accessed bit was cleared: flush */
};

static bool vmt_young(void *data, unsigned long addr)
{
	struct vmt_young_ctx *ctx = data;

	if (!vmt_pte_test_and_clear_young(ctx->mm, addr))
		return false;
	ctx->cleared = true;
	return true;
}

/*
 * Victims closer than this share one flush; farther apart, each group has
 * its own. The kernel flushes a range of more than 33 pages whole
 * (tlb_single_page_flush_ceiling), which costs the whole address space's
 * TLB entries: a batch of pages spread over the heap would.
 */
#define VMT_FLUSH_GROUP		(32 * PAGE_SIZE)

/*
 * No CPU may use a TLB entry of the @n victims of @mm that were protected
 * (@done): their ranges are flushed in address order, those within
 * VMT_FLUSH_GROUP of each other together. As many flushes as before
 * batching at worst (one a victim), often fewer.
 */
static void vmt_flush_victims(struct mm_struct *mm, const unsigned long *victims,
			      const bool *done, const bool *huge, u32 n)
{
	unsigned long start[VMT_EVICT_BATCH], end[VMT_EVICT_BATCH], size, lo, hi;
	u32 i, j, m = 0;

	for (i = 0; i < n; i++) {
		if (!done[i])
			continue;
		/* A THP victim is flushed whole. */
		size = huge[i] ? HPAGE_PMD_SIZE : PAGE_SIZE;
		lo = victims[i] & ~(size - 1);
		/* Insertion sort: a batch is at most VMT_EVICT_BATCH pages. */
		for (j = m++; j > 0 && start[j - 1] > lo; j--) {
			start[j] = start[j - 1];
			end[j] = end[j - 1];
		}
		start[j] = lo;
		end[j] = lo + size;
	}
	for (i = 0; i < m; i = j) {
		lo = start[i];
		hi = end[i];
		for (j = i + 1; j < m && start[j] < lo + VMT_FLUSH_GROUP; j++)
			hi = max(hi, end[j]);
		vmt_flush_tlb_range(mm, lo, hi);
	}
}

/**
 * vmt_enabled_evict() - protect what @t's enabled set no longer holds, and
 * its stale range
 * @t:		a target; current belongs to it, or is the stale work
 *
 * Context: process context, no locks held; takes evict_lock, then
 * mmap_read_lock.
 */
void vmt_enabled_evict(struct vmt_target *t)
{
	struct vmt_young_ctx ctx = { .mm = t->mm };
	unsigned long victims[VMT_EVICT_BATCH];
	pte_t old[VMT_EVICT_BATCH];
	bool done[VMT_EVICT_BATCH], huge[VMT_EVICT_BATCH];
	u32 i, n, evicted;
	bool pending;

	mutex_lock(&t->evict_lock);
	raw_spin_lock_irq(&t->lock);
	pending = t->evict_pending;
	t->evict_pending = false;
	raw_spin_unlock_irq(&t->lock);
	mmap_read_lock(t->mm);
	vmt_enabled_protect_stale(t);
	do {
		raw_spin_lock_irq(&t->lock);
		n = vmt_eset_evict(&t->set, victims, VMT_EVICT_BATCH, vmt_young, &ctx);
		raw_spin_unlock_irq(&t->lock);

		evicted = 0;
		for (i = 0; i < n; i++) {
			done[i] = vmt_protect_page(t->mm, victims[i], &old[i], &huge[i]);
			evicted += done[i];
		}
		/* Until every CPU forgets them, the victims are not protected. */
		if (ctx.cleared)
			vmt_flush_tlb_range(t->mm, 0, TASK_SIZE);
		else
			vmt_flush_victims(t->mm, victims, done, huge, n);
		ctx.cleared = false;

		for (i = 0; i < n; i++)
			if (done[i])
				vmt_log_evict(t, victims[i], old[i], huge[i]);
		raw_spin_lock_irq(&t->lock);
		t->evictions += evicted;
		raw_spin_unlock_irq(&t->lock);
	} while (n == VMT_EVICT_BATCH);
	mmap_read_unlock(t->mm);
	mutex_unlock(&t->evict_lock);
	if (pending)
		atomic_dec(&vmt_evicts_pending);
}

/**
 * vmt_enabled_quiesce() - wait until no eviction work is queued or running
 *
 * Context: process context; the probes are detached, so no work is queued
 * any more. Threads that sleep in a system call with a work queued are
 * woken as by a signal (TIF_NOTIFY_SIGNAL: an interrupted call is
 * restarted), so that stop does not wait for their sleep to end.
 */
void vmt_enabled_quiesce(void)
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
}
