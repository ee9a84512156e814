// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing sessions' lifecycle: each one's configuration and off/on
 * state, driven by the ioctl and sysfs interfaces (module/), and the load
 * and unload of the core. The one file module/ reaches (core.h); it names every
 * concern below it (the hooks table, their start and counts), none names it.
 *
 *   configure --> rings allocated (mappable) --> start --> on --> stop --> off
 *        ^                                                                  |
 *        +------------------------------------------------------------------+
 *
 * Start empties the rings (ring/rings.c), sets up what is traced
 * (protect/targets.c) and then lets the probes act; stop makes them quiet,
 * waits for the work they queued (protect/admit.c) and maps every protected
 * page back. The probes stay attached from load to unload (base/hooks.c).
 * The sessions' state is base/session.c's; each concern keeps its own
 * counters and adds them to the status (its *_count()).
 *
 * A collector's device file takes a session when it configures one
 * (vmt_session_claim()): session 0 when no other file holds it, else
 * another, which it holds until it is closed. sysfs drives session 0.
 */
#include <linux/cpumask.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>

#include "base/compat.h"
#include "base/hooks.h"
#include "base/session.h"
#include "core.h"
#include "events/dma.h"
#include "events/events.h"
#include "events/vma.h"
#include "exact/exact.h"
#include "exact/exact_ranges.h"
#include "fault.h"
#include "protect/admit.h"
#include "protect/notify.h"
#include "protect/protect.h"
#include "protect/targets.h"
#include "ring/emit.h"
#include "ring/rings.h"

/*
 * Every concern's hooks, in attach order; each concern's probes do nothing
 * until tracing is on. The probes stay attached from load to unload (see
 * hooks.c).
 */
static struct vmt_hooks *const vmt_all_hooks[] = {
	&vmt_fault_hooks,
	&vmt_admit_sched_hooks,
	&vmt_events_hooks,
	&vmt_vma_hooks,
	&vmt_admit_hooks,
	&vmt_notify_hooks,
	&vmt_dma_hooks,
	&vmt_exact_hooks,
};

/* Validate settings without applying them: see vmt_settings_check(). */
int vmt_session_check(const struct vmt_settings *settings)
{
	return vmt_settings_check(settings);
}

/* Session 0: sysfs's, and a device file's until it configures one of its own. */
struct vmt_session *vmt_session_default(void)
{
	return &vmt_sessions[0];
}

/* Configure @s, its lock held: see vmt_session_configure(). */
static int __vmt_session_configure(struct vmt_session *s, const struct vmt_settings *next)
{
	int err;

	if (s->state != VMT_STATE_OFF)
		return -EBUSY;
	/* What must run alone is session 0's (see base/session.h). */
	if (s->id != 0 && vmt_settings_alone(next))
		return -EBUSY;
	err = vmt_rings_configure(s->rings, next->ring_records, next->flags);
	if (err)
		return err;
	s->settings = *next;
	s->configured = true;
	return 0;
}

/* @settings checked, with the default ring size filled in, into @next. */
static int vmt_settings_complete(const struct vmt_settings *settings, struct vmt_settings *next)
{
	int err;

	*next = *settings;
	err = vmt_settings_check(next);
	if (!err && !next->ring_records)
		next->ring_records = VMT_DEFAULT_RING_RECORDS;
	return err;
}

/**
 * vmt_session_configure() - replace @s's configuration
 * @s:		the session
 * @settings:	the new settings
 *
 * Allocates the rings when their size changes, so that readers can map them
 * before tracing starts.
 *
 * Return: 0; -EINVAL for bad settings, -EBUSY while tracing, while a ring
 * of another size is mapped, or for settings that must run alone (page
 * protection, system-wide, DMA or every context switch) on a session but
 * session 0; -ENOMEM. Nothing changes on error.
 */
int vmt_session_configure(struct vmt_session *s, const struct vmt_settings *settings)
{
	struct vmt_settings next;
	int err;

	err = vmt_settings_complete(settings, &next);
	if (err)
		return err;
	mutex_lock(&s->lock);
	err = __vmt_session_configure(s, &next);
	mutex_unlock(&s->lock);
	return err;
}

/*
 * A session @owner may take: session 0 unless another file holds it or it
 * traces, else (for settings that need not run alone) the first other one
 * nobody holds that is off. Under vmt_sessions_lock.
 */
static struct vmt_session *vmt_session_free(const struct vmt_settings *settings)
{
	struct vmt_session *s;
	int i;

