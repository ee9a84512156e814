/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracing session's state: its settings and whether tracing is on, with
 * the accessors the probes read it by. Its lifecycle is core.c's; the counts
 * of what was left out are each concern's own.
 */
#ifndef _VMTRACE_SESSION_H
#define _VMTRACE_SESSION_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <uapi/linux/vmtrace.h>

#include "base/settings.h"

/*
 * struct vmt_session - the one tracing session
 * @lock:	serializes configure, start, stop and status; taken before a
 *		target's mmap_lock (protecting its pages) and the rings' lock
 * @state:	VMT_STATE_*; written under @lock, read by sysfs without it
 * @tracing:	the probes act; see vmt_session_tracing()
 * @settings:	what the last configure set; immutable while tracing, so
 *		the probes read it without a lock
 * @configured:	configure succeeded at least once
 */
struct vmt_session {
	struct mutex lock;	/* see above */
	enum vmt_state state;
	bool tracing;
	struct vmt_settings settings;
	bool configured;
};

extern struct vmt_session vmt_session;

int vmt_settings_check(const struct vmt_settings *settings);

/*
 * The memory-ordering rule of the whole module, written once: start fills
 * in everything the probes read (the settings, the emptied rings, the
 * traced processes and the target table) and only then sets ->tracing,
 * with release; a probe reads ->tracing with acquire, and reads the rest
 * only once it has seen it set. Stop clears it, then waits for every probe
 * that saw it set (tracepoint_synchronize_unregister()) before it changes
 * any of that.
 */
static inline bool vmt_session_tracing(void)
{
	/* Pairs with the release in vmt_session_start(). */
	return smp_load_acquire(&vmt_session.tracing);
}

/* Tracing with page protection (kVMTrace mode): the enabled sets are in use. */
static inline bool vmt_session_protecting(void)
{
	return vmt_session_tracing() && (vmt_session.settings.flags & VMT_CONFIG_PROTECT);
}

/* Tracing with the introspection event @event (a VMT_EVENT_* bit) on. */
static inline bool vmt_session_event_on(u32 event)
{
	return vmt_session_tracing() && (vmt_session.settings.events & event);
}

/*
 * The settings, for a probe that has seen vmt_session_tracing() or code
 * that runs while tracing is on.
 */
static inline const struct vmt_settings *vmt_session_settings(void)
{
	return &vmt_session.settings;
}

#endif /* _VMTRACE_SESSION_H */
