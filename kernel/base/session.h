/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracing sessions: each one's settings, whether it is on, the
 * processes it traces, and the accessors the probes read them by. Their
 * lifecycle is core.c's; their rings are ring/rings.c's; the counts of
 * what was left out are each concern's own.
 *
 * Up to VMT_MAX_SESSIONS sessions trace at once, each its own processes
 * into its own rings, read by its own collector. Session 0 is the one
 * sysfs drives and the one a collector takes when it is free. Page
 * protection (and with it exact mode), system-wide tracing and the
 * events that are no process's (DMA, every context switch) use machinery
 * of the whole kernel (the target table, the DMA probes): a session that
 * asks for them is session 0 and runs alone (vmt_settings_alone()).
 */
#ifndef _VMTRACE_SESSION_H
#define _VMTRACE_SESSION_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <uapi/linux/vmtrace.h>

#include "base/settings.h"

#define VMT_MAX_SESSIONS	4

struct mm_struct;
struct vmt_ring_set;

/*
 * struct vmt_session - one tracing session
 * @lock:	serializes configure, start, stop and status; taken before a
 *		target's mmap_lock (protecting its pages) and the rings' lock
 * @id:		its index in vmt_sessions
 * @state:	VMT_STATE_*; written under @lock, read by sysfs without it
 * @tracing:	the probes act for it; see vmt_session_tracing()
 * @settings:	what the last configure set; immutable while tracing, so
 *		the probes read it without a lock
 * @configured:	configure succeeded at least once
 * @owner:	the open device file that configured it, NULL when none
 *		holds it; changed under vmt_sessions_lock
 * @owner_tgid:	the process that configured it through @owner (for sysfs's
 *		sessions file), set with @owner
 * @rings:	its ring set (ring/rings.c's)
 * @tgids:	the traced processes: the configured pids, then the children
 *		followed; the first @nr_tgids are in use (0: an exited one's)
 * @nr_tgids:	published with release once an entry is filled in, read by
 *		the probes with acquire
 * @tgids_lock:	serializes changes to @tgids; the fork probe takes it, with
 *		interrupts off
 * @missed:	processes left untraced for want of room in @tgids
 * @exclude_mm:	system-wide, the address space of the process that started
 *		tracing (the collector), which is not traced; pinned with
 *		mmgrab() while tracing, so that the pointer is not reused
 * @exclude_tgid: that process, for tasks that have let go of their mm
 * @dropped:	variable-size data left out of its records since start
 * @events_missed: introspection events that could not be written whole
 */
struct vmt_session {
	struct mutex lock;	/* see above */
	u32 id;
	enum vmt_state state;
	bool tracing;
	struct vmt_settings settings;
	bool configured;
	const void *owner;
	pid_t owner_tgid;
	struct vmt_ring_set *rings;
	pid_t tgids[VMT_MAX_TARGETS];
	u32 nr_tgids;
	raw_spinlock_t tgids_lock;
	atomic64_t missed;
	struct mm_struct *exclude_mm;
	pid_t exclude_tgid;
	atomic64_t dropped;
	atomic64_t events_missed;
};

extern struct vmt_session vmt_sessions[VMT_MAX_SESSIONS];
extern struct mutex vmt_sessions_lock;

int vmt_settings_check(const struct vmt_settings *settings);
bool vmt_settings_alone(const struct vmt_settings *settings);

struct vmt_session *vmt_session_of(struct task_struct *task);
struct vmt_session *vmt_session_of_process(struct task_struct *task);
void vmt_session_tgids_prepare(struct vmt_session *s);
void vmt_session_tgids_release(struct vmt_session *s);
void vmt_session_follow(struct vmt_session *s, struct task_struct *child);
void vmt_session_unfollow(pid_t tgid);

/*
 * The memory-ordering rule of the whole module, written once: start fills
 * in everything the probes read of a session (its settings, its emptied
 * rings, its traced processes and, for session 0, the target table) and
 * only then sets its ->tracing, with release; a probe reads ->tracing with
 * acquire, and reads the rest only once it has seen it set. Stop clears
 * it, then waits for every probe that saw it set
 * (tracepoint_synchronize_unregister()) before it changes any of that.
 */
static inline bool vmt_session_is_tracing(const struct vmt_session *s)
{
	/* Pairs with the release in vmt_session_start(). */
	return smp_load_acquire(&s->tracing);
}

/* Some session is tracing: the probes' first, cheap test. */
static inline bool vmt_session_tracing(void)
{
	int i;

	for (i = 0; i < VMT_MAX_SESSIONS; i++)
		if (READ_ONCE(vmt_sessions[i].tracing))
			return true;
	return false;
}

/*
 * Tracing with page protection (kVMTrace mode): the enabled sets are in use.
 * Only session 0 protects, and it then runs alone.
 */
static inline bool vmt_session_protecting(void)
{
	return vmt_session_is_tracing(&vmt_sessions[0]) &&
	       (vmt_sessions[0].settings.flags & VMT_CONFIG_PROTECT);
}

/* @s, a session the caller found, asked for the event @event (VMT_EVENT_* bits). */
static inline bool vmt_session_wants(const struct vmt_session *s, u32 event)
{
	return s && (s->settings.events & event);
}

/* Some tracing session asked for the event @event: a probe's first test. */
static inline bool vmt_session_event_on(u32 event)
{
	int i;

	for (i = 0; i < VMT_MAX_SESSIONS; i++)
		if (vmt_session_is_tracing(&vmt_sessions[i]) &&
		    (vmt_sessions[i].settings.events & event))
			return true;
	return false;
}

/*
 * Session 0, for the machinery only it uses (protection, exact mode, DMA,
 * system-wide): the caller has seen vmt_session_protecting() or
 * vmt_session_event_on() of an event only session 0 takes, or runs while
 * session 0 traces.
 */
static inline struct vmt_session *vmt_session_alone(void)
{
	return &vmt_sessions[0];
}

#endif /* _VMTRACE_SESSION_H */
