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
 *   change, and its end queues the stale work (evict.c), which protects
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
 *
 * The notifier is allocated apart from its target and let go with
 * mmu_notifier_put(): a target whose process exited is dropped while the
 * kernel may still be in one of its callbacks, and the notifier (with the
 * page-mapping table the callbacks use) is freed only once none can be.
 * Its target slot may be in use for another address space by then: the
 * callbacks act only for the address space the slot holds.
 */
#include <linux/mmu_notifier.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "base/hooks.h"
#include "base/session.h"
#include "protect/evict.h"
#include "protect/notify.h"
#include "protect/pagemap.h"
#include "protect/targets.h"

#if IS_ENABLED(CONFIG_MMU_NOTIFIER)

/*
 * struct vmt_notifier - a target's MMU notifier
 * @mn:		registered on the target's address space
 * @t:		the target slot
 * @pagemap:	the target's page-mapping table, if any: it belongs to the
 *		notifier once the target is dropped, and goes with it
 */
struct vmt_notifier {
	struct mmu_notifier mn;
	struct vmt_target *t;
	struct vmt_pagemap_table *pagemap;
};

static int vmt_notify_start(struct mmu_notifier *mn, const struct mmu_notifier_range *range)
{
	struct vmt_notifier *vn = container_of(mn, struct vmt_notifier, mn);

	if (!vmt_session_is_tracing(vmt_session_alone()))
		return 0;
	/* Protection changes (fork's COW, writeback's clean) keep frames and protnone. */
	if (vn->pagemap && vmt_session_event_on(VMT_EVENT_PAGEMAP) &&
	    (range->event == MMU_NOTIFY_UNMAP || range->event == MMU_NOTIFY_CLEAR ||
	     range->event == MMU_NOTIFY_MIGRATE || range->event == MMU_NOTIFY_EXCLUSIVE))
		vmt_pagemap_forget(vn->pagemap, range->mm, range->start, range->end, range->event);
	/* Racing with the slot's reuse, it may mark a range stale for nothing. */
	if ((range->event == MMU_NOTIFY_CLEAR || range->event == MMU_NOTIFY_MIGRATE) &&
	    READ_ONCE(vn->t->mn) == vn)
		vmt_target_mark_stale(vn->t, range->start, range->end);
	return 0;
}

static void vmt_notify_end(struct mmu_notifier *mn, const struct mmu_notifier_range *range)
{
	if (vmt_session_is_tracing(vmt_session_alone()) &&
	    (range->event == MMU_NOTIFY_CLEAR || range->event == MMU_NOTIFY_MIGRATE))
		vmt_stale_work_queue();
}

/*
 * The address space is being torn down: every page goes, and the target
 * may be dropped (vmt_target_add()).
 */
static void vmt_notify_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	struct vmt_notifier *vn = container_of(mn, struct vmt_notifier, mn);
	struct vmt_target *t = vn->t;
	unsigned long flags;

	if (vn->pagemap && vmt_session_event_on(VMT_EVENT_PAGEMAP))
		vmt_pagemap_forget(vn->pagemap, mm, 0, ULONG_MAX, MMU_NOTIFY_RELEASE);
	/* The slot is ours while it holds vn: checked and set under its lock. */
	raw_spin_lock_irqsave(&t->lock, flags);
	if (t->mn == vn)
		t->released = true;
	raw_spin_unlock_irqrestore(&t->lock, flags);
}

/* Notifiers not freed yet: the module's code frees them. */
static atomic_t vmt_notifiers = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(vmt_notifiers_freed);

/* Called once no callback can run any more (an SRCU grace period). */
static void vmt_notify_free(struct mmu_notifier *mn)
{
	struct vmt_notifier *vn = container_of(mn, struct vmt_notifier, mn);

	vmt_pagemap_free(vn->pagemap);
	kfree(vn);
	/* Nothing of the module runs after this but the return. */
	if (atomic_dec_and_test(&vmt_notifiers))
		wake_up_all(&vmt_notifiers_freed);
}