	for (i = 0; i < VMT_MAX_SESSIONS; i++) {
		s = &vmt_sessions[i];
		if (i && vmt_settings_alone(settings))
			break;
		if (!s->owner && READ_ONCE(s->state) == VMT_STATE_OFF)
			return s;
	}
	return NULL;
}

/**
 * vmt_session_claim() - configure the session of the device file @owner,
 * taking one first if it has none
 * @owner:	the file
 * @sp:		its session: NULL until it takes one, which is set here
 * @settings:	the new settings
 *
 * Return: as vmt_session_configure(); -EBUSY when every session is held
 * or tracing (or, for settings that must run alone, session 0 is).
 */
int vmt_session_claim(const void *owner, struct vmt_session **sp,
		      const struct vmt_settings *settings)
{
	struct vmt_settings next;
	struct vmt_session *s;
	int err;

	err = vmt_settings_complete(settings, &next);
	if (err)
		return err;
	mutex_lock(&vmt_sessions_lock);
	s = *sp ? *sp : vmt_session_free(&next);
	if (!s) {
		err = -EBUSY;
		goto out_unlock;
	}
	mutex_lock(&s->lock);
	err = __vmt_session_configure(s, &next);
	mutex_unlock(&s->lock);
	if (!err && !*sp) {
		s->owner = owner;
		s->owner_tgid = task_tgid_nr(current);
		*sp = s;
	}
out_unlock:
	mutex_unlock(&vmt_sessions_lock);
	return err;
}

/*
 * Stop the probes acting for @s, wait for those running, then for the
 * task_works they queued: after this nothing but the caller touches its
 * rings or its targets. (The probes stay attached: see base/hooks.c.)
 */
static void __vmt_probes_quiesce(struct vmt_session *s)
{
	WRITE_ONCE(s->tracing, false);
	tracepoint_synchronize_unregister();
	vmt_exact_quiesce();
	vmt_admit_quiesce();
	vmt_vma_quiesce();
}

/* Whether another session than @s traces, or @s may not trace beside it. */
static bool vmt_session_crowded(struct vmt_session *s)
{
	bool alone = vmt_settings_alone(&s->settings);
	struct vmt_session *o;
	int i;

	for (i = 0; i < VMT_MAX_SESSIONS; i++) {
		o = &vmt_sessions[i];
		if (o == s || READ_ONCE(o->state) != VMT_STATE_ON)
			continue;
		if (alone || vmt_settings_alone(&o->settings))
			return true;
	}
	return false;
}

/**
 * vmt_session_start() - empty @s's rings and let the probes act for it;
 * with protection, protect the targets
 * @s:		the session
 *
 * Return: 0, -EINVAL when never configured, -EBUSY when already on or when
 * it must run alone and another session traces (or the other way round),
 * -ENOMEM when the targets cannot be set up.
 */
int vmt_session_start(struct vmt_session *s)
{
	int err = 0;

	/* Held while the state changes to on: see vmt_session_crowded(). */
	mutex_lock(&vmt_sessions_lock);
	mutex_lock(&s->lock);
	if (!s->configured) {
		err = -EINVAL;
		goto out_unlock;
	}
	if (s->state == VMT_STATE_ON || vmt_session_crowded(s)) {
		err = -EBUSY;
		goto out_unlock;
	}
	vmt_rings_reset(s->rings, s->settings.flags);
	vmt_session_tgids_prepare(s);
	if (s->id == 0) {
		vmt_admit_start();
		vmt_exact_start();
		vmt_dma_start();
		err = vmt_targets_prepare(&s->settings);
		if (err) {
			vmt_session_tgids_release(s);
			goto out_unlock;
		}
	}
	/* The probes act from here on (see vmt_session_is_tracing()). */
	smp_store_release(&s->tracing, true);
	/*
	 * The dump before protection: exact mode's names become ranges as it
	 * lists the mappings, so that the targets' pages are protected as
	 * exact pages. Protected first, a running target's faults until then
	 * would admit them to its enabled set, present, and never stepped.
	 */
	vmt_events_dump(s);
	if (s->settings.flags & VMT_CONFIG_PROTECT) {
		err = vmt_targets_protect();
		if (err) {
			__vmt_probes_quiesce(s);
			vmt_targets_release();
			vmt_session_tgids_release(s);
			goto out_unlock;
		}
	}
	WRITE_ONCE(s->state, VMT_STATE_ON);
	pr_info("vmtrace: tracing on (session %u)\n", s->id);
out_unlock:
	mutex_unlock(&s->lock);
	mutex_unlock(&vmt_sessions_lock);
	return err;
}

