// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing session's lifecycle: one configuration and the off/on state,
 * shared by the ioctl and sysfs interfaces (module/), and the load and
 * unload of the core. The one file module/ reaches (core.h); it names every
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
 * The session's state is base/session.c's; each concern keeps its own
 * counters and adds them to the status (its *_count()).
 */
#include <linux/cpumask.h>
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
	err = vmt_rings_configure(next.ring_records, next.flags);
	if (err)
		goto out_unlock;
	s->settings = next;
	s->configured = true;
out_unlock:
	mutex_unlock(&s->lock);
	return err;
}

/*
 * Stop the probes acting, wait for those running, then for the task_works
 * they queued: after this nothing but the caller touches the rings or the
 * targets. (The probes stay attached: see base/hooks.c.)
 */
static void __vmt_probes_quiesce(struct vmt_session *s)
{
	WRITE_ONCE(s->tracing, false);
	tracepoint_synchronize_unregister();
	vmt_exact_quiesce();
	vmt_admit_quiesce();
	vmt_vma_quiesce();
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
	vmt_rings_reset(s->settings.flags);
	vmt_admit_start();
	vmt_emit_start();
	vmt_exact_start();
	vmt_dma_start();
	err = vmt_targets_prepare(&s->settings);
	if (err)
		goto out_unlock;
	/* The probes act from here on (see vmt_session_tracing()). */
	smp_store_release(&s->tracing, true);
	/*
	 * The dump before protection: exact mode's names become ranges as it
	 * lists the mappings, so that the targets' pages are protected as
	 * exact pages. Protected first, a running target's faults until then
	 * would admit them to its enabled set, present, and never stepped.
	 */
	vmt_events_dump();
	if (s->settings.flags & VMT_CONFIG_PROTECT) {
		err = vmt_targets_protect();
		if (err) {
			__vmt_probes_quiesce(s);
			vmt_targets_release();
			goto out_unlock;
		}
	}
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
	vmt_targets_release();
	WRITE_ONCE(s->state, VMT_STATE_OFF);
	vmt_rings_wake_readers();
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
 * @status:	filled in; each concern adds its own counts
 *
 * Counters of other CPUs are read while they may change: each value is a
 * consistent 64-bit load, the sum a snapshot.
 */
void vmt_session_status(struct vmt_status *status)
{
	struct vmt_session *s = &vmt_session;

	memset(status, 0, sizeof(*status));
	mutex_lock(&s->lock);
	status->state = s->state;
	status->nr_rings = nr_cpu_ids;
	vmt_admit_count(status);
	vmt_emit_count(status);
	vmt_dma_count(status);
	vmt_targets_count(status);
	vmt_rings_count(status);
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
	u32 n;

	/* One ring set throughout (see ring/rings.c). */
	mutex_lock(&s->lock);
	n = vmt_rings_lost_per_cpu(lost, max);
	mutex_unlock(&s->lock);
	return n;
}

/**
 * vmt_session_poll() - the device's poll: see vmt_rings_poll()
 * @file:	the device
 * @wait:	the poll table
 */
__poll_t vmt_session_poll(struct file *file, poll_table *wait)
{
	return vmt_rings_poll(file, wait, READ_ONCE(vmt_session.state) == VMT_STATE_OFF);
}

/**
 * vmt_session_exact() - VMT_IOC_EXACT: see vmt_exact_control(); under the
 * session's lock, so that no start or stop runs meanwhile
 * @arg:	the request; the counters are filled in
 * @name:	for the _NAME ops from sysfs, the name in the kernel (else NULL:
 *		@arg's name_ptr points to it in user space)
 *
 * Return: 0, -EINVAL or -ENOSPC.
 */
int vmt_session_exact(struct vmt_exact_arg *arg, const char *name)
{
	struct vmt_session *s = &vmt_session;
	int err;

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

int vmt_session_geometry(struct vmt_geometry *geometry)
{
	return vmt_rings_geometry(geometry);
}

int vmt_session_mmap(struct vm_area_struct *vma)
{
	return vmt_rings_mmap(vma);
}

int vmt_session_marker(u32 id, const void *text, u32 len)
{
	return vmt_marker_emit(id, text, len);
}

/**
 * vmt_session_on() - whether tracing is on, for sysfs (without the lock)
 */
bool vmt_session_on(void)
{
	return READ_ONCE(vmt_session.state) == VMT_STATE_ON;
}

/**
 * vmt_core_init() - at load: the path buffers, then every hook (they act
 * only once tracing starts)
 *
 * Return: 0, or the error of what could not be set up.
 */
int vmt_core_init(void)
{
	int err;

	vmt_compat_init();
	err = vmt_emit_init();
	if (err)
		return err;
	err = vmt_hooks_attach(vmt_all_hooks, ARRAY_SIZE(vmt_all_hooks));
	if (err) {
		pr_err("vmtrace: cannot attach to the kernel: %d\n", err);
		vmt_emit_exit();
	}
	return err;
}

/**
 * vmt_core_exit() - at unload: stop tracing if it is on, detach the hooks,
 * free the rings and buffers
 *
 * Context: nothing maps the rings any more (the device holds the module).
 */
void vmt_core_exit(void)
{
	struct vmt_session *s = &vmt_session;

	mutex_lock(&s->lock);
	if (s->state == VMT_STATE_ON)
		__vmt_session_stop(s);
	vmt_rings_free();
	s->configured = false;
	mutex_unlock(&s->lock);
	vmt_hooks_detach(vmt_all_hooks, ARRAY_SIZE(vmt_all_hooks));
	vmt_emit_exit();
}
