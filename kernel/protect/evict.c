// SPDX-License-Identifier: GPL-2.0
/*
 * Protecting pages again, in process context: the pages an enabled set
 * displaces, and the stale ranges the kernel may have mapped back.
 *
 * An eviction runs in the task_work of a thread of the target (admit.c),
 * or in the stale work for a fault from kernel mode: under the target's
 * evict_lock and mmap_read_lock, it protects the stale range but for the
 * enabled pages, then takes the set's victims a batch at a time, protects
 * each under its PTE lock, flushes their TLB entries on every CPU that may
 * hold them, and only then writes their EVICT records. So when a thread
 * runs user code again, its address space has no more enabled pages than
 * the set allows (and the current run's).
 *
 * The stale work protects again the stale ranges the MMU notifiers marked
 * (notify.c) and the get_user_pages() faults of other processes and kernel
 * threads (admit.c), and evicts for the faults from kernel mode, in every
 * target that has either.
 */
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>

#include "base/compat.h"
#include "base/session.h"
#include "protect/evict.h"
#include "protect/pagemap.h"
#include "protect/targets.h"
#include "ring/emit.h"

#define VMT_EVICT_BATCH		VMT_ESET_BATCH_MAX	/* a whole batch a round */

/* Targets whose evict_pending is set, or whose eviction for it runs. */
static atomic_t vmt_evicts_wanted = ATOMIC_INIT(0);

/**
 * vmt_target_mark_stale() - add [@start, @end) to @t's stale range
 * @t:		a target
 * @start:	page-aligned
 * @end:	page-aligned
 *
 * Context: any but an interrupt; does not sleep.
 */
void vmt_target_mark_stale(struct vmt_target *t, unsigned long start, unsigned long end)
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
static void vmt_target_protect_stale(struct vmt_target *t)
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
		vmt_target_mark_stale(t, start, end);
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
		vmt_target_mark_stale(t, start, end);
}

/*
 * The stale work: protect again the stale ranges the MMU notifiers marked
 * (notify.c), and evict for the pages faults from kernel mode admitted, in
 * process context, in every target that has either.
 */
static void vmt_stale_work_fn(struct work_struct *work)
{
	struct vmt_target *t;
	struct mm_struct *mm;
	u32 i;

	for (i = 0; (t = vmt_target_slot(i)); i++) {
		/* A reference on the mm is taken under the lock, or none. */
		raw_spin_lock_irq(&t->lock);
		mm = NULL;
		if (t->stale_start < t->stale_end || t->evict_pending) {
			mm = READ_ONCE(t->mm);
			if (mm && !mmget_not_zero(mm)) {
				/* Gone (exec, exit): the system-call exit probe need not look. */
				__vmt_target_evict_cancel(t);
				mm = NULL;
			}
		}
		raw_spin_unlock_irq(&t->lock);
		if (!mm)
			continue;
		vmt_target_evict(t);
		mmput(mm);
	}
}

static DECLARE_WORK(vmt_stale_work, vmt_stale_work_fn);

/**
 * vmt_stale_work_queue() - have the stale work run (again) soon
 *
 * Context: any; does not sleep.
 */
void vmt_stale_work_queue(void)
{
	queue_work(system_unbound_wq, &vmt_stale_work);
}

/**
 * __vmt_target_evict_cancel() - @t's address space is gone: nothing evicts
 * for it any more
 * @t:		the target
 *
 * Context: @t's lock held.
 */
void __vmt_target_evict_cancel(struct vmt_target *t)
{
	if (t->evict_pending)
		atomic_dec(&vmt_evicts_wanted);
	t->evict_pending = false;
}

/**
 * vmt_stale_work_flush() - cancel the stale work, waiting for a run in
 * progress
 *
 * Context: process context, at stop, once nothing can queue it any more.
 */
void vmt_stale_work_flush(void)
{
	cancel_work_sync(&vmt_stale_work);
	/* Nothing evicts any more: what is pending is dropped with the targets. */
	atomic_set(&vmt_evicts_wanted, 0);
}

/**
 * __vmt_target_want_evict() - a fault from kernel mode left @t an eviction
 * to make: the stale work makes it
 * @t:		the target
 *
 * Context: @t's lock held.
 */
void __vmt_target_want_evict(struct vmt_target *t)
{
	if (!t->evict_pending) {
		t->evict_pending = true;
		atomic_inc(&vmt_evicts_wanted);
	}
}

/* Whether some target has an eviction to make for a fault from kernel mode. */
bool vmt_evicts_pending(void)
{
	return atomic_read(&vmt_evicts_wanted);
}

/*
 * The EVICT record of a page of @t protected again at @addr: @old, its PTE
 * before, says whether it was written and accessed; @huge, a THP protected
 * whole. Context: process context, current is the evicting thread.
 */
static void vmt_evict_emit(struct vmt_target *t, unsigned long addr, pte_t old, bool huge)
{
	struct vmt_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.ref.vaddr = addr;
	rec.ref.pfn = pte_pfn(old);
	if (pte_dirty(old))
		rec.ref.evict_flags |= VMT_EVICT_DIRTY;
	if (pte_young(old))
		rec.ref.evict_flags |= VMT_EVICT_ACCESSED;
	if (huge)
		rec.ref.flags |= VMT_REF_HUGE;
	/* From the stale work, no thread of the process evicts it. */
	vmt_emit_as(vmt_session_alone(), &rec, VMT_REC_EVICT, t->tgid,
		    current->mm == t->mm ? task_pid_nr(current) : 0, NULL, 0);
	if (t->pagemap && rec.ref.pfn && vmt_session_event_on(VMT_EVENT_PAGEMAP))
		vmt_pagemap_log(t->pagemap, addr, rec.ref.pfn, huge);
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
 * vmt_target_evict() - protect what @t's enabled set no longer holds, and
 * its stale range
 * @t:		a target; current belongs to it, or is the stale work
 *
 * Context: process context, no locks held; takes evict_lock, then
 * mmap_read_lock.
 */
void vmt_target_evict(struct vmt_target *t)
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
	vmt_target_protect_stale(t);
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
				vmt_evict_emit(t, victims[i], old[i], huge[i]);
		raw_spin_lock_irq(&t->lock);
		t->evictions += evicted;
		raw_spin_unlock_irq(&t->lock);
	} while (n == VMT_EVICT_BATCH);
	mmap_read_unlock(t->mm);
	mutex_unlock(&t->evict_lock);
	if (pending)
		atomic_dec(&vmt_evicts_wanted);
}
