// SPDX-License-Identifier: GPL-2.0
/*
 * Each protected address space has an MMU notifier: the kernel calls it
 * around every change it makes to the address space's page tables
 * behind the tracer's back.
 *
 * - Page mappings (pagemap.c): a range unmapped, cleared or migrated, and
 *   the whole address space at exit, ends the (page, frame) pairs in it.
 * - Protection: THP split and collapse, page migration (compaction, NUMA
 *   moves), KSM merging and MADV_DONTNEED clear a range (MMU_NOTIFY_CLEAR)
 *   and then build fresh entries, present, from the VMA's protection, where
 *   protected ones were. The range is marked stale at the start of the
 *   change, and its end queues the stale work (enabled.c), which protects
 *   it again. Migration maps the moved pages back after the notifier's end:
 *   the work passes over entries still under migration and keeps their
 *   range stale, and the migrate:remove_migration_pte trace event, where the
 *   kernel maps a moved page back, queues the work again.
 *
 * The callbacks run in the task making the change (the process itself,
 * kcompactd, khugepaged, ksmd, kswapd), possibly with the kernel's rmap
 * locks held: they take raw spinlocks with interrupts off and queue work,
 * nothing more. Accesses between a change and the stale work's protection
 * go unlogged: the window is the time the work takes to run.
 */
#include <linux/mmu_notifier.h>

#include "events.h"
#include "notify.h"
#include "pagemap.h"
#include "session.h"

#if IS_ENABLED(CONFIG_MMU_NOTIFIER)

static int vmt_notify_start(struct mmu_notifier *mn, const struct mmu_notifier_range *range)
{
	struct vmt_target *t = container_of(mn, struct vmt_target, mn);

	/* Pairs with the release in vmt_session_start(): settings are in place. */
	if (!smp_load_acquire(&vmt_session.tracing))
		return 0;
	/* Protection changes (fork's COW, writeback's clean) keep frames and protnone. */
	if (t->pagemap && vmt_events_on(VMT_EVENT_PAGEMAP) &&
	    (range->event == MMU_NOTIFY_UNMAP || range->event == MMU_NOTIFY_CLEAR ||
	     range->event == MMU_NOTIFY_MIGRATE || range->event == MMU_NOTIFY_EXCLUSIVE))
		vmt_pagemap_forget(t->pagemap, range->mm, range->start, range->end, range->event);
	if (range->event == MMU_NOTIFY_CLEAR || range->event == MMU_NOTIFY_MIGRATE)
		vmt_enabled_mark_stale(t, range->start, range->end);
	return 0;
}

static void vmt_notify_end(struct mmu_notifier *mn, const struct mmu_notifier_range *range)
{
	/* Pairs with the release in vmt_session_start(). */
	if (smp_load_acquire(&vmt_session.tracing) &&
	    (range->event == MMU_NOTIFY_CLEAR || range->event == MMU_NOTIFY_MIGRATE))
		vmt_enabled_queue_stale();
}

/* The address space is being torn down: every page goes. */
static void vmt_notify_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct vmt_target *t = container_of(mn, struct vmt_target, mn);

	if (t->pagemap && vmt_events_on(VMT_EVENT_PAGEMAP))
		vmt_pagemap_forget(t->pagemap, mm, 0, ULONG_MAX, MMU_NOTIFY_RELEASE);
}

static const struct mmu_notifier_ops vmt_notify_ops = {
	.invalidate_range_start = vmt_notify_start,
	.invalidate_range_end = vmt_notify_end,
	.release = vmt_notify_release,
};

/**
 * vmt_notify_attach() - register @t's notifier on its address space
 * @t:		a target whose mm is alive (mm_users held)
 *
 * Context: process context, no mmap_lock held (registering takes it).
 * Return: 0, or the error mmu_notifier_register() gave.
 */
int vmt_notify_attach(struct vmt_target *t)
{
	int err;

	t->mn.ops = &vmt_notify_ops;
	err = mmu_notifier_register(&t->mn, t->mm);
	t->notified = !err;
	return err;
}

/**
 * vmt_notify_detach() - unregister; no callback of @t's runs afterwards
 * @t:		the target; its mm at least mmgrab'ed (it may have exited)
 *
 * Context: process context; may sleep (waits for running callbacks).
 */
void vmt_notify_detach(struct vmt_target *t)
{
	if (t->notified)
		mmu_notifier_unregister(&t->mn, t->mm);
	t->notified = false;
}

#else /* Without notifiers only mprotect is caught: see protect.c. */

int vmt_notify_attach(struct vmt_target *t)
{
	return 0;
}

void vmt_notify_detach(struct vmt_target *t)
{
}

#endif

/*
 * migrate:remove_migration_pte: the kernel has mapped a moved page back,
 * present, in some address space; a target's stale range may hold it.
 */
void vmt_probe_migration_pte(void *data, unsigned long addr, unsigned long pte, int order)
{
	/* Pairs with the release in vmt_session_start(): settings are in place. */
	if (smp_load_acquire(&vmt_session.tracing) &&
	    (vmt_session.settings.flags & VMT_CONFIG_PROTECT))
		vmt_enabled_queue_stale();
}
