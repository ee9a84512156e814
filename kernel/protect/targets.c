// SPDX-License-Identifier: GPL-2.0
/*
 * The target table. (Which processes a session traces is base/session.c's.)
 *
 * With page protection (VMT_CONFIG_PROTECT), each traced address space is
 * a target, in one of VMT_MAX_TARGETS slots: its pages are protected when
 * it is added, it has its enabled set (enabled_set.c), an MMU notifier
 * (notify.c) and a page-mapping table (pagemap.c). Targets are added at
 * start, and by the task_work of a followed child or an exec'd process
 * before it first runs user code (admit.c); a target whose address space
 * is gone is dropped when another is added, and its slot taken again. At
 * stop every target's pages are mapped back.
 *
 *   nr_targets (published with release)
 *          v
 *   [ mm A | free | mm C | ... | unused ... ]    VMT_MAX_TARGETS slots
 */
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "base/hooks.h"
#include "base/session.h"
#include "protect/evict.h"
#include "protect/notify.h"
#include "protect/pagemap.h"
#include "protect/targets.h"

struct linux_binprm;

static void vmt_targets_reprotect(struct work_struct *work);

/*
 * struct vmt_target_table - the traced address spaces, with protection
 * @slots:	with VMT_CONFIG_PROTECT, VMT_MAX_TARGETS targets; the first
 *		@nr_slots are in use or free (their mm NULL)
 * @nr_slots:	published with release once a target is filled in, read by
 *		the probes with acquire; set to 0 only once they are detached
 * @lock:	serializes adding and dropping targets (start, and the
 *		task_work of a child or an exec'd process), @protect and the
 *		counts of dropped targets; stop takes it only once every
 *		task_work has run
 * @missed:	address spaces left untraced for want of room
 * @events_missed: targets without their page-mapping log or MMU notifier
 * @protect:	what protecting the targets did
 * @restored:	PTEs mapped back at stop
 * @evictions:	and @overflows: of the targets dropped, and of the last
 *		session's once they are gone
 * @reprotections: PTEs protected again by @reprotect_work, and in the
 *		stale ranges of the targets dropped or gone
 * @reprotect_work: the periodic re-protection, when asked for
 */
struct vmt_target_table {
	struct vmt_target *slots;
	u32 nr_slots;
	struct mutex lock;	/* see above */
	atomic64_t missed;
	atomic64_t events_missed;
	struct vmt_protect_counts protect;
	u64 restored;
	u64 evictions;
	u64 overflows;
	atomic64_t reprotections;
	struct delayed_work reprotect_work;
};

static struct vmt_target_table vmt_targets = {
	.lock = __MUTEX_INITIALIZER(vmt_targets.lock),
	.reprotect_work = __DELAYED_WORK_INITIALIZER(vmt_targets.reprotect_work,
						     vmt_targets_reprotect, 0),
};

/**
 * vmt_target_lookup() - the traced address space @mm, if it is one
 * @mm:		an address space
 *
 * Context: any; lockless. Targets are added while the probes run and
 * removed only after they are detached and every eviction has run.
 *
 * Return: the target, or NULL.
 */
struct vmt_target *vmt_target_lookup(struct mm_struct *mm)
{
	struct vmt_target_table *tt = &vmt_targets;
	/* Pairs with the release in vmt_target_add(): entries are filled in. */
	u32 i, n = smp_load_acquire(&tt->nr_slots);

	for (i = 0; i < n; i++)
		/* Pairs with the release in vmt_target_add(): filled in. */
		if (smp_load_acquire(&tt->slots[i].mm) == mm)
			return &tt->slots[i];
	return NULL;
}

/**
 * vmt_target_slot() - the slot @i of the table, for a worker walking it
 * @i:		from 0 up
 *
 * Context: any; lockless, like vmt_target_lookup(): the slot's mm may be
 * NULL (free) or change but under the slot's lock.
 * Return: the slot, or NULL past the last one in use.
 */
struct vmt_target *vmt_target_slot(u32 i)
{
	/* Pairs with the release in vmt_target_add(). */
	return i < smp_load_acquire(&vmt_targets.nr_slots) ? &vmt_targets.slots[i] : NULL;
}

/* @t's counts, on their way out, become the table's; under @t's lock. */
static void __vmt_target_count_out(struct vmt_target_table *tt, struct vmt_target *t)
{
	tt->evictions += t->evictions;
	tt->overflows += t->set.overflows;
	atomic64_add(t->reprotected, &tt->reprotections);
}

/*
 * Drop a target whose address space is gone (its notifier saw the release;
 * without a notifier, nothing uses it any more): its counters go to the
 * table's, its slot is free again. Lockless readers match a slot by its
 * mm, which no live task has any more; the workers take a reference on a
 * slot's mm under its lock, or none. Under the table's lock.
 */
