// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing session: one configuration, one ring per possible CPU, and the
 * off/on state, shared by the ioctl and sysfs interfaces.
 *
 *   configure --> rings allocated (mappable) --> start --> on --> stop --> off
 *        ^                                                                  |
 *        +------------------------------------------------------------------+
 *
 * Rings outlive stop, so a reader can drain them; start empties them. Changing
 * their size frees and reallocates them, which is refused while any is mapped.
 */
#include <linux/cpumask.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "events.h"
#include "notify.h"
#include "pagemap.h"
#include "session.h"

static void vmt_reprotect(struct work_struct *work);

struct vmt_session vmt_session = {
	.lock = __MUTEX_INITIALIZER(vmt_session.lock),
	.rings_lock = __MUTEX_INITIALIZER(vmt_session.rings_lock),
	.state = VMT_STATE_OFF,
	.tgids_lock = __RAW_SPIN_LOCK_UNLOCKED(vmt_session.tgids_lock),
	.targets_lock = __MUTEX_INITIALIZER(vmt_session.targets_lock),
	.reprotect_work = __DELAYED_WORK_INITIALIZER(vmt_session.reprotect_work,
						     vmt_reprotect, 0),
	.readers = __WAIT_QUEUE_HEAD_INITIALIZER(vmt_session.readers),
};

static size_t vmt_ring_stride(u32 ring_records)
{
	return PAGE_ALIGN(vmt_ring_bytes(ring_records));
}

/* Records a ring holds before its readers are woken: a quarter of it. */
static u64 vmt_ring_watermark(const struct vmt_ring *ring)
{
	return (ring->mask + 1) / 4;
}

static void vmt_wake_readers(struct irq_work *work)
{
	wake_up_all(&vmt_session.readers);
}

/**
 * vmt_ring_wakeup() - wake the readers if @cr holds its watermark's worth
 * @cr:		the ring just written to
 *
 * Context: the producer, interrupts off. Waking a wait queue from here could
 * deadlock on the scheduler's locks (a fault taken with them held), so an
 * irq_work does it; it is queued once until it has run.
 */
void vmt_ring_wakeup(struct vmt_cpu_ring *cr)
{
	/* tail comes from the reader: it only decides whether to wake it. */
	u64 unread = cr->ring.head - READ_ONCE(cr->ring.meta->tail);

	if (unread >= vmt_ring_watermark(&cr->ring) && wq_has_sleeper(&vmt_session.readers))
		irq_work_queue(&cr->wakeup);
}

static void vmt_rings_free(struct vmt_cpu_ring **rings)
{
	int cpu;

	if (!rings)
		return;
	for_each_possible_cpu(cpu) {
		if (!rings[cpu])
			continue;
		irq_work_sync(&rings[cpu]->wakeup);
		vfree(rings[cpu]->mem);
		kfree(rings[cpu]);
	}
	kfree(rings);
}

static struct vmt_cpu_ring **vmt_rings_alloc(size_t stride)
{
	struct vmt_cpu_ring **rings;
	int cpu;

	rings = kcalloc(nr_cpu_ids, sizeof(*rings), GFP_KERNEL);
	if (!rings)
		return NULL;
	for_each_possible_cpu(cpu) {
		rings[cpu] = kzalloc(sizeof(*rings[cpu]), GFP_KERNEL);
		if (!rings[cpu])
			goto out_free;
		init_irq_work(&rings[cpu]->wakeup, vmt_wake_readers);
		/* Zeroed, and marked VM_USERMAP for remap_vmalloc_range(). */
		rings[cpu]->mem = vmalloc_user(stride);
		if (!rings[cpu]->mem)
			goto out_free;
	}
	return rings;

out_free:
	vmt_rings_free(rings);
	return NULL;
}

/*
 * Empties every ring of @rings: a fresh start for counts and readers alike.
 * A set nobody can reach yet needs no lock; the published one is emptied
 * under rings_lock (see vmt_rings_publish()).
 */