static const struct mmu_notifier_ops vmt_notify_ops = {
	.invalidate_range_start = vmt_notify_start,
	.invalidate_range_end = vmt_notify_end,
	.release = vmt_notify_release,
	.free_notifier = vmt_notify_free,
};

/**
 * vmt_notify_attach() - register a notifier for the target in slot @t on
 * @mm; it takes @t's page-mapping table along
 * @t:		the slot, not published yet
 * @mm:		alive (mm_users held)
 *
 * Context: process context, the target table's lock held, no mmap_lock held
 * (registering takes it).
 * Return: 0, or the error allocating or mmu_notifier_register() gave.
 */
int vmt_notify_attach(struct vmt_target *t, struct mm_struct *mm)
{
	struct vmt_notifier *vn;
	int err;

	vn = kzalloc(sizeof(*vn), GFP_KERNEL);
	if (!vn)
		return -ENOMEM;
	vn->mn.ops = &vmt_notify_ops;
	vn->t = t;
	vn->pagemap = t->pagemap;
	raw_spin_lock_irq(&t->lock);
	WRITE_ONCE(t->mn, vn);
	raw_spin_unlock_irq(&t->lock);
	atomic_inc(&vmt_notifiers);
	err = mmu_notifier_register(&vn->mn, mm);
	if (err) {
		raw_spin_lock_irq(&t->lock);
		WRITE_ONCE(t->mn, NULL);
		raw_spin_unlock_irq(&t->lock);
		kfree(vn);
		atomic_dec(&vmt_notifiers);
	}
	return err;
}

/**
 * vmt_notify_detach() - let go of @t's notifier, and of the page-mapping
 * table it took (@t's becomes NULL); both are freed once no callback can
 * run any more (vmt_notify_synchronize())
 * @t:		the target; its mm at least mmgrab'ed (it may have exited)
 *
 * Context: process context, the target table's lock held; does not wait.
 */
void vmt_notify_detach(struct vmt_target *t)
{
	struct vmt_notifier *vn;

	raw_spin_lock_irq(&t->lock);
	vn = t->mn;
	WRITE_ONCE(t->mn, NULL);
	raw_spin_unlock_irq(&t->lock);
	if (!vn)
		return;
	t->pagemap = NULL;
	mmu_notifier_put(&vn->mn);
}

/**
 * vmt_notify_quiesce() - wait until the callbacks running now are over
 *
 * Context: process context; sleeps.
 */
void vmt_notify_quiesce(void)
{
	mmu_notifier_synchronize();
}

/**
 * vmt_notify_synchronize() - once every notifier was let go of, wait until
 * they are freed: no callback, nor the module's free, runs afterwards
 *
 * Context: process context; sleeps.
 */
void vmt_notify_synchronize(void)
{
	mmu_notifier_synchronize();
	wait_event(vmt_notifiers_freed, !atomic_read(&vmt_notifiers));
}

#else /* Without notifiers only mprotect is caught: see protect.c. */

int vmt_notify_attach(struct vmt_target *t, struct mm_struct *mm)
{
	return 0;
}

void vmt_notify_detach(struct vmt_target *t)
{
}

void vmt_notify_quiesce(void)
{
}

void vmt_notify_synchronize(void)
{
}

#endif

/*
 * migrate:remove_migration_pte: the kernel has mapped a moved page back,
 * present, in some address space; a target's stale range may hold it.
 */
static void vmt_notify_probe_migration_pte(void *data, unsigned long addr,
					   unsigned long pte, int order)
{
	if (vmt_session_protecting())
		vmt_stale_work_queue();
}

static struct vmt_tracepoint_probe vmt_notify_probes[] = {
	{ "remove_migration_pte", vmt_notify_probe_migration_pte },
};

struct vmt_hooks vmt_notify_hooks = {
	.name = "notify",
	VMT_HOOKS_PROBES(vmt_notify_probes),
};