static void vmt_target_drop(struct vmt_target_table *tt, struct vmt_target *t)
{
	struct mm_struct *mm = t->mm;

	vmt_notify_detach(t);
	raw_spin_lock_irq(&t->lock);
	WRITE_ONCE(t->mm, NULL);
	__vmt_target_count_out(tt, t);
	__vmt_target_evict_cancel(t);
	raw_spin_unlock_irq(&t->lock);
	vmt_pagemap_free(t->pagemap);
	t->pagemap = NULL;
	vfree(t->set.entries);
	t->set.entries = NULL;
	mmdrop(mm);
}

static bool vmt_target_gone(struct vmt_target *t)
{
	if (!t->mm)
		return false;
	return t->mn ? READ_ONCE(t->released) : !atomic_read(&t->mm->mm_users);
}

/**
 * vmt_target_add() - trace @mm: protect its pages, give it a set
 * @mm:		the address space of a traced process
 * @tgid:	that process (the first, if several share @mm)
 *
 * The probes are attached first, and the target published before its pages
 * are protected, so that no access to a protected page goes unlogged or
 * unadmitted. Targets whose address space is gone are dropped first, and
 * their slots taken again.
 *
 * Context: process context, tracing on; takes the table's lock and @mm's
 * mmap_lock.
 *
 * Return: the target (@mm's already, if it had one), or NULL when there is
 * no room or memory (counted as missed).
 */
struct vmt_target *vmt_target_add(struct mm_struct *mm, pid_t tgid)
{
	const struct vmt_settings *settings = &vmt_session_alone()->settings;
	struct vmt_target_table *tt = &vmt_targets;
	u32 slots = vmt_eset_slots(settings->enabled_pages);
	void *storage = NULL;
	struct vmt_target *t;
	u32 i, free;

	mutex_lock(&tt->lock);
	t = vmt_target_lookup(mm);
	if (t)
		goto out_unlock;
	free = tt->nr_slots;
	for (i = tt->nr_slots; i-- > 0;) {
		if (vmt_target_gone(&tt->slots[i]))
			vmt_target_drop(tt, &tt->slots[i]);
		if (!tt->slots[i].mm)
			free = i;
	}
	if (free < VMT_MAX_TARGETS)
		storage = vmalloc(vmt_eset_storage(slots));
	if (!storage) {
		atomic64_inc(&tt->missed);
		goto out_unlock;
	}
	t = &tt->slots[free];
	/* Workers may hold the lock of a free slot: they find no mm there. */
	raw_spin_lock_irq(&t->lock);
	vmt_eset_init(&t->set, storage, slots, settings->enabled_pages,
		      settings->policy == VMT_POLICY_CLOCK);
	t->evictions = 0;
	t->stale_start = 0;
	t->stale_end = 0;
	t->reprotected = 0;
	t->evict_pending = false;
	t->released = false;
	raw_spin_unlock_irq(&t->lock);
	t->tgid = tgid;
	t->pagemap = NULL;
	if (settings->events & VMT_EVENT_PAGEMAP) {
		t->pagemap = vmt_pagemap_new(tgid);
		if (!t->pagemap)
			atomic64_inc(&tt->events_missed);
	}
	mmgrab(mm);
	/*
	 * Before the target is published and its pages protected: from then
	 * on the kernel's changes to them are seen. Without it, mappings the
	 * kernel rebuilds are traced again only from the next sweep.
	 */
	if (vmt_notify_attach(t, mm))
		atomic64_inc(&tt->events_missed);
	/* Publish to the lockless vmt_target_lookup(): the fields first. */
	smp_store_release(&t->mm, mm);
	if (free == tt->nr_slots) {
		/* And a new slot after its mm. */
		smp_store_release(&tt->nr_slots, tt->nr_slots + 1);
	}

	mmap_read_lock(mm);
	vmt_protect_mm(mm, &tt->protect);
	mmap_read_unlock(mm);
out_unlock:
	mutex_unlock(&tt->lock);
	return t;
}

/*
 * A reference on @t's address space, if it has one still in use, or NULL.
 * A slot's mm is dropped (vmt_target_drop()) under the slot's lock only:
 * taken under it, the reference is to a live mm_struct.
 */
static struct mm_struct *vmt_target_get_mm(struct vmt_target *t)
{
	struct mm_struct *mm;

	raw_spin_lock_irq(&t->lock);
	mm = READ_ONCE(t->mm);
	if (mm && !mmget_not_zero(mm))
		mm = NULL;
	raw_spin_unlock_irq(&t->lock);
	return mm;
}