static void vmt_rings_reset(struct vmt_cpu_ring **rings, size_t stride,
			    const struct vmt_settings *settings)
{
	u32 flags = (settings->flags & VMT_CONFIG_OVERWRITE) ? VMT_RING_OVERWRITE : 0;
	struct vmt_ring_meta *meta;
	struct vmt_cpu_ring *cr;
	int cpu;

	for_each_possible_cpu(cpu) {
		cr = rings[cpu];
		meta = cr->mem;
		/*
		 * A reader may have the control page mapped: its constant
		 * fields are written again below with the same values, never
		 * cleared, so that it never reads them zero.
		 */
		memset(&meta->head, 0, sizeof(*meta) - offsetof(struct vmt_ring_meta, head));
		memset(cr->mem + PAGE_SIZE, 0, stride - PAGE_SIZE);
		cr->faults = 0;
		/* Geometry was checked by vmt_settings_check(): cannot fail. */
		WARN_ON(vmt_ring_init(&cr->ring, cr->mem, settings->ring_records,
				      cpu, flags));
	}
}

/* Empties the published set, laid out for @settings' records and flags. */
static void __vmt_rings_reset(struct vmt_session *s, const struct vmt_settings *settings)
{
	mutex_lock(&s->rings_lock);
	vmt_rings_reset(s->rings, s->ring_stride, settings);
	mutex_unlock(&s->rings_lock);
}

/*
 * vmt_rings_publish() - make @rings, whole, the session's ring set
 *
 * Which lock publishes what, for the ring set:
 *
 * - rings_lock publishes it: s->rings and s->ring_stride change only under
 *   it, and only to a set whose every ring is already laid out
 *   (vmt_rings_reset()); a published set's rings are emptied again only
 *   under it. poll, mmap and geometry, which run without s->lock, read the
 *   set under it alone.
 * - s->lock serializes the writers (configure, start, stop) and is held
 *   around the swap too, so that status and the lost counts, which take
 *   s->lock, see one set throughout.
 * - The producers (probes, event sources, markers) read s->rings with no
 *   lock: they write only while tracing is on, and a set is emptied or
 *   replaced only while it is off and __vmt_probes_quiesce() has waited
 *   for every writer that saw it on.
 * - A set is freed only once it is unpublished (no new reader reaches it),
 *   unmapped (s->mappings, checked under rings_lock, which mmap takes to
 *   count a new mapping) and its wakeups are over (vmt_rings_free()).
 *
 * Return: 0, or -EBUSY while the old set is mapped (@rings is then the
 * caller's still).
 */
static int vmt_rings_publish(struct vmt_session *s, struct vmt_cpu_ring **rings,
			     size_t stride)
{
	struct vmt_cpu_ring **old;

	lockdep_assert_held(&s->lock);
	mutex_lock(&s->rings_lock);
	if (atomic_read(&s->mappings)) {
		mutex_unlock(&s->rings_lock);
		return -EBUSY;
	}
	old = s->rings;
	s->rings = rings;
	s->ring_stride = stride;
	mutex_unlock(&s->rings_lock);
	vmt_rings_free(old);
	return 0;
}

/**
 * vmt_settings_check() - validate settings without applying them
 * @settings:	the settings; a ring_records of 0 means the default
 *
 * Return: 0 or -EINVAL.
 */
int vmt_settings_check(const struct vmt_settings *settings)
{
	u32 n = settings->ring_records;
	u32 i;

	/* At least a page of records, so that rings stay page-aligned. */
	if (n && (n < PAGE_SIZE / VMT_RECORD_SIZE || n > VMT_MAX_RING_RECORDS ||
		  !is_power_of_2(n)))
		return -EINVAL;
	if (settings->flags & ~VMT_CONFIG_FLAGS || settings->events & ~VMT_EVENTS)
		return -EINVAL;
	/*
	 * Pairs are kept per traced address space: there are such only with
	 * protect; the kernel says when they go through MMU notifiers.
	 */
	if ((settings->events & VMT_EVENT_PAGEMAP) &&
	    (!(settings->flags & VMT_CONFIG_PROTECT) || !IS_ENABLED(CONFIG_MMU_NOTIFIER)))
		return -EINVAL;
	if (settings->flags & VMT_CONFIG_PROTECT) {
		if (settings->enabled_pages > VMT_MAX_ENABLED_PAGES ||
		    settings->policy > VMT_POLICY_CLOCK ||
		    settings->reprotect_ms > VMT_MAX_REPROTECT_MS)
			return -EINVAL;
	} else if (settings->enabled_pages || settings->policy || settings->reprotect_ms) {
		return -EINVAL;
	}
	/* System-wide follows every new process already. */
	if (settings->flags & VMT_CONFIG_SYSTEM_WIDE)
		return settings->nr_pids || (settings->flags & VMT_CONFIG_FOLLOW) ? -EINVAL : 0;
	if (!settings->nr_pids || settings->nr_pids > VMT_MAX_PIDS)
		return -EINVAL;
	for (i = 0; i < settings->nr_pids; i++)
		if (settings->pids[i] <= 0)
			return -EINVAL;
	return 0;
}