static void __vmt_session_stop(struct vmt_session *s)
{
	/*
	 * Probes first, then the sweep and the evictions: after that nothing
	 * protects a page any more, and restoring leaves no protnone PTE.
	 */
	__vmt_probes_quiesce(s);
	if (s->id == 0)
		vmt_targets_release();
	vmt_session_tgids_release(s);
	WRITE_ONCE(s->state, VMT_STATE_OFF);
	vmt_rings_wake_readers(s->rings);
	pr_info("vmtrace: tracing off (session %u)\n", s->id);
}

/**
 * vmt_session_stop() - detach the probes from @s; its rings keep their records
 * @s:		the session
 *
 * Return: 0, or -EINVAL when tracing was off.
 */
int vmt_session_stop(struct vmt_session *s)
{
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
 * vmt_session_disown() - the device file @owner is closed: @s, if it holds
 * it, is free again; a session but 0, which nothing else can reach, stops
 * @owner:	the file
 * @s:		its session, or NULL
 */
void vmt_session_disown(const void *owner, struct vmt_session *s)
{
	if (!s)
		return;
	mutex_lock(&vmt_sessions_lock);
	if (s->owner == owner) {
		if (s->id != 0)
			vmt_session_stop(s);
		s->owner = NULL;
	}
	mutex_unlock(&vmt_sessions_lock);
}

/**
 * vmt_session_status() - @s's counters over all CPUs
 * @s:		the session
 * @status:	filled in; each concern adds its own counts
 *
 * Counters of other CPUs are read while they may change: each value is a
 * consistent 64-bit load, the sum a snapshot. The counts of what only
 * session 0 does (protection, DMA) are session 0's.
 */
void vmt_session_status(struct vmt_session *s, struct vmt_status *status)
{
	memset(status, 0, sizeof(*status));
	mutex_lock(&s->lock);
	status->state = s->state;
	status->nr_rings = nr_cpu_ids;
	if (s->id == 0) {
		vmt_admit_count(status);
		vmt_dma_count(status);
		vmt_targets_count(status);
	}
	status->missed += atomic64_read(&s->missed);
	status->data_dropped += atomic64_read(&s->dropped);
	status->events_missed += atomic64_read(&s->events_missed);
	vmt_rings_count(s->rings, status);
	mutex_unlock(&s->lock);
}

/**
 * vmt_session_lost_per_cpu() - records each ring of @s dropped since the last start
 * @s:		the session
 * @lost:	filled in, one count per possible CPU in CPU order
 * @max:	room in @lost
 *
 * Return: the number of counts filled in; 0 before the first configure.
 */
u32 vmt_session_lost_per_cpu(struct vmt_session *s, u64 *lost, u32 max)
{
	u32 n;

	/* One ring set throughout (see ring/rings.c). */
	mutex_lock(&s->lock);
	n = vmt_rings_lost_per_cpu(s->rings, lost, max);
	mutex_unlock(&s->lock);
	return n;
}

/**
 * vmt_session_poll() - the device's poll: see vmt_rings_poll()
 * @s:		the file's session
 * @file:	the device
 * @wait:	the poll table
 */
__poll_t vmt_session_poll(struct vmt_session *s, struct file *file, poll_table *wait)
{
	return vmt_rings_poll(s->rings, file, wait, READ_ONCE(s->state) == VMT_STATE_OFF);
}

/**
 * vmt_session_exact() - VMT_IOC_EXACT: see vmt_exact_control(); under
 * session 0's lock, so that no start or stop runs meanwhile
 * @s:		the file's session: exact mode is session 0's
 * @arg:	the request; the counters are filled in
 * @name:	for the _NAME ops from sysfs, the name in the kernel (else NULL:
 *		@arg's name_ptr points to it in user space)
 *
 * Return: 0, -EINVAL or -ENOSPC; -EBUSY for a session but 0.
 */
int vmt_session_exact(struct vmt_session *s, struct vmt_exact_arg *arg, const char *name)
{
	int err;

	if (s->id != 0)
		return -EBUSY;
	mutex_lock(&s->lock);
	err = vmt_exact_control(arg, name);
	mutex_unlock(&s->lock);
	return err;
}

/*
 * The entries of core.h implemented below it, for module/: the exact
 * ranges for sysfs (exact/), the rings' mmap space (ring/rings.c) and a
 * user marker (events/events.c); see the functions they call.
 */
ssize_t vmt_session_exact_show(char *buf)
{
	return vmt_exact_show(buf);
}

int vmt_session_geometry(struct vmt_session *s, struct vmt_geometry *geometry)
{
	return vmt_rings_geometry(s->rings, geometry);
}

int vmt_session_mmap(struct vmt_session *s, struct vm_area_struct *vma)
{
	return vmt_rings_mmap(s->rings, vma);
}

int vmt_session_marker(struct vmt_session *s, u32 id, const void *text, u32 len)
{
	return vmt_marker_emit(s, id, text, len);
}

/* The processes @s traces now, for vmt_sessions_show(): its table's live entries. */
static u32 vmt_session_nr_processes(struct vmt_session *s)
{
	u32 i, n, live = 0;

	/* Pairs with vmt_session_follow()'s release: the entries below n are filled in. */
	n = smp_load_acquire(&s->nr_tgids);
	for (i = 0; i < n; i++)
		live += READ_ONCE(s->tgids[i]) != 0;
	return live;
}

/**
 * vmt_sessions_show() - a line for each session in use, for sysfs
 * @buf:	sysfs's page
 *
 * A session is in use while a device file holds it or it traces; session
 * 0, which sysfs drives, once configured. Each line:
 * its number, on or off, the collector holding it (the process that
 * configured it through its device file; 0 for none, session 0 driven
 * through sysfs), the processes it traces (all, system-wide; none while
 * off), its ring
 * size and the counts of vmt_session_status(). vmt_sessions_lock keeps
 * the holder from changing while a line is made, and is taken before each
 * session's lock, as vmt_session_claim() takes them.
 *
 * Return: the bytes written.
 */
ssize_t vmt_sessions_show(char *buf)
{
	struct vmt_status st;
	u32 ring_records, nr;
	ssize_t len = 0;
	char procs[16];
	bool in_use;
	int i;

	mutex_lock(&vmt_sessions_lock);
	for (i = 0; i < VMT_MAX_SESSIONS; i++) {
		struct vmt_session *s = &vmt_sessions[i];

		/* Its settings as its last configure left them, not half of the next's. */
		mutex_lock(&s->lock);
		in_use = s->owner || s->state == VMT_STATE_ON || (i == 0 && s->configured);
		ring_records = s->settings.ring_records;
		if (s->state == VMT_STATE_ON && (s->settings.flags & VMT_CONFIG_SYSTEM_WIDE)) {
			strscpy(procs, "all", sizeof(procs));
		} else {
			/* The table is start's: an off session traces none. */
			nr = s->state == VMT_STATE_ON ? vmt_session_nr_processes(s) : 0;
			snprintf(procs, sizeof(procs), "%u", nr);
		}
		mutex_unlock(&s->lock);
		if (!in_use)
			continue;
		vmt_session_status(s, &st);
		len += sysfs_emit_at(buf, len,
				     "%d %s collector=%d processes=%s ring_records=%u records=%llu lost=%llu faults=%llu\n",
				     i, st.state == VMT_STATE_ON ? "on" : "off",
				     s->owner ? s->owner_tgid : 0, procs, ring_records,
				     st.records, st.lost, st.faults);
	}
	mutex_unlock(&vmt_sessions_lock);
	return len;
}

/**
 * vmt_session_on() - whether @s traces, for sysfs (without the lock)
 * @s:		the session
 */
bool vmt_session_on(struct vmt_session *s)
{
	return READ_ONCE(s->state) == VMT_STATE_ON;
}

/**
 * vmt_core_init() - at load: the rings' sets, the path buffers, then every
 * hook (they act only once tracing starts)
 *
 * Return: 0, or the error of what could not be set up.
 */
int vmt_core_init(void)
{
	int err;

	vmt_compat_init();
	vmt_rings_init();
	err = vmt_emit_init();
	if (err)
		return err;
	vmt_protect_init();
	vmt_exact_init();
	err = vmt_hooks_attach(vmt_all_hooks, ARRAY_SIZE(vmt_all_hooks));
	if (err) {
		pr_err("vmtrace: cannot attach to the kernel: %d\n", err);
		vmt_protect_exit();
		vmt_emit_exit();
	}
	return err;
}

/**
 * vmt_core_exit() - at unload: stop every session that traces, detach the
 * hooks, free the rings and buffers
 *
 * Context: nothing maps the rings any more (the device holds the module).
 */
void vmt_core_exit(void)
{
	struct vmt_session *s;
	int i;

	for (i = 0; i < VMT_MAX_SESSIONS; i++) {
		s = &vmt_sessions[i];
		mutex_lock(&s->lock);
		if (s->state == VMT_STATE_ON)
			__vmt_session_stop(s);
		vmt_rings_free(s->rings);
		s->configured = false;
		mutex_unlock(&s->lock);
	}
	vmt_hooks_detach(vmt_all_hooks, ARRAY_SIZE(vmt_all_hooks));
	vmt_exact_exit();
	vmt_protect_exit();
	vmt_emit_exit();
}