/* The address space of the process @tgid, with a reference, or NULL. */
static struct mm_struct *vmt_get_process_mm(pid_t tgid)
{
	struct task_struct *task;
	struct mm_struct *mm;

	struct pid *pid = find_get_pid(tgid);

	task = get_pid_task(pid, PIDTYPE_TGID);
	put_pid(pid);
	if (!task)
		return NULL;
	mm = get_task_mm(task);
	put_task_struct(task);
	return mm;
}

/*
 * System-wide: take a reference on the address space of every user process
 * but the excluded one, up to @max (the rest are counted as missed). Under
 * RCU nothing may sleep, and mmput() might: only references that are kept
 * are taken.
 */
static u32 vmt_targets_collect_mms(struct vmt_target_table *tt, struct mm_struct **mms,
				   pid_t *tgids, u32 max)
{
	struct task_struct *p;
	struct mm_struct *mm;
	u32 n = 0;

	rcu_read_lock();
	for_each_process(p) {
		if ((p->flags & PF_KTHREAD) || !READ_ONCE(p->mm) ||
		    READ_ONCE(p->mm) == vmt_session_alone()->exclude_mm)
			continue;
		if (n == max) {
			atomic64_inc(&tt->missed);
			continue;
		}
		mm = get_task_mm(p);
		if (mm) {
			tgids[n] = task_tgid_nr(p);
			mms[n++] = mm;
		}
	}
	rcu_read_unlock();
	return n;
}

/**
 * vmt_targets_prepare() - session 0's counts from 0 and, with protection,
 * an empty target table, before the probes act: from then on a task_work
 * they queued (after an exec) may add a target, before the targets of the
 * start are protected (vmt_targets_protect())
 * @settings:	session 0's
 *
 * Context: start of session 0, its lock held, tracing off.
 * Return: 0 or -ENOMEM.
 */
int vmt_targets_prepare(const struct vmt_settings *settings)
{
	struct vmt_target_table *tt = &vmt_targets;
	u32 i;

	memset(&tt->protect, 0, sizeof(tt->protect));
	tt->restored = 0;
	atomic64_set(&tt->reprotections, 0);
	tt->evictions = 0;
	tt->overflows = 0;
	atomic64_set(&tt->missed, 0);
	atomic64_set(&tt->events_missed, 0);
	if (!(settings->flags & VMT_CONFIG_PROTECT))
		return 0;
	tt->slots = kvcalloc(VMT_MAX_TARGETS, sizeof(*tt->slots), GFP_KERNEL);
	if (!tt->slots)
		return -ENOMEM;
	for (i = 0; i < VMT_MAX_TARGETS; i++) {
		raw_spin_lock_init(&tt->slots[i].lock);
		mutex_init(&tt->slots[i].evict_lock);
	}
	return 0;
}

/**
 * vmt_targets_protect() - add the address spaces to trace as targets,
 * protecting their pages, and start the periodic re-protection if asked
 *
 * A process that has exited, or has no address space, is passed over.
 * Processes sharing an address space share its target. System-wide, one
 * that finds no room is counted as missed; a process asked for by its pid
 * must be traced.
 *
 * Context: start, the session's lock held, tracing on with protection.
 * Return: 0 or -ENOMEM.
 */
int vmt_targets_protect(void)
{
	const struct vmt_settings *settings = &vmt_session_alone()->settings;
	bool system_wide = settings->flags & VMT_CONFIG_SYSTEM_WIDE;
	struct vmt_target_table *tt = &vmt_targets;
	struct mm_struct **mms;
	pid_t *tgids;
	int err = 0;
	u32 i, n = 0;

	mms = kvcalloc(VMT_MAX_TARGETS, sizeof(*mms), GFP_KERNEL);
	tgids = kvcalloc(VMT_MAX_TARGETS, sizeof(*tgids), GFP_KERNEL);
	if (!mms || !tgids) {
		kvfree(mms);
		kvfree(tgids);
		return -ENOMEM;
	}
	if (system_wide) {
		n = vmt_targets_collect_mms(tt, mms, tgids, VMT_MAX_TARGETS);
	} else {
		for (i = 0; i < settings->nr_pids; i++) {
			mms[n] = vmt_get_process_mm(settings->pids[i]);
			tgids[n] = settings->pids[i];
			if (mms[n])
				n++;
		}
	}
	for (i = 0; i < n; i++) {
		if (!vmt_target_add(mms[i], tgids[i]) && !system_wide)
			err = -ENOMEM;
		mmput(mms[i]);
		if (err)
			break;
	}
	while (++i < n)
		mmput(mms[i]);
	kvfree(mms);
	kvfree(tgids);
	if (!err && settings->reprotect_ms)
		schedule_delayed_work(&tt->reprotect_work,
				      msecs_to_jiffies(settings->reprotect_ms));
	return err;
}