/**
 * vmt_session_configure() - replace the configuration
 * @settings:	the new settings
 *
 * Allocates the rings when their size changes, so that readers can map them
 * before tracing starts.
 *
 * Return: 0; -EINVAL for bad settings, -EBUSY while tracing or while a ring
 * of another size is mapped, -ENOMEM. Nothing changes on error.
 */
int vmt_session_configure(const struct vmt_settings *settings)
{
	struct vmt_session *s = &vmt_session;
	struct vmt_settings next = *settings;
	int err;

	err = vmt_settings_check(&next);
	if (err)
		return err;
	if (!next.ring_records)
		next.ring_records = VMT_DEFAULT_RING_RECORDS;

	mutex_lock(&s->lock);
	if (s->state != VMT_STATE_OFF) {
		err = -EBUSY;
		goto out_unlock;
	}
	if (!s->rings || next.ring_records != s->settings.ring_records) {
		size_t stride = vmt_ring_stride(next.ring_records);
		struct vmt_cpu_ring **rings = vmt_rings_alloc(stride);

		if (!rings) {
			err = -ENOMEM;
			goto out_unlock;
		}
		/* Whole before any reader can reach it. */
		vmt_rings_reset(rings, stride, &next);
		err = vmt_rings_publish(s, rings, stride);
		if (err) {
			vmt_rings_free(rings);
			goto out_unlock;
		}
	} else {
		__vmt_rings_reset(s, &next);
	}
	s->settings = next;
	s->configured = true;
out_unlock:
	mutex_unlock(&s->lock);
	return err;
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

/**
 * vmt_session_target() - the traced address space @mm, if it is one
 * @mm:		an address space
 *
 * Context: any; lockless. Targets are added while the probes run and
 * removed only after they are detached and every eviction has run.
 *
 * Return: the target, or NULL.
 */
struct vmt_target *vmt_session_target(struct mm_struct *mm)
{
	struct vmt_session *s = &vmt_session;
	/* Pairs with the release in vmt_session_add_target(): entries are filled in. */
	u32 i, n = smp_load_acquire(&s->nr_targets);

	for (i = 0; i < n; i++)
		/* Pairs with the release in vmt_session_add_target(): filled in. */
		if (smp_load_acquire(&s->targets[i].mm) == mm)
			return &s->targets[i];
	return NULL;
}

/**
 * vmt_session_traces() - whether @task's references are traced
 * @task:	a task
 *
 * System-wide, every user task is, but those in the address space of the
 * process that started tracing; otherwise the target processes' tasks.
 *
 * Context: any; lockless, like vmt_session_target().
 */
bool vmt_session_traces(struct task_struct *task)
{
	struct vmt_session *s = &vmt_session;

	if (!task->mm || (task->flags & PF_KTHREAD))
		return false;
	if (s->settings.flags & VMT_CONFIG_SYSTEM_WIDE)
		return task->mm != s->exclude_mm;
	return vmt_session_traces_tgid(task);
}

/**
 * vmt_session_traces_tgid() - whether @task's process is traced, by its
 * thread group id alone
 * @task:	a user task, which may have let go of its address space (exiting)
 *
 * Context: any; lockless.
 */
bool vmt_session_traces_tgid(struct task_struct *task)
{
	struct vmt_session *s = &vmt_session;
	pid_t tgid = task_tgid_nr(task);
	u32 i, n;

	if (task->flags & PF_KTHREAD)
		return false;
	if (s->settings.flags & VMT_CONFIG_SYSTEM_WIDE)
		return tgid != s->exclude_tgid;
	/* Pairs with the releases in start and vmt_session_follow(). */
	n = smp_load_acquire(&s->nr_tgids);
	for (i = 0; i < n; i++)
		if (READ_ONCE(s->tgids[i]) == tgid)
			return true;
	return false;
}

/**
 * vmt_session_follow() - make a target's new child process a target
 * @child:	the child, not running yet
 *
 * Context: the fork probe; may not sleep.
 */
void vmt_session_follow(struct task_struct *child)
{
	struct vmt_session *s = &vmt_session;
	unsigned long flags;

	u32 i;

	raw_spin_lock_irqsave(&s->tgids_lock, flags);
	/* The entry of a process that exited is taken again first. */
	for (i = 0; i < s->nr_tgids; i++) {
		if (!s->tgids[i]) {
			WRITE_ONCE(s->tgids[i], task_tgid_nr(child));
			goto out_unlock;
		}
	}
	if (s->nr_tgids < VMT_MAX_TARGETS) {
		s->tgids[s->nr_tgids] = task_tgid_nr(child);
		/* Publish to vmt_session_traces(): the entry first. */
		smp_store_release(&s->nr_tgids, s->nr_tgids + 1);
	} else {
		atomic64_inc(&s->missed);
	}
out_unlock:
	raw_spin_unlock_irqrestore(&s->tgids_lock, flags);
}

/**
 * vmt_session_unfollow() - a traced process is gone: its entry is free, and
 * a new process that gets its pid is not traced
 * @tgid:	the process
 *
 * Context: the task-free probe (RCU callback); may not sleep.
 */
void vmt_session_unfollow(pid_t tgid)
{
	struct vmt_session *s = &vmt_session;
	unsigned long flags;
	u32 i;

	if (s->settings.flags & VMT_CONFIG_SYSTEM_WIDE)
		return;
	raw_spin_lock_irqsave(&s->tgids_lock, flags);
	for (i = 0; i < s->nr_tgids; i++) {
		if (s->tgids[i] == tgid) {
			WRITE_ONCE(s->tgids[i], 0);
			break;
		}
	}
	raw_spin_unlock_irqrestore(&s->tgids_lock, flags);
}

/*
 * Drop a target whose address space is gone (its notifier saw the release;
 * without a notifier, nothing uses it any more): its counters go to the
 * session's, its slot is free again. Lockless readers match a slot by its
 * mm, which no live task has any more; the workers take a reference on a
 * slot's mm under its lock, or none. Under targets_lock.
 */
static void vmt_target_drop(struct vmt_session *s, struct vmt_target *t)
{
	struct mm_struct *mm = t->mm;

	vmt_notify_detach(t);
	raw_spin_lock_irq(&t->lock);
	WRITE_ONCE(t->mm, NULL);
	s->evictions += t->evictions;
	s->overflows += t->set.overflows;
	atomic64_add(t->reprotected, &s->reprotections);
	vmt_enabled_evict_dropped(t);
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
 * vmt_session_add_target() - trace @mm: protect its pages, give it a set
 * @mm:		the address space of a traced process
 * @tgid:	that process (the first, if several share @mm)
 *
 * The probes are attached first, and the target published before its pages
 * are protected, so that no access to a protected page goes unlogged or
 * unadmitted. Targets whose address space is gone are dropped first, and
 * their slots taken again.
 *
 * Context: process context; takes targets_lock and @mm's mmap_lock.
 *
 * Return: the target (@mm's already, if it had one), or NULL when there is
 * no room or memory (counted in ->missed).
 */
struct vmt_target *vmt_session_add_target(struct mm_struct *mm, pid_t tgid)
{
	struct vmt_session *s = &vmt_session;
	u32 slots = vmt_eset_slots(s->settings.enabled_pages);
	void *storage = NULL;
	struct vmt_target *t;
	u32 i, free;

	mutex_lock(&s->targets_lock);
	t = vmt_session_target(mm);
	if (t)
		goto out_unlock;
	free = s->nr_targets;
	for (i = s->nr_targets; i-- > 0;) {
		if (vmt_target_gone(&s->targets[i]))
			vmt_target_drop(s, &s->targets[i]);
		if (!s->targets[i].mm)
			free = i;
	}
	if (free < VMT_MAX_TARGETS)
		storage = vmalloc(vmt_eset_storage(slots));
	if (!storage) {
		atomic64_inc(&s->missed);
		goto out_unlock;
	}
	t = &s->targets[free];
	/* Workers may hold the lock of a free slot: they find no mm there. */
	raw_spin_lock_irq(&t->lock);
	vmt_eset_init(&t->set, storage, slots, s->settings.enabled_pages,
		      s->settings.policy == VMT_POLICY_CLOCK);
	t->evictions = 0;
	t->stale_start = 0;
	t->stale_end = 0;
	t->reprotected = 0;
	t->evict_pending = false;
	t->released = false;
	raw_spin_unlock_irq(&t->lock);
	t->tgid = tgid;
	t->pagemap = NULL;
	if (s->settings.events & VMT_EVENT_PAGEMAP) {
		t->pagemap = vmt_pagemap_new(tgid);
		if (!t->pagemap)
			atomic64_inc(&s->events_missed);
	}
	mmgrab(mm);
	/*
	 * Before the target is published and its pages protected: from then
	 * on the kernel's changes to them are seen. Without it, mappings the
	 * kernel rebuilds are traced again only from the next sweep.
	 */
	if (vmt_notify_attach(t, mm))
		atomic64_inc(&s->events_missed);
	/* Publish to the lockless vmt_session_target(): the fields first. */
	smp_store_release(&t->mm, mm);
	if (free == s->nr_targets) {
		/* And a new slot after its mm. */
		smp_store_release(&s->nr_targets, s->nr_targets + 1);
	}

	mmap_read_lock(mm);
	vmt_protect_mm(mm, &s->protect);
	mmap_read_unlock(mm);
out_unlock:
	mutex_unlock(&s->targets_lock);
	return t;
}

/*
 * System-wide: take a reference on the address space of every user process
 * but the excluded one, up to @max (the rest are counted as missed). Under
 * RCU nothing may sleep, and mmput() might: only references that are kept
 * are taken.
 */
static u32 vmt_collect_mms(struct vmt_session *s, struct mm_struct **mms, pid_t *tgids,
			   u32 max)
{
	struct task_struct *p;
	struct mm_struct *mm;
	u32 n = 0;

	rcu_read_lock();
	for_each_process(p) {
		if ((p->flags & PF_KTHREAD) || !READ_ONCE(p->mm) ||
		    READ_ONCE(p->mm) == s->exclude_mm)
			continue;
		if (n == max) {
			atomic64_inc(&s->missed);
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

/*
 * The targets' table, before the probes act: from then on a task_work
 * they queued (after an exec) may add a target, before the targets of
 * the start are protected.
 */
static int __vmt_alloc_targets(struct vmt_session *s)
{
	u32 i;

	s->targets = kvcalloc(VMT_MAX_TARGETS, sizeof(*s->targets), GFP_KERNEL);
	if (!s->targets)
		return -ENOMEM;
	for (i = 0; i < VMT_MAX_TARGETS; i++) {
		raw_spin_lock_init(&s->targets[i].lock);
		mutex_init(&s->targets[i].evict_lock);
	}
	return 0;
}

/* A target that has exited, or has no address space, is passed over. */
static int __vmt_protect_targets(struct vmt_session *s)
{
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
	if (s->settings.flags & VMT_CONFIG_SYSTEM_WIDE) {
		n = vmt_collect_mms(s, mms, tgids, VMT_MAX_TARGETS);
	} else {
		for (i = 0; i < s->settings.nr_pids; i++) {
			mms[n] = vmt_get_process_mm(s->settings.pids[i]);
			tgids[n] = s->settings.pids[i];
			if (mms[n])
				n++;
		}
	}
	/*
	 * Processes sharing an address space share its target. System-wide,
	 * one that finds no room is counted in ->missed; a process asked for
	 * by its pid must be traced.
	 */
	for (i = 0; i < n; i++) {
		if (!vmt_session_add_target(mms[i], tgids[i]) &&
		    !(s->settings.flags & VMT_CONFIG_SYSTEM_WIDE))
			err = -ENOMEM;
		mmput(mms[i]);
		if (err)
			break;
	}
	while (++i < n)
		mmput(mms[i]);
	kvfree(mms);
	kvfree(tgids);
	return err;
}

/* The probes are detached and no task_work runs: restore and forget. */
static void __vmt_unprotect_targets(struct vmt_session *s)
{
	struct vmt_protect_counts restored = {};
	u32 i;

	mutex_lock(&s->targets_lock);
	/*
	 * Notifier callbacks that saw tracing on may still queue the stale
	 * work: once they are over, the work is waited for, and only then are
	 * the notifiers let go of (their page-mapping tables, which the work
	 * may log to, go with them).
	 */
	vmt_notify_quiesce();
	vmt_enabled_flush_stale();
	for (i = 0; i < s->nr_targets; i++)
		vmt_notify_detach(&s->targets[i]);
	vmt_notify_synchronize();
	for (i = 0; i < s->nr_targets; i++) {
		struct vmt_target *t = &s->targets[i];

		if (!t->mm)
			continue;
		/* An address space already torn down has nothing to restore. */
		if (mmget_not_zero(t->mm)) {
			mmap_read_lock(t->mm);
			vmt_unprotect_mm(t->mm, &restored);
			mmap_read_unlock(t->mm);
			mmput(t->mm);
		}
		s->evictions += t->evictions;
		s->overflows += t->set.overflows;
		atomic64_add(t->reprotected, &s->reprotections);
		vmt_pagemap_free(t->pagemap);
		mmdrop(t->mm);
		vfree(t->set.entries);
	}
	WRITE_ONCE(s->nr_targets, 0);
	kvfree(s->targets);
	s->targets = NULL;
	s->restored = restored.ptes + restored.huge_pmds;
	mutex_unlock(&s->targets_lock);
}

/*
 * Every reprotect_ms: protect every page of every target again, enabled
 * ones included, and empty the enabled sets. Pages mapped in a stale
 * window (kernel changes, kernel-mode fault-around) are caught this way too.
 */
static void vmt_reprotect(struct work_struct *work)
{
	struct vmt_session *s = &vmt_session;
	struct vmt_protect_counts counts = {};
	u32 i;

	/* Pairs with the release in vmt_session_add_target(). */
	for (i = 0; i < smp_load_acquire(&s->nr_targets); i++) {
		struct vmt_target *t = &s->targets[i];
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
	atomic64_add(counts.ptes + counts.huge_pmds, &s->reprotections);
	schedule_delayed_work(&s->reprotect_work,
			      msecs_to_jiffies(s->settings.reprotect_ms));
}

/*
 * Stop the probes acting, wait for those running, then for the task_works
 * they queued: after this nothing but the caller touches the rings or the
 * targets. The probes stay attached from load to unload: switching the
 * page-fault tracepoint on and off patches the fault path's code, which
 * Debian's 6.12 under QEMU TCG does not survive while other CPUs fault.
 */
static void __vmt_probes_quiesce(struct vmt_session *s)
{
	WRITE_ONCE(s->tracing, false);
	tracepoint_synchronize_unregister();
	vmt_enabled_quiesce();
}

/* Once the probes are quiet: forget the collector's address space. */
static void __vmt_unexclude(struct vmt_session *s)
{
	if (s->exclude_mm)
		mmdrop(s->exclude_mm);
	s->exclude_mm = NULL;
}

/**
 * vmt_session_start() - empty the rings and let the probes act; with
 * protection, protect the targets
 *
 * Return: 0, -EINVAL when never configured, -EBUSY when already on,
 * -ENOMEM when the targets cannot be set up.
 */
int vmt_session_start(void)
{
	struct vmt_session *s = &vmt_session;
	int err = 0;

	mutex_lock(&s->lock);
	if (!s->configured) {
		err = -EINVAL;
		goto out_unlock;
	}
	if (s->state == VMT_STATE_ON) {
		err = -EBUSY;
		goto out_unlock;
	}
	__vmt_rings_reset(s, &s->settings);
	memset(&s->protect, 0, sizeof(s->protect));
	s->restored = 0;
	atomic64_set(&s->reprotections, 0);
	s->evictions = 0;
	s->overflows = 0;
	atomic64_set(&s->deferred, 0);
	atomic64_set(&s->missed, 0);
	memcpy(s->tgids, s->settings.pids, s->settings.nr_pids * sizeof(pid_t));
	s->nr_tgids = s->settings.nr_pids;
	atomic64_set(&s->data_dropped, 0);
	atomic64_set(&s->events_missed, 0);
	s->dma_missed_base = vmt_dma_missed();
	if (s->settings.flags & VMT_CONFIG_SYSTEM_WIDE) {
		s->exclude_mm = current->mm;
		s->exclude_tgid = task_tgid_nr(current);
		mmgrab(s->exclude_mm);
	}
	if (s->settings.flags & VMT_CONFIG_PROTECT) {
		err = __vmt_alloc_targets(s);
		if (err) {
			__vmt_unexclude(s);
			goto out_unlock;
		}
	}
	/* The probes act from here on: everything they read is in place. */
	smp_store_release(&s->tracing, true);
	if (s->settings.flags & VMT_CONFIG_PROTECT) {
		err = __vmt_protect_targets(s);
		if (err) {
			__vmt_probes_quiesce(s);
			__vmt_unprotect_targets(s);
			__vmt_unexclude(s);
			goto out_unlock;
		}
		if (s->settings.reprotect_ms)
			schedule_delayed_work(&s->reprotect_work,
					      msecs_to_jiffies(s->settings.reprotect_ms));
	}
	vmt_events_dump();
	WRITE_ONCE(s->state, VMT_STATE_ON);
	pr_info("vmtrace: tracing on\n");
out_unlock:
	mutex_unlock(&s->lock);
	return err;
}

static void __vmt_session_stop(struct vmt_session *s)
{
	/*
	 * Probes first, then the sweep and the evictions: after that nothing
	 * protects a page any more, and restoring leaves no protnone PTE.
	 */
	__vmt_probes_quiesce(s);
	cancel_delayed_work_sync(&s->reprotect_work);
	__vmt_unprotect_targets(s);
	__vmt_unexclude(s);
	WRITE_ONCE(s->state, VMT_STATE_OFF);
	/* Readers drain what is left and see the end. */
	wake_up_all(&s->readers);
	pr_info("vmtrace: tracing off\n");
}

/**
 * vmt_session_stop() - detach the probes; the rings keep their records
 *
 * Return: 0, or -EINVAL when tracing was off.
 */
int vmt_session_stop(void)
{
	struct vmt_session *s = &vmt_session;
	int err = 0;

	mutex_lock(&s->lock);
	if (s->state == VMT_STATE_ON)
		__vmt_session_stop(s);
	else
		err = -EINVAL;
	mutex_unlock(&s->lock);
	return err;
}

/**
 * vmt_session_status() - counters over all CPUs
 * @status:	filled in
 *
 * Counters of other CPUs are read while they may change: each value is a
 * consistent 64-bit load, the sum a snapshot.
 */
void vmt_session_status(struct vmt_status *status)
{
	struct vmt_session *s = &vmt_session;
	struct vmt_cpu_ring *cr;
	int cpu;
	u32 i;

	memset(status, 0, sizeof(*status));
	mutex_lock(&s->lock);
	status->state = s->state;
	status->nr_rings = nr_cpu_ids;
	status->protected = s->protect.ptes;
	status->restored = s->restored;
	status->skipped_vmas = s->protect.skipped_vmas;
	status->huge_pmds = s->protect.huge_pmds;
	status->deferred = atomic64_read(&s->deferred);
	status->missed = atomic64_read(&s->missed);
	status->data_dropped = atomic64_read(&s->data_dropped);
	status->events_missed = atomic64_read(&s->events_missed) +
				vmt_dma_missed() - s->dma_missed_base;
	/* Dropping a target moves its counts to the session's, under the lock. */
	mutex_lock(&s->targets_lock);
	status->reprotections = atomic64_read(&s->reprotections);
	status->evictions = s->evictions;
	status->overflows = s->overflows;
	for (i = 0; i < s->nr_targets; i++) {
		struct vmt_target *t = &s->targets[i];

		raw_spin_lock_irq(&t->lock);
		if (t->mm) {
			status->evictions += t->evictions;
			status->overflows += t->set.overflows;
			status->reprotections += t->reprotected;
		}
		raw_spin_unlock_irq(&t->lock);
	}
	mutex_unlock(&s->targets_lock);
	if (s->rings) {
		for_each_possible_cpu(cpu) {
			cr = s->rings[cpu];
			status->faults += READ_ONCE(cr->faults);
			status->records += READ_ONCE(cr->ring.written);
			status->lost += READ_ONCE(cr->ring.lost);
		}
	}
	mutex_unlock(&s->lock);
}

/**
 * vmt_session_lost_per_cpu() - records each ring dropped since the last start
 * @lost:	filled in, one count per possible CPU in CPU order
 * @max:	room in @lost
 *
 * Return: the number of counts filled in; 0 before the first configure.
 */
u32 vmt_session_lost_per_cpu(u64 *lost, u32 max)
{
	struct vmt_session *s = &vmt_session;
	u32 n = 0;
	int cpu;

	mutex_lock(&s->lock);
	if (s->rings)
		for_each_possible_cpu(cpu)
			if (n < max)
				lost[n++] = READ_ONCE(s->rings[cpu]->ring.lost);
	mutex_unlock(&s->lock);
	return n;
}

/**
 * vmt_session_geometry() - where the rings are in the mmap space
 * @geometry:	filled in
 *
 * Return: 0, or -ENODEV before the first configure.
 */
int vmt_session_geometry(struct vmt_geometry *geometry)
{
	struct vmt_session *s = &vmt_session;
	int err = 0;

	memset(geometry, 0, sizeof(*geometry));
	mutex_lock(&s->rings_lock);
	if (s->rings) {
		geometry->nr_rings = nr_cpu_ids;
		geometry->ring_records = (s->ring_stride - PAGE_SIZE) / VMT_RECORD_SIZE;
		geometry->records_offset = PAGE_SIZE;
		geometry->ring_stride = s->ring_stride;
	} else {
		err = -ENODEV;
	}
	mutex_unlock(&s->rings_lock);
	return err;
}

static void vmt_vma_open(struct vm_area_struct *vma)
{
	atomic_inc(&vmt_session.mappings);
}

static void vmt_vma_close(struct vm_area_struct *vma)
{
	atomic_dec(&vmt_session.mappings);
}

static const struct vm_operations_struct vmt_vm_ops = {
	.open = vmt_vma_open,
	.close = vmt_vma_close,
};

/**
 * vmt_session_mmap() - map one ring's control page or its records
 * @vma:	offset c * ring_stride: ring c's control page, one page, any
 *		protection; offset c * ring_stride + PAGE_SIZE: its records,
 *		all of them, read-only
 *
 * Return: 0; -ENODEV before the first configure; -EINVAL for an offset or
 * length that is neither; -EPERM for writable records.
 */
int vmt_session_mmap(struct vm_area_struct *vma)
{
	struct vmt_session *s = &vmt_session;
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 cpu, within;
	int err = -EINVAL;

	mutex_lock(&s->rings_lock);
	if (!s->rings) {
		err = -ENODEV;
		goto out_unlock;
	}
	cpu = div64_u64_rem(offset, s->ring_stride, &within);
	if (cpu >= nr_cpu_ids || !s->rings[cpu])
		goto out_unlock;
	if (within == 0) {
		if (len != PAGE_SIZE)
			goto out_unlock;
	} else if (within == PAGE_SIZE) {
		if (len != s->ring_stride - PAGE_SIZE)
			goto out_unlock;
		if (vma->vm_flags & VM_WRITE) {
			err = -EPERM;
			goto out_unlock;
		}
		vmt_vma_clear_flags(vma, VM_MAYWRITE);
	} else {
		goto out_unlock;
	}
	err = remap_vmalloc_range(vma, s->rings[cpu]->mem, within >> PAGE_SHIFT);
	if (err)
		goto out_unlock;
	vma->vm_ops = &vmt_vm_ops;
	atomic_inc(&s->mappings);
out_unlock:
	mutex_unlock(&s->rings_lock);
	return err;
}

/**
 * vmt_session_poll() - readable when a ring holds a quarter of its records
 * @file:	the device
 * @wait:	the poll table
 *
 * EPOLLIN when some ring reached its watermark, or tracing is off and some
 * ring has records left; EPOLLHUP when tracing is off.
 */
__poll_t vmt_session_poll(struct file *file, poll_table *wait)
{
	struct vmt_session *s = &vmt_session;
	bool off = READ_ONCE(s->state) == VMT_STATE_OFF;
	__poll_t mask = off ? EPOLLHUP : 0;
	int cpu;

	poll_wait(file, &s->readers, wait);
	mutex_lock(&s->rings_lock);
	if (s->rings) {
		for_each_possible_cpu(cpu) {
			struct vmt_ring *ring = &s->rings[cpu]->ring;
			/* Readers' view: the published head, their own tail. */
			u64 unread = smp_load_acquire(&ring->meta->head) -
				     READ_ONCE(ring->meta->tail);

			if (unread && (off || unread >= vmt_ring_watermark(ring)))
				mask |= EPOLLIN | EPOLLRDNORM;
		}
	}
	mutex_unlock(&s->rings_lock);
	return mask;
}

/* Module unload: nothing maps the rings any more (the device holds the module). */
void vmt_session_exit(void)
{
	struct vmt_session *s = &vmt_session;

	mutex_lock(&s->lock);
	if (s->state == VMT_STATE_ON)
		__vmt_session_stop(s);
	vmt_rings_free(s->rings);
	s->rings = NULL;
	s->configured = false;
	mutex_unlock(&s->lock);
}