/*
 * The probes are detached and no task_work runs: restore every target's
 * pages and forget them.
 */
static void vmt_targets_unprotect(struct vmt_target_table *tt)
{
	struct vmt_protect_counts restored = {};
	u32 i;

	mutex_lock(&tt->lock);
	/*
	 * Notifier callbacks that saw tracing on may still queue the stale
	 * work: once they are over, the work is waited for, and only then are
	 * the notifiers let go of (their page-mapping tables, which the work
	 * may log to, go with them).
	 */
	vmt_notify_quiesce();
	vmt_stale_work_flush();
	for (i = 0; i < tt->nr_slots; i++)
		vmt_notify_detach(&tt->slots[i]);
	vmt_notify_synchronize();
	for (i = 0; i < tt->nr_slots; i++) {
		struct vmt_target *t = &tt->slots[i];

		if (!t->mm)
			continue;
		/* An address space already torn down has nothing to restore. */
		if (mmget_not_zero(t->mm)) {
			mmap_read_lock(t->mm);
			vmt_unprotect_mm(t->mm, &restored);
			mmap_read_unlock(t->mm);
			mmput(t->mm);
		}
		__vmt_target_count_out(tt, t);
		vmt_pagemap_free(t->pagemap);
		mmdrop(t->mm);
		vfree(t->set.entries);
	}
	WRITE_ONCE(tt->nr_slots, 0);
	kvfree(tt->slots);
	tt->slots = NULL;
	tt->restored = restored.ptes + restored.huge_pmds;
	mutex_unlock(&tt->lock);
}

/**
 * vmt_targets_release() - at stop, once the probes are quiet and every
 * task_work has run: end the re-protection, map every target's pages back,
 * forget the targets
 *
 * Context: session 0's lock held.
 */
void vmt_targets_release(void)
{
	struct vmt_target_table *tt = &vmt_targets;

	cancel_delayed_work_sync(&tt->reprotect_work);
	if (tt->slots)
		vmt_targets_unprotect(tt);
}

/*
 * Every reprotect_ms: protect every page of every target again, enabled
 * ones included, and empty the enabled sets. Pages mapped in a stale
 * window (kernel changes, kernel-mode fault-around) are caught this way too.
 */
static void vmt_targets_reprotect(struct work_struct *work)
{
	struct vmt_target_table *tt = &vmt_targets;
	struct vmt_protect_counts counts = {};
	u32 i;

	/* Pairs with the release in vmt_target_add(). */
	for (i = 0; i < smp_load_acquire(&tt->nr_slots); i++) {
		struct vmt_target *t = &tt->slots[i];
		struct mm_struct *mm = vmt_target_get_mm(t);

		if (!mm)
			continue;
		mmap_read_lock(mm);
		raw_spin_lock_irq(&t->lock);
		vmt_eset_clear(&t->set);
		raw_spin_unlock_irq(&t->lock);
		vmt_protect_mm(mm, &counts);
		mmap_read_unlock(mm);
		mmput(mm);
	}
	atomic64_add(counts.ptes + counts.huge_pmds, &tt->reprotections);
	schedule_delayed_work(&tt->reprotect_work,
			      msecs_to_jiffies(vmt_session_alone()->settings.reprotect_ms));
}

/**
 * vmt_targets_count() - the table's counts, the live targets' with them
 * @status:	filled in
 *
 * Context: session 0's lock held.
 */
void vmt_targets_count(struct vmt_status *status)
{
	struct vmt_target_table *tt = &vmt_targets;
	u32 i;

	status->protected = tt->protect.ptes;
	status->restored = tt->restored;
	status->skipped_vmas = tt->protect.skipped_vmas;
	status->huge_pmds = tt->protect.huge_pmds;
	status->missed += atomic64_read(&tt->missed);
	status->events_missed += atomic64_read(&tt->events_missed);
	/* Dropping a target moves its counts to the table's, under the lock. */
	mutex_lock(&tt->lock);
	status->reprotections = atomic64_read(&tt->reprotections);
	status->evictions = tt->evictions;
	status->overflows = tt->overflows;
	for (i = 0; i < tt->nr_slots; i++) {
		struct vmt_target *t = &tt->slots[i];

		raw_spin_lock_irq(&t->lock);
		if (t->mm) {
			status->evictions += t->evictions;
			status->overflows += t->set.overflows;
			status->reprotections += t->reprotected;
		}
		raw_spin_unlock_irq(&t->lock);
	}
	mutex_unlock(&tt->lock);
}
